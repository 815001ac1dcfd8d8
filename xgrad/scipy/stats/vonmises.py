"""Von Mises distribution (``jax.scipy.stats.vonmises``)."""
import math as _math

from ... import numpy as _n
from ...numpy import special as _sp
from ._util import pf as _pf, promote as _promote, nan as _nan

__all__ = ["logpdf", "pdf"]


def logpdf(x, kappa):
    """Log density ``kappa (cos x - 1) - log(2 pi i0e(kappa))`` (no overflow for
    large ``kappa``); nan unless ``kappa > 0``."""
    x, kappa = _promote("vonmises.logpdf", x, kappa)
    ok = kappa > 0
    ks = kappa if type(kappa) is float else _n.where(ok, kappa, 1.0)
    norm = _pf(lambda k: _n.log(_sp.i0e(k)), ks) + _math.log(2 * _math.pi)
    val = _n.subtract(_n.multiply(ks, _n.cos(x) - 1.0), norm)
    return _n.where(ok, val, _nan)


def pdf(x, kappa):
    """Von Mises density."""
    return _n.exp(logpdf(x, kappa))
