"""xgrad on cupy against PyTorch on CUDA: the peers' workloads on a GPU.

The workloads, sizes and data of the peers harness (kept outside this
repository): MLP gradient (784-512-512-10 tanh, batch 128, float64 and
float32), per-op overhead (grad of 1000 cheap ops on 8 numbers), Hessian-vector
product of the MLP loss, PINN loss gradient (2-64-64-64-1, 1024 points,
Laplacian), MAML meta-gradient (1-40-40-1, 5 inner steps, 4 tasks), full
200x200 Hessian. Implementations:

  * ``xgrad:cupy``    xgrad on cupy arrays;
  * ``xgrad:torch``   xgrad on torch CUDA tensors (array-api-compat);
  * ``torch:eager``   torch.func (grad, jvp, vmap, hessian), eager;
  * ``torch:compile`` the same function under ``torch.compile`` (first call,
    compilation, reported apart; a failure to compile is reported, not fatal).

Every result is copied to the host and checked against the first
implementation's before timing. Times are medians over ``--repeat`` repeats of
at least ``--min-time`` seconds, the device synchronised after every call.

    python benchmarks/gpu_peers.py [--only mlp_f64 pinn] [--md docs/gpu.md]
    python benchmarks/gpu_peers.py --cpu --quick     # smoke test without a GPU (numpy, torch CPU)
"""
from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import xgrad  # noqa: E402
import xgrad.numpy as xnp  # noqa: E402

# ----------------------------------------------------------------- workloads
MLP_SIZES, MLP_BATCH = (784, 512, 512, 10), 128
PEROP_CYCLE = (("sin", None), ("mul", 1.1), ("add", 0.1), ("tanh", None),
               ("exp", None), ("mul", 0.5), ("cos", None), ("add", -0.3))
PEROP_OPS = [op for _ in range(125) for op in PEROP_CYCLE]
PINN_SIZES, PINN_POINTS = (2, 64, 64, 64, 1), 1024
MAML_SIZES, MAML_STEPS, MAML_LR, MAML_K, MAML_TASKS = (1, 40, 40, 1), 5, 0.01, 10, 4
HESS_N, HESS_M = 200, 300
WORKLOADS = ("mlp_f64", "mlp_f32", "perop", "hvp", "pinn", "maml", "hessian")
RTOL = {"mlp_f32": 2e-4, "hvp": 1e-6, "perop": 1e-9, "hessian": 1e-9}


def _init_mlp(rng, sizes, dtype):
    params = []
    for fi, fo in zip(sizes[:-1], sizes[1:]):
        params.append((rng.standard_normal((fi, fo)) / math.sqrt(fi)).astype(dtype))
        params.append((0.1 * rng.standard_normal(fo)).astype(dtype))
    return params


def make_data(key):
    """The peers' deterministic data (numpy, RandomState(1234))."""
    rng = np.random.RandomState(1234)
    if key in ("mlp_f64", "mlp_f32", "hvp"):
        dtype = np.float32 if key == "mlp_f32" else np.float64
        params = _init_mlp(rng, MLP_SIZES, dtype)
        X = rng.standard_normal((MLP_BATCH, MLP_SIZES[0])).astype(dtype)
        y = rng.randint(0, MLP_SIZES[-1], size=MLP_BATCH)
        d = dict(params=params, X=X, onehot=np.eye(MLP_SIZES[-1], dtype=dtype)[y])
        if key == "hvp":
            d["theta"] = np.concatenate([p.ravel() for p in params])
            d["v"] = rng.standard_normal(d["theta"].shape[0])
            d["shapes"] = [p.shape for p in params]
        return d
    if key == "perop":
        return dict(x=rng.uniform(-1, 1, 8))
    if key == "pinn":
        params = _init_mlp(rng, PINN_SIZES, np.float64)
        X = rng.uniform(0.0, 1.0, (PINN_POINTS, 2))
        F = 2 * np.pi ** 2 * np.sin(np.pi * X[:, 0]) * np.sin(np.pi * X[:, 1])
        return dict(params=params, X=X, F=F)
    if key == "maml":
        params = _init_mlp(rng, MAML_SIZES, np.float64)
        amp = rng.uniform(0.1, 5.0, MAML_TASKS)
        phase = rng.uniform(0.0, np.pi, MAML_TASKS)
        xs = rng.uniform(-5, 5, (MAML_TASKS, MAML_K, 1))
        xq = rng.uniform(-5, 5, (MAML_TASKS, MAML_K, 1))
        ys = amp[:, None, None] * np.sin(xs + phase[:, None, None])
        yq = amp[:, None, None] * np.sin(xq + phase[:, None, None])
        return dict(params=params, xs=xs, ys=ys, xq=xq, yq=yq)
    if key == "hessian":
        A = rng.standard_normal((HESS_M, HESS_N)) / math.sqrt(HESS_N)
        return dict(A=A, x=rng.standard_normal(HESS_N))
    raise KeyError(key)


# --------------------------------------------------- the functions, written once
# ``ns`` is xgrad.numpy (any backend's arrays) or a torch adaptor (below).

def _mlp_loss(ns, params, X, onehot):
    W1, b1, W2, b2, W3, b3 = params
    h = ns.tanh(ns.tanh(X @ W1 + b1) @ W2 + b2)
    z = h @ W3 + b3
    m = ns.max(z, axis=1, keepdims=True)
    lse = ns.log(ns.sum(ns.exp(z - m), axis=1)) + m[:, 0]
    return ns.mean(lse - ns.sum(z * onehot, axis=1))


def _chain(ns, x):
    h = x
    for name, c in PEROP_OPS:
        h = h * c if name == "mul" else h + c if name == "add" else getattr(ns, name)(h)
    return ns.sum(h)


def _unflat(ns, theta, shapes):
    out, i = [], 0
    for s in shapes:
        n = math.prod(s)
        out.append(ns.reshape(theta[i:i + n], s))
        i += n
    return out


def _u_point(ns, params, xy):
    h = xy
    for i in range(len(params) // 2 - 1):
        h = ns.tanh(h @ params[2 * i] + params[2 * i + 1])
    return (h @ params[-2] + params[-1])[0]


def _small_mlp(ns, p, x):
    W1, b1, W2, b2, W3, b3 = p
    return ns.tanh(ns.tanh(x @ W1 + b1) @ W2 + b2) @ W3 + b3


def _mse(ns, p, x, y):
    return ns.mean((_small_mlp(ns, p, x) - y) ** 2)


def _hess_f(ns, A, x):
    return ns.sum(ns.tanh(A @ x) ** 2) + 0.5 * ns.sum(x * x)


class _TorchNS:
    """The few namespace functions above, for torch tensors."""

    def __init__(self, torch):
        self.t = torch

    def __getattr__(self, name):
        return getattr(self.t, name)

    def max(self, x, axis, keepdims):
        return self.t.amax(x, dim=axis, keepdim=keepdims)

    def sum(self, x, axis=None):
        return self.t.sum(x) if axis is None else self.t.sum(x, dim=axis)

    def mean(self, x):
        return self.t.mean(x)


# ------------------------------------------------------------ implementations

def xgrad_impl(key, d, on):
    """The differentiated function and its arguments, on the backend ``on`` moves arrays to."""
    ns = xnp
    if key in ("mlp_f64", "mlp_f32"):
        g = xgrad.grad(lambda p, X, oh: _mlp_loss(ns, p, X, oh))
        return g, ([on(p) for p in d["params"]], on(d["X"]), on(d["onehot"]))
    if key == "perop":
        return xgrad.grad(lambda x: _chain(ns, x)), (on(d["x"]),)
    if key == "hvp":
        X, oh, shapes = on(d["X"]), on(d["onehot"]), d["shapes"]
        f = lambda th: _mlp_loss(ns, _unflat(ns, th, shapes), X, oh)       # noqa: E731
        return (lambda th, v: xgrad.hvp(f, (th,), (v,))), (on(d["theta"]), on(d["v"]))
    if key == "pinn":
        X, F = on(d["X"]), on(d["F"])

        def loss(params):
            lap = xgrad.vmap(xgrad.laplacian(lambda xy: _u_point(ns, params, xy)))(X)
            return ns.mean((lap + F) ** 2)
        return xgrad.grad(loss), ([on(p) for p in d["params"]],)
    if key == "maml":
        xs, ys, xq, yq = (on(d[k]) for k in ("xs", "ys", "xq", "yq"))
        inner = xgrad.grad(lambda p, x, y: _mse(ns, p, x, y))
        return xgrad.grad(_maml_meta(ns, inner, xs, ys, xq, yq)), ([on(p) for p in d["params"]],)
    if key == "hessian":
        A = on(d["A"])
        return xgrad.hessian(lambda x: _hess_f(ns, A, x)), (on(d["x"]),)
    raise KeyError(key)


def _maml_meta(ns, inner, xs, ys, xq, yq):
    """The MAML meta-loss of the parameters: ``MAML_STEPS`` SGD steps per
    task with the library's gradient ``inner``, the query MSE averaged."""
    def meta(params):
        total = 0.0
        for t in range(MAML_TASKS):
            p = params
            for _ in range(MAML_STEPS):
                p = [a - MAML_LR * b for a, b in zip(p, inner(p, xs[t], ys[t]))]
            total = total + _mse(ns, p, xq[t], yq[t])
        return total / MAML_TASKS
    return meta


def torch_impl(key, d, on, torch):
    """The same with torch.func, eager."""
    from torch.func import grad, hessian, jvp, vmap
    ns = _TorchNS(torch)
    if key in ("mlp_f64", "mlp_f32"):
        g = grad(lambda p, X, oh: _mlp_loss(ns, p, X, oh))
        return g, ([on(p) for p in d["params"]], on(d["X"]), on(d["onehot"]))
    if key == "perop":
        return grad(lambda x: _chain(ns, x)), (on(d["x"]),)
    if key == "hvp":
        X, oh, shapes = on(d["X"]), on(d["onehot"]), d["shapes"]
        f = lambda th: _mlp_loss(ns, _unflat(ns, th, shapes), X, oh)       # noqa: E731
        return (lambda th, v: jvp(grad(f), (th,), (v,))[1]), (on(d["theta"]), on(d["v"]))
    if key == "pinn":
        X, F = on(d["X"]), on(d["F"])

        def loss(params):
            H = vmap(hessian(lambda xy: _u_point(ns, params, xy)))(X)
            return torch.mean((H[:, 0, 0] + H[:, 1, 1] + F) ** 2)
        return grad(loss), ([on(p) for p in d["params"]],)
    if key == "maml":
        xs, ys, xq, yq = (on(d[k]) for k in ("xs", "ys", "xq", "yq"))
        inner = grad(lambda p, x, y: _mse(ns, p, x, y))
        return grad(_maml_meta(ns, inner, xs, ys, xq, yq)), ([on(p) for p in d["params"]],)
    if key == "hessian":
        A = on(d["A"])
        return hessian(lambda x: _hess_f(ns, A, x)), (on(d["x"]),)
    raise KeyError(key)


# -------------------------------------------------------------------- running

def _host(r):
    if isinstance(r, (list, tuple)):
        return [a for x in r for a in _host(x)]
    if hasattr(r, "get"):
        return [r.get()]
    if type(r).__module__.startswith("torch"):
        return [r.detach().cpu().numpy()]
    return [np.asarray(r)]


def _time(fn, sync, repeat, min_time):
    number, times = 1, []
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        sync()
        dt = time.perf_counter() - t0
        if dt >= min_time or number >= 10000:
            break
        number = max(number * 2, int(number * 1.2 * min_time / max(dt, 1e-9)))
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        sync()
        times.append((time.perf_counter() - t0) / number)
    times.sort()
    return times[len(times) // 2]


def _fmt(s):
    return f"{s * 1e3:.2f} ms" if s >= 1e-3 else f"{s * 1e6:.1f} us"


def backends(args):
    """[(name, factory(key, d) -> (fn, args), sync)] for what this machine has."""
    out, notes = [], []
    torch = None
    try:
        import torch
    except Exception as e:  # noqa: BLE001
        notes.append(f"torch: not importable ({e})")
    if args.cpu:
        out.append(("xgrad:numpy", lambda k, d: xgrad_impl(k, d, np.asarray), lambda: None))
        dev = "cpu"
    else:
        try:
            import cupy
            if cupy.cuda.runtime.getDeviceCount() < 1:
                raise RuntimeError("no CUDA device")
            sync = lambda: cupy.cuda.Device().synchronize()                  # noqa: E731
            out.append(("xgrad:cupy", lambda k, d: xgrad_impl(k, d, cupy.asarray), sync))
        except Exception as e:  # noqa: BLE001
            notes.append(f"cupy: unavailable ({e})")
        dev = "cuda" if torch is not None and torch.cuda.is_available() else None
        if torch is not None and dev is None:
            notes.append("torch: no CUDA device (CPU build?)")
    if torch is not None and dev is not None:
        on = lambda a: torch.as_tensor(np.ascontiguousarray(a), device=dev)   # noqa: E731
        tsync = (lambda: torch.cuda.synchronize()) if dev == "cuda" else (lambda: None)
        out.append((f"xgrad:torch-{dev}", lambda k, d: xgrad_impl(k, d, on), tsync))
        out.append((f"torch:eager-{dev}", lambda k, d: torch_impl(k, d, on, torch), tsync))
        if not args.no_compile:
            def compiled(k, d):
                fn, a = torch_impl(k, d, on, torch)
                return torch.compile(fn), a
            out.append((f"torch:compile-{dev}", compiled, tsync))
    return out, notes


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", nargs="*", default=list(WORKLOADS), choices=WORKLOADS)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--min-time", type=float, default=0.2)
    p.add_argument("--quick", action="store_true", help="3 repeats of >= 0.02 s")
    p.add_argument("--cpu", action="store_true", help="numpy and torch CPU (a smoke test)")
    p.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    p.add_argument("--md", default=None, help="write the table as Markdown to this file")
    args = p.parse_args(argv)
    if args.quick:
        args.repeat, args.min_time = 3, 0.02
    impls, notes = backends(args)
    if not impls:
        print("gpu_peers: nothing to run: " + "; ".join(notes), file=sys.stderr)
        return 2
    rows = []
    for key in args.only:
        d = make_data(key)
        ref = None
        for name, factory, sync in impls:
            try:
                fn, a = factory(key, d)
                t0 = time.perf_counter()
                res = fn(*a)
                sync()
                first = time.perf_counter() - t0
                got = _host(res)
                if ref is None:
                    ref, check = got, "reference"
                else:
                    rtol = RTOL.get(key, 1e-7)
                    err = max(float(np.max(np.abs(x.astype(np.float64) - y)))
                              / max(1e-300, float(np.max(np.abs(y)))) for x, y in zip(got, ref))
                    check = f"ok ({err:.1e})" if err <= rtol else f"MISMATCH ({err:.1e} > {rtol:g})"
                med = _time(lambda: fn(*a), sync, args.repeat, args.min_time)
                rows.append((key, name, _fmt(med), _fmt(first), check))
            except Exception as e:  # noqa: BLE001 (a peer that can't run a workload is reported)
                msg = str(e).strip().splitlines()[0][:120] if str(e).strip() else type(e).__name__
                rows.append((key, name, "-", "-", f"fails: {type(e).__name__}: {msg}"))
                if os.environ.get("GPU_PEERS_DEBUG"):
                    traceback.print_exc()
            print(" | ".join(rows[-1]), flush=True)
    lines = [f"python {platform.python_version()}, numpy {np.__version__}, xgrad {xgrad.__version__}"]
    for mod in ("cupy", "torch"):
        m = sys.modules.get(mod)
        if m is not None:
            lines[0] += f", {mod} {m.__version__}"
    lines += notes
    table = ["| workload | implementation | median per call | first call | check |", "|---|---|---|---|---|"]
    table += ["| " + " | ".join(r) + " |" for r in rows]
    print("\n".join(lines + [""] + table))
    if args.md:
        with open(args.md, "w") as f:
            f.write("\n".join(["    " + ln for ln in lines] + [""] + table) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
