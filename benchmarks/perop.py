"""Per-op overhead: the gradient of 1000 cheap elementwise ops on a length-8
vector, where the array work is negligible and only the library's Python
overhead per operation shows.

    f(x) = sum(chain(x)),  chain = (sin, *1.1, +0.1, tanh, exp, *0.5, cos, -0.3) x 125

Same workload and data as the ``perop`` workload of the peers harness
(the peers harness, outside this repository). Run: ``python benchmarks/perop.py`` (seconds). Needs xgrad
and numpy; autograd, jax and torch are timed too when importable.
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _bench import Table, compare, header, optional, parser, profile, versions  # noqa: E402

CYCLE = (("sin", None), ("mul", 1.1), ("add", 0.1), ("tanh", None),
         ("exp", None), ("mul", 0.5), ("cos", None), ("add", -0.3))
REPEAT = 125
N = 8
OPS = [op for _ in range(REPEAT) for op in CYCLE]      # 1000 ops (the final sum not counted)


def make_x():
    return np.random.RandomState(1234).uniform(-1, 1, N)


def chain(ns, ops=OPS):
    """f(x) = sum(chain(x)) written against a numpy-like namespace ``ns``."""
    fns = {"sin": ns.sin, "cos": ns.cos, "tanh": ns.tanh, "exp": ns.exp}
    total = ns.sum

    def f(x):
        h = x
        for name, c in ops:
            if name == "mul":
                h = h * c
            elif name == "add":
                h = h + c
            else:
                h = fns[name](h)
        return total(h)
    return f


def manual_grad(x, ops=OPS):
    """Hand-written reverse mode in numpy: store each local derivative on the
    way forward, multiply them in reverse (the floor for a tape-based grad)."""
    h = x
    local = []
    for name, c in ops:
        if name == "mul":
            local.append(c)
            h = h * c
        elif name == "add":
            h = h + c
        elif name == "sin":
            local.append(np.cos(h))
            h = np.sin(h)
        elif name == "cos":
            local.append(-np.sin(h))
            h = np.cos(h)
        elif name == "tanh":
            h = np.tanh(h)
            local.append(1.0 - h * h)
        else:  # exp
            h = np.exp(h)
            local.append(h)
    g = np.ones_like(x)
    for d in reversed(local):
        g = g * d
    return g


def main(argv=None):
    args = parser(__doc__.splitlines()[0]).parse_args(argv)
    import xgrad
    import xgrad.numpy as xnp
    ag = optional("autograd")
    jax = optional("jax")
    torch = optional("torch")
    header(f"perop: grad of {len(OPS)} elementwise ops on a length-{N} vector",
           versions([("xgrad", xgrad), ("autograd", ag), ("jax", jax), ("torch", torch)]))
    x = make_x()
    want = [manual_grad(x)]
    ok = lambda r: compare([r], want)                          # noqa: E731
    t = Table(args, n_ops=len(OPS))

    t.run("numpy:fwd", lambda f=chain(np): f(x))
    t.run("numpy:manual-grad", lambda: manual_grad(x), ok)
    t.run("xgrad:fwd", lambda f=chain(xnp): f(x))
    g = xgrad.grad(chain(xnp))
    t.run("xgrad:grad", lambda: g(x), ok)

    if ag is not None:
        import autograd.numpy as anp
        t.run("autograd:fwd", lambda f=chain(anp): f(x))
        ga = ag.grad(chain(anp))
        t.run("autograd:grad", lambda: ga(x), ok)
    if jax is not None:
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        xj = jnp.asarray(x)
        gj = jax.grad(chain(jnp))
        t.run("jax:grad-eager", lambda: gj(xj).block_until_ready(), ok)
        gjit = jax.jit(gj)
        t.run("jax:grad-jit", lambda: gjit(xj).block_until_ready(), ok)
    if torch is not None:
        tfns = chain(torch)

        def tgrad():
            xt = torch.tensor(x, requires_grad=True)
            tfns(xt).backward()
            return xt.grad
        t.run("torch:grad", tgrad, lambda r: compare([r.numpy()], want))
    if args.profile:
        profile(lambda: g(x))


if __name__ == "__main__":
    main()
