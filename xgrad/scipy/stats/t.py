"""Student's t distribution (``jax.scipy.stats.t``)."""
import math as _math

from ... import numpy as _n
from ...numpy import special as _sp
from ._util import pf as _pf, promote as _promote

__all__ = ["logpdf", "pdf"]


def logpdf(x, df, loc=0, scale=1):
    """Log density of Student's t with ``df`` degrees of freedom (any real
    ``df > 0``; differentiable in ``df`` through ``gammaln``)."""
    x, df, loc, scale = _promote("t.logpdf", x, df, loc, scale)
    z = (x - loc) / scale
    h = 0.5 * df
    norm_term = (_pf(_sp.gammaln, h) - _pf(_sp.gammaln, h + 0.5)
                 + 0.5 * (_pf(_n.log, df) + _math.log(_math.pi)) + _pf(_n.log, scale))
    return -norm_term - (h + 0.5) * _n.log1p(z * z / df)


def pdf(x, df, loc=0, scale=1):
    """Student's t density."""
    return _n.exp(logpdf(x, df, loc, scale))
