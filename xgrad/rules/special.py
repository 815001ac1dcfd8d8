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
    mod = getattr(xp, "__name__", "")
    if "cupy" in mod:
        # optional third-party package: imported only when cupy arrays are met
        import cupyx.scipy.special as sps
        fn = getattr(sps, name)
    elif "numpy" in mod and "strict" not in mod:
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
_row("erf", _scipy_unary("erf"), domain=(-2.0, 2.0),
     deriv=lambda ans, x: (2.0 / _SQRT_PI) * xnp.exp(-xnp.square(x)))
_row("erfc", _scipy_unary("erfc"), domain=(-2.0, 2.0),
     deriv=lambda ans, x: (-2.0 / _SQRT_PI) * xnp.exp(-xnp.square(x)))
_row("erfinv", _scipy_unary("erfinv"), domain=(-0.9, 0.9),
     deriv=lambda ans, x: (_SQRT_PI / 2.0) * xnp.exp(xnp.square(ans)))
_row("ndtr", _scipy_unary("ndtr"), domain=(-3.0, 3.0),
     deriv=lambda ans, x: xnp.exp(-0.5 * xnp.square(x)) / _SQRT_2PI)
_row("ndtri", _scipy_unary("ndtri"), domain=(0.05, 0.95),
     deriv=lambda ans, x: _SQRT_2PI * xnp.exp(0.5 * xnp.square(ans)))
# d log ndtr(x) = pdf(x) / ndtr(x), computed as exp(log pdf(x) - log ndtr(x)):
# at x = -30 both are about -450 and their difference log(30) is exact,
# where pdf/ndtr would be 0/0 (JAX's rule)
_row("log_ndtr", _scipy_unary("log_ndtr"), domain=(-3.0, 3.0),
     deriv=lambda ans, x: xnp.exp(xnp.subtract(-0.5 * xnp.square(x) - _LOG_SQRT_2PI, ans)))

# ----- gamma family -----
_row("gammaln", _scipy_unary("gammaln"), domain=(0.5, 4.0),
     deriv=lambda ans, x: _special.digamma(x))
_row("digamma", _scipy_unary("digamma"), domain=(0.5, 4.0),
     deriv=lambda ans, x: _special.polygamma(1, x))
_row("gamma", _scipy_unary("gamma"), domain=(0.5, 3.0),
     deriv=lambda ans, x: xnp.multiply(ans, _special.digamma(x)))


def _polygamma_impl(xp, n, x):
    return _out_dtype(xp, _special_fn(xp, "polygamma")(n, x), x)


def _polygamma_dx(ans, n, x):
    return _special.polygamma(n + 1, x)


# n is an integer order: no derivative
_row("polygamma", _polygamma_impl, broadcast=True, nargs=2, nondiff=(0,),
     deriv=(None, _polygamma_dx), domain=(0.5, 4.0))


# ----- modified Bessel functions of the first kind -----
def _i1_d(ans, x):
    # i1' = i0 - i1 / x, whose limit at 0 is 1/2
    zero = x == 0
    return xnp.where(zero, 0.5, xnp.subtract(_special.i0(x),
                                             xnp.divide(ans, xnp.where(zero, 1.0, x))))


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


# ----- x log y: zero where x == 0 -----
def _xlog_impl(log):
    def impl(xp, x, y):
        z = x == 0
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
    val = sx * xp.log(sx / sy)
    return xp.where(both, val, xp.where(zero, xp.zeros_like(val), math.inf))


def _rel_entr_dx(ans, x, y):
    both, sx, sy = _rel_entr_safe(x, y, xnp)
    return xnp.where(both, xnp.log(xnp.divide(sx, sy)) + 1.0, 0.0)


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
