"""JAX scripts ported by changing imports: a MAML sine-regression run and a
PINN (Poisson in 2-D) run, written once against a module ``J`` that is
either ``jax`` or ``xgrad`` (``J.random`` for the initialisation and the
data, ``J.nn`` for the activations, ``J.numpy``, ``J.lax``,
``J.tree_util``, ``J.jit``, ``J.grad``, ``J.vmap``, ``J.hessian``), give the
same trajectory in float64 to 1e-10."""
import types

import numpy as np
import pytest

import xgrad


def _as_module(lib):
    import importlib
    return types.SimpleNamespace(
        grad=lib.grad, vmap=lib.vmap, jit=lib.jit, hessian=lib.hessian,
        value_and_grad=lib.value_and_grad,
        random=importlib.import_module(lib.__name__ + ".random"),
        nn=importlib.import_module(lib.__name__ + ".nn"),
        numpy=importlib.import_module(lib.__name__ + ".numpy"),
        lax=importlib.import_module(lib.__name__ + ".lax"),
        tree_util=importlib.import_module(lib.__name__ + ".tree_util"))


# ----- the scripts (JAX code; only the module J differs) ---------------------

def maml_script(J, meta_steps=4):
    jnp, random, nn, tu = J.numpy, J.random, J.nn, J.tree_util

    def init(key, sizes):
        params = []
        for k, (m, n) in zip(random.split(key, len(sizes) - 1), zip(sizes[:-1], sizes[1:])):
            wk, bk = random.split(k)
            params.append((random.normal(wk, (m, n)) * jnp.sqrt(2.0 / m),
                           random.uniform(bk, (n,), minval=-0.1, maxval=0.1)))
        return params

    def net(params, x):
        for w, b in params[:-1]:
            x = nn.tanh(x @ w + b)
        w, b = params[-1]
        return x @ w + b

    def mse(params, x, y):
        return jnp.mean((net(params, x) - y) ** 2)

    def inner(params, x, y):
        g = J.grad(mse)(params, x, y)
        return tu.tree_map(lambda p, gp: p - 0.01 * gp, params, g)

    def task_loss(params, xs, ys, xq, yq):
        p = params
        for _ in range(3):
            p = inner(p, xs, ys)
        return mse(p, xq, yq)

    def meta_loss(params, xs, ys, xq, yq):
        return jnp.mean(J.vmap(task_loss, in_axes=(None, 0, 0, 0, 0))(params, xs, ys, xq, yq))

    def tasks(key, n):
        ka, kp, kx, kq = random.split(key, 4)
        amp = random.uniform(ka, (n, 1, 1), minval=0.1, maxval=5.0)
        phase = random.uniform(kp, (n, 1, 1), minval=0.0, maxval=jnp.pi)
        xs = random.uniform(kx, (n, 10, 1), minval=-5.0, maxval=5.0)
        xq = random.uniform(kq, (n, 10, 1), minval=-5.0, maxval=5.0)
        return xs, amp * jnp.sin(xs + phase), xq, amp * jnp.sin(xq + phase)

    key = random.PRNGKey(0)
    key, k0 = random.split(key)
    params = init(k0, [1, 24, 24, 1])
    step = J.jit(J.value_and_grad(meta_loss))
    losses = []
    for _ in range(meta_steps):
        key, kt = random.split(key)
        loss, g = step(params, *tasks(kt, 4))
        params = tu.tree_map(lambda p, gp: p - 0.001 * gp, params, g)
        losses.append(loss)
    return losses, tu.tree_leaves(params)


def pinn_script(J, steps=3):
    jnp, random, nn, tu = J.numpy, J.random, J.nn, J.tree_util

    def init(key, sizes):
        keys = random.split(key, len(sizes) - 1)
        return [(random.truncated_normal(k, -2.0, 2.0, (m, n)) / jnp.sqrt(m), jnp.zeros(n))
                for k, (m, n) in zip(keys, zip(sizes[:-1], sizes[1:]))]

    def u(params, x):
        h = x
        for w, b in params[:-1]:
            h = nn.softplus(h @ w + b) + nn.silu(h @ w + b)
        w, b = params[-1]
        return (h @ w + b)[0]

    def residual(params, x):
        lap = jnp.trace(J.hessian(u, argnums=1)(params, x))
        f = 2.0 * jnp.pi ** 2 * jnp.sin(jnp.pi * x[0]) * jnp.sin(jnp.pi * x[1])
        return lap + f

    def loss(params, xs):
        r = J.vmap(residual, in_axes=(None, 0))(params, xs)
        edge = J.lax.fori_loop(0, 2, lambda i, acc: acc + u(params, xs[i] * 0.0), 0.0)
        return jnp.mean(r ** 2) + edge ** 2

    key = random.PRNGKey(42)
    kp, kx = random.split(key)
    params = init(kp, [2, 12, 12, 1])
    xs = random.uniform(kx, (32, 2))
    step = J.jit(J.value_and_grad(loss))
    losses = []
    for _ in range(steps):
        value, g = step(params, xs)
        params = tu.tree_map(lambda p, gp: p - 1e-3 * gp, params, g)
        losses.append(value)
    return losses, tu.tree_leaves(params)


@pytest.mark.parametrize("script", [maml_script, pinn_script], ids=["maml", "pinn"])
def test_ported_script_gives_jaxs_trajectory(script, jax):
    want_losses, want_params = script(_as_module(jax))
    got_losses, got_params = script(_as_module(xgrad))
    np.testing.assert_allclose(np.asarray(got_losses), np.asarray(want_losses), rtol=1e-10)
    assert len(got_params) == len(want_params)
    for a, b in zip(got_params, want_params):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10, atol=1e-12)
