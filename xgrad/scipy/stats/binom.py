"""Binomial distribution (``jax.scipy.stats.binom``)."""
from ... import numpy as _n
from ...numpy import special as _sp
from ._util import promote as _promote, inf as _inf, nan as _nan

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    """Log pmf ``log C(n, y) + y log p + (n - y) log1p(-p)``, ``y = k - loc``,
    through ``gammaln`` (real ``n`` allowed); -inf outside ``[loc, loc + n]``."""
    k, n, p, loc = _promote("binom.logpmf", k, n, p, loc)
    y = k - loc
    comb = _sp.gammaln(n + 1.0) - _sp.gammaln(y + 1.0) - _sp.gammaln(n - y + 1.0)
    lin = _sp.xlogy(y, p) + _sp.xlog1py(n - y, -p)
    val = _n.where(((y == 0) & (n == 0)) | (lin == 0), 0.0, comb + lin)
    return _n.where((k >= loc) & (k < loc + n + 1.0), val, -_inf)


def pmf(k, n, p, loc=0):
    """Binomial pmf."""
    return _n.exp(logpmf(k, n, p, loc))
