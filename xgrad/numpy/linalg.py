"""``xgrad.numpy.linalg``: the array API ``linalg`` extension (2024.12) on
plain and traced arrays, differentiable to any order in every mode.

Primitives (``xgrad/rules/linalg_ext.py``): solve, inv, det, slogdet,
cholesky, eigh, eigvalsh, svd, svdvals, qr, pinv and the vector 2-norm.
Everything else is a composite of them and of the main namespace
(``matrix_norm``, ``matrix_power``, ``cross``, ``diagonal``, ``trace``, ...).

Conventions where the derivative is a choice (NB: some differ from JAX):

- ``cholesky``, ``eigh`` and ``eigvalsh`` read the symmetric part
  ``(x + x.mT) / 2`` of their input (as JAX does; backends read one
  triangle), so derivatives in non-symmetric directions are consistent.
- ``eigh``/``svd``/``qr`` derivatives are valid for distinct eigenvalues,
  distinct (and, for non-square ``svd``, nonzero) singular values and
  full-rank ``qr`` input; elsewhere they are infinite. The signs of
  eigenvectors and singular vectors are the backend's.
- ``svd(full_matrices=True)`` and ``qr(mode='complete')`` differentiate only
  where the extra vectors don't exist (square, resp. m <= n).
- ``det``'s gradient is the adjugate, finite at singular matrices.
- ``vector_norm(ord=2)`` has gradient 0 at 0 (NB: JAX's gives nan).
- ``pinv``'s derivative holds where the rank is locally constant.
- Derivatives are for real inputs, except solve, inv and det (holomorphic: complex
  inputs differentiate as in JAX); other complex inputs get values only.
"""
import math as _math
import operator as _operator
from typing import NamedTuple as _NamedTuple

from . import (matmul, matrix_transpose, tensordot, vecdot)  # noqa: F401
from .. import numpy as _xnp
from ..core import RULES as _RULES, Tracer as _Tracer, bind as _bind
from ..backends import backend_of as _backend_of, is_complex as _is_complex
from ..rules import linalg_ext as _r
from ._einsum import multi_dot  # noqa: F401

__all__ = ["cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul",
           "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "multi_dot", "outer",
           "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace",
           "vecdot", "vector_norm", "EighResult", "QRResult", "SlogdetResult", "SVDResult"]

_stop_p = _RULES["stop_gradient"]


class EighResult(_NamedTuple):
    eigenvalues: object
    eigenvectors: object


class QRResult(_NamedTuple):
    Q: object
    R: object


class SlogdetResult(_NamedTuple):
    sign: object
    logabsdet: object


class SVDResult(_NamedTuple):
    U: object
    S: object
    Vh: object


def _ndim(x):
    return len(x.shape)


def _matrix(name, x, square=False):
    if _ndim(x) < 2:
        raise ValueError(f"linalg.{name}: expected a stack of matrices (at least 2 "
                         f"dimensions), got shape {tuple(x.shape)}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"linalg.{name}: expected square matrices, got shape "
                         f"{tuple(x.shape)}")


def _eps(x):
    return float(_backend_of(x).finfo(x.dtype).eps)


def _sym(x):
    """The symmetric (Hermitian) part, read by cholesky/eigh/eigvalsh."""
    xt = _xnp.matrix_transpose(x)
    if _is_complex(x.dtype):
        xt = _xnp.conj(xt)
    return _xnp.multiply(_xnp.add(x, xt), 0.5)


# --------------------------------------------------------------------------
# products (composites of the main namespace)

def outer(x1, x2, /):
    """Outer product of two vectors."""
    if _ndim(x1) != 1 or _ndim(x2) != 1:
        raise ValueError("linalg.outer: expected two 1-D arrays")
    return _xnp.multiply(_xnp.reshape(x1, (x1.shape[0], 1)), _xnp.reshape(x2, (1, x2.shape[0])))


def cross(x1, x2, /, *, axis=-1):
    """Cross product of 3-element vectors along ``axis`` (broadcasting)."""
    nd = max(_ndim(x1), _ndim(x2))
    if axis >= 0:
        axis -= nd
    if not -min(_ndim(x1), _ndim(x2)) <= axis <= -1:
        raise ValueError(f"linalg.cross: axis={axis} is out of range")
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError("linalg.cross: the vectors along axis must have 3 elements")
    tail = (slice(None),) * (-axis - 1)

    def comp(x, i):
        return x[(Ellipsis, i) + tail]
    a0, a1, a2 = (comp(x1, i) for i in range(3))
    b0, b1, b2 = (comp(x2, i) for i in range(3))
    m, s = _xnp.multiply, _xnp.subtract
    c = [s(m(a1, b2), m(a2, b1)), s(m(a2, b0), m(a0, b2)), s(m(a0, b1), m(a1, b0))]
    return _xnp.stack(c, axis=axis)


def matrix_power(x, n, /):
    """``x`` raised to the integer power ``n`` (repeated squaring; ``n < 0``
    inverts first; ``n == 0`` gives identities, a constant)."""
    _matrix("matrix_power", x, square=True)
    n = _operator.index(n)
    if n == 0:
        xp = _backend_of(x)
        eye = xp.eye(x.shape[-1], dtype=x.dtype, device=_xnp._device_of(x))
        return xp.broadcast_to(eye, tuple(x.shape))
    if n < 0:
        x, n = inv(x), -n
    out = None
    while True:
        if n & 1:
            out = x if out is None else _xnp.matmul(out, x)
        n >>= 1
        if not n:
            return out
        x = _xnp.matmul(x, x)


# --------------------------------------------------------------------------
# diagonals

def diagonal(x, /, *, offset=0):
    """The ``offset``-th diagonal of each matrix (a strided slice)."""
    _matrix("diagonal", x)
    m, n = x.shape[-2:]
    offset = _operator.index(offset)
    if offset >= 0:
        start, length = offset, max(0, min(m, n - offset))
    else:
        start, length = -offset * n, max(0, min(m + offset, n))
    flat = _xnp.reshape(x, tuple(x.shape[:-2]) + (m * n,))
    if length == 0:
        return flat[..., 0:0]
    return flat[..., start:start + (length - 1) * (n + 1) + 1:n + 1]


def trace(x, /, *, offset=0, dtype=None):
    """Sum of the ``offset``-th diagonal of each matrix."""
    return _xnp.sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


# --------------------------------------------------------------------------
# solves, inverses, determinants

def solve(x1, x2, /):
    """Solution ``x`` of ``x1 @ x = x2``. A 1-D ``x2`` is one vector; otherwise
    ``x2`` is a stack of matrices (stack axes broadcast). Derivatives by
    solves with ``x1`` and its transpose.

    >>> import xgrad, xgrad.numpy as xnp
    >>> a = xnp.asarray([[2.0, 0.0], [0.0, 4.0]])
    >>> float(xgrad.grad(lambda b: xnp.sum(xnp.linalg.solve(a, b)))(xnp.ones(2))[1])
    0.25
    """
    _matrix("solve", x1, square=True)
    if x1.dtype != x2.dtype:
        dt = _xnp.result_type(x1, x2)
        x1, x2 = _xnp.astype(x1, dt), _xnp.astype(x2, dt)
    if _ndim(x2) == 1:
        return _bind(_r.solve_p, x1, _xnp.expand_dims(x2, axis=-1))[..., 0]
    if _ndim(x2) == 0 or x2.shape[-2] != x1.shape[-1]:
        raise ValueError(f"linalg.solve: shapes {tuple(x1.shape)} and {tuple(x2.shape)} "
                         f"don't match (x2 must be (M,) or (..., M, K))")
    return _bind(_r.solve_p, x1, x2)


def inv(x, /):
    """Inverse of each square matrix."""
    _matrix("inv", x, square=True)
    return _bind(_r.inv_p, x)


def det(x, /):
    """Determinant; its gradient is the (transposed) adjugate, finite at
    singular matrices too."""
    _matrix("det", x, square=True)
    return _bind(_r.det_p, x)


def slogdet(x, /):
    """``SlogdetResult(sign, logabsdet)``; ``sign`` has zero derivative and
    ``logabsdet``'s is ``x^-T`` (by a solve)."""
    _matrix("slogdet", x, square=True)
    return SlogdetResult(*_r.slogdet(x))


def pinv(x, /, *, rtol=None):
    """Moore-Penrose pseudo-inverse; singular values below ``rtol`` times the
    largest count as zero (default ``max(M, N) * eps``). The derivative
    holds where the rank does not change."""
    _matrix("pinv", x)
    if rtol is None:
        rtol = max(x.shape[-2:]) * _eps(x)
    return _bind(_r.pinv_p, x, rtol)       # rtol: no derivative (may be batched)


def matrix_rank(x, /, *, rtol=None):
    """Number of singular values above ``rtol`` times the largest (default
    ``max(M, N) * eps``); an integer, with no derivative."""
    _matrix("matrix_rank", x)
    s = svdvals(_bind(_stop_p, x) if isinstance(x, _Tracer) else x)
    if rtol is None:
        rtol = max(x.shape[-2:]) * _eps(x)
    if s.shape[-1] == 0:
        tol = _xnp._zeros_like(s[..., :1])
    else:
        tol = _xnp.multiply(s[..., :1], rtol if not hasattr(rtol, "shape")
                            else _xnp.expand_dims(rtol, axis=-1))
    big = _xnp.greater(s, tol)
    xp = _backend_of(x)
    return _xnp.sum(_xnp.astype(big, xp.int64), axis=-1)


# --------------------------------------------------------------------------
# decompositions

def cholesky(x, /, *, upper=False):
    """Cholesky factor of each symmetric positive definite matrix (lower, or
    upper with ``upper=True``). NB: reads ``(x + x.mT) / 2``, as JAX does."""
    _matrix("cholesky", x, square=True)
    L = _bind(_r.cholesky_p, _sym(x))
    if not upper:
        return L
    U = _xnp.matrix_transpose(L)
    return _xnp.conj(U) if _is_complex(U.dtype) else U


def eigh(x, /):
    """``EighResult(eigenvalues, eigenvectors)`` of each symmetric matrix,
    eigenvalues ascending. Derivatives need distinct eigenvalues. NB: reads
    ``(x + x.mT) / 2``, as JAX does."""
    _matrix("eigh", x, square=True)
    return EighResult(*_r.eigh(_sym(x)))


def eigvalsh(x, /):
    """Eigenvalues (ascending) of each symmetric matrix; reads
    ``(x + x.mT) / 2``."""
    _matrix("eigvalsh", x, square=True)
    return _bind(_r.eigvalsh_p, _sym(x))


def qr(x, /, *, mode="reduced"):
    """``QRResult(Q, R)``; ``mode`` is ``'reduced'`` or ``'complete'``.
    Derivatives need the leading min(M, N) columns to be independent."""
    _matrix("qr", x)
    if mode not in ("reduced", "complete"):
        raise ValueError(f"linalg.qr: mode must be 'reduced' or 'complete', got {mode!r}")
    return QRResult(*_r.qr(x, mode=mode))


def svd(x, /, *, full_matrices=True):
    """``SVDResult(U, S, Vh)``, singular values descending. Derivatives need
    distinct singular values (nonzero for non-square matrices) and, with
    ``full_matrices=True``, square matrices."""
    _matrix("svd", x)
    return SVDResult(*_r.svd(x, full_matrices=bool(full_matrices)))


def svdvals(x, /):
    """Singular values of each matrix, descending."""
    _matrix("svdvals", x)
    return _bind(_r.svdvals_p, x)


# --------------------------------------------------------------------------
# norms

def _axes(axis, nd):
    if axis is None:
        return tuple(range(nd))
    axes = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for a in axes:
        a = _operator.index(a)
        if not -nd <= a < max(nd, 1):
            raise ValueError(f"linalg.vector_norm: axis={axis!r} is out of range for "
                             f"{nd} dimension(s)")
        out.append(a % nd if nd else 0)
    if len(set(out)) != len(out):
        raise ValueError(f"linalg.vector_norm: axis={axis!r} repeats an axis")
    return tuple(sorted(out))


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002
    """Vector ``ord``-norm over ``axis`` (all axes by default). ``ord=2`` is a
    primitive with gradient 0 at 0; other orders are composites (1, inf,
    -inf: of abs, sum, max, min; 0: the count of nonzeros, no derivative;
    other p: ``sum(|x|**p)**(1/p)``, with gradient 0 at 0 for p > 1)."""
    axes = _axes(axis, _ndim(x))
    if ord == 2:
        return _bind(_r.vector_norm_p, x, axis=axes, keepdims=keepdims)
    a = _xnp.abs(x)
    if ord == 1:
        return _xnp.sum(a, axis=axes, keepdims=keepdims)
    if ord == _math.inf:
        return _xnp.max(a, axis=axes, keepdims=keepdims)
    if ord == -_math.inf:
        return _xnp.min(a, axis=axes, keepdims=keepdims)
    if ord == 0:
        nz = _xnp.astype(_xnp.not_equal(x, 0), a.dtype)
        return _xnp.sum(nz, axis=axes, keepdims=keepdims)
    s = _xnp.sum(_xnp.pow(a, ord), axis=axes, keepdims=keepdims)
    zero = _xnp.equal(s, 0.0)
    root = _xnp.pow(_xnp.where(zero, 1.0, s), 1.0 / ord)
    return _xnp.where(zero, 0.0, root)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002
    """Matrix norm of each matrix: ``'fro'``, ``'nuc'``, 2, -2 (extreme
    singular values), 1, -1 (column sums), inf, -inf (row sums)."""
    _matrix("matrix_norm", x)
    if ord == "fro":
        return vector_norm(x, axis=(-2, -1), keepdims=keepdims)
    if ord == "nuc":
        r = _xnp.sum(svdvals(x), axis=-1)
    elif ord in (2, -2):
        s = svdvals(x)
        r = s[..., 0] if ord == 2 else s[..., -1]
    elif ord in (1, -1, _math.inf, -_math.inf):
        sums = _xnp.sum(_xnp.abs(x), axis=-2 if ord in (1, -1) else -1)
        r = (_xnp.max if ord > 0 else _xnp.min)(sums, axis=-1)
    else:
        raise ValueError(f"linalg.matrix_norm: ord={ord!r} is not one of 'fro', 'nuc', "
                         f"1, -1, 2, -2, inf, -inf")
    if keepdims:
        r = _xnp.reshape(r, tuple(r.shape) + (1, 1))
    return r
