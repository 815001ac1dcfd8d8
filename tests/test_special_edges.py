"""Special functions at their edges (+-0, +-inf, nan, huge): values against
scipy, and against jax (x64) where it is installed."""
import warnings

import numpy as np
import pytest

import xgrad
import xgrad.scipy.special as xs

EDGES = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e308, -1e308, 0.5, 2.0, -2.0])


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_x_log_y_propagates_nan_also_where_x_is_zero(name):
    f = getattr(xs, name)
    assert np.isnan(f(0.0, np.nan)) and np.isnan(f(-0.0, np.nan))
    x, y = (a.ravel() for a in np.meshgrid(EDGES, EDGES))
    sp = pytest.importorskip("scipy.special")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_allclose(np.asarray(f(x, y)), getattr(sp, name)(x, y), rtol=1e-14,
                                   equal_nan=True)
        g = xgrad.grad(f, argnums=(0, 1))(0.0, np.nan)
    assert np.isnan(g[0]) and np.isnan(g[1])


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_x_log_y_matches_jax_at_edge_values(jax, name):
    import jax.scipy.special as js
    x, y = (a.ravel() for a in np.meshgrid(EDGES, EDGES))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_allclose(np.asarray(getattr(xs, name)(x, y)),
                                   np.asarray(getattr(js, name)(x, y)), rtol=1e-14, equal_nan=True)
