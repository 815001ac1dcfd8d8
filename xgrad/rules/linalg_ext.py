"""The ``linalg`` extension's primitives: solves, inverses, determinants,
decompositions and the 2-norm. (Products are in ``rules/linalg.py``; the user
functions, most of them composites of these rows, are in
``xgrad/numpy/linalg.py``.)

Every row works on stacks of matrices (``(..., M, N)``) and batches by
keeping or moving the batch axis among the stack axes (``stack_rule``).
Rule bodies use xgrad operations only (``_solve``, ``xnp.matmul``, ...), so
every derivative is differentiable again: second order comes out in every
mode combination.

Solves, never explicit inverses, apply ``A^-1`` inside rules. Complex
inputs differentiate with JAX's convention: a JVP is the derivative (an
R-linear map), a VJP its transpose for the pairing ``Re sum(a * b)``, i.e.
``g -> conj(adjoint(conj(g)))`` where ``adjoint`` is the usual adjoint for
``Re tr(X^H Y)`` (``_conj_vjp``); the holomorphic rows (solve, inv, det)
need only plain transposes. Where JAX fixes a gauge (the phase of a
singular vector or eigenvector) the rows fix the same one. The
decompositions' derivatives are valid where they are defined: eigenvalues /
singular values distinct (and, for non-square SVD, nonzero); they are
infinite where they are not.

Several outputs. A decomposition (eigh, eig, qr, svd, slogdet) is one row with
``multiple_results=True``: its implementation returns the tuple of outputs
(one backend call), its JVP rule gets that tuple and returns one tangent
per output, its staged VJP's inner function takes the tuple of output
cotangents, and ``stack_rule`` gives every output the same batch axis.
"""
from __future__ import annotations

import functools

import array_api_compat

from . import defprim as _defprim
from ._batching import result
from ..core import bind
from ..backends import backend_of, is_complex
from .. import numpy as xnp

__all__ = ["stack_rule"]

defprim = functools.partial(_defprim, family="linalg")


# --------------------------------------------------------------------------
# helpers (xgrad operations: differentiable)

def _mT(a):
    return xnp.matrix_transpose(a)


def _mm(a, b):
    return xnp.matmul(a, b)


def _eye(n, like):
    """Identity of ``like``'s backend, dtype and device (a constant)."""
    xp = backend_of(like)
    return xp.eye(n, dtype=like.dtype, device=xnp._device_of(like))


def _diag(x):
    """Diagonal of the last two (square) axes."""
    return xnp.sum(xnp.multiply(x, _eye(x.shape[-1], x)), axis=-1)


def _diag_embed(v):
    """Square matrices with ``v`` (..., n) on the diagonal."""
    return xnp.multiply(xnp.expand_dims(v, axis=-2), _eye(v.shape[-1], v))


def _trace(x):
    return xnp.sum(_diag(x), axis=-1)


def _scale(s, x):
    """``s`` (...) times each matrix of ``x`` (..., M, N)."""
    return xnp.multiply(xnp.expand_dims(xnp.expand_dims(s, axis=-1), axis=-1), x)


def _cplx(x):
    return is_complex(x.dtype)


def _mH(a):
    """Conjugate transpose (the plain transpose of a real array)."""
    return xnp.conj(_mT(a)) if _cplx(a) else _mT(a)


def _cj(x):
    return xnp.conj(x) if _cplx(x) else x


def _re(x):
    return xnp.real(x) if _cplx(x) else x


def _i_imag(x):
    """``i Im(x)`` (zero for real ``x``), as ``(x - conj(x)) / 2``."""
    return xnp.multiply(xnp.subtract(x, xnp.conj(x)), 0.5)


def _conj_vjp(adjoint):
    """JAX's VJP of a map whose adjoint (for ``Re tr(X^H Y)``) is ``adjoint``:
    ``g -> conj(adjoint(conj(g)))`` (the identity wrapping for real arrays)."""
    def vjp(gs):
        gs = tuple(_cj(g) for g in gs) if isinstance(gs, (tuple, list)) else _cj(gs)
        return _cj(adjoint(gs))
    return vjp


def _ndim(x):
    return len(x.shape) if hasattr(x, "shape") else 0


# --------------------------------------------------------------------------
# batching: the batch axis joins the stack axes

def _move_to_front(x, b):
    if b == 0:
        return x
    order = [b] + [i for i in range(x.ndim) if i != b]
    return xnp.permute_dims(x, tuple(order))


def stack_rule(prim, cores=(2,), expand_first=False):
    """Batching rule for ops on stacks: argument ``i`` has ``cores[i]``
    trailing core axes (2 for a matrix, 0 for a per-matrix scalar), the rest
    are stack axes that broadcast. One argument: the batch axis stays where it
    is when it is a stack axis (the output keeps the input's stack axes in
    front; the outputs of a decomposition all do, so they share it). Several:
    batched arguments get the batch axis in front and size-1 stack axes
    after it, so that it lines up; unbatched ones broadcast."""
    def rule(vals, bdims, **params):
        if len(vals) == 1:
            (v,), (b,) = vals, bdims
            if b >= v.ndim - cores[0]:
                v, b = _move_to_front(v, b), 0
            return result(prim, bind(prim, v, **params), b)
        if expand_first and bdims[0] is None:
            size = next(v.shape[b] for v, b in zip(vals, bdims) if b is not None)
            v = vals[0]
            v = xnp.broadcast_to(xnp.reshape(v, (1,) + tuple(v.shape)), (size,) + tuple(v.shape))
            vals, bdims = [v] + list(vals[1:]), [0] + list(bdims[1:])
        stacks = [_ndim(v) - (b is not None) - c for v, b, c in zip(vals, bdims, cores)]
        top = max(stacks)
        args = []
        for v, b, s in zip(vals, bdims, stacks):
            if b is not None:
                v = _move_to_front(v, b)
                if s < top:
                    shape = tuple(v.shape)
                    v = xnp.reshape(v, shape[:1] + (1,) * (top - s) + shape[1:])
            args.append(v)
        return result(prim, bind(prim, *args, **params), 0)
    return rule


# ----- solve and inverse -----

def _singular(e):
    """Whether ``e`` is a backend's "singular matrix" / "not positive
    definite" error (numpy's LinAlgError, torch's linalg.LinAlgError)."""
    return "LinAlgError" in type(e).__name__


def _refused(e):
    """Whether ``e`` is LAPACK refusing a matrix: numpy's "SVD / Eigenvalues
    did not converge", "Array must not contain infs or NaNs" (LinAlgError),
    scipy's "array must not contain infs or NaNs" (ValueError)."""
    return _singular(e) or (isinstance(e, ValueError) and "infs or NaNs" in str(e))


def _nan_where_refused(impl, cores=(2,)):
    """``impl`` where a matrix LAPACK refuses (non-finite entries, no
    convergence at 1e308) gets NaN outputs (JAX's SVD, eig and eigh return
    NaNs there) and the other matrices of the stack are computed one by one.
    Costs nothing until the backend has raised. ``cores``: the trailing core
    axes of each array argument (2 for a matrix, 0 for pinv's rtol), the
    rest broadcast with the first argument's stack axes."""
    def nan(xp, o):
        v = complex("nan+nanj") if is_complex(o.dtype) else float("nan")
        return xp.full(tuple(o.shape), v, dtype=o.dtype, device=_dev(o))

    def run(xp, *args, **params):
        try:
            return impl(xp, *args, **params)
        except Exception as e:
            if not _refused(e):
                raise
        stack = tuple(args[0].shape[:-2])
        flat = []
        for x, c in zip(args, cores):
            x = xp.asarray(x)
            core = tuple(x.shape[len(x.shape) - c:]) if c else ()
            flat.append(xp.reshape(xp.broadcast_to(x, stack + core), (-1,) + core))
        blank = impl(xp, *[xp.zeros_like(x[0, ...]) for x in flat], **params)
        several = isinstance(blank, tuple)
        blank = blank if several else (blank,)
        outs = []
        for i in range(flat[0].shape[0]):
            try:
                r = impl(xp, *[x[i, ...] for x in flat], **params)
                outs.append(r if several else (r,))
            except Exception as e:
                if not _refused(e):
                    raise
                outs.append(tuple(nan(xp, o) for o in blank))
        res = tuple(xp.reshape(xp.stack([o[k] for o in outs]), stack + tuple(blank[k].shape))
                    for k in range(len(blank)))
        return res if several else res[0]
    return run


def _lu_solve(xp, a, b, trans=False):
    """``a^-1 b`` (``a^-T b`` with ``trans``) by Gaussian elimination with
    partial pivoting (LAPACK's getrf/getrs, step by step) that does not stop
    at a zero pivot: a singular matrix gives LAPACK's inf/nan pattern, as
    JAX's solve and inv return, where numpy raises. ``trans`` solves with
    the factors of ``a`` itself (U^T, then L^T, then the row interchanges
    undone), as JAX's transposed solve does: the factors of ``a^T`` would
    put the infinities elsewhere. Only called once the backend has raised."""
    sa, sb = tuple(a.shape[:-2]), tuple(b.shape[:-2])
    k = max(len(sa), len(sb))
    sa, sb = (1,) * (k - len(sa)) + sa, (1,) * (k - len(sb)) + sb
    batch = tuple(max(i, j) for i, j in zip(sa, sb))
    n = a.shape[-1]
    a = xp.asarray(xp.broadcast_to(a, batch + tuple(a.shape[-2:])), copy=True)
    b = xp.asarray(xp.broadcast_to(b, batch + tuple(b.shape[-2:])), copy=True)
    dev = _dev(a)
    rows = xp.arange(n, device=dev)
    zero = xp.zeros((), dtype=a.dtype, device=dev)
    lo = xp.zeros(a.shape, dtype=a.dtype, device=dev)      # the multipliers (trans)
    pivots = []

    def swap(m, sel, k):
        row_p = xp.sum(xp.where(sel, m, zero), axis=-2)
        m[...] = xp.where(sel, m[..., k, None, :], m)        # row p <- row k
        m[..., k, :] = row_p                                 # row k <- row p

    for k in range(n):
        piv = xp.argmax(xp.abs(a[..., k:, k]), axis=-1) + k
        sel = (rows == piv[..., None])[..., None]            # (..., n, 1): the pivot row
        pivots.append(sel)
        for m in (a, lo) if trans else (a, b):
            swap(m, sel, k)
        p = a[..., k, k][..., None]
        below = (rows > k)
        lk = xp.where(below & (p != zero), a[..., :, k] / xp.where(p == zero, 1, p), zero)
        lo[..., :, k] = lk
        for m in (a,) if trans else (a, b):
            m[...] = xp.where(below[:, None], m - lk[..., None] * m[..., k, None, :], m)
    x = b
    if not trans:
        for i in range(n - 1, -1, -1):
            s = x[..., i, :] - xp.sum(a[..., i, i + 1:, None] * x[..., i + 1:, :], axis=-2)
            x[..., i, :] = s / a[..., i, i][..., None]
        return x
    for i in range(n):                                      # U^T y = b
        s = x[..., i, :] - xp.sum(a[..., :i, i, None] * x[..., :i, :], axis=-2)
        x[..., i, :] = s / a[..., i, i][..., None]
    for i in range(n - 1, -1, -1):                          # L^T w = y
        x[..., i, :] = x[..., i, :] - xp.sum(lo[..., i + 1:, i, None] * x[..., i + 1:, :], axis=-2)
    for k in range(n - 1, -1, -1):                          # the interchanges, last first
        swap(x, pivots[k], k)
    return x


def _solve_impl(xp, a, b, trans=False):
    try:
        return xp.linalg.solve(xp.matrix_transpose(a) if trans else a, b)
    except Exception as e:
        if not _singular(e):
            raise
    return _lu_solve(xp, a, b, trans)


def _inv_impl(xp, a):
    try:
        return xp.linalg.inv(a)
    except Exception as e:
        if not _singular(e):
            raise
    return _lu_solve(xp, a, xp.eye(a.shape[-1], dtype=a.dtype, device=_dev(a)))


def _solve(a, b, trans=False):
    """``a^-1 b`` (``a^-T b`` with ``trans``) for stacks of matrices ``a``
    (..., M, M), ``b`` (..., M, K). A transposed solve in a rule is ``trans``,
    not a solve with ``_mT(a)``: at a singular ``a`` it gives JAX's inf/nan
    pattern (the one of ``a``'s own factors)."""
    return bind(solve_p, a, b, trans=trans) if trans else bind(solve_p, a, b)


def _op(x, trans):
    return _mT(x) if trans else x


def _solve_vjp_a(ans, a, b, trans=False):
    # d ans = -op(A)^-1 op(dA) ans: the cotangent of op(A) is -op(A)^-T g ans^T
    if trans:
        return lambda g: xnp.negative(_mm(ans, _mT(_solve(a, g))))
    return lambda g: xnp.negative(_mm(_solve(a, g, trans=True), _mT(ans)))


def _solve_vjp_b(ans, a, b, trans=False):
    return lambda g: _solve(a, g, trans=not trans)


def _solve_jvp_a(a_dot, ans, a, b, trans=False):
    return xnp.negative(_solve(a, _mm(_op(a_dot, trans), ans), trans=trans))


def _solve_jvp_b(b_dot, ans, a, b, trans=False):
    return _solve(a, b_dot, trans=trans)


solve_p = defprim(
    "solve", _solve_impl, nargs=2,
    jvp=(_solve_jvp_a, _solve_jvp_b),
    vjp=(_solve_vjp_a, _solve_vjp_b),
    batch=lambda p: stack_rule(p, (2, 2)))


def _inv_vjp(ans, a):
    ans_t = _mT(ans)
    return lambda g: xnp.negative(_mm(_mm(ans_t, g), ans_t))


def _inv_jvp(a_dot, ans, a):
    return xnp.negative(_mm(_mm(ans, a_dot), ans))


inv_p = defprim(
    "inv", _inv_impl, jvp=_inv_jvp,
    vjp=_inv_vjp, batch=stack_rule)


# ----- determinants -----

def _adjugate_2x2(xp, a):
    """adj of 1x1 and 2x2 matrices in closed form, [[1]] and [[d, -b], [-c,
    a]]: exact, also where the SVD's singular values overflow (entries near
    1e308 give +-inf, or NaN from inf * 0) or lose a small cofactor next to
    a huge one (adj([[1e308, 1e308], [1e308, 1.5]])[0, 0] is 1.5, not
    eps * 1e308); linear in ``a`` for 2x2, so it is also d adj[a]."""
    if a.shape[-1] == 1:
        return xp.ones_like(a)
    p, q, r, s = a[..., 0, 0], a[..., 0, 1], a[..., 1, 0], a[..., 1, 1]
    return xp.stack([xp.stack([s, -q], axis=-1), xp.stack([-r, p], axis=-1)], axis=-2)


def _adjugate_impl(xp, a):
    """adj(A) = det(U) det(V) V diag(prod_{j != i} s_j) U^T from the SVD
    A = U diag(s) V^T: finite (and exact) at singular matrices too, where
    det(A) A^-1 is not. (1x1 and 2x2: ``_adjugate_2x2``.)"""
    if a.shape[-1] in (1, 2):
        return _adjugate_2x2(xp, a)
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    n = s.shape[-1]
    eye = xp.eye(n, dtype=xp.bool, device=_dev(a))
    one = xp.ones((), dtype=s.dtype, device=_dev(a))
    others = xp.prod(xp.where(eye, one, s[..., None, :]), axis=-1)   # prod_{j != i} s_j
    c = xp.linalg.det(u) * xp.linalg.det(vh)
    vt, ut = xp.matrix_transpose(vh), xp.matrix_transpose(u)
    if is_complex(a.dtype):                # A = U S V^H: conjugate transposes
        vt, ut = xp.conj(vt), xp.conj(ut)
    adj = xp.matmul(vt * others[..., None, :], ut)
    return adj * xp.reshape(c, tuple(c.shape) + (1, 1))


def _dev(x):
    return array_api_compat.device(x)


def _adjugate_jvp(a_dot, ans, a):
    return _adjugate_dot(a, a_dot)


def _adjugate_vjp(ans, a):
    # d adj is self-adjoint up to a transpose: its transpose at A is d adj at A^T
    at = _mT(a)
    return lambda g: _adjugate_dot(at, g)


def _adjugate_dot_impl(xp, a, e):
    """d adj(A)[E], finite everywhere (adj is a polynomial): with A = U S V^H
    and E' = U^H E V, d adj(A)[E] = det(U) det(V^H) V Y U^H where Y, the
    derivative of adj at the diagonal S, is -E'_ij prod_{k != i,j} s_k off
    the diagonal and sum_{k != i} E'_kk prod_{l != i,k} s_l on it.
    (1x1: 0; 2x2: adj(E), adj being linear there.)"""
    if a.shape[-1] in (1, 2):
        e = xp.broadcast_to(e, tuple(xp.broadcast_arrays(a, e)[0].shape))
        return xp.zeros_like(e) if a.shape[-1] == 1 else _adjugate_2x2(xp, e)
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    n = s.shape[-1]
    dev = _dev(a)
    eye = xp.eye(n, dtype=xp.bool, device=dev)
    one = xp.ones((), dtype=s.dtype, device=dev)
    # p_ij = prod_{k != i, j} s_k (i != j), 0 on the diagonal
    keep = xp.logical_not(xp.logical_or(eye[:, None, :], eye[None, :, :]))   # k != i, k != j
    p = xp.prod(xp.where(keep, s[..., None, None, :], one), axis=-1)
    p = xp.where(eye, xp.zeros((), dtype=s.dtype, device=dev), p)
    v, uh = xp.matrix_transpose(vh), xp.matrix_transpose(u)
    if is_complex(a.dtype):
        v, uh = xp.conj(v), xp.conj(uh)
    p = xp.astype(p, a.dtype)
    ep = xp.matmul(xp.matmul(uh, e), v)
    d = xp.sum(xp.where(eye, ep, xp.zeros((), dtype=a.dtype, device=dev)), axis=-1)
    y = xp.where(eye, xp.matmul(p, d[..., None]), -p * ep)
    c = xp.linalg.det(u) * xp.linalg.det(vh)
    return xp.matmul(xp.matmul(v, y), uh) * xp.reshape(c, tuple(c.shape) + (1, 1))


def _adjugate_dot(a, e):
    return bind(adjugate_dot_p, a, e)


def _adjugate_dot_jvp_a(a_dot, ans, a, e):
    # the third derivative of det, by solves: finite at invertible A only.
    # d/dA [tr(S) adj - S adj], S = A^-1 E, K = A^-1 dA
    k, s = _solve(a, a_dot), _solve(a, e)
    adj = _adjugate(a)
    l_f = _adjugate_dot(a, a_dot)
    t = xnp.add(_scale(xnp.negative(_trace(_mm(k, s))), adj), _scale(_trace(s), l_f))
    return xnp.add(t, xnp.subtract(_mm(_mm(k, s), adj), _mm(s, l_f)))


def _adjugate_dot_vjp_a(ans, a, e):
    s = _solve(a, e)
    at, st = _mT(a), _mT(s)
    sb_t = _solve(a, st, trans=True)                       # (A^-1 E A^-1)^T
    adj_t = _mT(_adjugate(a))
    tr_s = _trace(s)

    def vjp(g):
        alpha = xnp.sum(xnp.multiply(g, _mT(adj_t)), axis=(-2, -1))
        t = xnp.add(_scale(xnp.negative(alpha), sb_t), _scale(tr_s, _adjugate_dot(at, g)))
        b_t_g = _solve(a, g, trans=True)                       # A^-T G
        return xnp.add(t, xnp.subtract(_mm(_mm(b_t_g, adj_t), st),
                                       _adjugate_dot(at, _mm(st, g))))
    return vjp


adjugate_dot_p = defprim(
    "adjugate_dot", _nan_where_refused(_adjugate_dot_impl, (2, 2)), nargs=2,
    jvp=(_adjugate_dot_jvp_a, lambda e_dot, ans, a, e: _adjugate_dot(a, e_dot)),
    vjp=(_adjugate_dot_vjp_a, lambda ans, a, e: lambda g: _adjugate_dot(_mT(a), g)),
    batch=lambda p: stack_rule(p, (2, 2)))


adjugate_p = defprim("adjugate", _nan_where_refused(_adjugate_impl), jvp=_adjugate_jvp, vjp=_adjugate_vjp,
                     batch=stack_rule)


def _adjugate(a):
    return bind(adjugate_p, a)


def _det_jvp(a_dot, ans, a):
    return xnp.sum(xnp.multiply(_mT(_adjugate(a)), a_dot), axis=(-2, -1))


def _det_vjp(ans, a):
    adj_t = _mT(_adjugate(a))
    return lambda g: _scale(g, adj_t)


# NB: det's gradient is the transposed adjugate and its Hessian the
# adjugate's derivative (adjugate_dot), both finite at singular matrices;
# JAX computes the same from an LU factorisation.
det_p = defprim("det", lambda xp, a: xp.linalg.det(a), jvp=_det_jvp, vjp=_det_vjp,
                batch=stack_rule)


def _slogdet_impl(xp, a):
    r = xp.linalg.slogdet(a)
    return (r[0], r[1])


def _slogdet_jvp(a_dot, outs, a):
    sign, _ = outs
    x = _trace(_solve(a, a_dot))               # d log det A = tr(A^-1 dA)
    if not _cplx(a):
        return (xnp._zeros_like(sign), x)
    # complex: d logabsdet = Re x, d sign = i Im(x) sign (JAX's convention)
    return (xnp.multiply(_i_imag(x), sign), xnp.real(x))


def _slogdet_vjp(outs, a):
    sign, _ = outs

    def vjp(gs):
        # the cotangent k A^-T, by one solve; k = g_l (+ i Im(g_sign sign))
        k = gs[1] if not _cplx(a) else xnp.add(gs[1], _i_imag(xnp.multiply(gs[0], sign)))
        return _solve(a, _scale(k, _eye(a.shape[-1], a)), trans=True)
    return vjp


slogdet_p = defprim("slogdet", _slogdet_impl, jvp=_slogdet_jvp, vjp=_slogdet_vjp,
                    multiple_results=True, batch=stack_rule)
slogdet = slogdet_p.bind


# ----- Cholesky (input assumed symmetric: the user function symmetrises) -----

def _phi(x):
    """Lower triangle with the diagonal halved."""
    return xnp.subtract(xnp.tril(x), xnp.multiply(x, 0.5 * _eye(x.shape[-1], x)))


def _cholesky_jvp(a_dot, L, a):
    z = _solve(L, a_dot)                       # L^-1 dA
    w = _mH(_solve(L, _mH(z)))                 # L^-1 dA L^-H
    return _mm(L, _phi(w))


def _cholesky_vjp(L, a):
    lt = _mT(L)

    def vjp(g):
        y = _solve(lt, _phi(_mm(lt, g)))       # L^-T phi(L^T g)
        return _mT(_solve(_mH(L), _mT(y)))     # ... conj(L)^-1
    return vjp


def _cholesky_impl(xp, a):
    """The backend's Cholesky factor; where the backend refuses a matrix that
    is not positive definite, that matrix's factor is NaN in its lower
    triangle (JAX's answer), the others computed one by one."""
    try:
        return xp.linalg.cholesky(a)
    except Exception as e:
        if not _singular(e):
            raise
    n = a.shape[-1]
    flat = xp.reshape(a, (-1, n, n))
    bad = xp.tril(xp.full((n, n), float("nan"), dtype=a.dtype, device=_dev(a)))
    out = []
    for i in range(flat.shape[0]):
        try:
            out.append(xp.linalg.cholesky(flat[i, ...]))
        except Exception as e:
            if not _singular(e):
                raise
            out.append(bad)
    return xp.reshape(xp.stack(out), tuple(a.shape))


cholesky_p = defprim("cholesky", _cholesky_impl,
                     jvp=_cholesky_jvp, vjp=_cholesky_vjp, batch=stack_rule)


# ----- symmetric eigendecomposition (input assumed symmetric) -----

def _gap_inverse(d):
    """1 / d off the diagonal, 0 on it (d is zero on the diagonal)."""
    e = _eye(d.shape[-1], d)
    return xnp.divide(1.0 - e, xnp.add(d, e))


def _times_nz(f, x):
    """``f * x`` where ``x`` is nonzero, 0 where it is zero: a zero entry of a
    cotangent contributes nothing, even against an infinite ``f`` (a
    repeated eigenvalue's gap). So a function of the eigenvalues (or
    singular values) alone gets its finite gradient at a degenerate matrix,
    as under JAX, whose eigenvector cotangent is a symbolic zero there; a
    nonzero eigenvector cotangent still meets the infinity (the eigenvectors
    are not differentiable there)."""
    return xnp.where(xnp.equal(x, 0.0), 0.0, xnp.multiply(f, x))


def _div_nz(x, s):
    """``x / s``, 0 where ``x`` is zero (also where ``s`` is)."""
    return xnp.where(xnp.equal(x, 0.0), 0.0, xnp.divide(x, s))


def _eig_f(w):
    # F_ij = 1 / (w_j - w_i): infinite for repeated eigenvalues
    return _gap_inverse(xnp.subtract(xnp.expand_dims(w, axis=-2), xnp.expand_dims(w, axis=-1)))


def _eigh_impl(xp, a):
    r = xp.linalg.eigh(a)
    return (r[0], r[1])


def _eigh_jvp(a_dot, outs, a):
    w, v = outs
    vh_dv = _mm(_mm(_mH(v), a_dot), v)
    # no gauge term: the diagonal of V^H dV is zero (JAX's choice)
    return (_re(_diag(vh_dv)), _mm(v, xnp.multiply(_eig_f(w), vh_dv)))


def _eigh_vjp(outs, a):
    w, v = outs
    f = _eig_f(w)
    vc = _cj(v)

    def vjp(gs):
        gw, gv = gs
        # conj(V) (diag(gw) + F o (V^T gv)) V^T
        inner = xnp.add(_diag_embed(gw), _times_nz(f, _mm(_mT(v), gv)))
        return _mm(_mm(vc, inner), _mT(v))
    return vjp


eigh_p = defprim("eigh", _nan_where_refused(_eigh_impl), jvp=_eigh_jvp, vjp=_eigh_vjp, multiple_results=True,
                 batch=stack_rule)
eigh = eigh_p.bind


def _eigvalsh_jvp(a_dot, ans, a):
    v = eigh(a)[1]
    return _re(xnp.sum(xnp.multiply(_cj(v), _mm(a_dot, v)), axis=-2))


def _eigvalsh_vjp(ans, a):
    v = eigh(a)[1]
    return lambda g: _mm(xnp.multiply(_cj(v), xnp.expand_dims(g, axis=-2)), _mT(v))


eigvalsh_p = defprim("eigvalsh", _nan_where_refused(lambda xp, a: xp.linalg.eigvalsh(a)),
                     jvp=_eigvalsh_jvp, vjp=_eigvalsh_vjp, batch=stack_rule)


# ----- singular value decomposition -----

def _svd_impl(xp, a, *, full_matrices):
    r = xp.linalg.svd(a, full_matrices=full_matrices)
    return (r[0], r[1], r[2])


def _svd_check(a, full_matrices):
    m, n = a.shape[-2:]
    if full_matrices and m != n:
        raise NotImplementedError(
            "linalg.svd: derivatives with full_matrices=True need square matrices (the "
            "extra singular vectors are not unique); use full_matrices=False")
    return m, n


def _svd_f(s):
    # F_ij = 1 / (s_j^2 - s_i^2): infinite for repeated singular values
    sr, sc = xnp.expand_dims(s, axis=-2), xnp.expand_dims(s, axis=-1)
    return _gap_inverse(xnp.multiply(xnp.add(sr, sc), xnp.subtract(sr, sc)))


def _recip0(s):
    """1 / s, and 0 where s == 0."""
    zero = xnp.equal(s, 0.0)
    return xnp.where(zero, 0.0, xnp.divide(1.0, xnp.where(zero, 1.0, s)))


def _svd_jvp(a_dot, outs, a, *, full_matrices):
    m, n = _svd_check(a, full_matrices)
    u, s, vh = outs
    v = _mH(vh)
    f = _svd_f(s)
    sr, sc = xnp.expand_dims(s, axis=-2), xnp.expand_dims(s, axis=-1)
    ds_mat = _mm(_mm(_mH(u), a_dot), v)
    dss = xnp.multiply(ds_mat, sr)              # dS S
    sds = xnp.multiply(sc, ds_mat)              # S dS
    inner_u = xnp.multiply(f, xnp.add(dss, _mH(dss)))
    if _cplx(a):
        # JAX's gauge: diag(U^H dU) = i Im(diag dS) / s, diag(V^H dV) = 0
        inner_u = xnp.add(inner_u, _diag_embed(xnp.multiply(_i_imag(_diag(ds_mat)), _recip0(s))))
    du = _mm(u, inner_u)
    dv = _mm(v, xnp.multiply(f, xnp.add(sds, _mH(sds))))
    if m > n:
        dav = _mm(a_dot, v)
        du = xnp.add(du, xnp.divide(xnp.subtract(dav, _mm(u, _mm(_mH(u), dav))), sr))
    if n > m:
        dahu = _mm(_mH(a_dot), u)
        dv = xnp.add(dv, xnp.divide(xnp.subtract(dahu, _mm(v, _mm(vh, dahu))), sr))
    return (du, _re(_diag(ds_mat)), _mH(dv))


def _svd_vjp(outs, a, *, full_matrices):
    m, n = _svd_check(a, full_matrices)
    u, s, vh = outs
    v = _mH(vh)
    f = _svd_f(s)
    sr, sc = xnp.expand_dims(s, axis=-2), xnp.expand_dims(s, axis=-1)

    def adjoint(gs):                            # of the JVP, for Re tr(X^H Y)
        gu, g_s, gvh = gs
        gv = _mH(gvh)
        j = _mm(_mH(u), gu)
        k = _mm(vh, gv)
        d = xnp.add(_diag_embed(g_s),
                    xnp.add(xnp.multiply(_times_nz(f, xnp.subtract(j, _mH(j))), sr),
                            xnp.multiply(sc, _times_nz(f, xnp.subtract(k, _mH(k))))))
        if _cplx(a):
            d = xnp.add(d, _diag_embed(xnp.multiply(_i_imag(_diag(j)), _recip0(s))))
        out = _mm(_mm(u, d), vh)
        if m > n:
            gu_perp = xnp.subtract(gu, _mm(u, _mm(_mH(u), gu)))
            out = xnp.add(out, _mm(_div_nz(gu_perp, sr), vh))
        if n > m:
            gv_perp = xnp.subtract(gv, _mm(v, _mm(vh, gv)))
            out = xnp.add(out, _mm(u, _div_nz(_mH(gv_perp), sc)))
        return out
    return _conj_vjp(adjoint)


svd_p = defprim("svd", _nan_where_refused(_svd_impl), jvp=_svd_jvp, vjp=_svd_vjp, multiple_results=True,
                batch=stack_rule)
svd = svd_p.bind


def _svdvals_jvp(a_dot, ans, a):
    u, _, vh = svd(a, full_matrices=False)
    return _re(xnp.sum(xnp.multiply(_cj(u), _mm(a_dot, _mH(vh))), axis=-2))


def _svdvals_vjp(ans, a):
    u, _, vh = svd(a, full_matrices=False)
    uc, vhc = _cj(u), _cj(vh)
    return lambda g: _mm(xnp.multiply(uc, xnp.expand_dims(g, axis=-2)), vhc)


svdvals_p = defprim("svdvals", _nan_where_refused(lambda xp, a: xp.linalg.svdvals(a)),
                    jvp=_svdvals_jvp, vjp=_svdvals_vjp, batch=stack_rule)


# ----- QR -----

def _qr_impl(xp, a, *, mode):
    r = xp.linalg.qr(a, mode=mode)
    return (r[0], r[1])


def _qr_check(a, mode):
    m, n = a.shape[-2:]
    if mode == "complete" and m > n:
        raise NotImplementedError(
            "linalg.qr: derivatives with mode='complete' need m <= n (the extra columns "
            "of Q are not unique); use mode='reduced'")
    return m, n


def _half_lower(x):
    """Strict lower triangle plus half the diagonal."""
    return xnp.add(xnp.tril(x, k=-1), xnp.multiply(x, 0.5 * _eye(x.shape[-1], x)))


def _qr_jvp_tall(q, r, a_dot):
    """(dQ, dR) for A = QR with R square and invertible."""
    b = _mT(_solve(_mT(r), _mT(a_dot)))            # dA R^-1
    c = _mm(_mH(q), b)
    t = _half_lower(c)
    omega = xnp.subtract(t, _mH(t))               # Q^H dQ (anti-Hermitian; real diagonal of dR)
    dq = xnp.add(_mm(q, xnp.subtract(omega, c)), b)
    dr = _mm(xnp.subtract(c, omega), r)
    return dq, dr


def _qr_adjoint_tall(q, r, gq, gr):
    """Adjoint (for Re tr(X^H Y)) of ``_qr_jvp_tall``."""
    x = xnp.subtract(_mm(_mH(q), gq), _mm(gr, _mH(r)))
    nn = xnp.subtract(_half_lower(xnp.subtract(x, _mH(x))), x)
    b_bar = xnp.add(gq, _mm(q, nn))
    return _mH(_solve(r, _mH(b_bar)))             # B_bar R^-H


def _qr_jvp(a_dot, outs, a, *, mode):
    m, n = _qr_check(a, mode)
    q, r = outs
    if m >= n:
        return _qr_jvp_tall(q, r, a_dot)
    # wide: A = [X | Y] = Q [R1 | R2] with R2 = Q^H Y
    dq, dr1 = _qr_jvp_tall(q, r[..., :, :m], a_dot[..., :, :m])
    dr2 = xnp.add(_mm(_mH(dq), a[..., :, m:]), _mm(_mH(q), a_dot[..., :, m:]))
    return dq, xnp.concat([dr1, dr2], axis=-1)


def _qr_vjp(outs, a, *, mode):
    m, n = _qr_check(a, mode)
    q, r = outs

    def adjoint(gs):
        gq, gr = gs
        if m >= n:
            return _qr_adjoint_tall(q, r, gq, gr)
        gr2 = gr[..., :, m:]
        gq = xnp.add(gq, _mm(a[..., :, m:], _mH(gr2)))
        x_bar = _qr_adjoint_tall(q, r[..., :, :m], gq, gr[..., :, :m])
        return xnp.concat([x_bar, _mm(q, gr2)], axis=-1)
    return _conj_vjp(adjoint)


qr_p = defprim("qr", _qr_impl, jvp=_qr_jvp, vjp=_qr_vjp, multiple_results=True, batch=stack_rule)
qr = qr_p.bind


# ----- general eigendecomposition (LAPACK's normalisation: unit columns whose
# largest-magnitude entry is real; derivatives need distinct eigenvalues) -----

def _complex_dtype(xp, dt):
    if is_complex(dt):
        return dt
    return xp.complex64 if dt == xp.float32 else xp.complex128


def _backend_eig(xp, name):
    fn = getattr(getattr(xp, "linalg", None), name, None)
    if fn is None:
        raise NotImplementedError(f"linalg.{name}: the backend {xp.__name__} has no linalg.{name}")
    return fn


def _eig_impl(xp, a):
    w, v = _backend_eig(xp, "eig")(a)
    dt = _complex_dtype(xp, a.dtype)
    return (xp.astype(w, dt), xp.astype(v, dt))


def _eigvals_impl(xp, a):
    return xp.astype(_backend_eig(xp, "eigvals")(a), _complex_dtype(xp, a.dtype))


def _eig_mask(v):
    """1 at each column's largest-magnitude entry (a constant), 0 elsewhere."""
    m = xnp.abs(v)
    return xnp.astype(xnp.equal(m, xnp.max(m, axis=-2, keepdims=True)), v.dtype)


def _eig_jvp(a_dot, outs, a):
    w, v = outs
    p = _mm(_solve(v, xnp.astype(a_dot, v.dtype)), v)          # V^-1 dA V
    u = _mm(v, xnp.multiply(_eig_f(w), p))
    # dv_j = u_j + c_j v_j, c_j fixed by the normalisation (unit norm, entry k real)
    mask = _eig_mask(v)
    vk = xnp.real(xnp.sum(xnp.multiply(mask, v), axis=-2))
    c = xnp.add(xnp.real(xnp.sum(xnp.multiply(xnp.conj(v), u), axis=-2)),
                xnp.divide(_i_imag(xnp.sum(xnp.multiply(mask, u), axis=-2)), vk))
    return (_diag(p), xnp.subtract(u, xnp.multiply(v, xnp.expand_dims(c, axis=-2))))


def _eig_vjp(outs, a):
    w, v = outs
    f = _eig_f(w)
    vt = _mT(v)
    mask = _eig_mask(v)
    vk = xnp.real(xnp.sum(xnp.multiply(mask, v), axis=-2))

    def vjp(gs):                               # the transpose of _eig_jvp, step by step
        gw, gv = gs
        gc = xnp.sum(xnp.multiply(v, gv), axis=-2)
        ga = xnp.negative(xnp.real(gc))
        gb = xnp.negative(xnp.divide(_i_imag(gc), vk))
        gu = xnp.add(gv, xnp.add(xnp.multiply(xnp.conj(v), xnp.expand_dims(ga, axis=-2)),
                                 xnp.multiply(mask, xnp.expand_dims(gb, axis=-2))))
        gp = xnp.add(_diag_embed(gw), _times_nz(f, _mm(vt, gu)))
        return _solve(vt, _mm(gp, vt))
    return vjp


eig_p = defprim("eig", _nan_where_refused(_eig_impl), jvp=_eig_jvp, vjp=_eig_vjp, multiple_results=True,
                batch=stack_rule)
eig = eig_p.bind


def _eigvals_jvp(a_dot, ans, a):
    v = eig(a)[1]
    return xnp.sum(xnp.multiply(_solve(v, xnp.astype(a_dot, v.dtype)), _mT(v)), axis=-1)


def _eigvals_vjp(ans, a):
    vt = _mT(eig(a)[1])
    return lambda g: _solve(vt, xnp.multiply(xnp.expand_dims(g, axis=-1), vt))


eigvals_p = defprim("eigvals", _nan_where_refused(_eigvals_impl), jvp=_eigvals_jvp, vjp=_eigvals_vjp,
                    batch=stack_rule)


# ----- pseudo-inverse (derivative valid where the rank is locally constant) -----

def _pinv_jvp(a_dot, p, a, rtol):
    a_dot_h = _mH(a_dot)
    t1 = xnp.negative(_mm(_mm(p, a_dot), p))
    # P P^H dA^H (I - A P)
    t2 = _mm(_mm(p, _mH(p)), xnp.subtract(a_dot_h, _mm(_mm(a_dot_h, a), p)))
    # (I - P A) dA^H P^H P
    z = _mm(a_dot_h, _mm(_mH(p), p))
    t3 = xnp.subtract(z, _mm(p, _mm(a, z)))
    return xnp.add(t1, xnp.add(t2, t3))


def _pinv_vjp(p, a, rtol):
    ph = _mH(p)

    def adjoint(g):
        gh = _mH(g)
        t1 = xnp.negative(_mm(_mm(ph, g), ph))
        y = _mm(gh, _mm(p, ph))                     # (I - A P) G^H P P^H
        t2 = xnp.subtract(y, _mm(a, _mm(p, y)))
        w = _mm(_mm(ph, p), gh)                     # P^H P G^H (I - P A)
        t3 = xnp.subtract(w, _mm(_mm(w, p), a))
        return xnp.add(t1, xnp.add(t2, t3))
    return _conj_vjp(adjoint)


pinv_p = defprim("pinv", _nan_where_refused(lambda xp, a, rtol: xp.linalg.pinv(a, rtol=rtol),
                                            (2, 0)), nargs=2,
                 nondiff=(1,), jvp=(_pinv_jvp, None), vjp=(_pinv_vjp, None),
                 batch=lambda p: stack_rule(p, (2, 0), expand_first=True))


# ----- vector 2-norm: gradient 0 at 0 (where JAX's composite gives nan) -----

def _norm_impl(xp, x, *, axis, keepdims):
    if not axis:
        return xp.abs(x)
    return xp.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=2)


def _kept(v, shape, axis, keepdims):
    if keepdims:
        return v
    return xnp.reshape(v, tuple(1 if i in axis else n for i, n in enumerate(shape)))


def _safe(ans):
    # ans == 0 only where x == 0 along the axes: x / 1 = 0 there
    return xnp.where(xnp.equal(ans, 0.0), 1.0, ans)


def _norm_jvp(x_dot, ans, x, *, axis, keepdims):
    dot = _re(xnp.sum(xnp.multiply(_cj(x), x_dot), axis=axis, keepdims=keepdims))
    return xnp.divide(dot, _safe(ans))


def _norm_vjp(ans, x, *, axis, keepdims):
    unit = xnp.divide(_cj(x), _kept(_safe(ans), x.shape, axis, keepdims))
    return lambda g: xnp.multiply(_kept(g, x.shape, axis, keepdims), unit)


def _norm_batch(prim):
    """The batch axis stays put; the reduced axes shift past it."""
    def rule(vals, bdims, *, axis, keepdims):
        (v,), (b,) = vals, bdims
        ax = tuple(a + (a >= b) for a in axis)
        out_b = b if keepdims else b - sum(a < b for a in ax)
        return bind(prim, v, axis=ax, keepdims=keepdims), out_b
    return rule


vector_norm_p = defprim("vector_norm", _norm_impl, jvp=_norm_jvp, vjp=_norm_vjp,
                        batch=_norm_batch)
