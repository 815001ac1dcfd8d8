"""checkpoint (remat) and checkpoint_sequential: the same derivatives as
without checkpointing (and as jax.checkpoint) under every transform, the
recomputation really happens (call counts, matmul counts), and nothing
outlives a finished grad / vjp_fn (weakrefs to big intermediates)."""
import gc
import weakref

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from helpers import assert_close, from_np

RNG = np.random.default_rng(42)
W_NP = RNG.normal(size=(4, 4)) / 2
X_NP = RNG.normal(size=(3, 4))
V_NP = RNG.normal(size=(3, 4))
POLICIES = [None, "nothing", "dots"]


def layer(h, W):
    return xnp.tanh(h @ W)


def _net(policy, depth=3):
    lay = layer if policy == "plain" else xgrad.checkpoint(layer, policy=policy)

    def net(x, W):
        h = x
        for _ in range(depth):
            h = lay(h, W)
        return xnp.sum(h ** 2)
    return net


def _jax_net(jax, policy, depth=3):
    jnp = jax.numpy
    jpol = {None: None, "nothing": jax.checkpoint_policies.nothing_saveable,
            "dots": jax.checkpoint_policies.checkpoint_dots}[policy]
    lay = jax.checkpoint(lambda h, W: jnp.tanh(h @ W), policy=jpol)

    def net(x, W):
        h = x
        for _ in range(depth):
            h = lay(h, W)
        return jnp.sum(h ** 2)
    return net


def _raw(y):
    """The backend array under any number of tracers."""
    while hasattr(y, "primal"):
        y = y.primal
    return y


# --------------------------------------------------------------------------
# same derivatives as jax.checkpoint

@pytest.mark.parametrize("policy", POLICIES)
def test_checkpoint_grad_vs_plain_and_jax(policy, xp, jax):
    x, W = from_np(xp, X_NP), from_np(xp, W_NP)
    gx, gW = xgrad.grad(_net(policy), argnums=(0, 1))(x, W)
    px, pW = xgrad.grad(_net("plain"), argnums=(0, 1))(x, W)
    jx, jW = jax.grad(_jax_net(jax, policy), argnums=(0, 1))(X_NP, W_NP)
    assert_close(gx, jx)
    assert_close(gW, jW)
    assert_close(gx, px, rtol=0, atol=0)      # recomputation is bit-for-bit the same
    assert_close(gW, pW, rtol=0, atol=0)
    assert_close(_net(policy)(x, W), _jax_net(jax, policy)(X_NP, W_NP))


@pytest.mark.parametrize("policy", POLICIES)
def test_checkpoint_second_order_vs_jax(policy, jax):
    net, jnet = _net(policy), _jax_net(jax, policy)
    JH = jax.hessian(jnet)(X_NP, W_NP)
    hv = xgrad.hvp(lambda x: net(x, W_NP), (X_NP,), (V_NP,))
    assert_close(hv, (JH.reshape(12, 12) @ V_NP.ravel()).reshape(3, 4))
    assert_close(xgrad.grad(xgrad.grad(lambda s: net(X_NP * s, W_NP)))(0.7),
                 jax.grad(jax.grad(lambda s: jnet(X_NP * s, W_NP)))(0.7))


@pytest.mark.parametrize("policy", POLICIES)
def test_checkpoint_jvp_and_vmap_vs_jax(policy, jax):
    net, jnet = _net(policy), _jax_net(jax, policy)
    y, t = xgrad.jvp(net, (X_NP, W_NP), (V_NP, W_NP))
    jy, jt = jax.jvp(jnet, (X_NP, W_NP), (V_NP, W_NP))
    assert_close(y, jy)
    assert_close(t, jt)
    xs = X_NP[:, None, :]
    expected = jax.vmap(jax.grad(jnet), in_axes=(0, None))(xs, W_NP)
    assert_close(xgrad.vmap(xgrad.grad(net), in_axes=(0, None))(xs, W_NP), expected)
    per_example = lambda x: xgrad.vmap(lambda r: net(r, W_NP))(x)
    assert_close(xgrad.grad(lambda x: xnp.sum(per_example(x)))(xs), expected)
    # forward over reverse (jacfwd, hessian): test_checkpoint_jacfwd_and_hessian_vs_jax
    assert_close(xgrad.jacrev(xgrad.grad(net, argnums=1), argnums=1)(X_NP, W_NP),
                 jax.hessian(jnet, argnums=1)(X_NP, W_NP))


@pytest.mark.parametrize("policy", POLICIES)
def test_nested_checkpoints_vs_jax(policy, jax):
    jnp = jax.numpy
    jpol = {None: None, "nothing": jax.checkpoint_policies.nothing_saveable,
            "dots": jax.checkpoint_policies.checkpoint_dots}[policy]
    ck = lambda f: xgrad.checkpoint(f, policy=policy)
    jck = lambda f: jax.checkpoint(f, policy=jpol)
    # W passed explicitly at every level (closures: see the xfail tests below)
    inner = ck(lambda h, W: ck(layer)(ck(layer)(h, W), W))
    jlay = lambda h, W: jnp.tanh(h @ W)
    jinner = jck(lambda h, W: jck(jlay)(jck(jlay)(h, W), W))
    net = lambda x, W: xnp.sum(inner(inner(x, W), W) ** 2)
    jnet = lambda x, W: jnp.sum(jinner(jinner(x, W), W) ** 2)
    for a, b in zip(xgrad.grad(net, (0, 1))(X_NP, W_NP), jax.grad(jnet, (0, 1))(X_NP, W_NP)):
        assert_close(a, b)
    assert_close(xgrad.jacrev(xgrad.grad(net, 1), 1)(X_NP, W_NP), jax.hessian(jnet, 1)(X_NP, W_NP))


_JAX_SEQ = {}


def _jax_sequential_refs(jax):
    """Value, gradient and Hessian of the 7-layer chain in jax (computed once)."""
    if not _JAX_SEQ:
        jnp = jax.numpy

        def jf(x):
            for i in range(7):
                x = jnp.tanh(x @ W_NP + 0.1 * i)
            return x
        loss = lambda x: jnp.sum(jf(x) ** 2)
        _JAX_SEQ.update(value=np.asarray(jf(X_NP)), grad=np.asarray(jax.grad(loss)(X_NP)),
                        hessian=np.asarray(jax.hessian(loss)(X_NP[0])))
    return _JAX_SEQ


@pytest.mark.parametrize("segments", [1, 2, 3, 5, 7, 10])
def test_checkpoint_sequential_vs_jax(segments, xp, jax):
    ref = _jax_sequential_refs(jax)
    W = from_np(xp, W_NP)
    fns = [lambda h, i=i: xnp.tanh(h @ W + 0.1 * i) for i in range(7)]
    f = xgrad.checkpoint_sequential(fns, segments)
    x = from_np(xp, X_NP)
    assert_close(f(x), ref["value"])
    assert_close(xgrad.grad(lambda x: xnp.sum(f(x) ** 2))(x), ref["grad"])
    if xp.__name__.endswith("numpy"):
        loss = lambda x: xnp.sum(f(x) ** 2)
        assert_close(xgrad.jacrev(xgrad.grad(loss))(X_NP[0]), ref["hessian"])


@pytest.mark.parametrize("policy", POLICIES)
def test_checkpoint_jacfwd_and_hessian_vs_jax(policy, jax):
    net, jnet = _net(policy), _jax_net(jax, policy)
    assert_close(xgrad.jacfwd(lambda W: net(X_NP, W))(W_NP),
                 jax.jacfwd(lambda W: jnet(X_NP, W))(W_NP))
    assert_close(xgrad.hessian(net)(X_NP, W_NP), jax.hessian(jnet)(X_NP, W_NP))
    fns = [lambda h, i=i: xnp.tanh(h @ W_NP + 0.1 * i) for i in range(7)]
    f = xgrad.checkpoint_sequential(fns, 3)
    assert_close(xgrad.hessian(lambda x: xnp.sum(f(x) ** 2))(X_NP[0]),
                 _jax_sequential_refs(jax)["hessian"])


def test_checkpoint_sequential_segment_sizes():
    calls = []
    fns = [lambda h, i=i: calls.append(i) or h * 1.0 for i in range(7)]
    for segments, expected in [(3, [0, 1, 2, 3, 4, 5, 6]), (10, list(range(7)))]:
        calls.clear()
        f = xgrad.checkpoint_sequential(fns, segments)
        xgrad.grad(lambda x: xnp.sum(f(x)))(X_NP)
        # forward once, recompute once: each function exactly twice
        assert sorted(calls) == sorted(expected * 2)


def test_checkpoint_sequential_errors():
    with pytest.raises(ValueError, match="fns is empty"):
        xgrad.checkpoint_sequential([], 2)
    with pytest.raises(ValueError, match="segments must be a positive int"):
        xgrad.checkpoint_sequential([xnp.sin], 0)


def test_checkpoint_bad_policy_and_remat_alias():
    with pytest.raises(ValueError, match="policy='everything'"):
        xgrad.checkpoint(layer, policy="everything")
    assert xgrad.remat is xgrad.checkpoint


def test_checkpoint_pytree_in_and_out():
    @xgrad.checkpoint
    def f(p, x):
        return {"y": xnp.tanh(x @ p["W"]) + p["b"], "aux": (x * 2.0,)}
    p = {"W": W_NP, "b": np.array([0.1, 0.2, 0.3, 0.4])}
    loss = lambda p, x: xnp.sum(f(p, x)["y"] ** 2) + xnp.sum(f(p, x)["aux"][0])
    plain = lambda p, x: xnp.sum((xnp.tanh(x @ p["W"]) + p["b"]) ** 2) + xnp.sum(x * 2.0)
    (gp, gx), (qp, qx) = (xgrad.grad(fn, (0, 1))(p, X_NP) for fn in (loss, plain))
    assert_close(gp["W"], qp["W"])
    assert_close(gp["b"], qp["b"])
    assert_close(gx, qx)


# --------------------------------------------------------------------------
# closures over traced values (the layer functions of a network usually
# close over its parameters): jax.checkpoint handles them

@pytest.mark.parametrize("segments", [2, 4])
def test_checkpoint_sequential_closing_over_parameters_grad(segments):
    def loss(W):
        f = xgrad.checkpoint_sequential([lambda h: xnp.tanh(h @ W)] * 4, segments)
        return xnp.sum(f(X_NP))

    def plain(W):
        h = X_NP
        for _ in range(4):
            h = xnp.tanh(h @ W)
        return xnp.sum(h)
    assert_close(xgrad.grad(loss)(W_NP), xgrad.grad(plain)(W_NP))


def test_checkpoint_closing_over_parameters_jvp():
    def loss(W, segments):
        f = xgrad.checkpoint_sequential([lambda h: xnp.tanh(h @ W)] * 4, segments)
        return xnp.sum(f(X_NP))
    T = V_NP.T @ V_NP / 3
    _, t0 = xgrad.jvp(lambda W: loss(W, 1), (W_NP,), (T,))      # one block: no closure issue
    _, t = xgrad.jvp(lambda W: loss(W, 4), (W_NP,), (T,))
    assert_close(_raw(t), t0)
    assert type(t) is np.ndarray


def test_vmap_of_checkpoint_closing_over_batched_value():
    def loss(W, segments):
        f = xgrad.checkpoint_sequential([lambda h: xnp.tanh(h @ W)] * 4, segments)
        return xnp.sum(f(X_NP))
    Ws = np.stack([W_NP, V_NP.T @ V_NP / 3])
    expected = [float(loss(W, 1)) for W in Ws]
    out = xgrad.vmap(lambda W: loss(W, 2))(Ws)
    assert_close(_raw(out), expected)
    assert type(out) is np.ndarray


def _closing_net(policy, ck=True):
    """A net whose checkpointed layers close over the differentiated W and b."""
    def net(x, W, b):
        lay = lambda h: xnp.tanh(h @ W + b)                         # noqa: E731
        if ck:
            lay = xgrad.checkpoint(lay, policy=policy)
        h = x
        for _ in range(3):
            h = lay(h)
        return xnp.sum(h ** 2)
    return net


@pytest.mark.parametrize("policy", POLICIES)
def test_checkpoint_closing_over_parameters_vs_jax(policy, jax):
    jnp = jax.numpy
    b = RNG.normal(size=4)
    net = _closing_net(policy)

    def jnet(x, W, b):
        lay = jax.checkpoint(lambda h: jnp.tanh(h @ W + b))
        h = x
        for _ in range(3):
            h = lay(h)
        return jnp.sum(h ** 2)
    for a, e in zip(xgrad.grad(net, (0, 1, 2))(X_NP, W_NP, b),
                    jax.grad(jnet, (0, 1, 2))(X_NP, W_NP, b)):
        assert_close(a, e, rtol=1e-12, atol=1e-13)
    assert_close(xgrad.hessian(net, 1)(X_NP, W_NP, b), jax.hessian(jnet, 1)(X_NP, W_NP, b),
                 rtol=1e-11, atol=1e-12)
    assert_close(xgrad.hvp(lambda W: net(X_NP, W, b), (W_NP,), (V_NP.T @ V_NP,)),
                 jax.jvp(jax.grad(lambda W: jnet(X_NP, W, b)), (W_NP,), (V_NP.T @ V_NP,))[1],
                 rtol=1e-11, atol=1e-12)
    # reverse over reverse: the closure is a tracer of the inner grad, whose
    # primal is a tracer of the outer one
    gg = xgrad.grad(lambda s: xnp.sum(xgrad.grad(net, 1)(X_NP, W_NP * s, b)))(1.3)
    jgg = jax.grad(lambda s: jnp.sum(jax.grad(jnet, 1)(X_NP, W_NP * s, b)))(1.3)
    assert_close(gg, jgg, rtol=1e-11, atol=1e-12)


def test_checkpoint_closing_over_parameters_recomputes():
    # the closed-over parameters become inputs of the checkpoint record: the
    # layer runs once forward and once more in the backward pass (not inline)
    count = [0]
    W = W_NP

    def loss(W):
        def lay(h):
            count[0] += 1
            return xnp.tanh(h @ W)
        c = xgrad.checkpoint(lay)
        return xnp.sum(c(c(X_NP)) ** 2)
    g = xgrad.grad(loss)(W)
    assert count[0] == 4
    assert_close(g, xgrad.grad(lambda W: xnp.sum(xnp.tanh(xnp.tanh(X_NP @ W) @ W) ** 2))(W),
                 rtol=0, atol=0)


def test_checkpoint_closing_over_parameters_frees_internals():
    X = RNG.normal(size=(200, 4))
    refs, alive_at_backward = [], []

    def loss(W):
        def lay(h):
            y = xnp.sin(h @ W) * 2.0
            refs.append(weakref.ref(_raw(y)))
            return y * y
        out = xgrad.checkpoint(lay)(X)
        out = xgrad.debug.hook(out, lambda g: (gc.collect(),
                               alive_at_backward.append(refs[0]() is not None))[-1] and None)
        return xnp.sum(out)
    xgrad.grad(loss)(W_NP)
    assert alive_at_backward == [False]


@pytest.mark.parametrize("policy", POLICIES)
def test_nested_checkpoints_closing_over_parameters(policy):
    # an outer block of two inner blocks, all closing over W; and a
    # checkpoint_sequential of closures inside a checkpoint
    def net(x, W):
        ck = lambda f: xgrad.checkpoint(f, policy=policy)            # noqa: E731
        lay = ck(lambda h: xnp.tanh(h @ W))
        block = ck(lambda h: lay(lay(h)))
        seq = ck(xgrad.checkpoint_sequential([lambda h: xnp.sin(h @ W)] * 3, 3))
        return xnp.sum(seq(block(block(x))) ** 2)

    def plain(x, W):
        h = x
        for _ in range(4):
            h = xnp.tanh(h @ W)
        for _ in range(3):
            h = xnp.sin(h @ W)
        return xnp.sum(h ** 2)
    for a, e in zip(xgrad.grad(net, (0, 1))(X_NP, W_NP), xgrad.grad(plain, (0, 1))(X_NP, W_NP)):
        assert_close(a, e, rtol=1e-13, atol=1e-14)
    assert_close(xgrad.hessian(net, 1)(X_NP[:1], W_NP), xgrad.hessian(plain, 1)(X_NP[:1], W_NP),
                 rtol=1e-11, atol=1e-12)
    assert_close(xgrad.vmap(xgrad.grad(net, 1), in_axes=(0, None))(X_NP[:, None], W_NP),
                 xgrad.vmap(xgrad.grad(plain, 1), in_axes=(0, None))(X_NP[:, None], W_NP),
                 rtol=1e-12, atol=1e-13)


def test_checkpoint_closure_updated_after_the_call():
    # x[i] = v rebinds the closed-over tracer after the call: the recomputation
    # must see the value the function saw
    x0 = np.array([0.3, -0.7, 1.1])

    def f(p, ck):
        p = p * 1.0
        y = ck(lambda h: xnp.sin(p * h))(x0)
        p[0] = 5.0
        return xnp.sum(y) + xnp.sum(p)
    assert_close(xgrad.grad(lambda p: f(p, xgrad.checkpoint))(x0),
                 xgrad.grad(lambda p: f(p, lambda g: g))(x0), rtol=0, atol=0)


def test_checkpoint_updating_its_closure_raises():
    x0 = np.array([0.3, -0.7, 1.1])

    def f(p):
        p = p * 1.0

        def body(h):
            p[0] = 2.0
            return xnp.sin(p * h)
        return xnp.sum(xgrad.checkpoint(body)(x0)) + xnp.sum(p ** 2)
    with pytest.raises(TypeError, match="updates a traced value it closes over"):
        xgrad.grad(f)(x0)


def test_grad_intermediates_of_a_checkpoint_output():
    x0 = np.array([0.3, -0.7, 1.1])
    W = np.arange(9.0).reshape(3, 3) / 10
    for ck in (lambda w: xgrad.checkpoint(lambda: xnp.sin(w @ x0))(),
               lambda w: xgrad.checkpoint(lambda w: xnp.sin(w @ x0))(w)):
        _, inter = xgrad.debug.grad_intermediates(
            lambda w: xnp.sum(xgrad.debug.tag(ck(w), "h") ** 2))(W)
        assert_close(inter["h"], 2 * np.sin(W @ x0))


def test_checkpoint_returning_a_closed_over_tracer(jax):
    f = lambda W: xnp.sum(xgrad.checkpoint(lambda h: (W, h * W))(X_NP[0])[0] ** 3)
    assert_close(xgrad.grad(f)(W_NP), 3 * W_NP ** 2)


def test_checkpoint_closure_over_constant_array_is_fine(jax):
    # closing over a non-traced array is the supported way today
    W = W_NP
    f = xgrad.checkpoint(lambda h: xnp.tanh(h @ W))
    jf = jax.checkpoint(lambda h: jax.numpy.tanh(h @ W))
    assert_close(xgrad.grad(lambda x: xnp.sum(f(f(x)) ** 2))(X_NP),
                 jax.grad(lambda x: jax.numpy.sum(jf(jf(x)) ** 2))(X_NP))


# --------------------------------------------------------------------------
# the recomputation really happens

def test_checkpoint_call_counts():
    count = [0]

    def inner(x):
        count[0] += 1
        return xnp.sin(xnp.sin(x)) * x
    c = xgrad.checkpoint(inner)
    x = np.array([0.3, 0.5])

    count[0] = 0
    xgrad.grad(lambda x: xnp.sum(c(x)))(x)
    assert count[0] == 2                       # forward once, once more in the backward pass
    count[0] = 0
    xgrad.grad(lambda x: xnp.sum(inner(x)))(x)
    assert count[0] == 1                       # without checkpoint: once

    count[0] = 0
    y, f_vjp = xgrad.vjp(c, x)
    assert count[0] == 1
    f_vjp(np.ones(2))
    # vjp_fn outlives the call: it replays the forward run staged then (what
    # it recomputes is that Program's, not the Python function's)
    assert count[0] == 1

    count[0] = 0
    xgrad.jvp(c, (x,), (x,))
    assert count[0] == 1                       # forward mode has nothing to recompute
    count[0] = 0
    xgrad.vmap(c)(x)
    assert count[0] == 1
    count[0] = 0
    xgrad.grad(lambda x: xnp.sum(xgrad.vmap(c)(x)))(x)
    assert count[0] == 2


class _CountingMatrix(np.ndarray):
    """A numpy array that counts the matmuls it takes part in."""
    calls = 0

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if ufunc is np.matmul:
            type(self).calls += 1
        inputs = [np.asarray(i) if isinstance(i, _CountingMatrix) else i for i in inputs]
        return getattr(ufunc, method)(*inputs, **kwargs)


@pytest.mark.parametrize("policy, expected", [("plain", 10), (None, 15), ("nothing", 15),
                                              ("dots", 10)])
def test_policy_dots_skips_matmul_recomputation(policy, expected):
    # 5 layers, gradient w.r.t. x only: forward 5 matmuls, backward 5 (g @ W.T);
    # checkpoint recomputes 5 more, "dots" replays the saved products instead
    W = W_NP.view(_CountingMatrix)
    lay = layer if policy == "plain" else xgrad.checkpoint(layer, policy=policy)

    def f(x):
        h = x
        for _ in range(5):
            h = lay(h, W)
        return xnp.sum(h)
    _CountingMatrix.calls = 0
    g = xgrad.grad(f)(X_NP)
    assert _CountingMatrix.calls == expected
    _, f_vjp = xgrad.vjp(lambda x: xnp.sum(layer(layer(layer(layer(layer(x, W_NP), W_NP), W_NP),
                                                           W_NP), W_NP)), X_NP)
    assert_close(g, f_vjp(np.asarray(1.0))[0])


@pytest.mark.parametrize("policy", POLICIES)
def test_dots_with_a_product_of_constants_inside(policy):
    # a product that involves no input is computed (and saved) in both runs:
    # the products replayed in the recomputation must stay in step
    C = np.array([[1.0, 2.0], [3.0, 4.0]])
    D = np.array([[0.0, 1.0], [1.0, 0.0]])

    def layer(x):
        return xnp.tanh(xnp.matmul(x, xnp.matmul(C, D)) @ W_NP[:2, :2])
    x = X_NP[:2, :2]
    plain = xgrad.grad(lambda x: xnp.sum(layer(layer(x)) ** 2))(x)
    ck = xgrad.checkpoint(layer, policy=policy)
    assert_close(xgrad.grad(lambda x: xnp.sum(ck(ck(x)) ** 2))(x), plain, rtol=0, atol=0)


def test_dots_with_nested_calls_inside():
    # a nested dots checkpoint and a custom_vjp inside a dots checkpoint: the
    # products of nested calls are neither saved nor replayed by the outer one
    rng = np.random.default_rng(5)
    W, x0 = rng.standard_normal((3, 3)), rng.standard_normal((4, 3))
    cv = xgrad.custom_vjp(lambda a, b: xnp.matmul(a, b))
    cv.defvjp(lambda a, b: (xnp.matmul(xnp.matmul(b, b.T), b.T @ b)[:0].sum() + xnp.matmul(a, b),
                            (a, b)),
              lambda r, g: (xnp.matmul(g, r[1].T), xnp.matmul(r[0].T, g)))

    def layer(x, w):
        h = xgrad.checkpoint(lambda a, b: xnp.sin(xnp.matmul(a, b)), policy="dots")(x, w)
        return xnp.sin(cv(xnp.tanh(h), w))
    grads = [xgrad.grad(lambda x, w: xnp.sum(xgrad.checkpoint(layer, policy=p)(x, w) ** 2),
                        argnums=1)(x0, W) for p in (None, "dots")]
    plain = xgrad.grad(lambda x, w: xnp.sum(layer(x, w) ** 2), argnums=1)(x0, W)
    assert_close(grads[0], plain, rtol=1e-13, atol=1e-14)
    assert_close(grads[1], plain, rtol=1e-13, atol=1e-14)


def test_checkpoint_does_not_keep_internals_until_backward():
    # weakref to an intermediate made inside the checkpointed function during the
    # forward pass: with checkpoint it is gone when the backward pass starts;
    # without, the tape holds it until its record is processed
    X = RNG.normal(size=2000)
    for ckpt in (False, True):
        refs, alive_at_backward = [], []

        def inner(x):
            y = xnp.sin(x) * 2.0                 # y * y's rule needs y in the backward pass
            refs.append(weakref.ref(_raw(y)))
            return y * y
        fn = xgrad.checkpoint(inner) if ckpt else inner

        def loss(x):
            out = fn(x)
            gc.collect()
            out = xgrad.debug.hook(out, lambda g: alive_at_backward.append(refs[0]() is not None))
            return xnp.sum(out)
        xgrad.grad(loss)(X)
        assert alive_at_backward == [not ckpt]
        assert len(refs) == (2 if ckpt else 1)


@pytest.mark.parametrize("kind", ["plain", "checkpoint", "dots", "vjp_fn"])
def test_finished_grad_keeps_nothing_alive(kind):
    refs = []
    X = RNG.normal(size=(50, 40))

    def big(x):
        y = xnp.sin(x) * 2.0                   # the big intermediate, which y * y's rule saves
        refs.append(weakref.ref(_raw(y)))
        return xnp.sum(y * y @ np.ones((40, 3)))
    if kind == "plain":
        xgrad.grad(big)(X)
    elif kind == "checkpoint":
        xgrad.grad(xgrad.checkpoint(big))(X)
    elif kind == "dots":
        xgrad.grad(xgrad.checkpoint(big, policy="dots"))(X)
    else:
        out, f_vjp = xgrad.vjp(big, X)
        f_vjp(np.asarray(1.0))
        assert refs[0]() is not None           # vjp_fn may be called again: it keeps the tape
        del f_vjp, out
    gc.collect()
    assert refs and all(r() is None for r in refs)


def test_tanh_vjp_keeps_only_its_output():
    # elementwise VJPs keep one array (their derivative), not the op's input and output
    refs, alive = [], []

    def f(x):
        c = x @ W_NP                             # tanh's input, needed by nothing else
        refs.append(weakref.ref(_raw(c)))
        y = xnp.tanh(c)
        del c
        return xnp.sum(xgrad.debug.hook(y, lambda g: alive.append(refs[0]() is not None)))
    g = xgrad.grad(f)(X_NP)
    assert_close(g, (1 - np.tanh(X_NP @ W_NP) ** 2) @ W_NP.T)
    assert alive == [False]


def test_vjp_of_checkpoint_keeps_the_closed_over_weights(jax):
    """vjp_fn recomputes from what the forward run read: a later write into a
    closed-over weight does not change its cotangent (JAX's arrays are
    immutable)."""
    W = np.array([[1.0, 0.5], [-0.3, 2.0]])
    W0 = W.copy()
    x = np.array([0.7, -0.2])
    for policy in (None, "dots"):
        f = xgrad.checkpoint(lambda x: xnp.sum(xnp.tanh(W @ x)), policy=policy)
        _, f_vjp = xgrad.vjp(f, x)
        W[...] = 0.0
        got = f_vjp(np.asarray(1.0))[0]
        W[...] = W0
        jnp = jax.numpy
        exp = jax.grad(lambda x: jnp.sum(jnp.tanh(W0 @ x)))(x)
        assert_close(got, exp, rtol=1e-14, atol=1e-15)


def test_linearize_of_checkpoint_returns_plain_outputs(jax):
    f = xgrad.checkpoint(lambda x: xnp.sin(x) * x)
    x = np.array([1.0, 2.0])
    for fun in (f, lambda x: f(x) * x):
        out, f_jvp = xgrad.linearize(fun, x)
        assert type(out) is np.ndarray
        jf = (lambda x: jax.numpy.sin(x) * x) if fun is f else \
            (lambda x: jax.numpy.sin(x) * x * x)
        j_out, j_t = jax.jvp(jf, (x,), (np.ones(2),))
        assert_close(out, j_out, rtol=1e-15, atol=0)
        assert_close(f_jvp(np.ones(2)), j_t, rtol=1e-14, atol=1e-15)
