"""xgrad in two minutes: the seed examples, each printed with what it means.

Run:  python examples/quickstart.py
"""
import math

import numpy as np

import xgrad
import xgrad.numpy as xnp


def main():
    print("xgrad quickstart: derivatives of a few small functions\n")

    # 1. y = x^3: slope and curvature
    f = lambda x: x ** 3
    print("y = x^3 at x = 2")
    print(f"  dy/dx   = {float(xgrad.grad(f)(2.0)):g}   (3 x^2 = 12: the slope of the curve)")
    print(f"  d2y/dx2 = {float(xgrad.grad(xgrad.grad(f))(2.0)):g}   (6 x = 12: how fast the slope grows)\n")

    # 2. f(w) = w1^2 sin(w2): gradient, Hessian, Hessian-vector product
    g = lambda w: w[0] ** 2 * xnp.sin(w[1])
    w = np.array([1.0, math.pi / 2])
    v = np.array([0.5, 1.0])
    print("f(w) = w1^2 sin(w2) at w = (1, pi/2), v = (0.5, 1)")
    print(f"  gradient         = {np.round(xgrad.grad(g)(w), 12)}   (2 w1 sin w2, w1^2 cos w2)")
    print(f"  Hessian          =\n{np.round(xgrad.hessian(g)(w), 12)}")
    print(f"  Hessian @ v      = {np.round(xgrad.hvp(g, (w,), (v,)), 12)}   "
          "(computed forward-over-reverse, without forming the Hessian)\n")

    # 3. a spring: energy U = k x^2 / 2; force = -dU/dx; stiffness = d(force)/dx
    k = 2.0
    U = lambda x: k * x ** 2 / 2
    force = lambda x: -xgrad.grad(U)(x)
    print("spring energy U = k x^2 / 2, k = 2, at x = 1.5")
    print(f"  force     F = -dU/dx = {float(force(1.5)):g}   (pulls back towards x = 0)")
    print(f"  stiffness dF/dx      = {float(xgrad.grad(force)(1.5)):g}   "
          "(-k: the restoring force grows linearly)\n")

    # 4. the mean-squared-error gradient of a linear model, against its closed form
    rng = np.random.default_rng(0)
    X, y, wt = rng.normal(size=(50, 3)), rng.normal(size=50), rng.normal(size=3)
    mse = lambda w: xnp.mean((X @ w - y) ** 2)
    g_auto = xgrad.grad(mse)(wt)
    g_closed = 2 / len(y) * X.T @ (X @ wt - y)
    print("MSE of a linear model w @ x over 50 samples")
    print(f"  grad (xgrad)        = {g_auto}")
    print(f"  grad (2/n X^T r)    = {g_closed}")
    print(f"  largest difference  = {np.max(np.abs(g_auto - g_closed)):.1e}   (rounding only)")


if __name__ == "__main__":
    main()
