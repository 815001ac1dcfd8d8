"""jax.numpy's dtype and scalar-type names, its dtype helpers, and the
constructors from bytes, strings and iterables.

The types are numpy's (as jax.numpy re-exports numpy's scalar hierarchy);
the aliases name the 64-bit types, as jax.numpy does with x64 enabled.
``promote_types`` follows JAX's promotion lattice (x64), not numpy's.
"""
from __future__ import annotations

import numpy as _np

from . import asarray as _asarray

__all__ = ["bool_", "int_", "uint", "float_", "double", "single", "cdouble", "csingle",
           "complex_", "float16", "dtype", "generic", "number", "integer", "signedinteger",
           "unsignedinteger", "inexact", "floating", "complexfloating", "flexible",
           "character", "object_", "issubdtype", "promote_types", "iterable",
           "ComplexWarning", "euler_gamma", "frombuffer", "fromstring", "fromiter"]

bool_ = _np.bool_
int_ = _np.int64
uint = _np.uint64
float_ = double = _np.float64
single = _np.float32
cdouble = complex_ = _np.complex128
csingle = _np.complex64
float16 = _np.float16
dtype = _np.dtype
generic, number, integer = _np.generic, _np.number, _np.integer
signedinteger, unsignedinteger = _np.signedinteger, _np.unsignedinteger
inexact, floating, complexfloating = _np.inexact, _np.floating, _np.complexfloating
flexible, character, object_ = _np.flexible, _np.character, _np.object_
ComplexWarning = _np.exceptions.ComplexWarning
euler_gamma = 0.5772156649015329


def _to_np(d, what):
    """A numpy dtype (or abstract scalar type) for ``d``: a numpy dtype or
    type, a dtype name, a Python type, an array, or another backend's dtype
    (array_api_strict's wraps a numpy one)."""
    if isinstance(d, type) and issubclass(d, _np.generic):
        return d
    inner = getattr(d, "_np_dtype", None)          # array_api_strict's DType
    if inner is not None:
        return _np.dtype(inner)
    if hasattr(d, "dtype") and not isinstance(d, (type, _np.dtype)):
        return _to_np(d.dtype, what)
    try:
        return _np.dtype(d)
    except TypeError:
        raise TypeError(f"{what}: expected a dtype, a dtype name or a scalar type, "
                        f"got {d!r}") from None


def issubdtype(arg1, arg2):
    """Whether ``arg1`` is a sub-dtype of ``arg2`` in numpy's scalar type
    hierarchy (``issubdtype(float32, floating)``)."""
    return bool(_np.issubdtype(_to_np(arg1, "issubdtype: arg1"), _to_np(arg2, "issubdtype: arg2")))


def _rank(d):
    return {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}[d.kind]


def promote_types(a, b):
    """The dtype a binary operation on ``a`` and ``b`` computes in, by JAX's
    type promotion lattice with x64 enabled: any float wins over any integer
    (``int64`` and ``float16`` give ``float16``), ``uint64`` with a signed
    integer gives ``float64``, a float with a complex gives the complex type
    wide enough for both."""
    x, y = (_np.dtype(_to_np(t, "promote_types")) for t in (a, b))
    for t, name in ((x, "a"), (y, "b")):
        if t.kind not in "buifc":
            raise TypeError(f"promote_types: {name} must be a boolean or numeric dtype, got {t}")
    if x == y:
        return x
    if _rank(x) != _rank(y):
        hi, lo = (x, y) if _rank(x) > _rank(y) else (y, x)
        if hi.kind == "c" and lo.kind == "f":
            return _np.dtype(f"complex{max(hi.itemsize, 2 * lo.itemsize) * 8}")
        return hi
    if x.kind == "f" or x.kind == "c" or x.kind == y.kind:
        return x if x.itemsize >= y.itemsize else y
    s, u = (x, y) if x.kind == "i" else (y, x)      # one signed, one unsigned
    if s.itemsize > u.itemsize:
        return s
    if u.itemsize == 8:
        return _np.dtype(_np.float64)
    return _np.dtype(f"int{u.itemsize * 16}")


def iterable(y):
    """Whether ``iter(y)`` works (``False`` for 0-d arrays and scalars)."""
    if getattr(y, "ndim", None) == 0:
        return False
    try:
        iter(y)
    except TypeError:
        return False
    return True


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    """A 1-d array of the bytes of ``buffer`` read as ``dtype`` (a copy: the
    buffer is never shared)."""
    return _asarray(_np.array(_np.frombuffer(buffer, dtype=_to_np(dtype, "frombuffer: dtype"),
                                             count=count, offset=offset)))


def fromstring(string, dtype=float, count=-1, *, sep):
    """A 1-d array of the numbers in the text ``string``, separated by ``sep``."""
    return _asarray(_np.fromstring(string, dtype=_to_np(dtype, "fromstring: dtype"), count=count,
                                   sep=sep))


def fromiter(iterable, dtype, count=-1):
    """A 1-d array of the values an iterable yields. NB: jax.numpy raises
    here (an iterable may have side effects under ``jit``); xgrad has no
    ``jit``, so it reads the iterable as numpy does."""
    return _asarray(_np.fromiter(iterable, dtype=_to_np(dtype, "fromiter: dtype"), count=count))
