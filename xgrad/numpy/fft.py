"""``xgrad.numpy.fft``: the array API ``fft`` extension, differentiable.

Complex transforms, real-to-half-spectrum and back are three primitives
(``xgrad/rules/fft.py``); ``hfft``/``ihfft`` and the shifts are composites;
``fftfreq``/``rfftfreq`` make constants. Complex tangents and cotangents
follow JAX's conventions.
"""
from ..core import RULES as _RULES, bind as _bind
from ..backends import backend_of as _backend_of, is_complex as _is_complex, dtype_in as _dtype_in
from ..rules import fft as _rules  # noqa: F401  (registers the rows)
from . import (astype as _astype, conj as _conj, roll as _roll, _norm_axis, _ndim, _creation_xp)

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft",
           "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift", "fft2", "ifft2", "rfft2",
           "irfft2"]

_c2c_p, _r2c_p, _c2r_p = _RULES["fft_c2c"], _RULES["fft_r2c"], _RULES["fft_c2r"]
_NORMS = ("backward", "ortho", "forward")


def _check_norm(norm):
    if norm is None:                  # JAX's default: "backward"
        return "backward"
    if norm not in _NORMS:
        raise ValueError(f"norm={norm!r}; expected one of {_NORMS}")
    return norm


def _complex(x):
    if _is_complex(x.dtype):
        return x
    name = str(getattr(x.dtype, "name", x.dtype)).rsplit(".", 1)[-1]
    xp = _backend_of(x)
    return _astype(x, xp.complex64 if name == "float32" else xp.complex128)


def _axes_s(x, s, axes, fname):
    nd = _ndim(x)
    if axes is None:
        axes = tuple(range(nd)) if s is None else tuple(range(nd - len(s), nd))
    axes = tuple(a % nd for a in axes) if nd else tuple(axes)
    for a in axes:
        if not 0 <= a < nd:
            raise ValueError(f"{fname}: axis {a} is out of range for {nd} dimension(s)")
    if s is None:
        s = tuple(x.shape[a] for a in axes)
    s = tuple(int(n) for n in s)
    if len(s) != len(axes):
        raise ValueError(f"{fname}: s and axes must have the same length")
    if any(n < 1 for n in s):
        raise ValueError(f"{fname}: lengths must be positive, got s={s}")
    return axes, s


def _c2c(x, *, inverse, axes, s, norm):
    return _bind(_c2c_p, x, inverse=inverse, axes=axes, s=s, norm=norm)


def _r2c(x, *, axes, s, norm):
    return _bind(_r2c_p, x, axes=axes, s=s, norm=norm)


def _c2r(x, *, axes, s, norm):
    return _bind(_c2r_p, x, axes=axes, s=s, norm=norm)


def fftn(a, s=None, axes=None, norm=None):
    """n-dimensional discrete Fourier transform."""
    x = a
    axes, s = _axes_s(x, s, axes, "fftn")
    return _c2c(_complex(x), inverse=False, axes=axes, s=s, norm=_check_norm(norm))


def ifftn(a, s=None, axes=None, norm=None):
    """n-dimensional inverse discrete Fourier transform."""
    x = a
    axes, s = _axes_s(x, s, axes, "ifftn")
    return _c2c(_complex(x), inverse=True, axes=axes, s=s, norm=_check_norm(norm))


def fft(a, n=None, axis=-1, norm=None):
    """One-dimensional discrete Fourier transform along ``axis``."""
    x = a
    return fftn(x, s=None if n is None else (n,), axes=(axis,), norm=norm)


def ifft(a, n=None, axis=-1, norm=None):
    """One-dimensional inverse discrete Fourier transform along ``axis``."""
    x = a
    return ifftn(x, s=None if n is None else (n,), axes=(axis,), norm=norm)


def rfftn(a, s=None, axes=None, norm=None):
    """n-dimensional FFT of a real array (half spectrum on the last axis)."""
    x = a
    if _is_complex(x.dtype):
        raise TypeError("rfftn needs a real-valued input; use fftn for complex input")
    axes, s = _axes_s(x, s, axes, "rfftn")
    return _r2c(x, axes=axes, s=s, norm=_check_norm(norm))


def irfftn(a, s=None, axes=None, norm=None):
    """Inverse of ``rfftn``: a real array (last axis length ``s[-1]``,
    default ``2 * (m - 1)``)."""
    x = a
    nd = _ndim(x)
    if axes is None:
        axes = tuple(range(nd)) if s is None else tuple(range(nd - len(s), nd))
    axes = tuple(a % nd for a in axes)
    if s is None:
        s = tuple(x.shape[a] for a in axes[:-1]) + (2 * (x.shape[axes[-1]] - 1),)
    axes, s = _axes_s(x, s, axes, "irfftn")
    return _c2r(_complex(x), axes=axes, s=s, norm=_check_norm(norm))


def rfft(a, n=None, axis=-1, norm=None):
    """One-dimensional FFT of a real array (half spectrum)."""
    x = a
    return rfftn(x, s=None if n is None else (n,), axes=(axis,), norm=norm)


def irfft(a, n=None, axis=-1, norm=None):
    """Inverse of ``rfft``: a real array of length ``n`` (default ``2 (m - 1)``)."""
    x = a
    ax = axis % _ndim(x)
    if n is None:
        n = 2 * (x.shape[ax] - 1)
    return irfftn(x, s=(n,), axes=(ax,), norm=norm)


def _norm2(norm):
    return "backward" if norm is None else norm


def fft2(a, s=None, axes=(-2, -1), norm=None):
    """Two-dimensional FFT: ``fftn`` over ``axes`` (the last two by default)."""
    return fftn(a, s=s, axes=tuple(axes), norm=_norm2(norm))


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    """Two-dimensional inverse FFT: ``ifftn`` over ``axes``."""
    return ifftn(a, s=s, axes=tuple(axes), norm=_norm2(norm))


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """Two-dimensional FFT of a real array: ``rfftn`` over ``axes``."""
    return rfftn(a, s=s, axes=tuple(axes), norm=_norm2(norm))


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """Inverse of ``rfft2``: ``irfftn`` over ``axes``."""
    return irfftn(a, s=s, axes=tuple(axes), norm=_norm2(norm))


_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def hfft(a, n=None, axis=-1, norm=None):
    """FFT of a Hermitian-symmetric signal given by its first half: a real
    array (as numpy: ``irfft(conj(x))`` with the opposite normalisation)."""
    x = a
    return irfft(_conj(_complex(x)), n=n, axis=axis, norm=_SWAP[_check_norm(norm)])


def ihfft(a, n=None, axis=-1, norm=None):
    """Inverse of ``hfft`` for a real input (``conj(rfft(x))`` with the
    opposite normalisation)."""
    x = a
    return _conj(rfft(x, n=n, axis=axis, norm=_SWAP[_check_norm(norm)]))


def _shift(x, axes, sign):
    nd = _ndim(x)
    axes = tuple(range(nd)) if axes is None else _norm_axis(
        tuple(axes) if isinstance(axes, list) else axes, nd)
    # fftshift rolls by n // 2, ifftshift by -(n // 2)
    shift = tuple(x.shape[a] // 2 if sign > 0 else -(x.shape[a] // 2) for a in axes)
    return _roll(x, shift, axis=axes)


def fftshift(x, axes=None):
    """Move the zero-frequency term to the centre."""
    return _shift(x, axes, 1)


def ifftshift(x, axes=None):
    """Inverse of ``fftshift``."""
    return _shift(x, axes, -1)


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of ``fft`` (a constant)."""
    xp = _creation_xp(dtype, device)
    kw = {} if device is None else {"device": device}
    return xp.fft.fftfreq(n, d=d, dtype=_dtype_in(xp, dtype), **kw)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of ``rfft`` (a constant)."""
    xp = _creation_xp(dtype, device)
    kw = {} if device is None else {"device": device}
    return xp.fft.rfftfreq(n, d=d, dtype=_dtype_in(xp, dtype), **kw)
