"""laplacian and diag_hessian: the forward Laplacian against the trace (and
diagonal) of ``jax.hessian`` on closed-form functions and small MLPs (tanh,
sin, softplus), vector and matrix shapes; compositions a PINN needs (vmap
over collocation points, grad with respect to the weights, checkpoint inside,
nesting); ``method="hessian"``; dtypes; errors.

Functions take the namespace first (``xgrad.numpy`` or ``jax.numpy``) so that
one definition serves both libraries. With array_api_strict, a strict array on
the left of ``@`` raises instead of deferring to a traced value, so the code
writes ``ns.matmul`` or puts the traced operand on the left.
"""
import math

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from helpers import assert_close, from_np, to_np


# --------------------------------------------------------------------------
# reference: the trace / diagonal of jax.hessian, elementwise over the output

_CACHE = {}


def cached(key, thunk):
    """jax's reference for ``key``, computed once for all backends (eager jax
    spends most of this file's time compiling small kernels)."""
    if key not in _CACHE:
        _CACHE[key] = np.asarray(thunk())
    return _CACHE[key]


def jax_laplacian(jax, f):
    import jax.numpy as jnp

    def lap(x):
        H = jax.hessian(f)(x)                       # out.shape + x.shape + x.shape
        n = math.prod(x.shape)
        out_shape = H.shape[:H.ndim - 2 * x.ndim]
        H = H.reshape(out_shape + (n, n))
        return jnp.trace(H, axis1=-2, axis2=-1)
    return jax.jit(lap)          # one compile instead of many eager kernels


def jax_diag_hessian(jax, f):
    import jax.numpy as jnp

    def dh(x):
        H = jax.hessian(f)(x)
        n = math.prod(x.shape)
        out_shape = H.shape[:H.ndim - 2 * x.ndim]
        H = H.reshape(out_shape + (n, n))
        return jnp.diagonal(H, axis1=-2, axis2=-1).reshape(out_shape + x.shape)
    return jax.jit(dh)


# --------------------------------------------------------------------------
# closed-form functions: (name, f(ns, x), input shape, closed-form Laplacian or None)

CLOSED = [
    ("sum_cubes", lambda ns, x: ns.sum(x ** 3), (4,), lambda x: 6 * np.sum(x)),
    ("sin_exp", lambda ns, x: ns.sin(x[0]) * ns.exp(x[1]), (2,),
     lambda x: -np.sin(x[0]) * np.exp(x[1]) + np.sin(x[0]) * np.exp(x[1])),
    ("dot_self", lambda ns, x: ns.matmul(x, x), (5,), lambda x: 2.0 * x.size),
    ("gaussian", lambda ns, x: ns.exp(-ns.sum(x * x)), (3,),
     lambda x: (4 * np.sum(x * x) - 2 * x.size) * np.exp(-np.sum(x * x))),
    ("harmonic", lambda ns, x: x[0] ** 2 - x[1] ** 2 + x[0] * x[1], (2,), lambda x: 0.0),
    ("radial", lambda ns, x: ns.sqrt(1.0 + ns.sum(x * x)), (3,), None),
    ("rational", lambda ns, x: x[0] / (1.0 + x[1] ** 2) + ns.log1p(x[2] ** 2), (3,), None),
    ("vector_out", lambda ns, x: ns.sin(x) * x[0], (3,), None),
    ("vector_out_matmul", lambda ns, x: ns.tanh(ns.matmul(ns.reshape(x, (3, 1)),
                                                         ns.reshape(x, (1, 3)))), (3,), None),
    ("matrix_in", lambda ns, x: ns.sum(ns.sin(x) * x[0:1, :]) + ns.prod(x[:, 0]), (2, 3), None),
    ("scalar_in", lambda ns, x: ns.sin(x) * x ** 2, (), lambda x: (2 - x * x) * np.sin(x)
     + 4 * x * np.cos(x)),
    ("reductions", lambda ns, x: ns.max(x ** 2) + ns.mean(ns.cumulative_sum(x) ** 3), (4,), None),
]


@pytest.mark.parametrize("name,f,shape,closed", CLOSED, ids=[c[0] for c in CLOSED])
def test_closed_form(xp, jax, rng, name, f, shape, closed):
    import jax.numpy as jnp
    x = rng.uniform(-1.5, 1.5, size=shape)
    got = xgrad.laplacian(lambda x: f(xnp, x))(from_np(xp, x))
    want = cached(("lap", name), lambda: jax_laplacian(jax, lambda x: f(jnp, x))(jnp.asarray(x)))
    assert tuple(got.shape) == tuple(want.shape)
    assert_close(got, want, rtol=1e-10, atol=1e-10)
    if closed is not None:
        assert_close(got, closed(x), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name,f,shape,closed", CLOSED, ids=[c[0] for c in CLOSED])
def test_diag_hessian_closed_form(xp, jax, rng, name, f, shape, closed):
    import jax.numpy as jnp
    x = rng.uniform(-1.5, 1.5, size=shape)
    got = xgrad.diag_hessian(lambda x: f(xnp, x))(from_np(xp, x))
    want = cached(("diag", name), lambda: jax_diag_hessian(jax, lambda x: f(jnp, x))(
        jnp.asarray(x)))
    assert tuple(got.shape) == tuple(want.shape)    # out.shape + in.shape
    assert_close(got, want, rtol=1e-10, atol=1e-10)


# --------------------------------------------------------------------------
# small MLPs

def softplus(ns, x):
    return ns.log1p(ns.exp(-ns.abs(x))) + ns.maximum(x, 0.0)


ACTS = {"tanh": lambda ns, x: ns.tanh(x),
        "sin": lambda ns, x: ns.sin(x),
        "softplus": softplus}


def init_mlp(rng, sizes):
    return [(rng.standard_normal((a, b)) / math.sqrt(a), 0.1 * rng.standard_normal(b))
            for a, b in zip(sizes[:-1], sizes[1:])]


def to_backend(conv, params):
    return [(conv(W), conv(b)) for W, b in params]


def mlp(ns, act, params, x):
    """x (d,) -> (out,); the traced value stays on the left of every product."""
    h = x
    for W, b in params[:-1]:
        h = ACTS[act](ns, ns.matmul(h, W) + b)
    W, b = params[-1]
    return ns.matmul(h, W) + b


def scalar_mlp(ns, act, params, x):
    return mlp(ns, act, params, x)[0]


@pytest.mark.parametrize("act", sorted(ACTS))
@pytest.mark.parametrize("n_out", [1, 3])
def test_mlp(xp, jax, rng, act, n_out):
    import jax.numpy as jnp
    params = init_mlp(rng, [3, 8, 8, n_out])
    x = rng.uniform(-1.0, 1.0, size=3)
    px, pj = to_backend(lambda a: from_np(xp, a), params), to_backend(jnp.asarray, params)
    got = xgrad.laplacian(lambda x: mlp(xnp, act, px, x))(from_np(xp, x))
    want = cached(("mlp", act, n_out), lambda: jax_laplacian(
        jax, lambda x: mlp(jnp, act, pj, x))(jnp.asarray(x)))
    assert_close(got, want, rtol=1e-9, atol=1e-11)
    got_d = xgrad.diag_hessian(lambda x: mlp(xnp, act, px, x))(from_np(xp, x))
    want_d = cached(("mlp-diag", act, n_out), lambda: jax_diag_hessian(
        jax, lambda x: mlp(jnp, act, pj, x))(jnp.asarray(x)))
    assert tuple(got_d.shape) == (n_out, 3)
    assert_close(got_d, want_d, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("act", sorted(ACTS))
def test_method_hessian_agrees(xp, rng, act):
    params = to_backend(lambda a: from_np(xp, a), init_mlp(rng, [3, 6, 1]))
    x = from_np(xp, rng.uniform(-1.0, 1.0, size=3))
    u = lambda x: scalar_mlp(xnp, act, params, x)   # noqa: E731
    fwd = xgrad.laplacian(u)(x)
    hes = xgrad.laplacian(u, method="hessian")(x)
    assert_close(fwd, hes, rtol=1e-10, atol=1e-12)
    assert_close(xnp.sum(xgrad.diag_hessian(u)(x)), hes, rtol=1e-10, atol=1e-12)


def test_method_hessian_matrix_input_and_argnums(xp, rng):
    a = from_np(xp, rng.uniform(-1, 1, size=(2, 3)))
    m = from_np(xp, rng.uniform(-1, 1, size=(2, 3)))
    f = lambda a, m: xnp.sum(xnp.multiply(a, xnp.sin(m) * m))   # noqa: E731
    fwd = xgrad.laplacian(f, argnums=1)(a, m)
    hes = xgrad.laplacian(f, argnums=1, method="hessian")(a, m)
    assert_close(fwd, hes, rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------
# the PINN compositions: vmap over collocation points, grad w.r.t. the weights

def pinn_data(rng, xp, d=2, n=16, sizes=(8, 8)):
    params = init_mlp(rng, [d, *sizes, 1])
    X = rng.uniform(0.0, 1.0, size=(n, d))
    f = d * np.pi ** 2 * np.prod(np.sin(np.pi * X), axis=1)
    return params, X, f


def test_vmap_over_collocation_points(xp, jax, rng):
    import jax.numpy as jnp
    params, X, _ = pinn_data(rng, xp)
    px, pj = to_backend(lambda a: from_np(xp, a), params), to_backend(jnp.asarray, params)
    want = cached("vmap", lambda: jax.vmap(jax_laplacian(
        jax, lambda x: scalar_mlp(jnp, "tanh", pj, x)))(jnp.asarray(X)))
    # closing over the weights
    got = xgrad.vmap(xgrad.laplacian(lambda x: scalar_mlp(xnp, "tanh", px, x)))(from_np(xp, X))
    assert tuple(got.shape) == (X.shape[0],)
    assert_close(got, np.asarray(want), rtol=1e-10, atol=1e-11)
    # the weights as an unmapped argument, the point as argnums=1
    lap = xgrad.laplacian(lambda p, x: scalar_mlp(xnp, "tanh", p, x), argnums=1)
    got2 = xgrad.vmap(lap, in_axes=(None, 0))(px, from_np(xp, X))
    assert_close(got2, np.asarray(want), rtol=1e-10, atol=1e-11)
    # diag_hessian batched the same way: (points, d)
    dh = xgrad.vmap(xgrad.diag_hessian(lambda x: scalar_mlp(xnp, "tanh", px, x)))(from_np(xp, X))
    assert tuple(dh.shape) == X.shape
    assert_close(np.sum(to_np(dh), axis=1), np.asarray(want), rtol=1e-10, atol=1e-11)


@pytest.mark.parametrize("act", sorted(ACTS))
@pytest.mark.parametrize("remat", [False, True], ids=["plain", "checkpoint"])
def test_pinn_loss_gradient(xp, jax, rng, act, remat):
    """grad w.r.t. the weights of mean((Δu + f)^2) at collocation points, with
    and without checkpoint around every layer, against jax."""
    import jax.numpy as jnp
    params, X, f = pinn_data(rng, xp)
    layer = lambda W, b, h: ACTS[act](xnp, xnp.matmul(h, W) + b)   # noqa: E731
    if remat:
        layer = xgrad.checkpoint(layer)

    def u(params, x):
        h = x
        for W, b in params[:-1]:
            h = layer(W, b, h)
        W, b = params[-1]
        return (xnp.matmul(h, W) + b)[0]

    Xx, fx = from_np(xp, X), from_np(xp, f)

    def loss(params):
        lap = xgrad.vmap(xgrad.laplacian(lambda x: u(params, x)))(Xx)
        return xnp.mean((lap + fx) ** 2)

    def loss_jax(params):
        lap = jax.vmap(jax_laplacian(jax, lambda x: scalar_mlp(jnp, act, params, x)))(
            jnp.asarray(X))
        return jnp.mean((lap + f) ** 2)

    px, pj = to_backend(lambda a: from_np(xp, a), params), to_backend(jnp.asarray, params)
    val, g = xgrad.value_and_grad(loss)(px)
    val_j, g_j = _CACHE.get(("pinn", act)) or _CACHE.setdefault(
        ("pinn", act), jax.jit(jax.value_and_grad(loss_jax))(pj))     # same for plain/checkpoint
    assert_close(val, np.asarray(val_j), rtol=1e-10)
    for (gW, gb), (jW, jb) in zip(g, g_j):
        assert tuple(gW.shape) == tuple(jW.shape)
        assert_close(gW, np.asarray(jW), rtol=1e-8, atol=1e-10)
        assert_close(gb, np.asarray(jb), rtol=1e-8, atol=1e-10)


def test_pinn_gradient_with_hard_constraint_ansatz(xp, jax, rng):
    """u = x(1-x) y(1-y) N(x, y), as in examples/pinn_poisson.py."""
    import jax.numpy as jnp
    params, X, f = pinn_data(rng, xp)

    def u(ns, params, x):
        return x[0] * (1.0 - x[0]) * x[1] * (1.0 - x[1]) * scalar_mlp(ns, "tanh", params, x)

    Xx, fx = from_np(xp, X), from_np(xp, f)
    loss = lambda p: xnp.mean(   # noqa: E731
        (xgrad.vmap(xgrad.laplacian(lambda x: u(xnp, p, x)))(Xx) + fx) ** 2)
    loss_j = lambda p: jnp.mean(   # noqa: E731
        (jax.vmap(jax_laplacian(jax, lambda x: u(jnp, p, x)))(jnp.asarray(X)) + f) ** 2)
    g = xgrad.grad(loss)(to_backend(lambda a: from_np(xp, a), params))
    g_j = _CACHE.get("ansatz") or _CACHE.setdefault(
        "ansatz", jax.jit(jax.grad(loss_j))(to_backend(jnp.asarray, params)))
    for (gW, gb), (jW, jb) in zip(g, g_j):
        assert_close(gW, np.asarray(jW), rtol=1e-8, atol=1e-10)
        assert_close(gb, np.asarray(jb), rtol=1e-8, atol=1e-10)


def test_checkpoint_inside(xp, jax, rng):
    import jax.numpy as jnp
    x = rng.uniform(-1, 1, size=3)
    f = lambda ns, x: ns.sum(ns.sin(x) * ns.exp(x[::-1]))   # noqa: E731
    got = xgrad.laplacian(xgrad.checkpoint(lambda x: f(xnp, x)))(from_np(xp, x))
    want = jax_laplacian(jax, lambda x: f(jnp, x))(jnp.asarray(x))
    assert_close(got, np.asarray(want), rtol=1e-12)


# --------------------------------------------------------------------------
# nesting with the other transforms

def _poly(ns, x):
    """Δ = 12 |x|^2 + 2 x0^2 + 2 x1^2 - x0 sin x2;  Δ² = 80 + x0 sin x2."""
    return ns.sum(x ** 4) + x[0] ** 2 * x[1] ** 2 + ns.sin(x[2]) * x[0]


def test_laplacian_of_laplacian(rng):
    x = rng.uniform(-1, 1, size=3)
    got = xgrad.laplacian(xgrad.laplacian(lambda x: _poly(xnp, x)))(x)
    assert_close(got, 80.0 + x[0] * np.sin(x[2]), rtol=1e-12)


def test_derivatives_of_laplacian(rng):
    x = rng.uniform(-1, 1, size=3)
    lap = xgrad.laplacian(lambda x: _poly(xnp, x))
    s2, c2 = np.sin(x[2]), np.cos(x[2])
    grad = np.array([28 * x[0] - s2, 28 * x[1], 24 * x[2] - x[0] * c2])
    hess = np.array([[28.0, 0.0, -c2], [0.0, 28.0, 0.0], [-c2, 0.0, 24.0 + x[0] * s2]])
    assert_close(xgrad.grad(lap)(x), grad, rtol=1e-12)
    assert_close(xgrad.jacfwd(lap)(x), grad, rtol=1e-12)
    assert_close(xgrad.hessian(lap)(x), hess, rtol=1e-12, atol=1e-14)
    assert_close(xgrad.jvp(lap, (x,), (np.ones(3),))[1], np.sum(grad), rtol=1e-12)


def test_laplacian_of_a_gradient(jax, rng):
    import jax.numpy as jnp
    x = rng.uniform(-1, 1, size=3)
    got = xgrad.laplacian(xgrad.grad(lambda x: _poly(xnp, x)))(x)   # vector output
    want = jax_laplacian(jax, jax.grad(lambda x: _poly(jnp, x)))(jnp.asarray(x))
    assert_close(got, np.asarray(want), rtol=1e-10, atol=1e-12)


def test_vmap_inside_and_stop_gradient(rng):
    x = rng.uniform(-1, 1, size=4)
    got = xgrad.laplacian(lambda x: xnp.sum(xgrad.vmap(lambda r: xnp.sin(r) * r)(x)))(x)
    assert_close(got, np.sum(2 * np.cos(x) - x * np.sin(x)), rtol=1e-12)
    got = xgrad.laplacian(lambda x: xnp.sum(x ** 2 * xgrad.stop_gradient(x)))(x)
    assert_close(got, 2 * np.sum(x), rtol=1e-12)


# --------------------------------------------------------------------------
# arguments, outputs, dtypes

def test_argnums_and_kwargs(xp, rng):
    a, x = (from_np(xp, rng.uniform(0.5, 1.5, size=3)) for _ in range(2))
    f = lambda a, x, k=1.0: k * xnp.sum(xnp.multiply(a, x ** 3))   # noqa: E731
    want = 2.0 * 6.0 * np.sum(to_np(a) * to_np(x))
    assert_close(xgrad.laplacian(f, argnums=1)(a, x, k=2.0), want, rtol=1e-12)
    assert_close(xgrad.laplacian(f, argnums=-1)(a, x, k=2.0), want, rtol=1e-12)
    assert_close(xgrad.laplacian(f)(a, x), 0.0, atol=1e-14)          # linear in a


def test_python_float_input():
    assert_close(xgrad.laplacian(lambda x: x ** 3)(2.0), 12.0)
    assert_close(xgrad.diag_hessian(lambda x: xnp.sin(x))(1.0), -math.sin(1.0))


def test_outputs_independent_of_input(xp, rng):
    x = from_np(xp, rng.uniform(size=3))
    out = xgrad.laplacian(lambda x: {"c": 3.0, "v": xnp.ones(2), "s": xnp.sum(x ** 2)})(x)
    assert_close(out["c"], 0.0)
    assert tuple(out["v"].shape) == (2,)
    assert_close(out["v"], np.zeros(2))
    assert_close(out["s"], 6.0)
    dh = xgrad.diag_hessian(lambda x: xnp.ones(2))(x)
    assert tuple(dh.shape) == (2, 3)


def test_float32(xp, rng):
    x = rng.uniform(-1, 1, size=3)
    x32 = xp.asarray(x, dtype=xp.float32)
    f = lambda x: xnp.sum(xnp.tanh(x) * x[0] + 2.0 * x ** 3)   # noqa: E731
    got = xgrad.laplacian(f)(x32)
    assert got.dtype == xp.float32
    assert_close(got, xgrad.laplacian(f)(from_np(xp, x)), rtol=1e-5, atol=1e-5)
    dh = xgrad.diag_hessian(f)(x32)
    assert dh.dtype == xp.float32


def test_does_not_mutate_input(xp, rng):
    x_np = rng.uniform(size=3)
    x = from_np(xp, x_np.copy())

    def f(x):
        x[0] = x[1] ** 2          # functional update of the traced value
        return xnp.sum(x ** 3)
    xgrad.laplacian(f)(x)
    assert_close(x, x_np, rtol=0, atol=0)


# --------------------------------------------------------------------------
# errors

@pytest.mark.parametrize("fn", [xgrad.laplacian, xgrad.diag_hessian])
def test_bad_argnums(fn):
    f = lambda x, y: xnp.sum(x ** 3)   # noqa: E731
    with pytest.raises(TypeError, match="argnums must be an int"):
        fn(f, argnums=(0,))(1.0, 2.0)
    with pytest.raises(ValueError, match="out of range"):
        fn(f, argnums=2)(1.0, 2.0)
    with pytest.raises(ValueError, match="out of range"):
        fn(f, argnums=-3)(1.0, 2.0)


def test_bad_method():
    with pytest.raises(ValueError, match="method"):
        xgrad.laplacian(lambda x: x, method="reverse")


def test_integer_input():
    with pytest.raises(TypeError, match="int"):
        xgrad.laplacian(lambda x: xnp.sum(x ** 3))(np.arange(3))


def test_pytree_input_is_rejected():
    with pytest.raises(TypeError, match="list"):
        xgrad.laplacian(lambda x: x[0] ** 3)([1.0, 2.0])


def test_method_hessian_vector_output():
    with pytest.raises(TypeError, match="scalar output"):
        xgrad.laplacian(lambda x: x ** 3, method="hessian")(np.ones(3))


# --------------------------------------------------------------------------
# argument checks of method='hessian'; custom_jvp rules inside the forward Laplacian

def test_method_hessian_bad_argnums():
    with pytest.raises(ValueError, match="out of range"):
        xgrad.laplacian(lambda x: xnp.sum(x ** 3), argnums=3, method="hessian")(np.ones(2))


def test_method_hessian_python_float():
    assert_close(xgrad.laplacian(lambda x: x ** 3, method="hessian")(2.0), 12.0)


def test_custom_jvp_rule_is_used():
    @xgrad.custom_jvp
    def softplus(x):                                 # naive: exp overflows at x = 800
        return xnp.log1p(xnp.exp(x))

    @softplus.defjvp
    def rule(primals, tangents):
        (x,), (t,) = primals, tangents
        return softplus(x), t * 0.5 * (1.0 + xnp.tanh(0.5 * x))   # stable sigmoid

    x = np.array([800.0, 1.0])
    f = lambda x: xnp.sum(softplus(x))   # noqa: E731
    with np.errstate(all="ignore"):                  # softplus(800) itself overflows
        want = np.trace(xgrad.hessian(f)(x))         # uses the rule: finite
        got = xgrad.laplacian(f)(x)
    assert np.isfinite(want)
    assert_close(got, want, rtol=1e-12)
