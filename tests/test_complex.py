"""Complex numbers follow JAX's conventions: grad of a real function of a
complex input, holomorphic=True on grad/jacfwd/jacrev, and the errors that
name the flag."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from helpers import assert_close

Z = np.array([1.0 + 2.0j, -0.5 + 0.3j, 0.7 - 1.1j])


def test_grad_of_real_function_of_complex_input(jax):
    import jax.numpy as jnp
    for fx, fj in [(lambda z: xnp.sum(xnp.abs(z) ** 2), lambda z: jnp.sum(jnp.abs(z) ** 2)),
                   (lambda z: xnp.sum(xnp.real(z * z) + xnp.imag(z) ** 3),
                    lambda z: jnp.sum(jnp.real(z * z) + jnp.imag(z) ** 3)),
                   (lambda z: xnp.sum(xnp.abs(xnp.exp(z))), lambda z: jnp.sum(jnp.abs(jnp.exp(z))))]:
        assert_close(xgrad.grad(fx)(Z), jax.grad(fj)(Z), rtol=1e-12)


def test_holomorphic_grad_and_jacobians(jax):
    import jax.numpy as jnp
    z = Z[0]
    assert_close(xgrad.grad(lambda z: xnp.sin(z) * z, holomorphic=True)(z),
                 jax.grad(lambda z: jnp.sin(z) * z, holomorphic=True)(z), rtol=1e-12)
    f, fj = (lambda z: xnp.exp(z) * z ** 2), (lambda z: jnp.exp(z) * z ** 2)
    assert_close(xgrad.jacfwd(f, holomorphic=True)(Z), jax.jacfwd(fj, holomorphic=True)(Z),
                 rtol=1e-12)
    assert_close(xgrad.jacrev(f, holomorphic=True)(Z), jax.jacrev(fj, holomorphic=True)(Z),
                 rtol=1e-12)


def test_complex_jvp_and_vjp(jax):
    import jax.numpy as jnp
    t = np.array([0.3 - 1j, 1j, 2.0 + 0j])
    u = np.array([1.0 + 1j, -0.5j, 0.25 + 0j])
    f, fj = (lambda z: xnp.conj(z) * xnp.tanh(z)), (lambda z: jnp.conj(z) * jnp.tanh(z))
    assert_close(xgrad.jvp(f, (Z,), (t,))[1], jax.jvp(fj, (Z,), (t,))[1], rtol=1e-12)
    assert_close(xgrad.vjp(f, Z)[1](u)[0], jax.vjp(fj, Z)[1](u)[0], rtol=1e-12)


def test_closed_form_holomorphic_derivative():
    # d/dz z^3 = 3 z^2
    assert_close(xgrad.grad(lambda z: z ** 3, holomorphic=True)(Z[2]), 3 * Z[2] ** 2, rtol=1e-13)


def test_errors_name_the_flag():
    with pytest.raises(TypeError, match="holomorphic=True"):
        xgrad.jacfwd(lambda z: z * 2)(Z)
    with pytest.raises(TypeError, match="holomorphic=True"):
        xgrad.jacrev(lambda x: x * (1 + 1j))(np.ones(2))
    with pytest.raises(TypeError, match="complex inputs"):
        xgrad.grad(lambda x: x * (1 + 1j), holomorphic=True)(1.0)
    with pytest.raises(TypeError, match="complex output"):
        xgrad.grad(lambda z: xnp.real(z), holomorphic=True)(Z[0])
