"""Truncated normal distribution (``jax.scipy.stats.truncnorm``): ``a``
and ``b`` are the bounds in standard units, ``(bound - loc) / scale``.
The normalising mass is computed in log space from whichever tail is
smaller, so bounds far out in a tail keep their digits."""
import math as _math

from ...backends import backend_of as _backend_of
from ... import numpy as _n
from ...numpy import special as _sp
from ._util import promote as _promote, inf as _inf, nan as _nan

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]

_LOG_2PI = _math.log(2 * _math.pi)


def _bounds(args):
    """The bounds a, b as arrays of the backend of the first array argument."""
    x, a, b, loc, scale = args
    like = next(v for v in args if type(v) is not float)
    a, b = (_backend_of(like).asarray(v, dtype=like.dtype) if type(v) is float else v for v in (a, b))
    return x, a, b, loc, scale


def _log_diff(la, lb):
    """``log(exp(la) - exp(lb))`` for ``la >= lb``."""
    d = lb - la
    d = _n.where(d < 0, d, -1.0)
    return _n.where(lb < la, la + _n.log(-_n.expm1(d)), -_inf)


def _log_mass(a, b):
    """``log(ndtr(b) - ndtr(a))`` for a <= b, accurate in both tails."""
    right = a > 0
    left = b <= 0
    central = ~(left | right)
    lo = _n.where(right, -b, a)
    hi = _n.where(right, -a, b)
    tail = _log_diff(_sp.log_ndtr(hi), _sp.log_ndtr(lo))
    ac = _n.where(central, a, -1.0)
    bc = _n.where(central, b, 1.0)
    mid = _n.log1p(-_sp.ndtr(ac) - _sp.ndtr(-bc))
    return _n.where(central, mid, tail)


def logpdf(x, a, b, loc=0, scale=1):
    """Log density: the normal log density minus the log mass of [a, b];
    -inf outside, nan where ``a >= b``."""
    x, a, b, loc, scale = _bounds(_promote("truncnorm.logpdf", x, a, b, loc, scale))
    z = (x - loc) / scale
    val = -0.5 * z * z - _n.log(scale) - 0.5 * _LOG_2PI - _log_mass(a, b)
    val = _n.where((z < a) | (z > b), -_inf, val)
    return _n.where(a >= b, _nan, val)


def pdf(x, a, b, loc=0, scale=1):
    """Truncated normal density."""
    return _n.exp(logpdf(x, a, b, loc, scale))


def _logcdf(x, a, b, loc, scale):
    z = (x - loc) / scale
    z, a, b = _n.broadcast_arrays(z, a, b)
    inside = (z > a) & (z < b)
    zi = _n.where(inside, z, 0.5 * (a + b))
    lm = _log_mass(a, b)
    lc = _log_mass(a, zi) - lm
    ls = _log_mass(zi, b) - lm
    # near 1 the complement is the accurate one
    ls_safe = _n.where(lc > -0.1, ls, -1.0)
    val = _n.where(lc > -0.1, _n.log1p(-_n.exp(ls_safe)), lc)
    val = _n.where(z >= b, 0.0, _n.where(z <= a, -_inf, val))
    return _n.where(a >= b, _nan, val)


def logcdf(x, a, b, loc=0, scale=1):
    """Log CDF, accurate in both tails; nan where ``a >= b``."""
    x, a, b, loc, scale = _bounds(_promote("truncnorm.logcdf", x, a, b, loc, scale))
    return _logcdf(x, a, b, loc, scale)


def cdf(x, a, b, loc=0, scale=1):
    """Truncated normal CDF."""
    return _n.exp(logcdf(x, a, b, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    """Log survival function (the log CDF of the mirrored distribution)."""
    x, a, b, loc, scale = _bounds(_promote("truncnorm.logsf", x, a, b, loc, scale))
    return _logcdf(-x, -b, -a, -loc, scale)


def sf(x, a, b, loc=0, scale=1):
    """Survival function."""
    return _n.exp(logsf(x, a, b, loc, scale))
