"""xgrad.program: one staging trace makes a Program; evaluating it gives the
function's values, and evaluating it under a transform gives the function's
derivatives (so linearize, make_tape and checkpoint can share it, and a
later jit can replay it)."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad.program import Program, StageTrace, Var, eval_program, stage, with_known_output
from xgrad.core import RULES, new_main
from helpers import assert_close

RNG = np.random.default_rng(3)
A = RNG.normal(size=(3, 4))
B = RNG.normal(size=(4, 2))


def f(x, w):
    h = xnp.tanh(x @ w) * 2.0
    h[0] = h[0] + 1.0                     # a functional update
    return [xnp.sum(h ** 2), h]


def test_stage_lists_and_evaluates():
    prog, outs, _ = stage(f, [A, B])
    assert isinstance(prog, Program) and len(prog.in_vars) == 2
    assert [e.prim.name for e in prog.eqns][:3] == ["matmul", "tanh", "multiply"]
    text = str(prog)
    assert text.splitlines()[0] == "{ lambda a:f64[3, 4], b:f64[4, 2] ."
    assert "c:f64[3, 2] = matmul a b" in text
    assert text.splitlines()[-1].startswith("  in (")
    want = f(A, B)
    for o, w in zip(outs, want):                  # staging ran the function once
        assert_close(o, w, rtol=0, atol=0)
    for o, w in zip(eval_program(prog, [A, B]), want):
        assert_close(o, w, rtol=0, atol=0)
    # the program is a function of its inputs: new inputs, new values
    A2 = A + 1.0
    for o, w in zip(prog(A2, B), f(A2, B)):
        assert_close(o, w, rtol=0, atol=0)


def test_program_is_differentiable_and_batchable(jax):
    prog, _, _ = stage(f, [A, B])
    loss = lambda x, w: eval_program(prog, [x, w])[0]            # noqa: E731
    ref = lambda x, w: f(x, w)[0]                                # noqa: E731
    for argnums in (0, 1):
        assert_close(xgrad.grad(loss, argnums)(A, B), xgrad.grad(ref, argnums)(A, B),
                     rtol=0, atol=0)
    v = RNG.normal(size=B.shape)
    assert_close(xgrad.hvp(lambda w: loss(A, w), (B,), (v,)),
                 xgrad.hvp(lambda w: ref(A, w), (B,), (v,)), rtol=1e-14, atol=1e-14)
    xs = RNG.normal(size=(5,) + A.shape)
    assert_close(xgrad.vmap(loss, in_axes=(0, None))(xs, B),
                 np.array([ref(x, B) for x in xs]), rtol=1e-14)
    jnp = jax.numpy

    def jref(x, w):
        h = jnp.tanh(x @ w) * 2.0
        h = h.at[0].set(h[0] + 1.0)
        return jnp.sum(h ** 2)
    assert_close(xgrad.hessian(lambda w: loss(A, w))(B), np.asarray(jax.hessian(
        lambda w: jref(A, w))(B)), rtol=1e-12, atol=1e-12)


def test_constants_outputs_and_prune():
    C = RNG.normal(size=(4,))

    def g(x):
        xnp.sin(x)                                 # no output depends on it
        return [x * C, C, 3.0, xnp.exp(x)]
    prog, outs, _ = stage(g, [A[0]])
    assert any(c is C for c in prog.consts)
    assert prog.outs[1] is C and prog.outs[2] == 3.0
    pruned = prog.prune()
    assert [e.prim.name for e in prog.eqns] == ["sin", "multiply", "exp"]
    assert [e.prim.name for e in pruned.eqns] == ["multiply", "exp"]
    for o, w in zip(pruned(A[1]), g(A[1])):
        assert_close(o, w, rtol=0, atol=0)


def test_unstaged_inputs_and_constant_const_fn():
    seen = []

    def own(a):
        seen.append(a)
        return a
    with new_main(StageTrace, False, own) as st:
        x = st.new_var(A)
        y = xnp.multiply(x, 2.0)
        prog = st.program([x.staged_var, None], [y])
    assert seen == [2.0]
    assert_close(prog(A + 1, "ignored")[0], (A + 1) * 2.0, rtol=0, atol=0)


def test_shadow_values_have_no_concrete_value():
    with new_main(StageTrace, True) as st:
        x = st.new_var(np.zeros(3))
        with pytest.raises(TypeError, match="no concrete value"):
            bool(x[0] > 0)


def test_multiple_results_and_calls_are_one_equation():
    ck = xgrad.checkpoint(lambda x: (xnp.sin(x), xnp.cos(x)))
    prog, outs, _ = stage(lambda x: list(ck(x)), [A])
    (eqn,) = prog.eqns
    assert eqn.prim.name == "checkpoint_call" and eqn.multi and len(eqn.outs) == 2
    assert "checkpoint_call[fn='<lambda>'] a" in str(prog)
    for o, w in zip(prog(A * 2), (np.sin(A * 2), np.cos(A * 2))):
        assert_close(o, w, rtol=0, atol=0)


def test_known_output_is_not_computed_but_differentiated():
    calls = []
    mm = RULES["matmul"]
    known = with_known_output(mm, A @ B)
    assert known.vjp is mm.vjp and known.jvp is mm.jvp and known.family == mm.family
    prog, _, _ = stage(lambda x, w: [xnp.sum(xnp.sin(xnp.matmul(x, w)))], [A, B])
    (e_mm,) = [e for e in prog.eqns if e.prim is mm]
    orig = mm.impl
    try:
        mm.impl = lambda *a, **k: (calls.append(1), orig(*a, **k))[1]
        loss = lambda x: eval_program(prog, [x, B], known={e_mm: A @ B})[0]   # noqa: E731
        g = xgrad.grad(loss)(A)
    finally:
        mm.impl = orig
    # the backward product g @ B^T is the only matmul computed
    assert len(calls) == 1
    assert_close(g, np.cos(A @ B) @ B.T, rtol=1e-14)


def test_opaque_when_a_call_closes_over_a_staged_value():
    def g(x):
        h = xnp.sin(x)
        return [xgrad.checkpoint(lambda y: y * h)(x)]
    prog, outs, st = stage(g, [A])
    assert st.opaque
    assert_close(outs[0], A * np.sin(A), rtol=0, atol=0)
    _, _, st2 = stage(lambda x: [xgrad.checkpoint(lambda y: y * 2.0)(x)], [A])
    assert not st2.opaque


def test_var_and_eqn_repr():
    prog, _, _ = stage(lambda x: [xnp.sin(x)], [A])
    assert repr(prog.in_vars[0]) == "Var(f64[3, 4])"
    assert repr(prog.eqns[0]) == "Eqn(sin, 1 in, 1 out)"
    assert isinstance(prog.in_vars[0], Var)
    assert str(prog) == repr(prog)
