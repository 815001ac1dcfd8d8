"""jax.numpy's statistics, NaN-aware reductions and calculus helpers:
``average``, ``cov``, ``corrcoef``, ``median``/``quantile``/``percentile``
(and their ``nan*`` forms), the ``nan*`` reductions, ``ptp``, ``cumprod``,
``trace``, ``gradient``, ``trapezoid``, ``interp``, ``unwrap``,
``ediff1d``, ``convolve`` and ``correlate``.

Every function is a composite of existing ``xgrad.numpy`` functions (sort,
where, sum, cumulative sums, matmul, slices), so derivatives (any order) and
``vmap`` come from rules that exist already, and the derivative is JAX's
wherever JAX's is the derivative of the same composite: a quantile gathers
the sorted values at ``floor`` and ``ceil`` of ``q (n - 1)`` and mixes them
(``median`` is the ``'midpoint'`` quantile, so with an even count each middle
value gets half), the ``nan*`` functions replace NaNs by a neutral value with
``where`` first (their derivative is zero at the NaNs), ties of ``max`` and
``min`` share the derivative.

To add a function: write it here and list it in ``__all__``.
"""
from __future__ import annotations

import math as _math
import operator as _operator

from ..core import Tracer as _Tracer, bind as _bind, concrete as _concrete
from ..backends import backend_of as _backend_of
from ..rules.extra import permute_along_p as _permute_along_p
from .. import numpy as _n

__all__ = ["average", "cov", "corrcoef", "median", "percentile", "quantile",
           "nanmedian", "nanpercentile", "nanquantile", "nanmax", "nanmin", "nanmean",
           "nansum", "nanprod", "nanstd", "nanvar", "nanargmax", "nanargmin",
           "nancumsum", "nancumprod", "ptp", "cumprod", "trace", "gradient", "trapezoid",
           "interp", "unwrap", "ediff1d", "convolve", "correlate"]


# --------------------------------------------------------------------------
# helpers

def _arr(a, like=None):
    """``a`` as an array (a traced value stays as it is); Python scalars
    and lists go to the backend of ``like`` when given."""
    if isinstance(a, _Tracer) or hasattr(a, "__array_namespace__"):
        return a
    if like is not None:
        xp = _backend_of(like)
        return xp.asarray(a, device=_n._device_of(like))
    return _n.asarray(a)


def _is_inexact(x):
    return _n.isdtype(x.dtype, ("real floating", "complex floating"))


def _inexact(x):
    """``x`` cast to the default float (float64) unless it is floating."""
    return x if _is_inexact(x) else _n.astype(x, _n.float64)


def _promote_inexact(*xs):
    """The arrays cast to their common dtype, made inexact (JAX's
    ``promote_dtypes_inexact``: integers and booleans sit below every float
    in JAX's lattice, so they only count when no array is inexact)."""
    inexact = [x.dtype for x in xs if _is_inexact(x)]
    dt = _n.result_type(*inexact) if inexact else _n.float64
    return tuple(x if x.dtype == dt else _n.astype(x, dt) for x in xs)


def _no_out(fname, out=None, overwrite_input=False):
    if out is not None:
        raise NotImplementedError(f"{fname}: the 'out' argument is not supported "
                                  f"(arrays are immutable here); use the return value")
    if overwrite_input:
        raise ValueError(f"{fname}: overwrite_input=True is not supported")


def _axes(axis, ndim):
    """A sorted tuple of the reduced axes (all of them for None)."""
    ax = _n._norm_axis(axis, ndim)
    return tuple(range(ndim)) if ax is None else ax


def _real_dtype(dt):
    return {_n.complex64: _n.float32, _n.complex128: _n.float64}.get(dt, dt)


def _take_last(x, idx):
    """``x[..., idx]`` along the last axis: ``x`` (..., N), ``idx`` an integer
    array (..., Q) broadcasting against ``x[..., :1]``; the result is
    (..., Q). A gather where the indices have a concrete value, else (an index
    that differs per example under vmap) a one-hot selection by ``where``:
    either way the derivative goes to the selected element."""
    shape = tuple(x.shape[:-1]) + (idx.shape[-1],)
    try:
        ci = _concrete(idx)
    except TypeError:
        ci = None
    if ci is not None:
        xp = _backend_of(ci)
        return _n.take_along_axis(x, xp.broadcast_to(ci, shape), axis=-1)
    n = x.shape[-1]
    hot = _n.expand_dims(idx, axis=-1) == _backend_of(x).arange(n, device=_n._device_of(x))
    return _n.sum(_n.where(hot, _n.expand_dims(x, axis=-2), 0), axis=-1)


def _to_last(a, axis):
    """``a`` with the axes ``axis`` (None: all) moved to the end and flattened
    into one: (rest..., N); and the shape of the result with keepdims."""
    nd = a.ndim
    red = _axes(axis, nd)
    keep = tuple(i for i in range(nd) if i not in red)
    kshape = tuple(1 if i in red else a.shape[i] for i in range(nd))
    a = _n.permute_dims(a, keep + red)
    rest = tuple(a.shape[:len(keep)])
    return _n.reshape(a, rest + (_math.prod(a.shape[len(keep):]),)), kshape


# --------------------------------------------------------------------------
# weighted means and covariance

def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """Weighted mean along ``axis``; ``returned=True`` also gives the sum of
    the weights (broadcast to the result's shape). Differentiable in ``a``
    and ``weights``.

    >>> import numpy as np, xgrad.numpy as xnp
    >>> float(xnp.average(np.asarray([1.0, 2.0, 4.0]), weights=np.asarray([1.0, 1.0, 2.0])))
    2.75
    """
    a = _arr(a)
    if weights is None:
        a = _inexact(a)
        avg = _n.mean(a, axis=axis, keepdims=keepdims)
        cnt = _math.prod(a.shape[d] for d in _axes(axis, a.ndim))
        wsum = _backend_of(a).asarray(float(cnt), dtype=avg.dtype, device=_n._device_of(a))
    else:
        a, w = _promote_inexact(a, _arr(weights, like=a))
        if tuple(a.shape) != tuple(w.shape):
            if axis is None:
                raise ValueError("average: axis must be specified when the shapes of a "
                                 f"{tuple(a.shape)} and weights {tuple(w.shape)} differ")
            ax = _axes(axis, a.ndim)
            if tuple(w.shape) != tuple(a.shape[d] for d in ax):
                raise ValueError(f"average: the shape of weights {tuple(w.shape)} must be "
                                 f"that of a {tuple(a.shape)} along axis={axis!r}")
            w = _n.reshape(w, tuple(d if i in ax else 1 for i, d in enumerate(a.shape)))
        wsum = _n.sum(w, axis=axis, keepdims=keepdims)
        avg = _n.divide(_n.sum(_n.multiply(a, w), axis=axis, keepdims=keepdims), wsum)
    if returned:
        if tuple(avg.shape) != tuple(wsum.shape):
            wsum = _n.broadcast_to(wsum, tuple(avg.shape))
        return avg, wsum
    return avg


def _atleast_2d(x):
    return _n.reshape(x, (1,) * (2 - x.ndim) + tuple(x.shape)) if x.ndim < 2 else x


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    """Covariance matrix of the variables in the rows of ``m`` (columns when
    ``rowvar=False``), with optional integer frequency weights ``fweights``
    and observation weights ``aweights`` (NumPy's and JAX's semantics).

    >>> import numpy as np, xgrad.numpy as xnp
    >>> xnp.cov(np.asarray([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    m = _arr(m)
    if y is not None:
        m, y = _promote_inexact(m, _arr(y, like=m))
        if y.ndim > 2:
            raise ValueError(f"cov: y must have at most 2 dimensions, got shape {tuple(y.shape)}")
    else:
        m = _inexact(m)
    if m.ndim > 2:
        raise ValueError(f"cov: m must have at most 2 dimensions, got shape {tuple(m.shape)}")
    if dtype is not None and not _n.isdtype(dtype, ("real floating", "complex floating")):
        raise ValueError(f"cov: dtype must be a float or complex dtype; got dtype={dtype!r}")
    x = _atleast_2d(m)
    if not rowvar and m.ndim != 1:
        x = _n.matrix_transpose(x)
    xp = _backend_of(x)
    if x.shape[0] == 0:
        return xp.zeros((0, 0), dtype=x.dtype, device=_n._device_of(x))
    if y is not None:
        y2 = _atleast_2d(y)
        if not rowvar and y2.shape[0] != 1:
            y2 = _n.matrix_transpose(y2)
        x = _n.concat([x, y2], axis=0)
    if x.shape[1] == 0:
        shape = () if x.shape[0] == 1 else (x.shape[0], x.shape[0])
        return xp.full(shape, float("nan"), dtype=x.dtype, device=_n._device_of(x))
    if ddof is None:
        ddof = 1 if not bias else 0
    w = None
    if fweights is not None:
        fweights = _arr(fweights, like=x)
        if fweights.ndim != 1 or fweights.shape[0] != x.shape[1]:
            raise ValueError(f"cov: fweights must be 1-D with one weight per observation "
                             f"({x.shape[1]}), got shape {tuple(fweights.shape)}")
        if not _n.isdtype(fweights.dtype, "integral"):
            raise TypeError(f"cov: fweights must be integers, got dtype {fweights.dtype}")
        w = _n.astype(_n.abs(fweights), _real_dtype(x.dtype))    # integer counts, as floats
    if aweights is not None:
        aweights = _arr(aweights, like=x)
        if aweights.ndim != 1 or aweights.shape[0] != x.shape[1]:
            raise ValueError(f"cov: aweights must be 1-D with one weight per observation "
                             f"({x.shape[1]}), got shape {tuple(aweights.shape)}")
        aweights = _n.abs(aweights)
        w = aweights if w is None else _n.multiply(w, aweights)
    if dtype is not None:
        x = _n.astype(x, dtype)
        w = _n.astype(w, dtype) if w is not None else w
    avg, w_sum = average(x, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        f = x.shape[1] - ddof
    elif ddof == 0:
        f = w_sum
    elif aweights is None:
        f = w_sum - ddof
    else:
        f = w_sum - ddof * _n.divide(_n.sum(_n.multiply(w, aweights)), w_sum)
    x = _n.subtract(x, _n.expand_dims(avg, axis=1))
    xt = _n.matrix_transpose(x if w is None else _n.multiply(x, w))
    if _n.isdtype(xt.dtype, "complex floating"):
        xt = _n.conj(xt)
    c = _n.divide(_n.matmul(x, xt), f)
    ones = tuple(i for i, s in enumerate(c.shape) if s == 1)
    return _n.squeeze(c, axis=ones) if ones else c


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """Pearson correlation coefficients: ``cov`` divided by the outer product
    of the standard deviations, clipped to [-1, 1] (as JAX: a value clipped
    at a bound has the clip's derivative there)."""
    if dtype is not None and not _n.isdtype(dtype, ("real floating", "complex floating")):
        raise ValueError(f"corrcoef: dtype must be a float or complex dtype; got dtype={dtype!r}")
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    k = c.shape[0]
    d = _n.reshape(c, (-1,))[::k + 1]
    sd = _n.sqrt(_n.real(d)) if _n.isdtype(c.dtype, "complex floating") else _n.sqrt(d)
    sd = _n.astype(sd, c.dtype) if sd.dtype != c.dtype else sd
    c = c / _n.expand_dims(sd, axis=1) / _n.expand_dims(sd, axis=0)
    if _n.isdtype(c.dtype, "complex floating"):
        return _n.clip(_n.real(c), -1, 1) + 1j * _n.clip(_n.imag(c), -1, 1)
    return _n.clip(c, -1, 1)


# --------------------------------------------------------------------------
# quantiles

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


def _quantile(fname, a, q, axis, method, keepdims, squash_nans, weights):
    if method not in _METHODS:
        raise ValueError(f"{fname}: method must be one of {', '.join(map(repr, _METHODS))}; "
                         f"got {method!r}")
    a = _arr(a)
    q = _inexact(_arr(q, like=a))
    if q.ndim > 1:
        raise ValueError(f"{fname}: q must be a scalar or 1-D, got shape {tuple(q.shape)}")
    if not isinstance(q, _Tracer):
        xq = _backend_of(q)
        if bool(xq.any((q < 0) | (q > 1) | xq.isnan(q))):
            raise ValueError(f"{fname}: q must lie in [0, 1] (percentiles in [0, 100]), "
                             f"and not be NaN")
    if weights is not None:
        if method != "inverted_cdf":
            raise NotImplementedError(f"{fname}: method {method!r} doesn't support weights; "
                                      f"only method='inverted_cdf' does")
        weights = _arr(weights, like=a)
        if _n.isdtype(weights.dtype, "complex floating"):
            raise ValueError(f"{fname}: weights can't be complex")
        a, weights = _promote_inexact(a, weights)
        if tuple(weights.shape) != tuple(a.shape):
            if axis is None:
                raise ValueError(f"{fname}: the shape of weights must match a's when axis is None")
            ax = _axes(axis, a.ndim)
            if tuple(weights.shape) != tuple(a.shape[d] for d in ax):
                raise ValueError(f"{fname}: weights shape {tuple(weights.shape)} must match the "
                                 f"reduced axes {tuple(a.shape[d] for d in ax)}")
            weights = _n.broadcast_to(
                _n.reshape(weights, tuple(d if i in ax else 1 for i, d in enumerate(a.shape))),
                tuple(a.shape))
    else:
        a = _inexact(a)
    if _n.isdtype(a.dtype, "complex floating"):
        raise ValueError(f"{fname}: complex input is not supported (quantiles of complex "
                         f"numbers are ill-defined)")
    out_dtype = a.dtype
    a, kshape = _to_last(a, axis)
    if weights is not None:
        weights, _ = _to_last(weights, axis)
    rest, n = tuple(a.shape[:-1]), a.shape[-1]
    qv = _n.reshape(q, (-1,))                             # (Q,), along the last axis
    ct = _n.result_type(a.dtype, q.dtype)
    isnan = _n.isnan(a)
    # NaNs (all of them, or those of a slice with one) become a constant NaN:
    # no derivative reaches them, as in JAX
    a = _n.where(isnan if squash_nans else _n.any(isnan, axis=-1, keepdims=True),
                 float("nan"), a)
    if weights is None:
        a = _n.sort(a, axis=-1)
    else:
        idx = _n.argsort(a, axis=-1)
        a = _bind(_permute_along_p, a, idx, axis=a.ndim - 1)
        weights = _bind(_permute_along_p, weights, idx, axis=a.ndim - 1)
    nan_sorted = _n.isnan(a)
    if squash_nans:
        counts = _n.sum(_n.astype(_n.logical_not(nan_sorted), q.dtype), axis=-1, keepdims=True)
    else:
        counts = float(n)
    if method == "inverted_cdf":
        w = weights if weights is not None else _n.ones_like(a)
        bad = (w < 0) | _n.isnan(w)
        cw = _n.cumulative_sum(_n.where(bad | nan_sorted, 0, w), axis=-1)
        target = _n.multiply(qv, cw[..., -1:])              # (..., Q)
        less = _n.expand_dims(cw, axis=-2) < _n.expand_dims(target, axis=-1)
        idx = _n.sum(_n.astype(less, _n.int64), axis=-1)
        limit = _n.astype(counts - 1, _n.int64) if squash_nans else n - 1
        idx = _n.maximum(_n.minimum(idx, limit), 0)
        res = _take_last(a, idx)
        nan_any = _n.all(nan_sorted, axis=-1, keepdims=True) if squash_nans \
            else _n.any(nan_sorted, axis=-1, keepdims=True)
        force = _n.any(bad, axis=-1, keepdims=True) | nan_any
        res = _n.where(force, float("nan"), res)
    else:
        qn = _n.multiply(qv, counts - 1)
        low = _n.floor(qn)
        high = _n.ceil(qn)
        hw = qn - low
        lw = 1 - hw
        low = _n.astype(_n.maximum(_n.minimum(low, counts - 1), 0), _n.int64)
        high = _n.astype(_n.maximum(_n.minimum(high, counts - 1), 0), _n.int64)
        if low.ndim == 1:
            low, high = _n.reshape(low, (1,) * len(rest) + (-1,)), \
                _n.reshape(high, (1,) * len(rest) + (-1,))
        lo, hi = _take_last(a, low), _take_last(a, high)
        if method == "linear":
            res = _n.add(_n.multiply(_n.astype(lo, ct), lw), _n.multiply(_n.astype(hi, ct), hw))
        elif method == "lower":
            res = lo
        elif method == "higher":
            res = hi
        elif method == "nearest":
            res = _n.where(hw <= 0.5, lo, hi)
        else:
            res = _n.add(lo, hi) * 0.5
    res = _n.astype(res, out_dtype) if res.dtype != out_dtype else res
    # (rest..., Q) -> (Q, rest...) or (rest...)
    if q.ndim == 0:
        res = res[..., 0]
    else:
        res = _n.permute_dims(res, (res.ndim - 1,) + tuple(range(res.ndim - 1)))
    if keepdims:
        res = _n.reshape(res, tuple(q.shape) + kshape)
    return res


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
    """The ``q``-th quantiles (``q`` in [0, 1], a scalar or 1-D) of ``a``
    along ``axis`` (an int, a tuple, or None for all). ``method``: one of
    'linear', 'lower', 'higher', 'midpoint', 'nearest', 'inverted_cdf' (the
    methods JAX accepts; only 'inverted_cdf' takes ``weights``). A NaN in a
    slice makes its quantile NaN. Differentiable in ``a`` (the derivative
    goes to the order statistics used, as in JAX) and, for 'linear', in ``q``.

    NB: a concrete ``q`` outside [0, 1] raises a ValueError (JAX returns a
    clamped value).

    >>> import numpy as np, xgrad.numpy as xnp
    >>> float(xnp.quantile(np.asarray([1.0, 2.0, 3.0, 4.0]), 0.25))
    1.75
    """
    _no_out("quantile", out, overwrite_input)
    return _quantile("quantile", a, q, axis, method, keepdims, False, weights)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None):
    """``quantile`` ignoring NaNs (an all-NaN slice gives NaN)."""
    _no_out("nanquantile", out, overwrite_input)
    return _quantile("nanquantile", a, q, axis, method, keepdims, True, weights)


def _percent(a, q):
    q = _inexact(_arr(q, like=_arr(a)))
    return q / 100


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, out_sharding=None):
    """``quantile`` with ``q`` in percent ([0, 100]). ``out_sharding`` is
    accepted for JAX's signature and must be None."""
    _no_out("percentile", out, overwrite_input)
    if out_sharding is not None:
        raise NotImplementedError("percentile: out_sharding is not supported (no sharding here)")
    return _quantile("percentile", a, _percent(a, q), axis, method, keepdims, False, weights)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None):
    """``percentile`` ignoring NaNs."""
    _no_out("nanpercentile", out, overwrite_input)
    return _quantile("nanpercentile", a, _percent(a, q), axis, method, keepdims, True, weights)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Median along ``axis``: the 'midpoint' quantile at 0.5, so with an even
    count the two middle values get half the derivative each (JAX).

    >>> import numpy as np, xgrad.numpy as xnp
    >>> float(xnp.median(np.asarray([3.0, 1.0, 4.0, 2.0])))
    2.5
    """
    _no_out("median", out, overwrite_input)
    return _quantile("median", a, 0.5, axis, "midpoint", keepdims, False, None)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``median`` ignoring NaNs (an all-NaN slice gives NaN)."""
    _no_out("nanmedian", out, overwrite_input)
    return _quantile("nanmedian", a, 0.5, axis, "midpoint", keepdims, True, None)


# --------------------------------------------------------------------------
# NaN-aware reductions: NaNs replaced by a neutral value with ``where`` (so
# their derivative is exactly zero), then the plain reduction

def _where_mask(fname, where, a):
    if where is None:
        return None
    where = _arr(where, like=a)
    if not _n.isdtype(where.dtype, "bool"):
        raise TypeError(f"{fname}: where must be a boolean array, got dtype {where.dtype}")
    return where


def _nan_reduce(fname, a, reduce, fill, axis, keepdims, where, nan_if_all_nan, **kw):
    a = _arr(a)
    mask = _where_mask(fname, where, a)
    if _is_inexact(a):
        keep = _n.logical_not(_n.isnan(a))
        if mask is not None:
            keep = keep & mask
        x = _n.where(keep, a, fill)
    else:
        x = a if mask is None else _n.where(mask, a, fill)
    out = reduce(x, axis=axis, keepdims=keepdims, **kw)
    if nan_if_all_nan and _is_inexact(a):
        out = _n.where(_n.all(_n.isnan(a), axis=axis, keepdims=keepdims), float("nan"), out)
    return out


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Maximum ignoring NaNs (NaN where a slice is all NaN, unless ``initial``
    is given); tied maxima share the derivative (JAX)."""
    _no_out("nanmax", out)
    if where is not None and initial is None:
        raise ValueError("nanmax: reduction with where= needs an initial value (initial=)")
    res = _nan_reduce("nanmax", a, _n.max, -float("inf"), axis, keepdims, where, initial is None)
    return res if initial is None else _n.maximum(res, initial)


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Minimum ignoring NaNs (NaN where a slice is all NaN, unless ``initial``
    is given); tied minima share the derivative (JAX)."""
    _no_out("nanmin", out)
    if where is not None and initial is None:
        raise ValueError("nanmin: reduction with where= needs an initial value (initial=)")
    res = _nan_reduce("nanmin", a, _n.min, float("inf"), axis, keepdims, where, initial is None)
    return res if initial is None else _n.minimum(res, initial)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Sum treating NaNs as zero (derivative zero at the NaNs)."""
    _no_out("nansum", out)
    res = _nan_reduce("nansum", a, _n.sum, 0, axis, keepdims, where, False, dtype=dtype)
    return res if initial is None else res + initial


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Product treating NaNs as one (derivative zero at the NaNs)."""
    _no_out("nanprod", out)
    res = _nan_reduce("nanprod", a, _n.prod, 1, axis, keepdims, where, False, dtype=dtype)
    return res if initial is None else res * initial


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """Mean of the non-NaN values (NaN where a slice is all NaN).

    NB: the derivative of an all-NaN slice's (constant NaN) mean is zero
    (xgrad's NaN-safe derivatives); JAX's is NaN (0/0).
    """
    _no_out("nanmean", out)
    a = _arr(a)
    if not _is_inexact(a):
        x = _n.astype(a, dtype if dtype is not None else _n.float64)
        return _nan_reduce("nanmean", x, _n.mean, 0, axis, keepdims, where, False) \
            if where is None else nanmean(x, axis=axis, keepdims=keepdims, where=where)
    if dtype is not None:
        a = _n.astype(a, dtype)
    keep = _n.logical_not(_n.isnan(a))
    mask = _where_mask("nanmean", where, a)
    if mask is not None:
        keep = keep & mask
    cnt = _n.sum(_n.astype(keep, _real_dtype(a.dtype)), axis=axis, keepdims=keepdims)
    return _n.sum(_n.where(keep, a, 0), axis=axis, keepdims=keepdims) / cnt


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    """Variance of the non-NaN values with ``ddof`` degrees of freedom removed
    (NaN where fewer than ``ddof + 1`` values remain)."""
    _no_out("nanvar", out)
    a = _inexact(_arr(a))
    if dtype is not None:
        a = _n.astype(a, dtype)
    mask = _where_mask("nanvar", where, a)
    m = nanmean(a, axis=axis, keepdims=True, where=where) if mean is None \
        else _n.astype(_arr(mean, like=a), a.dtype)
    keep = _n.logical_not(_n.isnan(a))
    if mask is not None:
        keep = keep & mask
    c = _n.where(keep, _n.subtract(a, m), 0)
    c = _n.real(c * _n.conj(c)) if _n.isdtype(c.dtype, "complex floating") else c * c
    cnt = _n.sum(_n.astype(keep, _n.int64), axis=axis, keepdims=keepdims) - ddof
    bad = cnt <= 0
    s = _n.where(bad, float("nan"), _n.sum(c, axis=axis, keepdims=keepdims))
    return s / _n.astype(_n.where(bad, 1, cnt), s.dtype)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    """Standard deviation of the non-NaN values (the square root of ``nanvar``)."""
    _no_out("nanstd", out)
    return _n.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims,
                          where=where, mean=mean))


def _nanarg(fname, reduce, fill, a, axis, out, keepdims):
    _no_out(fname, out)
    a = _arr(a)
    axis = None if axis is None else _operator.index(axis)
    keepdims = bool(keepdims)
    if not _is_inexact(a):
        return reduce(a, axis=axis, keepdims=keepdims)
    nan = _n.isnan(a)
    res = reduce(_n.where(nan, fill, a), axis=axis, keepdims=keepdims)
    return _n.where(_n.all(nan, axis=axis, keepdims=keepdims), -1, res)


def nanargmax(a, axis=None, out=None, keepdims=None):
    """Index of the maximum ignoring NaNs (-1 where a slice is all NaN; no
    derivative)."""
    return _nanarg("nanargmax", _n.argmax, -float("inf"), a, axis, out, keepdims)


def nanargmin(a, axis=None, out=None, keepdims=None):
    """Index of the minimum ignoring NaNs (-1 where a slice is all NaN; no
    derivative)."""
    return _nanarg("nanargmin", _n.argmin, float("inf"), a, axis, out, keepdims)


def _cum(fname, a, axis, dtype, out, nan_fill, prod):
    _no_out(fname, out)
    a = _arr(a)
    if axis is None or a.ndim == 0:
        a = _n.reshape(a, (-1,))
    axis = 0 if axis is None else axis
    if nan_fill is not None and _is_inexact(a):
        a = _n.where(_n.isnan(a), nan_fill, a)
    if dtype is None:
        dtype = _n.int64 if _n.isdtype(a.dtype, "bool") else a.dtype
    if prod:
        return _n.cumulative_prod(a, axis=axis, dtype=dtype)
    return _n.cumulative_sum(a, axis=axis, dtype=dtype)


def cumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product along ``axis`` (flattened when None); NumPy's
    signature for ``cumulative_prod`` (exact derivative where entries are
    zero)."""
    return _cum("cumprod", a, axis, dtype, out, None, True)


def nancumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum treating NaNs as zero."""
    return _cum("nancumsum", a, axis, dtype, out, 0, False)


def nancumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product treating NaNs as one."""
    return _cum("nancumprod", a, axis, dtype, out, 1, True)


def ptp(a, axis=None, out=None, keepdims=False):
    """Range (maximum minus minimum) along ``axis``."""
    _no_out("ptp", out)
    a = _arr(a)
    return _n.max(a, axis=axis, keepdims=keepdims) - _n.min(a, axis=axis, keepdims=keepdims)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum along the ``offset`` diagonal of the ``axis1``/``axis2`` planes."""
    _no_out("trace", out)
    a = _arr(a)
    nd = a.ndim
    if nd < 2:
        raise ValueError(f"trace: a must have at least 2 dimensions, got shape {tuple(a.shape)}")
    ax1, ax2 = _n._norm_axis(axis1, nd)[0], _n._norm_axis(axis2, nd)[0]
    if ax1 == ax2:
        raise ValueError(f"trace: axis1 and axis2 can't be the same; axis1={axis1} and axis2={axis2}")
    n1, n2 = a.shape[ax1], a.shape[ax2]
    a = _n.moveaxis(a, (ax1, ax2), (-2, -1))
    xp = _backend_of(a)
    eye = xp.eye(n1, n2, k=_operator.index(offset), dtype=xp.bool, device=_n._device_of(a))
    return _n.sum(_n.where(eye, a, 0), axis=(-2, -1), dtype=dtype)


# --------------------------------------------------------------------------
# calculus

def _sl(x, axis, start, stop):
    """``x[..., start:stop, ...]`` along ``axis``."""
    return x[(slice(None),) * axis + (slice(start, stop), Ellipsis)]


def _gradient_axis(f, h, axis, edge_order):
    n = f.shape[axis]
    if h.ndim == 0:
        inner = _n.divide((_sl(f, axis, 2, None) - _sl(f, axis, None, -2)) * 0.5, h)
        if edge_order == 1:
            first = _n.divide(_sl(f, axis, 1, 2) - _sl(f, axis, 0, 1), h)
            last = _n.divide(_sl(f, axis, -1, None) - _sl(f, axis, -2, -1), h)
        else:
            first = _n.divide(-1.5 * _sl(f, axis, 0, 1) + 2.0 * _sl(f, axis, 1, 2)
                              - 0.5 * _sl(f, axis, 2, 3), h)
            last = _n.divide(0.5 * _sl(f, axis, -3, -2) - 2.0 * _sl(f, axis, -2, -1)
                             + 1.5 * _sl(f, axis, -1, None), h)
        return _n.concat([first, inner, last], axis=axis)
    if h.ndim != 1:
        raise ValueError(f"gradient: spacing arrays must be 1-D or scalars, got shape {tuple(h.shape)}")
    if h.shape[0] != n:
        raise ValueError(f"gradient: a spacing array must have the length of the axis ({n}), "
                         f"got {h.shape[0]}")
    hs = [1] * f.ndim
    hs[axis] = n
    x = _n.reshape(h, tuple(hs))
    dx1 = _sl(x, axis, 1, -1) - _sl(x, axis, 0, -2)
    dx2 = _sl(x, axis, 2, None) - _sl(x, axis, 1, -1)
    ca = -dx2 / (dx1 * (dx1 + dx2))
    cb = (dx2 - dx1) / (dx1 * dx2)
    cc = dx1 / (dx2 * (dx1 + dx2))
    mul, div = _n.multiply, _n.divide        # mixed plain and traced operands
    inner = _n.add(_n.add(mul(ca, _sl(f, axis, 0, -2)), mul(cb, _sl(f, axis, 1, -1))),
                   mul(cc, _sl(f, axis, 2, None)))
    if edge_order == 1:
        first = div(_sl(f, axis, 1, 2) - _sl(f, axis, 0, 1), _sl(x, axis, 1, 2) - _sl(x, axis, 0, 1))
        last = div(_sl(f, axis, -1, None) - _sl(f, axis, -2, -1),
                   _sl(x, axis, -1, None) - _sl(x, axis, -2, -1))
    else:
        d1, d2 = _sl(x, axis, 1, 2) - _sl(x, axis, 0, 1), _sl(x, axis, 2, 3) - _sl(x, axis, 1, 2)
        first = _n.subtract(_n.add(mul(-(2.0 * d1 + d2) / (d1 * (d1 + d2)), _sl(f, axis, 0, 1)),
                                   mul((d1 + d2) / (d1 * d2), _sl(f, axis, 1, 2))),
                            mul(d1 / (d2 * (d1 + d2)), _sl(f, axis, 2, 3)))
        d1, d2 = _sl(x, axis, -2, -1) - _sl(x, axis, -3, -2), _sl(x, axis, -1, None) - _sl(x, axis, -2, -1)
        last = _n.add(_n.subtract(mul(d2 / (d1 * (d1 + d2)), _sl(f, axis, -3, -2)),
                                  mul((d2 + d1) / (d1 * d2), _sl(f, axis, -2, -1))),
                      mul((2.0 * d2 + d1) / (d2 * (d1 + d2)), _sl(f, axis, -1, None)))
    return _n.concat([first, inner, last], axis=axis)


def gradient(f, *varargs, axis=None, edge_order=None):
    """The gradient of sampled values ``f`` by central differences inside and
    one-sided differences at the edges, along each axis in ``axis`` (all by
    default): one array for one axis, else a list. ``varargs``: the spacing,
    one scalar for all axes, or one scalar or 1-D coordinate array per axis.

    NB: ``edge_order`` may be None or 1 (JAX's edges) or 2 (NumPy's
    second-order edges, which JAX does not implement).

    >>> import numpy as np, xgrad.numpy as xnp
    >>> xnp.gradient(np.asarray([1.0, 2.0, 4.0, 7.0])).tolist()
    [1.0, 1.5, 2.5, 3.0]
    """
    edge_order = 1 if edge_order is None else _operator.index(edge_order)
    if edge_order not in (1, 2):
        raise ValueError(f"gradient: edge_order must be 1 or 2, got {edge_order}")
    f = _arr(f)
    sp = [_arr(v, like=f) for v in varargs]
    f, *sp = _promote_inexact(f, *sp)
    nd = f.ndim
    if axis is None:
        axes = tuple(range(nd))
    else:
        axes = tuple(_n._norm_axis(a, nd)[0]
                     for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    if not axes:
        return []
    need = edge_order + 1
    if min(f.shape[a] for a in axes) < need:
        raise ValueError(f"gradient: the array is too small along an axis to compute a "
                         f"gradient with edge_order={edge_order}; at least {need} elements "
                         f"are required")
    if len(sp) == 0:
        sp = [_backend_of(f).asarray(1.0, dtype=f.dtype, device=_n._device_of(f))] * len(axes)
    elif len(sp) == 1:
        sp = sp * len(axes)
    elif len(sp) != len(axes):
        raise TypeError(f"gradient: {len(sp)} spacing arguments for {len(axes)} axes "
                        f"(axis={axis!r}); give one for all, or one per axis")
    out = [_gradient_axis(f, h, a, edge_order) for a, h in zip(axes, sp)]
    return out[0] if len(axes) == 1 else out


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integral of ``y`` along ``axis`` by the trapezoidal rule, at sample
    points ``x`` or with spacing ``dx``.

    >>> import numpy as np, xgrad.numpy as xnp
    >>> float(xnp.trapezoid(np.asarray([1.0, 2.0, 3.0])))
    4.0
    """
    y = _arr(y)
    if x is None:
        (y,) = _promote_inexact(y)
        d = _arr(dx, like=y)
        if d.ndim > 0:
            d = _n.reshape(d, (1,) * (y.ndim - d.ndim) + tuple(d.shape))
            d = _n.moveaxis(d, axis, -1)
    else:
        y, x = _promote_inexact(y, _arr(x, like=y))
        d = _n.diff(x) if x.ndim == 1 else _n.moveaxis(_n.diff(x, axis=axis), axis, -1)
    y = _n.moveaxis(y, axis, -1)
    if d.ndim == 0 or d.shape[-1] == 1:
        dr = d if d.ndim == 0 else d[..., 0]
        return _n.multiply(dr, _n.sum(y, axis=-1) - 0.5 * (y[..., 0] + y[..., -1]))
    return 0.5 * _n.sum(_n.multiply(d, y[..., 1:] + y[..., :-1]), axis=-1)


def interp(x, xp, fp, left=None, right=None, period=None):
    """One-dimensional piecewise-linear interpolation of the points (``xp``,
    ``fp``) at ``x`` (``xp`` increasing). ``left``/``right``: the values below
    ``xp[0]``/above ``xp[-1]`` (default the end values of ``fp``, or
    ``'extrapolate'``); ``period``: the period of a periodic ``xp``.
    Differentiable in ``x``, ``xp`` and ``fp`` (between knots; at a knot the
    derivative is that of the segment to its right, as JAX's).

    >>> import numpy as np, xgrad.numpy as xnp
    >>> float(xnp.interp(1.5, np.asarray([1.0, 2.0]), np.asarray([10.0, 20.0])))
    15.0
    """
    x, xpt, fpt = _arr(x), _arr(xp), _arr(fp)
    if tuple(xpt.shape) != tuple(fpt.shape) or xpt.ndim != 1:
        raise ValueError("interp: xp and fp must be one-dimensional arrays of equal size, "
                         f"got shapes {tuple(xpt.shape)} and {tuple(fpt.shape)}")
    x, xpt = _promote_inexact(_arr(x, like=xpt), xpt)
    (fpt,) = _promote_inexact(fpt)
    ext = []
    for name, v in (("left", left), ("right", right)):
        if isinstance(v, str) and v != "extrapolate":
            raise ValueError(f"interp: the only valid string value of {name} is 'extrapolate', "
                             f"got {v!r}")
        ext.append(isinstance(v, str))
    if _n.isdtype(x.dtype, "complex floating"):
        raise ValueError("interp: complex x values are not supported")
    shape = tuple(x.shape)
    x = _n.reshape(x, (-1,))
    if period is not None:
        period = _arr(period, like=xpt)
        if period.ndim != 0:
            raise ValueError(f"interp: period must be a scalar, got shape {tuple(period.shape)}")
        period = _n.abs(period)
        x = _n.remainder(x, period)
        xpt = _n.remainder(xpt, period)
        order = _n.argsort(xpt)
        xpt = _bind(_permute_along_p, xpt, order, axis=0)
        fpt = _bind(_permute_along_p, fpt, order, axis=0)
        xpt = _n.concat([_n.subtract(xpt[-1:], period), xpt, _n.add(xpt[:1], period)])
        fpt = _n.concat([fpt[-1:], fpt, fpt[:1]])
    m = xpt.shape[0]
    i = _n.clip(_n.searchsorted(xpt, x, side="right"), 1, m - 1)
    f1, f0 = _take_last(fpt, i), _take_last(fpt, i - 1)
    x1, x0 = _take_last(xpt, i), _take_last(xpt, i - 1)
    df, dx = f1 - f0, x1 - x0
    eps = _n.finfo(xpt.dtype).eps
    dx0 = _n.abs(dx) <= eps * eps
    f = _n.where(dx0, f0, _n.add(f0, _n.multiply(_n.divide(_n.subtract(x, x0),
                                                           _n.where(dx0, 1, dx)), df)))
    if period is None:
        if not ext[0]:
            f = _n.where(_n.less(x, xpt[0]), fpt[0] if left is None else left, f)
        if not ext[1]:
            f = _n.where(_n.greater(x, xpt[-1]), fpt[-1] if right is None else right, f)
    return _n.reshape(f, shape)


def unwrap(p, discont=None, axis=-1, period=2 * _math.pi):
    """Unwrap the phase ``p`` along ``axis``: jumps larger than ``discont``
    (default ``period / 2``) are replaced by their ``period``-complement."""
    p = _arr(p)
    per = period if isinstance(period, (int, float)) else _arr(period, like=p)
    if _n.isdtype(p.dtype, "complex floating"):
        raise ValueError("unwrap: complex inputs are not supported")
    if not _n.isdtype(p.dtype, "real floating") and (
            isinstance(per, float) or not isinstance(per, int) and _is_inexact(per)):
        p = _n.astype(p, _n.float64)
    axis = _n._norm_axis(axis, p.ndim)[0]
    if p.shape[axis] == 0:
        return p
    integral = _n.isdtype(p.dtype, "integral")
    interval = per // 2 if integral else per / 2
    if discont is None:
        discont = per / 2
    dd = _n.diff(p, axis=axis)
    ddmod = _n.remainder(dd + interval, per) - interval
    ddmod = _n.where((ddmod == -interval) & (dd > 0), interval, ddmod)
    corr = _n.where(_n.abs(dd) < discont, 0, ddmod - dd)
    return _n.concat([_sl(p, axis, 0, 1), _sl(p, axis, 1, None)
                      + _n.cumulative_sum(corr, axis=axis)], axis=axis)


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of consecutive elements of the flattened ``ary``, with
    ``to_begin`` and ``to_end`` (cast to ``ary``'s dtype) around them."""
    a = _n.reshape(_arr(ary), (-1,))
    parts = [a[1:] - a[:-1]]
    if to_begin is not None:
        parts.insert(0, _n.reshape(_n.astype(_arr(to_begin, like=a), a.dtype), (-1,)))
    if to_end is not None:
        parts.append(_n.reshape(_n.astype(_arr(to_end, like=a), a.dtype), (-1,)))
    return _n.concat(parts) if len(parts) > 1 else parts[0]


def _conv(fname, a, v, mode, op, preferred_element_type):
    a, v = _arr(a), _arr(v)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError(f"{fname}: only 1-D inputs are supported, got shapes "
                         f"{tuple(a.shape)} and {tuple(v.shape)}")
    v = _arr(v, like=a)
    if preferred_element_type is None:
        a, v = _promote_inexact(a, v)
    else:
        a, v = _n.astype(a, preferred_element_type), _n.astype(v, preferred_element_type)
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise ValueError(f"{fname}: inputs can't be empty, got shapes {tuple(a.shape)} "
                         f"and {tuple(v.shape)}")
    reverse = False
    if op == "correlate":
        if _n.isdtype(v.dtype, "complex floating"):
            v = _n.conj(v)
        if a.shape[0] < v.shape[0]:
            a, v, reverse = v, a, True
    else:
        if a.shape[0] < v.shape[0]:
            a, v = v, a
        v = _n.flip(v)
    k = v.shape[0]
    if mode == "valid":
        lo, hi = 0, 0
    elif mode == "same":
        lo, hi = k // 2, k - k // 2 - 1
    elif mode == "full":
        lo, hi = k - 1, k - 1
    else:
        raise ValueError(f"{fname}: mode must be one of 'full', 'same', 'valid'; got {mode!r}")
    xp = _backend_of(a)
    parts = [p for p in (xp.zeros((lo,), dtype=a.dtype, device=_n._device_of(a)) if lo else None,
                         a,
                         xp.zeros((hi,), dtype=a.dtype, device=_n._device_of(a)) if hi else None)
             if p is not None]
    a = _n.concat(parts) if len(parts) > 1 else a
    length = a.shape[0] - k + 1
    windows = _n.stack([a[j:j + length] for j in range(k)])       # (k, length)
    out = _n.matmul(v, windows)
    return _n.flip(out) if reverse else out


def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """Discrete linear convolution of the 1-D ``a`` and ``v`` (``mode``:
    'full', 'same' or 'valid'), computed directly (no FFT), as JAX.
    ``precision`` is accepted for JAX's signature and ignored.

    >>> import numpy as np, xgrad.numpy as xnp
    >>> xnp.convolve(np.asarray([1.0, 2.0, 3.0]), np.asarray([0.0, 1.0, 0.5])).tolist()
    [0.0, 1.0, 2.5, 4.0, 1.5]
    """
    return _conv("convolve", a, v, mode, "convolve", preferred_element_type)


def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """Cross-correlation of the 1-D ``a`` and ``v`` (``v`` conjugated),
    computed directly, as JAX. ``precision`` is ignored."""
    return _conv("correlate", a, v, mode, "correlate", preferred_element_type)
