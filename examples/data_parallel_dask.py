"""Data-parallel gradients on dask: one gradient per chunk of the batch,
all-reduced by a dask reduction, clipped by their global norm, and checked
equal to the full-batch gradient.

What it shows:
  * The batch (X, y) is a dask array chunked along the examples; the weights
    of a small tanh MLP classifier are numpy arrays.
  * Per-chunk gradients: ``xgrad.grad`` of the summed logistic loss on each
    block ``X.blocks[i]`` (each a lazy dask array, computed where its chunk
    lives). The all-reduce is a dask reduction: ``da.stack(per_chunk).sum(0)``
    leaf by leaf, divided by the number of examples.
  * ``xgrad.tree.clip_by_global_norm`` clips the reduced gradient (still lazy).
  * The full-batch gradient ``xgrad.grad(mean loss)(params, X, y)`` (also one
    lazy graph over all chunks), clipped the same way; one ``compute`` of both
    and the largest difference, which must be at rounding level.

Run:  python examples/data_parallel_dask.py [--points N] [--chunks K] [--quick]
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import xgrad  # noqa: E402
import xgrad.numpy as xnp  # noqa: E402


def init_mlp(sizes, rng):
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        W = rng.standard_normal((fan_in, fan_out)) * math.sqrt(2.0 / (fan_in + fan_out))
        params.append((W, np.zeros(fan_out)))
    return params


def logits(params, X):
    h = X
    for W, b in params[:-1]:
        h = xnp.tanh(h @ W + b)
    W, b = params[-1]
    return (h @ W + b)[:, 0]


def loss_sum(params, X, y):
    """Summed logistic loss, labels y in {0, 1}."""
    z = logits(params, X)
    return xnp.sum(xnp.logaddexp(0.0, z) - y * z)


def loss_mean(params, X, y):
    return loss_sum(params, X, y) / X.shape[0]


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--points", type=int, default=None, help="examples (default 10^6; 10^4 with --quick)")
    p.add_argument("--chunks", type=int, default=8, help="chunks of the batch")
    p.add_argument("--features", type=int, default=16)
    p.add_argument("--width", type=int, default=32)
    p.add_argument("--max-norm", type=float, default=0.1, help="clip_by_global_norm's max_norm")
    p.add_argument("--quick", action="store_true", help="10^4 examples")
    p.add_argument("--scheduler", choices=("threads", "distributed"), default="distributed")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.points is None:
        args.points = 10_000 if args.quick else 1_000_000
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
        from dask.distributed import Client, LocalCluster
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=False,
                               dashboard_address=":0")
        client = Client(cluster)
    try:
        rng = np.random.default_rng(args.seed)
        n, d = args.points, args.features
        c = -(-n // args.chunks)
        drng = da.random.default_rng(args.seed)
        X = drng.standard_normal((n, d), chunks=(c, d))
        w_true = rng.standard_normal(d)
        y = (X @ w_true + 0.5 * drng.standard_normal(n, chunks=c) > 0).astype(np.float64)
        X, y = dask.persist(X, y) if client is None else client.persist([X, y])
        params = init_mlp([d, args.width, 1], rng)
        k = X.numblocks[0]
        print(f"data-parallel gradients on dask: {n} examples x {d} features in {k} chunks, "
              f"{args.workers} workers ({args.scheduler}), MLP {d}-{args.width}-1 tanh")

        t0 = time.perf_counter()
        grad_sum = xgrad.grad(loss_sum)
        per_chunk = [grad_sum(params, X.blocks[i], y.blocks[i]) for i in range(k)]   # lazy
        leaves = [xgrad.tree.leaves(g) for g in per_chunk]
        reduced = [da.stack([ls[j] for ls in leaves]).sum(axis=0) / n       # the all-reduce
                   for j in range(len(leaves[0]))]
        dp = xgrad.tree.unflatten(xgrad.tree.structure(per_chunk[0]), reduced)
        dp_norm = xgrad.tree.global_norm(dp)
        dp_clipped = xgrad.tree.clip_by_global_norm(dp, args.max_norm)

        full = xgrad.grad(loss_mean)(params, X, y)                           # lazy, one graph
        full_clipped = xgrad.tree.clip_by_global_norm(full, args.max_norm)
        lazy = all(isinstance(v, da.Array) for v in xgrad.tree.leaves((dp_clipped, full_clipped)))
        t1 = time.perf_counter()
        if client is not None:
            dp_norm, dp, dp_clipped, full, full_clipped = client.gather(
                client.compute([dp_norm, dp, dp_clipped, full, full_clipped]))
        else:
            dp_norm, dp, dp_clipped, full, full_clipped = dask.compute(
                dp_norm, dp, dp_clipped, full, full_clipped, scheduler="threads",
                num_workers=args.workers)
        t2 = time.perf_counter()

        def maxdiff(a, b):
            return max(float(np.max(np.abs(np.asarray(u) - np.asarray(v))))
                       for u, v in zip(xgrad.tree.leaves(a), xgrad.tree.leaves(b)))

        scale = max(float(np.max(np.abs(np.asarray(v)))) for v in xgrad.tree.leaves(full))
        diff = maxdiff(dp, full)
        diff_clipped = maxdiff(dp_clipped, full_clipped)
        clipped_norm = float(xgrad.tree.global_norm(dp_clipped))
        print(f"examples: {n}")
        print(f"chunks: {k}")
        print(f"workers: {args.workers} ({args.scheduler})")
        print(f"lazy until compute: {lazy}")
        print(f"graph building: {t1 - t0:.3f} s, compute: {t2 - t1:.3f} s")
        print(f"global norm before clipping: {float(dp_norm):.6e}")
        print(f"global norm after clipping: {clipped_norm:.6e} (max_norm {args.max_norm:g})")
        print(f"max |all-reduced - full-batch| gradient: {diff:.3e} (largest entry {scale:.3e})")
        print(f"max |clipped all-reduced - clipped full-batch|: {diff_clipped:.3e}")
        ok = diff <= 1e-12 * max(scale, 1.0) and diff_clipped <= 1e-12
        print(f"equal to the full-batch gradient: {ok}")
        return 0 if ok else 1
    finally:
        if client is not None:
            client.close()
            cluster.close()


if __name__ == "__main__":
    sys.exit(main())
