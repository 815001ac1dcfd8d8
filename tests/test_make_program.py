"""xgrad.make_program and jit(f).lower: the staged Program of a function, its
listing (an equation per line, guards where they are checked), and that it
computes what the function computes; plus a smoke run of benchmarks/jit.py."""
import os
import subprocess
import sys

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad.program import Program

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def prims(program):
    return [e.prim.name for e in program.eqns]


def test_listing_of_a_small_function():
    p = xgrad.make_program(lambda x: xnp.sum(xnp.sin(x)))(np.ones(3))
    assert isinstance(p, Program)
    assert prims(p) == ["sin", "sum"]
    text = str(p)
    assert text.splitlines() == [
        "{ lambda a:f64[3] .",
        "    b:f64[3] = sin a",
        "    c:f64[] = sum[axis=None, dtype=None, keepdims=False] b",
        "  in (c) }"]
    assert p.as_text() == text == p.pretty()
    x = np.array([0.3, -1.2, 2.0])
    assert p(x)[0] == pytest.approx(np.sum(np.sin(x)), rel=1e-15)


def test_constants_shapes_and_dtypes():
    w = np.ones((3, 2), dtype=np.float32)

    def f(x, s):
        return xnp.tanh(x @ w) * 2.5 + xnp.asarray(1, dtype=xnp.int32)
    p = xgrad.make_program(f, static_argnums=1)(np.ones((4, 3), dtype=np.float32), "s")
    text = str(p)
    assert "a:f32[4, 3]" in text and "<const f32[3, 2]>" in text
    assert "f32[4, 2] = tanh" in text and " 2.5" in text
    assert len([v for v in p.in_vars if v is not None]) == 1


def _branchy(x):
    if x.sum() > 0:
        return xnp.sum(x ** 2)
    return -xnp.sum(x)


def test_guard_is_listed_where_it_is_checked():
    pos = xgrad.make_program(_branchy)(np.ones(3))
    lines = str(pos).splitlines()
    assert lines[2] == "    c:bool[] = greater b 0"
    assert lines[3] == "    guard c == True"
    assert "pow" in prims(pos)
    assert len(pos.guards) == 1 and pos.guards[0].at == 2
    neg = xgrad.make_program(_branchy)(-np.ones(3))
    assert "guard c == False" in str(neg) and "pow" not in prims(neg)
    # the program is the branch taken: on another input it still computes that branch
    assert pos(-np.ones(3))[0] == 3.0


def test_lower_of_jit_grad_has_forward_and_backward():
    def loss(w, x):
        return xnp.mean(xnp.tanh(x @ w) ** 2)
    w, x = np.full((3, 2), 0.1), np.arange(12.0).reshape(4, 3) / 10
    jf = xgrad.jit(xgrad.grad(loss))
    low = jf.lower(w, x)
    names = prims(low)
    assert "tanh" in names                              # forward
    assert names.count("matmul") >= 2                   # x @ w and its transpose
    assert names.index("tanh") < len(names) - 1
    assert "a:f64[3, 2], b:f64[4, 3]" in low.as_text()
    assert str(low) == str(xgrad.make_program(xgrad.grad(loss))(w, x))
    np.testing.assert_allclose(low(w, x)[0], xgrad.grad(loss)(w, x), rtol=1e-14)
    # lowering neither stages into the cache nor counts as a staging
    assert jf.cache_info() == (0, 0) and jf.stagings == 0


def test_static_arguments():
    def f(x, n, *, scale):
        return x * n + scale
    jf = xgrad.jit(f, static_argnums=1, static_argnames="scale")
    low = jf.lower(np.ones(2), 3, scale=0.5)
    assert str(low).splitlines()[1:3] == ["    b:f64[2] = multiply a 3", "    c:f64[2] = add b 0.5"]
    assert str(xgrad.make_program(f, static_argnums=1)(np.ones(2), 4, scale=0.25)) \
        .splitlines()[1:3] == ["    b:f64[2] = multiply a 4", "    c:f64[2] = add b 0.25"]
    with pytest.raises(TypeError, match="hashable"):
        jf.lower(np.ones(2), [3], scale=0.5)


def test_pytree_arguments_and_bad_input():
    p = xgrad.make_program(lambda d: d["a"] + d["b"][0])({"a": np.ones(2), "b": (np.ones(2),)})
    assert str(p).startswith("{ lambda a:f64[2], b:f64[2] .")
    with pytest.raises(TypeError, match="callable"):
        xgrad.make_program(3)


def test_benchmark_quick_runs():
    """benchmarks/jit.py --quick: every row's jit result equals eager, and the
    table has the speed-up column."""
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "jit.py"), "--quick"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "speed-up" in proc.stdout and "MISMATCH" not in proc.stdout
    assert proc.stdout.count(" ok\n") + proc.stdout.count(" ok\r\n") == 7
