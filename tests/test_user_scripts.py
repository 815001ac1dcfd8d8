"""Five scripts as a JAX user writes them, run with ``xgrad.numpy`` in place
of ``jax.numpy``: the value and the gradient against the same script in
jax. Each script is a function of the namespace (``np_``), so the text is
one for both. A script whose function the namespace lacks yet is skipped,
naming it."""
import math

import numpy as np

import xgrad
import xgrad.numpy as xnp

R = np.random.default_rng(11)


def _needs(*names):
    missing = [n for n in names if not hasattr(xnp, n)]
    assert not missing, f"xgrad.numpy has no {', '.join(missing)}"


def _compare(jax, script, args, argnums=0):
    jnp = jax.numpy
    val, g = xgrad.value_and_grad(lambda *a: script(xnp, *a), argnums=argnums)(*args)
    jargs = jax.tree_util.tree_map(jnp.asarray, args)
    jval, jg = jax.value_and_grad(lambda *a: script(jnp, *a), argnums=argnums)(*jargs)
    np.testing.assert_allclose(val, jval, rtol=1e-10, atol=1e-12)
    leaves, jleaves = jax.tree_util.tree_leaves(g), jax.tree_util.tree_leaves(jg)
    assert len(leaves) == len(jleaves)
    for a, b in zip(leaves, jleaves):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-9, atol=1e-11)


# ----- 1. an attention block written with einsum --------------------------

def attention(np_, params, x):
    q = np_.einsum("td,dh->th", x, params["wq"])
    k = np_.einsum("td,dh->th", x, params["wk"])
    v = np_.einsum("td,dh->th", x, params["wv"])
    s = np_.einsum("qh,kh->qk", q, k) / q.shape[-1] ** 0.5
    s = s - s.max(axis=-1, keepdims=True)
    a = np_.exp(s)
    a = a / a.sum(axis=-1, keepdims=True)
    out = np_.einsum("qk,kh->qh", a, v) + x
    return (out ** 2).mean()


def test_attention(jax):
    _needs("einsum")
    params = {n: R.standard_normal((4, 4)) / 2 for n in ("wq", "wk", "wv")}
    _compare(jax, attention, (params, R.standard_normal((5, 4))))


# ----- 2. a GNN message-passing step with .at[idx].add --------------------

SENDERS = np.asarray([0, 1, 2, 3, 4, 0, 2, 1])
RECEIVERS = np.asarray([1, 2, 3, 4, 0, 2, 1, 1])     # node 1 receives three messages


def gnn(np_, params, h):
    msgs = np_.tanh(h[SENDERS] @ params["w_msg"])
    agg = np_.zeros_like(h).at[RECEIVERS].add(msgs)
    deg = np_.zeros(h.shape[0]).at[RECEIVERS].add(1.0)
    h_new = np_.tanh((h + agg / np_.maximum(deg, 1.0)[:, None]) @ params["w_upd"])
    return np_.sum(h_new ** 2)


def test_gnn(jax):
    params = {"w_msg": R.standard_normal((3, 3)), "w_upd": R.standard_normal((3, 3))}
    h = R.standard_normal((5, 3))
    _compare(jax, gnn, (params, h))              # h a constant: zeros_like(h) inside grad
    _compare(jax, gnn, (params, h), argnums=(0, 1))


# ----- 3. a Gaussian-process negative log likelihood -----------------------

def gp_nll(np_, log_ls, log_sf, log_sn, X, y):
    n = X.shape[0]
    d2 = np_.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = np_.exp(2 * log_sf) * np_.exp(-0.5 * d2 / np_.exp(2 * log_ls)) \
        + np_.exp(2 * log_sn) * np_.eye(n)
    L = np_.linalg.cholesky(K)
    alpha = np_.linalg.solve(K, y)
    return 0.5 * y @ alpha + np_.sum(np_.log(np_.diag(L))) + 0.5 * n * math.log(2 * math.pi) \
        + 1e-3 * np_.trace(K)


def test_gp_nll(jax):
    _needs("diag", "trace")
    X = R.standard_normal((6, 2))
    y = np.sin(X[:, 0]) + 0.1 * R.standard_normal(6)
    _compare(jax, gp_nll, (np.asarray(0.1), np.asarray(-0.2), np.asarray(-1.0), X, y),
             argnums=(0, 1, 2))


# ----- 4. a network whose output is .squeeze()d ----------------------------

Y = R.standard_normal(7)


def net(np_, params, x):
    h = np_.tanh(x @ params["w1"] + params["b1"])
    out = (h @ params["w2"] + params["b2"]).squeeze()      # (7, 1) -> (7,)
    return np_.mean((out - Y) ** 2)


def test_squeezed_network(jax):
    params = {"w1": R.standard_normal((3, 5)), "b1": R.standard_normal(5),
              "w2": R.standard_normal((5, 1)), "b2": R.standard_normal(1)}
    _compare(jax, net, (params, R.standard_normal((7, 3))))


# ----- 5. a rotation matrix built by item assignment -----------------------

AXIS_V = np.asarray([1.0, -2.0, 0.5])


def rotation(np_, theta):
    c, s = np_.cos(theta), np_.sin(theta)
    R_ = np_.zeros((3, 3))
    R_ = R_.at[2, 2].set(1.0)
    R_ = R_.at[0, 0].set(c)
    R_ = R_.at[0, 1].set(-s)
    R_ = R_.at[1, 0].set(s)
    R_ = R_.at[1, 1].set(c)
    return np_.sum((R_ @ R_ @ AXIS_V) * np_.arange(1.0, 4.0))


def rotation_numpy_style(np_, theta):
    """The same, written with NumPy's item assignment (not JAX code: jax
    arrays are immutable; xgrad records the writes into a traced buffer)."""
    c, s = np_.cos(theta), np_.sin(theta)
    R_ = np_.zeros((3, 3))
    R_[2, 2] = 1.0
    R_[0, 0] = c
    R_[0, 1] = -s
    R_[1, 0] = s
    R_[1, 1] = c
    return np_.sum((R_ @ R_ @ AXIS_V) * np_.arange(1.0, 4.0))


def test_rotation(jax):
    theta = np.asarray(0.7)
    _compare(jax, rotation, (theta,))
    val, g = xgrad.value_and_grad(lambda t: rotation_numpy_style(xnp, t))(theta)
    jval, jg = jax.value_and_grad(lambda t: rotation(jax.numpy, t))(jax.numpy.asarray(theta))
    np.testing.assert_allclose(val, jval, rtol=1e-12)
    np.testing.assert_allclose(g, jg, rtol=1e-12)
    # a hessian through the chain of .at updates
    np.testing.assert_allclose(xgrad.hessian(lambda t: rotation(xnp, t))(theta),
                               jax.hessian(lambda t: rotation(jax.numpy, t))(jax.numpy.asarray(theta)),
                               rtol=1e-10)


# ----- outside transforms ---------------------------------------------------

def test_scripts_without_at_run_on_plain_arrays(jax):
    params = {"w1": R.standard_normal((3, 5)), "b1": R.standard_normal(5),
              "w2": R.standard_normal((5, 1)), "b2": R.standard_normal(1)}
    x = R.standard_normal((7, 3))
    jparams = jax.tree_util.tree_map(jax.numpy.asarray, params)
    np.testing.assert_allclose(net(xnp, params, x), net(jax.numpy, jparams, jax.numpy.asarray(x)))


def test_at_scripts_on_plain_arrays(jax):
    # outside transforms the creation functions return arrays with .at
    np.testing.assert_allclose(rotation(xnp, np.asarray(0.7)),
                               rotation(jax.numpy, jax.numpy.asarray(0.7)), rtol=1e-14)
    params = {"w_msg": R.standard_normal((3, 3)), "w_upd": R.standard_normal((3, 3))}
    h = R.standard_normal((5, 3))
    jparams = jax.tree_util.tree_map(jax.numpy.asarray, params)
    np.testing.assert_allclose(gnn(xnp, params, xnp.asarray(h)),
                               gnn(jax.numpy, jparams, jax.numpy.asarray(h)), rtol=1e-13)
    # and under vmap, where the creation functions' constants are plain arrays
    thetas = np.asarray([0.1, 0.7, -2.0])
    np.testing.assert_allclose(xgrad.vmap(lambda t: rotation(xnp, t))(thetas),
                               jax.vmap(lambda t: rotation(jax.numpy, t))(jax.numpy.asarray(thetas)),
                               rtol=1e-13)
