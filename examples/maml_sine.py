"""Model-agnostic meta-learning (MAML) on Finn et al.'s sine regression (2017).

A task is y = A sin(x - phase) with A ~ U[0.1, 5], phase ~ U[0, pi],
x ~ U[-5, 5]; the learner sees K = 10 points of a new task and must fit it
after one or a few gradient steps.

What it does:
  * A 1-40-40-1 ReLU network. Meta-training: for each of 25 tasks per
    meta-batch, one inner SGD step (lr 0.01) on 10 support points, then the
    MSE of the adapted network on 10 query points of the same task. The meta-
    gradient is ``xgrad.grad`` of the mean query loss *through* the inner
    update ``params - lr * grad(support_loss)(params)``: second-order MAML,
    the gradient of a gradient (a Hessian-vector product per task, never
    formed explicitly). The 25 tasks are one ``xgrad.vmap`` call, not a loop.
    ``--first-order`` puts ``xgrad.stop_gradient`` on the inner gradient
    (FOMAML: the meta-gradient is the query gradient at the adapted weights).
  * Adam (``xgrad.optim``) as the meta-optimiser. Finn et al. use lr 1e-3
    for 70 000 iterations; to get there in 4 000 this uses 3e-3 with a cosine
    decay to 3e-4, and initial weights 0.3 times He's (see ``init_mlp``).
  * Baseline: the same network pretrained (Adam, same schedule, number of
    steps and tasks) to regress on the task mixture, then fine-tuned by SGD
    like MAML, with its step size tuned on validation tasks (as in the paper:
    at MAML's lr 0.01 the pretrained net can overshoot).
  * The training steps (``value_and_grad`` of the meta-loss and of the
    pretraining loss) run under ``xgrad.jit``: staged once, replayed each
    step (fresh tasks, same shapes). Before training, the jitted and the eager
    meta-gradient are run on one meta-batch: the largest difference and the
    speed-up (median of 5 steps each) are printed. ``--no-jit`` trains eagerly.
  * Report: MSE on 100 query points of 200 held-out tasks after 0, 1 and 10
    fine-tuning steps on K = 10 support points, for MAML and the baseline;
    a PNG of a few adapted fits if matplotlib is installed.

Measured (numpy, 2 busy CPU cores, seed 0): the default 4 000 meta-steps take
about 17 s of CPU (about a minute of wall time on the busy machine), the
pretraining 2.5 s. Post-adaptation MSE after 0 / 1 / 10 steps: MAML 2.99 /
0.51 / 0.17, pretrained 2.97 / 2.13 / 1.51. ``--first-order`` costs a quarter
less per meta-step (12 s of CPU) and adapts almost as well on this problem
(3.05 / 0.52 / 0.19). ``--quick`` (800 meta-steps, about 4 s of CPU) gives
3.07 / 1.51 / 1.02 against 3.15 / 2.69 / 2.36 and checks nothing itself.
Those times are eager, with BLAS threads; with one BLAS thread (now the
default) and the jitted steps (the default; the same numbers bit for bit)
the 4 000 meta-steps take about 5 s, a meta-step 2x faster than eager.

Run:  python examples/maml_sine.py [--steps N] [--first-order] [--quick]
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time

# The matrices here are small (10 x 40): OpenBLAS threads cost far more than
# they give (a meta-step takes 10x longer on a busy 2-core machine), so ask
# for one BLAS thread unless the user chose a number. Before importing numpy.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import xgrad  # noqa: E402
import xgrad.numpy as xnp  # noqa: E402
from xgrad import optim  # noqa: E402


# ----- tasks -----

def sample_tasks(rng, n_tasks, n_points):
    """Amplitudes, phases and n_points (x, y) pairs per task: x (n_tasks, n_points, 1)."""
    amp = rng.uniform(0.1, 5.0, size=(n_tasks, 1, 1))
    phase = rng.uniform(0.0, math.pi, size=(n_tasks, 1, 1))
    x = rng.uniform(-5.0, 5.0, size=(n_tasks, n_points, 1))
    return amp, phase, x, amp * np.sin(x - phase)


# ----- the network -----

def init_mlp(sizes, rng, scale=0.3):
    """He-normal weights shrunk by ``scale``, zero biases. Inputs span
    [-5, 5], so full-size He weights make ReLU features of size ~10 and a
    curvature at which the inner step (lr 0.01) overshoots; small weights
    start MAML where that step is stable (Finn et al. use std 0.01)."""
    return [(rng.standard_normal((fi, fo)) * scale * math.sqrt(2.0 / fi), np.zeros(fo))
            for fi, fo in zip(sizes[:-1], sizes[1:])]


def net(params, x):
    """x (n, 1) -> (n, 1)."""
    h = x
    for W, b in params[:-1]:
        h = xnp.maximum(h @ W + b, 0.0)
    W, b = params[-1]
    return h @ W + b


def mse(params, x, y):
    return xnp.mean((net(params, x) - y) ** 2)


def make_inner(inner_lr, first_order):
    """One SGD step on a task's support set (differentiable unless first-order)."""
    def inner(params, x, y):
        g = xgrad.grad(mse)(params, x, y)
        if first_order:
            g = xgrad.tree.map(xgrad.stop_gradient, g)
        return xgrad.tree.map(lambda p, gp: p - inner_lr * gp, params, g)
    return inner


def make_meta_loss(inner):
    def task_loss(params, xs, ys, xq, yq):
        return mse(inner(params, xs, ys), xq, yq)

    def meta_loss(params, xs, ys, xq, yq):
        per_task = xgrad.vmap(task_loss, in_axes=(None, 0, 0, 0, 0))(params, xs, ys, xq, yq)
        return xnp.mean(per_task)
    return meta_loss


def pretrain_loss(params, x, y):
    """The baseline: plain regression on points of many tasks at once."""
    n = x.shape[0] * x.shape[1]
    return mse(params, xnp.reshape(x, (n, 1)), xnp.reshape(y, (n, 1)))


def fine_tune_curve(params, xs, ys, xq, yq, lr, steps):
    """MSE on the query points after 0..steps SGD steps on the support set,
    averaged over tasks (tasks batched with vmap)."""
    def one_task(xs, ys, xq, yq):
        p = params
        losses = [mse(p, xq, yq)]
        for _ in range(steps):
            g = xgrad.grad(mse)(p, xs, ys)
            p = xgrad.tree.map(lambda a, b: a - lr * b, p, g)
            losses.append(mse(p, xq, yq))
        return xnp.stack(losses)
    return np.mean(np.asarray(xgrad.vmap(one_task)(xs, ys, xq, yq)), axis=0)


def adapted_predictions(params, xs, ys, xplot, lr, steps):
    def one_task(xs, ys):
        p = params
        for _ in range(steps):
            g = xgrad.grad(mse)(p, xs, ys)
            p = xgrad.tree.map(lambda a, b: a - lr * b, p, g)
        return net(p, xplot)[:, 0]
    return np.asarray(xgrad.vmap(one_task)(xs, ys))


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

BASELINE_LRS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02)


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=None,
                   help="meta-training steps (default 4000; 800 with --quick)")
    p.add_argument("--quick", action="store_true", help="a short run that checks nothing")
    p.add_argument("--first-order", action="store_true",
                   help="first-order MAML: stop_gradient on the inner gradient")
    p.add_argument("--meta-batch", type=int, default=25, help="tasks per meta-step")
    p.add_argument("--shots", type=int, default=10, help="K: support (and query) points per task")
    p.add_argument("--inner-lr", type=float, default=0.01)
    p.add_argument("--meta-lr", type=float, default=3e-3,
                   help="Adam learning rate, cosine-decayed to a tenth (default 3e-3)")
    p.add_argument("--width", type=int, default=40)
    p.add_argument("--test-tasks", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--plot", default="maml_sine.png",
                   help="PNG to write (if matplotlib is installed)")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--no-jit", action="store_true", help="train with the eager steps")
    args = p.parse_args(argv)
    if args.steps is None:
        args.steps = 800 if args.quick else 4000
    return args


def train(loss_fn, params, steps, lr, sample, label, jit=True):
    opt = optim.adam(optim.cosine_decay(lr, max(steps, 1), alpha=0.1))
    state = opt.init(params)
    value_and_grad = xgrad.value_and_grad(loss_fn)
    if jit:
        value_and_grad = xgrad.jit(value_and_grad)
    t0, c0 = time.perf_counter(), time.process_time()
    for step in range(steps):
        loss, g = value_and_grad(params, *sample())
        params, state = opt.update(g, state, params)
        if (step + 1) % max(steps // 4, 1) == 0:
            print(f"  {label} step {step + 1:5d}/{steps}: loss {float(loss):.4f}")
            sys.stdout.flush()
    return params, (time.perf_counter() - t0, time.process_time() - c0)


def main(argv=None):
    args = parse(argv)
    rng = np.random.default_rng(args.seed)
    sizes = [1, args.width, args.width, 1]
    init = init_mlp(sizes, rng)
    K, B = args.shots, args.meta_batch
    kind = "first-order" if args.first_order else "second-order"
    print(f"MAML ({kind}) on sine regression: net {'-'.join(map(str, sizes))} ReLU, "
          f"{K}-shot, meta-batch {B}, inner lr {args.inner_lr:g}, {args.steps} meta-steps, "
          f"seed {args.seed}")

    def maml_batch():
        _, _, x, y = sample_tasks(rng, B, 2 * K)     # K support + K query points per task
        return x[:, :K], y[:, :K], x[:, K:], y[:, K:]

    def mixture_batch():
        _, _, x, y = sample_tasks(rng, B, K)
        return x, y

    meta_loss = make_meta_loss(make_inner(args.inner_lr, args.first_order))
    eager_step = xgrad.value_and_grad(meta_loss)
    _, _, xc, yc = sample_tasks(np.random.default_rng(args.seed + 1), B, 2 * K)
    diff, staging, t_eager, t_jit = jit_check(
        eager_step, xgrad.jit(eager_step), (init, xc[:, :K], yc[:, :K], xc[:, K:], yc[:, K:]))
    print(f"jit: meta-gradient staged in {1e3 * staging:.0f} ms; max |jit - eager| = "
          f"{diff:.1e}; step {1e3 * t_eager:.2f} ms eager, {1e3 * t_jit:.2f} ms jit: "
          f"speed-up {t_eager / t_jit:.1f}x")
    jit = not args.no_jit
    maml_params, t_maml = train(meta_loss, init, args.steps, args.meta_lr, maml_batch, "MAML",
                                jit)
    base_params, t_base = train(pretrain_loss, init, args.steps, args.meta_lr, mixture_batch,
                                "pretrained", jit)
    print(f"meta-training {t_maml[0]:.1f} s wall ({t_maml[1]:.1f} s CPU), "
          f"pretraining {t_base[0]:.1f} s wall ({t_base[1]:.1f} s CPU)")

    # held-out tasks: K support points to adapt on, 100 query points to score
    test_rng = np.random.default_rng(args.seed + 12345)
    amp, phase, x, y = sample_tasks(test_rng, args.test_tasks, K + 100)
    xs, ys, xq, yq = x[:, :K], y[:, :K], x[:, K:], y[:, K:]
    # the baseline's fine-tuning step size is tuned on separate validation
    # tasks (as in Finn et al.): the pretrained net is sharp, and at MAML's
    # lr it can overshoot
    val_rng = np.random.default_rng(args.seed + 54321)
    _, _, xv, yv = sample_tasks(val_rng, 100, K + 100)
    best = None
    for lr in BASELINE_LRS:
        with np.errstate(all="ignore"):      # a too-large step may overflow: skip it
            c = fine_tune_curve(base_params, xv[:, :K], yv[:, :K], xv[:, K:], yv[:, K:], lr, 1)
        if np.isfinite(c[1]) and (best is None or c[1] < best[1]):
            best = (lr, c[1])
    base_lr = best[0] if best is not None else args.inner_lr
    print(f"baseline fine-tuning lr (best 1-step MSE on 100 validation tasks): {base_lr:g}")
    curves = {"MAML": fine_tune_curve(maml_params, xs, ys, xq, yq, args.inner_lr, 10),
              "pretrained": fine_tune_curve(base_params, xs, ys, xq, yq, base_lr, 10)}
    print(f"\npost-adaptation MSE on {args.test_tasks} held-out tasks ({K}-shot; "
          f"SGD lr {args.inner_lr:g} for MAML, {base_lr:g} for the baseline):")
    print(f"  {'steps':>5s} {'MAML':>10s} {'pretrained':>11s}")
    for s in (0, 1, 10):
        print(f"  {s:5d} {curves['MAML'][s]:10.4f} {curves['pretrained'][s]:11.4f}")
    for s in (0, 1, 10):
        print(f"MSE after {s} steps: MAML {curves['MAML'][s]:.4f} "
              f"pretrained {curves['pretrained'][s]:.4f}")

    if not args.no_plot:
        plot(args, maml_params, base_params, base_lr, amp, phase, xs, ys)
    return curves


def plot(args, maml_params, base_params, base_lr, amp, phase, xs, ys):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib is not installed: no plot; pip install matplotlib)")
        return
    n = 4
    xplot = np.linspace(-5.0, 5.0, 200)[:, None]
    fig, axes = plt.subplots(1, n, figsize=(4 * n, 3.4), sharey=True)
    preds = {}
    lrs = {"MAML": args.inner_lr, "pretrained": base_lr}
    for name, p in (("MAML", maml_params), ("pretrained", base_params)):
        for s in (0, 1, 10):
            preds[name, s] = adapted_predictions(p, xs[:n], ys[:n], xplot, lrs[name], s)
    for i, ax in enumerate(axes):
        ax.plot(xplot[:, 0], amp[i, 0, 0] * np.sin(xplot[:, 0] - phase[i, 0, 0]), "k", lw=2,
                label="true")
        ax.plot(xs[i, :, 0], ys[i, :, 0], "k^", label=f"{args.shots} shots")
        ax.plot(xplot[:, 0], preds["MAML", 0][i], "C0:", label="MAML, 0 steps")
        ax.plot(xplot[:, 0], preds["MAML", 1][i], "C0--", label="MAML, 1 step")
        ax.plot(xplot[:, 0], preds["MAML", 10][i], "C0-", label="MAML, 10 steps")
        ax.plot(xplot[:, 0], preds["pretrained", 10][i], "C3-", label="pretrained, 10 steps")
        ax.set_title(f"A = {amp[i, 0, 0]:.2f}, phase = {phase[i, 0, 0]:.2f}")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.plot, dpi=110)
    plt.close(fig)
    print(f"plot saved to {args.plot}")


if __name__ == "__main__":
    main()
