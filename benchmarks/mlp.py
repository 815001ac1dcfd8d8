"""MLP gradient: a 784-512-512-10 tanh MLP, batch 128, softmax cross-entropy,
gradient with respect to all weights and biases (not the input batch), in
float64 and float32.

Same workload and data as ``mlp_f64``/``mlp_f32`` of the peers harness
(the peers harness, outside this repository). The time is dominated by the matrix products, so the
ratio to the plain-numpy forward is the figure to watch: a hand-written numpy
backward (``numpy:manual-grad``) is the floor (about 3 forward passes of
matmul work). Run: ``python benchmarks/mlp.py`` (seconds). Needs xgrad and
numpy; autograd, jax and torch are timed too when importable. BLAS threads
are not pinned: set OPENBLAS_NUM_THREADS=1 (or OMP_NUM_THREADS=1) yourself
for figures comparable with the peers harness, which runs on one thread.
"""
from __future__ import annotations

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _bench import Table, compare, header, optional, parser, profile, versions  # noqa: E402

SIZES = (784, 512, 512, 10)
BATCH = 128


def make_data(dtype):
    rng = np.random.RandomState(1234)
    params = []
    for fi, fo in zip(SIZES[:-1], SIZES[1:]):
        params.append((rng.standard_normal((fi, fo)) / math.sqrt(fi)).astype(dtype))
        params.append((0.1 * rng.standard_normal(fo)).astype(dtype))
    X = rng.standard_normal((BATCH, SIZES[0])).astype(dtype)
    y = rng.randint(0, SIZES[-1], size=BATCH).astype(np.int64)
    return params, X, y


def numpy_loss(params, X, y):
    W1, b1, W2, b2, W3, b3 = params
    h = np.tanh(X @ W1 + b1)
    h = np.tanh(h @ W2 + b2)
    z = h @ W3 + b3
    m = z.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(z - m).sum(axis=1))
    return np.mean(lse - z[np.arange(z.shape[0]), y])


def manual_grad(params, X, y):
    """Hand-written backpropagation in numpy: the floor for any autodiff."""
    W1, b1, W2, b2, W3, b3 = params
    h1 = np.tanh(X @ W1 + b1)
    h2 = np.tanh(h1 @ W2 + b2)
    z = h2 @ W3 + b3
    e = np.exp(z - z.max(axis=1, keepdims=True))
    dz = e / e.sum(axis=1, keepdims=True)
    dz[np.arange(z.shape[0]), y] -= 1
    dz /= z.shape[0]
    da2 = (dz @ W3.T) * (1 - h2 * h2)
    da1 = (da2 @ W2.T) * (1 - h1 * h1)
    return [X.T @ da1, da1.sum(0), h1.T @ da2, da2.sum(0), h2.T @ dz, dz.sum(0)]


def make_loss(ns):
    """The loss against a numpy-like namespace ``ns`` (logsumexp by hand,
    labels as a one-hot matrix: the form the peers harness uses for xgrad)."""
    def loss(params, X, onehot):
        W1, b1, W2, b2, W3, b3 = params
        h = ns.tanh(X @ W1 + b1)
        h = ns.tanh(h @ W2 + b2)
        z = h @ W3 + b3
        m = ns.max(z, axis=1, keepdims=True)
        lse = ns.log(ns.sum(ns.exp(z - m), axis=1)) + m[:, 0]
        return ns.mean(lse - ns.sum(z * onehot, axis=1))
    return loss


def bench(dtype, args, mods):
    xgrad, ag, jax, torch = mods
    import xgrad.numpy as xnp
    params, X, y = make_data(dtype)
    onehot = np.eye(SIZES[-1], dtype=dtype)[y]
    want = [np.asarray(g, dtype=np.float64) for g in manual_grad(params, X, y)]
    ok = lambda r: compare(r, want, dtype=np.dtype(dtype))   # noqa: E731
    print(f"\n--- {np.dtype(dtype).name} ---")
    t = Table(args)

    t.run("numpy:fwd", lambda: numpy_loss(params, X, y))
    t.run("numpy:manual-grad", lambda: manual_grad(params, X, y), ok)
    g = xgrad.grad(make_loss(xnp))
    t.run("xgrad:grad", lambda: g(params, X, onehot), ok)

    if ag is not None:
        import autograd.numpy as anp
        ga = ag.grad(make_loss(anp))
        t.run("autograd:grad", lambda: ga(params, X, onehot), ok)
    if jax is not None:
        import jax.numpy as jnp
        pj, Xj, ohj = [jnp.asarray(p) for p in params], jnp.asarray(X), jnp.asarray(onehot)
        gj = jax.grad(make_loss(jnp))

        def block(r):
            return [a.block_until_ready() for a in r]
        t.run("jax:eager", lambda: block(gj(pj, Xj, ohj)), ok)
        gjit = jax.jit(gj)
        t.run("jax:jit", lambda: block(gjit(pj, Xj, ohj)), ok)
    if torch is not None:
        def tl(params, X, onehot):        # torch.max(.., dim) returns (values, indices)
            W1, b1, W2, b2, W3, b3 = params
            h = torch.tanh(torch.tanh(X @ W1 + b1) @ W2 + b2)
            z = h @ W3 + b3
            m = torch.amax(z, dim=1, keepdim=True)
            lse = torch.log(torch.exp(z - m).sum(dim=1)) + m[:, 0]
            return (lse - (z * onehot).sum(dim=1)).mean()
        Xt, oht = torch.from_numpy(X), torch.from_numpy(onehot)
        pt = [torch.from_numpy(p.copy()).requires_grad_() for p in params]

        def tgrad():
            for p in pt:
                p.grad = None
            tl(pt, Xt, oht).backward()
            return [p.grad for p in pt]
        t.run("torch:backward", tgrad, lambda r: ok([a.numpy() for a in r]))
    if args.profile:
        profile(lambda: g(params, X, onehot))


def main(argv=None):
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--dtype", choices=("float64", "float32", "both"), default="both")
    args = p.parse_args(argv)
    import xgrad
    ag, jax, torch = optional("autograd"), optional("jax"), optional("torch")
    if jax is not None:
        jax.config.update("jax_enable_x64", True)     # float32 inputs stay float32
    header(f"mlp: grad of a {'-'.join(map(str, SIZES))} tanh MLP, batch {BATCH}",
           versions([("xgrad", xgrad), ("autograd", ag), ("jax", jax), ("torch", torch)]))
    dtypes = ("float64", "float32") if args.dtype == "both" else (args.dtype,)
    for dt in dtypes:
        bench(np.dtype(dt).type, args, (xgrad, ag, jax, torch))


if __name__ == "__main__":
    main()
