"""Nesting of transforms: perturbation confusion, high orders, closures over
outer tracers, fan-out, constant functions, hvp against hessian @ v."""
import math
import threading

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from helpers import assert_close, from_np


def test_perturbation_confusion():
    f = lambda x: x * xgrad.grad(lambda y: x + y)(1.0)
    assert float(xgrad.grad(f)(1.0)) == 1.0


def test_perturbation_confusion_forward():
    # jvp inside jvp: d/dx [x * d/dy (x + y)] = 1
    def inner(x):
        return xgrad.jvp(lambda y: x + y, (1.0,), (1.0,))[1]
    out = xgrad.jvp(lambda x: x * inner(x), (1.0,), (1.0,))[1]
    assert float(out) == 1.0


def test_perturbation_confusion_mixed():
    # reverse outside, forward inside, and the other way round
    f = lambda x: x * xgrad.jvp(lambda y: x * y, (2.0,), (1.0,))[1]   # x * x
    assert float(xgrad.grad(f)(3.0)) == 6.0
    g = lambda x: x * xgrad.grad(lambda y: x * y)(2.0)                  # x * x
    assert float(xgrad.jvp(g, (3.0,), (1.0,))[1]) == 6.0


@pytest.mark.parametrize("order", [1, 2, 3, 4, 5, 6])
def test_polynomial_orders_reverse(order):
    # d^k/dx^k x^6 = 6!/(6-k)! x^(6-k)
    f = lambda x: x ** 6
    for _ in range(order):
        f = xgrad.grad(f)
    x = 1.3
    expected = math.factorial(6) / math.factorial(6 - order) * x ** (6 - order)
    assert abs(float(f(x)) - expected) <= 1e-12 * abs(expected)


def _nth(f, combo):
    for mode in combo:
        if mode == "rev":
            f = xgrad.grad(f)
        else:
            f = (lambda g: lambda x: xgrad.jvp(g, (x,), (1.0,))[1])(f)
    return f


@pytest.mark.parametrize("combo", [("rev", "fwd", "rev", "fwd"), ("fwd", "fwd", "fwd", "fwd"),
                                   ("fwd", "rev", "rev", "fwd"), ("rev", "rev", "fwd", "fwd")])
def test_order_four_any_mix(combo):
    f = lambda x: xnp.sin(x) * x ** 2
    # d^4/dx^4 [x^2 sin x] = x^2 sin x - 8 x cos x - 12 sin x
    x = 0.7
    expected = x ** 2 * math.sin(x) - 8 * x * math.cos(x) - 12 * math.sin(x)
    assert abs(float(_nth(f, combo)(x)) - expected) < 1e-10


def test_fourth_order_jacobians():
    f = lambda x: xnp.sum(x ** 4)
    x = np.array([1.0, 2.0])
    h4 = xgrad.jacfwd(xgrad.jacrev(xgrad.hessian(f)))(x)
    assert h4.shape == (2, 2, 2, 2)
    expected = np.zeros((2, 2, 2, 2))
    expected[0, 0, 0, 0] = expected[1, 1, 1, 1] = 24.0
    assert_close(h4, expected)


def test_closure_over_outer_tracer():
    def f(x):
        g = lambda y: xnp.sin(x * y)
        return xgrad.grad(g)(2.0)          # x cos(2x)
    x = 0.4
    # d/dx [x cos 2x] = cos 2x - 2x sin 2x
    assert abs(float(xgrad.grad(f)(x)) - (math.cos(2 * x) - 2 * x * math.sin(2 * x))) < 1e-14


def test_fan_out_and_reuse():
    def f(x):
        a = x * x
        return a * a + a + x          # x^4 + x^2 + x
    assert float(xgrad.grad(f)(2.0)) == 4 * 8 + 4 + 1


def test_constant_function_gives_zeros(xp):
    x = from_np(xp, np.ones((2, 3), dtype=np.float32))
    g = xgrad.grad(lambda x: xnp.sum(xnp.ones((2,))))(x)
    assert g.shape == (2, 3) and g.dtype == x.dtype
    assert_close(g, np.zeros((2, 3)))


def test_hvp_equals_hessian_times_v(xp, rng):
    A = rng.normal(size=(4, 4))
    # NB: xnp.matmul, not `A @ x`: array_api_strict arrays raise instead of deferring to
    # the traced operand (numpy and cupy arrays defer)
    f = lambda x: xnp.sum(xnp.tanh(xnp.matmul(from_np(xp, A), x)) ** 2) + xnp.sum(x ** 3)
    x = from_np(xp, rng.normal(size=4))
    v = from_np(xp, rng.normal(size=4))
    H = xgrad.hessian(f)(x)
    assert_close(xgrad.hvp(f, (x,), (v,)), H @ v, rtol=1e-12, atol=1e-12)
    assert_close(H, H.T, rtol=1e-12, atol=1e-14)


def test_threads_do_not_mix_tapes():
    results = {}
    barrier = threading.Barrier(2)

    def work(name, p):
        def f(x):
            barrier.wait()              # both threads are tracing at once
            y = x ** p
            barrier.wait()
            return y
        results[name] = [float(xgrad.grad(f)(2.0)) for _ in range(3)]

    t1 = threading.Thread(target=work, args=("a", 2))
    t2 = threading.Thread(target=work, args=("b", 3))
    t1.start()
    t2.start()
    t1.join()
    t2.join()
    assert results == {"a": [4.0] * 3, "b": [12.0] * 3}


def test_leaked_tracer_raises():
    box = []
    xgrad.grad(lambda x: (box.append(x), x * 1.0)[1])(1.0)
    with pytest.raises(xgrad.LeakedTracerError):
        xnp.sin(box[0])


def test_vjp_fn_reusable_and_mutation_free(rng):
    x = rng.normal(size=3)
    x0 = x.copy()
    ct = np.ones(3)
    out, f_vjp = xgrad.vjp(lambda x: xnp.sin(x) * x, x)
    a = f_vjp(ct)[0]
    b = f_vjp(ct)[0]
    assert_close(a, b)
    assert_close(a, np.cos(x) * x + np.sin(x))
    assert np.array_equal(x, x0) and np.array_equal(ct, np.ones(3))


# gathers from one array: the engine sums their cotangents lazily (one concat
# for slices that tile the leading axis, a chain of scatters otherwise)
_GATHER_PATTERNS = {
    "tiling slices": lambda x: [x[0:3], x[3:5], x[5:9]],
    "slices with gaps": lambda x: [x[1:3], x[6:8]],
    "unsorted, negative bounds": lambda x: [x[-4:], x[:2], x[2:5]],
    "overlapping slices": lambda x: [x[0:6], x[4:9]],
    "strided and integer": lambda x: [x[::2], x[3], x[1:4]],
    "empty reversed slices": lambda x: [x[6:8], x[5:2], x[-1:0], x[0:3]],
    "gathers plus a dense use": lambda x: [x[0:4], x, x[4:9]],
}


def _gather_fun(ns, pattern, A):
    def f(x):
        parts = _GATHER_PATTERNS[pattern](x)
        total = 0.0
        for k, p in enumerate(parts):
            total = total + ns.sum(ns.tanh(p * (k + 1.0)) ** 2)
        return total + ns.sum(ns.sin(ns.matmul(A, parts[0][:2] * parts[-1][:2])))
    return f


@pytest.mark.parametrize("pattern", sorted(_GATHER_PATTERNS))
def test_gathers_from_one_array_vs_jax(jax, rng, pattern):
    jnp = jax.numpy
    A = rng.normal(size=(3, 2))
    x, v = rng.normal(size=9), rng.normal(size=9)
    X = rng.normal(size=(5, 9))
    f, jf = _gather_fun(xnp, pattern, A), _gather_fun(jnp, pattern, jnp.asarray(A))
    assert_close(xgrad.grad(f)(x), jax.grad(jf)(x), rtol=1e-12, atol=1e-13)
    assert_close(xgrad.hvp(f, (x,), (v,)), jax.jvp(jax.grad(jf), (x,), (v,))[1],
                 rtol=1e-12, atol=1e-13)
    assert_close(xgrad.hessian(f)(x), jax.hessian(jf)(x), rtol=1e-12, atol=1e-13)
    assert_close(xgrad.vmap(xgrad.grad(f))(X), jax.vmap(jax.grad(jf))(X),
                 rtol=1e-12, atol=1e-13)
    # the vjp_fn of a gather may be called again (the tape is kept)
    _, f_vjp = xgrad.vjp(lambda x: _GATHER_PATTERNS[pattern](x)[0], x)
    g0 = rng.normal(size=_GATHER_PATTERNS[pattern](x)[0].shape)
    _, j_vjp = jax.vjp(lambda x: _GATHER_PATTERNS[pattern](x)[0], x)
    for _ in range(2):
        assert_close(f_vjp(g0)[0], j_vjp(g0)[0], rtol=0, atol=0)


def test_gathers_on_strict_backend(xp, rng):
    # slices of a flat parameter vector, as in the hvp of a flattened model
    x = from_np(xp, rng.normal(size=7))
    f = lambda x: xnp.sum(x[0:3] ** 2) + xnp.sum(x[3:7] ** 3) + xnp.sum(x[2:4])
    xn = np.asarray(x)
    expect = np.concatenate([2 * xn[:3], 3 * xn[3:] ** 2]) + np.isin(np.arange(7), [2, 3])
    assert_close(xgrad.grad(f)(x), expect, rtol=1e-12, atol=1e-13)


def test_concat_forward_mode_of_several_tangents_vs_jax(jax, rng):
    jnp = jax.numpy
    a, b, c = rng.normal(size=(2, 3)), rng.normal(size=(4, 3)), rng.normal(size=(1, 3))
    ta, tb = rng.normal(size=(2, 3)), rng.normal(size=(4, 3))

    def f(ns):
        return lambda a, b: ns.sin(ns.concat([a * 2.0, ns.asarray(c), ns.exp(b)], axis=0))
    out, t = xgrad.jvp(f(xnp), (a, b), (ta, tb))
    jout, jt = jax.jvp(f(jnp), (a, b), (ta, tb))
    assert_close(out, jout, rtol=1e-14, atol=0)
    assert_close(t, jt, rtol=1e-13, atol=1e-14)
    assert_close(xgrad.jacfwd(f(xnp), argnums=(0, 1))(a, b)[1],
                 jax.jacfwd(f(jnp), argnums=(0, 1))(a, b)[1], rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("order", ["gather last", "gather first"])
@pytest.mark.parametrize("call", ["checkpoint", "custom_vjp"])
def test_gather_and_call_cotangents_on_one_array(rng, order, call):
    # a lazy gather cotangent meets the dense cotangent a call record returns
    if call == "checkpoint":
        c = xgrad.checkpoint(lambda x: xnp.sin(x))
    else:
        c = xgrad.custom_vjp(lambda x: xnp.sin(x))
        c.defvjp(lambda x: (xnp.sin(x), x), lambda x, g: (xnp.cos(x) * g,))
    if order == "gather last":
        f = lambda x: xnp.sum(c(x)) + xnp.sum(x[1:3] ** 2)        # noqa: E731
    else:
        f = lambda x: xnp.sum(c(x[1:3] ** 2 + x[:2]))              # noqa: E731
    x = rng.normal(size=4)
    assert_close(xgrad.grad(f)(x), xgrad.jacrev(f)(x), rtol=1e-14, atol=1e-15)
    if order == "gather last":
        assert_close(xgrad.grad(f)(x), np.cos(x) + 2 * x * np.isin(np.arange(4), [1, 2]))
    else:
        h = np.cos(x[1:3] ** 2 + x[:2])
        expect = np.zeros(4)
        expect[1:3] += 2 * x[1:3] * h
        expect[:2] += h
        assert_close(xgrad.grad(f)(x), expect)
