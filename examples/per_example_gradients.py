"""Per-example gradients with ``vmap(grad(loss))``, and the DP-SGD step.

Differentially private SGD (Abadi et al., 2016) needs the gradient of every
example on its own: each is clipped to norm C, the clipped gradients are
averaged, Gaussian noise of scale sigma * C / batch is added, and the step is
taken with that. ``vmap(grad(loss), in_axes=(None, 0, 0))`` computes all the
per-example gradients of a batch in one batched pass (each matrix product of
the model becomes one product over the whole batch), instead of one backward
pass per example.

This script trains a small MLP classifier on a synthetic problem for a few
DP-SGD steps, and checks the first step against a Python loop over the
examples (``grad`` of each example's loss).

Run:  python examples/per_example_gradients.py [--noise 1.0]
"""
import argparse
import time

import numpy as np

import xgrad
import xgrad.numpy as xnp


def init_params(rng, sizes):
    """An MLP: a list of {"w", "b"} layers, Glorot-scaled."""
    return [{"w": rng.normal(size=(m, n)) * np.sqrt(2.0 / (m + n)), "b": np.zeros(n)}
            for m, n in zip(sizes[:-1], sizes[1:])]


def logits(params, x):
    h = x
    for layer in params[:-1]:
        h = xnp.tanh(xnp.matmul(h, layer["w"]) + layer["b"])
    return xnp.matmul(h, params[-1]["w"]) + params[-1]["b"]


def loss(params, x, y_onehot):
    """Cross-entropy of ONE example (x: features, y_onehot: its label as a
    one-hot row). NB: the label is one-hot rather than an integer index:
    under vmap an integer label would be a batched index, which xgrad does
    not gather by yet."""
    logp = xnp.special.log_softmax(logits(params, x), axis=-1)
    return -xnp.sum(y_onehot * logp)


# ----- the DP-SGD gradient: vmap(grad), per-example clipping, noise -----

per_example_grads = xgrad.vmap(xgrad.grad(loss), in_axes=(None, 0, 0))
per_example_norms = xgrad.vmap(xgrad.tree.global_norm)     # one norm per example


def dp_gradient(params, X, Y, clip, noise, rng):
    """Mean of the per-example gradients, each clipped to norm <= clip, plus
    Gaussian noise of standard deviation noise * clip / batch."""
    grads = per_example_grads(params, X, Y)          # leaves: (batch, *param.shape)
    norms = per_example_norms(grads)                 # (batch,)
    scale = xnp.minimum(1.0, clip / xnp.maximum(norms, 1e-12))

    def clipped_mean(g):
        s = xnp.reshape(scale, (-1,) + (1,) * (g.ndim - 1))
        m = xnp.mean(g * s, axis=0)
        if noise:
            m = m + (noise * clip / X.shape[0]) * rng.normal(size=m.shape)
        return m
    return xgrad.tree.map(clipped_mean, grads), norms


# ----- the same with a Python loop over the examples (the check) -----

def dp_gradient_loop(params, X, Y, clip):
    g_fn = xgrad.grad(loss)
    norms, clipped = [], []
    for x, y in zip(X, Y):
        g = g_fn(params, x, y)
        n = float(np.sqrt(sum(np.sum(leaf ** 2) for leaf in xgrad.tree.leaves(g))))
        norms.append(n)
        clipped.append(xgrad.tree.map(lambda leaf: leaf * min(1.0, clip / n), g))
    mean = xgrad.tree.map(lambda *ls: np.mean(np.stack(ls), axis=0), *clipped)
    return mean, np.array(norms)


def _best(fn, repeat=5):
    fn()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def make_data(rng, n, dim, classes):
    centers = rng.normal(size=(classes, dim)) * 2.0
    labels = rng.integers(0, classes, size=n)
    X = centers[labels] + rng.normal(size=(n, dim))
    return X, np.eye(classes)[labels], labels


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clip", type=float, default=4.0, help="per-example norm bound C")
    ap.add_argument("--noise", type=float, default=0.5, help="noise multiplier sigma (0: none)")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--lr", type=float, default=0.5)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    dim, classes, batch = 10, 3, 64
    X, Y, labels = make_data(rng, 512, dim, classes)
    params = init_params(rng, [dim, 32, 32, classes])

    # 1. one step, vmap against the loop
    xb, yb = X[:batch], Y[:batch]
    g_vmap, norms = dp_gradient(params, xb, yb, args.clip, 0.0, rng)
    g_loop, norms_loop = dp_gradient_loop(params, xb, yb, args.clip)
    diff = max(np.max(np.abs(np.asarray(a) - b))
               for a, b in zip(xgrad.tree.leaves(g_vmap), xgrad.tree.leaves(g_loop)))
    diff = max(diff, np.max(np.abs(np.asarray(norms) - norms_loop)))
    np.set_printoptions(precision=3, suppress=True, linewidth=100)
    print(f"per-example gradient norms of the first {batch} examples (clip C = {args.clip}):")
    print(np.asarray(norms))
    print(f"{int(np.sum(np.asarray(norms) > args.clip))} of {batch} examples are clipped")
    print(f"max |vmap - loop| over the clipped mean gradient and the norms: {diff:.1e}")
    assert diff < 1e-10
    t_vmap = _best(lambda: per_example_grads(params, xb, yb))
    t_loop = _best(lambda: [xgrad.grad(loss)(params, x, y) for x, y in zip(xb, yb)])
    t_step = _best(lambda: dp_gradient(params, xb, yb, args.clip, args.noise, rng))
    print(f"time for the {batch} per-example gradients: vmap(grad) {t_vmap * 1e3:.2f} ms, "
          f"Python loop of grad {t_loop * 1e3:.2f} ms ({t_loop / t_vmap:.0f}x); "
          f"whole DP gradient {t_step * 1e3:.2f} ms\n")

    # 2. a few DP-SGD steps
    acc = lambda p: float(np.mean(np.argmax(np.asarray(logits(p, X)), axis=1) == labels))
    print(f"DP-SGD, batch {batch}, noise multiplier {args.noise}: accuracy {acc(params):.2f} at start")
    for step in range(1, args.steps + 1):
        idx = rng.choice(X.shape[0], size=batch, replace=False)
        g, _ = dp_gradient(params, X[idx], Y[idx], args.clip, args.noise, rng)
        params = xgrad.tree.map(lambda p, d: p - args.lr * d, params, g)
        if step % 10 == 0:
            print(f"  step {step:3d}: accuracy {acc(params):.2f}")


if __name__ == "__main__":
    main()
