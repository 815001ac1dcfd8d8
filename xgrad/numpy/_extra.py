"""The rest of the array API standard's main namespace: sorting, searching,
set functions, more manipulation and statistics.

Plain arrays go straight to their backend's function (fast, and every special
case is the backend's). Traced values take a composite of differentiable
operations, so derivatives and batching come from rules that exist already:

* differentiable: ``sort`` (a gather by ``argsort``: the ``permute_along``
  row in ``xgrad/rules/extra.py``), ``cumulative_prod`` (a log-depth scan of
  products: exact where entries are zero, any order), ``moveaxis``,
  ``repeat``, ``tile``, ``unstack``, ``diff`` (slices, reshapes, broadcasts);
  the values of ``unique_*`` (a gather at the first occurrences);
* no derivative (integer or boolean outputs): ``argsort`` and
  ``searchsorted`` (rows with batching rules, so they work under ``vmap``),
  ``count_nonzero`` and ``isin`` (comparisons and sums);
* data-dependent shapes (``nonzero``, the indices/counts of ``unique_*``,
  ``repeat`` with an array of repeats): computed from the concrete value
  underneath (the eager model); under ``vmap`` there is none, and they raise
  a ``TypeError`` that says so.

To add a function: write it here and list it in ``__all__``; a primitive it
needs goes in ``xgrad/rules/extra.py``.
"""
from __future__ import annotations

import operator
from typing import NamedTuple

from ..core import Tracer, bind, concrete
from ..backends import backend_of, dtype_in
from ..rules.extra import argsort_p, permute_along_p, searchsorted_p
from . import (_device_of as _device, _norm_axis, any as _any, astype as _astype,
               concat as _concat, equal as _equal, expand_dims as _expand_dims, int64 as _int64,
               logical_not as _logical_not, multiply as _multiply,
               not_equal as _not_equal, permute_dims as _permute_dims,
               reshape as _reshape, broadcast_to as _broadcast_to,
               subtract as _subtract, sum as _sum, take as _take)

__all__ = ["argsort", "sort", "searchsorted", "nonzero", "count_nonzero",
           "unique_all", "unique_counts", "unique_inverse", "unique_values", "isin",
           "cumulative_prod", "diff", "moveaxis", "repeat", "tile", "unstack"]


def _traced(x):
    return isinstance(x, Tracer)


class AxisError(ValueError, IndexError):
    """An axis out of range (both a ValueError and an IndexError, as numpy's)."""


def _axis(axis, ndim, fname):
    """One axis, normalised to a non-negative int; an invalid one raises."""
    a = operator.index(axis)
    if not -ndim <= a < ndim:
        raise AxisError(f"{fname}: axis={axis} is out of range for an array with "
                        f"{ndim} dimension(s)")
    return a % ndim


def _concrete(x, fname, what="its output shape depends on the values"):
    """The concrete value under the tracers (eager model), or a clear error
    where there is none (inside ``vmap``)."""
    try:
        return concrete(x)
    except TypeError as e:
        raise TypeError(
            f"{fname}: {what}, and a value inside vmap has one value per example "
            f"(no single concrete value), so {fname} can't be vmapped. Call it "
            f"outside vmap, or use a fixed-size formulation (xgrad.numpy.where, "
            f"sort, cumulative_sum).") from e


def _slice(x, axis, start, stop):
    """``x[..., start:stop, ...]`` along ``axis`` (a basic index)."""
    return x[(slice(None),) * axis + (slice(start, stop), Ellipsis)]


# --------------------------------------------------------------------------
# sorting

def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """Indices that sort ``x`` along ``axis`` (no derivative).

    Works on traced values, also under ``vmap`` (a row with a batching rule).

    >>> import numpy as np, xgrad.numpy as xnp
    >>> xnp.argsort(np.asarray([3.0, 1.0, 2.0])).tolist()
    [1, 2, 0]
    """
    if not _traced(x):
        return backend_of(x).argsort(x, axis=axis, descending=descending, stable=stable)
    return bind(argsort_p, x, axis=_axis(axis, x.ndim, "argsort"),
                descending=bool(descending), stable=bool(stable))


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """``x`` sorted along ``axis``. Differentiable: the derivative moves with
    the values (a gather by ``argsort``; ties keep a stable order).

    >>> import xgrad, xgrad.numpy as xnp
    >>> xgrad.grad(lambda x: xnp.sort(x)[0] * 10.0)(xnp.asarray([3.0, 1.0, 2.0])).tolist()
    [0.0, 10.0, 0.0]
    """
    if not _traced(x):
        return backend_of(x).sort(x, axis=axis, descending=descending, stable=stable)
    axis = _axis(axis, x.ndim, "sort")
    idx = bind(argsort_p, x, axis=axis, descending=bool(descending), stable=bool(stable))
    return bind(permute_along_p, x, idx, axis=axis)


# --------------------------------------------------------------------------
# searching

def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """Insertion indices of ``x2`` into the sorted 1-D ``x1`` (no derivative;
    works under ``vmap``, also with a batched ``x1``)."""
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if not (_traced(x1) or _traced(x2) or _traced(sorter)):
        return backend_of(x1).searchsorted(x1, x2, side=side, sorter=sorter)
    if x1.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be 1-D, got shape {tuple(x1.shape)}")
    if sorter is not None:
        x1 = bind(permute_along_p, x1, sorter, axis=0)
    return bind(searchsorted_p, x1, x2, side=side)


def nonzero(x, /):
    """Indices of the non-zero elements, one array per axis (no derivative;
    the output shape depends on the values, so not under ``vmap``)."""
    c = _concrete(x, "nonzero")
    return tuple(backend_of(c).nonzero(c))


def count_nonzero(x, /, *, axis=None, keepdims=False):
    """Number of non-zero elements along ``axis`` (no derivative)."""
    if not _traced(x):
        return backend_of(x).count_nonzero(x, axis=axis, keepdims=keepdims)
    nz = x if x.dtype == backend_of(x).bool else _not_equal(x, 0)
    return _sum(_astype(nz, _int64), axis=_norm_axis(axis, x.ndim), keepdims=keepdims)


def isin(x1, x2, /, *, invert=False):
    """Whether each element of ``x1`` is in ``x2`` (array API 2025.12; no
    derivative). A comparison of every pair: works under every transform."""
    if not (_traced(x1) or _traced(x2)):
        xp = backend_of(x1)
        if hasattr(xp, "isin") and "strict" not in xp.__name__:
            return xp.isin(x1, x2, invert=invert)
    hit = _any(_equal(_expand_dims(x1, axis=-1), _reshape(x2, (-1,))), axis=-1)
    return _logical_not(hit) if invert else hit


# --------------------------------------------------------------------------
# set functions: the values are differentiable (a gather at the first
# occurrences), indices and counts are not

class UniqueAllResult(NamedTuple):
    values: object
    indices: object
    inverse_indices: object
    counts: object


class UniqueCountsResult(NamedTuple):
    values: object
    counts: object


class UniqueInverseResult(NamedTuple):
    values: object
    inverse_indices: object


def _unique(x, fname):
    """(values, indices, inverse_indices, counts); ``values`` carries the
    derivative of ``x`` when ``x`` is traced."""
    c = _concrete(x, fname, what="the number of unique values depends on the values")
    res = backend_of(c).unique_all(c)
    values, indices, inverse, counts = res
    if _traced(x):
        values = _take(_reshape(x, (-1,)), indices)
    return values, indices, inverse, counts


def unique_all(x, /):
    """Unique values, first-occurrence indices, inverse indices and counts
    (NaNs are distinct, as the standard says)."""
    return UniqueAllResult(*_unique(x, "unique_all"))


def unique_counts(x, /):
    v, _, _, n = _unique(x, "unique_counts")
    return UniqueCountsResult(v, n)


def unique_inverse(x, /):
    v, _, inv, _ = _unique(x, "unique_inverse")
    return UniqueInverseResult(v, inv)


def unique_values(x, /):
    if not _traced(x):
        return backend_of(x).unique_values(x)
    return _unique(x, "unique_values")[0]


# --------------------------------------------------------------------------
# statistics

def _acc_dtype(xp, dt):
    """The dtype the backend's ``cumulative_prod`` gives for ``dt`` (integer
    inputs are widened to the default integer, as the standard asks)."""
    return xp.cumulative_prod(xp.ones((1,), dtype=dt)).dtype


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Cumulative product along ``axis`` (required unless ``x`` is 1-D).

    Differentiable and exact where entries are zero: on traced values it is a
    log-depth scan (``out[i] *= out[i - d]`` for d = 1, 2, 4, ...), so the
    derivative is the product rule, to any order.
    """
    if not _traced(x):
        return backend_of(x).cumulative_prod(x, axis=axis, dtype=dtype,
                                             include_initial=include_initial)
    if axis is None:
        if x.ndim != 1:
            raise ValueError("cumulative_prod: axis is required for arrays with ndim != 1")
        axis = 0
    axis = _axis(axis, x.ndim, "cumulative_prod")
    xp = backend_of(x)
    target = dtype_in(xp, dtype) if dtype is not None else _acc_dtype(xp, x.dtype)
    if target != x.dtype:
        x = _astype(x, target)
    n = x.shape[axis]
    d = 1
    while d < n:
        head = _slice(x, axis, 0, d)
        tail = _multiply(_slice(x, axis, d, n), _slice(x, axis, 0, n - d))
        x = _concat([head, tail], axis=axis)
        d *= 2
    if include_initial:
        shape = tuple(x.shape)
        shape = shape[:axis] + (1,) + shape[axis + 1:]
        one = xp.ones(shape, dtype=x.dtype, device=_device(x))
        x = _concat([one, x], axis=axis)
    return x


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """``n``-th forward difference along ``axis`` (differentiable in ``x``,
    ``prepend`` and ``append``)."""
    if not (_traced(x) or _traced(prepend) or _traced(append)):
        kw = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
        return backend_of(x).diff(x, axis=axis, n=n, **kw)     # numpy's: None is not "none"
    axis = _axis(axis, x.ndim, "diff")
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}")
    if prepend is not None or append is not None:
        parts = [p for p in (prepend, x, append) if p is not None]
        x = _concat(parts, axis=axis)
    for _ in range(n):
        m = x.shape[axis]
        x = _subtract(_slice(x, axis, 1, m), _slice(x, axis, 0, max(m - 1, 0)))
    return x


# --------------------------------------------------------------------------
# manipulation (composites of permute_dims, reshape, broadcast_to, take)

def moveaxis(x, source, destination, /):
    """Move axes ``source`` to positions ``destination`` (the others keep
    their order)."""
    nd = x.ndim
    src = (source,) if not isinstance(source, (tuple, list)) else tuple(source)
    dst = (destination,) if not isinstance(destination, (tuple, list)) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source {source!r} and destination {destination!r} "
                         f"have different lengths")
    src = tuple(_axis(a, nd, "moveaxis") for a in src)
    dst = tuple(_axis(a, nd, "moveaxis") for a in dst)
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(f"moveaxis: repeated axes in source {source!r} or destination "
                         f"{destination!r}")
    order = [a for a in range(nd) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _permute_dims(x, tuple(order))


def repeat(x, repeats, /, *, axis=None):
    """Repeat each element ``repeats`` times along ``axis`` (flattened when
    ``axis`` is None). Differentiable in ``x``; an array of ``repeats`` is
    read as a concrete value (the output shape depends on it)."""
    if not (_traced(x) or _traced(repeats)):
        return backend_of(x).repeat(x, repeats, axis=axis)
    if axis is None:
        x, axis = _reshape(x, (-1,)), 0
    axis = _axis(axis, x.ndim, "repeat")
    shape = tuple(x.shape)
    if isinstance(repeats, int):
        if repeats < 0:
            raise ValueError(f"repeat: repeats must be non-negative, got {repeats}")
        e = _expand_dims(x, axis=axis + 1)
        big = shape[:axis + 1] + (repeats,) + shape[axis + 1:]
        out = _broadcast_to(e, big)
        return _reshape(out, shape[:axis] + (shape[axis] * repeats,) + shape[axis + 1:])
    reps = _concrete(repeats, "repeat", what="an array of repeats sets the output shape")
    xp = backend_of(reps)
    idx = xp.repeat(xp.arange(shape[axis], device=_device(reps)), reps)
    return _take(x, idx, axis=axis)


def tile(x, repetitions, /):
    """``x`` tiled ``repetitions`` times along each axis (differentiable: a
    broadcast and a reshape)."""
    if not _traced(x):
        return backend_of(x).tile(x, tuple(repetitions))
    reps = tuple(operator.index(r) for r in repetitions)
    nd = max(x.ndim, len(reps))
    reps = (1,) * (nd - len(reps)) + reps
    shape = (1,) * (nd - x.ndim) + tuple(x.shape)
    inter = []
    big = []
    for r, s in zip(reps, shape):
        inter += [1, s]
        big += [r, s]
    out = _broadcast_to(_reshape(x, tuple(inter)), tuple(big))
    return _reshape(out, tuple(r * s for r, s in zip(reps, shape)))


def unstack(x, /, *, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple (each differentiable)."""
    if not _traced(x):
        return tuple(backend_of(x).unstack(x, axis=axis))
    axis = _axis(axis, x.ndim, "unstack")
    pre = (slice(None),) * axis
    return tuple(x[pre + (i, Ellipsis)] for i in range(x.shape[axis]))

