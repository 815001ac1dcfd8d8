"""``xgrad.numpy`` (alias ``xgrad.xp``): an array API namespace whose every
function works on plain backend arrays and on traced values alike.

Primitive operations are generated from the rule table (``xgrad/rules``);
everything else here is a composite of them (``mean``, ``var``, ``clip``,
``tensordot``, ...) and needs no rules of its own. The operator dunders and
array attributes of traced values are attached at the bottom.

To add an operation: add a row to the table (a primitive) or write a
composite here; see ``rules/__init__.py``.
"""
import builtins as _builtins
import functools as _functools
import math as _math
import sys as _sys
import types as _types
from operator import index as _operator_index

import array_api_compat as _compat

from .. import core as _core
from ..core import RULES as _P, Tracer as _Tracer, bind as _bind, concrete as _concrete
from ..backends import (SCALAR_TYPES as _SCALAR_TYPES, backend_of as _backend_of,
                        default_namespace as _default_namespace, dtype_in as _dtype_in,
                        is_inexact as _is_inexact,
                        namespace as _namespace, type_namespaces as _type_namespaces)

__array_api_version__ = "2024.12"

_np = _default_namespace()

# ----- dtypes and constants (of the default backend, numpy) -----
bool = _np.bool          # noqa: A001
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float32, float64 = _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
e, inf, nan, pi = _math.e, _math.inf, _math.nan, _math.pi
newaxis = None

_DTYPE_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                "uint64", "float32", "float64", "complex64", "complex128")

# the rule tables register their primitives on import (they use this module
# lazily, inside rule bodies, so the cycle is harmless)
from ..rules import elementwise as _r1, reductions as _r2, shape as _r3  # noqa: E402,F401
from ..rules import indexing as _r4, linalg as _r5  # noqa: E402,F401


# --------------------------------------------------------------------------
# elementwise functions, generated from the table

# Fast path (the hot path of eager autodiff): a plain
# array of a known backend goes straight to the implementation; anything else
# (tracers, first sight of a type, scalars only) takes the general ``bind``.
_ns_get = _type_namespaces.get


# jax.numpy's ufuncs among the table's functions: they take ``out=None`` and
# ``where=None`` (anything else raises NotImplementedError, as in JAX)
_UFUNCS = frozenset({"add", "subtract", "multiply", "maximum", "minimum", "bitwise_and",
                     "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor",
                     "logaddexp", "negative"})


def _ufunc_args(name, out, where):
    if out is not None:
        raise NotImplementedError(f"{name}: the out argument is not supported (as in JAX)")
    if where is not None:
        raise NotImplementedError(f"{name}: the where argument is not supported (as in JAX)")


def _unary(name):
    if name in _UFUNCS:
        return _unary_ufunc(name)
    p = _P[name]

    def f(x, /):
        xp = _ns_get(type(x), False)
        if xp:
            out = p.impl(xp, x)
            if (chk := _core._checker) is not None:    # one read: see core._checker
                chk.check(p, (x,), out)
            return out
        if xp is False and isinstance(x, _Tracer):
            t = x._trace
            if t.alive:
                return t.process_unary(p, x)
        return _bind(p, x)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Elementwise ``{name}`` (array API); differentiable: {p.jvp is not None}."
    return f


def _unary_ufunc(name):
    p = _P[name]

    def f(x, /, out=None, where=None):
        if out is not None or where is not None:
            _ufunc_args(name, out, where)
        xp = _ns_get(type(x), False)
        if xp:
            out = p.impl(xp, x)
            if (chk := _core._checker) is not None:
                chk.check(p, (x,), out)
            return out
        if xp is False and isinstance(x, _Tracer):
            t = x._trace
            if t.alive:
                return t.process_unary(p, x)
        return _bind(p, x)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"Elementwise ``{name}`` (array API); differentiable: {p.jvp is not None}. "
                 "``out`` and ``where`` must be None (as in JAX).")
    return f


def _binary(name):
    p = _P[name]

    def f(x1, x2, /, out=None, where=None):
        if out is not None or where is not None:
            _ufunc_args(name, out, where)
        a = _ns_get(type(x1), False)
        b = _ns_get(type(x2), False)
        if a is not False and b is not False and (a or b) and (a is b or a is None or b is None):
            try:
                out = p.impl(a or b, x1, x2)
            except ValueError as e:        # two devices: xgrad's TypeError (core.bind's)
                _core._raise_if_devices(p, e)
                raise
            if (chk := _core._checker) is not None:
                chk.check(p, (x1, x2), out)
            return out
        t = None
        if a is False:
            if isinstance(x1, _Tracer):
                if b is not False:                       # tracer op plain/scalar
                    t = x1._trace
                elif isinstance(x2, _Tracer) and x2._trace is x1._trace:
                    t = x1._trace
        elif b is False and isinstance(x2, _Tracer):     # plain/scalar op tracer
            t = x2._trace
        if t is not None and t.alive:
            return t.process_binary(p, x1, x2)
        return _bind(p, x1, x2)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Elementwise ``{name}`` (array API, broadcasting); differentiable: {p.jvp is not None}."
    f.__doc__ += " ``out`` and ``where`` must be None (as in JAX's ufuncs)."
    return f


# every row marked ``export`` (the array API's unary and binary elementwise
# functions): adding such a row adds the function
for _n, _p in list(_P.items()):
    if _p.export:
        globals()[_n] = _binary(_n) if _p.broadcast else _unary(_n)
del _n, _p
# the binary functions made above: the operators of traced values built on
# them take a shorter path (``_operator``)
_GENERATED = frozenset(globals()[n] for n, p in _P.items() if p.export and p.broadcast)

_where_p = _P["where"]
_round0 = round      # noqa: F821  (the table's, the array API's)


def round(a, decimals=0, out=None):  # noqa: A001
    """Round to ``decimals`` decimal places (half to even); no derivative
    (zero almost everywhere). ``decimals < 0`` on integers is not
    implemented (as in JAX)."""
    if decimals == 0 and out is None:
        return _round0(a)
    _no_out("round", out)
    decimals = _operator_index(decimals)
    a = asarray(a) if type(a) in _SCALAR_TYPES else a                          # noqa: F821
    if isdtype(a.dtype, "integral"):
        if decimals < 0:
            raise NotImplementedError("integer round not implemented for decimals < 0")
        return a
    if isdtype(a.dtype, "complex floating"):
        return _round_dec(real(a), decimals) + 1j * _round_dec(imag(a), decimals)  # noqa: F821
    return _round_dec(a, decimals)


def _round_dec(a, decimals):
    f = 10.0 ** decimals
    return _round0(a * f) / f


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """Elementwise select; differentiable in ``x`` and ``y``. With the
    condition only, ``nonzero(condition, size=size, fill_value=fill_value)``
    (JAX)."""
    if x is None or y is None:
        if x is not None or y is not None:
            raise ValueError("where: give both x and y, or neither")
        return nonzero(condition, size=size, fill_value=fill_value)        # noqa: F821
    if size is not None or fill_value is not None:
        raise ValueError("where: size and fill_value are only used with the condition alone")
    return _bind(_where_p, condition, x, y)


def clip(x, /, min=None, max=None):  # noqa: A002
    """Clamp ``x`` to [min, max]. As in JAX (minimum of maximum), a value
    exactly at a bound gets half the derivative."""
    if min is not None:
        x = maximum(x, min)
    if max is not None:
        x = minimum(x, max)
    return x


# --------------------------------------------------------------------------
# helpers for axes

def _ndim(x):
    return _builtins.len(x.shape) if type(x) not in _SCALAR_TYPES else 0


def _norm_axis(axis, ndim, fname="axis"):
    """None, or a sorted tuple of distinct non-negative axes."""
    if axis is None:
        return None
    axes = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for a in axes:
        a = _operator_index(a)
        if not -ndim <= a < _builtins.max(ndim, 1):
            raise ValueError(f"{fname}={axis!r} is out of range for an array with {ndim} dimension(s)")
        out.append(a % ndim if ndim else 0)
    if _builtins.len(set(out)) != _builtins.len(out):
        raise ValueError(f"{fname}={axis!r} repeats an axis")
    return tuple(sorted(out))


# --------------------------------------------------------------------------
# reductions

_sum_p, _prod_p, _max_p, _min_p = _P["sum"], _P["prod"], _P["max"], _P["min"]


class _OutNotSupported(NotImplementedError, TypeError):
    """``out=`` given: NotImplementedError as in JAX (and a TypeError, as
    the ndarray methods of traced values have always raised)."""


def _no_out(fname, out):
    if out is not None:
        raise _OutNotSupported(f"{fname}: the out argument is not supported (arrays are "
                                  "immutable, as in JAX); use the returned array")


def _masked_reduce(fname, a, axis, keepdims, initial, where, fill, combine, red, **kw):
    """``red`` (a reduction primitive's function) of ``a`` with JAX's
    ``where=`` (entries outside the mask count as ``fill``, the reduction's
    identity) and ``initial=`` (combined with the result by ``combine``)."""
    if where is not None:
        if fill is None and initial is None:
            raise ValueError(f"{fname}: reduction operation {fname} does not have an identity, "
                             "so to use a where mask one has to specify 'initial'")
        a = asarray(a) if type(a) in _SCALAR_TYPES else a                # noqa: F821
        if fill is None:
            fill = _extreme(a.dtype, fname == "max")
        a = _where3(where, a, fill)
    if initial is not None and fill is None and type(a) not in _SCALAR_TYPES:
        ax = _norm_axis(axis, _ndim(a))
        ax = tuple(range(_ndim(a))) if ax is None else ax
        if _count(a, ax) == 0:          # max/min of nothing: the initial value (JAX)
            shape = tuple(1 if i in ax else n for i, n in enumerate(a.shape) if keepdims
                          or i not in ax)
            return full_like(a, initial, shape=shape)                       # noqa: F821
    out = red(a, axis=axis, keepdims=keepdims, **kw)
    if initial is not None:
        init = asarray(initial, dtype=out.dtype) if not isinstance(initial, _Tracer) \
            else astype(initial, out.dtype)                                # noqa: F821
        out = combine(init, out)
    return out


def _extreme(dt, lowest):
    """The identity of max (``lowest``) or min for dtype ``dt``: -inf/inf, or
    the integer extremes."""
    if isdtype(dt, "real floating"):
        return -_math.inf if lowest else _math.inf
    if isdtype(dt, "bool"):
        return not lowest
    info = iinfo(dt)
    return info.min if lowest else info.max


def _where3(c, x, y):
    """``where(c, x, y)`` keeping ``x``'s dtype when ``y`` is a Python scalar."""
    out = _bind(_where_p, c, x, y)
    if type(y) in _SCALAR_TYPES and out.dtype != x.dtype:
        out = astype(out, x.dtype)                                          # noqa: F821
    return out


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None,  # noqa: A001
        where=None, promote_integers=True):
    """Sum over ``axis`` (all axes by default); ``where`` masks entries out,
    ``initial`` is added, and ``promote_integers=False`` keeps an integer
    input's dtype (JAX)."""
    if out is not None or initial is not None or where is not None or not promote_integers:
        _no_out("sum", out)
        a = asarray(a) if type(a) in _SCALAR_TYPES else a                      # noqa: F821
        if not promote_integers and dtype is None and isdtype(a.dtype, "integral"):
            dtype = a.dtype
        return _masked_reduce("sum", a, axis, keepdims, initial, where, 0, add, sum,  # noqa: F821
                              dtype=dtype)
    return _bind(_sum_p, a, axis=_norm_axis(axis, _ndim(a)), dtype=dtype, keepdims=keepdims)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
         promote_integers=True):
    """Product over ``axis``; the derivative is exact where entries are zero.
    ``where``, ``initial`` and ``promote_integers`` as in ``sum``."""
    if out is not None or initial is not None or where is not None or not promote_integers:
        _no_out("prod", out)
        a = asarray(a) if type(a) in _SCALAR_TYPES else a                      # noqa: F821
        if not promote_integers and dtype is None and isdtype(a.dtype, "integral"):
            dtype = a.dtype
        return _masked_reduce("prod", a, axis, keepdims, initial, where, 1, multiply,  # noqa: F821
                              prod, dtype=dtype)
    return _bind(_prod_p, a, axis=_norm_axis(axis, _ndim(a)), dtype=dtype, keepdims=keepdims)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """Maximum over ``axis``; tied maxima share the derivative equally (JAX).
    ``where`` masks entries out (it needs ``initial``), ``initial`` is a lower
    bound for the result."""
    if out is not None or initial is not None or where is not None:
        _no_out("max", out)
        return _masked_reduce("max", a, axis, keepdims, initial, where, None, maximum, max)  # noqa: F821
    return _bind(_max_p, a, axis=_norm_axis(axis, _ndim(a)), keepdims=keepdims)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """Minimum over ``axis``; tied minima share the derivative equally (JAX).
    ``where`` and ``initial`` as in ``max``."""
    if out is not None or initial is not None or where is not None:
        _no_out("min", out)
        return _masked_reduce("min", a, axis, keepdims, initial, where, None, minimum, min)  # noqa: F821
    return _bind(_min_p, a, axis=_norm_axis(axis, _ndim(a)), keepdims=keepdims)


def _count(x, axis):
    n = 1
    for a in (range(_ndim(x)) if axis is None else axis):
        n *= x.shape[a]
    return n


def _mask_count(a, ax, keepdims, where):
    """The number of entries of ``a`` that ``where`` selects, per reduced position."""
    m = broadcast_to(astype(where, _float_like(a)), tuple(a.shape))          # noqa: F821
    return sum(m, axis=ax, keepdims=keepdims)


def _float_like(a):
    dt = a.dtype
    return dt if isdtype(dt, ("real floating", "complex floating")) else \
        _dtype_in(_backend_of(a), "float64")


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Arithmetic mean over ``axis``; ``where`` averages the selected entries only."""
    if out is not None or dtype is not None:
        _no_out("mean", out)
        if dtype is not None:
            a = astype(a, dtype)                                              # noqa: F821
    ax = _norm_axis(axis, _ndim(a))
    if where is not None:
        return sum(a, axis=ax, keepdims=keepdims, where=where) / _mask_count(a, ax, keepdims, where)
    return sum(a, axis=ax, keepdims=keepdims) / _count(a, ax)


_mean = mean


def _correction(fname, ddof, correction):
    if correction is None:
        return ddof
    if ddof != 0:
        raise ValueError(f"{fname}: ddof and correction can't be provided simultaneously")
    return correction


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    """Variance over ``axis`` with ``ddof`` (or the standard's ``correction``)
    degrees of freedom removed; ``where`` selects entries, ``mean`` is a
    precomputed mean (broadcastable as with ``keepdims=True``)."""
    _no_out("var", out)
    corr = _correction("var", ddof, correction)
    if dtype is not None:
        a = astype(a, dtype)                                                  # noqa: F821
    ax = _norm_axis(axis, _ndim(a))
    m = _mean(a, axis=ax, keepdims=True, where=where) if mean is None else mean
    d = a - m
    if isdtype(d.dtype, "complex floating"):
        d2 = real(d * conj(d))                                                # noqa: F821
    else:
        d2 = d * d
    if where is None:
        return sum(d2, axis=ax, keepdims=keepdims) / _builtins.max(_count(a, ax) - corr, 0)
    return sum(d2, axis=ax, keepdims=keepdims, where=where) / (
        _mask_count(a, ax, keepdims, where) - corr)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    """Standard deviation over ``axis`` (arguments as in ``var``)."""
    v = var(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims,
            where=where, mean=mean, correction=correction)
    if where is None and mean is None and _correction("std", ddof, correction) == 0 and \
            _count(a, _norm_axis(axis, _ndim(a))) == 1:
        # NB: the deviation of one entry is identically 0, so its derivative
        # is 0 (JAX: nan, sqrt's infinite slope at 0 times var's zero one)
        v = _bind(_P["stop_gradient"], v)
    return sqrt(v)                                                            # noqa: F821


def _arg_reduce(p):
    def f(a, axis=None, out=None, keepdims=False):
        if out is not None:
            _no_out(p.name, out)
        return _bind(p, a, axis=axis, keepdims=bool(keepdims))
    f.__name__ = f.__qualname__ = p.name
    f.__doc__ = f"``{p.name}`` along ``axis`` (all axes flattened by default)."
    return f


argmax, argmin = _arg_reduce(_P["argmax"]), _arg_reduce(_P["argmin"])
_all_p, _any_p = _P["all"], _P["any"]


def all(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    """Whether all entries along ``axis`` are true (those ``where`` selects)."""
    if out is not None or where is not None:
        _no_out("all", out)
        a = _as_bool(a)
        a = logical_or(a, logical_not(where))                                 # noqa: F821
    return _bind(_all_p, a, axis=_norm_axis(axis, _ndim(a)), keepdims=keepdims)


def any(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    """Whether any entry along ``axis`` is true (of those ``where`` selects)."""
    if out is not None or where is not None:
        _no_out("any", out)
        a = logical_and(_as_bool(a), where)                                   # noqa: F821
    return _bind(_any_p, a, axis=_norm_axis(axis, _ndim(a)), keepdims=keepdims)


def _as_bool(a):
    a = asarray(a) if type(a) in _SCALAR_TYPES else a                          # noqa: F821
    return a if isdtype(a.dtype, "bool") else not_equal(a, 0)                 # noqa: F821
_cumsum_p = _P["cumulative_sum"]


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Cumulative sum along ``axis`` (required unless ``x`` is 1-D)."""
    if axis is None:
        if _ndim(x) != 1:
            raise ValueError("cumulative_sum: axis is required for arrays with ndim != 1")
        axis = 0
    axis = _norm_axis(axis, _ndim(x))[0]
    if dtype is not None:
        x = astype(x, dtype)
    out = _bind(_cumsum_p, x, axis=axis, include_initial=include_initial)
    if dtype is not None and out.dtype != x.dtype:
        # the backend widens small integers (uint8 -> uint64) unless told the dtype
        out = astype(out, x.dtype)
    return out


# --------------------------------------------------------------------------
# shape manipulation

_reshape_p, _permute_p, _bcast_p = _P["reshape"], _P["permute_dims"], _P["broadcast_to"]
_flip_p, _roll_p, _concat_p, _astype_p = _P["flip"], _P["roll"], _P["concat"], _P["astype"]


def reshape(a, shape, order="C", *, copy=None, out_sharding=None):
    """Reshape (one ``-1`` allowed); ``order="F"`` reads and writes in
    column-major order (JAX)."""
    if order != "C":
        return _reshape_order(a, shape, order)
    x = a
    shape = (shape,) if isinstance(shape, int) else tuple(_operator_index(s) for s in shape)
    if -1 in shape:
        known = 1
        for s in shape:
            if s != -1:
                known *= s
        size = _math.prod(x.shape)
        shape = tuple((size // known if known else 0) if s == -1 else s for s in shape)
    if tuple(x.shape) == shape and isinstance(x, _Tracer):
        return x
    return _bind(_reshape_p, x, shape=shape)


def _reshape_order(a, shape, order):
    if order != "F":
        raise NotImplementedError(f"reshape: order={order!r} is not implemented (only 'C' and 'F')")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    rev = tuple(range(_ndim(a)))[::-1]
    out = reshape(permute_dims(a, rev), shape[::-1])
    return permute_dims(out, tuple(range(_builtins.len(shape)))[::-1])


def permute_dims(x, /, axes):
    """Permute the axes of ``x``."""
    nd = _ndim(x)
    axes = tuple(_operator_index(a) % nd for a in axes) if nd else tuple(axes)
    if sorted(axes) != list(range(nd)):
        raise ValueError(f"permute_dims: axes={axes!r} is not a permutation of {nd} axes")
    return _bind(_permute_p, x, axes=axes)


def matrix_transpose(x, /):
    """Swap the last two axes."""
    nd = _ndim(x)
    if nd < 2:
        raise ValueError("matrix_transpose needs an array with at least 2 dimensions")
    return permute_dims(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def broadcast_to(array, shape, *, out_sharding=None):
    """Broadcast ``array`` to ``shape``."""
    x = array
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if tuple(x.shape) == shape:
        return x
    return _bind(_bcast_p, x, shape=shape)


def broadcast_arrays(*arrays):
    shape = broadcast_shapes(*[a.shape for a in arrays])
    return [broadcast_to(a, shape) for a in arrays]


def broadcast_shapes(*shapes):
    nd = _builtins.max((_builtins.len(s) for s in shapes), default=0)
    out = []
    for i in range(nd):
        dims = {s[_builtins.len(s) - nd + i] for s in shapes if _builtins.len(s) - nd + i >= 0}
        dims.discard(1)
        if _builtins.len(dims) > 1:
            raise ValueError(f"shapes {shapes} can't be broadcast together")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def expand_dims(a, axis):
    """Insert a size-1 axis at ``axis`` (or at each of a tuple of axes, as
    JAX; an invalid axis raises IndexError, as the standard asks)."""
    x = a
    if isinstance(axis, (tuple, list)):
        nd = _ndim(x) + _builtins.len(axis)
        try:
            ax = _norm_axis(tuple(axis), nd)
        except ValueError as err:
            raise IndexError(f"expand_dims: {err}") from None
        shape = iter(tuple(x.shape))
        return reshape(x, tuple(1 if i in ax else next(shape) for i in range(nd)))
    nd = _ndim(x) + 1
    axis = _operator_index(axis)
    if not -nd <= axis < nd:
        raise IndexError(f"expand_dims: axis={axis} is out of range for {nd - 1} dimension(s)")
    axis %= nd
    shape = tuple(x.shape)
    return reshape(x, shape[:axis] + (1,) + shape[axis:])


def squeeze(a, axis=None):
    """Remove size-1 axes ``axis`` (all of them by default, as JAX)."""
    x = a
    if axis is None:
        axis = tuple(i for i, n in enumerate(x.shape) if n == 1)
    ax = _norm_axis(axis, _ndim(x))
    for a in ax:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has size {x.shape[a]}, not 1")
    return reshape(x, tuple(n for i, n in enumerate(x.shape) if i not in ax))


def flip(m, axis=None):
    """Reverse the order of elements along ``axis``."""
    ax = _norm_axis(axis, _ndim(m))
    return _bind(_flip_p, m, axis=ax)


def roll(a, shift, axis=None):
    """Roll elements along ``axis``."""
    x = a
    if isinstance(shift, _Tracer) or hasattr(shift, "shape"):
        # a shift is static: its concrete value (a guard under jit)
        shift = _concrete(shift)
        shift = int(shift) if not getattr(shift, "shape", ()) else tuple(int(s) for s in shift)
    if isinstance(shift, list):
        shift = tuple(shift)
    if isinstance(axis, list):
        axis = tuple(axis)
    return _bind(_roll_p, x, shift=shift, axis=axis)


def concat(arrays, /, *, axis=0):
    """Join arrays along an existing axis (``axis=None`` flattens first)."""
    arrays = tuple(arrays)
    if not arrays:
        raise ValueError("concat: need at least one array")
    if axis is not None:
        axis = _norm_axis(axis, _ndim(arrays[0]))[0]
    return _bind(_concat_p, *arrays, axis=axis)


def concatenate(arrays, axis=0, dtype=None):
    """Join arrays along an existing axis (``axis=None`` flattens first), as
    ``concat``; ``dtype`` casts the inputs first (JAX)."""
    if dtype is not None:
        arrays = [astype(asarray(a), dtype) for a in arrays]                 # noqa: F821
    return concat(arrays, axis=axis)


def stack(arrays, axis=0, out=None, dtype=None):
    """Join arrays along a new axis; ``dtype`` casts the inputs first (JAX)."""
    _no_out("stack", out)
    arrays = tuple(arrays)
    if not arrays:
        raise ValueError("stack: need at least one array")
    if dtype is not None:
        arrays = [astype(asarray(a), dtype) for a in arrays]                 # noqa: F821
    if _builtins.any(type(a) in _SCALAR_TYPES for a in arrays):
        # Python numbers among arrays (JAX accepts them): weak, in the arrays' dtype
        like = next((a for a in arrays if type(a) not in _SCALAR_TYPES), None)
        arrays = [asarray(a) if like is None else full_like(like, a, shape=())         # noqa: F821
                  if type(a) in _SCALAR_TYPES else a for a in arrays]
    return concat([expand_dims(a, axis=axis) for a in arrays], axis=axis)


def astype(x, dtype, /, *, copy=True, device=None):
    """Cast to ``dtype``. A cast to an integer dtype has no derivative."""
    if device is not None:
        x = to_device(x, device)
    return _bind(_astype_p, x, dtype=dtype, copy=copy)


def to_device(x, device, /, *, stream=None):
    if isinstance(x, _Tracer):
        cur = _compat.device(_concrete(x))
        if device == cur:
            return x
        raise NotImplementedError("to_device on a traced value across devices is not supported yet")
    return _compat.to_device(x, device, stream=stream)


_tril_p, _triu_p = _P["tril"], _P["triu"]


def tril(m, k=0):
    """The lower triangle (on and below diagonal ``k``) of the last two axes."""
    return _bind(_tril_p, m, k=k)


def triu(m, k=0):
    """The upper triangle (on and above diagonal ``k``) of the last two axes."""
    return _bind(_triu_p, m, k=k)


# --------------------------------------------------------------------------
# indexing

_getitem_p, _index_add_p, _index_set_p = _P["getitem"], _P["index_add"], _P["index_set"]
_gather_p, _scatter_p = _P["gather"], _P["scatter"]


def _norm_index(idx, own=False, keep_traced=False):
    """Make an index static: traced index arrays become their concrete values
    (an index has no derivative); lists become arrays. ``own``: the index
    will be kept (by a derivative or a staged program), so a caller's array
    in it is copied, once, into a read-only array that nobody can write
    (``idx[...] = 1`` after ``vjp`` must not change the derivative).
    ``keep_traced``: an index array without a concrete value (per example
    under vmap) is kept as it is instead of raising."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    out = []
    for p in parts:
        if isinstance(p, _Tracer):
            try:
                p = _concrete(p)
            except TypeError:
                if not keep_traced:
                    raise
                out.append(p)
                continue
            if own:
                p = _owned_index(p)
        elif isinstance(p, list):
            p = _default_namespace().asarray(p)
            if own:
                p.flags.writeable = False
        elif own and hasattr(p, "shape") and hasattr(p, "dtype"):
            p = _owned_index(p)
        out.append(p)
    return tuple(out) if isinstance(idx, tuple) else out[0]


def _getitem(x, idx):
    try:
        static = _norm_index(idx, own=isinstance(x, _Tracer))
    except TypeError:             # no concrete value: a per-example index under vmap
        return _at_get_traced(x, idx)
    return _bind(_getitem_p, x, idx=static)


def _gather(x, pos):
    """``x[pos]`` for a 1-D ``x`` and integer positions ``pos`` of any shape,
    which may be traced (per example under vmap)."""
    return _bind(_gather_p, x, pos)


def _scatter(x, v, pos, op):
    """``x`` (1-D) with ``v`` (of ``pos``'s shape) written at ``pos``:
    ``op`` "set" (the last write wins), "add", "max" or "min" (every write
    applies)."""
    return _bind(_scatter_p, x, v, pos, op=op)


def _index_add(x, v, idx):
    return _bind(_index_add_p, x, v, idx=idx)


def _index_set(x, v, idx):
    return _bind(_index_set_p, x, v, idx=idx)


def _fill_default(dt, fill_value):
    """JAX's fill for out-of-bounds gathers: NaN (inexact), the most negative
    (signed) or largest (unsigned) integer, True (bool)."""
    if fill_value is not None:
        return fill_value
    if isdtype(dt, ("real floating", "complex floating")):
        return _math.nan
    if isdtype(dt, "bool"):
        return True
    info = iinfo(dt)
    return info.min if isdtype(dt, "signed integer") else info.max


def _idx_array(indices):
    """Concrete integer ``indices`` as a backend array (None when they have
    no concrete value: per-example indices under vmap)."""
    try:
        idx = _norm_index(indices)
    except TypeError:
        return None
    if type(idx) in _SCALAR_TYPES:
        idx = _np.asarray(idx)
    return idx


def _gather_mode(idx, n, mode, fname, wrap_negative=True):
    """``(index, out-of-bounds mask or None)`` for JAX's gather modes on a
    concrete index array ``idx`` into an axis of length ``n``."""
    ixp = _backend_of(idx)
    if mode == "wrap" and fname == "take":
        return idx % n if n else idx, None
    if mode in (None, "fill", "clip", "promise_in_bounds"):
        if wrap_negative:
            idx = ixp.where(idx < 0, idx + n, idx)
        if mode == "clip" or mode == "promise_in_bounds":
            return ixp.clip(idx, 0, _builtins.max(n - 1, 0)), None
        oob = (idx < 0) | (idx >= n)
        if not ixp.any(oob):
            return idx, None
        return ixp.where(oob, 0, idx), oob
    raise ValueError(f"{fname}: invalid mode {mode!r} (expected 'fill', 'clip'"
                     + (", 'wrap')" if fname == "take" else " or 'promise_in_bounds')"))


def _outer_index(xp, shape, axis, idx):
    """Integer index arrays, one per axis of an array of ``shape``, that pick
    ``idx`` along ``axis`` and everything elsewhere (the result has the shape
    ``shape[:axis] + idx.shape + shape[axis + 1:]``): ``x[:, idx]`` for
    backends that allow integer arrays only with integer arrays."""
    nd, r = _builtins.len(shape), _builtins.len(idx.shape)
    out_nd = nd - 1 + r
    parts = []
    for i in range(nd):
        if i == axis:
            parts.append(xp.reshape(idx, (1,) * axis + tuple(idx.shape) + (1,) * (nd - axis - 1)))
            continue
        pos = i if i < axis else i - 1 + r
        s = [1] * out_nd
        s[pos] = shape[i]
        parts.append(xp.reshape(xp.arange(shape[i]), tuple(s)))
    return tuple(parts)


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """Elements of ``a`` at integer ``indices`` along ``axis`` (of the
    flattened ``a`` when ``axis`` is None). As in JAX, out-of-bounds
    indices give ``fill_value`` (NaN for floats) by default; ``mode="clip"``
    clamps them, ``mode="wrap"`` wraps them."""
    _no_out("take", out)
    x = a
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    nd = _ndim(x)
    axis = _norm_axis(axis, nd)[0]
    idx = _idx_array(indices)
    if idx is None:                   # per-example indices under vmap
        if mode == "wrap":
            indices, mode = remainder(indices, x.shape[axis]), "clip"
        return at(x)[(slice(None),) * axis + (indices,)].get(
            mode="fill" if mode is None else mode, fill_value=fill_value)
    idx, oob = _gather_mode(idx, x.shape[axis], mode if mode != "promise_in_bounds" else "x",
                            "take", wrap_negative=mode != "clip")
    if _backend_of(x) is _np:
        res = _getitem(x, (slice(None),) * axis + (idx,))
    else:                             # array_api_strict: integer arrays for every axis
        res = _getitem(x, _outer_index(_backend_of(x), x.shape, axis, idx))
    if oob is None:
        return res
    mask = _backend_of(oob).reshape(~oob, (1,) * axis + tuple(oob.shape) + (1,) * (nd - axis - 1))
    return _where3(mask, res, _fill_default(x.dtype, fill_value))


def take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None, *,
                    wrap_negative_indices=None):
    """``arr`` at ``indices`` along ``axis`` (of the flattened ``arr`` when
    ``axis`` is None), the other axes matched; out-of-bounds indices as in
    ``take`` (``mode`` "fill", the default, or "clip")."""
    x = arr
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    nd = _ndim(x)
    axis = _norm_axis(axis, nd)[0]
    idx = _idx_array(indices)
    if idx is None:                   # per-example indices under vmap
        return _take_along_traced(x, indices, axis, mode, fill_value, wrap_negative_indices)
    idx, oob = _gather_mode(idx, x.shape[axis], mode, "take_along_axis",
                            wrap_negative=wrap_negative_indices is not False)
    res = _getitem(x, _along(x, axis, idx))
    if oob is None:
        return res
    return _where3(~oob, res, _fill_default(x.dtype, fill_value))


def _along(x, axis, idx):
    """The index of ``take_along_axis``: ``idx`` on ``axis``, a broadcast
    ``arange`` on every other axis."""
    nd, xp = _ndim(x), _backend_of(x)
    parts = []
    for i in range(nd):
        if i == axis:
            parts.append(idx)
        else:
            shape = [1] * nd
            shape[i] = x.shape[i]
            parts.append(xp.reshape(xp.arange(x.shape[i], device=_device_of(x)), tuple(shape)))
    return tuple(parts)


def _take_along_traced(x, indices, axis, mode, fill_value, wrap_negative_indices):
    """``take_along_axis`` for traced ``indices`` (per example under vmap):
    ``x.at[aranges..., indices, ...].get`` with the same modes."""
    nd = _ndim(x)
    if _ndim(indices) != nd:
        raise ValueError(f"take_along_axis: indices must have as many dimensions as arr "
                         f"({nd}), got {_ndim(indices)}")
    if mode not in (None, "fill", "clip", "promise_in_bounds"):
        raise ValueError(f"take_along_axis: invalid mode {mode!r} (expected 'fill', 'clip' "
                         f"or 'promise_in_bounds')")
    return at(x)[_along(x, axis, indices)].get(mode="fill" if mode is None else mode, fill_value=fill_value,
                                   wrap_negative_indices=wrap_negative_indices is not False)


def _unbroadcast(g, shape):
    """Sum ``g`` down to ``shape`` (the transpose of broadcasting)."""
    shape = tuple(shape)
    gshape = tuple(g.shape)
    if gshape == shape:
        return g
    lead = _builtins.len(gshape) - _builtins.len(shape)
    inner = tuple(lead + i for i, n in enumerate(shape) if n == 1 and gshape[lead + i] != 1)
    if not inner:                     # only leading axes: their sum has the shape
        return sum(g, axis=tuple(range(lead))) if lead else reshape(g, shape)
    g = sum(g, axis=tuple(range(lead)) + inner, keepdims=True)
    return g if not lead else reshape(g, shape)


# --------------------------------------------------------------------------
# linear algebra in the main namespace

_matmul_p = _P["matmul"]


def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """Matrix product with broadcasting over leading axes (``@``).
    ``preferred_element_type`` is the result dtype (the operands are cast to
    it first); ``precision`` is accepted and ignored (backends compute at full
    precision)."""
    if preferred_element_type is not None:
        a, b = _preferred(a, b, preferred_element_type)
    if _ndim(a) == 0 or _ndim(b) == 0:
        raise ValueError("matmul: scalar operands are not allowed; use multiply")
    return _bind(_matmul_p, a, b)


def _preferred(a, b, dtype):
    """``a`` and ``b`` cast to ``dtype`` (the result dtype JAX's
    ``preferred_element_type`` asks for)."""
    return astype(asarray(a), dtype), astype(asarray(b), dtype)             # noqa: F821


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None,
              out_sharding=None):
    """Sum products over the given axes (a composite of permute, reshape,
    matmul); ``precision`` and ``preferred_element_type`` as in ``matmul``."""
    if preferred_element_type is not None:
        a, b = _preferred(a, b, preferred_element_type)
    x1, x2 = a, b
    n1, n2 = _ndim(x1), _ndim(x2)
    if isinstance(axes, int):
        a1 = tuple(range(n1 - axes, n1))
        a2 = tuple(range(axes))
    else:
        a1, a2 = (tuple(a) if isinstance(a, (tuple, list)) else (a,) for a in axes)
        a1 = tuple(a % n1 for a in a1)
        a2 = tuple(a % n2 for a in a2)
    if _builtins.len(a1) != _builtins.len(a2):
        raise ValueError(f"tensordot: axes={axes!r} names {_builtins.len(a1)} axes of x1 but "
                         f"{_builtins.len(a2)} of x2; they are contracted in pairs")
    for i, j in zip(a1, a2):
        if x1.shape[i] != x2.shape[j]:
            raise ValueError(f"tensordot: axis {i} of x1 has size {x1.shape[i]} but axis {j} of "
                             f"x2 has size {x2.shape[j]}; contracted axes must have equal sizes")
    free1 = [i for i in range(n1) if i not in a1]
    free2 = [i for i in range(n2) if i not in a2]
    k = _math.prod(x1.shape[i] for i in a1)
    s1 = tuple(x1.shape[i] for i in free1)
    s2 = tuple(x2.shape[i] for i in free2)
    m1 = reshape(permute_dims(x1, tuple(free1) + a1), (_math.prod(s1), k))
    m2 = reshape(permute_dims(x2, a2 + tuple(free2)), (k, _math.prod(s2)))
    return reshape(matmul(m1, m2), s1 + s2)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """Dot product along ``axis`` (conjugating ``x1``), with broadcasting over
    the other axes; the contracted axes must have equal sizes (no
    broadcasting there), and the result keeps the promoted input dtype."""
    if preferred_element_type is not None:
        x1, x2 = _preferred(x1, x2, preferred_element_type)
    n1, n2 = _ndim(x1), _ndim(x2)
    n = _builtins.min(n1, n2)
    if axis >= 0 and n1 == n2:    # NB: beyond the standard (negative axes only)
        axis -= n
    if not -n <= axis < 0:
        raise ValueError(f"vecdot: axis={axis} must be negative and at least -{n}")
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(f"vecdot: the contracted axes have sizes {x1.shape[axis]} and "
                         f"{x2.shape[axis]}")
    return sum(multiply(conj(x1), x2), axis=axis, dtype=result_type(x1, x2))


def outer(a, b, out=None):
    """Outer product of the flattened ``a`` and ``b``."""
    _no_out("outer", out)
    return reshape(a, (-1, 1)) * reshape(b, (1, -1))


def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """NumPy's ``dot``: matmul for 1-D/2-D, sum over the last axis of ``a``
    and the second-to-last of ``b`` otherwise (``precision`` and
    ``preferred_element_type`` as in ``matmul``)."""
    if preferred_element_type is not None:
        a, b = _preferred(a, b, preferred_element_type)
    na, nb = _ndim(a), _ndim(b)
    if na == 0 or nb == 0:
        return multiply(a, b)
    if na <= 2 and nb <= 2:
        return matmul(a, b)
    return tensordot(a, b, axes=((na - 1,), (_builtins.max(nb - 2, 0),)))


def inner(a, b, *, precision=None, preferred_element_type=None):
    """Sum of products over the last axes (a plain product when either is a
    scalar; ``precision`` and ``preferred_element_type`` as in ``matmul``)."""
    if preferred_element_type is not None:
        a, b = _preferred(a, b, preferred_element_type)
    if _ndim(a) == 0 or _ndim(b) == 0:
        return multiply(a, b)
    return tensordot(a, b, axes=((-1,), (-1,)))


# --------------------------------------------------------------------------
# creation functions (plain arrays: constants to every transform)

# the library whose namespace makes arrays on a device of this top-level
# module (jax's devices are jaxlib objects)
_DEVICE_HOME = {"jaxlib": "jax.numpy", "jax": "jax.numpy"}


def _creation_xp(dtype=None, device=None, default=None):
    for obj in (dtype, device):
        if obj is None or isinstance(obj, (str, type)):
            continue
        mod = type(obj).__module__.split(".")[0]
        mod = _DEVICE_HOME.get(mod, mod)
        if mod not in ("numpy", "builtins"):
            ns = _sys.modules.get(mod)
            if ns is not None and hasattr(ns, "asarray"):
                # the array API namespace (array_api_compat's for cupy and torch,
                # whose own modules differ from the standard)
                return _compat.array_namespace(ns.asarray(0))
    return default if default is not None else _np


def _dev(xp, device):
    return {} if device is None else {"device": device}


def _make_creation(default=None):
    """Creation functions bound to a default backend (numpy for xgrad.numpy,
    the array's backend for the namespace a traced value reports)."""

    def _xp(dtype, device):
        return _creation_xp(dtype, device, default)

    def zeros(shape, dtype=None, *, device=None, out_sharding=None):
        xp = _xp(dtype, device)
        return xp.zeros(shape, dtype=_dtype_in(xp, dtype), **_dev(xp, device))

    def ones(shape, dtype=None, *, device=None, out_sharding=None):
        xp = _xp(dtype, device)
        return xp.ones(shape, dtype=_dtype_in(xp, dtype), **_dev(xp, device))

    def empty(shape, dtype=None, *, device=None, out_sharding=None):
        xp = _xp(dtype, device)
        return xp.empty(shape, dtype=_dtype_in(xp, dtype), **_dev(xp, device))

    def full(shape, fill_value, dtype=None, *, device=None, out_sharding=None):
        xp = _xp(dtype, device)
        if isinstance(fill_value, _Tracer):
            return broadcast_to(asarray(fill_value, dtype=dtype),
                                tuple(shape) if not isinstance(shape, int) else (shape,))
        return xp.full(shape, fill_value, dtype=_dtype_in(xp, dtype), **_dev(xp, device))

    def eye(N, M=None, k=0, dtype=None, *, device=None):
        xp = _xp(dtype, device)
        return xp.eye(N, M, k=k, dtype=_dtype_in(xp, dtype), **_dev(xp, device))

    def arange(start, stop=None, step=None, dtype=None, *, device=None, out_sharding=None):
        xp = _xp(dtype, device)
        # a traced bound is read (a value-dependent shape: a guard under jit)
        start, stop, step = (_read_bound(v) for v in (start, stop, step))
        return xp.arange(start, stop, 1 if step is None else step, dtype=_dtype_in(xp, dtype),
                         **_dev(xp, device))

    def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
                 device=None):
        xp = _xp(dtype, device)
        num = _operator_index(num)
        if num < 0:
            raise ValueError(f"linspace: num={num} must be non-negative")
        if type(start) in _SCALAR_TYPES and type(stop) in _SCALAR_TYPES:
            out = xp.linspace(start, stop, num, dtype=_dtype_in(xp, dtype), endpoint=endpoint,
                              **_dev(xp, device))
            if not retstep:
                return out
            div = (num - 1) if endpoint else num
            return out, (stop - start) / div if div > 0 else _math.nan
        return _linspace_arrays(xp, start, stop, num, endpoint, retstep, dtype, axis)

    def asarray(a, dtype=None, order=None, *, copy=None, device=None, out_sharding=None):
        if order not in (None, "C", "K", "A"):
            raise NotImplementedError(f"asarray: order={order!r} is not supported (only 'C'/'K')")
        obj = a
        if isinstance(obj, _Tracer):
            return obj if dtype is None else astype(obj, dtype)
        if isinstance(obj, (list, tuple)) and _has_tracer(obj):
            out = stack([asarray(o) for o in obj])
            return out if dtype is None else astype(out, dtype)
        if device is None and dtype is None and hasattr(obj, "__array_namespace__") or \
                _compat.is_array_api_obj(obj) and type(obj) not in _SCALAR_TYPES:
            xp = _namespace(obj)
        else:
            xp = _xp(dtype, device)
        return xp.asarray(obj, dtype=_dtype_in(xp, dtype), copy=copy, **_dev(xp, device))

    def array(object, dtype=None, *args, copy=True, order="K", ndmin=0, device=None,  # noqa: A002
              out_sharding=None):
        if args:
            raise TypeError(f"array: too many positional arguments ({2 + len(args)})")
        out = asarray(object, dtype, order, copy=copy if not isinstance(object, _Tracer) else None,
                      device=device)
        if ndmin > _ndim(out):
            out = reshape(out, (1,) * (ndmin - _ndim(out)) + tuple(out.shape))
        return out

    return dict(zeros=zeros, ones=ones, empty=empty, full=full, eye=eye, arange=arange,
                linspace=linspace, asarray=asarray, array=array)


def _linspace_arrays(xp, start, stop, num, endpoint, retstep, dtype, axis):
    """``linspace`` with array (or traced) end points: differentiable in
    ``start`` and ``stop`` (JAX); the new axis is ``axis``."""
    start, stop = asarray(start), asarray(stop)
    if dtype is None:
        dt = result_type(start, stop)
        dtype = dt if isdtype(dt, ("real floating", "complex floating")) else \
            _dtype_in(_backend_of(start), "float64")
    start, stop = astype(start, dtype), astype(stop, dtype)                   # noqa: F821
    shape = broadcast_shapes(tuple(start.shape), tuple(stop.shape))
    start, stop = broadcast_to(start, shape), broadcast_to(stop, shape)
    div = (num - 1) if endpoint else num
    bxp = _backend_of(start)
    t = bxp.arange(num, dtype=_dtype_in(bxp, dtype)) if num else bxp.zeros((0,), dtype=_dtype_in(bxp, dtype))
    step = (stop - start) / div if div > 0 else (stop - start) * _math.nan
    t = reshape(t, (num,) + (1,) * _builtins.len(shape))
    out = expand_dims(start, 0) + t * expand_dims(step if div > 0 else stop - start, 0)
    if endpoint and num > 1:
        out = concat([out[:num - 1], expand_dims(stop, 0)], axis=0)
    nd = _builtins.len(shape) + 1
    axis = _norm_axis(axis, nd)[0]
    if axis:
        out = moveaxis(out, 0, axis)                                            # noqa: F821
    return (out, step) if retstep else out


def _has_tracer(obj):
    if isinstance(obj, _Tracer):
        return True
    if isinstance(obj, (list, tuple)):
        return _builtins.any(_has_tracer(o) for o in obj)
    return False


globals().update(_make_creation())


def _const_in_transform(f):
    """``f`` (a creation function) returning a constant of the innermost
    running transform, so that JAX code such as ``R = zeros((3, 3)); R =
    R.at[0, 0].set(c)`` or ``R[0, 0] = c`` works inside ``grad``: the
    constant is a traced value (with ``.at``, and writes into it are
    recorded). A plain numpy result (outside transforms, and under vmap,
    whose constants are plain) has ``.at`` too: a small subclass that
    numpy's operations don't propagate (see ``_at.py``). One
    ``current_trace()`` look-up per call, nothing per operation."""
    def g(*args, **kwargs):
        out = f(*args, **kwargs)
        trace = _core.current_trace()
        if trace is not None and not isinstance(out, _Tracer):
            out = trace.const(out)
        return _with_at(out)
    return _functools.update_wrapper(g, f)      # f's name, docstring and signature


for _n in ("zeros", "ones", "empty", "full", "eye", "arange", "linspace"):
    globals()[_n] = _const_in_transform(globals()[_n])
del _n


def _with_at_result(f):
    """``f`` (``asarray``) whose numpy result has ``.at``."""
    def g(*args, **kwargs):
        return _with_at(f(*args, **kwargs))
    return _functools.update_wrapper(g, f)


asarray = _with_at_result(asarray)                                       # noqa: F821
array = _with_at_result(array)                                           # noqa: F821


def _like_xp(x, dtype):
    xp = _backend_of(x)
    return xp, _dtype_in(xp, dtype if dtype is not None else x.dtype)


def _traced_const(x, plain):
    """``plain(value)`` (a function making a plain array like ``value``) as
    a constant of ``x``'s transform when ``x`` is traced, so that writes
    into it (``w[i] = v``) are recorded: ``w = zeros_like(x); w[i] = ...``
    differentiates. Under vmap the constant is batched like ``x``."""
    if isinstance(x, _Tracer):
        return x._trace.const_like(x, plain)
    out = plain(x)
    trace = _core.current_trace()      # a plain x inside a transform: as ``zeros`` there
    return _with_at(out if trace is None else trace.const(out))


def _plain_like(make):
    """A ``*_like`` creation function: a constant of ``x``'s transform when
    ``x`` is traced (see ``_traced_const``), a plain array otherwise."""
    def like(x, /, *args, dtype=None, device=None):
        return _traced_const(x, lambda v: make(v, *args, dtype=dtype, device=device))
    return like


def _zeros_like(x, /, *, dtype=None, device=None):
    """Plain zeros with the shape, dtype and device of ``x`` (internal use:
    never a traced constant)."""
    xp, dt = _like_xp(x, dtype)
    return xp.zeros(tuple(x.shape), dtype=dt, device=_device_of(x) if device is None else device)


def _zeros_as(x, shape):
    """Zeros of ``shape`` with the dtype, backend and device of ``x``."""
    xp, dt = _like_xp(x, None)
    return xp.zeros(tuple(shape), dtype=dt, device=_device_of(x))


def _ones_like(x, /, *, dtype=None, device=None):
    xp, dt = _like_xp(x, dtype)
    return xp.ones(tuple(x.shape), dtype=dt, device=_device_of(x) if device is None else device)


def _empty_like(x, /, *, dtype=None, device=None):
    xp, dt = _like_xp(x, dtype)
    return xp.empty(tuple(x.shape), dtype=dt, device=_device_of(x) if device is None else device)


def _full_like(x, /, fill_value, *, dtype=None, device=None):
    xp, dt = _like_xp(x, dtype)
    return xp.full(tuple(x.shape), fill_value, dtype=dt,
                   device=_device_of(x) if device is None else device)


def _like_arg(x):
    """A Python scalar as a 0-d array (``ones_like(1.3)``, as numpy and jax)."""
    return asarray(x) if type(x) in (bool, int, float, complex) else x


_zeros_like_t, _ones_like_t = _plain_like(_zeros_like), _plain_like(_ones_like)
_empty_like_t, _full_like_t = _plain_like(_empty_like), _plain_like(_full_like)


def zeros_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    """Zeros with the shape, dtype and device of ``a`` (or ``shape``,
    ``dtype``): a constant (no derivative). NB: for a traced ``a`` it is a
    traced constant, so that ``w = zeros_like(a); w[i] = v`` records the
    write and differentiates."""
    a = _like_arg(a)
    if shape is not None:
        return zeros(shape, a.dtype if dtype is None else dtype, device=device)   # noqa: F821
    return _zeros_like_t(a, dtype=dtype, device=device)


def ones_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    """Ones with the shape, dtype and device of ``a`` (a constant; traced
    for a traced ``a``, as ``zeros_like``)."""
    a = _like_arg(a)
    if shape is not None:
        return ones(shape, a.dtype if dtype is None else dtype, device=device)    # noqa: F821
    return _ones_like_t(a, dtype=dtype, device=device)


def empty_like(prototype, dtype=None, shape=None, *, device=None):
    """An uninitialised array like ``prototype`` (traced for a traced one, as ``zeros_like``)."""
    a = _like_arg(prototype)
    if shape is not None:
        return empty(shape, a.dtype if dtype is None else dtype, device=device)   # noqa: F821
    return _empty_like_t(a, dtype=dtype, device=device)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None, out_sharding=None):
    """``fill_value`` everywhere, like ``a`` (traced for a traced ``a``, as
    ``zeros_like``; a traced ``fill_value`` is differentiated)."""
    x = _like_arg(a)
    if shape is not None:
        return full(shape, fill_value, x.dtype if dtype is None else dtype,       # noqa: F821
                    device=device)
    if isinstance(fill_value, _Tracer):
        return add(_zeros_like_t(x, dtype=dtype, device=device), fill_value)   # noqa: F821
    return _full_like_t(x, fill_value, dtype=dtype, device=device)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate grids (differentiable in the input vectors); ``sparse``
    keeps size-1 axes instead of broadcasting; ``copy`` is ignored (arrays
    are immutable)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing={indexing!r} must be 'xy' or 'ij'")
    arrays = [reshape(a, (-1,)) for a in xi]
    n = _builtins.len(arrays)
    shape = [a.shape[0] for a in arrays]
    if indexing == "xy" and n >= 2:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, a in enumerate(arrays):
        pos = i
        if indexing == "xy" and n >= 2 and i < 2:
            pos = 1 - i
        s = [1] * n
        s[pos] = a.shape[0]
        a = reshape(a, tuple(s))
        out.append(a if sparse else broadcast_to(a, tuple(shape)))
    return out


def _read_bound(v):
    """A bound of ``arange`` given as a 0-d array (traced or not) as the
    Python number it holds (the array API's ``arange`` takes numbers)."""
    if type(v) in _SCALAR_TYPES or v is None or not hasattr(v, "dtype"):
        return v
    return float(v) if _is_inexact(v.dtype) else int(v)


def from_dlpack(x, /, *, device=None, copy=None):
    if isinstance(x, _Tracer):          # a traced value is an xgrad array already
        return asarray(x, copy=True) if copy else x
    return _np.from_dlpack(x)


def _device_of(x):
    while isinstance(x, _Tracer):
        x = x.primal
    return _compat.device(x)


# --------------------------------------------------------------------------
# data type functions (no derivatives; they look at dtypes only)

def _is_array(x):
    return isinstance(x, _Tracer) or (hasattr(x, "shape") and hasattr(x, "dtype")
                                     and not isinstance(x, type) and hasattr(x, "ndim")
                                     and type(x).__name__ not in ("dtype", "DType"))


def _dt_xp(*xs):
    for x in xs:
        if _is_array(x):
            return _backend_of(x)
    for x in xs:
        if x is not None and not isinstance(x, (str, type)) and type(x) not in _SCALAR_TYPES:
            return _creation_xp(dtype=x)
    return _np


def can_cast(from_, to, casting="safe"):
    """Whether ``from_`` (a dtype or array) casts to ``to`` under numpy's
    ``casting`` rule ("safe" is the standard's)."""
    xp = _dt_xp(from_, to)
    f = from_.dtype if _is_array(from_) else from_
    if casting != "safe":
        return _np.can_cast(_dtype_in(_np, f), _dtype_in(_np, to), casting=casting)
    return xp.can_cast(_dtype_in(xp, f), _dtype_in(xp, to))



class _finfo:
    """The backend's ``finfo`` with the standard's attributes as Python numbers
    (numpy's are numpy scalars: ``finfo(float32).eps`` is an ``np.float32``);
    anything else is the backend's."""

    def __init__(self, fi):
        self._fi = fi
        self.bits = int(fi.bits)
        self.eps, self.max, self.min = float(fi.eps), float(fi.max), float(fi.min)
        self.smallest_normal = float(fi.smallest_normal)
        self.dtype = fi.dtype

    def __getattr__(self, name):
        return getattr(self._fi, name)

    def __repr__(self):
        return repr(self._fi)


def finfo(type, /):  # noqa: A002
    xp = _dt_xp(type)
    return _finfo(xp.finfo(_dtype_in(xp, type.dtype if _is_array(type) else type)))


def iinfo(type, /):  # noqa: A002
    xp = _dt_xp(type)
    return xp.iinfo(_dtype_in(xp, type.dtype if _is_array(type) else type))


def isdtype(dtype, kind):
    xp = _dt_xp(dtype)
    return xp.isdtype(_dtype_in(xp, dtype), kind)


def result_type(*arrays_and_dtypes):
    xp = _dt_xp(*arrays_and_dtypes)
    args = []
    for a in arrays_and_dtypes:
        if isinstance(a, _Tracer):
            args.append(a.dtype)
        elif _is_array(a):
            args.append(a)
        elif type(a) in _SCALAR_TYPES:
            args.append(a)
        else:
            args.append(_dtype_in(xp, a))
    return xp.result_type(*args)


# --------------------------------------------------------------------------
# NumPy spellings

arccos, arccosh, arcsin, arcsinh = acos, acosh, asin, asinh        # noqa: F821
arctan, arctan2, arctanh = atan, atan2, atanh                      # noqa: F821
absolute, power, conjugate = abs, pow, conj                        # noqa: F821
bitwise_not = invert = bitwise_invert                              # noqa: F821
left_shift, right_shift = bitwise_left_shift, bitwise_right_shift  # noqa: F821
true_divide, mod = divide, remainder                               # noqa: F821
amax, amin = max, min                                              # noqa: F821


def transpose(a, axes=None):
    """NumPy's ``transpose``: reverse the axes, or permute by ``axes``."""
    return permute_dims(a, tuple(range(_ndim(a)))[::-1] if axes is None else axes)


def cumsum(a, axis=None, dtype=None, out=None):
    """NumPy's ``cumsum``: cumulative sum along ``axis`` (of the flattened array by default)."""
    _no_out("cumsum", out)
    if axis is None:
        a, axis = reshape(a, (-1,)), 0
    return cumulative_sum(a, axis=axis, dtype=dtype)


def ndim(a):
    return _ndim(a)


def shape(a):
    return () if type(a) in _SCALAR_TYPES else tuple(a.shape)


def size(a, axis=None):
    """The number of elements (along ``axis``, an axis or a tuple of axes)."""
    shape = () if type(a) in _SCALAR_TYPES else tuple(a.shape)
    if axis is None:
        return _math.prod(shape)
    return _math.prod(shape[i] for i in _norm_axis(axis, _builtins.len(shape)))


# --------------------------------------------------------------------------
# __array_namespace_info__ and per-backend namespaces

class _Info:
    def __init__(self, xp):
        self._xp = xp

    def __getattr__(self, name):
        return getattr(self._xp.__array_namespace_info__(), name)

    def devices(self):
        """A list, as the standard says (array_api_compat.numpy gives a tuple)."""
        return list(self._xp.__array_namespace_info__().devices())


def __array_namespace_info__():
    return _Info(_np)


_namespaces = {}


def namespace_for(backend):
    """The xgrad namespace for arrays of ``backend``: this module for numpy;
    for other backends a copy whose dtypes and creation defaults are that
    backend's (so ``xp = array_namespace(x); xp.zeros(3, dtype=xp.float32)``
    works in code that differentiates arrays of any backend)."""
    if backend is _np:
        return _this
    try:
        return _namespaces[backend]
    except KeyError:
        pass
    mod = _types.ModuleType(f"xgrad.numpy[{backend.__name__}]")
    mod.__dict__.update({k: v for k, v in _this.__dict__.items() if not k.startswith("__")})
    mod.__array_api_version__ = __array_api_version__
    for name in _DTYPE_NAMES:
        if hasattr(backend, name):
            setattr(mod, name, getattr(backend, name))
    made = _make_creation(backend)
    made.update(zeros_like=zeros_like, ones_like=ones_like, empty_like=empty_like,
                full_like=full_like)
    # NB: backends whose operators raise on a traced right operand instead of
    # deferring (array_api_strict) would break `xp.zeros(n) + traced`; there
    # the namespace a traced value reports makes constants of the innermost
    # transform instead of plain arrays.
    mod.__dict__.update({k: _as_constant(f) for k, f in made.items()})
    mod.__array_namespace_info__ = lambda: _Info(backend)
    _namespaces[backend] = mod
    return mod


_this = _sys.modules[__name__]


def _as_constant(f):
    def g(*args, **kwargs):
        out = f(*args, **kwargs)
        trace = _core.current_trace()
        return out if trace is None or isinstance(out, _Tracer) else trace.const(out)
    g.__name__ = g.__qualname__ = f.__name__
    g.__doc__ = f.__doc__
    return g


# --------------------------------------------------------------------------
# traced values behave like arrays: attributes and operators

def _t_namespace(self, /, *, api_version=None):
    return namespace_for(_backend_of(self))


def _setitem(self, idx, value):
    """Functional update: ``x[idx] = v`` rebinds the traced value ``x`` to a
    new value; no buffer is written. NB: a traced slice ``y = x[1:]`` is a
    copy, not a view, so writing into ``y`` does not change ``x``."""
    self._trace.before_update()
    try:
        static = _norm_index(idx, own=True)
    except TypeError:
        # an index that differs per example under vmap: a scatter (JAX's
        # .at[idx].set: out-of-bounds writes dropped); a per-example boolean
        # mask with a scalar is a select
        static = None
    if static is not None:
        new = _index_set(self, value, static)
    elif not (isinstance(idx, _Tracer) and isdtype(idx.dtype, "bool") and _ndim(value) == 0):
        new = at(self)[idx].set(value)
    else:
        new = where(idx, value, self)
        if new.dtype != self.dtype:
            new = astype(new, self.dtype)
    if isinstance(new, _Tracer):
        self.__class__ = type(new)
        self._trace, self.primal, self._data = new._trace, new.primal, new._data
    else:  # the update carries no derivative at this level: a constant of it
        self.primal, self._data = new, None


def _iter(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d traced value")
    for i in range(self.shape[0]):
        yield self[i]


def _len(self):
    if self.ndim == 0:
        raise TypeError("len() of a 0-d traced value")
    return self.shape[0]


def _operator(f):
    """``x.__op__(other)`` for a traced ``x``: straight to ``x``'s trace when
    ``other`` is a plain value or a tracer of the same trace (both live),
    else the function ``f`` (``bind`` finds the top trace)."""
    if f not in _GENERATED:              # a composite (matmul): its own checks
        return f
    p = _P[f.__name__]

    def op(self, other):
        t = self._trace
        if t.alive and (_ns_get(type(other), False) is not False
                        or (isinstance(other, _Tracer) and other._trace is t)):
            return t.process_binary(p, self, other)
        return f(self, other)
    return op


def _swap(f):
    """``x.__rop__(other)``: ``other op x`` (see ``_operator``)."""
    if f not in _GENERATED:
        return lambda self, other: f(other, self)
    p = _P[f.__name__]

    def rop(self, other):
        t = self._trace
        if t.alive and _ns_get(type(other), False) is not False:
            return t.process_binary(p, other, self)
        return f(other, self)
    return rop


_T = _Tracer
_T.shape = property(lambda self: tuple(self.primal.shape))
_T.dtype = property(lambda self: self.primal.dtype)
_T.ndim = property(lambda self: _builtins.len(self.shape))
_T.size = property(lambda self: _math.prod(self.shape))
_T.device = property(_device_of)
_T.T = property(lambda self: transpose(self))
_T.mT = property(matrix_transpose)
_T.__array_namespace__ = _t_namespace
_T.to_device = lambda self, device, /, *, stream=None: to_device(self, device, stream=stream)
_T.__getitem__ = _getitem
_T.__setitem__ = _setitem
_T.__iter__ = _iter
_T.__len__ = _len
for _name, _f in (("add", add), ("sub", subtract), ("mul", multiply), ("truediv", divide),  # noqa: F821
                  ("floordiv", floor_divide), ("mod", remainder), ("pow", pow),            # noqa: F821
                  ("matmul", matmul), ("and", bitwise_and), ("or", bitwise_or),           # noqa: F821
                  ("xor", bitwise_xor), ("lshift", bitwise_left_shift),                   # noqa: F821
                  ("rshift", bitwise_right_shift)):                                       # noqa: F821
    setattr(_T, f"__{_name}__", _operator(_f))
    setattr(_T, f"__r{_name}__", _swap(_f))
for _name, _f in (("lt", less), ("le", less_equal), ("gt", greater), ("ge", greater_equal),  # noqa: F821
                  ("eq", equal), ("ne", not_equal)):                                         # noqa: F821
    setattr(_T, f"__{_name}__", _operator(_f))
_T.__neg__ = negative    # noqa: F821
_T.__pos__ = positive    # noqa: F821
_T.__abs__ = abs         # noqa: F821
_T.__invert__ = bitwise_invert  # noqa: F821
_T.__hash__ = None
del _name, _f


# ----- extensions (submodules) -----
from . import linalg, fft, special  # noqa: E402,F401
from ._extra import *  # noqa: E402,F401,F403  (sorting, searching, sets, manipulation)
from ._dtypes import *  # noqa: E402,F401,F403  (dtype and scalar-type names, dtype helpers)
from ._shape_ext import *  # noqa: E402,F401,F403  (jax.numpy shape, construction, indexing)
from ._elem import *  # noqa: E402,F401,F403  (elementwise math, polynomials, windows)
from ._stats import *  # noqa: E402,F401,F403  (statistics, nan* reductions, calculus)
from ._einsum import *  # noqa: E402,F401,F403  (einsum, einsum_path, matvec, vecmat)
from ._sets import *  # noqa: E402,F401,F403  (jax.numpy sets, sorting, selection, histograms)
from ._at import at, with_at as _with_at  # noqa: E402,F401  (x.at[idx] for any array)
from ._at import get_traced as _at_get_traced, _owned_index  # noqa: E402
from . import _methods as _methods  # noqa: E402

# the ndarray methods of traced values (x.sum(), x.at[i].add(v), ...), each
# looking up the function of its name here when called
_methods.attach(_T)
ndarray = _methods.ndarray

# The namespace is every name above without a leading underscore: functions
# generated from the table, composites, dtypes, constants and the submodules.
# What this module imports for its own use is bound to underscored names.
__all__ = sorted(n for n in globals() if not n.startswith("_"))
