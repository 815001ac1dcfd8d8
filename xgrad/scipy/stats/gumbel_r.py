"""Right-skewed Gumbel distribution (``jax.scipy.stats.gumbel_r``): nan
where ``scale <= 0``, as JAX."""
from ... import numpy as _n
from ._util import pf as _pf, promote as _promote, nan as _nan

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def _z(name, x, loc, scale):
    x, loc, scale = _promote(name, x, loc, scale)
    return (x - loc) / scale, scale, scale > 0


def logpdf(x, loc=0, scale=1):
    """Log density ``-(z + exp(-z)) - log(scale)``, ``z = (x - loc) / scale``."""
    z, scale, ok = _z("gumbel_r.logpdf", x, loc, scale)
    return _n.where(ok, -(z + _n.exp(-z)) - _pf(_n.log, _n.where(ok, scale, 1.0)), _nan)


def pdf(x, loc=0, scale=1):
    """Gumbel density."""
    return _n.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """Log CDF ``-exp(-z)``."""
    z, scale, ok = _z("gumbel_r.logcdf", x, loc, scale)
    return _n.where(ok, -_n.exp(-z), _nan)


def cdf(x, loc=0, scale=1):
    """CDF ``exp(-exp(-z))``."""
    return _n.exp(logcdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    """Survival function ``-expm1(-exp(-z))``.

    NB: JAX computes ``1 - exp(-exp(-z))``, which rounds to 0 in the right
    tail; this form keeps the digits there.
    """
    z, scale, ok = _z("gumbel_r.sf", x, loc, scale)
    return _n.where(ok, -_n.expm1(-_n.exp(-z)), _nan)


def _log1mexp(t):
    """``log(1 - exp(-t))`` for t > 0, accurate for small and large t."""
    small = t < 0.6931471805599453
    ts = _n.where(small, t, 1.0)
    tl = _n.where(small, 1.0, t)
    return _n.where(small, _n.log(-_n.expm1(-ts)), _n.log1p(-_n.exp(-tl)))


def logsf(x, loc=0, scale=1):
    """Log survival function ``log(1 - exp(-exp(-z)))``, accurate in both tails."""
    z, scale, ok = _z("gumbel_r.logsf", x, loc, scale)
    return _n.where(ok, _log1mexp(_n.exp(-z)), _nan)


def ppf(p, loc=0, scale=1):
    """Quantile function ``loc - scale log(-log(p))``; nan outside (0, 1)."""
    p, loc, scale = _promote("gumbel_r.ppf", p, loc, scale)
    ok = (p > 0) & (p < 1)
    ps = _n.where(ok, p, 0.5)
    return _n.where(ok, loc - scale * _n.log(-_n.log(ps)), _nan)
