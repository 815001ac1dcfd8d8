"""xgrad.scipy.stats against jax.scipy.stats (the oracle): values (far tails
included), reverse and forward mode in x and the continuous parameters,
second order where smooth, vmap against a loop; on numpy and
array_api_strict (every distribution is a composite of xgrad.numpy).

To keep the file fast, one case calls several functions of a module and
returns their values together (one jax trace per case, not per function)."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
import xgrad.scipy.stats as xstats
from conftest import to_np
from jnp_cases import JCase, check, ids


def _st(ns):
    if ns is xnp:
        return xstats
    import jax.scipy.stats as js  # jax only through the fixture (the oracle)
    return js


def _a(*v):
    return np.array(v, dtype=np.float64)


def _group(mod, calls, args, id="", **kw):
    """A case calling ``<mod>.<fn>(*[args[i] for i in idx])`` for each
    ``(fn, idx)`` of ``calls`` on xgrad.scipy.stats and jax.scipy.stats; the
    outputs are compared together."""
    def call(ns, *a):
        m = getattr(_st(ns), mod)
        if ns is xnp:
            return tuple(getattr(m, fn)(*[a[i] for i in idx]) for fn, idx in calls)
        import jax  # the oracle, eagerly: compiling jax's jitted functions would dominate the run time
        with jax.disable_jit():
            return tuple(getattr(m, fn)(*[a[i] for i in idx]) for fn, idx in calls)
    names = "+".join(fn for fn, _ in calls)
    return JCase(f"scipy.stats.{mod}", call, args, id=f"{names}{'-' + id if id else ''}", **kw)


LOCSCALE = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
X = _a(-1.3, 0.2, 2.5)
LOC = _a(0.3)
SCALE = _a(1.7)
Q = _a(0.05, 0.4, 0.93)
POS = _a(0.4, 1.2, 3.5)


def _all(names, idx):
    return [(f, idx) for f in names]


CASES = [
    _group("norm", _all(LOCSCALE, (0, 1, 2)) + _all(("ppf", "isf"), (3, 1, 2)), (X, LOC, SCALE, Q),
           rtol=1e-9),
    # defaults become plain 0-d arrays; array_api_strict's operators reject a
    # traced right operand beside them (a backend limit, not the formula's)
    _group("norm", [("logpdf", (0,)), ("cdf", (0,))], (X,), id="defaults", strict=False),
    # far tails: finite values and derivatives in log space
    _group("norm", [("logcdf", (0,)), ("logsf", (1,))], (_a(-40.0, -10.0, 5.0), _a(40.0, 10.0, -5.0)),
           id="tail", rtol=1e-7, strict=False),
    _group("norm", [("cdf", (0,)), ("sf", (1,))], (_a(-30.0, 0.5), _a(30.0, -0.5)), id="tail", atol=0,
           strict=False),
    _group("cauchy", _all(LOCSCALE, (0, 1, 2)) + _all(("ppf", "isf"), (3, 1, 2)), (X, LOC, SCALE, Q),
           rtol=1e-9),
    _group("expon", _all(LOCSCALE, (0, 1, 2)) + [("ppf", (3, 1, 2))], (POS, LOC * 0.5, SCALE, Q)),
    # jax's gumbel functions fail to differentiate in scale and q (xlogy(-1, .)
    # with an integer -1 gives a float0 tangent): those derivatives are checked
    # against finite differences below
    _group("gumbel_r", _all(LOCSCALE, (0, 1, 2)) + [("ppf", (3, 1, 2))], (X, LOC, SCALE, Q), rtol=1e-9,
           diff=(0, 1)),
    _group("gumbel_l", _all(LOCSCALE, (0, 1, 2)) + [("ppf", (3, 1, 2))], (X, LOC, SCALE, Q), rtol=1e-9,
           diff=(0, 1)),
    _group("pareto", _all(LOCSCALE, (0, 1, 2, 3)) + [("ppf", (4, 1, 2, 3))],
           (_a(1.5, 2.4, 7.0), _a(2.2), LOC * 0.5, SCALE * 0.5, Q)),
    _group("logistic", _all(("logpdf", "pdf", "cdf", "sf"), (0, 1, 2)) + _all(("ppf", "isf"), (3, 1, 2)),
           (X, LOC, SCALE, Q)),
    _group("laplace", _all(("logpdf", "pdf", "cdf"), (0, 1, 2)), (X, LOC, SCALE)),
    _group("uniform", _all(("logpdf", "pdf", "cdf"), (0, 1, 2)) + [("ppf", (3, 1, 2))],
           (_a(-0.5, 0.8, 1.2, 3.0), LOC, SCALE, _a(-0.1, 0.2, 0.7, 1.0))),
    _group("t", _all(("logpdf", "pdf"), (0, 1, 2, 3)), (X, _a(1.0, 4.0, 30.5), LOC, SCALE)),
    _group("gennorm", _all(("logpdf", "pdf"), (0, 1)), (X, _a(1.5))),
    _group("chi2", _all(("logpdf", "pdf"), (0, 1, 2, 3)), (POS, _a(3.0), LOC * 0.1, SCALE)),
    _group("gamma", _all(("logpdf", "pdf"), (0, 1, 2, 3)), (POS, _a(2.5), LOC * 0.1, SCALE)),
    # the incomplete gamma and beta functions: any order in x, first order in the shape
    _group("gamma", _all(("cdf", "logcdf", "sf", "logsf"), (0, 1, 2, 3)), (POS, _a(2.5), LOC * 0.1, SCALE),
           diff=(0, 2, 3), rtol=1e-8),
    _group("gamma", _all(("cdf", "logsf"), (0, 1)), (POS, _a(2.5)), order=1, rtol=1e-7, id="in-a"),
    _group("chi2", _all(("cdf", "logcdf", "sf", "logsf"), (0, 1, 2, 3)), (POS, _a(3.0), LOC * 0.1, SCALE),
           diff=(0, 2, 3), rtol=1e-8),
    _group("chi2", _all(("cdf", "sf"), (0, 1)), (POS, _a(3.5)), order=1, rtol=1e-7, id="in-df"),
    _group("gennorm", [("cdf", (0, 1))], (X, _a(1.5)), diff=(0,), rtol=1e-8),
    _group("beta", _all(LOCSCALE, (0, 1, 2, 3, 4)), (_a(0.2, 0.5, 0.9), _a(2.5), _a(1.5), _a(0.0), _a(1.2)),
           diff=(0, 3, 4), rtol=1e-8),
    _group("beta", _all(("logpdf", "pdf"), (0, 1, 2)), (_a(0.2, 0.5, 0.9), _a(2.5), _a(1.5)), id="in-ab"),
    _group("vonmises", _all(("logpdf", "pdf"), (0, 1)), (X, _a(0.5, 3.0, 40.0))),
    _group("wrapcauchy", _all(("logpdf", "pdf"), (0, 1)), (_a(0.3, 2.0, 6.0), _a(0.4))),
]
# discrete: k is an integer-valued float (not differentiated), the parameters are
_K = _a(0.0, 1.0, 3.0, 7.0)
CASES += [
    _group("poisson", _all(("logpmf", "pmf"), (0, 1, 2)), (_K, _a(2.5), _a(-1.0)), diff=(1,)),
    # jax's derivative of the entropy is nan below mu = 100 (ours: see below)
    _group("poisson", [("entropy", (0,))], (_a(0.5, 4.0, 30.0, 150.0),), rtol=1e-9, order=0),
    _group("poisson", [("cdf", (0, 1, 2))], (_K, _a(2.5), _a(-1.0)), diff=(1,), order=1, rtol=1e-8),
    # jax's betaln is good to about 1e-7 here; ours agrees with scipy (test below)
    _group("betabinom", _all(("logpmf", "pmf"), (0, 1, 2, 3)), (_K, _a(9.0), _a(2.5), _a(1.5)), diff=(2, 3),
           rtol=1e-5),
    _group("geom", _all(("logpmf", "pmf"), (0, 1)), (_K, _a(0.3)), diff=(1,)),
    _group("binom", _all(("logpmf", "pmf"), (0, 1, 2)), (_K, _a(9.0), _a(0.35)), diff=(1, 2)),
    _group("nbinom", _all(("logpmf", "pmf"), (0, 1, 2)), (_K, _a(4.5), _a(0.35)), diff=(1, 2)),
    _group("bernoulli", _all(("logpmf", "pmf", "cdf"), (0, 1)) + [("ppf", (2, 1))],
           (_a(0.0, 1.0, 0.5, 2.0), _a(0.3), _a(0.1, 0.5, 0.9, 0.7)), diff=(1,)),
]
# truncated normal: central, right and left tails
_TN = LOCSCALE
CASES += [
    _group("truncnorm", _all(_TN, (0, 1, 2, 3, 4)), (_a(-0.5, 0.3, 1.1), _a(-1.0), _a(1.5), LOC * 0.1,
                                                     SCALE * 0.6)),
    # (the tails at first order, without vmap: the second order is the central case's)
    _group("truncnorm", _all(_TN, (0, 1, 2)), (_a(5.5, 6.0, 8.0), _a(5.0), _a(9.0)), id="right-tail",
           rtol=1e-8, order=1, vmap=False),
    _group("truncnorm", _all(_TN, (0, 1, 2)), (_a(-8.0, -6.0, -5.5), _a(-9.0), _a(-5.0)),
           id="left-tail", rtol=1e-8, order=1, vmap=False),
]
# multivariate
_COV = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]])
_MX = np.array([[0.1, -0.4, 0.9], [1.2, 0.3, -0.5]])
_SIMPLEX = np.array([[0.2, 0.5], [0.3, 0.1], [0.5, 0.4]])
CASES += [
    _group("multivariate_normal", [("logpdf", (0, 1, 2)), ("pdf", (0, 1, 2)), ("logpdf", (0, 1, 3)),
                                   ("logpdf", (4, 5, 3))],
           (_MX, _a(0.2, 0.0, -0.1), _COV, np.array(1.5), _a(0.3, 1.1), np.array(0.2)), rtol=1e-9),
    _group("dirichlet", [("logpdf", (0, 2)), ("pdf", (1, 2))], (_SIMPLEX, _SIMPLEX[:2], _a(1.5, 2.0, 0.8))),
    _group("multinomial", [("logpmf", (0, 1, 2)), ("pmf", (0, 1, 2))],
           (np.array([1, 2, 3]), np.array(6), _a(0.2, 0.3, 0.5))),
]
# the functions of the package itself
_DATA = np.array([[3.0, 1.0, 1.0, 2.0, 2.0, 2.0, 0.0], [5.0, 5.0, 4.0, 4.0, 1.0, 1.0, 1.0]])


def _top(name, call, args, **kw):
    return JCase(f"scipy.stats.{name}", call, args, **kw)


CASES += [
    _top("sem", lambda ns, a: (_st(ns).sem(a, axis=1), _st(ns).sem(a, axis=None, ddof=0, keepdims=True)),
         (_DATA,)),
    _top("mode", lambda ns, a: tuple(_st(ns).mode(a, axis=1)) + tuple(_st(ns).mode(a, None, keepdims=True)),
         (_DATA,), order=0),
    _top("rankdata", lambda ns, a: tuple(_st(ns).rankdata(a, m, axis=1)
                                         for m in ("average", "min", "max", "dense", "ordinal")),
         (_DATA,), order=0),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_against_jax(case, xp, jax):
    check(case, xp, jax)


# ----- gaussian_kde: built from the data inside the case, so its derivatives
# in the data, the weights and the points are all tested
_KD = np.array([[0.3, -1.2, 0.8, 2.1, -0.4, 1.5], [1.0, 0.2, -0.7, 0.4, 1.9, -1.1]])
_KW = _a(0.5, 1.0, 2.0, 0.7, 1.2, 0.9)
_KP = np.array([[0.1, 1.4, -0.8], [0.5, -0.3, 0.9]])


def _kde_call(ns, d, w, p):
    k = _st(ns).gaussian_kde(d, weights=w)
    k1 = _st(ns).gaussian_kde(d[0, :], bw_method="silverman")
    k2 = _st(ns).gaussian_kde(d[:, :4], bw_method=0.8)
    return (k.evaluate(p), k.logpdf(p), k(p), k1.pdf(p[0, :]),
            k.integrate_gaussian(p[:, 0],
                                 0.1 * ns.matmul(d[:, :2], ns.matrix_transpose(d[:, :2]))),
            k.integrate_kde(k2),
            k1.integrate_box_1d(-0.5, 1.0))


KDE = [JCase("scipy.stats.gaussian_kde", _kde_call, (_KD, _KW, _KP), rtol=1e-9, order=1, vmap=False,
             jit=True)]


@pytest.mark.parametrize("case", KDE, ids=ids(KDE))
def test_gaussian_kde_against_jax(case, xp, jax):
    check(case, xp, jax)


def test_gaussian_kde_resample_draws_jaxs_numbers(jax):
    jnp = jax.numpy
    w = np.linspace(0.5, 2.0, _KD.shape[-1])
    for data, shape in [(_KD, ()), (_KD, (5,)), (np.atleast_2d(_KD)[0], (4,))]:
        got = xstats.gaussian_kde(data, weights=w).resample(xgrad.random.PRNGKey(3), shape)
        want = jax.scipy.stats.gaussian_kde(jnp.asarray(data), weights=jnp.asarray(w)).resample(
            jax.random.PRNGKey(3), shape)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-14)
    # and differentiable in the data (the draws are data points plus noise)
    g = xgrad.grad(lambda d: xnp.sum(xstats.gaussian_kde(d).resample(xgrad.random.PRNGKey(1), (7,))))
    assert np.all(np.isfinite(np.asarray(g(_KD))))


def test_gaussian_kde_unsupported():
    k = xstats.gaussian_kde(_KD)
    for call in (lambda: k.integrate_box(0, 1), lambda: k.set_bandwidth()):
        with pytest.raises(NotImplementedError):
            call()
    with pytest.raises(ValueError, match="bw_method"):
        xstats.gaussian_kde(_KD, bw_method="nope")
    leaves = xgrad.tree.leaves(k)
    assert len(leaves) == 5


# ----- values against scipy where jax is less accurate, and derivatives jax
# doesn't give, against central finite differences

def _fd(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def test_values_against_scipy():
    ss = pytest.importorskip("scipy.stats")
    k = _a(0.0, 1.0, 3.0, 7.0)
    np.testing.assert_allclose(to_np(xstats.betabinom.logpmf(k, 9.0, 2.5, 1.5)),
                               ss.betabinom.logpmf(k, 9, 2.5, 1.5), rtol=1e-12)
    # tails: logs of tiny probabilities keep their digits
    np.testing.assert_allclose(to_np(xstats.cauchy.logcdf(_a(-1e8))), ss.cauchy.logcdf(-1e8), rtol=1e-12)
    np.testing.assert_allclose(to_np(xstats.gumbel_r.logsf(_a(40.0))), ss.gumbel_r.logsf(40.0), rtol=1e-12)
    np.testing.assert_allclose(to_np(xstats.gumbel_l.logcdf(_a(-40.0))), ss.gumbel_l.logcdf(-40.0),
                               rtol=1e-12)
    np.testing.assert_allclose(to_np(xstats.expon.logcdf(_a(1e-20))), ss.expon.logcdf(1e-20), rtol=1e-12)
    np.testing.assert_allclose(to_np(xstats.norm.isf(_a(1e-30))), ss.norm.isf(1e-30), rtol=1e-12)
    np.testing.assert_allclose(to_np(xstats.gamma.logsf(_a(80.0), 2.5)), ss.gamma.logsf(80.0, 2.5),
                               rtol=1e-10)
    np.testing.assert_allclose(to_np(xstats.truncnorm.logpdf(_a(30.5), 30.0, 31.0)),
                               ss.truncnorm.logpdf(30.5, 30.0, 31.0), rtol=1e-10)
    np.testing.assert_allclose(to_np(xstats.vonmises.logpdf(_a(0.3), _a(800.0))),
                               ss.vonmises.logpdf(0.3, 800.0), rtol=1e-10)


@pytest.mark.parametrize("f, x", [
    (lambda s: xstats.gumbel_r.logpdf(0.7, 0.2, s), 1.3),
    (lambda s: xstats.gumbel_l.cdf(0.7, 0.2, s), 1.3),
    (lambda q: xstats.gumbel_r.ppf(q, 0.2, 1.5), 0.3),
    (lambda q: xstats.gumbel_l.ppf(q, 0.2, 1.5), 0.3),
    (lambda m: xstats.poisson.entropy(m), 4.3),   # off the jumps of the summation bound
    (lambda m: xstats.poisson.entropy(m), 30.0),
    (lambda a: xstats.beta.cdf(0.4, a, 1.5), 2.5),
    (lambda b: xstats.beta.sf(0.4, 2.5, b), 1.5),
    (lambda a: xstats.gamma.cdf(1.7, a), 2.5),
], ids=["gumbel_r-scale", "gumbel_l-scale", "gumbel_r-q", "gumbel_l-q", "poisson-entropy-4",
        "poisson-entropy-30", "beta.cdf-a", "beta.sf-b", "gamma.cdf-a"])
def test_parameter_derivatives_against_differences(f, x):
    g = float(xgrad.grad(lambda t: f(t))(x))
    np.testing.assert_allclose(g, float(_fd(lambda t: float(f(t)), x)), rtol=1e-6, atol=1e-9)


def test_float32_in_float32_out():
    x = np.array([0.5, 1.5], np.float32)
    for out in (xstats.norm.logpdf(x, 0.0, 2.0), xstats.gamma.cdf(x, 2.0), xstats.t.pdf(x, 3.0),
                xstats.truncnorm.logpdf(x, 0.0, 2.0)):
        assert to_np(out).dtype == np.float32


def test_vmap_over_parameters():
    scales = _a(0.5, 1.0, 2.0)
    got = xgrad.vmap(lambda s: xstats.norm.logcdf(_a(-3.0, 1.0), 0.0, s))(scales)
    want = np.stack([to_np(xstats.norm.logcdf(_a(-3.0, 1.0), 0.0, s)) for s in scales])
    np.testing.assert_allclose(to_np(got), want, rtol=1e-14)


def test_errors_name_the_argument():
    with pytest.raises(TypeError, match="norm.logpdf"):
        xstats.norm.logpdf([0.1, 0.2])
    with pytest.raises(ValueError, match="integer"):
        xstats.multinomial.logpmf(_a(1.0, 2.0), 3.0, _a(0.5, 0.5))
    with pytest.raises(ValueError, match="alpha"):
        xstats.dirichlet.logpdf(_a(0.2, 0.8), np.ones((2, 2)))
    with pytest.raises(NotImplementedError):
        xstats.multivariate_normal.logpdf(_a(0.1), _a(0.0), np.eye(1), allow_singular=True)
    with pytest.raises(ValueError, match="method"):
        xstats.rankdata(_a(1.0, 2.0), "bogus")
