"""The worked examples from the project's seed, as tests (closed forms)."""
import math

import numpy as np

import xgrad
import xgrad.numpy as xnp
from helpers import assert_close, from_np


def test_cubic_first_and_second_derivative():
    f = lambda x: x ** 3
    assert float(xgrad.grad(f)(2.0)) == 12.0
    assert float(xgrad.grad(xgrad.grad(f))(2.0)) == 12.0


def test_w1_squared_sin_w2(xp):
    f = lambda w: w[0] ** 2 * xnp.sin(w[1])
    w = from_np(xp, np.array([1.0, math.pi / 2]))
    v = from_np(xp, np.array([0.5, 1.0]))
    assert_close(xgrad.grad(f)(w), [2.0, 0.0], atol=1e-15)
    assert_close(xgrad.hessian(f)(w), [[2.0, 0.0], [0.0, -1.0]], atol=1e-15)
    assert_close(xgrad.hvp(f, (w,), (v,)), [1.0, -1.0], atol=1e-15)


def test_spring_force_and_stiffness():
    k = 2.0
    U = lambda x: k * x ** 2 / 2
    force = lambda x: -xgrad.grad(U)(x)
    assert float(force(1.5)) == -3.0
    assert float(xgrad.grad(force)(1.5)) == -2.0


def test_mse_gradient_closed_form(xp, rng):
    X = rng.normal(size=(20, 3))
    y = rng.normal(size=20)
    w = rng.normal(size=3)

    def mse(w, X, y):
        r = xnp.matmul(X, w) - y     # (array_api_strict arrays do not defer `X @ tracer`)
        return xnp.mean(r * r)

    Xb, yb, wb = (from_np(xp, a) for a in (X, y, w))
    g = xgrad.grad(mse)(wb, Xb, yb)
    expected = 2.0 / 20 * X.T @ (X @ w - y)
    assert_close(g, expected, rtol=1e-12)
