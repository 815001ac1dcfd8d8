"""Trading compute for memory with checkpointing.

The gradient of a deep tanh network ``h <- tanh(h @ W)`` (L layers) keeps
every layer's activations until the backward pass reaches it, so its peak
memory grows like L. ``xgrad.checkpoint_sequential(layers, k)`` keeps only
the k segment inputs and recomputes one segment at a time in the backward
pass: peak memory about (k + L/k) activations, smallest near k = sqrt(L), for
one extra forward pass of compute. ``checkpoint(layer, policy="dots")`` saves
the matrix products and recomputes only the cheap tanh.

Peak memory is measured with ``tracemalloc`` (numpy reports its buffers to
it), as the rise above what was allocated before the call.

Run: ``python examples/memory_checkpoint.py`` (a few seconds). BLAS runs on
one thread unless OPENBLAS_NUM_THREADS / OMP_NUM_THREADS say otherwise (small
products gain nothing from more, and lose a lot on a loaded machine).
"""
import gc
import os
import time
import tracemalloc

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import xgrad  # noqa: E402
import xgrad.numpy as xnp  # noqa: E402

BATCH, WIDTH, DEPTH = 32, 256, 100

rng = np.random.default_rng(0)
W = rng.normal(size=(WIDTH, WIDTH)) / np.sqrt(WIDTH)
x = rng.normal(size=(BATCH, WIDTH))


def layer(h):
    return xnp.tanh(h @ W)


def plain(x):
    h = x
    for _ in range(DEPTH):
        h = layer(h)
    return xnp.sum(h)


def sequential(segments):
    chain = xgrad.checkpoint_sequential([layer] * DEPTH, segments)
    return lambda x: xnp.sum(chain(x))


def per_layer(policy):
    lay = xgrad.checkpoint(layer, policy=policy)

    def f(x):
        h = x
        for _ in range(DEPTH):
            h = lay(h)
        return xnp.sum(h)
    return f


def peak_rise(fn, *args):
    """(result, peak bytes above the start, seconds) of one call of fn."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    t0 = time.perf_counter()
    out = fn(*args)
    dt = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return out, peak, dt


def main():
    act = BATCH * WIDTH * 8
    print(f"deep tanh chain: {DEPTH} layers, h {BATCH}x{WIDTH} float64 "
          f"(one activation = {act / 2**10:.0f} KiB)\n")
    variants = [("no checkpointing", plain),
                ("checkpoint_sequential, 5 segments", sequential(5)),
                ("checkpoint_sequential, 10 segments", sequential(10)),
                ("checkpoint_sequential, 25 segments", sequential(25)),
                ("checkpoint every layer", per_layer(None)),
                ('checkpoint every layer, policy="dots"', per_layer("dots"))]
    ref = None
    print(f"{'variant':<40} {'peak memory':>12} {'activations':>12} {'time':>9}  max |diff|")
    for name, f in variants:
        g = xgrad.grad(f)
        g(x[:2])                                   # warm-up (first-call allocations)
        out, peak, dt = peak_rise(g, x)
        ref = out if ref is None else ref
        diff = float(np.max(np.abs(out - ref)))
        print(f"{name:<40} {peak / 2**20:>9.2f} MiB {peak / act:>12.1f} {dt:>8.3f}s  {diff:.1e}")
    print("\nPlain grad keeps about one array per layer (tanh's derivative); checkpoint_sequential "
          "keeps the\nsegment inputs plus one segment's residuals while it recomputes it; per-layer "
          "checkpoints keep\nevery layer's input (no gain here); \"dots\" also keeps every product "
          "(more memory, less recompute).")


if __name__ == "__main__":
    main()
