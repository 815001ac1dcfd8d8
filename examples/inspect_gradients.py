"""Looking inside a gradient with xgrad.debug.

A small two-layer tanh network shows:

1. ``make_tape``: the recorded program of the loss and of its gradient;
2. ``hook``: the cotangent flowing into the hidden layer, then the same
   gradient with that cotangent clipped;
3. ``tag`` + ``grad_intermediates``: d loss / d (pre-activation), the
   ``retain_grad`` of PyTorch;
4. ``grad_report``: per-parameter gradient norms, with a dead parameter
   flagged as vanishing;
5. ``nan_check``: a NaN in the backward pass traced to ``sqrt`` and to the
   line of this file that called it;
6. ``make_graph``: the program as a Graphviz graph written to a file (the
   DOT text when graphviz is not installed).

Run: ``python examples/inspect_gradients.py [output-dir]`` (about a second).
"""
import os
import sys
import tempfile
import warnings

import numpy as np

import xgrad
import xgrad.numpy as xnp
from xgrad import debug

rng = np.random.default_rng(0)
params = {"W1": rng.normal(size=(3, 4)) / 2, "W2": rng.normal(size=(4, 1)) / 2,
          "unused": np.ones(2)}
X = rng.normal(size=(5, 3))
Y = rng.normal(size=(5, 1))


def loss(p, x, y, clip=None, seen=None):
    pre = debug.tag(x @ p["W1"], "pre")
    h = xnp.tanh(pre)
    if seen is not None or clip is not None:
        def look(g):
            if seen is not None:
                seen.append(g)
            return None if clip is None else xnp.clip(g, -clip, clip)
        h = debug.hook(h, look)
    out = h @ p["W2"]
    return xnp.mean((out - y) ** 2) + 0.0 * xnp.sum(p["unused"])


def main(outdir):
    np.set_printoptions(precision=4, suppress=True)

    print("== 1. the recorded program (make_tape)")
    print(debug.make_tape(loss)(params, X, Y))
    n = len(debug.make_tape(xgrad.grad(loss))(params, X, Y).eqns)
    print(f"(the gradient's tape has {n} operations: forward and backward pass)\n")

    print("== 2. hook: the cotangent flowing into the hidden layer")
    seen = []
    g = xgrad.grad(loss)(params, X, Y, seen=seen)
    print("d loss / d h, first row:", seen[0][0], " max |.|:", float(np.abs(seen[0]).max()))
    g_clip = xgrad.grad(loss)(params, X, Y, clip=0.05)
    print("dW1[0] plain  :", g["W1"][0])
    print("dW1[0] clipped:", g_clip["W1"][0], "(cotangent clipped to [-0.05, 0.05])\n")

    print("== 3. tag + grad_intermediates: d loss / d pre-activation")
    g2, inter = debug.grad_intermediates(loss)(params, X, Y)
    print("d loss / d pre, first row:", inter["pre"][0])
    print("check: X.T @ d/d pre == dW1:", np.allclose(X.T @ inter["pre"], g2["W1"]), "\n")

    print("== 4. grad_report")
    print(debug.grad_report(g))
    print()

    print("== 5. nan_check: where does the NaN come from?")

    def bad_loss(p):
        r = xnp.sum(p["W1"] ** 2, axis=1) - xnp.sum(p["W1"][0] ** 2)   # r[0] == 0 exactly
        return xnp.sum(xnp.sqrt(r * r))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        g_bad = xgrad.grad(bad_loss)(params)
        print("without nan_check, dW1 row 0:", g_bad["W1"][0])
        try:
            with debug.nan_check():
                xgrad.grad(bad_loss)(params)
        except FloatingPointError as e:
            print("with nan_check:", e)
    print()

    print("== 6. make_graph: the program as a graph file")
    path = debug.make_graph(loss, filename=os.path.join(outdir, "loss_graph"))(params, X, Y)
    with open(path) as f:
        head = f.read().splitlines()[:3]
    print("written:", path)
    print("\n".join(head) + "\n  ...")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(sys.argv[1])
    else:
        with tempfile.TemporaryDirectory() as d:
            main(d)
