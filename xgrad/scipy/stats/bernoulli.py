"""Bernoulli distribution (``jax.scipy.stats.bernoulli``)."""
from ... import numpy as _n
from ...numpy import special as _sp
from ._util import promote as _promote, inf as _inf, nan as _nan

__all__ = ["logpmf", "pmf", "cdf", "ppf"]


def logpmf(k, p, loc=0):
    """Log pmf ``xlogy(x, p) + xlog1py(1 - x, -p)``, ``x = k - loc``; -inf
    outside [0, 1]. Differentiable in ``p``."""
    k, p, loc = _promote("bernoulli.logpmf", k, p, loc)
    x = _n.subtract(k, loc)
    return _n.where((x < 0) | (x > 1), -_inf, _n.add(_sp.xlogy(x, p), _sp.xlog1py(1.0 - x, -p)))


def pmf(k, p, loc=0):
    """Bernoulli pmf."""
    return _n.exp(logpmf(k, p, loc))


def cdf(k, p):
    """CDF: 0 for k < 0, ``1 - p`` on [0, 1), 1 from 1; nan for nan input or p outside [0, 1]."""
    k, p = _promote("bernoulli.cdf", k, p)
    bad = _n.logical_or(_n.isnan(k), _n.isnan(p) | (p < 0) | (p > 1))
    return _n.where(bad, _nan, _n.where(k < 0, 0.0, _n.where(k < 1, 1.0 - p, 1.0)))


def ppf(q, p):
    """Quantile function: 0 for ``q <= 1 - p``, 1 above; nan outside [0, 1]."""
    q, p = _promote("bernoulli.ppf", q, p)
    bad = _n.logical_or(_n.isnan(q) | (q < 0) | (q > 1), _n.isnan(p) | (p < 0) | (p > 1))
    return _n.where(bad, _nan, _n.where(_n.less_equal(q, 1.0 - p), 0.0, 1.0))
