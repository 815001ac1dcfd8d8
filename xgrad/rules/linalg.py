"""Matrix products. (The ``linalg`` extension's decompositions come later.)"""
from __future__ import annotations

import threading
from contextlib import contextmanager

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
        if xn == 1 and yn > 2:                       # (k,) @ (s..., k, m)
            return xnp.matmul(y, xnp.expand_dims(g, axis=-1))[..., 0]
        # g @ y^T also for a vector x and a matrix y: under vmap g's batch axis
        # becomes rows of one product whose result is batch-first
        return xnp.matmul(g, _mT(y))
    return vjp


def _matmul_vjp_y(ans, x, y):
    xn, yn = x.ndim, y.ndim

    def vjp(g):
        if xn == 1 and yn == 1:
            return xnp.multiply(g, x)
        if xn == 1:                                  # (k,) @ (..., k, m)
            return xnp.multiply(xnp.expand_dims(x, axis=-1), xnp.expand_dims(g, axis=-2))
        if yn == 1 and xn > 2:                       # (s..., n, k) @ (k,)
            return xnp.matmul(_mT(x), xnp.expand_dims(g, axis=-1))[..., 0]
        if yn == 1:                                  # (n, k) @ (k,): g @ x
            return xnp.matmul(g, x)
        return xnp.matmul(_mT(x), g)
    return vjp


# ----- checkpoint policy "dots": matmul results saved in the forward pass
# (transforms/custom.py) are replayed in the recomputation -----
_dots = threading.local()


@contextmanager
def replaying(saved):
    yield from _mode(("replay", saved) if saved is not None else None)


def _mode(mode):
    if mode is None:
        yield
        return
    prev = getattr(_dots, "mode", None)
    _dots.mode = mode
    if mode[0] == "replay":
        mode[1].i = 0
    try:
        yield
    finally:
        _dots.mode = prev


def _matmul_impl(xp, x, y):
    mode = getattr(_dots, "mode", None)
    if mode is None:
        return xp.matmul(x, y)
    saved = mode[1]
    if saved.i < len(saved.values):
        r = saved.values[saved.i]
        saved.i += 1
        if r.shape == xp.broadcast_shapes(x.shape[:-2], y.shape[:-2]) + x.shape[-2:-1] + y.shape[-1:] \
                or x.ndim < 2 or y.ndim < 2:
            return r
    return xp.matmul(x, y)


defprim("matmul", _matmul_impl, nargs=2, linear=True,
        vjp=(_matmul_vjp_x, _matmul_vjp_y), domain=(-2.0, 2.0),
        batch=matmul_rule)
