"""Exponential distribution (``jax.scipy.stats.expon``)."""
from ... import numpy as _n
from ._util import pf as _pf, promote as _promote, inf as _inf, nan as _nan

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def logpdf(x, loc=0, scale=1):
    """Log density ``-(x - loc) / scale - log(scale)`` for ``x >= loc``, -inf below."""
    x, loc, scale = _promote("expon.logpdf", x, loc, scale)
    return _n.where(x < loc, -_inf, -(x - loc) / scale - _pf(_n.log, scale))


def pdf(x, loc=0, scale=1):
    """Exponential density."""
    return _n.exp(logpdf(x, loc, scale))


def _logsf(x, loc, scale):
    return _n.where(x < loc, 0.0, (loc - x) / scale)


def cdf(x, loc=0, scale=1):
    """CDF ``-expm1(-(x - loc) / scale)`` (0 below ``loc``)."""
    x, loc, scale = _promote("expon.cdf", x, loc, scale)
    return -_n.expm1(_logsf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """Log CDF ``log(-expm1(-(x - loc) / scale))``.

    NB: JAX computes ``log1p(-sf)``, which rounds to -inf for tiny ``x - loc``.
    """
    x, loc, scale = _promote("expon.logcdf", x, loc, scale)
    return _n.log(-_n.expm1(_logsf(x, loc, scale)))


def sf(x, loc=0, scale=1):
    """Survival function ``exp(-(x - loc) / scale)`` (1 below ``loc``)."""
    x, loc, scale = _promote("expon.sf", x, loc, scale)
    return _n.exp(_logsf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    """Log survival function ``-(x - loc) / scale`` (0 below ``loc``)."""
    x, loc, scale = _promote("expon.logsf", x, loc, scale)
    return _logsf(x, loc, scale)


def ppf(q, loc=0, scale=1):
    """Quantile function ``loc - scale log1p(-q)``; nan outside [0, 1]."""
    q, loc, scale = _promote("expon.ppf", q, loc, scale)
    bad = _n.isnan(q) | (q < 0) | (q > 1)
    return _n.where(bad, _nan, loc - scale * _n.log1p(-_n.where(bad, 0.0, q)))
