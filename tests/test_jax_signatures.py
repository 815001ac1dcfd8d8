"""jax.numpy's signatures on xgrad.numpy's functions that the array API
standard also has: positional axes (``sum(x, 0)``), JAX's keywords
(``ddof``, ``where``/``initial``, ``size``/``fill_value``,
``preferred_element_type``, ``compute_uv``, ...), against jax (values, and
for float functions first-order derivatives, through ``jnp_cases.check``),
on numpy and array_api_strict. The standard's own calls are checked by
``test_namespace.py::test_signature``."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from conftest import from_np, to_np
from jnp_cases import JCase, check, ids

_r = np.random.default_rng(14)
X = _r.normal(size=(3, 4))
V = _r.normal(size=5)
W = _r.normal(size=(2, 3, 4))
M = X > 0                                   # a where= mask
IDX = np.array([[0, 2, 1], [3, 3, 0], [1, 0, 2]])
S = _r.normal(size=(4, 4))
SPD = S @ S.T + 4 * np.eye(4)
ROW = np.array([[True, False, True, True]])
OOB = np.array([0, 5, -1, -9])             # out-of-bounds indices for axis 1 of X
MS = np.ones((3, 4), dtype=bool)
MS[:, 0] = False                            # two or more entries per row and column


def C(name, fn, *args, order=1, **kw):
    return JCase(name, fn, args, order=order, vmap=kw.pop("vmap", False), **kw)


CASES = [
    # reductions: positional axes, dtype/keepdims, where/initial
    C("sum", lambda ns, x: ns.sum(x, 0), X, id="axis0"),
    C("sum", lambda ns, x: ns.sum(x, 1, None, None, True), X, id="keepdims-positional"),
    C("sum", lambda ns, x, m: ns.sum(x, axis=1, where=m), X, M, id="where"),
    C("sum", lambda ns, x: ns.sum(x, initial=2.5), X, id="initial"),
    C("sum", lambda ns, x, m: ns.sum(x, 0, where=m, initial=1.0, keepdims=True), X, ROW,
      id="where-initial"),
    C("prod", lambda ns, x, m: ns.prod(x, 1, where=m, initial=2.0), X, M, id="where-initial"),
    C("mean", lambda ns, x: ns.mean(x, 1, keepdims=True), X, id="axis-keepdims"),
    C("mean", lambda ns, x, m: ns.mean(x, 1, where=m), X, M, id="where"),
    C("var", lambda ns, x: ns.var(x, ddof=1), X, id="ddof"),
    C("var", lambda ns, x: ns.var(x, 0, None, None, 1), X, id="ddof-positional"),
    C("var", lambda ns, x: ns.var(x, axis=1, correction=1), X, id="correction"),
    C("var", lambda ns, x, m: ns.var(x, 1, where=m), X, M, id="where"),
    C("std", lambda ns, x: ns.std(x, 0, ddof=1, keepdims=True), X, id="ddof"),
    C("std", lambda ns, x, m: ns.std(x, 1, where=m, ddof=1), X, MS, id="where"),
    C("max", lambda ns, x: ns.max(x, 1), X, id="axis"),
    C("max", lambda ns, x, m: ns.max(x, 1, where=m, initial=-1.0), X, M, id="where-initial"),
    C("min", lambda ns, x: ns.min(x, 0, initial=0.2), X, id="initial"),
    C("amax", lambda ns, x: ns.amax(x, 0, keepdims=True), X),
    C("amin", lambda ns, x, m: ns.amin(x, 1, where=m, initial=3.0), X, M),
    C("argmax", lambda ns, x: ns.argmax(x, 1), X, order=0),
    C("argmin", lambda ns, x: ns.argmin(x, 0, keepdims=True), X, order=0),
    C("all", lambda ns, x, m: ns.all(x > -1, 1, where=m), X, M, order=0),
    C("any", lambda ns, x, m: ns.any(x > 1, 0, keepdims=True, where=m), X, M, order=0),
    C("cumsum", lambda ns, x: ns.cumsum(x, 0), X),
    C("count_nonzero", lambda ns, x: ns.count_nonzero(x > 0, 1, True), X, order=0),
    # shape
    C("concatenate", lambda ns, a, b: ns.concatenate([a, b], 1), X, X),
    C("concatenate", lambda ns, a, b: ns.concatenate([a, b], None), X, X, id="flat"),
    C("stack", lambda ns, a, b: ns.stack([a, b], 1), X, X),
    C("stack", lambda ns, a, b: ns.stack((a, b), -1, dtype=ns.float32), X, X, id="dtype",
      rtol=1e-6, atol=1e-6),
    C("squeeze", lambda ns, x: ns.squeeze(ns.reshape(x, (1, 3, 1, 4))), X),
    C("expand_dims", lambda ns, x: ns.expand_dims(x, (0, 2)), X),
    C("reshape", lambda ns, x: ns.reshape(x, (4, 3), "F"), X),
    C("tile", lambda ns, x: ns.tile(x, reps=(2, 1)), X),
    C("repeat", lambda ns, x: ns.repeat(x, repeats=2, axis=0), X),
    C("moveaxis", lambda ns, w: ns.moveaxis(w, source=0, destination=2), W),
    C("take", lambda ns, x, i: ns.take(x, i, 1), X, np.array([0, 3, 3])),
    C("take", lambda ns, x, i: ns.take(x, i, 1), X, OOB, id="fill"),
    C("take", lambda ns, x, i: ns.take(x, i, 1, mode="clip"), X, OOB,
      id="clip"),
    C("take", lambda ns, x, i: ns.take(x, i, 1, mode="wrap"), X, OOB,
      id="wrap"),
    C("take", lambda ns, x, i: ns.take(x, i), X, np.array([0, 11, 12]), id="flat-fill"),
    C("take_along_axis", lambda ns, x, i: ns.take_along_axis(x, i, 1), X,
      np.array([[0, 5], [1, -1], [7, 2]]), id="fill"),
    C("flip", lambda ns, x: ns.flip(x, 0), X),
    C("roll", lambda ns, x: ns.roll(x, 1, 0), X),
    C("diff", lambda ns, x: ns.diff(x, 1, 0), X),
    C("diff", lambda ns, x: ns.diff(x, 2), X, id="n2"),
    C("sort", lambda ns, x: ns.sort(x, 0), X),
    C("sort", lambda ns, x: ns.sort(x, None), X, id="flat"),
    C("argsort", lambda ns, x: ns.argsort(x, 0), X, order=0),
    C("tril", lambda ns, x: ns.tril(x, 1), X),
    C("triu", lambda ns, x: ns.triu(x, -1), X),
    C("broadcast_to", lambda ns, v: ns.broadcast_to(array=v, shape=(2, 5)), V),
    C("where", lambda ns, x: ns.where(x > 0, x, 0.0), X),
    C("round", lambda ns, x: ns.round(x, 2), X, order=0),
    # linear algebra
    C("matmul", lambda ns, a, b: ns.matmul(a, b, precision=None), X, X.T),
    C("matmul", lambda ns, a, b: ns.matmul(a, b, preferred_element_type=ns.float32), X, X.T,
      id="preferred", rtol=1e-5, atol=1e-5),
    C("dot", lambda ns, a, b: ns.dot(a, b, precision="highest"), X, X.T),
    C("inner", lambda ns, a, b: ns.inner(a, b, preferred_element_type=ns.float64), X, X),
    C("tensordot", lambda ns, a, b: ns.tensordot(a, b, 1), X, X.T),
    C("outer", lambda ns, a, b: ns.outer(a, b), V, V),
    C("vecdot", lambda ns, a, b: ns.vecdot(a, b, precision=None), X, X),
    C("linalg.svd", lambda ns, a: ns.linalg.svd(a, compute_uv=False), X),
    C("linalg.svd", lambda ns, a: ns.linalg.svd(a, False, False), X, id="positional"),
    C("linalg.svd", lambda ns, a: ns.linalg.svd(a + a.T, hermitian=True, compute_uv=False), S,
      id="hermitian"),
    C("linalg.eigh", lambda ns, a: ns.linalg.eigh(a, UPLO="L")[0], S),
    C("linalg.eigvalsh", lambda ns, a: ns.linalg.eigvalsh(a, "U", symmetrize_input=False), S,
      order=0),
    C("linalg.pinv", lambda ns, a: ns.linalg.pinv(a, rcond=1e-3), X),
    C("linalg.pinv", lambda ns, a: ns.linalg.pinv(a, 1e-3, False), X, id="positional"),
    C("linalg.cholesky", lambda ns, a: ns.linalg.cholesky(a=a), SPD),
    C("linalg.solve", lambda ns, a, b: ns.linalg.solve(a=a, b=b), SPD, S),
    C("linalg.det", lambda ns, a: ns.linalg.det(a=a), S),
    C("linalg.inv", lambda ns, a: ns.linalg.inv(a=a), SPD),
    C("linalg.matrix_power", lambda ns, a: ns.linalg.matrix_power(a=a, n=2), S),
    C("linalg.slogdet", lambda ns, a: ns.linalg.slogdet(a, method="lu")[1], S),
    C("linalg.qr", lambda ns, a: ns.linalg.qr(a, "r"), S, id="r"),
    C("linalg.matrix_rank", lambda ns, a: ns.linalg.matrix_rank(a, tol=0.5), S, order=0),
    # fft: positional n, axis, norm
    C("fft.fft", lambda ns, x: ns.fft.fft(x, 6, 0), X),
    C("fft.fft", lambda ns, x: ns.fft.fft(x, None, -1, "ortho"), X, id="norm"),
    C("fft.ifft", lambda ns, x: ns.fft.ifft(x, 3, 1), X),
    C("fft.rfft", lambda ns, x: ns.fft.rfft(x, 4, 0), X),
    C("fft.irfft", lambda ns, x: ns.fft.irfft(x, 6, 1), X),
    C("fft.hfft", lambda ns, x: ns.fft.hfft(x, 6, 1), X),
    C("fft.ihfft", lambda ns, x: ns.fft.ihfft(x, 4, 0), X),
    C("fft.fftn", lambda ns, x: ns.fft.fftn(x, (2, 5), (0, 1)), X),
    C("fft.ifftn", lambda ns, x: ns.fft.ifftn(x, None, (1,)), X),
    C("fft.rfftn", lambda ns, x: ns.fft.rfftn(x, (3, 4), None, "forward"), X),
    C("fft.irfftn", lambda ns, x: ns.fft.irfftn(x, (3, 6)), X),
    C("fft.fftshift", lambda ns, x: ns.fft.fftshift(x, 0), X),
    C("fft.ifftshift", lambda ns, x: ns.fft.ifftshift(x, (1,)), X),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(case, xp, jax):
    check(case, xp, jax)


# --------------------------------------------------------------------------
# calls whose results are not float functions of one array

def _eq(got, want):
    got, want = to_np(got), np.asarray(want)
    assert got.shape == want.shape and str(got.dtype) == str(want.dtype), (got, want)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_creation(jax):
    jnp = jax.numpy
    _eq(xnp.zeros(3, xnp.float32), jnp.zeros(3, jnp.float32))
    _eq(xnp.ones((2, 1), xnp.int32), jnp.ones((2, 1), jnp.int32))
    _eq(xnp.full(2, 3.0, xnp.float32), jnp.full(2, 3.0, jnp.float32))
    assert xnp.empty(4, xnp.int8).dtype == xnp.int8
    _eq(xnp.eye(3, 4), jnp.eye(3, 4))
    _eq(xnp.eye(3, 4, 1, xnp.float32), jnp.eye(3, 4, 1, jnp.float32))
    _eq(xnp.eye(N=2, M=3), jnp.eye(N=2, M=3))
    _eq(xnp.linspace(0, 1), jnp.linspace(0, 1))
    _eq(xnp.linspace(0, 1, 5, False), jnp.linspace(0, 1, 5, False))
    v, step = xnp.linspace(0.0, 1.0, 3, retstep=True)
    jv, jstep = jnp.linspace(0.0, 1.0, 3, retstep=True)
    _eq(v, jv)
    assert float(step) == float(jstep)
    _eq(xnp.linspace(np.array([0.0, 1.0]), 2.0, 3, axis=1),
        jnp.linspace(jnp.array([0.0, 1.0]), 2.0, 3, axis=1))
    _eq(xnp.arange(1, 7, 2, xnp.float32), jnp.arange(1, 7, 2, jnp.float32))
    _eq(xnp.asarray([1, 2], xnp.float32), jnp.asarray([1, 2], jnp.float32))
    _eq(xnp.array([[1, 2]], ndmin=4), jnp.array([[1, 2]], ndmin=4))
    _eq(xnp.zeros_like(X, xnp.float32, (2,)), jnp.zeros_like(X, jnp.float32, (2,)))
    _eq(xnp.ones_like(X, shape=(1, 2)), jnp.ones_like(X, shape=(1, 2)))
    _eq(xnp.full_like(X, 2.0, xnp.int32), jnp.full_like(X, 2.0, jnp.int32))
    assert xnp.empty_like(X, shape=(5,)).shape == (5,)
    for a, b in zip(xnp.meshgrid(V[:2], V[:3], sparse=True), jnp.meshgrid(V[:2], V[:3], sparse=True)):
        _eq(a, b)
    assert xnp.can_cast(xnp.float64, xnp.float32, casting="same_kind") == \
        jnp.can_cast(jnp.float64, jnp.float32, casting="same_kind")
    assert not xnp.can_cast(xnp.float64, xnp.float32)
    assert xnp.size(X, 1) == jnp.size(X, 1) and xnp.size(X, (0, 1)) == 12


def test_linspace_is_differentiable_in_its_end_points(jax):
    def f(ns, a, b):
        return ns.sum(ns.linspace(a, b, 5) ** 2)
    g = xgrad.grad(lambda a, b: f(xnp, a, b), argnums=(0, 1))(0.5, 2.0)
    jg = jax.grad(lambda a, b: f(jax.numpy, a, b), argnums=(0, 1))(0.5, 2.0)
    np.testing.assert_allclose(np.array(g, dtype=float), np.array(jg), rtol=1e-12)


def test_size_and_fill_value(xp, jax):
    jnp = jax.numpy
    a = np.array([[0, 3, 0], [2, 0, 5]])
    b = np.array([3.0, 1.0, 1.0, 7.0])
    xa, xb = from_np(xp, a), from_np(xp, b)
    for got, want in [
            (xnp.nonzero(xa, size=5), jnp.nonzero(a, size=5)),
            (xnp.nonzero(xa, size=2, fill_value=-1), jnp.nonzero(a, size=2, fill_value=-1)),
            (xnp.nonzero(xa, size=4, fill_value=(7, 8)), jnp.nonzero(a, size=4, fill_value=(7, 8))),
            (xnp.where(xa, size=3, fill_value=0), jnp.where(a, size=3, fill_value=0)),
            (xnp.where(xa), jnp.where(a)),
            (xnp.unique_values(xb, size=5), (jnp.unique_values(b, size=5),)),
            (xnp.unique_values(xb, size=2), (jnp.unique_values(b, size=2),)),
            (xnp.unique_counts(xb, size=5, fill_value=-1.0),
             jnp.unique_counts(b, size=5, fill_value=-1.0)),
            (xnp.unique_inverse(xb, size=2), jnp.unique_inverse(b, size=2)),
            (xnp.unique_all(xb, size=6), jnp.unique_all(b, size=6))]:
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            g, w = to_np(g), np.asarray(w)
            assert g.shape == w.shape
            np.testing.assert_array_equal(g, w)
    # the values of unique_* with size are differentiable (padding: no derivative)
    g = xgrad.grad(lambda v: xnp.sum(xnp.unique_values(v, size=5, fill_value=0.0) ** 2))(xb)
    jg = jax.grad(lambda v: jnp.sum(jnp.unique_values(v, size=5, fill_value=0.0) ** 2))(b)
    np.testing.assert_allclose(to_np(g), np.asarray(jg))


def test_keywords_of_sorting_and_sets(xp, jax):
    jnp = jax.numpy
    x = from_np(xp, X)
    np.testing.assert_array_equal(to_np(xnp.argsort(x, 1, dtype=xnp.int32 if xp.__name__.endswith(
        "numpy") else xp.int32)), np.asarray(jnp.argsort(X, 1, dtype=jnp.int32)))
    with pytest.raises(TypeError, match="kind"):
        xnp.sort(x, kind="stable")
    with pytest.raises(TypeError, match="order"):
        xnp.argsort(x, order="a")
    s = from_np(xp, np.sort(V))
    v = from_np(xp, X[0])
    np.testing.assert_array_equal(to_np(xnp.searchsorted(s, v, "right", method="compare_all")),
                                  np.asarray(jnp.searchsorted(np.sort(V), X[0], "right")))
    np.testing.assert_array_equal(
        to_np(xnp.isin(element=from_np(xp, IDX), test_elements=from_np(xp, np.array([0, 3])),
                       assume_unique=True, invert=True)),
        np.asarray(jnp.isin(IDX, np.array([0, 3]), True, True)))
    np.testing.assert_allclose(
        to_np(xnp.repeat(from_np(xp, V[:3]), from_np(xp, np.array([1, 2, 1])),
                         total_repeat_length=6)),
        np.asarray(jnp.repeat(V[:3], np.array([1, 2, 1]), total_repeat_length=6)))
    np.testing.assert_allclose(
        to_np(xnp.repeat(from_np(xp, V[:3]), 2, total_repeat_length=4)),
        np.asarray(jnp.repeat(V[:3], 2, total_repeat_length=4)))


def test_take_axis_on_every_backend(xp):
    """``take(x, idx, axis=1)`` on array_api_strict (which allows integer
    index arrays only with integer arrays), values and gradient."""
    x = from_np(xp, X)
    idx = from_np(xp, np.array([[0, 3], [2, 2]]))
    np.testing.assert_allclose(to_np(xnp.take(x, idx, axis=1)), X[:, [[0, 3], [2, 2]]])
    g = xgrad.grad(lambda x: xnp.sum(xnp.take(x, idx, axis=1)))(x)
    want = np.zeros_like(X)
    want[:, 0], want[:, 3], want[:, 2] = 1, 1, 2
    np.testing.assert_allclose(to_np(g), want)


def test_out_where_and_errors(jax):
    jnp = jax.numpy
    x = np.ones(3)
    for f in (xnp.add, xnp.multiply, xnp.maximum, xnp.logaddexp, xnp.logaddexp2,
              xnp.logical_and):
        assert to_np(f(x, x, out=None, where=None)).shape == (3,)
        with pytest.raises(NotImplementedError, match="out"):
            f(x, x, out=x)
        with pytest.raises(NotImplementedError, match="where"):
            f(x, x, where=x > 0)
    assert to_np(xnp.negative(x, out=None)).shape == (3,)
    for f in (lambda: xnp.sum(x, out=x), lambda: xnp.mean(x, out=x), lambda: xnp.stack([x], out=x),
              lambda: xnp.take(x, 0, out=x), lambda: xnp.cumsum(x, out=x),
              lambda: xnp.argmax(x, out=x), lambda: xnp.outer(x, x, x)):
        with pytest.raises(NotImplementedError, match="out"):
            f()
    with pytest.raises(ValueError, match="initial"):
        xnp.max(X, where=M)
    with pytest.raises(ValueError, match="ddof and correction"):
        xnp.var(X, ddof=1, correction=1)
    with pytest.raises(NotImplementedError):
        xnp.reshape(X, (12,), order="A")
    with pytest.raises(ValueError, match="mode"):
        xnp.take(X, np.array([0]), mode="bad")
    # promote_integers
    i = np.arange(4, dtype=np.int32)
    for kw in ({}, {"promote_integers": False}):
        assert str(xnp.sum(i, **kw).dtype) == str(jnp.sum(i, **kw).dtype)
        assert str(xnp.prod(i, **kw).dtype) == str(jnp.prod(i, **kw).dtype)
    # mean with dtype, var with a precomputed mean
    assert str(xnp.mean(i, dtype=xnp.float32).dtype) == "float32"
    np.testing.assert_allclose(xnp.var(X, 1, mean=xnp.ones((3, 1))),
                               jnp.var(X, 1, mean=jnp.ones((3, 1))), rtol=1e-12)


def test_methods_delegate(jax):
    """The ndarray methods of traced values take the same arguments."""
    def f(ns, x):
        return (x.sum(0, where=M).sum() + x.var(1, ddof=1).sum() + x.max(1, initial=0.5).sum()
                + x.reshape((4, 3), order="F")[0, 1] + x.take(np.array([0, 13])).sum()
                + x.mean(1, where=M).sum() + x.std(0, ddof=1, keepdims=True).sum())
    jf = jax.grad(lambda x: jax.numpy.nan_to_num(f(jax.numpy, x)))
    g = xgrad.grad(lambda x: xnp.nan_to_num(f(xnp, x)))(X)
    np.testing.assert_allclose(to_np(g), np.asarray(jf(X)), rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------
# float16 (numpy): values and derivatives keep the dtype, as in JAX

@pytest.mark.parametrize("fn", [
    lambda ns, v: ns.sum(ns.sin(v)),
    lambda ns, v: ns.mean(ns.tanh(v) ** 2),
    lambda ns, v: ns.sum(ns.exp(v) * v),
    lambda ns, v: ns.max(v * v),
    lambda ns, v: ns.sum(ns.log1p(v * v)),
], ids=["sin", "tanh", "exp", "max", "log1p"])
def test_float16(fn, jax):
    a = np.array([0.5, 1.0, -2.0], dtype=np.float16)
    v, g = xgrad.value_and_grad(lambda v: fn(xnp, v))(a)
    jv, jg = jax.value_and_grad(lambda v: fn(jax.numpy, v))(jax.numpy.asarray(a))
    assert str(to_np(v).dtype) == str(np.asarray(jv).dtype) == "float16"
    assert str(to_np(g).dtype) == str(np.asarray(jg).dtype) == "float16"
    # both are float16 roundings: compare with the float64 derivative
    g64 = jax.grad(lambda v: fn(jax.numpy, v))(a.astype(np.float64))
    np.testing.assert_allclose(to_np(g).astype(float), np.asarray(g64), rtol=5e-3, atol=5e-3)
    np.testing.assert_allclose(float(v), float(jv), rtol=5e-3)
    assert str(xnp.sin(a).dtype) == "float16"
    assert str(xgrad.jvp(xnp.sin, (a,), (a,))[1].dtype) == "float16"


def test_max_min_of_nothing_with_initial_and_stack_of_python_numbers(jax):
    jnp = jax.numpy
    for red in ("max", "min"):
        for shape, axis in [((0,), None), ((2, 0), 1)]:
            got = getattr(xnp, red)(np.zeros(shape), axis=axis, initial=-1.0, keepdims=True)
            want = getattr(jnp, red)(jnp.zeros(shape), axis=axis, initial=-1.0, keepdims=True)
            np.testing.assert_array_equal(got, want)
    x = np.array([3.0, 4.0], dtype=np.float32)
    got = xnp.stack([x[0], 1.0, 2])
    want = jnp.stack([jnp.asarray(x)[0], 1.0, 2])
    np.testing.assert_array_equal(got, want)
    assert str(got.dtype) == str(want.dtype)
    g = xgrad.grad(lambda v: xnp.sum(xnp.stack([v[0], 1.0]) ** 2))(np.array([3.0, 4.0]))
    np.testing.assert_array_equal(g, [6.0, 0.0])
