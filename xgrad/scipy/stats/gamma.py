"""Gamma distribution (``jax.scipy.stats.gamma``), shape ``a``."""
from ... import numpy as _n
from ...numpy import special as _sp
from ._util import pf as _pf, promote as _promote, inf as _inf

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def logpdf(x, a, loc=0, scale=1):
    """Log density ``(a - 1) log y - y - log Gamma(a) - log scale``, ``y = (x - loc) / scale``;
    -inf below ``loc``. Differentiable in ``a`` (through ``gammaln``)."""
    x, a, loc, scale = _promote("gamma.logpdf", x, a, loc, scale)
    ok = x >= loc
    y = _n.where(ok, (x - loc) / scale, 1.0)
    val = _sp.xlogy(a - 1.0, y) - y - _pf(_sp.gammaln, a) - _pf(_n.log, scale)
    return _n.where(ok, val, -_inf)


def pdf(x, a, loc=0, scale=1):
    """Gamma density."""
    return _n.exp(logpdf(x, a, loc, scale))


def _y(name, x, a, loc, scale):
    x, a, loc, scale = _promote(name, x, a, loc, scale)
    return _n.maximum((x - loc) / scale, 0.0), a


def cdf(x, a, loc=0, scale=1):
    """CDF ``gammainc(a, y)`` (0 below ``loc``); derivatives of any order in
    ``x``, loc and scale, first order in ``a``."""
    y, a = _y("gamma.cdf", x, a, loc, scale)
    return _sp.gammainc(a, y)


def logcdf(x, a, loc=0, scale=1):
    """Log CDF ``log(gammainc(a, y))``."""
    return _n.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    """Survival function ``gammaincc(a, y)`` (1 below ``loc``), accurate where it is tiny."""
    y, a = _y("gamma.sf", x, a, loc, scale)
    return _sp.gammaincc(a, y)


def logsf(x, a, loc=0, scale=1):
    """Log survival function ``log(gammaincc(a, y))``."""
    return _n.log(sf(x, a, loc, scale))
