"""jax.numpy's elementwise math, comparisons, products, polynomials and
windows (``xgrad/numpy/_elem.py``) against jax: values, dtypes, first and
second derivatives, vmap (see ``tests/jnp_cases.py``)."""
import numpy as np
import pytest

from jnp_cases import JCase, check, ids

_r = np.random.default_rng(0)


def _u(lo, hi, *shape):
    return _r.uniform(lo, hi, shape)


_X = _u(-2.0, 2.0, 3, 4)
_POS = _u(0.5, 2.0, 3, 4)
_NZ = np.where(np.abs(_X) < 0.3, 0.7, _X)               # away from 0 (kinks, cbrt)
_Z = _u(-2.0, 2.0, 3, 4) + 1j * _u(-2.0, 2.0, 3, 4)
_I1 = np.array([12, -18, 0, 7, 35, 0, 1, 64], dtype=np.int64)
_I2 = np.array([8, 24, 5, 0, -21, 0, 9, 48], dtype=np.int64)
# no subnormals: XLA flushes them to zero (xgrad keeps them, as numpy)
_SPECIAL = np.array([0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 1e-300, 3.0, 0.1])
_TIES_A = np.array([1.0, 2.0, -1.0, np.nan, 3.0, np.nan])
_TIES_B = np.array([1.0, 1.5, -1.0, 2.0, np.nan, np.nan])
_P3 = np.array([1.5, -0.7, 2.0, 0.3])
_P2 = np.array([0.8, 1.1, -0.4])

CASES = [
    # ----- elementwise math -----
    JCase("angle", lambda ns, z: ns.angle(z), [_Z], id="complex"),
    JCase("angle", lambda ns, z: ns.angle(z, deg=True), [_Z], id="deg"),
    JCase("angle", lambda ns, x: ns.angle(x), [_NZ], order=1, id="real"),
    JCase("angle", lambda ns, x: ns.angle(x), [np.array([1, -2, 0])], id="int"),
    JCase("around", lambda ns, x: ns.around(x, 2), [_X * 10], id="decimals2"),
    JCase("around", lambda ns, x: ns.around(x), [np.array([0.5, 1.5, 2.5, -0.5, 0.49])], id="half"),
    JCase("around", lambda ns, x: ns.around(x, -1), [_X * 100], id="decimals-1"),
    JCase("around", lambda ns, x: ns.around(x, 1), [np.array([15, -27])], id="int"),
    JCase("rint", lambda ns, x: ns.rint(x), [np.array([0.5, 1.5, 2.5, -0.5, -1.7, 3.2])]),
    JCase("rint", lambda ns, x: ns.rint(x), [np.array([1, -2, 3])], id="int"),
    JCase("cbrt", lambda ns, x: ns.cbrt(x), [_NZ]),
    JCase("cbrt", lambda ns, x: ns.cbrt(x), [np.array([8.0, -27.0, 0.0, 1e-300])], order=0,
          id="values"),
    JCase("deg2rad", lambda ns, x: ns.deg2rad(x), [_X * 90]),
    JCase("deg2rad", lambda ns, x: ns.deg2rad(x), [np.array([90, 180])], id="int"),
    JCase("radians", lambda ns, x: ns.radians(x), [_X * 90]),
    JCase("rad2deg", lambda ns, x: ns.rad2deg(x), [_X]),
    JCase("degrees", lambda ns, x: ns.degrees(x), [_X]),
    JCase("divmod", lambda ns, x, y: ns.divmod(x, y), [_X * 3, _POS], order=1),
    JCase("divmod", lambda ns, x, y: ns.divmod(x, y), [_I1, np.array([5, -4, 3, 7, 6, 2, 9, -5])],
          id="int"),
    JCase("exp2", lambda ns, x: ns.exp2(x), [_X]),
    JCase("exp2", lambda ns, x: ns.exp2(x), [np.array([0, 3, -2])], id="int"),
    JCase("fabs", lambda ns, x: ns.fabs(x), [_NZ], order=1),
    JCase("fabs", lambda ns, x: ns.fabs(x), [np.array([-3, 0, 4])], id="int"),
    JCase("float_power", lambda ns, x, y: ns.float_power(x, y), [_POS, _X]),
    JCase("float_power", lambda ns, x, y: ns.float_power(x, y), [np.array([2, 3]), np.array([3, -1])],
          id="int"),
    JCase("fmax", lambda ns, x, y: ns.fmax(x, y), [_X, _u(-2.0, 2.0, 4)], order=1),
    JCase("fmax", lambda ns, x, y: ns.fmax(x, y), [_TIES_A, _TIES_B], order=1, vmap=False,
          id="ties-nan", atol=0, rtol=0),
    JCase("fmin", lambda ns, x, y: ns.fmin(x, y), [_X, _u(-2.0, 2.0, 4)], order=1),
    JCase("fmin", lambda ns, x, y: ns.fmin(x, y), [_TIES_A, _TIES_B], order=1, vmap=False,
          id="ties-nan", atol=0, rtol=0),
    JCase("fmod", lambda ns, x, y: ns.fmod(x, y), [_NZ * 3, np.where(_NZ > 0, _POS, -_POS)], order=1),
    JCase("fmod", lambda ns, x, y: ns.fmod(x, y), [_I1, np.array([5, -4, 0, 7, 6, 2, 9, -5])],
          id="int"),
    JCase("frexp", lambda ns, x: ns.frexp(x), [_X * 100]),
    JCase("frexp", lambda ns, x: ns.frexp(x), [_SPECIAL], order=0, id="special"),
    JCase("frexp", lambda ns, x: ns.frexp(x),
          [np.array([1.0, 2.0, 0.5, 1 - 2 ** -53, 2.0 ** 1023, -(2.0 ** -1022)])],
          order=0, id="powers"),
    JCase("ldexp", lambda ns, x, e: ns.ldexp(x, e),
          [_X, np.array([0, 3, -2, 10], dtype=np.int32)]),
    JCase("ldexp", lambda ns, x, e: ns.ldexp(x, e),
          [np.array([1e-300, 1.5, 0.0, -np.inf, 3.0, 1e300]),
           np.array([1100, -20, 5, 3, 2000, -2000])], order=0, id="range"),
    JCase("gcd", lambda ns, x, y: ns.gcd(x, y), [_I1, _I2]),
    JCase("lcm", lambda ns, x, y: ns.lcm(x, y), [_I1, _I2]),
    JCase("heaviside", lambda ns, x, y: ns.heaviside(x, y),
          [np.array([-1.5, 0.0, 2.0, np.nan, 0.0]), np.array([0.5, 0.3, 0.2, 0.1, 0.7])]),
    JCase("heaviside", lambda ns, x: ns.heaviside(x, 0.5), [_X], id="scalar"),
    JCase("i0", lambda ns, x: ns.i0(x), [_NZ * 3]),
    JCase("i0", lambda ns, x: ns.i0(x), [np.array([0.0, 1.0, -1.0])], order=1, id="at0"),
    JCase("logaddexp2", lambda ns, x, y: ns.logaddexp2(x, y), [_X, _u(-2.0, 2.0, 4)],
          rtol=1e-9),
    JCase("modf", lambda ns, x: ns.modf(x), [_NZ * 3]),
    JCase("nan_to_num", lambda ns, x: ns.nan_to_num(x), [_SPECIAL], order=1, vmap=False),
    JCase("nan_to_num", lambda ns, x: ns.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0),
          [_SPECIAL], order=1, vmap=False, id="values"),
    JCase("nan_to_num", lambda ns, x: ns.nan_to_num(x), [_X], id="finite"),
    JCase("nan_to_num", lambda ns, z: ns.nan_to_num(z),
          [np.array([1 + 2j, complex(np.nan, 1), complex(np.inf, -np.inf), 3j])], order=1,
          vmap=False, id="complex"),
    JCase("sinc", lambda ns, x: ns.sinc(x), [_X]),
    JCase("sinc", lambda ns, x: ns.sinc(x), [np.array([0.0, 0.0, 1.0, -0.5])], id="at0"),
    JCase("spacing", lambda ns, x: ns.spacing(x), [np.concatenate([_SPECIAL, _X.ravel()])],
          order=0),
    JCase("bitwise_count", lambda ns, x: ns.bitwise_count(x), [_I1]),
    JCase("bitwise_count", lambda ns, x: ns.bitwise_count(x),
          [np.array([0, 255, 7, 2 ** 63], dtype=np.uint64)], id="uint64"),
    # ----- comparisons and predicates -----
    JCase("isclose", lambda ns, a, b: ns.isclose(a, b),
          [np.array([1.0, 1.0, np.inf, np.nan, 1e-9, -np.inf]),
           np.array([1.0 + 1e-6, 1.1, np.inf, np.nan, 0.0, np.inf])]),
    JCase("isclose", lambda ns, a, b: ns.isclose(a, b, rtol=0.2, equal_nan=True),
          [np.array([1.0, 1.0, np.nan]), np.array([1.1, 1.5, np.nan])], id="equal_nan"),
    JCase("isclose", lambda ns, a, b: ns.isclose(a, b), [_Z, _Z + 1e-7], id="complex"),
    JCase("allclose", lambda ns, a, b: ns.allclose(a, b), [_X, _X + 1e-9]),
    JCase("allclose", lambda ns, a, b: ns.allclose(a, b), [_X, _X + 1e-3], id="far"),
    JCase("array_equal", lambda ns, a, b: ns.array_equal(a, b), [_X, _X.copy()]),
    JCase("array_equal", lambda ns, a, b: ns.array_equal(a, b), [_X, _X[:2]], id="shape"),
    JCase("array_equal", lambda ns, a, b: ns.array_equal(a, b, equal_nan=True),
          [_SPECIAL, _SPECIAL.copy()], id="equal_nan"),
    JCase("array_equiv", lambda ns, a, b: ns.array_equiv(a, b), [_X[:1], np.repeat(_X[:1], 3, 0)]),
    JCase("iscomplex", lambda ns, z: ns.iscomplex(z), [np.array([1 + 0j, 2j, 3 + 1j])]),
    JCase("iscomplex", lambda ns, x: ns.iscomplex(x), [_X], id="real"),
    JCase("isreal", lambda ns, z: ns.isreal(z), [np.array([1 + 0j, 2j, 3 + 1j])]),
    JCase("isreal", lambda ns, x: ns.isreal(x), [_I1], id="int"),
    JCase("isposinf", lambda ns, x: ns.isposinf(x), [_SPECIAL]),
    JCase("isposinf", lambda ns, x: ns.isposinf(x), [_I1], id="int"),
    JCase("isneginf", lambda ns, x: ns.isneginf(x), [_SPECIAL]),
    JCase("iscomplexobj", lambda ns, z, x: [ns.asarray(ns.iscomplexobj(z)),
                                            ns.asarray(ns.iscomplexobj(x)),
                                            ns.asarray(ns.iscomplexobj(1j)),
                                            ns.asarray(ns.iscomplexobj(2.0))], [_Z, _X]),
    JCase("isrealobj", lambda ns, z, x: [ns.asarray(ns.isrealobj(z)), ns.asarray(ns.isrealobj(x)),
                                         ns.asarray(ns.isrealobj(3))], [_Z, _X]),
    JCase("isscalar", lambda ns, x, y: [ns.asarray(ns.isscalar(x)), ns.asarray(ns.isscalar(y)),
                                        ns.asarray(ns.isscalar(1.5)), ns.asarray(ns.isscalar([1]))],
          [np.array(2.0), _X], order=0),
    # ----- products -----
    JCase("cross", lambda ns, a, b: ns.cross(a, b), [_u(-1, 1, 4, 3), _u(-1, 1, 4, 3)]),
    JCase("cross", lambda ns, a, b: ns.cross(a, b), [_u(-1, 1, 4, 2), _u(-1, 1, 2)], id="2d"),
    JCase("cross", lambda ns, a, b: ns.cross(a, b), [_u(-1, 1, 4, 2), _u(-1, 1, 4, 3)], id="2x3"),
    JCase("cross", lambda ns, a, b: ns.cross(a, b, axisa=0, axisb=1, axisc=0),
          [_u(-1, 1, 3, 5), _u(-1, 1, 5, 3)], id="axes"),
    JCase("cross", lambda ns, a, b: ns.cross(a, b, axis=0), [_u(-1, 1, 3, 2), _u(-1, 1, 3, 2)],
          id="axis"),
    JCase("cross", lambda ns, a, b: ns.cross(a, b), [_Z[:, :3], _Z[:, 1:]], id="complex"),
    JCase("vdot", lambda ns, a, b: ns.vdot(a, b), [_X, _POS]),
    JCase("vdot", lambda ns, a, b: ns.vdot(a, b), [_Z, _Z[::-1] * 0.5], id="complex"),
    JCase("inner", lambda ns, a, b: ns.inner(a, b), [_X, _u(-1, 1, 2, 4)]),
    JCase("outer", lambda ns, a, b: ns.outer(a, b), [_u(-1, 1, 3), _u(-1, 1, 4)]),
    # ----- polynomials -----
    JCase("polyval", lambda ns, p, x: ns.polyval(p, x), [_P3, _X]),
    JCase("polyval", lambda ns, p, x: ns.polyval(p, x), [_u(-1, 1, 4, 3), _u(-1, 1, 3)], id="2d"),
    JCase("polyval", lambda ns, p, x: ns.polyval(p, x), [np.array([1, 2, 3]), np.array([2, -1])],
          id="int"),
    JCase("polyadd", lambda ns, a, b: ns.polyadd(a, b), [_P3, _P2]),
    JCase("polyadd", lambda ns, a, b: ns.polyadd(a, b), [_P2, _P3], id="swap"),
    JCase("polysub", lambda ns, a, b: ns.polysub(a, b), [_P2, _P3]),
    JCase("polymul", lambda ns, a, b: ns.polymul(a, b), [_P3, _P2]),
    JCase("polymul", lambda ns, a, b: ns.polymul(a, b, trim_leading_zeros=True),
          [np.array([0.0, 0.0, 1.5, 2.0]), _P2], vmap=False, id="trim"),
    JCase("polymul", lambda ns, a, b: ns.polymul(a, b), [_Z[0], _Z[1, :2]], id="complex"),
    JCase("polydiv", lambda ns, u, v: ns.polydiv(u, v), [_u(-1, 1, 6), _P2 + 1.0]),
    JCase("polydiv", lambda ns, u, v: ns.polydiv(u, v), [_P2, _P3], id="short"),
    JCase("polydiv", lambda ns, u, v: ns.polydiv(u, v, trim_leading_zeros=True),
          [np.array([1.0, 3.0, 3.0, 1.0]), np.array([1.0, 1.0])], vmap=False, id="trim"),
    JCase("polyder", lambda ns, p: ns.polyder(p), [_u(-1, 1, 5)]),
    JCase("polyder", lambda ns, p: ns.polyder(p, m=3), [_u(-1, 1, 5)], id="m3"),
    JCase("polyder", lambda ns, p: ns.polyder(p, m=0), [_u(-1, 1, 5)], id="m0"),
    JCase("polyint", lambda ns, p: ns.polyint(p), [_u(-1, 1, 4)]),
    JCase("polyint", lambda ns, p, k: ns.polyint(p, m=2, k=k), [_u(-1, 1, 4), _u(-1, 1, 2)],
          id="k"),
    JCase("polyint", lambda ns, p: ns.polyint(p, m=3, k=0.5), [_u(-1, 1, 4)], id="kscalar"),
    JCase("poly", lambda ns, z: ns.poly(z), [_u(-1, 1, 4)]),
    JCase("poly", lambda ns, z: ns.poly(z), [_Z[0]], id="complex"),
    # jax's eigvals (poly of a matrix, roots) against numpy's: the backend's
    # eigvals on the concrete value (array_api_strict has none), no derivative
    JCase("poly", lambda ns, a: ns.poly(a), [_u(-1, 1, 3, 3)], order=0, strict=False,
          rtol=1e-9, id="matrix"),
    JCase("roots", lambda ns, p: ns.roots(p), [np.array([1.0, -6.0, 11.0, -6.0])], order=0,
          strict=False, rtol=1e-9),
    JCase("roots", lambda ns, p: ns.roots(p), [np.array([0.0, 0.0, 2.0, 0.0, -8.0])], order=0,
          strict=False, rtol=1e-9, id="leading-zeros"),
    JCase("roots", lambda ns, p: ns.roots(p, strip_zeros=False),
          [np.array([0.0, 1.0, 1.0, 1.0])], order=0, strict=False, rtol=1e-9, id="no-strip"),
    JCase("polyfit", lambda ns, x, y: ns.polyfit(x, y, 2), [_u(-1, 1, 8), _u(-1, 1, 8)],
          rtol=1e-8, atol=1e-10),
    JCase("polyfit", lambda ns, x, y, w: ns.polyfit(x, y, 3, w=w),
          [_u(-1, 1, 9), _u(-1, 1, 9, 2), _u(0.5, 1.5, 9)], rtol=1e-8, atol=1e-10, id="w-2d"),
    JCase("polyfit", lambda ns, x, y: ns.polyfit(x, y, 2, full=True),
          [_u(-1, 1, 8), _u(-1, 1, 8)], order=1, rtol=1e-8, atol=1e-10, id="full"),
    JCase("polyfit", lambda ns, x, y: ns.polyfit(x, y, 2, cov=True),
          [_u(-1, 1, 8), _u(-1, 1, 8)], order=1, rtol=1e-8, atol=1e-10, id="cov"),
    JCase("polyfit", lambda ns, x, y: ns.polyfit(x, y, 1, cov="unscaled"),
          [_u(-1, 1, 6), _u(-1, 1, 6, 3)], order=1, rtol=1e-8, atol=1e-10, id="cov-unscaled"),
    # ----- windows -----
    JCase("bartlett", lambda ns: [ns.bartlett(7), ns.bartlett(1), ns.bartlett(0)], []),
    JCase("blackman", lambda ns: [ns.blackman(6), ns.blackman(1)], [], atol=1e-15),
    JCase("hamming", lambda ns: [ns.hamming(6), ns.hamming(1)], []),
    JCase("hanning", lambda ns: [ns.hanning(7), ns.hanning(0)], []),
    JCase("kaiser", lambda ns, b: ns.kaiser(7, b), [np.array(4.0)]),
    JCase("kaiser", lambda ns: ns.kaiser(6, 8.6), [], id="scalar"),
    JCase("euler_gamma", lambda ns: ns.asarray(ns.euler_gamma), []),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(case, xp, jax):
    check(case, xp, jax)


def test_errors():
    import xgrad.numpy as xnp
    with pytest.raises(ValueError, match="integer"):
        xnp.gcd(np.array([1.5]), np.array([2.0]))
    with pytest.raises(TypeError, match="complex"):
        xnp.fabs(np.array([1j]))
    with pytest.raises(ValueError, match="ldexp"):
        xnp.ldexp(np.array([1.0]), np.array([1.5]))
    with pytest.raises(ValueError, match="2 or 3"):
        xnp.cross(np.ones(4), np.ones(4))
    with pytest.raises(ValueError, match="non-negative"):
        xnp.polyder(np.ones(3), -1)
    # jax raises for shapes that don't broadcast; numpy (and xgrad) say False
    assert not bool(xnp.array_equiv(np.ones((3, 4)), np.ones((2, 4))))
    assert xnp.isscalar(2.0) and not xnp.isscalar([1.0])
    assert xnp.iscomplexobj(np.ones(2, complex)) and xnp.isrealobj(np.ones(2))
