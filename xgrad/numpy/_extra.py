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
            f"{fname}: {what}, and this traced value has no single concrete value "
            f"({e}). Under vmap: call {fname} outside vmap, or use a fixed-size "
            f"formulation (xgrad.numpy.where, sort, cumulative_sum).") from e


def _slice(x, axis, start, stop):
    """``x[..., start:stop, ...]`` along ``axis`` (a basic index)."""
    return x[(slice(None),) * axis + (slice(start, stop), Ellipsis)]


# --------------------------------------------------------------------------
# sorting

def _sort_args(fname, kind, order):
    if kind is not None:
        raise TypeError(f"'kind' argument to {fname} is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    if order is not None:
        raise TypeError(f"'order' argument to {fname} is not supported.")


def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False, dtype=None):
    """Indices that sort ``a`` along ``axis`` (of the flattened ``a`` when
    ``axis`` is None; no derivative); ``dtype`` is the index dtype.

    Works on traced values, also under ``vmap`` (a row with a batching rule).

    >>> import numpy as np, xgrad.numpy as xnp
    >>> xnp.argsort(np.asarray([3.0, 1.0, 2.0])).tolist()
    [1, 2, 0]
    """
    _sort_args("argsort", kind, order)
    x = a
    if axis is None:
        x, axis = _reshape(x, (-1,)), 0
    if not _traced(x):
        out = backend_of(x).argsort(x, axis=axis, descending=descending, stable=stable)
    else:
        out = bind(argsort_p, x, axis=_axis(axis, x.ndim, "argsort"),
                   descending=bool(descending), stable=bool(stable))
    return out if dtype is None else _astype(out, dtype)


def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """``a`` sorted along ``axis`` (the flattened ``a`` when ``axis`` is
    None). Differentiable: the derivative moves with the values (a gather
    by ``argsort``; ties keep a stable order).

    >>> import xgrad, xgrad.numpy as xnp
    >>> xgrad.grad(lambda x: xnp.sort(x)[0] * 10.0)(xnp.asarray([3.0, 1.0, 2.0])).tolist()
    [0.0, 10.0, 0.0]
    """
    _sort_args("sort", kind, order)
    x = a
    if axis is None:
        x, axis = _reshape(x, (-1,)), 0
    if not _traced(x):
        return backend_of(x).sort(x, axis=axis, descending=descending, stable=stable)
    axis = _axis(axis, x.ndim, "sort")
    idx = bind(argsort_p, x, axis=axis, descending=bool(descending), stable=bool(stable))
    try:
        return bind(permute_along_p, x, idx, axis=axis)
    except NotImplementedError as e:      # a backend without it (dask): say what was called
        raise NotImplementedError(f"sort: {e}") from e


# --------------------------------------------------------------------------
# searching

def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
    """Insertion indices of ``v`` into the sorted 1-D ``a`` (no derivative;
    works under ``vmap``, also with a batched ``a``). ``method`` (JAX's
    choice of algorithm) is checked and otherwise ignored: the result is the
    same."""
    if method not in ("scan", "scan_unrolled", "sort", "compare_all"):
        raise ValueError(f"searchsorted: invalid method={method!r}")
    x1, x2 = a, v
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if not (_traced(x1) or _traced(x2) or _traced(sorter)):
        return backend_of(x1).searchsorted(x1, x2, side=side, sorter=sorter)
    if x1.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be 1-D, got shape {tuple(x1.shape)}")
    if sorter is not None:
        x1 = bind(permute_along_p, x1, sorter, axis=0)
    return bind(searchsorted_p, x1, x2, side=side)


def nonzero(a, *, size=None, fill_value=None):
    """Indices of the non-zero elements, one array per axis (no derivative;
    the output shape depends on the values, so not under ``vmap``). With
    ``size`` (JAX), each is cut or padded to ``size`` entries with
    ``fill_value`` (0 by default; a tuple gives one per axis)."""
    c = _concrete(a, "nonzero")
    xp = backend_of(c)
    out = tuple(xp.nonzero(c))
    if size is None:
        if fill_value is not None:
            raise ValueError("nonzero: fill_value needs size")
        return out
    size = operator.index(size)
    fills = fill_value if isinstance(fill_value, (tuple, list)) else (fill_value,) * len(out)
    if len(fills) != len(out):
        raise ValueError(f"nonzero: fill_value has {len(fills)} entries for {len(out)} axes")
    return tuple(_pad_to(xp, i, size, 0 if f is None else f) for i, f in zip(out, fills))


def _pad_to(xp, v, size, fill):
    """The 1-D array ``v`` cut or padded with ``fill`` to ``size`` entries."""
    n = v.shape[0]
    if n >= size:
        return v[:size]
    pad = xp.full((size - n,), fill, dtype=v.dtype, device=_device(v))
    return xp.concat([v, pad])


def count_nonzero(a, axis=None, keepdims=False):
    """Number of non-zero elements along ``axis`` (no derivative)."""
    x = a
    if not _traced(x):
        return backend_of(x).count_nonzero(x, axis=axis, keepdims=keepdims)
    nz = x if x.dtype == backend_of(x).bool else _not_equal(x, 0)
    return _sum(_astype(nz, _int64), axis=_norm_axis(axis, x.ndim), keepdims=keepdims)


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    """Whether each entry of ``element`` is in ``test_elements`` (array API
    2025.12; no derivative). A comparison of every pair: works under every
    transform; ``assume_unique`` and ``method`` are accepted (the result is
    the same)."""
    x1, x2 = element, test_elements
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


def _unique_sized(x, fname, size, fill_value):
    """``_unique`` with JAX's ``size``: every output but the inverse indices
    cut or padded to ``size`` entries (values with ``fill_value``, the
    smallest value by default; indices with the first index; counts with 0)."""
    v, i, inv, n = _unique(x, fname)
    if size is None:
        if fill_value is not None:
            raise ValueError(f"{fname}: fill_value needs size")
        return v, i, inv, n
    size = operator.index(size)
    m = v.shape[0]
    if m >= size:
        return v[:size], i[:size], inv, n[:size]
    if m == 0 and fill_value is None:
        raise ValueError(f"{fname}: an empty input with size needs fill_value")
    fill = v[:1] if fill_value is None else fill_value
    xp = backend_of(i)
    pad = _broadcast_to(_astype(_asarray_like(fill, v), v.dtype), (size - m,))
    v = _concat([v, pad])
    first = i[:1] if m else xp.zeros((1,), dtype=i.dtype)
    i = xp.concat([i, xp.broadcast_to(first, (size - m,))])
    n = _pad_to(xp, n, size, 0)
    return v, i, inv, n


def _asarray_like(v, like):
    """``v`` as an array of the backend of ``like`` (a traced ``v`` as is)."""
    if _traced(v) or hasattr(v, "shape"):
        return v
    return backend_of(like).asarray(v)


def unique_all(x, /, *, size=None, fill_value=None):
    """Unique values, first-occurrence indices, inverse indices and counts
    (NaNs are distinct, as the standard says); ``size`` and ``fill_value``
    as in JAX (see ``nonzero``)."""
    return UniqueAllResult(*_unique_sized(x, "unique_all", size, fill_value))


def unique_counts(x, /, *, size=None, fill_value=None):
    v, _, _, n = _unique_sized(x, "unique_counts", size, fill_value)
    return UniqueCountsResult(v, n)


def unique_inverse(x, /, *, size=None, fill_value=None):
    v, _, inv, _ = _unique_sized(x, "unique_inverse", size, fill_value)
    return UniqueInverseResult(v, inv)


def unique_values(x, /, *, size=None, fill_value=None):
    if not _traced(x) and size is None:
        return backend_of(x).unique_values(x)
    return _unique_sized(x, "unique_values", size, fill_value)[0]


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


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """``n``-th forward difference along ``axis`` (differentiable in ``a``,
    ``prepend`` and ``append``)."""
    x = a
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

def moveaxis(a, source, destination):
    """Move axes ``source`` to positions ``destination`` (the others keep
    their order)."""
    x = a
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


def repeat(a, repeats, axis=None, *, total_repeat_length=None, out_sharding=None):
    """Repeat each element ``repeats`` times along ``axis`` (flattened when
    ``axis`` is None). Differentiable in ``a``; an array of ``repeats`` is
    read as a concrete value (the output shape depends on it). With
    ``total_repeat_length`` (JAX) the output along ``axis`` is cut or padded
    (by repeating the last entry) to that length."""
    x = a
    if total_repeat_length is not None:
        return _repeat_total(x, repeats, axis, operator.index(total_repeat_length))
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


def _repeat_total(x, repeats, axis, total):
    if axis is None:
        x, axis = _reshape(x, (-1,)), 0
    axis = _axis(axis, x.ndim, "repeat")
    n = x.shape[axis]
    xp = backend_of(x)
    if isinstance(repeats, int):
        reps = repeats
    else:
        reps = _concrete(repeats, "repeat", what="an array of repeats sets the output shape")
        xp = backend_of(reps)
    idx = xp.repeat(xp.arange(n), reps)
    m = idx.shape[0]
    if m >= total:
        idx = idx[:total]
    else:
        last = idx[-1:] if m else xp.zeros((1,), dtype=idx.dtype)
        idx = xp.concat([idx, xp.broadcast_to(last, (total - m,))])
    return _take(x, idx, axis=axis)


def tile(A, reps):
    """``A`` tiled ``reps`` times along each axis (the standard's
    ``repetitions``; differentiable: a broadcast and a reshape)."""
    x, repetitions = A, ((reps,) if isinstance(reps, int) else reps)
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

