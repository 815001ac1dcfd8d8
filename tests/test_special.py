"""``xgrad.numpy.special``: values against scipy.special; derivatives of
first and second order (jvp, vjp and the four nestings) against closed forms
for every case and against JAX for a representative set; finite differences
through ``check_grads(order=2)``; vmap against a Python loop; and the
stable-gradient cases (log-sum-exp at -inf and huge inputs, log_ndtr far in
the tail, xlogy at 0, ...) against JAX. On numpy and array_api_strict, in
float32 and float64.

Every case is one entry of ``CASES``: the function (written for
``xgrad.numpy.special``), its JAX counterpart ``jf``, its scipy reference
``sf``, and ``d``, its first and second partial derivatives in closed form
(scipy, float64), from which the oracle builds the Jacobian ``J`` and the
second-derivative tensor ``T`` of the flattened function.

NB: JAX compiles each new derivative program (0.5 to 8 s per case here:
``ndtri``, ``gamma`` and ``polygamma`` expand into large graphs), so the
JAX oracle covers the float64 bundle of ``JAX_CASES`` only and the closed
forms cover everything; each JAX reference is computed once per session.
"""
import math
import subprocess
import sys

import numpy as np
import pytest
import scipy.special as ss

import xgrad
import xgrad.numpy as xnp
from helpers import from_np, to_np

xsp = xnp.special
F32, F64 = "float32", "float64"
DTYPES = (F32, F64)
# atol is relative to max(1, max|expected|)
TOL = {F32: dict(rtol=3e-4, atol=3e-5), F64: dict(rtol=1e-9, atol=1e-11)}


# --------------------------------------------------------------------------
# closed-form oracle: value, J (m, n) and T (m, n, n) of the flat function

def _maps(shapes, out_shape):
    """For each argument, the flat input index behind each output element."""
    maps, off = [], 0
    for s in shapes:
        size = math.prod(s)
        idx = np.arange(size).reshape(s) + off
        maps.append(np.broadcast_to(idx, out_shape).ravel())
        off += size
    return maps, off


def _elementwise(value, d1, d2, shapes):
    """J, T of a broadcasting elementwise function from its partials
    ``d1[k]`` and ``d2[k][l]`` (arrays of the output shape)."""
    value = np.asarray(value)
    maps, n = _maps(shapes, value.shape)
    m = value.size
    rows = np.arange(m)
    J, T = np.zeros((m, n)), np.zeros((m, n, n))
    for k, ik in enumerate(maps):
        np.add.at(J, (rows, ik), np.broadcast_to(d1[k], value.shape).ravel())
        for j, il in enumerate(maps):
            np.add.at(T, (rows, ik, il), np.broadcast_to(d2[k][j], value.shape).ravel())
    return value, J, T


def unary(f, d1, d2):
    return lambda x: _elementwise(f(x), [d1(x)], [[d2(x)]], [x.shape])


def binary(f, dx, dy, dxx, dxy, dyy):
    def ref(x, y):
        return _elementwise(f(x, y), [dx(x, y), dy(x, y)],
                            [[dxx(x, y), dxy(x, y)], [dxy(x, y), dyy(x, y)]], [x.shape, y.shape])
    return ref


def _rows(shape, axis):
    """Flat indices of an array of ``shape``, one row per reduction."""
    nd = len(shape)
    axes = tuple(range(nd)) if axis is None else tuple(
        a % nd for a in (axis if isinstance(axis, tuple) else (axis,)))
    idx = np.arange(math.prod(shape)).reshape(shape)
    keep = [i for i in range(nd) if i not in axes]
    idx = np.transpose(idx, keep + list(axes))
    return idx.reshape(-1, math.prod(shape[a] for a in axes))


def _row_softmax(z):
    e = np.exp(z - np.max(z))
    return e / e.sum()


def lse_ref(axis, keepdims):
    def ref(x):
        value = np.asarray(ss.logsumexp(x, axis=axis, keepdims=keepdims))
        R = _rows(x.shape, axis)
        n = x.size
        J, T = np.zeros((len(R), n)), np.zeros((len(R), n, n))
        for r, ix in enumerate(R):
            s = _row_softmax(x.ravel()[ix])
            J[r, ix] = s
            T[r][np.ix_(ix, ix)] = np.diag(s) - np.outer(s, s)
        return value, J, T
    return ref


def softmax_ref(axis, log):
    def ref(x):
        value = (ss.log_softmax if log else ss.softmax)(x, axis=axis)
        n = x.size
        J, T = np.zeros((n, n)), np.zeros((n, n, n))
        for ix in _rows(x.shape, axis):
            s = _row_softmax(x.ravel()[ix])
            eye = np.eye(len(s))
            ds = s[:, None] * (eye - s[None, :])            # ds_q / dz_t
            if log:
                jac, ten = eye - s[None, :], -np.broadcast_to(ds, (len(s),) * 3)
            else:
                jac = ds
                ten = (ds[:, None, :] * (eye - s[None, :])[:, :, None]
                       - s[:, None, None] * ds[None, :, :])
            J[np.ix_(ix, ix)] = jac
            T[np.ix_(ix, ix, ix)] = ten
        return value, J, T
    return ref


def lse_b_ref(axis):
    """log sum b exp(a): d/da = p = b e^a / S, d/db = q = e^a / S."""
    def ref(a, b):
        value = np.asarray(ss.logsumexp(a, axis=axis, b=b))
        out_shape = np.broadcast_shapes(a.shape, b.shape)
        (ia, ib), n = _maps([a.shape, b.shape], out_shape)
        A = np.broadcast_to(a, out_shape).ravel()
        B = np.broadcast_to(b, out_shape).ravel()
        rows = _rows(out_shape, axis)
        J, T = np.zeros((len(rows), n)), np.zeros((len(rows), n, n))
        for r, ix in enumerate(rows):
            e = np.exp(A[ix])
            S = np.sum(B[ix] * e)
            p, q = B[ix] * e / S, e / S
            np.add.at(J[r], ia[ix], p)
            np.add.at(J[r], ib[ix], q)
            eye = np.eye(len(ix))
            blocks = [(ia, ia, eye * p - np.outer(p, p)), (ia, ib, eye * q - np.outer(p, q)),
                      (ib, ia, (eye * q - np.outer(p, q)).T), (ib, ib, -np.outer(q, q))]
            for i1, i2, blk in blocks:
                np.add.at(T[r], (i1[ix][:, None], i2[ix][None, :]), blk)
        return value, J, T
    return ref


def _bundle_from_tensors(value, J, T, args, dirs):
    v, w, u, uu, ww = dirs
    flat = lambda t: np.concatenate([np.asarray(a, np.float64).ravel() for a in t])  # noqa: E731
    V, W, WW = flat(v), flat(w), flat(ww)
    Uo, UUo = np.ravel(u).astype(np.float64), np.ravel(uu).astype(np.float64)
    sizes = np.cumsum([a.size for a in args])[:-1]
    split = lambda z: [p.reshape(a.shape) for p, a in zip(np.split(z, sizes), args)]  # noqa: E731
    shape = np.shape(value)
    return {
        "value": [np.asarray(value)], "jvp": [(J @ V).reshape(shape)], "vjp": split(Uo @ J),
        "fwd-over-fwd": [np.einsum("ijk,j,k->i", T, V, W).reshape(shape)],
        "fwd-over-rev": split(np.einsum("i,ijk,k->j", Uo, T, W)),
        "rev-over-fwd": split(np.einsum("i,ijk,j->k", UUo, T, V)),
        "rev-over-rev": split(np.einsum("i,ijk,j->k", Uo, T, WW)),
    }


# --------------------------------------------------------------------------
# cases

class Case:
    def __init__(self, name, f, jf, sf, d, shapes, domains, *, tol=1.0):
        self.name, self.f, self.jf, self.sf, self.d = name, f, jf, sf, d
        self.shapes = shapes
        self.domains = domains if isinstance(domains, list) else [domains] * len(shapes)
        self.tol = tol

    def __repr__(self):
        return self.name

    def sample(self, dtype, seed=0):
        rng = np.random.default_rng(sum(map(ord, self.name)) + 1000 * seed)
        return [rng.uniform(lo, hi, size=s).astype(dtype)
                for s, (lo, hi) in zip(self.shapes, self.domains)]


def _jattr(name):
    import jax
    import jax.scipy.special as jsp
    return getattr(jax.nn, name[3:]) if name.startswith("nn.") else getattr(jsp, name)


def U(name, lo, hi, d1, d2, jname=None, sf=None, **kw):
    """A unary function, ``d1``/``d2`` its derivatives in closed form."""
    sf = sf or getattr(ss, name)
    return Case(name, lambda x: getattr(xsp, name)(x), lambda x: _jattr(jname or name)(x), sf,
                unary(sf, d1, d2), [(3, 4)], (lo, hi), **kw)


def B(name, d1, d2, partials, shapes=((3, 4), (1, 4))):
    sf = getattr(ss, name)
    return Case(f"{name}[{'-'.join('x'.join(map(str, s)) or '0' for s in shapes)}]",
                lambda x, y: getattr(xsp, name)(x, y), lambda x, y: _jattr(name)(x, y), sf,
                binary(sf, *partials), list(shapes), [d1, d2])


def _lse(axis=None, keepdims=False):
    return Case(f"logsumexp[axis={axis},keepdims={keepdims}]",
                lambda x: xsp.logsumexp(x, axis=axis, keepdims=keepdims),
                lambda x: _jattr("logsumexp")(x, axis=axis, keepdims=keepdims),
                lambda x: ss.logsumexp(x, axis=axis, keepdims=keepdims),
                lse_ref(axis, keepdims), [(3, 4)], (-3.0, 3.0))


def _lse_b(axis):
    return Case(f"logsumexp[b,axis={axis}]", lambda x, b: xsp.logsumexp(x, axis=axis, b=b),
                lambda x, b: _jattr("logsumexp")(x, axis=axis, b=b),
                lambda x, b: ss.logsumexp(x, axis=axis, b=b), lse_b_ref(axis),
                [(3, 4), (1, 4)], [(-3.0, 3.0), (0.5, 2.0)])


def _soft(name, axis, shape=(3, 4)):
    return Case(f"{name}[axis={axis}]", lambda x: getattr(xsp, name)(x, axis=axis),
                lambda x: _jattr(name)(x, axis=axis), lambda x: getattr(ss, name)(x, axis=axis),
                softmax_ref(axis, name == "log_softmax"), [shape], (-3.0, 3.0))


def _poly(n):
    sf = lambda x: ss.polygamma(n, x)                             # noqa: E731
    return Case(f"polygamma[{n}]", lambda x: xsp.polygamma(n, x),
                lambda x: _jattr("polygamma")(n, x), sf,
                unary(sf, lambda x: ss.polygamma(n + 1, x), lambda x: ss.polygamma(n + 2, x)),
                [(3, 4)], (0.5, 4.0), tol=3.0)


_C = 2 / math.sqrt(math.pi)
_phi = lambda x: np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)   # noqa: E731
_s = ss.expit


def _dlog_ndtr(x):
    return np.exp(-0.5 * x * x - ss.log_ndtr(x)) / math.sqrt(2 * math.pi)


CASES = [
    U("erf", -2.0, 2.0, lambda x: _C * np.exp(-x * x), lambda x: -2 * x * _C * np.exp(-x * x)),
    U("erfc", -2.0, 2.0, lambda x: -_C * np.exp(-x * x), lambda x: 2 * x * _C * np.exp(-x * x)),
    U("erfinv", -0.9, 0.9, lambda x: np.exp(ss.erfinv(x) ** 2) / _C,
      lambda x: 2 * ss.erfinv(x) * (np.exp(ss.erfinv(x) ** 2) / _C) ** 2),
    U("ndtr", -3.0, 3.0, _phi, lambda x: -x * _phi(x)),
    U("ndtri", 0.05, 0.95, lambda x: 1 / _phi(ss.ndtri(x)),
      lambda x: ss.ndtri(x) / _phi(ss.ndtri(x)) ** 2),
    U("log_ndtr", -4.0, 3.0, _dlog_ndtr, lambda x: -x * _dlog_ndtr(x) - _dlog_ndtr(x) ** 2),
    U("gammaln", 0.5, 4.0, ss.digamma, lambda x: ss.polygamma(1, x)),
    U("digamma", 0.5, 4.0, lambda x: ss.polygamma(1, x), lambda x: ss.polygamma(2, x)),
    U("gamma", 0.5, 3.0, lambda x: ss.gamma(x) * ss.digamma(x),
      lambda x: ss.gamma(x) * (ss.digamma(x) ** 2 + ss.polygamma(1, x))),
    U("i0", -3.0, 3.0, ss.i1, lambda x: ss.i0(x) - ss.i1(x) / x),
    U("i1", 0.5, 3.0, lambda x: ss.i0(x) - ss.i1(x) / x,
      lambda x: ss.i1(x) - ss.i0(x) / x + 2 * ss.i1(x) / x ** 2),
    _poly(1), _poly(2),
    U("expit", -4.0, 4.0, lambda x: _s(x) * _s(-x), lambda x: _s(x) * _s(-x) * (1 - 2 * _s(x))),
    U("logit", 0.05, 0.95, lambda x: 1 / (x * (1 - x)), lambda x: (2 * x - 1) / (x * (1 - x)) ** 2),
    U("log_expit", -4.0, 4.0, lambda x: _s(-x), lambda x: -_s(x) * _s(-x), jname="nn.log_sigmoid"),
    U("softplus", -4.0, 4.0, _s, lambda x: _s(x) * _s(-x), jname="nn.softplus",
      sf=lambda x: np.logaddexp(x, 0.0)),
    U("entr", 0.1, 3.0, lambda x: -(np.log(x) + 1), lambda x: -1 / x),
    B("xlogy", (-2.0, 2.0), (0.2, 3.0),
      (lambda x, y: np.log(y), lambda x, y: x / y, lambda x, y: 0 * x,
       lambda x, y: 1 / y + 0 * x, lambda x, y: -x / y**2)),
    B("xlogy", (-2.0, 2.0), (0.2, 3.0),
      (lambda x, y: np.log(y) + 0 * x, lambda x, y: x / y, lambda x, y: 0 * x * y,
       lambda x, y: 1 / y + 0 * x, lambda x, y: -x / y**2), shapes=((), (3, 4))),
    B("xlog1py", (-2.0, 2.0), (-0.8, 3.0),
      (lambda x, y: np.log1p(y), lambda x, y: x / (1 + y), lambda x, y: 0 * x,
       lambda x, y: 1 / (1 + y) + 0 * x, lambda x, y: -x / (1 + y) ** 2)),
    B("rel_entr", (0.2, 3.0), (0.2, 3.0),
      (lambda x, y: np.log(x / y) + 1, lambda x, y: -x / y, lambda x, y: 1 / x + 0 * y,
       lambda x, y: -1 / y + 0 * x, lambda x, y: x / y**2)),
    B("kl_div", (0.2, 3.0), (0.2, 3.0),
      (lambda x, y: np.log(x / y), lambda x, y: 1 - x / y, lambda x, y: 1 / x + 0 * y,
       lambda x, y: -1 / y + 0 * x, lambda x, y: x / y**2)),
    _lse(), _lse(1), _lse((0, 1), True), _lse(-1, True), _lse_b(0), _lse_b(None),
    _soft("softmax", None), _soft("softmax", -1), _soft("softmax", 0),
    _soft("log_softmax", None), _soft("log_softmax", 1),
    _soft("softmax", (0, 2), shape=(2, 3, 2)),
]
_BY_NAME = {c.name: c for c in CASES}
assert len(_BY_NAME) == len(CASES)
# cases also compared with JAX (float64, every order): one per family of rules
JAX_CASES = ["erfinv", "log_ndtr", "expit", "xlogy[3x4-1x4]", "rel_entr[3x4-1x4]",
             "logsumexp[axis=1,keepdims=False]", "logsumexp[b,axis=0]", "softmax[axis=-1]",
             "log_softmax[axis=1]"]


def _close(actual, expected, dtype, what, tol=1.0):
    a, e = to_np(actual), np.asarray(expected)
    assert a.shape == e.shape, f"{what}: shape {a.shape}, expected {e.shape}"
    t = TOL[dtype]
    finite = np.isfinite(e)
    scale = max(1.0, float(np.max(np.abs(e[finite]), initial=0.0)))
    np.testing.assert_allclose(a.astype(np.float64), e.astype(np.float64), rtol=t["rtol"] * tol,
                               atol=t["atol"] * tol * scale, err_msg=what)


def _bundle(ad, f, args, v, w, u, uu, ww):
    """First and second order derivatives of ``f``, built the same way for
    any ``ad`` module with ``jvp(f, primals, tangents)`` and ``vjp(f, *primals)``."""
    out, jv = ad.jvp(f, args, v)
    ct = ad.vjp(f, *args)[1](u)
    f_jvp = lambda *a: ad.jvp(f, a, v)[1]                    # noqa: E731
    f_vjp = lambda *a: ad.vjp(f, *a)[1](u)                   # noqa: E731
    return {
        "value": [out], "jvp": [jv], "vjp": list(ct),
        "fwd-over-fwd": [ad.jvp(f_jvp, args, w)[1]],
        "fwd-over-rev": list(ad.jvp(f_vjp, args, w)[1]),
        "rev-over-fwd": list(ad.vjp(f_jvp, *args)[1](uu)),
        "rev-over-rev": list(ad.vjp(f_vjp, *args)[1](ww)),
    }


def _directions(args, out_shape, dtype):
    rng = np.random.default_rng(1)
    tan = lambda: tuple(rng.uniform(-1, 1, a.shape).astype(dtype) for a in args)  # noqa: E731
    v, w = tan(), tan()
    u, uu = (rng.uniform(-1, 1, out_shape).astype(dtype) for _ in range(2))
    return v, w, u, uu, tan()


def _setup(case, dtype):
    args = case.sample(dtype)
    return args, _directions(args, np.shape(case.sf(*args)), dtype)


def _on(xp, d):
    return tuple(from_np(xp, a) for a in d) if isinstance(d, tuple) else from_np(xp, d)


def _compare(got, expected, dtype, name, tol):
    for k, exp in expected.items():
        assert len(got[k]) == len(exp), k
        for i, (a, e) in enumerate(zip(got[k], exp)):
            what = f"{name} {dtype} {k}[{i}]"
            assert str(to_np(a).dtype) == dtype, f"{what}: dtype {to_np(a).dtype}"
            _close(a, e, dtype, what, tol * (3.0 if k != "value" else 1.0))


# --------------------------------------------------------------------------
# values, and derivatives of first and second order

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_values_vs_scipy(case, dtype, xp):
    args = case.sample(dtype)
    out = case.f(*[from_np(xp, a) for a in args])
    assert str(to_np(out).dtype) == dtype, f"{case.name}: dtype {to_np(out).dtype}"
    _close(out, case.sf(*[a.astype(np.float64) for a in args]), dtype, case.name, case.tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_derivatives_vs_closed_form(case, dtype, xp):
    args, dirs = _setup(case, dtype)
    expected = _bundle_from_tensors(*case.d(*[a.astype(np.float64) for a in args]), args, dirs)
    got = _bundle(xgrad, case.f, tuple(from_np(xp, a) for a in args), *[_on(xp, d) for d in dirs])
    _compare(got, expected, dtype, case.name, case.tol)


_JAX = {}


def _jax_once(key, fn):
    """A JAX reference, computed once per session (each new derivative
    program costs JAX a compilation)."""
    if key not in _JAX:
        import jax
        _JAX[key] = jax.tree_util.tree_map(np.asarray, fn())
    return _JAX[key]


@pytest.mark.parametrize("name", JAX_CASES)
def test_derivatives_vs_jax(name, xp, jax):
    case = _BY_NAME[name]
    args, dirs = _setup(case, F64)
    expected = _jax_once(name, lambda: jax.jit(
        lambda a, d: _bundle(jax, case.jf, tuple(a), *d))(args, dirs))
    got = _bundle(xgrad, case.f, tuple(from_np(xp, a) for a in args), *[_on(xp, d) for d in dirs])
    _compare(got, expected, F64, case.name, case.tol)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_check_grads(case, xp):
    args = case.sample(F64)
    # a small step keeps finite differences inside the domain (entr, logit, ndtri)
    xgrad.check_grads(case.f, tuple(from_np(xp, a) for a in args), order=2, eps=1e-5)


# --------------------------------------------------------------------------
# vmap against a loop

def _stack(xs):
    return np.stack([to_np(x) for x in xs])


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_vmap_matches_loop(case, xp):
    batches = [case.sample(F64, seed=s) for s in range(3)]
    args = [np.stack([b[i] for b in batches]) for i in range(len(case.shapes))]
    got = xgrad.vmap(case.f)(*[from_np(xp, a) for a in args])
    exp = _stack([case.f(*[from_np(xp, a) for a in batch]) for batch in batches])
    _close(got, exp, F64, f"{case.name}: vmap")
    # the gradient batches too (the rules' own operations run under vmap)
    g = xgrad.grad(lambda *a: xnp.sum(case.f(*a)))
    got = xgrad.vmap(g)(*[from_np(xp, a) for a in args])
    exp = _stack([g(*[from_np(xp, a) for a in batch]) for batch in batches])
    _close(got, exp, F64, f"{case.name}: vmap of grad")
    # batch axis last on the first argument, the other arguments unbatched
    first = np.moveaxis(args[0], 0, -1)
    rest = [from_np(xp, a) for a in batches[0][1:]]
    in_axes = (first.ndim - 1,) + (None,) * len(rest)
    got = xgrad.vmap(case.f, in_axes=in_axes)(from_np(xp, first), *rest)
    exp = _stack([case.f(from_np(xp, b[0]), *rest) for b in batches])
    _close(got, exp, F64, f"{case.name}: vmap in_axes={in_axes}")


# --------------------------------------------------------------------------
# stable gradients and conventions, against JAX

def _np64(x):
    return np.asarray(x, dtype=np.float64)


def test_logsumexp_large_and_minus_inf(xp, jax):
    import jax.scipy.special as jsp
    X = np.array([[1000.0, 1001.0, -np.inf, 999.0], [-1e4, -1e4 - 1.0, 3.0, 2.0],
                  [-np.inf, 0.5, 2.0, -np.inf]])
    ref = _jax_once("lse-stable", lambda: jax.jit(jax.vmap(lambda r: (
        jsp.logsumexp(r), jax.grad(jsp.logsumexp)(r), jax.hessian(jsp.logsumexp)(r))))(X))
    for i, x in enumerate(X):
        x = from_np(xp, x)
        v, g, h = xsp.logsumexp(x), xgrad.grad(xsp.logsumexp)(x), xgrad.hessian(xsp.logsumexp)(x)
        for name, a, e in zip(("value", "grad", "hessian"), (v, g, h), (r[i] for r in ref)):
            assert np.all(np.isfinite(to_np(a))), (i, name)
            np.testing.assert_allclose(to_np(a), e, rtol=1e-14, atol=1e-300, err_msg=f"{i} {name}")
        # forward mode too: the gradient as a jvp against unit tangents
        t = xgrad.jvp(xsp.logsumexp, (x,), (from_np(xp, np.ones(4)),))[1]
        np.testing.assert_allclose(float(to_np(t)), ref[1][i].sum(), rtol=1e-14)
    # rows of -inf, along an axis: -inf without a warning; +inf stays +inf
    out = to_np(xsp.logsumexp(from_np(xp, np.array([[-np.inf, -np.inf], [0.0, -np.inf]])), axis=1))
    assert out.tolist() == [-np.inf, 0.0]
    assert float(to_np(xsp.logsumexp(from_np(xp, np.array([np.inf, 1.0]))))) == np.inf
    # float32 far beyond exp's range
    x32 = from_np(xp, np.array([200.0, 201.0], dtype=np.float32))
    g = to_np(xgrad.grad(xsp.logsumexp)(x32))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, ss.softmax([200.0, 201.0]), rtol=1e-6)


def test_softmax_log_softmax_large_inputs(xp, jax):
    import jax.numpy as jnp
    import jax.scipy.special as jsp
    x = np.array([[1000.0, 1001.0, 999.0], [-1e4, 5.0, -np.inf]])
    w = np.array([[0.3, -1.0, 2.0], [1.0, 0.5, -0.7]])
    r = np.arange(1.0, 4.0)

    def jref():
        out = []
        for name in ("softmax", "log_softmax"):
            f = getattr(jsp, name)
            out.append((f(x, axis=-1), jax.grad(lambda a: jnp.sum(f(a, axis=-1) * w))(x),
                        jax.hessian(lambda a: jnp.sum(f(a) * r))(x[0])))
        return out
    ref = _jax_once("softmax-stable", lambda: jax.jit(jref)())
    W, R = from_np(xp, w), from_np(xp, r)
    for (name, (v, g, h)) in zip(("softmax", "log_softmax"), ref):
        f = getattr(xsp, name)
        np.testing.assert_allclose(to_np(f(from_np(xp, x), axis=-1)), v, rtol=1e-14, err_msg=name)
        got = to_np(xgrad.grad(lambda a: xnp.sum(xnp.multiply(f(a, axis=-1), W)))(from_np(xp, x)))
        assert np.all(np.isfinite(got)), name
        np.testing.assert_allclose(got, g, rtol=1e-13, atol=1e-15, err_msg=name)
        got = to_np(xgrad.hessian(lambda a: xnp.sum(xnp.multiply(f(a), R)))(from_np(xp, x[0])))
        np.testing.assert_allclose(got, h, rtol=1e-12, atol=1e-15, err_msg=name)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
def test_xlogy_xlog1py_at_zero(xp, jax):
    import jax.scipy.special as jsp
    x, y = np.array([0.0, 0.0, 2.0]), np.array([0.0, 3.0, 3.0])
    ref = _jax_once("xlogy-zero", lambda: jax.jit(lambda: (
        jax.grad(lambda a, b: jsp.xlogy(a, b).sum(), argnums=(0, 1))(x, y),
        jax.grad(lambda b: jax.grad(lambda a: jsp.xlogy(a, b))(0.0))(3.0)))())
    (jx, jy), jxy = ref
    X, Y = from_np(xp, x), from_np(xp, y)
    assert to_np(xsp.xlogy(X, Y)).tolist() == [0.0, 0.0, 2 * math.log(3)]
    grad_xy = xgrad.grad(lambda a, b: xnp.sum(xsp.xlogy(a, b)), argnums=(0, 1))
    gx, gy = (to_np(g) for g in grad_xy(X, Y))
    np.testing.assert_array_equal(gx, jx)                  # log(y): -inf at y = 0, as JAX
    # NB: d/dy at x = y = 0 is 0 (the value is 0 all along x = 0); JAX gives nan
    assert gy[0] == 0.0 and np.isnan(jy[0])
    np.testing.assert_array_equal(gy[1:], jy[1:])
    # the mixed second derivative at x = 0 is 1/y, as JAX
    hxy = xgrad.grad(lambda b: xgrad.grad(lambda a: xsp.xlogy(a, b))(from_np(xp, _np64(0.0))))(
        from_np(xp, _np64(3.0)))
    assert float(to_np(hxy)) == pytest.approx(1 / 3) == float(jxy)
    # xlog1py: 0 at x = 0, y = -1, with a zero derivative in y there
    zero, m1 = from_np(xp, _np64([0.0])), from_np(xp, _np64([-1.0]))
    assert to_np(xsp.xlog1py(zero, m1)).tolist() == [0.0]
    gy = xgrad.grad(lambda b: xnp.sum(xsp.xlog1py(zero, b)))(m1)
    assert to_np(gy).tolist() == [0.0]
    # entropy of a distribution with zeros: finite gradient on the support
    p = from_np(xp, np.array([0.0, 0.25, 0.75]))
    g = to_np(xgrad.grad(lambda q: -xnp.sum(xsp.xlogy(q, q)))(p))
    np.testing.assert_allclose(g[1:], -(np.log([0.25, 0.75]) + 1))


# log_ndtr(x)' and '' at x = -30 to 50 digits (mpmath): JAX's tail series is
# off by 2e-10 there, xgrad by 1e-13
_LOG_NDTR_30 = (30.033259667433676, -0.9988962284881099)


def test_log_ndtr_far_tail(xp, jax):
    import jax.scipy.special as jsp
    pts = np.array([-100.0, -1e3, -8.0, 8.0, 40.0])
    d1 = jax.grad(jsp.log_ndtr)
    ref = _jax_once("log_ndtr-tail",
                    lambda: jax.jit(jax.vmap(lambda t: (d1(t), jax.grad(d1)(t))))(pts))
    g1 = xgrad.grad(lambda a: xnp.sum(xsp.log_ndtr(a)))
    g2 = xgrad.grad(lambda a: xnp.sum(g1(a)))
    X = from_np(xp, pts)
    np.testing.assert_allclose(to_np(g1(X)), ref[0], rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(to_np(g2(X)), ref[1], rtol=1e-8, atol=1e-300)
    x30 = from_np(xp, _np64([-30.0]))
    np.testing.assert_allclose(to_np(g1(x30)), [_LOG_NDTR_30[0]], rtol=1e-13)
    np.testing.assert_allclose(to_np(g2(x30)), [_LOG_NDTR_30[1]], rtol=1e-9)
    # the tail asymptote: d/dx log ndtr(x) ~ -x - 1/x as x -> -inf
    assert to_np(g1(from_np(xp, _np64([-1e3]))))[0] == pytest.approx(1e3 + 1e-3, rel=1e-9)
    # float32 on the backend
    x = from_np(xp, np.array([-30.0, -5.0, 2.0], dtype=np.float32))
    g = to_np(g1(x))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, [30.0332597, 5.1865122, 0.0552479], rtol=1e-5)


def test_expit_softplus_tails(xp, jax):
    x = np.array([-800.0, -40.0, 0.0, 40.0, 800.0])
    fns = {"softplus": jax.nn.softplus, "log_expit": jax.nn.log_sigmoid}
    ref = _jax_once("softplus-tails", lambda: jax.jit(lambda: {
        k: (f(x), jax.grad(lambda a: f(a).sum())(x)) for k, f in fns.items()})())
    X = from_np(xp, x)
    np.testing.assert_allclose(to_np(xsp.expit(X)), ss.expit(x), rtol=1e-15)
    g = to_np(xgrad.grad(lambda a: xnp.sum(xsp.expit(a)))(X))
    # NB: exp(-40) at x = +-40, where JAX's ans * (1 - ans) gives 0 for +40
    np.testing.assert_allclose(g, [0.0, math.exp(-40), 0.25, math.exp(-40), 0.0], rtol=1e-14)
    for name, (v, jg) in ref.items():
        out = to_np(getattr(xsp, name)(X))
        assert np.all(np.isfinite(out)), name
        np.testing.assert_allclose(out, v, rtol=1e-15)
        g = to_np(xgrad.grad(lambda a: xnp.sum(getattr(xsp, name)(a)))(X))
        np.testing.assert_allclose(g, jg, rtol=1e-14, atol=1e-300)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
def test_entr_rel_entr_conventions(xp, jax):
    import jax.scipy.special as jsp
    x = np.array([-1.0, 0.0, 0.5])
    p = np.array([0.0, 1.0, 0.5, -1.0, 0.0, 2.0])
    q = np.array([1.0, 0.0, 0.2, 1.0, 0.0, -1.0])
    ref = _jax_once("entr", lambda: jax.jit(lambda: (
        jax.grad(lambda a: jsp.entr(a).sum())(x),
        jax.grad(lambda a, b: jsp.rel_entr(a, b).sum(), argnums=(0, 1))(p, q)))())
    X = from_np(xp, x)
    np.testing.assert_array_equal(to_np(xsp.entr(X)), ss.entr(x))
    g = to_np(xgrad.grad(lambda a: xnp.sum(xsp.entr(a)))(X))
    # -(log x + 1): +inf at 0 as JAX; NB: 0 for x < 0 (the value is the
    # constant -inf there) where JAX's reverse mode gives nan
    assert g[0] == 0.0 and np.isnan(ref[0][0])
    np.testing.assert_array_equal(g[1:], ref[0][1:])
    t = to_np(xgrad.jvp(xsp.entr, (X,), (from_np(xp, np.ones(3)),))[1])
    np.testing.assert_array_equal(t, g)
    P, Q = from_np(xp, p), from_np(xp, q)
    np.testing.assert_array_equal(to_np(xsp.rel_entr(P, Q)), ss.rel_entr(p, q))
    gp, gq = xgrad.grad(lambda a, b: xnp.sum(xsp.rel_entr(a, b)), argnums=(0, 1))(P, Q)
    np.testing.assert_allclose(to_np(gp), ref[1][0], rtol=1e-14)
    np.testing.assert_allclose(to_np(gq), ref[1][1], rtol=1e-14)


@pytest.mark.filterwarnings("ignore:invalid value encountered", "ignore:divide by zero")
@pytest.mark.parametrize("axis, keepdims", [(1, False), (None, False), (0, True)])
def test_logsumexp_where_vs_jax(xp, jax, axis, keepdims):
    import jax.numpy as jnp
    import jax.scipy.special as jsp
    a = np.arange(12.0).reshape(3, 4) / 5 - 1.0
    m = np.array([[1, 0, 1, 1], [0, 0, 0, 0], [1, 1, 0, 1]], dtype=bool)   # row 1: empty sum
    b = np.linspace(-1.0, 2.0, 12).reshape(3, 4)

    def f(mod, ns, w, mask):
        def loss(x):
            out = mod.logsumexp(x, axis=axis, keepdims=keepdims, b=w, where=mask)
            return ns.sum(ns.where(ns.isfinite(out), out, 0.0))
        return loss
    for w in (None, b):
        key = f"lse-where-{axis}-{keepdims}-{w is None}"
        ref = _jax_once(key, lambda: (
            np.asarray(jsp.logsumexp(a, axis=axis, keepdims=keepdims, b=w, where=m)),
            np.asarray(jax.grad(f(jsp, jnp, w, m))(a))))
        A = from_np(xp, a)
        W = None if w is None else from_np(xp, w)
        M = from_np(xp, m)
        got = xsp.logsumexp(A, axis=axis, keepdims=keepdims, b=W, where=M)
        np.testing.assert_allclose(to_np(got), ref[0], rtol=1e-14)
        np.testing.assert_allclose(to_np(xgrad.grad(f(xsp, xnp, W, M))(A)), ref[1], rtol=1e-13,
                                   atol=1e-15)
    # the weights' gradient: 0 at masked entries, also in an empty row (not nan)
    def fb(mod, ns, mask, aa):
        def loss(w):
            out = mod.logsumexp(aa, axis=axis, keepdims=keepdims, b=w, where=mask)
            return ns.sum(ns.where(ns.isfinite(out), out, 0.0))
        return loss
    ref_b = _jax_once(f"lse-where-b-{axis}-{keepdims}", lambda: np.asarray(jax.grad(fb(jsp, jnp, m, a))(b)))
    got_b = to_np(xgrad.grad(fb(xsp, xnp, from_np(xp, m), from_np(xp, a)))(from_np(xp, b)))
    np.testing.assert_allclose(got_b, ref_b, rtol=1e-13, atol=1e-15)


def test_logsumexp_weights_and_sign(xp, jax):
    import jax.numpy as jnp
    import jax.scipy.special as jsp
    a = np.array([[1.0, 2.0, 3.0], [0.5, -np.inf, 1.0]])
    b = np.array([[1.0, 0.0, 2.0], [1.0, 1.0, -3.0]])
    def f(mod, ns):
        return lambda x, w: ns.sum(mod.logsumexp(x, axis=1, b=w, return_sign=True)[0])
    ref = _jax_once("lse-b", lambda: jax.jit(lambda: (
        jsp.logsumexp(a, axis=1, b=b, return_sign=True),
        jax.grad(f(jsp, jnp), argnums=(0, 1))(a, b)))())
    A, Bw = from_np(xp, a), from_np(xp, b)
    out, sgn = xsp.logsumexp(A, axis=1, b=Bw, return_sign=True)
    np.testing.assert_allclose(to_np(out), ref[0][0], rtol=1e-14)
    np.testing.assert_array_equal(to_np(sgn), ref[0][1])
    assert np.isnan(to_np(xsp.logsumexp(A, axis=1, b=Bw))[1])       # a negative sum: nan
    ga, gb = (to_np(g) for g in xgrad.grad(f(xsp, xnp), argnums=(0, 1))(A, Bw))
    assert np.all(np.isfinite(ga)) and np.all(np.isfinite(gb))  # at b == 0 and a == -inf
    np.testing.assert_allclose(ga, ref[1][0], rtol=1e-13)
    np.testing.assert_allclose(gb, ref[1][1], rtol=1e-13)
    # without b: the sign is 1, or 0 for an empty sum
    out, sgn = xsp.logsumexp(from_np(xp, np.array([[0.0, 1.0], [-np.inf, -np.inf]])), axis=1,
                             return_sign=True)
    assert to_np(sgn).tolist() == [1.0, 0.0]
    # an empty sum is -inf (scipy's value), with an empty gradient
    empty = from_np(xp, np.zeros((2, 0)))
    assert to_np(xsp.logsumexp(empty, axis=1)).tolist() == [-np.inf, -np.inf]
    assert to_np(xgrad.grad(lambda x: xnp.sum(xsp.softmax(x, axis=1)))(empty)).shape == (2, 0)


def test_special_points(xp):
    """Near the ends of the domains, against the closed forms."""
    for case, x in (("erfinv", [-0.999, 0.0, 0.9999]), ("ndtri", [1e-10, 0.5, 1 - 1e-6]),
                    ("gammaln", [1e-3, 1e3, 1e6, -2.5, -0.5]), ("digamma", [-2.5, 1e-2, 50.0]),
                    ("logit", [1e-8, 0.5, 1 - 1e-8]), ("log_ndtr", [-20.0, 0.0, 9.0]),
                    ("erfc", [-5.0, 5.0, 20.0])):
        x = np.array(x)
        _, J, T = _BY_NAME[case].d(x)
        g = xgrad.grad(lambda a: xnp.sum(getattr(xsp, case)(a)))
        np.testing.assert_allclose(to_np(g(from_np(xp, x))), np.diag(J), rtol=1e-9, err_msg=case)
        h = xgrad.grad(lambda a: xnp.sum(g(a)))(from_np(xp, x))
        np.testing.assert_allclose(to_np(h), np.einsum("iii->i", T), rtol=1e-8, err_msg=case)


# --------------------------------------------------------------------------
# dtypes, backends and errors

def test_integer_inputs_promote(xp):
    i = from_np(xp, np.array([1, 2, 3]))
    for f in (xsp.erf, xsp.gammaln, xsp.expit, xsp.softmax, xsp.log_softmax, xsp.logsumexp,
              xsp.entr, xsp.softplus):
        assert str(to_np(f(i)).dtype) == "float64", f.__name__
    assert str(to_np(xsp.xlogy(i, 2.0)).dtype) == "float64"
    # a Python scalar takes the array's dtype (weak scalars)
    x32 = from_np(xp, np.array([0.5, 2.0], dtype=np.float32))
    for f in (xsp.xlogy, xsp.xlog1py, xsp.rel_entr, xsp.kl_div):
        assert str(to_np(f(x32, 2.0)).dtype) == "float32", f.__name__
        assert str(to_np(f(2.0, x32)).dtype) == "float32", f.__name__
    assert str(to_np(xsp.logsumexp(x32, b=2.0)).dtype) == "float32"
    assert str(to_np(xsp.polygamma(1, x32)).dtype) == "float32"


def test_python_scalars_and_third_order():
    assert float(xsp.erf(0.0)) == 0.0
    np.testing.assert_allclose(float(xgrad.grad(xsp.gammaln)(3.0)), ss.digamma(3.0), rtol=1e-15)
    np.testing.assert_allclose(float(xgrad.grad(xsp.erf)(1.0)), _C / math.e, rtol=1e-15)
    np.testing.assert_allclose(float(xgrad.grad(lambda x: xsp.polygamma(2, x))(1.5)),
                               ss.polygamma(3, 1.5), rtol=1e-12)
    d3 = xgrad.grad(xgrad.grad(xgrad.grad(xsp.gammaln)))(2.5)
    np.testing.assert_allclose(float(d3), ss.polygamma(2, 2.5), rtol=1e-12)


def test_polygamma_batched_order(xp):
    n = from_np(xp, np.array([0, 1, 2, 3]))
    x = from_np(xp, np.array([0.7, 1.5, 2.5, 3.5]))
    got = xgrad.vmap(xsp.polygamma)(n, x)
    np.testing.assert_allclose(to_np(got), ss.polygamma([0, 1, 2, 3], [0.7, 1.5, 2.5, 3.5]),
                               rtol=1e-12)
    g = xgrad.vmap(xgrad.grad(xsp.polygamma, argnums=1))(n, x)
    np.testing.assert_allclose(to_np(g), ss.polygamma([1, 2, 3, 4], [0.7, 1.5, 2.5, 3.5]),
                               rtol=1e-12)


def test_reached_from_array_namespace(xp):
    """Array-API code finds ``special`` on the namespace a traced value
    reports (a plain array reports its own backend's namespace)."""
    def f(x):
        ns = x.__array_namespace__()
        return ns.sum(ns.special.log_softmax(x, axis=-1) * ns.special.expit(x))

    def ref(x):
        return xnp.sum(xnp.multiply(xsp.log_softmax(x, axis=-1), xsp.expit(x)))
    x = from_np(xp, np.array([[0.5, -1.0, 2.0], [1.0, 0.0, 3.0]]))
    np.testing.assert_allclose(to_np(xgrad.grad(f)(x)), to_np(xgrad.grad(ref)(x)), rtol=1e-14)
    np.testing.assert_allclose(to_np(xgrad.hessian(f)(x)), to_np(xgrad.hessian(ref)(x)), rtol=1e-14)


def test_import_does_not_load_scipy():
    code = "import sys, xgrad, xgrad.numpy.special; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_backend_without_host_copy_raises():
    from xgrad.rules import special as rules

    class _Arr:
        device = "gpu:0"

        def __dlpack__(self, **kw):
            raise BufferError("device memory")

        def __dlpack_device__(self):
            return (2, 0)

    class _Ns:
        __name__ = "fakegpu"

    with pytest.raises(TypeError, match=r"erfinv: no implementation for fakegpu arrays"):
        rules._via_host(_Ns(), "erfinv", ss.erfinv)(_Arr())


def test_every_special_row_has_a_case():
    from xgrad.core import RULES
    rows = {n for n, p in RULES.items() if p.impl.__module__ == "xgrad.rules.special"}
    covered = {c.name.split("[")[0] for c in CASES}
    from test_scipy_special import COVERED_ROWS       # the rows xgrad.scipy.special tests
    covered |= COVERED_ROWS
    assert rows and rows <= covered, sorted(rows - covered)
