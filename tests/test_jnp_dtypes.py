"""jax.numpy's dtype and scalar-type names, dtype helpers, constructors from
bytes/strings/iterables, and ``vectorize`` (on ``vmap``)."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from jnp_cases import JCase, check, ids

_R = np.random.default_rng(7)


def _u(*shape):
    return _R.uniform(0.2, 0.9, size=shape)


def _vec(signature=None, excluded=frozenset()):
    """A case function: ``ns.vectorize(body(ns), ...)`` applied to the args."""
    def make(body):
        def fn(ns, *args):
            return ns.vectorize(body(ns), signature=signature, excluded=excluded)(*args)
        return fn
    return make


CASES = [
    JCase("vectorize", _vec()(lambda ns: lambda x, y: ns.sin(x) * y + x ** 2),
          (_u(3, 1), _u(4)), id="scalar"),
    JCase("vectorize", _vec("(n),(n)->()")(lambda ns: lambda a, b: ns.sum(a * b)),
          (_u(2, 1, 3), _u(4, 3)), id="dot"),
    # ns.matmul, not m @ v: array_api_strict's @ rejects a traced right operand
    JCase("vectorize", _vec("(m,n),(n)->(m)")(lambda ns: lambda m, v: ns.matmul(m, v)),
          (_u(2, 3), _u(4, 3)), id="matvec"),
    JCase("vectorize", _vec("(n)->(),(n)")(lambda ns: lambda a: (ns.sum(a ** 2), a * ns.sum(a))),
          (_u(1, 2, 3),), id="two-outputs"),
    JCase("vectorize", _vec("(n,n)->(n)")(lambda ns: lambda m: ns.linalg.diagonal(m) * ns.sum(m)),
          (_u(2, 3, 3),), id="square"),
    JCase("vectorize", _vec(excluded={1})(lambda ns: lambda x, p: x ** p),
          (_u(2, 3), 3), id="excluded"),
    JCase("vectorize", _vec()(lambda ns: lambda x: ns.floor(x * 10)),
          (_u(5),), order=0, id="int-valued"),
    # dtype helpers and constructors: values only (no array argument to differentiate)
    JCase("promote_types", lambda ns, a, b: np.asarray(str(ns.promote_types(a, b))),
          ("int64", "float16"), order=0),
    JCase("promote_types", lambda ns, a, b: np.asarray(str(ns.promote_types(a, b))),
          ("uint32", "int8"), order=0, id="mixed-sign"),
    JCase("issubdtype", lambda ns, a: ns.issubdtype(a, ns.floating), ("float32",), order=0),
    JCase("iterable", lambda ns, x: ns.iterable(x), (_u(3),), order=0),
    JCase("frombuffer", lambda ns, b: ns.frombuffer(b, dtype="int32", offset=4),
          (np.arange(4, dtype=np.int32).tobytes(),), order=0),
    JCase("fromstring", lambda ns, s: ns.fromstring(s, sep=","), ("1, 2.5",), order=0),
    # jax.numpy.fromiter raises (unsafe under jit); the oracle is what its
    # error message recommends, jnp.asarray(np.fromiter(...))
    JCase("fromiter", lambda ns, n: ns.fromiter(range(n), float) if ns is xnp
          else ns.asarray(np.fromiter(range(n), float)), (4,), order=0),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(case, xp, jax):
    check(case, xp, jax)


# ----- vectorize: errors and semantics jax.numpy shares -----

def test_vectorize_errors_name_the_problem():
    with pytest.raises(ValueError, match="not a valid gufunc signature"):
        xnp.vectorize(lambda a: a, signature="(n->()")
    with pytest.raises(ValueError, match="inconsistent size for core dimension 'n'"):
        xnp.vectorize(lambda a, b: xnp.sum(a * b), signature="(n),(n)->()")(_u(3), _u(4))
    with pytest.raises(ValueError, match="not have enough dimensions"):
        xnp.vectorize(lambda a: a, signature="(n,k)->(n,k)")(_u(3))
    with pytest.raises(TypeError, match="tuple of 2 outputs"):
        xnp.vectorize(lambda a: a, signature="(n)->(),()")(_u(3))
    with pytest.raises(ValueError, match="core dimension 'n'"):
        xnp.vectorize(lambda a: a[:2], signature="(n)->(n)")(_u(3))
    with pytest.raises(ValueError, match="do not broadcast"):
        xnp.vectorize(lambda a, b: a + b)(_u(3), _u(4))
    with pytest.raises(ValueError, match="negative"):
        xnp.vectorize(lambda a: a, excluded={-1})
    with pytest.raises(TypeError, match="ints"):
        xnp.vectorize(lambda a: a, excluded={1.5})


def test_vectorize_runs_the_function_once_on_whole_arrays():
    calls = []

    def f(a, b):
        calls.append(1)
        return xnp.sum(a * b)
    out = xnp.vectorize(f, signature="(n),(n)->()")(_u(5, 3), _u(3))
    assert out.shape == (5,) and len(calls) == 1


def test_vectorize_keyword_arguments(jax):
    x = _u(4)
    got = xnp.vectorize(lambda a, s=1.0: a * s, excluded={"s"})(x, s=3.0)
    want = jax.numpy.vectorize(lambda a, s=1.0: a * s, excluded={"s"})(x, s=3.0)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want))
    # NB: a keyword argument not excluded is vectorized (jax.numpy drops it)
    got = xnp.vectorize(lambda a, s=1.0: a * s)(x, s=np.array([[1.0], [2.0]]))
    np.testing.assert_allclose(np.asarray(got), x * np.array([[1.0], [2.0]]))


def test_vectorize_under_grad_and_hessian():
    f = xnp.vectorize(lambda a, b: xnp.sum(xnp.sin(a) * b), signature="(n),(n)->()")
    x, y = _u(2, 3), _u(3)
    g = xgrad.grad(lambda x: xnp.sum(f(x, y)))(x)
    np.testing.assert_allclose(np.asarray(g), np.cos(x) * y)
    h = xgrad.hessian(lambda v: xnp.sum(f(v, y)))(x[0])
    np.testing.assert_allclose(np.asarray(h), np.diag(-np.sin(x[0]) * y), atol=1e-14)


# ----- dtype and scalar-type names against jax.numpy -----

_TYPES = ["bool_", "int_", "uint", "float_", "double", "single", "cdouble", "csingle",
          "complex_", "float16"]
_HIERARCHY = ["generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact",
              "floating", "complexfloating", "flexible", "character", "object_"]


@pytest.mark.parametrize("name", _TYPES)
def test_scalar_type_aliases_match_jax(name, jax):
    assert np.dtype(getattr(xnp, name)) == np.dtype(getattr(jax.numpy, name))


@pytest.mark.parametrize("name", _HIERARCHY + ["dtype", "ComplexWarning"])
def test_numpy_types_are_jax_numpys(name, jax):
    assert getattr(xnp, name) is getattr(jax.numpy, name)


def test_euler_gamma(jax):
    assert xnp.euler_gamma == jax.numpy.euler_gamma


_DT = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "float32", "float64", "complex64", "complex128"]


def test_promote_types_is_jax_lattice(jax):
    for a in _DT:
        for b in _DT:
            want = jax.numpy.promote_types(a, b)
            assert xnp.promote_types(a, b) == np.dtype(want), (a, b)
            assert xnp.promote_types(getattr(xnp, a), np.dtype(b)) == np.dtype(want), (a, b)
    with pytest.raises(TypeError, match="promote_types"):
        xnp.promote_types("float64", "U3")


def test_issubdtype_matches_jax(jax):
    for a in _DT:
        for b in _HIERARCHY + _DT:
            want = jax.numpy.issubdtype(getattr(jax.numpy, a), getattr(jax.numpy, b))
            assert xnp.issubdtype(getattr(xnp, a), getattr(xnp, b)) == want, (a, b)
    strict = pytest.importorskip("array_api_strict")
    assert xnp.issubdtype(strict.float32, xnp.floating)
    assert not xnp.issubdtype(strict.int8, xnp.unsignedinteger)
    with pytest.raises(TypeError, match="issubdtype: arg1"):
        xnp.issubdtype(object(), xnp.floating)


def test_iterable(jax):
    for v in ([1, 2], (), np.ones(2), 1.0, np.float64(1.0), np.array(1.0), "ab", None):
        assert xnp.iterable(v) == jax.numpy.iterable(v), v
    xgrad.grad(lambda x: (assert_iterable(x, False), x)[1])(1.0)
    xgrad.grad(lambda x: xnp.sum((assert_iterable(x, True), x)[1]) * 1.0)(np.ones(2))


def assert_iterable(x, want):
    assert xnp.iterable(x) is want


def test_constructors_from_bytes_strings_iterables(jax):
    jnp = jax.numpy
    buf = np.arange(6, dtype=np.int32).tobytes()
    for kw in ({"dtype": np.int32}, {"dtype": np.int32, "count": 2, "offset": 4},
               {"dtype": np.uint8}):
        got, want = xnp.frombuffer(buf, **kw), jnp.frombuffer(buf, **kw)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype
    b = bytearray(np.ones(2).tobytes())
    out = xnp.frombuffer(b)
    b[:] = bytes(len(b))
    assert out.tolist() == [1.0, 1.0], "frombuffer shares the caller's buffer"
    got, want = xnp.fromstring("1, 2.5, 3", sep=","), jnp.fromstring("1, 2.5, 3", sep=",")
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(xnp.fromiter((i * i for i in range(4)), float),
                                  np.fromiter((i * i for i in range(4)), float))
    with pytest.raises(TypeError, match="frombuffer: dtype"):
        xnp.frombuffer(buf, dtype=object())


# ----- functions of floats: the float dtype of integer and boolean inputs -----
# booleans and 8- and 16-bit integers compute in float32 (jax's dtype; numpy's
# float16 rounds sin(True) to 0.8413), 32- and 64-bit integers in float64
# (numpy's; jax's float32 rounds int32 above 2**24)

_UNARY_FLOATS = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
                 "acosh", "atanh", "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt",
                 "reciprocal", "cbrt", "exp2", "deg2rad", "rad2deg", "sinc", "special.erf",
                 "special.erfc", "special.gammaln", "special.expit", "special.logit",
                 "special.i0", "special.entr"]
_BINARY_FLOATS = ["divide", "atan2", "hypot", "logaddexp", "copysign", "nextafter",
                  "logaddexp2", "float_power", "special.xlogy", "special.rel_entr"]
_NARROW = ["bool", "int8", "uint8", "int16", "uint16"]
_WIDE = ["int32", "uint32", "int64"]
_INT_VALUES = [0, 1, 3, 2, 1, 0, 7, 100]
# numpy's and jax's float32 sin, exp2, lgamma, ... differ by an ulp or two (and
# by 5e-7 absolute near a zero: gammaln(1), sinc(1) in float32)
_TOL = {np.float32: dict(rtol=4e-6, atol=1e-6), np.float64: dict(rtol=1e-13, atol=1e-15)}


def _fn(mod, name):
    for part in name.split("."):
        mod = getattr(mod, part)
    return mod


def _int_args(name, dtype):
    x = np.array(_INT_VALUES, dtype=dtype) if dtype != "bool" else np.array(_INT_VALUES) % 2 == 1
    return (x, x[::-1].copy()) if name in _BINARY_FLOATS else (x,)


@pytest.mark.parametrize("dtype", _NARROW + _WIDE)
@pytest.mark.parametrize("name", _UNARY_FLOATS + _BINARY_FLOATS)
def test_functions_of_floats_give_integers_the_float_dtype(name, dtype):
    """The value (to the float dtype's rounding of the float64 computation),
    and the same dtype and digits under jit (numpy called directly, or the
    impl where numpy's dtype differs) and vmap."""
    f = _fn(xnp, name)
    args = _int_args(name, dtype)
    want_dt = np.float32 if dtype in _NARROW else np.float64
    with np.errstate(all="ignore"):
        out = f(*args)
        ref = np.asarray(f(*(a.astype(np.float64) for a in args))).astype(want_dt)
        assert out.dtype == want_dt
        np.testing.assert_allclose(out, ref, **_TOL[want_dt])
        for got in (xgrad.jit(f)(*args), xgrad.vmap(f)(*args)):
            assert got.dtype == want_dt
            np.testing.assert_array_equal(got, out)


@pytest.mark.parametrize("dtype", _NARROW + ["int32"])
@pytest.mark.parametrize("name", _UNARY_FLOATS + _BINARY_FLOATS)
def test_functions_of_floats_on_integers_match_jax(name, dtype, jax):
    """jax's dtype and digits for booleans and narrow integers; for int32,
    jax's float64 digits (its own answer is float32)."""
    args = _int_args(name, dtype)
    jargs = [jax.numpy.asarray(a if dtype != "int32" else a.astype(np.float64)) for a in args]
    jname = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
             "acosh": "arccosh", "atanh": "arctanh", "atan2": "arctan2"}.get(name, name)
    jmod = jax.scipy if name.startswith("special.") else jax.numpy
    want = np.asarray(_fn(jmod, jname)(*jargs))
    with np.errstate(all="ignore"):
        out = _fn(xnp, name)(*args)
    assert out.dtype == want.dtype
    np.testing.assert_allclose(out, want, **_TOL[want.dtype.type])


def test_functions_of_floats_on_booleans_and_scalars(jax):
    jnp = jax.numpy
    b = np.array([True, False])
    assert xnp.sin(b)[0] == np.sin(np.float32(1.0))         # not float16's 0.8413
    assert abs(float(xnp.sin(b)[0]) - 0.8414709848078965) < 1e-7
    # Python scalars: a boolean alone is float32, an int beside a boolean array is
    # the default integer (float64), float16 stays float16
    i8, h = np.array([1, 2], np.int8), np.array([1.5, 2.5], np.float16)
    for f, args in [(xnp.sin, (True,)), (xnp.divide, (True, False)), (xnp.divide, (b, 2)),
                    (xnp.divide, (i8, 2)), (xnp.atan2, (b, 2)), (xnp.atan2, (i8, 3)),
                    (xnp.atan2, (b, h)), (xnp.atan2, (i8, h)), (xnp.sin, (h,)),
                    (xnp.divide, (b, 2.0))]:
        with np.errstate(all="ignore"):
            got = np.asarray(f(*args))
            want = np.asarray(getattr(jnp, {"atan2": "arctan2"}.get(f.__name__, f.__name__))(
                *[jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]))
        assert got.dtype == want.dtype, (f.__name__, args)
        np.testing.assert_allclose(got, want, rtol=1e-3 if want.dtype == np.float16 else 4e-6)
    # the square of a boolean is int32 (numpy's: int8); of an int8, int8
    for x in (b, i8):
        want = jnp.square(jnp.asarray(x))
        for got in (xnp.square(x), xgrad.jit(xnp.square)(x), xgrad.vmap(xnp.square)(x)):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


def test_integer_arguments_under_derivatives_keep_the_float_dtype(jax):
    """An integer or boolean argument that is not differentiated computes in
    the same dtype under jvp and grad as in the value (the float32 of
    sin(True) times a float64 weight: float64 digits of float32's sine, an
    ulp of float32 from jax's)."""
    jnp = jax.numpy
    w = np.array([0.5, -1.5, 2.0])
    for n in (np.array([True, False, True]), np.array([1, 3, 100], np.int8)):
        def f(ns, w):
            return ns.sum(w * ns.sin(n) + ns.divide(w, n + 1) + ns.arctan2(n, w))
        g = xgrad.grad(lambda w: f(xnp, w))(w)
        jg = jax.grad(lambda w: f(jnp, w))(jnp.asarray(w))
        np.testing.assert_allclose(g, jg, rtol=4e-7)
        t = xgrad.jvp(lambda w: f(xnp, w), (w,), (np.ones(3),))[1]
        jt = jax.jvp(lambda w: f(jnp, w), (jnp.asarray(w),), (jnp.ones(3),))[1]
        np.testing.assert_allclose(t, jt, rtol=4e-7)
        h = xgrad.hessian(lambda w: f(xnp, w) * xnp.sum(w * xnp.sqrt(n)))(w)
        jh = jax.hessian(lambda w: f(jnp, w) * jnp.sum(w * jnp.sqrt(n)))(jnp.asarray(w))
        np.testing.assert_allclose(h, jh, rtol=4e-7)
