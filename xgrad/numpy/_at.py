"""Functional index updates, JAX's ``x.at[idx]``: ``x.at[idx].set(v)``,
``.add``, ``.subtract``, ``.multiply``, ``.divide``, ``.power``, ``.min``,
``.max``, ``.apply`` and ``.get``, each returning a new array (the caller's
array is never written).

Where ``.at`` is: every traced value has the property ``x.at``. Inside
``grad``/``jvp``/``vjp`` the creation functions (``zeros``, ``ones``,
``asarray``, ...) return constants of the running transform, which are
traced values, so ``R = zeros((3, 3)); R = R.at[0, 0].set(c)`` works there.
Outside transforms, on numpy, the creation functions (``zeros``, ``ones``,
``full``, ``empty``, ``eye``, ``arange``, ``linspace``, ``asarray``/
``array``, the ``*_like`` ones) and ``.at`` itself return a numpy array of
a small subclass that has ``.at``; so the same JAX code runs eagerly too.
Everything else stays plain: what numpy computes from such an array is a
plain ``numpy.ndarray`` (the subclass does not spread), and so are the
caller's own arrays, cupy and array_api_strict arrays, and what
``xgrad.numpy`` returns from any other function. For those, and for code
that may see either, ``xgrad.numpy.at(x)[idx].add(v)`` takes any array.
Why a subclass at creation only: numpy wraps the result of every operation
on a subclass (measured: ``np.sin`` on a 10-element array, 0.75 us on the
subclass, 0.37 us on an ndarray; a subclass that spread through a program
would make every operation 2x slower), so the subclass stops at the first
operation, and xgrad's per-operation fast path never sees it: transforms
make traced values, and inputs are the caller's arrays.

Semantics (JAX's): ``set``: the last write wins at a repeated index;
``add`` (and ``subtract``, ``multiply``, ``divide``, ``power``, ``min``,
``max``): every write applies, repeated indices accumulate (unlike
``x[idx] += v``, which keeps numpy's meaning: the last write wins). ``mode``:
``None`` or ``"promise_in_bounds"`` (updates drop out-of-bounds indices,
``get`` clips them), ``"clip"``, ``"drop"``, ``"fill"`` (``get`` returns
``fill_value``: NaN for inexact dtypes, the most negative integer for signed
ones, the largest for unsigned, True for bool). ``indices_are_sorted`` and
``unique_indices`` are accepted (hints; the result does not depend on them).

Derivatives: ``set`` and ``add`` are the primitives ``index_set`` and
``index_add``; the others are composites of a gather, an elementwise
operation and ``index_set`` (repeated indices: applied in rounds, one per
repetition, each round writing distinct positions), so they differentiate to
any order and batch under ``vmap``; at ties ``min``/``max`` share the
derivative equally among ``x`` and every write equal to the result (JAX's
convention; for two entries this is ``minimum``'s half). An index that is
itself traced (it differs per example under ``vmap``, or is an argument of
``jit``): ``get``, ``set``, ``add``, ``min`` and ``max`` gather and scatter at
traced positions; ``multiply`` (so ``divide`` and ``power``) and ``apply``
sort the writes by position and apply them in rounds of a number fixed by
the shape (``_fold_traced``), with the same results, bit for bit, as the
writes one at a time.
"""
from __future__ import annotations

import math as _math
import operator as _operator
import sys as _sys

import numpy as _np

from ..core import RULES as _RULES, Tracer as _Tracer, bind as _bind
from ..backends import backend_of as _backend_of, index_winners as _index_winners


class _AtArray(_np.ndarray):
    """A numpy array with JAX's ``.at`` (what the creation functions of
    ``xgrad.numpy`` return outside transforms): a plain ``numpy.ndarray``
    in every other respect, and the results of numpy operations on it are
    plain ndarrays again."""

    __slots__ = ()

    @property
    def at(self):
        return _IndexUpdateHelper(self)

    def __array_wrap__(self, obj, context=None, return_scalar=False):
        if return_scalar:
            return obj[()]
        return obj if type(obj) is _np.ndarray else obj.view(_np.ndarray)

    def __getitem__(self, idx):
        # a traced index (under jit, or computed from traced values): the
        # namespace's indexing, which records it; numpy would refuse it
        if isinstance(idx, _Tracer) or (type(idx) is tuple and any(isinstance(i, _Tracer)
                                                                   for i in idx)):
            return _X()._getitem(self, idx)
        return _np.ndarray.__getitem__(self, idx)

    def __reduce__(self):          # pickles (and copies) as a plain ndarray
        return self.view(_np.ndarray).__reduce__()

    def __repr__(self):
        return repr(self.view(_np.ndarray))


def with_at(out):
    """``out`` with ``.at`` if it is a plain numpy array (outside transforms)."""
    return out.view(_AtArray) if type(out) is _np.ndarray else out


def _X():
    return _sys.modules["xgrad.numpy"]


_GET_MODES = {None: "clip", "promise_in_bounds": "clip", "clip": "clip", "drop": "fill",
              "fill": "fill"}
_SET_MODES = {None: "drop", "promise_in_bounds": "drop", "clip": "clip", "drop": "drop",
              "fill": "drop"}


def _mode(mode, table):
    m = getattr(mode, "name", mode)          # jax's GatherScatterMode enum
    if isinstance(m, str):
        m = m.lower()
        m = {"fill_or_drop": "fill", "promise_in_bounds": "promise_in_bounds"}.get(m, m)
    if m not in table:
        raise ValueError(f"at[...]: mode={mode!r}; expected one of 'promise_in_bounds', 'clip', "
                         f"'drop', 'fill' or None")
    return table[m]


def _is_bool_array(p):
    return hasattr(p, "dtype") and hasattr(p, "shape") and "bool" in str(p.dtype)


def _is_int_array(p):
    return hasattr(p, "dtype") and hasattr(p, "shape") and not _is_bool_array(p)


def _fix_index(shape, idx, how, wrap):
    """The index with out-of-bounds integer entries clipped (``how ==
    "clip"``) or pointed at one extra position past the end of their axis
    (otherwise; the caller pads that axis); returns the index and the padded
    axes. A traced index array (per example under vmap) is fixed with traced
    operations, its axis padded whether or not an entry is out of bounds."""
    parts = list(idx) if isinstance(idx, tuple) else [idx]
    ndim = len(shape)
    used = sum(len(p.shape) if _is_bool_array(p) else 1 for p in parts
               if p is not None and p is not Ellipsis)
    if used > ndim:
        raise IndexError(f"at[...]: too many indices ({used}) for an array with {ndim} dimension(s)")
    pads = []
    a = 0
    for j, p in enumerate(parts):
        if p is None:
            continue
        if p is Ellipsis:
            a += ndim - used
            continue
        if _is_bool_array(p):
            a += len(p.shape)
            continue
        n = shape[a]
        if isinstance(p, slice):
            pass
        elif isinstance(p, _Tracer):
            X = _X()
            q = X.where(p < 0, p + n, p) if wrap else p
            if how == "clip":
                q = X.clip(q, 0, max(n - 1, 0))
            else:
                q = X.where(X.logical_or(q < 0, q >= n), n, q)
                pads.append(a)
            parts[j] = q
        elif _is_int_array(p):
            xp = _backend_of(p)
            lo = -n if wrap else 0
            bad = (p < lo) | (p >= n)
            if bool(xp.any(bad)) or not wrap:
                q = xp.where(p < 0, p + n, p) if wrap else p
                if how == "clip":
                    q = xp.clip(q, 0, max(n - 1, 0))
                else:
                    q = xp.where(bad, n, q)
                    if bool(xp.any(bad)):
                        pads.append(a)
                parts[j] = q
        else:
            i = _operator.index(p)
            if not ((-n if wrap else 0) <= i < n):
                if how == "clip":
                    i = 0 if i < 0 else n - 1
                else:
                    i = n
                    pads.append(a)
            elif i < 0:
                i += n
            parts[j] = i
        a += 1
    return (tuple(parts) if isinstance(idx, tuple) else parts[0]), sorted(set(pads))


def _is_traced(idx):
    return any(isinstance(p, _Tracer) for p in (idx if isinstance(idx, tuple) else (idx,)))


def _positions(x, idx):
    """The flat positions (into ``reshape(x, (-1,))``) that ``x[idx]``
    reads, an integer array of the shape of ``x[idx]``: the index as
    operand of ``gather``/``scatter``. A static index gathers them from an
    ``arange`` (the backend's own indexing rules); one with traced arrays
    builds them by broadcasting (``_traced_positions``)."""
    shape = tuple(x.shape)
    xp = _backend_of(x)
    dev = _X()._device_of(x)
    if not _is_traced(idx):
        return xp.reshape(xp.arange(_math.prod(shape), dtype=xp.int64, device=dev), shape)[idx]
    return _traced_positions(shape, idx, xp, dev)


def _traced_positions(shape, idx, xp, dev):
    """Flat positions of ``x[idx]`` for an in-bounds, non-negative index
    that holds traced integer arrays: the sum over axes of the index on that
    axis times the axis's stride, each term shaped to its place in the
    result, by numpy's rules (the advanced indices, integers included, give
    their broadcast shape in place when they are adjacent, in front
    otherwise; ``None`` makes a size-1 axis)."""
    X = _X()
    parts = []
    for p in (idx if isinstance(idx, tuple) else (idx,)):
        if _is_bool_array(p):
            if isinstance(p, _Tracer):
                raise TypeError("at[...]: a boolean mask that differs per example (under vmap) "
                                "has no fixed shape; use xgrad.numpy.where(mask, new, x) instead")
            parts.extend(_backend_of(p).nonzero(p))
        else:
            parts.append(p)
    ndim = len(shape)
    used = sum(1 for p in parts if p is not None and p is not Ellipsis)
    full = []
    for p in parts:
        if p is Ellipsis:
            full.extend([slice(None)] * (ndim - used))
            used = ndim
        else:
            full.append(p)
    full.extend([slice(None)] * (ndim - used))
    strides = [_math.prod(shape[a + 1:]) for a in range(ndim)]
    adv = [j for j, p in enumerate(full) if p is not None and not isinstance(p, slice)]
    arrays = [p for p in full if hasattr(p, "shape")]
    bshape = tuple(X.broadcast_shapes(*[tuple(p.shape) for p in arrays]))
    adjacent = adv == list(range(adv[0], adv[-1] + 1))
    # the axes of the result: ("adv",) for the broadcast block, (j, size) per basic part
    basic = [(j, 1 if p is None else len(range(*p.indices(shape[sum(
        1 for q in full[:j] if q is not None)])))) for j, p in enumerate(full)
        if p is None or isinstance(p, slice)]
    if adjacent:
        layout = [b for b in basic if b[0] < adv[0]] + ["adv"] + [b for b in basic if b[0] > adv[-1]]
    else:
        layout = ["adv"] + basic
    out_shape, where_at = [], {}
    for item in layout:
        if item == "adv":
            start = len(out_shape)
            out_shape.extend(bshape)
        else:
            where_at[item[0]] = len(out_shape)
            out_shape.append(item[1])
    r = len(out_shape)
    pos = 0
    a = 0
    for j, p in enumerate(full):
        if p is None:
            continue
        s = strides[a]
        if isinstance(p, slice):
            rng = range(*p.indices(shape[a]))
            t = xp.arange(rng.start, rng.stop, rng.step, dtype=xp.int64, device=dev) * s
            d = where_at[j]
            pos = X.add(pos, xp.reshape(t, (1,) * d + (len(rng),) + (1,) * (r - d - 1)))
        elif hasattr(p, "shape"):
            k = len(p.shape)
            lead = start + len(bshape) - k
            t = X.multiply(X.astype(p, xp.int64), s)
            pos = X.add(pos, X.reshape(t, (1,) * lead + tuple(p.shape) + (1,) * (r - lead - k)))
        else:
            pos = X.add(pos, _operator.index(p) * s)
        a += 1
    return X.broadcast_to(pos, tuple(out_shape))


def _gather_at(x, idx):
    """``x[idx]`` through ``gather`` at the flat positions of ``idx``."""
    X = _X()
    return X._gather(X.reshape(x, (_math.prod(x.shape),)), _positions(x, idx))


def _scatter_at(x, idx, v, op):
    """``x`` with ``v`` written at ``x[idx]`` through ``scatter`` (``op``:
    "set", "add", "max", "min"), in ``x``'s dtype."""
    X = _X()
    shape = tuple(x.shape)
    pos = _positions(x, idx)
    region = tuple(pos.shape)
    if not hasattr(v, "shape"):
        xp = _backend_of(x)
        v = xp.asarray(v, dtype=x.dtype, device=X._device_of(x))
    v = _cast_like(v, x)
    if len(v.shape) > len(region):         # numpy allows leading size-1 axes
        v = X.reshape(v, tuple(v.shape)[len(v.shape) - len(region):])
    if tuple(v.shape) != region:
        v = X.broadcast_to(v, region)
    out = X._scatter(X.reshape(x, (_math.prod(shape),)), v, pos, op)
    return X.reshape(out, shape)


def get_traced(x, idx):
    """``x[idx]`` for an index with traced arrays (per example under vmap):
    JAX's semantics, out-of-bounds entries clipped."""
    return _IndexUpdateRef(x, idx).get()


def _owned_index(p):
    """A copy of an index array that no one else can write: once, at the
    time a derivative or a staged program keeps it (the array itself when
    it is a read-only numpy array already, as xgrad's copies are)."""
    if isinstance(p, _np.ndarray):
        if not p.flags.writeable:
            return p
        p = p.copy()
        p.flags.writeable = False
        return p
    if isinstance(p, _np.generic):
        return p
    return _backend_of(p).asarray(p, copy=True)


def _default_fill(dtype):
    X = _X()
    if X.isdtype(dtype, ("real floating", "complex floating")):
        return float("nan")
    if X.isdtype(dtype, "bool"):
        return True
    info = X.iinfo(dtype)
    return int(info.min) if X.isdtype(dtype, "signed integer") else int(info.max)


def _pad(x, axes, fill):
    """``x`` with one more position at the end of each of ``axes``, holding ``fill``."""
    X = _X()
    xp = _backend_of(x)
    for a in axes:
        s = list(x.shape)
        s[a] = 1
        block = xp.full(tuple(s), fill, dtype=x.dtype, device=X._device_of(x))
        x = X.concat([x, block], axis=a)
    return x


def _unpad(x, axes, shape):
    return x[tuple(slice(0, shape[a]) if a in axes else slice(None) for a in range(len(shape)))]


def _cast_like(v, x):
    if hasattr(v, "dtype") and v.dtype != x.dtype:
        return _X().astype(v, x.dtype)
    return v


def _combine(x, idx, v, op):
    """``x`` with ``x[idx] = op(x[idx], v)``, every write applied even at a
    repeated position (in rounds of distinct positions)."""
    X = _X()
    xp = _backend_of(x)
    shape = tuple(x.shape)
    won = _index_winners(xp, shape, idx)
    if won is None:                               # distinct positions: one gather, one write
        new = _cast_like(op(X._getitem(x, idx), v), x)
        return X._index_set(x, new, idx)
    n = _math.prod(shape)
    dev = X._device_of(x)
    pos = xp.reshape(xp.arange(n, device=dev), shape)[idx]
    region = tuple(pos.shape)
    k = _math.prod(region)
    rounds = []
    seen = {}
    for j, p in enumerate(_host_list(xp.reshape(pos, (k,)))):
        r = seen.get(p, 0)
        seen[p] = r + 1
        if r == len(rounds):
            rounds.append(([], []))
        rounds[r][0].append(j)
        rounds[r][1].append(p)
    if hasattr(v, "shape") and len(v.shape):
        if len(v.shape) > len(region):         # numpy allows leading size-1 axes
            v = X.reshape(v, tuple(v.shape)[len(v.shape) - len(region):])
        v = X.reshape(X.broadcast_to(v, region), (k,))
    else:
        v = v if not hasattr(v, "shape") else X.reshape(v, ())
    xf = X.reshape(x, (n,))
    for sel, ps in rounds:
        where_to = xp.asarray(ps, dtype=xp.int64, device=dev)
        vv = v if not (hasattr(v, "shape") and len(v.shape)) else \
            X._getitem(v, xp.asarray(sel, dtype=xp.int64, device=dev))
        new = _cast_like(op(X._getitem(xf, where_to), vv), xf)
        xf = X._index_set(xf, new, where_to)
    return X.reshape(xf, shape)


def _sorted_writes(x, idx):
    """The writes of ``x.at[idx]`` for an index with traced arrays, sorted
    stably by flat position: ``x`` flat, the shape of the region ``x[idx]``,
    the sort order, the sorted positions and which entries end a run of one
    position (the last write there); ``None`` when there is no write."""
    X = _X()
    n = _math.prod(tuple(x.shape))
    pos = _positions(x, idx)
    k = _math.prod(tuple(pos.shape))
    if k == 0:
        return None
    p = X.reshape(pos, (k,))
    order = X.argsort(p, stable=True)
    sp = X._gather(p, order)
    true = _backend_of(x).ones((1,), dtype=_backend_of(x).bool, device=X._device_of(x))
    last = X.concat([sp[1:] != sp[:-1], true]) if k > 1 else true
    return X.reshape(x, (n,)), tuple(pos.shape), order, sp, last


def _segment_counts(sp, last):
    """For sorted positions ``sp``: at the last write of each position, how
    many writes it has; 0 elsewhere. A segmented running count by doubling:
    log2(k) steps for k writes, a number fixed by the shape (so it replays
    under jit); a run of one position is contiguous, so two entries ``s``
    apart with the same position are in one run."""
    X = _X()
    xp = _backend_of(sp)
    dev = X._device_of(sp)
    k = sp.shape[0]
    zero = xp.zeros((), dtype=xp.int64, device=dev)
    c = xp.ones((k,), dtype=xp.int64, device=dev)
    s = 1
    while s < k:
        c = X.concat([c[:s], X.add(c[s:], X.where(sp[s:] == sp[:-s], c[:-s], zero))])
        s *= 2
    return X.where(last, c, zero)


def _fold_traced(x, idx, v, func):
    """``x[idx] = func(x[idx], v)`` for an index with traced arrays (per
    example under vmap), every write applied in order: at a position written
    ``c`` times the result is ``func(...func(func(x, v1), v2)..., vc)``,
    exactly what the writes one at a time give (so also at zeros,
    infinities, NaN and overflow: no write is divided out or reordered).

    How: the writes are sorted stably by position; the last write of each
    position carries its count, and these are sorted by count, most first.
    Round ``r`` applies write ``r`` of each position whose count exceeds
    ``r``; those are among the first ``k // (r + 1)`` entries (their counts
    add up to at most ``k``), so the rounds work on a shrinking prefix: ``k``
    rounds for ``k`` writes (a number fixed by the shape, so it replays
    under jit) that call ``func`` on about ``k log k`` entries in all, and
    one write per position at the end. An entry that sits a round out passes
    ``func`` a value without derivative and keeps its own, so an infinite
    slope there does not reach the derivative as NaN."""
    X = _X()
    xp = _backend_of(x)
    dev = X._device_of(x)
    sw = _sorted_writes(x, idx)
    if sw is None:                              # no write: a fresh copy of x
        return _scatter_at(x, idx, 0, "add")
    xf, region, order, sp, last = sw
    k = order.shape[0]
    count = _segment_counts(sp, last)
    by_count = X.argsort(X.negative(count), stable=True)
    if v is not None:
        if not hasattr(v, "shape"):
            v = xp.asarray(v, dtype=x.dtype, device=dev)
        v = _cast_like(v, x)
        if len(v.shape) > len(region):         # numpy allows leading size-1 axes
            v = X.reshape(v, tuple(v.shape)[len(v.shape) - len(region):])
        if tuple(v.shape) != region:
            v = X.broadcast_to(v, region)
        sv = X._gather(X.reshape(v, (k,)), order)      # the writes, by position, in order
        first = X._gather(X.add(X.subtract(xp.arange(k, dtype=xp.int64, device=dev), count), 1),
                          by_count)                    # where each position's writes start
    sp = X._gather(sp, by_count)
    count = X._gather(count, by_count)
    is_last = count > 0
    y = X._gather(xf, sp)
    done = []
    for r in range(k):
        m = k // (r + 1)
        if m < y.shape[0]:                     # the rest have counts of at most r: done
            done.append(y[m:])
            y, count = y[:m], count[:m]
            if v is not None:
                first = first[:m]
        on = count > r
        w = None if v is None else X._gather(sv, X.minimum(X.add(first, r), k - 1))
        new = func(X.where(on, y, _no_derivative(y)), w)
        new = _cast_like(new if hasattr(new, "shape") else X.asarray(new), y)
        if tuple(new.shape) != tuple(y.shape):
            new = X.broadcast_to(new, tuple(y.shape))
        y = X.where(on, new, y)
    new = X.concat([y] + done[::-1]) if done else y
    # the result of each position lands there, the other entries in a spare
    # slot past the end, cut off after (no boolean mask: shapes stay fixed)
    n = xf.shape[0]
    spare = X.concat([xf, X._zeros_like(xf[:1])])
    out = X._scatter(spare, new, X.where(is_last, sp, n), "set")[:n]
    return X.reshape(out, tuple(x.shape))


def _no_derivative(v):
    """``v`` as a constant to every transform."""
    return _bind(_RULES["stop_gradient"], v) if isinstance(v, _Tracer) else v


def _host_list(a):
    if hasattr(a, "tolist"):
        return a.tolist()
    if hasattr(a, "get"):
        return a.get().tolist()
    return _X()._np.asarray(a).tolist()


_OPS = {
    "multiply": lambda a, b: _X().multiply(a, b),
    "divide": lambda a, b: _X().divide(a, b),
    "power": lambda a, b: _X().pow(a, b),
    "min": lambda a, b: _X().minimum(a, b),
    "max": lambda a, b: _X().maximum(a, b),
}


def _keep_traced(x, out):
    """An update of a traced constant (``zeros((3, 3))`` inside ``grad``)
    with constants is computed on plain arrays; keep the result a constant of
    the same transform, so that ``R.at[2, 2].set(1.0).at[0, 0].set(c)``
    chains."""
    if isinstance(x, _Tracer) and not isinstance(out, _Tracer) and x._trace.alive:
        return x._trace.const(out)
    return with_at(out) if type(x) is _AtArray else out


class _IndexUpdateRef:
    """``x.at[idx]``: call one of its methods to get the updated copy."""

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array = array
        self.index = index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def _prepare(self, mode, table, wrap, own):
        idx = _X()._norm_index(self.index, own=own, keep_traced=True)
        parts = idx if isinstance(idx, tuple) else (idx,)
        if not any(p is Ellipsis for p in parts):
            used = sum(len(p.shape) if _is_bool_array(p) else 1 for p in parts if p is not None)
            if used < len(self.array.shape):      # x[i] is x[i, ...] (the array API wants it said)
                idx = parts + (Ellipsis,)
        return _fix_index(tuple(self.array.shape), idx, _mode(mode, table), wrap)

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None, fill_value=None,
            out_sharding=None, wrap_negative_indices=True):
        """``x[idx]``; out-of-bounds indices are clipped (``mode`` None,
        ``"promise_in_bounds"`` or ``"clip"``) or give ``fill_value``
        (``"fill"``, ``"drop"``)."""
        x = self.array
        idx, pads = self._prepare(mode, _GET_MODES, wrap_negative_indices,
                                  isinstance(x, _Tracer))
        if pads:
            x = _pad(x, pads, _default_fill(x.dtype) if fill_value is None else fill_value)
        out = _gather_at(x, idx) if _is_traced(idx) else _X()._getitem(x, idx)
        return _keep_traced(self.array, out)

    def _update(self, kind, values, mode, wrap):
        """``x[idx] = kind(x[idx], values)``, JAX's way: computed in the
        promoted dtype of ``x`` and ``values`` and cast back to ``x``'s at
        the end (``int32 -3 .at[].add(2.7)`` is 0, not -1)."""
        x = self.array
        shape = tuple(x.shape)
        own = isinstance(x, _Tracer) or isinstance(values, _Tracer)
        idx, pads = self._prepare(mode, _SET_MODES, wrap, own)
        X = _X()
        dt = x.dtype
        if kind != "set" and isinstance(kind, str):
            rt = X.result_type(x, values)
            if kind in ("add", "subtract", "multiply") and X.isdtype(rt, "bool"):
                raise TypeError(f"at[...].{kind}: not defined for boolean arrays (as in JAX); "
                                f"use .max (logical or), .min (logical and) or .set")
            if rt != dt:
                x = X.astype(x, rt)
            if kind == "subtract":
                kind, values = "add", X.negative(values) if hasattr(values, "shape") else -values
        if pads:
            x = _pad(x, pads, 0)
        if kind in ("set", "add", "min", "max") and (_is_traced(idx) or kind in ("min", "max")):
            out = _scatter_at(x, idx, values, kind)
        elif kind == "set":
            out = X._index_set(x, _cast_like(values, x), idx)
        elif kind == "add":
            out = X._index_add(x, _cast_like(values, x), idx)
        elif _is_traced(idx):
            out = (_fold_traced(x, idx, values, _OPS["multiply"]) if kind == "multiply"
                   else _fold_traced(x, idx, None, kind))
        else:
            out = _combine(x, idx, values, _OPS[kind] if isinstance(kind, str) else kind)
        out = _unpad(out, pads, shape) if pads else out
        if out.dtype != dt:
            out = X.astype(out, dt)
        return _keep_traced(self.array, out)

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """``x[idx] = values`` on a copy (a repeated index: the last write wins)."""
        return self._update("set", values, mode, wrap_negative_indices)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """``x[idx] += values`` on a copy, repeated indices accumulating."""
        return self._update("add", values, mode, wrap_negative_indices)

    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 out_sharding=None, wrap_negative_indices=True):
        """``x[idx] -= values`` on a copy, repeated indices accumulating."""
        return self._update("subtract", values, mode, wrap_negative_indices)

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 out_sharding=None, wrap_negative_indices=True):
        """``x[idx] *= values`` on a copy, repeated indices accumulating."""
        return self._update("multiply", values, mode, wrap_negative_indices)

    mul = multiply

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
               out_sharding=None, wrap_negative_indices=True):
        """``x[idx] /= values`` on a copy, repeated indices accumulating:
        as JAX, ``x / ones_like(x).at[idx].multiply(values)`` (so an
        integer ``x`` gives a floating-point result)."""
        return self._by_product("divide", values, mode, wrap_negative_indices)

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
              out_sharding=None, wrap_negative_indices=True):
        """``x[idx] **= values`` on a copy, repeated indices accumulating:
        as JAX, ``x ** ones_like(x).at[idx].multiply(values)``."""
        return self._by_product("power", values, mode, wrap_negative_indices)

    def _by_product(self, name, values, mode, wrap):
        x = self.array
        X = _X()
        if X.isdtype(X.result_type(x, values), "bool"):
            raise TypeError(f"at[...].{name}: not defined for boolean arrays (as in JAX)")
        op = X.divide if name == "divide" else X.pow
        ones = _IndexUpdateRef(_X()._ones_like(x), self.index)._update("multiply", values, mode,
                                                                     wrap)
        return _keep_traced(x, op(x, ones))

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,  # noqa: A003
            out_sharding=None, wrap_negative_indices=True):
        """``x[idx] = minimum(x[idx], values)`` on a copy, every write applied."""
        return self._update("min", values, mode, wrap_negative_indices)

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,  # noqa: A003
            out_sharding=None, wrap_negative_indices=True):
        """``x[idx] = maximum(x[idx], values)`` on a copy, every write applied."""
        return self._update("max", values, mode, wrap_negative_indices)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None,
              out_sharding=None, wrap_negative_indices=True):
        """``x[idx] = func(x[idx])`` on a copy, applied once per write at a
        repeated index (``ufunc.at``)."""
        return self._update(lambda a, _: func(a), None, mode, wrap_negative_indices)


class _IndexUpdateHelper:
    """``x.at``: index it (``x.at[idx]``) to choose where to update."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


def at(x, /):
    """JAX's ``x.at`` for any array, plain or traced: ``at(x)[idx].add(v)``
    is ``x.at[idx].add(v)``. Traced values and what the creation functions
    return have the property ``x.at``; other plain backend arrays (numpy,
    cupy, array_api_strict) have none, so use this form where ``x`` may be
    one of those.

    NB: not in ``jax.numpy``; see the docstring of ``xgrad/numpy/_at.py``
    for which arrays have ``.at`` and why.

    >>> import numpy as np, xgrad.numpy as xnp
    >>> xnp.at(np.zeros(3))[xnp.asarray([0, 0, 2])].add(1.0).tolist()
    [2.0, 0.0, 1.0]
    >>> xnp.zeros(3).at[1].set(5.0)
    array([0., 5., 0.])
    """
    return _IndexUpdateHelper(x)
