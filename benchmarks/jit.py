"""jit against eager: the same derivative computations run eagerly (every
call traces the Python body and builds the tape) and under ``xgrad.jit``
(staged once into a Program, then replayed as straight-line code).

Workloads (float64 unless said; the data of the other benchmark scripts):

  * ``mlp-f64``, ``mlp-f32``: grad of the 784-512-512-10 tanh MLP loss,
    batch 128 (``mlp.py``);
  * ``perop``: grad of 1000 cheap elementwise ops on 8 numbers (``perop.py``):
    pure Python overhead, where jit helps most;
  * ``mlp-hvp``: a Hessian-vector product of the MLP loss (forward over reverse);
  * ``pinn``: grad w.r.t. the weights of the Poisson PINN residual
    mean((Δu + f)^2), Δu by ``vmap(laplacian(u))``, 256 points, 2-32-32-1
    (``pinn.py``);
  * ``maml``: the second-order MAML meta-gradient of ``examples/maml_sine.py``
    (25 tasks, 10 + 10 points, 1-40-40-1 ReLU net, vmap over tasks);
  * ``hessian``: the full 200 x 200 Hessian of sum(tanh(A x)) + |x|^2 / 2.

For each, the jit result is checked against the eager one (relative 1e-12 in
float64, 1e-6 in float32) before anything is timed; ``staging`` is the wall
time of the first jitted call (staging and compiling). Rows: ``numpy:fwd``
(the plain numpy forward, the reference of ``x np-fwd``), ``eager`` and
``jit``; the summary gives the speed-up eager / jit.

BLAS runs on one thread unless OPENBLAS_NUM_THREADS / OMP_NUM_THREADS /
MKL_NUM_THREADS say otherwise: these matrices are small, and on a loaded
machine BLAS threads make the matmul-bound rows (mlp, hvp) vary 10x from call
to call, which drowns the Python overhead that jit removes.

Run:  python benchmarks/jit.py [--quick] [--only NAME ...]
"""
from __future__ import annotations

import importlib.util
import os
import sys
import time
import types

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")      # before numpy is imported (see above)

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _bench import Table, fmt_time, header, parser, versions  # noqa: E402
import mlp as _mlp  # noqa: E402
import perop as _perop  # noqa: E402
import pinn as _pinn  # noqa: E402

import xgrad  # noqa: E402
import xgrad.numpy as xnp  # noqa: E402

NAMES = ("mlp-f64", "mlp-f32", "perop", "mlp-hvp", "pinn", "maml", "hessian")


def _load_example(name):
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(os.path.dirname(HERE), "examples", name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def mlp_case(dtype):
    params, X, y = _mlp.make_data(dtype)
    onehot = np.eye(_mlp.SIZES[-1], dtype=dtype)[y]
    return (lambda: _mlp.numpy_loss(params, X, y), xgrad.grad(_mlp.make_loss(xnp)),
            (params, X, onehot))


def perop_case():
    x = _perop.make_x()
    return (lambda f=_perop.chain(np): f(x)), xgrad.grad(_perop.chain(xnp)), (x,)


def hvp_case():
    params, X, y = _mlp.make_data(np.float64)
    onehot = np.eye(_mlp.SIZES[-1])[y]
    loss = _mlp.make_loss(xnp)
    v = [np.random.RandomState(7).standard_normal(p.shape) for p in params]

    def hvp(params, v):
        return xgrad.hvp(lambda p: loss(p, X, onehot), (params,), (v,))
    return (lambda: _mlp.numpy_loss(params, X, y)), hvp, (params, v)


def pinn_case():
    a = types.SimpleNamespace(points=256, width=32, depth=2, dim=2)
    _, params, X, f = _pinn.make_data(a)
    u = _pinn.make_u(xnp)

    def loss(params):
        lap = xgrad.vmap(xgrad.laplacian(lambda x: u(params, x)))(X)
        return xnp.mean((lap + f) ** 2)
    return (lambda: _pinn.numpy_forward(params, X)), xgrad.grad(loss), (params,)


def maml_case():
    maml = _load_example("maml_sine")
    rng = np.random.default_rng(0)
    params = maml.init_mlp([1, 40, 40, 1], rng)
    _, _, x, y = maml.sample_tasks(rng, 25, 20)
    batch = (x[:, :10], y[:, :10], x[:, 10:], y[:, 10:])
    g = xgrad.grad(maml.make_meta_loss(maml.make_inner(0.01, False)))

    def numpy_fwd():                   # the network on every point of every task
        h = x.reshape(-1, 1)
        for W, b in params[:-1]:
            h = np.maximum(h @ W + b, 0.0)
        return h @ params[-1][0] + params[-1][1]
    return numpy_fwd, g, (params,) + batch


def hessian_case(n=200):
    rng = np.random.RandomState(3)
    A = rng.standard_normal((n, n)) / np.sqrt(n)
    x = rng.standard_normal(n)

    def f(x):
        return xnp.sum(xnp.tanh(A @ x)) + 0.5 * xnp.sum(x * x)
    return (lambda: np.sum(np.tanh(A @ x)) + 0.5 * np.sum(x * x)), xgrad.hessian(f), (x,)


CASES = {"mlp-f64": lambda: mlp_case(np.float64), "mlp-f32": lambda: mlp_case(np.float32),
         "perop": perop_case, "mlp-hvp": hvp_case, "pinn": pinn_case, "maml": maml_case,
         "hessian": hessian_case}


def max_rel_diff(got, want):
    """max |got - want| / max |want| over the leaves of two pytrees."""
    g, w = xgrad.tree.leaves(got), xgrad.tree.leaves(want)
    if len(g) != len(w):
        return float("inf")
    worst = 0.0
    for a, b in zip(g, w):
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        if a.shape != b.shape:
            return float("inf")
        worst = max(worst, float(np.max(np.abs(a - b), initial=0.0)) /
                    (float(np.max(np.abs(b), initial=0.0)) or 1.0))
    return worst


def bench(name, args):
    np_fwd, fn, fargs = CASES[name]()
    jf = xgrad.jit(fn)
    want = fn(*fargs)
    t0 = time.perf_counter()
    jf(*fargs)                          # stages and compiles
    staging = time.perf_counter() - t0
    got = jf(*fargs)                    # a replay
    tol = 1e-6 if name.endswith("f32") else 1e-12
    diff = max_rel_diff(got, want)
    check = f"{'ok' if diff <= tol else 'MISMATCH'} jit vs eager rel {diff:.1e}"
    print(f"\n--- {name}: staging {fmt_time(staging)}, {check} ---")
    sys.stdout.flush()
    t = Table(args)
    t_np = t.run("numpy:fwd", np_fwd)
    t_eager = t.run("eager", lambda: fn(*fargs))
    t_jit = t.run("jit", lambda: jf(*fargs), lambda r: check)
    if jf.stagings != 1:
        print(f"NOTE: staged {jf.stagings} times")
    return name, t_np, t_eager, t_jit, staging, diff <= tol


def main(argv=None):
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--only", nargs="+", choices=NAMES, default=list(NAMES),
                   help="workloads to run (default all)")
    args = p.parse_args(argv)
    header("jit: eager vs xgrad.jit on derivative workloads", versions([("xgrad", xgrad)]))
    rows = [bench(name, args) for name in args.only]
    print(f"\n{'workload':10s} {'numpy fwd':>10s} {'eager':>10s} {'jit':>10s} "
          f"{'eager x np':>10s} {'jit x np':>9s} {'speed-up':>8s} {'staging':>10s}  check")
    for name, t_np, t_e, t_j, staging, ok in rows:
        if t_np and t_e and t_j:
            print(f"{name:10s} {fmt_time(t_np):>10s} {fmt_time(t_e):>10s} {fmt_time(t_j):>10s} "
                  f"{t_e / t_np:10.1f} {t_j / t_np:9.1f} {t_e / t_j:7.2f}x "
                  f"{fmt_time(staging):>10s}  {'ok' if ok else 'MISMATCH'}")
    print("speed-up = eager / jit (medians); staging = the first jitted call")
    if not all(r[-1] for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
