"""Multivariate normal distribution (``jax.scipy.stats.multivariate_normal``)."""
import math as _math

from ... import numpy as _n
from ._util import promote as _promote

__all__ = ["logpdf", "pdf"]

_LOG_2PI = _math.log(2 * _math.pi)


def logpdf(x, mean, cov, allow_singular=None):
    """Log density of N(mean, cov), through the Cholesky factor of ``cov``.

    Args:
      x: points, shape ``(..., n)`` (or scalars when ``mean`` is a scalar).
      mean: shape ``(..., n)``, or a scalar (then ``x`` and ``cov`` are scalars too).
      cov: shape ``(..., n, n)``, or a scalar (the covariance ``cov * I``).
      allow_singular: not supported (must be None), as in JAX.

    Returns:
      the log density, shape of the broadcast batch.
    """
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = _promote("multivariate_normal.logpdf", x, mean, cov)
    if mean.ndim == 0:
        return -0.5 * (x - mean) ** 2 / cov - 0.5 * (_LOG_2PI + _n.log(cov))
    n = mean.shape[-1]
    y = x - mean
    if cov.ndim == 0:
        return -0.5 * _n.sum(y * y, axis=-1) / cov - 0.5 * n * (_LOG_2PI + _n.log(cov))
    if cov.ndim < 2 or tuple(cov.shape[-2:]) != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes: "
                         f"mean {tuple(mean.shape)}, cov {tuple(cov.shape)}")
    L = _n.linalg.cholesky(cov)
    z = _n.linalg.solve(L, y[..., None])[..., 0]
    half_logdet = _n.sum(_n.log(_n.linalg.diagonal(L)), axis=-1)
    return -0.5 * _n.sum(z * z, axis=-1) - 0.5 * n * _LOG_2PI - half_logdet


def pdf(x, mean, cov):
    """Multivariate normal density."""
    return _n.exp(logpdf(x, mean, cov))
