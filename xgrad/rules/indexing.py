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
from ._cotangent import Scattered
from .. import numpy as xnp
from ..backends import (backend_of, index_add as _backend_index_add,
                        index_set as _backend_index_set, index_winners as _index_winners)

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
    # a lazy scatter (rules/_cotangent.py): the backward pass sums the
    # cotangents of several gathers from one array into one array
    shape, drop = x.shape, _without_newaxes(idx, x.ndim)
    if drop is None:
        return lambda g: Scattered(shape, ((idx, g),))
    idx2, axes = drop

    def vjp(g):
        g = xnp.reshape(g, tuple(n for i, n in enumerate(g.shape) if i not in axes))
        return Scattered(shape, ((idx2, g),))
    return vjp


defprim("getitem", lambda xp, x, *, idx: x[idx], family="indexing", linear=True, vjp=_getitem_vjp,
        batch=B.getitem_rule)

# index_add: repeated indices accumulate (numpy's np.add.at), so every write
# gets the whole cotangent of its position: the VJP of v is the plain gather.
defprim("index_add", lambda xp, x, v, *, idx: _backend_index_add(xp, x, idx, v),
        nargs=2, family="indexing", linear=True,
        jvp=(lambda x_dot, ans, x, v, *, idx: x_dot,
             lambda v_dot, ans, x, v, *, idx: xnp._index_add(xnp._zeros_like(ans), v_dot, idx)),
        vjp=(lambda ans, x, v, *, idx: lambda g: g,
             lambda ans, x, v, *, idx: _update_vjp(ans, v, idx, None)),
        batch=B.scatter_rule)


def _update_vjp(ans, v, idx, won):
    """The cotangent of ``v`` in an update of ``x`` at ``idx``: ``g[idx]``,
    masked to the writes that won (``won``, or None).

    NB: the one place a rule sums a cotangent down. The engine sums a
    broadcast cotangent back to an input whose shape differs from the
    output's, but ``v`` broadcasts against the region ``x[idx]``, not ``x``:
    in ``x[[0, 0]] = v`` with ``x`` and ``v`` of shape (1,) the region is
    (2,) and the engine sees nothing to do; and numpy lets ``v`` have
    leading size-1 axes the region lacks (``x[0] = v``, ``v`` (1, 3) for
    ``x`` (2, 3)), which no unbroadcast undoes. The check is on shapes, in
    the backward pass, so a forward pass pays nothing for it."""
    vs, s = tuple(v.shape), tuple(ans.shape)

    def vjp(g):
        c = g[idx] if won is None else xnp.where(won, g[idx], 0.0)
        cs = tuple(c.shape)
        if cs == vs or (vs != s and len(vs) <= len(cs)):
            return c                    # nothing to sum, or the engine sums
        if len(vs) > len(cs):
            c = xnp.reshape(c, (1,) * (len(vs) - len(cs)) + cs)
        return xnp._unbroadcast(c, vs)
    return vjp


def _index_set_vjp_v(ans, x, v, *, idx):
    """The cotangent of ``v`` in ``x[idx] = v``: ``g[idx]``, but with a
    repeated integer index only the write that won gets its entry. Plain
    ``g[idx]`` breaks on ``x[[0, 0, 2]] = v``: position 0 holds ``v[1]``, yet
    ``g[0]`` would go to ``v[0]`` as well, so jacrev gave d x[0]/d v[0] = 1
    where jacfwd (and the value) say 0. The mask is a constant, computed once
    from the static index (nothing to do without integer index arrays); a
    broadcast ``v`` then gets the sum over the entries that won (the engine's
    unbroadcast)."""
    # None (the plain path) at once for ints, slices and masks
    return _update_vjp(ans, v, idx, _index_winners(backend_of(ans), tuple(ans.shape), idx))


defprim("index_set", lambda xp, x, v, *, idx: _backend_index_set(xp, x, idx, v), nargs=2,
        family="indexing", linear=True,
        jvp=(lambda x_dot, ans, x, v, *, idx: xnp._index_set(x_dot, 0.0, idx),
             lambda v_dot, ans, x, v, *, idx: xnp._index_set(xnp._zeros_like(ans), v_dot, idx)),
        vjp=(lambda ans, x, v, *, idx: lambda g: xnp._index_set(g, 0.0, idx),
             _index_set_vjp_v),
        batch=B.scatter_rule)
