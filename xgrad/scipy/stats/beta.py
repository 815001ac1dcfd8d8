"""Beta distribution (``jax.scipy.stats.beta``) on ``[loc, loc + scale]``."""
from ... import numpy as _n
from ...numpy import special as _sp
from ._util import pf as _pf, promote as _promote, inf as _inf, nan as _nan

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def logpdf(x, a, b, loc=0, scale=1):
    """Log density ``(a - 1) log y + (b - 1) log1p(-y) - betaln(a, b) - log scale``,
    ``y = (x - loc) / scale``; -inf outside the support, nan unless a, b, scale > 0."""
    x, a, b, loc, scale = _promote("beta.logpdf", x, a, b, loc, scale)
    y = (x - loc) / scale
    out = (x < loc) | (x > loc + scale)
    ys = _n.where(out, 0.5, y)
    val = _n.subtract(_n.add(_sp.xlogy(a - 1.0, ys), _sp.xlog1py(b - 1.0, -ys)),
                      _n.add(_pf(_sp.betaln, a, b), _pf(_n.log, scale)))
    val = _n.where(out, -_inf, val)
    return _n.where(_n.logical_or(_n.logical_or(a <= 0, b <= 0), scale <= 0), _nan, val)


def pdf(x, a, b, loc=0, scale=1):
    """Beta density."""
    return _n.exp(logpdf(x, a, b, loc, scale))


def _y(name, x, a, b, loc, scale):
    x, a, b, loc, scale = _promote(name, x, a, b, loc, scale)
    return _n.clip((x - loc) / scale, 0.0, 1.0), a, b


def cdf(x, a, b, loc=0, scale=1):
    """CDF ``betainc(a, b, y)``, ``y`` clipped to [0, 1]; derivatives of any
    order in ``x``, first order in ``a`` and ``b`` (beyond JAX, which raises)."""
    y, a, b = _y("beta.cdf", x, a, b, loc, scale)
    return _sp.betainc(a, b, y)


def logcdf(x, a, b, loc=0, scale=1):
    """Log CDF."""
    return _n.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    """Survival function ``betainc(b, a, 1 - y)``."""
    y, a, b = _y("beta.sf", x, a, b, loc, scale)
    return _sp.betainc(b, a, 1.0 - y)


def logsf(x, a, b, loc=0, scale=1):
    """Log survival function."""
    return _n.log(sf(x, a, b, loc, scale))
