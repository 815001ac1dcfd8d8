"""Shared fixtures: a seeded RNG for every test, and ``xp``, the backend the
test's arrays live on (numpy, array_api_strict, and cupy where installed).

Backends: ``xp`` runs every backend-parametrised test on numpy,
array_api_strict and cupy (skipped without a CUDA device); ``--backend NAME``
(repeatable) or the environment variable ``XGRAD_TEST_BACKENDS`` (comma
separated, e.g. ``XGRAD_TEST_BACKENDS=cupy``, as ``scripts/gpu_check.sh`` runs
the suite) restricts it. torch and jax arrays are not in ``xp`` (the whole
suite on them would double CI's time): ``any_backend`` runs the subset in
``tests/test_backends.py`` on them, skipping a backend that is not installed."""
import os

# Faster XLA compilation of the jax oracle (2-3x); only code generation changes,
# not the numbers. Set before any test module imports jax; a user's XLA_FLAGS wins.
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_use_fusion_emitters=false "
                      "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

BACKENDS = ["numpy", "array_api_strict", "cupy"]
# backends of ``any_backend``: arrays of other libraries, through array-api-compat
OTHER_BACKENDS = ["torch", "jax", "dask"]


def pytest_addoption(parser):
    parser.addoption("--backend", action="append", default=None,
                     help="run backend-parametrised tests only on these backends")


def pytest_generate_tests(metafunc):
    if "xp" in metafunc.fixturenames:
        names = metafunc.config.getoption("backend") or _env_backends() or BACKENDS
        metafunc.parametrize("xp", names, indirect=True)
    if "any_backend" in metafunc.fixturenames:
        metafunc.parametrize("any_backend", OTHER_BACKENDS, indirect=True)


def _env_backends():
    """``XGRAD_TEST_BACKENDS=cupy,numpy``: the backends of ``xp``, or None."""
    names = [n.strip() for n in os.environ.get("XGRAD_TEST_BACKENDS", "").split(",") if n.strip()]
    bad = [n for n in names if n not in BACKENDS]
    if bad:
        raise pytest.UsageError(f"XGRAD_TEST_BACKENDS: unknown backend(s) {bad}; known: {BACKENDS}")
    return names or None


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


@pytest.fixture
def any_backend(request):
    """The namespace of a backend outside ``xp`` (torch, jax or dask arrays,
    on the CPU); skips when the library is not installed. jax gets x64 enabled, as
    the ``jax`` fixture does (float64 arrays need it)."""
    name = request.param
    if name == "torch":
        pytest.importorskip("torch")
        import array_api_compat.torch as mod
        return mod
    if name == "dask":
        pytest.importorskip("dask.array")
        import array_api_compat.dask.array as mod
        return mod
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as mod
    return mod


@pytest.fixture(autouse=True)
def rng():
    """Every test gets the same seeded generator (reproducible failures)."""
    return np.random.default_rng(0)


def to_np(x):
    """A backend array (or xgrad output) as a numpy array, for comparisons."""
    if hasattr(x, "get"):          # cupy
        return x.get()
    if type(x).__module__.startswith("torch"):
        return x.detach().cpu().numpy()
    if type(x).__module__.startswith("dask") or hasattr(x, "dask"):
        return np.asarray(x.compute())
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
