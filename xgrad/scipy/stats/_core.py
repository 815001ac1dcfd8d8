"""``mode``, ``rankdata`` and ``sem`` of ``jax.scipy.stats``: composites of
sort, cumulative sums and gathers along the last axis (batched, so ``vmap``
works); ``sem`` is differentiable."""
import math as _math
from typing import NamedTuple as _NamedTuple

from ... import numpy as _n
from ._util import promote as _promote, nan as _nan


class ModeResult(_NamedTuple):
    """``(mode, count)``, as ``scipy.stats.mode`` returns."""
    mode: object
    count: object


def _check_nan_policy(fname, nan_policy):
    if nan_policy not in ("propagate", "omit", "raise"):
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                         "{'propagate', 'omit', 'raise'}")
    if nan_policy == "omit":
        raise NotImplementedError(f"{fname}: logic for `nan_policy` of 'omit' is not implemented")
    if nan_policy == "raise":
        raise NotImplementedError(f"{fname}: nan_policy='raise' is not supported (as in JAX): "
                                  "check for nans before calling")


def _runs(s):
    """For ``s`` sorted along the last axis (length n): per sorted position the
    group id of its run of equal values, the start of each group (``sp[g]``
    for g < number of groups) and the start of the next group (n after the
    last)."""
    n = s.shape[-1]
    first = _n.ones_like(s[..., :1], dtype=_n.bool)
    starts = _n.concatenate([first, s[..., 1:] != s[..., :-1]], axis=-1)
    gid = _n.cumsum(_n.astype(starts, _n.int64), axis=-1) - 1
    sp = _n.argsort(_n.astype(~starts, _n.int8), axis=-1, stable=True)
    ngroups = _n.sum(_n.astype(starts, _n.int64), axis=-1, keepdims=True)
    g = _iota(sp)
    nxt = _n.concatenate([sp[..., 1:], _n.full_like(sp[..., :1], n)], axis=-1)
    nxt = _n.where(g + 1 < ngroups, nxt, n)
    return gid, sp, nxt, ngroups


def _iota(like):
    """0, 1, ..., n-1 along the last axis, on the backend of ``like``."""
    return _n.cumsum(_n.ones_like(like[(0,) * (like.ndim - 1) + (Ellipsis,)], dtype=_n.int64), axis=0) - 1


def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """Most common value along ``axis`` (the smallest of tied ones) and its count.

    Args:
      a: array.
      axis: the axis, or None (the flattened array).
      nan_policy: only 'propagate' (as JAX).
      keepdims: keep the reduced axis with size 1.

    Returns:
      ``ModeResult(mode, count)``; over an empty axis the mode is nan and the count 0.
    """
    _check_nan_policy("mode", nan_policy)
    x = _n.atleast_1d(_n.asarray(a))
    in_shape = tuple(x.shape)
    if axis is None:
        out_shape = (1,) * len(in_shape) if keepdims else ()
        x = _n.reshape(x, (-1,))
        ax = 0
    else:
        ax = axis + x.ndim if axis < 0 else axis
        if not 0 <= ax < x.ndim:
            raise ValueError(f"mode: axis {axis} is out of bounds for an array of dimension {x.ndim}")
        out_shape = tuple(1 if i == ax else d for i, d in enumerate(in_shape)) if keepdims \
            else tuple(d for i, d in enumerate(in_shape) if i != ax)
    x = _n.moveaxis(x, ax, -1)
    if x.shape[-1] == 0:
        return ModeResult(_n.full(out_shape, _nan), _n.zeros(out_shape))
    s = _n.sort(x, axis=-1)
    _, sp, nxt, ngroups = _runs(s)
    g = _iota(s)
    length = _n.where(g < ngroups, nxt - sp, -1)
    best = _n.argmax(length, axis=-1, keepdims=True)
    start = _n.take_along_axis(sp, best, axis=-1)
    m = _n.take_along_axis(s, start, axis=-1)[..., 0]
    c = _n.take_along_axis(length, best, axis=-1)[..., 0]
    return ModeResult(_n.reshape(m, out_shape), _n.reshape(c, out_shape))


_METHODS = ("average", "min", "max", "dense", "ordinal")


def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    """Ranks of the entries (1 for the smallest), ties resolved by ``method``.

    Args:
      a: array.
      method: 'average', 'min', 'max', 'dense' or 'ordinal' (as scipy).
      axis: rank along this axis; None ranks the flattened array.
      nan_policy: only 'propagate': a slice holding a nan ranks as all nan.

    Returns:
      float64 ranks, the shape of ``a`` (flattened when ``axis`` is None).
    """
    _check_nan_policy("rankdata", nan_policy)
    if method not in _METHODS:
        raise ValueError(f"unknown method '{method}'")
    x = _n.asarray(a)
    if axis is None:
        x = _n.reshape(x, (-1,))
        ax = 0
    else:
        ax = axis + x.ndim if axis < 0 else axis
        if not 0 <= ax < x.ndim:
            raise ValueError(f"rankdata: axis {axis} is out of bounds for an array of dimension {x.ndim}")
    x = _n.moveaxis(x, ax, -1)
    f64 = _n.float64
    order = _n.argsort(x, axis=-1, stable=True)
    inv = _n.argsort(order, axis=-1, stable=True)
    if method == "ordinal":
        r = _n.astype(inv + 1, f64)
    else:
        s = _n.take_along_axis(x, order, axis=-1)
        gid, sp, nxt, _ = _runs(s)
        if method == "dense":
            rs = _n.astype(gid + 1, f64)
        else:
            lo = _n.astype(_n.take_along_axis(sp, gid, axis=-1) + 1, f64)
            hi = _n.astype(_n.take_along_axis(nxt, gid, axis=-1), f64)
            rs = lo if method == "min" else hi if method == "max" else 0.5 * (lo + hi)
        r = _n.take_along_axis(rs, inv, axis=-1)
    if _n.isdtype(x.dtype, ("real floating", "complex floating")):
        r = _n.where(_n.any(_n.isnan(x), axis=-1, keepdims=True), _nan, r)
    return _n.moveaxis(r, -1, ax)


def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """Standard error of the mean, ``std(a, ddof) / sqrt(count)`` along ``axis``
    (every axis for None); ``nan_policy='omit'`` leaves the nans out.
    Differentiable in ``a``."""
    (b,) = _promote("sem", a)
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return _n.std(b, axis=axis, correction=ddof, keepdims=keepdims) / _math.sqrt(size)
    if nan_policy == "omit":
        count = _n.sum(_n.astype(~_n.isnan(b), b.dtype), axis=axis, keepdims=keepdims)
        return _n.nanstd(b, axis=axis, ddof=ddof, keepdims=keepdims) / _n.sqrt(count)
    raise ValueError(f"{nan_policy} is not supported")
