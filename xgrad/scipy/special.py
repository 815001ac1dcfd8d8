"""``xgrad.scipy.special``: the functions of ``jax.scipy.special``, with
JAX's signatures, differentiable at every order where JAX is, and further
where a closed form or a stable series exists (each function's docstring
says how far): ``betainc`` in ``a`` and ``b``, ``expn`` at n = 0,
``spence`` above 1.

The functions live in ``xgrad.numpy.special`` (one implementation; the rows
are in ``xgrad/rules/special.py``); this module gives them JAX's names.
Values come from ``scipy.special`` on numpy (``cupyx.scipy.special`` on
cupy), except the stable closed forms (``expit``, ``xlogy``, ``logsumexp``,
``softmax``, ``boxcox``, ``comb``, ...), which run on any array API backend.

>>> import xgrad, xgrad.scipy.special as xsp
>>> round(float(xgrad.grad(xsp.gammainc)(2.0, 1.0)), 12)   # d/da P(a, x)
-0.276196045703
"""
from ..numpy.special import (  # noqa: F401  (re-exported: see __all__)
    bernoulli, bessel_jn, beta, betainc, betaln, boxcox, boxcox1p, comb, dawsn, digamma,
    entr, erf, erfc, erfcx, erfinv, exp1, expi, expit, expn, factorial, fresnel, gamma,
    gammainc, gammaincc, gammaln, gammasgn, hyp1f1, hyp2f1, i0, i0e, i1, i1e, kl_div,
    log_ndtr, log_softmax, loggamma, logit, logsumexp, multigammaln, ndtr, ndtri, owens_t,
    poch, polygamma, rel_entr, sici, softmax, spence, sph_harm_y, wofz, xlog1py, xlogy, zeta)

__all__ = ["bernoulli", "bessel_jn", "beta", "betainc", "betaln", "boxcox", "boxcox1p", "comb",
           "dawsn", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp1", "expi", "expit",
           "expn", "factorial", "fresnel", "gamma", "gammainc", "gammaincc", "gammaln",
           "gammasgn", "hyp1f1", "hyp2f1", "i0", "i0e", "i1", "i1e", "kl_div", "log_ndtr",
           "log_softmax", "loggamma", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri",
           "owens_t", "poch", "polygamma", "rel_entr", "sici", "softmax", "spence", "sph_harm_y",
           "wofz", "xlog1py", "xlogy", "zeta"]
