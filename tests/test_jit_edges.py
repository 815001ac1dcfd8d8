"""jit at its edges: a closed-over array (index arrays and ``.at`` indices
included) is fixed when the function is staged, as JAX fixes constants when
it traces; every output of a call is a buffer of its own, bit for bit
unchanged by writes into the others and by later replays; argument numbers
and names are checked against the function's signature as JAX checks them;
on dask a jitted derivative stays lazy."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from helpers import assert_close


def _bits(x):
    x = np.asarray(x)
    return x.dtype, x.shape, x.tobytes()


# ----- closed-over arrays are constants of the Program ----------------------

X0 = np.array([1.0, 2.0, 3.0])

# each: (the function of x and the closed-over index, the index at staging,
# what the caller writes into the index after staging)
INDEXED = {
    "at_multiply": (lambda x, i: x.at[i].multiply(3.0), [0, 2], 1),
    "at_get_fill": (lambda x, i: x.at[i].get(mode="fill", fill_value=-1.0), [0, 1], [0, 5]),
    "at_get_fill_oob_at_staging": (lambda x, i: x.at[i].get(mode="fill"), [0, 5], [1, 2]),
    "at_get_clip": (lambda x, i: x.at[i].get(mode="clip"), [0, 1], [2, 7]),
    "at_set": (lambda x, i: x.at[i].set(7.0), [0, 1], 2),
    "at_add": (lambda x, i: x.at[i].add(xnp.asarray([10.0, 20.0])), [0, 1], [2, 2]),
    "at_max": (lambda x, i: x.at[i].max(2.5), [0, 1], 2),
    "at_set_drop": (lambda x, i: x.at[i].set(9.0, mode="drop"), [0, 9], [1, 2]),
    "getitem": (lambda x, i: x[i] * 2.0, [0, 2], 1),
    "getitem_tuple": (lambda x, i: xnp.reshape(x, (3, 1))[i, np.array([0, 0])], [0, 2], 1),
    "setitem": (lambda x, i: _setitem(x, i), [0, 1], 2),
    "take": (lambda x, i: xnp.take(x, i), [0, 2], 1),
}


def _setitem(x, i):
    y = x * 1.0
    y[i] = 7.0
    return y


@pytest.mark.parametrize("name", sorted(INDEXED))
def test_closed_over_index_written_after_staging_replays_the_staged_value(name):
    f, staged, later = INDEXED[name]
    idx = np.array(staged)
    want = f(xnp.asarray(X0), np.array(staged))        # eager, with the staged index
    jf = xgrad.jit(lambda x: f(x, idx))
    x = xnp.asarray(X0.copy())
    np.testing.assert_array_equal(jf(x), want)
    idx[...] = later
    for _ in range(2):                                   # the replays
        np.testing.assert_array_equal(jf(x), want)
    np.testing.assert_array_equal(x, X0)
    assert jf.stagings == 1


def test_closed_over_index_matches_jax(jax):
    jnp = jax.numpy
    idx = np.array([0, 2])
    got = xgrad.jit(lambda x: x.at[idx].multiply(3.0))
    want = jax.jit(lambda x: x.at[idx].multiply(3.0))
    x = xnp.asarray(X0)
    np.testing.assert_array_equal(got(x), want(jnp.asarray(X0)))
    idx[...] = 1
    np.testing.assert_array_equal(got(x), np.array([3.0, 2.0, 9.0]))
    np.testing.assert_array_equal(got(x), want(jnp.asarray(X0)))
    fill = np.array([0, 1])
    got = xgrad.jit(lambda x: x.at[fill].get(mode="fill", fill_value=-1.0))
    want = jax.jit(lambda x: x.at[fill].get(mode="fill", fill_value=-1.0))
    np.testing.assert_array_equal(got(x), want(jnp.asarray(X0)))
    fill[...] = [0, 5]
    np.testing.assert_array_equal(got(x), want(jnp.asarray(X0)))
    np.testing.assert_array_equal(got(x), np.array([1.0, 2.0]))


def test_closed_over_index_under_grad_in_jit():
    idx = np.array([0, 2])
    f = lambda x: xnp.sum(x.at[idx].multiply(3.0) ** 2)      # noqa: E731
    want = xgrad.grad(f)(X0)
    jg = xgrad.jit(xgrad.grad(f))
    np.testing.assert_array_equal(jg(X0), want)
    idx[...] = 1
    np.testing.assert_array_equal(jg(X0), want)


def test_index_written_inside_the_function_between_uses():
    idx = np.array([0, 1])

    def f(x):
        a = x[idx]
        idx[...] = 2                     # the second use reads the new contents
        b = x[idx]
        idx[...] = [0, 1]
        return a + b
    want = f(X0)
    jf = xgrad.jit(f)
    np.testing.assert_array_equal(jf(X0), want)
    np.testing.assert_array_equal(jf(X0), want)


# ----- every output is a buffer of its own ----------------------------------

C = np.arange(3.0)

OWNERSHIP = {
    # two equal outputs: the replay computes p * 0. once
    "equal_outputs": lambda p: {"m": p * 0.0, "v": p * 0.0},
    "input_passed_through": lambda p: (p, p, p * 2.0),
    "closed_over_constant": lambda p: (p + 1.0, C, C),
    "views_of_one_value": lambda p: ((p * 2.0).reshape(3, 1), (p * 2.0).reshape(1, 3),
                                     (p * 2.0)[::2]),
    "views_of_the_input": lambda p: (p.reshape(3, 1), p[::-1], xnp.broadcast_to(p, (2, 3))),
    "view_of_a_constant": lambda p: (xnp.reshape(xnp.asarray(C), (3, 1)) + 0.0 * 0, p * 1.0),
    "output_and_its_view": lambda p: (xnp.sin(p), xnp.sin(p).reshape(1, 3), xnp.sin(p).T),
    "guard_value": lambda p: _guarded(p),
}


def _guarded(p):
    m = p > 0.5                      # a boolean mask index: its value is a guard
    return m, xnp.sum(p[m]), p[m]


def _leaves(tree):
    return xgrad.tree_util.tree_leaves(tree)


def _writable(x):
    return isinstance(x, np.ndarray) and x.flags.writeable and x.size


@pytest.mark.parametrize("name", sorted(OWNERSHIP))
def test_outputs_are_distinct_buffers_no_replay_writes(name):
    f = OWNERSHIP[name]
    jf = xgrad.jit(f)
    p = np.array([0.25, 1.0, 2.0])
    p0 = _bits(p)
    want = [_bits(o) for o in _leaves(f(p.copy()))]
    c0 = _bits(C)
    kept = []
    for call in range(4):                            # the staging call, then replays
        outs = _leaves(jf(p))
        assert [_bits(o) for o in outs] == want, call
        for k, o in enumerate(outs):
            assert o is not p and o is not C
            if not _writable(o):
                continue
            o[...] = -7.0 - k                        # the caller writes each output
            for j, q in enumerate(outs):
                if j != k:
                    assert not np.shares_memory(o, q), (call, k, j)
            assert _bits(p) == p0 and _bits(C) == c0
        kept.append((outs, [_bits(o) for o in outs]))
        # no later replay writes what an earlier call returned
        for old, bits in kept:
            assert [_bits(o) for o in old] == bits, call
    assert jf.stagings == 1


def test_equal_outputs_after_the_second_call():
    p = np.ones(3)
    f = xgrad.jit(lambda p: {"m": p * 0.0, "v": p * 0.0})
    for _ in range(3):
        s = f(p)
        s["m"] += 1
        np.testing.assert_array_equal(s["v"], np.zeros(3))
        np.testing.assert_array_equal(s["m"], np.ones(3))


def test_outputs_distinct_on_array_api_strict():
    xp = pytest.importorskip("array_api_strict")
    p = xp.asarray([0.25, 1.0, 2.0])
    f = xgrad.jit(lambda p: (p, p * 0.0, p * 0.0, xnp.reshape(p, (3, 1))))
    for _ in range(3):
        a, b, c, d = f(p)
        for o in (a, b, c, d):
            o[...] = xp.asarray(5.0)
        np.testing.assert_array_equal(np.asarray(p), [0.25, 1.0, 2.0])
        a, b, c, d = f(p)
        np.testing.assert_array_equal(np.asarray(b), np.zeros(3))
        b[...] = xp.asarray(1.0)
        np.testing.assert_array_equal(np.asarray(c), np.zeros(3))


def test_fresh_outputs_are_not_copied():
    # the cost side: a fresh elementwise result is returned as it is
    f = xgrad.jit(lambda p: xnp.sin(p) * 2.0)
    p = np.ones(4)
    f(p)
    entry = next(iter(f._cache.values()))[0]
    assert "_own(" not in entry.run.source and "_copy(" not in entry.run.source


# ----- argument numbers and names are checked as JAX checks them ----------------

def _two(a, b):
    return a + b


def _kwonly(a, *, c=1.0):
    return a * c


def _posonly(a, /, b):
    return a + b


def _varargs(*a):
    return a[0]


def _varkw(a, **kw):
    return a


BAD_ARGS = [
    (_two, dict(static_argnums=3), ValueError, r"static_argnums=\(3,\).*_two accepts only 2"),
    (_two, dict(static_argnums=-3), ValueError, r"static_argnums=\(-3,\).*only 2 positional"),
    (_two, dict(static_argnums=(0, 2)), ValueError, r"static_argnums.*\[2\] is out of range"),
    (_two, dict(static_argnames="c"), ValueError, r"static_argnames names \['c'\].*'a', 'b'"),
    (_two, dict(static_argnames=("a", "zz")), ValueError, r"static_argnames names \['zz'\]"),
    (_two, dict(donate_argnums=2), ValueError, r"donate_argnums=\(2,\).*only 2 positional"),
    (_two, dict(donate_argnums=-3), ValueError, r"donate_argnums=\(-3,\)"),
    (_two, dict(donate_argnames="c"), ValueError, r"donate_argnames names \['c'\]"),
    (_two, dict(static_argnums=0, donate_argnums=0), ValueError, "cannot intersect"),
    (_two, dict(static_argnames="b", donate_argnames="b"), ValueError, "cannot intersect"),
    (_two, dict(static_argnums=1.5), TypeError, "static_argnums must be an int"),
    (_two, dict(static_argnums="a"), TypeError, "static_argnums must be an int"),
    (_two, dict(static_argnames=3), TypeError, "static_argnames must be a str"),
    (_kwonly, dict(static_argnums=1), ValueError, "_kwonly accepts only 1 positional argument"),
    (_posonly, dict(static_argnames="a"), ValueError, "positional-only"),
    (_varargs, dict(static_argnames="c"), ValueError, r"static_argnames names \['c'\]"),
]


@pytest.mark.parametrize("fun,kw,exc,match", BAD_ARGS)
def test_bad_argnums_and_argnames_raise(fun, kw, exc, match):
    with pytest.raises(exc, match=match):
        xgrad.jit(fun, **kw)
    with pytest.raises(exc, match=match):                  # the decorator form
        xgrad.jit(**kw)(fun)


def test_bad_argnums_raise_where_jax_raises(jax):
    for fun, kw, exc, _ in BAD_ARGS:
        with pytest.raises((TypeError, ValueError)):
            jax.jit(fun, **kw)


GOOD_ARGS = [
    (_two, dict(static_argnums=-1), (np.ones(2), 2.0)),
    (_two, dict(static_argnums=(1, 1), static_argnames="b"), (np.ones(2), 2.0)),
    (_two, dict(static_argnums=None, donate_argnums=0), (np.ones(2), np.ones(2))),
    (_kwonly, dict(static_argnames="c"), (np.ones(2),)),
    (_posonly, dict(static_argnums=-1), (np.ones(2), 3.0)),
    (_varargs, dict(static_argnums=5), (np.ones(2), np.ones(2))),
    (_varkw, dict(static_argnames="zz"), (np.ones(2),)),
]


@pytest.mark.parametrize("fun,kw,args", GOOD_ARGS)
def test_valid_argnums_and_argnames_accepted(jax, fun, kw, args):
    jax.jit(fun, **kw)                       # jax accepts them too
    np.testing.assert_array_equal(xgrad.jit(fun, **kw)(*args), fun(*args))


# ----- dask: a jitted derivative stays lazy -----------------------------------

def _dask():
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    r = np.random.default_rng(1)
    Xn, yn = r.standard_normal((400, 3)), r.standard_normal(400)
    return dask, da, Xn, yn, da.from_array(Xn, chunks=(100, 3)), da.from_array(yn, chunks=100)


def _refuse(*args, **kwargs):
    raise AssertionError("a dask array was computed implicitly")


DASK_LOSSES = {
    "tanh": lambda w, X, y: xnp.mean((xnp.tanh(X @ w) - y) ** 2),
    "where_sqrt": lambda w, X, y: xnp.sum(xnp.where(X @ w > 0, xnp.sqrt(xnp.abs(X @ w)), 0.0)),
    "reductions": lambda w, X, y: xnp.max(X @ w) + xnp.var(X @ w) * w[0],
}


@pytest.mark.parametrize("name", sorted(DASK_LOSSES))
def test_jit_grad_stays_lazy_on_dask(name):
    dask, da, Xn, yn, X, y = _dask()
    loss = DASK_LOSSES[name]
    w = np.array([0.3, -0.2, 0.5])
    jg = xgrad.jit(xgrad.value_and_grad(loss))
    with dask.config.set(scheduler=_refuse):
        first = jg(w, X, y)                  # stages
        again = jg(w, X, y)                  # replays (numpy weights with a dask batch)
    v_ref, g_ref = xgrad.value_and_grad(loss)(w, Xn, yn)
    for v, g in (first, again):
        assert isinstance(v, da.Array) and isinstance(g, da.Array), (type(v), type(g))
        v, g = dask.compute((v, g), scheduler="threads")[0]
        assert_close(v, v_ref)
        assert_close(g, g_ref)
    assert jg.stagings == 1


def test_jit_grad_wrt_the_dask_batch_stays_lazy():
    dask, da, Xn, yn, X, y = _dask()
    loss = DASK_LOSSES["tanh"]
    w = np.array([0.3, -0.2, 0.5])
    jg = xgrad.jit(xgrad.grad(loss, argnums=1))
    with dask.config.set(scheduler=_refuse):
        gs = [jg(w, X, y) for _ in range(2)]
    want = xgrad.grad(loss, argnums=1)(w, Xn, yn)
    for g in gs:
        assert isinstance(g, da.Array) and g.chunks == X.chunks
        assert_close(g.compute(scheduler="threads"), want)
