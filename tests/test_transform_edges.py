"""The transforms at their API boundary: integer primals, tangents of the
wrong backend, structure mismatches, unsupported dtypes, custom rules that
forward mode cannot use, and the arrays handed to user code. Each case
behaves as JAX does (the oracle where it is installed), or raises a clear
error where JAX raises: never a silent zero or a wrong number."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp

from helpers import assert_close

FLOAT0 = np.dtype([("float0", "V")])      # jax.dtypes.float0, without jax


def _scale(x):
    return x * 2.5


# ----- integer primals -----

@pytest.mark.parametrize("primal, tangent", [(3, 1.0), (np.arange(3), np.ones(3)),
                                             (np.arange(3), np.arange(3)),
                                             (np.array([True]), np.ones(1))])
def test_jvp_integer_primal_with_a_tangent_is_refused(primal, tangent):
    with pytest.raises(TypeError, match=r"jvp: tangents\[0\] has dtype .*integer or boolean "
                                        r"primal has no tangent.*None.*float0"):
        xgrad.jvp(_scale, (primal,), (tangent,))


def test_jvp_integer_primal_as_jax(jax):
    with pytest.raises(TypeError):
        jax.jvp(_scale, (3,), (1.0,))
    with pytest.raises(TypeError):
        xgrad.jvp(_scale, (3,), (1.0,))
    # a float0 tangent (or None, xgrad's symbolic zero) is accepted: the
    # output's tangent is zero, as in JAX
    j_out, j_t = jax.jvp(_scale, (3,), (np.zeros((), dtype=jax.dtypes.float0),))
    for t in (np.zeros((), dtype=FLOAT0), None):
        out, tan = xgrad.jvp(_scale, (3,), (t,))
        assert_close(out, j_out)
        assert_close(tan, j_t)


def test_jvp_integer_primal_beside_a_float_one():
    out, t = xgrad.jvp(lambda x, k: x * k, (2.0, 3), (1.0, None))
    assert float(out) == 6.0 and float(t) == 3.0
    with pytest.raises(TypeError, match=r"tangents\[1\]"):
        xgrad.jvp(lambda x, k: x * k, (2.0, 3), (1.0, 0.0))


def test_float0_tangent_of_a_float_primal_is_refused():
    with pytest.raises(TypeError, match="float0.*float64"):
        xgrad.jvp(_scale, (3.0,), (np.zeros((), dtype=FLOAT0),))


def test_linearize_at_an_integer_primal():
    out, f_jvp = xgrad.linearize(_scale, 3)
    assert float(out) == 7.5
    with pytest.raises(TypeError, match=r"f_jvp: tangents\[0\].*integer or boolean primal"):
        f_jvp(1.0)
    assert float(f_jvp(None)) == 0.0
    assert float(f_jvp(np.zeros((), dtype=FLOAT0))) == 0.0


@pytest.mark.parametrize("name", ["jacfwd", "jacrev", "hessian", "grad", "value_and_grad"])
def test_jacobians_and_grad_refuse_integer_inputs(jax, name):
    f = lambda x: xnp.sum(x * 2.5)         # noqa: E731
    jf = lambda x: jax.numpy.sum(x * 2.5)  # noqa: E731
    with pytest.raises(TypeError):
        getattr(jax, name)(jf)(np.arange(3))
    with pytest.raises(TypeError, match=r"argument 0 has dtype int64.*float"):
        getattr(xgrad, name)(f)(np.arange(3))


def test_hvp_and_laplacian_refuse_integer_inputs():
    f = lambda x: xnp.sum(x ** 3)         # noqa: E731
    with pytest.raises(TypeError, match=r"hvp.*primals\[0\] has dtype int64"):
        xgrad.hvp(f, (np.arange(3),), (np.ones(3),))
    with pytest.raises(TypeError, match=r"laplacian.*int64"):
        xgrad.laplacian(f)(np.arange(3))


def test_vjp_of_an_integer_primal_is_a_zero_of_its_dtype(jax):
    # JAX returns float0 zeros; xgrad (no float0 on every backend) zeros of the
    # primal's own integer dtype: never a float that could pass for a derivative
    out, f_vjp = xgrad.vjp(lambda x, k: x * k, np.array([1.5, 2.0]), np.arange(2))
    gx, gk = f_vjp(np.ones(2))
    _, j_vjp = jax.vjp(lambda x, k: x * k, np.array([1.5, 2.0]), np.arange(2))
    jx, jk = j_vjp(np.ones(2))
    assert_close(gx, jx)
    assert jk.dtype == jax.dtypes.float0
    assert gk.dtype == np.int64 and not np.any(gk)


# ----- structures and backends -----

def test_hvp_with_two_tangents_for_one_primal_is_refused():
    f = lambda x: x ** 3                   # noqa: E731
    with pytest.raises(TypeError, match=r"hvp: 1 primal\(s\) and 2 tangents.*exactly one"):
        xgrad.hvp(f, (3.0,), (1.0, 2.0))
    with pytest.raises(TypeError, match=r"hvp: 2 primal\(s\) and 2 tangents"):
        xgrad.hvp(lambda x, y: x ** 3 * y, (3.0, 2.0), (1.0, 1.0))
    assert float(xgrad.hvp(f, (3.0,), (2.0,))) == 36.0


def test_hvp_tangent_structure_mismatch_is_refused(jax):
    f = lambda p: p["a"] ** 3              # noqa: E731
    with pytest.raises(TypeError):
        jax.jvp(jax.grad(f), ({"a": 3.0},), ({"b": 1.0},))
    with pytest.raises(TypeError, match="structure"):
        xgrad.hvp(f, ({"a": 3.0},), ({"b": 1.0},))


def test_jvp_tangent_of_another_backend_names_both():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match=r"tangents\[0\] is a torch array, but its primal is "
                                        r"a numpy array"):
        xgrad.jvp(_scale, (np.ones(2),), (torch.ones(2, dtype=torch.float64),))


def test_jvp_tangent_of_another_backend_names_both_strict():
    strict = pytest.importorskip("array_api_strict")
    with pytest.raises(TypeError, match=r"array_api_strict array, but its primal is a numpy"):
        xgrad.jvp(_scale, (np.ones(2),), (strict.ones(2, dtype=strict.float64),))


# ----- unsupported dtypes -----

@pytest.mark.parametrize("name", ["grad", "jvp", "vjp", "linearize", "jacfwd"])
def test_longdouble_is_refused_by_name(name):
    x = np.longdouble(3.0)
    if np.dtype(np.longdouble) == np.float64:
        pytest.skip("longdouble is float64 on this platform")
    call = {"grad": lambda: xgrad.grad(_scale)(x),
            "jvp": lambda: xgrad.jvp(_scale, (x,), (x,)),
            "vjp": lambda: xgrad.vjp(_scale, x),
            "linearize": lambda: xgrad.linearize(_scale, x),
            "jacfwd": lambda: xgrad.jacfwd(_scale)(x)}[name]
    with pytest.raises(TypeError, match=rf"{name}: .*dtype {np.dtype(np.longdouble)}, which "
                                        r"xgrad does not support.*float64"):
        call()
