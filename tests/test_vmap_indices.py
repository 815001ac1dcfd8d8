"""Per-example indices under vmap: ``x.at[i].get/set/add/subtract/min/max``
in every mode, ``x[i]``, ``x[i] = v`` and ``take_along_axis`` with a batched
index (and a batched or unbatched operand and update), under ``vmap``,
``vmap(grad)``, ``grad(vmap)``, ``jacrev`` and ``jacfwd``, against
``jax.vmap`` of the same functions; ``x.at[i].multiply/divide/power/apply``
with a batched index (every write applies, in order, at a repeated position)
against a Python loop of the unbatched update, bit for bit, and against jax,
at the edges (zeros, infinities, NaN, overflow), for integer and float
dtypes, under every transform and ``jit``."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)

R = np.random.default_rng(7)
B = 3
X = R.standard_normal((B, 5))
V = R.standard_normal((B, 2))
IB = np.array([[0, 4], [2, 2], [-1, 3]])          # repeats and a negative index
I_OOB = np.array([[0, 7], [2, 2], [-9, 3]])      # out of bounds


def _lib(ns):
    return xgrad if ns is xnp else jax


def _transforms(ns, f, in_axes):
    lib = _lib(ns)

    def loss(*a):
        return ns.sum(ns.sin(f(ns, *a)))

    return {
        "vmap": lib.vmap(lambda *a: f(ns, *a), in_axes=in_axes),
        "vmap-grad": lib.vmap(lib.grad(loss), in_axes=in_axes),
        "grad-vmap": lib.grad(lambda *a: ns.sum(ns.sin(lib.vmap(lambda *b: f(ns, *b),
                                                                  in_axes=in_axes)(*a)))),
        "jacrev": lib.jacrev(lib.vmap(lambda *a: f(ns, *a), in_axes=in_axes)),
        "jacfwd": lib.jacfwd(lib.vmap(lambda *a: f(ns, *a), in_axes=in_axes)),
    }


def _check(f, args, in_axes, tol=1e-12):
    got = _transforms(xnp, f, in_axes)
    want = _transforms(jnp, f, in_axes)
    for name in got:
        g = got[name](*args)
        w = want[name](*[jnp.asarray(a) for a in args])
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=tol, atol=tol, err_msg=name)
        assert np.asarray(g).dtype == np.asarray(w).dtype, name


UPDATES = ["set", "add", "subtract", "min", "max"]
MODES = [None, "promise_in_bounds", "clip", "drop", "fill"]


@pytest.mark.parametrize("m", UPDATES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("axes", [(0, 0, 0), (None, 0, 0), (0, None, 0), (None, None, 0)])
def test_at_update_with_a_batched_index(m, mode, axes):
    idx = IB if mode in (None, "promise_in_bounds") else I_OOB
    x = X if axes[0] == 0 else X[0]
    v = V if axes[1] == 0 else V[0]

    def f(ns, x, v, i):
        return getattr((xnp.at(x) if ns is xnp else jnp.asarray(x).at)[i], m)(v, mode=mode)
    # the index is not differentiable: differentiate x and v only
    got = xgrad.vmap(lambda x, v, i: f(xnp, x, v, i), in_axes=axes)(x, v, idx)
    want = jax.vmap(lambda x, v, i: f(jnp, x, v, i), in_axes=axes)(x, v, idx)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    for tr in ("jacrev", "jacfwd"):
        if (mode == "clip" and m in ("min", "max")) or axes[:2] == (None, None):
            break           # jax's scatter-min/max JVP is wrong in clip mode (tests/test_at_edges.py)
        g = getattr(xgrad, tr)(xgrad.vmap(lambda x, v: f(xnp, x, v, idx), in_axes=axes[:2]),
                               argnums=(0, 1))(x, v)
        w = getattr(jax, tr)(jax.vmap(lambda x, v: f(jnp, x, v, jnp.asarray(idx)),
                                      in_axes=axes[:2]), argnums=(0, 1))(x, v)
        for a, b in zip(g, w):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=tr)


@pytest.mark.parametrize("mode,kw", [(None, {}), ("clip", {}), ("fill", {}),
                                     ("fill", {"fill_value": -2.0}), ("drop", {})])
def test_at_get_with_a_batched_index(mode, kw):
    idx = IB if mode is None else I_OOB
    _check(lambda ns, x: x.at[jnp.asarray(idx) if ns is jnp else idx].get(mode=mode, **kw)
           if False else None, (X,), 0) if False else None
    got = xgrad.vmap(lambda x, i: x.at[i].get(mode=mode, **kw))(X, idx)
    want = jax.vmap(lambda x, i: x.at[i].get(mode=mode, **kw))(X, idx)
    np.testing.assert_array_equal(got, want)
    for tr in ("jacrev", "jacfwd"):
        g = getattr(xgrad, tr)(xgrad.vmap(lambda x: x.at[idx].get(mode=mode, **kw)))(X) \
            if False else getattr(xgrad, tr)(lambda x: xgrad.vmap(
                lambda a, i: a.at[i].get(mode=mode, **kw))(x, idx))(X)
        w = getattr(jax, tr)(lambda x: jax.vmap(
            lambda a, i: a.at[i].get(mode=mode, **kw))(x, idx))(X)
        np.testing.assert_allclose(g, w, rtol=1e-14, atol=0)


def test_per_example_loss_take_along_axis():
    """The standard per-example loss: vmap(grad) and the others, as jax."""
    logp = R.standard_normal((4, 5))
    y = np.array([0, 4, 1, 1])

    def nll(ns, lp, yy):
        return -ns.sum(ns.take_along_axis(lp, yy[None], axis=0))
    _check(nll, (logp, y), (0, 0))
    # the batch of 2-D per-example arrays, indices along the last axis
    lp3 = R.standard_normal((4, 3, 5))
    y2 = np.array([[0, 4, 1], [1, 1, 2], [3, 0, 0], [4, 4, 4]])
    _check(lambda ns, lp, yy: ns.take_along_axis(lp, yy[:, None], axis=1), (lp3, y2), (0, 0))


def test_getitem_and_setitem_with_a_batched_index():
    x3 = R.standard_normal((B, 4, 5))
    i = np.array([1, 3, -2])
    _check(lambda ns, x, i: x[i], (X, i), (0, 0))
    _check(lambda ns, x, i: x[i, 1:], (x3, i), (0, 0))
    _check(lambda ns, x, i: x[:, i], (x3, i), (0, 0))
    _check(lambda ns, x, i: x[i, ::2][None], (x3, i), (0, 0))
    j = np.array([[0, 2], [1, 1], [4, 3]])
    _check(lambda ns, x, i, j: x[i, j], (x3, i, j), (0, 0, 0))

    def setitem(ns, x, v, i):
        if ns is xnp:
            x = x * 1.0
            x[i] = v
            return x
        return x.at[i].set(v)
    _check(setitem, (X, V[:, 0], i), (0, 0, 0))


def test_nested_vmap_over_indices():
    x = R.standard_normal((2, B, 5))
    ii = np.array([[[0, 1], [2, 3], [4, 4]], [[1, 1], [0, 2], [3, 3]]])

    def f(ns, x, i):
        return x.at[i].max(ns.ones(2)) + x[i[0]]
    got = xgrad.vmap(xgrad.vmap(lambda x, i: f(xnp, x, i)))(x, ii)
    want = jax.vmap(jax.vmap(lambda x, i: f(jnp, x, i)))(x, ii)
    np.testing.assert_allclose(got, want, rtol=1e-14)


def test_jit_of_vmap_over_indices():
    f = lambda x, i: x.at[i].add(1.0)[i]          # noqa: E731
    got = xgrad.jit(xgrad.vmap(f))(X, IB)
    want = jax.jit(jax.vmap(f))(X, IB)
    np.testing.assert_allclose(got, want, rtol=1e-14)


def test_a_batched_boolean_mask_raises_clearly():
    with pytest.raises(TypeError, match="boolean mask"):
        xgrad.vmap(lambda x, m: x.at[m].get())(X, X > 0)
    with pytest.raises(TypeError, match="boolean arrays"):
        xgrad.vmap(lambda x, i: x.at[i].multiply(True))(X > 0, IB)


def test_integer_beside_a_batched_index_unbatched_operand():
    """An integer beside a batched index array, the operand unbatched, under
    every transform of ``_check`` (jacrev and jacfwd included)."""
    x3 = R.standard_normal((4, 5))
    j = np.array([[0, 2], [1, 1], [4, 3]])
    _check(lambda ns, x, j: x[1, j], (x3, j), (None, 0))


# ----- multiply, divide, power and apply with a per-example index -----
# The oracle is a Python loop over the examples of the unbatched update (whose
# index is a constant: one write at a time), compared bit for bit; jax is a
# second oracle for the values and, where it differentiates (scatter_mul only
# with unique indices), for the derivatives through the writes one at a time.

FOLDS = ["multiply", "divide", "power", "apply"]
IREP = np.array([[0, 4, 0, 0], [2, 2, 2, 2], [-1, 3, 1, 3]])   # repeats, a negative index
I0 = np.array([1, -1, 3])                                      # one position per example


def _func(ns, dtype):
    if np.dtype(dtype).kind in "iu":
        return lambda a: a * 3 - 1
    return lambda a: ns.sin(a) * 2 + a


def _fold(ns, m, dtype=np.float64):
    """``x.at[i].<m>(v)`` for xgrad (any array) or jax."""
    def f(x, v, i):
        ref = (xnp.at(x) if ns is xnp else jnp.asarray(x).at)[i]
        if m == "apply":
            return ref.apply(_func(ns, dtype))
        return getattr(ref, m)(v)
    return f


def _loop(f, idx, in_axes):
    """The examples one by one (the index a constant, so the unbatched
    update), stacked."""
    def g(*a):
        return xnp.stack([f(*[t[b] if ax == 0 else t for t, ax in zip(a, in_axes)], idx[b])
                         for b in range(idx.shape[0])])
    return g


def _same(got, want):
    """Equal bit for bit where it matters: dtype, NaN for NaN, the sign of zero."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)
    if got.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def _data(m, dtype, v_shape, rng):
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        x = rng.integers(-4, 5, (B, 5)).astype(dt)
        v = rng.integers(0 if m == "power" else -3, 4, v_shape).astype(dt)
        if m == "divide":
            v[v == 0] = 2
        return x, v
    x = rng.standard_normal((B, 5)).astype(dt)
    if m == "power":
        x = np.abs(x) + dt.type(0.5)
    return x, rng.standard_normal(v_shape).astype(dt)


CASES = {   # index, the shape of v, in_axes of (x, v)
    "scalar": (I0, (B,), (0, 0)),
    "repeated": (IREP, (B, 4), (0, 0)),
    "broadcast": (IREP, (B,), (0, 0)),
    "x-unbatched": (IREP, (B, 4), (None, 0)),
    "v-unbatched": (IREP, (4,), (0, None)),
}


@pytest.mark.parametrize("case,dtype", [(c, np.float64) for c in CASES] + [
    (c, d) for c in ("repeated", "broadcast") for d in (np.float32, np.int32)])
@pytest.mark.parametrize("m", FOLDS)
def test_fold_with_a_batched_index_equals_the_loop_and_jax(m, case, dtype):
    idx, v_shape, axes = CASES[case]
    x, v = _data(m, dtype, v_shape, np.random.default_rng(11))
    if axes[0] is None:
        x = x[0]
    got = xgrad.vmap(_fold(xnp, m, dtype), in_axes=axes + (0,))(x, v, idx)
    _same(got, _loop(_fold(xnp, m, dtype), idx, axes)(x, v))
    want = np.asarray(jax.vmap(_fold(jnp, m, dtype), in_axes=axes + (0,))(x, v, idx))
    if m == "divide" and np.dtype(dtype).kind in "iu":     # xgrad: int / int is float64 (numpy)
        want = want.astype(got.dtype)
    tol = 1e-14 if dtype == np.float64 else 1e-6     # jax: int / int in float32
    np.testing.assert_allclose(got, want, rtol=tol, atol=0)
    assert got.dtype == want.dtype


inf, nan = np.inf, np.nan
XE = np.array([[0., -0., inf, -inf, nan, 1e308],
               [2.5, -3., 0., 1e308, -1e308, nan],
               [-0., inf, 1e-300, 4., -inf, 0.]])
VE = np.array([[1e308, 1e308, -0., inf, nan, 2.],          # 0 * 1e308 * 1e308 is 0, not NaN
               [inf, -0., 2., 0.5, -inf, 1e308],
               [1e-300, 1e300, -inf, 0., 3., nan]])
IE = np.array([[0, 0, 1, 2, 4, 5], [1, 1, 2, 3, 3, 0], [2, 2, 5, 0, 5, 3]])


@pytest.mark.parametrize("m", FOLDS)
def test_fold_with_a_batched_index_at_the_edges(m):
    """Zeros, infinities, NaN and overflow at repeated positions: the writes
    in order, exactly (no write divided out, no reordering)."""
    with np.errstate(all="ignore"):
        got = xgrad.vmap(_fold(xnp, m))(XE, VE, IE)
        _same(got, _loop(_fold(xnp, m), IE, (0, 0))(XE, VE))
        want = np.asarray(jax.vmap(_fold(jnp, m))(XE, VE, IE))
    if m == "multiply":
        _same(got, want)
        assert got[0, 0] == 0.0 and got[1, 3] == -inf and got[2, 2] == 1e-300 * 1e-300 * 1e300
    else:        # XLA's pow, sin and division may differ from numpy's in the last bit
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=0, equal_nan=True)


def _fold_transforms(f, in_axes):
    """The transforms of a batched update ``f(x, v)`` checked against the
    same transforms of the loop."""
    def loss(g):
        return lambda x, v: xnp.sum(xnp.sin(g(x, v)))
    return {
        "vmap": lambda g: g,
        "jit": xgrad.jit,
        "grad": lambda g: xgrad.grad(loss(g), argnums=(0, 1)),
        "jacrev": lambda g: xgrad.jacrev(g, argnums=(0, 1)),
        "jacfwd": lambda g: xgrad.jacfwd(g, argnums=(0, 1)),
        "hessian": lambda g: xgrad.hessian(loss(g), argnums=(0, 1)),
    }


@pytest.mark.parametrize("case", ["scalar", "repeated", "broadcast", "x-unbatched"])
@pytest.mark.parametrize("m", FOLDS)
def test_fold_with_a_batched_index_derivatives_equal_the_loop(m, case):
    idx, v_shape, axes = CASES[case]
    x, v = _data(m, np.float64, v_shape, np.random.default_rng(5))
    if axes[0] is None:
        x = x[0]
    f = _fold(xnp, m)
    batched = lambda x, v: xgrad.vmap(f, in_axes=axes + (0,))(x, v, idx)   # noqa: E731
    loop = _loop(f, idx, axes)
    for name, tr in _fold_transforms(f, axes).items():
        got, want = tr(batched)(x, v), tr(loop)(x, v)
        for a, b in zip(xgrad.tree.leaves(got), xgrad.tree.leaves(want)):
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13, err_msg=name)
    # vmap(grad): the per-example gradient, the index batched beside it
    per = xgrad.vmap(xgrad.grad(lambda x, v, i: xnp.sum(xnp.sin(f(x, v, i))), argnums=(0, 1)),
                     in_axes=axes + (0,))(x, v, idx)
    whole = xgrad.grad(lambda x, v: xnp.sum(xnp.sin(loop(x, v))), argnums=(0, 1))(x, v)
    np.testing.assert_allclose(per[1], whole[1], rtol=1e-13, atol=1e-13)


def _one_at_a_time(m):
    """jax's oracle with derivatives: the writes of one example one at a
    time (a single position each, so unique_indices holds)."""
    def f(x, v, i):
        vb = jnp.broadcast_to(v, i.shape)
        if m == "apply":
            for k in range(i.shape[0]):
                x = x.at[i[k]].set(jnp.sin(x[i[k]]) * 2 + x[i[k]])
            return x
        ones = jnp.ones_like(x)
        for k in range(i.shape[0]):
            ones = ones.at[i[k]].multiply(vb[k], unique_indices=True)
        return {"multiply": x * ones, "divide": x / ones, "power": x ** ones}[m]
    return f


@pytest.mark.parametrize("m", FOLDS)
def test_fold_with_a_batched_index_derivatives_equal_jax(m):
    x, v = _data(m, np.float64, (B, 4), np.random.default_rng(9))
    for tr in ("jacrev", "jacfwd"):
        got = getattr(xgrad, tr)(lambda x, v: xgrad.vmap(_fold(xnp, m))(x, v, IREP),
                                 argnums=(0, 1))(x, v)
        want = jax.jit(getattr(jax, tr)(lambda x, v: jax.vmap(_one_at_a_time(m))(x, v, IREP),
                                        argnums=(0, 1)))(x, v)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=tr)


@pytest.mark.parametrize("m", FOLDS)
def test_fold_with_a_batched_index_finite_differences(m):
    x, v = _data(m, np.float64, (B, 4), np.random.default_rng(2))
    xgrad.check_grads(lambda x, v: xgrad.vmap(_fold(xnp, m))(x, v, IREP), (x, v), order=2)


def test_apply_with_a_batched_index_infinite_slope_stays_out():
    """A position that is done sits the later rounds out without derivative:
    sqrt's infinite slope at 0 there gives no NaN."""
    x = np.array([[0., 4., 9.], [1., 0., 16.]])
    i = np.array([[0, 1, 1], [2, 2, 2]])
    f = lambda x, i: x.at[i].apply(xnp.sqrt)         # noqa: E731
    for tr in ("jacrev", "jacfwd"):
        with np.errstate(all="ignore"):               # sqrt's slope at 0, where it is used
            got = getattr(xgrad, tr)(lambda x: xgrad.vmap(f)(x, i))(x)
            want = getattr(xgrad, tr)(_loop(lambda x, v, i: xnp.at(x)[i].apply(xnp.sqrt),
                                            i, (0, None)))(x, None)
        _same(got, want)
        assert np.isnan(got).sum() == 0


def test_fold_with_a_batched_index_under_jit_replays():
    """One staged program for every index of the same shape (the number of
    rounds is fixed by the shape), with and without vmap."""
    x, v = _data("multiply", np.float64, (B, 4), np.random.default_rng(4))
    x = np.abs(x) + 0.5
    for m in FOLDS:
        f = _fold(xnp, m)
        jf = xgrad.jit(xgrad.vmap(f))
        for idx in (IREP, IREP[::-1], np.zeros_like(IREP)):
            _same(jf(x, v, idx), _loop(f, idx, (0, 0))(x, v))
        j1 = xgrad.jit(f)
        for i in (IREP[0], IREP[1]):
            _same(j1(x[0], v[0], i), f(x[0], v[0], i))


def test_fold_with_a_batched_index_nested_and_empty():
    rng = np.random.default_rng(8)
    x3, v3 = rng.standard_normal((2, B, 5)), rng.standard_normal((2, B, 4))
    i3 = rng.integers(-5, 5, (2, B, 4))
    got = xgrad.vmap(xgrad.vmap(_fold(xnp, "multiply")))(x3, v3, i3)
    want = jax.vmap(jax.vmap(_fold(jnp, "multiply")))(x3, v3, i3)
    _same(got, want)
    x2 = rng.standard_normal((B, 4, 5))
    ii, jj = rng.integers(0, 4, (B, 6)), rng.integers(0, 5, (B, 6))
    got = xgrad.vmap(lambda x, v, i, j: x.at[i, j].multiply(v))(x2, v3[0, :, :1], ii, jj)
    want = jax.vmap(lambda x, v, i, j: x.at[i, j].multiply(v))(x2, v3[0, :, :1], ii, jj)
    _same(got, want)
    empty = np.zeros((B, 0), dtype=np.int64)
    for m in FOLDS:
        _same(xgrad.vmap(_fold(xnp, m))(X, V[:, :0], empty), X)
