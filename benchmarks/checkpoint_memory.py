"""Checkpointing: peak memory and time of a deep chain's gradient.

The peers' ``deepchain`` workload (the peers harness, outside this repository: ``h <- tanh(h W^T)``,
shared W, loss ``sum(h_L)``, gradient w.r.t. the input), scaled down from
200 layers of width 4096 to run in seconds: by default 40 layers, h 64x1024,
float64. Variants:

- ``grad``: plain reverse mode (every layer's residuals stay until the
  backward pass reaches it);
- ``checkpoint_sequential(10)``: the chain in 10 checkpointed segments (the
  peers' layout: one segment per 1/10 of the depth);
- ``checkpoint(dots)``: every layer checkpointed with ``policy="dots"`` (the
  matrix products are saved, the tanh recomputed);
- ``checkpoint(None)``: every layer checkpointed, nothing saved.

Peak memory is the rise of ``tracemalloc``'s peak above the allocations alive
before the call (numpy reports its buffers to tracemalloc), in MiB and in
activations (one h is batch x width x 8 bytes). Time is the best of
``--repeat`` calls without tracemalloc. Gradients are compared with a
hand-written numpy backward pass. BLAS runs on one thread unless
OPENBLAS_NUM_THREADS / OMP_NUM_THREADS are set (as in the peers harness).

Run: ``python benchmarks/checkpoint_memory.py [--depth 40 --width 1024
--batch 64 --segments 10]``.
"""
from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import time
import tracemalloc

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _bench import fmt_time, header, versions  # noqa: E402


def make_data(batch, width, seed=1234):
    rng = np.random.RandomState(seed)
    W = rng.standard_normal((width, width)) / math.sqrt(width)
    x = rng.standard_normal((batch, width))
    return W, x


def manual_grad(W, x, depth):
    """numpy backward pass, storing every activation: the reference."""
    Wt = np.ascontiguousarray(W.T)
    hs = [x]
    for _ in range(depth):
        hs.append(np.tanh(hs[-1] @ Wt))
    g = np.ones_like(x)
    for h in reversed(hs[1:]):
        g = (g * (1.0 - h * h)) @ W
    return g


def variants(W, depth, segments):
    import xgrad
    import xgrad.numpy as xnp
    Wt = np.ascontiguousarray(W.T)

    def layer(h):
        return xnp.tanh(h @ Wt)

    def chain(lay):
        def f(x):
            h = x
            for _ in range(depth):
                h = lay(h)
            return xnp.sum(h)
        return f

    seq = xgrad.checkpoint_sequential([layer] * depth, segments)
    return [
        ("grad", chain(layer)),
        (f"checkpoint_sequential({segments})", lambda x: xnp.sum(seq(x))),
        ('checkpoint(dots) per layer', chain(xgrad.checkpoint(layer, policy="dots"))),
        ("checkpoint(None) per layer", chain(xgrad.checkpoint(layer))),
    ]


def peak_rise(fn):
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    out = fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return out, peak


def best_time(fn, repeat):
    best = math.inf
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--depth", type=int, default=40)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--segments", type=int, default=10)
    p.add_argument("--repeat", type=int, default=3, help="timed calls per variant (best is shown)")
    args = p.parse_args(argv)
    import xgrad

    header(f"checkpoint_memory: grad of h <- tanh(h W^T) x {args.depth} layers, "
           f"h {args.batch}x{args.width} float64", versions([("xgrad", xgrad)]))
    W, x = make_data(args.batch, args.width)
    act = args.batch * args.width * 8
    want = manual_grad(W, x, args.depth)
    print(f"one activation = {act / 2**20:.2f} MiB; W = {W.nbytes / 2**20:.1f} MiB; "
          f"BLAS threads: {os.environ.get('OPENBLAS_NUM_THREADS')}\n")
    print(f"{'variant':<30} {'peak rise':>11} {'activations':>12} {'time':>10} "
          f"{'x grad':>7}  max rel diff vs numpy")
    t_ref = None
    for name, f in variants(W, args.depth, args.segments):
        g = xgrad.grad(f)
        g(x[:2])                                     # warm-up on a tiny batch
        out, peak = peak_rise(lambda: g(x))
        t = best_time(lambda: g(x), args.repeat)
        t_ref = t_ref or t
        rel = float(np.max(np.abs(out - want)) / np.max(np.abs(want)))
        print(f"{name:<30} {peak / 2**20:>7.1f} MiB {peak / act:>12.1f} {fmt_time(t):>10} "
              f"{t / t_ref:>7.2f}  {rel:.1e}")
        out = g = None                               # free before the next variant
    print("\n(activations: peak rise / one activation. Expected: about 1 per layer for grad "
          "(each tanh keeps its\n derivative; the products need only W), segments + depth/segments "
          "for checkpoint_sequential,\n 1 per layer for per-layer checkpoints (their inputs), 2 per "
          "layer with policy dots (inputs and products))")


if __name__ == "__main__":
    main()
