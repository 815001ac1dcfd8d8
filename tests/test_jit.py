"""xgrad.jit: replayed results equal eager ones, a staged Program is reused
for its signature, guards re-stage instead of replaying a stale branch, and
jit composes with the transforms in both orders."""
import tracemalloc
import warnings

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad import lax

R = np.random.default_rng(0)


def mlp(params, x):
    for w, b in params[:-1]:
        x = xnp.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss(params, x, y):
    return xnp.mean((mlp(params, x) - y) ** 2)


PARAMS = [(R.standard_normal((4, 16)) * 0.5, R.standard_normal(16) * 0.1),
          (R.standard_normal((16, 16)) * 0.3, R.standard_normal(16) * 0.1),
          (R.standard_normal((16, 1)) * 0.3, R.standard_normal(1) * 0.1)]
X, Y = R.standard_normal((32, 4)), R.standard_normal((32, 1))


def assert_tree(a, b, rtol=1e-13, atol=0):
    la, lb = xgrad.tree.leaves(a), xgrad.tree.leaves(b)
    assert len(la) == len(lb)
    for u, v in zip(la, lb):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=rtol, atol=atol)


def test_replay_equals_eager_and_stages_once():
    f = xgrad.jit(loss)
    for k in range(4):
        x = X * (1 + 0.1 * k)
        assert_tree(f(PARAMS, x, Y), loss(PARAMS, x, Y))
    assert f.stagings == 1
    # a new shape is a new signature
    assert_tree(f(PARAMS, X[:5], Y[:5]), loss(PARAMS, X[:5], Y[:5]))
    assert f.stagings == 2 and f.cache_info() == (2, 2)


@pytest.mark.parametrize("name", ["grad", "value_and_grad", "hessian", "jacfwd", "jacrev"])
def test_jit_of_transform_is_one_program(name):
    t = getattr(xgrad, name)
    small = [(w[:, :3] if w.ndim == 2 else w[:3], b[:3]) for w, b in PARAMS[:1]] + \
        [(PARAMS[2][0][:3], PARAMS[2][1])]
    fn = t(lambda p, x: loss(p, x, Y[:4]))
    jf = xgrad.jit(fn)
    for k in range(3):
        x = X[:4] * (1 + 0.2 * k)
        assert_tree(jf(small, x), fn(small, x), rtol=1e-12)
    assert jf.stagings == 1


def test_jit_inside_transforms():
    jl = xgrad.jit(loss)
    assert_tree(xgrad.grad(jl)(PARAMS, X, Y), xgrad.grad(loss)(PARAMS, X, Y))
    h = lambda v: xnp.sum(xnp.sin(v) ** 3)                        # noqa: E731
    jh = xgrad.jit(h)
    v = R.standard_normal(4)
    assert_tree(xgrad.hessian(jh)(v), xgrad.hessian(h)(v))
    b = R.standard_normal((3, 4))
    assert_tree(xgrad.vmap(jh)(b), xgrad.vmap(h)(b))
    assert_tree(xgrad.jit(xgrad.vmap(h))(b), xgrad.vmap(h)(b))
    assert_tree(xgrad.jit(xgrad.vmap(xgrad.grad(h)))(b), xgrad.vmap(xgrad.grad(h))(b))
    assert_tree(xgrad.jit(xgrad.laplacian(h))(v), xgrad.laplacian(h)(v))
    assert_tree(xgrad.jvp(jh, (v,), (v,)), xgrad.jvp(h, (v,), (v,)))
    # jit of jit
    assert_tree(xgrad.jit(lambda v: jh(v) * 2)(v), 2 * h(v))


def test_guards_restage_instead_of_a_stale_branch():
    def f(x):
        if xnp.sum(x) > 0:                      # Python control flow on a traced value
            return xnp.sum(x ** 2)
        return -xnp.sum(xnp.exp(x))
    jf = xgrad.jit(f)
    pos, neg = np.abs(R.standard_normal(3)), -np.abs(R.standard_normal(3))
    for x in [pos, neg, pos * 2, neg * 3, pos]:
        assert float(jf(x)) == float(f(x))
    assert jf.stagings == 2                     # one Program per branch, both kept
    g = xgrad.jit(xgrad.grad(f))
    for x in [pos, neg, pos * 2, neg * 3]:
        assert_tree(g(x), xgrad.grad(f)(x))
    assert g.stagings == 2


def test_concrete_reads_are_guarded():
    def f(x, n):
        k = int(n)                              # a value turned into a Python int
        return xnp.sum(x[:k]) * float(n)
    jf = xgrad.jit(f)
    x = np.arange(6.0)
    for n in [2, 4, 2, 5]:
        assert float(jf(x, np.asarray(n))) == float(f(x, np.asarray(n)))
    # an index array read from a traced value, and a value-dependent shape
    def g(x):
        return xnp.sum(x[x > 0.5] ** 2)
    jg = xgrad.jit(g)
    for x in [R.standard_normal(6) for _ in range(3)]:
        assert float(jg(x)) == pytest.approx(float(g(x)), rel=1e-15)


def test_restage_warning_for_value_dependent_functions():
    jf = xgrad.jit(lambda x: x * float(x), restage_warning=3)
    with pytest.warns(RuntimeWarning, match="staged again 3 times"):
        for k in range(12):
            assert float(jf(np.asarray(float(k)))) == float(k * k)


def test_nonfinite_gradient_is_guarded_too():
    # the transforms compute a gradient the fast way and recompute NaN-safely
    # when it is not finite: under jit that decision is a guard as well
    def f(x):
        return xnp.sum(xnp.where(x > 0, xnp.sqrt(xnp.where(x > 0, x, 1.0)), 0.0) * 0 +
                       xnp.where(x > 0, xnp.sqrt(xnp.abs(x)), x))
    g = xgrad.jit(xgrad.grad(f))
    for x in [np.asarray([1.0, 2.0]), np.asarray([0.0, -1.0]), np.asarray([4.0, 0.0])]:
        want = xgrad.grad(f)(x)
        got = g(x)
        assert np.all(np.isfinite(want))
        np.testing.assert_array_equal(got, want)


def test_static_arguments():
    calls = []

    def f(x, n, *, mode):
        calls.append(1)                              # side effects run at staging only
        y = x
        for _ in range(n):
            y = xnp.sin(y)
        return y * 2 if mode == "double" else y
    jf = xgrad.jit(f, static_argnums=1, static_argnames="mode")
    x = R.standard_normal(3)
    for n, mode in [(1, "double"), (2, "double"), (1, "double"), (2, "single")]:
        assert_tree(jf(x, n, mode=mode), f(x, n, mode=mode))
    assert jf.stagings == 3
    assert len(calls) == 3 + 4
    with pytest.raises(TypeError, match="static argument 1 must be hashable"):
        jf(x, [1], mode="double")
    # static_argnames resolves to positions, as in JAX
    jg = xgrad.jit(lambda x, n: x * n, static_argnames="n")
    assert float(jg(np.asarray(2.0), 3)) == 6.0 and float(jg(np.asarray(2.0), n=4)) == 8.0
    # decorator form
    @xgrad.jit
    def h(x):
        return x + 1
    assert float(h(np.asarray(1.0))) == 2.0
    deco = xgrad.jit(static_argnums=(1,))
    assert float(deco(lambda x, k: x * k)(np.asarray(3.0), 2)) == 6.0


def test_python_scalars_are_part_of_the_signature():
    jf = xgrad.jit(lambda x, s: x * s)
    x = np.ones(2, dtype=np.float32)
    out = jf(x, 2.0)
    assert out.dtype == np.float32 and float(out[0]) == 2.0           # weak scalar, as eager
    assert float(jf(x, 3.0)[0]) == 3.0 and jf.stagings == 2


def test_cache_is_bounded():
    jf = xgrad.jit(lambda x: x * 2, cache_size=2)
    for n in range(1, 6):
        jf(np.ones(n))
    assert jf.cache_info()[0] == 2
    with pytest.raises(ValueError, match="cache_size"):
        xgrad.jit(lambda x: x, cache_size=0)


def test_outputs_and_inputs_are_not_shared():
    jf = xgrad.jit(lambda x: (x, xnp.zeros(2), 3))
    x = np.ones(2)
    a, z, k = jf(x)
    z[0] = 5.0
    a2, z2, k2 = jf(x)
    # an input passed through is a copy (the caller may write either)
    assert a is not x and a2 is not x and float(z2[0]) == 0.0 and k2 == 3
    np.testing.assert_array_equal(a2, x)
    # the caller's arrays are never written
    w = R.standard_normal(4)
    w0 = w.copy()
    xgrad.jit(xgrad.grad(lambda v: xnp.sum(v ** 3)))(w)
    np.testing.assert_array_equal(w, w0)


def test_control_flow_under_jit():
    def f(x):
        c, ys = lax.scan(lambda c, xi: (c * 0.9 + xi, c * xi), 0.0, x)
        return lax.cond(c > 0, lambda: c + xnp.sum(ys), lambda: -c) + \
            lax.fori_loop(0, 3, lambda i, v: v * x[0], 1.0)
    jf = xgrad.jit(f)
    for x in [R.standard_normal(5) for _ in range(4)]:
        np.testing.assert_allclose(jf(x), f(x), rtol=1e-14)
    assert_tree(xgrad.jit(xgrad.grad(f))(x), xgrad.grad(f)(x))


def test_custom_rules_and_checkpoint_under_jit():
    @xgrad.custom_vjp
    def clip_grad(x):
        return x

    clip_grad.defvjp(lambda x: (x, None), lambda _, g: (xnp.clip(g, -0.1, 0.1),))

    def f(x):
        return xnp.sum(xgrad.checkpoint(lambda v: xnp.sin(v) * v)(clip_grad(x)) ** 2)
    g = xgrad.jit(xgrad.grad(f))
    for x in [R.standard_normal(4) for _ in range(3)]:
        assert_tree(g(x), xgrad.grad(f)(x))


def test_replayed_gradient_peaks_no_higher_than_eager():
    params = [(R.standard_normal((64, 256)), R.standard_normal(256)),
              (R.standard_normal((256, 256)), R.standard_normal(256)),
              (R.standard_normal((256, 1)), R.standard_normal(1))]
    x, y = R.standard_normal((512, 64)), R.standard_normal((512, 1))
    g = xgrad.grad(loss)
    jg = xgrad.jit(g)
    jg(params, x, y)                                   # staged

    def peak(fn):
        tracemalloc.start()
        fn(params, x, y)
        p = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return p
    eager, replay = peak(g), peak(jg)
    assert replay <= eager * 1.05, (replay, eager)


def test_no_warnings_from_plain_replays():
    jf = xgrad.jit(loss)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            jf(PARAMS, X, Y)


# ----- found by an adversarial review -----------------------------------------

def test_jit_of_wrapped_jitted_functions_runs_the_wrapper():
    import functools
    f = xgrad.jit(lambda x: xnp.sum(xnp.sin(x)))
    b = np.ones((3, 2))
    np.testing.assert_allclose(xgrad.jit(xgrad.vmap(f))(b), np.full(3, 2 * np.sin(1.0)))

    def deco(fn):
        @functools.wraps(fn)
        def w(*a):
            return fn(*a) * 2
        return w
    x = np.array([1.0, 2.0])
    assert float(xgrad.jit(deco(f))(x)) == pytest.approx(2 * float(np.sum(np.sin(x))))


def test_vmapped_while_loop_under_jit_guards_its_trip_count():
    f = lambda x: xgrad.vmap(lambda v: lax.while_loop(lambda s: s < 10.0,             # noqa: E731
                                                      lambda s: s * 2.0, v))(x)
    jf = xgrad.jit(f)
    for x in [np.array([1.0, 3.0]), np.array([0.01, 3.0]), np.array([5.0, 0.2])]:
        np.testing.assert_array_equal(jf(x), f(x))


def test_guards_keep_copies_of_the_values_they_read():
    jg = xgrad.jit(lambda x: xnp.ones(2) * float(x))
    a = np.array(2.0)
    jg(a)
    a[...] = 5.0                                      # the caller writes its array in place
    np.testing.assert_array_equal(jg(a), [5.0, 5.0])


def test_signed_zeros_and_nans_in_signatures_and_guards():
    jh = xgrad.jit(lambda x, s: x / s)
    assert float(jh(np.array(1.0), 0.0)) == np.inf
    assert float(jh(np.array(1.0), -0.0)) == -np.inf
    for _ in range(3):
        assert np.isnan(float(jh(np.array(1.0), float("nan"))))
    assert jh.stagings == 3                            # a NaN scalar is one signature
    jf = xgrad.jit(lambda x: 1.0 / xnp.asarray(float(x)))
    assert float(jf(np.array(0.0))) == np.inf
    assert float(jf(np.array(-0.0))) == -np.inf


def test_non_array_leaves_are_refused_like_jax():
    class Res:
        def __init__(self, v):
            self.v = v
    with pytest.raises(TypeError, match="output leaf 0 is a Res"):
        xgrad.jit(lambda x: Res(x * 2))(np.array(1.0))
    with pytest.raises(TypeError, match="argument leaf 0 is a Res"):
        xgrad.jit(lambda p, x: x * p.v)(Res(np.array(2.0)), np.array(1.0))
    # as a static argument it is fine (hashed by identity: the caller's choice)
    r = Res(2.0)
    assert float(xgrad.jit(lambda p, x: x * p.v, static_argnums=0)(r, np.array(3.0))) == 6.0


def test_traced_indices_and_shifts_under_jit():
    D = np.arange(10.0) * 2
    np.testing.assert_array_equal(xgrad.jit(lambda j: xnp.asarray(D)[j])(np.array([1, 3])), [2, 6])
    jr = xgrad.jit(lambda v, s: xnp.roll(v, s))
    for s in (1, 3):
        np.testing.assert_array_equal(jr(np.arange(5.0), np.asarray(s)), np.roll(np.arange(5.0), s))


def test_transforms_of_a_jitted_function_replay_its_program():
    calls = []

    def f(x):
        calls.append(1)
        y = xnp.sin(x) * x
        if xnp.sum(y) > 0:            # a guard on the flag (float() would guard the value)
            return xnp.sum(y ** 2)
        return xnp.sum(xnp.cos(y))
    jf = xgrad.jit(f)
    pos, neg = np.array([0.5, 1.0, 1.5]), np.array([4.0, 4.5, 5.0])
    for x in (pos, neg, pos * 1.1, neg * 1.01):
        assert_tree(xgrad.grad(jf)(x), xgrad.grad(f)(x), rtol=1e-15)
        assert_tree(xgrad.hessian(jf)(x), xgrad.hessian(f)(x), rtol=1e-14)
        assert_tree(xgrad.jvp(jf, (x,), (x,)), xgrad.jvp(f, (x,), (x,)), rtol=1e-15)
    n = len(calls)
    for x in (pos * 0.9, neg * 0.99):               # both branches are cached by now
        xgrad.grad(jf)(x)
        xgrad.hessian(jf)(x)
    assert len(calls) == n                           # no Python body: the Program replayed
    # per-example values (vmap) run the function as it is
    b = np.stack([pos, neg])
    assert_tree(xgrad.vmap(xgrad.grad(lambda v: xnp.sum(xnp.sin(v) * v)))(b),
                xgrad.vmap(xgrad.grad(xgrad.jit(lambda v: xnp.sum(xnp.sin(v) * v))))(b))


def test_a_jitted_function_closing_over_a_tracer_runs_as_it_is():
    x = np.array([0.3, -0.7])

    def outer(w):
        inner = xgrad.jit(lambda v: xnp.sum(xnp.tanh(v * w)))
        return inner(x) * w
    g = xgrad.grad(outer)(1.3)
    eager = xgrad.grad(lambda w: xnp.sum(xnp.tanh(x * w)) * w)(1.3)
    np.testing.assert_allclose(g, eager, rtol=1e-15)
    # the same jitted function under two different outer tracers
    w_box = {}
    jitted = xgrad.jit(lambda v: xnp.sum(v * w_box["w"]))
    for w0 in (2.0, 3.0):
        def f(w):
            w_box["w"] = w
            return jitted(x)
        np.testing.assert_allclose(xgrad.grad(f)(w0), np.sum(x), rtol=1e-15)


def test_jit_of_grad_of_jit_keeps_the_inner_guards():
    inner = xgrad.jit(lambda x: xnp.sum(x ** 2) if float(xnp.sum(x)) > 0 else xnp.sum(x ** 3))
    outer = xgrad.jit(xgrad.grad(inner))
    for x in (np.array([1.0, 2.0]), np.array([-1.0, -2.0]), np.array([3.0, 1.0])):
        expect = 2 * x if x.sum() > 0 else 3 * x ** 2
        np.testing.assert_allclose(outer(x), expect, rtol=1e-15)
        np.testing.assert_allclose(xgrad.grad(inner)(x), expect, rtol=1e-15)


def test_custom_rules_inside_a_jitted_function_under_grad():
    @xgrad.custom_vjp
    def clip_grad(x):
        return x

    clip_grad.defvjp(lambda x: (x, None), lambda _, g: (xnp.clip(g, -1.0, 1.0),))

    def f(x):
        return xnp.sum(clip_grad(x) * np.array([3.0, 0.5]))
    jf = xgrad.jit(f)
    x = np.array([1.0, 2.0])
    for _ in range(2):
        np.testing.assert_allclose(xgrad.grad(jf)(x), [1.0, 0.5], rtol=0)
    ck = xgrad.jit(xgrad.checkpoint(lambda x: xnp.sin(xnp.sin(x))))
    for _ in range(2):
        np.testing.assert_allclose(xgrad.grad(lambda x: xnp.sum(ck(x)))(x),
                                   np.cos(np.sin(x)) * np.cos(x), rtol=1e-15)
