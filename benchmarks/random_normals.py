"""10**7 float32 standard normals: ``xgrad.random.normal`` against numpy's
``Generator.standard_normal(dtype=float32)`` and ``jax.random.normal`` on the
CPU (jitted and eager), median of several runs, and the share of xgrad's time
spent in the threefry2x32 hash (the bits) versus the float transform.

Run: ``python benchmarks/random_normals.py [--n N] [--repeat R]``. Needs xgrad
and numpy; jax is timed when importable.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import xgrad.random as xr  # noqa: E402
from xgrad.random import _bits_data  # noqa: E402


def _median(fn, repeat):
    fn()                                   # warm-up (and jit compile)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=10 ** 7)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    n, r = args.n, args.repeat
    rows = []
    key = xr.PRNGKey(0)
    rows.append(("xgrad.random.normal", _median(lambda: xr.normal(key, (n,), "float32"), r)))
    rows.append(("  of which: threefry bits",
                 _median(lambda: _bits_data(key, 32, (n,)), r)))
    gen = np.random.default_rng(0)
    rows.append(("numpy Generator.standard_normal",
                 _median(lambda: gen.standard_normal(n, dtype=np.float32), r)))
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        jax = None
    if jax is not None:
        jk = jax.random.PRNGKey(0)
        f = jax.jit(lambda k: jax.random.normal(k, (n,), jnp.float32))
        rows.append(("jax.random.normal (jit)", _median(lambda: f(jk).block_until_ready(), r)))
        with jax.disable_jit():
            rows.append(("jax.random.normal (eager, no jit)",
                         _median(lambda: jax.random.normal(jk, (n,), jnp.float32)
                                 .block_until_ready(), r)))
        a = np.asarray(xr.normal(key, (1000,), "float32"))
        b = np.asarray(jax.random.normal(jk, (1000,), jnp.float32))
        print(f"max |xgrad - jax| over 1000 draws: {np.max(np.abs(a - b)):.3g}")
    print(f"{n} float32 normals, median of {r} runs")
    print(f"{'implementation':40s} {'seconds':>10s} {'ns/draw':>9s}")
    for name, t in rows:
        print(f"{name:40s} {t:10.4f} {t / n * 1e9:9.2f}")


if __name__ == "__main__":
    main()
