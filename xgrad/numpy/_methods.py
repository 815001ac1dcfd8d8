"""The ndarray methods of traced values (``x.sum()``, ``x.reshape(2, 3)``,
``x.at[i].add(v)``, ...), with the signatures of ``jax.Array``'s methods.

Each method looks up the ``xgrad.numpy`` function of its name when it is
called (one ``getattr``), so a method works as soon as the namespace has the
function, whichever module defines it. ``out=`` is refused (values are
immutable, as in JAX). ``item()`` and ``tolist()`` give concrete values
(eager model: a traced value has one, except per-example values under
``vmap``, where they raise as ``bool()`` does).

``ndarray`` is what ``isinstance`` should accept as an array of this
namespace: a traced value, or an array of any backend xgrad knows (numpy,
array_api_strict, cupy, ...); Python scalars and dtypes are not arrays.
"""
from __future__ import annotations

import copy as _copy
import sys as _sys

from ..core import Tracer as _Tracer
from ..backends import SCALAR_TYPES as _SCALAR_TYPES, backend_of as _backend_of
from ._at import _IndexUpdateHelper


def _ns(name):
    """The ``xgrad.numpy`` function ``name``, looked up at call time."""
    ns = _sys.modules["xgrad.numpy"]
    try:
        return getattr(ns, name)
    except AttributeError:
        raise NotImplementedError(f"ndarray.{name}: xgrad.numpy has no {name!r} yet") from None


def _no_out(name, out):
    if out is not None:
        raise TypeError(f"ndarray.{name}: the out argument is not supported; traced values are "
                        f"immutable (as in JAX): use the returned array")


def _extra(**kw):
    """Keyword arguments given a non-default value (``None`` is the default):
    passed on only when used, so a method works with a namespace function
    that doesn't take them yet."""
    return {k: v for k, v in kw.items() if v is not None}


def _concrete_value(self, what):
    try:
        return self.concrete()
    except TypeError as e:
        raise TypeError(f"ndarray.{what}() needs a concrete value, but this traced value has "
                        f"none ({e})") from e


def _host_list(v):
    """A backend array (or scalar) as nested Python lists / a Python scalar."""
    if hasattr(v, "tolist"):
        return v.tolist()
    if hasattr(v, "get"):                   # cupy: to the host first
        return v.get().tolist()
    return _sys.modules["xgrad.numpy"]._np.asarray(v).tolist()


def _python_scalar(v):
    return _host_list(v)


# ----- reductions --------------------------------------------------------

def _reduction(name, with_dtype):
    if with_dtype:
        def m(self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
              promote_integers=True):
            return _ns(name)(self, axis, dtype, out, keepdims, initial, where, promote_integers)
    else:
        def m(self, axis=None, out=None, keepdims=False, initial=None, where=None):
            return _ns(name)(self, axis, out, keepdims, initial, where)
    m.__name__ = m.__qualname__ = name
    m.__doc__ = f"``xgrad.numpy.{name}(self, ...)`` (``jax.Array.{name}``)."
    return m


def _mean(self, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """``xgrad.numpy.mean(self, ...)``."""
    return _ns("mean")(self, axis, dtype, out, keepdims, where=where)


def _moment(name):
    def m(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
          mean=None, correction=None):
        return _ns(name)(self, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
                         correction=correction)
    m.__name__ = m.__qualname__ = name
    m.__doc__ = f"``xgrad.numpy.{name}(self, ...)``."
    return m


def _all_any(name):
    def m(self, axis=None, out=None, keepdims=False, *, where=None):
        return _ns(name)(self, axis, out, keepdims, where=where)
    m.__name__ = m.__qualname__ = name
    m.__doc__ = f"``xgrad.numpy.{name}(self, ...)``."
    return m


def _arg(name):
    def m(self, axis=None, out=None, keepdims=None):
        return _ns(name)(self, axis, out, keepdims)
    m.__name__ = m.__qualname__ = name
    m.__doc__ = f"``xgrad.numpy.{name}(self, ...)``."
    return m


def _ptp(self, axis=None, out=None, keepdims=False):
    """``xgrad.numpy.ptp(self, ...)``."""
    _no_out("ptp", out)
    return _ns("ptp")(self, axis=axis, keepdims=keepdims)


def _cumulative(name):
    def m(self, axis=None, dtype=None, out=None):
        _no_out(name, out)
        return _ns(name)(self, axis=axis, dtype=dtype)
    m.__name__ = m.__qualname__ = name
    m.__doc__ = f"``xgrad.numpy.{name}(self, ...)`` (flattened when ``axis`` is None)."
    return m


# ----- shape ------------------------------------------------------------

def _shape_arg(args, what):
    if len(args) == 1 and not isinstance(args[0], int):
        return tuple(args[0]) if not hasattr(args[0], "__index__") else (args[0],)
    return tuple(args)


def _reshape(self, *args, order="C", out_sharding=None):
    """``xgrad.numpy.reshape``: ``x.reshape(2, 3)`` or ``x.reshape((2, 3))``;
    ``order="F"`` reshapes in Fortran order."""
    return _ns("reshape")(self, _shape_arg(args, "reshape"), order)


def _ravel(self, order="C", *, out_sharding=None):
    """``xgrad.numpy.ravel(self, order)``: the elements as a 1-D array."""
    return _ns("ravel")(self, order=order)


def _flatten(self, order="C", *, out_sharding=None):
    """As ``ravel`` (a copy in NumPy; values are immutable here)."""
    return _ns("ravel")(self, order=order)


def _squeeze(self, axis=None):
    """``xgrad.numpy.squeeze``; all size-1 axes when ``axis`` is None."""
    return _ns("squeeze")(self, axis)


def _transpose(self, *args):
    """``x.transpose()``, ``x.transpose(1, 0)`` or ``x.transpose((1, 0))``."""
    axes = None
    if args:
        axes = tuple(args[0]) if len(args) == 1 and not isinstance(args[0], int) else tuple(args)
        if len(args) == 1 and args[0] is None:
            axes = None
    return _ns("transpose")(self, axes)


def _swapaxes(self, axis1, axis2):
    """``xgrad.numpy.swapaxes(self, axis1, axis2)``."""
    return _ns("swapaxes")(self, axis1, axis2)


def _diagonal(self, offset=0, axis1=0, axis2=1):
    """``xgrad.numpy.diagonal(self, ...)``."""
    return _ns("diagonal")(self, offset=offset, axis1=axis1, axis2=axis2)


def _trace_m(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """``xgrad.numpy.trace(self, ...)``."""
    _no_out("trace", out)
    return _ns("trace")(self, offset=offset, axis1=axis1, axis2=axis2, **_extra(dtype=dtype))


def _repeat(self, repeats, axis=None, *, total_repeat_length=None, out_sharding=None):
    """``xgrad.numpy.repeat(self, repeats, axis)``."""
    return _ns("repeat")(self, repeats, axis=axis,
                         **_extra(total_repeat_length=total_repeat_length))


# ----- elementwise --------------------------------------------------------

def _astype(self, dtype, copy=False, device=None):
    """``xgrad.numpy.astype(self, dtype)``."""
    return _ns("astype")(self, dtype, **_extra(device=device))


def _clip(self, min=None, max=None):  # noqa: A002
    """``xgrad.numpy.clip(self, min, max)``."""
    return _ns("clip")(self, min, max)


def _round(self, decimals=0, out=None):
    """``xgrad.numpy.round(self, decimals)``."""
    return _ns("round")(self, decimals, out)


def _conj(self):
    """``xgrad.numpy.conj(self)``."""
    return _ns("conj")(self)


def _conjugate(self):
    """``xgrad.numpy.conjugate(self)``."""
    return _ns("conjugate")(self)


def _copy_m(self):
    """A copy: a new traced value with the same value and derivative (writes
    into it, ``y[i] = v``, leave ``self`` alone)."""
    return _copy.copy(self)


def _dot(self, b, *, precision=None, preferred_element_type=None):
    """``xgrad.numpy.dot(self, b)``."""
    return _ns("dot")(self, b, **_extra(preferred_element_type=preferred_element_type))


def _view(self, dtype=None, type=None):  # noqa: A002
    """The same values (a copy); a different ``dtype`` (a bitcast) is not
    supported on traced values."""
    if type is not None:
        raise TypeError("ndarray.view: the type argument is not supported")
    if dtype is None or dtype == self.dtype:
        return _copy.copy(self)
    raise NotImplementedError("ndarray.view(dtype): a bitcast of a traced value has no derivative "
                              "and is not supported; use x.astype(dtype) for a conversion")


# ----- sorting, searching, selection -------------------------------------

def _sort_like(name):
    def m(self, axis=-1, *, kind=None, order=None, stable=True, descending=False):
        if order is not None:
            raise TypeError(f"ndarray.{name}: the order argument is not supported")
        return _ns(name)(self, axis, stable=stable, descending=descending)
    m.__name__ = m.__qualname__ = name
    m.__doc__ = f"``xgrad.numpy.{name}(self, ...)``."
    return m


def _argpartition(self, kth, axis=-1):
    """``xgrad.numpy.argpartition(self, kth, axis)``."""
    return _ns("argpartition")(self, kth, axis=axis)


def _searchsorted(self, v, side="left", sorter=None, *, method="scan"):
    """``xgrad.numpy.searchsorted(self, v, ...)``."""
    return _ns("searchsorted")(self, v, side, sorter, method=method)


def _nonzero(self, *, fill_value=None, size=None):
    """``xgrad.numpy.nonzero(self, ...)``."""
    return _ns("nonzero")(self, **_extra(size=size, fill_value=fill_value))


def _take(self, indices, axis=None, out=None, mode=None, unique_indices=False,
          indices_are_sorted=False, fill_value=None):
    """``xgrad.numpy.take(self, indices, ...)``."""
    return _ns("take")(self, indices, axis, out, mode, unique_indices, indices_are_sorted,
                       fill_value)


def _choose(self, choices, out=None, mode="raise"):
    """``xgrad.numpy.choose(self, choices, mode=mode)``."""
    _no_out("choose", out)
    return _ns("choose")(self, choices, mode=mode)


def _compress(self, condition, axis=None, *, out=None, size=None, fill_value=0):
    """``xgrad.numpy.compress(condition, self, ...)``."""
    _no_out("compress", out)
    kw = _extra(size=size)
    if fill_value != 0:
        kw["fill_value"] = fill_value
    return _ns("compress")(condition, self, axis=axis, **kw)


# ----- concrete values ----------------------------------------------------

def _item(self, *args):
    """The element as a Python scalar (``x.item()`` of a one-element array,
    ``x.item(i)`` of the flat index ``i``, ``x.item(i, j)``)."""
    v = _concrete_value(self, "item")
    xp = _backend_of(v)
    if not args:
        if self.size != 1:
            raise ValueError(f"ndarray.item(): the array has {self.size} elements; only an array "
                             f"of one element converts to a Python scalar")
        e = xp.reshape(v, ())
    elif len(args) == 1:
        e = xp.reshape(v, (-1,))[args[0]]
    else:
        e = v[tuple(args)]
    return _python_scalar(e)


def _tolist(self):
    """The concrete values as nested Python lists (a Python scalar for a
    0-d value)."""
    return _host_list(_concrete_value(self, "tolist"))


def _byteswap(self, inplace=False):
    """The bytes of each element reversed: a bit-level operation, so the
    result is a constant (no derivative), as in JAX."""
    if inplace:
        raise ValueError("byteswap: inplace=True is not supported (arrays are immutable, as "
                         "in JAX); use the returned array")
    v = _concrete_value(self, "byteswap")
    if not hasattr(v, "byteswap"):
        raise TypeError(f"byteswap: arrays of {type(v).__module__} have no byte order to swap; "
                        f"it works on numpy and cupy arrays")
    return v.byteswap()


# ----- properties ---------------------------------------------------------

def _itemsize(dtype):
    if hasattr(dtype, "itemsize"):
        return dtype.itemsize
    ns = _sys.modules["xgrad.numpy"]
    if ns.isdtype(dtype, "bool"):
        return 1
    info = ns.finfo(dtype) if ns.isdtype(dtype, ("real floating", "complex floating")) \
        else ns.iinfo(dtype)
    return info.bits // 8 * (2 if ns.isdtype(dtype, "complex floating") else 1)


METHODS = dict(
    all=_all_any("all"), any=_all_any("any"), argmax=_arg("argmax"), argmin=_arg("argmin"),
    byteswap=_byteswap,
    argpartition=_argpartition, argsort=_sort_like("argsort"), astype=_astype,
    choose=_choose, clip=_clip, compress=_compress, conj=_conj, conjugate=_conjugate,
    copy=_copy_m, cumprod=_cumulative("cumprod"), cumsum=_cumulative("cumsum"),
    diagonal=_diagonal, dot=_dot, flatten=_flatten, item=_item,
    max=_reduction("max", False), min=_reduction("min", False), mean=_mean,
    nonzero=_nonzero, prod=_reduction("prod", True), ptp=_ptp, ravel=_ravel,
    repeat=_repeat, reshape=_reshape, round=_round, searchsorted=_searchsorted,
    sort=_sort_like("sort"), squeeze=_squeeze, std=_moment("std"), sum=_reduction("sum", True),
    swapaxes=_swapaxes, take=_take, tolist=_tolist, trace=_trace_m, transpose=_transpose,
    var=_moment("var"), view=_view,
)

PROPERTIES = dict(
    real=lambda self: _ns("real")(self),
    imag=lambda self: _ns("imag")(self),
    itemsize=lambda self: _itemsize(self.dtype),
    nbytes=lambda self: self.size * _itemsize(self.dtype),
    at=_IndexUpdateHelper,
)


def attach(cls):
    """Give the tracer class ``cls`` the methods and properties above."""
    for name, f in METHODS.items():
        setattr(cls, name, f)
    for name, f in PROPERTIES.items():
        setattr(cls, name, property(f))


class _ArrayMeta(type):
    def __instancecheck__(cls, obj):
        if isinstance(obj, _Tracer):
            return True
        if type(obj) in _SCALAR_TYPES or isinstance(obj, type):
            return False
        return hasattr(obj, "__array_namespace__") and hasattr(obj, "shape") \
            and hasattr(obj, "dtype")

    def __subclasscheck__(cls, sub):
        return issubclass(sub, _Tracer) or (hasattr(sub, "__array_namespace__")
                                           and hasattr(sub, "shape") and hasattr(sub, "dtype"))


class ndarray(metaclass=_ArrayMeta):
    """The array type of this namespace, for ``isinstance`` (``jnp.ndarray``):
    a traced value, or an array of any backend (numpy, array_api_strict,
    cupy, ...). NB: not a constructor; create arrays with ``asarray``."""

    def __new__(cls, *args, **kwargs):
        raise TypeError("xgrad.numpy.ndarray is for isinstance checks only; create arrays with "
                        "xgrad.numpy.asarray")
