"""``xgrad.scipy.linalg``: the functions of ``jax.scipy.linalg``, with
JAX's signatures, on plain and traced arrays.

Everything differentiable here is a composite of ``xgrad.numpy`` and the
rows of ``xgrad/rules/linalg_ext.py`` (solve, cholesky, eigh, eig, svd,
qr, ...), so derivatives of every order, ``vmap`` and the array API
backends come for free; there are no rows of its own.

- ``expm``: Padé(13) scaling and squaring (Higham 2005) written with
  xgrad operations, so its derivatives are those of the approximant, as in
  JAX (whose ``expm`` is differentiated the same way); ``expm_frechet``
  carries a tangent through the same steps (the derivative of the
  approximant in direction ``E``, which is what JAX's ``jvp`` gives), and is
  itself differentiable in ``A`` and ``E``. Measured against
  ``scipy.linalg.expm``/``expm_frechet``: relative errors ~1e-15.
- ``solve_triangular``, ``cho_solve``, ``lu_solve``: general solves of the
  masked triangle (``tril``/``triu``, unit diagonal), so derivatives in the
  matrix stay in its triangle, as in JAX.
- ``lu``/``lu_factor``: Gaussian elimination with partial pivoting in xgrad
  operations (the pivots from ``argmax``, per matrix under ``vmap``).
- ``sqrtm``, ``funm``, ``solve_sylvester``: by the eigendecomposition
  (``xgrad.numpy.linalg.eig``), so they need a diagonalisable input with
  well-conditioned eigenvectors (NB: JAX uses the Schur form and can't
  differentiate ``sqrtm``/``funm``; here they differentiate where the
  eigenvalues are distinct).
- ``polar``: from the SVD (``method`` is accepted and ignored).
- ``schur``, ``rsf2csf``, ``hessenberg``: values only (scipy, on the
  concrete arrays, numpy-backed); as in JAX they have no derivative, and a
  traced argument raises.

Not here: ``eigh_tridiagonal`` with ``select`` other than 'a',
``qr(pivoting=True)``, ``qr_multiply(pivoting=True)``, ``funm(disp=False)``;
as in JAX, ``eigh`` only for the standard problem and ``sqrtm`` only with
``blocksize=1``.

>>> import numpy as np, xgrad, xgrad.numpy as xnp, xgrad.scipy as xsp
>>> round(float(xsp.linalg.expm(np.eye(2))[0, 0]), 6)
2.718282
>>> a = np.asarray([[1.0, 2.0], [0.0, 1.0]])
>>> g = xgrad.grad(lambda a: xnp.sum(xsp.linalg.expm(a)))(a)   # second order works too
>>> round(float(g[0, 0]), 6)
5.436564
"""
import functools as _functools
import math as _math
import operator as _operator

import numpy as _np

from .. import numpy as _xnp
from ..backends import backend_of as _backend_of, is_complex as _is_complex
from ..core import (Primitive as _Primitive, Tracer as _Tracer, bind as _bind,
                    concrete as _concrete)
from ..numpy import linalg as _la
from ..numpy._stats import _arr, _promote_inexact
from ..program import StageTracer as _StageTracer
from ..rules import linalg_ext as _r

__all__ = ["block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion",
           "convolution_matrix", "det", "dft", "eigh", "eigh_tridiagonal", "expm", "expm_frechet",
           "fiedler", "fiedler_companion", "funm", "hadamard", "hankel", "helmert", "hessenberg",
           "hilbert", "inv", "invhilbert", "invpascal", "leslie", "lu", "lu_factor", "lu_solve",
           "pascal", "polar", "qr", "qr_multiply", "rsf2csf", "schur", "solve",
           "solve_sylvester", "solve_triangular", "sqrtm", "svd", "toeplitz"]


# --------------------------------------------------------------------------
# helpers

def _inexact(*xs):
    xs = [_arr(x) for x in xs]
    xs = [xs[0]] + [_arr(x, like=xs[0]) for x in xs[1:]]
    return _promote_inexact(*xs)


def _square(fname, a, what="a"):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{fname}: expected {what} to be a (stack of) square matrices, got "
                         f"shape {tuple(a.shape)}")


def _mT(a):
    return _xnp.matrix_transpose(a)


def _mH(a):
    return _xnp.conj(_mT(a)) if _is_complex(a.dtype) else _mT(a)


def _eye(n, like, m=None):
    xp = _backend_of(like)
    return xp.eye(n, m, dtype=like.dtype, device=_xnp._device_of(like))


def _arange(n, like):
    """``arange(n)`` (int64) on ``like``'s backend and device (a constant)."""
    xp = _backend_of(like)
    return xp.arange(n, dtype=xp.int64, device=_xnp._device_of(like))


def _mm(a, b):
    return _xnp.matmul(a, b)


def _scale_mats(s, x):
    """``s`` (...) times each matrix of ``x`` (..., M, N)."""
    return _xnp.multiply(_xnp.expand_dims(_xnp.expand_dims(s, axis=-1), axis=-1), x)


def _as_vectors(a, b):
    """Whether ``b`` is a vector (or a stack of vectors) for the matrices
    ``a``, as JAX's solvers read it."""
    return b.ndim == 1 or (a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1])


def _solve(a, b):
    """``a^-1 b`` with JAX's reading of ``b`` (vectors or matrices)."""
    if a.dtype != b.dtype:
        dt = _xnp.result_type(a, b)
        a, b = _xnp.astype(a, dt), _xnp.astype(b, dt)
    if _as_vectors(a, b):
        return _bind(_r.solve_p, a, _xnp.expand_dims(b, axis=-1))[..., 0]
    return _bind(_r.solve_p, a, b)


def _values_only(fname, fn, *xs):
    """``fn(*numpy arrays) -> tuple of numpy arrays`` on the values of
    ``xs``, for a function with no derivative: under ``jit`` one staged
    equation (replayed on new values); under a transform that would need
    its derivative or batching, an error."""
    if any(isinstance(x, _Tracer) for x in xs):
        if not all(type(x) is _StageTracer or not isinstance(x, _Tracer) for x in xs):
            raise NotImplementedError(
                f"scipy.linalg.{fname} has no derivative and can't be traced (as in JAX); "
                f"apply xgrad.stop_gradient to its argument, or call it outside the transform")
        return tuple(_bind(_host_p, *xs, fn=fn))
    return tuple(fn(*[_np.asarray(x) for x in xs]))


def _host_impl(xp, *xs, fn):
    return [_back(o, xs[0]) for o in fn(*[_np.asarray(x) for x in xs])]


# a call of a scipy function with no derivative, staged by jit as one equation
_host_p = _Primitive("scipy_linalg_values", _host_impl, multiple_results=True)


def _scipy_linalg():
    # optional third-party package: scipy, imported on first use
    import scipy.linalg as sl
    return sl


def _back(x, like):
    """A numpy result on ``like``'s backend and device (a staged result is
    one already)."""
    if isinstance(x, _Tracer):
        return x
    xp = _backend_of(like)
    return xp.asarray(_np.ascontiguousarray(x), device=_xnp._device_of(like))


# --------------------------------------------------------------------------
# the array API's decompositions, with scipy's signatures

def det(a, overwrite_a=False, check_finite=True):
    """Determinant of each square matrix (``xgrad.numpy.linalg.det``)."""
    (a,) = _inexact(a)
    return _la.det(a)


def inv(a, overwrite_a=False, check_finite=True):
    """Inverse of each square matrix (``xgrad.numpy.linalg.inv``)."""
    (a,) = _inexact(a)
    return _la.inv(a)


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """Cholesky factor of each Hermitian positive definite matrix: lower
    (``lower=True``) or upper (default, as scipy). Reads one triangle of
    ``a`` (the lower for ``lower=True``, else the upper) and, as JAX,
    differentiates without symmetrising the tangent."""
    (a,) = _inexact(a)
    _square("cholesky", a)
    if lower:
        return _bind(_r.cholesky_p, a)
    return _mH(_bind(_r.cholesky_p, _mH(a)))


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """``(c, lower)``: the Cholesky factor of ``a`` (zeros in the other
    triangle, as JAX) and the flag, for ``cho_solve``."""
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """Solution ``x`` of ``a x = b`` from ``cho_factor(a)``'s ``(c, lower)``."""
    c, lower = c_and_lower
    c, b = _inexact(c, b)
    if lower:
        y = solve_triangular(c, b, lower=True)
        return solve_triangular(c, y, trans=2, lower=True)
    y = solve_triangular(c, b, trans=2, lower=False)
    return solve_triangular(c, y, lower=False)


def _triangle(a, lower, unit_diagonal):
    n = a.shape[-1]
    if unit_diagonal:
        t = _xnp.tril(a, k=-1) if lower else _xnp.triu(a, k=1)
        return _xnp.add(t, _eye(n, a))
    return _xnp.tril(a) if lower else _xnp.triu(a)


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     debug=None, check_finite=True):
    """Solution ``x`` of ``op(a) x = b`` for triangular ``a``.

    Args:
        a: (..., N, N) matrices; only the ``lower`` (or upper) triangle is
            read, and with ``unit_diagonal`` not the diagonal either (taken
            as ones). Derivatives in ``a`` stay in that triangle, as JAX.
        b: (N,) vector or (..., N, K) matrices (or, as JAX, a stack of
            vectors (..., N) when ``a`` has one more dimension).
        trans: 0 or 'N' (``a``), 1 or 'T' (``a.T``), 2 or 'C' (``a.H``).
        lower: use the lower triangle.
        unit_diagonal: the diagonal is taken to be ones.
        overwrite_b: ignored, as JAX.
        debug: ignored, as JAX.
        check_finite: ignored, as JAX.

    Returns:
        ``x``, the shape of ``b``.
    """
    a, b = _inexact(a, b)
    _square("solve_triangular", a)
    t = _triangle(a, lower, unit_diagonal)
    if trans in (0, "N"):
        pass
    elif trans in (1, "T"):
        t = _mT(t)
    elif trans in (2, "C"):
        t = _mH(t)
    else:
        raise ValueError(f"solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', "
                         f"got {trans!r}")
    return _solve(t, b)


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, debug=False,
          check_finite=True, assume_a="gen"):
    """Solution ``x`` of ``a x = b``. ``assume_a`` ('gen', 'sym', 'her',
    'pos') only describes ``a``: every kind is solved by LU, and the
    derivatives are those of the general solve (as JAX's for 'pos')."""
    if assume_a not in ("gen", "sym", "her", "pos"):
        raise ValueError(f"solve: assume_a must be 'gen', 'sym', 'her' or 'pos', got "
                         f"{assume_a!r}")
    a, b = _inexact(a, b)
    _square("solve", a)
    return _solve(a, b)


def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
         turbo=True, eigvals=None, type=1, check_finite=True):  # noqa: A002
    """``(w, v)`` (or ``w`` with ``eigvals_only``) of each Hermitian matrix,
    eigenvalues ascending; reads ``(a + a.H) / 2``, as JAX. Only the
    standard problem (``b=None``, ``type=1``, ``eigvals=None``)."""
    if b is not None or type != 1 or eigvals is not None:
        raise NotImplementedError("eigh: only the standard problem (b=None, type=1, "
                                  "eigvals=None) is implemented, as in JAX")
    (a,) = _inexact(a)
    if eigvals_only:
        return _la.eigvalsh(a)
    return tuple(_la.eigh(a))


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
        lapack_driver="gesdd"):
    """``(U, s, Vh)`` (or ``s`` without ``compute_uv``); see
    ``xgrad.numpy.linalg.svd`` for where the derivatives hold."""
    (a,) = _inexact(a)
    if not compute_uv:
        return _la.svdvals(a)
    return tuple(_la.svd(a, full_matrices=full_matrices))


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    """``(Q, R)`` (mode 'full' or 'economic') or ``(R,)`` (mode 'r'). NB:
    ``pivoting=True`` is not implemented."""
    if pivoting:
        raise NotImplementedError("qr: pivoting=True is not implemented in xgrad")
    if mode not in ("full", "economic", "r"):
        raise ValueError(f"qr: mode must be 'full', 'economic' or 'r', got {mode!r}")
    (a,) = _inexact(a)
    q, r = _la.qr(a, mode="reduced" if mode == "economic" else "complete")
    return (r,) if mode == "r" else (q, r)


def qr_multiply(a, c, mode="right", pivoting=False, conjugate=False, overwrite_a=False,
                overwrite_c=False):
    """``(Q @ c, R)`` (``mode='left'``) or ``(c @ Q, R)`` (``'right'``) with
    ``Q, R`` the economic QR of ``a`` (``Q`` conjugated with
    ``conjugate``), as JAX. NB: ``pivoting=True`` is not implemented."""
    if pivoting:
        raise NotImplementedError("qr_multiply: pivoting=True is not implemented in xgrad")
    if mode not in ("right", "left"):
        raise ValueError(f"qr_multiply: mode must be 'right' or 'left', got {mode!r}")
    a, c = _inexact(a, c)
    onedim = c.ndim == 1
    if onedim:
        c = c[:, None] if mode == "left" else c[None, :]
    m, n = a.shape[-2:]
    k = min(m, n)
    if mode == "left" and c.shape[-2] != k:
        raise ValueError(f"qr_multiply: Q has {k} columns but c has {c.shape[-2]} rows")
    if mode == "right" and c.shape[-1] != m:
        raise ValueError(f"qr_multiply: Q has {m} rows but c has {c.shape[-1]} columns")
    q, r = _la.qr(a, mode="reduced")
    if conjugate and _is_complex(q.dtype):
        q = _xnp.conj(q)
    out = _mm(q, c) if mode == "left" else _mm(c, q)
    if onedim:
        out = out[..., 0] if mode == "left" else out[..., 0, :]
    return out, r


# --------------------------------------------------------------------------
# LU: Gaussian elimination with partial pivoting, in xgrad operations

def _permute_rows(x, idx, inverse=False):
    """``x[..., idx, :]`` per matrix (``idx`` (..., M) integers, a
    permutation), or with ``inverse`` the rows put back (``out[..., idx, :]
    = x``). A gather where ``idx`` has a concrete value; under ``vmap``
    (per-example ``idx``) by selection (``where``) and sums of zeros: exact,
    and never ``inf * 0``, but O(M^2 K) memory."""
    try:
        ci = _concrete(idx)
    except TypeError:             # per-example pivots under vmap: select and sum
        ci = None
    if ci is not None:            # a gather with constant indices: O(M N)
        xp = _backend_of(ci)
        if inverse:
            ci = xp.argsort(ci, axis=-1)
        shape = tuple(_np.broadcast_shapes(tuple(x.shape[:-2]), tuple(ci.shape[:-1]))) \
            + tuple(x.shape[-2:])
        ind = xp.broadcast_to(xp.expand_dims(ci, axis=-1), shape)
        return _xnp.take_along_axis(_xnp.broadcast_to(x, shape), ind, axis=-2)
    m = x.shape[-2]
    k = _arange(m, x)
    if inverse:   # mask[r, c] = idx[c] == r
        mask = _xnp.equal(_xnp.expand_dims(idx, axis=-2), _xnp.expand_dims(k, axis=-1))
    else:         # mask[i, k] = idx[i] == k
        mask = _xnp.equal(_xnp.expand_dims(idx, axis=-1), k)
    picked = _xnp.where(_xnp.expand_dims(mask, axis=-1), _xnp.expand_dims(x, axis=-3), 0.0)
    return _xnp.sum(picked, axis=-2)


def _swap_rows(x, j, onehot_p):
    """``x`` (..., M, N) with rows ``j`` and ``p`` swapped, ``onehot_p``
    (..., M, 1) marking row ``p``."""
    row_p = _xnp.sum(_xnp.where(onehot_p, x, 0), axis=-2, keepdims=True)
    row_j = x[..., j:j + 1, :]
    is_j = _xnp.expand_dims(_xnp.equal(_arange(x.shape[-2], x), j), axis=-1)
    return _xnp.where(is_j, row_p, _xnp.where(onehot_p, row_j, x))


def _lu_elim(a):
    """``(lu, pivots, permutation)`` of each (..., M, N) matrix, LAPACK's
    layout (``a[perm] = L U``, ``pivots`` the row swaps, 0-based int32)."""
    m, n = a.shape[-2:]
    xp = _backend_of(a)
    batch = tuple(a.shape[:-2])
    perm = _xnp.broadcast_to(_arange(m, a), batch + (m,))
    piv = []
    rows = _arange(m, a)
    cols = _arange(n, a)
    for j in range(min(m, n)):
        col = a[..., j:, j]
        # LAPACK's pivot: the largest |re| + |im| (|x| for real x)
        col = _xnp.add(_xnp.abs(_xnp.real(col)), _xnp.abs(_xnp.imag(col))) \
            if _is_complex(col.dtype) else _xnp.abs(col)
        p = _xnp.add(_xnp.argmax(col, axis=-1, keepdims=True), j)       # (..., 1)
        piv.append(p)
        onehot = _xnp.expand_dims(_xnp.equal(rows, p), axis=-1)            # (..., M, 1)
        a = _swap_rows(a, j, onehot)
        perm = _swap_rows(_xnp.expand_dims(perm, axis=-1), j, onehot)[..., 0]
        pivot = a[..., j:j + 1, j:j + 1]                                   # (..., 1, 1)
        zero = _xnp.equal(pivot, 0)
        below = _xnp.expand_dims(_xnp.greater(rows, j), axis=-1)            # (M, 1)
        l_col = _xnp.divide(a[..., :, j:j + 1], _xnp.where(zero, 1.0, pivot))
        l_col = _xnp.where(_xnp.logical_and(below, _xnp.logical_not(zero)), l_col, 0.0)
        update = _xnp.multiply(l_col, a[..., j:j + 1, :])                   # (..., M, N)
        right = _xnp.greater(cols, j)                                       # (N,)
        a = _xnp.subtract(a, _xnp.where(right, update, 0.0))
        is_col = _xnp.logical_and(below, _xnp.equal(cols, j))
        a = _xnp.where(is_col, l_col, a)
    pivots = _xnp.astype(_xnp.concat(piv, axis=-1), xp.int32) if piv else \
        xp.zeros(batch + (0,), dtype=xp.int32, device=_xnp._device_of(a))
    return a, pivots, _xnp.astype(perm, xp.int32)


def lu_factor(a, overwrite_a=False, check_finite=True):
    """``(lu, piv)``: ``L`` (unit diagonal, not stored) and ``U`` in one
    matrix, and the 0-based row swaps (int32), as LAPACK's ``getrf``; for
    ``lu_solve``. Differentiable in ``a`` (with the pivots held fixed)."""
    (a,) = _inexact(a)
    if a.ndim < 2:
        raise ValueError(f"lu_factor: expected a (stack of) matrices, got shape {tuple(a.shape)}")
    lu_, piv, _ = _lu_elim(a)
    return lu_, piv


def lu(a, permute_l=False, overwrite_a=False, check_finite=True):
    """``(p, l, u)`` with ``a = p @ l @ u`` (``p`` a permutation matrix,
    ``l`` unit lower triangular (M, K), ``u`` upper (K, N)), or ``(p @ l,
    u)`` with ``permute_l``."""
    (a,) = _inexact(a)
    if a.ndim < 2:
        raise ValueError(f"lu: expected a (stack of) matrices, got shape {tuple(a.shape)}")
    lu_, _, perm = _lu_elim(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    real = _xnp.real(a[..., :0, :0]).dtype if _is_complex(a.dtype) else a.dtype
    p = _xnp.astype(_xnp.equal(_xnp.expand_dims(perm, axis=-2),
                               _xnp.expand_dims(_arange(m, a), axis=-1)), real)
    lo = _xnp.add(_xnp.tril(lu_, k=-1)[..., :, :k], _eye(m, a, k))
    up = _xnp.triu(lu_)[..., :k, :]
    if permute_l:
        return _mm(p, lo), up
    return p, lo, up


def _pivots_to_perm(piv, m):
    batch = tuple(piv.shape[:-1])
    perm = _xnp.expand_dims(_xnp.broadcast_to(_arange(m, piv), batch + (m,)), axis=-1)
    rows = _arange(m, piv)
    for j in range(piv.shape[-1]):
        onehot = _xnp.expand_dims(_xnp.equal(rows, _xnp.astype(piv[..., j:j + 1], rows.dtype)),
                                  axis=-1)
        perm = _swap_rows(perm, j, onehot)
    return perm[..., 0]


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """Solution of ``a x = b`` (``trans`` 0), ``a.T x = b`` (1) or ``a.H x =
    b`` (2) from ``lu_factor(a)``'s ``(lu, piv)``. Differentiable in ``lu``
    (its two triangles) and ``b``."""
    lu_, piv = lu_and_piv
    lu_, b = _inexact(lu_, b)
    _square("lu_solve", lu_, "lu")
    m = lu_.shape[-1]
    perm = _pivots_to_perm(piv, m)
    vec = _as_vectors(lu_, b)
    if vec:
        b = _xnp.expand_dims(b, axis=-1)
    if trans == 0:
        y = _permute_rows(b, perm)
        x = solve_triangular(lu_, solve_triangular(lu_, y, lower=True, unit_diagonal=True))
    elif trans in (1, 2):
        y = solve_triangular(lu_, b, trans=trans)
        y = solve_triangular(lu_, y, trans=trans, lower=True, unit_diagonal=True)
        x = _permute_rows(y, perm, inverse=True)
    else:
        raise ValueError(f"lu_solve: trans must be 0, 1 or 2, got {trans!r}")
    return x[..., 0] if vec else x


# --------------------------------------------------------------------------
# the matrix exponential: Padé(13) scaling and squaring, with a tangent

_B13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
        129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
        40840800., 960960., 16380., 182., 1.)
_THETA13 = 5.371920351148152


def _lin(terms):
    """``sum c_i X_i`` over ``(c_i, X_i)`` pairs."""
    out = None
    for c, x in terms:
        t = _xnp.multiply(x, c)
        out = t if out is None else _xnp.add(out, t)
    return out


def _expm_pade(a, e):
    """``(r, dr)``: Padé(13) ``r(a)`` and its derivative in direction ``e``
    (``dr`` None for ``e`` None): ``r = (V - U)^-1 (V + U)``."""
    b = _B13
    eye = _eye(a.shape[-1], a)
    a2 = _mm(a, a)
    a4 = _mm(a2, a2)
    a6 = _mm(a4, a2)
    u_in = _xnp.add(_mm(a6, _lin([(b[13], a6), (b[11], a4), (b[9], a2)])),
                    _lin([(b[7], a6), (b[5], a4), (b[3], a2), (b[1], eye)]))
    u = _mm(a, u_in)
    v = _xnp.add(_mm(a6, _lin([(b[12], a6), (b[10], a4), (b[8], a2)])),
                 _lin([(b[6], a6), (b[4], a4), (b[2], a2), (b[0], eye)]))
    q, p = _xnp.subtract(v, u), _xnp.add(v, u)
    r = _bind(_r.solve_p, q, p)
    if e is None:
        return r, None
    d2 = _xnp.add(_mm(e, a), _mm(a, e))
    d4 = _xnp.add(_mm(d2, a2), _mm(a2, d2))
    d6 = _xnp.add(_mm(d4, a2), _mm(a4, d2))
    w = _lin([(b[13], a6), (b[11], a4), (b[9], a2)])
    dw = _lin([(b[13], d6), (b[11], d4), (b[9], d2)])
    du_in = _xnp.add(_xnp.add(_mm(d6, w), _mm(a6, dw)),
                     _lin([(b[7], d6), (b[5], d4), (b[3], d2)]))
    du = _xnp.add(_mm(e, u_in), _mm(a, du_in))
    z = _lin([(b[12], a6), (b[10], a4), (b[8], a2)])
    dz = _lin([(b[12], d6), (b[10], d4), (b[8], d2)])
    dv = _xnp.add(_xnp.add(_mm(d6, z), _mm(a6, dz)), _lin([(b[6], d6), (b[4], d4), (b[2], d2)]))
    # q r = p: q dr = dp - dq r
    rhs = _xnp.subtract(_xnp.add(dv, du), _mm(_xnp.subtract(dv, du), r))
    return r, _bind(_r.solve_p, q, rhs)


def _expm(fname, a, e, max_squarings):
    _square(fname, a, "A")
    if e is not None:
        _square(fname, e, "E")
        if tuple(e.shape) != tuple(a.shape):
            raise ValueError(f"{fname}: expected A and E to have the same shape, got "
                             f"{tuple(a.shape)} and {tuple(e.shape)}")
    norm = _xnp.max(_xnp.sum(_xnp.abs(a), axis=-2), axis=-1)               # 1-norm, (...)
    safe = _xnp.where(_xnp.greater(norm, 0), norm, 1.0)
    s = _xnp.maximum(_xnp.ceil(_xnp.log2(_xnp.divide(safe, _THETA13))), 0.0)
    # a norm past the largest float (1e308 entries) needs more squarings than
    # allowed: that matrix gives NaN below, the others are not held up
    s = _xnp.minimum(s, float(max_squarings + 1))
    s = _xnp.astype(s, norm.dtype)
    try:
        top = int(_concrete(_xnp.max(s))) if s.size else 0
    except TypeError:                      # per-example values under vmap
        top = max_squarings
    top = min(top, max_squarings)
    scale = _xnp.astype(_xnp.pow(2.0, _xnp.negative(s)), a.dtype)
    r, dr = _expm_pade(_scale_mats(scale, a), None if e is None else _scale_mats(scale, e))
    for i in range(top):
        more = _xnp.expand_dims(_xnp.expand_dims(_xnp.greater(s, i), axis=-1), axis=-1)
        if dr is not None:
            dr = _xnp.where(more, _xnp.add(_mm(dr, r), _mm(r, dr)), dr)
        r = _xnp.where(more, _mm(r, r), r)
    bad = _xnp.expand_dims(_xnp.expand_dims(_xnp.greater(s, max_squarings), axis=-1), axis=-1)
    r = _xnp.where(bad, _math.nan, r)
    if dr is not None:      # the Frechet derivative is expm's JVP: 0 there, as jax's
        dr = _xnp.where(bad, 0.0, dr)
    return r, dr


def expm(A, *, upper_triangular=False, max_squarings=16):
    """Matrix exponential of each square matrix, by Padé(13) scaling and
    squaring; differentiable at every order (derivatives of the
    approximant, as JAX's).

    Args:
        A: (..., N, N) matrices.
        upper_triangular: accepted for JAX's signature (the solve is
            general either way).
        max_squarings: the most squarings; a matrix that needs more gives
            NaN, as JAX.

    Returns:
        ``expm(A)``, the shape and dtype of ``A`` (integers become float64).
    """
    (a,) = _inexact(A)
    return _expm("expm", a, None, _operator.index(max_squarings))[0]


def expm_frechet(A, E, *, method=None, compute_expm=True):
    """``(expm(A), L(A, E))`` (or ``L(A, E)`` alone without
    ``compute_expm``): the Fréchet derivative of ``expm`` at ``A`` in
    direction ``E``, by carrying ``E`` through ``expm``'s steps (Al-Mohy and
    Higham's method; what JAX's ``jvp`` gives). Differentiable in ``A``
    and ``E`` at every order. ``method`` is ignored."""
    a, e = _inexact(A, E)
    r, dr = _expm("expm_frechet", a, e, 16)
    return (r, dr) if compute_expm else dr


# --------------------------------------------------------------------------
# functions of a matrix by its eigendecomposition

def _eig_apply(fname, a, f):
    """``V diag(f(w)) V^-1`` (complex) of each square matrix."""
    _square(fname, a, "A")
    w, v = _la.eig(a)
    return _mT(_bind(_r.solve_p, _mT(v), _mT(_xnp.multiply(v, _xnp.expand_dims(f(w), axis=-2)))))


def sqrtm(A, blocksize=1):
    """Principal square root of each square matrix (complex, as JAX), by
    the eigendecomposition; differentiable where the eigenvalues are
    distinct (NB: JAX's has no derivative). Needs a diagonalisable ``A``."""
    if blocksize > 1:
        raise NotImplementedError("sqrtm: the blocked version is not implemented (as in JAX)")
    (a,) = _inexact(A)
    return _eig_apply("sqrtm", a, _xnp.sqrt)


def funm(A, func, disp=True):
    """``func`` of the square matrix ``A`` (complex, as JAX): ``V
    diag(func(w)) V^-1`` from the eigendecomposition, ``func`` applied to
    the complex eigenvalues. Differentiable where the eigenvalues are
    distinct. NB: only ``disp=True``."""
    if not disp:
        raise NotImplementedError("funm: disp=False (the error estimate) is not implemented")
    (a,) = _inexact(A)
    if a.ndim != 2:
        raise ValueError(f"funm: expected a square matrix, got shape {tuple(a.shape)}")
    return _eig_apply("funm", a, func)


def solve_sylvester(A, B, C, *, method="schur", tol=1e-8):
    """Solution ``X`` of ``A X + X B = C`` by the eigendecompositions of
    ``A`` and ``B`` (real for real input); NaN where two eigenvalues ``a_i
    + b_j`` sum to within ``tol`` of zero, as JAX. ``method`` is accepted
    and ignored (NB: JAX's default is the Schur method)."""
    if method not in ("schur", "eigen"):
        raise ValueError(f"solve_sylvester: method must be 'schur' or 'eigen', got {method!r}")
    a, b, c = _inexact(A, B, C)
    m, n = c.shape[-2:]
    if tuple(a.shape[-2:]) != (m, m) or tuple(b.shape[-2:]) != (n, n):
        raise ValueError(f"solve_sylvester: incompatible shapes A {tuple(a.shape)}, "
                         f"B {tuple(b.shape)}, C {tuple(c.shape)}")
    wa, va = _la.eig(a)
    wb, vb = _la.eig(b)
    cc = _xnp.astype(c, va.dtype)
    f = _mm(_bind(_r.solve_p, va, cc), vb)                                    # Va^-1 C Vb
    den = _xnp.add(_xnp.expand_dims(wa, axis=-1), _xnp.expand_dims(wb, axis=-2))
    small = _xnp.less(_xnp.abs(den), tol)
    y = _xnp.divide(f, _xnp.where(small, 1.0, den))
    x = _mm(va, _mT(_bind(_r.solve_p, _mT(vb), _mT(y))))                       # Va Y Vb^-1
    x = _xnp.where(_xnp.any(small, axis=(-2, -1), keepdims=True), _math.nan, x)
    return x if _is_complex(c.dtype) or _is_complex(a.dtype) or _is_complex(b.dtype) \
        else _xnp.real(x)


def polar(a, side="right", *, method="qdwh", eps=None, max_iterations=None):
    """``(u, p)`` with ``a = u p`` (``side='right'``, ``p`` (N, N)) or ``a =
    p u`` (``'left'``, ``p`` (M, M)), ``u`` with orthonormal columns (rows)
    and ``p`` Hermitian positive semidefinite, from the SVD (``method``,
    ``eps`` and ``max_iterations`` are accepted and ignored). Differentiable
    where the singular values are distinct and nonzero."""
    (a,) = _inexact(a)
    if a.ndim < 2:
        raise ValueError("polar: the input a must be at least a 2-D array")
    if side not in ("right", "left"):
        raise ValueError(f"polar: side must be 'right' or 'left', got {side!r}")
    w, s, vh = _la.svd(a, full_matrices=False)
    u = _mm(w, vh)
    if side == "right":
        p = _mm(_mH(vh), _xnp.multiply(_xnp.expand_dims(s, axis=-1), vh))
    else:
        p = _mm(_xnp.multiply(w, _xnp.expand_dims(s, axis=-2)), _mH(w))
    return u, _xnp.astype(p, a.dtype)


def eigh_tridiagonal(d, e, *, eigvals_only=False, select="a", select_range=None, tol=None,
                     key=None):
    """Eigenvalues (and eigenvectors) of the symmetric tridiagonal matrix with
    diagonal ``d`` and off-diagonal ``e``, by ``eigh`` of the full matrix
    (differentiable in ``d`` and ``e``; NB: JAX's has no reverse-mode
    derivative). Only ``select='a'``; ``tol`` and ``key`` are ignored."""
    if select != "a" or select_range is not None:
        raise NotImplementedError("eigh_tridiagonal: only select='a' is implemented in xgrad")
    d, e = _inexact(d, e)
    n = d.shape[-1]
    if e.shape[-1] != n - 1:
        raise ValueError(f"eigh_tridiagonal: e must have one entry fewer than d, got shapes "
                         f"{tuple(d.shape)} and {tuple(e.shape)}")
    ec = _xnp.conj(e) if _is_complex(e.dtype) else e
    # x = [0, d, e, conj(e)]: the tridiagonal matrix is a gather of x
    x = _xnp.concat([_xnp.zeros_like(d[..., :1]), d, _xnp.astype(e, d.dtype),
                     _xnp.astype(ec, d.dtype)], axis=-1)
    idx = _np.zeros((n, n), dtype=_np.int64)
    k = _np.arange(n)
    idx[k, k] = 1 + k
    idx[k[1:], k[:-1]] = 1 + n + k[:-1]          # subdiagonal: e
    idx[k[:-1], k[1:]] = 2 * n + k[:-1]          # superdiagonal: conj(e)
    t = _gather_last(x, idx)
    return eigh(t, eigvals_only=eigvals_only)


# --------------------------------------------------------------------------
# values only (no derivative, as in JAX)

def schur(a, output="real"):
    """``(T, Z)``, the Schur form ``a = Z T Z^H`` (``output`` 'real' or
    'complex'), from ``scipy.linalg.schur``. No derivative (as JAX): a
    traced ``a`` raises."""
    if output not in ("real", "complex"):
        raise ValueError(f"schur: output must be 'real' or 'complex', got {output!r}")
    (a,) = _inexact(a)
    _square("schur", a)
    t, z = _values_only("schur", _functools.partial(_host_schur, output), a)
    return _back(t, a), _back(z, a)


def rsf2csf(T, Z, check_finite=True):
    """The complex Schur form from the real one (``scipy.linalg.rsf2csf``).
    No derivative (as JAX)."""
    t, z = _inexact(T, Z)
    tc, zc = _values_only("rsf2csf", _host_rsf2csf, t, z)
    return _back(tc, t), _back(zc, t)


def hessenberg(a, *, calc_q=False, overwrite_a=False, check_finite=True):
    """Upper Hessenberg form ``h`` (and ``q`` with ``a = q h q^H`` for
    ``calc_q``), from ``scipy.linalg.hessenberg``. No derivative (as JAX)."""
    (a,) = _inexact(a)
    _square("hessenberg", a)
    out = _values_only("hessenberg", _functools.partial(_host_hessenberg, calc_q), a)
    if calc_q:
        return _back(out[0], a), _back(out[1], a)
    return _back(out[0], a)


def _host_schur(output, a):
    return _scipy_linalg().schur(a, output=output)


def _host_rsf2csf(t, z):
    return _scipy_linalg().rsf2csf(t, z)


def _host_hessenberg(calc_q, a):
    out = _scipy_linalg().hessenberg(a, calc_q=calc_q)
    return out if calc_q else (out,)


# --------------------------------------------------------------------------
# special matrices

def block_diag(*arrs):
    """The block-diagonal matrix of the given (at most 2-D) arrays."""
    if not arrs:
        return _xnp.zeros((1, 0))
    arrs = [_arr(x) for x in arrs]
    dt = _xnp.result_type(*arrs)
    mats = []
    for i, x in enumerate(arrs):
        if x.ndim > 2:
            raise ValueError(f"block_diag: arguments must have at most 2 dimensions, got shape "
                             f"{tuple(x.shape)} at argument {i}")
        x = _xnp.astype(x, dt) if x.dtype != dt else x
        mats.append(_xnp.reshape(x, (1, -1) if x.ndim < 2 else tuple(x.shape)))
    total = sum(x.shape[1] for x in mats)
    rows, col = [], 0
    for x in mats:
        c = x.shape[1]
        rows.append(_xnp.pad(x, [(0, 0), (col, total - c - col)]))
        col += c
    return _xnp.concat(rows, axis=0)


def _gather_last(x, idx):
    """``x[..., idx]`` for a constant integer matrix ``idx``."""
    flat = _xnp.take(x, _back(idx.reshape(-1), x), axis=-1)
    return _xnp.reshape(flat, tuple(x.shape[:-1]) + idx.shape)


def toeplitz(c, r=None):
    """Toeplitz matrix with first column ``c`` and first row ``r`` (default
    ``conj(c)``; ``r[0]`` is ignored); leading axes batch, as JAX."""
    c = _arr(c)
    if r is None:
        r = _xnp.conj(c) if _is_complex(c.dtype) else c
    r = _arr(r, like=c)
    c, r = _xnp.atleast_1d(c), _xnp.atleast_1d(r)
    dt = _xnp.result_type(c, r)
    c, r = _xnp.astype(c, dt), _xnp.astype(r, dt)
    batch = _np.broadcast_shapes(tuple(c.shape[:-1]), tuple(r.shape[:-1]))
    c = _xnp.broadcast_to(c, batch + tuple(c.shape[-1:]))
    r = _xnp.broadcast_to(r, batch + tuple(r.shape[-1:]))
    m, n = c.shape[-1], r.shape[-1]
    x = _xnp.concat([_xnp.flip(r[..., 1:], axis=-1), c], axis=-1)
    idx = n - 1 + _np.arange(m)[:, None] - _np.arange(n)[None, :]
    return _gather_last(x, idx)


def hankel(c, r=None):
    """Hankel matrix with first column ``c`` and last row ``r`` (default
    zeros; ``r[0]`` is ignored)."""
    c = _xnp.atleast_1d(_arr(c))
    r = _xnp.zeros_like(c) if r is None else _xnp.atleast_1d(_arr(r, like=c))
    dt = _xnp.result_type(c, r)
    c, r = _xnp.astype(c, dt), _xnp.astype(r, dt)
    m, n = c.shape[-1], r.shape[-1]
    x = _xnp.concat([c, r[..., 1:]], axis=-1)
    idx = _np.arange(m)[:, None] + _np.arange(n)[None, :]
    return _gather_last(x, idx)


def circulant(c):
    """Circulant matrix with first column ``c`` (leading axes batch)."""
    c = _xnp.atleast_1d(_arr(c))
    n = c.shape[-1]
    idx = (_np.arange(n)[:, None] - _np.arange(n)[None, :]) % n
    return _gather_last(c, idx)


def companion(a):
    """Companion matrix of the polynomial coefficients ``a`` (highest
    first): first row ``-a[1:] / a[0]``, ones below the diagonal."""
    (a,) = _inexact(_xnp.atleast_1d(_arr(a)))
    n = a.shape[-1]
    if n < 2:
        raise ValueError(f"companion: the length of a along the last axis must be at least 2, "
                         f"got shape {tuple(a.shape)}")
    first = _xnp.negative(_xnp.divide(a[..., 1:], a[..., 0:1]))
    x = _xnp.concat([_xnp.zeros_like(a[..., :1]), _xnp.ones_like(a[..., :1]), first], axis=-1)
    idx = _np.zeros((n - 1, n - 1), dtype=_np.int64)
    idx[0] = 2 + _np.arange(n - 1)
    idx[_np.arange(1, n - 1), _np.arange(n - 2)] = 1
    return _gather_last(x, idx)


def leslie(f, s):
    """Leslie matrix: fecundities ``f`` (first row), survival rates ``s``
    (subdiagonal)."""
    f = _xnp.atleast_1d(_arr(f))
    s = _xnp.atleast_1d(_arr(s, like=f))
    n = f.shape[-1]
    if n < 2:
        raise ValueError(f"leslie: the length of f must be at least 2, got shape {tuple(f.shape)}")
    if s.shape[-1] != n - 1:
        raise ValueError(f"leslie: s must have one entry fewer than f, got shapes "
                         f"{tuple(f.shape)} and {tuple(s.shape)}")
    dt = _xnp.result_type(f, s)
    f, s = _xnp.astype(f, dt), _xnp.astype(s, dt)
    idx = _np.zeros((n, n), dtype=_np.int64) + n     # n: the appended zero
    idx[0] = _np.arange(n)
    idx[_np.arange(1, n), _np.arange(n - 1)] = n + 1 + _np.arange(n - 1)
    zero = _xnp.zeros_like(f[..., :1])
    return _gather_last(_xnp.concat([f, zero, s], axis=-1), idx)


def fiedler(a):
    """Fiedler matrix ``|a_i - a_j|``."""
    a = _xnp.atleast_1d(_arr(a))
    return _xnp.abs(_xnp.subtract(_xnp.expand_dims(a, axis=-1), _xnp.expand_dims(a, axis=-2)))


def fiedler_companion(a):
    """Fiedler companion matrix of the polynomial coefficients ``a``
    (highest first; normalised by ``a[0]``): a pentadiagonal matrix with
    the same characteristic polynomial as ``companion(a)``."""
    (a,) = _inexact(_xnp.atleast_1d(_arr(a)))
    if a.shape[-1] == 0:
        raise ValueError("fiedler_companion: a must not be empty")
    a = _xnp.divide(a, a[..., 0:1])
    n = a.shape[-1] - 1
    if n < 1:
        return _xnp.zeros(tuple(a.shape[:-1]) + (0, 0), dtype=a.dtype)
    # x = [0, 1, -a_0, -a_1, ...]: entry 2 + k is -a_k (scipy's layout)
    x = _xnp.concat([_xnp.zeros_like(a[..., :1]), _xnp.ones_like(a[..., :1]),
                     _xnp.negative(a)], axis=-1)
    idx = _np.zeros((n, n), dtype=_np.int64)
    idx[range(3, n, 2), range(1, n - 2, 2)] = 1
    idx[range(2, n, 2), range(1, n - 1, 2)] = [2 + k for k in range(3, n + 1, 2)]
    idx[range(0, n - 2, 2), range(2, n, 2)] = 1
    idx[range(0, n - 1, 2), range(1, n, 2)] = [2 + k for k in range(2, n + 1, 2)]
    idx[0, 0] = 3
    if n > 1:
        idx[1, 0] = 1
    return _gather_last(x, idx)


def convolution_matrix(a, n, mode="full"):
    """The matrix ``A`` with ``A @ v == convolve(a, v, mode)`` for ``v`` of
    length ``n`` (a Toeplitz matrix)."""
    n = _operator.index(n)
    if n <= 0:
        raise ValueError(f"convolution_matrix: n must be a positive integer, got {n}")
    a = _arr(a)
    if a.ndim == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar")
    m = a.shape[-1]
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"convolution_matrix: mode must be 'full', 'valid' or 'same', got "
                         f"{mode!r}")
    pads = [(0, 0)] * (a.ndim - 1) + [(0, n - 1)]
    az = _xnp.pad(a, pads)
    raz = _xnp.pad(_xnp.flip(a, axis=-1), pads)
    length = m + n - 1
    if mode == "same":
        trim = min(n, m) - 1
        tb, te = trim // 2, trim - trim // 2
    elif mode == "valid":
        tb = te = min(n, m) - 1
    else:
        tb = te = 0
    return toeplitz(az[..., tb:length - te], raz[..., length - n - tb:length - tb])


def _float_matrix(x):
    """A numpy float64 matrix as an array of the default backend."""
    return _xnp.asarray(_np.asarray(x, dtype=_np.float64))


def hilbert(n):
    """Hilbert matrix ``1 / (i + j + 1)``."""
    i = _np.arange(n)
    return _float_matrix(1.0 / (i[:, None] + i[None, :] + 1.0))


def invhilbert(n):
    """Inverse of the Hilbert matrix (exact integers, as float64)."""
    c = _math.comb
    out = [[(-1) ** (i + j) * (i + j + 1) * c(n + i, n - j - 1) * c(n + j, n - i - 1)
            * c(i + j, i) ** 2 for j in range(n)] for i in range(n)]
    return _float_matrix(_np.array(out, dtype=float).reshape(n, n))


def _binoms(n):
    return _np.array([[_math.comb(i, j) for j in range(n)] for i in range(n)],
                     dtype=float).reshape(n, n)


def _kind(fname, kind):
    kind = "symmetric" if kind is None else kind
    if kind not in ("symmetric", "lower", "upper"):
        raise ValueError(f"{fname}: kind must be 'symmetric', 'lower' or 'upper', got {kind!r}")
    return kind


def pascal(n, kind=None):
    """Pascal matrix (``kind`` 'symmetric', 'lower' or 'upper'). NB: float32,
    as JAX's."""
    kind = _kind("pascal", kind)
    low = _binoms(n)
    m = low if kind == "lower" else low.T if kind == "upper" else low @ low.T
    return _xnp.asarray(m.astype(_np.float32))


def invpascal(n, kind=None):
    """Inverse of the Pascal matrix (float64)."""
    kind = _kind("invpascal", kind)
    i = _np.arange(n)
    low = _binoms(n) * (-1.0) ** (i[:, None] - i[None, :])
    m = low if kind == "lower" else low.T if kind == "upper" else low.T @ low
    return _float_matrix(m)


def dft(n, scale=None, *, dtype=None):
    """Discrete Fourier transform matrix ``exp(-2 pi i j k / n)`` (divided by
    ``sqrt(n)`` for ``scale='sqrtn'``, ``n`` for ``'n'``); complex128 by
    default."""
    if scale not in (None, "sqrtn", "n"):
        raise ValueError(f"dft: scale must be None, 'sqrtn' or 'n', got {scale!r}")
    dt = _np.dtype(dtype) if dtype is not None else _np.dtype(_np.complex128)
    if dt.kind != "c":
        raise ValueError(f"dft: dtype must be a complex floating-point type, got {dt}")
    k = _np.arange(n)
    m = _np.exp(-2j * _np.pi * ((k[:, None] * k[None, :]) % max(n, 1)) / max(n, 1))
    if scale == "sqrtn":
        m = m / _math.sqrt(n)
    elif scale == "n":
        m = m / n
    return _xnp.asarray(m.astype(dt))


def helmert(n, full=False):
    """Helmert matrix ((n - 1, n), or (n, n) with ``full``)."""
    if n < 1:
        raise ValueError(f"helmert: n must be a positive integer, got {n}")
    h = _np.zeros((n - 1, n))
    for i in range(n - 1):
        k = i + 1
        d = _math.sqrt(k * (k + 1.0))
        h[i, :k] = 1.0 / d
        h[i, k] = -k / d
    if full:
        h = _np.concatenate([_np.full((1, n), 1.0 / _math.sqrt(n)), h], axis=0)
    return _float_matrix(h)


def hadamard(n, dtype=int):
    """Hadamard matrix of order ``n`` (a power of 2), Sylvester's
    construction."""
    if n < 1 or not _math.log2(n).is_integer():
        raise ValueError(f"hadamard: n must be a positive power of 2, got {n}")
    h = _np.ones((1, 1))
    for _ in range(int(_math.log2(n))):
        h = _np.block([[h, h], [h, -h]])
    return _xnp.asarray(h.astype(_np.dtype(dtype) if dtype is not int else _np.int64))
