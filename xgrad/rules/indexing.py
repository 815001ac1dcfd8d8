"""Indexing: gather (``x[idx]``) and its two transposes, ``index_add``
(scatter-add, for the VJP of a gather) and ``index_set`` (the functional
update behind ``x[idx] = v`` on a traced value).

``idx`` is a normalised static index: Python ints, slices, None, Ellipsis
and concrete integer or boolean arrays (traced index arrays are replaced by
their concrete values: an index has no derivative).
"""
from __future__ import annotations

from . import defprim
from . import _batching as B
from .. import numpy as xnp
from ..backends import index_add as _backend_index_add, index_set as _backend_index_set

def _without_newaxes(idx, ndim):
    """A basic index without its ``None`` entries, and the axes of ``x[idx]``
    they made (size 1), or ``None`` if there is nothing to drop. The scatter
    behind the VJP of ``x[idx]`` gets this index and the cotangent without
    those axes: array_api_strict's setitem rejects None, and a scatter needs
    no new axes (the transpose of inserting an axis is removing it)."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    if not any(p is None for p in parts) or any(hasattr(p, "shape") for p in parts):
        return None
    used = sum(1 for p in parts if p is not None and p is not Ellipsis)
    axes, pos = [], 0
    for p in parts:
        if p is None:
            axes.append(pos)
            pos += 1
        elif p is Ellipsis:
            pos += ndim - used
        elif isinstance(p, slice):
            pos += 1
    return tuple(p for p in parts if p is not None), axes


def _getitem_vjp(ans, x, *, idx):
    # a lazy scatter (transforms/vjp.py): the engine sums the cotangents of
    # several gathers from one array into one array
    from ..transforms.vjp import Scattered
    shape, drop = x.shape, _without_newaxes(idx, x.ndim)
    if drop is None:
        return lambda g: Scattered(shape, ((idx, g),))
    idx2, axes = drop

    def vjp(g):
        g = xnp.reshape(g, tuple(n for i, n in enumerate(g.shape) if i not in axes))
        return Scattered(shape, ((idx2, g),))
    return vjp


defprim("getitem", lambda xp, x, *, idx: x[idx], linear=True, vjp=_getitem_vjp,
        batch=B.getitem_rule)

defprim("index_add", lambda xp, x, v, *, idx: _backend_index_add(xp, x, idx, v),
        nargs=2, linear=False,
        jvp=(lambda x_dot, ans, x, v, *, idx: x_dot,
             lambda v_dot, ans, x, v, *, idx: xnp._index_add(xnp.zeros_like(ans), v_dot, idx)),
        vjp=(lambda ans, x, v, *, idx: lambda g: g,
             lambda ans, x, v, *, idx: lambda g: g[idx]),
        batch=B.scatter_rule)

defprim("index_set", lambda xp, x, v, *, idx: _backend_index_set(xp, x, idx, v), nargs=2,
        jvp=(lambda x_dot, ans, x, v, *, idx: xnp._index_set(x_dot, 0.0, idx),
             lambda v_dot, ans, x, v, *, idx: xnp._index_set(xnp.zeros_like(ans), v_dot, idx)),
        vjp=(lambda ans, x, v, *, idx: lambda g: xnp._index_set(g, 0.0, idx),
             lambda ans, x, v, *, idx: lambda g: g[idx]),
        batch=B.scatter_rule)
