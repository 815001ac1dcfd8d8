"""Wrapped Cauchy distribution on [0, 2 pi] (``jax.scipy.stats.wrapcauchy``)."""
import math as _math

from ... import numpy as _n
from ._util import pf as _pf, promote as _promote, inf as _inf, nan as _nan

__all__ = ["logpdf", "pdf"]


def logpdf(x, c):
    """Log density ``log((1 - c^2) / (2 pi (1 + c^2 - 2 c cos x)))`` for x in
    [0, 2 pi] (-inf outside), nan unless 0 < c < 1."""
    x, c = _promote("wrapcauchy.logpdf", x, c)
    ok = (c > 0) & (c < 1)
    inside = (x >= 0) & (x <= 2 * _math.pi)
    val = _pf(_n.log1p, -c * c) - _math.log(2 * _math.pi) - _n.log(1.0 + c * c - 2.0 * c * _n.cos(x))
    return _n.where(ok, _n.where(inside, val, -_inf), _nan)


def pdf(x, c):
    """Wrapped Cauchy density."""
    return _n.exp(logpdf(x, c))
