"""Dirichlet distribution (``jax.scipy.stats.dirichlet``)."""
from ... import numpy as _n
from ...numpy import special as _sp
from ._util import promote as _promote, inf as _inf

__all__ = ["logpdf", "pdf"]


def logpdf(x, alpha):
    """Log density ``sum((alpha - 1) log x) - log B(alpha)`` over axis 0.

    Args:
      x: points on the simplex along axis 0: ``K`` entries, or ``K - 1``
        (the last is then ``1 - sum``); further axes are a batch.
      alpha: one-dimensional concentration, ``K`` entries.

    Returns:
      the log density, -inf off the simplex (an entry <= 0 or a sum off 1 by 1e-6).
    """
    x, alpha = _promote("dirichlet.logpdf", x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f"dirichlet.logpdf: alpha must be one-dimensional; got alpha.shape={alpha.shape}")
    K = alpha.shape[0]
    if x.ndim == 0 or x.shape[0] not in (K, K - 1):
        raise ValueError(f"dirichlet.logpdf: x must have either the same number of entries as alpha "
                         f"or one entry fewer; got x.shape={x.shape}, alpha.shape={alpha.shape}")
    if x.shape[0] != K:
        x = _n.concatenate([x, 1.0 - _n.sum(x, axis=0, keepdims=True)], axis=0)
    log_b = _n.sum(_sp.gammaln(alpha)) - _sp.gammaln(_n.sum(alpha))
    a = _n.reshape(alpha, (K,) + (1,) * (x.ndim - 1))
    val = _n.sum(_sp.xlogy(a - 1.0, x), axis=0) - log_b
    simplex = _n.all(x > 0, axis=0) & (_n.abs(_n.sum(x, axis=0) - 1.0) < 1e-6)
    return _n.where(simplex, val, -_inf)


def pdf(x, alpha):
    """Dirichlet density."""
    return _n.exp(logpdf(x, alpha))
