"""``xgrad.random``: JAX's functional key-based random numbers, drawing the
same numbers as ``jax.random`` (threefry2x32, partitionable, the default of
jax 0.10) for the same key, shape and dtype.

A key is either a typed key array (``key(seed)``, shape ``()``, data
``uint32[..., 2]``) or a raw ``uint32[2]`` array (``PRNGKey(seed)``); every
function takes both and returns keys of the kind it was given, as in JAX.
Every bit comes from the ``threefry2x32`` row of ``xgrad/rules/random.py``;
the samplers are composites of ``xgrad.numpy``, so reparametrised draws
(``normal(k) * s + m``, ``uniform(k, minval=a, maxval=b)``, ``laplace``, ...)
differentiate in their parameters and ``vmap`` over keys batches. ``gamma``
(and ``beta``, ``dirichlet``, ``t``, ``chisquare``, ``f`` built from it)
differentiates in its shape by implicit reparametrisation, as JAX does.

>>> import xgrad.random as xr
>>> k1, k2 = xr.split(xr.PRNGKey(0))
>>> xr.normal(k1, (2,)).shape
(2,)

To add a sampler: write it from ``_uniform_data`` / ``_bits_data`` (or
another sampler) the way ``jax.random`` writes it, consuming the same bits.
"""

import math as _math
import operator as _operator

import numpy as _np

from . import numpy as _xnp
from . import tree as _tree
from .numpy import linalg as _linalg
from .numpy import special as _special
from .core import RULES as _RULES, Tracer as _Tracer, bind as _bind
from .backends import backend_of as _backend_of, dtype_in as _dtype_in
from .rules import random as _rr

__all__ = ["PRNGKey", "key", "key_data", "wrap_key_data", "key_impl", "key_dtype", "split",
           "fold_in", "clone", "bits", "uniform", "normal", "randint", "bernoulli",
           "categorical", "permutation", "choice", "truncated_normal", "gamma", "loggamma",
           "beta", "dirichlet", "exponential", "laplace", "logistic", "multivariate_normal",
           "gumbel", "poisson", "cauchy", "rademacher", "lognormal", "t", "chisquare",
           "pareto", "weibull_min", "rayleigh", "maxwell", "double_sided_maxwell",
           "generalized_normal", "triangular", "wald", "geometric", "binomial",
           "multinomial", "orthogonal", "ball", "f"]

_IMPL = "threefry2x32"


# --------------------------------------------------------------------------
# keys

class _KeyDType:
    """The dtype of typed keys (JAX's ``key<fry>``)."""

    __slots__ = ()
    name = "key<fry>"

    def __repr__(self):
        return "key<fry>"

    def __eq__(self, other):
        return isinstance(other, _KeyDType) or other == "key<fry>"

    def __hash__(self):
        return hash("key<fry>")


_KEY_DTYPE = _KeyDType()


class _Keys:
    """A typed key array (``xgrad.random.key``): an array of keys of shape
    ``shape``, held as ``uint32[*shape, 2]`` (``key_data``)."""

    __slots__ = ("_data",)
    dtype = _KEY_DTYPE

    def __init__(self, data):
        self._data = data

    @property
    def shape(self):
        return tuple(self._data.shape[:-1])

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return _math.prod(self.shape)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a single key (shape ())")
        return self.shape[0]

    def __getitem__(self, idx):
        if not isinstance(idx, tuple):
            idx = (idx,)
        if any(i is Ellipsis for i in idx):
            raise IndexError("indexing a key array with ... is not supported")
        return _Keys(self._data[idx + (slice(None),)])

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def reshape(self, *shape):
        shape = tuple(shape[0]) if len(shape) == 1 and not isinstance(shape[0], int) else shape
        return _Keys(_xnp.reshape(self._data, tuple(shape) + (2,)))

    def flatten(self):
        return self.reshape((-1,))

    def __repr__(self):
        return f"Array({self.shape}, dtype=key<fry>) overlaying:\n{self._data!r}"


_tree.register_pytree_node(_Keys, lambda k: ((k._data,), None), lambda aux, ch: _Keys(ch[0]))


def _dtname(dt):
    name = getattr(dt, "name", None)
    if isinstance(name, str):
        return name
    if isinstance(dt, type):
        return _np.dtype(dt).name
    return str(dt).rsplit(".", 1)[-1]


def _check_key(key, name, batched=False):
    """``(data, typed)`` of a key: its ``uint32[..., 2]`` data, and whether it
    was a typed key array."""
    if isinstance(key, _Keys):
        data, typed = key._data, True
    else:
        shape = getattr(key, "shape", None)
        dt = getattr(key, "dtype", None)
        if shape is None or dt is None or isinstance(key, _SCALARS):
            raise TypeError(f"xgrad.random.{name}: key must be a key from xgrad.random.key or "
                            f"xgrad.random.PRNGKey (a uint32 array of shape (2,)), got "
                            f"{type(key).__name__}")
        if _dtname(dt) != "uint32" or tuple(shape)[-1:] != (2,):
            raise TypeError(f"xgrad.random.{name}: key must be a key from xgrad.random.key or "
                            f"xgrad.random.PRNGKey (a uint32 array of shape (2,)), got an "
                            f"array of dtype {_dtname(dt)} and shape {tuple(shape)}")
        data, typed = key, False
    if not batched and tuple(data.shape) != (2,):
        raise ValueError(f"xgrad.random.{name} accepts a single key, but was given a key array "
                         f"of shape {tuple(data.shape[:-1])} != (); use xgrad.vmap for batching")
    return data, typed


_SCALARS = (bool, int, float, complex)


def _wrap(data, typed):
    return _Keys(data) if typed else data


def _seed_data(seed, name):
    if isinstance(seed, _Keys):
        raise TypeError(f"xgrad.random.{name} accepts a scalar seed, but was given a PRNG key")
    if isinstance(seed, bool) or isinstance(seed, float):
        raise TypeError(f"xgrad.random.{name}: seed must be an integer, got {seed!r}")
    if isinstance(seed, int):
        if not -2 ** 63 <= seed < 2 ** 64:
            raise OverflowError(f"xgrad.random.{name}: seed {seed} does not fit in 64 bits")
        s = seed % 2 ** 64
        return _np.array([s >> 32, s & 0xFFFFFFFF], dtype=_np.uint32)
    shape = tuple(getattr(seed, "shape", ()))
    if shape:
        raise TypeError(f"xgrad.random.{name} accepts a scalar seed, but was given an array of "
                        f"shape {shape} != (); use xgrad.vmap for batching")
    dt = _dtname(getattr(seed, "dtype", type(seed)))
    if not dt.startswith(("int", "uint")):
        raise TypeError(f"xgrad.random.{name}: seed must be an integer, got dtype {dt}")
    xp = _backend_of(seed)
    u32 = xp.uint32
    if dt.endswith("64"):
        lo = _xnp.astype(_xnp.bitwise_and(seed, 0xFFFFFFFF), u32)
        hi = _xnp.astype(_xnp.bitwise_and(_xnp.bitwise_right_shift(seed, 32), 0xFFFFFFFF), u32)
    else:
        lo = _xnp.astype(seed, u32)     # a 32-bit seed: its bits, high word zero
        hi = _xnp.zeros_like(lo)
    return _xnp.stack([hi, lo])


def PRNGKey(seed, *, impl=None):
    """A raw key, ``uint32[2]``: the 64-bit ``seed`` as two words.

    >>> import xgrad.random as xr
    >>> xr.PRNGKey(1).tolist()
    [0, 1]
    """
    _check_impl(impl)
    return _seed_data(seed, "PRNGKey")


def key(seed, *, impl=None, dtype=None):
    """A typed key (shape ``()``, dtype ``key<fry>``) from an integer seed."""
    _check_impl(impl if dtype is None else dtype)
    return _Keys(_seed_data(seed, "key"))


def _check_impl(impl):
    if impl is None or impl == _IMPL or isinstance(impl, _KeyDType):
        return
    raise ValueError(f"unrecognized PRNG implementation {impl!r}; xgrad.random has only "
                     f"'threefry2x32'")


def key_data(keys):
    """The ``uint32[..., 2]`` data of a key array (a raw key is returned as is)."""
    data, _ = _check_key(keys, "key_data", batched=True)
    return data


def wrap_key_data(key_bits_array, *, impl=None, dtype=None):
    """A typed key array holding ``key_bits_array`` (``uint32[..., 2]``)."""
    _check_impl(impl if dtype is None else dtype)
    data, _ = _check_key(key_bits_array, "wrap_key_data", batched=True)
    return _Keys(data)


def key_impl(keys):
    """The name of the keys' implementation: always ``'threefry2x32'``."""
    _check_key(keys, "key_impl", batched=True)
    return _IMPL


def key_dtype(impl=None):
    """The dtype of typed keys (``key<fry>``)."""
    _check_impl(impl)
    return _KEY_DTYPE


def clone(key):
    """A copy of ``key`` (JAX's key-reuse marker; here the identity)."""
    data, typed = _check_key(key, "clone", batched=True)
    return _wrap(_xnp.asarray(data, copy=True) if not isinstance(data, _Tracer) else data, typed)


# --------------------------------------------------------------------------
# bits

def _iota_2x32(xp, shape):
    """Counters for ``shape``: the row-major index as (hi, lo) uint32 words."""
    n = _math.prod(shape)
    if n < 2 ** 32:
        lo = xp.reshape(xp.arange(n, dtype=xp.uint32), shape)
        return xp.zeros((), dtype=xp.uint32), lo
    idx = _np.arange(n, dtype=_np.uint64).reshape(shape)
    return (xp.asarray((idx >> _np.uint64(32)).astype(_np.uint32)),
            xp.asarray(idx.astype(_np.uint32)))


def _hash_shape(data, shape):
    xp = _backend_of(data)
    hi, lo = _iota_2x32(xp, shape)
    return _rr.threefry2x32(data[0], data[1], hi, lo)


def _split_data(data, shape):
    y0, y1 = _hash_shape(data, shape)
    return _xnp.stack([y0, y1], axis=-1)


def _bits_data(data, width, shape):
    y0, y1 = _hash_shape(data, shape)
    if width == 64:
        u64 = _backend_of(data).uint64
        return _xnp.bitwise_or(_xnp.bitwise_left_shift(_xnp.astype(y0, u64), 32),
                               _xnp.astype(y1, u64))
    if type(y0) is _np.ndarray:        # fresh arrays of the numpy impl: xor in place
        b = _np.bitwise_xor(y0, y1, out=y0)
    else:
        b = _xnp.bitwise_xor(y0, y1)
    if width == 32:
        return b
    return _xnp.astype(b, getattr(_backend_of(data), f"uint{width}"))


def _shape(shape, name="shape"):
    if shape is None:
        return None
    if isinstance(shape, int) or hasattr(shape, "__index__"):
        out = (_operator.index(shape),)
    else:
        try:
            out = tuple(_operator.index(d) for d in shape)
        except TypeError:
            raise TypeError(f"{name} must be a sequence of integers, got {shape!r}") from None
    if any(d < 0 for d in out):
        raise ValueError(f"{name} must have non-negative dimensions, got {shape!r}")
    return out


def split(key, num=2):
    """``num`` new keys from ``key`` (``num`` an int or a shape).

    >>> import xgrad.random as xr
    >>> xr.split(xr.PRNGKey(0)).shape
    (2, 2)
    """
    data, typed = _check_key(key, "split")
    return _wrap(_split_data(data, _shape(num, "num")), typed)


def fold_in(key, data):
    """A new key from ``key`` and the scalar ``data``, taken as uint32 as JAX
    takes it: a Python int must be in ``[0, 2**32)`` (OverflowError
    otherwise), a Python float or bool is truncated to an int, an integer
    array wraps modulo ``2**32`` and a float array is truncated."""
    kd, typed = _check_key(key, "fold_in")
    if getattr(data, "shape", ()) != ():
        raise TypeError(f"fold_in accepts a scalar, but was given an array of shape "
                        f"{tuple(data.shape)} != (); use xgrad.vmap for batching")
    xp = _backend_of(kd)
    if isinstance(data, (bool, int, float)):
        if isinstance(data, float) and not _math.isfinite(data):
            raise ValueError(f"fold_in: data must be a finite number, got {data!r}")
        d = int(data)
        if not 0 <= d < 2 ** 32:
            raise OverflowError(f"fold_in: data {data!r} is out of bounds for uint32 "
                                f"(a Python int must be in [0, 2**32))")
        d = xp.asarray(d, dtype=xp.uint32)
    elif not hasattr(data, "dtype"):
        raise TypeError(f"fold_in: data must be an integer scalar, got {type(data).__name__}")
    else:
        d = _xnp.astype(data, xp.uint32) if _dtname(data.dtype).startswith(("int", "uint", "bool")) \
            else _xnp.astype(_xnp.astype(data, _backend_of(data).int64), xp.uint32)
    y0, y1 = _rr.threefry2x32(kd[0], kd[1], xp.zeros((), dtype=xp.uint32), d)
    return _wrap(_xnp.stack([y0, y1]), typed)


def bits(key, shape=(), dtype=None):
    """Random bits of an unsigned dtype (default uint64, JAX's with x64)."""
    data, _ = _check_key(key, "bits")
    name = "uint64" if dtype is None else _dtname(dtype)
    if not name.startswith("uint"):
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {name}")
    return _bits_data(data, int(name[4:]), _shape(shape))


# --------------------------------------------------------------------------
# helpers of the samplers

def _float_name(dtype, name, allow_complex=False):
    n = "float64" if dtype is None or dtype is float else _dtname(dtype)
    if n == "float16":
        raise ValueError(f"dtype argument to `{name}`: float16 is not supported by xgrad "
                         f"(its arrays are float32 or float64)")
    if n not in ("float32", "float64"):
        raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {n}")
    return n


def _int_name(dtype, name):
    n = "int64" if dtype is None or dtype is int else _dtname(dtype)
    if not n.startswith(("int", "uint")):
        raise ValueError(f"dtype argument to `{name}` must be an int dtype, got {n}")
    return n


def _cast(v, dt, xp):
    """``v`` as an array of dtype name ``dt`` on backend ``xp``."""
    if isinstance(v, _SCALARS):
        return xp.asarray(v, dtype=getattr(xp, dt))
    if not hasattr(v, "dtype"):
        v = _xnp.asarray(v)
    if _dtname(v.dtype) == dt:
        return v
    return _xnp.astype(v, _dtype_in(_backend_of(v), dt))


def _pshape(v):
    return tuple(getattr(v, "shape", ()))


def _broadcast_shapes(*shapes):
    return tuple(_np.broadcast_shapes(*shapes))


def _check_shape(name, shape, *params):
    if shape is None:
        return _broadcast_shapes(*[_pshape(p) for p in params])
    shape = _shape(shape)
    if params and _broadcast_shapes(shape, *[_pshape(p) for p in params]) != shape:
        raise ValueError(f"{name} parameter shapes must be broadcast-compatible with shape "
                         f"argument, and the result of broadcasting the shapes must equal the "
                         f"shape argument, but got parameter shapes "
                         f"{[_pshape(p) for p in params]} for shape argument {shape}.")
    return shape


def _stop(x):
    return _bind(_RULES["stop_gradient"], x) if isinstance(x, _Tracer) else x


def _inexact_name(v):
    if isinstance(v, (bool, int, float)):
        return "float64"
    n = _dtname(getattr(v, "dtype", None) or _xnp.asarray(v).dtype)
    return n if n.startswith("float") else "float64"


def _uniform_data(data, shape, dt, minval=0.0, maxval=1.0):
    xp = _backend_of(data)
    fi = _np.finfo(dt)
    nbits, nmant = fi.bits, fi.nmant
    b = _bits_data(data, nbits, shape)
    if type(b) is _np.ndarray and isinstance(minval, float) and isinstance(maxval, float):
        # numpy, constant bounds: in place, one float temporary (the benchmark's path)
        b >>= b.dtype.type(nbits - nmant)
        f = b.astype(dt)
        f *= f.dtype.type(2.0 ** -nmant)
        if (minval, maxval) != (0.0, 1.0):
            lo, hi = f.dtype.type(minval), f.dtype.type(maxval)
            f *= hi - lo
            f += lo
            _np.maximum(f, lo, out=f)
        return f
    m = _xnp.bitwise_right_shift(b, nbits - nmant)
    floats = _xnp.multiply(_xnp.astype(m, getattr(xp, dt)), 2.0 ** -nmant)
    if isinstance(minval, float) and isinstance(maxval, float) and (minval, maxval) == (0.0, 1.0):
        return floats
    lo = _cast(minval, dt, xp)
    hi = _cast(maxval, dt, xp)
    out = _xnp.maximum(lo, _xnp.add(_xnp.multiply(floats, _xnp.subtract(hi, lo)), lo))
    return out if _pshape(out) == shape else _xnp.broadcast_to(out, shape)


# --------------------------------------------------------------------------
# samplers by a fixed transformation of the bits

def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    """Uniform on ``[minval, maxval)``; differentiable in ``minval`` and ``maxval``.

    >>> import xgrad.random as xr
    >>> float(xr.uniform(xr.PRNGKey(0))) < 1.0
    True
    """
    data, _ = _check_key(key, "uniform")
    dt = _float_name(dtype, "uniform")
    return _uniform_data(data, _shape(shape), dt, minval, maxval)


# Giles (2010), "Approximating the erfinv function", single precision: the
# polynomial XLA evaluates for float32 erf_inv (so float32 normals agree with
# jax's to a few ulps in the tails, where a correctly rounded erfinv does not;
# like XLA, w = -log1p(-x * x))
_GILES_LO = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
             -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_GILES_HI = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
             -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _erfinv32(x):
    w = _xnp.negative(_xnp.log1p(_xnp.negative(_xnp.multiply(x, x))))
    small = _xnp.less(w, 5.0)
    w_lo = _xnp.subtract(w, 2.5)
    w_hi = _xnp.subtract(_xnp.sqrt(w), 3.0)
    p_lo = _GILES_LO[0]
    p_hi = _GILES_HI[0]
    for c_lo, c_hi in zip(_GILES_LO[1:], _GILES_HI[1:]):
        p_lo = _xnp.add(_xnp.multiply(p_lo, w_lo), c_lo)
        p_hi = _xnp.add(_xnp.multiply(p_hi, w_hi), c_hi)
    out = _xnp.multiply(_xnp.where(small, p_lo, p_hi), x)
    return _xnp.where(_xnp.equal(_xnp.abs(x), 1.0), _xnp.multiply(x, _math.inf), out)


def _erfinv32_numpy(x):
    """``_erfinv32`` on a numpy array, in place; the tail branch (w >= 5,
    |x| > 0.9966) only on the entries that need it."""
    w = _np.multiply(x, x)
    _np.negative(w, out=w)
    with _np.errstate(divide="ignore"):     # x = +-1: w = inf, the result +-inf
        _np.log1p(w, out=w)
    _np.negative(w, out=w)
    tail = _np.nonzero(w >= 5.0)
    wt = w[tail]
    f32 = _np.float32
    w -= f32(2.5)
    p = _np.multiply(w, f32(_GILES_LO[0]))
    p += f32(_GILES_LO[1])
    for c in _GILES_LO[2:]:
        p *= w
        p += f32(c)
    if wt.size:
        wt = _np.sqrt(wt) - f32(3.0)
        pt = _np.full_like(wt, _GILES_HI[0])
        for c in _GILES_HI[1:]:
            pt *= wt
            pt += f32(c)
        p[tail] = pt
    p *= x
    ends = _np.nonzero(_np.abs(x) == 1.0)
    p[ends] = x[ends] * f32(_math.inf)
    return p


# XLA's float32 erf (its CPU intrinsic, Eigen's rational interpolant):
# x * P(x**2) / Q(x**2) by fused multiply-adds, +-1 beyond 3.8325
_ERF32_P = (0.00022905065861350646, 0.0034082910107109506, 0.050955695062380861,
            0.18520832239976145, 1.128379143519084)
_ERF32_Q = (-1.1791602954361697e-7, 0.000023547966471313185, 0.0010179625278914885,
            0.014070470171167667, 0.11098505178285362, 0.49746925110067538, 1.0)


def _erf32(x, xp):
    """XLA's float32 ``erf`` of the float32 array ``x``, bit for bit (each
    fused multiply-add as an exact float64 product and sum, rounded once)."""
    f32, f64 = xp.float32, _dtype_in(xp, "float64")
    x2 = _xnp.multiply(x, x)
    x2d = _xnp.astype(x2, f64)

    def horner(cs):
        p = xp.asarray(_np.float32(cs[0]), dtype=f32)
        for c in cs[1:]:
            p = _xnp.astype(_xnp.add(_xnp.multiply(x2d, _xnp.astype(p, f64)),
                                     float(_np.float32(c))), f32)
        return p
    r = _xnp.divide(_xnp.multiply(x, horner(_ERF32_P)), horner(_ERF32_Q))
    return _xnp.where(_xnp.greater_equal(_xnp.abs(x), float(_np.float32(3.832506856900711))),
                      _xnp.sign(x), r)


def _normal_data(data, shape, dt):
    lo = float(_np.nextafter(_np.array(-1.0, dt), _np.array(0.0, dt)))
    u = _uniform_data(data, shape, dt, lo, 1.0)
    if dt == "float32" and type(u) is _np.ndarray and u.ndim:
        e = _erfinv32_numpy(u)
        e *= _np.float32(_math.sqrt(2.0))
        return e
    e = _erfinv32(u) if dt == "float32" else _special.erfinv(u)
    return _xnp.multiply(e, _np.array(_math.sqrt(2.0), dt).item())


def normal(key, shape=(), dtype=None):
    """Standard normal draws (JAX's ``sqrt(2) * erfinv(u)``)."""
    data, _ = _check_key(key, "normal")
    return _normal_data(data, _shape(shape), _float_name(dtype, "normal"))


def randint(key, shape, minval, maxval, dtype=None):
    """Integers in ``[minval, maxval)`` (default int64)."""
    data, _ = _check_key(key, "randint")
    shape = _shape(shape)
    dt = _int_name(dtype, "randint")
    info = _np.iinfo(dt)
    xp = _backend_of(data)
    samp = dt
    if info.bits < 32:
        samp = "int32"
        minval = _xnp.clip(_cast(minval, "int32", xp) if not isinstance(minval, _SCALARS)
                           else xp.asarray(max(min(minval, 2**31 - 1), -2**31), dtype=xp.int32),
                           int(info.min), int(info.max))
        maxval = _xnp.clip(_cast(maxval, "int32", xp) if not isinstance(maxval, _SCALARS)
                           else xp.asarray(max(min(maxval, 2**31 - 1), -2**31), dtype=xp.int32),
                           int(info.min), int(info.max) + 1)
    _check_shape("randint", shape, minval, maxval)
    out = _randint(data, shape, minval, maxval, samp, xp)
    return out if samp == dt else _xnp.astype(out, getattr(xp, dt))


def _int_array(v, xp):
    if isinstance(v, bool):
        v = int(v)
    if isinstance(v, int):
        if not -2 ** 63 <= v < 2 ** 63:
            raise OverflowError(f"randint: the bound {v} does not fit in int64 (pass an "
                                f"array of the dtype for the full uint64 range)")
        return xp.asarray(v, dtype=xp.int64)
    if isinstance(v, float):
        return xp.asarray(int(v), dtype=xp.int64)
    if not _dtname(v.dtype).startswith(("int", "uint")):
        v = _xnp.astype(v, _backend_of(v).int64)
    return v


def _clip_to(v, dt, xp):
    vi, di = _np.iinfo(_dtname(v.dtype)), _np.iinfo(dt)
    lo, hi = max(di.min, vi.min), min(di.max, vi.max)
    return _xnp.astype(_xnp.clip(v, lo, hi), getattr(xp, dt))


def _randint(data, shape, minval, maxval, dt, xp):
    minval = _int_array(minval, xp)
    maxval = _int_array(maxval, xp)
    di, vi = _np.iinfo(dt), _np.iinfo(_dtname(maxval.dtype))
    out_of_range = _xnp.greater(maxval, min(di.max, vi.max))
    minval = _clip_to(minval, dt, xp)
    maxval = _clip_to(maxval, dt, xp)
    nbits = di.bits
    udt = getattr(xp, f"uint{nbits}")
    k = _split_data(data, (2,))
    higher = _bits_data(k[0, ...], nbits, shape)
    lower = _bits_data(k[1, ...], nbits, shape)
    span = _xnp.astype(_xnp.subtract(maxval, minval), udt)
    span = _xnp.where(_xnp.less_equal(maxval, minval), xp.asarray(1, dtype=udt), span)
    span = _xnp.where(_xnp.logical_and(out_of_range, _xnp.greater(maxval, minval)),
                      _xnp.add(span, xp.asarray(1, dtype=udt)), span)
    # span wraps to 0 for the full range of the dtype (maxval out of range);
    # XLA's x % 0 is x, which makes every remainder below a no-op
    full = _xnp.equal(span, xp.asarray(0, dtype=udt))
    safe = _xnp.where(full, xp.asarray(1, dtype=udt), span)

    def rem(v):
        return _xnp.where(full, v, _xnp.remainder(v, safe))
    mult = rem(xp.asarray(2 ** (nbits // 2), dtype=udt))
    mult = rem(_xnp.multiply(mult, mult))
    off = rem(_xnp.add(_xnp.multiply(rem(higher), mult), rem(lower)))
    out = _xnp.add(minval, _xnp.astype(off, getattr(xp, dt)))
    return out if _pshape(out) == shape else _xnp.broadcast_to(out, shape)


def bernoulli(key, p=0.5, shape=None, mode="low"):
    """Booleans that are True with probability ``p``."""
    if mode not in ("high", "low"):
        raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    data, _ = _check_key(key, "bernoulli")
    dt = _inexact_name(p) if isinstance(p, (bool, int, float)) else _dtname(_xnp.asarray(p).dtype)
    if not dt.startswith("float"):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dt}.")
    shape = _check_shape("bernoulli", shape, p)
    if mode == "high":
        u = _uniform_data(data, (2,) + shape, dt)
        u2 = _xnp.multiply(u[1, ...], 2.0 ** -_np.finfo(dt).nmant)
        return _xnp.less(u2, _xnp.subtract(p, u[0, ...]))
    return _xnp.less(_uniform_data(data, shape, dt), p)


def exponential(key, shape=(), dtype=None):
    """Exponential(1) draws, ``-log1p(-u)``."""
    data, _ = _check_key(key, "exponential")
    u = _uniform_data(data, _shape(shape), _float_name(dtype, "exponential"))
    return _xnp.negative(_xnp.log1p(_xnp.negative(u)))


def laplace(key, shape=(), dtype=None):
    """Laplace(0, 1) draws."""
    data, _ = _check_key(key, "laplace")
    dt = _float_name(dtype, "laplace")
    u = _uniform_data(data, _shape(shape), dt, -1.0 + float(_np.finfo(dt).epsneg), 1.0)
    return _xnp.multiply(_xnp.sign(u), _xnp.log1p(_xnp.negative(_xnp.abs(u))))


def logistic(key, shape=(), dtype=None):
    """Logistic(0, 1) draws."""
    data, _ = _check_key(key, "logistic")
    dt = _float_name(dtype, "logistic")
    x = _uniform_data(data, _shape(shape), dt, float(_np.finfo(dt).tiny), 1.0)
    return _xnp.subtract(_xnp.log(x), _xnp.log1p(_xnp.negative(x)))


def cauchy(key, shape=(), dtype=None):
    """Standard Cauchy draws."""
    data, _ = _check_key(key, "cauchy")
    dt = _float_name(dtype, "cauchy")
    u = _uniform_data(data, _shape(shape), dt, float(_np.finfo(dt).eps), 1.0)
    return _xnp.tan(_xnp.multiply(_xnp.subtract(u, 0.5), _math.pi))


def _gumbel_data(data, shape, dt, mode):
    if mode is None:
        mode = "low"
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    fi = _np.finfo(dt)
    if mode == "highest" and dt == "float32":
        raise NotImplementedError("gumbel(mode='highest') for float32 is not implemented; "
                                  "use mode='high'")
    if mode in ("high", "highest"):
        u = _uniform_data(data, (2,) + shape, dt)
        high, low = u[0, ...], u[1, ...]
        x = _xnp.where(_xnp.greater_equal(high, 0.5), high,
                       _xnp.add(_xnp.add(high, _xnp.multiply(low, 2.0 ** -fi.nmant)), float(fi.tiny)))
        return _xnp.negative(_xnp.log(_xnp.negative(_xnp.log1p(_xnp.negative(x)))))
    u = _uniform_data(data, shape, dt, float(fi.tiny), 1.0)
    return _xnp.negative(_xnp.log(_xnp.negative(_xnp.log(u))))


def gumbel(key, shape=(), dtype=None, mode=None):
    """Standard Gumbel draws."""
    data, _ = _check_key(key, "gumbel")
    return _gumbel_data(data, _shape(shape), _float_name(dtype, "gumbel"), mode)


def categorical(key, logits, axis=-1, shape=None, replace=True, mode=None):
    """Indices drawn with probabilities ``softmax(logits, axis)`` (Gumbel max)."""
    data, _ = _check_key(key, "categorical")
    logits = _xnp.asarray(logits) if not hasattr(logits, "shape") else logits
    lshape = tuple(logits.shape)
    nd = len(lshape)
    if not -nd <= axis < nd:
        raise ValueError(f"axis {axis} is out of bounds for logits of shape {lshape}")
    batch_shape = tuple(s for i, s in enumerate(lshape) if i != axis % nd)
    if shape is None:
        shape = batch_shape
    else:
        shape = _shape(shape)
        _check_shape("categorical", shape, _np.empty(batch_shape))
    prefix = shape[:len(shape) - len(batch_shape)]
    dt = _dtname(logits.dtype)
    if replace:
        ax = axis - nd if axis >= 0 else axis
        lsh = list(shape[len(shape) - len(batch_shape):])
        lsh.insert(ax % nd, lshape[ax])
        g = _gumbel_data(data, (*prefix, *lsh), dt, mode)
        lg = _xnp.reshape(logits, (1,) * len(prefix) + lshape)
        return _xnp.argmax(_xnp.add(g, lg), axis=ax)
    k = _math.prod(prefix)
    if k > lshape[axis]:
        raise ValueError(f"Number of samples without replacement ({k}) cannot exceed number of "
                         f"categories ({lshape[axis]}).")
    z = _xnp.add(logits, _gumbel_data(data, lshape, dt, mode))
    z = _xnp.moveaxis(z, axis, -1)
    idx = _xnp.argsort(z, axis=-1, descending=True, stable=True)[..., :k]
    idx = _xnp.astype(_xnp.moveaxis(idx, -1, 0), _backend_of(data).int32)   # lax.top_k's
    return _xnp.reshape(idx, shape)


def _gather_last(x, idx):
    """``take_along_axis(x, idx, -1)`` for an ``idx`` with no concrete value
    (per-example keys under vmap): a one-hot selection, O(n**2) (NB: JAX
    gathers in O(n))."""
    n = x.shape[-1]
    xp = _backend_of(idx)
    hit = _xnp.equal(_xnp.expand_dims(idx, axis=-1), xp.arange(n, dtype=xp.int64))
    zero = xp.zeros((), dtype=_dtype_in(xp, _dtname(x.dtype)))
    return _xnp.sum(_xnp.where(hit, _xnp.expand_dims(x, axis=-2), zero), axis=-1,
                    dtype=_dtype_in(xp, _dtname(x.dtype)))


def _take_along(x, idx, axis):
    if not isinstance(idx, _Tracer):
        return _xnp.take_along_axis(x, idx, axis=axis)
    x = _xnp.moveaxis(_xnp.broadcast_to(x, tuple(idx.shape)), axis, -1)
    return _xnp.moveaxis(_gather_last(x, _xnp.moveaxis(idx, axis, -1)), -1, axis)


def _shuffle(data, x, axis):
    size = _math.prod(_pshape(x))
    rounds = int(_np.ceil(3 * _np.log(max(1, size)) / _np.log(_np.iinfo(_np.uint32).max)))
    for _ in range(rounds):
        k = _split_data(data, (2,))
        data, sub = k[0, ...], k[1, ...]
        sort_keys = _bits_data(sub, 32, _pshape(x))
        idx = _xnp.argsort(sort_keys, axis=axis, stable=True)
        x = _take_along(x, idx, axis)
    return x


def permutation(key, x, axis=0, independent=False):
    """A random permutation of ``arange(x)`` (int ``x``) or of ``x`` along ``axis``."""
    data, _ = _check_key(key, "permutation")
    if isinstance(x, (int, _np.integer)) and not isinstance(x, bool):
        return _shuffle(data, _backend_of(data).arange(int(x), dtype=_backend_of(data).int64), 0)
    if not hasattr(x, "shape"):
        x = _xnp.asarray(x)
    nd = len(x.shape)
    if nd == 0:
        if not _dtname(x.dtype).startswith(("int", "uint")):
            raise TypeError("x must be an integer or at least 1-dimensional")
        n = int(x)
        return _shuffle(data, _backend_of(data).arange(n, dtype=_backend_of(data).int64), 0)
    if not -nd <= axis < nd:
        raise ValueError(f"axis {axis} is out of bounds for an array of dimension {nd}")
    axis %= nd
    if independent or nd == 1:
        return _shuffle(data, x, axis)
    xp = _backend_of(x)
    ind = _shuffle(data, xp.arange(x.shape[axis], dtype=xp.int64), 0)
    if isinstance(ind, _Tracer):
        shp = [1] * nd
        shp[axis] = x.shape[axis]
        full = _xnp.broadcast_to(_xnp.reshape(ind, tuple(shp)), tuple(x.shape))
        return _take_along(x, full, axis)
    return _xnp.take(x, ind, axis=axis)


def choice(key, a, shape=(), replace=True, p=None, axis=0, mode=None):
    """Draws from ``a`` (an int n: ``arange(n)``), with or without replacement,
    uniformly or with probabilities ``p``."""
    data, _ = _check_key(key, "choice")
    if isinstance(shape, int) or not hasattr(shape, "__len__"):
        raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    shape = _shape(shape)
    arr = a if hasattr(a, "shape") else _xnp.asarray(a)
    nd = len(arr.shape)
    if nd == 0:
        n_inputs = int(a)
    else:
        if not -nd <= axis < nd:
            raise ValueError(f"axis {axis} is out of bounds for an array of dimension {nd}")
        axis %= nd
        n_inputs = arr.shape[axis]
    n_draws = _math.prod(shape)
    if n_draws == 0:
        return _xnp.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population (size "
                         f"{n_inputs}) when 'replace=False'")
    key = data
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n_inputs)
            result = ind if nd == 0 else _xnp.take(arr, ind, axis=axis)
        else:
            perm = permutation(key, n_inputs if nd == 0 else arr, axis)
            sl = (slice(None),) * (axis if nd else 0) + (slice(n_draws),)
            result = perm[sl]
    else:
        p_arr = p if hasattr(p, "shape") else _xnp.asarray(p)
        pdt = _dtname(p_arr.dtype)
        if not pdt.startswith("float"):
            p_arr = _xnp.astype(p_arr, _backend_of(p_arr).float64)
            pdt = "float64"
        if tuple(p_arr.shape) != (n_inputs,):
            raise ValueError(f"p must be None or a 1D vector with the same size as a.shape[axis]. "
                             f"p has shape {tuple(p_arr.shape)} and a.shape[axis] is {n_inputs}.")
        if replace:
            p_cuml = _xnp.cumsum(p_arr)
            r = _xnp.multiply(p_cuml[-1], _xnp.subtract(1.0, _uniform_data(key, shape, pdt)))
            ind = _xnp.astype(_xnp.searchsorted(_stop(p_cuml), _stop(r)), _backend_of(data).int64)
        else:
            g = _xnp.add(_gumbel_data(key, (n_inputs,), pdt, mode), _xnp.log(p_arr))
            ind = _xnp.argsort(g, descending=True, stable=True)[:n_draws]
        result = ind if nd == 0 else _xnp.take(arr, ind, axis=axis)
    out_shape = shape if nd == 0 else tuple(arr.shape[:axis]) + shape + tuple(arr.shape[axis + 1:])
    return _xnp.reshape(result, out_shape)


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Normal draws truncated to ``(lower, upper)``; differentiable in the bounds."""
    data, _ = _check_key(key, "truncated_normal")
    dt = _float_name(dtype, "truncated_normal")
    shape = _check_shape("truncated_normal", shape, lower, upper)
    xp = _backend_of(data)
    s2 = _np.array(_math.sqrt(2.0), dt).item()
    lower = _cast(lower, dt, xp)
    upper = _cast(upper, dt, xp)
    a = _special.erf(_xnp.divide(lower, s2))
    b = _special.erf(_xnp.divide(upper, s2))
    if dt == "float32":
        # the values of XLA's float32 erf, bit for bit: near +-1 one ulp of
        # erf is a large part of the tail's mass (bounds 5..8: 1 - erf(5/sqrt2)
        # is 10 ulps), so any other erf draws other numbers there. The
        # derivative stays erf's (the difference is exact, by Sterbenz).
        a = _xnp.add(a, _stop(_xnp.subtract(_erf32(_xnp.divide(_stop(lower), s2), xp), a)))
        b = _xnp.add(b, _stop(_xnp.subtract(_erf32(_xnp.divide(_stop(upper), s2), xp), b)))
    u = _uniform_data(data, shape, dt, a, b)
    e = _special.erfinv(u)
    if dt == "float32":            # XLA's float32 erf_inv (as normal's), erfinv's derivative
        with _np.errstate(divide="ignore", invalid="ignore"):
            d = _xnp.subtract(_erfinv32(_stop(u)), _stop(e))
        e = _xnp.add(e, _xnp.where(_xnp.isfinite(d), d, 0.0))      # u = +-1: e is +-inf
    out = _xnp.multiply(e, s2)
    lo = _xnp.nextafter(_stop(lower), xp.asarray(_np.inf, dtype=getattr(xp, dt)))
    hi = _xnp.nextafter(_stop(upper), xp.asarray(-_np.inf, dtype=getattr(xp, dt)))
    return _xnp.minimum(_xnp.maximum(out, lo), hi)


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """Draws from N(mean, cov) through a factor of ``cov`` (cholesky, eigh or svd)."""
    data, _ = _check_key(key, "multivariate_normal")
    if method not in ("svd", "eigh", "cholesky"):
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    mean = mean if hasattr(mean, "shape") else _xnp.asarray(mean, dtype=_np.float64)
    cov = cov if hasattr(cov, "shape") else _xnp.asarray(cov, dtype=_np.float64)
    dt = _inexact_name(mean) if dtype is None else _float_name(dtype, "multivariate_normal")
    if dtype is None and _dtname(cov.dtype) == "float64":
        dt = "float64"
    xp = _backend_of(data)
    mean = _cast(mean, dt, xp)
    cov = _cast(cov, dt, xp)
    if len(mean.shape) < 1:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == "
                         f"{len(mean.shape)}")
    if len(cov.shape) < 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == "
                         f"{len(cov.shape)}")
    n = mean.shape[-1]
    if tuple(cov.shape[-2:]) != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                         f"but got cov.shape == {tuple(cov.shape)}.")
    if shape is None:
        shape = _broadcast_shapes(tuple(mean.shape[:-1]), tuple(cov.shape[:-2]))
    else:
        shape = _shape(shape)
        if _broadcast_shapes(shape, tuple(mean.shape[:-1]), tuple(cov.shape[:-2])) != shape:
            raise ValueError(f"multivariate_normal: shape {shape} must be the broadcast of "
                             f"mean.shape[:-1] and cov.shape[:-2] with itself")
    if method == "svd":
        u, s, _ = _linalg.svd(cov)
        factor = _xnp.multiply(u, _xnp.expand_dims(_xnp.sqrt(s), axis=-2))
    elif method == "eigh":
        w, v = _linalg.eigh(cov)
        factor = _xnp.multiply(v, _xnp.expand_dims(_xnp.sqrt(w), axis=-2))
    else:
        factor = _linalg.cholesky(cov)
    z = _normal_data(data, shape + (n,), dt)
    return _xnp.add(mean, _xnp.matmul(factor, _xnp.expand_dims(z, axis=-1))[..., 0])


# --------------------------------------------------------------------------
# gamma and the samplers built from it

def _gamma(data, a, shape, dt, log_space):
    xp = _backend_of(data)
    a = _cast(a, dt, xp)
    if _pshape(a) != shape:
        a = _xnp.broadcast_to(a, shape)
    return _bind(_rr.random_gamma_p, data, a, log_space=log_space)


def gamma(key, a, shape=None, dtype=None):
    """Gamma(a, 1) draws, differentiable in ``a`` (implicit reparametrisation)."""
    data, _ = _check_key(key, "gamma")
    dt = _float_name(dtype, "gamma")
    return _gamma(data, a, _check_shape("gamma", shape, a), dt, False)


def loggamma(key, a, shape=None, dtype=None):
    """``log`` of Gamma(a, 1) draws, accurate for small ``a``."""
    data, _ = _check_key(key, "loggamma")
    dt = _float_name(dtype, "loggamma")
    return _gamma(data, a, _check_shape("loggamma", shape, a), dt, True)


def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) draws, differentiable in ``a`` and ``b``."""
    data, _ = _check_key(key, "beta")
    dt = _float_name(dtype, "beta")
    shape = _check_shape("beta", shape, a, b)
    k = _split_data(data, (2,))
    lga = _gamma(k[0, ...], a, shape, dt, True)
    lgb = _gamma(k[1, ...], b, shape, dt, True)
    m = _xnp.maximum(lga, lgb)
    ga = _xnp.exp(_xnp.subtract(lga, m))
    gb = _xnp.exp(_xnp.subtract(lgb, m))
    return _xnp.divide(ga, _xnp.add(ga, gb))


def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(alpha) draws (over the last axis), differentiable in ``alpha``."""
    data, _ = _check_key(key, "dirichlet")
    dt = _float_name(dtype, "dirichlet")
    ash = _pshape(alpha)
    if len(ash) < 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {len(ash)}")
    shape = ash[:-1] if shape is None else _check_shape("dirichlet", shape, _np.empty(ash[:-1]))
    lg = _gamma(data, alpha, shape + ash[-1:], dt, True)
    m = _xnp.max(_stop(lg), axis=-1, keepdims=True)
    e = _xnp.exp(_xnp.subtract(lg, m))
    return _xnp.divide(e, _xnp.sum(e, axis=-1, keepdims=True))


def chisquare(key, df, shape=None, dtype=None):
    """Chi-squared(df) draws."""
    data, _ = _check_key(key, "chisquare")
    dt = _float_name(dtype, "chisquare")
    shape = _check_shape("chisquare", shape, df)
    half = _xnp.divide(_cast(df, dt, _backend_of(data)), 2.0)
    return _xnp.multiply(_xnp.exp(_gamma(data, half, shape, dt, True)), 2.0)


def f(key, dfnum, dfden, shape=None, dtype=None):
    """F(dfnum, dfden) draws."""
    data, _ = _check_key(key, "f")
    dt = _float_name(dtype, "f")
    shape = _check_shape("f", shape, dfnum, dfden)
    xp = _backend_of(data)
    dfnum, dfden = _cast(dfnum, dt, xp), _cast(dfden, dt, xp)
    k = _split_data(data, (2,))
    chi_n = chisquare(k[1, ...], dfnum, shape, dt)
    chi_d = chisquare(k[0, ...], dfden, shape, dt)
    return _xnp.divide(_xnp.divide(chi_n, dfnum), _xnp.divide(chi_d, dfden))


def t(key, df, shape=None, dtype=None):
    """Student's t(df) draws."""
    data, _ = _check_key(key, "t")
    dt = _float_name(dtype, "t")
    shape = _check_shape("t", shape, df)
    k = _split_data(data, (2,))
    n = _normal_data(k[0, ...], shape, dt)
    half = _xnp.divide(_cast(df, dt, _backend_of(data)), 2.0)
    g = _gamma(k[1, ...], half, shape, dt, False)
    return _xnp.multiply(n, _xnp.sqrt(_xnp.divide(half, g)))


def generalized_normal(key, p, shape=(), dtype=None):
    """Generalized normal draws of power ``p``."""
    data, _ = _check_key(key, "generalized_normal")
    dt = _float_name(dtype, "generalized_normal")
    shape = _shape(shape)
    k = _split_data(data, (2,))
    inv_p = _xnp.divide(1.0, p) if not isinstance(p, (int, float)) else 1 / p
    g = _gamma(k[0, ...], inv_p, shape, dt, False)
    r = _rademacher(k[1, ...], shape, dt)
    return _xnp.multiply(r, _xnp.pow(g, inv_p))


def ball(key, d, p=2, shape=(), dtype=None):
    """Uniform draws from the unit ``p``-ball of dimension ``d``."""
    data, _ = _check_key(key, "ball")
    dt = _float_name(dtype, "ball")
    shape = _shape(shape)
    k = _split_data(data, (2,))
    g = generalized_normal(k[0, ...], p, (*shape, d), dt)
    e = exponential(k[1, ...], shape, dt)
    s = _xnp.add(_xnp.sum(_xnp.pow(_xnp.abs(g), p), axis=-1), e)
    return _xnp.divide(g, _xnp.expand_dims(_xnp.pow(s, 1 / p), axis=-1))


# --------------------------------------------------------------------------
# the others

def _rademacher(data, shape, dt):
    b = _xnp.astype(bernoulli(data, 0.5, shape), _dtype_in(_backend_of(data), dt))
    return _xnp.astype(_xnp.subtract(_xnp.multiply(b, 2), 1), _dtype_in(_backend_of(data), dt))


def rademacher(key, shape=(), dtype=None):
    """-1 or +1 with equal probability (default int64)."""
    data, _ = _check_key(key, "rademacher")
    dt = "int64" if dtype is None else _dtname(dtype)
    return _rademacher(data, _shape(shape), dt)


def lognormal(key, sigma=1.0, shape=None, dtype=None):
    """``exp(sigma * normal)`` draws."""
    data, _ = _check_key(key, "lognormal")
    dt = _float_name(dtype, "lognormal")
    shape = _check_shape("lognormal", shape, sigma)
    sigma = _cast(sigma, dt, _backend_of(data))
    return _xnp.exp(_xnp.multiply(_normal_data(data, shape, dt), sigma))


def pareto(key, b, shape=None, dtype=None):
    """Pareto(b) draws."""
    data, _ = _check_key(key, "pareto")
    dt = _float_name(dtype, "pareto")
    shape = _check_shape("pareto", shape, b)
    b = _cast(b, dt, _backend_of(data))
    return _xnp.exp(_xnp.divide(exponential(data, shape, dt), b))


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull draws."""
    data, _ = _check_key(key, "weibull_min")
    dt = _float_name(dtype, "weibull_min")
    u = _uniform_data(data, _shape(shape), dt, 0.0, 1.0)
    inv_c = _xnp.divide(1.0, concentration) if not isinstance(concentration, (int, float)) \
        else 1.0 / concentration
    return _xnp.multiply(_xnp.pow(_xnp.negative(_xnp.log1p(_xnp.negative(u))), inv_c), scale)


def rayleigh(key, scale, shape=None, dtype=None):
    """Rayleigh(scale) draws."""
    data, _ = _check_key(key, "rayleigh")
    dt = _float_name(dtype, "rayleigh")
    shape = _check_shape("rayleigh", shape, scale)
    u = _uniform_data(data, shape, dt)
    scale = _xnp.broadcast_to(_cast(scale, dt, _backend_of(data)), shape)
    return _xnp.multiply(scale, _xnp.sqrt(_xnp.multiply(_xnp.log(u), -2.0)))


def maxwell(key, shape=(), dtype=None):
    """Maxwell draws: the norm of three standard normals."""
    data, _ = _check_key(key, "maxwell")
    dt = _float_name(dtype, "maxwell")
    z = _normal_data(data, _shape(shape) + (3,), dt)
    return _xnp.sqrt(_xnp.sum(_xnp.multiply(z, z), axis=-1))


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Double-sided Maxwell draws (shape is ``shape + broadcast(loc, scale)``, as JAX)."""
    data, _ = _check_key(key, "double_sided_maxwell")
    dt = _float_name(dtype, "double_sided_maxwell")
    ps = _broadcast_shapes(_pshape(loc), _pshape(scale))
    shape = _shape(shape)
    if not shape:
        shape = ps
    shape = shape + ps
    k = _split_data(data, (2,))
    m = maxwell(k[0, ...], shape, dt)
    s = _rademacher(k[1, ...], shape, dt)
    return _xnp.add(_xnp.multiply(_xnp.multiply(s, m), scale), loc)


def wald(key, mean, shape=None, dtype=None):
    """Wald (inverse Gaussian) draws."""
    data, _ = _check_key(key, "wald")
    dt = _float_name(dtype, "wald")
    shape = _check_shape("wald", shape, mean)
    k = _split_data(data, (2,))
    mean = _xnp.broadcast_to(_cast(mean, dt, _backend_of(data)), shape)
    v = _normal_data(k[0, ...], shape, dt)
    z = _uniform_data(k[1, ...], shape, dt)
    y = _xnp.multiply(v, v)
    y_sq = _xnp.multiply(y, y)
    mean_sq = _xnp.multiply(mean, mean)
    sq = _xnp.sqrt(_xnp.add(_xnp.multiply(_xnp.multiply(mean, 4.0), y), _xnp.multiply(mean_sq, y_sq)))
    x = _xnp.subtract(_xnp.add(mean, _xnp.divide(_xnp.multiply(mean_sq, y), 2.0)),
                      _xnp.multiply(_xnp.divide(mean, 2.0), sq))
    return _xnp.where(_xnp.less_equal(z, _xnp.divide(mean, _xnp.add(mean, x))), x,
                      _xnp.divide(mean_sq, x))


def geometric(key, p, shape=None, dtype=None):
    """Geometric(p) draws (number of trials to the first success)."""
    data, _ = _check_key(key, "geometric")
    dt = _int_name(dtype, "geometric")
    shape = _check_shape("geometric", shape, p)
    pdt = _inexact_name(p)
    xp = _backend_of(data)
    p = _cast(p, pdt, xp)
    u = _uniform_data(data, shape, pdt)
    u = _xnp.where(_xnp.equal(u, 0.0), 1.0, u)
    g = _xnp.add(_xnp.floor(_xnp.divide(_xnp.log(u), _xnp.log1p(_xnp.negative(p)))), 1.0)
    return _xnp.astype(g, getattr(xp, dt))


def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular(left, mode, right) draws."""
    data, _ = _check_key(key, "triangular")
    dt = _float_name(dtype, "triangular")
    shape = _check_shape("triangular", shape, left, mode, right)
    xp = _backend_of(data)
    left, mode, right = (_xnp.broadcast_to(_cast(v, dt, xp), shape) for v in (left, mode, right))
    fc = _xnp.divide(_xnp.subtract(mode, left), _xnp.subtract(right, left))
    u = _uniform_data(data, shape, dt)
    out1 = _xnp.add(left, _xnp.sqrt(_xnp.multiply(_xnp.multiply(u, _xnp.subtract(right, left)),
                                                  _xnp.subtract(mode, left))))
    out2 = _xnp.subtract(right, _xnp.sqrt(_xnp.multiply(
        _xnp.multiply(_xnp.subtract(1.0, u), _xnp.subtract(right, left)), _xnp.subtract(right, mode))))
    return _xnp.where(_xnp.less(u, fc), out1, out2)


def orthogonal(key, n, shape=(), dtype=None, m=None):
    """Random (semi-)orthogonal ``n x m`` matrices (Haar measure)."""
    data, _ = _check_key(key, "orthogonal")
    dt = _float_name(dtype, "orthogonal")
    m = n if m is None else m
    z = _normal_data(data, (*_shape(shape), max(n, m), min(n, m)), dt)
    q, r = _linalg.qr(z)
    d = _linalg.diagonal(r)
    x = _xnp.multiply(q, _xnp.expand_dims(_xnp.sign(d), axis=-2))
    return _xnp.matrix_transpose(x) if n < m else x


def poisson(key, lam, shape=None, dtype=None):
    """Poisson(lam) draws (lam in float32, as JAX; default int64)."""
    data, _ = _check_key(key, "poisson")
    dt = _int_name(dtype, "poisson")
    shape = _pshape(lam) if shape is None else _shape(shape)
    xp = _backend_of(data)
    lam = _xnp.broadcast_to(_cast(lam, "float32", xp), shape)
    return _bind(_rr.random_poisson_p, data, _stop(lam), dtype=dt)


def binomial(key, n, p, shape=None, dtype=None):
    """Binomial(n, p) draws (as floats, default float64, as JAX)."""
    data, _ = _check_key(key, "binomial")
    dt = _float_name(dtype, "binomial")
    shape = _check_shape("binomial", shape, n, p)
    xp = _backend_of(data)
    pdt = _inexact_name(p)
    p = _xnp.broadcast_to(_cast(p, pdt, xp), shape)
    n = _xnp.broadcast_to(_cast(n, pdt, xp), shape)
    return _bind(_rr.random_binomial_p, data, _stop(n), _stop(p), dtype=dt)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Multinomial(n, p) counts over the last axis of ``p`` (as floats)."""
    data, _ = _check_key(key, "multinomial")
    xp = _backend_of(data)
    pdt = "float64" if _inexact_name(p) == "float64" or _inexact_name(n) == "float64" else "float32"
    n, p = _cast(n, pdt, xp), _cast(p, pdt, xp)
    shape = tuple(p.shape) if shape is None else _shape(shape)
    n = _xnp.broadcast_to(n, shape[:-1])
    p = _xnp.moveaxis(_xnp.broadcast_to(p, shape), -1, 0)
    rem = _xnp.flip(_xnp.cumsum(_xnp.flip(p, axis=0), axis=0), axis=0)
    ratios = _xnp.divide(p, _xnp.where(_xnp.equal(rem, 0.0), 1.0, rem))
    keys = _split_data(data, (shape[-1],))
    remainder = n
    counts = []
    for i in range(shape[-1]):
        c = binomial(keys[i, ...], remainder, _xnp.clip(ratios[i, ...], 0.0, 1.0), dtype=pdt)
        remainder = _xnp.subtract(remainder, c)
        counts.append(c)
    out = _xnp.stack(counts, axis=-1)
    return out if dtype is None else _xnp.astype(out, _dtype_in(xp, _float_name(dtype, "multinomial")))
