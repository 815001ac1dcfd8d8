"""Special functions at their edges (+-0, +-inf, nan, huge): values against
scipy, and against jax (x64) where it is installed."""
import math
import warnings

import numpy as np
import pytest

import xgrad
import xgrad.scipy.special as xs

EDGES = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e308, -1e308, 0.5, 2.0, -2.0])


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_x_log_y_propagates_nan_also_where_x_is_zero(name):
    f = getattr(xs, name)
    assert np.isnan(f(0.0, np.nan)) and np.isnan(f(-0.0, np.nan))
    x, y = (a.ravel() for a in np.meshgrid(EDGES, EDGES))
    sp = pytest.importorskip("scipy.special")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_allclose(np.asarray(f(x, y)), getattr(sp, name)(x, y), rtol=1e-14,
                                   equal_nan=True)
        g = xgrad.grad(f, argnums=(0, 1))(0.0, np.nan)
    assert np.isnan(g[0]) and np.isnan(g[1])


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_x_log_y_matches_jax_at_edge_values(jax, name):
    import jax.scipy.special as js
    x, y = (a.ravel() for a in np.meshgrid(EDGES, EDGES))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_allclose(np.asarray(getattr(xs, name)(x, y)),
                                   np.asarray(getattr(js, name)(x, y)), rtol=1e-14, equal_nan=True)


def _grad(f, order=1):
    for _ in range(order):
        f = xgrad.grad(f)
    return f


def _at(f, x, order=1):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(_grad(f, order)(x))


def test_gamma_family_limits():
    """At the poles the values are the limits where one exists (the side a
    signed zero names), nan where the two sides differ; at +inf the
    derivatives of digamma vanish (jax gives nan at all of these)."""
    inf, nan = np.inf, np.nan
    x = np.array([0.0, -0.0, -1.0, -2.0, -1e308, -inf, inf])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_array_equal(np.asarray(xs.digamma(x)), [-inf, inf, nan, nan, nan, nan, inf])
        # psi^(n) ~ (-1)^(n+1) n! / x^(n+1) at each pole: +inf on both sides for
        # odd n; for even n the sign of x, so nan at -k, -+inf at +-0
        np.testing.assert_array_equal(np.asarray(xs.polygamma(1, x)), [inf] * 6 + [0.0])
        np.testing.assert_array_equal(np.asarray(xs.polygamma(2, x)), [-inf, inf] + [nan] * 4 + [0.0])
        np.testing.assert_array_equal(np.asarray(xs.polygamma(3, x)), [inf] * 6 + [0.0])
        np.testing.assert_array_equal(np.asarray(xs.polygamma(4, x)), [-inf, inf] + [nan] * 4 + [0.0])
        # the signs next to the poles agree
        assert xs.polygamma(2, 1e-8) < 0 < xs.polygamma(2, -1e-8)
        assert xs.polygamma(2, -1.0 - 1e-8) > 0 > xs.polygamma(2, -1.0 + 1e-8)
        # gammaln(-inf) = inf: every float below -2**52 is a pole
        np.testing.assert_array_equal(np.asarray(xs.gammaln(np.array([-inf, -1e308, -1.0]))),
                                      [inf, inf, inf])
    assert _at(xs.gammaln, 0.0) == -inf and _at(xs.gammaln, -0.0) == inf
    assert np.isnan(_at(xs.gammaln, -1.0)) and _at(xs.gammaln, inf, 2) == 0.0
    assert _at(xs.digamma, inf) == 0.0 and _at(xs.digamma, inf, 2) == 0.0
    assert _at(xs.digamma, 0.0, 2) == -inf and _at(xs.digamma, -0.0, 2) == inf
    assert np.isnan(_at(xs.digamma, -1.0, 2)) and _at(xs.digamma, -1.0) == inf
    # gamma ~ 1/x: gamma' ~ -1/x^2 = -inf on both sides, gamma'' ~ 2/x^3
    assert _at(xs.gamma, 0.0) == -inf and _at(xs.gamma, -0.0) == -inf
    assert _at(xs.gamma, 0.0, 2) == inf and _at(xs.gamma, -0.0, 2) == -inf


def test_gamma_float32_is_correctly_rounded():
    """float32 gamma is scipy's, rounded once (jax's exp(lgamma) is 1e-5 off
    at 30, where gamma(30) = 29!)."""
    x = np.array([30.0, 20.5, 5.0, 0.5], dtype=np.float32)
    want = ss_gamma(x.astype(np.float64)).astype(np.float32)
    got = np.asarray(xs.gamma(x))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)
    assert float(got[0]) == float(np.float32(math.factorial(29)))


def ss_gamma(x):
    sp = pytest.importorskip("scipy.special")
    return sp.gamma(x)


def test_bessel_i_limits():
    """i0' = i1 is 0 at 0 (i0 is even), i0'' = i1' = (i0 + i2) / 2 is 1/2
    there and i1'' = 0; i1'(x) stays 1/2 down to the subnormals, and the
    derivatives are +-inf where the functions overflow."""
    sp = pytest.importorskip("scipy.special")
    inf = np.inf
    assert _at(xs.i0, 0.0) == 0.0 and _at(xs.i0, -0.0) == 0.0
    assert _at(xs.i0, 0.0, 2) == 0.5 and _at(xs.i1, 0.0) == 0.5 and _at(xs.i1, 0.0, 2) == 0.0
    for x in (5e-324, -5e-324, 2.2250738585072014e-308, 1e-20, 1e-3, 0.7, -3.0, 700.0):
        # (scipy's iv(2, x) is nan at a subnormal x; 1/2 + 3 x^2 / 16 there)
        want = 0.5 * (sp.iv(0, x) + sp.iv(2, x)) if abs(x) > 1e-30 else 0.5
        np.testing.assert_allclose(_at(xs.i1, x), want, rtol=1e-13)
        np.testing.assert_allclose(_at(xs.i0, x, 2), want, rtol=1e-13)
    for x in (1e308, 800.0):
        assert _at(xs.i0, x) == inf and _at(xs.i0, -x) == -inf
        assert _at(xs.i1, x) == inf and _at(xs.i1, -x) == inf
        assert _at(xs.i1, x, 2) == inf and _at(xs.i1, -x, 2) == -inf
    assert np.isnan(_at(xs.i1e, np.nan)) and np.isnan(_at(xs.i1, np.nan))
    np.testing.assert_allclose(_at(xs.i1e, 1e-300), 0.5, rtol=1e-15)


@pytest.mark.parametrize("name,c", [("erf", 2 / math.sqrt(math.pi)),
                                    ("erfc", -2 / math.sqrt(math.pi)),
                                    ("ndtr", 1 / math.sqrt(2 * math.pi))])
def test_gaussian_derivatives_vanish_far_out(name, c):
    """erf'' = -2 x erf', ndtr'' = -x ndtr': 0 at |x| = 1e308 and +-inf (not
    0 * inf = nan), nan at nan."""
    f = getattr(xs, name)
    s = 0.5 if name == "ndtr" else 1.0
    for x in (1e308, -1e308, np.inf, -np.inf, 45.0, -45.0):
        assert _at(f, x) == 0.0 and _at(f, x, 2) == 0.0
    for x in (0.3, -1.7, 5.0):
        np.testing.assert_allclose(_at(f, x, 2), -2 * s * x * c * math.exp(-s * x * x), rtol=1e-13)
    assert np.isnan(_at(f, np.nan, 2))


def test_ndtri_derivative_at_0_and_1():
    """ndtri'(p) = 1 / pdf(ndtri(p)) grows without bound at p = 0 and 1:
    +inf there (jax: 0), ndtri'' = 2 pi ndtri e^(ndtri^2) is -+inf."""
    assert _at(xs.ndtri, 0.0) == np.inf and _at(xs.ndtri, 1.0) == np.inf
    assert _at(xs.ndtri, 0.0, 2) == -np.inf and _at(xs.ndtri, 1.0, 2) == np.inf
    for p in (1e-300, 1e-10, 0.3, 1 - 1e-12):
        q = float(xs.ndtri(p))
        np.testing.assert_allclose(_at(xs.ndtri, p), math.sqrt(2 * math.pi) * math.exp(q * q / 2),
                                   rtol=1e-12)
    assert np.isnan(_at(xs.ndtri, 1.5)) and np.isnan(_at(xs.ndtri, np.nan))


def test_rel_entr_far_out():
    """x log(x / y) where x / y over- or underflows (log x - log y there),
    against scipy; the derivatives log x - log y + 1 and -x / y, and the
    second derivatives 1/x, -1/y, x / y^2, with no inf / inf."""
    sp = pytest.importorskip("scipy.special")
    tiny, inf = 2.2250738585072014e-308, np.inf
    x = np.array([tiny, 30.0, 1e308, 1e308, inf, 1e308, 0.5])
    y = np.array([1e308, tiny, 1e308, inf, 1.0, 30.0, 1e308])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_allclose(np.asarray(xs.rel_entr(x, y)), sp.rel_entr(x, y), rtol=1e-13)
    dx = xgrad.grad(xs.rel_entr, argnums=0)
    dy = xgrad.grad(xs.rel_entr, argnums=1)
    np.testing.assert_allclose(float(dx(1e308, tiny)), math.log(1e308) - math.log(tiny) + 1,
                               rtol=1e-14)
    np.testing.assert_allclose(float(dx(tiny, 1e308)), math.log(tiny) - math.log(1e308) + 1,
                               rtol=1e-14)
    assert float(dy(1e308, 1e308)) == -1.0
    assert _at(lambda v: xs.rel_entr(v, 1.0), inf) == inf
    # d2/dx2 = 1/x, d2/dxdy = -1/y, d2/dy2 = x / y^2
    assert float(xgrad.grad(dx, argnums=0)(1.0, inf)) == 1.0
    assert float(xgrad.grad(dx, argnums=1)(inf, 2.0)) == -0.5
    np.testing.assert_allclose(float(xgrad.grad(dx, argnums=0)(tiny, 30.0)), 1 / tiny, rtol=1e-14)
    np.testing.assert_allclose(float(xgrad.grad(dy, argnums=1)(3.0, 2.0)), 0.75, rtol=1e-14)


@pytest.mark.parametrize("name", ["xlogy", "xlog1py", "rel_entr"])
def test_x_over_y_derivatives_at_huge_arguments(name):
    """d/dy is x / y (x / (1 + y) for xlog1py, -x / y for rel_entr): +-1 at
    (+-1e308, +-1e308), in forward and reverse mode alike."""
    f = getattr(xs, name)
    sign = -1.0 if name == "rel_entr" else 1.0
    pairs = [(1e308, 1e308), (-1e308, 1e308), (1e308, -1e308), (-1e308, -1e308)]
    if name == "rel_entr":
        pairs = pairs[:1]
    for x, y in pairs:
        want = sign * x / y
        assert float(xgrad.grad(f, argnums=1)(x, y)) == want
        assert float(xgrad.jvp(lambda v: f(x, v), (y,), (1.0,))[1]) == want
