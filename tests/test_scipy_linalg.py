"""xgrad.scipy.linalg against jax.scipy.linalg (the harness of
``jnp_cases``: value, VJP, JVP, second order, vmap; on numpy and
array_api_strict), against scipy for accuracy, and against closed forms
where xgrad differentiates what JAX does not (sqrtm, funm, polar,
eigh_tridiagonal).

Eigenvectors and singular vectors are defined up to a phase per column, so
those cases test gauge-invariant functions."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
import xgrad.scipy as xsp
from conftest import to_np
from jnp_cases import JCase, check, ids, scipy_of

RNG = np.random.default_rng(11)


_sp = scipy_of     # xgrad.scipy, or jax.scipy for the oracle


def _r(*shape):
    return RNG.standard_normal(shape)


def _c(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def _spd(n, cplx=False):
    a = _c(n, n) if cplx else _r(n, n)
    return a @ a.conj().T + n * np.eye(n)


def _tri(n, lower, cplx=False):
    a = _c(n, n) if cplx else _r(n, n)
    a = np.tril(a) if lower else np.triu(a)
    return a + 3 * np.eye(n)


def _case(name, fn, *args, id="", order=2, strict=True, vmap=True, rtol=1e-9, atol=1e-10,
          diff=None):
    return JCase(f"scipy.linalg.{name}", lambda ns, *a: fn(_sp(ns).linalg, *a), args, id=id,
                 order=order, strict=strict, vmap=vmap, rtol=rtol, atol=atol, diff=diff)


def _mH(ns, a):
    return ns.conj(ns.matrix_transpose(a))


A3, A4, C3, S4, H3 = _r(3, 3), _r(4, 4), _c(3, 3), _spd(4), _spd(3, True)
B42, B4, CB32 = _r(4, 2), _r(4), _c(3, 2)

CASES = [
    # the matrix exponential and its Fréchet derivative
    _case("expm", lambda L, a: L.expm(a), A4 * 0.3, id="small"),
    _case("expm", lambda L, a: L.expm(a), A4 * 3.0, id="squarings"),
    _case("expm", lambda L, a: L.expm(a), C3, id="complex"),
    _case("expm", lambda L, a: L.expm(a), _r(2, 3, 3), id="stack", order=1),
    _case("expm_frechet", lambda L, a, e: L.expm_frechet(a, e), A3, _r(3, 3), order=1),
    _case("expm_frechet", lambda L, a, e: L.expm_frechet(a, e, compute_expm=False), C3,
          _c(3, 3), id="complex", order=1, vmap=False),
    # triangular and Cholesky solves
    _case("solve_triangular", lambda L, a, b: L.solve_triangular(a, b), _tri(4, False), B42),
    _case("solve_triangular", lambda L, a, b: L.solve_triangular(a, b, lower=True, trans=1),
          _tri(4, True), B42, id="lower-T"),
    _case("solve_triangular", lambda L, a, b: L.solve_triangular(a, b, lower=True, trans="C",
                                                                  unit_diagonal=True),
          _tri(3, True, True), CB32, id="complex-unit-C"),
    _case("solve_triangular", lambda L, a, b: L.solve_triangular(a, b, unit_diagonal=True),
          _r(4, 4), B4, id="unit-vector"),
    _case("cholesky", lambda L, a: L.cholesky(a), S4, id="upper"),
    _case("cholesky", lambda L, a: L.cholesky(a, lower=True), H3, id="lower-complex"),
    _case("cho_factor", lambda L, a: L.cho_factor(a, lower=True)[0], S4),
    _case("cho_solve", lambda L, a, b: L.cho_solve(L.cho_factor(a), b), S4, B42),
    _case("cho_solve", lambda L, a, b: L.cho_solve(L.cho_factor(a, lower=True), b), H3, CB32,
          id="lower-complex"),
    # LU
    _case("lu", lambda L, a: L.lu(a), A4),
    _case("lu", lambda L, a: L.lu(a, permute_l=True), _r(5, 3), id="tall-permute_l"),
    _case("lu", lambda L, a: L.lu(a), _r(3, 5), id="wide"),
    _case("lu", lambda L, a: L.lu(a), C3, id="complex"),
    _case("lu_factor", lambda L, a: L.lu_factor(a), A4),
    _case("lu_solve", lambda L, a, b: L.lu_solve(L.lu_factor(a), b), A4, B42),
    _case("lu_solve", lambda L, a, b: L.lu_solve(L.lu_factor(a), b, trans=1), A4, B4, id="T"),
    _case("lu_solve", lambda L, a, b: L.lu_solve(L.lu_factor(a), b, trans=2), C3, CB32,
          id="complex-H"),
    # the numpy.linalg functions under scipy's names
    _case("solve", lambda L, a, b: L.solve(a, b), A4, B42),
    # order 1: JAX's second derivative for 'pos' assumes a symmetric tangent
    _case("solve", lambda L, a, b: L.solve(a, b, assume_a="pos"), S4, B4, id="pos", order=1),
    _case("inv", lambda L, a: L.inv(a), A4),
    _case("det", lambda L, a: L.det(a), A4),
    _case("eigh", lambda L, a: L.eigh(a, eigvals_only=True), S4, id="eigvals_only"),
    _case("eigh", lambda L, a: (lambda w, v: (w, v * v))(*L.eigh(a)), S4, id="gauge"),
    _case("svd", lambda L, a: L.svd(a, compute_uv=False), _r(4, 3), id="values"),
    _case("svd", lambda L, a: (lambda u, s, vh: u * s @ vh)(*L.svd(a, full_matrices=False)),
          _r(4, 3), id="product"),
    _case("qr", lambda L, a: L.qr(a, mode="economic")[1], _r(4, 3), id="economic-R"),
    _case("qr", lambda L, a: L.qr(a), A4, id="full"),
    _case("qr", lambda L, a: L.qr(a, mode="r"), _r(3, 4), id="r"),
    # JAX differentiates qr_multiply in neither argument, solve_sylvester only in C
    _case("qr_multiply", lambda L, a, c: L.qr_multiply(a, c), _r(4, 3), _r(2, 4), order=0),
    _case("qr_multiply", lambda L, a, c: L.qr_multiply(a, c, mode="left"), _r(4, 3), _r(3),
          id="left", order=0),
    _case("solve_sylvester", lambda L, a, b, c: L.solve_sylvester(a, b, c), S4, _spd(3),
          _r(4, 3), order=1, diff=(2,)),
    # special matrices: derivatives in their entries
    _case("block_diag", lambda L, a, b, c: L.block_diag(a, b, c), _r(2, 3), _r(3), _r(1, 1)),
    _case("toeplitz", lambda L, c, r: L.toeplitz(c, r), _r(4), _r(3)),
    _case("toeplitz", lambda L, c: L.toeplitz(c), _c(3), id="hermitian"),
    _case("hankel", lambda L, c, r: L.hankel(c, r), _r(3), _r(4)),
    _case("hankel", lambda L, c: L.hankel(c), _r(3), id="zeros"),
    _case("circulant", lambda L, c: L.circulant(c), _r(4)),
    _case("companion", lambda L, a: L.companion(a), _r(4) + 3.0),
    _case("leslie", lambda L, f, s: L.leslie(f, s), _r(4), _r(3)),
    _case("fiedler", lambda L, a: L.fiedler(a), np.array([0.3, -1.2, 2.5, 0.9])),
    _case("fiedler_companion", lambda L, a: L.fiedler_companion(a), _r(6) + 3.0),
    _case("convolution_matrix", lambda L, a: L.convolution_matrix(a, 3), _r(4)),
    _case("convolution_matrix", lambda L, a: L.convolution_matrix(a, 6, "same"), _r(4),
          id="same"),
    _case("convolution_matrix", lambda L, a: L.convolution_matrix(a, 3, "valid"), _r(5),
          id="valid"),
    # values only (JAX has no derivative there)
    _case("sqrtm", lambda L, a: L.sqrtm(a), S4, order=0),
    _case("funm", lambda L, a: L.funm(a, lambda w: w * w), A3, order=0),
    _case("polar", lambda L, a: L.polar(a), _r(4, 3), order=0),
    _case("polar", lambda L, a: L.polar(a, side="left"), _r(3, 4), id="left", order=0),
    _case("schur", lambda L, a: L.schur(a)[0], A4 + 4 * np.eye(4), order=0),
    _case("schur", lambda L, a: L.schur(a, output="complex"), C3, id="complex", order=0),
    _case("rsf2csf", lambda L, a: L.rsf2csf(*L.schur(a)), A4, order=0),
    _case("hessenberg", lambda L, a: L.hessenberg(a, calc_q=True), A4, order=0),
    _case("eigh_tridiagonal", lambda L, d, e: L.eigh_tridiagonal(d, e, eigvals_only=True),
          _r(5), _r(4), order=0),
]
for _name, _args in [("hilbert", (4,)), ("invhilbert", (5,)), ("pascal", (4,)),
                     ("pascal", (4, "lower")), ("invpascal", (4,)), ("invpascal", (4, "upper")),
                     ("dft", (5,)), ("dft", (4, "sqrtn")), ("helmert", (4,)),
                     ("helmert", (4, True)), ("hadamard", (4,))]:
    # jax's pascal is float32 computed through gamma functions: 1e-6 off
    CASES.append(JCase(f"scipy.linalg.{_name}",
                       (lambda nm, ar: lambda ns: getattr(_sp(ns).linalg, nm)(*ar))(_name, _args),
                       (), id="-".join(map(str, _args)), order=0,
                       rtol=1e-5 if _name == "pascal" else 1e-10))


# array_api_strict runs the first case of each function (the rest differ
# in options the backend doesn't see), to keep the file fast
_FIRST = {c.name: c.ident for c in reversed(CASES)}


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_against_jax(case, xp, jax):
    if xp.__name__.startswith("array_api_strict") and _FIRST[case.name] != case.ident:
        pytest.skip("one case per function on array_api_strict (all of them on numpy)")
    check(case, xp, jax)


# --------------------------------------------------------------------------
# accuracy against scipy

def test_expm_accuracy():
    sl = pytest.importorskip("scipy.linalg")
    for scale in (1e-8, 1e-2, 1.0, 10.0, 40.0):
        a = _r(5, 5) * scale
        np.testing.assert_allclose(xsp.linalg.expm(a), sl.expm(a), rtol=1e-12,
                                   atol=1e-14 * np.abs(sl.expm(a)).max())
        e = _r(5, 5)
        want = sl.expm_frechet(a, e)
        got = xsp.linalg.expm_frechet(a, e)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12 * np.abs(w).max())
    c = _c(4, 4)
    np.testing.assert_allclose(xsp.linalg.expm(c), sl.expm(c), rtol=1e-12)
    assert xsp.linalg.expm(np.eye(3, dtype=np.float32)).dtype == np.float32


def test_expm_derivatives_every_order():
    """The composite differentiates again: third order against central
    differences, and expm_frechet is expm's JVP (in A and in E)."""
    a, e = _r(3, 3), _r(3, 3)
    xgrad.check_grads(lambda x: xsp.linalg.expm(x), (a,), order=3)
    _, t = xgrad.jvp(xsp.linalg.expm, (a,), (e,))
    np.testing.assert_allclose(t, xsp.linalg.expm_frechet(a, e, compute_expm=False), rtol=1e-12)
    xgrad.check_grads(lambda x, y: xsp.linalg.expm_frechet(x, y)[1], (a, e), order=2)


def test_expm_max_squarings_and_vmap():
    a = _r(3, 3)
    big = a / np.abs(a).sum(0).max() * 5.37 * 2 ** 5
    assert np.isnan(to_np(xsp.linalg.expm(big, max_squarings=3))).all()
    stack = np.stack([a * 0.01, a * 30.0])
    out = xgrad.vmap(xsp.linalg.expm)(stack)
    for k in range(2):
        np.testing.assert_allclose(out[k], xsp.linalg.expm(stack[k]), rtol=1e-12)


# --------------------------------------------------------------------------
# derivatives beyond JAX's

def test_sqrtm_derivative_solves_the_sylvester_equation():
    s, d = _spd(3), _r(3, 3)
    x, dx = xgrad.jvp(xsp.linalg.sqrtm, (s,), (d,))
    np.testing.assert_allclose(x @ dx + dx @ x, d, atol=1e-10)
    xgrad.check_grads(lambda a: xnp.real(xsp.linalg.sqrtm(a)), (s,), order=2)


def test_funm_polar_eigh_tridiagonal_derivatives():
    a = _r(3, 3)
    np.testing.assert_allclose(
        xgrad.jvp(lambda x: xsp.linalg.funm(x, xnp.exp), (a,), (a,))[1],
        xgrad.jvp(lambda x: xsp.linalg.expm(x), (a,), (a,))[1], atol=1e-10)
    xgrad.check_grads(lambda x: xsp.linalg.polar(x)[0], (_r(4, 3),), order=2)
    xgrad.check_grads(lambda x: xsp.linalg.polar(x, side="left")[1], (_r(3, 3),), order=1)
    d, e = _r(4), _r(3)
    g = xgrad.grad(lambda d, e: xnp.sum(xsp.linalg.eigh_tridiagonal(d, e, eigvals_only=True)
                                        ** 2), argnums=(0, 1))(d, e)
    # sum(w^2) = ||T||_F^2 = sum d^2 + 2 sum e^2
    np.testing.assert_allclose(g[0], 2 * d, atol=1e-10)
    np.testing.assert_allclose(g[1], 4 * e, atol=1e-10)


def test_lu_second_order_and_pivots():
    a = _r(4, 4)
    xgrad.check_grads(lambda x: xsp.linalg.lu(x)[1:], (a,), order=2)
    lu, piv = xsp.linalg.lu_factor(a)
    assert to_np(piv).dtype == np.int32
    sl = pytest.importorskip("scipy.linalg")
    np.testing.assert_array_equal(to_np(piv), sl.lu_factor(a)[1])
    # a singular matrix: a zero pivot column is skipped, as LAPACK
    s = np.array([[0.0, 1.0], [0.0, 2.0]])
    p, lo, up = xsp.linalg.lu(s)
    np.testing.assert_allclose(to_np(p) @ to_np(lo) @ to_np(up), s)


# --------------------------------------------------------------------------
# errors and hygiene

def test_errors():
    a = _r(3, 3)
    with pytest.raises(ValueError, match="trans"):
        xsp.linalg.solve_triangular(a, a, trans=3)
    with pytest.raises(ValueError, match="square"):
        xsp.linalg.expm(_r(2, 3))
    with pytest.raises(ValueError, match="same shape"):
        xsp.linalg.expm_frechet(a, _r(2, 2))
    with pytest.raises(NotImplementedError, match="no derivative"):
        xgrad.grad(lambda x: xnp.sum(xsp.linalg.schur(x)[0]))(a)
    with pytest.raises(NotImplementedError, match="pivoting"):
        xsp.linalg.qr(a, pivoting=True)
    with pytest.raises(ValueError, match="assume_a"):
        xsp.linalg.solve(a, a, assume_a="banded")
    with pytest.raises(ValueError, match="power of 2"):
        xsp.linalg.hadamard(6)
    with pytest.raises(ValueError, match="at most 2"):
        xsp.linalg.block_diag(_r(2, 2, 2))


def test_caller_arrays_untouched():
    a, b = _r(4, 4), _r(4, 2)
    a0, b0 = a.copy(), b.copy()
    xgrad.grad(lambda x, y: xnp.sum(xsp.linalg.lu_solve(xsp.linalg.lu_factor(x), y)),
               argnums=(0, 1))(a, b)
    xgrad.grad(lambda x: xnp.sum(xsp.linalg.expm(x)))(a)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


def test_expm_of_a_matrix_past_the_largest_float_is_nan_with_zero_derivative(jax):
    """A 1-norm past the largest float (1e308 entries) needs more squarings
    than allowed: NaN, as jax (not an OverflowError from counting them), and
    the derivative there is 0 (jax's: the NaN is a constant branch), for the
    JVP and for expm_frechet alike; the other matrices of a stack are exact."""
    import warnings
    import jax.scipy.linalg as jsl
    import xgrad.scipy.linalg as xsl
    a = np.stack([np.array([[1e308, -1e308], [1.5, 2.0]]), np.array([[0.5, 1.0], [-1.0, 0.25]])])
    e = np.ones_like(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        pairs = [(xsl.expm(a), jsl.expm(a)),
                 (xgrad.jvp(xsl.expm, (a,), (e,))[1], jax.jvp(jsl.expm, (a,), (e,))[1]),
                 (xsl.expm_frechet(a[0], e[0])[1], jsl.expm_frechet(a[0], e[0])[1])]
    for ours, theirs in pairs:
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-12, atol=1e-14,
                                   equal_nan=True)
    assert np.all(np.isnan(np.asarray(pairs[0][0])[0]))
    np.testing.assert_array_equal(np.asarray(pairs[2][0]), 0.0)
