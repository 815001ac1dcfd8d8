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
- ``stft``, ``csd``, ``welch``: windowed segments (stacked slices), then
  ``xgrad.numpy.fft``; windows other than 'hann' come from
  ``scipy.signal.get_window`` (constants; scipy imported on first use).

- ``istft``: inverse FFTs of the frames, windowed overlap-add.

>>> import numpy as np, xgrad.scipy as xsp
>>> xsp.signal.convolve(np.asarray([1.0, 2.0, 3.0]), np.asarray([1.0, 1.0])).tolist()
[1.0, 3.0, 5.0, 3.0]
"""
import operator as _operator
import warnings as _warnings

import numpy as _np

from .. import numpy as _xnp
from ..backends import backend_of as _backend_of
from ..core import Tracer as _Tracer
from ..numpy._stats import _arr, _promote_inexact

__all__ = ["convolve", "correlate", "convolve2d", "correlate2d", "fftconvolve", "detrend",
           "stft", "istft", "csd", "welch"]

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


# --------------------------------------------------------------------------
# spectral estimates

def _window(window, nperseg, length, real):
    """``(win, nperseg)`` as JAX's: a named window of ``nperseg`` points
    (default: the input's length, capped there), or the given array."""
    if isinstance(window, (str, tuple)):
        n = length if nperseg is None else _operator.index(nperseg)
        if n > length:
            _warnings.warn(f"nperseg={n} is greater than input_length={length}, using "
                           f"nperseg={length}", stacklevel=3)
            n = length
        if window == "hann":     # the periodic Hann window
            win = _np.ones(1) if n == 1 else _np.sin(_np.linspace(0, _np.pi, n, endpoint=False)) ** 2
        else:
            # optional third-party package: scipy, for the other named windows
            from scipy.signal import get_window
            win = get_window(window, n)
        return _np.asarray(win, dtype=real), n
    win = _np.asarray(_xnp.asarray(window) if not hasattr(window, "shape") else window,
                      dtype=real)
    if win.ndim != 1:
        raise ValueError("window must be 1-D")
    if length < win.size:
        raise ValueError("window is longer than input signal")
    n = win.size if nperseg is None else _operator.index(nperseg)
    if n != win.size:
        raise ValueError("value specified for nperseg is different from length of window")
    return win, n


def _extend(x, n, boundary):
    """``x`` extended by ``n`` points at both ends of its last axis."""
    if boundary is None or n == 0:
        return x
    pads = [(0, 0)] * (x.ndim - 1) + [(n, n)]
    if boundary == "even":
        return _xnp.pad(x, pads, mode="reflect")
    if boundary == "constant":
        return _xnp.pad(x, pads, mode="edge")
    if boundary == "zeros":
        return _xnp.pad(x, pads)
    # odd: 2 x[0] - x[n:0:-1] in front, 2 x[-1] - x[-2:-n-2:-1] behind
    left = _xnp.subtract(_xnp.multiply(x[..., :1], 2.0), _xnp.flip(x[..., 1:n + 1], axis=-1))
    right = _xnp.subtract(_xnp.multiply(x[..., -1:], 2.0),
                          _xnp.flip(x[..., -(n + 1):-1], axis=-1))
    return _xnp.concat([left, x, right], axis=-1)


def _segments(x, win, detrend_fn, nperseg, noverlap, nfft, twosided):
    """FFTs of the windowed, detrended segments: (..., segments, freqs)."""
    step = nperseg - noverlap
    length = x.shape[-1]
    seg = _xnp.stack([x[..., i:i + nperseg] for i in range(0, length - nperseg + 1, step)],
                     axis=-2)
    seg = detrend_fn(seg)
    w = _backend_of(seg).asarray(win, device=_xnp._device_of(seg))
    seg = _xnp.multiply(seg, w)
    if twosided:
        return _xnp.fft.fft(seg, n=nfft)
    return _xnp.fft.rfft(_xnp.real(seg) if _xnp.isdtype(seg.dtype, "complex floating") else seg,
                         n=nfft)


def _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend_type, return_onesided,
              scaling, axis, mode, boundary=None, padded=False):
    if boundary not in ("even", "odd", "constant", "zeros", None):
        raise ValueError(f"unknown boundary option {boundary!r}: expected one of 'even', "
                         f"'odd', 'constant', 'zeros', None")
    x = _arr(x)
    nd = x.ndim
    axis = _operator.index(axis)
    if not -nd <= axis < nd:
        raise ValueError(f"axis {axis} is out of range for {nd} dimension(s)")
    axis %= nd
    if y is None:
        (x,) = _promote_inexact(x)
    else:
        y = _arr(y, like=x)
        x, y = _promote_inexact(x, y)
        if x.ndim != y.ndim:
            raise ValueError(f"x and y must have the same number of dimensions, got "
                             f"{x.ndim} and {y.ndim}")
    cplx = _xnp.isdtype(x.dtype, "complex floating")
    real = {"float32": _np.float32, "complex64": _np.float32}.get(str(x.dtype), _np.float64)
    win, nperseg = _window(window, nperseg, x.shape[axis], real)
    if nperseg < 1:
        raise ValueError("nperseg must be a positive integer")
    noverlap = nperseg // 2 if noverlap is None else _operator.index(noverlap)
    nfft = nperseg if nfft is None else _operator.index(nfft)
    if nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg")
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg")
    x = _xnp.moveaxis(x, axis, -1)
    if y is not None:
        y = _xnp.moveaxis(y, axis, -1)
        d = x.shape[-1] - y.shape[-1]
        if d:
            if d < 0:
                x = _xnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, -d)])
            else:
                y = _xnp.pad(y, [(0, 0)] * (y.ndim - 1) + [(0, d)])
    step = nperseg - noverlap
    x = _extend(x, nperseg // 2, boundary)
    if y is not None:
        y = _extend(y, nperseg // 2, boundary)
    if padded:
        nadd = (-(x.shape[-1] - nperseg) % step) % nperseg
        if nadd:
            x = _xnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, nadd)])
            if y is not None:
                y = _xnp.pad(y, [(0, 0)] * (y.ndim - 1) + [(0, nadd)])
    if isinstance(detrend_type, str):
        def detrend_fn(d):
            return detrend(d, axis=-1, type=detrend_type)
    elif callable(detrend_type):
        detrend_fn = detrend_type
    elif not detrend_type:
        def detrend_fn(d):
            return d
    else:
        raise ValueError(f"unsupported detrend type: {detrend_type!r}")
    if isinstance(fs, _Tracer):
        raise NotImplementedError("the sampling frequency fs has no derivative here: pass a "
                                  "number (or xgrad.stop_gradient(fs))")
    fs = float(fs)
    if scaling == "density":
        scale = 1.0 / (fs * float((win * win).sum()))
    elif scaling == "spectrum":
        scale = 1.0 / float(win.sum()) ** 2
    else:
        raise ValueError(f"unknown scaling: {scaling!r}")
    if mode == "stft":
        scale = scale ** 0.5
    twosided = not return_onesided
    if return_onesided and cplx:
        _warnings.warn("Input data is complex, switching to return_onesided=False", stacklevel=3)
        twosided = True
    freqs = (_np.fft.fftfreq if twosided else _np.fft.rfftfreq)(nfft, d=1.0 / fs)
    res = _segments(x, win, detrend_fn, nperseg, noverlap, nfft, twosided)
    if y is not None:
        ry = _segments(y, win, detrend_fn, nperseg, noverlap, nfft, twosided)
        res = _xnp.multiply(_xnp.conj(res), ry)
    elif mode == "psd":
        res = _xnp.multiply(_xnp.conj(res), res)
    res = _xnp.multiply(res, scale)
    if not twosided and mode == "psd":
        nf = res.shape[-1]
        end = nf if nfft % 2 else nf - 1
        two = _np.ones(nf, dtype=real)
        two[1:end] = 2.0
        res = _xnp.multiply(res, _backend_of(res).asarray(two, device=_xnp._device_of(res)))
    t = _np.arange(nperseg / 2, x.shape[-1] - nperseg / 2 + 1, step, dtype=real) / fs
    if boundary is not None:
        t = t - (nperseg / 2) / fs
    xp, dev = _backend_of(x), _xnp._device_of(x)
    freqs = xp.asarray(freqs.astype(real), device=dev)
    times = xp.asarray(_np.asarray(t, dtype=real), device=dev)
    if y is None and mode != "stft":
        res = _xnp.real(res)
    return freqs, times, _xnp.moveaxis(res, -1, axis)


def stft(x, fs=1.0, window="hann", nperseg=256, noverlap=None, nfft=None, detrend=False,
         return_onesided=True, boundary="zeros", padded=True, axis=-1):
    """Short-time Fourier transform (``scipy.signal.stft``, JAX's defaults):
    ``(f, t, Zxx)``, ``Zxx`` complex with frequencies at ``axis`` and
    segments last. Differentiable in ``x``.

    Args:
        x: the signal.
        fs: the sampling frequency.
        window: a window name ('hann', or any of ``scipy.signal.get_window``)
            or a 1-D array.
        nperseg: the segment length (capped at the signal's length).
        noverlap: the overlap of segments (default ``nperseg // 2``).
        nfft: the FFT length (default ``nperseg``).
        detrend: False, 'constant', 'linear' or a function of the segments.
        return_onesided: one-sided spectrum for real input.
        boundary: extension at both ends: 'zeros', 'even', 'odd',
            'constant' or None.
        padded: zero-pad the end so the last segment is whole.
        axis: the time axis.

    Returns:
        ``(f, t, Zxx)``.
    """
    return _spectral(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                     "spectrum", axis, "stft", boundary, padded)


def _median_bias(n):
    k = _np.arange(2.0, n, 2)
    return 1.0 + float(_np.sum(1.0 / (k + 1) - 1.0 / k))


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
        detrend="constant", return_onesided=True, scaling="density", axis=-1, average="mean"):
    """Cross power spectral density by Welch's method
    (``scipy.signal.csd``): ``(f, Pxy)``, averaged over segments by
    ``average`` ('mean' or 'median'); ``y=None`` gives ``x``'s power
    spectral density. Arguments as ``stft``'s, plus ``scaling``
    ('density' or 'spectrum'). Differentiable in ``x`` and ``y``."""
    if average not in ("mean", "median"):
        raise ValueError(f"average must be 'median' or 'mean', got {average!r}")
    freqs, _, pxy = _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend,
                              return_onesided, scaling, axis, "psd")
    if y is not None and not _xnp.isdtype(pxy.dtype, "complex floating"):
        pxy = _xnp.astype(pxy, _xnp.complex64 if pxy.dtype == _xnp.float32 else _xnp.complex128)
    if pxy.ndim >= 2 and pxy.shape[-1] > 1:
        if average == "median":
            bias = _median_bias(pxy.shape[-1])
            if _xnp.isdtype(pxy.dtype, "complex floating"):
                cdt = pxy.dtype
                pxy = _xnp.add(_xnp.astype(_xnp.median(_xnp.real(pxy), axis=-1), cdt),
                               _xnp.multiply(_xnp.astype(_xnp.median(_xnp.imag(pxy), axis=-1),
                                                         cdt), 1j))
            else:
                pxy = _xnp.median(pxy, axis=-1)
            pxy = _xnp.divide(pxy, bias)
        else:
            pxy = _xnp.mean(pxy, axis=-1)
    elif pxy.ndim >= 2:
        pxy = pxy[..., 0]
    return freqs, pxy


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None, detrend="constant",
          return_onesided=True, scaling="density", axis=-1, average="mean"):
    """Power spectral density by Welch's method (``scipy.signal.welch``):
    ``(f, Pxx)``, real; arguments as ``csd``'s."""
    freqs, pxx = csd(x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap,
                     nfft=nfft, detrend=detrend, return_onesided=return_onesided,
                     scaling=scaling, axis=axis, average=average)
    return freqs, _xnp.real(pxx) if _xnp.isdtype(pxx.dtype, "complex floating") else pxx


def _overlap_add(frames, step):
    """Sum of the frames (..., F, L), frame ``f`` starting at ``f * step``."""
    nf, seg = frames.shape[-2], frames.shape[-1]
    total = step * (nf - 1) + seg
    lead = [(0, 0)] * (frames.ndim - 2)
    out = None
    for f in range(nf):
        part = _xnp.pad(frames[..., f, :], lead + [(f * step, total - f * step - seg)])
        out = part if out is None else _xnp.add(out, part)
    return out


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2):
    """Inverse short-time Fourier transform (``scipy.signal.istft``):
    ``(t, x)`` by inverse FFTs of the frames and a windowed overlap-add,
    normalised by the summed squared window. Differentiable in ``Zxx``.
    NB: ``t`` runs along the time axis of ``x`` (JAX's counts the first
    axis of a batched ``x``)."""
    z = _arr(Zxx)
    if z.ndim < 2:
        raise ValueError("istft: the input STFT must be at least 2-D")
    nd = z.ndim
    fa, ta = _operator.index(freq_axis) % nd, _operator.index(time_axis) % nd
    if fa == ta:
        raise ValueError("istft: time_axis and freq_axis must differ")
    if not _xnp.isdtype(z.dtype, "complex floating"):
        z = _xnp.astype(z, _xnp.complex64 if z.dtype == _xnp.float32 else _xnp.complex128)
    n_default = 2 * (z.shape[fa] - 1) if input_onesided else z.shape[fa]
    nperseg = _operator.index(nperseg or n_default)
    if nperseg < 1:
        raise ValueError("nperseg must be a positive integer")
    if nfft is None:
        nfft = n_default + (1 if input_onesided and nperseg == n_default + 1 else 0)
    nfft = _operator.index(nfft)
    if nfft < nperseg:
        raise ValueError(f"istft: the FFT length ({nfft}) must be at least nperseg ({nperseg})")
    noverlap = _operator.index(noverlap or nperseg // 2)
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg")
    step = nperseg - noverlap
    if (fa, ta) != (nd - 2, nd - 1):
        outer = tuple(i for i in range(nd) if i not in (fa, ta))
        z = _xnp.permute_dims(z, outer + (fa, ta))
    frames = (_xnp.fft.irfft if input_onesided else _xnp.fft.ifft)(z, n=nfft, axis=-2)
    frames = _xnp.matrix_transpose(frames[..., :nperseg, :])                 # (..., F, L)
    real = _np.float32 if str(frames.dtype) in ("float32", "complex64") else _np.float64
    if isinstance(window, (str, tuple)):
        win, _ = _window(window, nperseg, nperseg, real)
    else:
        win = _np.asarray(window, dtype=real)
        if win.ndim != 1:
            raise ValueError("window must be 1-D")
        if win.shape[0] != nperseg:
            raise ValueError(f"window must have length {nperseg}")
    xp, dev = _backend_of(frames), _xnp._device_of(frames)
    w = xp.asarray(win * win.sum(), device=dev)        # the 'spectrum' scaling, then the window
    x = _overlap_add(_xnp.multiply(frames, w), step)
    norm = _ola_np(win * win, frames.shape[-2], step)
    if boundary:
        h = nperseg // 2
        x = x[..., h:x.shape[-1] - h]
        norm = norm[h:norm.shape[0] - h]
    norm = _np.where(norm > 1e-10, norm, 1.0)
    x = _xnp.divide(x, xp.asarray(norm.astype(real), device=dev))
    if x.ndim > 1 and ta != nd - 1:
        x = _xnp.moveaxis(x, -1, ta - 1 if fa < ta else ta)
    t = xp.asarray((_np.arange(x.shape[-1] if x.ndim == 1 or ta == nd - 1 else
                               x.shape[ta - 1 if fa < ta else ta]) / float(fs)).astype(real),
                   device=dev)
    return t, x


def _ola_np(w2, nframes, step):
    """The overlap-add of ``nframes`` copies of ``w2`` (numpy)."""
    out = _np.zeros(step * (nframes - 1) + w2.shape[0])
    for f in range(nframes):
        out[f * step:f * step + w2.shape[0]] += w2
    return out
