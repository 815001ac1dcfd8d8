"""Reverse mode's fast paths (one- and two-argument primitives on plain
arrays, factors ``g * d`` kept in the record): values against closed forms,
with broadcasting, dtype promotion, closed-over arrays written after the
call, a second order on top, and array_api_strict."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp


def test_broadcast_factor_sums_back():
    x = np.linspace(-1.0, 1.0, 3).reshape(3, 1)
    c = np.arange(1.0, 5.0).reshape(1, 4)
    g = xgrad.grad(lambda x: xnp.sum(xnp.sin(x) * c))(x)
    np.testing.assert_allclose(g, np.cos(x) * c.sum(), rtol=1e-14)
    gc = xgrad.grad(lambda c: xnp.sum(xnp.sin(x) * c))(c)
    np.testing.assert_allclose(gc, np.broadcast_to(np.sin(x).sum(), (1, 4)), rtol=1e-14)


def test_factor_dtype_follows_the_input():
    x = np.array([0.5, -0.25], dtype=np.float32)
    c = np.array([2.0, 3.0])                          # float64: the product promotes
    g = xgrad.grad(lambda x: xnp.sum(xnp.exp(x) * c))(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, np.exp(x.astype(np.float64)) * c, rtol=1e-6)


def test_same_tracer_twice_and_scalar_sides():
    x = np.array([1.5, -2.0, 0.25])
    g = xgrad.grad(lambda x: xnp.sum(x * x + 2.0 * x - x * 3.0 + x / 4.0))(x)
    np.testing.assert_allclose(g, 2 * x + 2.0 - 3.0 + 0.25, rtol=1e-14)


def test_vjp_fn_owns_the_factor():
    x = np.array([1.0, 2.0, 3.0])
    c = np.array([4.0, 5.0, 6.0])
    _, f_vjp = xgrad.vjp(lambda x: xnp.tanh(x) * c, x)
    want = (1 - np.tanh(x) ** 2) * c
    c[:] = 0.0                                          # the caller writes its array afterwards
    np.testing.assert_allclose(f_vjp(np.ones(3))[0], want, rtol=1e-14)
    np.testing.assert_allclose(f_vjp(np.ones(3))[0], want, rtol=1e-14)   # tape kept


def test_second_order_through_factors():
    x = np.array([0.3, -0.7, 1.1])
    f = lambda x: xnp.sum(x * x * xnp.sin(x))     # noqa: E731
    h = xgrad.hessian(f)(x)
    want = 2 * np.sin(x) + 4 * x * np.cos(x) - x * x * np.sin(x)
    np.testing.assert_allclose(h, np.diag(want), rtol=1e-12, atol=1e-14)
    hv = xgrad.jvp(xgrad.grad(f), (x,), (np.ones(3),))[1]
    np.testing.assert_allclose(hv, want, rtol=1e-12)


def test_nan_safe_where_with_factors():
    x = np.array([-1.0, 4.0])
    g = xgrad.grad(lambda x: xnp.sum(xnp.where(x > 0, xnp.sqrt(x), 0.0) * 3.0))(x)
    np.testing.assert_allclose(g, [0.0, 3.0 * 0.5 / 2.0], rtol=1e-14)


def test_array_api_strict():
    xps = pytest.importorskip("array_api_strict")
    x = xps.asarray([0.5, 1.5])
    c = xps.asarray([2.0, -1.0])
    g = xgrad.grad(lambda x: xnp.sum(xnp.cos(x) * c))(x)
    assert type(g) is type(x)
    np.testing.assert_allclose(np.asarray(g), -np.sin([0.5, 1.5]) * np.array([2.0, -1.0]), rtol=1e-14)
