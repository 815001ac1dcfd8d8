"""xgrad on dask arrays: a chunked loss's gradient stays lazy (a dask array
until ``.compute()``) and equals the gradient of the same loss on numpy;
numpy weights combine with dask batches; operations dask can't do lazily
raise an error naming the operation, and nothing is computed behind the
user's back (a scheduler that refuses to run proves it); the threaded
scheduler and a ``dask.distributed`` LocalCluster give the same numbers; the
two examples run in quick mode. Skips when dask is not installed."""
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from helpers import assert_close

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _refuse(*args, **kwargs):
    raise AssertionError("a dask array was computed implicitly")


def lazily(fn, *args):
    """``fn(*args)`` with every dask compute refused: xgrad must not compute."""
    with dask.config.set(scheduler=_refuse):
        return fn(*args)


def compute(tree):
    return dask.compute(tree, scheduler="threads")[0]


def _data(n=400, d=3, chunk=100):
    r = np.random.default_rng(1)
    Xn, yn = r.standard_normal((n, d)), r.standard_normal(n)
    return Xn, yn, da.from_array(Xn, chunks=(chunk, d)), da.from_array(yn, chunks=chunk)


W = np.random.default_rng(2).standard_normal((3, 4))

LOSSES = {
    "elementwise": lambda w, X, y: xnp.mean((xnp.tanh(X @ w) - y) ** 2 + xnp.exp(-(X @ w) ** 2)),
    "matmul": lambda w, X, y: xnp.sum((xnp.tanh(X @ W * w[0]) @ xnp.ones(4) - y) ** 2),
    "reductions": lambda w, X, y: (xnp.max(X @ w) + xnp.var(X @ w)
                                   + xnp.sum(xnp.linalg.norm(X * w, axis=1))
                                   + xgrad.scipy.special.logsumexp(X @ w)),
    "einsum_clip": lambda w, X, y: xnp.sum(xnp.clip(xnp.einsum("nd,d->n", X, w), -0.5, 0.5) ** 2)
    + xnp.einsum("nd,n,d->", X, y, w),
    "reduce_axis": lambda w, X, y: xnp.sum(xnp.sum(xnp.sin(X * w), axis=1) ** 2),
    "where": lambda w, X, y: xnp.sum(xnp.where(X @ w > y, xnp.sqrt(xnp.abs(X @ w)), 0.5 * y * w[1])),
    "index_unchunked": lambda w, X, y: xnp.sum((X[:, 0] * w[0] + X[:, 1:] @ w[1:]) ** 2
                                               + X[:, np.array([2, 0])] @ w[:2]),
    "concat_reshape": lambda w, X, y: xnp.sum(xnp.reshape(xnp.stack([X @ w, y * w[0]], axis=1),
                                                          (-1,)) ** 2),
    "vmap": lambda w, X, y: xnp.sum(xgrad.vmap(lambda x, t: (xnp.sin(x @ w) - t) ** 2)(X, y)),
    "vmap_grad": lambda w, X, y: xnp.sum(xgrad.vmap(xgrad.grad(lambda x: xnp.cos(x @ w)))(X) ** 2),
    "vmap_laplacian": lambda w, X, y: xnp.mean(
        xgrad.vmap(xgrad.laplacian(lambda x: xnp.tanh(x @ w) * x[0]))(X) ** 2),
    "vmap_hessian_trace": lambda w, X, y: xnp.sum(
        xgrad.vmap(lambda x: xnp.trace(xgrad.hessian(lambda z: xnp.tanh(z @ w))(x)))(X)),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_grad_is_lazy_and_equals_numpy(name):
    f = LOSSES[name]
    Xn, yn, X, y = _data()
    w = np.array([0.3, -0.2, 0.5])
    v, g = lazily(xgrad.value_and_grad(f), w, X, y)
    assert isinstance(v, da.Array) and isinstance(g, da.Array), (type(v), type(g))
    v_ref, g_ref = xgrad.value_and_grad(f)(w, Xn, yn)
    v, g = compute((v, g))
    assert_close(v, v_ref)
    assert_close(g, g_ref)


def test_grad_wrt_dask_argument_and_forward_mode():
    Xn, yn, X, y = _data()
    w = np.array([0.3, -0.2, 0.5])
    f = LOSSES["elementwise"]
    gX = lazily(xgrad.grad(f, argnums=1), w, X, y)
    assert isinstance(gX, da.Array) and gX.chunks == X.chunks
    assert_close(compute(gX), xgrad.grad(f, argnums=1)(w, Xn, yn))
    t = np.array([1.0, 2.0, -1.0])
    out, jv = lazily(xgrad.jvp, lambda w: f(w, X, y), (w,), (t,))
    assert isinstance(jv, da.Array)
    out_ref, jv_ref = xgrad.jvp(lambda w: f(w, Xn, yn), (w,), (t,))
    assert_close(compute(jv), jv_ref)
    # a vjp w.r.t. the chunked batch, with a chunked cotangent
    out, vjp_fn = lazily(xgrad.vjp, lambda X: xnp.tanh(X @ w), X)
    (ct,) = lazily(vjp_fn, y)
    assert isinstance(ct, da.Array)
    assert_close(compute(ct), xgrad.vjp(lambda X: xnp.tanh(X @ w), Xn)[1](yn)[0])


def test_numpy_combines_with_dask():
    Xn, yn, X, y = _data()
    w = np.array([0.3, -0.2, 0.5])
    out = lazily(lambda: xnp.multiply(w, X))
    assert isinstance(out, da.Array) and out.chunks == X.chunks
    assert isinstance(lazily(lambda: X @ w), da.Array)
    assert isinstance(lazily(lambda: w[0] * y), da.Array)
    # a gradient w.r.t. a numpy argument is numpy where the loss is numpy, and a
    # lazy dask array where the loss is a dask array (it depends on the batch)
    assert isinstance(xgrad.grad(lambda a, b: xnp.sum(a ** 2 * b))(w, w), np.ndarray)
    assert isinstance(lazily(xgrad.grad(lambda a: xnp.sum(X @ a)), w), da.Array)
    # other backends still don't mix with dask
    strict = pytest.importorskip("array_api_strict")
    with pytest.raises(TypeError, match="two array backends"):
        xnp.add(strict.asarray([1.0, 2.0, 3.0]), da.ones(3))


def _lazy_error(fn, *args, match):
    Xn, yn, X, y = _data()
    w = np.array([0.3, -0.2, 0.5])
    with pytest.raises((TypeError, ValueError, NotImplementedError), match=match) as info:
        lazily(xgrad.grad(fn), w, X, y)
    return str(info.value)


def test_reading_a_value_raises():
    msg = _lazy_error(lambda w, X, y: xnp.sum(X @ w) if xnp.sum(X @ w) > 0 else -xnp.sum(X @ w),
                      match=r"bool\(\)")
    assert "compute" in msg and "where" in msg
    _lazy_error(lambda w, X, y: xnp.sum(X @ w) * float(xnp.sum(X @ w)), match=r"float\(\)")
    _lazy_error(lambda w, X, y: xnp.sum(X @ w) * int(xnp.sum(X @ w) > 0), match=r"int\(\)")
    _lazy_error(lambda w, X, y: xnp.sum(X @ w) * xnp.sum(X @ w).item(), match="concrete value")
    _lazy_error(lambda w, X, y: xnp.sum(X @ w) * np.asarray(xnp.sum(X[:, 0])), match="asarray")


def test_value_dependent_shapes_raise():
    msg = _lazy_error(lambda w, X, y: xnp.sum((X @ w)[y > 0]), match="'getitem'")
    assert "depends on the values" in msg and "where(mask" in msg
    _lazy_error(lambda w, X, y: xnp.sum((X @ w)[X @ w > 0]), match="concrete value|mask")
    _lazy_error(lambda w, X, y: xnp.sum(xnp.sort(X @ w)[:3]), match="not supported on dask")
    _lazy_error(lambda w, X, y: xnp.sum(xnp.nonzero(X @ w)[0] * w[0]), match="nonzero")
    _lazy_error(lambda w, X, y: xnp.sum(xnp.unique_values(X @ w)), match="unique_values")


def test_traced_index_stays_lazy():
    # an index computed from a traced value has no concrete value: the gather
    # falls back to a one-hot product (as under vmap), still lazy
    Xn, yn, X, y = _data()
    w = np.array([0.3, -0.2, 0.5])
    f = lambda w, X, y: (X @ w)[xnp.argmax(X @ w)] * w[1]       # noqa: E731
    g = lazily(xgrad.grad(f), w, X, y)
    assert isinstance(g, da.Array)
    assert_close(compute(g), xgrad.grad(f)(w, Xn, yn))


def test_values_read_fine_after_the_transform():
    Xn, yn, X, y = _data()
    w = np.array([0.3, -0.2, 0.5])
    v, g = xgrad.value_and_grad(LOSSES["elementwise"])(w, X, y)
    assert math.isclose(float(v), float(xgrad.value_and_grad(LOSSES["elementwise"])(w, Xn, yn)[0]))
    assert bool(v > -1.0)
    assert np.asarray(g).shape == (3,)


def test_numpy_fast_path_untouched():
    x = np.linspace(0.1, 1.0, 5)
    assert isinstance(xgrad.grad(lambda x: xnp.sum(xnp.sin(x)))(x), np.ndarray)
    assert bool(xgrad.grad(lambda x: xnp.sum(x ** 2))(x)[0] > 0)
    assert xgrad.grad(lambda x: x ** 2 if x > 0 else -x)(2.0) == 4.0


def _roots_per_task(collections, root_names):
    """For every task of the collections' graph: how many chunks of the root
    arrays it depends on."""
    from dask.core import get_dependencies
    from dask.highlevelgraph import HighLevelGraph
    dsk = dict(HighLevelGraph.merge(*[c.__dask_graph__() for c in collections]))
    memo = {}
    for key in dsk:                       # iterative post-order walk
        stack = [key]
        while stack:
            k = stack[-1]
            if k in memo:
                stack.pop()
                continue
            if isinstance(k, tuple) and k[0] in root_names:
                memo[k] = {k}
                stack.pop()
                continue
            deps = [d for d in get_dependencies(dsk, k) if d not in memo]
            if deps:
                stack.extend(deps)
                continue
            memo[k] = set().union(*[memo[d] for d in get_dependencies(dsk, k)])
            stack.pop()
    return [len(memo[k]) for k in dsk]


def test_backward_pass_stays_chunk_by_chunk():
    # the PINN pattern: vmap(laplacian) over the chunked points, grad w.r.t.
    # numpy weights. Only the final reductions may combine chunks: a task that
    # merges two chunks of the batch makes dask hold every chunk's residuals
    Xn = np.random.default_rng(0).uniform(size=(400, 2))
    X = da.from_array(Xn, chunks=(100, 2), name="ROOT-X")
    W1, W2 = np.random.default_rng(1).standard_normal((2, 8)), np.ones((8, 1))

    def loss(W1, X):
        lap = xgrad.vmap(xgrad.laplacian(lambda x: (xnp.tanh(x @ W1) @ W2)[0] * x[0]))(X)
        return xnp.mean(lap ** 2)
    v, g = lazily(xgrad.value_and_grad(loss), W1, X)
    counts = _roots_per_task([v, g], {"ROOT-X"})
    mixed = sum(c > 1 for c in counts)
    assert mixed < 0.1 * len(counts), (mixed, len(counts))
    assert_close(compute(g), xgrad.grad(loss)(W1, Xn))
    # a scatter's cotangent keeps the batch's chunks; so does (k, n) -> (k n)
    gX = lazily(xgrad.grad(lambda X: xnp.sum(X[:, 0] ** 2)), X)
    assert gX.chunks == X.chunks
    Y = da.from_array(np.arange(2 * 400 * 3.0).reshape(2, 400, 3), chunks=(1, 100, 3))
    Z = xnp.reshape(Y, (800, 3))
    assert Z.chunks == ((100,) * 8, (3,))
    assert_close(compute(Z), np.arange(2 * 400 * 3.0).reshape(800, 3))


@pytest.mark.parametrize("idx", [(slice(None), 0), (Ellipsis, -1), (1,), (slice(None), 2, 1),
                                 (Ellipsis,), (slice(None), slice(None), 0),
                                 (slice(1, 3),), (np.array([0, 0, 2]),)])
def test_scatter_into_dask(idx):
    from xgrad.backends import index_add, index_set, namespace
    xn = np.arange(4 * 3 * 2.0).reshape(4, 3, 2)
    x = da.from_array(xn, chunks=(2, 3, 2))
    vn = -np.ones_like(xn[idx]) * 7.0
    v = da.from_array(vn)
    xp = namespace(x)
    ref_add, ref_set = xn.copy(), xn.copy()
    np.add.at(ref_add, idx, vn)
    ref_set[idx] = vn
    added, written = lazily(index_add, xp, x, idx, v), lazily(index_set, xp, x, idx, v)
    assert isinstance(added, da.Array) and isinstance(written, da.Array)
    assert_close(compute(added), ref_add)
    assert_close(compute(written), ref_set)
    assert_close(compute(x), xn)                   # never written


# ----- a dask.distributed cluster -----

@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("dask.distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=":0")
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_distributed_cluster(client):
    Xn, yn, X, y = _data(n=800, chunk=200)
    w = np.array([0.3, -0.2, 0.5])
    X, y = client.persist([X, y])
    for name in ("matmul", "vmap_laplacian", "where"):
        f = LOSSES[name]
        v, g = lazily(xgrad.value_and_grad(f), w, X, y)
        assert isinstance(g, da.Array)
        v, g = client.gather(client.compute([v, g]))
        v_ref, g_ref = xgrad.value_and_grad(f)(w, Xn, yn)
        assert_close(v, v_ref)
        assert_close(g, g_ref)
    # a pytree of numpy weights: the leaves' gradients in one graph
    params = [(W, np.zeros(4)), (np.ones((4, 1)), np.zeros(1))]

    def mlp_loss(params, X, y):
        (W1, b1), (W2, b2) = params
        return xnp.mean(((xnp.tanh(X @ W1 + b1) @ W2 + b2)[:, 0] - y) ** 2)
    grads = lazily(xgrad.grad(mlp_loss), params, X, y)
    assert all(isinstance(leaf, da.Array) for leaf in xgrad.tree.leaves(grads))
    got = client.gather(client.compute(grads))
    ref = xgrad.grad(mlp_loss)(params, Xn, yn)
    for a, b in zip(xgrad.tree.leaves(got), xgrad.tree.leaves(ref)):
        assert_close(a, b)


# ----- the examples, as a user runs them -----

def _run(script, *args, timeout=240):
    env = dict(os.environ, PYTHONHASHSEED="0",
               PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, os.path.join(ROOT, script), *args], env=env,
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    assert proc.returncode == 0, f"{script} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def _num(pattern, text):
    m = re.search(pattern, text)
    assert m is not None, f"{pattern!r} not in:\n{text}"
    return float(m.group(1))


def test_example_pinn_dask_quick():
    pytest.importorskip("dask.distributed")
    out = _run("examples/pinn_dask.py", "--quick", "--no-progress")
    assert _num(r"points: (\d+)", out) == 100_000
    assert _num(r"workers: (\d+)", out) == 2
    assert _num(r"chunks: (\d+)", out) == 4
    assert 0 < _num(r"time per step: ([0-9.]+) s", out) < 120
    assert 50 < _num(r"peak memory max: (\d+) MiB", out) < 8000
    assert "lazy until compute: True" in out and "lazy until compute: False" not in out
    losses = [float(v) for v in re.findall(r"step \d+: loss ([0-9.e+-]+)", out)]
    assert len(losses) == 2 and losses[1] < losses[0]      # Adam steps go downhill


def test_example_data_parallel_dask_quick():
    pytest.importorskip("dask.distributed")
    out = _run("examples/data_parallel_dask.py", "--quick")
    assert _num(r"examples: (\d+)", out) == 10_000
    assert _num(r"chunks: (\d+)", out) == 8
    assert "lazy until compute: True" in out
    assert "equal to the full-batch gradient: True" in out
    assert _num(r"max \|all-reduced - full-batch\| gradient: ([0-9.e+-]+)", out) < 1e-12
    assert math.isclose(_num(r"global norm after clipping: ([0-9.e+-]+)", out), 0.1, rel_tol=1e-9)
