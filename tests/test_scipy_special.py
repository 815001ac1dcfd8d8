"""``xgrad.scipy.special`` against ``jax.scipy.special`` (the oracle, through
the harness of ``jnp_cases.py``: value, VJP, JVP, second order, vmap), and
the derivatives JAX does not have (``betainc`` in ``a`` and ``b``) against
Richardson-extrapolated central differences of scipy's values, in double
precision, without mpmath.

Functions that call scipy run on numpy only in the harness (``strict=False``:
on array_api_strict they make a DLPack round trip, tested once in
``test_scipy_backed_on_strict``).
"""
import inspect

import numpy as np
import pytest
import scipy.special as ss

import xgrad
import xgrad.numpy as xnp
import xgrad.scipy.special as xsp
from conftest import from_np, to_np
from jnp_cases import JCase, check, ids


def _sp(ns):
    """The special-function module of a namespace."""
    if ns is xnp:
        return xsp
    import jax.scipy.special as jsp   # only reached through the jax fixture
    return jsp


def _f(name, **kw):
    return lambda ns, *a: getattr(_sp(ns), name)(*a, **kw)


R = np.random.default_rng(0)
X34 = R.uniform(-2.0, 2.0, (3, 4))
P34 = R.uniform(0.05, 0.95, (3, 4))
POS34 = R.uniform(0.3, 4.0, (3, 4))
POS14 = R.uniform(0.5, 3.0, (1, 4))
A4 = np.array([0.5, 1.5, 3.0, 8.0])
XG = np.array([[0.2, 1.0, 2.5, 9.0], [1.5, 0.1, 6.0, 3.0]])   # below and above a + 1
AB = np.array([[0.7, 2.0, 5.0, 30.0]])
BB = np.array([[1.5, 0.8, 40.0, 3.0], [3.0, 6.0, 2.0, 25.0]])
XB = np.array([[0.3, 0.9, 0.05, 0.8], [0.6, 0.2, 0.1, 0.95]])
NS = "numpy only: scipy-valued"


def C(name, *args, **kw):
    fkw = kw.pop("fkw", {})
    kw.setdefault("strict", False)
    return JCase(f"scipy.special.{name}", _f(name, **fkw), args, **kw)


CASES = [
    # ----- the functions xgrad.scipy.stats builds on -----
    C("gammainc", A4, XG, diff=(1,), id="x"),
    # rtol: JAX's batched igamma_grad_a is off by 7e-11 at (a, x) = (0.5, 1.5), where
    # its scalar one, xgrad's and the differences of test_gammainc_grad_a agree to 1e-14
    C("gammainc", A4, XG, order=1, id="a-x", rtol=1e-9),
    C("gammaincc", A4, XG, diff=(1,), id="x"),
    C("gammaincc", A4, XG, order=1, id="a-x", rtol=1e-9),
    C("betainc", AB, BB, XB, diff=(2,), id="x", rtol=1e-9),
    C("betaln", POS34, POS14),
    C("beta", POS34, POS14),
    C("xlogy", POS34, POS14, strict=True),
    C("xlog1py", POS34, POS14, strict=True),
    C("ndtr", X34),
    C("ndtri", P34),
    C("log_ndtr", X34 * 5.0),
    C("log_ndtr", X34 * 5.0, fkw=dict(series_order=5), id="series_order"),
    C("gammaln", POS34),
    C("digamma", POS34),
    C("i0e", X34),
    C("i1e", X34),
    C("multigammaln", POS34 + 2.0, 3),
    C("erfcx", X34),
    C("logsumexp", X34, strict=True),
    C("logsumexp", X34, fkw=dict(axis=1), strict=True, id="axis"),
    JCase("scipy.special.logsumexp", lambda ns, a, b: _sp(ns).logsumexp(
        a, axis=1, b=b, return_sign=True), (X34, X34 - 0.5), order=1, vmap=False, id="b-sign"),
    C("expit", X34, strict=True),
    C("logit", P34, strict=True),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_vs_jax(case, xp, jax):
    check(case, xp, jax)


# --------------------------------------------------------------------------
# beyond JAX: betainc in a and b, gammainc in a, against differences

def _richardson(f, h):
    """df/de at 0 from central differences at h, h/2, h/4, extrapolated
    twice (error O(h^6))."""
    def d(s):
        return (f(s) - f(-s)) / (2.0 * s)
    d1, d2, d3 = d(h), d(h / 2), d(h / 4)
    e1, e2 = (4 * d2 - d1) / 3, (4 * d3 - d2) / 3
    return (16 * e2 - e1) / 15


def _smaller(lower, upper, *args):
    """The one of a function and its complement that is below 1/2 (its
    differences keep their digits), and the sign to apply."""
    return (lower, 1.0) if lower(*args) < 0.5 else (upper, -1.0)


BETA_PTS = [(a, b, x) for a in (0.2, 1.0, 3.0, 30.0, 300.0) for b in (0.3, 1.0, 4.0, 50.0, 500.0)
            for x in (0.01, 0.3, 0.5, 0.9, 0.999, a / (a + b))]


def test_betainc_grad_ab_vs_differences():
    a, b, x = (np.array(v) for v in zip(*BETA_PTS))
    da, db, dx = xgrad.grad(lambda a, b, x: xnp.sum(xsp.betainc(a, b, x)), argnums=(0, 1, 2))(a, b, x)
    for k, (ak, bk, xk) in enumerate(BETA_PTS):
        f, sg = _smaller(ss.betainc, ss.betaincc, ak, bk, xk)
        ra = sg * _richardson(lambda e: f(ak + e, bk, xk), min(1e-2, ak / 50))
        rb = sg * _richardson(lambda e: f(ak, bk + e, xk), min(1e-2, bk / 50))
        for got, ref in ((da[k], ra), (db[k], rb)):
            assert abs(got - ref) <= 1e-7 * abs(ref) + 1e-14, (ak, bk, xk, got, ref)
        np.testing.assert_allclose(dx[k], np.exp((ak - 1) * np.log(xk) + (bk - 1) * np.log1p(-xk)
                                                 - ss.betaln(ak, bk)), rtol=1e-11)


GAMMA_PTS = [(a, x) for a in (0.1, 0.5, 1.0, 2.5, 10.0, 30.0, 100.0, 1e3, 1e4)
             for x in (1e-3, 0.1, 0.9 * a, a, a + 1, 1.1 * a + 2, 3 * a + 5, 50.0)]


def test_gammainc_grad_a_vs_differences():
    a, x = (np.array(v) for v in zip(*GAMMA_PTS))
    da = xgrad.grad(lambda a: xnp.sum(xsp.gammainc(a, x)))(a)
    dq = xgrad.grad(lambda a: xnp.sum(xsp.gammaincc(a, x)))(a)
    np.testing.assert_array_equal(da, -dq)
    for k, (ak, xk) in enumerate(GAMMA_PTS):
        f, sg = _smaller(ss.gammainc, ss.gammaincc, ak, xk)
        ref = sg * _richardson(lambda e: f(ak + e, xk), min(1e-2, ak / 50))
        assert abs(da[k] - ref) <= 1e-8 * abs(ref) + 1e-300, (ak, xk, da[k], ref)


def test_gammainc_grad_a_vs_jax(jax):
    import jax.scipy.special as jsp
    a, x = (np.array(v) for v in zip(*GAMMA_PTS))
    ref = np.asarray(jax.vmap(jax.grad(jsp.gammainc))(a, x))
    got = xgrad.vmap(xgrad.grad(xsp.gammainc))(a, x)
    np.testing.assert_allclose(to_np(got), ref, rtol=1e-9, atol=1e-300)


def test_incomplete_edges_and_domain():
    g = xgrad.grad(xsp.gammainc)
    assert float(g(2.0, 0.0)) == 0.0 and float(g(2.0, np.inf)) == 0.0
    assert np.isnan(g(-1.0, 1.0)) and np.isnan(g(1.0, -1.0))
    for i in (0, 1):
        gb = xgrad.grad(xsp.betainc, argnums=i)
        assert float(gb(2.0, 3.0, 0.0)) == 0.0 and float(gb(2.0, 3.0, 1.0)) == 0.0
        assert np.isnan(gb(2.0, 3.0, 1.5)) and np.isnan(gb(-2.0, 3.0, 0.5))


def test_second_order_in_shape_raises_clearly():
    with pytest.raises(NotImplementedError, match="gammainc: derivatives of second order in a"):
        xgrad.hessian(xsp.gammainc)(2.0, 1.0)
    with pytest.raises(NotImplementedError, match="betainc: derivatives of second order"):
        xgrad.hessian(xsp.betainc, argnums=1)(2.0, 3.0, 0.4)
    # mixed a-x and x-x second derivatives exist
    h = xgrad.grad(xgrad.grad(xsp.gammainc), argnums=1)(2.0, 1.0)
    ref = np.exp(-1.0) * (np.log(1.0) - ss.digamma(2.0))
    np.testing.assert_allclose(h, ref, rtol=1e-13)
    hb = xgrad.grad(xgrad.grad(xsp.betainc, argnums=1), argnums=2)(2.0, 3.0, 0.4)
    ref = (0.4 * 0.6 ** 2 / ss.beta(2.0, 3.0)) * (np.log1p(-0.4) - ss.digamma(3.0) + ss.digamma(5.0))
    np.testing.assert_allclose(hb, ref, rtol=1e-12)


def test_float32_in_float32_out():
    f = np.float32
    for name, args in (("gammainc", (f(2), f(1))), ("betainc", (f(2), f(3), f(0.4))),
                       ("betaln", (f(2), f(3))), ("erfcx", (f(1),)), ("i0e", (f(1),))):
        a32 = [np.asarray(a) for a in args]
        out = getattr(xsp, name)(*a32)
        assert out.dtype == np.float32, name
        g = xgrad.grad(getattr(xsp, name))(*a32)
        assert g.dtype == np.float32, name


def test_scipy_backed_on_strict(xp):
    a, x = from_np(xp, A4), from_np(xp, XG)
    got = xgrad.grad(lambda a: xnp.sum(xsp.gammainc(a, x)))(a)
    ref = xgrad.grad(lambda a: xnp.sum(xsp.gammainc(a, XG)))(A4)
    np.testing.assert_allclose(to_np(got), ref, rtol=1e-14)
    gb = xgrad.grad(lambda a: xnp.sum(xsp.betainc(a, from_np(xp, BB), from_np(xp, XB))))(
        from_np(xp, AB))
    np.testing.assert_allclose(to_np(gb), xgrad.grad(lambda a: xnp.sum(xsp.betainc(a, BB, XB)))(AB),
                               rtol=1e-14)


def test_multigammaln_needs_integer_d():
    with pytest.raises(TypeError, match="multigammaln: d must be an integer"):
        xsp.multigammaln(3.0, 2.5)


def test_log_ndtr_series_order_checked():
    with pytest.raises(TypeError, match="series_order"):
        xsp.log_ndtr(1.0, series_order=2.0)
    with pytest.raises(ValueError, match="<= 30"):
        xsp.log_ndtr(1.0, series_order=31)


def test_signatures_match_jax(jax):
    import jax.scipy.special as jsp
    for name in xsp.__all__:
        want = inspect.signature(getattr(jsp, name))
        got = inspect.signature(getattr(xsp, name))
        assert [(p.name, p.kind, p.default) for p in got.parameters.values()] == \
            [(p.name, p.kind, p.default) for p in want.parameters.values()], name


# rows of xgrad/rules/special.py that the cases above cover (test_special.py
# checks that every row has a case somewhere)
COVERED_ROWS = {c.name.split(".")[-1] for c in CASES} | {"gammainc_da", "betainc_da", "betainc_db"}
