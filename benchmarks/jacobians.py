"""Jacobians by ``vmap`` (one batched pass) against Python loops.

1. The Hessian of ``f(x) = sum(tanh(A x)**2) + x.x/2`` with ``A`` 300x200,
   ``x`` in R^200: ``xgrad.hessian`` (``jacfwd(jacrev(f))``: one forward-over-
   reverse pass over all 200 basis vectors at once) against 200
   Hessian-vector products ``jvp(grad(f), (x,), (e_i,))`` in a loop, and
   against 200 reverse passes ``vjp(grad(f), x)`` pulled back along each e_i.
2. ``vmap(hessian(g))`` of a small function over 256 points against a loop
   over the points (each Hessian from a loop over basis vectors with
   ``jvp(grad(g))``) and against a loop over points calling ``hessian``.
3. Repeated Hessian-vector products at one point (the inner loop of
   Newton-CG): ``linearize(grad(f), x)`` once, then its ``f_jvp`` on 20
   vectors, against 20 calls of ``hvp(f, (x,), (v,))``.

Every loop version computes the same numbers (checked); the figures printed
are medians over repeats, and the speed-up of the vmap version.

Run:  python benchmarks/jacobians.py [--repeat 7] [--quick] [--cpu]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

# Single-threaded BLAS unless the caller says otherwise: the vmap versions
# run a few large matrix products, the loops many small ones, and a
# multi-threaded BLAS on a busy machine turns the comparison into a
# measurement of thread scheduling. Set OPENBLAS_NUM_THREADS to override.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import xgrad  # noqa: E402
import xgrad.numpy as xnp  # noqa: E402


CLOCK = [time.perf_counter]


def median_time(fn, repeat, min_time=0.05):
    """Median seconds per call over ``repeat`` repeats (each at least
    ``min_time`` long; one warm-up call first)."""
    clock = CLOCK[0]
    fn()
    number = 1
    while True:
        t = clock()
        for _ in range(number):
            fn()
        dt = clock() - t
        if dt >= min_time or number >= 1000:
            break
        number *= 2
    times = [dt / number]
    for _ in range(repeat - 1):
        t = clock()
        for _ in range(number):
            fn()
        times.append((clock() - t) / number)
    return statistics.median(times)


# ----- 1. one big Hessian -----

def make_f(A):
    def f(x):
        return xnp.sum(xnp.tanh(xnp.matmul(A, x)) ** 2) + xnp.sum(x * x) / 2
    return f


def hessian_vmap(f, x):
    return xgrad.hessian(f)(x)


def hessian_loop_fwd(f, x):
    """Column i = H e_i, forward-over-reverse, one basis vector at a time."""
    g = xgrad.grad(f)
    eye = np.eye(x.shape[0])
    return np.stack([xgrad.jvp(g, (x,), (eye[i],))[1] for i in range(x.shape[0])], axis=-1)


def hessian_loop_rev(f, x):
    """Row i = e_i^T H, reverse-over-reverse: one trace of grad, pulled back
    along each basis vector (vjp_fn reused)."""
    _, pull = xgrad.vjp(xgrad.grad(f), x)
    eye = np.eye(x.shape[0])
    return np.stack([pull(eye[i])[0] for i in range(x.shape[0])])


def hessian_exact(A, x):
    t = np.tanh(A @ x)
    d = 2 * (1 - t ** 2) * (1 - 3 * t ** 2)        # d2/du2 tanh(u)^2
    return A.T @ (d[:, None] * A) + np.eye(x.shape[0])


# ----- 2. many small Hessians -----

def g(x):
    return xnp.sum(xnp.sin(x) * x ** 2) + xnp.prod(x[:2]) + xnp.sum(xnp.exp(-x)) * x[0]


def batched_vmap(X):
    return xgrad.vmap(xgrad.hessian(g))(X)


def batched_loop_basis(X):
    gg = xgrad.grad(g)
    eye = np.eye(X.shape[1])
    return np.stack([np.stack([xgrad.jvp(gg, (x,), (e,))[1] for e in eye], axis=-1) for x in X])


def batched_loop_hessian(X):
    h = xgrad.hessian(g)
    return np.stack([h(x) for x in X])


def report(title, rows, repeat, label="vmap"):
    print(title)
    base = None
    results = []
    for name, fn in rows:
        t = median_time(fn, repeat)
        results.append((name, t))
        base = t if base is None else base
    for name, t in results:
        extra = "" if t == base else f"   ({label} is {t / base:5.1f}x faster)"
        print(f"  {name:<44s} {t * 1e3:9.2f} ms{extra}")
    print()
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="3 repeats")
    ap.add_argument("--cpu", action="store_true",
                    help="time with process CPU time instead of wall time (steadier on a busy "
                         "machine; set OPENBLAS_NUM_THREADS=1 so that it means the same)")
    args = ap.parse_args()
    repeat = 3 if args.quick else args.repeat
    if args.cpu:
        CLOCK[0] = time.process_time
    print(f"xgrad {xgrad.__version__}, numpy {np.__version__}, BLAS threads "
          f"{os.environ['OPENBLAS_NUM_THREADS']}; {'CPU' if args.cpu else 'wall'}-clock medians "
          f"of {repeat} repeats\n")
    rng = np.random.default_rng(0)

    A = rng.normal(size=(300, 200)) / np.sqrt(200)
    x = rng.normal(size=200)
    f = make_f(A)
    H = hessian_vmap(f, x)
    err = max(np.max(np.abs(H - hessian_exact(A, x))),
              np.max(np.abs(hessian_loop_fwd(f, x) - H)),
              np.max(np.abs(hessian_loop_rev(f, x) - H)))
    assert err < 1e-10, err
    r1 = report(f"Hessian of sum(tanh(A x)^2) + x.x/2, A 300x200 (max |difference| {err:.1e})", [
        ("hessian (jacfwd(jacrev), vmap)", lambda: hessian_vmap(f, x)),
        ("loop of 200 jvp(grad(f))", lambda: hessian_loop_fwd(f, x)),
        ("loop of 200 vjp_fn(e_i) of grad(f)", lambda: hessian_loop_rev(f, x)),
    ], repeat)

    X = rng.normal(size=(256, 4))
    Hb = batched_vmap(X)
    err = max(np.max(np.abs(batched_loop_basis(X) - Hb)), np.max(np.abs(batched_loop_hessian(X) - Hb)))
    assert err < 1e-10, err
    r2 = report(f"vmap(hessian(g)) over 256 points in R^4 (max |difference| {err:.1e})", [
        ("vmap(hessian(g))", lambda: batched_vmap(X)),
        ("loop over points and basis: jvp(grad(g))", lambda: batched_loop_basis(X)),
        ("loop over points of hessian(g)", lambda: batched_loop_hessian(X)),
    ], repeat)
    V = rng.normal(size=(20, 200))

    def hvps_linearized():
        _, f_hvp = xgrad.linearize(xgrad.grad(f), x)
        return [f_hvp(v) for v in V]
    err = max(np.max(np.abs(a - H @ v)) for a, v in zip(hvps_linearized(), V))
    assert err < 1e-10, err
    report(f"20 Hessian-vector products at one x (max |difference| {err:.1e})", [
        ("linearize(grad(f)) once, then 20 f_jvp(v)", hvps_linearized),
        ("20 hvp(f, (x,), (v,))", lambda: [xgrad.hvp(f, (x,), (v,)) for v in V]),
    ], repeat, label="linearize")
    s1 = r1[1][1] / r1[0][1]
    s2 = r2[1][1] / r2[0][1]
    print(f"speed-up over the basis-vector loops: {s1:.1f}x (one Hessian), {s2:.1f}x (256 Hessians); "
          f"target >= 10x")


if __name__ == "__main__":
    main()
