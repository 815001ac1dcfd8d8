"""``einsum`` and friends (``xgrad/numpy/_einsum.py``) against jax.numpy:
a table of subscript forms through the JCase harness (value, jvp, vjp,
second order, vmap), random subscripts by hypothesis (value and a VJP),
vmap with unbatched operands, ``einsum_path`` against jax's path, the
fallback without opt_einsum, and the errors."""
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import xgrad
import xgrad.numpy as xnp
from xgrad.numpy import _einsum
from jnp_cases import JCase, check, ids

_rng = np.random.default_rng(0)


def _r(*shape, dtype=np.float64):
    return _rng.standard_normal(shape).astype(dtype)


def _ein(subs, **kw):
    return lambda ns, *xs: ns.einsum(subs, *xs, **kw)


# (id, subscripts, operand shapes)
FORMS = [
    ("matmul", "ij,jk->ik", [(2, 3), (3, 4)]),
    ("batch-matmul", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("outer", "i,j->ij", [(3,), (4,)]),
    ("inner", "i,i->", [(4,), (4,)]),
    ("trace", "ii", [(3, 3)]),
    ("trace-explicit", "ii->", [(3, 3)]),
    ("diagonal", "ii->i", [(3, 3)]),
    ("diagonal-3d", "iij->ji", [(3, 3, 2)]),
    ("diagonal-triple", "iii->i", [(3, 3, 3)]),
    ("transpose", "ij->ji", [(2, 3)]),
    ("identity", "ij", [(2, 3)]),
    ("sum", "ij->", [(2, 3)]),
    ("sum-axis", "ijk->ik", [(2, 3, 4)]),
    ("ellipsis", "...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("ellipsis-implicit", "...ij,...jk", [(2, 3, 4), (2, 4, 5)]),
    ("ellipsis-middle", "i...j,j...->...i", [(2, 3, 4), (4, 3)]),
    ("ellipsis-sum", "...i->...", [(2, 3, 4)]),
    ("ellipsis-summed-out", "...ij->ij", [(4, 2, 3)]),
    ("ellipsis-only", "...->", [(2, 3)]),
    ("implicit", "ij,jk", [(2, 3), (3, 4)]),
    ("implicit-order", "ba,ca", [(2, 3), (4, 3)]),
    ("three-shared", "i,i,i->", [(3,), (3,), (3,)]),
    ("three-shared-kept", "ij,ij,ij->i", [(2, 3), (2, 3), (2, 3)]),
    ("three-cycle", "ij,jk,ki->", [(2, 3), (3, 4), (4, 2)]),
    ("three-mixed", "ij,jk,jl->ikl", [(2, 3), (3, 4), (3, 2)]),
    ("chain-4", "ab,bc,cd,de->ae", [(2, 3), (3, 4), (4, 5), (5, 2)]),
    ("chain-4-implicit", "ab,bc,cd,de", [(2, 3), (3, 4), (4, 5), (5, 2)]),
    ("broadcast-contracted", "ij,jk->ik", [(3, 1), (4, 5)]),
    ("broadcast-free", "ij,ij->ij", [(3, 1), (1, 5)]),
    ("broadcast-kept", "bij,bjk->bik", [(1, 2, 3), (4, 3, 2)]),
    ("size-one", "ij,jk->ik", [(1, 1), (1, 1)]),
    ("scalars", ",->", [(), ()]),
    ("scalar-vector", "i,->i", [(3,), ()]),
    ("scalar-only", "->", [()]),
    ("attention-scores", "bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("attention-proj", "bsm,mhd->bhsd", [(2, 3, 4), (4, 2, 3)]),
    ("attention-out", "bhsd,hdm->bsm", [(2, 2, 3, 4), (2, 4, 3)]),
    ("diag-and-contract", "iij,jk->ik", [(3, 3, 2), (2, 4)]),
    ("bilinear", "i,ij,j->", [(3,), (3, 4), (4,)]),
    ("unique-summed", "ij,k->i", [(2, 3), (4,)]),
]

CASES = [JCase("einsum", _ein(subs), [_r(*s) for s in shapes], id=name)
         for name, subs, shapes in FORMS]
A, B, C = _r(2, 3), _r(3, 4), _r(4, 5)
CASES += [
    JCase("einsum", _ein("ij,jk,kl->il", optimize=False), [A, B, C], id="optimize-false"),
    JCase("einsum", _ein("ij,jk,kl->il", optimize=True), [A, B, C], id="optimize-true"),
    JCase("einsum", _ein("ij,jk,kl->il", optimize="greedy"), [A, B, C], id="optimize-greedy"),
    JCase("einsum", _ein("ij,jk,kl->il", optimize="optimal"), [A, B, C], id="optimize-optimal"),
    JCase("einsum", _ein("ij,jk,kl->il", optimize=[(1, 2), (0, 1)]), [A, B, C], id="optimize-path"),
    JCase("einsum", lambda ns, a, b: ns.einsum(a, [0, 1], b, [1, 2], [0, 2]), [A, B],
          id="interleaved"),
    JCase("einsum", lambda ns, a, b: ns.einsum(a, [Ellipsis, 1], b, [1, 2]), [_r(2, 2, 3), B],
          id="interleaved-ellipsis"),
    JCase("einsum", lambda ns, a: ns.einsum("i,->i", a, 3.0), [_r(3)], id="python-scalar"),
    JCase("einsum", lambda ns, a: ns.einsum("i,->i", a, 3.0), [_r(3, dtype=np.float32)],
          id="python-scalar-f32", rtol=1e-5, atol=1e-6),
    JCase("einsum", _ein("ij,jk->ik"), [_r(2, 3, dtype=np.float32), _r(3, 4)],
          id="mixed-f32-f64", rtol=1e-6, atol=1e-6),
    JCase("einsum", _ein("ij,jk->ik"), [_r(2, 3, dtype=np.float32),
                                         np.arange(12, dtype=np.int32).reshape(3, 4)],
          id="mixed-f32-int", rtol=1e-5, atol=1e-5),
    JCase("einsum", _ein("ij,jk->ik"), [np.arange(6).reshape(2, 3), np.arange(12).reshape(3, 4)],
          id="int", order=0),
    JCase("einsum", _ein("ij,jk->ik", preferred_element_type=np.float64),
          [_r(2, 3, dtype=np.float32), _r(3, 4, dtype=np.float32)], id="preferred-f64",
          rtol=1e-6, atol=1e-6),
    JCase("einsum", _ein("ij,jk->ik", preferred_element_type=np.float32),
          [np.arange(6, dtype=np.int8).reshape(2, 3), np.arange(12, dtype=np.int8).reshape(3, 4)],
          id="preferred-int8-f32", order=0),
    JCase("einsum", _ein("ij,jk->ik", precision="highest"), [A, B], id="precision"),
    JCase("einsum", _ein("ij,jk->ik"), [_r(2, 3) + 1j * _r(2, 3), _r(3, 4) + 1j * _r(3, 4)],
          id="complex", order=0),
    JCase("einsum", _ein("ij,jk->ik"), [_r(2, 3) > 0, _r(3, 4) > 0], id="bool", order=0),
    JCase("einsum", _ein("ij->"), [_r(2, 3) > 0], id="bool-sum", order=0),
    JCase("einsum", _ein("ij->i"), [np.arange(6, dtype=np.int8).reshape(2, 3)], id="int8-sum",
          order=0),
    JCase("einsum", _ein("ij,jk"), [np.ones((2, 0)), np.ones((0, 3))], id="empty"),
    JCase("einsum_path", lambda ns, a, b, c: ns.asarray(ns.einsum_path("ij,jk,kl", a, b, c)[0]),
          [_r(2, 30), _r(30, 4), _r(4, 50)], order=0),
    JCase("matvec", lambda ns, a, v: ns.matvec(a, v), [_r(2, 3, 4), _r(4)]),
    JCase("matvec", lambda ns, a, v: ns.matvec(a, v), [_r(3, 1, 2, 4), _r(5, 4)], id="broadcast"),
    JCase("vecmat", lambda ns, v, a: ns.vecmat(v, a), [_r(3), _r(2, 3, 4)]),
    JCase("vecmat", lambda ns, v, a: ns.vecmat(v, a),
          [_r(3) + 1j * _r(3), _r(3, 4) + 1j * _r(3, 4)], id="complex", order=0),
    JCase("linalg.multi_dot", lambda ns, a, b, c, d: ns.linalg.multi_dot([a, b, c, d]),
          [_r(2, 10), _r(10, 3), _r(3, 8), _r(8, 4)]),
    JCase("linalg.multi_dot", lambda ns, a, b, c: ns.linalg.multi_dot([a, b, c]),
          [_r(3), _r(3, 4), _r(4)], id="vectors"),
    JCase("linalg.multi_dot", lambda ns, a, b: ns.linalg.multi_dot([a, b]),
          [_r(3, 2), _r(2)], id="two"),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(case, xp, jax):
    check(case, xp, jax)


# ----- random subscripts (hypothesis): value and a VJP against jax -----

@st.composite
def _problems(draw):
    letters = "abcde"
    sizes = {c: draw(st.integers(1, 3)) for c in letters}
    n = draw(st.integers(1, 4))
    terms = [draw(st.lists(st.sampled_from(letters), min_size=0, max_size=3)) for _ in range(n)]
    used = sorted({c for t in terms for c in t})
    explicit = draw(st.booleans())
    subs = ",".join("".join(t) for t in terms)
    if explicit:
        out = draw(st.permutations(used))
        out = out[:draw(st.integers(0, len(out)))]
        subs += "->" + "".join(out)
    seed = draw(st.integers(0, 2 ** 16))
    rng = np.random.default_rng(seed)
    ops = [rng.standard_normal(tuple(sizes[c] for c in t)) for t in terms]
    return subs, ops


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_problems())
def test_random_subscripts(jax, problem):
    subs, ops = problem
    jnp = jax.numpy
    want = jnp.einsum(subs, *ops)
    got = xnp.einsum(subs, *ops)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-10, atol=1e-12,
                               err_msg=subs)
    ct = np.random.default_rng(1).standard_normal(np.shape(want))
    _, f = xgrad.vjp(lambda *xs: xnp.einsum(subs, *xs), *ops)
    _, jf = jax.vjp(lambda *xs: jnp.einsum(subs, *xs), *[jnp.asarray(o) for o in ops])
    for g, jg in zip(f(ct), jf(jnp.asarray(ct))):
        np.testing.assert_allclose(np.asarray(g), np.asarray(jg), rtol=1e-10, atol=1e-12,
                                   err_msg=subs)


# ----- vmap with some operands unbatched -----

@pytest.mark.parametrize("subs,shapes,in_axes", [
    ("ij,jk->ik", [(3, 2, 3), (3, 4)], (0, None)),
    ("ij,jk->ik", [(2, 3), (3, 4, 5)], (None, 1)),
    ("bhqd,bhkd->bhqk", [(4, 2, 2, 3, 5), (2, 2, 6, 5)], (0, None)),
    ("ii->i", [(2, 3, 3)], (0,)),
    ("i,i,i->", [(3,), (4, 3), (3,)], (None, 0, None)),
    ("...ij,...jk", [(2, 5, 3, 4), (2, 4, 2)], (0, 0)),
])
def test_vmap_in_axes(jax, subs, shapes, in_axes):
    ops = [_r(*s) for s in shapes]
    got = xgrad.vmap(lambda *xs: xnp.einsum(subs, *xs), in_axes=in_axes)(*ops)
    want = jax.vmap(lambda *xs: jax.numpy.einsum(subs, *xs), in_axes=in_axes)(*ops)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-10, atol=1e-12)
    # and its gradient
    g = xgrad.grad(lambda *xs: xnp.sum(xgrad.vmap(lambda *ys: xnp.einsum(subs, *ys),
                                                 in_axes=in_axes)(*xs) ** 2))(*ops)
    jg = jax.grad(lambda *xs: jax.numpy.sum(jax.vmap(lambda *ys: jax.numpy.einsum(subs, *ys),
                                                     in_axes=in_axes)(*xs) ** 2))(*ops)
    np.testing.assert_allclose(np.asarray(g), np.asarray(jg), rtol=1e-10, atol=1e-12)


# ----- einsum_path against jax's -----

@pytest.mark.parametrize("subs,shapes,optimize", [
    ("ij,jk,kl", [(2, 3), (3, 4), (4, 5)], "auto"),
    ("ij,jk,kl", [(2, 30), (30, 4), (4, 50)], "optimal"),
    ("ij,jk,kl", [(2, 30), (30, 4), (4, 50)], "greedy"),
    ("ij,jk,kl", [(2, 30), (30, 4), (4, 50)], True),
    ("ij,jk,kl", [(2, 30), (30, 4), (4, 50)], False),
    ("ij", [(2, 3)], False),
    ("ij", [(2, 3)], "auto"),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)], "auto"),
    ("ab,bc,cd,de->ae", [(2, 3), (3, 40), (40, 5), (5, 2)], "auto"),
])
def test_einsum_path_matches_jax(jax, subs, shapes, optimize):
    ops = [_r(*s) for s in shapes]
    path, info = xnp.einsum_path(subs, *ops, optimize=optimize)
    jpath, jinfo = jax.numpy.einsum_path(subs, *ops, optimize=optimize)
    assert path == list(jpath)
    assert all(isinstance(s, tuple) for s in path)
    assert str(info) == str(jinfo)
    # and einsum takes it back
    np.testing.assert_allclose(np.asarray(xnp.einsum(subs, *ops, optimize=path)),
                               np.asarray(jax.numpy.einsum(subs, *ops)), rtol=1e-10)


def test_einsum_path_on_traced_values():
    a, b = _r(2, 3), _r(3, 4)

    def f(a, b):
        path, _ = xnp.einsum_path("ij,jk->ik", a, b)
        return xnp.sum(xnp.einsum("ij,jk->ik", a, b, optimize=path))
    g = xgrad.grad(f)(a, b)
    np.testing.assert_allclose(g, np.ones((2, 4)) @ b.T)


# ----- without opt_einsum: left to right -----

def test_fallback_without_opt_einsum(monkeypatch, jax):
    monkeypatch.setattr(_einsum, "_oe", None)
    monkeypatch.setattr(_einsum, "_PLANS", {})
    ops = [_r(2, 3), _r(3, 4), _r(4, 5), _r(5, 2)]
    want = jax.numpy.einsum("ab,bc,cd,de->ae", *ops)
    for opt in ("auto", True, False, "greedy"):
        got = xnp.einsum("ab,bc,cd,de->ae", *ops, optimize=opt)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-10)
    path, info = xnp.einsum_path("ab,bc,cd,de->ae", *ops)
    assert path == [(0, 1), (0, 1), (0, 1)] and isinstance(info, str)
    g = xgrad.grad(lambda x: xnp.sum(xnp.einsum("ii,ij,jk->k", x, ops[0][:, :2] @ ops[0][:, :2].T,
                                                ops[0])))(ops[0][:, :2] @ ops[0][:, :2].T)
    jg = jax.grad(lambda x: jax.numpy.sum(jax.numpy.einsum(
        "ii,ij,jk->k", x, ops[0][:, :2] @ ops[0][:, :2].T, ops[0])))(ops[0][:, :2] @ ops[0][:, :2].T)
    np.testing.assert_allclose(np.asarray(g), np.asarray(jg), rtol=1e-10)


# ----- structure: one matmul per contraction, plans cached -----

def test_one_matmul_per_pairwise_contraction(monkeypatch):
    calls = []
    real = _einsum._matmul
    monkeypatch.setattr(_einsum, "_matmul", lambda a, b: calls.append(1) or real(a, b))
    ops = [_r(2, 3), _r(3, 4), _r(4, 5), _r(5, 2)]
    xnp.einsum("ab,bc,cd,de->ae", *ops)
    assert len(calls) == 3
    calls.clear()
    xnp.einsum("i,j->ij", _r(3), _r(4))       # no contracted label: a multiply
    assert calls == []


def test_plans_are_cached():
    a, b = _r(2, 3), _r(3, 4)
    xnp.einsum("ij,jk->ik", a, b)
    key = ("ij,jk->ik", ((2, 3), (3, 4)), ((type(a.dtype), a.dtype),) * 2, "auto", type(None), None)
    assert key in _einsum._PLANS
    plan = _einsum._PLANS[key]
    xnp.einsum("ij,jk->ik", a + 1, b)
    assert _einsum._PLANS[key] is plan


def test_inputs_not_written():
    a = _r(3, 3)
    keep = a.copy()
    xgrad.grad(lambda x: xnp.sum(xnp.einsum("ii->i", x) ** 2))(a)
    np.testing.assert_array_equal(a, keep)


# ----- errors name the argument and what was expected -----

@pytest.mark.parametrize("subs,shapes,match", [
    ("ij", [(2,)], "names 2 axes but operand 0 has 1"),
    ("ij,jk->ik", [(2, 3), (4, 5)], "label 'j' has size 4"),
    ("ij->k", [(2, 3)], "output label 'k'"),
    ("i->ii", [(2,)], "more than once"),
    ("ij,jk", [(2, 3)], "name 2 operand"),
    ("ij->i->j", [(2, 3)], "more than one '->'"),
    ("i1", [(2, 3)], "not a letter"),
    ("ii", [(2, 3)], "repeats in operand 0"),
    ("......i", [(2, 3)], "more than one '...'"),
])
def test_errors(subs, shapes, match):
    with pytest.raises(ValueError, match=match):
        xnp.einsum(subs, *[_r(*s) for s in shapes])


def test_other_errors():
    with pytest.raises(NotImplementedError, match="out"):
        xnp.einsum("ij", _r(2, 2), out=_r(2, 2))
    with pytest.raises(ValueError, match="optimize path"):
        xnp.einsum("ij,jk", _r(2, 3), _r(3, 4), optimize=[(0, 5)])
    with pytest.raises(ValueError, match="leaves 2 operands"):
        xnp.einsum("ij,jk", _r(2, 3), _r(3, 4), optimize=[(0,)])
    with pytest.raises(ValueError, match="at least two"):
        xnp.linalg.multi_dot([_r(2, 2)])
    with pytest.raises(ValueError, match="array 1 has 1 axes"):
        xnp.linalg.multi_dot([_r(2, 2), _r(2), _r(2, 2)])
    with pytest.raises(ValueError, match="matvec: x1 needs"):
        xnp.matvec(_r(3), _r(3))
    with pytest.raises(ValueError, match="vecmat: x1 needs"):
        xnp.vecmat(_r(3), _r(3))


def test_attention_benchmark_smoke():
    """benchmarks/einsum_attention.py runs, and its einsum results match the
    matmul ones (the timings themselves are not asserted)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root, OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, os.path.join(root, "benchmarks", "einsum_attention.py"),
                          "--quick"], capture_output=True, text=True, env=env, timeout=600,
                         cwd=root).stdout
    rows = [line for line in out.splitlines() if line.startswith("xgrad:einsum")]
    assert len(rows) == 2 and all(" ok rel" in r for r in rows), out
    assert "einsum / matmul, CPU time" in out, out


@pytest.mark.parametrize("shapes,first", [
    ([(10, 100), (100, 5), (5, 50)], ((10, 100), (100, 5))),     # (AB)C: 7,500 vs 75,000
    ([(50, 5), (5, 100), (100, 10)], ((5, 100), (100, 10))),     # A(BC): 7,500 vs 75,000
])
def test_multi_dot_takes_the_cheapest_order(monkeypatch, shapes, first):
    calls = []
    real = _einsum._matmul
    monkeypatch.setattr(_einsum, "_matmul",
                        lambda a, b: calls.append((tuple(a.shape), tuple(b.shape))) or real(a, b))
    ops = [_r(*s) for s in shapes]
    got = xnp.linalg.multi_dot(ops)
    np.testing.assert_allclose(got, ops[0] @ ops[1] @ ops[2], rtol=1e-10)
    assert calls[0] == first
