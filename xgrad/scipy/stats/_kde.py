"""``gaussian_kde`` of ``jax.scipy.stats``: a Gaussian kernel density
estimate, differentiable in the data, the weights and the points."""
import math as _math

from ... import numpy as _n
from ... import tree as _tree
from ... import random as _random
from ...numpy import special as _sp
from ._util import promote as _promote


class gaussian_kde:
    """Gaussian kernel density estimate of ``dataset`` (shape ``(d, n)``, or
    ``(n,)`` for one dimension), as ``scipy.stats.gaussian_kde`` and JAX.

    Args:
      dataset: the samples.
      bw_method: 'scott' (default), 'silverman', a scalar factor, or a
        callable taking the kde and returning the factor.
      weights: optional sample weights (normalised to sum 1).

    ``integrate_box`` and ``set_bandwidth`` raise NotImplementedError, as
    in JAX. The object is a pytree (its arrays are the leaves).
    """

    __slots__ = ("neff", "dataset", "weights", "covariance", "inv_cov")

    def __init__(self, dataset, bw_method=None, weights=None):
        dataset = _n.atleast_2d(_n.asarray(dataset) if not hasattr(dataset, "dtype") else dataset)
        if _n.isdtype(dataset.dtype, "complex floating"):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not dataset.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = dataset.shape
        if weights is not None:
            dataset, weights = _promote("gaussian_kde", dataset, weights)
            weights = _n.atleast_1d(weights)
            if weights.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if weights.shape[0] != n:
                raise ValueError("`weights` input should be of length n")
            weights = weights / _n.sum(weights)
        else:
            (dataset,) = _promote("gaussian_kde", dataset)
            weights = _n.full_like(dataset[0, ...], 1.0 / n)
        self.dataset, self.weights = dataset, weights
        self.neff = 1.0 / _n.sum(weights ** 2)
        bw = "scott" if bw_method is None else bw_method
        if isinstance(bw, str) and bw == "scott":
            factor = self.neff ** (-1.0 / (d + 4))
        elif isinstance(bw, str) and bw == "silverman":
            factor = (self.neff * (d + 2) / 4.0) ** (-1.0 / (d + 4))
        elif isinstance(bw, (int, float)) or (hasattr(bw, "ndim") and bw.ndim == 0):
            factor = bw
        elif callable(bw):
            factor = bw(self)
        else:
            raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")
        cov = _n.atleast_2d(_n.cov(dataset, rowvar=True, bias=False, aweights=weights))
        self.covariance = cov * factor ** 2
        self.inv_cov = _n.linalg.inv(cov) / factor ** 2

    @property
    def d(self):
        """The dimension of the data."""
        return self.dataset.shape[0]

    @property
    def n(self):
        """The number of samples."""
        return self.dataset.shape[1]

    def _points(self, points):
        points = _n.atleast_2d(_n.asarray(points) if not hasattr(points, "dtype") else points)
        if _n.isdtype(points.dtype, "complex floating"):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                points = _n.reshape(points, (self.d, 1))
            else:
                raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points

    def _log_kernel(self, points):
        """``log N(point; sample, covariance)`` for every (point, sample):
        shape ``(m, n)``."""
        (pts, data, prec) = _promote("gaussian_kde", self._points(points), self.dataset, self.inv_cov)
        w = _n.linalg.cholesky(prec)                       # prec = w w^T
        a = _n.matmul(_n.matrix_transpose(w), data)         # (d, n)
        b = _n.matmul(_n.matrix_transpose(w), pts)          # (d, m)
        diff = b[:, :, None] - a[:, None, :]                # (d, m, n)
        log_norm = _n.sum(_n.log(_n.linalg.diagonal(w))) - 0.5 * self.d * _math.log(2 * _math.pi)
        return log_norm - 0.5 * _n.sum(diff * diff, axis=0)

    def evaluate(self, points):
        """The density at ``points`` (shape ``(d, m)``, or ``(m,)`` in one dimension)."""
        return _n.sum(_n.exp(self._log_kernel(points)) * self.weights, axis=1)

    __call__ = evaluate

    def pdf(self, x):
        """The density at ``x`` (same as ``evaluate``)."""
        return self.evaluate(x)

    def logpdf(self, x):
        """The log density at ``x``, through ``logsumexp`` (no underflow)."""
        return _sp.logsumexp(self._log_kernel(x), axis=1, b=self.weights)

    def integrate_gaussian(self, mean, cov):
        """The integral of the kde times the Gaussian N(mean, cov)."""
        mean = _n.reshape(_n.asarray(mean) if not hasattr(mean, "dtype") else mean, (-1,))
        cov = _n.atleast_2d(_n.asarray(cov) if not hasattr(cov, "dtype") else cov)
        if tuple(mean.shape) != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if tuple(cov.shape) != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        return _convolve(self.covariance + cov, self.dataset, self.weights, mean[:, None])[0]

    def integrate_box_1d(self, low, high):
        """The integral of a one-dimensional kde over ``[low, high]``."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if _n.ndim(low) != 0 or _n.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = _n.sqrt(self.covariance[0, 0])
        lo = (low - self.dataset[0, ...]) / sigma
        hi = (high - self.dataset[0, ...]) / sigma
        return _n.sum(self.weights * (_sp.ndtr(hi) - _sp.ndtr(lo)))

    def integrate_kde(self, other):
        """The integral of the product of two kdes."""
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        sm, lg = (self, other) if self.n < other.n else (other, self)
        vals = _convolve(self.covariance + other.covariance, lg.dataset, lg.weights, sm.dataset)
        return _n.sum(vals * sm.weights)

    def resample(self, key, shape=()):
        """``(d,) + shape`` draws from the estimate: a data point (chosen by
        weight) plus Gaussian noise of the kernel's covariance; the same
        numbers as JAX for the same key (``xgrad.random``)."""
        shape = tuple(shape) if not isinstance(shape, int) else (shape,)
        ind_key, eps_key = _random.split(key)
        ind = _random.choice(ind_key, self.n, shape=shape, p=self.weights)
        eps = _random.multivariate_normal(eps_key, _n.zeros(self.d, dtype=self.covariance.dtype),
                                          self.covariance, shape=shape,
                                          dtype=self.dataset.dtype)
        # NB: the noise's last axis moves to the front (JAX transposes it,
        # which is the same for shape () or (n,), and fails for longer shapes)
        return _n.take(self.dataset, ind, axis=1) + _n.moveaxis(eps, -1, 0)

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        """Raises NotImplementedError, as in JAX (use ``integrate_box_1d``)."""
        raise NotImplementedError("only 1D box integrations are supported; use `integrate_box_1d`")

    def set_bandwidth(self, bw_method=None):
        """Raises NotImplementedError, as in JAX."""
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")


def _convolve(cov, target, weights, means):
    """``sum_j w_j N(means_k; target_j, cov)`` for each column k of ``means``."""
    d = cov.shape[0]
    L = _n.linalg.cholesky(cov)
    diff = target[:, :, None] - means[:, None, :]                       # (d, n, m)
    z = _n.reshape(_n.linalg.solve(L, _n.reshape(diff, (d, -1))), diff.shape)
    norm = (2 * _math.pi) ** (0.5 * d) * _n.prod(_n.linalg.diagonal(L))
    return _n.sum(_n.exp(-0.5 * _n.sum(z * z, axis=0)) * weights[:, None], axis=0) / norm


def _flatten(k):
    return (k.neff, k.dataset, k.weights, k.covariance, k.inv_cov), None


def _unflatten(aux, children):
    k = gaussian_kde.__new__(gaussian_kde)
    k.neff, k.dataset, k.weights, k.covariance, k.inv_cov = children
    return k


_tree.register_pytree_node(gaussian_kde, _flatten, _unflatten)
