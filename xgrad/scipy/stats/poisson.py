"""Poisson distribution (``jax.scipy.stats.poisson``)."""
import math as _math

from ... import numpy as _n
from ...numpy import special as _sp
from ._util import promote as _promote, inf as _inf

__all__ = ["logpmf", "pmf", "cdf", "entropy"]


def logpmf(k, mu, loc=0):
    """Log pmf ``x log(mu) - log(x!) - mu``, ``x = k - loc``; -inf for ``x < 0``
    or non-integer ``k``. Differentiable in ``mu``."""
    k, mu, loc = _promote("poisson.logpmf", k, mu, loc)
    x = _n.subtract(k, loc)
    val = _n.subtract(_sp.xlogy(x, mu), _n.add(_sp.gammaln(x + 1.0), mu))
    return _n.where((x < 0) | (_n.round(k) != k), -_inf, val)


def pmf(k, mu, loc=0):
    """Poisson pmf."""
    return _n.exp(logpmf(k, mu, loc))


def _entropy_sum(mu, kmax, upper):
    k = (_n.cumsum(_n.broadcast_to(_n.ones_like(mu[:1]), (kmax,))) - 1.0)[:, None]
    m = mu[None, :]
    p = _n.exp(_sp.xlogy(k, m) - _sp.gammaln(k + 1.0) - m)
    return _n.sum(_sp.entr(_n.where(k < upper[None, :], p, 0.0)), axis=0)


def entropy(mu, loc=0):
    """Entropy ``-sum p log p``: summed over ``k < ceil(mu + 20)`` for
    ``mu < 10``, over ``k < ceil(mu + 10 sqrt(mu) + 20)`` for ``mu < 100``,
    and ``log(2 pi e mu) / 2 - 1 / (12 mu)`` beyond (JAX's scheme); 0 at
    ``mu = 0``. Differentiable in ``mu``; ``loc`` only broadcasts."""
    mu, loc = _promote("poisson.entropy", mu, loc)
    shape = _n.broadcast_shapes(tuple(mu.shape), () if type(loc) is float else tuple(loc.shape))
    flat = _n.reshape(mu, (-1,))
    pos = flat > 0
    ms = _n.where(pos, flat, 1.0)
    small = _entropy_sum(ms, 35, _n.ceil(ms + 20.0))
    medium = _entropy_sum(ms, 250, _n.ceil(ms + 10.0 * _n.sqrt(ms) + 20.0))
    large = 0.5 * _n.log(2 * _math.pi * _math.e * ms) - 1.0 / (12.0 * ms)
    val = _n.where(flat < 10, small, _n.where(flat < 100, medium, large))
    val = _n.where(flat == 0, 0.0, val)
    return _n.broadcast_to(_n.reshape(val, tuple(mu.shape)), shape)


def cdf(k, mu, loc=0):
    """CDF ``gammaincc(floor(k - loc) + 1, mu)`` (0 below ``loc``); differentiable in ``mu``."""
    k, mu, loc = _promote("poisson.cdf", k, mu, loc)
    x = _n.subtract(k, loc)
    return _n.where(x < 0, 0.0, _sp.gammaincc(_n.floor(x) + 1.0, mu))
