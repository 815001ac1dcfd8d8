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

# Fast path (the hot path of eager autodiff, STYLE.md section 9): a plain
# array of a known backend goes straight to the implementation; anything else
# (tracers, first sight of a type, scalars only) takes the general ``bind``.
_ns_get = _type_namespaces.get


def _unary(name):
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
                return t.process_primitive(p, (x,), {})
        return _bind(p, x)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Elementwise ``{name}`` (array API); differentiable: {p.jvp is not None}."
    return f


def _binary(name):
    p = _P[name]

    def f(x1, x2, /):
        a = _ns_get(type(x1), False)
        b = _ns_get(type(x2), False)
        if a is not False and b is not False and (a or b) and (a is b or a is None or b is None):
            out = p.impl(a or b, x1, x2)
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
            return t.process_primitive(p, (x1, x2), {})
        return _bind(p, x1, x2)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Elementwise ``{name}`` (array API, broadcasting); differentiable: {p.jvp is not None}."
    return f


# every row marked ``export`` (the array API's unary and binary elementwise
# functions): adding such a row adds the function
for _n, _p in list(_P.items()):
    if _p.export:
        globals()[_n] = _binary(_n) if _p.broadcast else _unary(_n)
del _n, _p

_where_p = _P["where"]


def where(condition, x1, x2, /):
    """Elementwise select; differentiable in ``x1`` and ``x2``."""
    return _bind(_where_p, condition, x1, x2)


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


def sum(x, /, *, axis=None, dtype=None, keepdims=False):  # noqa: A001
    """Sum over ``axis`` (all axes by default)."""
    return _bind(_sum_p, x, axis=_norm_axis(axis, _ndim(x)), dtype=dtype, keepdims=keepdims)


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    """Product over ``axis``; the derivative is exact where entries are zero."""
    return _bind(_prod_p, x, axis=_norm_axis(axis, _ndim(x)), dtype=dtype, keepdims=keepdims)


def max(x, /, *, axis=None, keepdims=False):  # noqa: A001
    """Maximum over ``axis``; tied maxima share the derivative equally (JAX)."""
    return _bind(_max_p, x, axis=_norm_axis(axis, _ndim(x)), keepdims=keepdims)


def min(x, /, *, axis=None, keepdims=False):  # noqa: A001
    """Minimum over ``axis``; tied minima share the derivative equally (JAX)."""
    return _bind(_min_p, x, axis=_norm_axis(axis, _ndim(x)), keepdims=keepdims)


def _count(x, axis):
    n = 1
    for a in (range(_ndim(x)) if axis is None else axis):
        n *= x.shape[a]
    return n


def mean(x, /, *, axis=None, keepdims=False):
    """Arithmetic mean over ``axis``."""
    ax = _norm_axis(axis, _ndim(x))
    return sum(x, axis=ax, keepdims=keepdims) / _count(x, ax)


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    """Variance over ``axis`` with ``correction`` degrees of freedom removed."""
    ax = _norm_axis(axis, _ndim(x))
    d = x - mean(x, axis=ax, keepdims=True)
    return sum(d * d, axis=ax, keepdims=keepdims) / _builtins.max(_count(x, ax) - correction, 0)


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    """Standard deviation over ``axis``."""
    return sqrt(var(x, axis=axis, correction=correction, keepdims=keepdims))


def _arg_reduce(p):
    def f(x, /, *, axis=None, keepdims=False):
        return _bind(p, x, axis=axis, keepdims=keepdims)
    f.__name__ = p.name
    return f


argmax, argmin = _arg_reduce(_P["argmax"]), _arg_reduce(_P["argmin"])
all, any = _arg_reduce(_P["all"]), _arg_reduce(_P["any"])  # noqa: A001


def _all_any_axis(f):
    def g(x, /, *, axis=None, keepdims=False):
        return f(x, axis=_norm_axis(axis, _ndim(x)), keepdims=keepdims)
    g.__name__ = f.__name__
    return g


all, any = _all_any_axis(all), _all_any_axis(any)  # noqa: A001
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


def reshape(x, /, shape, *, copy=None):
    """Reshape (one ``-1`` allowed)."""
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


def broadcast_to(x, /, shape):
    """Broadcast ``x`` to ``shape``."""
    shape = tuple(shape)
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


def expand_dims(x, /, axis):
    """Insert a size-1 axis at ``axis`` (an invalid axis raises IndexError,
    as the standard asks)."""
    nd = _ndim(x) + 1
    axis = _operator_index(axis)
    if not -nd <= axis < nd:
        raise IndexError(f"expand_dims: axis={axis} is out of range for {nd - 1} dimension(s)")
    axis %= nd
    shape = tuple(x.shape)
    return reshape(x, shape[:axis] + (1,) + shape[axis:])


def squeeze(x, /, axis):
    """Remove size-1 axes ``axis``."""
    ax = _norm_axis(axis, _ndim(x))
    for a in ax:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has size {x.shape[a]}, not 1")
    return reshape(x, tuple(n for i, n in enumerate(x.shape) if i not in ax))


def flip(x, /, *, axis=None):
    """Reverse the order of elements along ``axis``."""
    ax = _norm_axis(axis, _ndim(x))
    return _bind(_flip_p, x, axis=ax)


def roll(x, /, shift, *, axis=None):
    """Roll elements along ``axis``."""
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


def stack(arrays, /, *, axis=0):
    """Join arrays along a new axis."""
    arrays = tuple(arrays)
    if not arrays:
        raise ValueError("stack: need at least one array")
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


def tril(x, /, *, k=0):
    return _bind(_tril_p, x, k=k)


def triu(x, /, *, k=0):
    return _bind(_triu_p, x, k=k)


# --------------------------------------------------------------------------
# indexing

_getitem_p, _index_add_p, _index_set_p = _P["getitem"], _P["index_add"], _P["index_set"]


def _norm_index(idx):
    """Make an index static: traced index arrays become their concrete values
    (an index has no derivative); lists become arrays."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    out = []
    for p in parts:
        if isinstance(p, _Tracer):
            p = _concrete(p)
        elif isinstance(p, list):
            p = _default_namespace().asarray(p)
        out.append(p)
    return tuple(out) if isinstance(idx, tuple) else out[0]


def _getitem(x, idx):
    try:
        static = _norm_index(idx)
    except TypeError:             # no concrete value: a per-example index under vmap
        return _gather_traced(x, idx)
    return _bind(_getitem_p, x, idx=static)


def _gather_traced(x, idx):
    """``x[:, ..., i]`` for one integer index ``i`` without a concrete value
    (it differs per example under vmap), full slices elsewhere: a one-hot
    contraction over the indexed axis (O(n) per element), made of primitives
    that batch and differentiate."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    pos = [j for j, p in enumerate(parts) if isinstance(p, _Tracer)]
    if _builtins.any(isdtype(p.dtype, "bool") for p in parts if isinstance(p, _Tracer)):
        raise TypeError("x[mask] with a boolean mask that differs per example (under vmap) "
                        "has no fixed shape; use xgrad.numpy.where(mask, x, 0.0) (and a "
                        "reduction) instead")
    if len(pos) != 1 or _builtins.any(not (isinstance(p, slice) and p == slice(None))
                                     for j, p in enumerate(parts) if j != pos[0]):
        raise TypeError("an index without a concrete value (it differs per example under "
                        "vmap) is supported only as x[:, ..., i] with one integer index array "
                        "and full slices elsewhere; use take_along_axis or a one-hot product")
    k, i = pos[0], parts[pos[0]]
    n, nd = x.shape[k], _ndim(x)
    i = where(i < 0, i + n, i)
    hot = astype(expand_dims(i, axis=-1) == _backend_of(x).arange(n), x.dtype)
    xk = permute_dims(x, tuple(j for j in range(nd) if j != k) + (k,))
    m = _math.prod(i.shape)
    out = matmul(xk, permute_dims(reshape(hot, (m, n)), (1, 0)))
    out = reshape(out, tuple(xk.shape[:-1]) + tuple(i.shape))
    r = _builtins.len(i.shape)
    return permute_dims(out, tuple(range(k)) + tuple(range(nd - 1, nd - 1 + r))
                        + tuple(range(k, nd - 1)))


def _index_add(x, v, idx):
    return _bind(_index_add_p, x, v, idx=idx)


def _index_set(x, v, idx):
    return _bind(_index_set_p, x, v, idx=idx)


def take(x, indices, /, *, axis=None):
    """Elements of ``x`` at integer ``indices`` along ``axis``."""
    if axis is None:
        if _ndim(x) != 1:
            raise ValueError("take: axis is required for arrays with ndim != 1")
        axis = 0
    axis = _norm_axis(axis, _ndim(x))[0]
    return _getitem(x, (slice(None),) * axis + (indices,))


def take_along_axis(x, indices, /, *, axis=-1):
    nd = _ndim(x)
    axis = _norm_axis(axis, nd)[0]
    indices = _norm_index(indices)
    xp = _backend_of(x)
    idx = []
    for i in range(nd):
        if i == axis:
            idx.append(indices)
        else:
            shape = [1] * nd
            shape[i] = x.shape[i]
            idx.append(xp.reshape(xp.arange(x.shape[i]), tuple(shape)))
    return _getitem(x, tuple(idx))


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


def matmul(x1, x2, /):
    """Matrix product with broadcasting over leading axes (``@``)."""
    if _ndim(x1) == 0 or _ndim(x2) == 0:
        raise ValueError("matmul: scalar operands are not allowed; use multiply")
    return _bind(_matmul_p, x1, x2)


def tensordot(x1, x2, /, *, axes=2):
    """Sum products over the given axes (a composite of permute, reshape, matmul)."""
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


def vecdot(x1, x2, /, *, axis=-1):
    """Dot product along ``axis`` (conjugating ``x1``), with broadcasting over
    the other axes; the contracted axes must have equal sizes (no
    broadcasting there), and the result keeps the promoted input dtype."""
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


def outer(x1, x2, /):
    return reshape(x1, (-1, 1)) * reshape(x2, (1, -1))


def dot(a, b, /):
    """NumPy's ``dot``: matmul for 1-D/2-D, sum over the last axis of ``a``
    and the second-to-last of ``b`` otherwise."""
    na, nb = _ndim(a), _ndim(b)
    if na == 0 or nb == 0:
        return multiply(a, b)
    if na <= 2 and nb <= 2:
        return matmul(a, b)
    return tensordot(a, b, axes=((na - 1,), (_builtins.max(nb - 2, 0),)))


def inner(a, b, /):
    """Sum of products over the last axes (a plain product when either is a scalar)."""
    if _ndim(a) == 0 or _ndim(b) == 0:
        return multiply(a, b)
    return tensordot(a, b, axes=((-1,), (-1,)))


# --------------------------------------------------------------------------
# creation functions (plain arrays: constants to every transform)

def _creation_xp(dtype=None, device=None, default=None):
    for obj in (dtype, device):
        if obj is None or isinstance(obj, (str, type)):
            continue
        mod = type(obj).__module__.split(".")[0]
        if mod not in ("numpy", "builtins"):
            ns = _sys.modules.get(mod)
            if ns is not None and hasattr(ns, "asarray"):
                return _compat.array_namespace(ns.asarray(0)) if mod == "cupy" else ns
    return default if default is not None else _np


def _dev(xp, device):
    return {} if device is None else {"device": device}


def _make_creation(default=None):
    """Creation functions bound to a default backend (numpy for xgrad.numpy,
    the array's backend for the namespace a traced value reports)."""

    def _xp(dtype, device):
        return _creation_xp(dtype, device, default)

    def zeros(shape, *, dtype=None, device=None):
        xp = _xp(dtype, device)
        return xp.zeros(shape, dtype=_dtype_in(xp, dtype), **_dev(xp, device))

    def ones(shape, *, dtype=None, device=None):
        xp = _xp(dtype, device)
        return xp.ones(shape, dtype=_dtype_in(xp, dtype), **_dev(xp, device))

    def empty(shape, *, dtype=None, device=None):
        xp = _xp(dtype, device)
        return xp.empty(shape, dtype=_dtype_in(xp, dtype), **_dev(xp, device))

    def full(shape, fill_value, *, dtype=None, device=None):
        xp = _xp(dtype, device)
        if isinstance(fill_value, _Tracer):
            return broadcast_to(asarray(fill_value, dtype=dtype),
                                tuple(shape) if not isinstance(shape, int) else (shape,))
        return xp.full(shape, fill_value, dtype=_dtype_in(xp, dtype), **_dev(xp, device))

    def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
        xp = _xp(dtype, device)
        return xp.eye(n_rows, n_cols, k=k, dtype=_dtype_in(xp, dtype), **_dev(xp, device))

    def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
        xp = _xp(dtype, device)
        return xp.arange(start, stop, step, dtype=_dtype_in(xp, dtype), **_dev(xp, device))

    def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
        xp = _xp(dtype, device)
        return xp.linspace(start, stop, num, dtype=_dtype_in(xp, dtype), endpoint=endpoint,
                           **_dev(xp, device))

    def asarray(obj, /, *, dtype=None, device=None, copy=None):
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

    return dict(zeros=zeros, ones=ones, empty=empty, full=full, eye=eye, arange=arange,
                linspace=linspace, asarray=asarray)


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


def zeros_like(x, /, *, dtype=None, device=None):
    """Zeros with the shape, dtype and device of ``x``: a constant (no
    derivative). NB: for a traced ``x`` it is a traced constant, so that
    ``w = zeros_like(x); w[i] = v`` records the write and differentiates."""
    return _zeros_like_t(_like_arg(x), dtype=dtype, device=device)


def ones_like(x, /, *, dtype=None, device=None):
    """Ones with the shape, dtype and device of ``x`` (a constant; traced
    for a traced ``x``, as ``zeros_like``)."""
    return _ones_like_t(_like_arg(x), dtype=dtype, device=device)


def empty_like(x, /, *, dtype=None, device=None):
    """An uninitialised array like ``x`` (traced for a traced ``x``, as ``zeros_like``)."""
    return _empty_like_t(_like_arg(x), dtype=dtype, device=device)


def full_like(x, /, fill_value, *, dtype=None, device=None):
    """``fill_value`` everywhere, like ``x`` (traced for a traced ``x``, as
    ``zeros_like``; a traced ``fill_value`` is differentiated)."""
    x = _like_arg(x)
    if isinstance(fill_value, _Tracer):
        return add(_zeros_like_t(x, dtype=dtype, device=device), fill_value)   # noqa: F821
    return _full_like_t(x, fill_value, dtype=dtype, device=device)


def meshgrid(*arrays, indexing="xy"):
    """Coordinate grids (differentiable in the input vectors)."""
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
        out.append(broadcast_to(reshape(a, tuple(s)), tuple(shape)))
    return out


def from_dlpack(x, /, *, device=None, copy=None):
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


def can_cast(from_, to, /):
    xp = _dt_xp(from_, to)
    f = from_.dtype if _is_array(from_) else from_
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
absolute, power, concatenate, conjugate = abs, pow, concat, conj   # noqa: F821
bitwise_not = invert = bitwise_invert                              # noqa: F821
left_shift, right_shift = bitwise_left_shift, bitwise_right_shift  # noqa: F821
true_divide, mod = divide, remainder                               # noqa: F821
amax, amin, array = max, min, asarray                              # noqa: F821


def transpose(a, axes=None):
    """NumPy's ``transpose``: reverse the axes, or permute by ``axes``."""
    return permute_dims(a, tuple(range(_ndim(a)))[::-1] if axes is None else axes)


def cumsum(a, axis=None, dtype=None):
    if axis is None:
        a, axis = reshape(a, (-1,)), 0
    return cumulative_sum(a, axis=axis, dtype=dtype)


def ndim(a):
    return _ndim(a)


def shape(a):
    return tuple(a.shape)


def size(a):
    return _math.prod(a.shape)


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
    mod.array = mod.asarray
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
        static = _norm_index(idx)
    except TypeError:
        # a per-example boolean mask under vmap: y[mask] = scalar is a select
        if not (isinstance(idx, _Tracer) and isdtype(idx.dtype, "bool")
                and _ndim(value) == 0):
            raise
        static = None
    if static is not None:
        new = _index_set(self, value, static)
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


def _swap(f):
    return lambda self, other: f(other, self)


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
    setattr(_T, f"__{_name}__", _f)
    setattr(_T, f"__r{_name}__", _swap(_f))
for _name, _f in (("lt", less), ("le", less_equal), ("gt", greater), ("ge", greater_equal),  # noqa: F821
                  ("eq", equal), ("ne", not_equal)):                                         # noqa: F821
    setattr(_T, f"__{_name}__", _f)
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
from . import _methods as _methods  # noqa: E402

# the ndarray methods of traced values (x.sum(), x.at[i].add(v), ...), each
# looking up the function of its name here when called
_methods.attach(_T)
ndarray = _methods.ndarray

# The namespace is every name above without a leading underscore: functions
# generated from the table, composites, dtypes, constants and the submodules.
# What this module imports for its own use is bound to underscored names.
__all__ = sorted(n for n in globals() if not n.startswith("_"))
