"""jit and lax on every array backend of the ``xp`` fixture (numpy,
array_api_strict; cupy where a GPU is): the replay equals eager, its result
stays on the input's backend and device, guards re-stage, and jit composes
with grad and vmap in both orders; the lax loops and branches give the
same values and derivatives as their Python equivalents."""
import numpy as np

import xgrad
import xgrad.numpy as xnp
from xgrad import lax


def _np(a):
    return np.asarray(xgrad.tree.leaves(a)[0] if isinstance(a, (tuple, list)) else a)


def _same(a, b, rtol=0.0):
    la, lb = xgrad.tree.leaves(a), xgrad.tree.leaves(b)
    assert len(la) == len(lb)
    for u, v in zip(la, lb):
        assert type(u) is type(v), (type(u), type(v))
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=rtol, atol=0)


def _data(xp, *shape, seed=0):
    return xp.asarray(np.random.default_rng(seed).standard_normal(shape))


def _mlp(params, x):
    (w1, b1), (w2, b2) = params
    return xnp.sum(xnp.matmul(xnp.tanh(xnp.matmul(x, w1) + b1), w2) + b2)


def test_replay_equals_eager_on_the_backend(xp):
    params = ((_data(xp, 3, 5, seed=1), _data(xp, 5, seed=2)),
              (_data(xp, 5, 2, seed=3), _data(xp, 2, seed=4)))
    jl = xgrad.jit(_mlp)
    jg = xgrad.jit(xgrad.grad(_mlp))
    for seed in range(3):
        x = _data(xp, 4, 3, seed=10 + seed)
        _same(jl(params, x), _mlp(params, x))
        _same(jg(params, x), xgrad.grad(_mlp)(params, x))
        _same(xgrad.grad(jl)(params, x), xgrad.grad(_mlp)(params, x))
    assert jl.stagings == 1 and jg.stagings == 1
    out = jg(params, x)
    assert type(out[0][0]) is type(params[0][0])


def test_guards_restage_on_the_backend(xp):
    def f(x):
        s = xnp.sum(x)
        return xnp.sum(x ** 2) if s > 0 else xnp.sum(xnp.sin(x))
    jf = xgrad.jit(f)
    gf = xgrad.jit(xgrad.grad(f))
    for sign in (1.0, -1.0, 1.0, -1.0):
        x = xp.asarray([0.5, 1.5, 2.0]) * sign
        _same(jf(x), f(x))
        _same(gf(x), xgrad.grad(f)(x))
    assert jf.stagings == 2 and gf.stagings == 2


def test_vmap_and_jit_on_the_backend(xp):
    f = lambda v: xnp.sum(xnp.exp(v) * v)              # noqa: E731
    b = _data(xp, 4, 3)
    _same(xgrad.jit(xgrad.vmap(xgrad.grad(f)))(b), xgrad.vmap(xgrad.grad(f))(b))
    _same(xgrad.vmap(xgrad.jit(f))(b), xgrad.vmap(f)(b))
    _same(xgrad.jit(xgrad.hessian(f))(b[0, ...]), xgrad.hessian(f)(b[0, ...]))


def test_lax_loops_and_branches_on_the_backend(xp):
    x = xp.asarray([0.3, -0.4, 0.9])

    def by_scan(x):
        def step(c, xi):
            c = xnp.sin(c) * xi + 0.5
            return c, c * 2.0
        c, ys = lax.scan(step, x, xnp.stack([x, x * 2.0, -x]))
        return xnp.sum(c) + xnp.sum(ys)

    def by_python(x):
        c, total = x, 0.0
        for xi in (x, x * 2.0, -x):
            c = xnp.sin(c) * xi + 0.5
            total = total + xnp.sum(c * 2.0)
        return xnp.sum(c) + total

    def by_loops(x):
        y = lax.fori_loop(0, 3, lambda i, c: c * xnp.cos(c) + 0.1, x)
        z = lax.while_loop(lambda c: xnp.sum(c) < 5.0, lambda c: c * 1.5 + 0.2, y)
        return lax.cond(xnp.sum(z) > 0, lambda v: xnp.sum(v ** 2), lambda v: xnp.sum(v), z)

    def by_python_loops(x):
        y = x
        for _ in range(3):
            y = y * xnp.cos(y) + 0.1
        while float(xnp.sum(y)) < 5.0:
            y = y * 1.5 + 0.2
        return xnp.sum(y ** 2) if float(xnp.sum(y)) > 0 else xnp.sum(y)

    for lax_f, py_f in ((by_scan, by_python), (by_loops, by_python_loops)):
        np.testing.assert_allclose(_np(lax_f(x)), _np(py_f(x)), rtol=1e-14)
        np.testing.assert_allclose(_np(xgrad.grad(lax_f)(x)), _np(xgrad.grad(py_f)(x)),
                                   rtol=1e-13)
        np.testing.assert_allclose(_np(xgrad.jit(xgrad.grad(lax_f))(x)),
                                   _np(xgrad.grad(py_f)(x)), rtol=1e-13)
        np.testing.assert_allclose(_np(xgrad.hessian(lax_f)(x)), _np(xgrad.hessian(py_f)(x)),
                                   rtol=1e-12, atol=1e-14)
        assert type(xgrad.grad(lax_f)(x)) is type(x)


def test_dynamic_slices_and_select_on_the_backend(xp):
    x = _data(xp, 6)

    def f(x, i):
        s = lax.dynamic_slice(x, (i,), (3,))
        y = lax.dynamic_update_slice(x, s * 2.0, (i,))
        return xnp.sum(lax.select(y > 0, y, -y) * x)
    jf = xgrad.jit(f)
    for i in (0, 2, 3):
        idx = xp.asarray(i)
        _same(jf(x, idx), f(x, idx))
        _same(xgrad.jit(xgrad.grad(f))(x, idx), xgrad.grad(f)(x, idx))
    assert jf.stagings == 3        # the start index is read: a guard per value


def test_associative_scan_and_static_slices_on_the_backend(xp):
    x = _data(xp, 5, 2)

    def f(x):
        c = lax.associative_scan(xnp.add, x)             # cumulative sum along axis 0
        s = lax.slice_in_dim(c, 1, 4, axis=0)
        return xnp.sum(s * lax.index_in_dim(x, 2, keepdims=False))
    expect_c = np.cumsum(np.asarray(x), axis=0)
    np.testing.assert_allclose(_np(f(x)), np.sum(expect_c[1:4] * np.asarray(x)[2]), rtol=1e-14)
    _same(xgrad.jit(f)(x), f(x))
    _same(xgrad.jit(xgrad.grad(f))(x), xgrad.grad(f)(x))


def test_arange_with_a_traced_bound_is_a_value_dependent_shape(xp):
    def f(x):
        n = xnp.sum(xnp.astype(x > 0, xnp.int64))
        return xnp.sum(x * xnp.astype(xnp.arange(x.shape[0], device=x.device), x.dtype)) + \
            xnp.astype(xnp.sum(xnp.arange(n, device=x.device)), x.dtype)
    jf = xgrad.jit(f)
    for v in ([1.0, 2.0, -1.0], [1.0, 2.0, 1.0], [1.0, 2.0, -1.0]):
        x = xp.asarray(v)
        _same(jf(x), f(x))
        np.testing.assert_allclose(_np(xgrad.grad(jf)(x)), [0.0, 1.0, 2.0], rtol=0)
    assert jf.stagings == 2                    # one per count of positives
