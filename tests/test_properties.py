"""Property tests (hypothesis): random compositions of primitives.

A strategy draws an expression of depth 2-4 over two inputs ``x`` and ``y``
(shapes that broadcast together) from unary and binary elementwise
operations, plus a reduction or a matrix product at the top. Each one is
evaluated by xgrad and, written the same way, by jax (float64):

* value, gradient, JVP and Hessian-vector product agree with jax;
* the Hessian of a scalar composition is symmetric, and equals its
  forward-over-forward and reverse-over-reverse versions;
* ``hvp(f, x, v) == hessian(f)(x) @ v``.

The operations are total and smooth on the sampled inputs (``log`` only
sees ``1 + x**2``, a divisor is ``1 + y**2``, ...), so any disagreement is a
derivative bug, not a domain accident. Runs are derandomised (CI is
deterministic) and small: the whole file takes a few seconds.
"""
import math


import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import xgrad
import xgrad.numpy as xnp
from helpers import from_np, to_np

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])

# ----- the operations, written once for ns = xgrad.numpy and ns = jax.numpy -----
UNARY = {
    "sin": lambda ns, a: ns.sin(a),
    "cos": lambda ns, a: ns.cos(a),
    "tanh": lambda ns, a: ns.tanh(a),
    "atan": lambda ns, a: ns.atan(a),
    "asinh": lambda ns, a: ns.asinh(a),
    "square": lambda ns, a: ns.square(a),
    "neg": lambda ns, a: ns.negative(a),
    "exp(-a^2)": lambda ns, a: ns.exp(ns.negative(ns.multiply(a, a))),
    "log(1+a^2)": lambda ns, a: ns.log(ns.add(1.0, ns.square(a))),
    "log1p(a^2)": lambda ns, a: ns.log1p(ns.multiply(a, a)),
    "sqrt(1+a^2)": lambda ns, a: ns.sqrt(ns.add(ns.square(a), 1.0)),
    "1/(1+a^2)": lambda ns, a: ns.reciprocal(ns.add(ns.square(a), 1.0)),
    "expm1(sin)": lambda ns, a: ns.expm1(ns.sin(a)),
    "cosh(atan)": lambda ns, a: ns.cosh(ns.atan(a)),
    "a**3": lambda ns, a: ns.pow(a, 3.0),
    "2a-1": lambda ns, a: ns.subtract(ns.multiply(2.0, a), 1.0),
}
BINARY = {
    "add": lambda ns, a, b: ns.add(a, b),
    "sub": lambda ns, a, b: ns.subtract(a, b),
    "mul": lambda ns, a, b: ns.multiply(a, b),
    "a/(1+b^2)": lambda ns, a, b: ns.divide(a, ns.add(1.0, ns.square(b))),
    "logaddexp": lambda ns, a, b: ns.logaddexp(a, b),
    "hypot(a,1+b^2)": lambda ns, a, b: ns.hypot(a, ns.add(1.0, ns.square(b))),
    "atan2(a,2+cos b)": lambda ns, a, b: ns.atan2(a, ns.add(2.0, ns.cos(b))),
    "(1+a^2)**b": lambda ns, a, b: ns.pow(ns.add(1.0, ns.square(a)), b),
    "maximum": lambda ns, a, b: ns.maximum(a, b),
    "where(a>b)": lambda ns, a, b: ns.where(ns.greater(a, b), ns.sin(a), ns.multiply(a, b)),
}
# the reduction that makes a scalar (for grad/hvp) out of the expression
TOP = {
    "sum": lambda ns, e, w: ns.sum(ns.multiply(e, w)),
    "mean(e^2)": lambda ns, e, w: ns.mean(ns.multiply(ns.square(e), w)),
    "max": lambda ns, e, w: ns.max(ns.add(e, w)),
    "prod": lambda ns, e, w: ns.prod(ns.add(1.5, ns.tanh(e))),
    "logsumexp-ish": lambda ns, e, w: ns.log(ns.sum(ns.exp(ns.multiply(e, w)))),
    "e.e (matmul)": lambda ns, e, w: ns.sum(ns.multiply(ns.matmul(ns.reshape(e, (1, -1)),
                                                           ns.reshape(e, (-1, 1))), 0.5)),
}

SHAPES = [(), (3,), (2, 3)]


def _sub_shapes(shape):
    """Shapes that broadcast to ``shape``: dropped leading axes, 1s."""
    out = {shape}
    for k in range(len(shape) + 1):
        tail = shape[k:]
        out.add(tail)
        for i in range(len(tail)):
            out.add(tail[:i] + (1,) + tail[i + 1:])
    return sorted(out, key=lambda s: (len(s), s))


@st.composite
def expressions(draw, max_depth=4):
    """(tree, x_shape, y_shape, top, seed). A tree is ("x",), ("y",),
    ("u", name, t) or ("b", name, t1, t2); depth 2 to ``max_depth``."""
    depth = draw(st.integers(2, max_depth))

    def node(d):
        if d == 0:
            return (draw(st.sampled_from(["x", "y"])),)
        if draw(st.booleans()):
            return ("u", draw(st.sampled_from(sorted(UNARY))), node(d - 1))
        return ("b", draw(st.sampled_from(sorted(BINARY))), node(d - 1),
                node(draw(st.integers(0, d - 1))))

    tree = node(depth)
    shape = draw(st.sampled_from(SHAPES))
    xs = draw(st.sampled_from(_sub_shapes(shape)))
    ys = draw(st.sampled_from(_sub_shapes(shape)))
    top = draw(st.sampled_from(sorted(TOP)))
    seed = draw(st.integers(0, 2 ** 31 - 1))
    return tree, xs, ys, top, seed


def _eval(ns, tree, x, y):
    kind = tree[0]
    if kind == "x":
        return x
    if kind == "y":
        return y
    if kind == "u":
        return UNARY[tree[1]](ns, _eval(ns, tree[2], x, y))
    return BINARY[tree[1]](ns, _eval(ns, tree[2], x, y), _eval(ns, tree[3], x, y))


def _describe(tree):
    if tree[0] in ("x", "y"):
        return tree[0]
    return f"{tree[1]}({', '.join(_describe(t) for t in tree[2:])})"


def _functions(ns, tree, top, w):
    """The vector-valued expression (broadcast to the full shape) and its
    scalar reduction, as functions of (x, y)."""
    def vec(x, y):
        e = _eval(ns, tree, x, y)
        return ns.add(e, ns.multiply(0.0, ns.add(x, y)))   # full broadcast shape
    return vec, (lambda x, y: TOP[top](ns, vec(x, y), w))


def _point(seed, xs, ys):
    rng = np.random.default_rng(seed)
    full = np.broadcast_shapes(xs, ys)
    return dict(x=rng.uniform(-1.5, 1.5, xs), y=rng.uniform(-1.5, 1.5, ys),
                w=rng.uniform(0.5, 1.5, full), vx=rng.uniform(-1, 1, xs),
                vy=rng.uniform(-1, 1, ys), u=rng.uniform(-1, 1, full))


def _jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


def _close(actual, expected, what, rtol=1e-9):
    e = np.asarray(expected)
    scale = max(1.0, float(np.max(np.abs(e), initial=0.0)))
    np.testing.assert_allclose(to_np(actual), e, rtol=rtol, atol=rtol * scale, err_msg=what)


def _all_derivatives(ad, vec, scal, p):
    """Value, JVP, VJP of the expression; gradient and HVP of its reduction;
    built the same way for ad = xgrad and ad = jax."""
    x, y = p["x"], p["y"]
    out, jv = ad.jvp(vec, (x, y), (p["vx"], p["vy"]))
    ct = ad.vjp(vec, x, y)[1](p["u"])
    g = ad.grad(scal, argnums=(0, 1))
    val = scal(x, y)
    grads = g(x, y)
    hv = ad.jvp(lambda a, b: g(a, b), (x, y), (p["vx"], p["vy"]))[1]
    return {"value": out, "jvp": jv, "vjp": ct, "scalar": val, "grad": grads, "hvp": hv}


def _leaves(x):
    return [y for z in x for y in _leaves(z)] if isinstance(x, (tuple, list)) else [x]


@SETTINGS
@given(expressions())
def test_compositions_match_jax(expr):
    jax = _jax()
    import jax.numpy as jnp
    tree, xs, ys, top, seed = expr
    p = _point(seed, xs, ys)
    vec, scal = _functions(xnp, tree, top, p["w"])
    jvec, jscal = _functions(jnp, tree, top, p["w"])
    got = _all_derivatives(xgrad, vec, scal, p)
    exp = jax.jit(lambda q: _all_derivatives(jax, jvec, jscal, q))(p)
    what = f"{top}[{_describe(tree)}] x{xs} y{ys}"
    for k in got:
        g, e = _leaves(got[k]), _leaves(exp[k])
        assert len(g) == len(e), f"{what}: {k}"
        for i, (a, b) in enumerate(zip(g, e)):
            assert to_np(a).shape == np.shape(b), f"{what}: {k}[{i}] shape"
            _close(a, b, f"{what}: {k}[{i}]", rtol=1e-8)


def _flat_scalar(ns, tree, top, xs, ys, w):
    """The scalar reduction as a function of one flat vector holding x and y."""
    nx = math.prod(xs)

    def f(z):
        x = ns.reshape(z[:nx], xs)
        y = ns.reshape(z[nx:], ys)
        return _functions(ns, tree, top, w)[1](x, y)
    return f, nx + math.prod(ys)


@SETTINGS
@given(expr=expressions())
def test_hessian_symmetric_and_hvp(expr, xp):
    tree, xs, ys, top, seed = expr
    p = _point(seed, xs, ys)
    f, n = _flat_scalar(xnp, tree, top, xs, ys, from_np(xp, p["w"]))
    z = from_np(xp, np.concatenate([p["x"].ravel(), p["y"].ravel()]))
    v = from_np(xp, np.random.default_rng(seed + 1).uniform(-1, 1, n))
    what = f"{top}[{_describe(tree)}] x{xs} y{ys}"
    h = to_np(xgrad.hessian(f)(z))                       # forward-over-reverse
    scale = max(1.0, float(np.max(np.abs(h))))
    np.testing.assert_allclose(h, h.T, rtol=0, atol=1e-10 * scale, err_msg=f"{what}: symmetry")
    h_ff = to_np(xgrad.jacfwd(xgrad.jacfwd(f))(z))      # forward-over-forward
    h_rr = to_np(xgrad.jacrev(xgrad.jacrev(f))(z))      # reverse-over-reverse
    np.testing.assert_allclose(h_ff, h, rtol=1e-10, atol=1e-10 * scale, err_msg=f"{what}: fwd-fwd")
    np.testing.assert_allclose(h_rr, h, rtol=1e-10, atol=1e-10 * scale, err_msg=f"{what}: rev-rev")
    hv = to_np(xgrad.hvp(f, (z,), (v,)))
    np.testing.assert_allclose(hv, h @ to_np(v), rtol=1e-10, atol=1e-10 * scale,
                               err_msg=f"{what}: hvp vs hessian @ v")


@SETTINGS
@given(expressions(max_depth=3), st.sampled_from(["float32", "float64"]))
def test_compositions_keep_dtype(expr, dtype):
    """Gradients and HVPs have their primal's dtype (float32 stays float32)."""
    tree, xs, ys, top, seed = expr
    p = {k: v.astype(dtype) for k, v in _point(seed, xs, ys).items()}
    vec, scal = _functions(xnp, tree, top, p["w"])
    g = xgrad.grad(scal, argnums=(0, 1))(p["x"], p["y"])
    hv = xgrad.jvp(xgrad.grad(scal, argnums=(0, 1)), (p["x"], p["y"]), (p["vx"], p["vy"]))[1]
    for a, ref in zip(list(g) + list(hv), [p["x"], p["y"]] * 2):
        assert to_np(a).dtype == ref.dtype and to_np(a).shape == ref.shape, _describe(tree)
