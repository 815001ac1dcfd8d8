"""``xgrad.nn`` against ``jax.nn``: values (float64 and float32), JVP, VJP,
second order and vmap through the ``jnp_cases`` harness on numpy and
array_api_strict; derivatives at the kinks (first and second order) as JAX
takes them; first and second derivatives for |x| up to 1e3 against closed
forms (where JAX's own rounds to 0 or nan, xgrad stays accurate); the
forward Laplacian of small MLPs with each smooth activation against the
trace of ``xgrad.hessian`` and of ``jax.hessian``; signatures; errors.
"""
import inspect
import math

import numpy as np
import pytest
import scipy.special as ss

import xgrad
import xgrad.nn as xnn
import xgrad.numpy as xnp
from helpers import assert_close, from_np, to_np
from jnp_cases import JCase, check, ids


def _nn(ns):
    """The nn module that goes with a namespace: xgrad.nn or jax.nn."""
    if ns is xnp:
        return xnn
    import jax.nn  # the oracle side only runs when the jax fixture found jax
    return jax.nn


_rng = np.random.default_rng(15)
X = _rng.uniform(-4.0, 4.0, size=(3, 4))
X32 = X.astype(np.float32)
XPOS = _rng.uniform(0.1, 4.0, size=(3, 4))           # log1mexp: both branches (log 2 = 0.69)
ALPHA = _rng.uniform(0.5, 2.0, size=(4,))
F32 = dict(rtol=2e-5, atol=2e-6)

# activations with one argument: (name, input)
UNARY = ["celu", "elu", "gelu", "hard_sigmoid", "hard_silu", "hard_tanh", "identity",
         "leaky_relu", "log_sigmoid", "mish", "relu", "relu6", "selu", "sigmoid", "silu",
         "soft_sign", "softplus", "sparse_plus", "sparse_sigmoid", "squareplus", "tanh"]
ALIASES = {"hard_swish": "hard_silu", "swish": "silu"}     # the same functions, as in jax.nn
SMOOTH32 = ["gelu", "log_sigmoid", "mish", "silu", "softplus", "celu"]


def _unary(name):
    return lambda ns, x: getattr(_nn(ns), name)(x)


CASES = [JCase("nn." + n, _unary(n), (X,)) for n in UNARY]
CASES += [JCase("nn." + n, _unary(n), (X32,), id="f32", **F32) for n in SMOOTH32]
CASES += [
    JCase("nn.log1mexp", _unary("log1mexp"), (XPOS,)),
    JCase("nn.log1mexp", _unary("log1mexp"), (XPOS.astype(np.float32),), id="f32", **F32),
    JCase("nn.gelu", lambda ns, x: _nn(ns).gelu(x, approximate=False), (X,), id="exact"),
    JCase("nn.gelu", lambda ns, x: _nn(ns).gelu(x, False), (X32,), id="exact-f32", **F32),
    JCase("nn.leaky_relu", lambda ns, x, a: _nn(ns).leaky_relu(x, a), (X, ALPHA), id="slope"),
    JCase("nn.elu", lambda ns, x, a: _nn(ns).elu(x, a), (X, ALPHA), id="alpha"),
    JCase("nn.celu", lambda ns, x, a: _nn(ns).celu(x, a), (X, ALPHA), id="alpha"),
    JCase("nn.squareplus", lambda ns, x, b: _nn(ns).squareplus(x, b), (X, ALPHA), id="b"),
    JCase("nn.squareplus", lambda ns, x: _nn(ns).squareplus(x, 0.5), (X,), id="b-scalar"),
    # reductions over an axis
    JCase("nn.glu", lambda ns, x: _nn(ns).glu(x), (X,)),
    JCase("nn.glu", lambda ns, x: _nn(ns).glu(x, axis=0), (_rng.standard_normal((4, 3)),), id="axis0"),
    JCase("nn.softmax", lambda ns, x: _nn(ns).softmax(x), (X,)),
    JCase("nn.softmax", lambda ns, x: _nn(ns).softmax(x, axis=0), (X,), id="axis0"),
    JCase("nn.softmax", lambda ns, x: _nn(ns).softmax(x, axis=None), (X,), id="all"),
    JCase("nn.softmax", lambda ns, x: _nn(ns).softmax(x, axis=(0, 1)), (X32,), id="f32", **F32),
    JCase("nn.softmax", lambda ns, x, w: _nn(ns).softmax(x, where=w), (X, X > -1.0), id="where"),
    JCase("nn.softmax", lambda ns, x, w: _nn(ns).softmax(x, axis=0, where=w),
          (X, np.array([[True], [False], [True]])), id="where-bcast"),
    JCase("nn.log_softmax", lambda ns, x: _nn(ns).log_softmax(x), (X,)),
    JCase("nn.log_softmax", lambda ns, x: _nn(ns).log_softmax(x, axis=None), (X,), id="all"),
    JCase("nn.log_softmax", lambda ns, x: _nn(ns).log_softmax(x, 0), (X32,), id="f32", **F32),
    JCase("nn.logsumexp", lambda ns, x: _nn(ns).logsumexp(x, axis=1), (X,)),
    JCase("nn.logsumexp", lambda ns, x, b: _nn(ns).logsumexp(x, axis=0, b=b), (X, XPOS), id="b"),
    JCase("nn.logmeanexp", lambda ns, x: _nn(ns).logmeanexp(x), (X,)),
    JCase("nn.logmeanexp", lambda ns, x: _nn(ns).logmeanexp(x, axis=1, keepdims=True), (X,),
          id="keepdims"),
    JCase("nn.logmeanexp", lambda ns, x, w: _nn(ns).logmeanexp(x, axis=0, where=w),
          (X, X > -1.0), id="where"),
    JCase("nn.standardize", lambda ns, x: _nn(ns).standardize(x), (X,)),
    JCase("nn.standardize", lambda ns, x: _nn(ns).standardize(x, axis=(0, 1), algorithm="stable"),
          (X,), id="stable"),
    JCase("nn.standardize", lambda ns, x, w: _nn(ns).standardize(x, 0, where=w, epsilon=0.1),
          (X, X > -2.0), id="where"),
    JCase("nn.standardize", lambda ns, x, m, v: _nn(ns).standardize(x, mean=m, variance=v),
          (X, ALPHA - 1.0, ALPHA), id="given"),
    JCase("nn.standardize", lambda ns, x: _nn(ns).standardize(x), (X32,), id="f32",
          rtol=1e-4, atol=1e-4),
    # no derivative: integer in
    JCase("nn.one_hot", lambda ns, i: _nn(ns).one_hot(i, 5), (np.array([[0, 4, 2], [5, -1, 3]]),)),
    JCase("nn.one_hot", lambda ns, i: _nn(ns).one_hot(i, 3, axis=0, dtype=ns.float32),
          (np.array([0, 2, 1, 1]),), id="axis0-f32"),
    JCase("nn.one_hot", lambda ns, i: _nn(ns).one_hot(i, 4, axis=1, dtype=ns.int32),
          (np.array([[0, 2], [3, 1], [1, 1]]),), id="axis1-int"),
]


# ----- attention: shapes (B, T, N, H), (B, S, K, H) -----
def _qkv(B, T, S, N, K, H, dtype=np.float64, seed=0):
    r = np.random.default_rng(seed)
    q = r.standard_normal((B, T, N, H)).astype(dtype)
    k = r.standard_normal((B, S, K, H)).astype(dtype)
    v = r.standard_normal((B, S, K, H)).astype(dtype)
    return q, k, v


def _dpa(**kw):
    def f(ns, q, k, v, *rest):
        if ns is xnp:
            return xnn.dot_product_attention(q, k, v, *rest, **kw)
        return _jax_dpa(ns, tuple(sorted(kw.items())))(q, k, v, *rest)
    return f


_JIT = {}


def _jax_dpa(jnp, kw):
    """jax's attention, compiled once per keyword set (eager, it runs its
    vmap op by op: seconds per case)."""
    if kw not in _JIT:
        import jax
        _JIT[kw] = jax.jit(lambda q, k, v, *rest: jax.nn.dot_product_attention(q, k, v, *rest,
                                                                               **dict(kw)))
    return _JIT[kw]


# JAX rounds the logits to float32 for its softmax, even in float64: compare at that level
ATT = dict(rtol=3e-6, atol=5e-6)
_QKV = _qkv(2, 3, 4, 2, 2, 3)
_MASK = _rng.uniform(size=(2, 1, 3, 4)) > 0.3
CASES += [
    JCase("nn.dot_product_attention", _dpa(), _QKV, **ATT),
    JCase("nn.dot_product_attention", _dpa(), _qkv(2, 3, 5, 4, 2, 3), id="gqa", **ATT),
    JCase("nn.dot_product_attention", _dpa(), _qkv(1, 3, 4, 3, 1, 2)[:3], id="mqa", **ATT),
    JCase("nn.dot_product_attention", _dpa(), tuple(a[0] for a in _QKV), id="3d", **ATT),
    JCase("nn.dot_product_attention", _dpa(scale=0.7, is_causal=True), _qkv(2, 4, 4, 2, 1, 3),
          id="causal", **ATT),
    JCase("nn.dot_product_attention", _dpa(), _QKV + (_rng.standard_normal((1, 2, 3, 4)), _MASK),
          id="bias-mask", **ATT),
    JCase("nn.dot_product_attention", _dpa(local_window_size=(1, 0)), _QKV, id="window", **ATT),
    JCase("nn.dot_product_attention", _dpa(local_window_size=1, is_causal=True), _QKV,
          id="window-causal", **ATT),
    JCase("nn.dot_product_attention",
          lambda ns, q, k, v, ql, kl: _nn(ns).dot_product_attention(
              q, k, v, query_seq_lengths=ql, key_value_seq_lengths=kl),
          _QKV + (np.array([2, 3], np.int32), np.array([4, 1], np.int32)), id="seqlens", **ATT),
    JCase("nn.dot_product_attention", _dpa(return_residual=True), _qkv(2, 3, 4, 2, 1, 3),
          id="residual", **ATT),
    JCase("nn.dot_product_attention", _dpa(is_causal=True), _qkv(1, 3, 3, 2, 2, 4, np.float32),
          id="f32", rtol=2e-5, atol=2e-6),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_against_jax(xp, jax, case):
    check(case, xp, jax)


def test_attention_float64_reference(xp):
    """Masked grouped-query attention against a plain float64 numpy
    computation (JAX's own result is rounded to float32 in its softmax)."""
    q, k, v = _qkv(2, 3, 4, 4, 2, 3, seed=3)
    bias = _rng.standard_normal((1, 4, 3, 4))
    got = xnn.dot_product_attention(*(from_np(xp, a) for a in (q, k, v, bias)), is_causal=True,
                                    key_value_seq_lengths=from_np(xp, np.array([4, 2])))
    kr, vr = np.repeat(k, 2, axis=2), np.repeat(v, 2, axis=2)
    logits = np.einsum("btnh,bsnh->bnts", q, kr) / math.sqrt(3) + bias
    keep = np.tril(np.ones((3, 4), bool))[None, None] & (np.arange(4) < np.array([4, 2])[:, None])[
        :, None, None, :]
    logits = np.where(keep, logits, -0.7 * np.finfo(np.float32).max)
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    assert_close(got, np.einsum("bnts,bsnh->btnh", p, vr), rtol=1e-13, atol=1e-14)


# --------------------------------------------------------------------------
# kinks: first and second derivatives as JAX takes them

KINKS = [("relu", [0.0]), ("relu6", [0.0, 6.0]), ("hard_tanh", [-1.0, 1.0]),
         ("leaky_relu", [0.0]), ("elu", [0.0]), ("celu", [0.0]), ("selu", [0.0]),
         ("sparse_plus", [-1.0, 1.0]), ("sparse_sigmoid", [-1.0, 1.0]),
         ("hard_sigmoid", [-3.0, 3.0]), ("hard_silu", [-3.0, 0.0, 3.0]), ("soft_sign", [0.0]),
         ("squareplus", [0.0]), ("softplus", [0.0]), ("log_sigmoid", [0.0]), ("mish", [0.0]),
         ("gelu", [0.0])]


@pytest.mark.parametrize("name,points", KINKS, ids=[k[0] for k in KINKS])
def test_kinks(jax, name, points):
    f, jf = getattr(xnn, name), getattr(jax.nn, name)
    jd = jax.jit(lambda x: (jax.vmap(jax.grad(jf))(x), jax.vmap(jax.grad(jax.grad(jf)))(x)))
    for dt in ("float64", "float32"):
        x = np.asarray(points, dtype=dt)
        d1, d2 = xgrad.vmap(xgrad.grad(f))(x), xgrad.vmap(xgrad.grad(xgrad.grad(f)))(x)
        j1, j2 = jd(x)
        np.testing.assert_allclose(to_np(d1), np.asarray(j1), rtol=1e-6, atol=0, err_msg=name)
        np.testing.assert_allclose(to_np(d2), np.asarray(j2), rtol=1e-6, atol=0, err_msg=name)
        assert str(to_np(d2).dtype) == dt


# --------------------------------------------------------------------------
# large |x|: finite, accurate first and second derivatives (PINNs)

def _s(x):
    return ss.expit(x)


def _phi(x):
    return np.exp(-x * x / 2) / math.sqrt(2 * math.pi)


_C, _A = math.sqrt(2 / math.pi), 0.044715


def _gelu_tanh_d(x):
    z1, z2 = _C * (1 + 3 * _A * x * x), 6 * _A * _C * x
    z = _C * (x + _A * x ** 3)
    s, sb = _s(2 * z), _s(-2 * z)
    p1 = 2 * z1 * s * sb
    p2 = 2 * z2 * s * sb + 4 * z1 * z1 * s * sb * (sb - s)
    return s + x * p1, 2 * p1 + x * p2


def _mish_d(x):
    sp = np.logaddexp(x, 0.0)
    with np.errstate(over="ignore"):
        t, sech2 = np.tanh(sp), 1 / np.cosh(sp) ** 2
    s, sb = _s(x), _s(-x)
    t1 = sech2 * s
    t2 = -2 * t * t1 * s + sech2 * s * sb
    return t + x * t1, 2 * t1 + x * t2


# (name, closed-form (first, second) derivative)
CLOSED = {
    "softplus": lambda x: (_s(x), _s(x) * _s(-x)),
    "log_sigmoid": lambda x: (_s(-x), -_s(x) * _s(-x)),
    "sigmoid": lambda x: (_s(x) * _s(-x), _s(x) * _s(-x) * (_s(-x) - _s(x))),
    "silu": lambda x: (_s(x) + x * _s(x) * _s(-x),
                       2 * _s(x) * _s(-x) + x * _s(x) * _s(-x) * (_s(-x) - _s(x))),
    "gelu": _gelu_tanh_d,
    "gelu_exact": lambda x: (0.5 * ss.erfc(-x / math.sqrt(2)) + x * _phi(x), _phi(x) * (2 - x * x)),
    "mish": _mish_d,
}
BIG = np.array([-1e3, -200.0, -40.0, -20.0, -10.0, -3.0, 3.0, 10.0, 20.0, 40.0, 200.0, 1e3])


def _fn(name):
    if name == "gelu_exact":
        return lambda x: xnn.gelu(x, approximate=False)
    return getattr(xnn, name)


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CLOSED))
def test_large_x_derivatives(xp, name, dt):
    f = _fn(name)
    x = from_np(xp, BIG.astype(dt))
    d1 = to_np(xgrad.vmap(xgrad.grad(f))(x))
    d2 = to_np(xgrad.vmap(xgrad.grad(xgrad.grad(f)))(x))
    w1, w2 = CLOSED[name](BIG)
    assert d1.dtype == d2.dtype == np.dtype(dt)
    assert np.isfinite(d1).all() and np.isfinite(d2).all()
    # relative accuracy, down to the smallest normal number of the dtype
    tiny = np.finfo(dt).tiny * 1e3
    rtol = 1e-12 if dt == "float64" else 2e-5
    if name.startswith("gelu") and dt == "float32":
        rtol = 2e-4      # z = sqrt(2/pi) (x + 0.044715 x^3) rounded in float32 at |x| ~ 10
    np.testing.assert_allclose(d1, w1, rtol=rtol, atol=tiny, err_msg=f"{name} first")
    np.testing.assert_allclose(d2, w2, rtol=rtol, atol=tiny, err_msg=f"{name} second")


@pytest.mark.parametrize("name", sorted(CLOSED))
def test_large_x_against_jax(jax, name):
    """Where JAX's derivatives are finite they agree to an absolute 1e-15 of
    the derivative's scale (JAX rounds the far tails to 0)."""
    f = _fn(name)
    jf = (lambda x: jax.nn.gelu(x, approximate=False)) if name == "gelu_exact" else \
        getattr(jax.nn, name)
    for g, jg in ((xgrad.grad(f), jax.grad(jf)), (xgrad.grad(xgrad.grad(f)), jax.grad(jax.grad(jf)))):
        got = to_np(xgrad.vmap(g)(BIG))
        want = np.asarray(jax.jit(jax.vmap(jg))(BIG))
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(to_np(f(BIG)), np.asarray(jf(BIG)), rtol=1e-12, atol=1e-15)


def test_log1mexp_large_and_small(xp):
    x = np.array([1e-8, 1e-3, 0.5, math.log(2), 1.0, 5.0, 40.0, 1e3])
    xa = from_np(xp, x)
    want = np.where(x < math.log(2), np.log(-np.expm1(-x)), np.log1p(-np.exp(-x)))
    assert_close(xnn.log1mexp(xa), want, rtol=1e-14, atol=1e-300)
    d1 = xgrad.vmap(xgrad.grad(xnn.log1mexp))(xa)
    d2 = xgrad.vmap(xgrad.grad(xgrad.grad(xnn.log1mexp)))(xa)
    assert_close(d1, np.exp(-x) / -np.expm1(-x), rtol=1e-12, atol=1e-300)
    assert_close(d2, -np.exp(-x) / np.expm1(-x) ** 2, rtol=1e-10, atol=1e-300)
    with np.errstate(invalid="ignore"):
        assert np.isnan(to_np(xnn.log1mexp(from_np(xp, np.array([-1.0]))))).all()


def test_squareplus_negative_tail(xp):
    """b / (2 (sqrt(x^2 + b) - x)) for x < 0: no cancellation, float32 too."""
    x = np.array([-1e3, -1e2, -1.0])
    want = 4 / (2 * (np.sqrt(x * x + 4) - x))
    for dt in ("float64", "float32"):
        got = xnn.squareplus(from_np(xp, x.astype(dt)))
        assert str(to_np(got).dtype) == dt
        assert_close(got, want, rtol=1e-14 if dt == "float64" else 1e-6, atol=0)


def test_gelu_tanh_tail(xp):
    """x (1 + tanh(z)) / 2 for negative x keeps its tail (JAX rounds it)."""
    x = np.array([-8.0, -6.0, -4.0])
    z = _C * (x + _A * x ** 3)
    want = x * np.exp(2 * z) / (1 + np.exp(2 * z))
    assert_close(xnn.gelu(from_np(xp, x)), want, rtol=1e-14, atol=0)


# --------------------------------------------------------------------------
# forward Laplacian of small MLPs (PINNs): against xgrad.hessian and jax.hessian

LAP = ["celu", "elu", "gelu", "log_sigmoid", "mish", "selu", "sigmoid", "silu", "softplus",
       "squareplus", "tanh", "gelu_exact"]
_P = [(_rng.standard_normal((3, 6)) / 2, 0.1 * _rng.standard_normal(6)),
      (_rng.standard_normal((6, 5)) / 2, 0.1 * _rng.standard_normal(5)),
      (_rng.standard_normal((5, 1)), 0.1 * _rng.standard_normal(1))]
_X0 = _rng.uniform(-1.5, 1.5, size=(3,))


def _mlp(ns, act, params, x):
    h = x
    for i, (W, b) in enumerate(params):
        h = ns.matmul(h, W) + b
        if i < len(params) - 1:
            h = act(h)
    return h[0]


def _act(ns, name):
    if name == "gelu_exact":
        return lambda x: _nn(ns).gelu(x, approximate=False)
    return getattr(_nn(ns), name)


_JAX_LAP = {}


@pytest.mark.parametrize("name", LAP)
def test_laplacian_mlp(xp, jax, name):
    import jax.numpy as jnp
    params = [(from_np(xp, W), from_np(xp, b)) for W, b in _P]
    f = lambda x: _mlp(xnp, _act(xnp, name), params, x)   # noqa: E731
    x = from_np(xp, _X0)
    lap = xgrad.laplacian(f)(x)
    tr = xnp.sum(xnp.diagonal(xgrad.hessian(f)(x)))
    if name not in _JAX_LAP:
        jp = [(jnp.asarray(W), jnp.asarray(b)) for W, b in _P]
        jfn = lambda x: _mlp(jnp, _act(jnp, name), jp, x)   # noqa: E731
        _JAX_LAP[name] = float(jnp.trace(jax.jit(jax.hessian(jfn))(jnp.asarray(_X0))))
    assert_close(lap, tr, rtol=1e-12, atol=1e-13)
    assert_close(lap, _JAX_LAP[name], rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------
# signatures, dtypes, errors

def test_signatures_match_jax(jax):
    import jax.nn as jnn
    for name in xnn.__all__:
        want = inspect.signature(getattr(jnn, name)).parameters
        got = inspect.signature(getattr(xnn, name)).parameters
        assert [(p.name, p.kind, p.default) for p in got.values()] == \
            [(p.name, p.kind, p.default) for p in want.values()], name


def test_aliases():
    for a, b in ALIASES.items():
        assert getattr(xnn, a) is getattr(xnn, b)


def test_everything_of_jax_nn(jax):
    """All of jax.nn but initializers and the block-scaled (fp8/fp4) matmuls."""
    import jax.nn as jnn
    left_out = {"initializers", "scaled_matmul", "scaled_dot_general",
                "get_scaled_dot_general_config"}
    public = {n for n in dir(jnn) if not n.startswith("_")}
    assert public - left_out == set(xnn.__all__)


@pytest.mark.parametrize("name", UNARY + ["log1mexp"])
def test_dtypes_and_scalars(xp, name):
    f = getattr(xnn, name)
    for dt in ("float32", "float64"):
        assert str(to_np(f(from_np(xp, XPOS.astype(dt)))).dtype) == dt
    if name != "identity":
        assert str(to_np(f(from_np(xp, np.array([1, 2])))).dtype) == "float64"   # int -> float64
    want = f(from_np(xp, np.array(0.75)))
    assert_close(f(0.75), want)
    assert tuple(f(0.75).shape) == ()


def test_one_hot_traced_and_float_dtype(xp):
    i = from_np(xp, np.array([2, 0, 1]))
    out = xgrad.vmap(lambda j: xnn.one_hot(j, 3))(i)
    assert_close(out, np.eye(3)[[2, 0, 1]])
    assert str(to_np(out).dtype) == "float64"


def test_softmax_masked_rows(xp, jax):
    """A row with every entry masked gives 0 (softmax) and -inf
    (log_softmax), as JAX, with zero gradient and no nan."""
    x = from_np(xp, X)
    w = np.array([[True] * 4, [False] * 4, [True, False, True, False]])
    for name in ("softmax", "log_softmax"):
        f, jf = getattr(xnn, name), getattr(jax.nn, name)
        got, want = f(x, where=from_np(xp, w)), jf(X, where=w)
        np.testing.assert_array_equal(to_np(got)[1], np.asarray(want)[1])
        g = xgrad.grad(lambda x: xnp.sum(xnp.where(from_np(xp, w), f(x, where=from_np(xp, w)), 0.0)
                                         * from_np(xp, XPOS)))(x)
        jg = jax.grad(lambda x: jax.numpy.sum(jax.numpy.where(w, jf(x, where=w), 0.0) * XPOS))(X)
        assert_close(g, jg, rtol=1e-12, atol=1e-14)


def test_caller_array_untouched(xp):
    a = np.array([-1.0, 0.5, 2.0])
    x = from_np(xp, a)
    for name in UNARY:
        getattr(xnn, name)(x)
        xgrad.grad(lambda x: xnp.sum(getattr(xnn, name)(x)))(x)
    assert_close(x, a, rtol=0, atol=0)


def test_errors(xp):
    q, k, v = (from_np(xp, a) for a in _QKV)
    with pytest.raises(ValueError, match="glu: the size of axis"):
        xnn.glu(from_np(xp, np.ones((2, 3))))
    with pytest.raises(TypeError, match="one_hot: num_classes"):
        xnn.one_hot(from_np(xp, np.array([1])), 3.0)
    with pytest.raises(ValueError, match="one_hot: axis"):
        xnn.one_hot(from_np(xp, np.array([1])), 3, axis=2)
    with pytest.raises(TypeError, match="relu: x must be an array"):
        xnn.relu([1.0, 2.0])
    with pytest.raises(ValueError, match="standardize: unknown algorithm"):
        xnn.standardize(q, algorithm="exact")
    with pytest.raises(ValueError, match="implementation='cudnn'"):
        xnn.dot_product_attention(q, k, v, implementation="cudnn")
    with pytest.raises(ValueError, match="value shape"):
        xnn.dot_product_attention(q, k, from_np(xp, _QKV[2][:, :2]))
    with pytest.raises(ValueError, match="multiple of key/value heads"):
        xnn.dot_product_attention(from_np(xp, np.ones((2, 3, 3, 3))), k, v)
    with pytest.raises(ValueError, match="mask must be a boolean"):
        xnn.dot_product_attention(q, k, v, mask=from_np(xp, np.ones((1, 1, 3, 4))))
    with pytest.raises(ValueError, match="query_seq_lengths must be an integer"):
        xnn.dot_product_attention(q, k, v, query_seq_lengths=from_np(xp, np.array([1.0, 2.0])))
