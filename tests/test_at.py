"""``x.at[idx]`` (``xgrad/numpy/_at.py``) against jax's: values on plain arrays
(``xgrad.numpy.at(x)``) and on traced values (``x.at``), JVPs, VJPs, the
second order and vmap (through the jax.numpy harness), for every update,
every index form, repeated indices and the out-of-bounds modes; then what
the harness does not see: the caller's array is never written, hessians
through ``.at``, and ``x[idx] += v`` keeping numpy's meaning."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from jnp_cases import JCase, check, ids

R = np.random.default_rng(3)
X = R.standard_normal((5, 4))
X1 = R.standard_normal(6)
REP = np.asarray([0, 2, 0, 4, 2, 0])          # repeated rows
UNQ = np.asarray([3, 0, 4])
MASK = X1 > 0


def _at(ns, x):
    """``x.at`` for jax arrays and traced values; ``xgrad.numpy.at(x)`` for
    a plain array (which has no ``.at``)."""
    if ns is xnp and not isinstance(x, xgrad.core.Tracer):
        return xnp.at(x)
    return x.at


def U(op, index, oracle=None, **kw):
    """A case function ``x.at[index(i)].<op>(v, **kw)`` of ``(x, v, i)``;
    jax runs ``oracle`` instead where given."""
    def fn(ns, x, v, i=None):
        if oracle is not None and ns is not xnp:
            return oracle(ns, x, v, i)
        return getattr(_at(ns, x)[index(i)], op)(v, **kw)
    return fn


# jax differentiates scatter_mul only with unique_indices=True, so for
# multiply/divide/power at repeated indices the oracle applies the writes one
# at a time (in order; distinct positions each time), and jax's scatter_min's
# JVP in mode="clip" gives NaN: there the oracle clips the indices itself.

def _one_at_a_time(op, rest=()):
    def oracle(ns, x, v, i):
        region = x[(i,) + rest].shape
        vb = ns.broadcast_to(v, region)
        for k in range(i.shape[0]):
            x = getattr(x.at[(i[k],) + rest], op)(vb[k], unique_indices=True)
        return x
    return oracle


def _clipped(op, **kw):
    def oracle(ns, x, v, i):
        n = x.shape[0]
        return getattr(x.at[ns.clip(ns.where(i < 0, i + n, i), 0, n - 1)], op)(v, **kw)
    return oracle


def G(index, **kw):
    def fn(ns, x, i=None):
        return _at(ns, x)[index(i)].get(**kw)
    return fn


def _pos(x):
    return np.abs(x) + 0.5


OPS = ["set", "add", "subtract", "multiply", "divide", "power", "min", "max"]


def _v(op, shape):
    v = R.standard_normal(shape)
    return np.asarray(_pos(v) if op == "power" else v)


def _x(op, x):
    return _pos(x) if op == "power" else x


CASES = []
for _op in OPS:
    _o2 = 1 if _op in ("min", "max") else 2
    _u = dict(unique_indices=True) if _op in ("multiply", "divide", "power") else {}
    _seq = _one_at_a_time(_op) if _u else None
    _seq2 = _one_at_a_time(_op, (slice(1, 3),)) if _u else None
    CASES += [
        JCase(f"at.{_op}", U(_op, lambda i: (1, 2)), (_x(_op, X), _v(_op, ())), order=_o2,
              id="int"),
        JCase(f"at.{_op}", U(_op, lambda i: -1), (_x(_op, X), _v(_op, (4,))), order=_o2,
              id="negative"),
        JCase(f"at.{_op}", U(_op, lambda i: slice(1, 4)), (_x(_op, X), _v(_op, (3, 4))),
              order=_o2, id="slice"),
        JCase(f"at.{_op}", U(_op, lambda i: (Ellipsis, 1)), (_x(_op, X), _v(_op, (5,))),
              order=_o2, id="ellipsis"),
        # (strict=False: array_api_strict indexes with an integer array only when
        # every axis gets an integer: no x[i] of a 2-D x, no x[i, 1:3])
        JCase(f"at.{_op}", U(_op, lambda i: i, **_u), (_x(_op, X), _v(_op, (3, 4)), UNQ),
              order=_o2, id="array", strict=False),
        JCase(f"at.{_op}", U(_op, lambda i: i, _seq), (_x(_op, X), _v(_op, (6, 4)), REP),
              order=_o2, id="repeated", strict=False),
        JCase(f"at.{_op}", U(_op, lambda i: (i, slice(1, 3)), _seq2),
              (_x(_op, X), _v(_op, (6, 2)), REP), order=_o2, id="repeated-tuple", strict=False),
        JCase(f"at.{_op}", U(_op, lambda i: i, _seq), (_x(_op, X1), _v(_op, (6,)), REP),
              order=_o2, id="repeated-1d"),
        JCase(f"at.{_op}", U(_op, lambda i: i, **_u), (_x(_op, X1), _v(_op, ()), MASK), order=_o2,
              id="mask", vmap=False),
        JCase(f"at.{_op}", U(_op, lambda i: i, **_u),
              (_x(_op, X1), _v(_op, ()), np.asarray([1, 9, -2, -8])), order=_o2, id="out-of-bounds"),
        JCase(f"at.{_op}", U(_op, lambda i: i, _clipped(_op, **_u), mode="clip"),
              (_x(_op, X1), _v(_op, (4,)), np.asarray([1, 9, -2, 3])), order=_o2, id="clip",
              strict=_op in ("add", "subtract")),  # clipped indices repeat: see _STRICT_REPEATS
        JCase(f"at.{_op}", U(_op, lambda i: i, mode="drop", indices_are_sorted=True,
                             unique_indices=True),
              (_x(_op, X1), _v(_op, (4,)), np.asarray([0, 2, 7, 5])), order=_o2, id="drop"),
    ]

CASES += [
    JCase("at.set", U("set", lambda i: (None, 2)), (X, R.standard_normal((1, 4))), id="newaxis",
          strict=False),   # array_api_strict's setitem rejects None
    JCase("at.add", U("add", lambda i: (i, i)), (X[:4], R.standard_normal(6), REP[:6] % 4),
          id="two-arrays", strict=False),   # strict: no multi-array gather of an arange
    JCase("at.min", U("min", lambda i: i), (X1, X1[[0, 2, 0]].copy(), np.asarray([0, 2, 0])),
          order=1, id="ties"),
    JCase("at.max", U("max", lambda i: i), (X1, X1[[0, 2, 0]].copy(), np.asarray([0, 2, 0])),
          order=1, id="ties"),
    JCase("at.get", G(lambda i: i), (X, REP), strict=False),   # strict: no x[i] of a 2-D x
    JCase("at.get", G(lambda i: i), (X1, REP), id="1d"),
    JCase("at.get", G(lambda i: (i, slice(None, 2))), (X, UNQ), id="tuple",
          strict=False),   # array_api_strict can't gather x[int_array, slice]
    JCase("at.get", G(lambda i: (Ellipsis, 1)), (X,), id="ellipsis"),
    JCase("at.get", G(lambda i: i), (X1, MASK), id="mask", vmap=False),
    # values only: JAX's default get clips the value but its VJP drops the out-of-bounds
    # entries (the "promise" was broken); xgrad clips both
    JCase("at.get", G(lambda i: i), (X1, np.asarray([1, 9, -2, -8])), id="default-mode", order=0),
    JCase("at.get", G(lambda i: i, mode="clip"), (X1, np.asarray([1, 9, -2, -8])), id="clip"),
    JCase("at.get", G(lambda i: i, mode="fill"), (X1, np.asarray([1, 9, -2, -8])), id="fill"),
    JCase("at.get", G(lambda i: i, mode="fill", fill_value=-3.0), (X1, np.asarray([1, 9, -2, -8])),
          id="fill-value"),
    JCase("at.get", G(lambda i: (i, 1), mode="drop"), (X, np.asarray([1, 7])), id="drop-2d"),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(case, xp, jax):
    check(case, xp, jax)


# ----- what the harness does not see --------------------------------------

@pytest.mark.parametrize("op", OPS)
def test_callers_array_is_never_written(op):
    x = _x(op, X.copy())
    keep = x.copy()
    v = _v(op, (6, 4))
    out = getattr(xnp.at(x)[REP], op)(v)
    np.testing.assert_array_equal(x, keep)
    assert out is not x
    xgrad.grad(lambda v: xnp.sum(getattr(xnp.at(x)[REP], op)(v)))(v)
    xgrad.grad(lambda y: xnp.sum(getattr(y.at[REP], op)(v)))(x)
    np.testing.assert_array_equal(x, keep)


def test_repeated_add_accumulates_unlike_setitem(jax):
    jnp = jax.numpy
    idx = np.asarray([0, 0, 2])
    v = np.asarray([1.0, 2.0, 3.0])
    got = xnp.at(np.zeros(3))[idx].add(v)
    np.testing.assert_allclose(got, [3.0, 0.0, 3.0])
    np.testing.assert_allclose(got, jnp.zeros(3).at[idx].add(v))

    # x[idx] += v keeps numpy's meaning: the last write wins, and the derivative is that of
    # what numpy computes: x[0] = x0 + v1 (v0 is overwritten)
    def f(x, v):
        y = x * 1.0 + v * 0.0       # a traced buffer whichever argument is traced
        y[idx] += v
        return y
    x0 = np.asarray([10.0, 20.0, 30.0])
    want = x0.copy()
    want[idx] += v
    np.testing.assert_allclose(f(x0, v), want)
    np.testing.assert_allclose(xgrad.jacrev(f, argnums=1)(x0, v),
                               [[0, 1, 0], [0, 0, 0], [0, 0, 1]])
    np.testing.assert_allclose(xgrad.jacfwd(f, argnums=1)(x0, v),
                               [[0, 1, 0], [0, 0, 0], [0, 0, 1]])
    np.testing.assert_allclose(xgrad.jacrev(f)(x0, v), np.eye(3))


@pytest.mark.parametrize("op", ["multiply", "power", "min", "max", "divide"])
def test_hessian_through_at(op, jax):
    jnp = jax.numpy
    x0 = _pos(X1) if op == "power" else X1
    # its own draw (not the shared stream, whose state depends on the tests
    # run before), away from 0 where dividing twice by it cancels digits
    v0 = _pos(np.random.default_rng(7).standard_normal(6))
    idx = np.asarray([0, 3, 0, 5, 3, 1])

    def f(x, v):
        return xnp.sum(xnp.sin(getattr(x.at[idx], op)(v * x)))

    def jf(x, v):           # jax: one write at a time (no scatter_mul derivative with repeats)
        w, y = v * x, x
        for k in range(idx.shape[0]):
            y = getattr(y.at[idx[k]], op)(w[k])
        return jnp.sum(jnp.sin(y))
    h = xgrad.hessian(f, argnums=(0, 1))(x0, v0)
    jh = jax.hessian(jf, argnums=(0, 1))(jnp.asarray(x0), jnp.asarray(v0))
    for a, b in zip(jax.tree_util.tree_leaves(h), jax.tree_util.tree_leaves(jh)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)


def test_vmap_with_at_inside(jax):
    jnp = jax.numpy
    idx = np.asarray([1, 1, 3])

    def f(ns):
        return lambda x, v: x.at[idx].add(v).at[0].multiply(v[0]).at[2:].max(v[1])
    got = xgrad.vmap(f(xnp))(X, X[:, :3])
    want = jax.vmap(f(jnp))(jnp.asarray(X), jnp.asarray(X[:, :3]))
    np.testing.assert_allclose(got, want)
    gotv = xgrad.vmap(f(xnp), in_axes=(0, None))(X, X1[:3])
    np.testing.assert_allclose(gotv, jax.vmap(f(jnp), in_axes=(0, None))(jnp.asarray(X),
                                                                         jnp.asarray(X1[:3])))


def test_plain_arrays_outside_transforms():
    x = np.arange(6.0)
    assert type(xnp.at(x)[1].set(5.0)) is np.ndarray
    np.testing.assert_allclose(xnp.at(x)[np.asarray([1, 1])].multiply(3.0), [0, 9, 2, 3, 4, 5])
    np.testing.assert_allclose(xnp.at(x)[2:4].get(), [2, 3])
    np.testing.assert_allclose(xnp.at(x)[np.asarray([0, 0])].apply(lambda a: a + 1.0),
                               [2, 1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match="mode="):
        xnp.at(x)[1].set(1.0, mode="wrap")


def test_creation_results_have_at_outside_transforms(jax):
    jnp = jax.numpy
    made = [xnp.zeros(4), xnp.ones(4), xnp.full(4, 2.0), xnp.empty(4), xnp.arange(4.0),
            xnp.linspace(0.0, 1.0, 4), xnp.asarray([1.0, 2.0, 3.0, 4.0]), xnp.array(X1[:4]),
            xnp.zeros_like(X1[:4]), xnp.ones_like(X1[:4]), xnp.full_like(X1[:4], 3.0)]
    idx = np.asarray([0, 2, 0])
    for x in made:
        got = x.at[idx].add(1.5).at[1].set(-1.0)
        want = jnp.asarray(np.asarray(x)).at[jnp.asarray(idx)].add(1.5).at[1].set(-1.0)
        if x is made[3]:                            # empty: only the written entries are known
            np.testing.assert_array_equal(got[1], want[1])
            continue
        np.testing.assert_array_equal(got, want)
        assert isinstance(got, np.ndarray) and hasattr(got, "at")
    assert xnp.eye(3).at[0, 2].set(5.0)[0, 2] == 5.0
    # the caller's array is not written, and asarray of it shares its values only
    x1 = X1.copy()
    xnp.asarray(x1).at[0].set(100.0)
    np.testing.assert_array_equal(x1, X1)


def test_at_arrays_do_not_spread():
    z = xnp.zeros(3)
    # what numpy (or xgrad.numpy) computes from such an array is a plain ndarray:
    # the subclass never slows an operation after the first
    for y in (z + 1.0, np.sin(z), z * z, xnp.sin(z), xnp.sum(z, keepdims=True), z @ xnp.eye(3),
              xgrad.grad(lambda v: xnp.sum(v ** 2))(z)):
        assert type(y) is np.ndarray, type(y)
    assert type(z.sum()) is np.float64
    assert repr(z) == "array([0., 0., 0.])"
    import pickle
    assert type(pickle.loads(pickle.dumps(z))) is np.ndarray


def test_integer_array_keeps_dtype(jax):
    jnp = jax.numpy
    x = np.arange(5)
    got = xnp.at(x)[np.asarray([1, 1])].add(2)
    assert got.dtype == np.asarray(jnp.arange(5).at[jnp.asarray([1, 1])].add(2)).dtype
    np.testing.assert_array_equal(got, [0, 5, 2, 3, 4])
    np.testing.assert_array_equal(xnp.at(x)[np.asarray([9])].get(mode="fill"),
                                  jnp.arange(5).at[jnp.asarray([9])].get(mode="fill"))
