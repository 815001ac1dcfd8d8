"""jax.numpy's statistics, nan* reductions and calculus functions
(xgrad/numpy/_stats.py) against jax: values, derivatives, vmap."""
import numpy as np
import pytest

import xgrad.numpy as xnp
from jnp_cases import JCase, check, ids

_r = np.random.default_rng(7)
A = _r.standard_normal((3, 4))
B = _r.standard_normal((2, 3, 5))
V = _r.standard_normal(6)
V7 = _r.standard_normal(7)
W4 = _r.uniform(0.5, 2.0, 4)
W = _r.uniform(0.5, 2.0, (3, 4))
Q = np.asarray([0.1, 0.37, 0.5, 0.9])
P = Q * 100
AN = A.copy()
AN[0, 1] = AN[2, 3] = np.nan
AN[1, :] = np.nan                      # an all-NaN row
AN2 = AN[[0, 2]]
FW = np.asarray([1, 2, 1, 3])
VN = V.copy()
VN[[1, 4]] = np.nan
VT = np.asarray([1.0, 3.0, 3.0, 2.0, 0.5, 3.0])   # ties at the maximum
C = _r.standard_normal(4) + 1j * _r.standard_normal(4)
XS = np.cumsum(_r.uniform(0.3, 1.2, 6))         # increasing sample points
XQ = np.asarray([-1.0, 0.35, 1.1, 1.9, 2.6, 3.3, 9.0])
PH = np.cumsum(_r.uniform(-3.0, 3.0, 8))       # a phase with jumps

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")

CASES = [
    # weighted means, covariance
    JCase("average", lambda ns, a: ns.average(a), (A,)),
    JCase("average", lambda ns, a, w: ns.average(a, axis=1, weights=w, returned=True),
          (A, W4), id="weights-1d-returned"),
    JCase("average", lambda ns, a, w: ns.average(a, axis=(0, 1), weights=w, keepdims=True),
          (A, W), id="weights-full"),
    JCase("cov", lambda ns, m: ns.cov(m), (A,)),
    JCase("cov", lambda ns, m, y: ns.cov(m, y, rowvar=False, bias=True), (A, A[:, :2] * 2.0),
          id="y-rowvar-bias"),
    JCase("cov", lambda ns, m: ns.cov(m, ddof=0), (V,), id="1d-ddof"),
    JCase("cov", lambda ns, m, fw, aw: ns.cov(m, fweights=fw, aweights=aw), (A, FW, W4),
          id="weights"),
    JCase("cov", lambda ns, m, aw: ns.cov(m, aweights=aw, ddof=2), (A, W4), id="aweights-ddof"),
    JCase("cov", lambda ns, m, fw: ns.cov(m, fweights=fw), (A, FW), id="fweights"),
    JCase("corrcoef", lambda ns, x: ns.corrcoef(x), (A,)),
    JCase("corrcoef", lambda ns, x, y: ns.corrcoef(x, y, rowvar=False)[0, 1], (A[:, 0], A[:, 1]),
          id="xy"),
    # quantiles
    JCase("median", lambda ns, a: ns.median(a), (A,)),                 # even count: split
    JCase("median", lambda ns, a: ns.median(a, axis=1, keepdims=True), (B[0],), id="odd-keepdims"),
    JCase("median", lambda ns, a: ns.median(a, axis=(0, 2)), (B,), id="axis-tuple"),
    JCase("median", lambda ns, a: ns.median(a), (VT,), id="ties"),
    JCase("quantile", lambda ns, a, q: ns.quantile(a, q), (A, Q)),
    JCase("quantile", lambda ns, a, q: ns.quantile(a, q, axis=(0, 2), keepdims=True), (B, Q),
          id="axis-tuple-keepdims"),
    JCase("quantile", lambda ns, a: ns.quantile(a, 0.3, axis=-1), (B,), id="scalar-q"),
    JCase("quantile", lambda ns, a, q: ns.quantile(a, q, axis=0), (A, np.asarray([0.0, 1.0])),
          diff=(0,), id="ends"),
    JCase("quantile", lambda ns, a: ns.quantile(a, 0.6), (AN,), order=1, id="nan"),
] + [
    JCase("quantile", (lambda m: lambda ns, a, q: ns.quantile(a, q, axis=1, method=m))(m),
          (A, Q), id=f"method-{m}") for m in _METHODS
] + [
    JCase("quantile", lambda ns, a, q: ns.quantile(a, q, axis=1, method="inverted_cdf"),
          (A, Q), diff=(0,), order=1, id="inverted_cdf"),
    JCase("quantile", lambda ns, a, q, w: ns.quantile(a, q, axis=1, method="inverted_cdf",
                                                      weights=w),
          (A, Q, np.asarray([1.0, 0.5, 2.0, 1.0])), diff=(0,), order=1, id="inverted_cdf-weights"),
    JCase("percentile", lambda ns, a, q: ns.percentile(a, q, axis=0), (A, P)),
    JCase("percentile", lambda ns, a: ns.percentile(a, 40.0, method="nearest", keepdims=True),
          (B,), id="nearest"),
    JCase("nanquantile", lambda ns, a, q: ns.nanquantile(a, q, axis=1), (AN, Q)),
    JCase("nanquantile", lambda ns, a, q: ns.nanquantile(a, q, method="midpoint"), (AN, Q),
          id="midpoint"),
    JCase("nanquantile", lambda ns, a: ns.nanquantile(a, 0.5, axis=1, method="inverted_cdf"),
          (AN,), order=1, id="inverted_cdf"),
    JCase("nanpercentile", lambda ns, a, q: ns.nanpercentile(a, q, axis=1, method="lower",
                                                             keepdims=True),
          (AN, np.asarray([25.0, 75.0]))),
    JCase("nanmedian", lambda ns, a: ns.nanmedian(a, axis=1), (AN,)),
    JCase("nanmedian", lambda ns, a: ns.nanmedian(a), (VN,), id="1d"),
    # nan reductions
    JCase("nanmax", lambda ns, a: ns.nanmax(a, axis=1), (AN,)),
    JCase("nanmax", lambda ns, a: ns.nanmax(a), (VT,), id="ties"),
    JCase("nanmax", lambda ns, a: ns.nanmax(a, axis=0, keepdims=True, initial=0.5), (AN,),
          id="initial"),
    JCase("nanmin", lambda ns, a: ns.nanmin(a, axis=0), (AN,)),
    JCase("nanmin", lambda ns, a, w: ns.nanmin(a, axis=1, initial=-0.5, where=w),
          (AN, np.asarray([True, False, True, True])), id="where"),
    JCase("nansum", lambda ns, a: ns.nansum(a, axis=1), (AN,)),
    JCase("nansum", lambda ns, a: ns.nansum(a, keepdims=True, initial=1.5), (AN,), id="initial"),
    JCase("nanprod", lambda ns, a: ns.nanprod(a, axis=0), (AN,)),
    # an all-NaN slice: NaN, and (NB) a zero derivative where jax's is NaN (0/0): values only
    JCase("nanmean", lambda ns, a: ns.nanmean(a, axis=1), (AN,), order=0, id="all-nan"),
    JCase("nanmean", lambda ns, a: ns.nanmean(a, axis=1), (AN2,)),
    JCase("nanmean", lambda ns, a: ns.nanmean(a, axis=0, keepdims=True), (AN,), id="keepdims"),
    JCase("nanmean", lambda ns, a: ns.nanmean(a), (np.arange(5),), id="int"),
    JCase("nanvar", lambda ns, a: ns.nanvar(a, axis=1), (AN,)),
    JCase("nanvar", lambda ns, a: ns.nanvar(a, ddof=1), (VN,), id="ddof"),
    JCase("nanstd", lambda ns, a: ns.nanstd(a, axis=1, ddof=1), (AN2,)),
    JCase("nanstd", lambda ns, a: ns.nanstd(a, axis=1, keepdims=True), (AN,), order=0,
          id="all-nan"),
    JCase("nanstd", lambda ns, a: ns.nanstd(a, keepdims=True), (AN,), id="all"),
    JCase("nanargmax", lambda ns, a: ns.nanargmax(a, axis=1), (AN,), order=0),
    JCase("nanargmax", lambda ns, a: ns.nanargmax(a), (VN,), order=0, id="flat"),
    JCase("nanargmin", lambda ns, a: ns.nanargmin(a, axis=0, keepdims=True), (AN,), order=0),
    JCase("nancumsum", lambda ns, a: ns.nancumsum(a, axis=1), (AN,)),
    JCase("nancumprod", lambda ns, a: ns.nancumprod(a, axis=0), (AN,)),
    JCase("ptp", lambda ns, a: ns.ptp(a, axis=1), (A,)),
    JCase("ptp", lambda ns, a: ns.ptp(a), (VT,), id="ties"),
    JCase("cumprod", lambda ns, a: ns.cumprod(a, axis=1), (A,)),
    JCase("cumprod", lambda ns, a: ns.cumprod(a), (A,), id="flat"),
    JCase("cumprod", lambda ns, a: ns.cumprod(a), (np.asarray([1, 2, 3], np.int32),), id="int32"),
    JCase("trace", lambda ns, a: ns.trace(a), (A,)),
    JCase("trace", lambda ns, a: ns.trace(a, offset=1, axis1=2, axis2=0), (B,), id="offset-axes"),
    # calculus
    JCase("gradient", lambda ns, f: ns.gradient(f), (V,)),
    JCase("gradient", lambda ns, f: ns.gradient(f, 0.5, 2.0), (A,), id="2d-spacing"),
    JCase("gradient", lambda ns, f, x: ns.gradient(f, x), (V, XS), id="coordinates"),
    JCase("gradient", lambda ns, f: ns.gradient(f, axis=-1), (B,), id="axis"),
    JCase("gradient", lambda ns, f, x: ns.gradient(f, x, 0.3, axis=(1, 0)), (A, XS[:4]),
          id="mixed"),
    JCase("trapezoid", lambda ns, y: ns.trapezoid(y), (A,)),
    JCase("trapezoid", lambda ns, y, x: ns.trapezoid(y, x), (V, XS), id="x"),
    JCase("trapezoid", lambda ns, y: ns.trapezoid(y, dx=0.25, axis=0), (A,), id="dx"),
    JCase("trapezoid", lambda ns, y, x: ns.trapezoid(y, x, axis=1), (A, W), id="x2d"),
    JCase("interp", lambda ns, x, xp, fp: ns.interp(x, xp, fp), (XQ[1:-1], XS - XS[0], V)),
    JCase("interp", lambda ns, x, xp, fp: ns.interp(x, xp, fp, left=-7.0, right=7.0),
          (XQ, XS - XS[0], V), id="left-right"),
    JCase("interp", lambda ns, x, xp, fp: ns.interp(x, xp, fp, left="extrapolate",
                                                    right="extrapolate"),
          (XQ, XS - XS[0], V), id="extrapolate"),
    JCase("interp", lambda ns, x, xp, fp: ns.interp(x, xp, fp, period=2.5),
          (XQ.reshape(7, 1), np.asarray([0.3, 1.1, 2.0, -0.4]), V[:4]), id="period"),
    JCase("unwrap", lambda ns, p: ns.unwrap(p), (PH,)),
    JCase("unwrap", lambda ns, p: ns.unwrap(p, discont=4.0, axis=0, period=5.0),
          (PH.reshape(4, 2),), id="period"),
    JCase("ediff1d", lambda ns, a: ns.ediff1d(a), (A,)),
    JCase("ediff1d", lambda ns, a, e: ns.ediff1d(a, to_end=e, to_begin=-1.0),
          (V, np.asarray([1.0, 2.0])), id="ends"),
] + [
    JCase("convolve", (lambda m: lambda ns, a, v: ns.convolve(a, v, mode=m))(m), (V7, V[:3]),
          id=m) for m in ("full", "same", "valid")
] + [
    JCase("convolve", lambda ns, a, v: ns.convolve(a, v, mode="same"), (V[:3], V7), id="swap"),
    JCase("convolve", lambda ns, a, v: ns.convolve(a, v), (C, C[:2] * 1j),
          strict=True, id="complex"),
] + [
    JCase("correlate", (lambda m: lambda ns, a, v: ns.correlate(a, v, mode=m))(m), (V7, V[:4]),
          id=m) for m in ("full", "same", "valid")
] + [
    JCase("correlate", lambda ns, a, v: ns.correlate(a, v, mode="full"), (V[:3], V7), id="swap"),
    JCase("correlate", lambda ns, a, v: ns.correlate(a, v, mode="same"), (C, C[1:3]),
          id="complex"),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(case, xp, jax):
    check(case, xp, jax)


def test_gradient_edge_order_2_matches_numpy():
    # NB: JAX does not implement edge_order; NumPy's second-order edges
    f = np.exp(XS)
    np.testing.assert_allclose(xnp.gradient(f, edge_order=2), np.gradient(f, edge_order=2))
    np.testing.assert_allclose(xnp.gradient(f, XS, edge_order=2),
                               np.gradient(f, XS, edge_order=2))
    np.testing.assert_allclose(xnp.gradient(A, 0.5, edge_order=2, axis=1),
                               np.gradient(A, 0.5, edge_order=2, axis=1))


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="method"):
        xnp.quantile(A, 0.5, method="bogus")
    with pytest.raises(ValueError, match=r"q must lie in \[0, 1\]"):
        xnp.quantile(A, 1.5)
    with pytest.raises(ValueError, match=r"q must lie in \[0, 1\]"):
        xnp.nanpercentile(A, float("nan"))
    with pytest.raises(NotImplementedError, match="weights"):
        xnp.quantile(A, 0.5, weights=W)
    with pytest.raises(ValueError, match="axis"):
        xnp.average(A, weights=W4)
    with pytest.raises(TypeError, match="fweights"):
        xnp.cov(A, fweights=W4)
    with pytest.raises(ValueError, match="mode"):
        xnp.convolve(V, V, mode="nope")
    with pytest.raises(ValueError, match="xp and fp"):
        xnp.interp(V, XS, V[:3])
    with pytest.raises(ValueError, match="edge_order"):
        xnp.gradient(V, edge_order=3)


def test_std_of_one_entry_has_derivative_zero():
    """The deviation of one entry is identically 0: its derivative is 0 in
    every mode (a deliberate difference from jax, whose grad is nan)."""
    import xgrad
    import xgrad.numpy as xnp
    assert float(xgrad.grad(xnp.std)(3.5)) == 0.0
    assert float(xgrad.grad(xnp.var)(3.5)) == 0.0
    assert float(xgrad.hessian(xnp.std)(3.5)) == 0.0
    assert float(xgrad.jvp(xnp.std, (3.5,), (1.0,))[1]) == 0.0
    g = xgrad.grad(lambda x: xnp.sum(xnp.std(x, axis=1)))(np.ones((2, 1)))
    np.testing.assert_array_equal(np.asarray(g), np.zeros((2, 1)))
    np.testing.assert_array_equal(np.asarray(xgrad.vmap(xgrad.grad(xnp.std))(np.ones(3))), np.zeros(3))
    np.testing.assert_array_equal(np.asarray(xgrad.jit(xgrad.grad(xnp.std))(3.5)), 0.0)
    # the value is unchanged (nan for an infinite entry), and more entries differentiate as before
    assert np.isnan(float(xnp.std(np.inf)))
    np.testing.assert_allclose(np.asarray(xgrad.grad(xnp.std)(np.array([1.0, 2.0]))), [-0.5, 0.5])
