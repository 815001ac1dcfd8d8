"""Shared fixtures: a seeded RNG for every test, and ``xp``, the backend the
test's arrays live on (numpy, array_api_strict, and cupy where installed)."""
import os

# Faster XLA compilation of the jax oracle (2-3x); only code generation changes,
# not the numbers. Set before any test module imports jax; a user's XLA_FLAGS wins.
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_use_fusion_emitters=false "
                      "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

BACKENDS = ["numpy", "array_api_strict", "cupy"]


def pytest_addoption(parser):
    parser.addoption("--backend", action="append", default=None,
                     help="run backend-parametrised tests only on these backends")


def pytest_generate_tests(metafunc):
    if "xp" in metafunc.fixturenames:
        names = metafunc.config.getoption("backend") or BACKENDS
        metafunc.parametrize("xp", names, indirect=True)


@pytest.fixture
def xp(request):
    name = request.param
    if name == "numpy":
        import array_api_compat.numpy as mod
        return mod
    if name == "cupy":
        try:
            import cupy  # noqa: F401
            if cupy.cuda.runtime.getDeviceCount() < 1:
                raise RuntimeError
        except Exception:
            pytest.skip("cupy with a CUDA device is not available")
        import array_api_compat.cupy as mod
        return mod
    return pytest.importorskip(name)


@pytest.fixture(autouse=True)
def rng():
    """Every test gets the same seeded generator (reproducible failures)."""
    return np.random.default_rng(0)


def to_np(x):
    """A backend array (or xgrad output) as a numpy array, for comparisons."""
    if hasattr(x, "get"):          # cupy
        return x.get()
    return np.asarray(x)


def from_np(xp, a):
    """A numpy array on backend ``xp`` (keeping its dtype)."""
    if xp.__name__.startswith("array_api_strict"):
        return xp.asarray(a)
    return xp.asarray(a)


@pytest.fixture
def jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax
