"""``xgrad.scipy.signal``: the functions of ``jax.scipy.signal``, as
composites of ``xgrad.numpy`` (so every one works on plain and traced arrays,
differentiates at every order and batches under ``vmap``).

- ``convolve``/``correlate`` (N-D, ``method`` 'auto'/'direct' or 'fft'),
  ``convolve2d``/``correlate2d``: direct sums, as JAX. The padded first
  input is cut into windows, one stacked slice per kernel offset and axis,
  and contracted with the flipped kernel in one ``tensordot``: ``sum(k)``
  slices rather than ``prod(k)`` products.
- ``fftconvolve`` (``axes``): by ``xgrad.numpy.fft``.
- ``detrend`` ('constant' or 'linear', with breakpoints ``bp``).

Not here (yet): ``stft``, ``istft``, ``welch``, ``csd``.

>>> import numpy as np, xgrad.scipy as xsp
>>> xsp.signal.convolve(np.asarray([1.0, 2.0, 3.0]), np.asarray([1.0, 1.0])).tolist()
[1.0, 3.0, 5.0, 3.0]
"""
import operator as _operator

import numpy as _np

from .. import numpy as _xnp
from ..backends import backend_of as _backend_of
from ..numpy._stats import _arr, _promote_inexact

__all__ = ["convolve", "correlate", "convolve2d", "correlate2d", "fftconvolve", "detrend"]

_MODES = ("full", "same", "valid")


def _check_mode(fname, mode):
    if mode not in _MODES:
        raise ValueError(f"{fname}: mode must be one of {list(_MODES)}, got {mode!r}")


def _inputs(fname, in1, in2):
    in1 = _arr(in1)
    in2 = _arr(in2, like=in1)
    if in1.ndim != in2.ndim:
        raise ValueError(f"{fname}: in1 and in2 must have the same number of dimensions, got "
                         f"shapes {tuple(in1.shape)} and {tuple(in2.shape)}")
    return _promote_inexact(in1, in2)


def _conj(x):
    return _xnp.conj(x) if _xnp.isdtype(x.dtype, "complex floating") else x


def _correlate_valid(a, w):
    """``out[i] = sum_j a[i + j] w[j]`` over every ``j`` where ``w`` fits inside
    ``a`` (the same number of dimensions; ``w`` no larger along any axis)."""
    nd = a.ndim
    x = a
    for d in range(nd):
        k = w.shape[d]
        n = a.shape[d] - k + 1
        # x: (k_0..k_{d-1}, n_0..n_{d-1}, P_d, ...) -> a new window axis at d
        lead = (slice(None),) * (2 * d)
        x = _xnp.stack([x[lead + (slice(j, j + n), Ellipsis)] for j in range(k)], axis=d)
    return _xnp.tensordot(w, x, axes=nd)


def _convolve_nd(fname, in1, in2, mode):
    _check_mode(fname, mode)
    in1, in2 = _inputs(fname, in1, in2)
    if _np.prod(in1.shape) == 0 or _np.prod(in2.shape) == 0:
        raise ValueError(f"{fname}: zero-size arrays are not supported, got shapes "
                         f"{tuple(in1.shape)} and {tuple(in2.shape)}")
    no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape))
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    if not (no_swap or swap):
        raise ValueError(f"{fname}: one input must be smaller than the other in every "
                         f"dimension, got shapes {tuple(in1.shape)} and {tuple(in2.shape)}")
    shape_o = tuple(in2.shape)
    if swap:
        in1, in2 = in2, in1
    shape = tuple(in2.shape)
    if mode == "valid":
        pads = [(0, 0)] * len(shape)
    elif mode == "same":
        pads = [(s - 1 - (so - 1) // 2, s - so + (so - 1) // 2) for s, so in zip(shape, shape_o)]
    else:
        pads = [(s - 1, s - 1) for s in shape]
    if any(p > 0 for pair in pads for p in pair):
        in1 = _xnp.pad(in1, [(max(lo, 0), max(hi, 0)) for lo, hi in pads])
    if any(p < 0 for pair in pads for p in pair):      # 'same' with in1 the smaller: crop
        in1 = in1[tuple(slice(-min(lo, 0), n + min(hi, 0) if hi < 0 else n)
                        for (lo, hi), n in zip(pads, in1.shape))]
    return _correlate_valid(in1, _xnp.flip(in2))


def convolve(in1, in2, mode="full", method="auto", precision=None):
    """Convolution of two N-dimensional arrays (``scipy.signal.convolve``).

    Args:
        in1: the first input.
        in2: the second input, with as many dimensions as ``in1``; one of
            the two must be at least as large as the other along every axis.
        mode: ``'full'`` (the whole convolution), ``'same'`` (centred, the
            shape of ``in1``) or ``'valid'`` (no zero padding involved).
        method: ``'auto'`` or ``'direct'`` (a direct sum, as JAX), or
            ``'fft'`` (``fftconvolve``).
        precision: accepted for JAX's signature and ignored.

    Returns:
        The convolution, in the inexact dtype of the inputs (integers and
        booleans become float64).
    """
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method not in ("auto", "direct"):
        raise ValueError(f"convolve: method must be 'auto', 'direct' or 'fft', got {method!r}")
    return _convolve_nd("convolve", in1, in2, mode)


def correlate(in1, in2, mode="full", method="auto", precision=None):
    """Cross-correlation of two N-dimensional arrays: ``convolve(in1,
    flip(conj(in2)))`` (``scipy.signal.correlate``; arguments as
    ``convolve``)."""
    in1 = _arr(in1)
    in2 = _arr(in2, like=in1)
    return convolve(in1, _xnp.flip(_conj(in2)), mode, method=method)


def _check_2d(fname, in1, in2, boundary, fillvalue):
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{fname}: only boundary='fill' with fillvalue=0 is "
                                  f"supported (as in JAX), got boundary={boundary!r}, "
                                  f"fillvalue={fillvalue!r}")
    in1 = _arr(in1)
    in2 = _arr(in2, like=in1)
    if in1.ndim != 2 or in2.ndim != 2:
        raise ValueError(f"{fname}: expected 2-D inputs, got shapes {tuple(in1.shape)} and "
                         f"{tuple(in2.shape)}")
    return in1, in2


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """Convolution of two 2-D arrays (``scipy.signal.convolve2d``);
    ``boundary='fill'`` with ``fillvalue=0`` only, as JAX. ``precision`` is
    ignored."""
    in1, in2 = _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _convolve_nd("convolve2d", in1, in2, mode)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """Cross-correlation of two 2-D arrays (``scipy.signal.correlate2d``);
    ``boundary='fill'`` with ``fillvalue=0`` only, as JAX, and JAX's
    results where the inputs are swapped. ``precision`` is ignored."""
    in1, in2 = _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    _check_mode("correlate2d", mode)
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    same_shape = tuple(in1.shape) == tuple(in2.shape)
    if mode == "valid" and swap and not same_shape:
        return _convolve_nd("correlate2d", _xnp.flip(in2), _conj(in1), mode)
    if mode == "full" and swap:
        return _conj(_convolve_nd("correlate2d", _xnp.flip(in2), _conj(in1), mode))
    return _xnp.flip(_convolve_nd("correlate2d", _xnp.flip(in1), _conj(in2), mode))


def _axes_of(axes, nd):
    if axes is None:
        return tuple(range(nd))
    if not isinstance(axes, (tuple, list)):
        axes = (axes,)
    out = []
    for a in axes:
        a = _operator.index(a)
        if not -nd <= a < nd:
            raise ValueError(f"fftconvolve: axis {a} is out of range for {nd} dimension(s)")
        out.append(a % nd)
    if len(set(out)) != len(out):
        raise ValueError(f"fftconvolve: axes={axes!r} repeats an axis")
    return tuple(out)


def fftconvolve(in1, in2, mode="full", axes=None):
    """Convolution by FFT (``scipy.signal.fftconvolve``), over ``axes`` (all
    by default); along the other axes the inputs must have the same length
    and are paired entry by entry, as JAX.

    Args:
        in1: the first input.
        in2: the second input, with as many dimensions as ``in1``.
        mode: ``'full'``, ``'same'`` or ``'valid'`` (see ``convolve``).
        axes: the axes to convolve over.

    Returns:
        The convolution, in the inexact dtype of the inputs.
    """
    _check_mode("fftconvolve", mode)
    in1, in2 = _inputs("fftconvolve", in1, in2)
    nd = in1.ndim
    axes = _axes_of(axes, nd)
    for i in range(nd):
        if i not in axes and in1.shape[i] != in2.shape[i]:
            raise ValueError(f"fftconvolve: the axes not convolved over must have the same "
                             f"length, got shapes {tuple(in1.shape)} and {tuple(in2.shape)} "
                             f"with axes={axes}")
    s1 = [in1.shape[a] for a in axes]
    s2 = [in2.shape[a] for a in axes]
    full = [a + b - 1 for a, b in zip(s1, s2)]
    if mode == "valid":
        no_swap = all(a >= b for a, b in zip(s1, s2))
        swap = all(a <= b for a, b in zip(s1, s2))
        if not (no_swap or swap):
            raise ValueError("fftconvolve: for mode 'valid', one input must be at least as "
                             "large as the other along every axis")
        if swap:
            in1, in2, s1, s2 = in2, in1, s2, s1
    if all(a == 1 or b == 1 for a, b in zip(s1, s2)):
        conv = _xnp.multiply(in1, in2)
    elif _xnp.isdtype(in1.dtype, "complex floating"):
        sp = _xnp.multiply(_xnp.fft.fftn(in1, s=full, axes=axes), _xnp.fft.fftn(in2, s=full, axes=axes))
        conv = _xnp.fft.ifftn(sp, s=full, axes=axes)
    else:
        sp = _xnp.multiply(_xnp.fft.rfftn(in1, s=full, axes=axes),
                           _xnp.fft.rfftn(in2, s=full, axes=axes))
        conv = _xnp.fft.irfftn(sp, s=full, axes=axes)
    if mode == "full":
        out = full
    elif mode == "same":
        out = s1
    else:
        out = [a - b + 1 for a, b in zip(s1, s2)]
    idx = [slice(None)] * nd
    for a, f, o in zip(axes, full, out):
        start = (f - o) // 2
        idx[a] = slice(start, start + o)
    return conv[tuple(idx)]


def detrend(data, axis=-1, type="linear", bp=0, overwrite_data=None):  # noqa: A002
    """``data`` minus its mean (``type='constant'``) or minus its
    least-squares line on each piece between the breakpoints ``bp``
    (``type='linear'``) along ``axis`` (``scipy.signal.detrend``).
    Linear in ``data``."""
    if overwrite_data is not None:
        raise NotImplementedError("detrend: the overwrite_data argument is not supported")
    if type not in ("constant", "linear"):
        raise ValueError(f"detrend: type must be 'linear' or 'constant', got {type!r}")
    (x,) = _promote_inexact(_arr(data))
    if type == "constant":
        return _xnp.subtract(x, _xnp.mean(x, axis=axis, keepdims=True))
    n = x.shape[axis]
    bps = _np.sort(_np.unique(_np.r_[0, bp, n]))
    if bps[0] < 0 or bps[-1] > n:
        raise ValueError(f"detrend: breakpoints must lie in [0, {n}] (the length along axis), "
                         f"got bp={bp!r}")
    x = _xnp.moveaxis(x, axis, 0)
    shape = tuple(x.shape)
    x = _xnp.reshape(x, (n, -1))
    real = _np.float32 if str(x.dtype) in ("float32", "complex64") else _np.float64
    pieces = []
    for lo, hi in zip(bps[:-1], bps[1:]):
        m = int(hi - lo)
        # the projection onto span{1, t} of this piece: a constant (numpy, then the backend)
        a = _np.stack([_np.ones(m), _np.arange(1, m + 1) / m], axis=1)
        proj = _np.eye(m) - a @ _np.linalg.pinv(a)
        proj = _backend_of(x).asarray(proj.astype(real), device=_xnp._device_of(x))
        pieces.append(_xnp.matmul(proj, x[int(lo):int(hi), :]))
    out = _xnp.concat(pieces, axis=0) if len(pieces) > 1 else pieces[0]
    return _xnp.moveaxis(_xnp.reshape(out, shape), 0, axis)
