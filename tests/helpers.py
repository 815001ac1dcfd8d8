"""Helpers for the tests (importable as ``helpers``)."""
import numpy as np

from conftest import to_np, from_np  # noqa: F401


def assert_close(actual, expected, rtol=1e-10, atol=1e-12, err_msg=""):
    np.testing.assert_allclose(to_np(actual), to_np(expected), rtol=rtol, atol=atol,
                               err_msg=err_msg)
