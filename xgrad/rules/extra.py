"""Sorting and searching: the rows behind ``xgrad.numpy``'s ``argsort``,
``sort`` and ``searchsorted`` (user functions in ``xgrad/numpy/_extra.py``).

``sort`` is not a row of its own: it is ``permute_along(x, argsort(x))``,
a gather by a permutation, whose VJP is the gather by the inverse
permutation (``argsort`` of the permutation). So the derivative of ``sort``
exists to any order, and under ``vmap`` the permutation may be batched too
(``vmap(grad(sort-based loss))``, per-example). ``argsort`` and
``searchsorted`` have integer outputs: no derivative rules, only batching
rules.

``axis`` arrives normalised by the user functions: a non-negative int.
The batching rules are here, beside their rows (they are specific to these
three primitives).
"""
from __future__ import annotations

from . import defprim
from ..core import bind
from .. import numpy as xnp


# ----- batching rules -----

def _axis_shift(prim):
    """One-argument op along ``axis`` that keeps the shape: the axis moves
    past the batch axis, which stays where it is."""
    def rule(vals, bdims, *, axis, **params):
        (v,), (b,) = vals, bdims
        return bind(prim, v, axis=axis + (axis >= b), **params), b
    return rule


def _front(v, b, size):
    """``v`` with its batch axis first (an unbatched ``v`` is broadcast)."""
    s = tuple(v.shape)
    if b is None:
        return xnp.broadcast_to(xnp.reshape(v, (1,) + s), (size,) + s)
    if b == 0:
        return v
    order = [b] + [i for i in range(len(s)) if i != b]
    return xnp.permute_dims(v, tuple(order))


def _permute_along_batch(prim):
    """``x`` and the permutation share one batch axis: kept in place when
    both have it at the same position, otherwise both go in front (the
    unbatched one is broadcast, as ``take_along_axis`` wants equal ranks)."""
    def rule(vals, bdims, *, axis):
        (x, idx), (bx, bi) = vals, bdims
        if bx is not None and bx == bi:
            return bind(prim, x, idx, axis=axis + (axis >= bx)), bx
        size = x.shape[bx] if bx is not None else idx.shape[bi]
        return bind(prim, _front(x, bx, size), _front(idx, bi, size), axis=axis + 1), 0
    return rule


def _sort_less(a, b):
    """``a < b`` in the sorting order of the standard (NaN after everything)."""
    return xnp.logical_or(xnp.less(a, b),
                          xnp.logical_and(xnp.logical_not(xnp.isnan(a)), xnp.isnan(b)))


def _searchsorted_batch(prim):
    """Unbatched sorted ``x1``: ``searchsorted`` is elementwise in ``x2``, so
    the batch axis of ``x2`` stays put. Batched ``x1``: one comparison count
    over the whole batch (``left``: how many ``x1`` sort before ``v``;
    ``right``: how many do not sort after it), no loop over examples."""
    def rule(vals, bdims, *, side):
        (x1, x2), (b1, b2) = vals, bdims
        if b1 is None:
            return bind(prim, x1, x2, side=side), b2
        size = x1.shape[b1]
        a = _front(x1, b1, size)                  # (B, n)
        v = _front(x2, b2, size)                  # (B, *s)
        k = v.ndim - 1
        a = xnp.reshape(a, (size,) + (1,) * k + (a.shape[1],))
        v = xnp.expand_dims(v, axis=-1)
        hit = _sort_less(a, v) if side == "left" else xnp.logical_not(_sort_less(v, a))
        return xnp.sum(xnp.astype(hit, xnp.int64), axis=-1), 0
    return rule


# ----- no derivative (integer outputs) -----
argsort_p = defprim(
    "argsort",
    lambda xp, x, *, axis, descending, stable: xp.argsort(
        x, axis=axis, descending=descending, stable=stable),
    family="sort", batch=_axis_shift)

searchsorted_p = defprim(
    "searchsorted",
    lambda xp, x1, x2, *, side: xp.searchsorted(x1, x2, side=side),
    nargs=2, family="sort", batch=_searchsorted_batch)


# ----- gather by a permutation along an axis (linear in x) -----
def _permute_along_vjp(ans, x, idx, *, axis):
    def vjp(g):
        inv = xnp.argsort(idx, axis=axis)          # the inverse permutation
        return bind(permute_along_p, g, inv, axis=axis)
    return vjp


permute_along_p = defprim(
    "permute_along",
    lambda xp, x, idx, *, axis: xp.take_along_axis(x, idx, axis=axis),
    family="indexing", linear=True, nargs=2, nondiff=(1,),
    vjp=(_permute_along_vjp, None),
    batch=_permute_along_batch)
