"""Normal distribution (``jax.scipy.stats.norm``): the tails in log space
through ``log_ndtr``, so ``logcdf(-40)`` and ``logsf(40)`` are finite and
so are their derivatives."""
import math as _math

from ... import numpy as _n
from ...numpy import special as _sp
from ._util import pf as _pf, promote as _promote

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]

_LOG_2PI = _math.log(2 * _math.pi)


def logpdf(x, loc=0, scale=1):
    """Log of the normal density with mean ``loc`` and standard deviation ``scale``."""
    x, loc, scale = _promote("norm.logpdf", x, loc, scale)
    z = (x - loc) / scale
    return -0.5 * (z * z) - _pf(_n.log, scale) - 0.5 * _LOG_2PI


def pdf(x, loc=0, scale=1):
    """Normal density."""
    return _n.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """Normal CDF, ``ndtr((x - loc) / scale)``."""
    x, loc, scale = _promote("norm.cdf", x, loc, scale)
    return _sp.ndtr((x - loc) / scale)


def logcdf(x, loc=0, scale=1):
    """Log of the normal CDF, ``log_ndtr((x - loc) / scale)``: accurate far in the left tail."""
    x, loc, scale = _promote("norm.logcdf", x, loc, scale)
    return _sp.log_ndtr((x - loc) / scale)


def sf(x, loc=0, scale=1):
    """Survival function ``1 - cdf``, computed as ``ndtr((loc - x) / scale)``."""
    x, loc, scale = _promote("norm.sf", x, loc, scale)
    return _sp.ndtr((loc - x) / scale)


def logsf(x, loc=0, scale=1):
    """Log of the survival function, ``log_ndtr((loc - x) / scale)``: accurate far in the right tail."""
    x, loc, scale = _promote("norm.logsf", x, loc, scale)
    return _sp.log_ndtr((loc - x) / scale)


def ppf(q, loc=0, scale=1):
    """Quantile function (inverse of ``cdf``), ``loc + scale * ndtri(q)``.

    NB: the result keeps the promoted input dtype (JAX casts to the default float).
    """
    q, loc, scale = _promote("norm.ppf", q, loc, scale)
    return _sp.ndtri(q) * scale + loc


def isf(q, loc=0, scale=1):
    """Inverse survival function, ``loc - scale * ndtri(q)``.

    NB: JAX computes ``ppf(1 - q)``, which loses the digits of small ``q``;
    this form keeps them (the values agree elsewhere).
    """
    q, loc, scale = _promote("norm.isf", q, loc, scale)
    return loc - _sp.ndtri(q) * scale
