"""linearize: fun runs once, f_jvp replays only the staged linear part; the
same numbers as jvp and jax.linearize, composed with vmap and grad, and the
errors of a bad tangent."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from helpers import assert_close, from_np


def _custom_sin():
    f = xgrad.custom_jvp(lambda x: xnp.sin(x))
    f.defjvp(lambda p, t: (xnp.sin(p[0]), xnp.cos(p[0]) * t[0]))
    return f


def _custom_vjp_square():
    f = xgrad.custom_vjp(lambda x: x * x)
    f.defvjp(lambda x: (x * x, x), lambda x, g: (2.0 * x * g,))
    return f


_FUNS = {
    "elementwise": lambda ns: lambda x: ns.tanh(x) * ns.exp(-x * x) + ns.sin(x) ** 3,
    "matmul and reductions": lambda ns: lambda x: ns.sum(ns.tanh(ns.reshape(x, (2, 3)) @
                                                          ns.reshape(x, (3, 2))), axis=0),
    "indexing and concat": lambda ns: lambda x: ns.concat([x[::2] * x[1::2], x[:1] ** 2, x], axis=0),
    "where and maximum": lambda ns: lambda x: ns.where(x > 0, ns.log1p(x * x), ns.maximum(x, -0.5)),
    "linalg": lambda ns: lambda x: ns.linalg.solve(ns.reshape(x[:4], (2, 2)) + 3.0 * ns.eye(2),
                                                  x[4:]),
    "scalar output": lambda ns: lambda x: ns.sum(ns.cos(x) * x),
}


@pytest.mark.parametrize("name", sorted(_FUNS))
def test_linearize_vs_jvp_and_jax(jax, rng, name):
    x, t = rng.normal(size=6), rng.normal(size=6)
    f, jf = _FUNS[name](xnp), _FUNS[name](jax.numpy)
    y, f_jvp = xgrad.linearize(f, x)
    jy, jf_jvp = jax.linearize(jf, x)
    assert_close(y, jy, rtol=1e-13, atol=1e-14)
    for tt in (t, 2.0 * t - 1.0):
        assert_close(f_jvp(tt), jf_jvp(tt), rtol=1e-12, atol=1e-13)
        assert_close(f_jvp(tt), xgrad.jvp(f, (x,), (tt,))[1], rtol=0, atol=0)


@pytest.mark.parametrize("kind", ["custom_jvp", "custom_vjp", "checkpoint"])
def test_linearize_through_call_primitives(rng, kind):
    inner = {"custom_jvp": _custom_sin(), "custom_vjp": _custom_vjp_square(),
             "checkpoint": xgrad.checkpoint(lambda x: xnp.sin(x) * x)}[kind]
    f = lambda x: xnp.tanh(inner(x * 1.5)) * x          # noqa: E731
    x, t = rng.normal(size=5), rng.normal(size=5)
    _, f_jvp = xgrad.linearize(f, x)
    assert_close(f_jvp(t), xgrad.jvp(f, (x,), (t,))[1], rtol=1e-14, atol=1e-15)


def test_linearize_checkpoint_closing_over_the_input(rng):
    # the checkpoint's rule stages a call, finds it closes over the input's
    # tracer and redoes it inline: the staged equation is dead
    x, t = rng.normal(size=3), rng.normal(size=3)
    fs = [lambda x: xgrad.checkpoint(lambda y: xnp.sin(y) * x)(x ** 2),
          lambda x: xgrad.vmap(xgrad.checkpoint(lambda r: xnp.sin(r * x)))(xnp.stack([x, 2 * x])),
          lambda x: xgrad.grad(lambda y: xnp.sum(xgrad.checkpoint(lambda r: xnp.sin(r * x * y))(y)))(x)]
    for f in fs:
        _, f_jvp = xgrad.linearize(f, x)
        assert_close(f_jvp(t), xgrad.jvp(f, (x,), (t,))[1], rtol=1e-14, atol=1e-15)


def test_fun_runs_once_and_f_jvp_does_no_primal_work(rng):
    calls = [0]

    def f(x):
        calls[0] += 1
        return xnp.sin(x) * x
    x, t = rng.normal(size=3), rng.normal(size=3)
    _, f_jvp = xgrad.linearize(f, x)
    assert calls[0] == 1
    f_jvp(t)
    f_jvp(2 * t)
    assert calls[0] == 1
    assert_close(f_jvp(t), (np.cos(x) * x + np.sin(x)) * t)


def test_linearize_pytrees_several_primals_and_integers(rng):
    p = {"w": rng.normal(size=(2, 3)), "b": rng.normal(size=3)}
    x = rng.normal(size=2)
    k = np.arange(3)

    def f(p, x, k):
        h = xnp.tanh(x @ p["w"] + p["b"])
        return {"h": h * k, "s": (xnp.sum(h), x * 2.0)}
    tp = {"w": rng.normal(size=(2, 3)), "b": rng.normal(size=3)}
    tx = rng.normal(size=2)
    out, f_jvp = xgrad.linearize(f, p, x, k)
    got = f_jvp(tp, tx, None)              # an integer primal has no tangent
    exp_out, exp = xgrad.jvp(f, (p, x, k), (tp, tx, None))
    for a, e in zip(xgrad.tree.leaves((out, got)), xgrad.tree.leaves((exp_out, exp))):
        assert_close(a, e, rtol=0, atol=0)


def test_f_jvp_composes_with_vmap_and_grad(jax, rng):
    A = rng.normal(size=(3, 4))
    f = lambda x: xnp.tanh(xnp.matmul(A, x)) * xnp.sum(x ** 2)   # noqa: E731
    jf = lambda x: jax.numpy.tanh(A @ x) * jax.numpy.sum(x ** 2)  # noqa: E731
    x = rng.normal(size=4)
    _, f_jvp = xgrad.linearize(f, x)
    T = rng.normal(size=(5, 4))
    assert_close(xgrad.vmap(f_jvp)(T), T @ np.asarray(jax.jacfwd(jf)(x)).T, rtol=1e-12, atol=1e-13)
    assert_close(xgrad.jacfwd(f_jvp)(T[0]), jax.jacfwd(jf)(x), rtol=1e-12, atol=1e-13)
    # the transpose of the linear map is the VJP
    g = rng.normal(size=3)
    assert_close(xgrad.grad(lambda t: xnp.sum(f_jvp(t) * g))(T[0]),
                 jax.vjp(jf, x)[1](g)[0], rtol=1e-12, atol=1e-13)


def test_linearize_inside_grad_vs_jax(jax, rng):
    # the residuals are traced by the outer grad: d/ds of <J(x s) t, g>
    x, t, g = rng.normal(size=4), rng.normal(size=4), rng.normal(size=4)
    f = lambda x: xnp.sin(x) * xnp.exp(x[0] * x)       # noqa: E731
    jnp = jax.numpy
    jf = lambda x: jnp.sin(x) * jnp.exp(x[0] * x)      # noqa: E731

    def outer(s):
        return xnp.sum(xgrad.linearize(f, x * s)[1](t) * g)

    def jouter(s):
        return jnp.sum(jax.linearize(jf, x * s)[1](t) * g)
    assert_close(xgrad.grad(outer)(0.7), jax.grad(jouter)(0.7), rtol=1e-12, atol=1e-13)


def test_linearize_on_strict_backend(xp, rng):
    x = from_np(xp, rng.normal(size=3))
    t = from_np(xp, rng.normal(size=3))
    y, f_jvp = xgrad.linearize(lambda x: xnp.sin(x) * x, x)
    xn, tn = np.asarray(x), np.asarray(t)
    assert_close(f_jvp(t), (np.cos(xn) * xn + np.sin(xn)) * tn)


def test_f_jvp_errors(rng):
    x = rng.normal(size=3)
    _, f_jvp = xgrad.linearize(lambda x, y: x * y, x, x)
    with pytest.raises(TypeError, match="expected 2 tangent"):
        f_jvp(x)
    with pytest.raises(ValueError, match="f_jvp: tangents.* shape"):
        f_jvp(x, x[:2])
    with pytest.raises(TypeError, match="f_jvp: tangents.* dtype"):
        f_jvp(x, x.astype(np.float32))
    with pytest.raises(TypeError, match="structure"):
        f_jvp(x, (x,))
