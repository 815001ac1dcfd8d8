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
