"""Gamma distribution (``jax.scipy.stats.gamma``), shape ``a``."""
from ... import numpy as _n
from ...numpy import special as _sp
from ._util import promote as _promote, inf as _inf, nan as _nan

__all__ = ["logpdf", "pdf"]


def logpdf(x, a, loc=0, scale=1):
    """Log density ``(a - 1) log y - y - log Gamma(a) - log scale``, ``y = (x - loc) / scale``;
    -inf below ``loc``. Differentiable in ``a`` (through ``gammaln``)."""
    x, a, loc, scale = _promote("gamma.logpdf", x, a, loc, scale)
    ok = x >= loc
    y = _n.where(ok, (x - loc) / scale, 1.0)
    val = _sp.xlogy(a - 1.0, y) - y - _sp.gammaln(a) - _n.log(scale)
    return _n.where(ok, val, -_inf)


def pdf(x, a, loc=0, scale=1):
    """Gamma density."""
    return _n.exp(logpdf(x, a, loc, scale))
