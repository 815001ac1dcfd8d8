"""Generalized normal distribution (``jax.scipy.stats.gennorm``), shape ``beta``."""
import math as _math

from ... import numpy as _n
from ...numpy import special as _sp
from ._util import promote as _promote, inf as _inf, nan as _nan

__all__ = ["logpdf", "pdf"]


def logpdf(x, beta):
    """Log density ``log(beta / 2) - log Gamma(1 / beta) - |x|^beta``."""
    x, beta = _promote("gennorm.logpdf", x, beta)
    return _n.log(beta) - _math.log(2.0) - _sp.gammaln(1.0 / beta) - _n.abs(x) ** beta


def pdf(x, beta):
    """Generalized normal density."""
    return _n.exp(logpdf(x, beta))
