"""Batching-rule builders used by the rows of the rule table.

A batching rule is ``rule(vals, bdims, **params) -> (out, out_bdim)``:
``vals`` are the arguments with their batch axis (if any) still inside,
``bdims[i]`` is that axis or ``None`` for an unbatched argument. Most rules
move the batch axis to the front (``bdim 0``) and shift axis parameters by
one; elementwise primitives only align ranks. Primitives without a rule fail
loudly in ``vmap`` (no silent Python loop).
"""
from __future__ import annotations

from ..core import bind
from .. import numpy as xnp


def move_to_front(x, bd):
    """The batch axis of ``x`` moved to position 0 (no-op when it is there)."""
    if bd == 0:
        return x
    nd = x.ndim
    return xnp.permute_dims(x, (bd,) + tuple(i for i in range(nd) if i != bd))


def _rank(x, bd):
    nd = len(getattr(x, "shape", ()))
    return nd - (bd is not None)


def elementwise(prim):
    """Broadcasting elementwise op: batched arguments get the batch axis in
    front and size-1 axes after it up to the output rank; unbatched ones
    broadcast from the right as usual."""
    def rule(vals, bdims, **params):
        if len(vals) == 1:                    # unary: the batch axis stays put
            return bind(prim, vals[0], **params), bdims[0]
        r = max(_rank(v, b) for v, b in zip(vals, bdims))
        args = []
        for v, b in zip(vals, bdims):
            if b is None:
                args.append(v)
                continue
            v = move_to_front(v, b)
            k = r - (v.ndim - 1)
            if k:
                v = xnp.reshape(v, (v.shape[0],) + (1,) * k + tuple(v.shape[1:]))
            args.append(v)
        return bind(prim, *args, **params), 0
    return rule


def unary_front(prim):
    """One-argument op acting on trailing axes (tril/triu, elementwise with
    params): the batch axis goes first and the op is applied as is."""
    def rule(vals, bdims, **params):
        (v,), (b,) = vals, bdims
        return bind(prim, move_to_front(v, b), **params), 0
    return rule


def reduction(prim, single_axis=False):
    """Reduction/scan with an ``axis`` parameter: batch axis first, axes + 1
    (``axis=None`` means every non-batch axis)."""
    def rule(vals, bdims, *, axis, **params):
        (v,), (b,) = vals, bdims
        v = move_to_front(v, b)
        if single_axis:
            ax = axis + 1
        elif axis is None:
            ax = tuple(range(1, v.ndim))
            if prim.name in ("argmax", "argmin"):
                # flattened arg-reductions: flatten the example axes first
                v = xnp.reshape(v, (v.shape[0], -1))
                return bind(prim, v, axis=1, **params), 0
        else:
            ax = tuple(a + 1 for a in axis) if isinstance(axis, tuple) else axis + 1
        return bind(prim, v, axis=ax, **params), 0
    return rule


def axes_shift(prim):
    """Ops with an ``axis`` parameter where ``None`` means "every axis" and
    the result keeps the input's shape (flip)."""
    def rule(vals, bdims, *, axis, **params):
        (v,), (b,) = vals, bdims
        v = move_to_front(v, b)
        ax = tuple(range(1, v.ndim)) if axis is None else tuple(a + 1 for a in axis)
        return bind(prim, v, axis=ax, **params), 0
    return rule


def reshape_rule(prim):
    def rule(vals, bdims, *, shape):
        (v,), (b,) = vals, bdims
        v = move_to_front(v, b)
        return bind(prim, v, shape=(v.shape[0],) + tuple(shape)), 0
    return rule


def permute_rule(prim):
    def rule(vals, bdims, *, axes):
        (v,), (b,) = vals, bdims
        return bind(prim, v, axes=_perm_with_batch(axes, b)), b
    return rule


def _perm_with_batch(axes, b):
    """Permutation of the batched array that keeps the batch axis at ``b``."""
    rest = [a + (a >= b) for a in axes]
    rest.insert(b, b)
    return tuple(rest)


def broadcast_rule(prim):
    def rule(vals, bdims, *, shape):
        (v,), (b,) = vals, bdims
        v = move_to_front(v, b)
        k = len(shape) - (v.ndim - 1)
        if k:
            v = xnp.reshape(v, (v.shape[0],) + (1,) * k + tuple(v.shape[1:]))
        return bind(prim, v, shape=(v.shape[0],) + tuple(shape)), 0
    return rule


def roll_rule(prim):
    def rule(vals, bdims, *, shift, axis):
        (v,), (b,) = vals, bdims
        v = move_to_front(v, b)
        if axis is None:                      # roll of the flattened example
            shape = tuple(v.shape)
            flat = xnp.reshape(v, (shape[0], -1))
            return xnp.reshape(bind(prim, flat, shift=shift, axis=1), shape), 0
        ax = tuple(a % (v.ndim - 1) + 1 for a in axis) if isinstance(axis, tuple) \
            else axis % (v.ndim - 1) + 1
        return bind(prim, v, shift=shift, axis=ax), 0
    return rule


def concat_rule(prim):
    def rule(vals, bdims, *, axis):
        size = next(v.shape[b] for v, b in zip(vals, bdims) if b is not None)
        args = []
        for v, b in zip(vals, bdims):
            if b is None:
                v = xnp.broadcast_to(xnp.reshape(v, (1,) + tuple(v.shape)),
                                     (size,) + tuple(v.shape))
            else:
                v = move_to_front(v, b)
            if axis is None:
                v = xnp.reshape(v, (size, -1))
            args.append(v)
        return bind(prim, *args, axis=1 if axis is None else axis + 1), 0
    return rule


def matmul_rule(prim):
    """Batch axis in front; 1-D operands become matrices; leading (stack)
    dimensions are padded so that the batch axis lines up."""
    def rule(vals, bdims):
        (x, y), (bx, by) = vals, bdims
        xv = x.ndim - (bx is not None)       # per-example ranks
        yv = y.ndim - (by is not None)
        if bx is not None:
            x = move_to_front(x, bx)
            if xv == 1:
                x = xnp.expand_dims(x, axis=1)   # (B, 1, k)
        if by is not None:
            y = move_to_front(y, by)
            if yv == 1:
                y = xnp.expand_dims(y, axis=2)   # (B, k, 1)
        xr = max(xv, 2) if bx is not None else xv
        yr = max(yv, 2) if by is not None else yv
        lead = max(xr if xr >= 2 else 0, yr if yr >= 2 else 0) - 2
        if bx is not None:
            x = _pad_stack(x, lead - (xr - 2))
        if by is not None:
            y = _pad_stack(y, lead - (yr - 2))
        if bx is None and xv >= 2:
            x = _pad_front(x, lead - (xv - 2))
        if by is None and yv >= 2:
            y = _pad_front(y, lead - (yv - 2))
        out = bind(prim, x, y)
        if bx is not None and xv == 1:
            out = xnp.squeeze(out, axis=-2)
        if by is not None and yv == 1:
            out = xnp.squeeze(out, axis=-1)
        return out, 0
    return rule


def _pad_stack(v, k):
    """Insert k size-1 axes right after the batch axis."""
    if k <= 0:
        return v
    return xnp.reshape(v, (v.shape[0],) + (1,) * k + tuple(v.shape[1:]))


def _pad_front(v, k):
    """Unbatched operand: one size-1 axis for the batch plus k stack axes."""
    return xnp.reshape(v, (1,) * (k + 1) + tuple(v.shape)) if k >= 0 else v


# ----- indexing -----

def _expand_index(idx, ndim):
    """The index as a tuple with Ellipsis expanded (for a per-example rank)."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    n_used = 0
    for p in parts:
        if p is None or p is Ellipsis:
            continue
        if hasattr(p, "dtype") and hasattr(p, "ndim") and _is_bool_dtype(p):
            n_used += p.ndim
        else:
            n_used += 1
    out = []
    seen = False
    for p in parts:
        if p is Ellipsis and not seen:
            out.extend([slice(None)] * (ndim - n_used))
            seen = True
        elif p is not Ellipsis:
            out.append(p)
    return tuple(out)


def _is_bool_dtype(a):
    from ..backends import is_inexact, _dtype_name
    try:
        return _dtype_name(a.dtype) == "bool"
    except TypeError:
        return False


def _is_advanced(p):
    return hasattr(p, "shape") and hasattr(p, "dtype")


def _batched_index(idx, nd_example):
    """(index for the batched array with the batch axis first, out bdim)."""
    parts = _expand_index(idx, nd_example)
    adv = [i for i, p in enumerate(parts) if _is_advanced(p) or isinstance(p, int)]
    has_array = any(_is_advanced(p) for p in parts)
    new = (slice(None),) + parts
    if has_array and adv and adv[-1] - adv[0] + 1 != len(adv):
        # separated advanced indices: numpy puts their dimensions first
        import math
        shapes = [tuple(p.shape) for p in parts if _is_advanced(p)]
        nd_adv = max((len(s) for s in shapes), default=0)
        return new, nd_adv
    return new, 0


def getitem_rule(prim):
    def rule(vals, bdims, *, idx):
        (v,), (b,) = vals, bdims
        v = move_to_front(v, b)
        new, ob = _batched_index(idx, v.ndim - 1)
        return bind(prim, v, idx=new), ob
    return rule


def scatter_rule(prim):
    """index_add / index_set: the operand gets the batch axis in front; the
    update is aligned to the indexed region."""
    def rule(vals, bdims, *, idx):
        (x, v), (bx, bv) = vals, bdims
        size = (x.shape[bx] if bx is not None else v.shape[bv])
        if bx is None:
            x = xnp.broadcast_to(xnp.reshape(x, (1,) + tuple(x.shape)), (size,) + tuple(x.shape))
        else:
            x = move_to_front(x, bx)
        new, ob = _batched_index(idx, x.ndim - 1)
        if ob != 0:
            raise NotImplementedError("vmap of an update at separated integer-array indices")
        if bv is not None:
            v = move_to_front(v, bv)
            region = len(_region_shape(x, new))
            k = region - v.ndim
            if k > 0:
                v = xnp.reshape(v, (v.shape[0],) + (1,) * k + tuple(v.shape[1:]))
        return bind(prim, x, v, idx=new), 0
    return rule


def _region_shape(x, idx):
    from ..backends import backend_of
    xp = backend_of(x)
    probe = xp.zeros(tuple(x.shape), dtype=xp.bool)
    return tuple(probe[idx].shape)
