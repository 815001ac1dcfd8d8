"""Chi-squared distribution (``jax.scipy.stats.chi2``)."""
import math as _math

from ... import numpy as _n
from ...numpy import special as _sp
from ._util import pf as _pf, promote as _promote, inf as _inf

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def logpdf(x, df, loc=0, scale=1):
    """Log density ``(df/2 - 1) log y - y/2 - log Gamma(df/2) - (df/2) log 2 - log scale``,
    ``y = (x - loc) / scale``; -inf below ``loc``.

    NB: the ``(df/2 - 1) log y`` term is ``xlogy``, so ``df = 2`` at ``y = 0``
    gives ``-log 2 - log scale`` (scipy's value) where JAX gives nan.
    """
    x, df, loc, scale = _promote("chi2.logpdf", x, df, loc, scale)
    below = x < loc
    y = _n.where(below, 1.0, (x - loc) / scale)
    h = 0.5 * df
    val = _sp.xlogy(h - 1.0, y) - 0.5 * y - _pf(_sp.gammaln, h) - h * _math.log(2.0) - _pf(_n.log, scale)
    return _n.where(below, -_inf, val)


def pdf(x, df, loc=0, scale=1):
    """Chi-squared density."""
    return _n.exp(logpdf(x, df, loc, scale))


def _y(name, x, df, loc, scale):
    x, df, loc, scale = _promote(name, x, df, loc, scale)
    return _n.maximum((x - loc) / (2.0 * scale), 0.0), 0.5 * df


def cdf(x, df, loc=0, scale=1):
    """CDF ``gammainc(df / 2, y / 2)`` (0 below ``loc``); first-order derivative in ``df``."""
    y, h = _y("chi2.cdf", x, df, loc, scale)
    return _sp.gammainc(h, y)


def logcdf(x, df, loc=0, scale=1):
    """Log CDF."""
    return _n.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
    """Survival function ``gammaincc(df / 2, y / 2)``."""
    y, h = _y("chi2.sf", x, df, loc, scale)
    return _sp.gammaincc(h, y)


def logsf(x, df, loc=0, scale=1):
    """Log survival function."""
    return _n.log(sf(x, df, loc, scale))
