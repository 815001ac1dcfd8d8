"""Repeated indices in writes.

``x[idx] = v`` on a traced value with a repeated integer index keeps the
last write (numpy's order, C order of the indexed region), and every mode
agrees: the VJP gives a duplicate's cotangent only to the write that won, so
jacrev == jacfwd == a closed form built here by a Python loop over the
writes. ``x[idx] += v`` (Python: ``x[idx] = x[idx] + v``) likewise. The
scatter-add ``index_add`` (the VJP of a gather) accumulates repeats, as
numpy's ``np.add.at`` and jax's ``.at[].add``, and is checked against jax.
(jax's ``.at[].set`` leaves unspecified which duplicate wins: no oracle.)

array_api_strict has no integer-array setitem and gathers only with an
integer or integer array on every axis: xgrad writes there by a gather
fallback, and the forms with a slice among index arrays run on numpy only.
"""
import math

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad.backends import index_winners

from conftest import to_np

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import strategies as st  # noqa: E402

A = np.array


def _strict(xp):
    return xp.__name__.startswith("array_api_strict")


def _on(xp, idx):
    """The (numpy) index on backend ``xp``."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    out = tuple(xp.asarray(p) if isinstance(p, np.ndarray) else p for p in parts)
    return out if isinstance(idx, tuple) else out[0]


def set_fn(idx):
    def f(x, v):
        y = x * 1.0
        y[idx] = v
        return y
    return f


def iadd_fn(idx):
    def f(x, v):
        y = x * 1.0
        y[idx] += v
        return y
    return f


def closed_form(shape, idx, vshape, x, v, op):
    """Value and Jacobians (flat: (n, n) and (n, v.size)) of ``x[idx] = v``
    (op "set") or ``x[idx] += v`` (op "iadd"), from a Python loop over the
    writes in C order of the region, the last write to a position winning."""
    n, m = math.prod(shape), math.prod(vshape)
    pos = np.arange(n).reshape(shape)[idx]
    vid = np.arange(m).reshape(vshape)
    vid = vid.reshape(vid.shape[max(vid.ndim - pos.ndim, 0):])    # leading 1s numpy drops
    vid = np.broadcast_to(vid, pos.shape)
    winner = {}
    for p, i in zip(pos.ravel().tolist(), vid.ravel().tolist()):
        winner[p] = i
    out = np.asarray(x, dtype=float).ravel().copy()
    jx, jv = np.eye(n), np.zeros((n, m))
    vf = np.asarray(v, dtype=float).ravel()
    for p, i in winner.items():
        jv[p, i] = 1.0
        if op == "set":
            out[p] = vf[i]
            jx[p, p] = 0.0
        else:
            out[p] = out[p] + vf[i]
    return out.reshape(shape), jx, jv


def _flat_jac(j, n, m):
    return to_np(j).reshape(n, m)


# (id, shape of x, index, shape of v, runs on array_api_strict)
FORMS = [
    ("1d", (3,), (A([0, 0, 2]),), (3,), True),
    ("1d-scalar-v", (4,), (A([1, 3, 1, 1]),), (), True),
    ("1d-v-broadcast", (4,), (A([1, 3, 1, 1]),), (1,), True),
    ("negative-alias", (3,), (A([0, -3]),), (2,), True),
    ("negative-mixed", (4,), (A([-1, 3, 0, -4, 2]),), (5,), True),
    ("two-arrays", (3, 3), (A([0, 0]), A([1, 1])), (2,), True),
    ("two-arrays-negative", (3, 3), (A([0, -3, 2]), A([1, -2, 2])), (3,), True),
    ("broadcast-arrays", (3, 4), (A([[0], [2], [0]]), A([1, 1, 3])), (3, 3), True),
    ("broadcast-arrays-v-row", (3, 4), (A([[0], [2], [0]]), A([1, 1, 3])), (3,), True),
    ("int-and-array", (3, 4), (1, A([0, 0, 2])), (3,), True),
    ("2d-index", (3,), (A([[0, 1], [1, 0], [2, 1]]),), (3, 2), True),
    ("2d-index-fortran", (3,), (np.asfortranarray(A([[0, 1], [1, 0], [2, 1]])),), (3, 2), True),
    ("slice-array", (2, 3), (slice(None), A([1, 1])), (2, 2), False),
    ("slice-array-v-row", (2, 3), (slice(None), A([1, 1])), (2,), False),
    ("array-slice", (2, 3), (A([0, 0]), slice(None)), (2, 3), False),
    ("array-slice-v-row", (3, 3), (A([0, 2, 0]), slice(None)), (3,), False),
    ("partial-slice-array", (3, 4), (slice(1, 3), A([3, -1, 0])), (2, 3), False),
    ("separated", (2, 3, 4), (A([0, 0]), slice(None), A([1, 1])), (2, 3), False),
    ("ellipsis-array", (2, 2, 3), (Ellipsis, A([2, 2, 0])), (2, 2, 3), False),
    ("2d-index-rows", (3, 2), (A([[0, 0], [2, 0]]), slice(None)), (2, 2, 2), False),
    # v of x's shape, broadcast to a larger region (the engine can't tell)
    ("v-shape-of-x", (1,), (A([0, 0, 0]),), (1,), True),
    ("v-shape-of-x-rows", (1, 3), (A([0, -1]), slice(None)), (1, 3), False),
    # v with leading size-1 axes the region lacks (numpy allows them)
    ("v-leading-ones", (3,), (A([0, 0]),), (1, 2), True),
    ("v-leading-ones-basic", (2, 3), (0, slice(None)), (1, 3), True),
    # no integer array: the plain path
    ("basic-slices", (3, 4), (slice(1, 3), slice(None, None, 2)), (2, 1), True),
]


def _form(xp, case):
    name, shape, idx, vshape, on_strict = case
    if _strict(xp) and not on_strict:
        pytest.skip("array_api_strict gathers only with an integer (array) on every axis")
    return shape, idx, vshape


def _data(rng, xp, shape, vshape):
    x = rng.normal(size=shape)
    v = rng.normal(size=vshape)
    return x, v, xp.asarray(x), xp.asarray(v)


# ----- the issue's case -----

@pytest.mark.parametrize("op", ["set", "iadd"])
def test_issue_case_last_write_wins(xp, op):
    idx = xp.asarray([0, 0, 2])
    f = (set_fn if op == "set" else iadd_fn)(idx)
    x, v = xp.asarray([0.5, -1.0, 2.0]), xp.asarray([1.0, 2.0, 3.0])
    d0 = lambda i: lambda x, v: f(x, v)[0]          # noqa: E731
    gx, gv = xgrad.grad(d0(0), argnums=(0, 1))(x, v)
    assert to_np(gv).tolist() == [0.0, 1.0, 0.0]      # d x[0]/d v = (0, 1, 0)
    # set: x[0] is overwritten; +=: x[0] + v[1], x[0] counted once (not twice)
    assert to_np(gx).tolist() == ([0.0, 0.0, 0.0] if op == "set" else [1.0, 0.0, 0.0])
    jf = xgrad.jacfwd(f, argnums=(0, 1))(x, v)
    jr = xgrad.jacrev(f, argnums=(0, 1))(x, v)
    for a, b in zip(jf, jr):
        np.testing.assert_array_equal(to_np(a), to_np(b))
    out = xgrad.jvp(f, (x, v), (x, v))[0]
    expect = [2.0, -1.0, 3.0] if op == "set" else [2.5, -1.0, 5.0]
    assert to_np(out).tolist() == expect


# ----- every index form: value, jacfwd, jacrev against the closed form -----

@pytest.mark.parametrize("op", ["set", "iadd"])
@pytest.mark.parametrize("case", FORMS, ids=[c[0] for c in FORMS])
def test_forms_forward_equals_reverse_equals_closed_form(rng, xp, case, op):
    shape, idx, vshape = _form(xp, case)
    x, v, bx, bv = _data(rng, xp, shape, vshape)
    f = (set_fn if op == "set" else iadd_fn)(_on(xp, idx))
    out_c, jx_c, jv_c = closed_form(shape, idx, vshape, x, v, op)
    n, m = math.prod(shape), math.prod(vshape)
    out = xgrad.jvp(f, (bx, bv), (bx, bv))[0]
    np.testing.assert_allclose(to_np(out), out_c, rtol=0, atol=1e-15)
    jf = xgrad.jacfwd(f, argnums=(0, 1))(bx, bv)
    jr = xgrad.jacrev(f, argnums=(0, 1))(bx, bv)
    for j, want, k in ((jf[0], jx_c, n), (jr[0], jx_c, n), (jf[1], jv_c, m), (jr[1], jv_c, m)):
        np.testing.assert_array_equal(_flat_jac(j, n, k), want)


@pytest.mark.parametrize("case", [c for c in FORMS if c[4]], ids=[c[0] for c in FORMS if c[4]])
def test_numpy_setitem_agrees(rng, case):
    """The closed form's order (last in C order) is what numpy's own setitem
    does on these indices (its docs promise no order; this pins what the
    backend path relies on)."""
    _, shape, idx, vshape, _ = case
    x, v = rng.normal(size=shape), rng.normal(size=vshape)
    y = x.copy()
    y[idx] = v
    np.testing.assert_array_equal(y, closed_form(shape, idx, vshape, x, v, "set")[0])


def test_strict_write_matches_numpy(rng):
    """array_api_strict's gather fallback writes what numpy writes."""
    import array_api_strict as strict
    for name, shape, idx, vshape, on_strict in FORMS:
        if not on_strict:
            continue
        x, v = rng.normal(size=shape), rng.normal(size=vshape)
        want = x.copy()
        want[idx] = v
        got = xgrad.backends.index_set(strict, strict.asarray(x), _on(strict, idx), strict.asarray(v))
        np.testing.assert_array_equal(np.asarray(got), want, err_msg=name)


# ----- the mask costs nothing where nothing repeats -----

def test_winners_only_for_repeated_integer_arrays(xp):
    mask = xp.asarray(np.array([[True, False, True, False]] * 3))
    for shape, idx in [((3, 4), (slice(1, 3),)), ((3, 4), (1, 2)), ((3, 4), (Ellipsis, 0)),
                       ((3, 4), (mask,)), ((3,), (xp.asarray([2, 0, 1]),)),
                       ((3, 4), (xp.asarray([1]), xp.asarray([3]))),
                       ((3, 4), (xp.asarray(np.array([[0], [2]])), xp.asarray([3, 1])))]:
        assert index_winners(xp, shape, idx) is None
    won = index_winners(xp, (3,), (xp.asarray([0, 2, 0, -3, 1]),))
    assert to_np(won).tolist() == [False, True, False, True, True]
    won = index_winners(xp, (3, 4), (xp.asarray([0, 0, 2]), xp.asarray([1, 1, 1])))
    assert to_np(won).tolist() == [False, True, True]


# ----- vmap -----

VMAP_FORMS = [c for c in FORMS if c[0] in
              ("1d", "1d-scalar-v", "negative-alias", "two-arrays", "broadcast-arrays",
               "2d-index", "int-and-array", "slice-array", "array-slice-v-row", "separated")]


@pytest.mark.parametrize("op", ["set", "iadd"])
@pytest.mark.parametrize("case", VMAP_FORMS, ids=[c[0] for c in VMAP_FORMS])
def test_under_vmap(rng, xp, case, op):
    shape, idx, vshape = _form(xp, case)
    nb = 3
    xs, vs = rng.normal(size=(nb,) + shape), rng.normal(size=(nb,) + vshape)
    bx, bv = xp.asarray(xs), xp.asarray(vs)
    f = (set_fn if op == "set" else iadd_fn)(_on(xp, idx))
    n, m = math.prod(shape), math.prod(vshape)
    # jacobians of the batched function: block diagonal, one closed form per example
    g = xgrad.vmap(f)
    jf = xgrad.jacfwd(g, argnums=(0, 1))(bx, bv)
    jr = xgrad.jacrev(g, argnums=(0, 1))(bx, bv)
    out = to_np(g(bx, bv))
    for b in range(nb):
        out_c, jx_c, jv_c = closed_form(shape, idx, vshape, xs[b], vs[b], op)
        np.testing.assert_allclose(out[b], out_c, rtol=0, atol=1e-15)
        for j, want, k in ((jf[0], jx_c, n), (jr[0], jx_c, n), (jf[1], jv_c, m), (jr[1], jv_c, m)):
            jb = to_np(j)[b].reshape((n,) + (nb,) + (k,))[:, b, :]
            np.testing.assert_array_equal(jb, want)
    # per-example jacobians: vmap of jacrev / jacfwd
    per_r = xgrad.vmap(xgrad.jacrev(f, argnums=(0, 1)))(bx, bv)
    per_f = xgrad.vmap(xgrad.jacfwd(f, argnums=(0, 1)))(bx, bv)
    for b in range(nb):
        _, jx_c, jv_c = closed_form(shape, idx, vshape, xs[b], vs[b], op)
        for per in (per_r, per_f):
            np.testing.assert_array_equal(to_np(per[0])[b].reshape(n, n), jx_c)
            np.testing.assert_array_equal(to_np(per[1])[b].reshape(n, m), jv_c)


@pytest.mark.parametrize("op", ["set", "iadd"])
def test_vmap_unbatched_update(rng, xp, op):
    """One v written into every example: its cotangent sums over the batch,
    only over the entries that won."""
    idx = xp.asarray([1, 1, 0, 1])
    f = (set_fn if op == "set" else iadd_fn)(idx)
    xs, v = rng.normal(size=(2, 3)), rng.normal(size=(4,))
    g = lambda x, v: xgrad.vmap(f, in_axes=(0, None))(x, v)      # noqa: E731
    jr = to_np(xgrad.jacrev(g, argnums=1)(xp.asarray(xs), xp.asarray(v)))
    jf = to_np(xgrad.jacfwd(g, argnums=1)(xp.asarray(xs), xp.asarray(v)))
    want = np.zeros((3, 4))
    want[1, 3] = want[0, 2] = 1.0
    np.testing.assert_array_equal(jr, np.stack([want, want]))
    np.testing.assert_array_equal(jf, jr)


# ----- second order -----

@pytest.mark.parametrize("op", ["set", "iadd"])
@pytest.mark.parametrize("case", [FORMS[0], FORMS[5], FORMS[7], FORMS[12]],
                         ids=["1d", "two-arrays", "broadcast-arrays", "slice-array"])
def test_hessian(rng, xp, case, op):
    """L = sum(w * out**3): d2L/dv_i dv_j = sum over the positions p that
    v_i won of 6 w_p out_p, on the diagonal (for += the same, out holding
    x_p + v_i)."""
    shape, idx, vshape = _form(xp, case)
    x, v, bx, bv = _data(rng, xp, shape, vshape)
    w = rng.normal(size=shape)
    f = (set_fn if op == "set" else iadd_fn)(_on(xp, idx))
    bw = xp.asarray(w)
    L = lambda x, v: xnp.sum(f(x, v) ** 3 * bw)                   # noqa: E731
    out_c, _, jv_c = closed_form(shape, idx, vshape, x, v, op)
    m = math.prod(vshape)
    want = np.diag(jv_c.T @ (6.0 * w.ravel() * out_c.ravel()))
    a = (0, 1)        # x too: x * 1.0 must be traced for y[idx] = v to be recorded
    hs = [h(bx, bv) for h in (xgrad.hessian(L, argnums=a),
                              xgrad.jacfwd(xgrad.jacfwd(L, argnums=a), argnums=a),
                              xgrad.jacrev(xgrad.jacrev(L, argnums=a), argnums=a))]
    for h in hs:
        np.testing.assert_allclose(to_np(h[1][1]).reshape(m, m), want, rtol=1e-12, atol=1e-12)
        for i in range(2):     # the other blocks: every order of modes agrees
            for j in range(2):
                np.testing.assert_allclose(to_np(h[i][j]), to_np(hs[1][i][j]), rtol=1e-12, atol=1e-12)


# ----- index_add: repeats accumulate (against jax) -----

ADD_FORMS = [
    ("1d", (4,), (A([1, 3, 1, 1]),), (4,), True),
    ("negative", (3,), (A([0, -3, 2, -1]),), (4,), True),
    ("two-arrays", (3, 3), (A([0, 0, -3]), A([1, 1, 1])), (3,), True),
    ("broadcast", (3, 4), (A([[0], [2], [0]]), A([1, 1, 3])), (3,), True),
    ("2d-index", (3,), (A([[0, 1], [1, 0]]),), (2, 2), True),
    ("slice-array", (2, 3), (slice(None), A([1, 1, 0])), (2, 3), False),
    ("array-slice", (3, 2), (A([2, 2, 0]), slice(None)), (2,), False),
    ("v-shape-of-x", (1,), (A([0, 0, 0]),), (1,), True),
    ("v-shape-of-x-rows", (1, 3), (A([0, -1]), slice(None)), (1, 3), False),
]


@pytest.mark.parametrize("case", ADD_FORMS, ids=[c[0] for c in ADD_FORMS])
def test_index_add_accumulates_like_jax(rng, xp, jax, case):
    jnp = jax.numpy
    shape, idx, vshape = _form(xp, case)
    x, v, bx, bv = _data(rng, xp, shape, vshape)
    bidx = _on(xp, idx)
    f = lambda x, v: xnp._index_add(x, v, bidx)                   # noqa: E731
    jf = lambda x, v: x.at[idx].add(v)                            # noqa: E731
    want = np.asarray(jf(jnp.asarray(x), jnp.asarray(v)))
    plain = x.copy()
    np.add.at(plain, idx, v)
    np.testing.assert_allclose(want, plain, rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(to_np(f(bx, bv)), want, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(to_np(xgrad.jvp(f, (bx, bv), (bx, bv))[0]), want, rtol=1e-14, atol=1e-14)
    jj = jax.jacrev(jf, argnums=(0, 1))(jnp.asarray(x), jnp.asarray(v))
    for mine in (xgrad.jacfwd(f, argnums=(0, 1))(bx, bv), xgrad.jacrev(f, argnums=(0, 1))(bx, bv)):
        for a, b in zip(mine, jj):
            np.testing.assert_array_equal(to_np(a), np.asarray(b))


@pytest.mark.parametrize("case", ADD_FORMS, ids=[c[0] for c in ADD_FORMS])
def test_gather_vjp_accumulates_like_jax(rng, xp, jax, case):
    """The VJP of ``x[idx]`` is an index_add: a repeated gather gets the sum
    of its cotangents, at every order."""
    jnp = jax.numpy
    shape, idx, vshape = _form(xp, case)
    x = rng.normal(size=shape)
    w = rng.normal(size=np.empty(shape)[idx].shape)
    bidx, bw = _on(xp, idx), xp.asarray(w)
    L = lambda x: xnp.sum(xnp.sin(x[bidx]) * bw)                  # noqa: E731
    jl = lambda x: jnp.sum(w * jnp.sin(x[idx]))                   # noqa: E731
    np.testing.assert_allclose(to_np(xgrad.grad(L)(xp.asarray(x))),
                               np.asarray(jax.grad(jl)(jnp.asarray(x))), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(to_np(xgrad.hessian(L)(xp.asarray(x))),
                               np.asarray(jax.hessian(jl)(jnp.asarray(x))), rtol=1e-13, atol=1e-13)


# ----- random shapes and indices -----

@st.composite
def writes(draw, all_axes):
    """(shape of x, index, shape of v): integer arrays with repeats and
    negative indices, broadcast together, on every axis (``all_axes``, the
    forms array_api_strict takes) or on one axis among full slices; v of the
    region's shape, a suffix of it, or with size-1 axes (broadcast)."""
    r = draw(st.integers(1, 2))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=r, max_size=r)))
    bshape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=2)))

    def arr(n):
        s = tuple(d if draw(st.booleans()) else 1 for d in bshape)
        vals = draw(st.lists(st.integers(-n, n - 1), min_size=math.prod(s), max_size=math.prod(s)))
        return np.array(vals, dtype=np.int64).reshape(s)
    if all_axes or r == 1:
        idx = tuple(arr(n) for n in shape)
    else:
        a = draw(st.integers(0, r - 1))
        idx = tuple(arr(n) if k == a else slice(None) for k, n in enumerate(shape))
    region = np.empty(shape)[idx].shape
    drop = draw(st.integers(0, len(region)))
    vshape = tuple(d if draw(st.booleans()) else 1 for d in region[drop:])
    return shape, idx, vshape


@pytest.mark.parametrize("op", ["set", "iadd"])
@hypothesis.settings(max_examples=25, deadline=None,
                     suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture])
@hypothesis.given(data=st.data(), seed=st.integers(0, 2**31 - 1))
def test_random_writes_forward_equals_reverse(xp, op, data, seed):
    shape, idx, vshape = data.draw(writes(all_axes=_strict(xp)))
    rng = np.random.default_rng(seed)
    x, v, bx, bv = _data(rng, xp, shape, vshape)
    f = (set_fn if op == "set" else iadd_fn)(_on(xp, idx))
    n, m = math.prod(shape), math.prod(vshape)
    out_c, jx_c, jv_c = closed_form(shape, idx, vshape, x, v, op)
    jf = xgrad.jacfwd(f, argnums=(0, 1))(bx, bv)
    jr = xgrad.jacrev(f, argnums=(0, 1))(bx, bv)
    np.testing.assert_array_equal(_flat_jac(jr[0], n, n), _flat_jac(jf[0], n, n))
    np.testing.assert_array_equal(_flat_jac(jr[1], n, m), _flat_jac(jf[1], n, m))
    np.testing.assert_array_equal(_flat_jac(jr[0], n, n), jx_c)
    np.testing.assert_array_equal(_flat_jac(jr[1], n, m), jv_c)
    np.testing.assert_allclose(to_np(xgrad.jvp(f, (bx, bv), (bx, bv))[0]), out_c, rtol=0, atol=1e-15)
