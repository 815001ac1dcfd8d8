"""copy and pickle of traced values: ``copy.copy`` and
``copy.deepcopy`` of a tracer, or of a pytree holding tracers, give a tracer
of the same trace with the same derivative data, under every transform; a
copy is a new object (``y[0] = 5.`` leaves ``x`` alone); pickling a traced
value raises a TypeError that names it and says what to do instead."""
import copy
import pickle

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad.core import Tracer

X = np.array([0.3, -0.8, 1.1])
V = np.array([0.5, 1.5, -2.0])
B = np.array([[0.3, -0.8, 1.1], [0.7, 0.2, -0.4]])

COPIERS = {"copy": copy.copy, "deepcopy": copy.deepcopy, "none": lambda t: t}


def make(ns, cp):
    """A scalar function that copies its argument and a pytree holding
    traced values midway, then uses the copies (``cp`` is the identity for
    the reference)."""
    def f(x):
        y = ns.sin(x) * x
        tree = cp({"a": [y, x ** 2], "b": (ns.cos(x),)})
        z = cp(y)
        return ns.sum(z * tree["a"][1] + tree["b"][0] * ns.exp(cp(x)) + tree["a"][0] ** 3)
    return f


def make_vec(ns, cp):
    def f(x):
        t = cp([ns.tanh(x), x])
        return t[0] * cp(t[1]) + ns.sin(cp(x)) ** 2
    return f


def _jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


@pytest.mark.parametrize("how", ["copy", "deepcopy"])
def test_copy_under_grad_jvp_vmap_hessian_jacfwd_laplacian(how):
    cp, ref = COPIERS[how], COPIERS["none"]
    f, f0 = make(xnp, cp), make(xnp, ref)
    g, g0 = make_vec(xnp, cp), make_vec(xnp, ref)
    results = {
        "grad": (xgrad.grad(f)(X), xgrad.grad(f0)(X)),
        "jvp": (xgrad.jvp(f, (X,), (V,)), xgrad.jvp(f0, (X,), (V,))),
        "vmap": (xgrad.vmap(f)(B), xgrad.vmap(f0)(B)),
        "vmap-grad": (xgrad.vmap(xgrad.grad(f))(B), xgrad.vmap(xgrad.grad(f0))(B)),
        "hessian": (xgrad.hessian(f)(X), xgrad.hessian(f0)(X)),
        "jacfwd": (xgrad.jacfwd(g)(X), xgrad.jacfwd(g0)(X)),
        "jacrev": (xgrad.jacrev(g)(X), xgrad.jacrev(g0)(X)),
        "laplacian": (xgrad.laplacian(f)(X), xgrad.laplacian(f0)(X)),
    }
    for name, (a, b) in results.items():
        for u, w in zip(xgrad.tree.leaves(a), xgrad.tree.leaves(b)):
            np.testing.assert_allclose(np.asarray(u), np.asarray(w), rtol=1e-13, atol=1e-14,
                                       err_msg=name)
    # the derivative is really there: the Hessian of this f is not diagonal-free
    assert np.abs(np.asarray(results["hessian"][0])).max() > 0.5


def test_copy_against_jax():
    jax = _jax()
    jnp = jax.numpy
    f, fj = make(xnp, copy.deepcopy), make(jnp, lambda t: t)
    g, gj = make_vec(xnp, copy.copy), make_vec(jnp, lambda t: t)
    np.testing.assert_allclose(xgrad.grad(f)(X), jax.grad(fj)(X), rtol=1e-12)
    np.testing.assert_allclose(xgrad.hessian(f)(X), jax.hessian(fj)(X), rtol=1e-12)
    np.testing.assert_allclose(xgrad.jacfwd(g)(X), jax.jacfwd(gj)(X), rtol=1e-12)
    np.testing.assert_allclose(xgrad.vmap(xgrad.grad(f))(B), jax.vmap(jax.grad(fj))(B),
                               rtol=1e-12)
    lap_j = jnp.trace(jax.hessian(fj)(X))
    np.testing.assert_allclose(xgrad.laplacian(f)(X), lap_j, rtol=1e-12)
    # jax's own deepcopy of a tracer is the same value with the same derivative
    np.testing.assert_allclose(jax.grad(make(jnp, copy.deepcopy))(X), jax.grad(fj)(X),
                               rtol=1e-12)


@pytest.mark.parametrize("how", ["copy", "deepcopy"])
def test_copy_under_checkpoint(how):
    cp = COPIERS[how]

    def body(x):
        t = cp({"x": x, "s": [xnp.sin(x)]})
        return xnp.tanh(t["x"]) * cp(t["s"][0])

    f = lambda x: xnp.sum(xgrad.checkpoint(body)(x) ** 2)
    f0 = lambda x: xnp.sum((xnp.tanh(x) * xnp.sin(x)) ** 2)
    np.testing.assert_allclose(xgrad.grad(f)(X), xgrad.grad(f0)(X), rtol=1e-13)
    np.testing.assert_allclose(xgrad.hessian(f)(X), xgrad.hessian(f0)(X), rtol=1e-12)

    # a checkpointed function that copies a traced value it closes over
    def outer(w):
        inner = xgrad.checkpoint(lambda x: xnp.sin(x * cp(w)), policy="dots")
        return xnp.sum(inner(X) * w)
    outer0 = lambda w: xnp.sum(xnp.sin(X * w) * w)
    np.testing.assert_allclose(xgrad.grad(outer)(V), xgrad.grad(outer0)(V), rtol=1e-13)
    np.testing.assert_allclose(xgrad.hessian(outer)(V), xgrad.hessian(outer0)(V), rtol=1e-12)
    # d/dw_i [sin(X_i w_i) w_i] = X_i cos(X_i w_i) w_i + sin(X_i w_i)
    np.testing.assert_allclose(xgrad.grad(outer)(V), X * np.cos(X * V) * V + np.sin(X * V),
                               rtol=1e-13)


@pytest.mark.parametrize("how", ["copy", "deepcopy"])
@pytest.mark.parametrize("transform", ["grad", "jvp", "vmap"])
def test_copy_is_a_tracer_of_the_same_trace(how, transform):
    cp = COPIERS[how]
    seen = {}

    def f(x):
        y = x * 2.0
        c = cp(y)
        seen["ok"] = (type(c) is type(y) and c is not y and c._trace is y._trace
                      and c._data is y._data if transform != "jvp" else
                      type(c) is type(y) and c is not y and c._trace is y._trace)
        seen["fresh"] = c.primal is not y.primal if how == "deepcopy" else c.primal is y.primal
        np.testing.assert_array_equal(np.asarray(c.primal), np.asarray(y.primal))
        both = cp([y, y])                    # deepcopy keeps sharing (memo)
        seen["shared"] = both[0] is both[1] if how == "deepcopy" else both[0] is y
        return xnp.sum(c * c)

    if transform == "grad":
        np.testing.assert_allclose(xgrad.grad(f)(X), 8.0 * X, rtol=1e-15)
    elif transform == "jvp":
        _, t = xgrad.jvp(f, (X,), (V,))
        np.testing.assert_allclose(t, np.sum(8.0 * X * V), rtol=1e-15)
    else:
        np.testing.assert_allclose(xgrad.vmap(f)(B), np.sum(4.0 * B * B, axis=1), rtol=1e-15)
    assert seen == {"ok": True, "fresh": True, "shared": True}


@pytest.mark.parametrize("how", ["copy", "deepcopy"])
def test_setitem_on_a_copy_leaves_the_original_alone(how):
    cp = COPIERS[how]
    kept = {}

    def f(x):
        y = cp(x)
        y[0] = 5.0
        kept["x"] = np.asarray(x.primal).copy()
        kept["y"] = np.asarray(y.primal).copy()
        return xnp.sum(x * 2.0) + xnp.sum(y * y)

    g = xgrad.grad(f)(X)
    np.testing.assert_array_equal(kept["x"], X)
    np.testing.assert_array_equal(kept["y"], [5.0, X[1], X[2]])
    # d/dx [2 sum(x) + 25 + x1^2 + x2^2]
    np.testing.assert_allclose(g, [2.0, 2.0 + 2 * X[1], 2.0 + 2 * X[2]], rtol=1e-15)

    def h(x):                                 # and the other way round
        y = cp(x)
        x[1] = 0.0
        return xnp.sum(y ** 2) + xnp.sum(x)
    np.testing.assert_allclose(xgrad.grad(h)(X), [2 * X[0] + 1, 2 * X[1], 2 * X[2] + 1],
                               rtol=1e-15)


def test_pickle_of_a_traced_value_raises():
    msg = (r"a traced value \(shape=\(3,\), dtype=float64\) can't be pickled: .*"
           r"xgrad\.stop_gradient")

    def f(x):
        with pytest.raises(TypeError, match=msg):
            pickle.dumps(x)
        with pytest.raises(TypeError, match="can't be pickled"):
            pickle.dumps({"a": [x * 2.0]}, protocol=pickle.HIGHEST_PROTOCOL)
        with pytest.raises(TypeError, match="can't be pickled"):
            x.__reduce__()
        return xnp.sum(x * x)

    np.testing.assert_allclose(xgrad.grad(f)(X), 2 * X)
    xgrad.jvp(f, (X,), (V,))

    def fb(x):                                # under vmap the traced value is a row
        with pytest.raises(TypeError, match=r"a traced value \(shape=\(3,\), dtype=float64\)"):
            pickle.dumps(x)
        return xnp.sum(x)
    np.testing.assert_allclose(xgrad.vmap(fb)(B), B.sum(axis=1))


def test_pickle_of_plain_values_still_works():
    a = xnp.sin(xnp.asarray(X))
    b = pickle.loads(pickle.dumps({"a": a, "n": 3}))
    np.testing.assert_array_equal(b["a"], a)
    g = xgrad.grad(lambda x: xnp.sum(x ** 2))(X)            # a transform's result
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(g)), 2 * X)

    def f(x):
        c = xgrad.stop_gradient(x)                           # the suggested way out
        assert not isinstance(c, Tracer)
        np.testing.assert_array_equal(pickle.loads(pickle.dumps(c)), X)
        return xnp.sum(x)
    xgrad.grad(f)(X)
