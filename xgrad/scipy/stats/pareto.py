"""Pareto distribution (``jax.scipy.stats.pareto``), support ``x >= loc + scale``."""
from ... import numpy as _n
from ._util import pf as _pf, promote as _promote, inf as _inf, nan as _nan

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def _prep(name, x, b, loc, scale):
    x, b, loc, scale = _promote(name, x, b, loc, scale)
    below = x < loc + scale
    y = _n.where(below, 1.0, (x - loc) / scale)      # 1 below the support: finite derivatives
    return y, b, scale, below


def logpdf(x, b, loc=0, scale=1):
    """Log density ``log(b / scale) - (b + 1) log(y)``, ``y = (x - loc) / scale >= 1``."""
    y, b, scale, below = _prep("pareto.logpdf", x, b, loc, scale)
    return _n.where(below, -_inf, _pf(_n.log, b) - _pf(_n.log, scale) - (b + 1) * _n.log(y))


def pdf(x, b, loc=0, scale=1):
    """Pareto density."""
    return _n.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
    """CDF ``1 - y^(-b)`` (0 below the support)."""
    y, b, scale, below = _prep("pareto.cdf", x, b, loc, scale)
    return _n.where(below, 0.0, -_n.expm1(-b * _n.log(y)))


def logcdf(x, b, loc=0, scale=1):
    """Log CDF ``log1p(-y^(-b))`` (-inf below the support)."""
    y, b, scale, below = _prep("pareto.logcdf", x, b, loc, scale)
    return _n.where(below, -_inf, _n.log(-_n.expm1(-b * _n.log(y))))


def logsf(x, b, loc=0, scale=1):
    """Log survival function ``-b log(y)`` (0 below the support)."""
    y, b, scale, below = _prep("pareto.logsf", x, b, loc, scale)
    return _n.where(below, 0.0, -b * _n.log(y))


def sf(x, b, loc=0, scale=1):
    """Survival function ``y^(-b)``."""
    return _n.exp(logsf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
    """Quantile function ``loc + scale (1 - q)^(-1/b)``; nan outside [0, 1]."""
    q, b, loc, scale = _promote("pareto.ppf", q, b, loc, scale)
    bad = _n.isnan(q) | (q < 0) | (q > 1)
    qs = _n.where(bad, 0.5, q)
    return _n.where(bad, _nan, loc + scale * _n.exp(-_n.log1p(-qs) / b))
