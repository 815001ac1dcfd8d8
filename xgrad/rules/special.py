"""Special functions: the rows behind ``xgrad.numpy.special``.

Three kinds of rows live here:

* functions with no array API formula (``erf``, ``gammaln``, ``ndtri``, ...):
  the impl calls ``scipy.special`` on numpy arrays and
  ``cupyx.scipy.special`` on cupy arrays (both imported on first use: scipy
  is a dependency of this module only); arrays of other backends make a
  round trip to numpy through DLPack on the CPU (``_special_fn``);
* functions whose naive formula loses precision or overflows (``expit``,
  ``logit``, ``xlogy``, ``entr``, ``rel_entr``, ``logsumexp``,
  ``softmax``, ``log_softmax``): a primitive with an impl on any array API
  namespace, so the value and the rules can pick the stable form;
* everything else (``softplus``, ``log_expit``, ``kl_div``, ``logsumexp``
  with weights ``b``) is a composite in ``xgrad/numpy/special.py``.

Derivatives follow JAX (``jax.scipy.special``) so the oracle tests compare,
with the exceptions marked NB. Rule bodies call ``xgrad.numpy`` and
``xgrad.numpy.special`` functions, never ``xp.*`` and never scipy, so every
rule differentiates again (``digamma' = polygamma(1, .)``,
``polygamma(n, .)' = polygamma(n + 1, .)``). To add a function: one row
here, one user function in ``xgrad/numpy/special.py``, one entry in the
table of ``tests/test_special.py``.
"""
from __future__ import annotations

import math

from . import defprim
from . import _batching
from .reductions import _expand
from .. import numpy as xnp
# the user-level module, whose functions rule bodies differentiate through
# (it imports this module first: it is complete by the time a rule runs)
from ..numpy import special as _special
from ..backends import default_namespace
from array_api_compat import is_cupy_namespace as _is_cupy_ns, is_numpy_namespace as _is_numpy_ns

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


# --------------------------------------------------------------------------
# backend functions: scipy.special and its counterparts

_FNS: dict = {}


def _special_fn(xp, name):
    """``scipy.special.<name>`` for arrays of namespace ``xp``."""
    key = (xp, name)
    try:
        return _FNS[key]
    except (KeyError, TypeError):
        pass
    if _is_cupy_ns(xp):
        # optional third-party package: imported only when cupy arrays are met
        import cupyx.scipy.special as sps
        fn = getattr(sps, name)
    elif _is_numpy_ns(xp):     # by namespace: jax.numpy is not numpy
        fn = getattr(_scipy_special(name), name)
    else:
        fn = _via_host(xp, name, getattr(_scipy_special(name), name))
    _FNS[key] = fn
    return fn


def _scipy_special(name):
    try:   # optional third-party package: imported on first use, never by import xgrad
        import scipy.special as sps
    except ImportError:
        raise ImportError(f"xgrad.numpy.special.{name} needs scipy (pip install scipy); "
                          f"nothing else in xgrad does") from None
    return sps


def _via_host(xp, name, fn):
    """``fn`` for a backend scipy does not know: the arrays go to numpy
    through DLPack (no copy on the CPU) and the result comes back on the
    argument's device.

    NB: a backend quirk, kept here while it serves this module only (it
    belongs in ``backends/``); a device array that can't be read on the CPU
    raises a TypeError naming the backend."""
    host = default_namespace()

    def call(*args):
        dev = None
        h = []
        for a in args:
            if hasattr(a, "__dlpack__"):
                if dev is None:
                    dev = a.device
                try:
                    a = host.from_dlpack(a)
                except Exception as e:  # noqa: BLE001 (each library raises its own)
                    raise TypeError(
                        f"xgrad.numpy.special.{name}: no implementation for "
                        f"{xp.__name__} arrays on {dev}: scipy.special runs on numpy "
                        f"(and cupyx.scipy.special on cupy), and DLPack could not "
                        f"hand this array to numpy ({e}); move it to the CPU or to "
                        f"numpy/cupy first") from None
            h.append(a)
        return xp.asarray(fn(*h), device=dev)
    return call


def _out_dtype(xp, out, x):
    """``out`` in the floating dtype of ``x`` (scipy computes some functions,
    polygamma for one, in float64 whatever the input)."""
    dt = getattr(x, "dtype", None)
    if dt is not None and out.dtype != dt:
        out = xp.astype(out, dt)
    return out


def _scipy_unary(name):
    def impl(xp, x):
        return _out_dtype(xp, _special_fn(xp, name)(x), x)
    impl.__name__ = name
    return impl


def _row(name, impl, **kw):
    """An elementwise row (unary, or binary with broadcasting)."""
    return defprim(name, impl, family="elementwise", **kw)


# ----- error function and normal distribution -----
def _gauss(x, c):
    """exp(-c x^2), the constant 0 where |x| > 40 (where it is 0 in float64
    already): its derivative at x = 1e308 is then 0, not 0 * inf."""
    return xnp.where(xnp.abs(x) > 40.0, 0.0, xnp.exp(-c * xnp.square(x)))


# NB: the second derivatives of erf, erfc and ndtr are 0 at |x| = 1e308 and
# +-inf (JAX: nan for erf and erfc)
_row("erf", _scipy_unary("erf"), domain=(-2.0, 2.0),
     deriv=lambda ans, x: (2.0 / _SQRT_PI) * _gauss(x, 1.0))
_row("erfc", _scipy_unary("erfc"), domain=(-2.0, 2.0),
     deriv=lambda ans, x: (-2.0 / _SQRT_PI) * _gauss(x, 1.0))
_row("erfinv", _scipy_unary("erfinv"), domain=(-0.9, 0.9),
     deriv=lambda ans, x: (_SQRT_PI / 2.0) * xnp.exp(xnp.square(ans)))
_row("ndtr", _scipy_unary("ndtr"), domain=(-3.0, 3.0),
     deriv=lambda ans, x: _gauss(x, 0.5) / _SQRT_2PI)
# NB: ndtri' = sqrt(2 pi) exp(ndtri^2 / 2) is +inf at p = 0 and 1, the limit
# where ndtri is -+inf (JAX: 0)
_row("ndtri", _scipy_unary("ndtri"), domain=(0.05, 0.95),
     deriv=lambda ans, x: _SQRT_2PI * xnp.exp(0.5 * xnp.square(ans)))
# d log ndtr(x) = pdf(x) / ndtr(x), computed as exp(log pdf(x) - log ndtr(x)):
# at x = -30 both are about -450 and their difference log(30) is exact,
# where pdf/ndtr would be 0/0 (JAX's rule)
_row("log_ndtr", _scipy_unary("log_ndtr"), domain=(-3.0, 3.0),
     deriv=lambda ans, x: xnp.exp(xnp.subtract(-0.5 * xnp.square(x) - _LOG_SQRT_2PI, ans)))

# ----- gamma family -----
# At the poles (0 and the negative integers) the values are the limits where
# one exists: digamma(+-0) = -+inf (digamma ~ -1/x), as scipy gives and JAX
# does not (nan), polygamma(n, .) the signed limit of its pole of order n + 1
# (+inf for odd n on both sides, -+inf at +-0 for even n and nan at the
# negative integers, where the two sides differ; scipy gives -inf there), and
# polygamma(n >= 1, +inf) = 0 (JAX: nan). So the derivatives of gammaln,
# digamma and gamma at 0 and +inf are limits too (NB: JAX gives nan there).
def _gammaln_impl(xp, x):
    # NB: gammaln(-inf) = +inf, as in JAX: every float below -2**52 is an
    # integer, a pole (scipy gives -inf, the limit between the poles)
    out = _out_dtype(xp, _special_fn(xp, "gammaln")(x), x)
    return xp.where(x == -math.inf, math.inf, out)


_row("gammaln", _gammaln_impl, domain=(0.5, 4.0),
     deriv=lambda ans, x: _special.digamma(x))
_row("digamma", _scipy_unary("digamma"), domain=(0.5, 4.0),
     deriv=lambda ans, x: _special.polygamma(1, x))
_row("gamma", _scipy_unary("gamma"), domain=(0.5, 3.0),
     deriv=lambda ans, x: xnp.multiply(ans, _special.digamma(x)))


def _polygamma_impl(xp, n, x):
    out = _out_dtype(xp, _special_fn(xp, "polygamma")(n, x), x)
    # a pole of odd order (n even) at x = -k: -inf at +0, +inf at -0, nan at
    # the negative integers and -inf (scipy: -inf at all of them)
    pole = (n % 2 == 0) & (x <= 0) & (xp.floor(x) == x)
    return xp.where(pole, xp.where(x == 0, xp.copysign(xp.full_like(out, math.inf), -x),
                                   math.nan), out)


def _polygamma_dx(ans, n, x):
    return _special.polygamma(n + 1, x)


# n is an integer order: no derivative
_row("polygamma", _polygamma_impl, broadcast=True, nargs=2, nondiff=(0,),
     deriv=(None, _polygamma_dx), domain=(0.5, 4.0))


# ----- modified Bessel functions of the first kind -----
_SMALL = 1e-30        # |x| below which i1(x) / x is 1/2 to the last digit (and a float32)


def _i1_d(ans, x):
    # i1' = i0 - i1 / x: 1/2 for |x| < 1e-30 (the true 1/2 + 3 x^2 / 16,
    # where i1(x) / x would lose its digits to subnormal rounding: 0 at
    # x = 5e-324), and +inf where i0 overflows (not inf - inf)
    small = xnp.abs(x) < _SMALL
    i0 = _special.i0(x)
    d = xnp.subtract(i0, xnp.divide(ans, xnp.where(small, 1.0, x)))
    return xnp.where(small, 0.5, xnp.where(xnp.isinf(i0), i0, d))


# NB: i0'(0) = i1(0) = 0, i0''(0) = 1/2 and i1''(0) = 0 (JAX: 1, 1.5 and 1,
# from the kink of |x| in its exp(|x|) i0e(x)); +-inf where i1 overflows
# (JAX: nan)
_row("i0", _scipy_unary("i0"), domain=(-3.0, 3.0), deriv=lambda ans, x: _special.i1(x))
_row("i1", _scipy_unary("i1"), domain=(-3.0, 3.0), deriv=_i1_d)


# ----- logistic -----
def _expit_impl(xp, x):
    # exp of -|x| only: no overflow for either sign
    e = xp.exp(-xp.abs(x))
    r = 1.0 / (1.0 + e)
    return xp.where(x >= 0, r, e * r)


# NB: expit' = expit(x) expit(-x), not JAX's ans (1 - ans), which is 0 for
# x > 37 in float64 where the derivative is still about exp(-x)
_row("expit", _expit_impl, domain=(-3.0, 3.0),
     deriv=lambda ans, x: xnp.multiply(ans, _special.expit(-x)))
_row("logit", lambda xp, x: xp.log(x / (1.0 - x)), domain=(0.1, 0.9),
     deriv=lambda ans, x: xnp.reciprocal(x * (1.0 - x)))


# ----- x log y: zero where x == 0 (and y is not nan, as in scipy and JAX) -----
def _xlog_impl(log):
    def impl(xp, x, y):
        z = (x == 0) & (y == y)
        return xp.where(z, xp.zeros_like(x), x * getattr(xp, log)(xp.where(z, 1.0, y)))
    return impl


def _xlogy_dy(ans, x, y):
    # x / y, with the 0/0 at x = y = 0 read as 0 (the value is 0 for every y
    # on the line x = 0). NB: JAX gives nan there.
    return xnp.divide(x, xnp.where(xnp.logical_and(x == 0, y == 0), 1.0, y))


def _xlog1py_dy(ans, x, y):
    return xnp.divide(x, xnp.where(xnp.logical_and(x == 0, y == -1), 1.0, y + 1.0))


_row("xlogy", _xlog_impl("log"), broadcast=True, nargs=2, domain=(0.2, 3.0),
     deriv=(lambda ans, x, y: xnp.log(y), _xlogy_dy))
_row("xlog1py", _xlog_impl("log1p"), broadcast=True, nargs=2, domain=(0.2, 3.0),
     deriv=(lambda ans, x, y: xnp.log1p(y), _xlog1py_dy))


# ----- entropies (JAX's conventions) -----
def _entr_impl(xp, x):
    v = -(x * xp.log(xp.where(x > 0, x, 1.0)))
    return xp.where(x < 0, -math.inf, v)


def _entr_d(ans, x):
    # -(log x + 1): +inf at 0; 0 where x < 0 (the value is the constant -inf).
    # NB: JAX's reverse mode gives nan for x < 0 (its forward mode gives 0).
    neg = x < 0
    return xnp.where(neg, 0.0, -(xnp.log(xnp.where(neg, 1.0, x)) + 1.0))


_row("entr", _entr_impl, domain=(0.2, 3.0), deriv=_entr_d)


def _rel_entr_safe(x, y, ns):
    """(mask of x > 0 and y > 0, x there else 1, y there else 1)."""
    both = ns.logical_and(x > 0, y > 0)
    return both, ns.where(both, x, 1.0), ns.where(both, y, 1.0)


def _rel_entr_impl(xp, x, y):
    both, sx, sy = _rel_entr_safe(x, y, xp)
    zero = xp.logical_and(x == 0, y >= 0)
    # log(x / y) keeps its digits where x ~ y; log x - log y where x / y
    # over- or underflows (rel_entr(1e-308, 1e308) is -1.6e-305, not -inf)
    r = sx / sy
    ok = (r > 1e-300) & (r < 1e300)
    val = sx * xp.where(ok, xp.log(xp.where(ok, r, 1.0)), xp.log(sx) - xp.log(sy))
    return xp.where(both, val, xp.where(zero, xp.zeros_like(val), math.inf))


def _rel_entr_dx(ans, x, y):
    # log x - log y + 1 (not log(x / y) + 1: its own derivative is then
    # 1/x - 1/y at every x, y > 0, with no inf / inf where x or y is huge)
    both, sx, sy = _rel_entr_safe(x, y, xnp)
    return xnp.where(both, xnp.log(sx) - xnp.log(sy) + 1.0, 0.0)


def _rel_entr_dy(ans, x, y):
    both, sx, sy = _rel_entr_safe(x, y, xnp)
    return xnp.where(both, -xnp.divide(sx, sy), 0.0)


# derivative 0 outside x > 0, y > 0 (JAX's convention: the value there is a
# constant, 0 or inf)
_row("rel_entr", _rel_entr_impl, broadcast=True, nargs=2, domain=(0.2, 3.0),
     deriv=(_rel_entr_dx, _rel_entr_dy))


# ----- log-sum-exp and softmax (``axis``: None or a sorted tuple) -----
def _shift(xp, x, axis):
    """max(x) over ``axis`` (keepdims), 0 where it is not finite: so all -inf
    gives exp(-inf - 0) = 0 and +inf stays inf, without inf - inf."""
    if any(n == 0 for i, n in enumerate(x.shape) if axis is None or i in axis):
        return xp.sum(x, axis=axis, keepdims=True)     # empty rows: zeros (max raises)
    m = xp.max(x, axis=axis, keepdims=True)
    return xp.where(xp.isfinite(m), m, 0.0)


def _lse_impl(xp, x, *, axis, keepdims):
    m = _shift(xp, x, axis)
    s = xp.sum(xp.exp(x - m), axis=axis, keepdims=True)
    zero = s == 0                      # every entry -inf: log 0 without a warning
    out = xp.where(zero, -math.inf, xp.log(xp.where(zero, 1.0, s)) + m)
    if not keepdims:
        out = xp.reshape(out, tuple(n for i, n in enumerate(x.shape)
                                    if axis is not None and i not in axis))
    return out


def _lse_jvp(x_dot, ans, x, *, axis, keepdims):
    w = _special.softmax(x, axis=axis)
    return xnp.sum(xnp.multiply(x_dot, w), axis=axis, keepdims=keepdims)


def _lse_vjp(ans, x, *, axis, keepdims):
    # the weights are softmax(x), recomputed from x rather than taken as
    # exp(x - ans): at x ~ 1000 the rounding of ans would cost 1e-13
    w = _special.softmax(x, axis=axis)
    shape = tuple(x.shape)
    return lambda g: xnp.multiply(_expand(g, shape, axis, keepdims), w)


# d logsumexp = softmax: 0 (not nan) at entries -inf
defprim("logsumexp", _lse_impl, family="reduction", jvp=_lse_jvp, vjp=_lse_vjp,
        domain=(-3.0, 3.0), batch=_batching.reduction)


def _softmax_impl(xp, x, *, axis):
    e = xp.exp(x - _shift(xp, x, axis))
    return e / xp.sum(e, axis=axis, keepdims=True)


def _softmax_jvp(x_dot, ans, x, *, axis):
    dot = xnp.sum(xnp.multiply(ans, x_dot), axis=axis, keepdims=True)
    return xnp.multiply(ans, xnp.subtract(x_dot, dot))


def _softmax_vjp(ans, x, *, axis):
    return lambda g: _softmax_jvp(g, ans, x, axis=axis)     # symmetric Jacobian


defprim("softmax", _softmax_impl, family="special", jvp=_softmax_jvp, vjp=_softmax_vjp,
        domain=(-3.0, 3.0), batch=_batching.axes_shift)


def _log_softmax_impl(xp, x, *, axis):
    # x - max is exact, so the result keeps its digits at x ~ 1000, where
    # x - logsumexp(x) would lose 1e-13
    shifted = x - _shift(xp, x, axis)
    return shifted - xp.log(xp.sum(xp.exp(shifted), axis=axis, keepdims=True))


def _log_softmax_jvp(x_dot, ans, x, *, axis):
    dot = xnp.sum(xnp.multiply(xnp.exp(ans), x_dot), axis=axis, keepdims=True)
    return xnp.subtract(x_dot, dot)


def _log_softmax_vjp(ans, x, *, axis):
    s = xnp.exp(ans)
    return lambda g: xnp.subtract(g, xnp.multiply(s, xnp.sum(g, axis=axis, keepdims=True)))


defprim("log_softmax", _log_softmax_impl, family="special", jvp=_log_softmax_jvp,
        vjp=_log_softmax_vjp, domain=(-3.0, 3.0), batch=_batching.axes_shift)


# --------------------------------------------------------------------------
# incomplete gamma and beta functions: values from scipy; the derivative in x
# in closed form (the density), the derivative in the shape parameters from
# a series or continued fraction differentiated term by term (below)

def _scipy_nary(name):
    def impl(xp, *args):
        return _out_dtype(xp, _special_fn(xp, name)(*args), _widest(xp, args))
    impl.__name__ = name
    return impl


def _widest(xp, args):
    """The argument whose dtype the result takes (the widest float)."""
    best = args[0]
    for a in args[1:]:
        if xp.result_type(best.dtype, a.dtype) != best.dtype:
            best = a
    return best


def _to64(xp, *args):
    """The arguments broadcast together, in float64 (the algorithms below
    run in double precision whatever the input)."""
    args = xp.broadcast_arrays(*args)
    f64 = _f64(xp)
    return [a if a.dtype == f64 else xp.astype(a, f64) for a in args]


def _f64(xp):
    return xp.float64


_MAX_TERMS = 20000          # series / continued-fraction terms (enough for a, x <= 1e6)


_TOL = 1e-14     # relative step that ends a sum: the convergents' rounding noise is a few eps


def _still(xp, active, *pairs):
    """The entries still summing: ``active`` (a pair of masks: summing, and
    small at the last check) without those whose every step is at most
    ``tol |value|`` at two checks in a row. Each entry stops on its own, so
    its value does not depend on the other entries of the array (an
    elementwise row's contract); checked every few terms (a host sync), the
    loop ends when no entry is summing."""
    on, small_before = active
    small = on
    for st, v in pairs:
        small = small & (xp.abs(st) <= _TOL * xp.abs(v) + 1e-300)
    return on & ~(small & small_before), small


def _gammainc_da_series(xp, a, x, lgam1, psi1):
    """dP(a, x)/da for x < a + 1 from P = sum_n x^(a+n) e^-x / Gamma(a+n+1):
    term n has the a-derivative t_n (log x - digamma(a+n+1)) and
    digamma(a+n+1) = digamma(a+1) + s_n, s_n = sum_{k<=n} 1/(a+k), so
    dP/da = (log x - digamma(a+1)) P - sum t_n s_n (every term positive)."""
    logx = xp.log(x)
    t = xp.exp(a * logx - x - lgam1)
    p, s, d = t, xp.zeros_like(t), xp.zeros_like(t)
    on = (xp.ones(t.shape, dtype=xp.bool), xp.zeros(t.shape, dtype=xp.bool))
    for n in range(1, _MAX_TERMS):
        t = t * x / (a + n)
        s = s + 1.0 / (a + n)
        p = p + xp.where(on[0], t, 0.0)
        d = d + xp.where(on[0], t * s, 0.0)
        if n % 8 == 0:
            on = _still(xp, on, (t, p), (t * s, d))
            if not bool(xp.any(on[0])):
                break
    return (logx - psi1) * p - d


def _cf(xp, b0, terms, nder):
    """The continued fraction K = b_0 + a_1/(b_1 + a_2/(b_2 + ...)) and its
    derivatives in ``nder`` parameters, by the three-term recurrence of
    the convergents A_n/B_n differentiated term by term (the recurrence is
    linear in (A, dA), so rescaling both by B_n keeps it exact).

    ``b0``: (b_0, [db_0/dp]); ``terms(n)``: (a_n, [da_n/dp], b_n, [db_n/dp])."""
    one = xp.ones_like(b0[0])
    zero = xp.zeros_like(one)
    A1, A0 = one, b0[0]                       # A_{n-2}, A_{n-1}
    B1, B0 = zero, one
    dA1, dA0 = [zero] * nder, list(b0[1])
    dB1, dB0 = [zero] * nder, [zero] * nder
    K, dK = A0, list(dA0)
    on = (xp.ones(one.shape, dtype=xp.bool), xp.zeros(one.shape, dtype=xp.bool))
    for n in range(1, _MAX_TERMS):
        an, dan, bn, dbn = terms(n)
        A = bn * A0 + an * A1
        B = bn * B0 + an * B1
        dA = [dbn[i] * A0 + bn * dA0[i] + dan[i] * A1 + an * dA1[i] for i in range(nder)]
        dB = [dbn[i] * B0 + bn * dB0[i] + dan[i] * B1 + an * dB1[i] for i in range(nder)]
        r = xp.where(B == 0, 1.0, 1.0 / xp.where(B == 0, 1.0, B))
        A1, A0, B1, B0 = A0 * r, A * r, B0 * r, B * r
        dA1, dA0 = [d * r for d in dA0], [d * r for d in dA]
        dB1, dB0 = [d * r for d in dB0], [d * r for d in dB]
        Kn = A0 / B0
        dKn = [(dA0[i] - Kn * dB0[i]) / B0 for i in range(nder)]
        steps = [(Kn - K, Kn)] + [(dKn[i] - dK[i], dKn[i]) for i in range(nder)]
        K = xp.where(on[0], Kn, K)
        dK = [xp.where(on[0], dKn[i], dK[i]) for i in range(nder)]
        if n % 4 == 0:
            on = _still(xp, on, *steps)
            if not bool(xp.any(on[0])):
                break
    return K, dK


def _gammaincc_da_cf(xp, a, x, lgam, psi):
    """dQ(a, x)/da for x >= a + 1 from Q = x^a e^-x / Gamma(a) / K with
    K = (x+1-a) - 1(1-a)/((x+3-a) - 2(2-a)/((x+5-a) - ...)):
    dQ/da = Q (log x - digamma(a) - (dK/da) / K)."""
    def terms(n):
        return -n * (n - a), [n + 0.0 * a], x + (2 * n + 1) - a, [-1.0 + 0.0 * a]
    K, (dK,) = _cf(xp, (x + 1.0 - a, [-1.0 + 0.0 * a]), terms, 1)
    q = xp.exp(a * xp.log(x) - x - lgam) / K
    return q * (xp.log(x) - psi - dK / K)


def _gammainc_da_impl(xp, a, x):
    """dP(a, x)/da (JAX's ``igamma_grad_a``): the series below x = a + 1,
    the continued fraction of Q = 1 - P above; 0 at x = 0 and x = inf, nan
    for a <= 0, x < 0 or nan. Relative accuracy about 1e-13 (tested against
    Richardson-extrapolated central differences of scipy's gammainc) for
    a, x up to 1e4; the cost grows like sqrt(max(a, x)) terms."""
    dt = _widest(xp, (a, x))
    a, x = _to64(xp, a, x)
    bad = ~((a > 0) & (x >= 0))
    edge = (x == 0) | (x == math.inf)
    use = ~(bad | edge)
    sa, sx = xp.where(use, a, 1.0), xp.where(use, x, 1.0)
    low = sx < sa + 1.0
    # each branch on safe stand-ins where the other one is used
    la, lx = xp.where(low, sa, 1.0), xp.where(low, sx, 0.5)
    ha, hx = xp.where(low, 1.0, sa), xp.where(low, 3.0, sx)
    gl, dg = _special_fn(xp, "gammaln"), _special_fn(xp, "digamma")
    dlow = _gammainc_da_series(xp, la, lx, gl(la + 1.0), dg(la + 1.0))
    dhigh = -_gammaincc_da_cf(xp, ha, hx, gl(ha), dg(ha))
    out = xp.where(low, dlow, dhigh)
    out = xp.where(bad, math.nan, xp.where(edge, 0.0, out))
    return _out_dtype(xp, out, dt)


def _betainc_grad(xp, a, b, x):
    """(dI/da, dI/db) of the regularized incomplete beta function I_x(a, b),
    by the continued fraction I = x^a (1-x)^b / (a B(a, b)) / K,
    K = 1 + d_1/(1 + d_2/(1 + ...)) with
    d_{2m+1} = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)),
    d_{2m} = m(b-m) x / ((a+2m-1)(a+2m)),
    differentiated term by term (Boik and Robison-Cox, 1998), used where
    x < (a+1)/(a+b+2) and through I_x(a, b) = 1 - I_{1-x}(b, a) elsewhere."""
    dt = _widest(xp, (a, b, x))
    a, b, x = _to64(xp, a, b, x)
    bad = ~((a > 0) & (b > 0) & (x >= 0) & (x <= 1))
    edge = (x == 0) | (x == 1)
    use = ~(bad | edge)
    a, b, x = xp.where(use, a, 1.0), xp.where(use, b, 1.0), xp.where(use, x, 0.5)
    swap = x >= (a + 1.0) / (a + b + 2.0)
    p, q = xp.where(swap, b, a), xp.where(swap, a, b)
    y = xp.where(swap, 1.0 - x, x)
    logy = xp.log(y)
    log1my = xp.where(swap, xp.log(x), xp.log1p(-y))
    zero = xp.zeros_like(p)

    def terms(n):
        m = n // 2
        if n % 2:                                # odd: n = 2m + 1
            d = -(p + m) * (p + q + m) * y / ((p + 2 * m) * (p + 2 * m + 1))
            dp = d * (1.0 / (p + m) + 1.0 / (p + q + m) - 1.0 / (p + 2 * m)
                      - 1.0 / (p + 2 * m + 1))
            dq = d / (p + q + m)
        else:                                    # even: n = 2m
            den = (p + 2 * m - 1) * (p + 2 * m)
            d = m * (q - m) * y / den
            dp = -d * (1.0 / (p + 2 * m - 1) + 1.0 / (p + 2 * m))
            dq = m * y / den
        return d, [dp, dq], 1.0 + zero, [zero, zero]
    K, (dKp, dKq) = _cf(xp, (1.0 + zero, [zero, zero]), terms, 2)
    gl, dg = _special_fn(xp, "betaln"), _special_fn(xp, "digamma")
    j = xp.exp(p * logy + q * log1my - xp.log(p) - gl(p, q)) / K
    psum = dg(p + q)
    djp = j * (logy - 1.0 / p - dg(p) + psum - dKp / K)
    djq = j * (log1my - dg(q) + psum - dKq / K)
    da = xp.where(swap, -djq, djp)
    db = xp.where(swap, -djp, djq)
    outs = []
    for d in (da, db):
        d = xp.where(bad, math.nan, xp.where(edge, 0.0, d))
        outs.append(_out_dtype(xp, d, dt))
    return outs


def _second_order(name, arg, first=False):
    """The rule of a derivative xgrad does not have: it raises (a zero
    would be a silently wrong number)."""
    def rule(ans, *args):
        if first:
            raise NotImplementedError(
                f"xgrad.scipy.special.{name}: the derivative in {arg} is not implemented "
                f"(derivatives of any order in x are)")
        raise NotImplementedError(
            f"xgrad.scipy.special.{name}: derivatives of second order in {arg} are not "
            f"implemented (the first derivative in {arg}, and derivatives of any order in "
            f"x, are); differentiate in {arg} once, or use finite differences of the gradient")
    return rule


def _gamma_pdf(a, x):
    """x^(a-1) e^-x / Gamma(a), the derivative of gammainc in x."""
    return xnp.exp(_special.xlogy(a - 1.0, x) - x - _special.gammaln(a))


def _beta_pdf(a, b, x):
    """x^(a-1) (1-x)^(b-1) / B(a, b), the derivative of betainc in x."""
    return xnp.exp(_special.xlogy(a - 1.0, x) + _special.xlog1py(b - 1.0, -x)
                   - _special.betaln(a, b))


# ----- gamma and beta functions of two arguments -----
_row("betaln", _scipy_nary("betaln"), broadcast=True, nargs=2, domain=(0.5, 4.0),
     deriv=(lambda ans, a, b: _special.digamma(a) - _special.digamma(a + b),
            lambda ans, a, b: _special.digamma(b) - _special.digamma(a + b)))
_row("beta", _scipy_nary("beta"), broadcast=True, nargs=2, domain=(0.5, 4.0),
     deriv=(lambda ans, a, b: xnp.multiply(ans, _special.digamma(a) - _special.digamma(a + b)),
            lambda ans, a, b: xnp.multiply(ans, _special.digamma(b) - _special.digamma(a + b))))

# ----- regularized incomplete gamma functions -----
# dP/da: its own row (first order in a; any order in x)
_row("gammainc_da", _gammainc_da_impl, broadcast=True, nargs=2, domain=(0.5, 4.0),
     deriv=(_second_order("gammainc", "a"),
            lambda ans, a, x: xnp.multiply(_gamma_pdf(a, x),
                                           xnp.log(x) - _special.digamma(a))))
_row("gammainc", _scipy_nary("gammainc"), broadcast=True, nargs=2, domain=(0.5, 4.0),
     deriv=(lambda ans, a, x: _special._gammainc_da(a, x),
            lambda ans, a, x: _gamma_pdf(a, x)))
_row("gammaincc", _scipy_nary("gammaincc"), broadcast=True, nargs=2, domain=(0.5, 4.0),
     deriv=(lambda ans, a, x: -_special._gammainc_da(a, x),
            lambda ans, a, x: -_gamma_pdf(a, x)))


# ----- regularized incomplete beta function -----
def _betainc_da_impl(xp, a, b, x):
    return _betainc_grad(xp, a, b, x)[0]


def _betainc_db_impl(xp, a, b, x):
    return _betainc_grad(xp, a, b, x)[1]


_row("betainc_da", _betainc_da_impl, broadcast=True, nargs=3, domain=(0.5, 4.0),
     deriv=(_second_order("betainc", "a"), _second_order("betainc", "a and b"),
            lambda ans, a, b, x: xnp.multiply(
                _beta_pdf(a, b, x), xnp.log(x) - _special.digamma(a) + _special.digamma(a + b))))
_row("betainc_db", _betainc_db_impl, broadcast=True, nargs=3, domain=(0.5, 4.0),
     deriv=(_second_order("betainc", "a and b"), _second_order("betainc", "b"),
            lambda ans, a, b, x: xnp.multiply(
                _beta_pdf(a, b, x),
                xnp.log1p(-x) - _special.digamma(b) + _special.digamma(a + b))))
_row("betainc", _scipy_nary("betainc"), broadcast=True, nargs=3, domain=(0.5, 4.0),
     deriv=(lambda ans, a, b, x: _special._betainc_da(a, b, x),
            lambda ans, a, b, x: _special._betainc_db(a, b, x),
            lambda ans, a, b, x: _beta_pdf(a, b, x)))


# ----- more functions of one variable -----
_row("erfcx", _scipy_unary("erfcx"), domain=(-2.0, 3.0),
     deriv=lambda ans, x: xnp.multiply(2.0 * x, ans) - 2.0 / _SQRT_PI)
_row("i0e", _scipy_unary("i0e"), domain=(-3.0, 3.0),
     deriv=lambda ans, x: _special.i1e(x) - xnp.multiply(xnp.sign(x), ans))


def _i1e_d(ans, x):
    # i1e' = i0e - i1e (sign(x) + 1/x), whose limit at 0 is 1/2 (1/2 for
    # |x| < 1e-30, as i1')
    small = xnp.abs(x) < _SMALL
    return xnp.where(small, 0.5, _special.i0e(x) - xnp.multiply(
        ans, xnp.sign(x) + xnp.reciprocal(xnp.where(small, 1.0, x))))


_row("i1e", _scipy_unary("i1e"), domain=(-3.0, 3.0), deriv=_i1e_d)


# --------------------------------------------------------------------------
# the rest of jax.scipy.special

def _pick(name, k):
    """Output ``k`` of the two-output scipy function ``name`` (fresnel,
    sici): one row per output, so each batches and differentiates alone."""
    def impl(xp, x):
        return _out_dtype(xp, _special_fn(xp, name)(x)[k], x)
    impl.__name__ = f"{name}_{k}"
    return impl


def _safe_div(num, x, at_zero):
    """``num / x`` with the value ``at_zero`` where x == 0."""
    zero = x == 0
    return xnp.where(zero, at_zero, xnp.divide(num, xnp.where(zero, 1.0, x)))


_row("dawsn", _scipy_unary("dawsn"), domain=(-3.0, 3.0),
     deriv=lambda ans, x: 1.0 - xnp.multiply(2.0 * x, ans))
_row("exp1", _scipy_unary("exp1"), domain=(0.2, 3.0),
     deriv=lambda ans, x: -xnp.divide(xnp.exp(-x), x))
_row("expi", _scipy_unary("expi"), domain=(0.2, 3.0),
     deriv=lambda ans, x: xnp.divide(xnp.exp(x), x))
# spence(x) = int_1^x log t / (1 - t) dt: derivative log x / (1 - x), -1 at 1.
# NB: JAX's derivative is nan for x > 1; this is the closed form there too
_row("spence", _scipy_unary("spence"), domain=(0.2, 3.0),
     deriv=lambda ans, x: xnp.where(x == 1, -1.0, xnp.divide(xnp.log(x),
                                                             1.0 - xnp.where(x == 1, 0.0, x))))
_row("loggamma", _scipy_unary("loggamma"), domain=(0.5, 4.0),
     deriv=lambda ans, x: _special.digamma(x))
# piecewise constant: derivative 0
_row("gammasgn", _scipy_unary("gammasgn"), domain=(0.5, 4.0),
     deriv=lambda ans, x: xnp._zeros_like(x))   # plain zeros (never a traced constant)
_row("fresnel_s", _pick("fresnel", 0), domain=(-2.0, 2.0),
     deriv=lambda ans, x: xnp.sin((0.5 * math.pi) * xnp.square(x)))
_row("fresnel_c", _pick("fresnel", 1), domain=(-2.0, 2.0),
     deriv=lambda ans, x: xnp.cos((0.5 * math.pi) * xnp.square(x)))
_row("si", _pick("sici", 0), domain=(-3.0, 3.0),
     deriv=lambda ans, x: _safe_div(xnp.sin(x), x, 1.0))
_row("ci", _pick("sici", 1), domain=(0.2, 3.0),
     deriv=lambda ans, x: xnp.divide(xnp.cos(x), x))


def _expn_impl(xp, n, x):
    return _out_dtype(xp, _special_fn(xp, "expn")(n, x), x)


def _expn_dx(ans, n, x):
    # E_n' = -E_{n-1}; E_0(x) = e^-x / x, so E_0' = -E_0 (1 + 1/x).
    # NB: JAX gives nan for n = 0
    return xnp.where(n == 0, -xnp.multiply(ans, 1.0 + xnp.reciprocal(x)),
                     -_special.expn(xnp.where(n == 0, 1, n - 1), x))


_row("expn", _expn_impl, broadcast=True, nargs=2, nondiff=(0,), domain=(0.2, 3.0),
     deriv=(None, _expn_dx))


def _jv_impl(xp, n, x):
    return _out_dtype(xp, _special_fn(xp, "jv")(n, x), x)


# J_n' = (J_{n-1} - J_{n+1}) / 2 (J_{-1} = -J_1); the order has no derivative
_row("bessel_jv", _jv_impl, broadcast=True, nargs=2, nondiff=(0,), domain=(-3.0, 3.0),
     deriv=(None, lambda ans, n, x: 0.5 * (_special._jv(n - 1, x) - _special._jv(n + 1, x))))

_row("poch", _scipy_nary("poch"), broadcast=True, nargs=2, domain=(0.5, 3.0),
     deriv=(lambda ans, z, m: xnp.multiply(ans, _special.digamma(z + m) - _special.digamma(z)),
            lambda ans, z, m: xnp.multiply(ans, _special.digamma(z + m))))


def _owens_dh(ans, h, a):
    # -phi(h) erf(a h / sqrt 2) / 2
    return -xnp.multiply(xnp.exp(-0.5 * xnp.square(h)) / (2.0 * _SQRT_2PI),
                         _special.erf(xnp.multiply(a, h) / math.sqrt(2.0)))


def _owens_da(ans, h, a):
    # exp(-h^2 (1 + a^2) / 2) / (2 pi (1 + a^2))
    s = 1.0 + xnp.square(a)
    return xnp.exp(-0.5 * xnp.multiply(xnp.square(h), s)) / ((2.0 * math.pi) * s)


_row("owens_t", _scipy_nary("owens_t"), broadcast=True, nargs=2, domain=(-2.0, 2.0),
     deriv=(_owens_dh, _owens_da))

# Hurwitz zeta: d/dq = -x zeta(x + 1, q); d/dx has its own row below
_row("zeta", _scipy_nary("zeta"), broadcast=True, nargs=2, domain=(1.5, 4.0),
     deriv=(lambda ans, x, q: _special._zeta_dx(x, q),
            lambda ans, x, q: -xnp.multiply(x, _special.zeta(x + 1.0, q))))

# confluent and Gauss hypergeometric functions: in x, the contiguous relations
_row("hyp1f1", _scipy_nary("hyp1f1"), broadcast=True, nargs=3, domain=(0.5, 2.0),
     deriv=(lambda ans, a, b, x: _special._hyp1f1_da(a, b, x),
            lambda ans, a, b, x: _special._hyp1f1_db(a, b, x),
            lambda ans, a, b, x: xnp.multiply(xnp.divide(a, b),
                                              _special.hyp1f1(a + 1.0, b + 1.0, x))))
_row("hyp2f1", _scipy_nary("hyp2f1"), broadcast=True, nargs=4, domain=(0.1, 0.6),
     deriv=(lambda ans, a, b, c, x: _special._hyp2f1_dp(a, b, c, x, 0),
            lambda ans, a, b, c, x: _special._hyp2f1_dp(a, b, c, x, 1),
            lambda ans, a, b, c, x: _special._hyp2f1_dp(a, b, c, x, 2),
            lambda ans, a, b, c, x: xnp.multiply(xnp.divide(xnp.multiply(a, b), c),
                                                 _special.hyp2f1(a + 1.0, b + 1.0, c + 1.0, x))))


def _wofz_impl(xp, z):
    out = _special_fn(xp, "wofz")(z)
    want = xp.complex64 if z.dtype in (xp.float32, xp.complex64) else xp.complex128
    return out if out.dtype == want else xp.astype(out, want)


# holomorphic: w'(z) = 2i/sqrt(pi) - 2 z w(z)
_row("wofz", _wofz_impl, domain=(-2.0, 2.0),
     deriv=lambda ans, z: (2j / _SQRT_PI) - xnp.multiply(2.0 * z, ans))


# ----- derivatives in parameters: series, differentiated term by term -----
_ZETA_N, _ZETA_J = 30, 12          # Euler-Maclaurin: terms summed, Bernoulli corrections


def _zeta_dx_impl(xp, x, q):
    """d zeta(x, q) / dx = -sum_k log(k+q) (k+q)^-x by Euler-Maclaurin: the
    first N terms, the tail integral, and the Bernoulli corrections, with
    the u-derivatives of u^-x log u = -d/dx u^-x in closed form:
    d^m/du^m (u^-x log u) = u^(-x-m) (c_m log u - c_m'), c_m = prod_{i<m}(-x-i),
    c_m' = c_m sum_{i<m} 1/(x+i). Accurate to about 1e-13 for 1 < x <= 30,
    q > 0 (JAX uses a series of the same kind)."""
    dt = _widest(xp, (x, q))
    x, q = _to64(xp, x, q)
    bad = ~((x > 1) & (q > 0))
    x, q = xp.where(bad, 2.0, x), xp.where(bad, 1.0, q)
    s = xp.zeros_like(x)
    for k in range(_ZETA_N):
        u = q + k
        s = s - xp.log(u) * xp.exp(-x * xp.log(u))
    u = q + _ZETA_N
    lu = xp.log(u)
    pw = xp.exp((1.0 - x) * lu)                       # u^(1-x)
    s = s - pw * (lu / (x - 1.0) + 1.0 / xp.square(x - 1.0))
    s = s - 0.5 * lu * pw / u
    bern = _scipy_special("zeta").bernoulli(2 * _ZETA_J)
    c, dc = xp.ones_like(x), xp.zeros_like(x)        # c_m, c_m' for m = 0
    m = 0
    fact = 1.0
    for j in range(1, _ZETA_J + 1):
        while m < 2 * j - 1:                          # c_{m+1} = c_m (-x - m)
            dc = dc * (-x - m) - c
            c = c * (-x - m)
            m += 1
        fact *= (2 * j - 1) * (2 * j)
        # f = -u^-x log u, so f^(m) = -u^(-x-m) (c log u - c')
        fm = -xp.exp((-x - m) * lu) * (c * lu - dc)
        s = s - (float(bern[2 * j]) / fact) * fm
    return _out_dtype(xp, xp.where(bad, math.nan, s), dt)


_row("zeta_dx", _zeta_dx_impl, broadcast=True, nargs=2, domain=(1.5, 4.0),
     deriv=(_second_order("zeta", "x"),
            lambda ans, x, q: -_special.zeta(x + 1.0, q) - xnp.multiply(
                x, _special._zeta_dx(x + 1.0, q))))


def _hyp1f1_series_dab(xp, a, b, x):
    """(dM/da, dM/db) of M(a, b, x) = sum_k t_k, t_k = (a)_k/(b)_k x^k/k!,
    for x >= 0: d t_k/da = t_k sum_{j<k} 1/(a+j), d t_k/db = -t_k sum_{j<k}
    1/(b+j)."""
    t = xp.ones_like(x)
    sa, sb = xp.zeros_like(x), xp.zeros_like(x)
    da, db, m = xp.zeros_like(x), xp.zeros_like(x), xp.ones_like(x)
    on = (xp.ones(x.shape, dtype=xp.bool), xp.zeros(x.shape, dtype=xp.bool))
    for k in range(1, _MAX_TERMS):
        t = t * (a + (k - 1)) / (b + (k - 1)) * x / k
        sa = sa + 1.0 / (a + (k - 1))
        sb = sb + 1.0 / (b + (k - 1))
        tt = xp.where(on[0], t, 0.0)
        m = m + tt
        da = da + tt * sa
        db = db - tt * sb
        if k % 8 == 0:
            on = _still(xp, on, (t, m), (t * sa, da), (t * sb, db))
            if not bool(xp.any(on[0])):
                break
    return da, db


def _hyp1f1_dab(xp, a, b, x):
    """(dM/da, dM/db); for x < 0 through Kummer's transformation
    M(a, b, x) = e^x M(b - a, b, -x), so that the series has no
    cancellation: dM/da = -e^x M_a(b-a, b, -x), dM/db = e^x (M_a + M_b)."""
    dt = _widest(xp, (a, b, x))
    a, b, x = _to64(xp, a, b, x)
    # poles (b a non-positive integer) and non-finite arguments: nan, and
    # stand-ins for the sums, which would not converge there
    bad = ~(xp.isfinite(a) & xp.isfinite(b) & xp.isfinite(x)) | ((b <= 0) & (b == xp.floor(b)))
    a, b, x = xp.where(bad, 1.0, a), xp.where(bad, 1.0, b), xp.where(bad, 0.0, x)
    neg = x < 0
    a2 = xp.where(neg, b - a, a)
    da, db = _hyp1f1_series_dab(xp, a2, b, xp.abs(x))
    e = xp.exp(x)
    ra = xp.where(bad, math.nan, xp.where(neg, -e * da, da))
    rb = xp.where(bad, math.nan, xp.where(neg, e * (da + db), db))
    return _out_dtype(xp, ra, dt), _out_dtype(xp, rb, dt)


_row("hyp1f1_da", lambda xp, a, b, x: _hyp1f1_dab(xp, a, b, x)[0], broadcast=True, nargs=3,
     domain=(0.5, 2.0), deriv=(_second_order("hyp1f1", "a"), _second_order("hyp1f1", "a and b"),
                               lambda ans, a, b, x: xnp.multiply(xnp.divide(a, b), _special._hyp1f1_da(
                                   a + 1.0, b + 1.0, x)) + xnp.divide(_special.hyp1f1(
                                       a + 1.0, b + 1.0, x), b)))
_row("hyp1f1_db", lambda xp, a, b, x: _hyp1f1_dab(xp, a, b, x)[1], broadcast=True, nargs=3,
     domain=(0.5, 2.0), deriv=(_second_order("hyp1f1", "a and b"), _second_order("hyp1f1", "b"),
                               lambda ans, a, b, x: xnp.multiply(xnp.divide(a, b), _special._hyp1f1_db(
                                   a + 1.0, b + 1.0, x)) - xnp.divide(xnp.multiply(a, _special.hyp1f1(
                                       a + 1.0, b + 1.0, x)), xnp.square(b))))


def _hyp2f1_series_dp(xp, a, b, c, x):
    """(dF/da, dF/db, dF/dc) of F = sum_k t_k, t_k = (a)_k (b)_k / (c)_k
    x^k / k!, for |x| < 1: d t_k/da = t_k sum_{j<k} 1/(a+j), likewise b,
    and d t_k/dc = -t_k sum_{j<k} 1/(c+j)."""
    t = xp.ones_like(x)
    sa, sb, sc = xp.zeros_like(x), xp.zeros_like(x), xp.zeros_like(x)
    da, db, dc, f = xp.zeros_like(x), xp.zeros_like(x), xp.zeros_like(x), xp.ones_like(x)
    on = (xp.ones(x.shape, dtype=xp.bool), xp.zeros(x.shape, dtype=xp.bool))
    for k in range(1, _MAX_TERMS):
        t = t * ((a + (k - 1)) * (b + (k - 1)) / (c + (k - 1))) * (x / k)
        sa = sa + 1.0 / (a + (k - 1))
        sb = sb + 1.0 / (b + (k - 1))
        sc = sc + 1.0 / (c + (k - 1))
        tt = xp.where(on[0], t, 0.0)
        f = f + tt
        da = da + tt * sa
        db = db + tt * sb
        dc = dc - tt * sc
        if k % 8 == 0:
            on = _still(xp, on, (t, f), (t * sa, da), (t * sb, db), (t * sc, dc))
            if not bool(xp.any(on[0])):
                break
    return f, da, db, dc


def _hyp2f1_dp_impl(xp, a, b, c, x, *, which):
    """d 2F1(a, b; c; x) / d(a, b or c) for -1 <= x < 1 (JAX's domain):
    the series for 0 <= x < 1, and for x < 0 Pfaff's transformation
    F(a, b; c; x) = (1-x)^-a F(a, c-b; c; z), z = x/(x-1) in [0, 1/2]:
    dF/da = (1-x)^-a (G_a - log(1-x) G), dF/db = -(1-x)^-a G_b,
    dF/dc = (1-x)^-a (G_b + G_c), G = F(a, c-b; c; z). NaN outside
    [-1, 1) and at the poles (c a non-positive integer)."""
    dt = _widest(xp, (a, b, c, x))
    a, b, c, x = _to64(xp, a, b, c, x)
    bad = ~(xp.isfinite(a) & xp.isfinite(b) & xp.isfinite(c) & (x >= -1) & (x < 1)) | \
        ((c <= 0) & (c == xp.floor(c)))
    a, b, c, x = (xp.where(bad, 1.0, a), xp.where(bad, 1.0, b), xp.where(bad, 2.0, c),
                  xp.where(bad, 0.0, x))
    neg = x < 0
    b2 = xp.where(neg, c - b, b)
    z = xp.where(neg, x / (x - 1.0), x)
    g, ga, gb, gc = _hyp2f1_series_dp(xp, a, b2, c, z)
    w = xp.where(neg, xp.exp(-a * xp.log1p(-x)), 1.0)          # (1 - x)^-a
    if which == 0:
        out = xp.where(neg, w * (ga - xp.log1p(-x) * g), ga)
    elif which == 1:
        out = xp.where(neg, -w * gb, gb)
    else:
        out = xp.where(neg, w * (gb + gc), gc)
    return _out_dtype(xp, xp.where(bad, math.nan, out), dt)


for _k, _p in enumerate("abc"):
    _row(f"hyp2f1_d{_p}", (lambda k: lambda xp, a, b, c, x: _hyp2f1_dp_impl(xp, a, b, c, x,
                                                                             which=k))(_k),
         broadcast=True, nargs=4, domain=(0.1, 0.6),
         deriv=(_second_order("hyp2f1", "a, b or c"),) * 3 + (
             (lambda k: lambda ans, a, b, c, x: _hyp2f1_dx_dp(a, b, c, x, k))(_k),))
del _k, _p


def _hyp2f1_dx_dp(a, b, c, x, which):
    """d/dx of dF/dp: d/dp of (ab/c) F(a+1, b+1; c+1; x)."""
    up = _special.hyp2f1(a + 1.0, b + 1.0, c + 1.0, x)
    dup = _special._hyp2f1_dp(a + 1.0, b + 1.0, c + 1.0, x, which)
    k = xnp.divide(xnp.multiply(a, b), c)
    if which == 0:
        own = xnp.multiply(xnp.divide(b, c), up)
    elif which == 1:
        own = xnp.multiply(xnp.divide(a, c), up)
    else:
        own = -xnp.multiply(xnp.divide(k, c), up)
    return own + xnp.multiply(k, dup)


# ----- spherical harmonics -----
def _sph_impl(xp, n, m, theta, phi):
    out = _special_fn(xp, "sph_harm_y")(n, m, theta, phi)
    low = any(getattr(a, "dtype", None) == xp.float32 for a in (theta, phi)) and not any(
        getattr(a, "dtype", None) == xp.float64 for a in (theta, phi))
    want = xp.complex64 if low else xp.complex128
    return out if out.dtype == want else xp.astype(out, want)


def _sph_dtheta(ans, n, m, theta, phi):
    # m cot(theta) Y_n^m + sqrt((n - m)(n + m + 1)) e^{-i phi} Y_n^{m+1}
    # (0 for |m| > n, where Y is 0); the first term is 0 for m = 0
    cot = xnp.divide(xnp.cos(theta), xnp.sin(theta))
    first = xnp.where(m == 0, 0.0, xnp.multiply(xnp.multiply(m, cot), ans))
    c = xnp.sqrt(xnp.astype(xnp.maximum((n - m) * (n + m + 1), 0), cot.dtype))
    up = _special.sph_harm_y(n, m + 1, theta, phi)
    return first + xnp.multiply(xnp.multiply(c, xnp.exp(-1j * phi)), up)


_row("sph_harm_y", _sph_impl, broadcast=True, nargs=4, nondiff=(0, 1), domain=(0.3, 2.5),
     deriv=(None, None, _sph_dtheta,
            lambda ans, n, m, theta, phi: xnp.multiply(1j * m, ans)))
