"""xgrad.debug (make_tape, to_dot, make_graph, hook, tangent_hook, tag,
grad_intermediates, nan_check, set_nan_check, grad_report) and the gradient
pytree helpers xgrad.tree.global_norm / clip_by_global_norm."""
import inspect
import math
import re
import warnings

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad import debug
from xgrad import tree as xtree
from helpers import assert_close, from_np

X = np.array([0.3, 0.6, -0.4])


def _lineno_of(marker):
    """Line number of ``marker`` in this file (for nan_check's file:line)."""
    src = inspect.getsource(inspect.getmodule(_lineno_of)).splitlines()
    return next(i + 1 for i, line in enumerate(src) if marker in line)


# --------------------------------------------------------------------------
# make_tape

def _mlp(x, W):
    return xnp.sum(xnp.tanh(x @ W) * 2.0)


def test_make_tape_listing(xp):
    x, W = from_np(xp, np.ones((2, 3))), from_np(xp, np.ones((3, 4), dtype=np.float32))
    tape = debug.make_tape(_mlp)(x, from_np(xp, np.ones((3, 4))))
    assert [e.prim.name for e in tape.eqns] == ["matmul", "tanh", "multiply", "sum"]
    names = tape.names()
    assert [names[v] for v in tape.in_vars] == ["a", "b"] and [names[v] for v in tape.outs] == ["f"]
    assert [v.shape for v in names] == [(2, 3), (3, 4), (2, 4), (2, 4), (2, 4), ()]
    text = str(tape)
    assert text.splitlines()[0] == "{ lambda a:f64[2, 3], b:f64[3, 4] ."
    assert "c:f64[2, 4] = matmul a b" in text
    assert "e:f64[2, 4] = multiply d 2.0" in text
    assert text.splitlines()[-1] == "  in (f) }"
    # float32 weights: the dtype shows
    tape32 = debug.make_tape(lambda W: xnp.sum(W * 2.0))(W)
    assert "a:f32[3, 4]" in str(tape32) and "f32[]" in str(tape32)


def test_make_tape_of_grad_lists_forward_and_backward():
    x, W = np.ones((2, 3)), np.ones((3, 4))
    tape = debug.make_tape(xgrad.grad(_mlp, argnums=1))(x, W)
    names = [e.prim.name for e in tape.eqns]
    assert names[:2] == ["matmul", "tanh"]
    it = iter(names)                                  # the forward pass, in order
    assert all(op in it for op in ["matmul", "tanh", "multiply", "sum"])
    # backward: x^T @ g, one product with the transpose as a flag
    assert names[-1] == "matmul" and tape.eqns[-1].params == {"ta": True, "tb": False}
    assert "matmul[ta=True, tb=False] a" in str(tape)
    assert tape.outs[0].shape == (3, 4)                               # d/dW has W's shape
    assert "{ lambda a:f64[2, 3], b:f64[3, 4] ." in str(tape)


def test_make_tape_shows_call_primitives_and_ints():
    f = lambda x, i: xnp.sum(xgrad.checkpoint(xnp.sin)(x)) * i
    tape = debug.make_tape(f)(X, np.asarray(3))
    assert tape.eqns[0].prim.name == "checkpoint_call"
    assert tape.eqns[0].params["spec"].name == "sin"
    assert "checkpoint_call[fn='sin'] a" in str(tape)
    assert "b:i64[]" in str(tape)
    assert [str(v.dtype) for v in tape.in_vars] == ["float64", "int64"]


# --------------------------------------------------------------------------
# to_dot / make_graph

def _parse_dot(dot):
    """Minimal DOT checker: strips quoted strings (with \\" escapes), checks the
    braces outside them, and returns (declared nodes, edges, labels)."""
    strings = []

    def keep(m):
        strings.append(m.group(0)[1:-1])
        return f'"S{len(strings) - 1}"'
    stripped = re.sub(r'"(?:[^"\\]|\\.)*"', keep, dot)
    assert stripped.count('"') % 2 == 0
    depth = 0
    for ch in stripped:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0
    assert depth == 0
    assert stripped.lstrip().startswith("digraph") and stripped.rstrip().endswith("}")
    nodes = {strings[int(m)] for m in re.findall(r'^\s*"S(\d+)"\s*\[', stripped, re.M)}
    edges = [(strings[int(a)], strings[int(b)])
             for a, b in re.findall(r'"S(\d+)"\s*->\s*"S(\d+)"', stripped)]
    labels = [strings[int(m)] for m in re.findall(r'label="S(\d+)"', stripped)]
    return nodes, edges, labels


def test_to_dot_is_valid():
    dot = debug.to_dot(debug.make_tape(_mlp)(np.ones((2, 3)), np.ones((3, 4))))
    nodes, edges, labels = _parse_dot(dot)
    assert edges and all(a in nodes and b in nodes for a, b in edges)
    assert ("a", "eq0") in edges and ("b", "eq0") in edges and ("eq3", "out0") in edges
    assert "a: f64[2, 3]" in labels and "output 0: f64[]" in labels
    assert sum(lab.startswith("matmul") for lab in labels) == 1


def test_to_dot_escapes_weird_names():
    def weird(x):
        return x * 2.0
    weird.__name__ = 'a"b{c}<d>|e\\f\ng'
    f = lambda x: xgrad.checkpoint(weird)(x) + 1.0
    dot = debug.to_dot(debug.make_tape(f)(X), name='my "graph" {1}')
    nodes, edges, labels = _parse_dot(dot)
    assert all(a in nodes and b in nodes for a, b in edges)
    assert len(edges) == 4
    assert "\n" not in "".join(labels)                        # raw newlines escaped
    call = next(lab for lab in labels if lab.startswith("checkpoint_call"))
    assert '\\"' in call and '"' not in call.replace('\\"', "")
    assert dot.startswith('digraph "my \\"graph\\" \\{1\\}" {')


def test_make_graph_text_and_file(tmp_path):
    dot = debug.make_graph(_mlp)(np.ones((2, 3)), np.ones((3, 4)))
    assert dot == debug.to_dot(debug.make_tape(_mlp)(np.ones((2, 3)), np.ones((3, 4))), "_mlp")
    target = str(tmp_path / "mlp")
    path = debug.make_graph(_mlp, filename=target)(np.ones((2, 3)), np.ones((3, 4)))
    assert path.startswith(target)
    with open(path, "rb") as fh:
        content = fh.read()
    assert content
    if path.endswith(".dot"):                 # no graphviz here: the DOT text itself
        assert content.decode() == dot


# --------------------------------------------------------------------------
# hook / tangent_hook

def test_hook_sees_the_cotangent(xp):
    seen = []

    def f(x):
        y = debug.hook(xnp.sin(x), lambda g: seen.append(g))
        return xnp.sum(y ** 2)
    g = xgrad.grad(f)(from_np(xp, X))
    assert len(seen) == 1
    assert_close(seen[0], 2 * np.sin(X))                       # d out / d y
    assert_close(g, 2 * np.sin(X) * np.cos(X))                 # returning None: unchanged


def test_hook_scales_and_clips(xp):
    x = from_np(xp, X)
    f = lambda x: xnp.sum(debug.hook(xnp.sin(x), lambda g: g * 0.5) ** 2)
    assert_close(xgrad.grad(f)(x), np.sin(X) * np.cos(X))
    clip = lambda x: xnp.sum(debug.hook(x * 3.0, lambda g: xnp.clip(g, -1.0, 1.0)) ** 2)
    x2 = np.array([0.1, 2.0, -0.05, -3.0])
    # d/dy y^2 = 2y = 6x, clipped to [-1, 1], then times 3
    assert_close(xgrad.grad(clip)(from_np(xp, x2)), 3 * np.clip(6 * x2, -1, 1))
    # the hook is part of the derivative: second order sees the scaled first derivative
    assert_close(xgrad.hessian(f)(x), np.diag(0.5 * 2 * np.cos(2 * X)))


def test_hook_wrong_shape_and_forward_identity():
    with pytest.raises(ValueError, match=r"hook: .* returned shape \(\) for a cotangent of shape \(3,\)"):
        xgrad.grad(lambda x: xnp.sum(debug.hook(x, lambda g: xnp.sum(g))))(X)
    calls = []
    f = lambda x: xnp.sum(debug.hook(xnp.sin(x), lambda g: calls.append(1) or g * 0.0))
    assert_close(f(X), np.sum(np.sin(X)))
    assert_close(xgrad.jvp(f, (X,), (np.ones(3),))[1], np.sum(np.cos(X)))   # forward: no effect
    assert calls == []


def test_hook_under_vmap():
    f = lambda s: debug.hook(xnp.sin(s), lambda g: g * 3.0)
    assert_close(xgrad.vmap(xgrad.grad(f))(X), 3 * np.cos(X))


def test_tangent_hook(xp):
    seen = []
    f = lambda x: xnp.sin(debug.tangent_hook(x * 2.0, lambda t: seen.append(t)))
    y, t = xgrad.jvp(f, (from_np(xp, X),), (from_np(xp, np.ones(3)),))
    assert_close(seen[0], [2.0, 2.0, 2.0])
    assert_close(t, 2 * np.cos(2 * X))
    g = lambda x: xnp.sin(debug.tangent_hook(x * 2.0, lambda t: t * 0.5))
    assert_close(xgrad.jvp(g, (X,), (np.ones(3),))[1], np.cos(2 * X))
    assert_close(xgrad.jacfwd(g)(X), np.diag(np.cos(2 * X)))
    # reverse mode ignores it
    assert_close(xgrad.grad(lambda x: xnp.sum(g(x)))(X), 2 * np.cos(2 * X))


# --------------------------------------------------------------------------
# tag + grad_intermediates

def _tagged(x, W):
    a = debug.tag(x @ W, "pre")
    b = debug.tag(xnp.tanh(a), "act")
    return xnp.sum(b ** 2)


def test_grad_intermediates_closed_form(xp):
    W = np.array([[0.5, -0.2], [0.1, 0.3]])
    x = np.array([[1.0, 2.0], [-0.5, 0.2]])
    g, inter = debug.grad_intermediates(_tagged)(from_np(xp, x), from_np(xp, W))
    act = np.tanh(x @ W)
    assert set(inter) == {"pre", "act"}
    assert_close(inter["act"], 2 * act)
    assert_close(inter["pre"], 2 * act * (1 - act ** 2))
    assert_close(g, (2 * act * (1 - act ** 2)) @ W.T)
    g2, inter2 = debug.grad_intermediates(_tagged, argnums=(0, 1))(x, W)
    ref = xgrad.grad(_tagged, argnums=(0, 1))(x, W)
    assert_close(g2[0], ref[0])
    assert_close(g2[1], ref[1])
    assert_close(inter2["pre"], inter["pre"])


def test_grad_intermediates_fan_out_and_identity_outside():
    def h(x):
        a = debug.tag(xnp.sin(x), "a")
        return xnp.sum(a * a + 3.0 * a)
    g, inter = debug.grad_intermediates(h)(X)
    assert_close(inter["a"], 2 * np.sin(X) + 3)
    assert_close(g, (2 * np.sin(X) + 3) * np.cos(X))
    assert debug.tag(X, "x") is X
    assert_close(xgrad.grad(lambda x: xnp.sum(debug.tag(x, "q") ** 2))(X), 2 * X)


def test_grad_intermediates_of_a_constant_intermediate():
    W = np.array([[0.5, -0.2], [0.1, 0.3]])
    f = lambda x: xnp.sum(debug.tag(W * 2.0, "c") @ x)
    g, inter = debug.grad_intermediates(f)(np.array([1.0, 2.0]))
    assert_close(g, (2 * W).sum(0))
    assert_close(inter["c"], [[1.0, 2.0], [1.0, 2.0]])


def test_grad_intermediates_tag_inside_vmap():
    def h(x):
        return xnp.sum(xgrad.vmap(lambda z: debug.tag(xnp.sin(z), "s") * 2.0)(x))
    g, inter = debug.grad_intermediates(h)(X)
    assert_close(g, 2 * np.cos(X))
    assert_close(inter["s"], [2.0, 2.0, 2.0])


# --------------------------------------------------------------------------
# nan_check

def _log_sum(x):
    return xnp.sum(xnp.log(x))   # NAN-FWD-LINE


@pytest.fixture
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with np.errstate(all="ignore"):
            yield


def test_nan_check_forward(quiet):
    x = np.array([1.0, -1.0])
    with debug.nan_check():
        with pytest.raises(FloatingPointError) as e:
            _log_sum(x)
        with pytest.raises(FloatingPointError) as e2:
            xgrad.grad(_log_sum)(x)
        with pytest.raises(FloatingPointError, match=r"primitive 'exp' produced Inf"):
            xnp.exp(np.array([1000.0]))
    line = f"{__file__}:{_lineno_of('NAN-FWD-LINE')}"
    for err in (e, e2):
        msg = str(err.value)
        assert "primitive 'log' produced NaN in the forward pass" in msg
        assert line in msg, msg
    assert math.isnan(float(_log_sum(x)))                 # off again: no check


def test_nan_check_backward_names_the_vjp(quiet):
    x = np.array([0.0, 1.0])
    f = lambda x: xnp.sum(xnp.sqrt(x))   # NAN-BWD-LINE
    with debug.nan_check():
        assert_close(f(x), 1.0)                               # the forward pass is fine
        with pytest.raises(FloatingPointError) as e:
            xgrad.grad(f)(x)
        _, f_vjp = xgrad.vjp(f, x)
        with pytest.raises(FloatingPointError, match="inside the VJP of 'sqrt'"):
            f_vjp(np.asarray(1.0))
    msg = str(e.value)
    assert "in the backward pass, inside the VJP of 'sqrt'" in msg
    assert f"{__file__}:{_lineno_of('NAN-BWD-LINE')}" in msg
    assert "Inf" in msg
    g = xgrad.grad(f)(x)                                       # off: no check
    assert math.isinf(float(g[0])) and float(g[1]) == 0.5


def test_set_nan_check_global(quiet):
    x = np.array([1.0, -1.0])
    try:
        debug.set_nan_check(True)
        with pytest.raises(FloatingPointError, match="'log'"):
            _log_sum(x)
        assert_close(xgrad.grad(lambda x: xnp.sum(xnp.sqrt(x)))(np.array([4.0])), [0.25])
    finally:
        debug.set_nan_check(False)
    assert math.isnan(float(_log_sum(x)))


def test_nan_check_in_strict_backend(quiet):
    xs = pytest.importorskip("array_api_strict")
    with debug.nan_check():
        with pytest.raises(FloatingPointError, match="'log'"):
            _log_sum(xs.asarray([1.0, -1.0]))


def test_nan_check_backward_inside_checkpoint(quiet):
    f = xgrad.checkpoint(lambda x: xnp.sqrt(x))   # NAN-CKPT-LINE
    with debug.nan_check():
        with pytest.raises(FloatingPointError) as e:
            xgrad.grad(lambda x: xnp.sum(f(x)))(np.array([0.0, 1.0]))
    assert "inside the VJP of 'sqrt'" in str(e.value)
    assert f"{__file__}:{_lineno_of('NAN-CKPT-LINE')}" in str(e.value)


def test_nan_check_catches_inf_from_custom_bwd(quiet):
    @xgrad.custom_vjp
    def root(x):
        return xnp.sqrt(x)
    root.defvjp(lambda x: (root(x), root(x)), lambda y, g: (g * 0.5 / y,))
    with debug.nan_check():
        with pytest.raises(FloatingPointError):
            xgrad.grad(lambda x: xnp.sum(root(x)))(np.array([0.0, 1.0]))


# --------------------------------------------------------------------------
# grad_report

def test_grad_report_flags_by_path():
    g = {"w": np.ones(3) * 1e5, "b": np.zeros(2), "c": np.array([np.nan, 1.0]),
         "d": [np.ones(2), np.ones(2) * 1e-12], "e": np.array([np.inf])}
    r = debug.grad_report(g)
    assert r.flags == {"['b']": ["vanishing"], "['c']": ["nan"], "['d'][1]": ["vanishing"],
                       "['e']": ["nan"], "['w']": ["exploding"]}
    assert not r.ok
    assert math.isclose(r.global_norm, math.sqrt(3e10 + 2 + 2e-24))
    norms = {path: n for path, _, n, _ in r.rows}
    assert math.isclose(norms["['d'][0]"], math.sqrt(2)) and math.isnan(norms["['c']"])
    text = str(r)
    assert "['w']" in text and "exploding" in text and "global" in text


def test_grad_report_of_a_real_gradient(xp):
    params = {"W": from_np(xp, np.ones((2, 2))), "dead": from_np(xp, np.ones(2))}
    loss = lambda p: xnp.sum(xnp.tanh(p["W"])) + 0.0 * xnp.sum(p["dead"])
    r = debug.grad_report(xgrad.grad(loss)(params))
    assert r.flags == {"['dead']": ["vanishing"]}
    assert math.isclose(r.global_norm, 2 * (1 - math.tanh(1) ** 2))
    assert debug.grad_report({"a": np.ones(2)}).ok
    r2 = debug.grad_report({"a": np.ones(2) * 1e-3}, vanishing=1e-2, exploding=1e-4)
    assert r2.flags == {"['a']": ["exploding"]}


# --------------------------------------------------------------------------
# tree.global_norm / clip_by_global_norm

T = {"a": np.array([3.0]), "b": (np.array([4.0, 0.0]),)}


def test_global_norm_and_clip_values(xp):
    t = {"a": from_np(xp, T["a"]), "b": (from_np(xp, T["b"][0]),)}
    assert_close(xtree.global_norm(t), 5.0)
    c = xtree.clip_by_global_norm(t, 1.0)
    assert_close(c["a"], [0.6])
    assert_close(c["b"][0], [0.8, 0.0])
    assert_close(xtree.global_norm(c), 1.0)
    same = xtree.clip_by_global_norm(t, 10.0)
    assert_close(same["a"], [3.0])
    assert xtree.global_norm({}) == 0.0
    f32 = xtree.clip_by_global_norm({"a": np.array([3.0, 4.0], dtype=np.float32)}, 1.0)
    assert f32["a"].dtype == np.float32


def test_global_norm_and_clip_gradients():
    g = xgrad.grad(xtree.global_norm)(T)
    assert_close(g["a"], [0.6])
    assert_close(g["b"][0], [0.8, 0.0])
    # d/dt_a of clip(t, 1)_a = 1/n - t_a^2/n^3 = 1/5 - 9/125 = 0.128, d/dt_b = -t_a t_b / n^3
    J = xgrad.jacrev(lambda t: xtree.clip_by_global_norm(t, 1.0)["a"])(T)
    assert_close(J["a"], [[0.128]])
    assert_close(J["b"][0], [[-12 / 125, 0.0]])
    # below the threshold clipping is the identity
    J = xgrad.jacrev(lambda t: xtree.clip_by_global_norm(t, 10.0)["a"])(T)
    assert_close(J["a"], [[1.0]])
    assert_close(J["b"][0], [[0.0, 0.0]])


def test_clip_by_global_norm_gradient_at_zero(quiet):
    z = {"a": np.zeros(2)}
    J = xgrad.jacrev(lambda t: xtree.clip_by_global_norm(t, 1.0)["a"])(z)
    assert_close(J["a"], np.eye(2))
