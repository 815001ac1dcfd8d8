"""Guarantee: derivative functions own their inputs.

``vjp``'s ``vjp_fn`` and ``linearize``'s ``f_jvp`` give the same numbers
after the caller writes into its arguments, into the returned outputs or
into arrays the function closes over (JAX's arrays are immutable; here the
derivative functions keep copies of what they need). Hooks see a copy of
the cotangent, so writing into it changes nothing else.
"""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from helpers import assert_close, from_np, to_np

W = np.array([[1.0, 2.0], [3.0, 4.0]])


def _fun(ns, W):
    def f(x):
        return ns.sin(x) * x, ns.matmul(W, x), ns.exp(x)
    return f


def _write(what, x, out, W_):
    if what == "argument":
        x[:] = 0.0
    elif what == "outputs":
        for o in out:
            o[:] = 5.0
    else:
        W_[:] = 0.0


@pytest.mark.parametrize("what", ["argument", "outputs", "closure"])
def test_vjp_fn_unaffected_by_later_writes(jax, what):
    W_ = W.copy()
    x = np.array([0.5, -1.0])
    x0 = x.copy()
    out, f_vjp = xgrad.vjp(_fun(xnp, W_), x)
    g = tuple(np.array([1.0, -2.0]) for _ in range(3))
    _write(what, x, out, W_)
    got = f_vjp(g)[0]
    _, j_vjp = jax.vjp(_fun(jax.numpy, W), x0)
    assert_close(got, j_vjp(g)[0])
    assert_close(f_vjp(g)[0], got)            # and again


@pytest.mark.parametrize("what", ["argument", "outputs", "closure"])
def test_f_jvp_unaffected_by_later_writes(jax, what):
    W_ = W.copy()
    x = np.array([0.5, -1.0])
    x0 = x.copy()
    out, f_jvp = xgrad.linearize(_fun(xnp, W_), x)
    t = np.array([0.3, 0.7])
    _write(what, x, out, W_)
    got = f_jvp(t)
    want = jax.jvp(_fun(jax.numpy, W), (x0,), (t,))[1]
    for a, b in zip(got, want):
        assert_close(a, b)


def test_vjp_argument_write_every_backend(xp):
    x = from_np(xp, np.array([0.5, -1.0]))
    out, f_vjp = xgrad.vjp(lambda x: xnp.sum(xnp.sin(x) * x), x)
    ct = xnp.ones_like(out)
    before = to_np(f_vjp(ct)[0])
    x[0] = 0.0
    assert np.array_equal(to_np(f_vjp(ct)[0]), before)
    assert_close(before, np.sin([0.5, -1.0]) + np.array([0.5, -1.0]) * np.cos([0.5, -1.0]))


def test_hook_sees_a_copy():
    # a hook that writes into its cotangent changes the gradient it is
    # given (as if it returned the written array) and nothing else
    from xgrad import debug

    def f(x):
        y = x * 2.0
        z = debug.hook(y, lambda g: g.__setitem__(0, 100.0))
        return xnp.sum(z + y)
    assert_close(xgrad.grad(f)(np.array([1.0, 2.0])), np.array([202.0, 4.0]))


def test_vjp_output_is_a_copy_of_the_identity():
    # f(x) = x: the returned output is not the caller's buffer
    x = np.array([1.0, 2.0])
    out, f_vjp = xgrad.vjp(lambda x: x, x)
    out[0] = 9.0
    assert x[0] == 1.0
    assert_close(f_vjp(np.array([1.0, 1.0]))[0], np.ones(2))


def test_grad_and_jacrev_take_no_copies():
    # grad uses its tape before it returns; jacrev's vjp_fn never escapes:
    # closed-over arrays keep their identity (nothing is copied)
    seen = []

    class Spy(np.ndarray):
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            seen.append(any(i is spy for i in inputs))
            inputs = [np.asarray(i) if isinstance(i, Spy) else i for i in inputs]
            return getattr(ufunc, method)(*inputs, **kwargs)
    spy = np.array([2.0, 3.0]).view(Spy)
    xgrad.grad(lambda x: xnp.sum(xnp.multiply(x, spy)))(np.ones(2))
    xgrad.jacrev(lambda x: xnp.multiply(x, spy))(np.ones(2))
    assert seen and all(seen)


def test_custom_vjp_fwd_may_return_a_creation_constant():
    # fwd builds xnp.ones inside grad (a constant of the trace, with no
    # derivative): accepted, as jax accepts it, and the gradient is exact
    def f(x):
        return {"s": xnp.sin(x), "ones": xnp.ones(3, dtype=x.dtype)}
    cv = xgrad.custom_vjp(f)
    cv.defvjp(lambda x: (f(x), (x,)), lambda res, g: (g["s"] * xnp.cos(res[0]),))

    def h(x):
        out = cv(x)
        return xnp.sum(out["s"]) + xnp.sum(out["ones"] * x)
    x = np.array([0.5, 1.0, 2.0])
    assert_close(xgrad.grad(h)(x), np.cos(x) + 1.0)
    out, f_vjp = xgrad.vjp(cv, x)
    assert_close(out["ones"], np.ones(3))
    assert_close(f_vjp({"s": np.ones(3), "ones": np.ones(3)})[0], np.cos(x))
    assert_close(xgrad.hessian(h)(x), np.diag(-np.sin(x)))


def test_eager_call_and_loops_hand_over_read_only_views_and_return_copies():
    # outside any transform, a custom function, a checkpointed one and a
    # lax loop get the caller's numpy arrays read-only (a write raises, as
    # into a JAX array) and an argument passed through comes back a copy
    x = np.array([1.0, 2.0])

    def writer(v):
        v[0] = 5.0
        return v
    cj = xgrad.custom_jvp(writer)
    cj.defjvp(lambda p, t: (writer(*p), t[0]))
    for call in (lambda: xgrad.checkpoint(writer)(x), lambda: cj(x),
                 lambda: xgrad.lax.fori_loop(0, 1, lambda i, v: writer(v), x),
                 lambda: xgrad.lax.scan(lambda c, r: (c, writer(r)), 0.0, x[None])):
        with pytest.raises(ValueError, match="read-only"):
            call()
    assert np.array_equal(x, [1.0, 2.0])
    for out in (xgrad.checkpoint(lambda v: v)(x), xgrad.lax.fori_loop(0, 2, lambda i, v: v, x),
                xgrad.lax.while_loop(lambda v: False, lambda v: v, x)):
        out[0] = 9.0
        assert np.array_equal(x, [1.0, 2.0])
