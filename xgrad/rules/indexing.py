"""Indexing: gather (``x[idx]``) and its two transposes, ``index_add``
(scatter-add, for the VJP of a gather) and ``index_set`` (the functional
update behind ``x[idx] = v`` on a traced value).

``idx`` is a normalised static index: Python ints, slices, None, Ellipsis
and concrete integer or boolean arrays (traced index arrays are replaced by
their concrete values: an index has no derivative).

``gather`` and ``scatter`` take the index as an operand instead: flat
positions ``pos`` (an integer array of any shape) into a 1-D ``x``. They
serve what a static index cannot: an index without a concrete value (one
that differs per example under ``vmap``: their batching rules fold the batch
into the positions) and the scatters with an order (``op="max"``/``"min"``,
behind ``x.at[i].max/min``), whose derivative at ties is JAX's equal share
among ``x`` and every write equal to the result, a linear map with constant
coefficients (so an infinite or huge entry never meets ``inf * 0``).
"""
from __future__ import annotations

import math

import array_api_compat

from . import defprim
from . import _batching as B
from ._cotangent import Scattered
from .. import numpy as xnp
from ..backends import (backend_of, is_inexact, index_add as _backend_index_add,
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


# ----- gather / scatter at flat positions (an index operand) -----

def _gather_impl(xp, x, pos):
    k = math.prod(pos.shape)
    return xp.reshape(xp.take(x, xp.reshape(pos, (k,)), axis=0), tuple(pos.shape))


def _scatter_impl(xp, x, v, pos, *, op):
    k = math.prod(pos.shape)
    p = xp.reshape(pos, (k,))
    v = xp.reshape(v, (k,))
    if op == "set":
        return _backend_index_set(xp, x, p, v)
    if op == "add":
        return _backend_index_add(xp, x, p, v)
    return _index_extremum(xp, x, p, v, op)


def _index_extremum(xp, x, p, v, op):
    """``x`` with ``x[p[j]] = op(x[p[j]], v[j])`` for every ``j`` (repeated
    positions: every write applies), in ``x``'s own dtype: the best write
    per position comes from two stable sorts (by value, then by position:
    the last of each run of one position is its best; NaN sorts last, so it
    wins, as ``maximum`` propagates it), then one gather and one write at
    distinct positions. O(k log k) for k writes, whatever the repetition."""
    dt = x.dtype
    is_bool = dt == xp.bool
    if is_bool:                               # order-preserving, and sortable everywhere
        x, v = xp.astype(x, xp.uint8), xp.astype(v, xp.uint8)
    out = xp.asarray(x, copy=True)
    if p.shape[0] == 0:
        return xp.astype(out, dt) if is_bool else out
    # a key whose ascending order is the op's (min: reversed, NaN still last)
    key = v if op == "max" else (-v if xp.isdtype(v.dtype, "real floating")
                                 else xp.bitwise_invert(v))
    o1 = xp.argsort(key, stable=True)
    o2 = xp.argsort(xp.take(p, o1), stable=True)
    order = xp.take(o1, o2)
    sp = xp.take(p, order)
    dev = array_api_compat.device(sp)
    last = xp.concat((sp[1:] != sp[:-1], xp.ones((1,), dtype=xp.bool, device=dev)))
    best = xp.take(v, order)
    cur = xp.take(out, sp)
    new = xp.maximum(cur, best) if op == "max" else xp.minimum(cur, best)
    # the best write of each position lands there, every other one in a spare
    # slot past the end (no boolean mask: lazy backends keep known shapes)
    n = out.shape[0]
    dest = xp.where(last, sp, xp.asarray(n, dtype=sp.dtype, device=dev))
    spare = xp.concat((out, xp.zeros((1,), dtype=out.dtype, device=dev)))
    out = _backend_index_set(xp, spare, dest, new)[:n]
    return out != 0 if is_bool else out


def _tie_shares(ans, x, v, pos):
    """Which entries of ``x`` and of ``v`` equal the result of a max/min
    scatter at their position, and the count of such entries per position
    (at least 1, so that a NaN result, which equals nothing, gets the
    derivative 0 everywhere, as JAX's)."""
    dt = ans.dtype if is_inexact(ans.dtype) else "float64"
    zeros = xnp._zeros_like(ans, dtype=dt)
    touched = xnp._scatter(zeros, xnp._zeros_like(pos, dtype=dt) + 1, pos, "add") > 0
    cx = xnp.logical_or(ans == x, xnp.logical_not(touched))   # untouched: x itself, even NaN
    cv = xnp._gather(ans, pos) == v
    count = xnp.add(xnp.astype(cx, dt), xnp._scatter(zeros, xnp.astype(cv, dt), pos, "add"))
    return cx, cv, xnp.maximum(count, 1)


def _scatter_jvp_x(x_dot, ans, x, v, pos, *, op):
    if op == "add":
        return x_dot
    if op == "set":
        return xnp._scatter(x_dot, xnp._zeros_like(v, dtype=x_dot.dtype), pos, "set")
    cx, _, count = _tie_shares(ans, x, v, pos)
    return xnp.where(cx, xnp.divide(x_dot, count), 0.0)


def _scatter_jvp_v(v_dot, ans, x, v, pos, *, op):
    zeros = xnp._zeros_like(ans, dtype=v_dot.dtype)
    if op in ("add", "set"):
        return xnp._scatter(zeros, v_dot, pos, op)
    _, cv, count = _tie_shares(ans, x, v, pos)
    return xnp.divide(xnp._scatter(zeros, xnp.where(cv, v_dot, 0.0), pos, "add"), count)


def _scatter_vjp_x(ans, x, v, pos, *, op):
    if op == "add":
        return lambda g: g
    if op == "set":
        return lambda g: xnp._scatter(g, xnp._zeros_like(v, dtype=g.dtype), pos, "set")
    cx, _, count = _tie_shares(ans, x, v, pos)
    return lambda g: xnp.where(cx, xnp.divide(g, count), 0.0)


def _scatter_vjp_v(ans, x, v, pos, *, op):
    if op == "add":
        return lambda g: xnp._gather(g, pos)
    if op == "set":
        # only the write that won at a repeated position gets its entry (as
        # index_set's VJP): replay the writes on their ids
        xp = backend_of(pos)
        ids = xp.reshape(xp.arange(math.prod(pos.shape), dtype=xp.int64,
                                   device=xnp._device_of(pos)), tuple(pos.shape))
        tag = xnp._scatter(xnp._zeros_like(ans, dtype="int64"), ids, pos, "set")
        won = xnp._gather(tag, pos) == ids
        return lambda g: xnp.where(won, xnp._gather(g, pos), 0.0)
    _, cv, count = _tie_shares(ans, x, v, pos)
    return lambda g: xnp.where(cv, xnp._gather(xnp.divide(g, count), pos), 0.0)


defprim("gather", _gather_impl, nargs=2, family="indexing", linear=True, nondiff=(1,),
        vjp=(lambda ans, x, pos: lambda g: xnp._scatter(xnp._zeros_like(x, dtype=g.dtype), g,
                                                        pos, "add"), None),
        batch=B.gather_rule)
defprim("scatter", _scatter_impl, nargs=3, family="indexing", nondiff=(2,),
        jvp=(_scatter_jvp_x, _scatter_jvp_v, None), vjp=(_scatter_vjp_x, _scatter_vjp_v, None),
        batch=B.flat_scatter_rule)
