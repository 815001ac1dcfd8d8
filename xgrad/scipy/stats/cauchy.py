"""Cauchy distribution (``jax.scipy.stats.cauchy``)."""
import math as _math

from ... import numpy as _n
from ._util import pf as _pf, promote as _promote

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def logpdf(x, loc=0, scale=1):
    """Log of the Cauchy density ``1 / (pi scale (1 + z^2))``, ``z = (x - loc) / scale``."""
    x, loc, scale = _promote("cauchy.logpdf", x, loc, scale)
    z = (x - loc) / scale
    return -(_pf(_n.log, _math.pi * scale) + _n.log1p(z * z))


def pdf(x, loc=0, scale=1):
    """Cauchy density."""
    return _n.exp(logpdf(x, loc, scale))


def _cdf_z(z):
    # 1/2 + arctan(z)/pi; for z < 0 written as arctan(-1/z)/pi, which keeps
    # the digits of the far left tail (1/2 + arctan(z)/pi cancels there)
    neg = z < 0
    safe = _n.where(neg, z, -1.0)
    return _n.where(neg, _n.arctan(-1.0 / safe) / _math.pi, 0.5 + _n.arctan(z) / _math.pi)


def cdf(x, loc=0, scale=1):
    """Cauchy CDF ``1/2 + arctan(z) / pi``.

    NB: for ``z < 0`` it is computed as ``arctan(-1/z) / pi``, accurate far
    in the left tail where JAX's formula cancels to 0.
    """
    x, loc, scale = _promote("cauchy.cdf", x, loc, scale)
    return _cdf_z((x - loc) / scale)


def logcdf(x, loc=0, scale=1):
    """Log of the CDF (finite far in the left tail, see ``cdf``)."""
    x, loc, scale = _promote("cauchy.logcdf", x, loc, scale)
    return _n.log(_cdf_z((x - loc) / scale))


def sf(x, loc=0, scale=1):
    """Survival function ``cdf(-x, -loc, scale)``."""
    x, loc, scale = _promote("cauchy.sf", x, loc, scale)
    return _cdf_z((loc - x) / scale)


def logsf(x, loc=0, scale=1):
    """Log of the survival function."""
    x, loc, scale = _promote("cauchy.logsf", x, loc, scale)
    return _n.log(_cdf_z((loc - x) / scale))


def ppf(q, loc=0, scale=1):
    """Quantile function ``loc + scale tan(pi (q - 1/2))``."""
    q, loc, scale = _promote("cauchy.ppf", q, loc, scale)
    return _n.tan(_math.pi * q - 0.5 * _math.pi) * scale + loc


def isf(q, loc=0, scale=1):
    """Inverse survival function ``loc + scale tan(pi (1/2 - q))``."""
    q, loc, scale = _promote("cauchy.isf", q, loc, scale)
    return _n.tan(0.5 * _math.pi - _math.pi * q) * scale + loc
