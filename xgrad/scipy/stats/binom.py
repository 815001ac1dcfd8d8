"""Binomial distribution (``jax.scipy.stats.binom``)."""
from ... import numpy as _n
from ...numpy import special as _sp
from ._util import pf as _pf, promote as _promote, inf as _inf

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    """Log pmf ``log C(n, y) + y log p + (n - y) log1p(-p)``, ``y = k - loc``,
    through ``gammaln`` (real ``n`` allowed); -inf outside ``[loc, loc + n]``."""
    k, n, p, loc = _promote("binom.logpmf", k, n, p, loc)
    # (written with xgrad functions: array_api_strict's operators reject traced operands)
    y = _n.subtract(k, loc)
    n_y = _n.subtract(n, y)
    comb = _n.subtract(_pf(_sp.gammaln, n + 1.0), _n.add(_sp.gammaln(y + 1.0), _sp.gammaln(n_y + 1.0)))
    lin = _n.add(_sp.xlogy(y, p), _sp.xlog1py(n_y, -p))
    val = _n.where(_n.logical_or(_n.logical_and(y == 0, n == 0), lin == 0), 0.0, _n.add(comb, lin))
    return _n.where(_n.logical_and(k >= loc, _n.less(k, _n.add(loc, n) + 1.0)), val, -_inf)


def pmf(k, n, p, loc=0):
    """Binomial pmf."""
    return _n.exp(logpmf(k, n, p, loc))
