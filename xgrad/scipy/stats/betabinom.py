"""Beta-binomial distribution (``jax.scipy.stats.betabinom``)."""
from ... import numpy as _n
from ...numpy import special as _sp
from ._util import pf as _pf, promote as _promote, inf as _inf, nan as _nan

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, a, b, loc=0):
    """Log pmf ``log C(n, y) + betaln(y + a, n - y + b) - betaln(a, b)``,
    ``y = floor(k) - loc``; -inf outside ``[0, n]``, nan for ``n < 0`` or
    non-positive ``a``, ``b``. Differentiable in ``a`` and ``b`` (and real ``n``)."""
    k, n, a, b, loc = _promote("betabinom.logpmf", k, n, a, b, loc)
    # (written with xgrad functions: array_api_strict's operators reject traced operands)
    y = _n.subtract(_n.floor(k), loc)
    n_y = _n.subtract(n, y)
    comb = -_n.add(_n.log1p(n), _sp.betaln(n_y + 1.0, y + 1.0))
    val = _n.add(comb, _n.subtract(_sp.betaln(_n.add(y, a), _n.add(n_y, b)), _pf(_sp.betaln, a, b)))
    val = _n.where(_n.logical_and(y == 0, n == 0), 0.0, val)
    out = _n.logical_or(_n.logical_or(_n.less(y, -loc), _n.greater(y, n)), _n.add(y, a) <= 0)
    val = _n.where(out, -_inf, val)
    return _n.where(_n.logical_or(_n.logical_or(n < 0, a <= 0), b <= 0), _nan, val)


def pmf(k, n, a, b, loc=0):
    """Beta-binomial pmf."""
    return _n.exp(logpmf(k, n, a, b, loc))
