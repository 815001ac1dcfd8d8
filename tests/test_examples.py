"""The user scripts in examples/ and benchmarks/pinn.py, run as a user runs
them (a subprocess, quick mode, fixed seed), with assertions on the numbers
they print; plus xgrad.optim, the optimisers they use.

- PINN: the relative L2 error against the exact solution falls by a clear
  factor from the initial network's.
- MAML: after one gradient step on 10 points of a held-out task, the
  meta-learned network beats the pretrained baseline.
- Newton-CG with xgrad.hvp reaches scipy's Newton-CG optimum to 1e-6.
- Without matplotlib and tqdm the examples still run and say what they skip.
"""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad import optim
from helpers import assert_close

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# run a script with some modules made unimportable (sys.modules[name] = None)
_BLOCKED = ("import runpy, sys\n"
            "for m in sys.argv[1].split(','): sys.modules[m] = None\n"
            "path = sys.argv[2]; sys.argv = sys.argv[2:]\n"
            "runpy.run_path(path, run_name='__main__')\n")


def run(script, *args, tmp_path, block=(), timeout=300):
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONHASHSEED="0",
               PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    path = os.path.join(ROOT, script)
    cmd = [sys.executable]
    cmd += ["-c", _BLOCKED, ",".join(block), path] if block else [path]
    proc = subprocess.run(cmd + list(args), cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, f"{script} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def number(pattern, text):
    m = re.search(pattern, text)
    assert m is not None, f"{pattern!r} not found in the output:\n{text}"
    return [float(g) for g in m.groups()] if len(m.groups()) > 1 else float(m.group(1))


FLOAT = r"([-+0-9.eE]+|nan|inf)"


def test_pinn_poisson_quick(tmp_path):
    out = run("examples/pinn_poisson.py", "--quick", "--seed", "0", "--plot", "pinn.png",
              tmp_path=tmp_path)
    err0 = number(r"initial relative L2 error: " + FLOAT, out)
    err = number(r"final relative L2 error: " + FLOAT, out)
    assert err0 > 0.5                       # an untrained network is nowhere near u*
    assert err < err0 / 5, out              # quick mode: about 1e-1 from about 1
    if _importable("matplotlib"):
        assert (tmp_path / "pinn.png").stat().st_size > 0


def test_maml_sine_quick(tmp_path):
    out = run("examples/maml_sine.py", "--quick", "--seed", "0", "--plot", "maml.png",
              tmp_path=tmp_path)
    m0, b0 = number(r"MSE after 0 steps: MAML " + FLOAT + " pretrained " + FLOAT, out)
    m1, b1 = number(r"MSE after 1 steps: MAML " + FLOAT + " pretrained " + FLOAT, out)
    m10, b10 = number(r"MSE after 10 steps: MAML " + FLOAT + " pretrained " + FLOAT, out)
    assert np.isfinite([m0, b0, m1, b1, m10, b10]).all(), out
    assert m1 < 0.8 * b1, out               # MAML beats the baseline after one step
    assert m1 < 0.8 * m0, out               # and its one step helps
    assert m10 < b10, out
    if _importable("matplotlib"):
        assert (tmp_path / "maml.png").stat().st_size > 0


def test_newton_cg_matches_scipy(tmp_path):
    pytest.importorskip("scipy")
    out = run("examples/newton_cg.py", "--quick", "--data", "synthetic", "--seed", "0",
              tmp_path=tmp_path)
    diff = number(r"max \|w_xgrad - w_scipy\| = " + FLOAT, out)
    assert diff < 1e-6, out
    nit, n_scipy = number(r"iterations: xgrad (\d+)\s+scipy (\d+)", out)
    assert 1 <= nit <= 30 and 1 <= n_scipy
    f_ours, f_scipy = number(r"loss: xgrad " + FLOAT + r"\s+scipy " + FLOAT, out)
    assert abs(f_ours - f_scipy) <= 1e-10 * abs(f_scipy)


def test_examples_run_without_matplotlib_and_tqdm(tmp_path):
    block = ("matplotlib", "tqdm")
    out = run("examples/pinn_poisson.py", "--steps", "3", "--points", "16", tmp_path=tmp_path,
              block=block)
    assert "tqdm is not installed" in out and "matplotlib is not installed" in out
    assert "final relative L2 error" in out
    out = run("examples/maml_sine.py", "--steps", "3", "--test-tasks", "5",
              tmp_path=tmp_path, block=block)
    assert "matplotlib is not installed" in out and "MSE after 10 steps" in out
    assert not list(tmp_path.glob("*.png"))


def test_pinn_benchmark_smoke(tmp_path):
    out = run("benchmarks/pinn.py", "--quick", "--points", "8", "--width", "4",
              "--no-jax", tmp_path=tmp_path)
    rows = [line for line in out.splitlines() if line.startswith("xgrad:")]
    assert len(rows) == 2 and all(" ok rel" in r for r in rows), out
    assert "hessian-trace / fwd-laplacian" in out


def _importable(name):
    try:
        __import__(name)
        return True
    except ImportError:
        return False


# --------------------------------------------------------------------------
# xgrad.optim

def _tree():
    rng = np.random.default_rng(1)
    return {"W": rng.normal(size=(3, 2)), "b": (rng.normal(size=2), rng.normal(size=()))}


def test_adam_matches_the_formula():
    params, grads = _tree(), [_tree() for _ in range(3)]
    opt = optim.adam(0.1, b1=0.8, b2=0.9, eps=1e-3)
    state = opt.init(params)
    p = params
    for g in grads:
        p, state = opt.update(g, state, p)
    # the textbook form, leaf by leaf
    for path in (("W",), ("b", 0), ("b", 1)):
        def get(t):
            for k in path:
                t = t[k]
            return np.asarray(t, dtype=float)
        w, m, v = get(params), 0.0, 0.0
        for t, g in enumerate(grads, 1):
            m = 0.8 * m + 0.2 * get(g)
            v = 0.9 * v + 0.1 * get(g) ** 2
            w = w - 0.1 * (m / (1 - 0.8 ** t)) / (np.sqrt(v / (1 - 0.9 ** t)) + 1e-3)
        assert_close(get(p), w, rtol=1e-12)
    assert state.step == 3


def test_sgd_momentum_and_schedule():
    params, g = {"a": np.array([1.0, 2.0])}, {"a": np.array([1.0, -1.0])}
    opt = optim.sgd(optim.piecewise_constant([1], [0.1, 0.01]), momentum=0.5)
    state = opt.init(params)
    p1, state = opt.update(g, state, params)
    p2, state = opt.update(g, state, p1)
    assert_close(p1["a"], [0.9, 2.1])
    assert_close(p2["a"], [0.9 - 0.01 * 1.5, 2.1 + 0.01 * 1.5])
    assert optim.exponential_decay(1.0, 0.5, 10)(20) == 0.25
    assert optim.cosine_decay(2.0, 10, alpha=0.5)(10) == 1.0
    with pytest.raises(ValueError, match="momentum"):
        optim.sgd(0.1, momentum=1.0)


def test_sgd_update_is_differentiable():
    """MAML's inner step written with optim.sgd: the meta-gradient through it
    matches the hand-derived one, (I - lr H) grad of the outer loss."""
    A = np.array([[2.0, 0.5], [0.5, 1.0]])
    inner = lambda w: 0.5 * xnp.sum(w * xnp.matmul(w, A)) + xnp.sum(w ** 3)   # noqa: E731
    outer = lambda w: xnp.sum((w - 1.0) ** 2)   # noqa: E731
    opt, lr = optim.sgd(0.1), 0.1

    def meta(w):
        new, _ = opt.update(xgrad.grad(inner)(w), opt.init(w), w)
        return outer(new)
    w = np.array([0.3, -0.2])
    H = A + np.diag(6 * w)
    w1 = w - lr * (A @ w + 3 * w ** 2)
    assert_close(xgrad.grad(meta)(w), (np.eye(2) - lr * H) @ (2 * (w1 - 1.0)), rtol=1e-12)


def test_optimisers_on_array_api_strict():
    xs = pytest.importorskip("array_api_strict")
    p = {"w": xs.asarray([1.0, -2.0])}
    g = {"w": xs.asarray([0.5, 0.5])}
    for opt in (optim.sgd(0.1, momentum=0.9, nesterov=True), optim.adam(0.1, weight_decay=0.1)):
        new, state = opt.update(g, opt.init(p), p)
        assert isinstance(new["w"], type(p["w"]))
        assert new["w"].dtype == xs.float64


# --------------------------------------------------------------------------
# the examples' building blocks against jax

def _load(script):
    import importlib.util
    spec = importlib.util.spec_from_file_location(os.path.basename(script)[:-3],
                                                  os.path.join(ROOT, script))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("first_order", [False, True], ids=["second-order", "first-order"])
def test_maml_meta_gradient_matches_jax(jax, first_order):
    """The example's meta-gradient (grad through a vmapped inner grad step)
    against the same program in jax."""
    import jax.numpy as jnp
    maml = _load("examples/maml_sine.py")
    rng = np.random.default_rng(0)
    params = maml.init_mlp([1, 8, 8, 1], rng, scale=1.0)
    _, _, x, y = maml.sample_tasks(rng, 3, 10)
    batch = (x[:, :5], y[:, :5], x[:, 5:], y[:, 5:])
    lr = 0.05
    got = xgrad.grad(maml.make_meta_loss(maml.make_inner(lr, first_order)))(params, *batch)

    def net(p, x):
        h = x
        for W, b in p[:-1]:
            h = jnp.maximum(h @ W + b, 0.0)
        return h @ p[-1][0] + p[-1][1]
    mse = lambda p, x, y: jnp.mean((net(p, x) - y) ** 2)   # noqa: E731

    def task_loss(p, xs, ys, xq, yq):
        g = jax.grad(mse)(p, xs, ys)
        if first_order:
            g = jax.lax.stop_gradient(g)
        return mse(jax.tree.map(lambda a, b: a - lr * b, p, g), xq, yq)
    meta = lambda p, *b: jnp.mean(jax.vmap(task_loss, (None, 0, 0, 0, 0))(p, *b))   # noqa: E731
    want = jax.jit(jax.grad(meta))([tuple(map(jnp.asarray, wb)) for wb in params], *batch)
    for (gW, gb), (jW, jb) in zip(got, want):
        assert_close(gW, np.asarray(jW), rtol=1e-10, atol=1e-12)
        assert_close(gb, np.asarray(jb), rtol=1e-10, atol=1e-12)
    if not first_order:     # the second-order term is there
        fo = xgrad.grad(maml.make_meta_loss(maml.make_inner(lr, True)))(params, *batch)
        assert max(float(np.max(np.abs(a - b))) for a, b in
                   zip(xgrad.tree.leaves(got), xgrad.tree.leaves(fo))) > 1e-6


def test_newton_cg_loop_without_scipy():
    """The example's CG solves H p = -g with hvp alone; check one solve against
    the explicit Hessian (formed here only for the check)."""
    ncg = _load("examples/newton_cg.py")
    X, y, _ = ncg.synthetic(np.random.default_rng(0), n=200, d=5)
    loss, d = ncg.make_loss(X, y, 1.0)
    w = np.full(d, 0.1)
    g = np.asarray(xgrad.grad(loss)(w))
    p, k = ncg.conjugate_gradient(lambda v: xgrad.hvp(loss, (w,), (v,)), g, 1e-12, 10 * d)
    H = np.asarray(xgrad.hessian(loss)(w))
    assert_close(p, np.linalg.solve(H, -g), rtol=1e-9, atol=1e-12)
    assert k <= d + 1
    w_opt, nit, n_hvp, hist = ncg.newton_cg(loss, np.zeros(d))
    assert hist[-1][1] <= 1e-10 and nit < 20
