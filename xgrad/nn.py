"""``xgrad.nn``: the functions of ``jax.nn`` (activations, softmax, one_hot,
attention, ...), with JAX's names, signatures and values.

Every function is a composite of ``xgrad.numpy`` and
``xgrad.numpy.special`` functions, so it runs on plain arrays and traced
values alike, on any array API backend, and is differentiable at every
order, batchable, and seen elementwise by ``xgrad.laplacian``. Derivatives
at kinks follow JAX (``relu'(0) = 0``, ``relu6'`` is 0 at 0 and 6,
``hard_tanh'(+-1) = 1``, ``leaky_relu'(0) = 1``, a tie of ``maximum`` gets
half); where JAX's formula loses its derivatives far out (the second
derivative of ``softplus`` at ``x = 40`` is 0 in JAX, ``4.2e-18`` here), the
composite is written so that every order stays accurate: PINNs
differentiate activations twice.

To add a function: write it here from ``xgrad.numpy`` functions (a rule row
in ``xgrad/rules/`` only where no composite gives the value or the
derivative), add its name to ``__all__``, and a case to ``tests/test_nn.py``.

>>> import xgrad, xgrad.nn
>>> float(xgrad.grad(xgrad.grad(xgrad.nn.softplus))(0.0))   # sigmoid'(0)
0.25
"""
import math as _math

from .core import RULES as _RULES, bind as _bind
from .backends import (SCALAR_TYPES as _SCALAR_TYPES, backend_of as _backend_of,
                       dtype_in as _dtype_in, is_inexact as _is_inexact)
from . import numpy as _xnp
from .numpy import special as _sp

__all__ = ["celu", "dot_product_attention", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu",
           "hard_swish", "hard_tanh", "identity", "leaky_relu", "log1mexp", "log_sigmoid",
           "log_softmax", "logmeanexp", "logsumexp", "mish", "one_hot", "relu", "relu6", "selu",
           "sigmoid", "silu", "soft_sign", "softmax", "softplus", "sparse_plus", "sparse_sigmoid",
           "squareplus", "standardize", "swish", "tanh"]

# the same function as xgrad.numpy.special's (jax.nn.logsumexp is
# jax.scipy.special.logsumexp)
logsumexp = _sp.logsumexp

_stop_p = _RULES["stop_gradient"]
_where = _xnp.where


def _arr(x, name, arg="x"):
    """``x`` as an array of an inexact dtype: Python numbers become 0-d
    float64 arrays, integer and boolean arrays float64 (JAX's promotion)."""
    t = type(x)
    if t in _SCALAR_TYPES:
        return _xnp.asarray(float(x) if t is not complex else x)
    if not hasattr(x, "dtype") or not hasattr(x, "shape"):
        raise TypeError(f"{name}: {arg} must be an array or a Python number, got {t.__name__}")
    if _is_inexact(x.dtype):
        return x
    return _xnp.astype(x, _dtype_in(_backend_of(x), "float64"))


def _param(p, x):
    """A parameter next to ``x``: a Python number stays one (it takes ``x``'s
    dtype), an array is promoted like ``x``."""
    return p if type(p) in _SCALAR_TYPES else _arr(p, "parameter")


def _mul(a, b):
    return _xnp.multiply(a, b)


def _relu(x):
    # x <= 0 is False at nan: nan stays nan (JAX's maximum); relu'(0) = 0
    return _where(x <= 0, 0.0, x)


# ----- rectifiers and piecewise-linear functions -----
def identity(x):
    """Return ``x`` unchanged (``jax.nn.identity``)."""
    if type(x) in _SCALAR_TYPES:
        return _xnp.asarray(x)
    return x


def relu(x):
    """``max(x, 0)``, with ``relu'(0) = 0`` (JAX).

    >>> import xgrad, xgrad.nn
    >>> float(xgrad.grad(xgrad.nn.relu)(0.0))
    0.0
    """
    return _relu(_arr(x, "relu"))


def relu6(x):
    """``min(max(x, 0), 6)``; the derivative is 0 at 0 and at 6 (JAX)."""
    x = _arr(x, "relu6")
    return _where(x <= 0, 0.0, _where(x >= 6, 6.0, x))


def hard_tanh(x):
    """``x`` clipped to [-1, 1]; the derivative is 1 at -1 and 1 (JAX)."""
    x = _arr(x, "hard_tanh")
    return _where(x > 1, 1.0, _where(x < -1, -1.0, x))


def leaky_relu(x, negative_slope=0.01):
    """``x`` for ``x >= 0``, ``negative_slope * x`` below (derivative 1 at 0,
    as JAX); differentiable in ``negative_slope`` too."""
    x = _arr(x, "leaky_relu")
    return _where(x >= 0, x, _mul(_param(negative_slope, x), x))


def hard_sigmoid(x):
    """``relu6(x + 3) / 6``."""
    return relu6(_arr(x, "hard_sigmoid") + 3.0) / 6.0


def hard_silu(x):
    """``x * hard_sigmoid(x)`` (``hard_swish`` is the same function)."""
    x = _arr(x, "hard_silu")
    return _mul(x, hard_sigmoid(x))


hard_swish = hard_silu


def sparse_plus(x):
    """0 for ``x <= -1``, ``(x + 1)^2 / 4`` on (-1, 1), ``x`` for ``x >= 1``."""
    x = _arr(x, "sparse_plus")
    return _where(x <= -1, 0.0, _where(x >= 1, x, _xnp.square(x + 1.0) / 4.0))


def sparse_sigmoid(x):
    """``clip(x + 1, 0, 2) / 2``, the derivative of ``sparse_plus`` (half
    the slope at -1 and 1, as JAX's ``clip``)."""
    return 0.5 * _xnp.clip(_arr(x, "sparse_sigmoid") + 1.0, 0.0, 2.0)


def soft_sign(x):
    """``x / (|x| + 1)``; as in JAX, ``|x|``'s derivative is 1 at 0, so the
    second derivative there is -2."""
    x = _arr(x, "soft_sign")
    return x / (_where(x >= 0, x, -x) + 1.0)


# ----- exponential linear units -----
def elu(x, alpha=1.0):
    """``x`` for ``x > 0``, ``alpha (exp(x) - 1)`` otherwise."""
    x = _arr(x, "elu")
    pos = x > 0
    return _where(pos, x, _mul(_param(alpha, x), _xnp.expm1(_where(pos, 0.0, x))))


def celu(x, alpha=1.0):
    """``max(x, 0) + alpha expm1(min(x, 0) / alpha)`` (JAX's formula: at 0
    the ties of max and min give derivative 1 and second derivative
    ``1 / (4 alpha)``)."""
    x = _arr(x, "celu")
    alpha = _param(alpha, x)
    m = _xnp.divide(_xnp.minimum(x, 0.0), alpha)
    return _xnp.maximum(x, 0.0) + _mul(alpha, _xnp.expm1(m))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(x):
    """``scale * elu(x, alpha)`` with the self-normalising constants."""
    return _SELU_SCALE * elu(_arr(x, "selu"), _SELU_ALPHA)


# ----- smooth activations -----
def tanh(x, /):
    """Hyperbolic tangent (``xgrad.numpy.tanh``; integers promoted to float64)."""
    return _xnp.tanh(_arr(x, "tanh"))


def sigmoid(x):
    """Logistic sigmoid ``1 / (1 + exp(-x))`` (``xgrad.numpy.special.expit``):
    no overflow, and its derivative ``sigmoid(x) sigmoid(-x)`` keeps its
    relative accuracy far out."""
    return _sp.expit(_arr(x, "sigmoid"))


def softplus(x):
    """``log(1 + exp(x))`` (``xgrad.numpy.special.softplus``: every order of
    derivative accurate, see there)."""
    return _sp.softplus(_arr(x, "softplus"))


def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``: finite for very negative x, every
    derivative accurate."""
    return -softplus(-_arr(x, "log_sigmoid"))


def silu(x):
    """``x * sigmoid(x)`` (``swish`` is the same function)."""
    x = _arr(x, "silu")
    return _mul(x, _sp.expit(x))


swish = silu


def mish(x):
    """``x * tanh(softplus(x))``.

    ``tanh(softplus(x))`` is written in ``e = exp(-|x|)``:
    ``1 - 2 e^2 / (1 + 2 e + 2 e^2)`` for ``x > 0`` and
    ``e (2 + e) / (2 + 2 e + e^2)`` otherwise, so that its distance to 1
    (about ``2 exp(-2x)``), and with it every derivative, keeps its relative
    accuracy for large x, where ``1 - tanh^2`` rounds to 0.
    """
    x = _arr(x, "mish")
    pos = x > 0
    e = _xnp.exp(_where(pos, -x, x))
    e2 = _xnp.square(e)
    t_pos = 1.0 - _xnp.divide(2.0 * e2, 1.0 + 2.0 * e + 2.0 * e2)
    t_neg = _xnp.divide(_mul(e, 2.0 + e), 2.0 + 2.0 * e + e2)
    return _mul(x, _where(pos, t_pos, t_neg))


_SQRT_2_OVER_PI = _math.sqrt(2.0 / _math.pi)
_SQRT_HALF = _math.sqrt(0.5)


def gelu(x, approximate=True):
    """Gaussian error linear unit.

    Args:
      x: input array.
      approximate: True: ``x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2``;
        False: the exact ``x erfc(-x / sqrt(2)) / 2``.

    NB: the approximate form is computed as ``x sigmoid(2 z)`` (equal to
    ``x (1 + tanh(z)) / 2``), which keeps its tail (about ``x exp(2 z)``) for
    negative x instead of rounding ``1 + tanh(z)`` to 0.
    """
    x = _arr(x, "gelu")
    if approximate:
        z = _SQRT_2_OVER_PI * (x + 0.044715 * (x * x * x))
        return _mul(x, _sp.expit(2.0 * z))
    return _mul(0.5 * x, _sp.erfc(-_SQRT_HALF * x))


def squareplus(x, b=4):
    """``(x + sqrt(x^2 + b)) / 2``, differentiable in ``b`` too.

    NB: for ``x < 0`` it is computed as ``b / (2 (sqrt(x^2 + b) - x))``, the
    same number without JAX's cancellation (JAX loses every digit of the
    result as x goes to -inf; float32 at ``x = -1e3`` is 2% off there).
    """
    x = _arr(x, "squareplus")
    b = _param(b, x)
    s = _xnp.sqrt(_xnp.add(_xnp.square(x), b))
    return _where(x >= 0, (x + s) / 2.0, _xnp.divide(b, 2.0 * (s - x)))


def log1mexp(x):
    """``log(1 - exp(-x))`` for ``x >= 0`` (nan below), accurate for small
    and large x (Maechler's two branches at ``log 2``).

    NB: each branch is differentiated as written, so the derivative
    ``1 / expm1(x)`` and the second derivative stay finite for large x
    (JAX's second derivative is nan there).
    """
    x = _arr(x, "log1mexp")
    small = x < _math.log(2.0)
    x_big = _where(small, 1.0, x)              # the other branch never sees x < log 2
    return _where(small, _xnp.log(-_xnp.expm1(-x)), _xnp.log1p(-_xnp.exp(-x_big)))


def glu(x, axis=-1):
    """Gated linear unit: ``x1 * sigmoid(x2)`` with ``x`` split in two halves
    along ``axis`` (whose size must be even)."""
    x = _arr(x, "glu")
    n = x.shape[axis]
    if n % 2:
        raise ValueError(f"glu: the size of axis {axis} must be even, got {n}")
    x1, x2 = _xnp.split(x, 2, axis=axis)
    return _mul(x1, _sp.expit(x2))


# ----- softmax and friends -----
def _mask(x, where, fill, axis):
    """``x`` with the masked-out entries set to ``fill`` (-inf), except in
    reductions where every entry is masked, which get 0 (no nan to hide)."""
    w = _xnp.broadcast_to(where, tuple(x.shape))
    ax = _xnp._norm_axis(axis, _xnp.ndim(x))
    some = _xnp.any(w, axis=ax, keepdims=True)
    return w, _where(w, x, _where(some, fill, 0.0))


def softmax(x, axis=-1, where=None):
    """``exp(x) / sum(exp(x))`` along ``axis`` (int, tuple, or None: every
    axis), without overflow; derivative ``y (t - sum(y t))``.

    Args:
      x: input array.
      axis: the axis or axes to normalise over.
      where: optional boolean mask, broadcast against ``x``: masked entries
        are left out and get 0 (and derivative 0).
    """
    x = _arr(x, "softmax")
    if where is None:
        return _sp.softmax(x, axis=axis)
    w, xs = _mask(x, where, -_math.inf, axis)
    return _where(w, _sp.softmax(xs, axis=axis), 0.0)


def log_softmax(x, axis=-1, where=None):
    """``x - logsumexp(x)`` along ``axis``; masked entries (``where`` False)
    are left out and get -inf."""
    x = _arr(x, "log_softmax")
    if where is None:
        return _sp.log_softmax(x, axis=axis)
    w, xs = _mask(x, where, -_math.inf, axis)
    return _where(w, _sp.log_softmax(xs, axis=axis), -_math.inf)


def _count(x, axis, where, keepdims):
    """How many entries each reduction over ``axis`` sees (as x's dtype)."""
    ax = _xnp._norm_axis(axis, _xnp.ndim(x))
    if where is None:
        axes = range(_xnp.ndim(x)) if ax is None else ax
        return float(_math.prod(x.shape[a] for a in axes))
    w = _xnp.astype(_xnp.broadcast_to(where, tuple(x.shape)), x.dtype)
    return _xnp.sum(w, axis=ax, keepdims=keepdims)


def logmeanexp(x, axis=None, where=None, keepdims=False):
    """``logsumexp(x) - log(n)``, the log of the mean of ``exp(x)`` over
    ``axis``, ``n`` the number of entries (with ``where``: those kept)."""
    x = _arr(x, "logmeanexp")
    lse = _sp.logsumexp(x, axis=axis, keepdims=keepdims, where=where)
    n = _count(x, axis, where, keepdims)
    return lse - (_math.log(n) if type(n) is float else _xnp.log(n))


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-05, where=None, *,
                algorithm="fast"):
    """``(x - mean) / sqrt(variance + epsilon)`` along ``axis``.

    Args:
      x: input array.
      axis: int, tuple, or None (every axis).
      mean: optional mean; default the mean of ``x`` (over ``where``).
      variance: optional variance; default by ``algorithm``.
      epsilon: added to the variance.
      where: optional boolean mask of the entries the statistics see.
      algorithm: ``"fast"``: ``mean(x^2) - mean^2`` clipped at 0 (JAX's
        default); ``"stable"``: ``mean((x - mean)^2)``.
    """
    if algorithm not in ("fast", "stable"):
        raise ValueError(f"standardize: unknown algorithm {algorithm!r}; expected 'fast' or 'stable'")
    x = _arr(x, "standardize")
    ax = _xnp._norm_axis(axis, _xnp.ndim(x))

    def _mean(v):
        if where is None:
            return _xnp.mean(v, axis=ax, keepdims=True)
        w = _xnp.broadcast_to(where, tuple(v.shape))
        return _xnp.divide(_xnp.sum(_where(w, v, 0.0), axis=ax, keepdims=True),
                           _count(v, ax, where, True))
    if mean is None:
        mean = _mean(x)
    if variance is None:
        if algorithm == "stable":
            variance = _mean(_xnp.square(_xnp.subtract(x, mean)))
        else:
            variance = _xnp.maximum(_mean(_xnp.square(x)) - _xnp.square(mean), 0.0)
    return _xnp.divide(_xnp.subtract(x, mean), _xnp.sqrt(_xnp.add(variance, epsilon)))


def one_hot(x, num_classes, *, dtype=None, axis=-1):
    """Entry ``i`` of ``x`` becomes a vector of ``num_classes`` zeros with a 1
    at ``x[i]`` (all zeros outside ``[0, num_classes)``), placed at ``axis``
    of the result. ``dtype`` defaults to float64; no derivative."""
    if not isinstance(num_classes, int) or isinstance(num_classes, bool):
        raise TypeError(f"one_hot: num_classes must be an int, got {type(num_classes).__name__}")
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"one_hot: axis must be an int (named axes are not supported), got {axis!r}")
    if type(x) in _SCALAR_TYPES:
        x = _xnp.asarray(x)
    nd = _xnp.ndim(x) + 1
    if not -nd <= axis < nd:
        raise ValueError(f"one_hot: axis {axis} is out of bounds for a result of {nd} dimensions")
    axis %= nd
    xp = _backend_of(x)
    classes = xp.arange(num_classes, device=_xnp._device_of(x))
    classes = xp.reshape(classes, (num_classes,) + (1,) * (nd - 1 - axis))
    hit = _xnp.equal(_xnp.expand_dims(x, axis=axis), _xnp.astype(classes, x.dtype))
    return _xnp.astype(hit, _dtype_in(xp, "float64" if dtype is None else dtype))


# ----- attention -----
def _as4d(t, name):
    t = _arr(t, "dot_product_attention", name) if name != "mask" else t
    if _xnp.ndim(t) > 4:
        raise ValueError(f"dot_product_attention: {name} must have at most 4 dimensions, "
                         f"got shape {tuple(t.shape)}")
    while _xnp.ndim(t) < 4:
        t = _xnp.expand_dims(t, axis=0)
    return t


def _positions(xp, n, dev, shape):
    return xp.reshape(xp.arange(n, device=dev), shape)


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None, is_causal=False,
                          query_seq_lengths=None, key_value_seq_lengths=None,
                          local_window_size=None, implementation=None, return_residual=False):
    """Scaled dot-product attention ``softmax(Q K^T * scale + bias) V`` per
    head, with JAX's shapes and masks (``implementation='xla'``).

    Shapes: ``B`` batch, ``T`` query length, ``S`` key length, ``N`` query
    heads, ``K`` key/value heads (``N`` a multiple of ``K``: grouped-query
    attention, query head ``n`` reads key head ``n // (N // K)``), ``H``
    head size.

    Args:
      query: ``(B, T, N, H)`` or ``(T, N, H)``.
      key: ``(B, S, K, H)`` or ``(S, K, H)``.
      value: the shape of ``key``.
      bias: optional, added to the logits; broadcast to ``(B, N, T, S)``.
      mask: optional boolean, True where a logit takes part; broadcast to
        ``(B, N, T, S)``.
      scale: logit scale, default ``1 / sqrt(H)``.
      is_causal: query ``t`` attends to keys ``s <= t`` only.
      query_seq_lengths: optional ``(B,)`` integers: the rows of the output
        past each length are 0.
      key_value_seq_lengths: optional ``(B,)`` integers: keys past each
        length are masked.
      local_window_size: ``(left, right)`` or an int for both: query ``t``
        attends to keys ``t - left <= s <= t + right``.
      implementation: None or ``'xla'`` (the only one; ``'cudnn'`` raises).
      return_residual: also return the log-sum-exp of the masked logits,
        shape ``(B, T, N)`` (no derivative).

    Masked logits are set to ``-0.7 * finfo(float32).max`` (as JAX), so a row
    with every key masked attends uniformly instead of giving nan.

    NB: the softmax runs in the input's dtype; JAX rounds float64 logits to
    float32 for it, so float64 results agree with JAX to about 1e-7.

    Returns:
      The output, the shape of ``query``; with ``return_residual``, a pair
      ``(output, residual)``.
    """
    if implementation not in (None, "xla"):
        raise ValueError(f"dot_product_attention: implementation={implementation!r} is not "
                         "supported; xgrad implements 'xla' (or None)")
    out_shape = tuple(_arr(query, "dot_product_attention", "query").shape)
    q, k, v = _as4d(query, "query"), _as4d(key, "key"), _as4d(value, "value")
    B, S, K, H = k.shape
    if tuple(v.shape) != (B, S, K, H):
        raise ValueError(f"dot_product_attention: value shape should be {(B, S, K, H)}, "
                         f"got {tuple(v.shape)}")
    if q.shape[0] != B or q.shape[3] != H:
        raise ValueError(f"dot_product_attention: query shape should be {(B, -1, -1, H)}, "
                         f"got {tuple(q.shape)}")
    if q.dtype != k.dtype or v.dtype != k.dtype:
        raise ValueError(f"dot_product_attention: query, key and value must have one dtype, got "
                         f"{q.dtype}, {k.dtype}, {v.dtype}")
    T, N = q.shape[1], q.shape[2]
    if N % K:
        raise ValueError(f"dot_product_attention: the number of query heads must be a multiple "
                         f"of key/value heads, but got {N} vs {K}")
    if K != N:                                      # grouped-query attention
        k = _xnp.repeat(k, N // K, axis=2)
        v = _xnp.repeat(v, N // K, axis=2)
    scale = 1.0 / _math.sqrt(H) if scale is None else scale
    logits = _xnp.einsum("btnh,bsnh->bnts", q, k) * scale
    if bias is not None:
        logits = _xnp.add(logits, _as4d(bias, "bias"))
    xp = _backend_of(logits)
    dev = _xnp._device_of(logits)
    keep = None

    def _and(a, b):
        return b if a is None else _xnp.logical_and(a, b)
    if mask is not None:
        if type(mask) in _SCALAR_TYPES or not hasattr(mask, "dtype") or \
                _dtype_in(_backend_of(mask), "bool") != mask.dtype:
            raise ValueError("dot_product_attention: mask must be a boolean array "
                             "(for an additive mask, pass it as bias)")
        keep = _and(keep, _as4d(mask, "mask"))
    t_pos = _positions(xp, T, dev, (T, 1))
    s_pos = _positions(xp, S, dev, (1, S))
    if is_causal:
        keep = _and(keep, xp.reshape(s_pos <= t_pos, (1, 1, T, S)))
    if local_window_size is not None:
        left, right = ((local_window_size, local_window_size) if isinstance(local_window_size, int)
                       else tuple(local_window_size))
        win = xp.logical_and(t_pos <= s_pos + left, t_pos >= s_pos - right)
        keep = _and(keep, xp.reshape(win, (1, 1, T, S)))
    for lengths, pos, name, shape in ((query_seq_lengths, t_pos, "query_seq_lengths", (B, 1, T, 1)),
                                      (key_value_seq_lengths, s_pos, "key_value_seq_lengths",
                                       (B, 1, 1, S))):
        if lengths is None:
            continue
        if not hasattr(lengths, "shape") or tuple(lengths.shape) != (B,) or \
                _is_inexact(lengths.dtype):
            raise ValueError(f"dot_product_attention: {name} must be an integer array of "
                             f"shape {(B,)}")
        keep = _and(keep, _xnp.reshape(_xnp.less(_xnp.reshape(pos, (1, -1)),
                                                 _xnp.reshape(lengths, (B, 1))), shape))
    if keep is not None:
        big = -0.7 * min(float(_xnp.finfo(logits.dtype).max), float(_xnp.finfo("float32").max))
        logits = _where(keep, logits, big)
    probs = _sp.softmax(logits, axis=-1)
    out = _xnp.einsum("bnts,bsnh->btnh", probs, v)
    if query_seq_lengths is not None:
        rows = _xnp.less(_xnp.reshape(t_pos, (1, T)), _xnp.reshape(query_seq_lengths, (B, 1)))
        out = _where(_xnp.reshape(rows, (B, T, 1, 1)), out, 0.0)
    out = _xnp.reshape(out, out_shape)
    if not return_residual:
        return out
    lse = _bind(_stop_p, _sp.logsumexp(logits, axis=-1))           # (B, N, T)
    lse = _xnp.reshape(_xnp.permute_dims(lse, (0, 2, 1)), out_shape[:-1])
    return out, lse
