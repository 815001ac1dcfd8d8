"""xgrad.lax against jax.lax: values, reverse and forward derivatives,
second order, and vmap with per-example predicates, bounds and indices
(where each construct takes JAX's batching rule: select, or run until every
example is done). Reverse mode through while_loop, which JAX refuses, is
checked against the same loop unrolled by hand."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad import lax

R = np.random.default_rng(0)
X = R.standard_normal(5)
W = R.standard_normal((3, 3)) * 0.5


@pytest.fixture
def jl(jax):
    return jax.lax, jax.numpy


def close(a, b, rtol=1e-12, atol=1e-13):
    la, lb = xgrad.tree.leaves(a), [np.asarray(v) for v in __import__("jax").tree_util.tree_leaves(b)]
    assert len(la) == len(lb)
    for u, v in zip(la, lb):
        np.testing.assert_allclose(np.asarray(u), v, rtol=rtol, atol=atol)


def both(make, jax, *args, order=2, batched=None):
    """make(lax, np) -> f; compare value, grad, jvp, hessian-vector and vmap."""
    jlax, jnp = jax.lax, jax.numpy
    f, jf = make(lax, xnp), make(jlax, jnp)
    jargs = [jnp.asarray(a) for a in args]
    close(f(*args), jf(*jargs))

    def s(g, N, leaves):
        return lambda *a: sum(N.sum(v) for v in leaves(g(*a)))
    fs, jfs = s(f, xnp, xgrad.tree.leaves), s(jf, jnp, jax.tree_util.tree_leaves)
    argn = tuple(range(len(args)))
    close(xgrad.grad(fs, argnums=argn)(*args), jax.grad(jfs, argnums=argn)(*jargs))
    t = [R.standard_normal(np.shape(a)) for a in args]
    close(xgrad.jvp(f, tuple(args), tuple(t))[1],
          jax.jvp(jf, tuple(jargs), tuple(jnp.asarray(v) for v in t))[1])
    if order >= 2:
        close(xgrad.jvp(xgrad.grad(fs), (args[0],), (t[0],))[1],
              jax.jvp(jax.grad(jfs), (jargs[0],), (jnp.asarray(t[0]),))[1], rtol=1e-10)
    if batched is not None:
        bs = [np.stack([a, a * 0.5 - 0.3, -a]) for a in args]
        close(xgrad.vmap(f)(*bs), jax.vmap(jf)(*[jnp.asarray(b) for b in bs]))
        close(xgrad.vmap(xgrad.grad(fs))(*bs), jax.vmap(jax.grad(jfs))(*[jnp.asarray(b) for b in bs]))


def test_cond(jax):
    def make(L, N):
        return lambda x: L.cond(N.sum(x) > 0.1, lambda v: N.sin(v) * v, lambda v: N.exp(v), x)
    both(make, jax, X, batched=True)
    both(make, jax, -X, batched=True)


def test_cond_operand_pytree_and_types(jax):
    def make(L, N):
        return lambda x: L.cond(x[0] > 0, lambda p: (p[0] * 2, p[1]), lambda p: (p[1], p[0] ** 2),
                                (x[1:3], x[3:5]))
    both(make, jax, X, batched=True)
    with pytest.raises(TypeError, match="equal types|same pytree"):
        xgrad.vmap(lambda x: lax.cond(x > 0, lambda: x, lambda: xnp.stack([x, x])))(X)


def test_switch(jax):
    def make(L, N):
        branches = [lambda v: v * 2, lambda v: N.sin(v), lambda v: v ** 3]
        return lambda x: L.switch(N.asarray(N.floor(x[0] * 2), dtype=int), branches, x)
    both(make, jax, X, batched=True)
    for i in (-4, 0, 1, 2, 9):                          # clamped, as in JAX
        got = lax.switch(i, [lambda: 0.0, lambda: 1.0, lambda: 2.0])
        assert float(got) == float(jax.lax.switch(i, [lambda: 0.0, lambda: 1.0, lambda: 2.0]))


def test_select_and_select_n(jax):
    jnp = jax.numpy
    p = X > 0
    close(lax.select(p, X, -X), jax.lax.select(jnp.asarray(p), jnp.asarray(X), jnp.asarray(-X)))
    which = np.asarray([0, 1, 2, 1, 0])
    close(lax.select_n(which, X, 2 * X, 3 * X),
          jax.lax.select_n(jnp.asarray(which), *(jnp.asarray(k * X) for k in (1, 2, 3))))
    close(lax.select_n(p, X, 2 * X), jax.lax.select_n(jnp.asarray(p), jnp.asarray(X),
                                                      jnp.asarray(2 * X)))
    with pytest.raises(TypeError, match="boolean"):
        lax.select(X, X, X)


def test_fori_loop(jax):
    def make(L, N):
        return lambda x: L.fori_loop(0, 4, lambda i, v: N.tanh(W.astype(v.dtype)[:, :3] @ v[:3])
                                     .sum() * v + i, x)
    both(make, jax, X, batched=True)


def test_fori_loop_batched_bounds(jax):
    jnp = jax.numpy
    f = lambda n, x: lax.fori_loop(0, n, lambda i, v: v * 1.5 + i, x)          # noqa: E731
    jf = lambda n, x: jax.lax.fori_loop(0, n, lambda i, v: v * 1.5 + i, x)     # noqa: E731
    ns = np.asarray([0, 3, 1, 5])
    xs = R.standard_normal(4)
    close(xgrad.vmap(f)(ns, xs), jax.vmap(jf)(jnp.asarray(ns), jnp.asarray(xs)))
    close(xgrad.vmap(xgrad.grad(f, argnums=1))(ns, xs), 1.5 ** ns)


def test_while_loop_values_jvp_and_vmap(jax):
    def make(L, N):
        def f(x):
            return L.while_loop(lambda s: s[1] < 10.0, lambda s: (s[0] * 1.1 + N.sin(s[0]),
                                                                  s[1] + N.exp(s[0][0] * 0.1)),
                                (x, N.asarray(0.0)))[0]
        return f
    xs = np.stack([X, X + 3.0, -X])
    jf = make(jax.lax, jax.numpy)
    f = make(lax, xnp)
    close(f(X), jf(jax.numpy.asarray(X)))
    close(xgrad.jvp(f, (X,), (X,))[1], jax.jvp(jf, (jax.numpy.asarray(X),), (jax.numpy.asarray(X),))[1])
    close(xgrad.vmap(f)(xs), jax.vmap(jf)(jax.numpy.asarray(xs)))
    close(xgrad.vmap(lambda x: xgrad.jvp(f, (x,), (x,))[1])(xs),
          jax.vmap(lambda x: jax.jvp(jf, (x,), (x,))[1])(jax.numpy.asarray(xs)))


def test_while_loop_reverse_mode_beyond_jax():
    # JAX refuses reverse mode through while_loop; xgrad's forward run knows its
    # trip count: the gradient is the unrolled loop's
    def body(s):
        x, k = s
        return (x * 1.25 + 0.2 * xnp.sin(x) * x, k + 1)

    def f(x):
        return xnp.sum(lax.while_loop(lambda s: xnp.sum(s[0] ** 2) < 40.0, body, (x, 0))[0])

    x0 = X * 0.3
    n = int(lax.while_loop(lambda s: xnp.sum(s[0] ** 2) < 40.0, body, (x0, 0))[1])
    assert n >= 2

    def unrolled(x):
        for _ in range(n):
            x = body((x, 0))[0]
        return xnp.sum(x)
    np.testing.assert_allclose(xgrad.grad(f)(x0), xgrad.grad(unrolled)(x0), rtol=1e-14)
    np.testing.assert_allclose(xgrad.hessian(f)(x0), xgrad.hessian(unrolled)(x0), rtol=1e-12)
    # and against finite differences
    e = np.eye(5)[2] * 1e-6
    fd = (float(f(x0 + e)) - float(f(x0 - e))) / 2e-6
    np.testing.assert_allclose(xgrad.grad(f)(x0)[2], fd, rtol=1e-6)
    # per-example trip counts under vmap, reverse mode included
    xs = np.stack([x0, x0 * 2.0, x0 * 0.5])
    per = [xgrad.grad(f)(x) for x in xs]
    np.testing.assert_allclose(xgrad.vmap(xgrad.grad(f))(xs), np.stack(per), rtol=1e-13)


def test_scan(jax):
    def make(L, N):
        def f(x):
            def step(c, xi):
                c2 = N.tanh(c * xi + N.sum(W.astype(c.dtype)) * 0.1)
                return c2, (c2 * xi, N.cos(xi))
            c, (ys, zs) = L.scan(step, x[0], x)
            return N.sum(ys) + c + N.sum(zs * zs)
        return f
    both(make, jax, X, batched=True)


def test_scan_reverse_length_pytrees(jax):
    jnp = jax.numpy
    xs = {"a": R.standard_normal((4, 2)), "b": R.standard_normal(4)}

    def f(L, N, xs):
        return L.scan(lambda c, x: ((c[0] + N.sum(x["a"]) * c[1], c[1] * x["b"]), c[0] * x["b"]),
                      (N.asarray(0.5), N.asarray(1.0)), xs, reverse=True)
    close(f(lax, xnp, xs), f(jax.lax, jnp, jax.tree_util.tree_map(jnp.asarray, xs)))
    c, ys = lax.scan(lambda c, _: (c + 1.0, c * 2.0), 0.0, None, length=3)
    jc, jys = jax.lax.scan(lambda c, _: (c + 1.0, c * 2.0), 0.0, None, length=3)
    close((c, ys), (jc, jys))
    c, ys = lax.scan(lambda c, x: (c + x, x * 2.0), 0.0, np.zeros(0))
    assert float(c) == 0.0 and np.asarray(ys).shape == (0,)
    with pytest.raises(TypeError, match="equal types"):
        lax.scan(lambda c, x: (xnp.stack([c, c]), x), np.asarray(0.0), np.ones(3))
    with pytest.raises(ValueError, match="length"):
        lax.scan(lambda c, x: (c, x), 0.0, None)
    with pytest.raises(ValueError, match="agree"):
        lax.scan(lambda c, x: (c, x), 0.0, (np.ones(3), np.ones(4)))


def test_map(jax):
    def make(L, N):
        return lambda x: L.map(lambda r: N.sum(N.sin(r) * r), x.reshape(5, 1) * N.ones((5, 3)))
    both(make, jax, X, batched=True)


@pytest.mark.parametrize("n", [1, 2, 5, 8])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan(jax, n, reverse):
    jnp = jax.numpy
    x = R.standard_normal((n, 3))

    def make(L, N):
        return lambda v: L.associative_scan(lambda a, b: (a[0] * b[0], a[1] * b[0] + b[1]),
                                            (N.tanh(v), v), reverse=reverse)
    close(make(lax, xnp)(x), make(jax.lax, jnp)(jnp.asarray(x)))
    close(lax.associative_scan(xnp.add, x, axis=1), jax.lax.associative_scan(jnp.add, jnp.asarray(x),
                                                                            axis=1))
    g = xgrad.grad(lambda v: xnp.sum(make(lax, xnp)(v)[1] ** 2))(x)
    jg = jax.grad(lambda v: jnp.sum(make(jax.lax, jnp)(v)[1] ** 2))(jnp.asarray(x))
    close(g, jg)


def test_dynamic_slice_and_update(jax):
    jnp = jax.numpy
    A = R.standard_normal((5, 4))
    for start in [(1, 2), (4, 3), (-1, 0), (-9, 7)]:          # clamped, negatives wrap
        close(lax.dynamic_slice(A, start, (2, 2)),
              jax.lax.dynamic_slice(jnp.asarray(A), start, (2, 2)))
        close(lax.dynamic_update_slice(A, np.ones((2, 3)), start),
              jax.lax.dynamic_update_slice(jnp.asarray(A), jnp.ones((2, 3)), start))
    # traced starts under grad and per-example starts under vmap
    def f(L, N, a, i):
        return N.sum(L.dynamic_slice(a, (i, 1), (3, 2)) ** 2) + \
            N.sum(L.dynamic_update_slice(a, a[:2, :2] * 3.0, (i, i)) ** 3)
    ii = np.asarray([0, 2, 4, -1])
    got = xgrad.vmap(xgrad.grad(lambda a, i: f(lax, xnp, a, i)), in_axes=(None, 0))(A, ii)
    want = jax.vmap(jax.grad(lambda a, i: f(jax.lax, jnp, a, i)), in_axes=(None, 0))(jnp.asarray(A),
                                                                                      jnp.asarray(ii))
    close(got, want)
    close(xgrad.vmap(lambda i: lax.dynamic_index_in_dim(A, i, 0, keepdims=False))(ii),
          jax.vmap(lambda i: jax.lax.dynamic_index_in_dim(jnp.asarray(A), i, 0, keepdims=False))(
              jnp.asarray(ii)))
    close(lax.dynamic_update_index_in_dim(A, np.zeros(4), 2, 0),
          jax.lax.dynamic_update_index_in_dim(jnp.asarray(A), jnp.zeros(4), 2, 0))
    close(lax.dynamic_slice_in_dim(A, 1, 2, axis=1),
          jax.lax.dynamic_slice_in_dim(jnp.asarray(A), 1, 2, axis=1))
    close(lax.dynamic_update_slice_in_dim(A, np.ones((5, 1)), 3, axis=1),
          jax.lax.dynamic_update_slice_in_dim(jnp.asarray(A), jnp.ones((5, 1)), 3, axis=1))
    close(lax.slice(A, (1, 0), (4, 4), (2, 3)), jax.lax.slice(jnp.asarray(A), (1, 0), (4, 4), (2, 3)))
    close(lax.slice_in_dim(A, 1, -1, axis=0), jax.lax.slice_in_dim(jnp.asarray(A), 1, -1, axis=0))
    close(lax.index_in_dim(A, 2, 1, keepdims=False),
          jax.lax.index_in_dim(jnp.asarray(A), 2, 1, keepdims=False))
    with pytest.raises(ValueError, match="one start index"):      # jax's ValueError
        lax.dynamic_slice(A, (1,), (2, 2))


def test_stop_gradient_is_xgrads():
    assert lax.stop_gradient is xgrad.stop_gradient
    assert float(xgrad.grad(lambda x: x * lax.stop_gradient(x))(3.0)) == 3.0
