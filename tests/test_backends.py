"""torch, jax and dask arrays as backends (through array-api-compat, on the
CPU; dask lazily: a result is a dask array, compared after ``.compute()``).

A representative subset of the rule table's cases (``tests/test_rules.py``):
every elementwise row and every unary special function at one shape, the
reductions, matmul, the indexing cases (gathers, setitem, scatter-add with
repeated indices), and linalg's solve, cholesky and eigh. For each, the value
and the first and second order derivatives (``_bundle``: JVP, VJP and the
four second orders) computed on torch tensors / jax arrays must be arrays of
that backend, of numpy's dtype, and equal to numpy's within 1e-12 (float64;
the same sample point and directions). Then vmap, hessian, float32, and the
errors: mixing backends or devices, writing a jax array.

On dask, ``DASK_GAPS`` lists the cases dask can't run lazily, each with
its reason; they must raise a clear error naming the operation. The
``any_backend`` fixture (conftest.py) skips a library that is not
installed. The whole suite on these backends would double CI's time; this
file is the subset (about a minute).
"""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from conftest import to_np
import test_rules as R

NUMPY = pytest.importorskip("array_api_compat.numpy")
RTOL, ATOL = 1e-12, 1e-12


def _one_shape(name):
    return name.endswith("[3x4]") or name.endswith("[3x4-3x4]")


def _subset():
    cases = [c for c in R._elementwise_cases() if _one_shape(c.name)]
    cases += [c for c in R._special_cases() if _one_shape(c.name) or c.name.startswith("special.polygamma")]
    cases += R._reduction_cases() + R._distinct_cases()
    cases += [c for c in R._linalg_cases()
              if c.name in ("matmul[(4,)@(4,)]", "matmul[(3, 4)@(4,)]", "matmul[(3, 4)@(4, 5)]",
                            "matmul[(2, 3, 4)@(2, 4, 5)]", "matmul[(1, 3, 4)@(2, 4, 5)]",
                            "matmul[(4, 3)@(5, 4),ta=True,tb=True]", "matmul[operator]",
                            "tensordot[axes=1]", "vecdot[same]")]
    cases += R._indexing_cases()
    cases += [c for c in R._linalg_ext_cases()
              if c.name.startswith(("linalg.solve", "linalg.cholesky", "linalg.eigh"))]
    return cases


CASES = _subset()


def _is_backend_array(a, xp):
    if "dask" in xp.__name__:
        import dask.array   # optional: the fixture skipped if absent
        return isinstance(a, dask.array.Array)
    if xp.__name__.startswith("jax"):
        import jax   # optional: the fixture skipped if absent
        return isinstance(a, jax.Array)
    import torch     # optional: the fixture skipped if absent
    return isinstance(a, torch.Tensor)


def _dtype_name(a):
    return str(a.dtype).rsplit(".", 1)[-1]


def _results(case, xp, args, dirs):
    f = R._xgrad_fn(case, xp)
    on = lambda a: xp.asarray(a)                                       # noqa: E731
    d = tuple(tuple(on(a) for a in x) if isinstance(x, tuple) else on(x) for x in dirs)
    got = R._bundle(xgrad, f, tuple(on(a) for a in args), *d)
    return {k: R._leaves(v) for k, v in got.items()}


def _compare(got, ref, xp, what, rtol=RTOL, atol=ATOL):
    for k, exp in ref.items():
        act = got[k]
        assert len(act) == len(exp), f"{what} {k}: {len(act)} outputs, numpy {len(exp)}"
        for i, (a, e) in enumerate(zip(act, exp)):
            assert _is_backend_array(a, xp), f"{what} {k}[{i}]: a {type(a)}, not a {xp.__name__} array"
            assert _dtype_name(a) == _dtype_name(e), \
                f"{what} {k}[{i}]: dtype {a.dtype}, numpy {e.dtype}"
            e = to_np(e)
            scale = max(1.0, float(np.max(np.abs(e), initial=0.0)))
            np.testing.assert_allclose(to_np(a), e, rtol=rtol, atol=atol * scale,
                                       err_msg=f"{what} {k}[{i}]")


# what dask can't do lazily, and why: each raises a clear error naming the
# operation (never a computed value or a wrong number)
DASK_GAPS = {
    "getitem[rows,cols]": "dask has no n-d fancy indexing (two integer index arrays)",
    "take_along_axis": "built on n-d fancy indexing, which dask lacks",
    "getitem[bool mask]": "a boolean mask gives a value-dependent shape (nan in dask)",
    "getitem[bool row mask]": "a boolean mask gives a value-dependent shape (nan in dask)",
    "linalg.solve[batched]": "dask's solve takes one matrix (no stacks)",
    "linalg.eigh": "dask has no eigh",
}


def _is_dask(xp):
    return "dask" in xp.__name__


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_rule_table_matches_numpy(case, any_backend, rng):
    """Value, JVP, VJP and the four second orders, float64."""
    args = case.sample(rng, "float64")
    if _is_dask(any_backend) and case.name in DASK_GAPS:
        # under a transform (outside one, dask runs what it runs, its own way)
        out = to_np(R._xgrad_fn(case, NUMPY)(*[NUMPY.asarray(a) for a in args]))
        dirs = R._directions(rng, args, out)
        with pytest.raises((NotImplementedError, ValueError, TypeError),
                           match="dask|not supported|depends on the values"):
            _results(case, any_backend, args, dirs)
        return
    if case.name in _NEGATIVE_STEP and any_backend.__name__.endswith("torch"):
        # torch has no negative slice steps (docs/backends.md): its own error
        with pytest.raises(ValueError, match="step must be greater than zero"):
            R._xgrad_fn(case, any_backend)(*[any_backend.asarray(a) for a in args])
        return
    out = to_np(R._xgrad_fn(case, NUMPY)(*[NUMPY.asarray(a) for a in args]))
    dirs = R._directions(rng, args, out)
    ref = _results(case, NUMPY, args, dirs)
    _compare(_results(case, any_backend, args, dirs), ref, any_backend, case.name)


_F32 = [c for c in CASES if c.name in ("sin[3x4]", "tanh[3x4]", "multiply[3x4-3x4]", "special.erf[3x4]",
                                       "sum[axis=0,keepdims=False]", "matmul[(3, 4)@(4, 5)]",
                                       "index_add[repeated int array]", "linalg.cholesky")]


@pytest.mark.parametrize("case", _F32, ids=repr)
def test_float32_stays_float32(case, any_backend, rng):
    args = case.sample(rng, "float32")
    out = to_np(R._xgrad_fn(case, NUMPY)(*[NUMPY.asarray(a) for a in args]))
    dirs = R._directions(rng, args, out)
    ref = _results(case, NUMPY, args, dirs)
    _compare(_results(case, any_backend, args, dirs), ref, any_backend, case.name, 1e-5, 1e-6)


def _net(x):
    """A little of everything: elementwise, reduction, matmul, gather."""
    h = xnp.tanh(x @ xnp.sin(x).T)
    return xnp.sum(h[0] * xnp.exp(-x[:, 1])) + xnp.mean(xnp.log1p(x * x)) * 2.0


def test_vmap_of_grad_and_hessian(any_backend, rng):
    x = rng.uniform(-1, 1, (5, 3, 4))
    per = lambda r: xgrad.grad(_net)(r)                                # noqa: E731
    fns = {"vmap(grad)": xgrad.vmap(per),
           "vmap(hessian)": xgrad.vmap(xgrad.hessian(_net)),
           "jacrev": xgrad.jacrev(lambda r: xnp.sin(r) * r[0]),
           "hvp": lambda r: xgrad.hvp(lambda z: _net(z[0]), (r,), (xnp.cos(r),))}
    for name, f in fns.items():
        ref = f(NUMPY.asarray(x))
        got = f(any_backend.asarray(x))
        _compare({name: [got]}, {name: [ref]}, any_backend, name)
    # vmap against a loop, on the backend
    got = to_np(fns["vmap(grad)"](any_backend.asarray(x)))
    loop = np.stack([to_np(per(any_backend.asarray(x[i]))) for i in range(5)])
    np.testing.assert_allclose(got, loop, rtol=RTOL, atol=ATOL)


def test_python_scalars_are_weak(any_backend):
    """A Python scalar takes the array's dtype (float32 stays float32)."""
    x = any_backend.asarray(np.array([0.5, 1.5], dtype=np.float32))
    f = lambda x: xnp.sum(x * 2.5 + 1 - x ** 2)                        # noqa: E731
    assert _dtype_name(f(x)) == "float32"
    g = xgrad.grad(f)(x)
    assert _dtype_name(g) == "float32"
    np.testing.assert_allclose(to_np(g), [1.5, -0.5], rtol=1e-6)


def test_caller_arrays_are_not_written(any_backend):
    x0 = np.arange(6.0).reshape(2, 3)
    x = any_backend.asarray(x0)
    idx = any_backend.asarray(np.array([0, 0, 1]))

    def f(x):
        y = x[idx] * 2.0
        return xnp.sum(y * y)
    g = xgrad.grad(f)(x)
    np.testing.assert_array_equal(to_np(x), x0)
    np.testing.assert_allclose(to_np(g), [[16 * x0[0, j] for j in range(3)],
                                          [8 * x0[1, j] for j in range(3)]])


def test_mixing_backends_names_both(any_backend):
    if _is_dask(any_backend):
        # numpy combines with dask (a numpy weight times a chunked batch: dask)
        out = xnp.add(any_backend.asarray(np.ones(3)), np.ones(3))
        assert _is_backend_array(out, any_backend)
        with pytest.raises(TypeError, match="two array backends"):
            import array_api_strict   # the test extra has it
            xnp.add(any_backend.asarray(np.ones(3)), array_api_strict.ones(3))
        return
    x = any_backend.asarray(np.ones(3))
    with pytest.raises(TypeError, match=r"two array backends \((.*)\)") as e:
        xnp.add(x, np.ones(3))
    assert any_backend.__name__ in str(e.value) and "numpy" in str(e.value)
    with pytest.raises(TypeError, match="two array backends"):
        xgrad.grad(lambda a: xnp.sum(a * np.ones(3)))(x)


def test_jax_arrays_are_immutable_with_a_clear_error(any_backend):
    if not any_backend.__name__.startswith("jax"):
        pytest.skip("jax only")
    x = any_backend.asarray(np.ones(3))

    def f(x):
        y = x * 1.0
        y[1] = 5.0            # a traced value: a functional update
        return xnp.sum(y * y)
    np.testing.assert_allclose(to_np(xgrad.grad(f)(x)), [2.0, 0.0, 2.0])
    with pytest.raises(TypeError, match="immutable"):
        f(x)                  # a plain jax array can't be written: jax's own error


def _strict_devices():
    strict = pytest.importorskip("array_api_strict")
    if not hasattr(strict, "Device"):
        pytest.skip("array_api_strict without Device")
    return strict, strict.Device("device1"), strict.Device("device2")


def test_array_api_strict_results_stay_on_the_device():
    strict, d1, _ = _strict_devices()
    x = strict.asarray(np.linspace(0.1, 1.0, 6).reshape(2, 3), device=d1)
    eye = 3.0 * xnp.eye(2, device=d1)

    def f(x):
        return xnp.sum(xnp.tanh(x) * x[0, :]) + xnp.sum(xnp.linalg.solve(x @ x.mT + eye, x))
    cube = xgrad.vmap(xgrad.grad(lambda r: xnp.sum(r ** 3)))
    tangent = xgrad.jvp(f, (x,), (xnp.ones_like(x),))[1]
    for r in (f(x), xgrad.grad(f)(x), xgrad.hessian(f)(x), cube(x), tangent):
        assert r.device == d1, f"result on {r.device}, input on {d1}"


def _creation_on_device(x):
    """Every creation function given ``device=x.device`` (traced or not)."""
    d, dt = x.device, x.dtype
    made = (xnp.zeros(x.shape, dtype=dt, device=d), xnp.ones(x.shape, dtype=dt, device=d),
            xnp.full(x.shape, 2.0, dtype=dt, device=d), xnp.empty(x.shape, dtype=dt, device=d) * 0,
            xnp.astype(xnp.arange(x.shape[0], device=d), dt),
            xnp.linspace(0.0, 1.0, x.shape[0], dtype=dt, device=d),
            xnp.asarray([1.0] * x.shape[0], dtype=dt, device=d),
            xnp.eye(x.shape[0], dtype=dt, device=d)[0, :])
    # the traced factor first: array_api_strict's operators refuse a traced
    # right operand (a TypeError, not NotImplemented)
    return sum(xnp.sum(xnp.sin(x) * m) for m in made)


def _creation_on_device_cases(x, ones2):
    f = _creation_on_device
    return {"eager": lambda: f(x), "grad": lambda: xgrad.grad(f)(x),
            "vmap": lambda: xgrad.vmap(f)(ones2), "hessian": lambda: xgrad.hessian(f)(x),
            "jit": lambda: xgrad.jit(f)(x), "jacfwd": lambda: xgrad.jacfwd(f)(x)}


def _on_device(lib):
    """``(x, a (2, 3) batch of ones, a result as numpy after a check of its
    device)`` on ``lib``: jax, torch, or array_api_strict's second device."""
    x0 = np.array([0.3, -1.2, 2.0])
    if lib == "strict":
        strict, _, d2 = _strict_devices()

        def on_d2(r):
            assert r.device == d2, f"result on {r.device}, input on {d2}"
            return np.asarray(r.to_device(strict.Device("CPU_DEVICE")))
        return (strict.asarray(x0, device=d2),
                strict.ones((2, 3), dtype=strict.float64, device=d2), on_d2)
    if lib == "jax":
        pytest.importorskip("jax").config.update("jax_enable_x64", True)
        import jax.numpy as mod
    else:
        mod = pytest.importorskip(lib)
    return mod.asarray(x0), mod.ones((2, 3), dtype=mod.float64), to_np


@pytest.mark.parametrize("lib", ["jax", "torch", "strict"])
def test_creation_functions_take_a_traced_arrays_device(lib):
    """``xnp.ones(..., device=x.device)`` where ``x`` is a traced jax or torch
    array or lives on array_api_strict's second device: the constants are
    made by ``x``'s own library on its device, under every transform, with
    the numbers of the same function on numpy."""
    x, ones2, as_np = _on_device(lib)
    want = _creation_on_device_cases(np.array([0.3, -1.2, 2.0]), np.ones((2, 3)))
    for name, call in _creation_on_device_cases(x, ones2).items():
        np.testing.assert_allclose(as_np(call()), np.asarray(want[name]()), rtol=1e-12,
                                   err_msg=name)


def test_array_api_strict_mixing_devices_names_both():
    """Two devices in one operation: a TypeError naming both (the backend's
    own ValueError, turned into xgrad's error for mixed arguments when it
    is raised: no check on every operation)."""
    strict, d1, d2 = _strict_devices()
    x = strict.asarray(np.ones(3), device=d1)
    y = strict.asarray(np.ones(3), device=d2)
    for f in (lambda: xnp.add(x, y), lambda: xgrad.grad(lambda a: xnp.sum(a * y))(x)):
        with pytest.raises(TypeError, match="two devices") as e:
            f()
        assert repr(d1) in str(e.value) and repr(d2) in str(e.value)


_NEGATIVE_STEP = ("getitem[None,...,::-1]", "getitem[::-1,1:4]")
