"""Shape and data-movement primitives: all linear, so each VJP is the
transposed movement (reshape back, inverse permutation, sum over broadcast
axes, slices of a concatenation, ...)."""
from __future__ import annotations

from . import defprim, Variadic
from . import _batching as B
from .. import numpy as xnp
from ..backends import dtype_in, is_inexact, is_complex, backend_of

# ----- reshape / transpose / broadcast -----
defprim("reshape", lambda xp, x, *, shape: xp.reshape(x, shape), family="shape", linear=True,
        vjp=lambda ans, x, *, shape: (lambda g, s=x.shape: xnp.reshape(g, s)),
        batch=B.reshape_rule)


def _inverse_perm(axes):
    inv = [0] * len(axes)
    for i, a in enumerate(axes):
        inv[a] = i
    return tuple(inv)


defprim("permute_dims", lambda xp, x, *, axes: xp.permute_dims(x, axes),
        family="shape", linear=True,
        vjp=lambda ans, x, *, axes: (lambda g, inv=_inverse_perm(axes): xnp.permute_dims(g, inv)),
        batch=B.permute_rule)
defprim("broadcast_to", lambda xp, x, *, shape: xp.broadcast_to(x, shape),
        family="shape", linear=True,
        vjp=lambda ans, x, *, shape: (lambda g, s=x.shape: xnp._unbroadcast(g, s)),
        batch=B.broadcast_rule)
defprim("flip", lambda xp, x, *, axis: xp.flip(x, axis=axis), family="shape", linear=True,
        vjp=lambda ans, x, *, axis: lambda g: xnp.flip(g, axis=axis),
        batch=B.axes_shift)


def _neg_shift(shift):
    return tuple(-s for s in shift) if isinstance(shift, tuple) else -shift


defprim("roll", lambda xp, x, *, shift, axis: xp.roll(x, shift, axis=axis),
        family="shape", linear=True,
        vjp=lambda ans, x, *, shift, axis: lambda g: xnp.roll(g, _neg_shift(shift), axis=axis),
        batch=B.roll_rule)
defprim("tril", lambda xp, x, *, k: xp.tril(x, k=k), family="shape", linear=True,
        vjp=lambda ans, x, *, k: lambda g: xnp.tril(g, k=k),
        batch=B.matrix_op)
defprim("triu", lambda xp, x, *, k: xp.triu(x, k=k), family="shape", linear=True,
        vjp=lambda ans, x, *, k: lambda g: xnp.triu(g, k=k),
        batch=B.matrix_op)


# ----- concatenation (any number of arguments) -----
def _concat_jvp(i, x_dot, ans, *xs, axis):
    parts = [x_dot if j == i else xnp._zeros_like(x) for j, x in enumerate(xs)]
    return xnp.concat(parts, axis=axis)


def _concat_jvp_joint(tangents, ans, *xs, axis):
    parts = [xnp._zeros_like(x) if t is None else t for t, x in zip(tangents, xs)]
    return xnp.concat(parts, axis=axis)


def _concat_vjp(i, ans, *xs, axis):
    ax = 0 if axis is None else axis
    start = 0
    for x in xs[:i]:
        start += 1 if x.ndim == 0 else (x.size if axis is None else x.shape[ax])
    x = xs[i]
    stop = start + (x.size if axis is None else x.shape[ax])
    shape = x.shape

    def vjp(g):
        idx = (slice(None),) * ax + (slice(start, stop), Ellipsis)
        return xnp.reshape(g[idx], shape) if axis is None else g[idx]
    return vjp


defprim("concat", lambda xp, *xs, axis: xp.concat(xs, axis=axis), family="shape", linear=True,
        jvp=Variadic(_concat_jvp), vjp=Variadic(_concat_vjp), jvp_joint=_concat_jvp_joint,
        batch=B.concat_rule)


# ----- dtype conversion -----
def _astype_impl(xp, x, *, dtype, copy):
    return xp.astype(x, dtype_in(xp, dtype), copy=copy)


def _astype_jvp(x_dot, ans, x, *, dtype, copy):
    if not is_inexact(ans.dtype):
        return None
    return xnp.astype(x_dot, ans.dtype)


def _astype_vjp(ans, x, *, dtype, copy):
    if not (is_inexact(ans.dtype) and is_inexact(x.dtype)):
        return None
    src = x.dtype
    real = not is_complex(src)

    def vjp(g):
        if real and is_complex(g.dtype):
            g = xnp.real(g)
        return xnp.astype(g, dtype_in(backend_of(g), src))
    return vjp


defprim("astype", _astype_impl, jvp=_astype_jvp, vjp=_astype_vjp,
        family="elementwise", linear=True)
