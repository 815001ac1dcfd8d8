"""The ``linalg`` extension (``xgrad.numpy.linalg``): values against the
backend, first and second derivatives against JAX and finite differences,
``vmap`` against a loop, on numpy and array_api_strict, float32 and float64.

Each case ``f(ns, *args)`` is written once against an array namespace ``ns``
(``xgrad.numpy``, ``jax.numpy``, or the backend itself) and returns an array
or a tuple of arrays. Outputs with a sign ambiguity (eigenvectors, singular
vectors, QR factors) are made sign-invariant inside ``f`` (``V * V[0]`` per
column, QR with a positive diagonal), so that backends and JAX may choose
signs differently. Inputs are well conditioned with well-separated
eigenvalues / singular values, where every derivative is defined.

JAX is the oracle: its result on the float32-rounded input, computed in
float64, serves both dtypes (cached per case), which keeps the file fast.
"""
import math
import zlib

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from helpers import assert_close, from_np, to_np

F32, F64 = "float32", "float64"
# against JAX (scaled by max(1, max|expected|))
TOL = {F32: dict(rtol=2e-3, atol=2e-3), F64: dict(rtol=1e-8, atol=1e-9)}


# --------------------------------------------------------------------------
# inputs

def _orth(rng, n, k):
    q, r = np.linalg.qr(rng.normal(size=(n, k)))
    return q * np.sign(np.diag(r))


def _wellcond(shape, lo=1.0, hi=3.0):
    """Matrices U diag(s) V^T with singular values spread over [lo, hi]."""
    def make(rng):
        *lead, m, n = shape
        k = min(m, n)
        out = np.empty(tuple(lead) + (m, n))
        for idx in np.ndindex(*lead):
            s = np.linspace(lo, hi, k) + rng.uniform(-0.1, 0.1, k) * (hi - lo) / max(k, 2)
            out[idx] = (_orth(rng, m, k) * s) @ _orth(rng, n, k).T
        return out
    return make


def _spd(shape, lo=1.0, hi=4.0):
    """Symmetric positive definite, eigenvalues spread over [lo, hi]."""
    def make(rng):
        *lead, n, _ = shape
        out = np.empty(shape)
        for idx in np.ndindex(*lead):
            w = np.linspace(lo, hi, n) + rng.uniform(-0.1, 0.1, n) * (hi - lo) / max(n, 2)
            q = _orth(rng, n, n)
            a = (q * w) @ q.T
            out[idx] = (a + a.T) / 2
        return out
    return make


def _sym_indef(shape):
    """Symmetric with eigenvalues of both signs, well separated."""
    return _spd(shape, -2.0, 2.0)


def _normal(shape, scale=1.0):
    return lambda rng: rng.normal(size=shape) * scale


# --------------------------------------------------------------------------
# sign-invariant views of the decompositions

def _col_fix(ns, v):
    """Each column times its first entry: invariant under column sign flips."""
    return ns.multiply(v, v[..., :1, :])


def _row_fix(ns, v):
    return ns.multiply(v, v[..., :, :1])


def _eigh(ns, x):
    w, v = ns.linalg.eigh(x)
    return w, _col_fix(ns, v)


def _svd(ns, x, full=False):
    u, s, vh = ns.linalg.svd(x, full_matrices=full)
    return _col_fix(ns, u), s, _row_fix(ns, vh)


def _qr(ns, x, mode="reduced"):
    q, r = ns.linalg.qr(x, mode=mode)
    d = ns.sign(ns.linalg.diagonal(r))
    k = d.shape[-1]
    q = ns.multiply(q[..., :, :k], ns.expand_dims(d, axis=-2))
    return q, ns.multiply(r[..., :k, :], ns.expand_dims(d, axis=-1))


class Case:
    """``f(ns, *args)`` on inputs drawn by ``makers``; ``jax=False`` for
    composites of main-namespace operations (tested elsewhere against JAX),
    checked here by values and finite differences only."""

    def __init__(self, name, f, *makers, tol=1.0, strict=True, jax=True, fd=True):
        self.name, self.f, self.makers, self.tol = name, f, makers, tol
        self.strict, self.jax, self.fd = strict, jax, fd

    def __repr__(self):
        return self.name

    def args(self, dtype, seed=0):
        rng = np.random.default_rng(zlib.crc32(self.name.encode()) + seed)
        return [np.asarray(m(rng), dtype=dtype) for m in self.makers]


CASES = [
    Case("solve[matrix]", lambda ns, a, b: ns.linalg.solve(a, b),
         _wellcond((2, 3, 3)), _normal((2, 3, 2))),
    Case("solve[vector]", lambda ns, a, b: ns.linalg.solve(a, b),
         _wellcond((3, 3)), _normal((3,))),
    Case("solve[broadcast]", lambda ns, a, b: ns.linalg.solve(a, b),
         _wellcond((3, 3)), _normal((2, 3, 2))),
    Case("inv", lambda ns, a: ns.linalg.inv(a), _wellcond((2, 3, 3))),
    Case("det", lambda ns, a: ns.linalg.det(a), _wellcond((2, 3, 3))),
    Case("det[4x4]", lambda ns, a: ns.linalg.det(a), _normal((4, 4))),
    Case("slogdet", lambda ns, a: tuple(ns.linalg.slogdet(a)), _wellcond((2, 3, 3))),
    Case("cholesky", lambda ns, a: ns.linalg.cholesky(a), _spd((2, 3, 3))),
    Case("cholesky[upper]", lambda ns, a: ns.linalg.cholesky(a, upper=True), _spd((3, 3))),
    Case("cholesky[nonsym]", lambda ns, a: ns.linalg.cholesky(a),
         lambda rng: _spd((3, 3))(rng) + np.triu(rng.normal(size=(3, 3)), 1) * 0.3,
         strict=False),
    Case("eigh", _eigh, _sym_indef((2, 3, 3))),
    Case("eigh[4x4]", _eigh, _spd((4, 4))),
    Case("eigvalsh", lambda ns, a: ns.linalg.eigvalsh(a), _sym_indef((2, 3, 3))),
    Case("svd[square,full]", lambda ns, a: _svd(ns, a, full=True), _wellcond((2, 3, 3))),
    Case("svd[tall]", _svd, _wellcond((2, 4, 3))),
    Case("svd[wide]", _svd, _wellcond((3, 5))),
    Case("svdvals", lambda ns, a: ns.linalg.svdvals(a), _wellcond((2, 4, 3))),
    Case("qr[square]", _qr, _wellcond((2, 3, 3))),
    Case("qr[tall]", _qr, _wellcond((2, 4, 3))),
    Case("qr[wide]", _qr, _wellcond((3, 5))),
    Case("qr[complete,wide]", lambda ns, a: _qr(ns, a, "complete"), _wellcond((3, 4))),
    Case("pinv[tall]", lambda ns, a: ns.linalg.pinv(a), _wellcond((2, 4, 3))),
    Case("pinv[wide]", lambda ns, a: ns.linalg.pinv(a), _wellcond((3, 5))),
    Case("vector_norm", lambda ns, x: ns.linalg.vector_norm(x), _normal((2, 3))),
    Case("vector_norm[axis,keepdims]",
         lambda ns, x: ns.linalg.vector_norm(x, axis=1, keepdims=True), _normal((2, 3, 2))),
    Case("vector_norm[axis=(0,2)]", lambda ns, x: ns.linalg.vector_norm(x, axis=(0, 2)),
         _normal((2, 3, 2))),
    Case("vector_norm[ord=1]", lambda ns, x: ns.linalg.vector_norm(x, axis=-1, ord=1),
         _normal((2, 4))),
    Case("vector_norm[ord=inf]", lambda ns, x: ns.linalg.vector_norm(x, axis=-1, ord=math.inf),
         _normal((2, 4))),
    Case("vector_norm[ord=-inf]", lambda ns, x: ns.linalg.vector_norm(x, axis=-1, ord=-math.inf),
         _normal((2, 4))),
    Case("vector_norm[ord=3]", lambda ns, x: ns.linalg.vector_norm(x, axis=-1, ord=3),
         _normal((2, 4))),
    Case("vector_norm[ord=0.5]", lambda ns, x: ns.linalg.vector_norm(x, axis=-1, ord=0.5),
         _normal((2, 4))),
] + [
    Case(f"matrix_norm[{o}]", (lambda o: lambda ns, x: ns.linalg.matrix_norm(x, ord=o))(o),
         _wellcond((2, 3, 4)))
    for o in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf)
] + [
    Case("matrix_norm[keepdims]", lambda ns, x: ns.linalg.matrix_norm(x, ord=2, keepdims=True),
         _wellcond((2, 3, 3))),
    Case("matrix_power[3]", lambda ns, a: ns.linalg.matrix_power(a, 3), _normal((2, 3, 3), 0.6)),
    Case("matrix_power[-2]", lambda ns, a: ns.linalg.matrix_power(a, -2), _wellcond((3, 3))),
    Case("matrix_power[1]", lambda ns, a: ns.linalg.matrix_power(a, 1), _normal((3, 3))),
    Case("cross", lambda ns, x, y: ns.linalg.cross(x, y), _normal((2, 3)), _normal((3,))),
    Case("cross[axis=-2]", lambda ns, x, y: ns.linalg.cross(x, y, axis=-2),
         _normal((3, 2)), _normal((2, 3, 2))),
    Case("diagonal", lambda ns, x: ns.linalg.diagonal(x), _normal((2, 3, 4))),
    Case("diagonal[offset=1]", lambda ns, x: ns.linalg.diagonal(x, offset=1), _normal((2, 3, 4))),
    Case("diagonal[offset=-2]", lambda ns, x: ns.linalg.diagonal(x, offset=-2), _normal((4, 3))),
    Case("trace", lambda ns, x: ns.linalg.trace(x, offset=1), _normal((2, 3, 3))),
    Case("outer", lambda ns, x, y: ns.linalg.outer(x, y), _normal((3,)), _normal((2,))),
    Case("matmul", lambda ns, x, y: ns.linalg.matmul(x, y), _normal((2, 3, 4)), _normal((4, 2))),
    Case("tensordot", lambda ns, x, y: ns.linalg.tensordot(x, y, axes=1),
         _normal((2, 3)), _normal((3, 2))),
    Case("vecdot", lambda ns, x, y: ns.linalg.vecdot(x, y, axis=-2),
         _normal((3, 2)), _normal((3, 2))),
    Case("matrix_transpose", lambda ns, x: ns.linalg.matrix_transpose(x), _normal((2, 3, 4))),
    Case("composite[logdet(chol)+tr(inv)]",
         lambda ns, a: ns.add(ns.sum(ns.log(ns.linalg.diagonal(ns.linalg.cholesky(a)))),
                              ns.linalg.trace(ns.linalg.inv(a))),
         _spd((3, 3))),
]


# composites of main-namespace operations and variants of cases above: values,
# finite differences and vmap only (JAX compiles slowly; this keeps the file fast)
_NO_JAX = {"vector_norm[ord=1]", "vector_norm[ord=inf]", "vector_norm[ord=-inf]",
           "matrix_norm[1]", "matrix_norm[-1]", "matrix_norm[inf]", "matrix_norm[-inf]",
           "matrix_norm[keepdims]", "matrix_power[1]", "diagonal", "diagonal[offset=1]",
           "diagonal[offset=-2]", "trace", "outer", "matmul", "tensordot", "vecdot",
           "matrix_transpose", "cross", "composite[logdet(chol)+tr(inv)]", "det[4x4]",
           "qr[square]"}
for _c in CASES:
    _c.jax = _c.name not in _NO_JAX


def _leaves(x):
    return [y for z in x for y in _leaves(z)] if isinstance(x, (tuple, list)) else [x]


def _on(xp, tree):
    if isinstance(tree, tuple):
        return tuple(_on(xp, t) for t in tree)
    return from_np(xp, tree)


def _skip_strict(case, xp):
    if xp.__name__.startswith("array_api_strict") and not case.strict:
        pytest.skip(f"{case.name}: backends read one triangle; the case is for JAX")


# --------------------------------------------------------------------------
# values against the backend itself

@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_values_vs_backend(case, dtype, xp):
    _skip_strict(case, xp)
    args = [from_np(xp, a) for a in case.args(dtype)]
    if case.name == "cholesky[nonsym]":
        pytest.skip("the backend reads the lower triangle; xgrad the symmetric part (NB)")
    got = _leaves(case.f(xnp, *args))
    ref = _leaves(case.f(xp, *args))
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        assert str(to_np(g).dtype) == str(to_np(r).dtype), case.name
        tol = 1e-12 if dtype == F64 else 1e-5
        np.testing.assert_allclose(to_np(g), to_np(r), rtol=tol, atol=tol, err_msg=case.name)


# --------------------------------------------------------------------------
# derivatives against JAX: first order and the four second orders

def _directions(rng, args, outs):
    tan = lambda: tuple(rng.uniform(-1, 1, a.shape).astype(a.dtype) for a in args)  # noqa: E731

    def ct():
        cs = tuple(rng.uniform(-1, 1, o.shape).astype(o.dtype) for o in _leaves(outs))
        return cs if isinstance(outs, tuple) else cs[0]
    return tan(), tan(), ct(), ct(), tan()


def _bundle(ad, f, args, v, w, u, uu, ww):
    out, jv = ad.jvp(f, args, v)
    ct = ad.vjp(f, *args)[1](u)
    f_jvp = lambda *a: ad.jvp(f, a, v)[1]             # noqa: E731
    f_vjp = lambda *a: ad.vjp(f, *a)[1](u)            # noqa: E731
    return {"value": out, "jvp": jv, "vjp": ct,
            "fwd-over-fwd": ad.jvp(f_jvp, args, w)[1],
            "fwd-over-rev": ad.jvp(f_vjp, args, w)[1],
            "rev-over-fwd": ad.vjp(f_jvp, *args)[1](uu),
            "rev-over-rev": ad.vjp(f_vjp, *args)[1](ww)}


_JAX = {}


def _jax_reference(jax, case, args32):
    """JAX's values and derivatives in float64 at the float32-rounded point,
    from one jitted program per case (cached; compiling op by op would take
    several times longer). The second orders come from forward-over-reverse
    products, by the symmetry of second derivatives: rev-over-fwd(uu) is
    d/dx <uu, J v> = fwd-over-rev(uu) along v, and rev-over-rev(ww) is
    d/dx <J^T u, ww> = fwd-over-rev(u) along ww."""
    hit = _JAX.get(case.name)
    if hit is not None:
        return hit
    import jax.numpy as jnp
    args = tuple(a.astype(np.float64) for a in args32)
    f = lambda *a: case.f(jnp, *a)                    # noqa: E731
    shapes = jax.eval_shape(f, *args)
    out = jax.tree_util.tree_map(lambda s: np.zeros(s.shape, s.dtype), shapes)
    dirs = _directions(np.random.default_rng(7), args, out)

    def bundle(args, v, w, u, uu, ww):
        value, jv = jax.jvp(f, args, v)
        ct = jax.vjp(f, *args)[1](u)
        ffwd = jax.jvp(lambda *a: jax.jvp(f, a, v)[1], args, w)[1]

        def fwd_over_rev(u, d):
            return jax.jvp(lambda *a: jax.vjp(f, *a)[1](u), args, d)[1]
        stack = lambda *xs: jax.tree_util.tree_map(lambda *x: jnp.stack(x), *xs)  # noqa: E731
        fr = jax.vmap(fwd_over_rev)(stack(u, uu, u), stack(w, v, ww))
        pick = lambda i: jax.tree_util.tree_map(lambda x: x[i], fr)             # noqa: E731
        return {"value": value, "jvp": jv, "vjp": ct, "fwd-over-fwd": ffwd,
                "fwd-over-rev": pick(0), "rev-over-fwd": pick(1), "rev-over-rev": pick(2)}
    res = jax.jit(bundle)(args, *dirs)
    res = {k: [np.asarray(x) for x in _leaves(v)] for k, v in res.items()}
    _JAX[case.name] = (dirs, res)
    return _JAX[case.name]


def _cast(tree, dtype):
    if isinstance(tree, tuple):
        return tuple(_cast(t, dtype) for t in tree)
    return tree.astype(dtype)


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("case", [c for c in CASES if c.jax], ids=repr)
def test_derivatives_vs_jax(case, dtype, xp, jax):
    _skip_strict(case, xp)
    args32 = case.args(F32)
    dirs, expected = _jax_reference(jax, case, args32)
    args = tuple(from_np(xp, a.astype(dtype)) for a in args32)
    xdirs = tuple(_on(xp, _cast(d, dtype)) for d in dirs)
    got = _bundle(xgrad, lambda *a: case.f(xnp, *a), args, *xdirs)
    t = TOL[dtype]
    for k, exp in expected.items():
        act = _leaves(got[k])
        assert len(act) == len(exp), f"{case.name} {k}: {len(act)} outputs, jax {len(exp)}"
        for i, (a, e) in enumerate(zip(act, exp)):
            what = f"{case.name} {dtype} {k}[{i}]"
            a = to_np(a)
            if np.issubdtype(e.dtype, np.floating):
                assert str(a.dtype) == dtype, f"{what}: dtype {a.dtype}"
            scale = max(1.0, float(np.max(np.abs(e), initial=0.0)))
            np.testing.assert_allclose(a.astype(np.float64), e, rtol=t["rtol"] * case.tol,
                                       atol=t["atol"] * case.tol * scale, err_msg=what)


# --------------------------------------------------------------------------
# finite differences (xgrad.check_grads, every mode combination to order 2)

FD_CASES = [c for c in CASES if c.fd and not c.name.startswith(
    ("matmul", "tensordot", "vecdot", "matrix_transpose", "outer"))]


@pytest.mark.parametrize("case", FD_CASES, ids=repr)
def test_check_grads(case):
    args = tuple(np.asarray(a) for a in case.args(F64))
    xgrad.check_grads(lambda *a: case.f(xnp, *a), args, order=2)


@pytest.mark.parametrize("name", ["solve[matrix]", "det", "eigh", "svd[tall]", "qr[wide]",
                                  "cholesky"])
def test_check_grads_strict(name):
    xps = pytest.importorskip("array_api_strict")
    case = next(c for c in CASES if c.name == name)
    args = tuple(xps.asarray(a) for a in case.args(F64))
    xgrad.check_grads(lambda *a: case.f(xnp, *a), args, order=2)


# --------------------------------------------------------------------------
# vmap: batching rules against a Python loop

def _stack(outs):
    first = outs[0]
    if isinstance(first, tuple):
        return tuple(_stack([o[i] for o in outs]) for i in range(len(first)))
    return np.stack([to_np(o) for o in outs])


VMAP_CASES = CASES


@pytest.mark.parametrize("case", VMAP_CASES, ids=repr)
def test_vmap_vs_loop(case, xp):
    _skip_strict(case, xp)
    per = [case.args(F64, seed=s) for s in range(3)]
    batched = [np.stack([p[i] for p in per]) for i in range(len(per[0]))]
    expected = _stack([case.f(xnp, *[from_np(xp, a) for a in p]) for p in per])
    # every argument mapped over axis 0; then the last argument unmapped
    got = xgrad.vmap(lambda *a: case.f(xnp, *a))(*[from_np(xp, b) for b in batched])
    for g, e in zip(_leaves(got), _leaves(expected)):
        np.testing.assert_allclose(to_np(g), e, rtol=1e-10, atol=1e-12, err_msg=case.name)
    if len(batched) > 1:
        fixed = per[0][-1]
        exp2 = _stack([case.f(xnp, *[from_np(xp, a) for a in p[:-1]], from_np(xp, fixed))
                       for p in per])
        axes = (0,) * (len(batched) - 1) + (None,)
        got2 = xgrad.vmap(lambda *a: case.f(xnp, *a), in_axes=axes)(
            *[from_np(xp, b) for b in batched[:-1]], from_np(xp, fixed))
        for g, e in zip(_leaves(got2), _leaves(exp2)):
            np.testing.assert_allclose(to_np(g), e, rtol=1e-10, atol=1e-12, err_msg=case.name)


@pytest.mark.parametrize("name", ["solve[matrix]", "det", "slogdet", "eigh", "svd[tall]",
                                  "qr[tall]", "pinv[tall]", "vector_norm[axis,keepdims]",
                                  "cholesky"])
def test_vmap_batch_axis_inside(name, xp):
    """The batch axis in the middle of the stack axes, and out_axes=-1."""
    case = next(c for c in CASES if c.name == name)
    per = [case.args(F64, seed=s) for s in range(3)]
    batched = [np.stack([p[i] for p in per], axis=min(1, per[0][i].ndim))
               for i in range(len(per[0]))]
    axes = tuple(min(1, a.ndim) for a in per[0])
    expected = _stack([case.f(xnp, *[from_np(xp, a) for a in p]) for p in per])
    got = xgrad.vmap(lambda *a: case.f(xnp, *a), in_axes=axes, out_axes=-1)(
        *[from_np(xp, b) for b in batched])
    for g, e in zip(_leaves(got), _leaves(expected)):
        np.testing.assert_allclose(np.moveaxis(to_np(g), -1, 0), e, rtol=1e-10, atol=1e-12,
                                   err_msg=name)


@pytest.mark.parametrize("name", ["det", "eigh", "svd[wide]", "qr[tall]", "cholesky",
                                  "solve[matrix]"])
def test_vmap_of_grad_and_hessian(name):
    """vmap over the first argument of grad and hessian (other arguments fixed)."""
    case = next(c for c in CASES if c.name == name)
    per = [case.args(F64, seed=s) for s in range(2)]
    rest = per[0][1:]
    batched = np.stack([p[0] for p in per])
    axes = (0,) + (None,) * len(rest)

    def scalar(*a):
        return sum(xnp.sum(xnp.sin(o)) for o in _leaves(case.f(xnp, *a)))
    for transform, tol in ((xgrad.grad, 1e-10), (xgrad.hessian, 1e-9)):
        got = xgrad.vmap(transform(scalar), in_axes=axes)(batched, *rest)
        for k, p in enumerate(per):
            np.testing.assert_allclose(to_np(got[k]), to_np(transform(scalar)(p[0], *rest)),
                                       rtol=tol, atol=tol, err_msg=name)


# --------------------------------------------------------------------------
# conventions, edge cases, errors

def test_result_namedtuples():
    a = _spd((3, 3))(np.random.default_rng(0))
    L = xnp.linalg
    r = L.eigh(a)
    assert type(r).__name__ == "EighResult" and r._fields == ("eigenvalues", "eigenvectors")
    assert L.qr(a)._fields == ("Q", "R") and type(L.qr(a)).__name__ == "QRResult"
    assert L.slogdet(a)._fields == ("sign", "logabsdet")
    assert L.svd(a)._fields == ("U", "S", "Vh") and type(L.svd(a)).__name__ == "SVDResult"
    # the namedtuples are pytrees: vjp takes a cotangent of the same type
    out, pull = xgrad.vjp(L.eigh, a)
    (g,) = pull(type(out)(np.ones(3), np.zeros((3, 3))))
    np.testing.assert_allclose(g, np.eye(3), atol=1e-12)       # d tr(A) = I


_STANDARD_NAMES = {"cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul",
                   "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer",
                   "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace",
                   "vecdot", "vector_norm"}


def test_the_standard_functions_and_jaxs():
    """The standard's linalg functions and jax's extras, nothing else. Their
    signatures allow every call the standard's allow (and jax's):
    ``test_namespace.py::test_signature``."""
    assert sorted(_STANDARD_NAMES) == sorted(n for n in xnp.linalg.__all__
                                             if not n.endswith("Result") and n not in _JAX_EXTRAS)


# jax.numpy.linalg's functions beyond the standard (jax's signatures; tests/test_jnp_linalg.py)
_JAX_EXTRAS = {"cond", "eig", "eigvals", "lstsq", "multi_dot", "norm", "tensorinv", "tensorsolve"}


def _adjugate_np(a):
    n = a.shape[-1]
    c = np.empty_like(a)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(a, i, 0), j, 1)
            c[i, j] = (-1) ** (i + j) * np.linalg.det(minor)
    return c.T


@pytest.mark.parametrize("rank", [2, 1, 3])
def test_det_gradient_is_the_adjugate(rank, xp):
    rng = np.random.default_rng(rank)
    a = rng.normal(size=(3, rank)) @ rng.normal(size=(rank, 3))
    g = xgrad.grad(xnp.linalg.det)(from_np(xp, a))
    np.testing.assert_allclose(to_np(g), _adjugate_np(a).T, atol=1e-12)
    assert np.all(np.isfinite(to_np(g)))
    # second order at an invertible matrix: d/dA <adj(A)^T, V> against differences
    if rank == 3:
        xgrad.check_grads(xnp.linalg.det, (a,), order=3)


def test_vector_norm_at_zero(xp):
    z = from_np(xp, np.zeros((2, 3)))
    g = xgrad.grad(xnp.linalg.vector_norm)(z)
    np.testing.assert_array_equal(to_np(g), np.zeros((2, 3)))
    _, t = xgrad.jvp(xnp.linalg.vector_norm, (z,), (from_np(xp, np.ones((2, 3))),))
    assert float(to_np(t)) == 0.0
    h = xgrad.hessian(xnp.linalg.vector_norm)(z)
    assert np.all(np.isfinite(to_np(h)))
    # a zero row among nonzero ones
    x = from_np(xp, np.array([[0.0, 0.0], [3.0, 4.0]]))
    g = xgrad.grad(lambda x: xnp.sum(xnp.linalg.vector_norm(x, axis=1)))(x)
    np.testing.assert_allclose(to_np(g), [[0, 0], [0.6, 0.8]])
    g3 = xgrad.grad(lambda x: xnp.linalg.vector_norm(x, ord=3))(from_np(xp, np.zeros(3)))
    np.testing.assert_array_equal(to_np(g3), np.zeros(3))


def test_matrix_rank_and_pinv_rtol(xp):
    rng = np.random.default_rng(3)
    a = rng.normal(size=(2, 4, 2)) @ rng.normal(size=(2, 2, 3))      # rank 2, shape (2, 4, 3)
    x = from_np(xp, a)
    assert to_np(xnp.linalg.matrix_rank(x)).tolist() == [2, 2]
    assert to_np(xnp.linalg.matrix_rank(x)).tolist() == to_np(xp.linalg.matrix_rank(x)).tolist()
    assert to_np(xnp.linalg.matrix_rank(x, rtol=0.99)).tolist() == [1, 1]
    np.testing.assert_allclose(to_np(xnp.linalg.pinv(x, rtol=1e-8)),
                               to_np(xp.linalg.pinv(x, rtol=1e-8)), atol=1e-10)
    # the rank is constant along a: pinv's derivative holds on the rank-2 manifold
    b = rng.normal(size=(4, 2)) @ rng.normal(size=(2, 3))
    f = lambda u, v: xnp.linalg.pinv(u @ v)                   # noqa: E731
    xgrad.check_grads(f, (rng.normal(size=(4, 2)), rng.normal(size=(2, 3))), order=1)
    g = xgrad.grad(lambda a: xnp.astype(xnp.linalg.matrix_rank(a), a.dtype))(b)
    np.testing.assert_array_equal(to_np(g), np.zeros((4, 3)))


def test_matrix_power_zero_and_float32(xp):
    a = from_np(xp, np.asarray(_normal((2, 3, 3))(np.random.default_rng(0)), dtype=np.float32))
    p0 = xnp.linalg.matrix_power(a, 0)
    np.testing.assert_array_equal(to_np(p0), np.broadcast_to(np.eye(3), (2, 3, 3)))
    assert str(to_np(p0).dtype) == "float32"
    g = xgrad.grad(lambda a: xnp.sum(xnp.linalg.matrix_power(a, 0)))(a)
    np.testing.assert_array_equal(to_np(g), np.zeros((2, 3, 3)))


def test_errors():
    L = xnp.linalg
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="square"):
        L.inv(np.ones((2, 3)))
    with pytest.raises(ValueError, match="mode"):
        L.qr(np.eye(3), mode="economic")
    with pytest.raises(ValueError, match="ord"):
        L.matrix_norm(np.eye(3), ord=3)
    with pytest.raises(NotImplementedError, match="full_matrices=False"):
        xgrad.grad(lambda a: xnp.sum(L.svd(a).U))(rng.normal(size=(4, 3)))
    with pytest.raises(NotImplementedError, match="mode='reduced'"):
        xgrad.jvp(lambda a: L.qr(a, mode="complete").Q, (rng.normal(size=(4, 3)),),
                  (rng.normal(size=(4, 3)),))
    c = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))
    # complex inputs differentiate (against jax in tests/test_jnp_linalg.py)
    xgrad.jvp(L.cholesky, (c @ c.conj().T + 3 * np.eye(3),), (c,))
    np.testing.assert_allclose(L.inv(c), np.linalg.inv(c))
    h = c @ c.conj().T + 3 * np.eye(3)
    np.testing.assert_allclose(L.eigh(h).eigenvalues, np.linalg.eigvalsh(h))
    np.testing.assert_allclose(L.cholesky(h, upper=True), np.linalg.cholesky(h).conj().T)


@pytest.mark.parametrize("name", ["inv", "det", "solve_a", "solve_b"])
def test_holomorphic_linalg_of_complex_inputs_vs_jax(jax, name):
    # inv, det and solve are holomorphic: the real rules hold with plain
    # transposes (JAX's convention); det's adjugate conjugates its SVD factors
    jnp = jax.numpy
    rng = np.random.default_rng(3)
    cplx = lambda *s: rng.normal(size=s) + 1j * rng.normal(size=s)     # noqa: E731
    A, B, T = cplx(3, 3) + 2 * np.eye(3), cplx(3, 2), cplx(3, 3)
    f, jf, x, t = {
        "inv": (xnp.linalg.inv, jnp.linalg.inv, A, T),
        "det": (xnp.linalg.det, jnp.linalg.det, A, T),
        "solve_a": (lambda a: xnp.linalg.solve(a, B), lambda a: jnp.linalg.solve(a, B), A, T),
        "solve_b": (lambda b: xnp.linalg.solve(A, b), lambda b: jnp.linalg.solve(A, b), B, B[::-1]),
    }[name]
    assert_close(xgrad.jvp(f, (x,), (t,))[1], jax.jvp(jf, (x,), (t,))[1], rtol=1e-12, atol=1e-13)
    g = np.asarray(jf(x)) * (0.5 - 1j)
    assert_close(xgrad.vjp(f, x)[1](g)[0], jax.vjp(jf, x)[1](g)[0], rtol=1e-12, atol=1e-13)
    loss = lambda x: xnp.sum(xnp.abs(f(x)) ** 2)          # noqa: E731
    jloss = lambda x: jnp.sum(jnp.abs(jf(x)) ** 2)        # noqa: E731
    assert_close(xgrad.grad(loss)(x), jax.grad(jloss)(x), rtol=1e-12, atol=1e-13)
    h = lambda x: xnp.sum(f(x))                            # noqa: E731
    jh = lambda x: jnp.sum(jf(x))                          # noqa: E731
    assert_close(xgrad.jacfwd(xgrad.jacrev(h, holomorphic=True), holomorphic=True)(x),
                 jax.jacfwd(jax.jacrev(jh, holomorphic=True), holomorphic=True)(x),
                 rtol=1e-11, atol=1e-12)


def test_eigh_and_svd_degenerate_are_documented():
    """At repeated eigenvalues the eigenvector derivative is infinite (the
    documented limit); eigenvalue derivatives stay finite."""
    g = xgrad.grad(lambda a: xnp.sum(xnp.linalg.eigvalsh(a) ** 2))(np.eye(3))
    np.testing.assert_allclose(g, 2 * np.eye(3))
    assert "distinct" in xnp.linalg.eigh.__doc__ and "distinct" in xnp.linalg.svd.__doc__
