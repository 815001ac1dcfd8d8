"""xgrad.random against jax.random (the oracle, x64 on): bit-exact keys,
split, fold_in and bits; every sampler's values (bit-exact for integers,
a relative tolerance for floats: XLA's CPU log/log1p/erf_inv differ from
numpy's and scipy's by a few ulps); gradients of reparametrised samplers
against jax.grad; vmap over keys against a loop; clear errors for bad keys."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
import xgrad.random as xr

from conftest import to_np

SHAPES = [(), (1,), (3,), (5, 7), (0,), (2, 0, 3)]
SEEDS = [0, 1, 42, -1, 2 ** 40 + 5, 2 ** 63 - 1]


def _same(a, b):
    a, b = to_np(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
    np.testing.assert_array_equal(a, b)


def _close(a, b, rtol=None, atol=0.0):
    a, b = to_np(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
    if rtol is None:
        rtol = 2e-6 if a.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _key(xp, seed=3):
    return xp.asarray(np.asarray(xr.PRNGKey(seed)))


# --------------------------------------------------------------------------
# keys and bits: bit-exact

@pytest.mark.parametrize("seed", SEEDS)
def test_keys(jax, seed):
    _same(xr.PRNGKey(seed), jax.random.PRNGKey(seed))
    _same(xr.key_data(xr.key(seed)), jax.random.key_data(jax.random.key(seed)))
    _same(xr.PRNGKey(np.int32(-7)), jax.random.PRNGKey(np.int32(-7)))


@pytest.mark.parametrize("seed", [0, 5, 2 ** 33 + 1])
def test_split_fold_in(jax, xp, seed):
    k, jk = _key(xp, seed), jax.random.PRNGKey(seed)
    for num in (2, 3, (2, 3), (1,), (0,)):
        _same(xr.split(k, num), jax.random.split(jk, num))
    for d in (0, 7, 2 ** 31 + 3):
        _same(xr.fold_in(k, d), jax.random.fold_in(jk, d))
    _same(xr.fold_in(k, xp.asarray(5, dtype=xp.uint32)), jax.random.fold_in(jk, np.uint32(5)))
    tk, jtk = xr.key(seed), jax.random.key(seed)
    _same(xr.key_data(xr.split(tk, 4)), jax.random.key_data(jax.random.split(jtk, 4)))
    _same(xr.key_data(xr.fold_in(tk, 9)), jax.random.key_data(jax.random.fold_in(jtk, 9)))
    a, b = xr.split(tk)
    _same(xr.key_data(b), jax.random.key_data(jax.random.split(jtk)[1]))
    assert xr.split(tk).shape == (2,) and xr.key_impl(tk) == "threefry2x32"
    _same(xr.key_data(xr.wrap_key_data(xr.PRNGKey(seed))), xr.PRNGKey(seed))


def test_bits(jax, xp):
    cases = [(shape, dtype) for shape in SHAPES
             for dtype in ("uint8", "uint16", "uint32", "uint64", None)]
    want = jax.jit(lambda k: [jax.random.bits(k, sh, dt) for sh, dt in cases])(
        jax.random.PRNGKey(3))
    for (shape, dtype), b in zip(cases, want):
        _same(xr.bits(_key(xp), shape, dtype), b)


def test_large_counter(jax):
    # an odd size above one block of the in-place loop
    _same(xr.bits(xr.PRNGKey(1), (40001,), "uint32"),
          jax.random.bits(jax.random.PRNGKey(1), (40001,), "uint32"))


# --------------------------------------------------------------------------
# samplers: values

FIXED = ["uniform", "normal", "exponential", "laplace", "logistic", "cauchy", "gumbel"]


def test_fixed_transforms(jax, xp):
    shapes = [(), (4, 5), (0,), (999,)] if xp.__name__.endswith("numpy") else [(4, 5)]
    cases = [(n, dt, sh) for n in FIXED for dt in ("float32", "float64") for sh in shapes]
    want = jax.jit(lambda k: [getattr(jax.random, n)(k, sh, dt) for n, dt, sh in cases])(
        jax.random.PRNGKey(3))
    for (name, dtype, shape), b in zip(cases, want):
        atol = 1e-12 if name in ("logistic", "laplace", "gumbel", "cauchy") else 0.0
        try:
            _close(getattr(xr, name)(_key(xp), shape, dtype), b,
                   atol=atol if dtype == "float64" else 1e-6)
        except AssertionError as e:
            raise AssertionError(f"{name} {dtype} {shape}") from e


def test_normal_tails_float32(jax):
    a = xr.normal(xr.PRNGKey(0), (20000,), "float32")
    b = np.asarray(jax.random.normal(jax.random.PRNGKey(0), (20000,), "float32"))
    assert np.max(np.abs(to_np(a) - b) / np.spacing(np.abs(b))) <= 4


def test_parametrised(jax):
    k, jk, jr = xr.PRNGKey(3), jax.random.PRNGKey(3), jax.random
    L = np.random.default_rng(1).standard_normal((3, 5))
    X = np.arange(12.0).reshape(3, 4)
    p = np.array([0.1, 0.2, 0.3, 0.4])
    A = np.array([0.5, 2.0, 7.0])
    C = np.array([[2.0, 0.5], [0.5, 1.0]])
    m = np.array([1.0, -1.0])
    exact = [
        ("randint", lambda r, k: r.randint(k, (10,), -5, 17)),
        ("randint8", lambda r, k: r.randint(k, (10,), -5, 17, dtype="int8")),
        ("randint32", lambda r, k: r.randint(k, (7,), 0, 2 ** 31 - 1, dtype="int32")),
        ("bernoulli", lambda r, k: r.bernoulli(k, 0.3, (20,))),
        ("bernoulli_high", lambda r, k: r.bernoulli(k, 0.3, (20,), mode="high")),
        ("categorical", lambda r, k: r.categorical(k, L)),
        ("categorical0", lambda r, k: r.categorical(k, L, axis=0, shape=(4, 5))),
        ("categorical_norep", lambda r, k: r.categorical(k, L, shape=(2, 3), replace=False)),
        ("perm_int", lambda r, k: r.permutation(k, 10)),
        ("perm_axis", lambda r, k: r.permutation(k, X, axis=1)),
        ("perm_indep", lambda r, k: r.permutation(k, X, axis=1, independent=True)),
        ("perm_2rounds", lambda r, k: r.permutation(k, 3000)),
        ("choice", lambda r, k: r.choice(k, 10, (4,))),
        ("choice_norep", lambda r, k: r.choice(k, X, (2,), replace=False, axis=1)),
        ("choice_p", lambda r, k: r.choice(k, 4, (6,), p=p)),
        ("choice_p_norep", lambda r, k: r.choice(k, 4, (3,), replace=False, p=p)),
        ("poisson", lambda r, k: r.poisson(k, 3.0, (30,))),
        ("poisson_big", lambda r, k: r.poisson(k, np.array([1.0, 20.0, 0.0]))),
        ("binomial", lambda r, k: r.binomial(k, 10.0, 0.3, (20,))),
        ("binomial_btrs", lambda r, k: r.binomial(k, 200.0, 0.7, (20,))),
        ("rademacher", lambda r, k: r.rademacher(k, (9,))),
        ("geometric", lambda r, k: r.geometric(k, 0.3, (9,))),
        ("multinomial", lambda r, k: r.multinomial(k, 20.0, p, shape=(3, 4))),
        ("clone", lambda r, k: r.bits(r.clone(k), (4,))),
    ]
    # one jit of every jax draw: one compilation instead of dozens (the test's cost)
    jexact = jax.jit(lambda kk: [fn(jr, kk) for _, fn in exact])(jk)
    for (name, fn), b in zip(exact, jexact):
        a = fn(xr, k)
        try:
            _same(a, b)
        except AssertionError as e:
            raise AssertionError(name) from e
    close = [
        ("uniform_minmax", lambda r, k: r.uniform(k, (6,), minval=-2.0, maxval=3.0)),
        ("truncated_normal", lambda r, k: r.truncated_normal(k, -1.0, 2.0, (7,))),
        ("truncated_normal32", lambda r, k: r.truncated_normal(k, -1.0, 2.0, (7,), "float32")),
        ("mvn_cholesky", lambda r, k: r.multivariate_normal(k, m, C, (3,))),
        ("mvn_eigh", lambda r, k: r.multivariate_normal(k, m, C, (3,), method="eigh")),
        ("mvn_svd", lambda r, k: r.multivariate_normal(k, m, C, (3,), method="svd")),
        ("gamma", lambda r, k: r.gamma(k, A)),
        ("gamma_small", lambda r, k: r.gamma(k, 0.3, (40,))),
        ("gamma32", lambda r, k: r.gamma(k, 2.5, (40,), "float32")),
        ("loggamma", lambda r, k: r.loggamma(k, 0.3, (40,))),
        ("beta", lambda r, k: r.beta(k, 2.0, 3.0, (5,))),
        ("dirichlet", lambda r, k: r.dirichlet(k, A, (2,))),
        ("lognormal", lambda r, k: r.lognormal(k, 0.5, (5,))),
        ("t", lambda r, k: r.t(k, 3.0, (5,))),
        ("f", lambda r, k: r.f(k, 3.0, 4.0, (5,))),
        ("pareto", lambda r, k: r.pareto(k, 3.0, (5,))),
        ("weibull_min", lambda r, k: r.weibull_min(k, 2.0, 1.5, (5,))),
        ("rayleigh", lambda r, k: r.rayleigh(k, 2.0, (5,))),
        ("maxwell", lambda r, k: r.maxwell(k, (5,))),
        ("double_sided_maxwell", lambda r, k: r.double_sided_maxwell(k, 1.0, 2.0, (5,))),
        ("triangular", lambda r, k: r.triangular(k, 0.0, 1.0, 3.0, (5,))),
        ("wald", lambda r, k: r.wald(k, 2.0, (5,))),
        ("orthogonal", lambda r, k: r.orthogonal(k, 3)),
        ("ball", lambda r, k: r.ball(k, 3, 2.0, (4,))),
        ("chisquare", lambda r, k: r.chisquare(k, 3.0, (5,))),
        ("generalized_normal", lambda r, k: r.generalized_normal(k, 1.5, (5,))),
    ]
    jclose = jax.jit(lambda kk: [fn(jr, kk) for _, fn in close])(jk)
    for (name, fn), b in zip(close, jclose):
        a = fn(xr, k)
        rtol = 1e-5 if to_np(a).dtype == np.float32 else 1e-11
        try:
            _close(a, b, rtol=rtol, atol=1e-12)
        except AssertionError as e:
            raise AssertionError(name) from e


def test_key_dtype(jax):
    assert str(xr.key_dtype()) == str(jax.random.key_dtype()) == "key<fry>"
    assert str(xr.key_dtype("threefry2x32")) == str(jax.random.key_dtype("threefry2x32"))
    with pytest.raises(ValueError, match="threefry2x32"):
        xr.key_dtype("rbg")


def test_strict_backend(jax):
    xp = pytest.importorskip("array_api_strict")
    k, jk, jr = _key(xp), jax.random.PRNGKey(3), jax.random
    _same(xr.randint(k, (10,), -5, 17), jr.randint(jk, (10,), -5, 17))
    _same(xr.permutation(k, 10), jr.permutation(jk, 10))
    _same(xr.poisson(k, 3.0, (5,)), jr.poisson(jk, 3.0, (5,)))
    _close(xr.gamma(k, 2.5, (5,)), jr.gamma(jk, 2.5, (5,)), rtol=1e-11)
    _close(xr.truncated_normal(k, -1.0, 2.0, (7,)), jr.truncated_normal(jk, -1.0, 2.0, (7,)),
           rtol=1e-11)
    assert type(xr.normal(k, (3,))) is type(k)


def test_typed_keys_everywhere(jax):
    tk, jk = xr.key(11), jax.random.key(11)
    _close(xr.normal(tk, (3,)), jax.random.normal(jk, (3,)))
    _same(xr.randint(tk, (3,), 0, 9), jax.random.randint(jk, (3,), 0, 9))
    _close(xr.gamma(tk, 2.0, (3,)), jax.random.gamma(jk, 2.0, (3,)))


# --------------------------------------------------------------------------
# gradients

def test_grads(jax):
    jr, jnp = jax.random, jax.numpy
    k, jk = xr.PRNGKey(3), jax.random.PRNGKey(3)
    A = np.array([0.5, 2.0, 3.0])
    cases = [   # (xgrad function, jax function, arguments)
        (lambda lo, hi: xnp.sum(xr.uniform(k, (5,), minval=lo, maxval=hi) ** 2),
         lambda lo, hi: jnp.sum(jr.uniform(jk, (5,), minval=lo, maxval=hi) ** 2), (-1.0, 2.0)),
        (lambda lo, hi: xnp.sum(xr.truncated_normal(k, lo, hi, (5,)) ** 2),
         lambda lo, hi: jnp.sum(jr.truncated_normal(jk, lo, hi, (5,)) ** 2), (-1.0, 2.0)),
        (lambda m, s: xnp.sum(xnp.sin(xr.normal(k, (5,)) * s + m)),
         lambda m, s: jnp.sum(jnp.sin(jr.normal(jk, (5,)) * s + m)), (0.3, 2.0)),
        (lambda s: xnp.sum(xr.lognormal(k, s, (5,))),
         lambda s: jnp.sum(jr.lognormal(jk, s, (5,))), (0.5,)),
        (lambda s: xnp.sum(xr.rayleigh(k, s, (5,))),
         lambda s: jnp.sum(jr.rayleigh(jk, s, (5,))), (1.5,)),
        (lambda a, b: xnp.sum(xr.beta(k, a, b, (4,))),
         lambda a, b: jnp.sum(jr.beta(jk, a, b, (4,))), (1.5, 2.0)),
        (lambda a: xnp.sum(xr.dirichlet(k, a) ** 2),
         lambda a: jnp.sum(jr.dirichlet(jk, a) ** 2), (A,)),
        (lambda d: xnp.sum(xr.t(k, d, (4,))), lambda d: jnp.sum(jr.t(jk, d, (4,))), (4.0,)),
    ]
    cases.append((lambda a, b, c: xnp.sum(xr.gamma(k, xnp.stack([a, b, c]))),
                   lambda a, b, c: jnp.sum(jr.gamma(jk, jnp.stack([a, b, c]))), (0.3, 2.5, 400.0)))
    cases.append((lambda a, b: xnp.sum(xr.loggamma(k, xnp.stack([a, b]))),
                  lambda a, b: jnp.sum(jr.loggamma(jk, jnp.stack([a, b]))), (0.3, 40.0)))
    # one jit of every jax gradient: one compilation
    want = jax.jit(lambda: [jax.grad(fj, argnums=tuple(range(len(args))))(*args)
                            for _, fj, args in cases])()
    for (fx, _, args), gj in zip(cases, want):
        gx = xgrad.grad(fx, argnums=tuple(range(len(args))))(*args)
        for a, b in zip(gx, gj):
            np.testing.assert_allclose(to_np(a), np.asarray(b), rtol=1e-6, atol=1e-12)


def test_gamma_jvp_matches_grad():
    k = xr.PRNGKey(5)
    _, t = xgrad.jvp(lambda a: xr.gamma(k, a, (3,)), (2.0,), (1.0,))
    g = xgrad.jacrev(lambda a: xr.gamma(k, a, (3,)))(2.0)
    np.testing.assert_allclose(to_np(t), to_np(g), rtol=1e-12)


# --------------------------------------------------------------------------
# vmap over keys

@pytest.mark.parametrize("fn", [
    lambda k: xr.normal(k, (3,)),
    lambda k: xr.split(k, 3),
    lambda k: xr.fold_in(k, 4),
    lambda k: xr.randint(k, (4,), 0, 10),
    lambda k: xr.uniform(k, (2,), minval=1.0, maxval=3.0),
    lambda k: xr.gamma(k, 2.0, (3,)),
    lambda k: xr.beta(k, 2.0, 3.0, (2,)),
    lambda k: xr.poisson(k, 3.0, (3,)),
    lambda k: xr.binomial(k, 5.0, 0.4, (3,)),
    lambda k: xr.categorical(k, xnp.asarray([0.1, 0.5, -1.0])),
    lambda k: xr.permutation(k, 6),
    lambda k: xr.permutation(k, np.arange(12.0).reshape(3, 4), axis=1),
    lambda k: xr.permutation(k, np.arange(12.0).reshape(3, 4), axis=1, independent=True),
    lambda k: xr.choice(k, 5, (3,), replace=False),
])
def test_vmap_over_keys(fn):
    keys = xr.split(xr.PRNGKey(7), 4)
    got = xgrad.vmap(fn)(keys)
    want = np.stack([to_np(fn(keys[i])) for i in range(4)])
    np.testing.assert_array_equal(to_np(got), want)
    tkeys = xr.split(xr.key(7), 4)
    got = xgrad.vmap(fn)(tkeys)
    got = xr.key_data(got) if hasattr(got, "dtype") and str(got.dtype) == "key<fry>" else got
    np.testing.assert_array_equal(to_np(got), want)


def test_vmap_gamma_grad():
    keys = xr.split(xr.PRNGKey(2), 3)
    g = xgrad.vmap(xgrad.grad(lambda k, a: xnp.sum(xr.gamma(k, a, (2,))), argnums=1),
                   in_axes=(0, None))(keys, 1.5)
    want = [float(xgrad.grad(lambda a: xnp.sum(xr.gamma(keys[i], a, (2,))))(1.5)) for i in range(3)]
    np.testing.assert_allclose(to_np(g), want, rtol=1e-12)


# --------------------------------------------------------------------------
# errors

def test_bad_keys():
    with pytest.raises(TypeError, match="key must be a key"):
        xr.normal(3, (2,))
    with pytest.raises(TypeError, match="uint32 array of shape"):
        xr.normal(np.zeros(2, np.int32), (2,))
    with pytest.raises(TypeError, match="uint32 array of shape"):
        xr.uniform(np.zeros(3, np.uint32))
    with pytest.raises(ValueError, match="single key"):
        xr.normal(xr.split(xr.PRNGKey(0)), (2,))
    with pytest.raises(TypeError, match="scalar seed"):
        xr.PRNGKey(np.arange(2))
    with pytest.raises(TypeError, match="integer"):
        xr.PRNGKey(1.5)
    with pytest.raises(ValueError, match="float dtype"):
        xr.normal(xr.PRNGKey(0), (2,), "int32")
    with pytest.raises(ValueError, match="unsigned"):
        xr.bits(xr.PRNGKey(0), (2,), "int32")


def test_gamma_second_derivative_is_refused():
    k = xr.PRNGKey(0)
    with pytest.raises(NotImplementedError, match="random_gamma_grad"):
        xgrad.grad(xgrad.grad(lambda a: xnp.sum(xr.gamma(k, a, (2,)))))(2.0)
