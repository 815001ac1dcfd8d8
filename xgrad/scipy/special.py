"""``xgrad.scipy.special``: the functions of ``jax.scipy.special``, with
JAX's signatures, differentiable at every order where JAX is (and further
where noted: ``betainc`` in ``a`` and ``b``).

The functions live in ``xgrad.numpy.special`` (one implementation; the rows
are in ``xgrad/rules/special.py``); this module gives them JAX's names.

>>> import xgrad, xgrad.scipy.special as xsp
>>> round(float(xgrad.grad(xsp.gammainc)(2.0, 1.0)), 12)   # d/da P(a, x)
-0.276196045703
"""
from ..numpy.special import (  # noqa: F401  (re-exported: see __all__)
    beta, betainc, betaln, digamma, entr, erf, erfc, erfcx, erfinv, expit, gamma, gammainc,
    gammaincc, gammaln, i0, i0e, i1, i1e, kl_div, log_ndtr, log_softmax, logit, logsumexp,
    multigammaln, ndtr, ndtri, polygamma, rel_entr, softmax, xlog1py, xlogy)

__all__ = ["beta", "betainc", "betaln", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv",
           "expit", "gamma", "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e",
           "kl_div", "log_ndtr", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr",
           "ndtri", "polygamma", "rel_entr", "softmax", "xlog1py", "xlogy"]
