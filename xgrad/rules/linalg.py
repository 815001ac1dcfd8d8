"""Matrix products. (The ``linalg`` extension's decompositions come later.)"""
from __future__ import annotations

from . import defprim
from ._batching import matmul_rule
from .. import numpy as xnp


def _mT(a):
    return xnp.matrix_transpose(a)


def _matmul_vjp_x(ans, x, y):
    xn, yn = x.ndim, y.ndim

    def vjp(g):
        if xn == 1 and yn == 1:
            return xnp.multiply(g, y)
        if yn == 1:                                  # (..., n, k) @ (k,)
            return xnp.multiply(xnp.expand_dims(g, axis=-1), y)
        if xn == 1:                                  # (k,) @ (..., k, m)
            return xnp.matmul(y, xnp.expand_dims(g, axis=-1))[..., 0]
        return xnp.matmul(g, _mT(y))
    return vjp


def _matmul_vjp_y(ans, x, y):
    xn, yn = x.ndim, y.ndim

    def vjp(g):
        if xn == 1 and yn == 1:
            return xnp.multiply(g, x)
        if xn == 1:                                  # (k,) @ (..., k, m)
            return xnp.multiply(xnp.expand_dims(x, axis=-1), xnp.expand_dims(g, axis=-2))
        if yn == 1:                                  # (..., n, k) @ (k,)
            return xnp.matmul(_mT(x), xnp.expand_dims(g, axis=-1))[..., 0]
        return xnp.matmul(_mT(x), g)
    return vjp


defprim("matmul", lambda xp, x, y: xp.matmul(x, y), nargs=2, linear=True,
        vjp=(_matmul_vjp_x, _matmul_vjp_y), domain=(-2.0, 2.0),
        batch=matmul_rule)
