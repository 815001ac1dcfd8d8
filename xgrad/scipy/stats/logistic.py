"""Logistic distribution (``jax.scipy.stats.logistic``)."""
from ... import numpy as _n
from ...numpy import special as _sp
from ._util import pf as _pf, promote as _promote

__all__ = ["logpdf", "pdf", "cdf", "sf", "ppf", "isf"]


def logpdf(x, loc=0, scale=1):
    """Log density ``-2 log(2 cosh(z / 2)) - log(scale)``, ``z = (x - loc) / scale``
    (written with ``logaddexp``: no overflow for large ``|z|``)."""
    x, loc, scale = _promote("logistic.logpdf", x, loc, scale)
    h = 0.5 * (x - loc) / scale
    return -2.0 * _n.logaddexp(h, -h) - _pf(_n.log, scale)


def pdf(x, loc=0, scale=1):
    """Logistic density."""
    return _n.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """CDF ``expit((x - loc) / scale)``."""
    x, loc, scale = _promote("logistic.cdf", x, loc, scale)
    return _sp.expit((x - loc) / scale)


def sf(x, loc=0, scale=1):
    """Survival function ``expit(-(x - loc) / scale)``."""
    x, loc, scale = _promote("logistic.sf", x, loc, scale)
    return _sp.expit((loc - x) / scale)


def ppf(x, loc=0, scale=1):
    """Quantile function ``loc + scale logit(x)``."""
    x, loc, scale = _promote("logistic.ppf", x, loc, scale)
    return _sp.logit(x) * scale + loc


def isf(x, loc=0, scale=1):
    """Inverse survival function ``loc - scale logit(x)``."""
    x, loc, scale = _promote("logistic.isf", x, loc, scale)
    return loc - _sp.logit(x) * scale
