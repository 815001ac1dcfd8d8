"""linalg at its edges: repeated eigenvalues and singular values, zero
singular values, singular and rank-deficient matrices. Each case compares a
derivative with jax's (x64) at the degenerate input, NaN for NaN; where the
derivative is defined (a symmetric function of the eigenvalues, the
determinant, a polynomial) it must come out finite and exact."""
import warnings

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp

DEGENERATE = {
    "diag112": np.diag([1.0, 1.0, 2.0]),
    "eye2": np.eye(2),
    "twice_eye3": 2.0 * np.eye(3),
    "zero2": np.zeros((2, 2)),
    "rank1": np.outer([1.0, 2.0], [1.0, 2.0]),
}


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10, equal_nan=True)


def _transforms(jax):
    return {
        "grad": (xgrad.grad, jax.grad),
        "jacfwd": (xgrad.jacfwd, jax.jacfwd),
        "jacrev": (xgrad.jacrev, jax.jacrev),
        "hessian": (xgrad.hessian, jax.hessian),
        "vmap_grad": (lambda f: xgrad.vmap(xgrad.grad(f)), lambda f: jax.vmap(jax.grad(f))),
    }


def _spectral(ns):
    """Symmetric functions of the eigenvalues / singular values."""
    return {
        "sum_eigh_w": lambda a: ns.sum(ns.linalg.eigh(a)[0]),
        "sum_eigh_w2": lambda a: ns.sum(ns.linalg.eigh(a).eigenvalues ** 2),
        "sum_svd_s": lambda a: ns.sum(ns.linalg.svd(a, full_matrices=False)[1]),
        "sum_svd_s2": lambda a: ns.sum(ns.linalg.svd(a)[1] ** 2),
    }


@pytest.mark.parametrize("name", sorted(_spectral(np)))
@pytest.mark.parametrize("mat", sorted(DEGENERATE))
@pytest.mark.parametrize("how", ["grad", "jacfwd", "jacrev", "hessian", "vmap_grad"])
def test_spectral_functions_match_jax_at_degenerate_matrices(jax, name, mat, how):
    import jax.numpy as jnp
    a = DEGENERATE[mat]
    ours, theirs = _transforms(jax)[how]
    fx, fj = _spectral(xnp)[name], _spectral(jnp)[name]
    if how == "vmap_grad":
        a = np.stack([a, a])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _same(ours(fx)(a), theirs(fj)(a))


def test_eigenvalue_gradients_are_finite_at_repeated_eigenvalues():
    a = np.diag([1.0, 1.0, 2.0])
    _same(xgrad.grad(lambda m: xnp.sum(xnp.linalg.eigh(m)[0]))(a), np.eye(3))
    _same(xgrad.grad(lambda m: xnp.sum(xnp.linalg.eigh(m)[0] ** 2))(a), 2 * a)
    _same(xgrad.jacrev(lambda m: xnp.linalg.eigh(m)[0])(np.eye(2)),
          np.array([[[1.0, 0], [0, 0]], [[0, 0], [0, 1.0]]]))
    _same(xgrad.grad(lambda m: xnp.sum(xnp.linalg.eigh(m).eigenvalues))(2 * np.eye(3)),
          np.eye(3))
    # the scipy spelling and the vjp with an explicitly zero eigenvector cotangent
    import xgrad.scipy.linalg as xsl
    _same(xgrad.grad(lambda m: xnp.sum(xsl.eigh(m)[0]))(a), np.eye(3))
    _, vjp_fn = xgrad.vjp(lambda m: tuple(xnp.linalg.eigh(m)), a)
    _same(vjp_fn((np.ones(3), np.zeros((3, 3))))[0], np.eye(3))


def test_eigenvector_derivatives_stay_infinite_at_repeated_eigenvalues(jax):
    """Only the eigenvalue part is differentiable there: the eigenvectors'
    tangent is the same inf/nan as jax's, not a finite made-up number."""
    import jax.numpy as jnp
    t = np.array([[0.0, 1.0], [1.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ours = xgrad.jvp(lambda m: tuple(xnp.linalg.eigh(m)), (np.eye(2),), (t,))[1]
        g = xgrad.grad(lambda m: xnp.sum(xnp.linalg.eigh(m)[1][0]))(np.eye(2))
    theirs = jax.jvp(lambda m: tuple(jnp.linalg.eigh(m)), (np.eye(2),), (t,))[1]
    _same(ours[0], theirs[0])
    _same(ours[1], theirs[1])
    assert not np.all(np.isfinite(g))
