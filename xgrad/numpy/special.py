"""``xgrad.numpy.special``: special functions with derivatives of any order,
on plain arrays and traced values alike (the names of ``scipy.special`` and
``jax.scipy.special``, where array-API-aware libraries look first).

The primitives are rows of ``xgrad/rules/special.py``; the composites
(``softplus``, ``log_expit``, ``kl_div``, ``logsumexp`` with weights) are
written here. Functions with no array API formula
(``erf``, ``gammaln``, ``ndtri``, ...) run ``scipy.special`` on numpy,
``cupyx.scipy.special`` on cupy, and reach other CPU backends through
DLPack; scipy is imported on first use, never by ``import xgrad``.

Integer and boolean inputs are promoted to the default float dtype
(float64), as in JAX; a Python scalar next to an array takes that array's
dtype.

>>> import xgrad, xgrad.numpy as xnp
>>> float(xgrad.grad(xnp.special.gammaln)(3.0))   # digamma(3) = 1.5 - euler_gamma
0.9227843350984671
"""
import math as _math

from ..core import RULES as _RULES, bind as _bind
from ..backends import (SCALAR_TYPES as _SCALAR_TYPES, backend_of as _backend_of,
                        dtype_in as _dtype_in, is_inexact as _is_inexact)
from ..rules import special as _rules  # noqa: F401  (registers the rows)
from .. import numpy as _xnp

__all__ = ["erf", "erfc", "erfinv", "ndtr", "ndtri", "log_ndtr", "gammaln", "digamma",
           "polygamma", "gamma", "i0", "i1", "expit", "logit", "log_expit", "softplus", "xlogy",
           "xlog1py", "entr", "rel_entr", "kl_div", "logsumexp", "softmax", "log_softmax"]


def _float(x):
    """``x`` with an inexact dtype: integer/bool arrays become float64 of
    their backend, Python ints become floats."""
    t = type(x)
    if t in _SCALAR_TYPES:
        return float(x) if t is not complex else x
    if _is_inexact(x.dtype):
        return x
    return _xnp.astype(x, _dtype_in(_backend_of(x), "float64"))


def _float2(x, y):
    """Both arguments inexact; a Python scalar beside an array becomes a 0-d
    array of that array's backend, dtype and device (the weak-scalar rule),
    so the rows always see arrays."""
    x, y = _float(x), _float(y)
    sx, sy = type(x) in _SCALAR_TYPES, type(y) in _SCALAR_TYPES
    if sx and sy:
        xp = _backend_of(x)
        return xp.asarray(x), xp.asarray(y)
    if sx:
        return _like(x, y), y
    if sy:
        return x, _like(y, x)
    return x, y


def _like(s, a):
    return _backend_of(a).asarray(s, dtype=a.dtype, device=_xnp._device_of(a))


def _unary(name, doc):
    p = _RULES[name]

    def f(x, /):
        return _bind(p, _float(x))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


def _binary(name, doc):
    p = _RULES[name]

    def f(x, y, /):
        return _bind(p, *_float2(x, y))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


# ----- error function and normal distribution -----
erf = _unary("erf", "Error function; ``erf'(x) = 2/sqrt(pi) exp(-x^2)``.")
erfc = _unary("erfc", "Complementary error function ``1 - erf(x)``.")
erfinv = _unary("erfinv", "Inverse of ``erf``; ``erfinv'(x) = sqrt(pi)/2 exp(erfinv(x)^2)``.")
ndtr = _unary("ndtr", "Standard normal CDF.")
ndtri = _unary("ndtri", "Inverse of ``ndtr``; ``ndtri'(p) = sqrt(2 pi) exp(ndtri(p)^2 / 2)``.")
log_ndtr = _unary("log_ndtr", "``log(ndtr(x))``, accurate for very negative x, with a "
                              "derivative that stays accurate there (about ``-x``).")

# ----- gamma family -----
gammaln = _unary("gammaln", "``log|Gamma(x)|``; derivative ``digamma``.")
digamma = _unary("digamma", "``d/dx log Gamma(x)``; derivative ``polygamma(1, x)``.")
gamma = _unary("gamma", "Gamma function; derivative ``gamma(x) digamma(x)``.")
_polygamma_p = _RULES["polygamma"]


def polygamma(n, x, /):
    """``n``-th derivative of ``digamma``; differentiable in ``x`` only
    (``n`` is a non-negative integer or an integer array)."""
    return _bind(_polygamma_p, n, _float(x))


# ----- modified Bessel functions of the first kind -----
i0 = _unary("i0", "Modified Bessel function of the first kind, order 0; derivative ``i1``.")
i1 = _unary("i1", "Modified Bessel function of the first kind, order 1; derivative "
                  "``i0(x) - i1(x) / x`` (1/2 at 0).")


# ----- logistic -----
expit = _unary("expit", "Logistic sigmoid ``1 / (1 + exp(-x))``, without overflow.")
logit = _unary("logit", "``log(p / (1 - p))``, the inverse of ``expit``.")


def log_expit(x, /):
    """``log(expit(x)) = -softplus(-x)``, finite for large negative x."""
    return -softplus(-_float(x))


def softplus(x, /):
    """``log(1 + exp(x))`` (``jax.nn.softplus``); its derivative is
    ``expit(x)``, without overflow for large x."""
    return _xnp.logaddexp(_float(x), 0.0)


# ----- x log y and entropies -----
xlogy = _binary("xlogy", "``x * log(y)``, 0 where ``x == 0`` (also for y = 0). "
                         "Derivatives ``log(y)`` and ``x / y`` (0 at x = y = 0).")
xlog1py = _binary("xlog1py", "``x * log1p(y)``, 0 where ``x == 0``.")
entr = _unary("entr", "``-x log x`` for x > 0, 0 at 0, -inf for x < 0; derivative "
                      "``-(log x + 1)`` (+inf at 0, 0 for x < 0).")
rel_entr = _binary("rel_entr", "``x log(x / y)`` for x, y > 0; 0 at x = 0, y >= 0; inf "
                               "elsewhere. The derivative is 0 outside x, y > 0 (JAX).")


def kl_div(x, y, /):
    """``x log(x / y) - x + y`` for x, y > 0; ``y`` at x = 0, y >= 0; inf elsewhere."""
    x, y = _float2(x, y)
    return rel_entr(x, y) - x + y


# ----- log-sum-exp and softmax -----
_lse_p, _softmax_p = _RULES["logsumexp"], _RULES["softmax"]
_log_softmax_p, _stop_p = _RULES["log_softmax"], _RULES["stop_gradient"]


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """``log(sum(b * exp(a)))`` over ``axis``, computed without overflow.

    Without ``b`` it is one primitive whose derivative is ``softmax(a)``:
    finite where entries are ``-inf`` (they get 0) and for inputs far beyond
    ``exp``'s range. With weights ``b`` (JAX's formula) entries where
    ``b == 0`` are dropped, a negative sum gives nan unless ``return_sign``,
    and the derivative in ``b`` is ``exp(a - out)``.

    Args:
      a: array.
      axis: int, tuple of ints, or None (every axis).
      b: optional weights, broadcast against ``a``.
      keepdims: keep the reduced axes with size 1.
      return_sign: also return the sign of the sum (then ``out`` is
        ``log|sum|``).
      where: optional boolean mask, broadcast against ``a``: only the
        entries where it is True are summed (as ``jax.scipy.special``); the
        others get derivative 0, and an empty sum gives ``-inf``.

    Returns:
      ``out``, or ``(out, sign)`` with ``return_sign``.
    """
    a = _float(a)
    if where is not None:                 # masked entries drop out of the sum
        a = _xnp.where(where, a, -_math.inf)
        if b is not None:
            b = _xnp.where(where, b, 0.0)
    if b is None:
        out = _bind(_lse_p, a, axis=_xnp._norm_axis(axis, _xnp._ndim(a)), keepdims=keepdims)
        if not return_sign:
            return out
        return out, _xnp.astype(out != -_math.inf, out.dtype)
    return _logsumexp_weighted(*_float2(a, b), axis, keepdims, return_sign)


def _logsumexp_weighted(a, b, axis, keepdims, return_sign):
    """JAX's formula: shift by the (constant) max of the kept entries."""
    xnp = _xnp
    a = xnp.where(b != 0, a, -_math.inf)               # also broadcasts a against b
    ax = xnp._norm_axis(axis, xnp._ndim(a))
    m = xnp.max(a, axis=ax, keepdims=True)
    m = _bind(_stop_p, xnp.where(xnp.isfinite(m), m, 0.0))
    s = xnp.sum(xnp.multiply(xnp.exp(xnp.subtract(a, m)), b), axis=ax, keepdims=keepdims)
    sgn = xnp.sign(s)
    out = xnp.add(xnp.log(xnp.abs(s)), m if keepdims else xnp.reshape(m, tuple(s.shape)))
    if return_sign:
        return out, sgn
    return xnp.where(sgn < 0, _math.nan, out)


def softmax(x, /, *, axis=None):
    """``exp(x) / sum(exp(x))`` over ``axis`` (every axis by default, as
    ``scipy.special`` and ``jax.scipy.special``; ``jax.nn.softmax`` uses
    ``axis=-1``). One primitive: stable for large inputs, 0 at -inf
    entries, and its derivative is ``s * (t - sum(s * t))``."""
    x = _float(x)
    return _bind(_softmax_p, x, axis=_xnp._norm_axis(axis, _xnp._ndim(x)))


def log_softmax(x, /, *, axis=None):
    """``x - logsumexp(x)`` over ``axis`` (every axis by default), one
    primitive: accurate for large inputs, -inf (with a finite derivative) at
    -inf entries."""
    x = _float(x)
    return _bind(_log_softmax_p, x, axis=_xnp._norm_axis(axis, _xnp._ndim(x)))
