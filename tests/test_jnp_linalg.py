"""jax.numpy.linalg and jax.numpy.fft functions against jax: the functions
beyond the array API (norm, cond, lstsq, tensorinv, tensorsolve, eig,
eigvals, fft2, ifft2, rfft2, irfft2) and complex derivatives of the
decompositions (svd, eigh, qr, cholesky, slogdet, pinv, norms, ...).

Complex cases get complex tangents and cotangents from the harness
(``jnp_cases.check``). Singular vectors and eigenvectors of
``svd``/``eigh`` are defined up to a phase per column, so their cases test
gauge-invariant functions (``|U|^2``, ``U diag(s) V^H``, projections
``U U^H``) besides the values.
"""
import math

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from conftest import to_np
from jnp_cases import JCase, _draw, check, ids

RNG = np.random.default_rng(42)


def _r(*shape):
    return RNG.standard_normal(shape)


def _c(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def _spd(n, cplx=False):
    a = _c(n, n) if cplx else _r(n, n)
    return a @ a.conj().T + n * np.eye(n)


def _mH(ns, a):
    return ns.conj(ns.matrix_transpose(a))


# ----- gauge-invariant functions of the decompositions -----

def _svd_gauge(ns, a):
    u, s, vh = ns.linalg.svd(a, full_matrices=False)
    k = s.shape[-1]
    return (s, ns.abs(u) ** 2, ns.abs(vh) ** 2, ns.matmul(u * s[..., None, :], vh),
            ns.matmul(u[..., :, : k - 1], _mH(ns, u[..., :, : k - 1])))


def _eigh_gauge(ns, a):
    w, v = ns.linalg.eigh(a)
    return (w, ns.abs(v) ** 2, ns.matmul(v[..., :, :2], _mH(ns, v[..., :, :2])))


def _eig(ns, a):
    """``eig``: jax's own eigenvector derivatives need the lax function."""
    if ns is xnp:
        return tuple(xnp.linalg.eig(a))
    import jax
    return tuple(jax.lax.linalg.eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True))


def _eig_real(ns, a):
    # real input: a real eigenvector's sign is the backend's; v * v is not
    w, v = _eig(ns, a)
    return w, v * v


def _lstsq(ns, a, b, **kw):
    return tuple(ns.linalg.lstsq(a, b, **kw))


A4, A43, A34, A234 = _r(4, 4), _r(4, 3), _r(3, 4), _r(2, 3, 4)
C4, C43, C34, C234 = _c(4, 4), _c(4, 3), _c(3, 4), _c(2, 3, 4)
S4, H4 = _spd(4), _spd(4, True)
V5, CV5 = _r(5), _c(5)
INF = math.inf

CASES = [
    # norm: vectors
    *[JCase("linalg.norm", (lambda ns, x, o=o: ns.linalg.norm(x, ord=o)), (V5,),
            order=2 if o in (None, 2, 3) else 1, id=f"vec-{o}") for o in (None, 1, 2, INF, -INF, 3, -1)],
    JCase("linalg.norm", lambda ns, x: ns.linalg.norm(x, ord=0), (V5,), order=0, id="vec-0"),
    JCase("linalg.norm", lambda ns, x: ns.linalg.norm(x), (A234,), id="flat"),
    JCase("linalg.norm", lambda ns, x: ns.linalg.norm(x, keepdims=True), (A234,), id="flat-keepdims"),
    JCase("linalg.norm", lambda ns, x: ns.linalg.norm(x, ord=3, axis=1, keepdims=True), (A234,),
          id="axis-p3"),
    JCase("linalg.norm", lambda ns, x: ns.linalg.norm(x, ord=1, axis=(0,)), (A234,), order=1,
          id="axis-tuple1"),
    # norm: matrices, any axes
    *[JCase("linalg.norm", (lambda ns, x, o=o: ns.linalg.norm(x, ord=o)), (A43,),
            order=2 if o in (None, "fro", "nuc", 2, -2) else 1, id=f"mat-{o}")
      for o in (None, "fro", "nuc", 1, -1, 2, -2, INF, -INF)],
    *[JCase("linalg.norm", (lambda ns, x, o=o: ns.linalg.norm(x, ord=o, axis=(2, 0))), (A234,),
            order=1, id=f"mat-axes-{o}") for o in ("fro", "nuc", 1, -1, 2, INF, -INF)],
    JCase("linalg.norm", lambda ns, x: ns.linalg.norm(x, ord="nuc", axis=(0, 2), keepdims=True),
          (A234,), id="mat-keepdims-nuc"),
    JCase("linalg.norm", lambda ns, x: ns.linalg.norm(x, ord=INF, axis=(2, 1), keepdims=True),
          (A234,), order=1, id="mat-keepdims-inf"),
    JCase("linalg.norm", lambda ns, x: ns.linalg.norm(x, ord=INF), (np.array([1.0, -1.0, 0.5]),),
          order=1, vmap=False, id="vec-inf-tie"),
    # cond
    *[JCase("linalg.cond", (lambda ns, x, p=p: ns.linalg.cond(x, p=p)), (A4,),
            order=2 if p in (None, 2, -2, "fro", "nuc") else 1, id=f"{p}")
      for p in (None, 2, -2, "fro", "nuc", 1, -1, INF, -INF)],
    JCase("linalg.cond", lambda ns, x: ns.linalg.cond(x), (A234,), id="stack-rect"),
    # lstsq (the residuals of a tall system are nonzero)
    JCase("linalg.lstsq", _lstsq, (A43, _r(4)), id="vec"),
    JCase("linalg.lstsq", _lstsq, (A43, _r(4, 2)), order=1, id="mat"),
    JCase("linalg.lstsq", _lstsq, (A34, _r(3, 2)), order=1, vmap=False, id="wide"),
    JCase("linalg.lstsq", lambda ns, a, b: _lstsq(ns, a, b, rcond=0.5), (A43, _r(4)), order=1,
          vmap=False, id="rcond"),
    # tensorinv, tensorsolve
    JCase("linalg.tensorinv", lambda ns, a: ns.linalg.tensorinv(a), (_r(2, 3, 6),), id="ind2"),
    JCase("linalg.tensorinv", lambda ns, a: ns.linalg.tensorinv(a, ind=1), (_r(6, 2, 3),), id="ind1"),
    JCase("linalg.tensorsolve", lambda ns, a, b: ns.linalg.tensorsolve(a, b), (_r(2, 3, 6), _r(2, 3))),
    JCase("linalg.tensorsolve", lambda ns, a, b: ns.linalg.tensorsolve(a, b, axes=(0,)),
          (_r(6, 2, 3), _r(2, 3)), vmap=False, id="axes"),
    # eig (LAPACK's normalisation, eigenvector derivatives as jax.lax.linalg.eig's)
    JCase("linalg.eig", _eig_real, (A4,), order=1, id="real"),
    JCase("linalg.eigvals", lambda ns, a: ns.linalg.eigvals(a), (A4,), order=1),
    # fft2 family
    JCase("fft.fft2", lambda ns, x: ns.fft.fft2(x), (_r(2, 3, 4),)),
    JCase("fft.fft2", lambda ns, x: ns.fft.fft2(x, s=(4, 3), axes=(0, 2), norm="ortho"), (_r(2, 3, 4),),
          id="s-axes"),
    JCase("fft.ifft2", lambda ns, x: ns.fft.ifft2(x, norm="forward"), (_r(3, 4),)),
    JCase("fft.rfft2", lambda ns, x: ns.fft.rfft2(x), (_r(2, 4, 6),)),
    JCase("fft.rfft2", lambda ns, x: ns.fft.rfft2(x, s=(3, 5), axes=(1, 0)), (_r(4, 6),), id="s-axes"),
    JCase("fft.irfft2", lambda ns, x: ns.fft.irfft2(x), (_c(3, 4),), order=1, vmap=False),
]

# complex inputs (the harness draws complex tangents and cotangents for them)
CCASES = [
    JCase("linalg.svd", _svd_gauge, (C4,), id="gauge-c-square"),
    JCase("linalg.svd", _svd_gauge, (C43,), order=1, id="gauge-c-tall"),
    JCase("linalg.svd", _svd_gauge, (C34,), order=1, vmap=False, id="gauge-c-wide"),
    JCase("linalg.svd", _svd_gauge, (C234,), order=1, vmap=False, id="gauge-c-stack"),
    JCase("linalg.svdvals", lambda ns, a: ns.linalg.svdvals(a), (C43,), id="c"),
    JCase("linalg.eigh", _eigh_gauge, (H4,), id="gauge-c"),
    JCase("linalg.eigh", _eigh_gauge, (S4,), id="gauge-r"),
    JCase("linalg.eigvalsh", lambda ns, a: ns.linalg.eigvalsh(a), (H4,), id="c"),
    JCase("linalg.qr", lambda ns, a: tuple(ns.linalg.qr(a)), (C43,), id="c-tall"),
    JCase("linalg.qr", lambda ns, a: tuple(ns.linalg.qr(a)), (C34,), id="c-wide"),
    JCase("linalg.qr", lambda ns, a: tuple(ns.linalg.qr(a)), (C4,), id="c-square"),
    JCase("linalg.cholesky", lambda ns, a: ns.linalg.cholesky(a), (H4,), id="c"),
    JCase("linalg.cholesky", lambda ns, a: ns.linalg.cholesky(a, upper=True), (H4,), id="c-upper"),
    JCase("linalg.slogdet", lambda ns, a: tuple(ns.linalg.slogdet(a)), (C4,), id="c"),
    JCase("linalg.slogdet", lambda ns, a: tuple(ns.linalg.slogdet(a)), (A4,), id="r"),
    JCase("linalg.pinv", lambda ns, a: ns.linalg.pinv(a), (C43,), id="c-tall"),
    JCase("linalg.pinv", lambda ns, a: ns.linalg.pinv(a), (C34,), id="c-wide"),
    JCase("linalg.vector_norm", lambda ns, x: ns.linalg.vector_norm(x, axis=-1), (C43,), id="c"),
    JCase("linalg.vector_norm", lambda ns, x: ns.linalg.vector_norm(x, ord=3), (C43,), id="c-p3"),
    *[JCase("linalg.matrix_norm", (lambda ns, x, o=o: ns.linalg.matrix_norm(x, ord=o)), (C43,),
            order=2 if o in ("fro", "nuc", 2, -2) else 1, id=f"c-{o}")
      for o in ("fro", "nuc", 2, -2, 1, INF)],
    JCase("linalg.norm", lambda ns, x: ns.linalg.norm(x), (C234,), id="c-flat"),
    JCase("linalg.norm", lambda ns, x: ns.linalg.norm(x, ord="nuc", axis=(0, 2)), (C234,), id="c-nuc"),
    JCase("linalg.norm", lambda ns, x: ns.linalg.norm(x, ord=1, axis=-1), (C234,), order=1, id="c-vec1"),
    JCase("linalg.cond", lambda ns, x: ns.linalg.cond(x), (C4,), id="c"),
    JCase("linalg.cond", lambda ns, x: ns.linalg.cond(x, p="fro"), (C4,), id="c-fro"),
    JCase("linalg.lstsq", _lstsq, (C43, _c(4, 2)), order=1, vmap=False, id="c"),
    JCase("linalg.tensorinv", lambda ns, a: ns.linalg.tensorinv(a), (_c(2, 3, 6),), id="c"),
    JCase("linalg.tensorsolve", lambda ns, a, b: ns.linalg.tensorsolve(a, b), (_c(2, 3, 6), _c(2, 3)),
          id="c"),
    JCase("linalg.eig", _eig, (C4,), id="c"),
    JCase("linalg.eigvals", lambda ns, a: ns.linalg.eigvals(a), (C4,), order=1, id="c"),
    JCase("linalg.det", lambda ns, a: ns.linalg.det(a), (C4,), id="c"),
    JCase("fft.fft2", lambda ns, x: ns.fft.fft2(x), (_c(3, 4),), id="c"),
    JCase("fft.ifft2", lambda ns, x: ns.fft.ifft2(x, axes=(1, 0)), (_c(3, 4),), id="c"),
    JCase("fft.irfft2", lambda ns, x: ns.fft.irfft2(x, s=(4, 6)), (_c(4, 4),), order=1, id="c-s"),
]
CASES += CCASES


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(case, xp, jax):
    check(case, xp, jax)


def test_raw_vectors_follow_jax_gauge(jax):
    """Beyond the invariants: xgrad fixes JAX's gauge (svd: diag(V^H dV) = 0
    and diag(U^H dU) = i Im(diag(U^H dA V)) / s; eigh: diag(V^H dV) = 0), so
    where the backends return the same vectors the raw tangents agree."""
    jnp = jax.numpy
    rng = np.random.default_rng(5)
    compared = 0
    for name, a in (("svd", C4), ("svd", C43), ("eigh", H4)):
        t = _draw(rng, a.shape, a.dtype)
        if name == "svd":
            f = lambda x: tuple(xnp.linalg.svd(x, full_matrices=False))     # noqa: E731
            jf = lambda x: tuple(jnp.linalg.svd(x, full_matrices=False))    # noqa: E731
        else:
            f = lambda x: tuple(xnp.linalg.eigh(x))                          # noqa: E731
            jf = lambda x: tuple(jnp.linalg.eigh(x))                         # noqa: E731
        out, dout = xgrad.jvp(f, (a,), (t,))
        jout, jdout = jax.jvp(jf, (a,), (t,))
        if not all(np.allclose(to_np(o), j, atol=1e-10) for o, j in zip(out, jout)):
            continue          # another phase per column: only the invariants compare
        compared += 1
        for d, jd in zip(dout, jdout):
            np.testing.assert_allclose(to_np(d), jd, atol=1e-10)
    if not compared:
        pytest.skip("the backends' singular/eigen vectors differ by phases")


def test_errors():
    L = xnp.linalg
    with pytest.raises(ValueError, match="vector norm"):
        L.norm(np.ones(3), ord="fro")
    with pytest.raises(ValueError, match="matrix norm"):
        L.norm(np.ones((2, 2)), ord=3)
    with pytest.raises(ValueError, match="axis"):
        L.norm(np.ones((2, 2, 2)), axis=(0, 1, 2))
    with pytest.raises(ValueError, match="square"):
        L.cond(np.ones((2, 3)), p=1)
    with pytest.raises(ValueError, match="leading dimensions"):
        L.lstsq(np.ones((3, 2)), np.ones(4))
    with pytest.raises(ValueError, match="product"):
        L.tensorinv(np.ones((2, 3)), ind=1)
    with pytest.raises(ValueError, match="square"):
        L.eig(np.ones((2, 3)))


def test_lstsq_rank_and_numpy_resid():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    x, resid, rank, s = xnp.linalg.lstsq(np.vstack([a, a]), np.ones(4))
    assert int(rank) == 1 and str(to_np(rank).dtype) == "int64"
    x2, r2, *_ = xnp.linalg.lstsq(A34, _r(3), numpy_resid=True)
    assert to_np(r2).shape == (0,)
