"""xgrad.scipy.stats against jax.scipy.stats (the oracle): values (far tails
included), reverse and forward mode in x and the continuous parameters,
second order where smooth, vmap against a loop; on numpy and
array_api_strict (every distribution is a composite of xgrad.numpy)."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
import xgrad.scipy.stats as xstats
from conftest import from_np, to_np
from jnp_cases import JCase, check, ids


def _st(ns):
    if ns is xnp:
        return xstats
    import jax.scipy.stats as js  # jax only through the fixture (the oracle)
    return js


def _a(*v):
    return np.array(v, dtype=np.float64)


def _dist(mod, fn, args, **kw):
    """A case calling ``<mod>.<fn>(*args)`` on xgrad.scipy.stats and jax.scipy.stats."""
    def call(ns, *a):
        return getattr(getattr(_st(ns), mod), fn)(*a)
    return JCase(f"scipy.stats.{mod}.{fn}", call, args, **kw)


X = _a(-1.3, 0.2, 2.5)
LOC = _a(0.3)
SCALE = _a(1.7)
Q = _a(0.05, 0.4, 0.93)
POS = _a(0.4, 1.2, 3.5)

CASES = []
for _f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
    CASES.append(_dist("norm", _f, (X, LOC, SCALE)))
    CASES.append(_dist("cauchy", _f, (X, LOC, SCALE)))
for _f in ("ppf", "isf"):
    CASES += [_dist("norm", _f, (Q, LOC, SCALE), rtol=1e-9), _dist("cauchy", _f, (Q, LOC, SCALE), rtol=1e-9)]
CASES += [
    # far tails: finite values and derivatives in log space
    _dist("norm", "logcdf", (_a(-40.0, -10.0, 5.0),), id="tail", rtol=1e-7),
    _dist("norm", "logsf", (_a(40.0, 10.0, -5.0),), id="tail", rtol=1e-7),
    _dist("norm", "cdf", (_a(-30.0, 0.5),), id="tail", atol=0),
    _dist("norm", "sf", (_a(30.0, -0.5),), id="tail", atol=0),
    _dist("norm", "logpdf", (X,), id="defaults"),
]
for _f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
    CASES.append(_dist("expon", _f, (POS, LOC * 0.5, SCALE)))
    CASES.append(_dist("gumbel_r", _f, (X, LOC, SCALE), rtol=1e-9))
    CASES.append(_dist("gumbel_l", _f, (X, LOC, SCALE), rtol=1e-9))
    CASES.append(_dist("pareto", _f, (_a(1.5, 2.4, 7.0), _a(2.2), LOC * 0.5, SCALE * 0.5)))
CASES += [_dist("expon", "ppf", (Q, LOC, SCALE)), _dist("pareto", "ppf", (Q, _a(2.2), LOC, SCALE)),
          _dist("gumbel_r", "ppf", (Q, LOC, SCALE)), _dist("gumbel_l", "ppf", (Q, LOC, SCALE))]
for _f in ("logpdf", "pdf", "cdf", "sf"):
    CASES.append(_dist("logistic", _f, (X, LOC, SCALE)))
for _f in ("ppf", "isf"):
    CASES.append(_dist("logistic", _f, (Q, LOC, SCALE)))
for _f in ("logpdf", "pdf", "cdf"):
    CASES.append(_dist("laplace", _f, (X, LOC, SCALE)))
CASES += [
    _dist("uniform", "logpdf", (_a(-0.5, 0.8, 1.2, 3.0), LOC, SCALE)),
    _dist("uniform", "pdf", (_a(-0.5, 0.8, 1.2, 3.0), LOC, SCALE)),
    _dist("uniform", "cdf", (_a(-0.5, 0.8, 1.2, 3.0), LOC, SCALE)),
    _dist("uniform", "ppf", (_a(-0.1, 0.2, 0.7), LOC, SCALE)),
    _dist("t", "logpdf", (X, _a(3.5), LOC, SCALE)),
    _dist("t", "pdf", (X, _a(1.0, 4.0, 30.0), LOC, SCALE)),
    _dist("gennorm", "logpdf", (X, _a(1.5))),
    _dist("gennorm", "pdf", (X, _a(2.5))),
    _dist("chi2", "logpdf", (POS, _a(3.0), LOC * 0.1, SCALE)),
    _dist("chi2", "pdf", (POS, _a(5.5))),
    _dist("gamma", "logpdf", (POS, _a(2.5), LOC * 0.1, SCALE)),
    _dist("gamma", "pdf", (POS, _a(0.7))),
    _dist("wrapcauchy", "logpdf", (_a(0.3, 2.0, 6.0), _a(0.4))),
    _dist("wrapcauchy", "pdf", (_a(0.3, 2.0, 6.0), _a(0.7))),
]
# discrete: k is an integer-valued float (not differentiated), parameters are
_K = _a(0.0, 1.0, 3.0, 7.0)
CASES += [
    _dist("poisson", "logpmf", (_K, _a(2.5)), diff=(1,)),
    _dist("poisson", "pmf", (_K, _a(2.5), _a(1.0)), diff=(1,)),
    # jax's derivative of the entropy is nan below mu = 100 (ours: tested below)
    _dist("poisson", "entropy", (_a(0.5, 4.0, 30.0, 150.0),), rtol=1e-9, order=0),
    _dist("geom", "logpmf", (_K + 1, _a(0.3)), diff=(1,)),
    _dist("geom", "pmf", (_K, _a(0.3)), diff=(1,)),
    _dist("binom", "logpmf", (_K, _a(9.0), _a(0.35)), diff=(2,)),
    _dist("binom", "pmf", (_K, _a(9.0), _a(0.35)), diff=(1, 2)),
    _dist("nbinom", "logpmf", (_K, _a(4.5), _a(0.35)), diff=(1, 2)),
    _dist("nbinom", "pmf", (_K, _a(4.5), _a(0.35)), diff=(1, 2)),
    _dist("bernoulli", "logpmf", (_a(0.0, 1.0, 2.0), _a(0.3)), diff=(1,)),
    _dist("bernoulli", "pmf", (_a(0.0, 1.0), _a(0.3)), diff=(1,)),
    _dist("bernoulli", "cdf", (_a(-1.0, 0.0, 0.5, 1.0), _a(0.3)), diff=(1,)),
    _dist("bernoulli", "ppf", (_a(0.1, 0.5, 0.9), _a(0.3)), order=0),
]
# truncated normal: central, tails, far tails
for _f in ("logpdf", "pdf", "logcdf", "cdf", "logsf", "sf"):
    CASES.append(_dist("truncnorm", _f, (_a(-0.5, 0.3, 1.1), _a(-1.0), _a(1.5), LOC * 0.1, SCALE * 0.6)))
    CASES.append(_dist("truncnorm", _f, (_a(5.5, 6.0, 8.0), _a(5.0), _a(9.0)), id="right-tail",
                       rtol=1e-8))
    CASES.append(_dist("truncnorm", _f, (_a(-8.0, -6.0, -5.5), _a(-9.0), _a(-5.0)), id="left-tail",
                       rtol=1e-8))
# multivariate
_COV = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]])
_MX = np.array([[0.1, -0.4, 0.9], [1.2, 0.3, -0.5]])
_SIMPLEX = np.array([[0.2, 0.5], [0.3, 0.1], [0.5, 0.4]])
CASES += [
    _dist("multivariate_normal", "logpdf", (_MX, _a(0.2, 0.0, -0.1), _COV), rtol=1e-9),
    _dist("multivariate_normal", "pdf", (_MX[0], _a(0.2, 0.0, -0.1), _COV), rtol=1e-9),
    _dist("multivariate_normal", "logpdf", (_MX, _a(0.2, 0.0, -0.1), np.array(1.5)), id="scalar-cov"),
    _dist("multivariate_normal", "logpdf", (_a(0.3, 1.1), np.array(0.2), np.array(1.5)), id="1d"),
    _dist("dirichlet", "logpdf", (_SIMPLEX, _a(1.5, 2.0, 0.8))),
    _dist("dirichlet", "pdf", (_SIMPLEX[:2], _a(1.5, 2.0, 0.8)), id="k-1"),
    _dist("multinomial", "logpmf", (np.array([1, 2, 3]), np.array(6), _a(0.2, 0.3, 0.5))),
    _dist("multinomial", "pmf", (np.array([[1, 2, 3], [0, 5, 1]]), np.array(6), _a(0.2, 0.3, 0.5)),
          vmap=False),
]
# the functions of the package itself
_DATA = np.array([[3.0, 1.0, 1.0, 2.0, 2.0, 2.0, 0.0], [5.0, 5.0, 4.0, 4.0, 1.0, 1.0, 1.0]])


def _top(name, call, args, **kw):
    return JCase(f"scipy.stats.{name}", call, args, **kw)


CASES += [
    _top("sem", lambda ns, a: _st(ns).sem(a, axis=1), (_DATA,)),
    _top("sem", lambda ns, a: _st(ns).sem(a, axis=None, ddof=0, keepdims=True), (_DATA,), id="all"),
    _top("mode", lambda ns, a: tuple(_st(ns).mode(a, axis=1)), (_DATA,), order=0),
    _top("mode", lambda ns, a: tuple(_st(ns).mode(a, axis=None, keepdims=True)), (_DATA,), order=0,
         id="flat"),
] + [_top("rankdata", (lambda m: lambda ns, a: _st(ns).rankdata(a, m, axis=1))(m), (_DATA,), order=0,
          id=m) for m in ("average", "min", "max", "dense", "ordinal")]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_against_jax(case, xp, jax):
    check(case, xp, jax)
