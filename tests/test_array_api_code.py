"""Code written against the array API (array_namespace(x)) differentiates
unchanged, scipy's array-API dispatch included."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import array_api_compat
import xgrad
from helpers import assert_close, from_np


def softplus_sum(x):
    xp = array_api_compat.array_namespace(x)
    out = xp.zeros(x.shape, dtype=x.dtype)      # a plain array of x's backend ...
    out = out + xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(x, 0.0)
    if float(xp.max(x)) > 100.0:                # data-dependent Python control flow
        out = out * 0.0
    return xp.sum(out)


def test_generic_code_differentiates(xp, rng):
    x = from_np(xp, rng.normal(size=5))
    g = xgrad.grad(softplus_sum)(x)
    ref = 1.0 / (1.0 + np.exp(-np.asarray(xgrad.testing._host(x))))
    assert_close(g, ref, rtol=1e-12)


def test_namespace_of_traced_value(xp):
    x = from_np(xp, np.ones(3))

    def f(x):
        ns = x.__array_namespace__()
        assert ns.__array_api_version__ == "2024.12"
        z = ns.zeros(3, dtype=ns.float64)
        return ns.sum(x * 2.0 + z)
    assert_close(xgrad.grad(f)(x), [2.0, 2.0, 2.0])


def test_scipy_array_api_logsumexp():
    pytest.importorskip("scipy")
    code = textwrap.dedent("""
        import numpy as np, xgrad, scipy.special as sp
        x = np.array([0.1, 0.5, 2.0])
        g = xgrad.grad(lambda x: sp.logsumexp(x))(x)
        ref = np.exp(x) / np.exp(x).sum()
        assert np.allclose(g, ref, rtol=1e-12), (g, ref)
        print("ok")
    """)
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr


def test_eager_control_flow_is_constant():
    def f(x):
        if x > 0:                  # bool() of a traced value: its concrete value
            return x ** 2
        return -x
    assert float(xgrad.grad(f)(3.0)) == 6.0
    assert float(xgrad.grad(f)(-3.0)) == -1.0
    assert float(xgrad.grad(lambda x: float(x) * x)(3.0)) == 3.0   # float(x) is a constant


def test_bool_of_batched_value_raises():
    with pytest.raises(TypeError, match="where"):
        xgrad.vmap(lambda x: x if x > 0 else -x)(np.ones(3))
