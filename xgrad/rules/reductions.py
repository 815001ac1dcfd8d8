"""Reductions and scans. ``axis`` arrives normalised by ``xgrad.numpy``:
``None`` or a sorted tuple of non-negative ints."""
from __future__ import annotations

from . import defprim
from ._batching import reduction
from .. import numpy as xnp
from ..backends import backend_of, dtype_in


def _kept_shape(shape, axis):
    """Shape of the reduced result with keepdims=True."""
    if axis is None:
        return (1,) * len(shape)
    return tuple(1 if i in axis else n for i, n in enumerate(shape))


def _expand(g, shape, axis, keepdims):
    """Broadcast a reduced cotangent back to the input's shape."""
    # reduced leading axes come back by broadcasting alone (no reshape)
    if not keepdims and axis is not None and tuple(sorted(axis)) != tuple(range(len(axis))):
        g = xnp.reshape(g, _kept_shape(shape, axis))
    return xnp.broadcast_to(g, shape)


def _sum_impl(xp, x, *, axis, dtype, keepdims):
    return xp.sum(x, axis=axis, dtype=dtype_in(xp, dtype), keepdims=keepdims)


# ----- linear reductions -----
defprim("sum", _sum_impl, family="reduction", linear=True,
        vjp=lambda ans, x, *, axis, dtype, keepdims: (
            lambda g, shape=x.shape: _expand(g, shape, axis, keepdims)),
        domain=(-3.0, 3.0), batch=reduction)


def _cumsum_impl(xp, x, *, axis, include_initial):
    return xp.cumulative_sum(x, axis=axis, include_initial=include_initial)


def _cumsum_vjp(ans, x, *, axis, include_initial):
    def vjp(g):
        if include_initial:   # drop the initial zero's cotangent (a slice: no index array)
            g = g[(slice(None),) * axis + (slice(1, None), Ellipsis)]
        r = xnp.flip(g, axis=axis)
        return xnp.flip(xnp.cumulative_sum(r, axis=axis), axis=axis)
    return vjp


defprim("cumulative_sum", _cumsum_impl, family="reduction", linear=True, vjp=_cumsum_vjp,
        domain=(-3.0, 3.0),
        batch=lambda p: reduction(p, single_axis=True))


# ----- order statistics: ties share the cotangent equally (as JAX) -----
def _chooser_weights(ans, x, axis, keepdims):
    a = ans if keepdims else xnp.reshape(ans, _kept_shape(x.shape, axis))
    mask = xnp.astype(x == a, x.dtype)
    return mask / xnp.sum(mask, axis=axis, keepdims=True)


def _chooser_jvp(x_dot, ans, x, *, axis, keepdims):
    w = _chooser_weights(ans, x, axis, keepdims)
    return xnp.sum(xnp.multiply(x_dot, w), axis=axis, keepdims=keepdims)


def _chooser_vjp(ans, x, *, axis, keepdims):
    w = _chooser_weights(ans, x, axis, keepdims)
    return lambda g: xnp.multiply(_expand(g, x.shape, axis, keepdims), w)


defprim("max", lambda xp, x, *, axis, keepdims: xp.max(x, axis=axis, keepdims=keepdims),
        family="reduction",
        jvp=_chooser_jvp, vjp=_chooser_vjp, domain=(-3.0, 3.0), batch=reduction)
defprim("min", lambda xp, x, *, axis, keepdims: xp.min(x, axis=axis, keepdims=keepdims),
        family="reduction",
        jvp=_chooser_jvp, vjp=_chooser_vjp, domain=(-3.0, 3.0), batch=reduction)


# ----- product: zero-safe "product of the others" -----
def _prod_others(x, axis):
    """d prod / d x_i = prod_{j != i} x_j, exact when some x_j are zero.

    The reduced axes are moved last and flattened to n; an (..., n, n)
    matrix holds x with ones on the diagonal, and its row products are the
    products of the others. O(n^2) work, fine for the small reductions prod
    is used on, and differentiable again to any order.
    """
    nd = x.ndim
    axes = tuple(range(nd)) if axis is None else axis
    keep = [i for i in range(nd) if i not in axes]
    xt = xnp.permute_dims(x, tuple(keep) + tuple(axes))
    kshape = tuple(x.shape[i] for i in keep)
    n = 1
    for i in axes:
        n *= x.shape[i]
    flat = xnp.reshape(xt, kshape + (n,))
    eye = _eye_bool(x, n)
    mat = xnp.where(eye, 1.0, xnp.expand_dims(flat, axis=-2))
    others = xnp.prod(mat, axis=-1)
    others = xnp.reshape(others, kshape + tuple(x.shape[i] for i in axes))
    inv = [0] * nd
    for pos, src in enumerate(tuple(keep) + tuple(axes)):
        inv[src] = pos
    return xnp.permute_dims(others, tuple(inv))


def _eye_bool(x, n):
    xp = backend_of(x)
    return xp.eye(n, dtype=xp.bool)


def _prod_impl(xp, x, *, axis, dtype, keepdims):
    return xp.prod(x, axis=axis, dtype=dtype_in(xp, dtype), keepdims=keepdims)


defprim("prod", _prod_impl, family="reduction",
        jvp=lambda x_dot, ans, x, *, axis, dtype, keepdims: xnp.sum(
            xnp.multiply(x_dot, _prod_others(x, axis)), axis=axis, keepdims=keepdims),
        vjp=lambda ans, x, *, axis, dtype, keepdims: (
            lambda g: xnp.multiply(_expand(g, x.shape, axis, keepdims), _prod_others(x, axis))),
        domain=(0.5, 1.5), batch=reduction)

# ----- no derivative -----
defprim("argmax", lambda xp, x, *, axis, keepdims: xp.argmax(x, axis=axis, keepdims=keepdims),
        family="reduction", batch=lambda p: reduction(p, arg=True))
defprim("argmin", lambda xp, x, *, axis, keepdims: xp.argmin(x, axis=axis, keepdims=keepdims),
        family="reduction", batch=lambda p: reduction(p, arg=True))
defprim("all", lambda xp, x, *, axis, keepdims: xp.all(x, axis=axis, keepdims=keepdims),
        family="reduction", batch=reduction)
defprim("any", lambda xp, x, *, axis, keepdims: xp.any(x, axis=axis, keepdims=keepdims),
        family="reduction", batch=reduction)
