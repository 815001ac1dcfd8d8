"""Generalized normal distribution (``jax.scipy.stats.gennorm``), shape ``beta``."""
import math as _math

from ... import numpy as _n
from ...numpy import special as _sp
from ._util import pf as _pf, promote as _promote

__all__ = ["logpdf", "pdf", "cdf"]


def logpdf(x, beta):
    """Log density ``log(beta / 2) - log Gamma(1 / beta) - |x|^beta``."""
    x, beta = _promote("gennorm.logpdf", x, beta)
    return _pf(_n.log, beta) - _math.log(2.0) - _pf(_sp.gammaln, 1.0 / beta) - _n.abs(x) ** beta


def pdf(x, beta):
    """Generalized normal density."""
    return _n.exp(logpdf(x, beta))


def cdf(x, beta):
    """CDF ``(1 + sign(x) gammainc(1 / beta, |x|^beta)) / 2``."""
    x, beta = _promote("gennorm.cdf", x, beta)
    return 0.5 * (1.0 + _n.multiply(_n.sign(x), _sp.gammainc(1.0 / beta, _n.abs(x) ** beta)))
