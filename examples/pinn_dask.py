"""A PINN residual loss over millions of collocation points, chunked across
dask workers: the gradient with respect to the weights is one lazy dask graph.

The problem is the one of ``examples/pinn_poisson.py``: -Δu = f on the unit
square, u = 0 on its boundary, f = 2 pi^2 sin(pi x) sin(pi y), with the hard
ansatz u(x, y) = x (1 - x) y (1 - y) N(x, y), N a small tanh MLP (2-32-32-1).
The loss is mean((Δu + f)^2) over the collocation points.

What it shows:
  * The points are a dask array (n, 2) chunked along the points, drawn on
    the workers inside the graph (the same points every step: a fixed seed);
    the weights are numpy arrays. The loss is
    written exactly as for numpy: ``vmap(xgrad.laplacian(u))(X)`` over the
    points (the forward Laplacian: value, gradient and Laplacian through the
    network in one pass), and ``xgrad.value_and_grad`` differentiates it.
    Nothing is computed while xgrad traces: the loss and every gradient leaf
    are dask arrays, and one ``dask.compute`` (threads) or ``client.compute``
    (a ``dask.distributed`` cluster) evaluates loss and gradient together, chunk
    by chunk, with dask's progress bar.
  * A few Adam steps (``xgrad.optim.adam``) on the computed gradient (small
    numpy arrays).
  * Its figures: points, workers, chunks, time per step (graph building by
    xgrad + compute) and peak memory per worker.

Peak memory per worker: a thread in each worker process samples the
process's resident set size (``psutil``) every 10 ms during the steps and
keeps the maximum; with ``--scheduler threads`` there is one process (the
workers are its threads), so the figure is that process's peak, for all
threads together. With ``--scheduler distributed`` the cluster is a
``LocalCluster`` of ``--workers`` worker processes, one thread each.

Chunks of 50,000 points keep a worker under 0.9 GB at any number of points:
each chunk's forward Laplacian and its backward pass (about 7 KB a point)
run chunk by chunk. Measured on 2 shared cores: 10^6 points, 30 s a step,
751 MiB a worker; 10^7 points, 220 s a step, 854 MiB a worker (README, Dask).

Run:  python examples/pinn_dask.py [--points N] [--quick] [--scheduler threads|distributed]
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import threading
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import xgrad  # noqa: E402
import xgrad.numpy as xnp  # noqa: E402
from xgrad import optim  # noqa: E402

PI = math.pi


# ----- the network and the loss (written as for numpy) -----

def init_mlp(sizes, rng):
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        W = rng.standard_normal((fan_in, fan_out)) * math.sqrt(2.0 / (fan_in + fan_out))
        params.append((W, np.zeros(fan_out)))
    return params


def u(params, x):
    """u at one point x (2,): x(1-x)y(1-y) N(x)."""
    h = x
    for W, b in params[:-1]:
        h = xnp.tanh(h @ W + b)
    W, b = params[-1]
    return x[0] * (1.0 - x[0]) * x[1] * (1.0 - x[1]) * (h @ W + b)[0]


def loss(params, X, f):
    lap = xgrad.vmap(xgrad.laplacian(lambda x: u(params, x)))(X)     # Δu at every point
    return xnp.mean((lap + f) ** 2)


# ----- peak memory: a sampler thread per process -----

class _Peak:
    def __init__(self):
        self.peak = 0
        self.stop = threading.Event()
        self.thread = None


_PEAK = _Peak()


def start_sampler(interval=0.01):
    """Start (or restart) sampling this process's RSS; returns its current RSS."""
    import psutil   # a dependency of dask.distributed

    proc = psutil.Process()
    stop_sampler()
    _PEAK.stop = threading.Event()
    _PEAK.peak = proc.memory_info().rss

    def loop(stop=_PEAK.stop):
        while not stop.wait(interval):
            _PEAK.peak = max(_PEAK.peak, proc.memory_info().rss)

    _PEAK.thread = threading.Thread(target=loop, daemon=True)
    _PEAK.thread.start()
    return _PEAK.peak


def stop_sampler():
    if _PEAK.thread is not None:
        _PEAK.stop.set()
        _PEAK.thread.join()
        _PEAK.thread = None
    return _PEAK.peak


# ----- the run -----

def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--points", type=int, default=None,
                   help="collocation points (default 10^7; 10^5 with --quick)")
    p.add_argument("--quick", action="store_true", help="10^5 points, 2 steps (a few seconds)")
    p.add_argument("--steps", type=int, default=3, help="Adam steps")
    p.add_argument("--chunk", type=int, default=None,
                   help="points per chunk (default 50,000; 25,000 with --quick)")
    p.add_argument("--scheduler", choices=("threads", "distributed"), default="distributed")
    p.add_argument("--workers", type=int, default=2, help="workers (threads or processes)")
    p.add_argument("--width", type=int, default=32)
    p.add_argument("--depth", type=int, default=2)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--memory-limit", default="4GiB",
                   help="per worker (distributed): dask spills, pauses and finally restarts a "
                        "worker above it, instead of the machine running out of memory")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    if args.points is None:
        args.points = 100_000 if args.quick else 10_000_000
    if args.chunk is None:
        args.chunk = 25_000 if args.quick else 50_000
    if args.quick:
        args.steps = min(args.steps, 2)
    return args


def main(argv=None):
    args = parse(argv)
    try:
        import dask
        import dask.array as da
    except ImportError:
        print("this example needs dask: pip install 'dask[distributed]'")
        return 1

    client = cluster = None
    if args.scheduler == "distributed":
        from dask.distributed import Client, LocalCluster, progress
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=":0", memory_limit=args.memory_limit)
        client = Client(cluster)
        # the workers run this file's functions (the memory sampler)
        client.run(sys.path.insert, 0, os.path.dirname(os.path.abspath(__file__)))
    else:
        from dask.diagnostics import ProgressBar
    try:
        rng = np.random.default_rng(args.seed)
        sizes = [2] + [args.width] * args.depth + [1]
        params = init_mlp(sizes, rng)
        n, c = args.points, min(args.chunk, args.points)
        X = da.random.default_rng(args.seed).uniform(0.0, 1.0, size=(n, 2), chunks=(c, 2))
        f = 2 * PI ** 2 * da.sin(PI * X[:, 0]) * da.sin(PI * X[:, 1])
        nchunks = X.numblocks[0]
        print(f"PINN residual loss on dask: {n} collocation points in {nchunks} chunks of "
              f"{c}, {args.workers} workers ({args.scheduler}), net {'-'.join(map(str, sizes))} "
              f"tanh, {args.steps} Adam steps")
        sys.stdout.flush()

        opt = optim.adam(args.lr)
        state = opt.init(params)
        value_and_grad = xgrad.value_and_grad(loss)
        if client is not None:
            client.run(_remote_start)
        else:
            start_sampler()
        times, build = [], []
        for step in range(args.steps):
            t0 = time.perf_counter()
            val, grads = value_and_grad(params, X, f)       # lazy: dask arrays
            lazy = isinstance(val, da.Array) and all(isinstance(g, da.Array)
                                                       for g in xgrad.tree.leaves(grads))
            t1 = time.perf_counter()
            if client is not None:
                futures = client.compute([val, grads])
                if not args.no_progress:
                    progress(futures)
                    print()
                val, grads = client.gather(futures)
                # drop the step's keys before the next step submits a graph that shares
                # some of them (dask/dask#9888: re-submitted keys must match)
                del futures
            elif args.no_progress:
                val, grads = dask.compute(val, grads, scheduler="threads", num_workers=args.workers)
            else:
                with ProgressBar(dt=0.5):
                    val, grads = dask.compute(val, grads, scheduler="threads",
                                              num_workers=args.workers)
            params, state = opt.update(grads, state, params)
            t2 = time.perf_counter()
            times.append(t2 - t0)
            build.append(t1 - t0)
            peak = (max(client.run(_remote_peak).values()) if client is not None
                    else _PEAK.peak)
            print(f"step {step}: loss {float(val):.6e}  (graph {t1 - t0:.2f} s, "
                  f"total {t2 - t0:.2f} s, lazy until compute: {lazy}, "
                  f"peak memory so far {peak / 2**20:.0f} MiB)")
            sys.stdout.flush()
        if client is not None:
            peaks = list(client.run(_remote_stop).values())
        else:
            peaks = [stop_sampler()]
        per_step = sum(times[1:]) / max(len(times) - 1, 1) if len(times) > 1 else times[0]
        print(f"points: {n}")
        print(f"workers: {args.workers} ({args.scheduler})")
        print(f"chunks: {nchunks}")
        print(f"time per step: {per_step:.3f} s (graph building {sum(build) / len(build):.3f} s)")
        what = "per worker process" if client is not None else "of the one process (all threads)"
        print(f"peak memory {what}: " + ", ".join(f"{p / 2**20:.0f} MiB" for p in peaks))
        print(f"peak memory max: {max(peaks) / 2**20:.0f} MiB")
        print(f"final loss: {float(val):.6e}")
    finally:
        if client is not None:
            client.close()
            cluster.close()
    return 0


def _remote_start():
    import pinn_dask      # this file, imported on the worker (sys.path set above)
    return pinn_dask.start_sampler()


def _remote_peak():
    import pinn_dask
    return pinn_dask._PEAK.peak


def _remote_stop():
    import pinn_dask
    return pinn_dask.stop_sampler()


if __name__ == "__main__":
    sys.exit(main())
