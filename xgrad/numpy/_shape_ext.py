"""jax.numpy's shape, construction and indexing functions: stacking and
splitting, diagonals and triangles, ``pad`` in every mode, ``insert`` /
``delete``, functional ``put`` / ``place`` / ``fill_diagonal``, the index
helpers and the index objects ``r_``, ``c_``, ``s_``, ``mgrid``, ...

Every function is a composite of existing ``xgrad.numpy`` operations
(slices, reshapes, ``permute_dims``, ``concat``, integer-array gathers and
the functional update behind ``x[idx] = v``), so it works on plain arrays and
traced values alike and is differentiable and batchable with no rule of its
own. Integer positions (which entries to gather or write) are computed on
the host from static arguments, then handed to the array's backend as index
arrays of integers, one per axis: the form of advanced indexing the array
API standard has (so these run on array_api_strict too).

To add a function: write it here and list it in ``__all__``.
"""
from __future__ import annotations

import math as _math
import operator as _operator

import numpy as _onp

from ..core import Tracer as _Tracer, concrete as _concrete
from ..backends import backend_of as _backend_of
from . import (_device_of, _getitem, _index_set, _zeros_as, arange as _arange,
               asarray as _asarray, astype as _astype, broadcast_to as _broadcast_to,
               concat as _concat, divide as _divide, expand_dims as _expand_dims, eye as _eye, flip as _flip,
               floor_divide as _floor_divide, float32 as _float32, float64 as _float64, int64 as _int64,
               isdtype as _isdtype, linspace as _linspace, log10 as _log10, max as _max,
               mean as _mean,
               min as _min, multiply as _multiply, permute_dims as _permute_dims,
               pow as _pow, remainder as _remainder, reshape as _reshape,
               result_type as _result_type, round as _round, sign as _sign, stack as _stack,
               where as _where)
from ._extra import _axis, moveaxis as _moveaxis, nonzero as _nonzero, sort as _sort, tile as _tile

__all__ = ["append", "apply_along_axis", "apply_over_axes", "array_split", "atleast_1d",
           "atleast_2d", "atleast_3d", "block", "c_", "column_stack", "copy", "delete", "diag",
           "diag_indices", "diag_indices_from", "diagflat", "diagonal", "dsplit", "dstack",
           "fill_diagonal", "fliplr", "flipud", "fromfunction", "geomspace", "hsplit", "hstack",
           "identity", "index_exp", "indices", "insert", "ix_", "kron", "logspace",
           "mask_indices", "mgrid", "ogrid", "pad", "place", "put", "put_along_axis", "r_",
           "ravel", "ravel_multi_index", "resize", "rollaxis", "rot90", "s_", "split",
           "swapaxes", "tri", "tril_indices", "tril_indices_from", "triu_indices",
           "triu_indices_from", "unravel_index", "vander", "vsplit", "vstack"]


# --------------------------------------------------------------------------
# helpers

def _arr(a):
    """``a`` as an array (traced values and backend arrays as they are)."""
    if isinstance(a, _Tracer) or hasattr(a, "__array_namespace__"):
        return a
    return _asarray(a)


def _on(x, v, dtype=None):
    """``v`` (a Python scalar or host array, or an array) on the backend and
    device of ``x``; arrays and traced values as they are."""
    if isinstance(v, _Tracer) or (hasattr(v, "__array_namespace__")
                                   and not isinstance(v, _onp.ndarray)):
        return v
    xp = _backend_of(x)
    h = _onp.asarray(v)
    if dtype is None and h.dtype.kind in "biufc" and not isinstance(v, _onp.ndarray):
        dtype = x.dtype if _onp.ndim(v) == 0 else None
    out = xp.asarray(h, device=_device_of(x))
    return out if dtype is None or out.dtype == dtype else xp.astype(out, dtype)


def _host(a, fname, what):
    """A static argument (indices, a mask) as a numpy array on the host."""
    if isinstance(a, _Tracer):
        try:
            a = _concrete(a)
        except TypeError as e:
            raise TypeError(f"{fname}: {what} must be concrete (it sets which entries move), "
                            f"and under vmap it has one value per example") from e
    if hasattr(a, "__array_namespace__") and not isinstance(a, _onp.ndarray):
        a = _onp.asarray(a)     # array_api_strict and cupy-like arrays
    return _onp.asarray(a)


def _ix(x, a):
    """A host integer array as an index array of ``x``'s backend and device."""
    return _backend_of(x).asarray(_onp.asarray(a, dtype=_onp.int64), device=_device_of(x))


def _sl(x, axis, start, stop, step=None):
    """``x[..., start:stop:step, ...]`` along ``axis`` (a basic index)."""
    return x[(slice(None),) * axis + (slice(start, stop, step), Ellipsis)]


def _full_index(x, axis, idx):
    """An all-integer-array index selecting positions ``idx`` (1-D, host)
    along ``axis`` and everything along the other axes; the result keeps
    ``x``'s axis order."""
    nd, shape = x.ndim, tuple(x.shape)
    parts = []
    for i in range(nd):
        n = len(idx) if i == axis else shape[i]
        vals = idx if i == axis else _onp.arange(n)
        parts.append(_ix(x, _onp.reshape(vals, (1,) * i + (n,) + (1,) * (nd - i - 1))))
    return tuple(parts)


def _take(x, idx, axis):
    """``x`` at host positions ``idx`` (1-D) along ``axis`` (differentiable)."""
    return _getitem(x, _full_index(x, axis, _onp.asarray(idx, dtype=_onp.int64)))


def _set(x, idx, v):
    """``x`` with ``x[idx] = v`` (a functional update; ``x`` is not written)."""
    return _index_set(x, v, idx)


def _flat(x):
    return _reshape(x, (-1,))


def _tile_to(v, n):
    """The 1-D ``v`` repeated (cyclically) to length ``n``."""
    m = v.shape[0]
    if m == n:
        return v
    return _tile(v, (-(-n // m),))[:n] if m else v


def _stat_median(x, axis):
    """The median along ``axis`` (kept): the middle of the sorted values, the
    mean of the two middle ones for an even count."""
    n = x.shape[axis]
    s = _sort(x, axis=axis)
    if n % 2:
        return _sl(s, axis, n // 2, n // 2 + 1)
    return _mean(_sl(s, axis, n // 2 - 1, n // 2 + 1), axis=axis, keepdims=True)


# --------------------------------------------------------------------------
# at-least-n-d, stacking, splitting

def _atleast(arys, nd):
    out = []
    for a in arys:
        a = _arr(a)
        if a.ndim < nd:
            shape = tuple(a.shape)
            if nd == 3 and a.ndim == 2:
                shape = shape + (1,)
            elif nd == 3 and a.ndim == 1:
                shape = (1,) + shape + (1,)
            else:
                shape = (1,) * (nd - a.ndim) + shape
            a = _reshape(a, shape)
        out.append(a)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    """``arys`` with at least one dimension (one array, or a list for several)."""
    return _atleast(arys, 1)


def atleast_2d(*arys):
    """``arys`` with at least two dimensions (a 1-D ``(n,)`` becomes ``(1, n)``)."""
    return _atleast(arys, 2)


def atleast_3d(*arys):
    """``arys`` with at least three dimensions (``(n,)`` becomes ``(1, n, 1)``,
    ``(m, n)`` becomes ``(m, n, 1)``)."""
    return _atleast(arys, 3)


def _seq(tup):
    if isinstance(tup, _Tracer) or hasattr(tup, "__array_namespace__"):
        return [tup[i, ...] for i in range(tup.shape[0])]
    return [_arr(t) for t in tup]


def _cast(out, dtype):
    return out if dtype is None else _astype(out, dtype)


def hstack(tup, dtype=None):
    """Stack horizontally: along axis 1, or axis 0 for 1-D arrays."""
    arrs = [atleast_1d(a) for a in _seq(tup)]
    return _cast(_concat(arrs, axis=0 if arrs[0].ndim == 1 else 1), dtype)


def vstack(tup, dtype=None):
    """Stack vertically (along axis 0, after ``atleast_2d``)."""
    return _cast(_concat([atleast_2d(a) for a in _seq(tup)], axis=0), dtype)


def dstack(tup, dtype=None):
    """Stack along the third axis (after ``atleast_3d``)."""
    return _cast(_concat([atleast_3d(a) for a in _seq(tup)], axis=2), dtype)


def column_stack(tup):
    """1-D arrays as columns (and 2-D arrays as they are), joined along axis 1."""
    arrs = [(_reshape(a, (-1, 1)) if a.ndim < 2 else a) for a in _seq(tup)]
    return _concat(arrs, axis=1)


def block(arrays):
    """An array assembled from nested lists of blocks: the innermost lists
    are joined along the last axis, the next ones along the one before, ..."""
    def depth(a, path):
        if isinstance(a, tuple):
            raise TypeError(f"block: {path} is a tuple; use lists of arrays")
        if isinstance(a, list):
            if not a:
                raise ValueError(f"block: {path} is an empty list")
            ds = {depth(b, f"{path}[{i}]") for i, b in enumerate(a)}
            if len(ds) != 1:
                raise ValueError(f"block: the lists in {path} are nested to different depths")
            return 1 + ds.pop()
        return 0

    def leaves(a):
        return [x for b in a for x in leaves(b)] if isinstance(a, list) else [_arr(a)]

    d = depth(arrays, "arrays")
    nd = max([d] + [x.ndim for x in leaves(arrays)])

    def rec(a, level):
        if isinstance(a, list):
            return _concat([rec(b, level + 1) for b in a], axis=nd - (d - level))
        a = _arr(a)
        return _reshape(a, (1,) * (nd - a.ndim) + tuple(a.shape))
    return rec(arrays, 0)


def append(arr, values, axis=None):
    """``arr`` with ``values`` appended along ``axis`` (both flattened when
    ``axis`` is None)."""
    arr, values = _arr(arr), _arr(values)
    if axis is None:
        return _concat([_flat(arr), _flat(values)], axis=0)
    return _concat([arr, values], axis=axis)


def _split(ary, ios, axis, fname, even):
    ary = _arr(ary)
    axis = _axis(axis, ary.ndim, fname)
    n = ary.shape[axis]
    if isinstance(ios, (int, _onp.integer)) and not isinstance(ios, bool):
        k = _operator.index(ios)
        if k <= 0:
            raise ValueError(f"{fname}: the number of sections must be positive, got {k}")
        if even and n % k:
            raise ValueError(f"{fname}: an axis of size {n} can't be split into {k} equal "
                             f"sections; use array_split")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        bounds = _onp.cumsum([0] + sizes)
    else:
        cuts = [_operator.index(int(i)) for i in _host(ios, fname, "indices_or_sections").ravel()]
        bounds = [0] + cuts + [n]
    out = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        a, b = min(max(int(a) + (n if a < 0 else 0), 0), n), min(max(int(b) + (n if b < 0 else 0), 0), n)
        out.append(_sl(ary, axis, a, max(a, b)))
    return out


def split(ary, indices_or_sections, axis=0):
    """Split into equal sections (an int) or at the given indices along ``axis``."""
    return _split(ary, indices_or_sections, axis, "split", True)


def array_split(ary, indices_or_sections, axis=0):
    """As ``split``, but a number of sections need not divide the axis (the
    first sections get one more element)."""
    return _split(ary, indices_or_sections, axis, "array_split", False)


def hsplit(ary, indices_or_sections):
    """``split`` along axis 1 (axis 0 for 1-D arrays)."""
    ary = _arr(ary)
    return _split(ary, indices_or_sections, 1 if ary.ndim > 1 else 0, "hsplit", True)


def vsplit(ary, indices_or_sections):
    """``split`` along axis 0 (arrays of at least 2 dimensions)."""
    ary = _arr(ary)
    if ary.ndim < 2:
        raise ValueError("vsplit: ary must have at least 2 dimensions")
    return _split(ary, indices_or_sections, 0, "vsplit", True)


def dsplit(ary, indices_or_sections):
    """``split`` along axis 2 (arrays of at least 3 dimensions)."""
    ary = _arr(ary)
    if ary.ndim < 3:
        raise ValueError("dsplit: ary must have at least 3 dimensions")
    return _split(ary, indices_or_sections, 2, "dsplit", True)


# --------------------------------------------------------------------------
# reshaping and reordering

def copy(a, order=None):
    """A copy of ``a`` (a new value: a later ``y[i] = v`` on the copy leaves
    ``a`` alone)."""
    a = _arr(a)
    return _astype(a, a.dtype, copy=True)


def ravel(a, order="C", *, out_sharding=None):
    """``a`` flattened, in C order (``order="F"``: column-major)."""
    a = _arr(a)
    if order == "F":
        a = _permute_dims(a, tuple(range(a.ndim))[::-1])
    elif order not in ("C", "A", "K"):
        raise ValueError(f"ravel: order must be 'C' or 'F', got {order!r}")
    return _flat(a)


def swapaxes(a, axis1, axis2):
    """``a`` with axes ``axis1`` and ``axis2`` interchanged."""
    a = _arr(a)
    perm = list(range(a.ndim))
    i, j = _axis(axis1, a.ndim, "swapaxes"), _axis(axis2, a.ndim, "swapaxes")
    perm[i], perm[j] = perm[j], perm[i]
    return _permute_dims(a, tuple(perm))


def rollaxis(a, axis, start=0):
    """Move ``axis`` so that it lies before position ``start`` (numpy's older
    spelling of ``moveaxis``)."""
    a = _arr(a)
    nd = a.ndim
    axis = _axis(axis, nd, "rollaxis")
    start = _operator.index(start)
    if not -nd <= start <= nd:
        raise ValueError(f"rollaxis: start={start} is out of range for {nd} dimension(s)")
    start %= nd + 1
    if axis < start:
        start -= 1
    return _moveaxis(a, axis, start)


def fliplr(m):
    """``m`` reversed along axis 1."""
    m = _arr(m)
    if m.ndim < 2:
        raise ValueError("fliplr: the input must have at least 2 dimensions")
    return _flip(m, axis=1)


def flipud(m):
    """``m`` reversed along axis 0."""
    m = _arr(m)
    if m.ndim < 1:
        raise ValueError("flipud: the input must have at least 1 dimension")
    return _flip(m, axis=0)


def rot90(m, k=1, axes=(0, 1)):
    """``m`` rotated by 90 degrees ``k`` times in the plane of ``axes``
    (from the first axis towards the second)."""
    m = _arr(m)
    a0, a1 = (_axis(a, m.ndim, "rot90") for a in axes)
    if a0 == a1:
        raise ValueError("rot90: the two axes must differ")
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return _flip(m, axis=(a0, a1))
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return _permute_dims(_flip(m, axis=a1), tuple(perm))
    return _flip(_permute_dims(m, tuple(perm)), axis=a1)


def resize(a, new_shape):
    """An array of ``new_shape`` filled with the elements of ``a`` in C order,
    repeated as needed (zeros if either size is zero)."""
    a = _flat(_arr(a))
    shape = (new_shape,) if isinstance(new_shape, int) else tuple(new_shape)
    if any(s < 0 for s in shape):
        raise ValueError("resize: all elements of new_shape must be non-negative")
    size = _math.prod(shape)
    if a.shape[0] == 0 or size == 0:
        return _zeros_as(a, shape)          # no entry of a reaches the output
    return _reshape(_tile_to(a, size), shape)


def kron(a, b):
    """The Kronecker product of ``a`` and ``b``."""
    a, b = _arr(a), _arr(b)
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + tuple(a.shape)
    sb = (1,) * (nd - b.ndim) + tuple(b.shape)
    ea = _reshape(a, tuple(x for s in sa for x in (s, 1)))
    eb = _reshape(b, tuple(x for s in sb for x in (1, s)))
    return _reshape(_multiply(ea, eb), tuple(p * q for p, q in zip(sa, sb)))


# --------------------------------------------------------------------------
# diagonals and triangles

def diagonal(a, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal of the planes ``(axis1, axis2)``, as the last axis."""
    a = _arr(a)
    nd = a.ndim
    i, j = _axis(axis1, nd, "diagonal"), _axis(axis2, nd, "diagonal")
    if i == j:
        raise ValueError("diagonal: axis1 and axis2 must differ")
    rest = [k for k in range(nd) if k not in (i, j)]
    x = _permute_dims(a, tuple(rest) + (i, j))
    n, m = x.shape[-2], x.shape[-1]
    rows = _onp.arange(max(0, -offset), n)
    rows = rows[rows + offset < m]
    cols = rows + offset
    lead = tuple(x.shape[:-2])
    L = len(rows)
    parts = [_ix(x, _onp.reshape(_onp.arange(s), (1,) * q + (s,) + (1,) * (len(lead) - q)))
             for q, s in enumerate(lead)]
    parts += [_ix(x, _onp.reshape(r, (1,) * len(lead) + (L,))) for r in (rows, cols)]
    return _getitem(x, tuple(parts))


def diag(v, k=0):
    """The ``k``-th diagonal of a 2-D ``v``, or a 2-D array with the 1-D ``v``
    on its ``k``-th diagonal."""
    v = _arr(v)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError(f"diag: v must be 1-D or 2-D, got shape {tuple(v.shape)}")
    n = v.shape[0] + abs(k)
    r = _onp.arange(v.shape[0]) + max(0, -k)
    return _set(_zeros_as(v, (n, n)), (_ix(v, r), _ix(v, r + k)), v)


def diagflat(v, k=0):
    """A 2-D array with the flattened ``v`` on its ``k``-th diagonal."""
    return diag(_flat(_arr(v)), k)


def tri(N, M=None, k=0, dtype=None):
    """Ones at and below the ``k``-th diagonal of an ``N`` x ``M`` array."""
    M = N if M is None else M
    t = _onp.arange(N)[:, None] + k >= _onp.arange(M)[None, :]
    return _asarray(t, dtype=_float32 if dtype is None else dtype)   # float32, as jax


def identity(n, dtype=None):
    """The ``n`` x ``n`` identity matrix."""
    return _eye(n, dtype=_float64 if dtype is None else dtype)


def _ints(*arrays):
    return tuple(_asarray(_onp.asarray(a, dtype=_onp.int64)) for a in arrays)


def tril_indices(n, k=0, m=None):
    """Row and column indices of the lower triangle of an ``n`` x ``m`` array."""
    return _ints(*_onp.tril_indices(n, k, m))


def triu_indices(n, k=0, m=None):
    """Row and column indices of the upper triangle of an ``n`` x ``m`` array."""
    return _ints(*_onp.triu_indices(n, k, m))


def _shape2(arr, fname):
    shape = tuple(arr.shape)
    if len(shape) != 2:
        raise ValueError(f"{fname}: the input must be 2-D, got shape {shape}")
    return shape


def tril_indices_from(arr, k=0):
    """``tril_indices`` for the shape of the 2-D ``arr``."""
    n, m = _shape2(arr, "tril_indices_from")
    return tril_indices(n, k, m)


def triu_indices_from(arr, k=0):
    """``triu_indices`` for the shape of the 2-D ``arr``."""
    n, m = _shape2(arr, "triu_indices_from")
    return triu_indices(n, k, m)


def diag_indices(n, ndim=2):
    """Indices of the main diagonal of an ``n`` x ... x ``n`` array (``ndim`` axes)."""
    if n < 0 or ndim < 0:
        raise ValueError(f"diag_indices: n and ndim must be non-negative, got {n}, {ndim}")
    return _ints(*([_onp.arange(n)] * ndim))


def diag_indices_from(arr):
    """``diag_indices`` for ``arr``, whose axes (at least 2) have equal sizes."""
    shape = tuple(arr.shape)
    if len(shape) < 2 or len(set(shape)) != 1:
        raise ValueError(f"diag_indices_from: the input must be at least 2-D with equal "
                         f"sizes, got shape {shape}")
    return diag_indices(shape[0], len(shape))


def mask_indices(n, mask_func, k=0, *, size=None):
    """Indices where ``mask_func(ones((n, n)), k)`` is non-zero (``size``:
    that many, truncated or padded with zeros)."""
    m = _host(mask_func(_onp.ones((n, n)), k), "mask_indices", "the mask")
    i, j = _onp.nonzero(m)
    if size is not None:
        i, j = (_onp.concatenate([a[:size], _onp.zeros(max(size - len(a), 0), a.dtype)])
                for a in (i, j))
    return _ints(i, j)


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """``a`` with ``val`` written on its main diagonal (functional, as in jax:
    pass ``inplace=False``; ``val`` is repeated along the diagonal)."""
    if inplace:
        raise NotImplementedError("fill_diagonal: xgrad arrays are not written in place; "
                                  "pass inplace=False to get an updated copy (as jax)")
    if wrap:
        raise NotImplementedError("fill_diagonal: wrap=True is not supported, as in jax")
    a = _arr(a)
    val = _on(a, val, a.dtype)
    if a.ndim < 2:
        raise ValueError("fill_diagonal: the array must be at least 2-D")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise ValueError("fill_diagonal: all dimensions of the input must have equal length")
    n = min(a.shape)
    idx = tuple(_ix(a, _onp.arange(n)) for _ in range(a.ndim))
    v = val if val.ndim == 0 else _tile_to(_flat(val), n)
    return _set(a, idx, _astype(v, a.dtype) if v.dtype != a.dtype else v)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D ``x``: columns ``x**(N-1), ..., x, 1``
    (reversed with ``increasing``)."""
    x = _arr(x)
    if x.ndim != 1:
        raise ValueError("vander: x must be one-dimensional")
    N = x.shape[0] if N is None else _operator.index(N)
    if N < 0:
        raise ValueError("vander: N must be non-negative")
    p = _onp.arange(N) if increasing else _onp.arange(N)[::-1]
    xp = _backend_of(x)
    pw = xp.asarray(p.copy(), dtype=x.dtype, device=_device_of(x))
    return _pow(_expand_dims(x, axis=-1), pw)


# --------------------------------------------------------------------------
# inserting, deleting and functional updates

def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    """``arr`` without the entries ``obj`` (an int, a slice, integer indices or
    a boolean mask) along ``axis`` (flattened when None)."""
    a = _arr(arr)
    if axis is None:
        a, axis = _flat(a), 0
    axis = _axis(axis, a.ndim, "delete")
    n = a.shape[axis]
    if isinstance(obj, slice):
        gone = _onp.arange(n)[obj]
    else:
        o = _host(obj, "delete", "obj")
        if o.dtype == bool:
            if o.shape != (n,):
                raise ValueError(f"delete: a boolean obj must have shape ({n},), got {o.shape}")
            gone = _onp.nonzero(o)[0]
        elif o.dtype.kind in "iu":
            gone = o.ravel()
            if ((gone < -n) | (gone >= n)).any():
                raise IndexError(f"delete: an index in obj is out of range for size {n}")
        else:
            raise ValueError("delete: obj must be integer or boolean")
    keep = _onp.ones(n, dtype=bool)
    keep[gone] = False
    return _take(a, _onp.nonzero(keep)[0], axis)


def insert(arr, obj, values, axis=None):
    """``arr`` with ``values`` inserted before the indices ``obj`` along ``axis``
    (flattened when None); differentiable in both."""
    a = _arr(arr)
    values = _on(a, values, a.dtype)
    if axis is None:
        a, axis = _flat(a), 0
    axis = _axis(axis, a.ndim, "insert")
    n = a.shape[axis]
    idx = _onp.arange(*obj.indices(n)) if isinstance(obj, slice) else _host(obj, "insert", "obj")
    if idx.ndim > 1:
        raise ValueError("insert: obj must be a slice, a 1-D array or a scalar")
    if idx.dtype.kind not in "iu":
        if idx.size:
            raise ValueError("insert: the index array must be integer typed")
        idx = idx.astype(_onp.int64)
    if values.dtype != a.dtype:
        values = _astype(values, a.dtype)
    if values.ndim < a.ndim:
        values = _reshape(values, (1,) * (a.ndim - values.ndim) + tuple(values.shape))
    if idx.size == 1:
        if idx.ndim == 0:
            values = _moveaxis(values, 0, axis)
        idx = _onp.full(values.shape[axis], idx.ravel()[0])
    k = _onp.broadcast_shapes(idx.shape, (values.shape[axis],))[0]
    idx = _onp.clip(_onp.where(idx < 0, idx + n, idx), 0, n)
    idx = _onp.broadcast_to(idx, (k,)).copy()
    order = _onp.argsort(idx, kind="stable")
    pos = idx.copy()
    pos[order] += _onp.arange(k)
    shape = list(a.shape)
    shape[axis] = k
    values = _broadcast_to(values, tuple(shape))
    # the output is the gather of concat([a, values]) by a permutation
    src = _onp.empty(n + k, dtype=_onp.int64)
    old = _onp.ones(n + k, dtype=bool)
    old[pos] = False
    src[_onp.nonzero(old)[0]] = _onp.arange(n)
    src[pos] = n + _onp.arange(k)
    return _take(_concat([a, values], axis=axis), src, axis)


def _check_inplace(inplace, fname):
    if inplace:
        raise ValueError(f"{fname}: xgrad arrays are not written in place; pass inplace=False "
                         f"to get an updated copy")


def put(a, ind, v, mode=None, *, inplace=True):
    """``a`` with the flat positions ``ind`` set to ``v`` (repeated to the
    length of ``ind``); functional, as in jax: pass ``inplace=False``.
    ``mode``: None (out-of-range positions are dropped), ``"clip"`` or ``"wrap"``."""
    _check_inplace(inplace, "put")
    a = _arr(a)
    v = _flat(_on(a, v, a.dtype))
    ind = _host(ind, "put", "ind").ravel().astype(_onp.int64)
    size = _math.prod(a.shape)
    if not size or not ind.size or not v.shape[0]:
        return a
    v = _tile_to(v, ind.size)
    if mode is None:
        ok = (ind >= -size) & (ind < size)
        if not ok.all():
            v = _take(v, _onp.nonzero(ok)[0], 0)
        ind = ind[ok] % size
    elif mode == "clip":
        ind = _onp.clip(ind, 0, size - 1)
    elif mode == "wrap":
        ind = ind % size
    elif mode == "raise":
        raise NotImplementedError("put: mode='raise' is not supported, as in jax")
    else:
        raise ValueError(f"put: mode must be None, 'wrap' or 'clip', got {mode!r}")
    if v.dtype != a.dtype:
        v = _astype(v, a.dtype)
    out = _set(_flat(a), (_ix(a, ind),), v)
    return _reshape(out, tuple(a.shape))


def place(arr, mask, vals, *, inplace=True):
    """``arr`` with the entries where ``mask`` is true set to ``vals`` in
    order (repeated as needed); functional, as in jax: pass ``inplace=False``."""
    _check_inplace(inplace, "place")
    a = _arr(arr)
    vals = _flat(_on(a, vals, a.dtype))
    m = _host(mask, "place", "mask").ravel().astype(bool)
    if m.size != _math.prod(a.shape):
        raise ValueError("place: arr and mask must have the same size")
    if not vals.shape[0]:
        raise ValueError("place: vals is empty")
    pos = _onp.nonzero(m)[0]
    if not pos.size:
        return a
    v = _tile_to(vals, pos.size)
    if v.dtype != a.dtype:
        v = _astype(v, a.dtype)
    return _reshape(_set(_flat(a), (_ix(a, pos),), v), tuple(a.shape))


def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """``arr`` with ``values`` written at ``indices`` along ``axis`` (the
    transpose of ``take_along_axis``); functional, as in jax: pass ``inplace=False``."""
    _check_inplace(inplace, "put_along_axis")
    a = _arr(arr)
    values = _on(a, values, a.dtype)
    shape = tuple(a.shape)
    if axis is None:
        a, axis = _flat(a), 0
    axis = _axis(axis, a.ndim, "put_along_axis")
    ind = _host(indices, "put_along_axis", "indices").astype(_onp.int64)
    if ind.ndim != a.ndim:
        raise ValueError(f"put_along_axis: indices must have {a.ndim} dimension(s), got {ind.ndim}")
    n = a.shape[axis]
    if mode == "clip":
        ind = _onp.clip(ind, 0, n - 1)
    ind = _onp.where(ind < 0, ind + n, ind)
    nd = a.ndim
    parts = []
    for i in range(nd):
        if i == axis:
            parts.append(_ix(a, ind))
        else:
            parts.append(_ix(a, _onp.reshape(_onp.arange(a.shape[i]),
                                             (1,) * i + (a.shape[i],) + (1,) * (nd - i - 1))))
    if values.dtype != a.dtype:
        values = _astype(values, a.dtype)
    out = _set(a, tuple(parts), values)
    return _reshape(out, shape) if tuple(out.shape) != shape else out


# --------------------------------------------------------------------------
# integer index helpers

def indices(dimensions, dtype=None, sparse=False):
    """The index grid of an array of shape ``dimensions`` (stacked; a tuple
    of broadcastable arrays with ``sparse``)."""
    dims = tuple(dimensions)
    dtype = _int64 if dtype is None else dtype
    nd = len(dims)
    grids = []
    for i, d in enumerate(dims):
        g = _onp.reshape(_onp.arange(d), (1,) * i + (d,) + (1,) * (nd - i - 1))
        grids.append(g if sparse else _onp.broadcast_to(g, dims))
    if sparse:
        return tuple(_asarray(g, dtype=dtype) for g in grids)
    return _asarray(_onp.stack(grids) if grids else _onp.zeros((0,), int), dtype=dtype)


def ix_(*args):
    """An open mesh of the 1-D index sequences ``args``: each reshaped to run
    along its own axis (boolean ones become their non-zero positions)."""
    out = []
    n = len(args)
    for i, a in enumerate(args):
        a = _arr(a)
        if a.ndim != 1:
            raise ValueError(f"ix_: argument {i} must be 1-D, got shape {tuple(a.shape)}")
        if _isdtype(a.dtype, "bool"):
            a = _nonzero(a)[0]
        out.append(_reshape(a, (1,) * i + (a.shape[0],) + (1,) * (n - i - 1)))
    return tuple(out)


def ravel_multi_index(multi_index, dims, mode="raise", order="C", *, dtype=None):
    """Flat indices of the coordinate arrays ``multi_index`` in an array of
    shape ``dims`` (``mode``: ``"raise"``, ``"clip"`` or ``"wrap"``)."""
    dims = tuple(_operator.index(d) for d in dims)
    idx = [_arr(i) for i in multi_index]
    if len(idx) != len(dims):
        raise ValueError(f"ravel_multi_index: {len(idx)} index arrays for {len(dims)} dims")
    for i in idx:
        if not _isdtype(i.dtype, "integral"):
            raise TypeError("ravel_multi_index: only integer indices are allowed")
    if mode == "raise":
        for i, d in zip(idx, dims):
            h = _host(i, "ravel_multi_index", "an index with mode='raise'")
            if ((h < 0) | (h >= d)).any():
                raise ValueError("ravel_multi_index: invalid entry in coordinates array")
    elif mode == "clip":
        idx = [_where(i < 0, 0, _where(i >= d, d - 1, i)) for i, d in zip(idx, dims)]
    elif mode == "wrap":
        idx = [_remainder(i, d) for i, d in zip(idx, dims)]
    else:
        raise ValueError(f"ravel_multi_index: mode must be 'raise', 'clip' or 'wrap', got {mode!r}")
    dt = _result_type(_int64, *idx) if dtype is None else dtype
    if order == "C":
        strides = [_math.prod(dims[k + 1:]) for k in range(len(dims))]
    elif order == "F":
        strides = [_math.prod(dims[:k]) for k in range(len(dims))]
    else:
        raise ValueError(f"ravel_multi_index: order must be 'C' or 'F', got {order!r}")
    out = None
    for i, s in zip(idx, strides):
        t = _astype(i, dt) * s
        out = t if out is None else out + t
    return out if out is not None else _asarray(0, dtype=dt)


def unravel_index(indices, shape):
    """Coordinate arrays, one per axis of ``shape``, of the flat ``indices``
    (as jax: out-of-range indices are clipped)."""
    i = _arr(indices)
    shape = list(shape) if isinstance(shape, (tuple, list)) else [shape]
    out = [None] * len(shape)
    for k in range(len(shape) - 1, -1, -1):
        out[k] = _remainder(i, shape[k])
        i = _floor_divide(i, shape[k])
    pos = i > 0
    neg = i < -1
    return tuple(_where(pos, s - 1, _where(neg, 0, o)) for s, o in zip(shape, out))


# --------------------------------------------------------------------------
# construction

def fromfunction(function, shape, *, dtype=float, **kwargs):
    """``function(*coordinates, **kwargs)`` on the index grid of ``shape``.

    NB: jax vmaps ``function`` over every coordinate (so it sees scalars);
    here it gets the whole coordinate grids at once, as in NumPy, which is
    the same for elementwise functions.
    """
    dt = _float64 if dtype is float else dtype
    grids = indices(tuple(shape), dtype=dt)
    return function(*[grids[i, ...] for i in range(len(tuple(shape)))], **kwargs)


def _inexact(*xs):
    dt = _result_type(*xs)
    return dt if _isdtype(dt, ("real floating", "complex floating")) else _float64


def _lin(start, stop, num, endpoint, dt, axis):
    """``linspace`` differentiable in ``start`` and ``stop`` (arrays), the
    samples along ``axis``."""
    start, stop = _astype(_arr(start), dt), _astype(_arr(stop), dt)
    num = _operator.index(num)
    if num < 0:
        raise ValueError(f"num must be non-negative, got {num}")
    div = (num - 1) if endpoint else num
    t = _onp.arange(num) / div if div > 0 else _onp.zeros(num)
    bshape = _onp.broadcast_shapes(tuple(start.shape), tuple(stop.shape))
    xp = _backend_of(start)
    tt = xp.asarray(_onp.reshape(t, (num,) + (1,) * len(bshape)), dtype=dt)
    s0, s1 = _expand_dims(start, axis=0), _expand_dims(stop, axis=0)
    out = s0 + (s1 - s0) * tt
    out = _broadcast_to(out, (num,) + tuple(bshape))
    if endpoint and num > 1:
        last = _expand_dims(_broadcast_to(stop, tuple(bshape)), axis=0)
        out = _concat([_sl(out, 0, 0, num - 1), last], axis=0)
    return _moveaxis(out, 0, _axis(axis, out.ndim, "linspace")) if axis else out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop, num)`` (differentiable in ``start``,
    ``stop`` and ``base``)."""
    start, stop = _arr(start), _arr(stop)
    dt = _inexact(start, stop) if dtype is None else dtype
    cdt = dt if _isdtype(dt, ("real floating", "complex floating")) else _float64
    lin = _lin(start, stop, num, endpoint, cdt, 0)
    out = _pow(base, lin)
    out = _moveaxis(out, 0, _axis(axis, out.ndim, "logspace")) if axis else out
    return out if out.dtype == dt else _astype(out, dt)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Numbers spaced evenly on a log scale from ``start`` to ``stop`` (same
    sign; differentiable in both)."""
    start, stop = _arr(start), _arr(stop)
    dt = _inexact(start, stop) if dtype is None else dtype
    cdt = dt if _isdtype(dt, ("real floating", "complex floating")) else _float64
    start, stop = _astype(start, cdt), _astype(stop, cdt)
    s = _sign(start)
    lg = logspace(_log10(_divide(start, s)), _log10(_divide(stop, s)), num, endpoint=endpoint,
                  base=10.0, dtype=cdt, axis=0)
    out = _multiply(s, lg)
    out = _moveaxis(out, 0, _axis(axis, out.ndim, "geomspace")) if axis else out
    return out if out.dtype == dt else _astype(out, dt)


# --------------------------------------------------------------------------
# apply along / over axes

def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` applied to each 1-D slice of ``arr`` along ``axis``; the
    slices' results replace that axis.

    NB: jax vmaps ``func1d``; here it is a Python loop over the slices and a
    ``stack`` (``xgrad.numpy`` sits below the transforms), the same values
    and derivatives, one call per slice.
    """
    a = _arr(arr)
    axis = _axis(axis, a.ndim, "apply_along_axis")
    x = _moveaxis(a, axis, -1)
    lead = tuple(x.shape[:-1])
    rows = _reshape(x, (_math.prod(lead), x.shape[-1]))
    outs = [_arr(func1d(rows[r, ...], *args, **kwargs)) for r in range(rows.shape[0])]
    if not outs:
        raise ValueError("apply_along_axis: the array has no 1-D slices")
    out = _reshape(_stack(outs), lead + tuple(outs[0].shape))
    k = outs[0].ndim
    nl = len(lead)
    perm = tuple(range(axis)) + tuple(range(nl, nl + k)) + tuple(range(axis, nl))
    return _permute_dims(out, perm)


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` applied for each axis in turn; a result that lost the
    axis gets it back (size 1)."""
    a = _arr(a)
    for axis in (axes if isinstance(axes, (tuple, list)) else (axes,)):
        b = func(a, axis)
        if b.ndim == a.ndim:
            a = b
        elif b.ndim == a.ndim - 1:
            a = _expand_dims(b, axis=axis)
        else:
            raise ValueError("apply_over_axes: func must keep the number of dimensions or "
                             "remove one")
    return a


# --------------------------------------------------------------------------
# pad

def _pairs(v, nd, name):
    """``v`` (int, (int,), (before, after), ((before, after),) or one pair per
    axis) as ``nd`` pairs of host values."""
    arr = _onp.asarray(_host(v, "pad", name) if isinstance(v, _Tracer) else v)
    if arr.shape not in ((), (1,), (2,), (1, 2), (nd, 2)):
        raise ValueError(f"pad: {name} with nd={nd} has unsupported shape {arr.shape}; valid "
                         f"shapes are ({nd}, 2), (1, 2), (2,), (1,) or ()")
    return [tuple(p) for p in _onp.broadcast_to(arr, (nd, 2)).tolist()]


def _block_like(x, axis, n, value):
    shape = list(x.shape)
    shape[axis] = n
    if isinstance(value, _Tracer) or hasattr(value, "__array_namespace__"):
        v = value if value.dtype == x.dtype else _astype(value, x.dtype)
        return _broadcast_to(v, tuple(shape))
    xp = _backend_of(x)
    return xp.full(tuple(shape), value, dtype=x.dtype, device=_device_of(x))


def _pad_constant(x, pw, cv):
    if isinstance(cv, (int, float, complex, bool)) and not isinstance(cv, _onp.ndarray):
        pairs = [(cv, cv)] * x.ndim
    else:
        if not (isinstance(cv, _Tracer) or hasattr(cv, "__array_namespace__")) \
                or isinstance(cv, _onp.ndarray):
            h = _onp.asarray(cv)
            if h.shape not in ((), (1,), (2,), (1, 1), (1, 2), (x.ndim, 1), (x.ndim, 2)):
                raise ValueError(f"pad: constant_values has unsupported shape {h.shape}")
            pairs = [tuple(p) for p in _onp.broadcast_to(h, (x.ndim, 2)).tolist()]
            c = None
        else:
            c = cv
        if c is None:
            pass
        elif c.ndim == 0:
            pairs = [(c, c)] * x.ndim
        else:
            if c.shape[-1] not in (1, 2) or c.ndim > 2:
                raise ValueError(f"pad: constant_values has unsupported shape {tuple(c.shape)}")
            c = _broadcast_to(c, (x.ndim, 2))
            pairs = [(c[i, 0], c[i, 1]) for i in range(x.ndim)]
    for i, ((b, a), (cb, ca)) in enumerate(zip(pw, pairs)):
        parts = ([_block_like(x, i, b, cb)] if b else []) + [x] + \
                ([_block_like(x, i, a, ca)] if a else [])
        if len(parts) > 1:
            x = _concat(parts, axis=i)
    return x


def _no_padding(p, mode):
    if p[0] > 0 or p[1] > 0:
        raise ValueError(f"pad: can't apply {mode!r} padding to an empty axis")


def _pad_wrap(x, pw):
    for i, (b, a) in enumerate(pw):
        n = x.shape[i]
        if n == 0:
            _no_padding((b, a), "wrap")
            continue
        lr, lrem = divmod(b, n)
        rr, rrem = divmod(a, n)
        parts = ([_sl(x, i, n - lrem, n)] if lrem else []) + [x] * (lr + rr + 1) + \
                ([_sl(x, i, 0, rrem)] if rrem else [])
        if len(parts) > 1:
            x = _concat(parts, axis=i)
    return x


def _pad_reflect(x, pw, mode, reflect_type):
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    for i, (b, a) in enumerate(pw):
        n = x.shape[i]
        if n == 0:
            _no_padding((b, a), mode)
            continue
        off = 1 if (mode == "reflect" and n > 1) else 0
        for before, padding in ((True, b), (False, a)):
            m = x.shape[i]
            edge = _sl(x, i, 0, 1) if before else _sl(x, i, m - 1, m)
            while padding > 0:
                cur = min(padding, n - off)
                padding -= cur
                m = x.shape[i]
                if before:
                    y = _sl(x, i, off, off + cur)
                else:
                    stop = m if (mode == "symmetric" or n == 1) else m - 1
                    y = _sl(x, i, m - cur - off, stop)
                y = _flip(y, axis=i)
                if reflect_type == "odd":
                    y = 2 * edge - y
                    if n > 1:
                        k = y.shape[i]
                        edge = _sl(y, i, 0, 1) if before else _sl(y, i, k - 1, k)
                x = _concat([y, x] if before else [x, y], axis=i)
    return x


def _pad_edge(x, pw):
    for i, (b, a) in enumerate(pw):
        n = x.shape[i]
        if n == 0:
            _no_padding((b, a), "edge")
            continue
        parts = [x]
        if b:
            parts.insert(0, _block_like(x, i, b, _sl(x, i, 0, 1)))
        if a:
            parts.append(_block_like(x, i, a, _sl(x, i, n - 1, n)))
        if len(parts) > 1:
            x = _concat(parts, axis=i)
    return x


def _ramp(x, i, edge, end, num):
    """``linspace(end, edge, num, endpoint=False)`` along axis ``i``."""
    shape = [1] * x.ndim
    shape[i] = num
    xp = _backend_of(x)
    rdt = x.dtype if _isdtype(x.dtype, ("real floating", "complex floating")) else _float64
    t = xp.asarray(_onp.reshape(_onp.arange(num) / num, shape), dtype=rdt, device=_device_of(x))
    e = edge if edge.dtype == rdt else _astype(edge, rdt)
    r = end + (e - end) * t
    return r if r.dtype == x.dtype else _astype(r, x.dtype)


def _pad_linear_ramp(x, pw, end_values):
    ev = _pairs(end_values, x.ndim, "end_values")
    for i, ((b, a), (eb, ea)) in enumerate(zip(pw, ev)):
        n = x.shape[i]
        parts = [x]
        if b:
            parts.insert(0, _ramp(x, i, _sl(x, i, 0, 1), eb, b))
        if a:
            parts.append(_flip(_ramp(x, i, _sl(x, i, n - 1, n), ea, a), axis=i))
        if len(parts) > 1:
            x = _concat(parts, axis=i)
    return x


_STATS = {"maximum": lambda x, i: _max(x, axis=i, keepdims=True),
          "minimum": lambda x, i: _min(x, axis=i, keepdims=True),
          "mean": lambda x, i: _mean(x, axis=i, keepdims=True),
          "median": _stat_median}


def _pad_stats(x, pw, stat_length, mode):
    f = _STATS[mode]
    sl = None if stat_length is None else _pairs(stat_length, x.ndim, "stat_length")
    for i, (b, a) in enumerate(pw):
        n = x.shape[i]
        if sl is None:
            sb = sa = f(x, i)
        else:
            lb, la = sl[i]
            if lb == 0 or la == 0:
                raise ValueError("pad: stat_length of 0 yields no value for padding")
            lb, la = min(lb, n), min(la, n)
            sb, sa = f(_sl(x, i, 0, lb), i), f(_sl(x, i, n - la, n), i)
        if not _isdtype(x.dtype, ("real floating", "complex floating")):
            sb, sa = (_astype(_round(s), x.dtype) if mode in ("mean", "median") else s
                      for s in (sb, sa))
        parts = ([_block_like(x, i, b, sb)] if b else []) + [x] + \
                ([_block_like(x, i, a, sa)] if a else [])
        if len(parts) > 1:
            x = _concat(parts, axis=i)
    return x


_MODES = ("constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum",
          "reflect", "symmetric", "wrap", "empty")
_KWARGS = {"constant": {"constant_values"}, "linear_ramp": {"end_values"},
           "maximum": {"stat_length"}, "mean": {"stat_length"}, "median": {"stat_length"},
           "minimum": {"stat_length"}, "reflect": {"reflect_type"},
           "symmetric": {"reflect_type"}}


def pad(array, pad_width, mode="constant", **kwargs):
    """``array`` padded by ``pad_width`` (per axis ``(before, after)``).

    Args:
        array: the array to pad.
        pad_width: an int, ``(before, after)``, or one pair per axis.
        mode: ``"constant"`` (``constant_values``, default 0), ``"edge"``,
            ``"linear_ramp"`` (to ``end_values``, default 0), ``"maximum"``,
            ``"mean"``, ``"median"``, ``"minimum"`` (over ``stat_length``
            entries at each end, default all), ``"reflect"``,
            ``"symmetric"`` (``reflect_type`` ``"even"`` or ``"odd"``),
            ``"wrap"``, ``"empty"`` (zeros, as jax), or a callable
            ``f(row, pad_width, iaxis, kwargs)`` returning the padded 1-D
            row (its pads zero-filled on entry).
        **kwargs: the mode's options, as above.

    Returns:
        The padded array; differentiable in ``array`` (and in
        ``constant_values``).

    >>> import numpy as np, xgrad.numpy as xnp
    >>> xnp.pad(np.asarray([1.0, 2.0, 3.0]), (2, 1), mode="reflect").tolist()
    [3.0, 2.0, 1.0, 2.0, 3.0, 2.0]
    """
    x = _arr(array)
    nd = x.ndim
    if callable(mode):
        pw = _pairs(pad_width, nd, "pad_width")
        x = _pad_constant(x, pw, 0)
        for i in range(nd):
            x = apply_along_axis(mode, i, x, pw[i], i, kwargs)
        return x
    if mode not in _MODES:
        raise ValueError(f"pad: unimplemented padding mode {mode!r}; use one of {_MODES} or a "
                         f"callable")
    bad = set(kwargs) - _KWARGS.get(mode, set())
    if bad:
        raise ValueError(f"pad: unsupported keyword arguments for mode {mode!r}: {sorted(bad)}")
    if nd == 0:
        return x
    pw = _pairs(pad_width, nd, "pad_width")
    if any(isinstance(v, float) and not v.is_integer() for p in pw for v in p):
        raise TypeError("pad: pad_width must be integers")
    pw = [(_operator.index(int(b)), _operator.index(int(a))) for b, a in pw]
    if any(b < 0 or a < 0 for b, a in pw):
        raise ValueError("pad: pad_width can't contain negative values")
    if mode == "constant":
        return _pad_constant(x, pw, kwargs.get("constant_values", 0))
    if mode == "empty":
        return _pad_constant(x, pw, 0)
    if mode == "wrap":
        return _pad_wrap(x, pw)
    if mode in ("reflect", "symmetric"):
        return _pad_reflect(x, pw, mode, kwargs.get("reflect_type", "even"))
    if mode == "edge":
        return _pad_edge(x, pw)
    if mode == "linear_ramp":
        return _pad_linear_ramp(x, pw, kwargs.get("end_values", 0))
    return _pad_stats(x, pw, kwargs.get("stat_length"), mode)


# --------------------------------------------------------------------------
# index objects: r_, c_, s_, index_exp, mgrid, ogrid

def _grid1d(s):
    start = 0 if s.start is None else s.start
    step = 1 if s.step is None else s.step
    if isinstance(step, complex):
        return _linspace(start, s.stop, int(abs(step)))
    return _arange(start, s.stop, step)


def _promote(arrs):
    dt = _result_type(*arrs)
    return [a if a.dtype == dt else _astype(a, dt) for a in arrs]


class _Mgrid:
    """``mgrid[a:b:s, ...]``: the dense grid of the slices (a complex step
    ``nj`` means ``n`` points, ends included), stacked along a new first axis."""

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid1d(key)
        gs = _promote([_grid1d(k) for k in key])
        if not gs:
            return _arange(0)
        shape = tuple(g.shape[0] for g in gs)
        n = len(gs)
        return _stack([_broadcast_to(_reshape(g, (1,) * i + (g.shape[0],) + (1,) * (n - i - 1)),
                                     shape) for i, g in enumerate(gs)], axis=0)


class _Ogrid:
    """``ogrid[a:b:s, ...]``: the open grid of the slices, a list of arrays
    each running along its own axis."""

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid1d(key)
        gs = _promote([_grid1d(k) for k in key])
        n = len(gs)
        return [_reshape(g, (1,) * i + (g.shape[0],) + (1,) * (n - i - 1))
                for i, g in enumerate(gs)]


class _AxisConcat:
    axis, ndmin, trans1d = 0, 1, -1

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        params = [self.axis, self.ndmin, self.trans1d, -1]
        if key and isinstance(key[0], str):
            directive, key = key[0], key[1:]
            if directive == "r":
                params[-1] = 0
            elif directive == "c":
                params[-1] = 1
            else:
                vec = directive.split(",")
                vec = vec + [str(p) for p in params[len(vec):]] if len(vec) < 4 else \
                    vec[:3] + [str(params[-1])]
                try:
                    params = [int(v) for v in vec]
                except ValueError as e:
                    raise ValueError(f"could not understand directive {directive!r}") from e
        axis, ndmin, trans1d, matrix = params
        # the items' backend: the first traced value or array not numpy's
        ref = next((k for k in key if isinstance(k, _Tracer) or (
            hasattr(k, "__array_namespace__") and not isinstance(k, _onp.ndarray))), None)
        out = []
        for item in key:
            if isinstance(item, slice):
                obj, item_nd = _grid1d(item), 0
            elif isinstance(item, str):
                raise ValueError("a string directive must be placed at the beginning")
            else:
                obj = _arr(item)
                item_nd = obj.ndim
            if ref is not None and isinstance(obj, _onp.ndarray):
                obj = _backend_of(ref).asarray(obj, device=_device_of(ref))
            if obj.ndim < ndmin:
                obj = _reshape(obj, (1,) * (ndmin - obj.ndim) + tuple(obj.shape))
            if trans1d != -1 and ndmin - item_nd > 0:
                perm = tuple(range(ndmin))
                k = ndmin - abs(ndmin + trans1d + 1) % ndmin
                obj = _permute_dims(obj, perm[k:] + perm[:k])
            out.append(obj)
        res = _concat(_promote(out), axis=axis)
        if matrix != -1 and res.ndim == 1:
            res = _expand_dims(res, axis=matrix)
        return res

    def __len__(self):
        return 0


class _RClass(_AxisConcat):
    """``r_[...]``: slices (as ``arange``/``linspace``), scalars and arrays
    joined along the first axis (a leading string directive as in numpy)."""


class _CClass(_AxisConcat):
    """``c_[...]``: as ``r_``, joined along the last axis, 1-D items as columns."""
    axis, ndmin, trans1d = -1, 2, 0


class _IndexExpression:
    """``s_[...]`` (the index itself) and ``index_exp[...]`` (always a tuple):
    an index to build once and use later."""

    def __init__(self, maketuple):
        self.maketuple = maketuple

    def __getitem__(self, item):
        if self.maketuple and not isinstance(item, tuple):
            return (item,)
        return item


r_ = _RClass()
c_ = _CClass()
s_ = _IndexExpression(False)
index_exp = _IndexExpression(True)
mgrid = _Mgrid()
ogrid = _Ogrid()

