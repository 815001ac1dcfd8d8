"""Timing helpers shared by the benchmarks in this folder (no dependencies
beyond the standard library).

Each implementation is called once (warm-up, and its result is kept for the
correctness check), then a number of calls per repeat is chosen so that one
repeat lasts at least ``min_time`` seconds, and ``repeat`` repeats are timed
with ``time.perf_counter``. The figure to quote is the median per call; the
ratio to the plain-numpy forward of the same run is what to compare across
machines (absolute times move with the machine and its load).
"""
from __future__ import annotations

import argparse
import gc
import importlib
import platform
import re
import statistics
import sys
import time


def measure(fn, repeat=7, min_time=0.1, max_number=100000, keep_gc=False):
    """Median and minimum seconds per call of ``fn()``, and calls per repeat.
    The garbage collector is off while timing (as in ``timeit`` and the peers
    harness) unless ``keep_gc``: a full collection walks every object alive,
    so with torch or jax imported it would bill their heap to whoever runs."""
    gc_was = gc.isenabled()
    if not keep_gc:
        gc.collect()
        gc.disable()
    try:
        return _measure(fn, repeat, min_time, max_number)
    finally:
        if gc_was:
            gc.enable()


def _measure(fn, repeat, min_time, max_number):
    number = 1
    while True:                                  # calibrate (also warms up)
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time or number >= max_number:
            break
        if dt <= 0:
            number *= 10
        else:
            number = min(max_number, max(number * 2, int(number * 1.2 * min_time / dt)))
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times), min(times), number


def fmt_time(s):
    if s >= 1.0:
        return f"{s:.3f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


def optional(name):
    """Import ``name`` or return None (optional peers: autograd, jax, torch)."""
    try:
        return importlib.import_module(name)
    except Exception:
        return None


def parser(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--repeat", type=int, default=7, help="timed repeats (default 7)")
    p.add_argument("--min-time", type=float, default=0.1,
                   help="seconds per repeat, at least (default 0.1)")
    p.add_argument("--impl", default=None,
                   help="regex on implementation names (the numpy forward is always run)")
    p.add_argument("--gc", action="store_true",
                   help="keep the garbage collector on while timing (default off, as timeit)")
    p.add_argument("--profile", action="store_true",
                   help="after timing, cProfile 20 calls of xgrad's grad (top 25 by own time)")
    p.add_argument("--quick", action="store_true", help="3 repeats of >= 0.02 s (smoke test)")
    return p


def header(title, extra=()):
    import numpy as np
    print(title)
    print(f"python {platform.python_version()}  numpy {np.__version__}  "
          f"platform {platform.machine()} {platform.system()}", *extra)


def versions(mods):
    out = []
    for name, m in mods:
        if m is not None:
            v = getattr(m, "__version__", None)
            if v is None:
                try:
                    from importlib.metadata import version
                    v = version(name)
                except Exception:
                    v = "?"
            out.append(f"{name} {v}")
    return out


class Table:
    """Runs the implementations and prints one row each."""

    def __init__(self, args, n_ops=None):
        self.args = args
        self.n_ops = n_ops
        self.ref = None
        if args.quick:
            args.repeat, args.min_time = 3, 0.02
        cols = f"{'impl':28s} {'median':>10s} {'min':>10s} {'x np-fwd':>9s}"
        if n_ops:
            cols += f" {'us/op':>8s}"
        print(cols + f" {'calls x rep':>12s}  check")
        sys.stdout.flush()

    def wanted(self, name):
        pat = self.args.impl
        return name == "numpy:fwd" or pat is None or re.search(pat, name) is not None

    def run(self, name, fn, check=None):
        """Time ``fn``; ``check(result) -> str`` is called on the warm-up result."""
        if not self.wanted(name):
            return None
        try:
            res = fn()
            msg = check(res) if check is not None else ""
        except Exception as e:  # keep going: report and skip this implementation
            print(f"{name:28s} FAILED: {type(e).__name__}: {e}")
            return None
        med, mn, number = measure(fn, self.args.repeat, self.args.min_time,
                                  keep_gc=self.args.gc)
        if self.ref is None:
            self.ref = med
        line = (f"{name:28s} {fmt_time(med):>10s} {fmt_time(mn):>10s} "
                f"{med / self.ref:9.2f}")
        if self.n_ops:
            line += f" {med * 1e6 / self.n_ops:8.2f}"
        line += f" {number:>6d} x {self.args.repeat:<3d}  {msg}"
        print(line)
        sys.stdout.flush()
        return med


def compare(got, want, dtype=None):
    """'ok rel 1e-16' / 'MISMATCH ...': max|got-want| / max|want| over a list
    of arrays, and a dtype check (a silent upcast of float32 is a bug)."""
    import numpy as np
    got = [np.asarray(g) for g in got]
    if len(got) != len(want):
        return f"MISMATCH: {len(got)} arrays, expected {len(want)}"
    worst = 0.0
    for g, w in zip(got, want):
        if g.shape != w.shape:
            return f"MISMATCH: shape {g.shape}, expected {w.shape}"
        if dtype is not None and g.dtype != dtype:
            return f"DTYPE {g.dtype}, expected {np.dtype(dtype)}"
        den = float(np.max(np.abs(w))) or 1.0
        worst = max(worst, float(np.max(np.abs(g.astype(np.float64) - w))) / den)
    tol = 1e-4 if dtype == np.float32 else 1e-9
    return f"{'ok' if worst <= tol else 'MISMATCH'} rel {worst:.1e}"


def profile(fn, calls=20, top=25):
    """cProfile ``calls`` calls of ``fn`` and print the top functions by own time.
    (cProfile inflates per-call costs of small functions; read it for the
    ranking and the call counts, and time changes with the benchmark itself.)"""
    import cProfile
    import pstats
    fn()
    gc.collect()
    gc_was = gc.isenabled()
    gc.disable()
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(calls):
        fn()
    pr.disable()
    if gc_was:
        gc.enable()
    print(f"\n--- cProfile of {calls} calls ---")
    pstats.Stats(pr, stream=sys.stdout).sort_stats("tottime").print_stats(top)
