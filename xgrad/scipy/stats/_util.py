"""Helpers shared by the distribution modules (private)."""
import math as _math

from ...core import Tracer as _Tracer
from ...backends import backend_of as _backend_of, dtype_in as _dtype_in
from ... import numpy as _xnp

inf = _math.inf
nan = _math.nan


def _is_array(a):
    return isinstance(a, _Tracer) or hasattr(a, "__array_namespace__") or hasattr(a, "dtype")


def _is_inexact(dt):
    return _xnp.isdtype(dt, ("real floating", "complex floating"))


def promote(name, *args):
    """JAX's ``promote_args_inexact``: the array arguments cast to their
    common inexact dtype (float64 when none is inexact; integers and
    booleans count only then); Python scalars are weak (they take that
    dtype) and become 0-d arrays of the first array's backend, so no
    formula mixes backends. When every argument is a Python scalar they
    become float64 arrays of the default backend.

    NB for the formulas: array_api_strict's operators reject a traced right
    operand, so an expression whose left side may be a plain array and right
    side traced is written with xgrad functions (``_n.subtract(loc, x)``)."""
    arrs = []
    for i, a in enumerate(args):
        if _is_array(a):
            arrs.append(a)
        elif type(a) not in (bool, int, float):
            raise TypeError(f"{name}: argument {i} must be an array or a Python scalar, "
                            f"got {type(a).__name__}")
    if not arrs:
        return tuple(_xnp.asarray(float(a), dtype=_xnp.float64) for a in args)
    inexact = [a.dtype for a in arrs if _is_inexact(a.dtype)]
    dt = _xnp.result_type(*inexact) if inexact else _dtype_in(_backend_of(arrs[0]), "float64")
    xp, dev = _backend_of(arrs[0]), _xnp._device_of(arrs[0])
    return tuple((a if a.dtype == dt else _xnp.astype(a, dt)) if _is_array(a)
                 else xp.asarray(float(a), dtype=dt, device=dev) for a in args)


def log(s):
    """``log(s)`` of an array, or of a Python float (kept a Python float, so
    it mixes with arrays of any backend)."""
    if type(s) is float:
        return _math.log(s) if s > 0 else (-inf if s == 0 else nan)
    return _xnp.log(s)


def pf(f, *args):
    """``f(*args)``, kept a Python float when every argument is one (a
    parameter passed as a Python scalar then mixes with arrays of any
    backend, as the weak scalar it is)."""
    if all(type(a) is float for a in args):
        return float(f(*[_xnp.asarray(a, dtype=_xnp.float64) for a in args]))
    return f(*args)
