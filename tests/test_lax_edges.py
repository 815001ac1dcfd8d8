"""xgrad.lax and xgrad.random refuse what jax refuses, with an error that
names the argument, and keep jax's dtypes at the edges: a branch of
``cond``/``switch`` of another type, a non-integer ``switch`` index, a
non-boolean ``pred`` or ``while_loop`` condition, float slice starts, a
loop carry that changes dtype, a scan body that returns no pair, negative
random shapes; a float32 carry plus ``fori_loop``'s weakly typed index stays
float32, and ``fold_in`` of a float or numpy integer folds in what jax does.
Each case runs the same call on jax where jax is installed, to prove that
jax raises too (or gives the same number)."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad import lax, random


def _jax_lax(jax):
    return jax.lax, jax.numpy


REFUSED = {
    "cond branches of other shapes": (
        TypeError, "true_fun and false_fun",
        lambda L, ns: L.cond(True, lambda x: x, lambda x: x[:2], ns.ones(3))),
    "cond branches of other dtypes": (
        TypeError, "equal types",
        lambda L, ns: L.cond(True, lambda x: x, lambda x: x.astype(ns.float32), ns.ones(3))),
    "cond branches of other structures": (
        TypeError, "pytree structure",
        lambda L, ns: L.cond(False, lambda x: (x, x), lambda x: x, ns.ones(3))),
    "switch with a float index": (
        TypeError, "index",
        lambda L, ns: L.switch(1.7, [lambda x: x, lambda x: 2 * x], ns.ones(3))),
    "cond with a string predicate": (
        TypeError, "pred",
        lambda L, ns: L.cond("yes", lambda x: x, lambda x: 2 * x, ns.ones(3))),
    "while_loop with a float condition": (
        TypeError, "cond_fun",
        lambda L, ns: L.while_loop(lambda c: 1.0 * (c < 3), lambda c: c + 1, 0.0)),
    "dynamic_slice with a float start": (
        TypeError, "start_indices",
        lambda L, ns: L.dynamic_slice(ns.arange(5.0), (1.5,), (2,))),
    "dynamic_update_slice of another dtype": (
        TypeError, "dtype",
        lambda L, ns: L.dynamic_update_slice(ns.zeros(5), ns.ones(2, dtype=ns.float32), (1,))),
    "while_loop whose body changes the carry's dtype": (
        TypeError, "body_fun",
        lambda L, ns: L.while_loop(lambda c: c[0] < 3, lambda c: c.astype(ns.float32) + 1,
                                   ns.zeros(2))),
    "scan whose body returns no pair": (
        TypeError, "scan",
        lambda L, ns: L.scan(lambda c, x: c + x, 0.0, ns.ones(3))),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_lax_refuses_what_jax_refuses(name, jax):
    err, words, call = REFUSED[name]
    with pytest.raises(err, match=words):
        call(lax, xnp)
    jl, jnp = _jax_lax(jax)
    with pytest.raises(Exception):
        call(jl, jnp)


@pytest.mark.parametrize("name", sorted(n for n in REFUSED if n.startswith(("cond", "switch"))))
def test_branch_checks_hold_under_grad(name):
    err, words, call = REFUSED[name]
    with pytest.raises(err):
        xgrad.grad(lambda s: xnp.sum(call(lax, xnp)) * s)(1.0)


def test_fori_index_is_weak_float32_carry_stays_float32(jax):
    x = np.ones(3, np.float32)
    out = lax.fori_loop(0, 3, lambda i, c: c + i, x)
    want = jax.lax.fori_loop(0, 3, lambda i, c: c + i, jax.numpy.asarray(x))
    assert out.dtype == np.float32 == want.dtype
    np.testing.assert_array_equal(out, np.asarray(want))
    g = xgrad.grad(lambda v: xnp.sum(lax.fori_loop(0, 3, lambda i, c: c * i + c, v)))(x)
    gj = jax.grad(lambda v: jax.numpy.sum(jax.lax.fori_loop(0, 3, lambda i, c: c * i + c, v)))(x)
    assert g.dtype == np.float32
    np.testing.assert_array_equal(g, np.asarray(gj))


@pytest.mark.parametrize("shape_call", ["normal", "split"])
def test_negative_random_shapes_are_refused(shape_call):
    key = random.PRNGKey(0)
    with pytest.raises(ValueError, match="non-negative"):
        random.normal(key, (-1,)) if shape_call == "normal" else random.split(key, -1)


@pytest.mark.parametrize("data", [1.5, True, np.int64(7), np.float32(2.7), np.int8(-1)])
def test_fold_in_folds_in_what_jax_does(data, jax):
    got = random.fold_in(random.PRNGKey(0), data)
    want = jax.random.fold_in(jax.random.PRNGKey(0), data)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_truncated_normal_float32_far_tail_matches_jax(jax):
    got = random.truncated_normal(random.PRNGKey(3), 5.0, 8.0, (2000,), dtype=np.float32)
    want = jax.random.truncated_normal(jax.random.PRNGKey(3), 5.0, 8.0, (2000,),
                                       dtype=jax.numpy.float32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-5)
