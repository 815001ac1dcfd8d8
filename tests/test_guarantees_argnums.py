"""Guarantee: repeated ``argnums`` are correct for every entry.

NB: JAX gives no defined result for ``argnums=(0, 0)`` (it may raise or
return a wrong entry); xgrad differentiates each repeated argument once and
gives the same derivative in each place it was asked for.
"""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from helpers import assert_close


def f(x, y):
    return xnp.sum(x * x * y)


X, Y = np.array([1.0, -2.0]), np.array([3.0, 0.5])
DX, DY = 2 * X * Y, X * X


@pytest.mark.parametrize("argnums, want", [((0, 0), (DX, DX)), ((1, 0, 1), (DY, DX, DY)),
                                           ((0, -2), (DX, DX)), ((-1, 1), (DY, DY))])
def test_grad_repeated(argnums, want):
    got = xgrad.grad(f, argnums=argnums)(X, Y)
    assert isinstance(got, tuple) and len(got) == len(want)
    for a, b in zip(got, want):
        assert_close(a, b)
    value, got2 = xgrad.value_and_grad(f, argnums=argnums)(X, Y)
    assert_close(value, np.sum(X * X * Y))
    for a, b in zip(got2, want):
        assert_close(a, b)


def test_issue_example():
    g = xgrad.grad(lambda x, y: x * y, argnums=(0, 0))(1.0, 2.0)
    assert [float(v) for v in g] == [2.0, 2.0]


@pytest.mark.parametrize("jac", ["jacfwd", "jacrev"])
def test_jacobians_repeated(jax, jac):
    h = lambda x, y: x * xnp.sin(y)
    got = getattr(xgrad, jac)(h, argnums=(1, 0, 1))(X, Y)
    jh = lambda x, y: x * jax.numpy.sin(y)
    want = getattr(jax, jac)(jh, argnums=(1, 0))(X, Y)
    for a, b in zip(got, (want[0], want[1], want[0])):
        assert_close(a, b)


def test_hessian_repeated(jax):
    got = xgrad.hessian(f, argnums=(0, 0))(X, Y)
    H = jax.hessian(lambda x, y: jax.numpy.sum(x * x * y))(X, Y)
    for row in got:
        for block in row:
            assert_close(block, H)


def test_grad_repeated_pytree_argument():
    p = {"a": np.array([1.0, 2.0]), "b": np.array(3.0)}
    loss = lambda p: xnp.sum(p["a"] ** 2) * p["b"]
    g1, g2 = xgrad.grad(lambda p, q: loss(p), argnums=(0, 0))(p, None)
    for g in (g1, g2):
        assert_close(g["a"], 2 * p["a"] * 3.0)
        assert_close(g["b"], 5.0)
