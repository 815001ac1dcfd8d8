"""``xgrad.scipy.stats``: the distributions of ``jax.scipy.stats``, one
module each (``norm.logpdf``, ``gamma.cdf``, ...) with JAX's signatures,
plus ``mode``, ``rankdata``, ``sem`` and ``gaussian_kde``. Every function is
a composite of ``xgrad.numpy`` and its special functions, so it takes
derivatives of any order in ``x`` and in the continuous parameters, and
batches under ``vmap``.

>>> from xgrad.scipy.stats import norm
>>> round(float(norm.logcdf(-40.0)), 4)
-804.6084
"""
from . import (bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet, expon,  # noqa: F401
               gamma, gennorm, geom, gumbel_l, gumbel_r, laplace, logistic, multinomial,
               multivariate_normal, nbinom, norm, pareto, poisson, t, truncnorm, uniform,
               vonmises, wrapcauchy)
from ._core import mode, rankdata, sem
from ._kde import gaussian_kde

__all__ = ["gaussian_kde", "mode", "rankdata", "sem"]
