"""A physics-informed neural network (PINN) for the Poisson equation

    -Δu = f  on the unit square,   u = 0 on its boundary,

with f = 2 pi^2 sin(pi x) sin(pi y), whose solution is u* = sin(pi x) sin(pi y).

What it does:
  * u(x, y) = x (1 - x) y (1 - y) N(x, y) with N a tanh MLP (2-32-32-1 by
    default). The factor in front vanishes on the boundary, so every network
    satisfies the boundary condition exactly (a *hard* constraint) and the loss
    is the PDE residual alone: mean((Δu + f)^2) over collocation points. With
    ``--ansatz soft`` u = N(x, y) instead and the loss adds
    ``--bc-weight * mean(u^2)`` over points sampled on the boundary (the
    textbook PINN; slower to converge, see below).
  * Δu at every collocation point is ``vmap(xgrad.laplacian(u))``: the forward
    Laplacian carries value, gradient and Laplacian through the network in one
    forward pass, batched over points; ``xgrad.value_and_grad`` differentiates
    the loss with respect to the weights through it.
  * Fresh collocation points every step (uniform in the square, 256 by
    default), Adam (``xgrad.optim``) with an exponentially decaying learning
    rate 1e-2 -> 1e-4.
  * The training step (``value_and_grad`` of the loss) runs under
    ``xgrad.jit``: staged once (the points change every step, their shape
    does not) and replayed without re-tracing. Before training, the jitted
    and the eager step are run on the same points: the largest difference
    and the speed-up (median of 5 steps each) are printed. ``--no-jit``
    trains eagerly.
  * At the end: the relative L2 error ||u - u*|| / ||u*|| on a 101 x 101 grid,
    and, if matplotlib is installed, a PNG with the solution, the error map
    and the loss curve. A tqdm progress bar shows the loss if tqdm is installed.

Measured (numpy float64, 2 CPU cores shared with other jobs, seed 0): the
default 2000 steps take about 20 s (9 s of CPU, 10 ms a step) and end at a
relative L2 error of 6.2e-4, against the target of 1e-2 within 5 minutes
(``--steps 1000``: 10 s, 4.5e-3). The hard constraint is what makes this
fast: ``--ansatz soft`` (boundary loss, weight 100) reaches only 3.0e-2 in the
same 2000 steps. ``--quick`` runs 500 steps (about 6 s, error 7e-2) and checks
nothing itself. Those times are the eager step's; the jitted step (the
default) gives the same numbers bit for bit in about 1 ms a step (3 to 5x
faster): 2 s for the 2000 steps.

Run:  python examples/pinn_poisson.py [--steps N] [--quick] [--ansatz soft]
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time

# The matrices here are small (256 x 32): OpenBLAS threads cost more than they
# give (4x slower per step on a busy 2-core machine), so ask for one BLAS
# thread unless the user chose a number. This must precede importing numpy.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import xgrad  # noqa: E402
import xgrad.numpy as xnp  # noqa: E402
from xgrad import optim  # noqa: E402

PI = math.pi


# ----- the problem -----

def source(X):
    """f at points X (n, 2): 2 pi^2 sin(pi x) sin(pi y)."""
    return 2 * PI ** 2 * np.sin(PI * X[:, 0]) * np.sin(PI * X[:, 1])


def exact(X):
    return np.sin(PI * X[:, 0]) * np.sin(PI * X[:, 1])


def sample_interior(rng, n):
    return rng.uniform(0.0, 1.0, size=(n, 2))


def sample_boundary(rng, n):
    """n points spread over the four edges."""
    t = rng.uniform(0.0, 1.0, size=n)
    side = rng.integers(0, 4, size=n)
    x = np.where(side == 0, 0.0, np.where(side == 1, 1.0, t))
    y = np.where(side == 2, 0.0, np.where(side == 3, 1.0, t))
    return np.stack([x, y], axis=1)


# ----- the network -----

def init_mlp(sizes, rng):
    """Glorot-normal weights, zero biases: a list of (W, b)."""
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        W = rng.standard_normal((fan_in, fan_out)) * math.sqrt(2.0 / (fan_in + fan_out))
        params.append((W, np.zeros(fan_out)))
    return params


def mlp(params, x):
    """N(x) for one point x of shape (2,): a scalar."""
    h = x
    for W, b in params[:-1]:
        h = xnp.tanh(h @ W + b)
    W, b = params[-1]
    return (h @ W + b)[0]


def make_u(ansatz):
    if ansatz == "hard":
        def u(params, x):
            return x[0] * (1.0 - x[0]) * x[1] * (1.0 - x[1]) * mlp(params, x)
    else:
        u = mlp
    return u


def make_loss(u, ansatz, bc_weight):
    def loss(params, Xi, fi, Xb):
        lap = xgrad.vmap(xgrad.laplacian(lambda x: u(params, x)))(Xi)   # Δu at each point
        residual = xnp.mean((lap + fi) ** 2)
        if ansatz == "hard":
            return residual
        ub = xgrad.vmap(lambda x: u(params, x))(Xb)
        return residual + bc_weight * xnp.mean(ub ** 2)
    return loss


def grid(n=101):
    g = np.linspace(0.0, 1.0, n)
    xx, yy = np.meshgrid(g, g, indexing="ij")
    return xx, yy, np.stack([xx.ravel(), yy.ravel()], axis=1)


def rel_l2(u, params, X, ref):
    pred = np.asarray(xgrad.vmap(lambda x: u(params, x))(X))
    return float(np.linalg.norm(pred - ref) / np.linalg.norm(ref)), pred


# ----- jit against eager -----

def jit_check(step, jitted, args, n=5):
    """Run the eager ``step`` and the ``jitted`` one on ``args``: the largest
    difference of their results, and eager time / jit time (medians of
    ``n`` calls each; the first jitted call stages, and is not timed)."""
    t0 = time.perf_counter()
    got = jitted(*args)
    staging = time.perf_counter() - t0
    want = step(*args)
    diff = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b)), initial=0.0))
               for a, b in zip(xgrad.tree.leaves(got), xgrad.tree.leaves(want)))

    def median_time(fn):
        times = []
        for _ in range(n):
            t = time.perf_counter()
            fn(*args)
            times.append(time.perf_counter() - t)
        return statistics.median(times)
    t_eager, t_jit = median_time(step), median_time(jitted)
    return diff, staging, t_eager, t_jit


# ----- training -----

def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=None,
                   help="Adam steps (default 2000; 500 with --quick)")
    p.add_argument("--quick", action="store_true", help="a short run (seconds) that checks nothing")
    p.add_argument("--points", type=int, default=256, help="interior collocation points per step")
    p.add_argument("--boundary-points", type=int, default=128,
                   help="boundary points per step (soft ansatz)")
    p.add_argument("--width", type=int, default=32)
    p.add_argument("--depth", type=int, default=2, help="hidden layers")
    p.add_argument("--lr", type=float, default=1e-2, help="initial learning rate")
    p.add_argument("--lr-final", type=float, default=1e-4, help="learning rate at the last step")
    p.add_argument("--ansatz", choices=("hard", "soft"), default="hard",
                   help="hard: u = x(1-x)y(1-y) N(x, y); soft: u = N and a boundary loss")
    p.add_argument("--bc-weight", type=float, default=100.0,
                   help="boundary loss weight (soft ansatz)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--plot", default="pinn_poisson.png",
                   help="PNG to write (if matplotlib is installed)")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--no-progress", action="store_true", help="no tqdm bar")
    p.add_argument("--no-jit", action="store_true", help="train with the eager step")
    args = p.parse_args(argv)
    if args.steps is None:
        args.steps = 500 if args.quick else 2000
    return args


def main(argv=None):
    args = parse(argv)
    rng = np.random.default_rng(args.seed)
    sizes = [2] + [args.width] * args.depth + [1]
    params = init_mlp(sizes, rng)
    u = make_u(args.ansatz)
    loss_fn = make_loss(u, args.ansatz, args.bc_weight)
    eager_step = xgrad.value_and_grad(loss_fn)
    jit_step = xgrad.jit(eager_step)
    value_and_grad = eager_step if args.no_jit else jit_step

    decay = args.lr_final / args.lr
    schedule = optim.exponential_decay(args.lr, decay, max(args.steps, 1))
    opt = optim.adam(schedule)
    state = opt.init(params)

    xx, yy, Xg = grid(101)
    ref = exact(Xg)
    err0, _ = rel_l2(u, params, Xg, ref)
    print(f"PINN for -Δu = f on the unit square: net {'-'.join(map(str, sizes))} tanh, "
          f"{args.ansatz} boundary condition, {args.points} collocation points/step, "
          f"{args.steps} Adam steps, lr {args.lr:g} -> {args.lr_final:g}, seed {args.seed}")
    print(f"initial relative L2 error: {err0:.4e}")
    Xc = sample_interior(np.random.default_rng(args.seed + 1), args.points)
    Xbc = sample_boundary(np.random.default_rng(args.seed + 2), args.boundary_points) \
        if args.ansatz == "soft" else None
    diff, staging, t_eager, t_jit = jit_check(eager_step, jit_step, (params, Xc, source(Xc), Xbc))
    print(f"jit: step staged in {1e3 * staging:.0f} ms; max |jit - eager| = {diff:.1e}; "
          f"step {1e3 * t_eager:.2f} ms eager, {1e3 * t_jit:.2f} ms jit: "
          f"speed-up {t_eager / t_jit:.1f}x")
    sys.stdout.flush()

    try:
        from tqdm import tqdm
    except ImportError:
        tqdm = None
        if not args.no_progress:
            print("(tqdm is not installed: no progress bar; pip install tqdm)")
    steps = range(args.steps)
    bar = tqdm(steps, desc="PINN", mininterval=0.5) if tqdm and not args.no_progress else None

    history = []
    t0, c0 = time.perf_counter(), time.process_time()
    for step in (bar if bar is not None else steps):
        Xi = sample_interior(rng, args.points)
        Xb = sample_boundary(rng, args.boundary_points) if args.ansatz == "soft" else None
        loss, grads = value_and_grad(params, Xi, source(Xi), Xb)
        params, state = opt.update(grads, state, params)
        history.append(float(loss))
        if bar is not None and step % 20 == 0:
            bar.set_postfix(loss=f"{history[-1]:.3e}")
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    if bar is not None:
        bar.close()

    err, pred = rel_l2(u, params, Xg, ref)
    print(f"final loss: {history[-1] if history else float('nan'):.4e}")
    print(f"final relative L2 error: {err:.4e}")
    print(f"error reduced by: {err0 / err:.1f}x")
    print(f"training time: {elapsed:.1f} s wall, {cpu:.1f} s CPU "
          f"({1e3 * elapsed / max(args.steps, 1):.1f} ms/step)")

    if not args.no_plot:
        plot(args.plot, xx, yy, pred.reshape(xx.shape), ref.reshape(xx.shape), history, err)
    return err0, err


def plot(path, xx, yy, pred, ref, history, err):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib is not installed: no plot; pip install matplotlib)")
        return
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.4))
    im = ax[0].pcolormesh(xx, yy, pred, shading="auto", cmap="viridis")
    ax[0].set_title("PINN solution u(x, y)")
    fig.colorbar(im, ax=ax[0])
    im = ax[1].pcolormesh(xx, yy, np.abs(pred - ref), shading="auto", cmap="magma")
    ax[1].set_title(f"|u - u*|  (relative L2 error {err:.2e})")
    fig.colorbar(im, ax=ax[1])
    for a in ax[:2]:
        a.set_xlabel("x")
        a.set_ylabel("y")
        a.set_aspect("equal")
    ax[2].semilogy(history)
    ax[2].set_xlabel("step")
    ax[2].set_title("loss")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"plot saved to {path}")


if __name__ == "__main__":
    main()
