"""Elementwise primitives: unary math, binary arithmetic, comparisons.

Derivatives at kinks follow JAX so the oracle tests can compare:
``maximum``/``minimum`` split ties 0.5/0.5, ``sqrt'(0) = inf``,
``pow(x, y)``: d/dx is 0 where y == 0, d/dy uses log(1) where x == 0.
NB: ``abs'(0) = 0`` (sign(0), the minimum-norm subgradient, as PyTorch and
autograd); JAX's rule is ``select(x >= 0, g, -g)``, which gives 1. The same
choice makes ``copysign``'s d/dx 0 at x = 0 and ``hypot``'s gradient 0 at the
origin (JAX: 0.5 per argument, from its max/min formula).
Binary primitives broadcast; the engine sums cotangents back to each input.

A function of floats (``sin``, ``divide``, ``atan2``, ...) computes an
integer or boolean input in ``float_dtype``'s dtype: float32 for booleans and
8- and 16-bit integers (JAX's; numpy's float16 would round ``sin(True)`` to
0.8413), float64 for 32- and 64-bit integers (numpy's; NB: JAX's float32 for
int32 rounds the integers above 2**24). Its impl checks the result's dtype
only (``_F16``, and ``_F64`` for ``divide``), so a float input costs one
attribute read; the rare result goes through ``_again``.

Every row here is of the elementwise family (``defprim`` below is the
table's with ``family="elementwise"``, which also gives the rows their
batching rule) and, unless it says ``export=False``, is exported by
``xgrad.numpy`` as the array API function of its name.
"""
from __future__ import annotations

import functools
import math

from . import defprim as _defprim
from .. import core as _core
from .. import numpy as xnp
from ..backends import (backend_of, default_namespace, is_complex, is_inexact,
                        type_namespaces as _type_namespaces)

defprim = functools.partial(_defprim, family="elementwise", export=True)

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_SCALARS = (int, float, complex, bool)


def _mul(a, b):
    return xnp.multiply(a, b)


def _div(a, b):
    return xnp.divide(a, b)


def _log(x):
    return math.log(x) if type(x) in _SCALARS else xnp.log(x)


def _int_operands(x, y):
    """Whether a binary op of ``x`` and ``y`` is one of integers (or booleans)
    (a float operand answers at its first look: numpy's ``dtype.kind``)."""
    return not (_float_operand(x) or _float_operand(y))


def _float_operand(a):
    t = type(a)
    if t in _SCALARS:
        return t is float or t is complex
    kind = getattr(a.dtype, "kind", None)
    return kind in ("f", "c") if kind is not None else is_inexact(a.dtype)


def _bools_as_int32(xp, x, y):
    """``(x, y)`` as int32 arrays where both are boolean arrays (JAX's
    arithmetic on two booleans gives int32, numpy's int8), else None."""
    if (type(x) not in _SCALARS and type(y) not in _SCALARS
            and x.dtype == xp.bool and y.dtype == xp.bool):
        return xp.astype(x, xp.int32), xp.astype(y, xp.int32)
    return None


# ----- functions of floats: the dtype of an integer or boolean input -----
_NS = default_namespace()
# the result dtypes numpy gives integer and boolean inputs where the rule
# differs (numpy's dtypes are singletons: ``is`` compares them)
_F16 = _NS.asarray(0.0, dtype=_NS.float16).dtype
_F64 = _NS.asarray(0.0, dtype=_NS.float64).dtype
_I8 = _NS.asarray(0, dtype=_NS.int8).dtype


def float_dtype(xp, dtype):
    """The floating dtype a function of floats computes an integer or
    boolean ``dtype`` in: float32 for booleans and integers of 8 and 16 bits
    (JAX's; every such value is exact in float32), float64 for 32 and 64 bits
    (numpy's; int32 is not exact in float32)."""
    if dtype == xp.bool or xp.iinfo(dtype).bits <= 16:
        return xp.float32
    return xp.float64


def _again(xp, out, fn, *args):
    """``fn(*args)`` in ``float_dtype``'s dtype, where numpy computed ``out``
    in another one (float16 or float64 for integers and booleans): ``out``
    itself where an argument is inexact (float16 stays float16; a Python
    float is numpy's default float), else ``fn`` of the integer and boolean
    arrays cast (or of the Python scalars, where there is no array)."""
    arrays = [a for a in args if type(a) not in _SCALARS]
    if any(type(a) in (float, complex) for a in args) or any(is_inexact(a.dtype) for a in arrays):
        return out
    ints = any(type(a) is int for a in args)
    if arrays:
        dt = xp.result_type(*arrays) if len(arrays) > 1 else arrays[0].dtype
        # a Python int beside booleans is the default integer (int64)
        dt = xp.float64 if ints and dt == xp.bool else float_dtype(xp, dt)
        if dt == out.dtype:
            return out
        return fn(*(a if type(a) in _SCALARS else xp.astype(a, dt) for a in args))
    dt = xp.float64 if ints else xp.float32
    return fn(*(xp.asarray(a, dtype=dt) for a in args))


def _as_float(x):
    """An integer or boolean array ``x`` in ``float_dtype``'s dtype (for a
    rule body whose integer arithmetic could overflow), anything else as it
    is."""
    if type(x) in _SCALARS or is_inexact(x.dtype):
        return x
    return xnp.astype(x, float_dtype(backend_of(x), x.dtype))


# ----- unary elementwise: smooth -----
defprim("sin", lambda xp, x: o if (o := xp.sin(x)).dtype is not _F16 else _again(xp, o, xp.sin, x),
        deriv=lambda ans, x: xnp.cos(x), domain=(-3.0, 3.0))
defprim("cos", lambda xp, x: o if (o := xp.cos(x)).dtype is not _F16 else _again(xp, o, xp.cos, x),
        deriv=lambda ans, x: -xnp.sin(x), domain=(-3.0, 3.0))
defprim("tan", lambda xp, x: o if (o := xp.tan(x)).dtype is not _F16 else _again(xp, o, xp.tan, x),
        deriv=lambda ans, x: 1.0 + xnp.square(ans), domain=(-1.2, 1.2))
defprim("asin", lambda xp, x: o if (o := xp.asin(x)).dtype is not _F16 else _again(xp, o, xp.asin, x),
        deriv=lambda ans, x: xnp.reciprocal(xnp.sqrt(1.0 - xnp.square(x))), domain=(-0.9, 0.9))
defprim("acos", lambda xp, x: o if (o := xp.acos(x)).dtype is not _F16 else _again(xp, o, xp.acos, x),
        deriv=lambda ans, x: -xnp.reciprocal(xnp.sqrt(1.0 - xnp.square(x))), domain=(-0.9, 0.9))
defprim("atan", lambda xp, x: o if (o := xp.atan(x)).dtype is not _F16 else _again(xp, o, xp.atan, x),
        deriv=lambda ans, x: xnp.reciprocal(1.0 + xnp.square(x)), domain=(-3.0, 3.0))
defprim("sinh", lambda xp, x: o if (o := xp.sinh(x)).dtype is not _F16 else _again(xp, o, xp.sinh, x),
        deriv=lambda ans, x: xnp.cosh(x), domain=(-2.0, 2.0))
defprim("cosh", lambda xp, x: o if (o := xp.cosh(x)).dtype is not _F16 else _again(xp, o, xp.cosh, x),
        deriv=lambda ans, x: xnp.sinh(x), domain=(-2.0, 2.0))
# tanh' = 1 - tanh^2 is a primitive of the value (PyTorch's tanh_backward): one
# op, and its own derivative -2 a is one product, where 1 - square(a) costs a
# square, a subtraction and a negated tangent at every order above the first
_tanh_deriv = defprim("tanh_deriv", lambda xp, a: 1.0 - a * a, deriv=lambda ans, a: -2.0 * a,
                      domain=(-0.9, 0.9), export=False)


def _tanh_d(ans, x):
    """tanh's derivative ``tanh_deriv(ans)``: a plain array straight to the impl
    (as ``xgrad.numpy``'s functions do; ``bind`` costs a third more), anything
    else through ``bind``."""
    xp = _type_namespaces.get(type(ans), False)
    if xp:
        out = _tanh_deriv.impl(xp, ans)
        if (chk := _core._checker) is not None:    # one read: see core._checker
            chk.check(_tanh_deriv, (ans,), out)
        return out
    return _tanh_deriv.bind(ans)


defprim("tanh", lambda xp, x: o if (o := xp.tanh(x)).dtype is not _F16 else _again(xp, o, xp.tanh, x),
        deriv=_tanh_d, domain=(-2.0, 2.0))
defprim("asinh", lambda xp, x: o if (o := xp.asinh(x)).dtype is not _F16 else _again(xp, o, xp.asinh, x),
        deriv=lambda ans, x: xnp.reciprocal(xnp.sqrt(xnp.square(x) + 1.0)), domain=(-3.0, 3.0))
# NB: sqrt(x - 1) sqrt(x + 1) is NaN below -1, where acosh is NaN (JAX's
# rsqrt(x**2 - 1) gives a number there), and exact near 1; the second
# derivative tends to 0 at +inf (JAX: NaN)
defprim("acosh", lambda xp, x: o if (o := xp.acosh(x)).dtype is not _F16 else _again(xp, o, xp.acosh, x),
        deriv=lambda ans, x: xnp.reciprocal(xnp.sqrt(x - 1.0) * xnp.sqrt(x + 1.0)), domain=(1.2, 4.0))
# (1 - x)(1 + x), not 1 - x**2: exact near +-1 (JAX's form too), so the
# second derivative at +-1 is the limit +-inf
defprim("atanh", lambda xp, x: o if (o := xp.atanh(x)).dtype is not _F16 else _again(xp, o, xp.atanh, x),
        deriv=lambda ans, x: xnp.reciprocal(_mul(1.0 - x, 1.0 + x)), domain=(-0.9, 0.9))
defprim("exp", lambda xp, x: o if (o := xp.exp(x)).dtype is not _F16 else _again(xp, o, xp.exp, x),
        deriv=lambda ans, x: ans, domain=(-2.0, 2.0))
defprim("expm1", lambda xp, x: o if (o := xp.expm1(x)).dtype is not _F16 else _again(xp, o, xp.expm1, x),
        deriv=lambda ans, x: ans + 1.0, domain=(-2.0, 2.0))
defprim("log", lambda xp, x: o if (o := xp.log(x)).dtype is not _F16 else _again(xp, o, xp.log, x),
        deriv=lambda ans, x: xnp.reciprocal(x), domain=(0.2, 4.0))
defprim("log1p", lambda xp, x: o if (o := xp.log1p(x)).dtype is not _F16 else _again(xp, o, xp.log1p, x),
        deriv=lambda ans, x: xnp.reciprocal(1.0 + x), domain=(-0.8, 3.0))
defprim("log2", lambda xp, x: o if (o := xp.log2(x)).dtype is not _F16 else _again(xp, o, xp.log2, x),
        deriv=lambda ans, x: xnp.reciprocal(x * _LN2), domain=(0.2, 4.0))
defprim("log10", lambda xp, x: o if (o := xp.log10(x)).dtype is not _F16 else _again(xp, o, xp.log10, x),
        deriv=lambda ans, x: xnp.reciprocal(x * _LN10), domain=(0.2, 4.0))
defprim("sqrt", lambda xp, x: o if (o := xp.sqrt(x)).dtype is not _F16 else _again(xp, o, xp.sqrt, x),
        deriv=lambda ans, x: 0.5 / ans, domain=(0.2, 4.0))
# (the square of a boolean is int32, as JAX's; numpy's is int8)
defprim("square", lambda xp, x: o if (o := xp.square(x)).dtype is not _I8 or x.dtype != xp.bool
        else xp.square(xp.astype(x, xp.int32)), deriv=lambda ans, x: 2.0 * x, domain=(-3.0, 3.0))


def _inexact(xp, x):
    """``x`` in ``float_dtype``'s dtype where it is an integer or boolean
    array (numpy's ``reciprocal`` divides integers: 1 / 2 == 0)."""
    return x if is_inexact(x.dtype) else xp.astype(x, float_dtype(xp, x.dtype))


defprim("reciprocal", lambda xp, x: xp.reciprocal(_inexact(xp, x)),
        deriv=lambda ans, x: -xnp.square(ans), domain=(0.3, 3.0))

# ----- unary elementwise: linear -----
defprim("negative", lambda xp, x: xp.negative(x), linear=True,
        vjp=lambda ans, x: lambda g: -g, vjp_factor=(-1,), domain=(-3.0, 3.0))
def _positive_impl(xp, x):
    try:
        return xp.positive(x)
    except TypeError:       # numpy has no boolean positive; JAX's is the identity
        if type(x) in _SCALARS or x.dtype != xp.bool:
            raise
        return xp.asarray(x, copy=True)


def _conj_impl(xp, x):
    # a boolean stays boolean (JAX; numpy's conj gives int8)
    if type(x) not in _SCALARS and x.dtype == xp.bool:
        return xp.asarray(x, copy=True)
    return xp.conj(x)


defprim("positive", _positive_impl, linear=True,
        vjp=lambda ans, x: lambda g: g, vjp_factor=(1,), domain=(-3.0, 3.0))
defprim("conj", _conj_impl, linear=True,
        vjp=lambda ans, x: lambda g: xnp.conj(g), domain=(-3.0, 3.0))
defprim("real", lambda xp, x: xp.real(x), linear=True,
        vjp=lambda ans, x: lambda g: g, domain=(-3.0, 3.0))

# ----- unary elementwise: kinks (JAX's choice at the kink) -----
def _abs_jvp(x_dot, ans, x):
    if is_complex(x.dtype):   # d|z| = re(conj(z) dz) / |z| (0 at z = 0, as JAX)
        return xnp.real(xnp.multiply(x_dot, _div(xnp.conj(x), xnp.where(ans == 0, 1.0, ans))))
    return xnp.multiply(x_dot, xnp.sign(x))


def _abs_vjp(ans, x):
    if is_complex(x.dtype):
        return lambda g: xnp.multiply(g, _div(xnp.conj(x), xnp.where(ans == 0, 1.0, ans)))
    return lambda g: xnp.multiply(g, xnp.sign(x))


defprim("abs", lambda xp, x: xp.abs(x), jvp=_abs_jvp, vjp=_abs_vjp, domain=(-3.0, 3.0))

# ----- unary elementwise: zero derivative almost everywhere -----
for _name in ("floor", "ceil", "trunc", "sign", "round"):
    defprim(_name, (lambda n: lambda xp, x: getattr(xp, n)(x))(_name), domain=(-3.0, 3.0))
# imag: linear; its transpose (JAX's convention) maps g to -i g
# (of a real x, imag is the constant 0: no cotangent, not a complex -i g; and
# array_api_strict's imag rejects real arrays, so the impl makes the zeros)
def _imag_impl(xp, x):
    if type(x) in _SCALARS:
        return x.imag
    return xp.imag(x) if is_complex(x.dtype) else xp.zeros_like(x)


defprim("imag", _imag_impl, linear=True,
        vjp=lambda ans, x: (lambda g: xnp.multiply(g, -1j)) if is_complex(x.dtype) else None,
        domain=(-3.0, 3.0))

# ----- unary elementwise: non-differentiable (bool / integer results) -----
for _name in ("isfinite", "isinf", "isnan", "signbit", "logical_not", "bitwise_invert"):
    defprim(_name, (lambda n: lambda xp, x: getattr(xp, n)(x))(_name))


# ----- binary elementwise (broadcasting handled by the engine) -----
defprim("add", lambda xp, x, y: xp.add(x, y), broadcast=True, nargs=2, linear=True,
        jvp=(lambda x_dot, ans, x, y: x_dot, lambda y_dot, ans, x, y: y_dot),
        vjp=(lambda ans, x, y: _identity, lambda ans, x, y: _identity), vjp_factor=(1, 1),
        domain=(-3.0, 3.0))
defprim("subtract", lambda xp, x, y: xp.subtract(x, y), broadcast=True, nargs=2, linear=True,
        jvp=(lambda x_dot, ans, x, y: x_dot, lambda y_dot, ans, x, y: -y_dot),
        vjp=(lambda ans, x, y: _identity, lambda ans, x, y: _negate), vjp_factor=(1, -1),
        domain=(-3.0, 3.0))
defprim("multiply", lambda xp, x, y: xp.multiply(x, y), broadcast=True, nargs=2, bilinear=True,
        vjp=(lambda ans, x, y: lambda g: _mul(g, y), lambda ans, x, y: lambda g: _mul(g, x)),
        vjp_factor=(lambda ans, x, y: y, lambda ans, x, y: x), domain=(-3.0, 3.0))
# NB: d/dy x / y = -(x / y) / y, which overflows only where the answer does
# (JAX's -x * y**-2 is NaN at x = 0, y = 2.2e-308: y**-2 is inf)
def _divide_impl(xp, x, y):
    # numpy divides integers and booleans in float64: a float64 result is
    # checked where no operand is float64 or a Python float (the float64
    # array costs two dtype reads)
    out = xp.divide(x, y)
    if (out.dtype is not _F64 or getattr(x, "dtype", None) is _F64 or type(x) is float
            or getattr(y, "dtype", None) is _F64 or type(y) is float):
        return out
    return _again(xp, out, xp.divide, x, y)


defprim("divide", _divide_impl, broadcast=True, nargs=2,
        jvp=(lambda x_dot, ans, x, y: _div(x_dot, y),
             lambda y_dot, ans, x, y: -_div(_mul(y_dot, ans), y)),
        vjp=(lambda ans, x, y: lambda g: _div(g, y), lambda ans, x, y: lambda g: -_div(_mul(g, ans), y)),
        domain=(0.3, 3.0))


def _identity(g):
    return g


def _negate(g):
    return -g


def _pow_dx(ans, x, y):
    if type(y) in _SCALARS:
        if y == 0:
            return xnp._zeros_like(x)
        return y * (x if y == 2 else x ** (y - 1))
    # y x**(y - 1), with x = 0 read as inf where y == 0: x**0 is 1 for every x,
    # so d/dx is 0 there (JAX: 0 * 0**-1 = NaN), while the product keeps its
    # derivative in y, x**-1 (a where(y == 0, 0, ...) would drop it: the mixed
    # second derivative of x**y at y = 0 is 1/x)
    x = xnp.where(xnp.logical_and(y == 0, x == 0), math.inf, x)
    return _mul(y, xnp.pow(x, y - 1))


def _pow_dy(ans, x, y):
    if type(x) in _SCALARS:
        return ans * (0.0 if x == 0 else _log(x))
    return _mul(ans, xnp.log(xnp.where(x == 0, 1.0, x)))


def _pow_impl(xp, x, y):
    if type(y) in _SCALARS or not _int_operands(x, y):
        return xp.pow(x, y)
    # integers to an integer array: JAX's binary exponentiation over the low six
    # bits of y (y & 63: a negative y gives a number, where numpy raises), with
    # 0 ** y = 0 for every y != 0 (and int32 for two booleans)
    x, y = _bools_as_int32(xp, x, y) or (x, y)
    out = xp.pow(x, xp.bitwise_and(y, 63))
    if type(x) in _SCALARS:
        return out if x != 0 else xp.where(y == 0, out, xp.zeros_like(out))
    return xp.where(xp.logical_and(x == 0, y != 0), xp.zeros_like(out), out)


defprim("pow", _pow_impl, broadcast=True, nargs=2,
        deriv=(_pow_dx, _pow_dy), domain=(0.3, 2.0))


def _max_dx(ans, x, y):
    # 1 where x wins, 0.5 at a tie (JAX splits ties), 0 elsewhere; in ans's dtype
    dt = ans.dtype
    return xnp.astype(x > y, dt) + 0.5 * xnp.astype(x == y, dt)


defprim("maximum", lambda xp, x, y: xp.maximum(x, y), broadcast=True, nargs=2,
        deriv=(_max_dx, lambda ans, x, y: _max_dx(ans, y, x)), domain=(-3.0, 3.0))
defprim("minimum", lambda xp, x, y: xp.minimum(x, y), broadcast=True, nargs=2,
        deriv=(lambda ans, x, y: _max_dx(ans, y, x), _max_dx), domain=(-3.0, 3.0))


def _atan2_den(x, y):
    # NaN at the origin, where atan2 has no derivative: 1/0 would make its
    # second derivative inf there (the tangent of x**2 + y**2 is an exact 0);
    # an integer argument (not differentiated) squared as the float atan2 saw
    # (the square of an int8 100 overflows)
    x, y = _as_float(x), _as_float(y)
    den = xnp.add(xnp.square(x), xnp.square(y))
    return xnp.where(xnp.logical_and(x == 0, y == 0), math.nan, den)


defprim("atan2", lambda xp, y, x: o if (o := xp.atan2(y, x)).dtype is not _F16
        else _again(xp, o, xp.atan2, y, x), broadcast=True, nargs=2,
        deriv=(lambda ans, y, x: _div(x, _atan2_den(x, y)), lambda ans, y, x: -_div(y, _atan2_den(x, y))),
        domain=(0.3, 3.0))


def _hypot_d(ans, x, y):
    # x / hypot, with the origin giving 0 instead of NaN (see the NB above)
    return _div(x, xnp.where(ans == 0, 1.0, ans))


defprim("hypot", lambda xp, x, y: o if (o := xp.hypot(x, y)).dtype is not _F16
        else _again(xp, o, xp.hypot, x, y), broadcast=True, nargs=2,
        deriv=(_hypot_d, lambda ans, x, y: _hypot_d(ans, y, x)), domain=(0.3, 3.0))


def _logaddexp_dx(ans, x, y):
    # exp(x - ans) = sigmoid(x - y); where ans is infinite, x - ans is inf - inf:
    # there logaddexp is max, and the derivative is max's (1, 0, 0.5 at a tie).
    # NB: JAX sets +inf to 0 in x and ans, so d/dy logaddexp(inf, y) = exp(y)
    # (20.1 at y = 3, where the limit is 0) and d/dx at x = y = -inf is NaN
    return xnp.where(xnp.isinf(ans), _max_dx(ans, x, y), xnp.exp(xnp.subtract(x, ans)))


defprim("logaddexp", lambda xp, x, y: o if (o := xp.logaddexp(x, y)).dtype is not _F16
        else _again(xp, o, xp.logaddexp, x, y), broadcast=True, nargs=2,
        deriv=(_logaddexp_dx, lambda ans, x, y: _logaddexp_dx(ans, y, x)),
        domain=(-3.0, 3.0))


def _weak_divisor(xp, x, y):
    """A Python scalar divisor as an array of the dividend's dtype (a weak
    scalar: ``int32 // 2`` stays int32, where a 0-d int64 array would
    promote it)."""
    if type(y) not in _SCALARS:
        return y
    return xp.asarray(y) if type(x) in _SCALARS else xp.asarray(y, dtype=x.dtype)


def _remainder_impl(xp, x, y):
    if not _int_operands(x, y):
        return xp.remainder(x, y)
    # integers: x % 0 is 0, as JAX's x % 1 there (torch raises); two booleans
    # give int32
    x, y = _bools_as_int32(xp, x, y) or (x, y)
    y = _weak_divisor(xp, x, y)
    return xp.remainder(x, xp.where(y == 0, xp.ones_like(y), y))


def _remainder_dy(ans, x, y):
    # -q for the quotient q of ans = x - q y: trunc(x / y), less 1 where the
    # truncated remainder was moved by y (ans nonzero with a sign other than
    # x's), as JAX; floor(x / y) misses that move where x / y rounds to -0
    # (remainder(1, -inf) = -inf = 1 + y: d/dy 1, not 0)
    moved = xnp.logical_and(ans != 0, (ans < 0) != (x < 0))
    return xnp.astype(moved, ans.dtype) - xnp.trunc(_div(x, y))


defprim("remainder", _remainder_impl, broadcast=True, nargs=2,
        deriv=(lambda ans, x, y: xnp._ones_like(ans), _remainder_dy),
        domain=(0.3, 3.0))
# d/dx copysign(x, y) = +-sign(x), the sign being y's: sign(ans) * sign(x), which
# keeps x's dtype (where(signbit(y), -1.0, 1.0) is float64 whatever x is) and is
# 0 at x = 0 like abs'(0)
defprim("copysign", lambda xp, x, y: o if (o := xp.copysign(x, y)).dtype is not _F16
        else _again(xp, o, xp.copysign, x, y), broadcast=True, nargs=2,
        deriv=(lambda ans, x, y: _mul(xnp.sign(ans), xnp.sign(x)), None),
        domain=(-3.0, 3.0))

# zero derivative almost everywhere
def _floor_divide_impl(xp, x, y):
    if not _int_operands(x, y):
        return xp.floor_divide(x, y)
    # integers: a division by zero gives JAX's (XLA's) quotient, -1 for 0 // 0
    # and -2 for x // 0 (-1, less 1 for the nonzero remainder of opposite sign),
    # the largest value for unsigned integers (numpy: 0; torch raises); two
    # booleans give int32
    x, y = _bools_as_int32(xp, x, y) or (x, y)
    y = _weak_divisor(xp, x, y)
    zero = y == 0
    out = xp.floor_divide(x, xp.where(zero, xp.ones_like(y), y))
    if xp.iinfo(out.dtype).min == 0:
        by_zero = xp.full_like(out, xp.iinfo(out.dtype).max)
    else:
        by_zero = xp.where(xp.asarray(x) == 0, xp.full_like(out, -1), xp.full_like(out, -2))
    return xp.where(zero, by_zero, out)


defprim("floor_divide", _floor_divide_impl, broadcast=True, nargs=2,
        domain=(0.3, 3.0))
# nextafter(x, y) is x moved by one ulp: d/dx = 1, d/dy = 0 (NB: JAX has no rule)
defprim("nextafter", lambda xp, x, y: o if (o := xp.nextafter(x, y)).dtype is not _F16
        else _again(xp, o, xp.nextafter, x, y), broadcast=True, nargs=2,
        jvp=(lambda x_dot, ans, x, y: x_dot, None), vjp=(lambda ans, x, y: _identity, None),
        domain=(-3.0, 3.0))

# ----- comparisons, logical and bitwise: no derivative -----
for _name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
              "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
              "bitwise_xor"):
    defprim(_name, (lambda n: lambda xp, x, y: getattr(xp, n)(x, y))(_name),
            broadcast=True, nargs=2)
# (a shift of two booleans is int32, as JAX; numpy's is int8)
for _name in ("bitwise_left_shift", "bitwise_right_shift"):
    defprim(_name, (lambda n: lambda xp, x, y: getattr(xp, n)(*(_bools_as_int32(xp, x, y)
                                                                or (x, y))))(_name),
            broadcast=True, nargs=2)

# ----- selection (exported by hand: its parameters are named condition, x1, x2) -----
def _where_impl(xp, c, x, y):
    if type(x) in _SCALARS and type(y) in _SCALARS:   # the standard wants one array
        x = xp.asarray(x)
    return xp.where(c, x, y)


defprim("where", _where_impl, broadcast=True, nargs=3, nondiff=(0,), linear=True, export=False,
        jvp=(None, lambda x_dot, ans, c, x, y: xnp.where(c, x_dot, 0.0),
             lambda y_dot, ans, c, x, y: xnp.where(c, 0.0, y_dot)),
        vjp=(None, lambda ans, c, x, y: lambda g: xnp.where(c, g, 0.0),
             lambda ans, c, x, y: lambda g: xnp.where(c, 0.0, g)))


# ----- stop_gradient: the identity, a constant to every transform -----
# (a copy: the value is handed to user code, which may write into it, and
# the value underneath may be the caller's array or a residual)
# NB: not ``linear``: its derivative is zero by decree, not the op itself
defprim("stop_gradient", lambda xp, x: xp.asarray(x, copy=True), export=False)
