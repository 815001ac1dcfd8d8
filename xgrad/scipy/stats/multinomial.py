"""Multinomial distribution (``jax.scipy.stats.multinomial``)."""
from ... import numpy as _n
from ...numpy import special as _sp
from ._util import promote as _promote, inf as _inf

__all__ = ["logpmf", "pmf"]


def logpmf(x, n, p):
    """Log pmf ``log n! + sum(x log p - log x!)`` over the last axis; -inf
    where ``sum(x) != n``. ``x`` and ``n`` must be integer arrays (as JAX);
    differentiable in ``p``."""
    (p,) = _promote("multinomial.logpmf", p)
    x, n = _n.asarray(x), _n.asarray(n)
    if not (_n.isdtype(x.dtype, "integral") and _n.isdtype(n.dtype, "integral")):
        raise ValueError(f"multinomial.logpmf: x and n must be of integer type; got "
                         f"x.dtype={x.dtype}, n.dtype={n.dtype}")
    xf, nf = _n.astype(x, p.dtype), _n.astype(n, p.dtype)
    val = _n.add(_sp.gammaln(nf + 1.0), _n.sum(_n.subtract(_sp.xlogy(xf, p), _sp.gammaln(xf + 1.0)),
                                               axis=-1))
    return _n.where(_n.sum(xf) == nf, val, -_inf)


def pmf(x, n, p):
    """Multinomial pmf."""
    return _n.exp(logpmf(x, n, p))
