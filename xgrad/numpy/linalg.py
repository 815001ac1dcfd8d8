"""``xgrad.numpy.linalg``: the array API ``linalg`` extension (2024.12) on
plain and traced arrays, differentiable to any order in every mode.

Primitives (``xgrad/rules/linalg_ext.py``): solve, inv, det, slogdet,
cholesky, eigh, eigvalsh, eig, eigvals, svd, svdvals, qr, pinv and the
vector 2-norm.
Everything else is a composite of them and of the main namespace
(``matrix_norm``, ``matrix_power``, ``cross``, ``diagonal``, ``trace``, ...),
and so are JAX's extras ``norm``, ``cond``, ``lstsq``, ``tensorinv`` and
``tensorsolve``.

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
- Complex inputs differentiate as in JAX (the JVP is the derivative, the VJP
  its transpose); where JAX fixes the phase of singular vectors or
  eigenvectors, xgrad fixes the same.
"""
import math as _math
import operator as _operator
from typing import NamedTuple as _NamedTuple

from . import matrix_transpose, vecdot  # noqa: F401
from .. import numpy as _xnp
from ..core import RULES as _RULES, Tracer as _Tracer, bind as _bind, concrete as _concrete
from ..backends import backend_of as _backend_of, is_complex as _is_complex
from ..rules import linalg_ext as _r
from ._einsum import multi_dot  # noqa: F401

__all__ = ["cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul",
           "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "multi_dot", "outer",
           "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace",
           "vecdot", "vector_norm", "EighResult", "QRResult", "SlogdetResult", "SVDResult"]
# jax.numpy.linalg beyond the array API
__all__ += ["cond", "eig", "eigvals", "lstsq", "norm", "tensorinv", "tensorsolve", "EigResult"]

_stop_p = _RULES["stop_gradient"]


class EigResult(_NamedTuple):
    eigenvalues: object
    eigenvectors: object


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


def _tri(x, UPLO):
    """The Hermitian matrix that the lower (``UPLO="L"``) or upper triangle
    of ``x`` defines (what LAPACK reads when the input is not symmetrized)."""
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO!r}")
    s = _xnp.triu(x, 1) if UPLO == "U" else _xnp.tril(x, -1)
    st = _xnp.matrix_transpose(s)
    if _is_complex(x.dtype):
        st = _xnp.conj(st)
    eye = _backend_of(x).eye(x.shape[-1], dtype=_xnp.real(x).dtype if _is_complex(x.dtype)
                             else x.dtype, device=_xnp._device_of(x))
    d = _xnp.multiply(_xnp.real(x) if _is_complex(x.dtype) else x, eye)   # the (real) diagonal
    return _xnp.add(_xnp.add(s, st), d)


def _sym(x):
    """The symmetric (Hermitian) part, read by cholesky/eigh/eigvalsh."""
    xt = _xnp.matrix_transpose(x)
    if _is_complex(x.dtype):
        xt = _xnp.conj(xt)
    return _xnp.multiply(_xnp.add(x, xt), 0.5)


# --------------------------------------------------------------------------
# products (composites of the main namespace)

def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """Matrix product (``xgrad.numpy.matmul``; ``precision`` is ignored,
    ``preferred_element_type`` is the result dtype)."""
    return _xnp.matmul(x1, x2, preferred_element_type=preferred_element_type)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None,
              out_sharding=None):
    """``xgrad.numpy.tensordot`` with the array API's signature (and JAX's
    ``precision``, ignored, and ``preferred_element_type``)."""
    return _xnp.tensordot(x1, x2, axes, preferred_element_type=preferred_element_type)


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


def matrix_power(a, n):
    """``x`` raised to the integer power ``n`` (repeated squaring; ``n < 0``
    inverts first; ``n == 0`` gives identities, a constant)."""
    x = a
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

def solve(a, b):
    """Solution ``x`` of ``a @ x = b``. A 1-D ``x2`` is one vector; otherwise
    ``x2`` is a stack of matrices (stack axes broadcast). Derivatives by
    solves with ``x1`` and its transpose.

    >>> import xgrad, xgrad.numpy as xnp
    >>> a = xnp.asarray([[2.0, 0.0], [0.0, 4.0]])
    >>> float(xgrad.grad(lambda b: xnp.sum(xnp.linalg.solve(a, b)))(xnp.ones(2))[1])
    0.25
    """
    x1, x2 = a, b
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


def inv(a):
    """Inverse of each square matrix."""
    x = a
    _matrix("inv", x, square=True)
    return _bind(_r.inv_p, x)


def det(a):
    """Determinant; its gradient is the (transposed) adjugate, finite at
    singular matrices too."""
    x = a
    _matrix("det", x, square=True)
    return _bind(_r.det_p, x)


def slogdet(a, *, method=None):
    """``SlogdetResult(sign, logabsdet)``; ``sign`` has zero derivative and
    ``logabsdet``'s is ``a^-T`` (by a solve). ``method`` (JAX: "lu" or
    "qr") is checked; the result is the same."""
    if method not in (None, "lu", "qr"):
        raise ValueError(f"slogdet: unknown method {method!r}")
    x = a
    _matrix("slogdet", x, square=True)
    return SlogdetResult(*_r.slogdet(x))


def pinv(a, rtol=None, hermitian=False, *, rcond=None):
    """Moore-Penrose pseudo-inverse; singular values below ``rtol`` (JAX's
    alias: ``rcond``) times the largest count as zero (default
    ``max(M, N) * eps``). The derivative holds where the rank does not
    change. ``hermitian`` is accepted (the result is the same for Hermitian
    input)."""
    if rcond is not None:
        if rtol is not None:
            raise ValueError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    x = _inexact(a)                         # integers: float64, as JAX
    _matrix("pinv", x)
    if rtol is None:
        rtol = max(x.shape[-2:]) * _eps(x)
    return _bind(_r.pinv_p, x, rtol)       # rtol: no derivative (may be batched)


def matrix_rank(M, rtol=None, *, hermitian=False, tol=None):
    """Number of singular values above ``rtol`` times the largest (default
    ``max(M, N) * eps``); an integer, with no derivative. ``tol`` is an
    absolute threshold (NB: JAX reads ``rtol`` as absolute too; here
    ``rtol`` keeps the array API's relative meaning). ``hermitian`` takes
    the singular values from ``eigvalsh``."""
    x = M
    _matrix("matrix_rank", x)
    x = _bind(_stop_p, x) if isinstance(x, _Tracer) else x
    s = svd(x, compute_uv=False, hermitian=hermitian)
    if tol is not None:
        if rtol is not None:
            raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
        tol = tol if not hasattr(tol, "shape") else _xnp.expand_dims(tol, axis=-1)
        big = _xnp.greater(s, tol)
        return _xnp.sum(_xnp.astype(big, _backend_of(x).int64), axis=-1)
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

def cholesky(a, *, upper=False, symmetrize_input=True):
    """Cholesky factor of each symmetric positive definite matrix (lower, or
    upper with ``upper=True``). Reads ``(a + a.mT) / 2``, as JAX does, or
    with ``symmetrize_input=False`` the lower triangle only."""
    x = a
    _matrix("cholesky", x, square=True)
    L = _bind(_r.cholesky_p, _sym(x) if symmetrize_input else _tri(x, "L"))
    if not upper:
        return L
    U = _xnp.matrix_transpose(L)
    return _xnp.conj(U) if _is_complex(U.dtype) else U


def eigh(a, UPLO=None, symmetrize_input=True):
    """``EighResult(eigenvalues, eigenvectors)`` of each symmetric matrix,
    eigenvalues ascending. Derivatives need distinct eigenvalues. Reads
    ``(a + a.mT) / 2``, as JAX does, or with ``symmetrize_input=False`` the
    triangle ``UPLO`` ("L", the default, or "U")."""
    x = a
    _matrix("eigh", x, square=True)
    return EighResult(*_r.eigh(_sym(x) if symmetrize_input else _tri(x, UPLO)))


def eigvalsh(a, UPLO="L", *, symmetrize_input=True):
    """Eigenvalues (ascending) of each symmetric matrix; reads
    ``(a + a.mT) / 2``, or the triangle ``UPLO`` (as ``eigh``)."""
    x = a
    _matrix("eigvalsh", x, square=True)
    return _bind(_r.eigvalsh_p, _sym(x) if symmetrize_input else _tri(x, UPLO))


def qr(a, mode="reduced"):
    """``QRResult(Q, R)``; ``mode`` is ``'reduced'`` or ``'complete'``
    (``'r'``: ``R`` alone, as JAX). Derivatives need the leading min(M, N)
    columns to be independent."""
    x = a
    _matrix("qr", x)
    if mode == "r":
        return _r.qr(x, mode="reduced")[1]
    if mode not in ("reduced", "complete"):
        raise ValueError(f"linalg.qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    return QRResult(*_r.qr(x, mode=mode))


def svd(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None):
    """``SVDResult(U, S, Vh)``, singular values descending (``S`` alone with
    ``compute_uv=False``). Derivatives need distinct singular values
    (nonzero for non-square matrices) and, with ``full_matrices=True``,
    square matrices. ``hermitian=True`` reads a Hermitian ``a`` through
    ``eigh`` (as JAX); ``subset_by_index=(lo, hi)`` keeps those singular
    values (and vectors)."""
    x = a
    _matrix("svd", x)
    if subset_by_index is not None:
        lo, hi = (_operator.index(i) for i in subset_by_index)
        res = svd(x, False, compute_uv, hermitian)
        if not compute_uv:
            return res[..., lo:hi]
        u, s, vh = res
        return SVDResult(u[..., :, lo:hi], s[..., lo:hi], vh[..., lo:hi, :])
    if hermitian:
        w, v = eigh(x)
        s = _xnp.abs(w)
        order = _xnp.argsort(s, axis=-1, descending=True)
        s = _xnp.take_along_axis(s, order, axis=-1)
        if not compute_uv:
            return s
        sign = _xnp.take_along_axis(_xnp.sign(w), order, axis=-1)
        u = _xnp.take_along_axis(v, _xnp.broadcast_to(order[..., None, :], tuple(v.shape)), axis=-1)
        vh = _xnp.matrix_transpose(_xnp.multiply(u, sign[..., None, :]))
        if _is_complex(vh.dtype):
            vh = _xnp.conj(vh)
        return SVDResult(u, s, vh)
    if not compute_uv:
        return svdvals(x)
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
        # max / min, not s[..., 0] / s[..., -1]: at tied singular values (2I, a
        # zero matrix) the derivative is shared among the ties, and 2's max
        # also ties with 0 at a zero matrix (JAX's amax(s, initial=0))
        s = svdvals(x)
        r = _xnp.max(s, axis=-1, initial=0.0) if ord == 2 else _xnp.min(s, axis=-1)
    elif ord in (1, -1, _math.inf, -_math.inf):
        sums = _xnp.sum(_xnp.abs(x), axis=-2 if ord in (1, -1) else -1)
        r = (_xnp.max if ord > 0 else _xnp.min)(sums, axis=-1)
    else:
        raise ValueError(f"linalg.matrix_norm: ord={ord!r} is not one of 'fro', 'nuc', "
                         f"1, -1, 2, -2, inf, -inf")
    if keepdims:
        r = _xnp.reshape(r, tuple(r.shape) + (1, 1))
    return r


# --------------------------------------------------------------------------
# jax.numpy.linalg beyond the array API

def _inexact(x):
    """``x`` as an array of an inexact dtype (integers and booleans become
    float64, as JAX does with x64)."""
    if not hasattr(x, "dtype"):
        x = _xnp.asarray(x)
    xp = _backend_of(x)
    if xp.isdtype(x.dtype, ("real floating", "complex floating")):
        return x
    return _xnp.astype(x, xp.float64)


def eig(a):
    """``EigResult(eigenvalues, eigenvectors)`` of each square matrix, both
    complex (as JAX: complex128 for float64 input). Each eigenvector has unit
    norm and a real largest-magnitude entry (LAPACK's normalisation), and
    derivatives differentiate through that choice; they need distinct
    eigenvalues. NB: JAX's ``jnp.linalg.eig`` differentiates only the
    eigenvalues; the eigenvector derivatives here are those of
    ``jax.lax.linalg.eig(..., enable_eigvec_derivs=True)``. Needs a backend
    with ``linalg.eig`` (numpy, array_api_strict)."""
    a = _inexact(a)
    _matrix("eig", a, square=True)
    return EigResult(*_r.eig(a))


def eigvals(a):
    """Eigenvalues of each square matrix (complex, in the backend's order);
    derivatives need distinct eigenvalues."""
    a = _inexact(a)
    _matrix("eigvals", a, square=True)
    return _bind(_r.eigvals_p, a)


def _reinsert(y, axes, nd):
    """``y`` with size-1 axes at ``axes`` (sorted, of an ``nd``-dim input)."""
    shape, it = [], iter(y.shape)
    for i in range(nd):
        shape.append(1 if i in axes else next(it))
    return _xnp.reshape(y, tuple(shape))


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    """Vector or matrix norm, as ``jnp.linalg.norm``: ``axis`` None (all
    axes: the 2-norm of the flattened array when ``ord`` is None, else a 1-D
    or 2-D array's norm), an int or 1-tuple (a vector norm: ``ord`` None, 2,
    1, 0, inf, -inf or any p) or a 2-tuple (a matrix norm: ``ord`` None,
    'fro', 'nuc', 1, -1, 2, -2, inf, -inf). NB: the 2-norm and Frobenius
    norm have gradient 0 at 0, where JAX's gives nan."""
    x = _inexact(x)
    nd = _ndim(x)
    if axis is None:
        if ord is None:
            return vector_norm(x, keepdims=keepdims)
        axis = tuple(range(nd))
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in axes:
        a = _operator.index(a)
        if not -nd <= a < nd:
            raise ValueError(f"linalg.norm: axis={axis!r} is out of range for {nd} dimension(s)")
        out.append(a % nd)
    axes = tuple(out)
    if len(axes) == 1:
        if isinstance(ord, str):
            raise ValueError(f"linalg.norm: ord={ord!r} is not a vector norm")
        return vector_norm(x, axis=axes[0], keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) != 2 or axes[0] == axes[1]:
        raise ValueError(f"linalg.norm: axis={axis!r}: pass one axis for a vector norm or two "
                         f"distinct axes for a matrix norm")
    if ord is None or ord in ("f", "fro"):
        return vector_norm(x, axis=axes, keepdims=keepdims)
    if ord not in ("nuc", 1, -1, 2, -2, _math.inf, -_math.inf):
        raise ValueError(f"linalg.norm: ord={ord!r} is not a matrix norm ('fro', 'nuc', 1, -1, "
                         f"2, -2, inf, -inf)")
    y = matrix_norm(_xnp.moveaxis(x, axes, (-2, -1)), ord=ord)
    return _reinsert(y, sorted(axes), nd) if keepdims else y


def cond(x, p=None):
    """Condition number of each matrix in the norm ``p`` (None or 2: the
    ratio of extreme singular values; -2 its inverse; 'fro', 'nuc', 1, -1,
    inf, -inf: ``norm(x) * norm(inv(x))`` for square matrices). As JAX, a
    nan from a singular matrix becomes inf (not for p None or 2)."""
    x = _inexact(x)
    _matrix("cond", x)
    if x.shape[-1] == 0 or x.shape[-2] == 0:
        raise ValueError(f"linalg.cond: expected non-empty matrices, got shape {tuple(x.shape)}")
    if p is None or p == 2:
        s = svdvals(x)
        return _xnp.divide(s[..., 0], s[..., -1])
    if p == -2:
        s = svdvals(x)
        r = _xnp.divide(s[..., -1], s[..., 0])
    else:
        _matrix("cond", x, square=True)
        r = _xnp.multiply(norm(x, ord=p, axis=(-2, -1)), norm(inv(x), ord=p, axis=(-2, -1)))
    bad = _xnp.logical_and(_xnp.isnan(r),
                           _xnp.logical_not(_xnp.any(_xnp.isnan(x), axis=(-2, -1))))
    return _xnp.where(bad, _math.inf, r)


def lstsq(a, b, rcond=None, *, numpy_resid=False):
    """Least-squares solution of ``a @ x = b`` for one matrix ``a`` (M, N)
    and ``b`` (M,) or (M, K), as JAX: the tuple ``(x, residuals, rank, s)``
    computed from the SVD of ``a`` (singular values at most ``rcond`` times
    the largest count as zero; default ``max(M, N) * eps``). ``residuals``
    are the squared 2-norms of the columns of ``b - a @ x`` (always, unless
    ``numpy_resid``: then empty where the rank is below N or M <= N, as
    numpy). ``x`` is differentiable where the rank is locally constant and
    the singular values distinct."""
    a, b = _inexact(a), _inexact(b)
    if a.dtype != b.dtype:
        dt = _xnp.result_type(a, b)
        a, b = _xnp.astype(a, dt), _xnp.astype(b, dt)
    if _ndim(a) != 2:
        raise TypeError(f"linalg.lstsq: a must be 2-dimensional, got shape {tuple(a.shape)}")
    if _ndim(b) not in (1, 2):
        raise TypeError(f"linalg.lstsq: b must be 1- or 2-dimensional, got shape {tuple(b.shape)}")
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"linalg.lstsq: the leading dimensions of a {tuple(a.shape)} and b "
                         f"{tuple(b.shape)} must match")
    vec = _ndim(b) == 1
    if vec:
        b = _xnp.expand_dims(b, axis=-1)
    m, n = a.shape
    xp = _backend_of(a)
    if rcond is None:
        rcond = _eps(a) * max(m, n)
    elif not hasattr(rcond, "shape") and rcond < 0:
        rcond = _eps(a)
    if m * n == 0:
        real = _xnp.real(a) if _is_complex(a.dtype) else a
        s = real[:0, 0] if m == 0 else real[0, :0]
        x = _xnp.zeros((n,) + tuple(b.shape[1:]), dtype=a.dtype)
        rank = _xnp.asarray(0, dtype=xp.int64)
    else:
        u, s, vh = svd(a, full_matrices=False)
        mask = _xnp.logical_and(_xnp.greater(s, 0.0),
                                _xnp.greater_equal(s, _xnp.multiply(s[0], rcond)))
        rank = _xnp.sum(_xnp.astype(mask, xp.int64))
        s_inv = _xnp.where(mask, _xnp.divide(1.0, _xnp.where(mask, s, 1.0)), 0.0)
        uh, v = _xnp.matrix_transpose(u), _xnp.matrix_transpose(vh)
        if _is_complex(a.dtype):
            uh, v = _xnp.conj(uh), _xnp.conj(v)
        x = _xnp.matmul(v, _xnp.multiply(_xnp.expand_dims(s_inv, axis=-1), _xnp.matmul(uh, b)))
    if numpy_resid and (int(_concrete(rank)) < n or m <= n):
        resid = _xnp.zeros((0,), dtype=s.dtype)
    else:
        resid = _xnp.square(vector_norm(_xnp.subtract(b, _xnp.matmul(a, x)), axis=0))
    if vec:
        x = x[:, 0]
    return x, resid, rank, s


def tensorinv(a, ind=2):
    """Tensor inverse: ``inv`` of ``a`` reshaped to a square matrix
    (rows: the first ``ind`` axes), shaped ``a.shape[ind:] + a.shape[:ind]``."""
    ind = _operator.index(ind)
    if ind <= 0:
        raise ValueError(f"linalg.tensorinv: ind must be a positive integer, got {ind}")
    a = _inexact(a)
    rows, cols = tuple(a.shape[:ind]), tuple(a.shape[ind:])
    if _math.prod(rows) != _math.prod(cols):
        raise ValueError(f"linalg.tensorinv: the product of the first {ind} dimensions must equal "
                         f"that of the others, got shape {tuple(a.shape)}")
    flat = _xnp.reshape(a, (_math.prod(rows), _math.prod(cols)))
    return _xnp.reshape(inv(flat), cols + rows)


def tensorsolve(a, b, axes=None):
    """Solution ``x`` of ``tensordot(a, x, x.ndim) == b``; ``axes``: axes of
    ``a`` moved to the end first."""
    a, b = _inexact(a), _inexact(b)
    if axes is not None:
        moved = [_operator.index(k) % _ndim(a) for k in axes]
        a = _xnp.permute_dims(a, tuple(i for i in range(_ndim(a)) if i not in moved) + tuple(moved))
    nb = _ndim(b)
    out_shape = tuple(a.shape[nb:])
    if tuple(a.shape[:nb]) != tuple(b.shape):
        raise ValueError(f"linalg.tensorsolve: the leading shape of a {tuple(a.shape)} (after "
                         f"moving axes) must be b's shape {tuple(b.shape)}")
    size = _math.prod(tuple(b.shape))
    if size != _math.prod(out_shape):
        raise ValueError(f"linalg.tensorsolve: prod(a.shape[:b.ndim]) must equal "
                         f"prod(a.shape[b.ndim:]), got a.shape={tuple(a.shape)}, b.ndim={nb}")
    x = solve(_xnp.reshape(a, (size, size)), _xnp.reshape(b, (size,)))
    return _xnp.reshape(x, out_shape)
