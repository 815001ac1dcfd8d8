"""Geometric distribution on 1, 2, ... (``jax.scipy.stats.geom``)."""
from ... import numpy as _n
from ...numpy import special as _sp
from ._util import pf as _pf, promote as _promote, inf as _inf

__all__ = ["logpmf", "pmf"]


def logpmf(k, p, loc=0):
    """Log pmf ``(k - loc - 1) log1p(-p) + log(p)`` for ``k - loc >= 1``, -inf below."""
    k, p, loc = _promote("geom.logpmf", k, p, loc)
    x = _n.subtract(k, loc)
    return _n.where(x <= 0, -_inf, _n.add(_sp.xlog1py(x - 1.0, -p), _pf(_n.log, p)))


def pmf(k, p, loc=0):
    """Geometric pmf."""
    return _n.exp(logpmf(k, p, loc))
