"""Guarantee: NaN-safe masking. A value that is NaN or Inf only in a
discarded branch does not poison the derivative: an exactly zero cotangent
or tangent stays zero through every rule (``0 * inf`` would be NaN).

NB: JAX and PyTorch give NaN in these programs; JAX's FAQ rewrites them with
the "double where" trick, so jax runs the rewritten program as the oracle.
"""
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from helpers import assert_close, from_np, to_np


@pytest.fixture(autouse=True)
def _quiet():
    # the discarded branches warn in numpy (sqrt of a negative, 0/0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


X = np.array([-1.0, 4.0, 0.0, 2.25])


def sqrt_where(ns, x):
    return ns.sum(ns.where(x > 0, ns.sqrt(x), 0.0) ** 2 + ns.where(x > 0, ns.sqrt(x), 0.0))


def sqrt_where_safe(ns, x):          # the double-where rewrite
    return sqrt_where(ns, ns.where(x > 0, x, 1.0)) - 2.0 * ns.sum(ns.where(x > 0, 0.0, 1.0))


def masked_division(ns, x):
    # 0/0 where x == 0, then overwritten (what sklearn's scalers do)
    y = x / x
    if ns is xnp:
        y[x == 0] = 1.0
    else:
        y = ns.where(x == 0, 1.0, y)
    return ns.sum(y * x ** 2)


def masked_division_safe(ns, x):
    return masked_division(ns, x) if ns is xnp else ns.sum(x ** 2)


def gathered(ns, x):
    return ns.sum(ns.sqrt(x)[x > 0] * 3.0)   # (not under vmap: a per-example mask has no shape)


def gathered_safe(ns, x):
    return ns.sum(ns.where(x > 0, ns.sqrt(ns.where(x > 0, x, 1.0)), 0.0) * 3.0)


def clipped_log(ns, x):
    return ns.sum(ns.clip(ns.log(ns.abs(x)), -10.0, 10.0) + ns.maximum(ns.log(ns.abs(x)), -5.0))


def clipped_log_safe(ns, x):
    ax = ns.where(x == 0, 1.0, ns.abs(x))
    lg = ns.log(ax)
    return ns.sum(ns.where(x == 0, -10.0, ns.clip(lg, -10.0, 10.0))
                  + ns.where(x == 0, -5.0, ns.maximum(lg, -5.0)))


PROGRAMS = {"where-sqrt": (sqrt_where, sqrt_where_safe),
            "masked-setitem": (masked_division, masked_division_safe),
            "mask-gather": (gathered, gathered_safe),
            "clip-maximum": (clipped_log, clipped_log_safe)}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("mode", ["grad", "jacfwd", "jacrev", "hessian", "vjp", "jvp",
                                  "linearize", "vmap-grad", "checkpoint"])
def test_discarded_branch_gives_true_derivative(xp, jax, name, mode):
    naive, safe = PROGRAMS[name]
    f = lambda x: naive(xnp, x)
    g = lambda x: safe(jax.numpy, x)
    x = from_np(xp, X)
    t = np.array([0.5, -1.0, 2.0, 1.5])
    if mode == "grad":
        got, want = xgrad.grad(f)(x), jax.grad(g)(X)
    elif mode == "jacfwd":
        got, want = xgrad.jacfwd(f)(x), jax.jacfwd(g)(X)
    elif mode == "jacrev":
        got, want = xgrad.jacrev(f)(x), jax.jacrev(g)(X)
    elif mode == "hessian":
        got, want = xgrad.hessian(f)(x), jax.hessian(g)(X)
    elif mode == "vjp":
        out, f_vjp = xgrad.vjp(f, x)
        got, want = f_vjp(xnp.ones_like(out))[0], jax.grad(g)(X)
    elif mode == "jvp":
        got, want = xgrad.jvp(f, (x,), (from_np(xp, t),))[1], jax.jvp(g, (X,), (t,))[1]
    elif mode == "linearize":
        got, want = xgrad.linearize(f, x)[1](from_np(xp, t)), jax.jvp(g, (X,), (t,))[1]
    elif mode == "vmap-grad":
        XX = np.stack([X, X[::-1]])
        if name == "mask-gather":       # a per-example mask has no fixed shape
            with pytest.raises(TypeError, match="boolean mask that differs per example"):
                xgrad.vmap(xgrad.grad(f))(from_np(xp, XX))
            return
        XX = np.stack([X, X[::-1]])
        got, want = xgrad.vmap(xgrad.grad(f))(from_np(xp, XX)), jax.vmap(jax.grad(g))(XX)
    else:
        got, want = xgrad.grad(xgrad.checkpoint(f))(x), jax.grad(g)(X)
    assert np.all(np.isfinite(to_np(got))), f"{name} {mode}: {to_np(got)}"
    assert_close(got, want)


def test_vmap_per_example_mask():
    # gathers with a per-example mask are refused (no fixed shape); a scalar
    # written through one is a select, and its derivative is NaN-safe
    XX = np.stack([X, X[::-1]])
    with pytest.raises(TypeError, match="boolean mask that differs per example"):
        xgrad.vmap(lambda x: xnp.sum(x[x > 0]))(XX)

    def f(x):
        y = xnp.sqrt(x)
        y[x <= 0] = 1.0
        return xnp.sum(y)
    want = np.where(XX > 0, 0.5 / np.sqrt(np.where(XX > 0, XX, 1.0)), 0.0)
    assert_close(xgrad.vmap(xgrad.grad(f))(XX), want)
    assert_close(xgrad.vmap(f)(XX), np.sum(np.where(XX > 0, np.sqrt(np.abs(XX)), 1.0), axis=1))


def test_jax_gives_nan_without_the_trick(jax):
    # the programs above are the real cases: jax's own answer is NaN
    assert np.isnan(jax.grad(lambda x: sqrt_where(jax.numpy, x))(X)).any()


def test_true_nan_and_inf_derivatives_stay():
    # NaN safety only clears entries whose cotangent is exactly zero
    g = xgrad.grad(lambda x: xnp.sum(xnp.sqrt(x)))(np.array([0.0, 4.0]))
    assert np.isinf(g[0]) and g[1] == 0.25
    g = xgrad.grad(lambda x: xnp.sum(xnp.sqrt(x)))(np.array([-1.0, 4.0]))
    assert np.isnan(g[0]) and g[1] == 0.25
    # jacfwd: the off-diagonal entries of d sqrt(x) at 0 are 0, the diagonal inf
    J = to_np(xgrad.jacfwd(xnp.sqrt)(np.array([0.0, 1.0])))
    assert np.isinf(J[0, 0]) and J[0, 1] == 0 and J[1, 0] == 0 and J[1, 1] == 0.5
    J = to_np(xgrad.jacrev(xnp.sqrt)(np.array([0.0, 1.0])))
    assert np.isinf(J[0, 0]) and J[0, 1] == 0 and J[1, 0] == 0 and J[1, 1] == 0.5


def test_float32(jax):
    x = X.astype(np.float32)
    got = xgrad.grad(lambda x: sqrt_where(xnp, x))(x)
    assert got.dtype == np.float32
    assert_close(got, jax.grad(lambda x: sqrt_where_safe(jax.numpy, x))(X), rtol=1e-6)


def test_nan_check_sees_only_real_nans():
    # under nan_check derivatives are computed NaN-safely from the start: the
    # backward pass of a masked division makes no NaN, so nothing is raised
    # there (the forward 0/0 itself is a NaN: the check reports it)
    from xgrad import debug

    def f(x):
        y = x / xnp.where(x == 0, 1.0, x)
        y[x == 0] = 1.0
        return xnp.sum(y * xnp.sqrt(xnp.abs(x) + 1.0))
    x = np.array([0.0, 2.0])
    with debug.nan_check():
        got = xgrad.grad(f)(x)
    assert_close(got, xgrad.grad(f)(x))
    with debug.nan_check(), pytest.raises(FloatingPointError, match="forward"):
        xgrad.grad(lambda x: masked_division(xnp, x))(x)


SKLEARN_SCRIPT = textwrap.dedent("""
    import os, warnings
    os.environ["SCIPY_ARRAY_API"] = "1"
    warnings.simplefilter("ignore")
    import numpy as np, sklearn, jax, jax.numpy as jnp
    from sklearn.preprocessing import StandardScaler
    import xgrad, xgrad.numpy as xnp
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(7, 3))
    W = rng.normal(size=(7, 3))
    def loss(X):
        with sklearn.config_context(array_api_dispatch=True):
            Z = StandardScaler().fit_transform(X)
        return xnp.sum(xnp.sin(Z) * W)
    def closed_form(X):
        return jnp.sum(jnp.sin((X - X.mean(0)) / X.std(0)) * W)
    got = np.asarray(xgrad.grad(loss)(X))
    want = np.asarray(jax.grad(closed_form)(X))
    assert np.allclose(loss(X), closed_form(X), rtol=1e-12)
    assert np.all(np.isfinite(got)), got
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    print("ok")
""")


def test_sklearn_standard_scaler_gradient():
    pytest.importorskip("sklearn")
    pytest.importorskip("jax")
    # scipy reads SCIPY_ARRAY_API when it is imported: a fresh interpreter
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    r = subprocess.run([sys.executable, "-c", SKLEARN_SCRIPT], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-3000:]
