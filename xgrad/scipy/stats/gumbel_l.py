"""Left-skewed Gumbel distribution (``jax.scipy.stats.gumbel_l``): nan
where ``scale <= 0``, as JAX."""
from ... import numpy as _n
from ._util import pf as _pf, promote as _promote, nan as _nan
from .gumbel_r import _log1mexp

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def _z(name, x, loc, scale):
    x, loc, scale = _promote(name, x, loc, scale)
    return (x - loc) / scale, scale, scale > 0


def logpdf(x, loc=0, scale=1):
    """Log density ``z - exp(z) - log(scale)``, ``z = (x - loc) / scale``."""
    z, scale, ok = _z("gumbel_l.logpdf", x, loc, scale)
    return _n.where(ok, z - _n.exp(z) - _pf(_n.log, _n.where(ok, scale, 1.0)), _nan)


def pdf(x, loc=0, scale=1):
    """Gumbel (left) density."""
    return _n.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """Log CDF ``log(1 - exp(-exp(z)))``, accurate in both tails."""
    z, scale, ok = _z("gumbel_l.logcdf", x, loc, scale)
    return _n.where(ok, _log1mexp(_n.exp(z)), _nan)


def cdf(x, loc=0, scale=1):
    """CDF ``-expm1(-exp(z))``."""
    z, scale, ok = _z("gumbel_l.cdf", x, loc, scale)
    return _n.where(ok, -_n.expm1(-_n.exp(z)), _nan)


def logsf(x, loc=0, scale=1):
    """Log survival function ``-exp(z)``."""
    z, scale, ok = _z("gumbel_l.logsf", x, loc, scale)
    return _n.where(ok, -_n.exp(z), _nan)


def sf(x, loc=0, scale=1):
    """Survival function ``exp(-exp(z))``."""
    return _n.exp(logsf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    """Quantile function ``loc + scale log(-log1p(-p))``; nan outside (0, 1)."""
    p, loc, scale = _promote("gumbel_l.ppf", p, loc, scale)
    ok = (p > 0) & (p < 1)
    ps = _n.where(ok, p, 0.5)
    return _n.where(ok, loc + scale * _n.log(-_n.log1p(-ps)), _nan)
