"""Matrix products: ``matmul`` with transpose flags ``ta``/``tb`` (set only by
the derivative rules)."""
from __future__ import annotations

from . import defprim
from ..core import bind
from ._batching import matmul_rule
from .. import numpy as xnp


def _mm(x, y, ta=False, tb=False):
    """``op(x) @ op(y)``, op transposing the last two axes where asked: the
    transposes of the matmul VJPs are flags of the product, not ops of their
    own (a ``g @ W^T`` under an outer transform is one recorded op, not two)."""
    return bind(_MATMUL[0], x, y, ta=ta, tb=tb)


_MATMUL = []


def _matmul_vjp_x(ans, x, y, *, ta=False, tb=False):
    # the product is A @ B with A = op(x), B = op(y); dA = g B^T
    xn, yn = x.ndim, y.ndim

    def vjp(g):
        if xn == 1 and yn == 1:
            return xnp.multiply(g, y)
        if yn == 1:                                  # (..., n, k) @ (k,): dA = g y^T
            if ta:
                return xnp.multiply(xnp.expand_dims(y, axis=-1), xnp.expand_dims(g, axis=-2))
            return xnp.multiply(xnp.expand_dims(g, axis=-1), y)
        if xn == 1 and yn > 2:                       # (k,) @ (s..., k, m): B g
            return _mm(y, xnp.expand_dims(g, axis=-1), ta=tb)[..., 0]
        if ta:                                       # dx = dA^T = B g^T
            return _mm(y, g, ta=tb, tb=True)
        # g B^T, also for a vector x: under vmap g's batch axis becomes rows
        # of one product whose result is batch-first
        return _mm(g, y, tb=not tb)
    return vjp


def _matmul_vjp_y(ans, x, y, *, ta=False, tb=False):
    # dB = A^T g
    xn, yn = x.ndim, y.ndim

    def vjp(g):
        if xn == 1 and yn == 1:
            return xnp.multiply(g, x)
        if xn == 1:                                  # (k,) @ (..., k, m): dB = x g^T
            if tb:
                return xnp.multiply(xnp.expand_dims(g, axis=-1), xnp.expand_dims(x, axis=-2))
            return xnp.multiply(xnp.expand_dims(x, axis=-1), xnp.expand_dims(g, axis=-2))
        if yn == 1 and xn > 2:                       # (s..., n, k) @ (k,): A^T g
            return _mm(x, xnp.expand_dims(g, axis=-1), ta=not ta)[..., 0]
        if yn == 1:                                  # (n, k) @ (k,): g A
            return _mm(g, x, tb=ta)
        if tb:                                       # dy = dB^T = g^T A
            return _mm(g, x, ta=True, tb=ta)
        return _mm(x, g, ta=not ta)
    return vjp


def _matmul_impl(xp, x, y, ta=False, tb=False):
    if ta:
        x = xp.matrix_transpose(x)
    if tb:
        y = xp.matrix_transpose(y)
    return xp.matmul(x, y)


_MATMUL.append(defprim("matmul", _matmul_impl, nargs=2, family="dot", bilinear=True,
                       vjp=(_matmul_vjp_x, _matmul_vjp_y), domain=(-2.0, 2.0),
                       batch=matmul_rule))
