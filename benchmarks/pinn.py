"""PINN loss gradient: forward Laplacian against the trace of the Hessian.

The workload is one training step of ``examples/pinn_poisson.py``: the
gradient with respect to the weights of

    mean((Δu(x_i) + f(x_i))^2)   over --points collocation points x_i in R^--dim,

with u a tanh MLP dim-width-...-width-1 (--depth hidden layers). Δu at the
points is computed two ways, each under ``xgrad.grad``:

  * ``xgrad:fwd-laplacian``: ``vmap(xgrad.laplacian(u))``, one forward pass
    carrying value, gradient rows (dim of them) and Laplacian;
  * ``xgrad:hessian-trace``: ``trace(vmap(xgrad.hessian(u)))``, forward-over-
    reverse, building all dim x dim second derivatives per point.

The figure to watch is the ratio hessian-trace / fwd-laplacian, printed after
each table from the wall-clock medians and again from CPU seconds per call
(the CPU figure is the one to trust on a shared, loaded machine); the summary
table at the end (several sizes) uses CPU seconds. ``numpy:fwd`` (u at the
points, no derivatives) is the reference row, and ``jax:hessian-trace`` (jit)
is timed and used as the correctness oracle when jax is importable. Every gradient is checked against
the jax one (or, without jax, against the other xgrad method) before timing.

BLAS threads are not pinned. The matrices are small, and on a busy machine
OpenBLAS threads make every row 2-10x slower and the figures noisy; for
stable figures run with one thread:

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/pinn.py ...

Run:  python benchmarks/pinn.py [--points 256] [--width 32] [--depth 2] [--dim 2]
(each option takes several values; one table per combination and a summary)
"""
from __future__ import annotations

import math
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _bench import Table, compare, fmt_time, header, optional, parser, versions  # noqa: E402


def make_data(args):
    rng = np.random.RandomState(1234)
    sizes = [args.dim] + [args.width] * args.depth + [1]
    params = []
    for fi, fo in zip(sizes[:-1], sizes[1:]):
        params.append(rng.standard_normal((fi, fo)) * math.sqrt(2.0 / (fi + fo)))
        params.append(0.1 * rng.standard_normal(fo))
    X = rng.uniform(0.0, 1.0, size=(args.points, args.dim))
    f = np.prod(np.sin(math.pi * X), axis=1) * args.dim * math.pi ** 2
    return sizes, params, X, f


def make_u(ns):
    """u(params, x) for one point x (dim,) against a numpy-like namespace."""
    def u(params, x):
        h = x
        for i in range(0, len(params) - 2, 2):
            h = ns.tanh(h @ params[i] + params[i + 1])
        return (h @ params[-2] + params[-1])[0]
    return u


def numpy_forward(params, X):
    h = X
    for i in range(0, len(params) - 2, 2):
        h = np.tanh(h @ params[i] + params[i + 1])
    return (h @ params[-2] + params[-1])[:, 0]


def bench(args, mods):
    xgrad, jax = mods
    import xgrad.numpy as xnp
    sizes, params, X, f = make_data(args)
    d = args.dim
    u = make_u(xnp)
    eye = np.eye(d)

    def loss_fwd(params):
        lap = xgrad.vmap(xgrad.laplacian(lambda x: u(params, x)))(X)
        return xnp.mean((lap + f) ** 2)

    def loss_hess(params):
        H = xgrad.vmap(xgrad.hessian(lambda x: u(params, x)))(X)      # (points, d, d)
        lap = xnp.sum(H * eye, axis=(1, 2))
        return xnp.mean((lap + f) ** 2)

    g_fwd, g_hess = xgrad.grad(loss_fwd), xgrad.grad(loss_hess)

    want = None
    if jax is not None:
        import jax.numpy as jnp
        uj = make_u(jnp)

        def loss_jax(params):
            H = jax.vmap(jax.hessian(lambda x: uj(params, x)))(jnp.asarray(X))
            lap = jnp.trace(H, axis1=1, axis2=2)
            return jnp.mean((lap + f) ** 2)
        gj = jax.jit(jax.grad(loss_jax))
        pj = [jnp.asarray(p) for p in params]
        want = [np.asarray(a) for a in gj(pj)]
    else:
        want = [np.asarray(a) for a in g_hess(params)]
    ok = lambda r: compare(r, want)   # noqa: E731

    print(f"\n--- {args.points} points, net {'-'.join(map(str, sizes))} tanh, float64 ---")
    t = Table(args)
    t.run("numpy:fwd", lambda: numpy_forward(params, X))
    m_fwd = t.run("xgrad:fwd-laplacian", lambda: g_fwd(params), ok)
    m_hess = t.run("xgrad:hessian-trace", lambda: g_hess(params), ok)
    if jax is not None:
        t.run("jax:hessian-trace (jit)", lambda: [a.block_until_ready() for a in gj(pj)], ok)
    if m_fwd and m_hess:
        print(f"hessian-trace / fwd-laplacian = {m_hess / m_fwd:.2f}")
        # CPU seconds are robust to other processes on a loaded machine
        c_fwd = cpu_median(lambda: g_fwd(params), t.args.repeat)
        c_hess = cpu_median(lambda: g_hess(params), t.args.repeat)
        print(f"CPU time per call: fwd-laplacian {fmt_time(c_fwd)}, hessian-trace "
              f"{fmt_time(c_hess)}, ratio {c_hess / c_fwd:.2f}")
        return c_fwd, c_hess
    return m_fwd, m_hess


def cpu_median(fn, repeat):
    """Median CPU seconds (this process, all threads) per call of fn."""
    times = []
    for _ in range(repeat):
        c0 = time.process_time()
        fn()
        times.append(time.process_time() - c0)
    return statistics.median(times)


def main(argv=None):
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--points", type=int, nargs="+", default=[256],
                   help="collocation points (several values: one table each)")
    p.add_argument("--width", type=int, nargs="+", default=[32], help="hidden width(s)")
    p.add_argument("--depth", type=int, nargs="+", default=[2], help="hidden layers")
    p.add_argument("--dim", type=int, nargs="+", default=[2], help="input dimension(s)")
    p.add_argument("--no-jax", action="store_true",
                   help="leave jax out (the two xgrad methods are checked against each other)")
    args = p.parse_args(argv)
    import xgrad
    jax = None if args.no_jax else optional("jax")
    if jax is not None:
        jax.config.update("jax_enable_x64", True)
    header("pinn: gradient of the Poisson PINN loss, forward Laplacian vs trace of Hessian",
           versions([("xgrad", xgrad), ("jax", jax)]))
    import copy
    rows = []
    for points in args.points:
        for width in args.width:
            for depth in args.depth:
                for dim in args.dim:
                    a = copy.copy(args)
                    a.points, a.width, a.depth, a.dim = points, width, depth, dim
                    m_fwd, m_hess = bench(a, (xgrad, jax))
                    rows.append((points, width, depth, dim, m_fwd, m_hess))
    if len(rows) > 1:
        print("\nCPU time per call of the loss gradient")
        print(f"{'points':>7s} {'width':>6s} {'depth':>6s} {'dim':>4s} "
              f"{'fwd-lap':>10s} {'hess-tr':>10s} {'ratio':>6s}")
        for points, width, depth, dim, m_fwd, m_hess in rows:
            if m_fwd and m_hess:
                print(f"{points:7d} {width:6d} {depth:6d} {dim:4d} {m_fwd * 1e3:8.2f}ms "
                      f"{m_hess * 1e3:8.2f}ms {m_hess / m_fwd:6.2f}")


if __name__ == "__main__":
    main()
