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


# ----- determinants at singular matrices -----

def _det_hessian_fd(m, h=1e-4):
    """Second differences of numpy's det (exact for 2x2: det is quadratic)."""
    n = m.size
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            e = np.zeros(n)
            e[i] = h
            f = np.zeros(n)
            f[j] = h
            e, f = e.reshape(m.shape), f.reshape(m.shape)
            d = np.linalg.det
            out[i, j] = (d(m + e + f) - d(m + e - f) - d(m - e + f) + d(m - e - f)) / (4 * h * h)
    return out.reshape(m.shape * 2)


SINGULAR = {
    "zero2": np.zeros((2, 2)),
    "rank1_2": np.outer([1.0, 2.0], [1.0, 2.0]),
    "zero3": np.zeros((3, 3)),
    "rank1_3": np.outer([1.0, 2.0, 3.0], [1.0, -1.0, 2.0]),
    "rank2_3": np.diag([1.0, 2.0, 0.0]),
}


@pytest.mark.parametrize("mat", sorted(SINGULAR))
def test_det_hessian_is_the_cofactor_hessian_at_singular_matrices(mat):
    a = SINGULAR[mat]
    want = _det_hessian_fd(a)
    for how in (xgrad.hessian, lambda f: xgrad.jacrev(xgrad.jacrev(f)),
                lambda f: xgrad.jacfwd(xgrad.jacfwd(f))):
        np.testing.assert_allclose(np.asarray(how(xnp.linalg.det)(a)), want, atol=1e-7)
    # first order: the transposed adjugate (a finite number everywhere)
    g = np.asarray(xgrad.grad(xnp.linalg.det)(a))
    assert np.all(np.isfinite(g))


@pytest.mark.parametrize("mat", sorted(SINGULAR))
def test_det_hessian_matches_jax_at_singular_matrices(jax, mat):
    import jax.numpy as jnp
    a = SINGULAR[mat]
    np.testing.assert_allclose(np.asarray(xgrad.hessian(xnp.linalg.det)(a)),
                               np.asarray(jax.hessian(jnp.linalg.det)(a)), atol=1e-10)
    hb = xgrad.vmap(xgrad.hessian(xnp.linalg.det))(np.stack([a, a + np.eye(a.shape[0])]))
    np.testing.assert_allclose(np.asarray(hb),
                               np.asarray(jax.vmap(jax.hessian(jnp.linalg.det))(
                                   np.stack([a, a + np.eye(a.shape[0])]))), atol=1e-10)


def test_det_third_derivative_matches_jax_at_an_invertible_matrix(jax):
    import jax.numpy as jnp
    a = np.random.default_rng(0).normal(size=(3, 3))
    want = np.asarray(jax.jacfwd(jax.hessian(jnp.linalg.det))(a))
    np.testing.assert_allclose(np.asarray(xgrad.jacfwd(xgrad.hessian(xnp.linalg.det))(a)), want,
                               atol=1e-12)
    third = xgrad.jacrev(xgrad.jacrev(xgrad.jacrev(xnp.linalg.det)))(a)
    np.testing.assert_allclose(np.asarray(third), want, atol=1e-12)


def test_complex_det_hessian_vector_product_matches_jax_at_a_singular_matrix(jax):
    import jax.numpy as jnp
    rng = np.random.default_rng(1)
    a = np.outer([1, 2j, 3], [1, 1, 2 + 1j])
    t = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))
    ours = xgrad.jvp(xgrad.grad(lambda m: xnp.real(xnp.linalg.det(m))), (a,), (t,))[1]
    theirs = jax.jvp(jax.grad(lambda m: jnp.real(jnp.linalg.det(m))), (a,), (t,))[1]
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), atol=1e-12)


_EXTREME_2X2 = np.stack([
    np.array([[1e308, 1e308], [1e308, 1e308]]),      # singular values overflow: 2e308
    np.array([[1e308, 1e308], [1e308, 1.5]]),        # a cofactor of 1.5 beside 1e308
    np.array([[1e308, -1e308], [1e308, 1e308]]),
    np.array([[0.0, 2.2250738585072014e-308], [5e-324, -2.0]]),
])


def test_det_derivatives_are_the_closed_form_cofactors_of_extreme_2x2_matrices(jax):
    """grad det of [[a, b], [c, d]] is [[d, -c], [-b, a]], exactly, also where
    the SVD's singular values overflow or swamp a small cofactor (+-inf,
    NaN or eps * 1e308 from the SVD route); its Hessian is constant."""
    import jax.numpy as jnp
    a = _EXTREME_2X2
    want = np.stack([a[:, 1, 1], -a[:, 1, 0], -a[:, 0, 1], a[:, 0, 0]], -1).reshape(a.shape)
    g = np.asarray(xgrad.vmap(xgrad.grad(xnp.linalg.det))(a))
    np.testing.assert_array_equal(g, want)
    # (jax on the CPU flushes the subnormal cofactor to 0)
    np.testing.assert_allclose(g, np.asarray(jax.vmap(jax.grad(jnp.linalg.det))(a)),
                               rtol=1e-15, atol=1e-300)
    for m, w in zip(a, want):
        np.testing.assert_array_equal(np.asarray(xgrad.grad(xnp.linalg.det)(m)), w)
        h = np.asarray(xgrad.hessian(xnp.linalg.det)(m))
        np.testing.assert_allclose(h, np.asarray(jax.hessian(jnp.linalg.det)(m)), atol=1e-300)
        assert np.count_nonzero(h) == 4
    z = a[1] + 1j * a[3]                             # complex: the same closed form
    for t, w in (([[0, 0], [0, 1j]], 1j * z[0, 0]), ([[0, 1], [0, 0]], -z[1, 0])):
        gz = xgrad.jvp(xnp.linalg.det, (z,), (np.array(t, dtype=complex),))[1]
        assert gz == w


# ----- solve, inv, cholesky at singular matrices: jax's inf/nan, not an error -----

_SINGULAR_BATCH = np.stack([np.eye(3), np.diag([1.0, 0.0, 2.0]), np.zeros((3, 3))])


@pytest.mark.parametrize("mat", sorted(SINGULAR) + ["batch"])
def test_solve_inv_cholesky_return_jax_values_at_singular_matrices(jax, xp, mat):
    import jax.numpy as jnp
    from conftest import from_np, to_np
    a = _SINGULAR_BATCH if mat == "batch" else SINGULAR[mat]
    b = np.ones(a.shape[:-1] + (2,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        pairs = [
            (xnp.linalg.inv(from_np(xp, a)), jnp.linalg.inv(a)),
            (xnp.linalg.solve(from_np(xp, a), from_np(xp, b)), jnp.linalg.solve(a, b)),
            (xnp.linalg.cholesky(from_np(xp, a)), jnp.linalg.cholesky(a)),
            (xnp.linalg.cholesky(from_np(xp, a), upper=True), jnp.linalg.cholesky(a, upper=True)),
            (xgrad.grad(lambda m: xnp.sum(xnp.linalg.inv(m)))(from_np(xp, a)),
             jax.grad(lambda m: jnp.sum(jnp.linalg.inv(m)))(a)),
        ]
    for ours, theirs in pairs:
        _same(to_np(ours), theirs)


def test_slogdet_gradient_is_not_finite_at_a_singular_matrix():
    """log|det| has no derivative at a singular matrix: an inf/nan
    gradient (as jax's), not a LinAlgError and not a finite number."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for a in SINGULAR.values():
            g = np.asarray(xgrad.grad(lambda m: xnp.linalg.slogdet(m)[1])(a))
            assert not np.all(np.isfinite(g))
        g = np.asarray(xgrad.grad(lambda m: xnp.sum(xnp.linalg.slogdet(m)[1]))(_SINGULAR_BATCH))
    np.testing.assert_allclose(g[0], np.eye(3))
    assert not np.all(np.isfinite(g[1])) and not np.all(np.isfinite(g[2]))


_SING3 = {
    "zero": np.zeros((3, 3)),
    "psd-singular": np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 2.0]]),
    "rank2": np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 1.0]]),
}


@pytest.mark.parametrize("mat", sorted(_SING3))
def test_transposed_solves_give_jax_inf_nan_pattern_at_singular_matrices(jax, mat):
    """A transposed solve inside a rule (slogdet's and solve's VJPs) uses the
    factors of A itself, as jax's does: the factors of A^T would put the
    infinities elsewhere (at rank2, finite numbers where jax has nan)."""
    import jax.numpy as jnp
    a = _SING3[mat]
    b = np.array([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        pairs = [
            (xgrad.grad(lambda m: xnp.linalg.slogdet(m)[1])(a),
             jax.grad(lambda m: jnp.linalg.slogdet(m)[1])(a)),
            (xgrad.grad(lambda m, c: xnp.sum(xnp.linalg.solve(m, c)), (0, 1))(a, b),
             jax.grad(lambda m, c: jnp.sum(jnp.linalg.solve(m, c)), (0, 1))(a, b)),
            (xgrad.vmap(xgrad.grad(lambda m: xnp.linalg.slogdet(m)[1]))(np.stack([a, np.eye(3)])),
             jax.vmap(jax.grad(lambda m: jnp.linalg.slogdet(m)[1]))(np.stack([a, np.eye(3)]))),
        ]
    for ours, theirs in pairs:
        for o, t in zip(ours if isinstance(ours, tuple) else (ours,),
                        theirs if isinstance(theirs, tuple) else (theirs,)):
            _same(o, t)


def test_transposed_solve_row_differentiates_twice(jax):
    """solve's ``trans`` flag (A^-T b) has its own JVP and VJP: the Hessian of
    a function of A^-T b through it matches jax's at an invertible matrix."""
    import jax.numpy as jnp
    from xgrad.rules import linalg_ext as r
    a = np.array([[2.0, 1.0, 0.0], [0.5, 3.0, 1.0], [1.0, -1.0, 4.0]])
    b = np.array([[1.0], [2.0], [-1.0]])
    f = lambda m, c: xnp.sum(r._solve(m, c, trans=True) ** 2)           # noqa: E731
    fj = lambda m, c: jnp.sum(jnp.linalg.solve(m.T, c) ** 2)            # noqa: E731
    for i in (0, 1):
        _same(xgrad.hessian(f, i)(a, b), jax.hessian(fj, i)(a, b))
        _same(xgrad.jacfwd(xgrad.grad(f, i), i)(a, b), jax.hessian(fj, i)(a, b))


@pytest.mark.parametrize("mat", ["twice_eye3", "zero", "psd-singular", "diag112"])
@pytest.mark.parametrize("order", [2, -2])
def test_matrix_norm_2_shares_its_derivative_among_tied_singular_values(jax, mat, order):
    """ord=2 is max(s) and ord=-2 min(s): at tied singular values (2I, the
    zero matrix) the derivative is shared among the ties as by jax's amax /
    amin, and ord=2's max also ties with 0 at a zero matrix (jax's
    amax(s, initial=0)): at 2I the gradient is I/3, at zero I/6."""
    import jax.numpy as jnp
    a = {**DEGENERATE, **_SING3}[mat]
    g = xgrad.grad(lambda m: xnp.linalg.matrix_norm(m, ord=order))(a)
    _same(g, jax.grad(lambda m: jnp.linalg.matrix_norm(m, ord=order))(a))
    t = np.ones_like(a)
    _same(xgrad.jvp(lambda m: xnp.linalg.matrix_norm(m, ord=order), (a,), (t,))[1],
          jax.jvp(lambda m: jnp.linalg.matrix_norm(m, ord=order), (a,), (t,))[1])
    if order == 2 and mat in ("twice_eye3", "zero"):
        _same(g, np.eye(3) / (3.0 if mat == "twice_eye3" else 6.0))


# ----- non-finite and overflowing matrices: jax's NaNs, not a LinAlgError -----

_NONFINITE = np.stack([
    np.array([[np.inf, 1.5, 0.0], [-2.0, np.nan, 1.0], [0.0, 1.0, 2.0]]),
    np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]]),
    np.array([[1e308, -1e308, 1.5], [-1e308, 1e308, -2.0], [1.5, -2.0, 1.0]]),
])


@pytest.mark.parametrize("name", ["svd", "svdvals", "eig", "eigvals", "eigh", "eigvalsh",
                                  "pinv", "matrix_rank", "cond"])
def test_lapack_refusals_give_nan_matrices_and_keep_the_others(jax, name):
    """Where LAPACK refuses a matrix (non-finite entries; no convergence at
    1e308), that matrix's outputs are NaN (jax's answer) and the other
    matrices of the stack are exact; numpy raises LinAlgError instead."""
    import jax.numpy as jnp
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ours = getattr(xnp.linalg, name)(_NONFINITE[:2])
        theirs = getattr(jnp.linalg, name)(_NONFINITE[:2])
        eager = getattr(np.linalg, name, None)
        one = eager(_NONFINITE[1]) if eager is not None and name != "matrix_rank" else None
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    for o, t in zip(ours, theirs):
        o, t = np.asarray(o), np.asarray(t)
        if name != "matrix_rank":                  # an integer: jax's 0
            assert np.all(np.isnan(o[0])), name
        if name not in ("eig", "eigh", "svd"):     # vectors: up to sign
            _same(o, t)
    if one is not None and name in ("svdvals", "eigvalsh", "pinv", "cond"):
        _same(ours[0][1], one)


@pytest.mark.parametrize("how", ["grad", "vmap_grad"])
@pytest.mark.parametrize("name", ["svdvals", "eigvalsh", "det", "pinv"])
def test_lapack_refusals_differentiate_to_nan(jax, name, how):
    """The derivative at a refused matrix is NaN too, the others' exact."""
    import jax.numpy as jnp
    fx = lambda a: xnp.sum(getattr(xnp.linalg, name)(a))     # noqa: E731
    fj = lambda a: jnp.sum(getattr(jnp.linalg, name)(a))     # noqa: E731
    ours, theirs = _transforms(jax)[how]
    a = _NONFINITE[:2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        g = np.asarray(ours(fx)(a))
        gj = np.asarray(theirs(fj)(a))
    assert np.all(np.isnan(g[0]))
    _same(g[1], gj[1])


def test_pinv_of_integers_is_float64_as_jax(jax):
    """pinv takes integer matrices (as float64, JAX's x64 promotion)."""
    import jax.numpy as jnp
    a = np.array([[1, 2], [3, 4], [5, 7]])
    out = xnp.linalg.pinv(a)
    assert out.dtype == np.float64
    _same(out, jnp.linalg.pinv(a))
    _same(xgrad.jit(xnp.linalg.pinv)(a), jnp.linalg.pinv(a))
