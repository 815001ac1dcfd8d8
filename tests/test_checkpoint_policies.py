"""Checkpoint policies as data: each policy gives the derivatives of the plain
function (and of jax.checkpoint with JAX's policy of the same name), and
saves exactly what it says: the primitives it saves are not recomputed in
the backward pass, the others are (counted per primitive)."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad.core import RULES
from xgrad import checkpoint_policies as cp
from helpers import assert_close

RNG = np.random.default_rng(7)
W = RNG.normal(size=(4, 4)) / 2
X = RNG.normal(size=(3, 4))

# xgrad policy, jax policy (by the same name), both built the same way
POLICIES = {
    "nothing_saveable": lambda m: m.nothing_saveable,
    "everything_saveable": lambda m: m.everything_saveable,
    "dots_saveable": lambda m: m.dots_saveable,
    "checkpoint_dots": lambda m: m.checkpoint_dots,
    "dots_with_no_batch_dims_saveable": lambda m: m.dots_with_no_batch_dims_saveable,
    "save_only_these_names": lambda m: m.save_only_these_names("pre"),
    "save_anything_except_these_names": lambda m: m.save_anything_except_these_names("pre"),
    "save_any_names_but_these": lambda m: m.save_any_names_but_these("act"),
    "save_from_both_policies": lambda m: m.save_from_both_policies(
        m.save_only_these_names("act"), m.dots_saveable),
}


def _layer(np_, name):
    def layer(h, w):
        pre = name(np_.matmul(h, w), "pre")
        return name(np_.tanh(pre), "act") * 1.5
    return layer




def _net(np_, checkpoint, name, policy):
    lay = checkpoint(_layer(np_, name), policy=policy)

    def net(x, w):
        h = x
        for _ in range(3):
            h = lay(h, w)
        return np_.sum(h ** 2)
    return net


def _xgrad_net(policy):
    return _net(xnp, xgrad.checkpoint, xgrad.checkpoint_name, policy)


def _jax_net(jax, policy):
    from jax.ad_checkpoint import checkpoint_name
    return _net(jax.numpy, jax.checkpoint, checkpoint_name, policy)


def test_jax_policy_names_exist():
    jax = pytest.importorskip("jax")
    ours = set(cp.__all__)
    # host offloading has no meaning on an eager array backend
    theirs = {n for n in dir(jax.checkpoint_policies) if not n.startswith("_")
              and "offload" not in n}
    assert theirs <= ours, sorted(theirs - ours)


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_policy_gradients_vs_plain_and_jax(name, jax):
    plain = xgrad.grad(_xgrad_net(None), argnums=(0, 1))(X, W)
    got = xgrad.grad(_xgrad_net(POLICIES[name](cp)), argnums=(0, 1))(X, W)
    want = jax.grad(_jax_net(jax, POLICIES[name](jax.checkpoint_policies)), argnums=(0, 1))(X, W)
    for g, p, j in zip(got, plain, want):
        assert_close(g, p, rtol=1e-13, atol=1e-14)
        assert_close(g, np.asarray(j), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_policy_second_order_and_forward_vs_jax(name, jax):
    net, jnet = _xgrad_net(POLICIES[name](cp)), _jax_net(jax, POLICIES[name](jax.checkpoint_policies))
    v = RNG.normal(size=W.shape)
    hv = xgrad.hvp(lambda w: net(X, w), (W,), (v,))
    jhv = jax.jvp(jax.grad(lambda w: jnet(X, w)), (W,), (v,))[1]
    assert_close(hv, np.asarray(jhv), rtol=1e-11, atol=1e-12)
    # grad of grad (reverse over reverse: the inner checkpoint's arguments are traced)
    gg = xgrad.grad(lambda w: xnp.sum(xgrad.grad(net, argnums=1)(X, w) ** 2))(W)
    jgg = jax.grad(lambda w: jax.numpy.sum(jax.grad(jnet, argnums=1)(X, w) ** 2))(W)
    assert_close(gg, np.asarray(jgg), rtol=1e-11, atol=1e-12)
    # vmap of grad over a batch of inputs
    xs = RNG.normal(size=(2,) + X.shape)
    vg = xgrad.vmap(xgrad.grad(net), in_axes=(0, None))(xs, W)
    jvg = jax.vmap(jax.grad(jnet), in_axes=(0, None))(xs, W)
    assert_close(vg, np.asarray(jvg), rtol=1e-12, atol=1e-13)


def _count_impls(monkeypatch, names):
    counts = dict.fromkeys(names, 0)
    for n in names:
        p = RULES[n]
        monkeypatch.setattr(p, "impl", (lambda n, impl: lambda *a, **k: (
            counts.__setitem__(n, counts[n] + 1), impl(*a, **k))[1])(n, p.impl))
    return counts


# (policy, forward+backward counts of matmul and tanh): 3 layers; forward 3
# matmuls and 3 tanh; backward 3 matmuls for d/dx and 3 for d/dW (the tanh
# derivative is taken from the value: no tanh call); the recomputation adds
# what the policy does not save
@pytest.mark.parametrize("policy, matmuls, tanhs", [
    (None, 12, 6),
    (cp.nothing_saveable, 12, 6),
    (cp.everything_saveable, 9, 3),
    (cp.dots_saveable, 9, 6),
    ("dots", 9, 6),
    (cp.save_only_these_names("pre"), 9, 6),
    (cp.save_only_these_names("act"), 12, 3),
    (cp.save_anything_except_these_names("pre", "act"), 9, 3),
])
def test_policy_saves_what_it_says(monkeypatch, policy, matmuls, tanhs):
    counts = _count_impls(monkeypatch, ["matmul", "tanh"])
    xgrad.grad(_xgrad_net(policy), argnums=(0, 1))(X, W)
    assert (counts["matmul"], counts["tanh"]) == (matmuls, tanhs)


def test_dots_with_no_batch_dims_saves_only_matrix_products(monkeypatch):
    Wb = RNG.normal(size=(2, 4, 4)) / 2

    def layer(h, w, wb):
        return xnp.tanh(h @ w) + xnp.sum(xnp.tanh(xnp.matmul(h, wb)), axis=0)
    counts = _count_impls(monkeypatch, ["matmul"])
    for policy, expected in ((cp.dots_saveable, 2 + 2), (cp.dots_with_no_batch_dims_saveable, 2 + 3)):
        counts["matmul"] = 0
        f = xgrad.checkpoint(layer, policy=policy)
        g = xgrad.grad(lambda h: xnp.sum(f(h, W, Wb)))(X)
        # forward 2 products, backward 2 (d/dh only), recomputed: the batched one
        assert counts["matmul"] == expected, policy
        assert_close(g, xgrad.grad(lambda h: xnp.sum(layer(h, W, Wb)))(X), rtol=1e-13, atol=1e-14)


def test_policy_sees_primitive_inputs_and_params():
    seen = []

    def policy(prim, *args, **params):
        seen.append((prim.name, tuple(tuple(a.shape) for a in args if hasattr(a, "shape")),
                     dict(params)))
        return False
    f = xgrad.checkpoint(lambda x: xnp.sum(xgrad.checkpoint_name(x @ W, "z")), policy=policy)
    xgrad.grad(f)(X)
    assert ("matmul", ((3, 4), (4, 4)), {}) in seen
    assert ("checkpoint_name", ((3, 4),), {"name": "z"}) in seen


def test_checkpoint_name_is_the_identity_under_every_transform(jax):
    f = lambda x: xnp.sum(xnp.sin(xgrad.checkpoint_name(x * x, "h")))       # noqa: E731
    g = lambda x: xnp.sum(xnp.sin(x * x))                                     # noqa: E731
    assert_close(f(X), g(X))
    assert_close(xgrad.grad(f)(X), xgrad.grad(g)(X), rtol=0, atol=0)
    assert_close(xgrad.hessian(lambda x: f(x[0]))(X[:1]), xgrad.hessian(lambda x: g(x[0]))(X[:1]))
    assert_close(xgrad.vmap(xgrad.grad(f))(X), xgrad.vmap(xgrad.grad(g))(X))
    assert_close(xgrad.laplacian(f)(X[0]), xgrad.laplacian(g)(X[0]), rtol=1e-12)
    with pytest.raises(TypeError, match="name must be a str"):
        xgrad.checkpoint_name(X, 3)


def test_bad_policy_names_the_alternatives():
    with pytest.raises(ValueError, match="checkpoint_policies.dots_saveable"):
        xgrad.checkpoint(xnp.sin, policy="everything")


def test_saving_policy_with_a_nested_closure_recomputes(monkeypatch):
    # the inner checkpoint closes over a value computed inside the outer one:
    # the staged Program can't replay it (opaque), so the outer function runs
    # again and the gradient is still right
    def outer(x):
        h = xnp.sin(x)
        return xgrad.checkpoint(lambda y: xnp.tanh(y @ W) * h)(x)
    f = xgrad.checkpoint(outer, policy=cp.everything_saveable)
    g = xgrad.grad(lambda x: xnp.sum(f(x) ** 2))(X)
    assert_close(g, xgrad.grad(lambda x: xnp.sum(outer(x) ** 2))(X), rtol=1e-13, atol=1e-14)
