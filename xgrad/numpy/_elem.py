"""jax.numpy's elementwise math, comparisons, products, polynomials and
window functions beyond the array API standard.

Every function here is a composite of ``xgrad.numpy`` functions, so it works
on plain arrays and traced values alike, and derivatives and batching come
from rows that exist already. Derivatives follow JAX where JAX fixes a value
at a kink (``fmax``/``fmin`` ties go to the second argument; ``sinc`` at 0 is
the Maclaurin series, so its second derivative there is ``-pi**2/3``; ``i0``
has derivative ``i1``), with the exceptions marked NB. Data-dependent shapes
(``trim_leading_zeros``, ``roots`` with ``strip_zeros``) are read from the
concrete value underneath (the eager model).

To add a function: write it here as a composite and list it in ``__all__``.
"""
from __future__ import annotations

import math as _math
import numbers as _numbers
import operator as _operator

from ..core import Tracer as _Tracer, concrete as _concrete
from ..backends import (SCALAR_TYPES as _SCALAR_TYPES, backend_of as _backend_of,
                        dtype_in as _dtype_in, is_complex as _is_complex,
                        is_inexact as _is_inexact)
from .. import numpy as _xnp
from ..rules.elementwise import float_dtype as _float_dtype
from . import special as _special

__all__ = ["angle", "around", "rint", "cbrt", "deg2rad", "degrees", "rad2deg", "radians",
           "divmod", "exp2", "fabs", "float_power", "fmax", "fmin", "fmod", "frexp", "gcd",
           "lcm", "heaviside", "i0", "ldexp", "logaddexp2", "modf", "nan_to_num", "sinc",
           "spacing", "isclose", "allclose", "array_equal", "array_equiv", "iscomplex",
           "iscomplexobj", "isneginf", "isposinf", "isreal", "isrealobj", "isscalar", "cross",
           "vdot", "poly", "polyadd", "polyder", "polydiv", "polyfit", "polyint", "polymul",
           "polysub", "polyval", "roots", "bartlett", "blackman", "hamming", "hanning", "kaiser",
           "bitwise_count", "euler_gamma"]

euler_gamma = 0.5772156649015329

_LN2 = _math.log(2.0)


# --------------------------------------------------------------------------
# helpers: arrays, promotion, constants

def _arr(x):
    """``x`` as an array (Python scalars and lists become arrays of the
    default backend); arrays and traced values pass through."""
    if isinstance(x, _Tracer) or _xnp._is_array(x):
        return x
    return _xnp.asarray(x)


def _is_int(x):
    return not _is_inexact(x.dtype) and not _xnp.isdtype(x.dtype, "bool")


def _float(x):
    """``x`` with an inexact dtype (integer and boolean arrays become the
    float dtype of the functions of floats, ``float_dtype``: float32 for
    booleans and 8- and 16-bit integers, as in JAX, float64 for wider ones;
    Python numbers become floats)."""
    if type(x) in _SCALAR_TYPES:
        return x if isinstance(x, (float, complex)) else float(x)
    if _is_inexact(x.dtype):
        return x
    return _xnp.astype(x, _float_dtype(_backend_of(x), x.dtype))


def _float_arr(x):
    return _float(_arr(x))


def _both(x1, x2, inexact=False):
    """Two operands ready for a binary op: arrays unless one is a Python
    scalar beside an array (a weak scalar takes the array's dtype); inexact
    when asked, or when the other one is (so no op mixes integer and float
    arrays, which the standard leaves undefined)."""
    s1, s2 = type(x1) in _SCALAR_TYPES, type(x2) in _SCALAR_TYPES
    if s1 and s2:
        x1, x2, s1, s2 = _xnp.asarray(x1), _xnp.asarray(x2), False, False
    else:
        x1, x2 = _arr(x1) if not s1 else x1, _arr(x2) if not s2 else x2
    if inexact:
        return _float(x1), _float(x2)
    f1 = isinstance(x1, (float, complex)) or not s1 and _is_inexact(x1.dtype)
    f2 = isinstance(x2, (float, complex)) or not s2 and _is_inexact(x2.dtype)
    if f1 and not f2:
        x2 = _float(x2)
    elif f2 and not f1:
        x1 = _float(x1)
    return x1, x2


def _const(ref, values, dtype=None):
    """A plain array of ``values`` on the backend and device of ``ref``."""
    xp = _backend_of(ref)
    return xp.asarray(values, dtype=ref.dtype if dtype is None else dtype,
                      device=_xnp._device_of(ref))


def _zeros(ref, n):
    return _xnp._zeros_as(ref, (n,))


def _pad_front(p, n):
    """``p`` with zeros in front, to length ``n``."""
    k = n - p.shape[0]
    return _xnp.concat([_zeros(p, k), p]) if k > 0 else p


def _concrete_or(x, fname, what):
    try:
        return _concrete(x)
    except TypeError as e:
        raise TypeError(f"{fname}: {what} depends on the values, and a value inside vmap "
                        f"has one value per example; call {fname} outside vmap") from e


# --------------------------------------------------------------------------
# elementwise math

def angle(z, deg=False):
    """The argument of complex ``z`` (``atan2(imag, real)``), in radians or
    degrees. Real inputs give 0 or pi (derivative 0)."""
    z = _arr(z)
    if _is_complex(z.dtype):
        re, im = _xnp.real(z), _xnp.imag(z)
    else:
        re = z
        if not _is_inexact(z.dtype) or _xnp._ndim(z) == 0:
            re = _xnp.astype(z, _dtype_in(_backend_of(z), "float64"))
        im = _xnp._zeros_like(re)
    out = _xnp.atan2(im, re)
    return degrees(out) if deg else out


def around(a, decimals=0, out=None):
    """Round to ``decimals`` decimal places, halves to even (``jax.numpy.round``).
    Derivative 0."""
    a = _arr(a)
    decimals = _operator.index(decimals)
    if out is not None:
        raise NotImplementedError("around: the 'out' argument is not supported")
    if _is_int(a):
        if decimals < 0:
            raise NotImplementedError("around: integer rounding with decimals < 0 is not "
                                      "implemented")
        return a
    if decimals > _math.log10(_xnp.finfo(a.dtype).max):
        return a
    if decimals == 0:
        return _xnp.round(a)
    factor = 10 ** decimals
    return _xnp.round(a * factor) / factor


def rint(x, /):
    """Round to the nearest integer, halves to even; integer and boolean
    inputs become float64 (as JAX). Derivative 0."""
    x = _arr(x)
    if not _is_inexact(x.dtype):
        return _xnp.astype(x, _dtype_in(_backend_of(x), "float64"))
    return _xnp.round(x)


def cbrt(x, /):
    """The real cube root, ``x**(1/3)`` and ``-(-x)**(1/3)`` for negative
    ``x`` (-0 included). Its derivative is ``1 / (3 cbrt(x)**2)``, infinite at
    0, as JAX's (``sign(x) |x|**(1/3)`` would give ``sign(0) = 0`` there)."""
    x = _float_arr(x)
    if _is_complex(x.dtype):
        raise TypeError("cbrt: complex inputs are not supported; use x ** (1 / 3)")
    neg = _xnp.signbit(x)
    return _xnp.where(neg, -_xnp.pow(-x, 1.0 / 3.0), _xnp.pow(x, 1.0 / 3.0))


def deg2rad(x, /):
    """Degrees to radians."""
    return _float_arr(x) * (_math.pi / 180)


def rad2deg(x, /):
    """Radians to degrees."""
    return _float_arr(x) * (180 / _math.pi)


def degrees(x, /):
    """Radians to degrees (``rad2deg``)."""
    return rad2deg(x)


def radians(x, /):
    """Degrees to radians (``deg2rad``)."""
    return deg2rad(x)


def divmod(x1, x2, /):  # noqa: A001
    """``(floor_divide(x1, x2), remainder(x1, x2))``: the quotient has
    derivative 0, the remainder that of ``remainder``."""
    x1, x2 = _both(x1, x2)
    return _xnp.floor_divide(x1, x2), _xnp.remainder(x1, x2)


def exp2(x, /):
    """``2 ** x``."""
    return _xnp.pow(2.0, _float_arr(x))


def fabs(x, /):
    """``abs`` of a real ``x``, as a float (integers become float64).
    NB: the derivative at 0 is 0 (xgrad's ``abs``), JAX's is 1."""
    x = _arr(x)
    if _is_complex(x.dtype):
        raise TypeError("fabs: complex inputs are not supported; use abs")
    return _xnp.abs(_float(x))


def float_power(x, y, /):
    """``x ** y`` in an inexact dtype (integers become float64)."""
    x, y = _both(x, y, inexact=True)
    return _xnp.pow(x, y)


def fmax(x1, x2):
    """Elementwise maximum that ignores NaN (NaN only where both are NaN). At
    a tie the derivative goes to ``x2`` (JAX)."""
    x1, x2 = _both(x1, x2)
    return _xnp.where(_xnp.logical_or(_xnp.greater(x1, x2), _xnp.isnan(x2)), x1, x2)


def fmin(x1, x2):
    """Elementwise minimum that ignores NaN (NaN only where both are NaN). At
    a tie the derivative goes to ``x2`` (JAX)."""
    x1, x2 = _both(x1, x2)
    return _xnp.where(_xnp.logical_or(_xnp.less(x1, x2), _xnp.isnan(x2)), x1, x2)


def fmod(x1, x2, /):
    """C's ``fmod``: the remainder of ``x1 / x2`` with the sign of ``x1``,
    computed exactly as ``s1 * remainder(s1 * x1, s2 * x2)``, ``s1`` and
    ``s2`` the signs of ``x1`` and ``x2`` (-1 for -0, never 0). For integers a
    zero divisor gives 0 (JAX). Derivatives 1 and ``-trunc(x1 / x2)``, as
    JAX's, at 0 too (``sign(x1) * remainder(|x1|, |x2|)`` would give 0 at
    ``x1 == 0``, where ``fmod(x1, x2)`` is ``x1``)."""
    x1, x2 = _both(x1, x2)
    inexact = (isinstance(x1, float) or isinstance(x2, float)
               or type(x1) not in _SCALAR_TYPES and _is_inexact(x1.dtype)
               or type(x2) not in _SCALAR_TYPES and _is_inexact(x2.dtype))
    if not inexact:
        x2 = _xnp.where(x2 == 0, 1, x2)
    s1, s2 = _unit_sign(x1, inexact), _unit_sign(x2, inexact)
    return _xnp.multiply(s1, _xnp.remainder(_xnp.multiply(s1, x1), _xnp.multiply(s2, x2)))


def _unit_sign(x, inexact):
    """-1 where ``x`` is negative (-0 included), else 1, in ``x``'s dtype: a
    constant, so ``s * x`` is ``|x|`` with derivative +-1, never 0."""
    if type(x) in _SCALAR_TYPES:
        return -1 if _math.copysign(1.0, x) < 0 else 1
    one = _xnp.ones_like(x)
    return _xnp.where(_xnp.signbit(x) if inexact else x < 0, -one, one)


def frexp(x, /):
    """``(m, e)`` with ``x = m * 2**e``, ``0.5 <= |m| < 1`` (``m = x`` and
    ``e = 0`` at 0, inf and NaN); ``e`` is int32. Derivative of ``m``: ``2**-e``."""
    x = _float_arr(x)
    if _is_complex(x.dtype):
        raise TypeError("frexp: complex inputs are not supported")
    ok = _xnp.logical_and(_xnp.isfinite(x), x != 0)
    ax = _xnp.where(ok, _xnp.abs(x), 1.0)
    e = _xnp.floor(_xnp.log2(ax)) + 1.0
    m = _scale2(_xnp.where(ok, x, 1.0), -e)
    # log2 may round across a power of two: one step of correction
    am = _xnp.abs(m)
    up, down = am >= 1.0, am < 0.5
    m = _xnp.where(up, m * 0.5, _xnp.where(down, m * 2.0, m))
    e = _xnp.where(up, e + 1.0, _xnp.where(down, e - 1.0, e))
    m = _xnp.where(ok, m, x)
    e = _xnp.where(ok, e, 0.0)
    return m, _xnp.astype(e, _dtype_in(_backend_of(e), "int32"))


def _scale2(x, k):
    """``x * 2**k`` for a float array of integers ``k``, in two exact steps
    (``2**k`` alone overflows for ``|k| > 1023``)."""
    h = _xnp.floor(k * 0.5)
    return x * _xnp.pow(2.0, h) * _xnp.pow(2.0, k - h)


def ldexp(x1, x2, /):
    """``x1 * 2**x2`` for an integer ``x2`` (exact; overflow to inf and
    underflow to 0 as the float format does). Derivative in ``x1``: ``2**x2``
    (NB: at the extremes too, where JAX's is NaN or 0)."""
    x1, x2 = _arr(x1), _arr(x2)
    if _is_complex(x1.dtype) or _is_inexact(x2.dtype):
        raise ValueError(f"ldexp: x1 must be real and x2 an integer array; got {x1.dtype} "
                         f"and {x2.dtype}")
    x1 = _float(x1)
    k2 = _xnp.astype(x2, x1.dtype)
    # where 2**x2 is a float, x1 * 2**x2 is exact up to one rounding, ldexp's,
    # and its derivative 2**x2 comes out as one number (through frexp's
    # 2**-e * 2**k, reverse mode multiplied 2**1024 before 2**-1024: inf)
    fi = _xnp.finfo(x1.dtype)
    lo, hi = _math.log2(fi.smallest_normal * fi.eps), _math.floor(_math.log2(fi.max))
    direct = _xnp.logical_and(k2 >= lo, k2 <= hi)
    m, e = frexp(x1)
    k = _xnp.astype(e, x1.dtype) + k2
    out = _xnp.where(direct, x1 * _xnp.pow(2.0, _xnp.where(direct, k2, 0.0)), _scale2(m, k))
    return _xnp.where(_xnp.logical_or(_xnp.isinf(x1), x1 == 0), x1, out)


def gcd(x1, x2):
    """Greatest common divisor of integers (non-negative; ``gcd(0, 0) = 0``)."""
    x1, x2 = _both(_arr(x1), _arr(x2))
    if not (_is_int(x1) and _is_int(x2)):
        raise ValueError(f"gcd: arguments must be integer arrays; got {x1.dtype} and {x2.dtype}")
    a, b = _xnp.broadcast_arrays(_xnp.abs(x1), _xnp.abs(x2))
    # Euclid's algorithm: at most 92 steps for 64-bit integers (Fibonacci);
    # eagerly it stops once every entry is done
    for _ in range(96):
        nz = b != 0
        try:
            if not bool(_concrete(_xnp.any(nz))):
                break
        except TypeError:                 # under vmap: the fixed bound
            pass
        a, b = _xnp.where(nz, b, a), _xnp.where(nz, _xnp.remainder(a, _xnp.where(nz, b, 1)), 0)
        swap = a < b
        a, b = _xnp.where(swap, b, a), _xnp.where(swap, a, b)
    return a


def lcm(x1, x2):
    """Least common multiple of integers (non-negative; 0 if either is 0)."""
    x1, x2 = _both(_arr(x1), _arr(x2))
    if not (_is_int(x1) and _is_int(x2)):
        raise ValueError(f"lcm: arguments must be integer arrays; got {x1.dtype} and {x2.dtype}")
    a, b = _xnp.abs(x1), _xnp.abs(x2)
    d = gcd(a, b)
    zero = d == 0
    return _xnp.where(zero, 0, _xnp.multiply(a, _xnp.floor_divide(b, _xnp.where(zero, 1, d))))


def heaviside(x1, x2, /):
    """0 for ``x1 < 0``, 1 for ``x1 > 0``, ``x2`` at 0 (NaN stays NaN). The
    derivative in ``x1`` is 0; in ``x2`` it is 1 where ``x1 == 0``."""
    x1, x2 = _both(x1, x2, inexact=True)
    x1 = _arr(x1)
    inner = _xnp.where(_xnp.isnan(x1), x1, x2)
    return _xnp.where(x1 < 0, 0.0, _xnp.where(x1 > 0, 1.0, inner))


def i0(x):
    """Modified Bessel function of the first kind, order 0; its derivative
    is ``i1`` (``xgrad.numpy.special.i1``). NB: JAX's rule gives a second
    derivative of 0 at exactly ``x == 0``; here it is ``i1'(0) = 1/2``; and
    at ``+-1e308`` the derivative is ``i1 = +-inf`` (JAX: NaN)."""
    x = _float_arr(x)
    if _is_complex(x.dtype):
        raise ValueError(f"i0: complex inputs are not supported; got {x.dtype}")
    return _special.i0(x)


def logaddexp2(x1, x2, /, out=None, where=None):
    """``log2(2**x1 + 2**x2)`` without overflow (``out`` and ``where`` must
    be None, as in JAX)."""
    if out is not None or where is not None:
        raise NotImplementedError("logaddexp2: the out and where arguments are not supported "
                                  "(as in JAX)")
    x1, x2 = _both(x1, x2, inexact=True)
    return _xnp.logaddexp(x1 * _LN2, x2 * _LN2) / _LN2


def modf(x, /, out=None):
    """``(fractional part, integral part)``, both with the sign of ``x``."""
    if out is not None:
        raise NotImplementedError("modf: the 'out' argument is not supported")
    x = _float_arr(x)
    whole = _xnp.where(x >= 0, _xnp.floor(x), _xnp.ceil(x))
    return x - whole, whole


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN to ``nan``, +-inf to ``posinf``/``neginf`` (the largest finite
    values by default); real and imaginary parts separately. Derivative 1
    where ``x`` is finite, 0 elsewhere."""
    x = _arr(x)
    if not _is_inexact(x.dtype):
        return x
    if _is_complex(x.dtype):
        re = nan_to_num(_xnp.real(x), nan=nan, posinf=posinf, neginf=neginf)
        im = nan_to_num(_xnp.imag(x), nan=nan, posinf=posinf, neginf=neginf)
        return re + im * 1j
    fi = _xnp.finfo(x.dtype)
    posinf = fi.max if posinf is None else posinf
    neginf = fi.min if neginf is None else neginf
    out = _xnp.where(_xnp.isnan(x), nan, x)
    out = _xnp.where(isposinf(out), posinf, out)
    return _xnp.where(isneginf(out), neginf, out)


# sin(y)/y near 0: its Maclaurin series through y**10, used at exactly x == 0
# so that derivatives there are the series' (JAX: sinc'' (0) = -pi**2/3)
_SINC_SERIES = tuple((-1) ** k / _math.factorial(2 * k + 1) for k in range(6))


def sinc(x, /):
    """``sin(pi x) / (pi x)``, 1 at 0, smooth there to any order (the
    derivatives at 0 are those of the Maclaurin series, as JAX's). NB: at
    ``x = +-2.2e-308`` the derivative is about 0 (JAX's is -+inf, from an
    underflowed ``pi x**2``)."""
    x = _float_arr(x)
    zero = x == 0
    y = _math.pi * x
    safe = _xnp.where(zero, 1.0, y)
    y2 = y * y
    series = _SINC_SERIES[-1]
    for c in _SINC_SERIES[-2::-1]:
        series = series * y2 + c
    return _xnp.where(zero, series, _xnp.sin(safe) / safe)


def spacing(x, /):
    """The distance from ``x`` to the next float away from 0 (no
    derivative: JAX has none)."""
    x = _float_arr(x)
    if _is_complex(x.dtype):
        raise ValueError("spacing: not defined for complex inputs")
    away = _xnp.copysign(_xnp.full_like(x, _math.inf), x)
    out = _xnp.nextafter(x, away) - x
    fi = _xnp.finfo(x.dtype)
    tiny = fi.smallest_normal * fi.eps          # the smallest subnormal
    return _xnp.where(out == 0, _xnp.copysign(_xnp.full_like(x, tiny), x), out)


def bitwise_count(x, /):
    """The number of 1 bits in ``|x|``, as uint8."""
    x = _arr(x)
    if _is_inexact(x.dtype):
        raise TypeError(f"bitwise_count: an integer array is expected; got {x.dtype}")
    a = _xnp.abs(x) if not _xnp.isdtype(x.dtype, "bool") else _xnp.astype(
        x, _dtype_in(_backend_of(x), "uint8"))
    bits = _xnp.iinfo(a.dtype).bits
    count = _xnp.bitwise_and(a, 1)
    for k in range(1, bits):
        count = count + _xnp.bitwise_and(_xnp.bitwise_right_shift(a, k), 1)
    return _xnp.astype(count, _dtype_in(_backend_of(a), "uint8"))


# --------------------------------------------------------------------------
# comparisons and predicates (no derivative)

def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|a - b| <= atol + rtol |b|`` elementwise (equal infinities are close)."""
    a, b = _both(a, b, inexact=True)
    a, b = _arr(a), _arr(b)
    close = _xnp.abs(_xnp.subtract(a, b)) <= atol + rtol * _xnp.abs(b)
    out = _xnp.logical_or(a == b, _xnp.logical_and(_xnp.isfinite(b), close))
    if equal_nan:
        out = _xnp.logical_or(out, _xnp.logical_and(_xnp.isnan(a), _xnp.isnan(b)))
    return out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether ``isclose`` holds everywhere (a 0-d boolean array)."""
    return _xnp.all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """Same shape and equal elements (a 0-d boolean array)."""
    a1, a2 = _both(_arr(a1), _arr(a2))
    if tuple(a1.shape) != tuple(a2.shape):
        return _xnp.asarray(False)
    eq = a1 == a2
    if equal_nan:
        eq = _xnp.logical_or(eq, _xnp.logical_and(_xnp.isnan(a1), _xnp.isnan(a2)))
    return _xnp.all(eq)


def array_equiv(a1, a2):
    """Broadcastable and equal elements (a 0-d boolean array)."""
    a1, a2 = _both(_arr(a1), _arr(a2))
    try:
        _xnp.broadcast_shapes(tuple(a1.shape), tuple(a2.shape))
    except ValueError:
        return _xnp.asarray(False)
    return _xnp.all(a1 == a2)


def iscomplex(x):
    """Elementwise: the imaginary part is nonzero."""
    return _xnp.imag(_arr(x)) != 0


def isreal(x):
    """Elementwise: the imaginary part is zero."""
    return _xnp.imag(_arr(x)) == 0


def iscomplexobj(x):
    """Whether ``x`` has a complex dtype (a Python bool)."""
    if isinstance(x, complex):
        return True
    if x is None or isinstance(x, (bool, int, float, str)):
        return False
    dt = getattr(x, "dtype", None)
    if dt is None:
        dt = _xnp.asarray(x).dtype
    return _is_complex(dt)


def isrealobj(x):
    """Whether ``x`` has no complex dtype (a Python bool)."""
    return not iscomplexobj(x)


def isscalar(element):
    """Python and NumPy scalars, and 0-d arrays (traced or not), are scalars."""
    if isinstance(element, (_numbers.Number, str, bytes, memoryview)):
        return True
    if isinstance(element, _Tracer) or _xnp._is_array(element):
        return _xnp._ndim(element) == 0
    return False


def _isinf_sign(x, fname, inf, out):
    if out is not None:
        raise NotImplementedError(f"{fname}: the 'out' argument is not supported")
    x = _arr(x)
    if _is_complex(x.dtype):
        raise ValueError(f"{fname}: not defined for complex inputs")
    if _is_inexact(x.dtype):
        return x == inf
    return _xnp.isinf(_xnp.astype(x, _dtype_in(_backend_of(x), "float64")))


def isposinf(x, /, out=None):
    """Elementwise ``x == +inf`` (False for integers)."""
    return _isinf_sign(x, "isposinf", _math.inf, out)


def isneginf(x, /, out=None):
    """Elementwise ``x == -inf`` (False for integers)."""
    return _isinf_sign(x, "isneginf", -_math.inf, out)


# --------------------------------------------------------------------------
# products

def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 2- or 3-vectors along ``axisa``/``axisb`` (``axis``
    sets all three); two 2-vectors give the scalar z component."""
    a, b = _both(_arr(a), _arr(b))
    if axis is not None:
        axisa = axisb = axisc = axis
    a = _xnp.moveaxis(a, axisa, -1)
    b = _xnp.moveaxis(b, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError(f"cross: the vector axes must have size 2 or 3; got {a.shape[-1]} "
                         f"and {b.shape[-1]}")
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return _det2(a[..., 0], a[..., 1], b[..., 0], b[..., 1])
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    a2 = a[..., 2] if a.shape[-1] == 3 else _xnp.zeros_like(a0)
    b2 = b[..., 2] if b.shape[-1] == 3 else _xnp.zeros_like(b0)
    c = _xnp.broadcast_arrays(_det2(a1, a2, b1, b2), _det2(a2, a0, b2, b0), _det2(a0, a1, b0, b1))
    return _xnp.moveaxis(_xnp.stack(c), 0, axisc)


def _det2(p, q, r, s):
    """``p s - q r`` (functions, not operators: a plain array of a backend
    whose operators reject traced operands may come first)."""
    return _xnp.subtract(_xnp.multiply(p, s), _xnp.multiply(q, r))


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """``sum(conj(a) * b)`` over the flattened arrays (``a`` conjugated)."""
    a, b = _both(_arr(a), _arr(b))
    if preferred_element_type is not None:
        a = _xnp.astype(a, preferred_element_type)
        b = _xnp.astype(b, preferred_element_type)
    if _is_complex(a.dtype):
        a = _xnp.conj(a)
    return _xnp.dot(_xnp.reshape(a, (-1,)), _xnp.reshape(b, (-1,)))


# --------------------------------------------------------------------------
# polynomials (coefficients highest power first, as numpy.poly*)

def _promote(*xs, inexact=False):
    # Python numbers and lists become arrays of the arrays' backend
    ref = next((x for x in xs if isinstance(x, _Tracer) or _xnp._is_array(x)), None)
    xs = [x if ref is None or isinstance(x, _Tracer) or _xnp._is_array(x)
          else _backend_of(ref).asarray(x, device=_xnp._device_of(ref)) for x in xs]
    xs = [_arr(x) for x in xs]
    if inexact or _builtins_any(_is_inexact(x.dtype) for x in xs):
        xs = [_float(x) for x in xs]
    dt = _xnp.result_type(*xs)
    return [x if x.dtype == dt else _xnp.astype(x, dt) for x in xs]


def _builtins_any(it):
    for v in it:
        if v:
            return True
    return False


def _1d(p, fname, name="p"):
    if _xnp._ndim(p) != 1:
        raise ValueError(f"{fname}: {name} must be a 1-D array of coefficients; got shape "
                         f"{tuple(p.shape)}")
    return p


def polyadd(a1, a2):
    """Sum of two polynomials (the shorter padded with leading zeros)."""
    a1, a2 = _promote(a1, a2)
    n = max(a1.shape[0], a2.shape[0])
    return _xnp.add(_pad_front(a1, n), _pad_front(a2, n))


def polysub(a1, a2):
    """Difference of two polynomials."""
    a1, a2 = _promote(a1, a2)
    return polyadd(a1, -a2)


def polyder(p, m=1):
    """The ``m``-th derivative of a polynomial."""
    m = _operator.index(m)
    p = _float_arr(p)
    if m < 0:
        raise ValueError(f"polyder: the order m must be non-negative; got {m}")
    if m == 0:
        return p
    n = p.shape[0]
    coeff = [float(_math.prod(k - j for j in range(m))) for k in range(m, n)][::-1]
    return p[:n - m] * _const(p, coeff) if n > m else p[:0]


def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of a polynomial, with integration
    constants ``k`` (a scalar, or one per integration, lowest order last)."""
    m = _operator.index(m)
    p, k = _promote(p, 0 if k is None else k, inexact=True)
    if m < 0:
        raise ValueError(f"polyint: the order m must be non-negative; got {m} (see polyder)")
    if _xnp._ndim(k) == 0:
        k = _xnp.reshape(k, (1,))
    if k.shape[0] == 1:
        k = _xnp.broadcast_to(k, (m,))
    if tuple(k.shape) != (m,):
        raise ValueError(f"polyint: k must be a scalar or a 1-D array of length 1 or m={m}; "
                         f"got shape {tuple(k.shape)}")
    if m == 0:
        return p
    n = p.shape[0] + m
    coeff = [float(_math.prod(max(1, t - j) for j in range(m))) for t in range(n)][::-1]
    return _xnp.concat([p, k]) / _const(p, coeff)


def _trim_front(p, tol=None):
    """``p`` without its leading zeros (entries below ``tol`` when given);
    the count comes from the concrete value."""
    v = _concrete_or(p, "trim_leading_zeros", "the number of leading zeros")
    xp = _backend_of(v)
    small = (xp.abs(v) < tol) if tol is not None else (v == 0)
    n = int(p.shape[0])
    lead = 0
    while lead < n and bool(small[lead]):
        lead += 1
    return p[lead:]


def _convolve_full(a, b):
    """Full 1-D convolution as a product with the Toeplitz matrix of ``a``."""
    n, m = a.shape[0], b.shape[0]
    rows = n + m - 1
    idx = [[k - j for j in range(m)] for k in range(rows)]
    valid = _const(a, [[0 <= i < n for i in r] for r in idx], dtype=_dtype_in(_backend_of(a), "bool"))
    flat = _const(a, [min(max(i, 0), n - 1) for r in idx for i in r],
                  dtype=_dtype_in(_backend_of(a), "int64"))
    t = _xnp.reshape(_xnp.take(a, flat, axis=0), (rows, m))
    return _xnp.matmul(_xnp.where(valid, t, 0.0), b)


def polymul(a1, a2, *, trim_leading_zeros=False):
    """Product of two polynomials (a full convolution)."""
    a1, a2 = _promote(a1, a2, inexact=True)
    if trim_leading_zeros and (a1.shape[0] > 1 or a2.shape[0] > 1):
        a1, a2 = _trim_front(a1), _trim_front(a2)
    if a1.shape[0] == 0:
        a1 = _zeros(a2, 1)
    if a2.shape[0] == 0:
        a2 = _zeros(a1, 1)
    return _convolve_full(a1, a2)


def polydiv(u, v, *, trim_leading_zeros=False):
    """Quotient and remainder of polynomial division ``u / v``."""
    u, v = _promote(u, v, inexact=True)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = 1.0 / v[0]
    q = []
    for k in range(m - n + 1):
        d = _xnp.multiply(scale, u[k])
        q.append(d)
        shifted = _xnp.concat([_zeros(v, k), v, _zeros(v, m - n - k)]) if m > n else v
        u = _xnp.subtract(u, _xnp.multiply(d, shifted))
    q = _xnp.stack(q) if q else _zeros(u, 1)
    if trim_leading_zeros:
        u = _trim_front(u, tol=_math.sqrt(_xnp.finfo(u.dtype).eps))
    return q, u


def polyval(p, x, *, unroll=16):
    """Polynomial ``p`` at ``x`` (Horner's rule); a 2-D ``p`` holds one
    polynomial per trailing index, broadcast against ``x``."""
    p, x = _promote(p, x)
    shape = _xnp.broadcast_shapes(tuple(p.shape[1:]), tuple(x.shape))
    y = _xnp._zeros_as(x, shape)
    for i in range(p.shape[0]):
        y = _xnp.add(_xnp.multiply(y, x), p[i, ...])
    return y


def poly(seq_of_zeros):
    """Coefficients of the monic polynomial with the given roots (for a
    square matrix: its characteristic polynomial, via its eigenvalues)."""
    z = _float_arr(seq_of_zeros)
    if _xnp._ndim(z) == 0:
        z = _xnp.reshape(z, (1,))
    sh = tuple(z.shape)
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        z = _eigvals(z, "poly")
    if _xnp._ndim(z) != 1:
        raise ValueError(f"poly: input must be 1-D or a non-empty square 2-D array; got shape {sh}")
    one = _const(z, [1.0])
    if z.shape[0] == 0:
        return _xnp.reshape(one, ())
    a = one
    for k in range(z.shape[0]):
        a = _xnp.subtract(_xnp.concat([a, _zeros(a, 1)]),
                          _xnp.multiply(z[k], _xnp.concat([_zeros(a, 1), a])))
    return a


def _eigvals(a, fname):
    """Eigenvalues of a square matrix: ``linalg.eigvals`` where xgrad has
    it, else the backend's on the concrete value (numpy; no derivative)."""
    ev = getattr(_xnp.linalg, "eigvals", None)
    if ev is not None:
        return ev(a)
    v = _concrete_or(a, fname, "the eigenvalues")
    xp = _backend_of(v)
    lin = getattr(xp, "linalg", None)
    if lin is None or not hasattr(lin, "eigvals"):
        raise NotImplementedError(f"{fname}: needs the eigenvalues of a general matrix, and "
                                  f"{getattr(xp, '__name__', xp)} has no linalg.eigvals; "
                                  f"use numpy arrays")
    out = lin.eigvals(v)
    cdt = _dtype_in(xp, "complex64" if str(v.dtype).endswith("float32") else "complex128")
    return xp.astype(out, cdt) if out.dtype != cdt else out


def roots(p, *, strip_zeros=True):
    """Roots of a polynomial: the eigenvalues of its companion matrix
    (complex). NB: computed from the concrete values with the backend's
    ``linalg.eigvals`` (numpy) until ``xgrad.numpy.linalg`` has ``eigvals``;
    no derivative until then."""
    p = _float_arr(p)
    if _xnp._ndim(p) == 0:
        p = _xnp.reshape(p, (1,))
    if _xnp._ndim(p) != 1:
        raise ValueError(f"roots: p must be a 1-D array; got shape {tuple(p.shape)}")
    cdt = "complex64" if str(p.dtype).endswith("float32") or str(p.dtype).endswith(
        "complex64") else "complex128"
    if p.shape[0] < 2:
        return _backend_of(p).zeros((0,), dtype=_dtype_in(_backend_of(p), cdt))
    if strip_zeros:
        return _roots_no_zeros(_trim_front(p), cdt)
    lead = p.shape[0] - _trim_front(p).shape[0]
    n = p.shape[0]
    if lead == n:
        p = _xnp.ones_like(p)
    out = _roots_no_zeros(_xnp.roll(p, -lead), cdt)
    # zero roots last (stable), then NaN for the roots lost to leading zeros
    nz = _xnp.argsort(_xnp.astype(out == 0, _dtype_in(_backend_of(out), "int8")), stable=True)
    out = _xnp.take(out, nz, axis=0)
    keep = _const(out, [i < n - 1 - lead for i in range(n - 1)],
                  dtype=_dtype_in(_backend_of(out), "bool"))
    return _xnp.where(keep, out, complex(_math.nan, _math.nan))


def _roots_no_zeros(p, cdt):
    n = p.shape[0]
    xp = _backend_of(p)
    if n < 2:
        return xp.zeros((0,), dtype=_dtype_in(xp, cdt))
    sub = _xnp.astype(_const(p, [[float(i == j + 1) for j in range(n - 1)] for i in range(1, n - 1)]),
                      p.dtype) if n > 2 else None
    top = _xnp.reshape(-p[1:] / p[0], (1, n - 1))
    a = top if sub is None else _xnp.concat([top, sub], axis=0)
    out = _eigvals(a, "roots")
    return out if str(out.dtype).endswith(cdt) else _xnp.astype(out, _dtype_in(xp, cdt))


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares polynomial fit of degree ``deg`` (coefficients highest
    power first), as JAX: column-scaled Vandermonde matrix, solved through
    its SVD with singular values below ``rcond * s_max`` dropped.

    Args:
      x: 1-D sample points.
      y: 1-D values, or 2-D (one fit per column).
      deg: the degree.
      rcond: relative cutoff for small singular values (default
        ``len(x) * eps``).
      full: also return the residuals, rank, singular values and rcond.
      w: optional 1-D weights applied to the residuals.
      cov: also return the covariance of the coefficients (``"unscaled"``:
        without the residual factor).

    Returns:
      The coefficients, or a tuple as numpy's (``full`` or ``cov``).
    """
    x, y = _promote(x, y, inexact=True)
    deg = _operator.index(deg)
    order = deg + 1
    if deg < 0:
        raise ValueError(f"polyfit: deg must be non-negative; got {deg}")
    if _xnp._ndim(x) != 1 or x.shape[0] == 0:
        raise TypeError(f"polyfit: x must be a non-empty 1-D array; got shape {tuple(x.shape)}")
    if _xnp._ndim(y) not in (1, 2):
        raise TypeError(f"polyfit: y must be a 1-D or 2-D array; got shape {tuple(y.shape)}")
    if x.shape[0] != y.shape[0]:
        raise TypeError(f"polyfit: x and y must have the same length; got {x.shape[0]} and "
                        f"{y.shape[0]}")
    if rcond is None:
        rcond = x.shape[0] * float(_xnp.finfo(x.dtype).eps)
    rcond = float(rcond)
    powers = _const(x, [float(order - 1 - i) for i in range(order)])
    lhs = _xnp.pow(_xnp.reshape(x, (-1, 1)), powers)
    rhs = y
    if w is not None:
        w, = _promote(w, inexact=True)
        if _xnp._ndim(w) != 1 or w.shape[0] != y.shape[0]:
            raise TypeError(f"polyfit: w must be a 1-D array of length {y.shape[0]}; got shape "
                            f"{tuple(w.shape)}")
        lhs = _xnp.multiply(lhs, _xnp.reshape(w, (-1, 1)))
        rhs = _xnp.multiply(rhs, _xnp.reshape(w, (-1, 1)) if _xnp._ndim(rhs) == 2 else w)
    scale = _xnp.sqrt(_xnp.sum(lhs * lhs, axis=0))
    lhs = _xnp.divide(lhs, scale)
    c, resids, rank, s = _lstsq(lhs, rhs, rcond)
    c = _xnp.divide(c, _xnp.reshape(scale, (-1, 1)) if _xnp._ndim(c) == 2 else scale)
    if full:
        return c, resids, rank, s, _const(s, rcond)
    if cov:
        base = _xnp.linalg.inv(_xnp.matmul(_xnp.matrix_transpose(lhs), lhs))
        base = _xnp.divide(base, _xnp.outer(scale, scale))
        if cov == "unscaled":
            fac = _const(base, 1.0)
        else:
            if x.shape[0] <= order:
                raise ValueError("polyfit: the number of data points must exceed order to "
                                 "scale the covariance matrix")
            fac = resids / (x.shape[0] - order)
        if _xnp._ndim(y) == 1:
            return c, _xnp.multiply(base, _xnp.reshape(fac, (1, 1)))
        return c, _xnp.multiply(_xnp.expand_dims(base, axis=-1), _xnp.reshape(fac, (1, 1, -1)))
    return c


def _lstsq(a, b, rcond):
    """Minimum-norm least squares through the thin SVD (JAX's lstsq):
    ``(x, residuals, rank, s)``."""
    one = _xnp._ndim(b) == 1
    if one:
        b = _xnp.reshape(b, (-1, 1))
    u, s, vt = _xnp.linalg.svd(a, full_matrices=False)
    mask = _xnp.logical_and(s > 0, s >= rcond * s[0])
    rank = _xnp.sum(_xnp.astype(mask, _dtype_in(_backend_of(mask), "int64")))
    safe = _xnp.where(mask, s, 1.0)
    s_inv = _xnp.reshape(_xnp.where(mask, 1.0 / safe, 0.0), (-1, 1))
    utb = _xnp.matmul(_xnp.matrix_transpose(_xnp.conj(u)), b)
    sol = _xnp.matmul(_xnp.matrix_transpose(_xnp.conj(vt)), _xnp.multiply(s_inv, utb))
    r = _xnp.subtract(b, _xnp.matmul(a, sol))
    resid = _xnp.sum(_xnp.real(r * _xnp.conj(r)), axis=0)
    if one:
        sol = _xnp.reshape(sol, (-1,))
    return sol, resid, rank, s


# --------------------------------------------------------------------------
# window functions (float64 arrays of the default backend)

def _window(M, fname, xp=None):
    M = _operator.index(M)
    if M < 0:
        raise ValueError(f"{fname}: M must be non-negative; got {M}")
    xp = _xnp._np if xp is None else xp
    if M <= 1:
        return M, xp.ones((M,), dtype=xp.float64)
    return M, xp.arange(M, dtype=xp.float64)


def bartlett(M):
    """The triangular (Bartlett) window of ``M`` points."""
    M, n = _window(M, "bartlett")
    return n if M <= 1 else 1 - _xnp.abs(2 * n + 1 - M) / (M - 1)


def blackman(M):
    """The Blackman window of ``M`` points."""
    M, n = _window(M, "blackman")
    if M <= 1:
        return n
    return (0.42 - 0.5 * _xnp.cos(2 * _math.pi * n / (M - 1))
            + 0.08 * _xnp.cos(4 * _math.pi * n / (M - 1)))


def hamming(M):
    """The Hamming window of ``M`` points."""
    M, n = _window(M, "hamming")
    return n if M <= 1 else 0.54 - 0.46 * _xnp.cos(2 * _math.pi * n / (M - 1))


def hanning(M):
    """The Hann window of ``M`` points."""
    M, n = _window(M, "hanning")
    return n if M <= 1 else 0.5 * (1 - _xnp.cos(2 * _math.pi * n / (M - 1)))


def kaiser(M, beta):
    """The Kaiser window of ``M`` points, ``i0(beta sqrt(1 - t**2)) / i0(beta)``;
    differentiable in ``beta``."""
    beta = _float(beta)
    M, n = _window(M, "kaiser", None if type(beta) in _SCALAR_TYPES else _backend_of(beta))
    if M <= 1:
        return n
    alpha = 0.5 * (M - 1)
    t = (n - alpha) / alpha
    return i0(beta * _xnp.sqrt(1 - t ** 2)) / i0(beta)
