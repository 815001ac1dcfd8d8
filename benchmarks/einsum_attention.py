"""einsum against matmul: a multi-head attention block written both ways.

The block (batch 8, sequence 64, 4 heads of width 32, model width 128):
q/k/v projections, scores q k^T / sqrt(d), softmax over the keys, the
weighted sum of the values and the output projection, summed to a scalar
loss. ``einsum`` writes each product as one subscript string
(``'bsm,mhd->bhsd'``, ``'bhqd,bhkd->bhqk'``, ...); ``matmul`` writes the same
with ``@``, ``reshape`` and ``permute_dims``. Each is timed forward (plain
arrays) and under ``xgrad.grad`` with respect to the four weight tensors;
before timing, the einsum gradient is checked against the matmul one.

The figures to watch are the two ratios einsum / matmul printed at the end
(forward and grad; target: at most 1.10), from CPU time of the two versions
timed back to back in interleaved rounds (on a loaded machine the table's
wall-clock medians, taken one implementation after the other, drift). ``einsum`` is a composite (see
``xgrad/numpy/_einsum.py``): each pairwise contraction is one matmul, and
the plan for a (subscripts, shapes) pair is cached, so the ratio measures
its Python overhead and any extra transposes. The matmul version flattens
(batch, sequence) into one axis for the projections, as einsum's plan does:
written ``x @ W`` on the 3-D ``x`` instead, numpy runs one small GEMM per
batch element and the weight gradient sums a broadcast, which made it about
25% slower than einsum here.

The two versions run the same array operations (the einsum plans are one
matmul each, with the permutes and reshapes the matmul version writes), so
the ratios measure einsum's Python overhead (about 7 us a call, 6 calls a
forward). On a loaded machine, glibc's allocator moves large buffers between
mmap and the heap as it adapts, and which version pays the page faults
depends on what ran before; fix the allocator for steady figures:

    MALLOC_MMAP_THRESHOLD_=4000000000 MALLOC_TRIM_THRESHOLD_=4000000000 \
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/einsum_attention.py

Run:  python benchmarks/einsum_attention.py [--quick] [--profile]
"""
from __future__ import annotations

import gc
import math
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _bench import Table, compare, header, parser, profile  # noqa: E402

import xgrad  # noqa: E402
import xgrad.numpy as xnp  # noqa: E402

B, S, H, D = 8, 64, 4, 32
M = H * D


def _softmax(s):
    e = xnp.exp(s - xnp.max(s, axis=-1, keepdims=True))
    return e / xnp.sum(e, axis=-1, keepdims=True)


def attention_einsum(wq, wk, wv, wo, x):
    """Weights (M, H, D) for q/k/v and (H, D, M) for the output."""
    q = xnp.einsum("bsm,mhd->bhsd", x, wq)
    k = xnp.einsum("bsm,mhd->bhsd", x, wk)
    v = xnp.einsum("bsm,mhd->bhsd", x, wv)
    p = _softmax(xnp.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(D))
    o = xnp.einsum("bhqk,bhkd->bhqd", p, v)
    return xnp.einsum("bhsd,hdm->bsm", o, wo)


def attention_matmul(wq, wk, wv, wo, x):
    """The same block with @, reshape and permute_dims (the projections as
    2-D products: numpy's stacked matmul would be slower, see the docstring)."""
    x2 = xnp.reshape(x, (B * S, M))

    def heads(w):
        y = xnp.reshape(x2 @ xnp.reshape(w, (M, H * D)), (B, S, H, D))
        return xnp.permute_dims(y, (0, 2, 1, 3))
    q, k, v = heads(wq), heads(wk), heads(wv)
    p = _softmax(q @ xnp.matrix_transpose(k) / math.sqrt(D))
    o = xnp.reshape(xnp.permute_dims(p @ v, (0, 2, 1, 3)), (B * S, H * D))
    return xnp.reshape(o @ xnp.reshape(wo, (H * D, M)), (B, S, M))


def _interleaved(f, g, rounds, calls=5):
    """Median over rounds of (CPU time of ``calls`` calls of f) / (the same
    of g), f and g timed back to back in each round (in alternating order),
    so that a change in the machine's load hits both; and the ratio of the
    two minima over the rounds (the least disturbed round of each)."""
    ratios, tf, tg = [], [], []
    gc.collect()
    gc.disable()
    try:
        for r in range(rounds):
            t = {}
            for k in ((0, 1) if r % 2 == 0 else (1, 0)):
                fn = (f, g)[k]
                t0 = time.process_time()
                for _ in range(calls):
                    fn()
                t[k] = time.process_time() - t0
            ratios.append(t[0] / t[1])
            tf.append(t[0])
            tg.append(t[1])
    finally:
        gc.enable()
    return statistics.median(ratios), min(tf) / min(tg)


def main():
    p = parser(__doc__.splitlines()[0])
    args = p.parse_args()
    header(f"einsum vs matmul: attention block, batch {B}, seq {S}, heads {H}, d {D}")
    rng = np.random.default_rng(0)
    ws = [rng.standard_normal((M, H, D)) / math.sqrt(M) for _ in range(3)]
    ws.append(rng.standard_normal((H, D, M)) / math.sqrt(M))
    x = rng.standard_normal((B, S, M))

    def loss(f):
        return lambda *w: xnp.sum(f(*w, x) ** 2)

    g_ein = xgrad.grad(loss(attention_einsum), argnums=(0, 1, 2, 3))
    g_mm = xgrad.grad(loss(attention_matmul), argnums=(0, 1, 2, 3))
    want = [np.asarray(g) for g in g_mm(*ws)]
    fwd_check = compare([attention_einsum(*ws, x)], [np.asarray(attention_matmul(*ws, x))])
    for _ in range(3):       # warm up both (the allocator settles on the large buffers)
        attention_einsum(*ws, x), attention_matmul(*ws, x), g_ein(*ws), g_mm(*ws)
    t = Table(args)
    fm = t.run("numpy:fwd", lambda: attention_matmul(*ws, x))
    fe = t.run("xgrad:einsum-fwd", lambda: attention_einsum(*ws, x), lambda r: fwd_check)
    gm = t.run("xgrad:matmul-grad", lambda: g_mm(*ws))
    ge = t.run("xgrad:einsum-grad", lambda: g_ein(*ws), lambda r: compare(r, want))
    if None not in (fm, fe, gm, ge):
        print(f"\neinsum / matmul from the medians above: forward {fe / fm:.3f}   "
              f"grad {ge / gm:.3f}")
        rounds = 5 if args.quick else 21
        fwd = _interleaved(lambda: attention_einsum(*ws, x), lambda: attention_matmul(*ws, x),
                           rounds)
        grd = _interleaved(lambda: g_ein(*ws), lambda: g_mm(*ws), rounds)
        print(f"einsum / matmul, CPU time, {rounds} interleaved rounds: forward {fwd[0]:.3f} "
              f"(ratio of minima {fwd[1]:.3f})   grad {grd[0]:.3f} (ratio of minima "
              f"{grd[1]:.3f})   (target <= 1.10)")
    if args.profile:
        profile(lambda: g_ein(*ws))


if __name__ == "__main__":
    main()
