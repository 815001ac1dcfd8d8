"""custom_vjp, custom_jvp and stop_gradient against jax.custom_vjp,
jax.custom_jvp and jax.lax.stop_gradient (values and derivatives), and
against closed forms where xgrad goes beyond JAX (forward mode of a
custom_vjp function: JAX raises there, xgrad transposes ``bwd``).

Test functions use ``xgrad.numpy`` operations (or keep the traced operand on
the left) so that they run on array_api_strict too, whose arrays raise
TypeError instead of deferring in ``strict_array * tracer``.
"""
import functools

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from helpers import assert_close, from_np, to_np

X = np.array([-1.0, 0.25, 0.5, 1.5, 0.9, -0.3])      # no element on a kink of crelu
C = 1.0


# ----- the clipped ReLU min(max(0, x), c) with a hand-written VJP -----

@xgrad.custom_vjp
def crelu(x, c):
    return xnp.minimum(xnp.maximum(x, 0.0), c)


def _crelu_fwd(x, c):
    return crelu(x, c), (x, c)


def _crelu_bwd(res, g):
    x, c = res
    return (xnp.where((x > 0.0) & (x < c), g, 0.0), None)


crelu.defvjp(_crelu_fwd, _crelu_bwd)


def _crelu_mask(x, c=C):
    return ((x > 0) & (x < c)).astype(np.float64)


# ----- a sigmoid that saves only its output -----

@xgrad.custom_vjp
def sigmoid(x):
    return 1.0 / (1.0 + xnp.exp(-x))


_SAVED = []


def _sigmoid_fwd(x):
    y = sigmoid(x)
    _SAVED.append(y)
    return y, y                       # the residual is the output, nothing else


sigmoid.defvjp(_sigmoid_fwd, lambda y, g: (xnp.multiply(g, y * (1.0 - y)),))   # y may be traced


def _s(x):
    return 1.0 / (1.0 + np.exp(-x))


def _jax_crelu(jax):
    jnp = jax.numpy

    @jax.custom_vjp
    def f(x, c):
        return jnp.minimum(jnp.maximum(x, 0.0), c)
    f.defvjp(lambda x, c: (f(x, c), (x, c)),
             lambda r, g: (jnp.where((r[0] > 0) & (r[0] < r[1]), g, 0.0), None))
    return f


def _jax_sigmoid(jax):
    jnp = jax.numpy

    @jax.custom_vjp
    def f(x):
        return 1.0 / (1.0 + jnp.exp(-x))
    f.defvjp(lambda x: (f(x), f(x)), lambda y, g: (g * y * (1.0 - y),))
    return f


# --------------------------------------------------------------------------
# custom_vjp: values and reverse mode against jax

def test_crelu_value_and_grad_vs_jax(xp, jax):
    jnp = jax.numpy
    jcrelu = _jax_crelu(jax)
    x = from_np(xp, X)
    assert_close(crelu(x, C), np.minimum(np.maximum(X, 0), C))
    loss = lambda x: xnp.sum(crelu(x, C) ** 2)
    jloss = lambda x: jnp.sum(jcrelu(x, C) ** 2)
    g = xgrad.grad(loss)(x)
    assert type(g) is type(x)
    assert_close(g, jax.grad(jloss)(X))
    assert_close(g, 2 * np.minimum(np.maximum(X, 0), C) * _crelu_mask(X))


def test_crelu_array_threshold_gets_zero_cotangent(xp):
    # c is an array here, so bwd's None for it must come back as zeros
    x, c = from_np(xp, X), from_np(xp, np.asarray(C))
    gx, gc = xgrad.grad(lambda x, c: xnp.sum(crelu(x, c)), argnums=(0, 1))(x, c)
    assert_close(gx, _crelu_mask(X))
    assert_close(gc, 0.0)
    assert tuple(gc.shape) == ()


def test_custom_vjp_rule_is_used_not_the_primal_code():
    # a bwd that is deliberately 3x the true derivative: grad must follow it
    @xgrad.custom_vjp
    def f(x):
        return xnp.sin(x)
    f.defvjp(lambda x: (f(x), x), lambda x, g: (3.0 * g * xnp.cos(x),))
    assert_close(xgrad.grad(f)(0.4), 3 * np.cos(0.4))
    assert_close(xgrad.jvp(f, (0.4,), (1.0,))[1], 3 * np.cos(0.4))


def test_sigmoid_saves_only_output(xp, jax):
    jsig = _jax_sigmoid(jax)
    x = from_np(xp, X)
    _SAVED.clear()
    y, f_vjp = xgrad.vjp(sigmoid, x)
    assert len(_SAVED) == 1
    assert_close(_SAVED[0], _s(X))                    # the residual is the output
    (g,) = f_vjp(xnp.ones_like(y))
    assert_close(g, _s(X) * (1 - _s(X)))
    assert_close(g, jax.grad(lambda x: jax.numpy.sum(jsig(x)))(X))


def test_sigmoid_second_derivatives_vs_jax_and_closed_form(jax):
    jsig = _jax_sigmoid(jax)
    s = _s(0.7)
    d2 = s * (1 - s) * (1 - 2 * s)
    # reverse over reverse differentiates bwd through the residual y
    assert_close(xgrad.grad(xgrad.grad(sigmoid))(0.7), jax.grad(jax.grad(jsig))(0.7))
    assert_close(xgrad.grad(xgrad.grad(sigmoid))(0.7), d2)
    # forward over reverse (JAX raises on jvp of a custom_vjp; xgrad transposes bwd)
    H = xgrad.hessian(lambda x: xnp.sum(sigmoid(x)))(X)
    assert_close(H, np.diag(_s(X) * (1 - _s(X)) * (1 - 2 * _s(X))))


# --------------------------------------------------------------------------
# forward mode of a custom_vjp function (NB: JAX raises here)

def test_jax_raises_on_jvp_of_custom_vjp(jax):
    jcrelu = _jax_crelu(jax)
    with pytest.raises(TypeError, match="custom_vjp"):
        jax.jvp(lambda x: jcrelu(x, C), (X,), (np.ones_like(X),))


def test_custom_vjp_forward_mode_vs_analytic(xp):
    x = from_np(xp, X)
    t = np.linspace(0.5, 1.5, X.size)
    y, ty = xgrad.jvp(lambda x: crelu(x, C), (x,), (from_np(xp, t),))
    assert_close(y, np.minimum(np.maximum(X, 0), C))
    assert_close(ty, _crelu_mask(X) * t)
    assert_close(xgrad.jacfwd(lambda x: crelu(x, C))(x), np.diag(_crelu_mask(X)))
    # d^2/dx^2 sum(crelu^3) = 6 crelu * mask
    H = xgrad.hessian(lambda x: xnp.sum(crelu(x, C) ** 3))(x)
    assert_close(H, np.diag(6 * np.minimum(np.maximum(X, 0), C) * _crelu_mask(X)))


def test_custom_vjp_jvp_of_two_inputs_and_outputs():
    @xgrad.custom_vjp
    def f(x, y):
        return x * y, xnp.sin(x)

    def bwd(r, g):
        x, y = r
        return g[0] * y + g[1] * xnp.cos(x), g[0] * x
    f.defvjp(lambda x, y: (f(x, y), (x, y)), bwd)
    x, y, tx, ty = 0.3, -1.2, 0.7, 2.0
    (o1, o2), (t1, t2) = xgrad.jvp(f, (x, y), (tx, ty))
    assert_close(o1, x * y)
    assert_close(t1, tx * y + x * ty)
    assert_close(t2, np.cos(x) * tx)
    J = xgrad.jacfwd(lambda v: xnp.stack(f(v[0], v[1])))(np.array([x, y]))
    assert_close(J, [[y, x], [np.cos(x), 0.0]])


# --------------------------------------------------------------------------
# pytrees, None cotangents, nondiff_argnums

@xgrad.custom_vjp
def _tree_fn(p, x):
    return {"a": p["w"] * x, "b": (xnp.sin(p["b"]) + x,)}


def _tree_fwd(p, x):
    return _tree_fn(p, x), {"w": p["w"], "cos": xnp.cos(p["b"]), "x": x}


def _tree_bwd(r, g):
    ga, (gb,) = g["a"], g["b"]
    return {"w": ga * r["x"], "b": gb * r["cos"]}, ga * r["w"] + gb


_tree_fn.defvjp(_tree_fwd, _tree_bwd)


def _jax_tree_fn(jax):
    jnp = jax.numpy

    @jax.custom_vjp
    def f(p, x):
        return {"a": p["w"] * x, "b": (jnp.sin(p["b"]) + x,)}

    def bwd(r, g):
        ga, (gb,) = g["a"], g["b"]
        return {"w": ga * r["x"], "b": gb * r["cos"]}, ga * r["w"] + gb
    f.defvjp(lambda p, x: (f(p, x), {"w": p["w"], "cos": jnp.cos(p["b"]), "x": x}), bwd)
    return f


def test_custom_vjp_pytree_args_residuals_outputs_vs_jax(xp, jax):
    jnp = jax.numpy
    jf = _jax_tree_fn(jax)
    p_np = {"w": np.array([1.0, 2.0]), "b": np.array([0.3, 0.4])}
    x_np = np.array([0.5, -1.0])
    p = {k: from_np(xp, v) for k, v in p_np.items()}
    x = from_np(xp, x_np)

    def loss(p, x):
        o = _tree_fn(p, x)
        return xnp.sum(o["a"] ** 2) + xnp.sum(xnp.sin(o["b"][0]))

    def jloss(p, x):
        o = jf(p, x)
        return jnp.sum(o["a"] ** 2) + jnp.sum(jnp.sin(o["b"][0]))
    gp, gx = xgrad.grad(loss, argnums=(0, 1))(p, x)
    jgp, jgx = jax.grad(jloss, argnums=(0, 1))(p_np, x_np)
    assert set(gp) == {"w", "b"}
    for k in gp:
        assert_close(gp[k], jgp[k])
    assert_close(gx, jgx)


def test_custom_vjp_unused_output_gets_zero_cotangent(jax):
    # only o["a"] is used, so bwd receives zeros for o["b"]
    seen = []

    @xgrad.custom_vjp
    def f(x):
        return {"a": 2.0 * x, "b": xnp.sin(x)}

    def bwd(x, g):
        seen.append(to_np(g["b"]))
        return (2.0 * g["a"] + xnp.cos(x) * g["b"],)
    f.defvjp(lambda x: (f(x), x), bwd)
    x = np.array([0.1, 0.2, 0.3])
    assert_close(xgrad.grad(lambda x: xnp.sum(f(x)["a"]))(x), [2.0, 2.0, 2.0])
    assert_close(seen[0], np.zeros(3))
    jf = jax.custom_vjp(lambda x: {"a": 2.0 * x, "b": jax.numpy.sin(x)})
    jf.defvjp(lambda x: (jf(x), x), lambda x, g: (2.0 * g["a"] + jax.numpy.cos(x) * g["b"],))
    assert_close(jax.grad(lambda x: jax.numpy.sum(jf(x)["a"]))(x), [2.0, 2.0, 2.0])


def test_custom_vjp_none_cotangent_for_pytree_leaf():
    @xgrad.custom_vjp
    def q(p):
        return p["a"] * p["b"]
    q.defvjp(lambda p: (q(p), p), lambda p, g: ({"a": g * p["b"], "b": None},))
    g = xgrad.grad(q)({"a": 1.5, "b": 2.0})
    assert_close(g["a"], 2.0)
    assert_close(g["b"], 0.0)


def test_custom_vjp_nondiff_function_argument_vs_jax(jax):
    @functools.partial(xgrad.custom_vjp, nondiff_argnums=(0,))
    def apply(fn, x):
        return fn(x)
    apply.defvjp(lambda fn, x: (fn(x), x), lambda fn, x, g: (g * 2.0 * x,))

    @functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
    def japply(fn, x):
        return fn(x)
    japply.defvjp(lambda fn, x: (fn(x), x), lambda fn, x, g: (g * 2.0 * x,))
    assert_close(xgrad.grad(lambda x: apply(xnp.sin, x))(0.8),
                 jax.grad(lambda x: japply(jax.numpy.sin, x))(0.8))
    assert_close(xgrad.grad(lambda x: apply(xnp.sin, x))(0.8), 1.6)


def test_custom_vjp_nondiff_int_argument_higher_order(jax):
    @functools.partial(xgrad.custom_vjp, nondiff_argnums=(1,))
    def power(x, n):
        return x ** n
    power.defvjp(lambda x, n: (x ** n, x), lambda n, x, g: (g * n * x ** (n - 1),))

    @functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
    def jpower(x, n):
        return x ** n
    jpower.defvjp(lambda x, n: (x ** n, x), lambda n, x, g: (g * n * x ** (n - 1),))
    assert_close(xgrad.grad(lambda x: power(x, 3))(2.0), jax.grad(lambda x: jpower(x, 3))(2.0))
    assert_close(xgrad.grad(xgrad.grad(lambda x: power(x, 3)))(2.0),
                 jax.grad(jax.grad(lambda x: jpower(x, 3)))(2.0))
    assert_close(xgrad.hessian(lambda x: power(x, 3))(2.0), 12.0)


def test_custom_vjp_keyword_and_default_arguments():
    @xgrad.custom_vjp
    def f(x, scale=2.0):
        return scale * x
    f.defvjp(lambda x, scale=2.0: (f(x, scale), scale), lambda s, g: (s * g, None))
    assert_close(xgrad.grad(lambda x: f(x))(1.0), 2.0)
    assert_close(xgrad.grad(lambda x: f(x, scale=5.0))(1.0), 5.0)


# --------------------------------------------------------------------------
# custom_vjp errors

def _two_arg(bwd, fwd=None):
    @xgrad.custom_vjp
    def h(x, y):
        return x * y
    h.defvjp(fwd or (lambda x, y: (h(x, y), (x, y))), bwd)
    return h


@pytest.mark.parametrize("bwd, exc, pattern", [
    (lambda r, g: (g * r[1],), TypeError, r"bwd of h must return a tuple .* \(2\), got 1 entries"),
    (lambda r, g: g * r[1], TypeError, r"bwd of h must return a tuple .*got a float64"),
    (lambda r, g: (g, g, g), TypeError, r"\(2\), got 3 entries"),
    (lambda r, g: (xnp.ones(3), g), ValueError, r"bwd of h: cotangent leaf 0 has shape \(3,\), "
                                                r"but its argument has shape \(\)"),
    (lambda r, g: (g, xnp.astype(g, xnp.float32)), TypeError,
     r"bwd of h: cotangent leaf 1 has dtype float32, but its argument has dtype float64"),
])
def test_custom_vjp_bwd_errors(bwd, exc, pattern):
    h = _two_arg(bwd)
    with pytest.raises(exc, match=pattern):
        xgrad.grad(h, argnums=(0, 1))(1.0, 2.0)


def test_custom_vjp_bwd_list_is_accepted():
    h = _two_arg(lambda r, g: [g * r[1], g * r[0]])
    assert_close(xgrad.grad(h, argnums=(0, 1))(1.5, 2.0), (2.0, 1.5))


def test_custom_vjp_bwd_wrong_pytree_structure():
    @xgrad.custom_vjp
    def q(p):
        return p["a"] * p["b"]
    q.defvjp(lambda p: (q(p), p), lambda p, g: ((g * p["b"], g * p["a"]),))
    with pytest.raises(TypeError, match=r"bwd of q: the cotangent for argument 0 does not match"):
        xgrad.grad(q)({"a": 1.0, "b": 2.0})
    q.defvjp(lambda p: (q(p), p), lambda p, g: ({"a": g * p["b"]},))
    with pytest.raises(TypeError, match=r"missing key\(s\): \['b'\]"):
        xgrad.grad(q)({"a": 1.0, "b": 2.0})


@pytest.mark.parametrize("fwd", [lambda x, y: x * y, lambda x, y: [x * y],
                                 lambda x, y: (x * y, x, y)])
def test_custom_vjp_fwd_not_a_pair(fwd):
    h = _two_arg(lambda r, g: (g, g), fwd=fwd)
    with pytest.raises(TypeError, match=r"fwd of custom_vjp function h must return a pair"):
        xgrad.grad(h)(np.ones(3), 2.0)


def test_custom_vjp_without_defvjp():
    @xgrad.custom_vjp
    def nodef(x):
        return x
    with pytest.raises(AttributeError, match=r"nodef.defvjp\(fwd, bwd\)"):
        xgrad.grad(nodef)(1.0)
    with pytest.raises(AttributeError, match="has no VJP"):
        nodef(1.0)


def test_custom_vjp_bwd_error_in_forward_mode_too():
    h = _two_arg(lambda r, g: (xnp.ones(3), g))
    with pytest.raises(ValueError, match="shape"):
        xgrad.jvp(h, (1.0, 2.0), (1.0, 1.0))


# --------------------------------------------------------------------------
# custom_jvp against jax.custom_jvp

@xgrad.custom_jvp
def log1pexp(x):
    return xnp.log(1.0 + xnp.exp(x))


@log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * (1.0 - 1.0 / (1.0 + xnp.exp(x)))


@xgrad.custom_jvp
def twice_sin(x):          # a rule that is deliberately not the primal's derivative
    return xnp.sin(x)


twice_sin.defjvp(lambda p, t: (twice_sin(p[0]), xnp.multiply(2.0 * xnp.cos(p[0]), t[0])))


def _jax_customs(jax):
    jnp = jax.numpy

    @jax.custom_jvp
    def jl(x):
        return jnp.log(1.0 + jnp.exp(x))
    jl.defjvp(lambda p, t: (jl(p[0]), t[0] * (1.0 - 1.0 / (1.0 + jnp.exp(p[0])))))

    @jax.custom_jvp
    def jts(x):
        return jnp.sin(x)
    jts.defjvp(lambda p, t: (jts(p[0]), 2.0 * jnp.cos(p[0]) * t[0]))
    return {"log1pexp": (log1pexp, jl), "twice_sin": (twice_sin, jts)}


_JAX_REFS = {}


def _jax_refs(jax, name):
    """jax's values and derivatives of a custom_jvp function (computed once
    per name, shared by the backends)."""
    if name not in _JAX_REFS:
        jnp = jax.numpy
        jf = _jax_customs(jax)[name][1]
        js = lambda x: jnp.sum(jf(x) * x)
        t = np.linspace(-1, 1, X.size)
        _JAX_REFS[name] = dict(
            value=jf(X), grad=jax.grad(js)(X), hessian=jax.hessian(js)(X),
            jacrev=jax.jacrev(jf)(X), jvp=jax.jvp(jf, (X,), (t,))[1],
            d=[jax.grad(jf)(0.3), jax.grad(jax.grad(jf))(0.3),
               jax.grad(jax.grad(jax.grad(jf)))(0.3)])
    return _JAX_REFS[name]


@pytest.mark.parametrize("name", ["log1pexp", "twice_sin"])
def test_custom_jvp_vs_jax_all_orders(name, xp, jax):
    f = _jax_customs(jax)[name][0]
    ref = _jax_refs(jax, name)
    x = from_np(xp, X)
    assert_close(f(x), ref["value"])
    s = lambda x: xnp.sum(f(x) * x)
    assert_close(xgrad.grad(s)(x), ref["grad"])
    assert_close(xgrad.hessian(s)(x), ref["hessian"])
    assert_close(xgrad.jacrev(f)(x), ref["jacrev"])
    t = from_np(xp, np.linspace(-1, 1, X.size))
    assert_close(xgrad.jvp(f, (x,), (t,))[1], ref["jvp"])
    g1 = xgrad.grad(f)
    g2 = xgrad.grad(g1)
    g3 = xgrad.grad(g2)
    for mine, theirs in zip((g1, g2, g3), ref["d"]):
        assert_close(mine(0.3), theirs)


def test_custom_jvp_twice_sin_closed_form():
    # the rule says d/dx = 2 cos x, so d2/dx2 = -2 sin x in both modes
    assert_close(xgrad.grad(twice_sin)(0.4), 2 * np.cos(0.4))
    assert_close(xgrad.grad(xgrad.grad(twice_sin))(0.4), -2 * np.sin(0.4))
    assert_close(xgrad.jvp(xgrad.grad(twice_sin), (0.4,), (1.0,))[1], -2 * np.sin(0.4))
    assert_close(xgrad.grad(lambda x: xgrad.jvp(twice_sin, (x,), (1.0,))[1])(0.4), -2 * np.sin(0.4))


def test_custom_jvp_two_inputs_pytree_output_vs_jax(jax):
    jnp = jax.numpy

    @xgrad.custom_jvp
    def two(x, y):
        return x * y, {"s": x + y}

    @two.defjvp
    def _(p, t):
        (x, y), (tx, ty) = p, t
        return two(x, y), (tx * y + x * ty, {"s": tx + ty})

    @jax.custom_jvp
    def jtwo(x, y):
        return x * y, {"s": x + y}
    jtwo.defjvp(lambda p, t: (jtwo(*p), (t[0] * p[1] + p[0] * t[1], {"s": t[0] + t[1]})))
    loss = lambda x, y: xnp.sum(two(x, y)[0] ** 2 + xnp.sin(two(x, y)[1]["s"]))
    jloss = lambda x, y: jnp.sum(jtwo(x, y)[0] ** 2 + jnp.sin(jtwo(x, y)[1]["s"]))
    y = X + 1.0
    for a, b in zip(xgrad.grad(loss, (0, 1))(X, y), jax.grad(jloss, (0, 1))(X, y)):
        assert_close(a, b)
    assert_close(xgrad.hessian(loss)(X, y), jax.hessian(jloss)(X, y))
    # the second argument a constant: its tangent is zero inside the rule
    assert_close(xgrad.grad(lambda y: xnp.sum(two(X, y)[0]))(y), X)


def test_custom_jvp_nondiff_argnums_vs_jax(jax):
    @functools.partial(xgrad.custom_jvp, nondiff_argnums=(0,))
    def apply(fn, x):
        return fn(x)
    apply.defjvp(lambda fn, p, t: (apply(fn, p[0]), 3.0 * t[0]))

    @functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
    def japply(fn, x):
        return fn(x)
    japply.defjvp(lambda fn, p, t: (japply(fn, p[0]), 3.0 * t[0]))
    assert_close(xgrad.grad(lambda x: apply(xnp.sin, x))(1.0),
                 jax.grad(lambda x: japply(jax.numpy.sin, x))(1.0))
    y, t = xgrad.jvp(lambda x: apply(xnp.sin, x), (1.0,), (1.0,))
    assert_close(y, np.sin(1.0))
    assert_close(t, 3.0)


def test_custom_jvp_errors():
    @xgrad.custom_jvp
    def f(x):
        return xnp.sin(x)
    with pytest.raises(AttributeError, match=r"f.defjvp\(rule\)"):
        xgrad.grad(f)(1.0)
    f.defjvp(lambda p, t: f(p[0]))
    with pytest.raises(TypeError, match="must return a pair"):
        xgrad.jvp(f, (1.0,), (1.0,))
    f.defjvp(lambda p, t: (f(p[0]), (t[0], t[0])))
    with pytest.raises(TypeError, match="returned a tangent with structure"):
        xgrad.jvp(f, (1.0,), (1.0,))
    f.defjvp(lambda p, t: (f(p[0]), xnp.ones(3)))
    with pytest.raises(ValueError, match=r"tangent output leaf 0 has shape \(3,\)"):
        xgrad.grad(f)(1.0)


def test_custom_jvp_tangent_dtype_mismatch_raises():
    @xgrad.custom_jvp
    def f(x):
        return xnp.sin(x)
    f.defjvp(lambda p, t: (f(p[0]), xnp.astype(t[0], xnp.float32)))
    with pytest.raises(TypeError, match="dtype"):
        xgrad.jvp(f, (X,), (X,))


def test_custom_jvp_python_scalar_tangent_clear_error():
    @xgrad.custom_jvp
    def f(x):
        return xnp.sin(x)
    f.defjvp(lambda p, t: (f(p[0]), 0.0))
    with pytest.raises((TypeError, ValueError), match="JVP rule of f"):
        xgrad.jvp(f, (X,), (X,))


def _closing_custom_vjp(W):
    @xgrad.custom_vjp
    def f(h):
        return xnp.tanh(h @ W)
    f.defvjp(lambda h: (f(h), h), lambda h, g: (xnp.multiply(g, 1 - xnp.tanh(h @ W) ** 2) @ W.T,))
    return f


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_custom_vjp_closing_over_a_tracer_clear_error(mode):
    W = np.array([[0.5, -0.2], [0.1, 0.3]])
    loss = lambda W: xnp.sum(_closing_custom_vjp(W)(xnp.sin(W[0])))
    with pytest.raises((TypeError, ValueError), match="clos"):
        if mode == "grad":
            xgrad.grad(loss)(W)
        else:
            xgrad.jvp(loss, (W,), (W,))


# --------------------------------------------------------------------------
# composition with vmap, both ways

def test_custom_vjp_vmap_both_ways_vs_jax(xp, jax):
    jnp = jax.numpy
    jcrelu, jsig = _jax_crelu(jax), _jax_sigmoid(jax)
    x, c = from_np(xp, X), from_np(xp, np.asarray(C))   # c: see the test below
    f = lambda s: crelu(s, c) ** 2 + sigmoid(s)
    jf = lambda s: jcrelu(s, C) ** 2 + jsig(s)
    expected = jax.vmap(jax.grad(jf))(X)
    assert_close(xgrad.vmap(xgrad.grad(f))(x), expected)
    assert_close(xgrad.grad(lambda x: xnp.sum(xgrad.vmap(f)(x)))(x), expected)
    assert_close(xgrad.vmap(f)(x), jax.vmap(jf)(X))
    # a batched row of a matrix, unbatched second argument
    M = np.stack([X, -X])
    assert_close(xgrad.vmap(lambda r: xnp.sum(crelu(r, c)))(from_np(xp, M)),
                 jax.vmap(lambda r: jnp.sum(jcrelu(r, C)))(M))
    assert_close(xgrad.jacrev(xgrad.vmap(sigmoid))(x), np.diag(_s(X) * (1 - _s(X))))


def test_grad_of_vmap_custom_vjp_python_scalar_residual_strict():
    xs = pytest.importorskip("array_api_strict")
    x = xs.asarray(X)
    g = xgrad.grad(lambda x: xnp.sum(xgrad.vmap(lambda s: crelu(s, C))(x)))(x)
    assert_close(g, _crelu_mask(X))


def test_grad_of_vmap_custom_vjp_python_scalar_residual_numpy():
    g = xgrad.grad(lambda x: xnp.sum(xgrad.vmap(lambda s: crelu(s, C))(x)))(X)
    assert_close(g, _crelu_mask(X))


def test_custom_jvp_vmap_both_ways_vs_jax(xp, jax):
    f, jf = _jax_customs(jax)["twice_sin"]
    x = from_np(xp, X)
    assert_close(xgrad.vmap(xgrad.grad(f))(x), jax.vmap(jax.grad(jf))(X))
    assert_close(xgrad.grad(lambda x: xnp.sum(xgrad.vmap(f)(x)))(x), 2 * np.cos(X))
    assert_close(xgrad.vmap(xgrad.grad(xgrad.grad(f)))(x), jax.vmap(jax.grad(jax.grad(jf)))(X))
    g, jg = _jax_customs(jax)["log1pexp"]
    assert_close(xgrad.jacfwd(xgrad.vmap(g))(x), jax.jacfwd(jax.vmap(jg))(X))


# --------------------------------------------------------------------------
# stop_gradient

def test_stop_gradient_first_order_and_jvp_vs_jax(xp, jax):
    jnp, lsg = jax.numpy, jax.lax.stop_gradient
    f = lambda x: xnp.sum(x * xgrad.stop_gradient(x) ** 2 + xnp.sin(x))
    jf = lambda x: jnp.sum(x * lsg(x) ** 2 + jnp.sin(x))
    x = from_np(xp, X)
    assert_close(f(x), jf(X))
    assert_close(xgrad.grad(f)(x), jax.grad(jf)(X))
    assert_close(xgrad.grad(f)(x), X ** 2 + np.cos(X))
    t = np.linspace(0.5, 1.0, X.size)
    assert_close(xgrad.jvp(f, (x,), (from_np(xp, t),))[1], jax.jvp(jf, (X,), (t,))[1])
    assert_close(xgrad.hessian(f)(x), jax.hessian(jf)(X))


def test_stop_gradient_constant_at_every_nesting_level(jax):
    jnp, lsg, sg = jax.numpy, jax.lax.stop_gradient, xgrad.stop_gradient
    f = lambda x: x * sg(x) ** 2 + xnp.sin(x)
    jf = lambda x: x * lsg(x) ** 2 + jnp.sin(x)
    assert_close(xgrad.grad(xgrad.grad(f))(0.7), jax.grad(jax.grad(jf))(0.7))
    assert_close(xgrad.grad(xgrad.grad(f))(0.7), -np.sin(0.7))
    assert_close(xgrad.jvp(xgrad.grad(f), (0.7,), (1.0,))[1], -np.sin(0.7))
    assert_close(xgrad.vmap(xgrad.grad(f))(X), jax.vmap(jax.grad(jf))(X))
    assert_close(xgrad.grad(lambda x: xnp.sum(xgrad.vmap(f)(x)))(X), X ** 2 + np.cos(X))
    # stop_gradient of an inner derivative: constant to the outer one
    g = lambda x: x * sg(xgrad.grad(lambda y: x * y ** 2)(x))          # x * sg(2 x^2)
    jg = lambda x: x * lsg(jax.grad(lambda y: x * y ** 2)(x))
    assert_close(xgrad.grad(g)(1.5), jax.grad(jg)(1.5))
    assert_close(xgrad.grad(g)(1.5), 2 * 1.5 ** 2)
    # stop_gradient inside the inner function: constant to the outer level too
    h = lambda x: xgrad.grad(lambda y: sg(x * y) * y)(x)
    jh = lambda x: jax.grad(lambda y: lsg(x * y) * y)(x)
    assert_close(h(1.5), 1.5 ** 2)
    assert_close(xgrad.grad(h)(1.5), jax.grad(jh)(1.5))
    assert_close(xgrad.grad(h)(1.5), 0.0)


def test_stop_gradient_pytree_and_plain_values():
    a = np.array([1.0, 2.0])
    out = xgrad.stop_gradient({"a": a, "b": (1.0, None)})
    assert out["a"] is a and out["b"] == (1.0, None)
    f = lambda p: xnp.sum(xgrad.stop_gradient(p)["w"] * p["w"])
    g = xgrad.grad(f)({"w": a})
    assert_close(g["w"], a)


# ----- forward mode through the implicit fixed point of JAX's custom-rules guide -----

@functools.partial(xgrad.custom_vjp, nondiff_argnums=(0,))
def _fixed_point(f, a, x_guess):
    def cond_fun(carry):
        x_prev, x = carry
        return xnp.abs(x_prev - x) > 1e-12

    def body_fun(carry):
        _, x = carry
        return x, f(a, x)
    _, x_star = xgrad.lax.while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))
    return x_star


def _fixed_point_fwd(f, a, x_init):
    x_star = _fixed_point(f, a, x_init)
    return x_star, (a, x_star)


def _fixed_point_rev(f, res, x_star_bar):
    a, x_star = res
    _, vjp_a = xgrad.vjp(lambda a: f(a, x_star), a)
    a_bar, = vjp_a(_fixed_point(functools.partial(_rev_iter, f), (a, x_star, x_star_bar),
                                x_star_bar))
    return a_bar, xnp.zeros_like(x_star)


def _rev_iter(f, packed, u):
    a, x_star, x_star_bar = packed
    _, vjp_x = xgrad.vjp(lambda x: f(a, x), x_star)
    return x_star_bar + vjp_x(u)[0]


_fixed_point.defvjp(_fixed_point_fwd, _fixed_point_rev)


def _newton_sqrt(a):
    return _fixed_point(lambda a, x: 0.5 * (x + a / x), a, a)


def test_forward_mode_through_an_implicit_fixed_point():
    """fwd and bwd run Python-loop solvers that differentiate closures:
    forward mode gives d sqrt(a)/da, as reverse mode does (no leaked tracer)."""
    a = 2.0
    exact = 0.5 / np.sqrt(a)
    assert_close(xgrad.grad(_newton_sqrt)(a), exact, rtol=1e-10)
    out, t = xgrad.jvp(_newton_sqrt, (a,), (1.0,))
    assert_close(out, np.sqrt(a), rtol=1e-12)
    assert_close(t, exact, rtol=1e-10)
    assert_close(xgrad.jacfwd(_newton_sqrt)(a), exact, rtol=1e-10)
    assert_close(xgrad.jacfwd(lambda v: xgrad.vmap(_newton_sqrt)(v))(np.array([2.0, 3.0])),
                 np.diag(0.5 / np.sqrt([2.0, 3.0])), rtol=1e-10, atol=1e-14)


# ----- forward mode needs a bwd linear in g -----

@functools.partial(xgrad.custom_vjp, nondiff_argnums=(0, 1))
def _clip_gradient(lo, hi, x):
    return x                      # JAX's documented clip_gradient


_clip_gradient.defvjp(lambda lo, hi, x: (x, None),
                      lambda lo, hi, _, g: (xnp.clip(g, lo, hi),))


def test_forward_mode_refuses_a_bwd_that_is_not_linear():
    """Transposing bwd is the forward derivative only for a bwd linear in g:
    a gradient clip gives none, so forward mode raises instead of giving a
    second answer beside grad's."""
    f = lambda x: 3.0 * _clip_gradient(-1.0, 1.0, x)        # noqa: E731
    x = np.array([2.0, 3.0])
    assert_close(xgrad.grad(lambda x: xnp.sum(f(x)))(x), [1.0, 1.0])
    for call in (lambda: xgrad.jacfwd(f)(x), lambda: xgrad.jvp(f, (x,), (np.ones(2),)),
                 lambda: xgrad.linearize(f, x)):
        with pytest.raises(TypeError, match=r"_clip_gradient: its bwd is not linear in the "
                                            r"cotangent g \(it applies (maximum|minimum|clip)"):
            call()


@pytest.mark.parametrize("kind", ["divide", "solve", "where", "matmul"])
def test_forward_mode_through_a_linear_bwd_matches_reverse(kind):
    A = np.array([[2.0, 0.5], [0.3, 1.5]])

    @xgrad.custom_vjp
    def f(x):
        return {"divide": x / 3.0 + x * x, "solve": xnp.linalg.solve(A, x) + x * x,
                "where": xnp.where(x > 0, x, 0.0) + x * x, "matmul": A @ x + x * x}[kind]

    def bwd(x, g):
        lin = {"divide": g / 3.0, "solve": xnp.linalg.solve(A.T, g),
               "where": xnp.where(x > 0, g, 0.0), "matmul": A.T @ g}[kind]
        return (lin + 2.0 * x * g,)
    f.defvjp(lambda x: (f(x), x), bwd)
    x = np.array([0.7, -0.4])
    assert_close(xgrad.jacfwd(f)(x), xgrad.jacrev(f)(x), rtol=1e-12, atol=1e-14)
