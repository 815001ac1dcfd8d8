"""Helpers for the tests (importable as ``helpers``)."""
import numpy as np

from conftest import to_np, from_np  # noqa: F401


def assert_close(actual, expected, rtol=1e-10, atol=1e-12, err_msg=""):
    np.testing.assert_allclose(to_np(actual), to_np(expected), rtol=rtol, atol=atol,
                               err_msg=err_msg)


def mm_flags(ns, x, y, ta, tb):
    """op(x) @ op(y) with the matmul row's transpose flags (the reverse-mode
    rules make these), or with explicit transposes on a plain namespace."""
    import xgrad.numpy as xnp
    from xgrad.core import RULES
    if ns is xnp:
        return RULES["matmul"].bind(x, y, ta=ta, tb=tb)
    return ns.matmul(ns.matrix_transpose(x) if ta else x, ns.matrix_transpose(y) if tb else y)
