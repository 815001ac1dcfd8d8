"""Uniform distribution on ``[loc, loc + scale]`` (``jax.scipy.stats.uniform``)."""
from ... import numpy as _n
from ._util import pf as _pf, promote as _promote, inf as _inf, nan as _nan

__all__ = ["logpdf", "pdf", "cdf", "ppf"]


def logpdf(x, loc=0, scale=1):
    """``-log(scale)`` on ``[loc, loc + scale]``, -inf outside."""
    x, loc, scale = _promote("uniform.logpdf", x, loc, scale)
    out = (x < loc) | (x > loc + scale)
    return _n.where(out, -_inf, -_pf(_n.log, scale) + 0.0 * x)


def pdf(x, loc=0, scale=1):
    """Uniform density."""
    return _n.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """CDF ``(x - loc) / scale`` clipped to [0, 1] (nan where ``x`` is nan)."""
    x, loc, scale = _promote("uniform.cdf", x, loc, scale)
    inside = (x >= loc) & (x <= loc + scale)
    return _n.where(x < loc, 0.0, _n.where(x > loc + scale, 1.0,
                                           _n.where(inside, (x - loc) / scale, 0.0)))


def ppf(q, loc=0, scale=1):
    """Quantile function ``loc + scale q``; nan outside [0, 1]."""
    q, loc, scale = _promote("uniform.ppf", q, loc, scale)
    bad = _n.isnan(q) | (q < 0) | (q > 1)
    return _n.where(bad, _nan, loc + scale * q)
