"""Laplace distribution (``jax.scipy.stats.laplace``)."""
import math as _math

from ... import numpy as _n
from ._util import pf as _pf, promote as _promote

__all__ = ["logpdf", "pdf", "cdf"]


def logpdf(x, loc=0, scale=1):
    """Log density ``-|x - loc| / scale - log(2 scale)``."""
    x, loc, scale = _promote("laplace.logpdf", x, loc, scale)
    return -_n.abs(x - loc) / scale - _pf(_n.log, scale) - _math.log(2.0)


def pdf(x, loc=0, scale=1):
    """Laplace density."""
    return _n.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """CDF: ``exp(z) / 2`` for ``z <= 0``, ``1 - exp(-z) / 2`` above."""
    x, loc, scale = _promote("laplace.cdf", x, loc, scale)
    z = (x - loc) / scale
    left = z <= 0
    e = 0.5 * _n.exp(_n.where(left, z, -z))
    return _n.where(left, e, 1.0 - e)
