"""Negative binomial distribution (``jax.scipy.stats.nbinom``)."""
from ... import numpy as _n
from ...numpy import special as _sp
from ._util import pf as _pf, promote as _promote, inf as _inf

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    """Log pmf ``log Gamma(y + n) - log Gamma(n) - log y! + n log p + y log1p(-p)``,
    ``y = k - loc`` (real ``n`` allowed, differentiable in ``n`` and ``p``); -inf for ``k < loc``."""
    k, n, p, loc = _promote("nbinom.logpmf", k, n, p, loc)
    # (written with xgrad functions: array_api_strict's operators reject traced operands)
    y = _n.subtract(k, loc)
    comb = _n.subtract(_sp.gammaln(_n.add(y, n)), _n.add(_pf(_sp.gammaln, n), _sp.gammaln(y + 1.0)))
    val = _n.add(comb, _n.add(_sp.xlogy(n, p), _sp.xlog1py(y, -p)))
    return _n.where(_n.less(k, loc), -_inf, val)


def pmf(k, n, p, loc=0):
    """Negative binomial pmf."""
    return _n.exp(logpmf(k, n, p, loc))
