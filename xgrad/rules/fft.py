"""Discrete Fourier transforms. All are linear, so each VJP is the
transpose (JAX's convention for complex cotangents):

- ``fftn``/``ifftn``: the DFT matrix is symmetric, so the transpose is the
  same transform with the same ``norm``, then the length change undone
  (a zero-padded input is truncated back, a truncated one padded).
- ``rfftn`` (real -> half spectrum): the transpose of "cast to complex, full
  FFT, keep the first n//2+1 bins": pad the cotangent with zeros, full FFT,
  real part.
- ``irfftn`` (half spectrum -> real): ``conj(scale * mask * rfftn(g))`` with
  mask 1 for the bins that appear once in the full spectrum and 2 for those
  that appear twice, scale = the inverse transform's normalisation.

``axes`` and ``s`` arrive normalised (tuples of non-negative axes / lengths).
"""
from __future__ import annotations

import math

from . import defprim
from . import _batching
from .. import numpy as xnp
from ..backends import backend_of


def _fit_lengths(x, axes, lengths):
    """Truncate or zero-pad ``x`` along ``axes`` to ``lengths``."""
    for ax, n in zip(axes, lengths):
        m = x.shape[ax]
        if m > n:
            x = x[(slice(None),) * ax + (slice(0, n), Ellipsis)]
        elif m < n:
            shape = list(x.shape)
            shape[ax] = n - m
            x = xnp.concat([x, xnp._zeros_as(x, tuple(shape))], axis=ax)
    return x


def _c2c_impl(xp, x, *, inverse, axes, s, norm):
    f = xp.fft.ifftn if inverse else xp.fft.fftn
    return f(x, s=s, axes=axes, norm=norm)


def _c2c(g, inverse, axes, norm):
    return xnp.fft._c2c(g, inverse=inverse, axes=axes, s=tuple(g.shape[a] for a in axes),
                        norm=norm)


def _c2c_vjp(ans, x, *, inverse, axes, s, norm):
    in_lengths = tuple(x.shape[a] for a in axes)
    return lambda g: _fit_lengths(_c2c(g, inverse, axes, norm), axes, in_lengths)


defprim("fft_c2c", _c2c_impl, family="fft", linear=True, vjp=_c2c_vjp, batch=_batching.axes_param)


def _r2c_impl(xp, x, *, axes, s, norm):
    return xp.fft.rfftn(x, s=s, axes=axes, norm=norm)


def _r2c_vjp(ans, x, *, axes, s, norm):
    in_lengths = tuple(x.shape[a] for a in axes)

    def vjp(g):
        full = _fit_lengths(g, axes[-1:], s[-1:])       # zero bins up to n
        z = xnp.real(_c2c(full, False, axes, norm))
        return _fit_lengths(z, axes, in_lengths)
    return vjp


defprim("fft_r2c", _r2c_impl, family="fft", linear=True, vjp=_r2c_vjp, batch=_batching.axes_param)


def _c2r_impl(xp, x, *, axes, s, norm):
    return xp.fft.irfftn(x, s=s, axes=axes, norm=norm)


def _half_mask(g, n, axis):
    """1 for bins present once in the full spectrum, 2 for the mirrored ones."""
    k = n // 2 + 1
    twice = (n - 2 + n % 2) // 2
    w = [1.0] + [2.0] * twice + [1.0] * (k - 1 - twice)
    shape = [1] * g.ndim
    shape[axis] = k
    return _mask_array(g, w, shape)


def _mask_array(g, w, shape):
    xp = backend_of(g)
    ref = xnp.real(xnp._zeros_as(g, (1,)))
    return xp.reshape(xp.asarray(w, dtype=ref.dtype), tuple(shape))


def _c2r_vjp(ans, x, *, axes, s, norm):
    in_lengths = tuple(x.shape[a] for a in axes)
    total = math.prod(s)
    scale = {"backward": 1.0 / total, "ortho": 1.0 / math.sqrt(total), "forward": 1.0}[norm]
    last = axes[-1]

    def vjp(g):
        r = xnp.fft._r2c(g, axes=axes, s=s, norm="backward")
        r = xnp.multiply(r, _half_mask(r, s[-1], last)) * scale
        return _fit_lengths(xnp.conj(r), axes, in_lengths)
    return vjp


defprim("fft_c2r", _c2r_impl, family="fft", linear=True, vjp=_c2r_vjp, batch=_batching.axes_param)
