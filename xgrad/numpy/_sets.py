"""jax.numpy's sets, sorting, searching, selection and histograms, as
composites of the namespace's functions (no rules of their own).

Three kinds live here:

* fixed shapes (``select``, ``choose``, ``piecewise``, ``partition``,
  ``argpartition``, ``lexsort``, ``sort_complex``, ``digitize``, ``packbits``,
  ``unpackbits``, ``bincount`` with ``length=``, ``histogram*``): built from
  ``where``, ``sort``, ``argsort``, ``searchsorted`` and sums, so they are
  differentiable where their values are and work under ``vmap``;
* jax's ``size=`` (``unique`` without ``axis``, the set functions,
  ``argwhere``, ``flatnonzero``, ``extract``, ``compress``): a fixed shape
  too, the first ``size`` selected entries gathered by a where and a sum
  over a one-hot table (``_compact``), so these also work under ``vmap``;
* data-dependent shapes (the above without ``size=``, ``unique`` with
  ``axis``, ``trim_zeros``, ``bincount`` without ``length=``): the indices
  are computed from the concrete value underneath (the eager model), then
  the traced values are gathered at them, so the values carry the
  derivative of the entries they come from. Inside ``vmap`` there is no single concrete value and these
  raise a ``TypeError`` (NB: jax accepts ``unique(axis=..., size=...)``
  there; xgrad does not yet).

To add a function: write it here and list it in ``__all__``.
"""
from __future__ import annotations

import builtins as _builtins
import operator as _operator

from ..core import Tracer as _Tracer, bind as _bind
from ..backends import backend_of as _backend_of
from ..rules.extra import permute_along_p as _permute_along_p
from . import (_device_of, add as _add, any as _any, argmax as _argmax, argsort as _argsort,
               asarray as _asarray, astype as _astype, broadcast_arrays as _broadcast_arrays,
               clip as _clip, concat as _concat, cumulative_sum as _cumulative_sum,
               diff as _diff, divide as _divide, equal as _equal, expand_dims as _expand_dims,
               flip as _flip, imag as _imag, int32 as _int32, int64 as _int64, isnan as _isnan,
               less as _less, logical_and as _logical_and, logical_not as _logical_not,
               logical_xor as _logical_xor, max as _max, min as _min, moveaxis as _moveaxis,
               nonzero as _nonzero, not_equal as _not_equal, real as _real,
               remainder as _remainder, reshape as _reshape, searchsorted as _searchsorted,
               sort as _sort, stack as _stack, sum as _sum, take as _take1,
               take_along_axis as _take_along_axis, uint8 as _uint8, where as _where,
               zeros as _zeros)
from ._extra import _axis, _concrete

__all__ = ["unique", "union1d", "intersect1d", "setdiff1d", "setxor1d", "bincount",
           "digitize", "histogram", "histogram2d", "histogramdd", "histogram_bin_edges",
           "lexsort", "sort_complex", "partition", "argpartition", "packbits", "unpackbits",
           "argwhere", "flatnonzero", "extract", "compress", "trim_zeros", "select",
           "piecewise", "choose"]


def _is_array(x):
    return isinstance(x, _Tracer) or hasattr(x, "__array_namespace__")


def _arr(x, like=None):
    """``x`` as an array: arrays (plain or traced) as they are, Python values
    on the backend of ``like`` (numpy by default)."""
    if _is_array(x):
        return x
    if like is not None:
        return _backend_of(like).asarray(x, device=_device_of(like))
    return _asarray(x)


def _flat(x):
    return _reshape(x, (-1,))


def _iota(n, like):
    """``arange(n)`` as int64 on ``like``'s backend and device (a constant)."""
    xp = _backend_of(like)
    return xp.arange(n, dtype=xp.int64, device=_device_of(like))


def _take(x, idx, axis=0):
    """``x`` at ``idx`` along ``axis`` (a gather; on any number of
    dimensions and every backend)."""
    if x.ndim == 1:
        return _take1(x, idx, axis=0)
    m = _moveaxis(x, axis, 0)
    out = _take_along_axis(m, _reshape(idx, (-1,) + (1,) * (x.ndim - 1)), axis=0)
    return _moveaxis(out, 0, axis)


def _permute(x, idx, axis):
    """``x`` gathered along ``axis`` by ``idx`` of ``x``'s shape (the
    ``permute_along`` row: differentiable, and batched under vmap)."""
    if not (isinstance(x, _Tracer) or isinstance(idx, _Tracer)):
        return _take_along_axis(x, idx, axis=axis)
    return _bind(_permute_along_p, x, idx, axis=axis)


def _is_float(x):
    return _backend_of(x).isdtype(x.dtype, ("real floating", "complex floating"))


def _pad(x, size, fill, axis=0):
    """``x`` cut or padded to ``size`` along ``axis`` with ``fill`` (jax's
    ``size=``/``fill_value=``)."""
    n = x.shape[axis]
    if size is None or size == n:
        return x
    size = _operator.index(size)
    if size < n:
        return _take(x, _iota(size, x), axis=axis)
    shape = list(x.shape)
    shape[axis] = size - n
    xp = _backend_of(x)
    if _is_array(fill):
        fill = _astype(fill, x.dtype) if fill.dtype != x.dtype else fill
        pad = _add(_zeros(tuple(shape), dtype=x.dtype, device=_device_of(x)), fill)
    else:
        pad = xp.full(tuple(shape), fill, dtype=x.dtype, device=_device_of(x))
    return _concat([x, pad], axis=axis)


def _compact(x, mask, size, fill, axis=-1):
    """The slices of ``x`` along ``axis`` where the 1-D ``mask`` holds, the
    first ``size`` of them, padded with ``fill``: jax's ``size=`` in a fixed
    shape (a where and a sum over a one-hot ``(size, n)`` table), so it
    works under vmap and is differentiable in ``x`` (and ``fill``)."""
    xm = _moveaxis(x, axis, -1)
    m = _astype(mask, _int64)
    pos = _cumulative_sum(m) - 1
    k = _iota(size, xm)
    hit = _logical_and(_expand_dims(mask, axis=0),
                       _equal(_expand_dims(pos, axis=0), _expand_dims(k, axis=-1)))
    out = _sum(_where(hit, _expand_dims(xm, axis=-2), 0), axis=-1, dtype=xm.dtype)
    out = _where(_less(k, _sum(m)), out, fill)
    return _moveaxis(out, -1, axis)


def _mask(x):
    """``x != 0`` (``x`` itself when boolean)."""
    return x if x.dtype == _backend_of(x).bool else _not_equal(x, 0)


def _nonzero_flat(x, fname):
    """Flat indices of the non-zero entries of ``x`` (concrete)."""
    c = _concrete(x, fname)
    return _nonzero(_flat(c))[0]


# --------------------------------------------------------------------------
# sets

def _sorted_groups(x, fname, equal_nan, rows=False):
    """For the 1-D ``x`` (or the rows of the 2-D ``x``): the stable sorting
    permutation and a mask of where a new group starts in sorted order
    (concrete)."""
    c = _concrete(x, fname, what="the number of unique values depends on the values")
    if rows:
        perm = lexsort([c[:, j] for j in range(c.shape[1] - 1, -1, -1)], axis=0)
        s = _take(c, perm, axis=0)
    else:
        perm = _argsort(c, stable=True)
        s = _take(c, perm, axis=0)
    a, b = s[1:, ...], s[:-1, ...]
    neq = _not_equal(a, b)
    if equal_nan and _is_float(c):
        neq = _logical_and(neq, _logical_not(_logical_and(_isnan(a), _isnan(b))))
    if rows:
        neq = _any(neq, axis=1)
    xp = _backend_of(c)
    head = xp.ones((1,), dtype=xp.bool, device=_device_of(c))
    return perm, _concat([head, neq])


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, size=None, fill_value=None, sorted=True):  # noqa: A002
    """The sorted unique values of ``ar`` (or unique slices along ``axis``),
    optionally with first-occurrence indices, inverse indices and counts.

    ``equal_nan`` counts all NaNs as one value; ``size`` cuts or pads the
    outputs to a fixed length (values padded with ``fill_value``, by default
    the smallest value; indices with the first index; counts with 0).
    ``sorted`` is accepted and ignored (always sorted), as in jax.

    NB: the values carry the derivative of the first occurrence of each
    value, also without ``size`` (where jax's derivative is zero).

    >>> import numpy as np, xgrad.numpy as xnp
    >>> xnp.unique(np.asarray([3, 1, 3, 2])).tolist()
    [1, 2, 3]
    """
    ar = _arr(ar)
    if axis is None:
        x = _flat(ar)
        rows = False
    else:
        if ar.ndim == 0:
            raise ValueError("unique: axis is given but ar is 0-dimensional")
        axis = _axis(axis, ar.ndim, "unique")
        moved = _moveaxis(ar, axis, 0)
        x = _reshape(moved, (moved.shape[0], -1))
        rows = True
    n = x.shape[0]
    if size is not None and not rows and n:
        return _unique_sized(ar, x, return_index, return_inverse, return_counts, equal_nan,
                             _operator.index(size), fill_value)
    if n == 0:
        values, index, group = x, _iota(0, x), _iota(0, x)
        counts = _iota(0, x)
    else:
        perm, mask = _sorted_groups(x, "unique", equal_nan, rows)
        starts = _nonzero(mask)[0]
        index = _take(perm, starts, axis=0)
        values = _take(x, index, axis=0)
        group = _cumulative_sum(_astype(mask, _int64)) - 1
        group = _take(group, _argsort(perm, stable=True), axis=0)
        ends = _concat([starts[1:], _asarray([n], dtype=_int64, device=_device_of(starts))])
        counts = ends - starts
    if size is not None:
        k = values.shape[0]
        fill = fill_value if fill_value is not None else (values[0, ...] if k else 0)
        values = _pad(values, size, fill)
        index = _pad(index, size, index[0] if k else 0)
        counts = _pad(counts, size, 0)
    if rows:
        values = _reshape(values, (values.shape[0],) + tuple(moved.shape[1:]))
        values = _moveaxis(values, 0, axis)
        inverse = group
    else:
        inverse = _reshape(group, tuple(ar.shape))
    out = [values]
    if return_index:
        out.append(index)
    if return_inverse:
        out.append(inverse)
    if return_counts:
        out.append(counts)
    return out[0] if len(out) == 1 else tuple(out)


def _unique_sized(ar, x, return_index, return_inverse, return_counts, equal_nan, size,
                  fill_value, keep=None, index_fill=None):
    """``unique`` of the flat ``x`` with ``size=``, in fixed shapes (works
    under vmap): sort, mark where a new value starts, compact. ``keep(s)``,
    a mask on the sorted values, keeps only some values (the set
    functions)."""
    perm = _argsort(x, stable=True)
    s = _sort(x, stable=True)
    a, b = s[1:], s[:-1]
    neq = _not_equal(a, b)
    if equal_nan and _is_float(x):
        neq = _logical_and(neq, _logical_not(_logical_and(_isnan(a), _isnan(b))))
    xp = _backend_of(x)
    mask = _concat([xp.ones((1,), dtype=xp.bool, device=_device_of(x)), neq])
    group = _cumulative_sum(_astype(mask, _int64)) - 1
    if keep is not None:
        mask = _logical_and(mask, keep(s))
    values = _compact(s, mask, size, 0)
    out = [_where(_less(_iota(size, x), _sum(_astype(mask, _int64))), values,
                  values[0] if fill_value is None else fill_value)]
    if return_index:
        out.append(_compact(perm, mask, size, perm[0] if index_fill is None else index_fill))
    if return_inverse:
        inverse = _permute(group, _argsort(perm, stable=True), 0)
        out.append(_reshape(inverse, tuple(ar.shape)))
    if return_counts:
        k = _iota(size, x)
        hit = _equal(_expand_dims(group, axis=0), _expand_dims(k, axis=-1))
        out.append(_sum(_astype(hit, _int64), axis=-1))
    return out[0] if len(out) == 1 else tuple(out)


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """The sorted unique values in ``ar1`` or ``ar2`` (flattened)."""
    return unique(_concat([_flat(_arr(ar1)), _flat(_arr(ar2, ar1))]),
                  size=size, fill_value=fill_value)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """The sorted unique values in both ``ar1`` and ``ar2`` (flattened),
    with their indices in each where ``return_indices``. The values come
    from ``ar1`` (and carry its derivative)."""
    a, b = _flat(_arr(ar1)), _flat(_arr(ar2, ar1))
    if size is not None and a.shape[0] and b.shape[0]:
        size = _operator.index(size)
        values, i1 = _unique_sized(a, a, True, False, False, True, size, fill_value,
                                   keep=lambda s: _in(s, b), index_fill=a.shape[0])
        if not return_indices:
            return values
        first = _argmax(_astype(_equal(_expand_dims(values, axis=-1), b), _int64), axis=-1)
        i2 = _where(_less(i1, a.shape[0]), first, b.shape[0])
        return values, i1, i2
    if assume_unique:
        # int32, as jax gives them here
        ia = _astype(_iota(a.shape[0], a), _int32)
        ib = _astype(_iota(b.shape[0], b), _int32)
        ua, ub = _concrete(a, "intersect1d"), _concrete(b, "intersect1d")
    else:
        ua, ia = unique(_concrete(a, "intersect1d"), return_index=True)
        ub, ib = unique(_concrete(b, "intersect1d"), return_index=True)
    c = _concat([ua, ub])
    perm = _argsort(c, stable=True)
    s = _take(c, perm, axis=0)
    hit = _nonzero(_equal(s[1:], s[:-1]))[0]
    i1 = _take(ia, _take(perm, hit, axis=0), axis=0)
    i2 = _take(ib, _take(perm, hit + 1, axis=0) - ua.shape[0], axis=0)
    values = _take(a, i1, axis=0)
    if size is not None:
        k = values.shape[0]
        fill = fill_value if fill_value is not None else (values[0] if k else 0)
        values = _pad(values, size, fill)
        i1, i2 = _pad(i1, size, a.shape[0]), _pad(i2, size, b.shape[0])
    return (values, i1, i2) if return_indices else values


def _in(a, b):
    """Whether each entry of the 1-D ``a`` is in the 1-D ``b``."""
    return _any(_equal(_expand_dims(a, axis=-1), b), axis=-1)


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted unique values of ``ar1`` that are not in ``ar2`` (with
    ``assume_unique``: the entries of ``ar1`` not in ``ar2``, in order)."""
    a, b = _flat(_arr(ar1)), _flat(_arr(ar2, ar1))
    fill = 0 if fill_value is None else fill_value
    if size is not None and a.shape[0]:
        size = _operator.index(size)
        if assume_unique:
            return _compact(a, _logical_not(_in(a, b)), size, fill)
        return _unique_sized(a, a, False, False, False, True, size, fill,
                             keep=lambda s: _logical_not(_in(s, b)))
    keep = _nonzero(_logical_not(_in(_concrete(a, "setdiff1d"), _concrete(b, "setdiff1d"))))[0]
    if assume_unique:                       # as jax: the kept entries in their order
        return _pad(_take(a, keep, axis=0), size, fill)
    return unique(_take(a, keep, axis=0), size=size, fill_value=fill)


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted unique values in exactly one of ``ar1`` and ``ar2``."""
    a, b = _flat(_arr(ar1)), _flat(_arr(ar2, ar1))
    if size is not None and a.shape[0] + b.shape[0]:
        c = _concat([a, b])
        return _unique_sized(c, c, False, False, False, True, _operator.index(size), fill_value,
                             keep=lambda s: _logical_xor(_in(s, a), _in(s, b)))
    ca, cb = _concrete(a, "setxor1d"), _concrete(b, "setxor1d")
    ka = _nonzero(_logical_not(_in(ca, cb)))[0]
    kb = _nonzero(_logical_not(_in(cb, ca)))[0]
    return unique(_concat([_take(a, ka, axis=0), _take(b, kb, axis=0)]),
                  size=size, fill_value=fill_value)


# --------------------------------------------------------------------------
# counting and histograms

def bincount(x, weights=None, minlength=0, *, length=None, out_sharding=None):
    """Number of occurrences of each value in the non-negative integer 1-D
    ``x`` (the sum of ``weights`` there, if given; differentiable in the
    weights). Negative values count in bin 0 and values ``>= length`` are
    dropped, as in jax. Without ``length`` the output length is read from
    the values (``max(x) + 1``, at least ``minlength``), so not under vmap.

    >>> import numpy as np, xgrad.numpy as xnp
    >>> xnp.bincount(np.asarray([0, 2, 2])).tolist()
    [1, 0, 2]
    """
    x = _arr(x)
    xp = _backend_of(x)
    if x.dtype == xp.bool:
        x = _astype(x, _int64)
    if not xp.isdtype(x.dtype, "integral"):
        raise TypeError(f"bincount: x must have an integer type, got {x.dtype}")
    if x.ndim != 1:
        raise ValueError(f"bincount: x must be 1-dimensional, got shape {tuple(x.shape)}")
    minlength = _operator.index(minlength)
    if minlength < 0:
        raise ValueError(f"bincount: minlength must be non-negative, got {minlength}")
    if length is None:
        c = _concrete(x, "bincount", what="without length= the output length depends on "
                                           "the values")
        length = max(int(_max(c)) + 1 if c.shape[0] else 0, minlength)
    length = _operator.index(length)
    hit = _equal(_expand_dims(_clip(x, min=0), axis=-1), _iota(length, x))
    if weights is None:
        return _sum(_astype(hit, _int64), axis=0)
    w = _arr(weights, x)
    if tuple(w.shape) != tuple(x.shape):
        raise ValueError(f"bincount: weights must have the shape of x {tuple(x.shape)}, "
                         f"got {tuple(w.shape)}")
    return _sum(_where(hit, _expand_dims(w, axis=-1), 0), axis=0, dtype=w.dtype)


def digitize(x, bins, right=False, *, method=None):
    """Index of the bin of ``bins`` (monotonic, increasing or decreasing)
    each entry of ``x`` falls in (no derivative). ``method`` is accepted and
    ignored (jax's choice of algorithm)."""
    x = _arr(x)
    bins = _arr(bins, x)
    if bins.ndim != 1:
        raise ValueError(f"digitize: bins must be 1-dimensional, got shape {tuple(bins.shape)}")
    n = bins.shape[0]
    if n == 0:
        return _zeros(tuple(x.shape), dtype=_int32, device=_device_of(x))
    up = _searchsorted(bins, x, side="left" if right else "right")
    down = n - _searchsorted(_flip(bins), x, side="left" if right else "right")
    return _astype(_where(bins[-1] >= bins[0], up, down), _int32)     # int32, as jax


def _range_of(a, rng, fname):
    """``(lo, hi)``: ``range`` or the extent of ``a`` (traced values stay
    traced, so the edges are differentiable), widened by 0.5 where empty."""
    if rng is None:
        if a.shape[0] == 0:
            lo, hi = 0.0, 1.0
        else:
            lo, hi = _min(a), _max(a)
    else:
        if len(rng) != 2:
            raise ValueError(f"{fname}: range must be a pair (min, max), got {rng!r}")
        lo, hi = rng
    lo = _arr(lo, a) if not isinstance(lo, (int, float)) else lo
    hi = _arr(hi, a) if not isinstance(hi, (int, float)) else hi
    if not (_is_array(lo) or _is_array(hi)):
        if lo > hi:
            raise ValueError(f"{fname}: range max must be >= min, got {rng!r}")
        return (lo - 0.5, hi + 0.5) if lo == hi else (lo, hi)
    same = _equal(lo, hi)
    return _where(same, lo - 0.5, lo), _where(same, hi + 0.5, hi)


def _float_dtype(xp, dt):
    return dt if xp.isdtype(dt, ("real floating", "complex floating")) else xp.float64


def _edges(a, bins, rng, fname):
    """The bin edges of the 1-D ``a`` (a sequence or an array ``bins`` is
    used as it is)."""
    xp = _backend_of(a)
    dt = _float_dtype(xp, a.dtype)
    if not _is_array(bins) and not isinstance(bins, (list, tuple)):
        nb = _operator.index(bins)
        if nb < 1:
            raise ValueError(f"{fname}: bins must be a positive integer, got {bins}")
        lo, hi = _range_of(_astype(a, dt) if a.dtype != dt else a, rng, fname)
        step = _astype(_iota(nb, a), dt) / nb
        inner = lo + (hi - lo) * step
        last = _add(_zeros((1,), dtype=dt, device=_device_of(a)), hi)
        return _concat([_astype(inner, dt) if inner.dtype != dt else inner,
                        _astype(last, dt) if last.dtype != dt else last])
    e = _arr(bins, a)
    if e.ndim != 1:
        raise ValueError(f"{fname}: bins must be an integer or a 1-D array of edges, "
                         f"got shape {tuple(e.shape)}")
    return _astype(e, dt) if not xp.isdtype(e.dtype, ("real floating",)) else e


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """The bin edges ``histogram`` uses (differentiable in ``a`` through its
    min and max when ``bins`` is an integer and ``range`` is None)."""
    return _edges(_flat(_arr(a)), bins, range, "histogram_bin_edges")


def _bin_index(a, edges):
    """The bin of each entry (1-based; 0 and len(edges) are outside; the
    last edge belongs to the last bin)."""
    i = _searchsorted(edges, a, side="right")
    return _where(_equal(a, edges[-1]), i - 1, i)


def histogram(a, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """``(counts, edges)`` of the flattened ``a``; the counts are floats,
    sums of ``weights`` when given (differentiable in them), and a density
    (divided by the total and the bin widths) when ``density``.

    >>> import numpy as np, xgrad.numpy as xnp
    >>> xnp.histogram(np.asarray([1.0, 2.0, 2.5, 4.0]), bins=3)[0].tolist()
    [1.0, 2.0, 1.0]
    """
    a = _flat(_arr(a))
    edges = _edges(a, bins, range, "histogram")
    xp = _backend_of(a)
    if weights is None:
        w = xp.ones(tuple(a.shape), dtype=edges.dtype, device=_device_of(a))
    else:
        w = _flat(_arr(weights, a))
        if w.shape != a.shape:
            raise ValueError(f"histogram: weights must have the shape of a {tuple(a.shape)}, "
                             f"got {tuple(w.shape)}")
    idx = _bin_index(a, edges)
    counts = bincount(idx, w, length=edges.shape[0] + 1)[1:-1]
    if density:
        counts = _divide(_divide(counts, _diff(edges)), _sum(counts))
    return counts, edges


def histogramdd(sample, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """``(counts, [edges per dimension])`` of the ``(N, D)`` ``sample``."""
    sample = _arr(sample)
    if sample.ndim != 2:
        raise ValueError(f"histogramdd: sample must be 2-D (N, D), got shape "
                         f"{tuple(sample.shape)}")
    n, d = sample.shape
    if isinstance(bins, (list, tuple)) and len(bins) != d:
        raise ValueError(f"histogramdd: bins must have {d} entries, got {len(bins)}")
    if range is not None and len(range) != d:
        raise ValueError(f"histogramdd: range must have {d} entries, got {len(range)}")
    bins_d = list(bins) if isinstance(bins, (list, tuple)) else [bins] * d
    edges, flat = [], None
    shape = []
    for k in _builtins.range(d):
        col = sample[:, k]
        e = _edges(col, bins_d[k], None if range is None else range[k], "histogramdd")
        m = e.shape[0] + 1
        i = _bin_index(col, e)
        flat = i if flat is None else flat * m + i
        edges.append(e)
        shape.append(m)
    w = None if weights is None else _flat(_arr(weights, sample))   # no weights: int counts
    total = 1
    for m in shape:
        total *= m
    counts = _reshape(bincount(flat, w, length=total), tuple(shape))
    counts = counts[(slice(1, -1),) * d]
    if density:
        if not _is_float(counts):
            counts = _astype(counts, edges[0].dtype)
        counts = _divide(counts, _sum(counts))
        for k, e in enumerate(edges):
            wk = _diff(e)
            counts = _divide(counts, _reshape(wk, (1,) * k + (-1,) + (1,) * (d - k - 1)))
    return counts, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """``(counts, xedges, yedges)`` of the points ``(x[i], y[i])``."""
    x = _arr(x)
    y = _arr(y, x)
    if _is_array(bins) and bins.ndim == 1 or (isinstance(bins, (list, tuple))
                                                and len(bins) != 2):
        bins = [bins, bins]
    counts, (ex, ey) = histogramdd(_stack([_flat(x), _flat(y)], axis=1), bins, range,
                                   weights, density)
    return counts, ex, ey


# --------------------------------------------------------------------------
# sorting

def lexsort(keys, axis=-1):
    """Indices that sort by several keys, the last key first (stable; no
    derivative). ``keys``: a sequence of arrays of one shape, or an array
    whose first axis runs over the keys."""
    if _is_array(keys):
        if keys.ndim < 1:
            raise TypeError("lexsort: keys must be a sequence of arrays or an array with "
                            "at least one dimension")
        keys = [keys[i, ...] for i in _builtins.range(keys.shape[0])]
    keys = list(keys)
    if not keys:
        raise TypeError("lexsort: need at least one key")
    first = _arr(keys[0])
    keys = [first] + [_arr(k, first) for k in keys[1:]]
    keys = _broadcast_arrays(*keys)
    if keys[0].ndim == 0:
        raise ValueError("lexsort: keys must be at least 1-dimensional")
    axis = _axis(axis, keys[0].ndim, "lexsort")
    perm = _argsort(keys[0], axis=axis, stable=True)
    for k in keys[1:]:
        perm = _permute(perm, _argsort(_permute(k, perm, axis), axis=axis, stable=True), axis)
    return perm


def _complex_dtype(xp, dt):
    if xp.isdtype(dt, "complex floating"):
        return dt
    return xp.complex64 if dt == xp.float32 else xp.complex128


def sort_complex(a):
    """``a`` as complex, sorted along the last axis by real part, then
    imaginary part (differentiable: the derivative moves with the values)."""
    a = _arr(a)
    xp = _backend_of(a)
    c = _astype(a, _complex_dtype(xp, a.dtype))
    if c.ndim == 0:
        return c
    perm = lexsort([_imag(c), _real(c)], axis=-1)
    return _permute(c, perm, c.ndim - 1)


def _kth(a, kth, fname):
    """``kth`` checked and made non-negative, for the last axis of ``a``."""
    xp = _backend_of(a)
    if xp.isdtype(a.dtype, "complex floating"):
        raise NotImplementedError(f"{fname}: complex input is not supported (as in jax)")
    n = a.shape[-1]
    kth = _operator.index(kth)
    if not -n <= kth < n:
        raise ValueError(f"{fname}: kth={kth} is out of range for an axis of length {n}")
    return kth % n


def partition(a, kth, axis=-1):
    """``a`` with the ``kth + 1`` smallest values first (ascending) and the
    rest after them (descending), along ``axis``, as jax orders them.
    Differentiable: the derivative moves with the values (ties as jax).

    >>> import numpy as np, xgrad.numpy as xnp
    >>> xnp.partition(np.asarray([3.0, 1.0, 4.0, 2.0]), 1).tolist()
    [1.0, 2.0, 4.0, 3.0]
    """
    a = _arr(a)
    axis = _axis(axis, a.ndim, "partition")
    m = _moveaxis(a, axis, -1)
    kth = _kth(m, kth, "partition")
    n = m.shape[-1]
    low = _sort(m, axis=-1, stable=True)[..., :kth + 1]
    high = _sort(m, axis=-1, descending=True, stable=True)[..., :n - kth - 1]
    out = _concat([low, high], axis=-1)
    return _moveaxis(out, -1, axis)


def argpartition(a, kth, axis=-1):
    """Indices that partition ``a`` along ``axis`` (no derivative): those of
    the ``kth + 1`` smallest values (ascending), then the others in index
    order, as jax orders them."""
    a = _arr(a)
    axis = _axis(axis, a.ndim, "argpartition")
    m = _moveaxis(a, axis, -1)
    kth = _kth(m, kth, "argpartition")
    n = m.shape[-1]
    up = _argsort(m, axis=-1, stable=True)
    low = up[..., :kth + 1]
    rank = _argsort(up, axis=-1, stable=True)
    outside = _astype(rank > kth, _int64)
    high = _argsort(outside, axis=-1, descending=True, stable=True)[..., :n - kth - 1]
    out = _astype(_concat([low, high], axis=-1), _int32)      # int32, as jax
    return _moveaxis(out, -1, axis)


# --------------------------------------------------------------------------
# bits

def _bit_weights(like, bitorder, fname):
    if bitorder not in ("big", "little"):
        raise ValueError(f"{fname}: bitorder must be 'big' or 'little', got {bitorder!r}")
    w = _iota(8, like)
    return _astype(7 - w if bitorder == "big" else w, _uint8)


def packbits(a, axis=None, bitorder="big"):
    """The booleans (non-zeros) of ``a`` packed 8 to a ``uint8`` along
    ``axis`` (flattened when None), padded with zeros."""
    a = _arr(a)
    xp = _backend_of(a)
    if not (a.dtype == xp.bool or xp.isdtype(a.dtype, "integral")):
        raise TypeError(f"packbits: a must be boolean or integer, got {a.dtype}")
    shifts = _bit_weights(a, bitorder, "packbits")
    if axis is None:
        a, axis = _flat(a), 0
    axis = _axis(axis, a.ndim, "packbits")
    m = _moveaxis(a, axis, -1)
    bits = _astype(m if m.dtype == xp.bool else _not_equal(m, 0), _uint8)
    n = bits.shape[-1]
    pad = -n % 8
    if pad:
        bits = _concat([bits, xp.zeros(tuple(bits.shape[:-1]) + (pad,), dtype=xp.uint8,
                                       device=_device_of(a))], axis=-1)
    bits = _reshape(bits, tuple(bits.shape[:-1]) + ((n + pad) // 8, 8))
    out = _sum(bits << shifts, axis=-1, dtype=_uint8)
    return _moveaxis(out, -1, axis)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    """The bits of the ``uint8`` array ``a`` along ``axis`` (flattened when
    None), as ``uint8`` 0s and 1s; ``count`` keeps that many (negative: drops
    that many at the end; beyond the bits: pads with zeros)."""
    a = _arr(a)
    xp = _backend_of(a)
    if a.dtype != xp.uint8:
        raise TypeError(f"unpackbits: a must be uint8, got {a.dtype}")
    shifts = _bit_weights(a, bitorder, "unpackbits")
    if axis is None:
        a, axis = _flat(a), 0
    axis = _axis(axis, a.ndim, "unpackbits")
    m = _moveaxis(a, axis, -1)
    bits = (_expand_dims(m, axis=-1) >> shifts) & 1
    bits = _reshape(bits, tuple(m.shape[:-1]) + (m.shape[-1] * 8,))
    if count is not None:
        count = _operator.index(count)
        n = bits.shape[-1]
        keep = count if count >= 0 else max(n + count, 0)
        bits = _moveaxis(_pad(_moveaxis(bits, -1, 0), keep, 0), 0, -1)
    return _moveaxis(bits, -1, axis)


# --------------------------------------------------------------------------
# searching and selection with data-dependent shapes

def argwhere(a, *, size=None, fill_value=None):
    """Indices of the non-zero entries, one row per entry: shape ``(N,
    a.ndim)`` (no derivative)."""
    a = _arr(a)
    if size is not None and a.ndim:
        size = _operator.index(size)
        flat = _compact(_iota(a.size, a), _mask(_flat(a)), size, -1)
        fill = 0 if fill_value is None else fill_value
        cols, stride = [], 1
        for d in reversed(a.shape):
            cols.append(_where(flat < 0, fill, (flat // stride) % d))
            stride *= d
        return _stack(cols[::-1], axis=-1)
    c = _concrete(a, "argwhere")
    if c.ndim == 0:
        c = _reshape(c, (1,))
        out = _reshape(_nonzero(c)[0], (-1, 1))[:, :0]
    else:
        out = _stack(_nonzero(c), axis=-1)
        if out.dtype != _backend_of(out).int64:
            out = _astype(out, _int64)
    return _pad(out, size, 0 if fill_value is None else fill_value)


def flatnonzero(a, *, size=None, fill_value=None):
    """Indices of the non-zero entries of the flattened ``a`` (no
    derivative)."""
    a = _arr(a)
    if size is not None:
        return _compact(_iota(a.size, a), _mask(_flat(a)), _operator.index(size),
                        0 if fill_value is None else fill_value)
    idx = _nonzero_flat(a, "flatnonzero")
    if idx.dtype != _backend_of(idx).int64:
        idx = _astype(idx, _int64)
    return _pad(idx, size, 0 if fill_value is None else fill_value)


def extract(condition, arr, *, size=None, fill_value=0):
    """The entries of the flattened ``arr`` where the flattened
    ``condition`` is non-zero (differentiable in ``arr``)."""
    arr = _flat(_arr(arr))
    cond = _flat(_arr(condition, arr))
    if size is not None:
        if cond.shape != arr.shape:
            raise ValueError(f"extract: condition has {cond.shape[0]} entries, arr has "
                             f"{arr.shape[0]}")
        return _compact(arr, _mask(cond), _operator.index(size), fill_value)
    idx = _nonzero_flat(cond, "extract")
    return _pad(_take(arr, idx, axis=0), size, fill_value)


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    """The slices of ``a`` along ``axis`` (flattened when None) where the
    1-D ``condition`` is non-zero (differentiable in ``a``)."""
    if out is not None:
        raise NotImplementedError("compress: out= is not supported (arrays are immutable)")
    a = _arr(a)
    if axis is None:
        a, axis = _flat(a), 0
    axis = _axis(axis, a.ndim, "compress")
    cond = _arr(condition, a)
    if cond.ndim != 1:
        raise ValueError(f"compress: condition must be 1-D, got shape {tuple(cond.shape)}")
    if size is not None:
        n, m = a.shape[axis], cond.shape[0]
        if m > n:
            raise ValueError(f"compress: condition has {m} entries, more than the length "
                             f"{n} of axis {axis}")
        mask = _mask(cond)
        if m < n:
            xp = _backend_of(a)
            mask = _concat([mask, xp.zeros((n - m,), dtype=xp.bool, device=_device_of(a))])
        return _compact(a, mask, _operator.index(size), fill_value, axis=axis)
    idx = _nonzero_flat(cond, "compress")
    if idx.shape[0] and int(idx[-1]) >= a.shape[axis]:
        raise ValueError(f"compress: condition has a true entry at {int(idx[-1])}, beyond "
                         f"the length {a.shape[axis]} of axis {axis}")
    return _pad(_take(a, idx, axis=axis), size, fill_value, axis=axis)


def trim_zeros(filt, trim="fb", axis=None):
    """``filt`` without its leading (``"f"`` in ``trim``) and trailing
    (``"b"``) zeros along ``axis`` (every axis when None; a slice is trimmed
    when it is all zeros). Differentiable: a slice of ``filt``."""
    filt = _arr(filt)
    trim = trim.lower()
    if any(ch not in "fb" for ch in trim):
        raise ValueError(f"trim_zeros: trim must contain only 'f' and 'b', got {trim!r}")
    if filt.ndim == 0:
        raise ValueError("trim_zeros: filt must be at least 1-dimensional")
    c = _concrete(filt, "trim_zeros", what="the output shape depends on the values")
    nz = _not_equal(c, 0)
    axes = (tuple(_builtins.range(c.ndim)) if axis is None else
            tuple(_axis(ax, c.ndim, "trim_zeros") for ax in
                  (axis if isinstance(axis, (tuple, list)) else (axis,))))
    index = [slice(None)] * c.ndim
    for ax in axes:
        others = tuple(i for i in _builtins.range(c.ndim) if i != ax)
        hit = _nonzero(_any(nz, axis=others) if others else nz)[0]
        n = c.shape[ax]
        if hit.shape[0] == 0:
            start, stop = (n if "f" in trim else 0), n
            if "f" not in trim:
                stop = 0
        else:
            start = int(hit[0]) if "f" in trim else 0
            stop = int(hit[-1]) + 1 if "b" in trim else n
        index[ax] = slice(start, max(start, stop))
    return filt[tuple(index)]


# --------------------------------------------------------------------------
# selection with fixed shapes (where)

def select(condlist, choicelist, default=0):
    """The entry of the first ``choicelist`` array whose condition holds,
    ``default`` where none does (differentiable in the choices and
    ``default``)."""
    condlist, choicelist = list(condlist), list(choicelist)
    if len(condlist) != len(choicelist):
        raise ValueError(f"select: condlist and choicelist must have the same length, got "
                         f"{len(condlist)} and {len(choicelist)}")
    if not condlist:
        raise ValueError("select: condlist must not be empty")
    out = default
    for c, v in zip(reversed(condlist), reversed(choicelist)):
        c = _arr(c)
        if c.dtype != _backend_of(c).bool:
            raise TypeError(f"select: conditions must be boolean arrays, got {c.dtype}")
        out = _where(c, v, out)
    return out


def piecewise(x, condlist, funclist, *args, **kw):
    """``funclist[i](x, *args, **kw)`` (or the constant ``funclist[i]``)
    where ``condlist[i]`` holds, the later condition winning; an extra last
    entry of ``funclist`` applies where none holds (else 0). The output has
    ``x``'s dtype; differentiable through the selected pieces.

    >>> import numpy as np, xgrad.numpy as xnp
    >>> x = np.asarray([-1.0, 2.0])
    >>> xnp.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v * v]).tolist()
    [1.0, 4.0]
    """
    x = _arr(x)
    if _is_array(condlist) and condlist.ndim == 0:
        condlist = _reshape(condlist, (1,))
    condlist = [condlist[i] for i in _builtins.range(len(condlist))]
    funclist = list(funclist)
    n = len(condlist)
    if len(funclist) not in (n, n + 1):
        raise ValueError(f"piecewise: funclist must have {n} or {n + 1} entries (one per "
                         f"condition, and optionally a default), got {len(funclist)}")

    def piece(f):
        v = f(x, *args, **kw) if callable(f) else f
        if _is_array(v) and v.dtype != x.dtype:
            v = _astype(v, x.dtype)
        return v

    if len(funclist) == n + 1:
        out = _add(_zeros(tuple(x.shape), dtype=x.dtype, device=_device_of(x)),
                   piece(funclist[-1]))
        out = _astype(out, x.dtype) if out.dtype != x.dtype else out
    else:
        out = _zeros(tuple(x.shape), dtype=x.dtype, device=_device_of(x))
    for c, f in zip(condlist, funclist):
        out = _where(_arr(c, x), piece(f), out)
    return out


def choose(a, choices, out=None, mode="raise"):
    """``choices[a[i]][i]`` for each index ``i`` (``a`` and the choices
    broadcast together; differentiable in the choices). ``mode``: "raise"
    (an out-of-range entry is an error), "wrap" or "clip"."""
    if out is not None:
        raise NotImplementedError("choose: out= is not supported (arrays are immutable)")
    a = _arr(a)
    xp = _backend_of(a)
    if not xp.isdtype(a.dtype, "integral"):
        raise ValueError(f"choose: a must be an integer array, got {a.dtype}")
    if _is_array(choices):
        choices = [choices[i, ...] for i in _builtins.range(choices.shape[0])]
    choices = [_arr(ch, a) for ch in choices]
    n = len(choices)
    if n == 0:
        raise ValueError("choose: choices must not be empty")
    if mode == "raise":
        c = _concrete(a, "choose", what="mode='raise' checks the values")
        if bool(_any(c < 0)) or bool(_any(c >= n)):
            raise ValueError(f"choose: a has an entry outside [0, {n}); use mode='wrap' or "
                             f"mode='clip'")
    elif mode == "wrap":
        a = _remainder(a, n)
    elif mode == "clip":
        a = _clip(a, min=0, max=n - 1)
    else:
        raise ValueError(f"choose: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    a, *choices = _broadcast_arrays(a, *choices)
    # a chain of selections, not a gather: the index may be batched under vmap
    out = choices[0]
    for k in _builtins.range(1, n):
        out = _where(a == k, choices[k], out)
    return out
