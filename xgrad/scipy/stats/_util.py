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
    booleans count only then); Python scalars stay weak (they take that
    dtype in arithmetic) but become 0-d arrays of the first array's
    backend, so no formula mixes backends. When every argument is a Python
    scalar they become float64 arrays of the default backend."""
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
    out = []
    for a in args:
        if _is_array(a):
            if a.dtype != dt:
                a = _xnp.astype(a, dt)
        else:
            a = xp.asarray(float(a), dtype=dt, device=dev)
        out.append(a)
    return tuple(out)
