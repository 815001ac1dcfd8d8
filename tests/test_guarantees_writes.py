"""Guarantee: a write never gives a silent constant, and no transform writes
into the caller's arrays.

- ``w[i] = traced`` into a plain array (numpy or array_api_strict) raises a
  TypeError naming the array and the line;
- ``w = xnp.zeros_like(x); w[i] = ...`` with a traced ``x`` records the
  write (checked against jax's ``.at[].set``);
- values a transform hands to user code (checkpoint's runs, stop_gradient,
  custom_vjp fwd/bwd, custom_jvp function and rule, vmap's unmapped
  arguments) are traced values or copies: writing into them leaves the
  caller's arrays bitwise unchanged.
"""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from helpers import assert_close, from_np, to_np


# ----- writes of traced values into plain arrays -----

def _plain_write_error(excinfo):
    """numpy reports the failed element write as ``ValueError: setting an
    array element with a sequence`` caused by xgrad's TypeError; slice writes
    and array_api_strict raise the TypeError itself."""
    e = excinfo.value
    if not isinstance(e, TypeError):
        e = e.__cause__
    assert isinstance(e, TypeError)
    return str(e)


@pytest.mark.parametrize("make", ["np.zeros", "np.empty"])
def test_plain_buffer_element_write_raises(make):
    def f(v):
        buf = eval(make)(3)
        buf[1] = v[1] * 2.0
        return xnp.sum(buf)
    with pytest.raises((TypeError, ValueError)) as excinfo:
        xgrad.grad(f)(np.array([1.0, 2.0, 3.0]))
    msg = _plain_write_error(excinfo)
    assert "'buf'" in msg and "buf[1] = v[1] * 2.0" in msg
    assert "zeros_like" in msg and "test_guarantees_writes.py" in msg


@pytest.mark.parametrize("make", ["xnp.zeros", "xnp.empty", "xnp.ones"])
def test_namespace_buffer_inside_transform_records_writes(make):
    """Inside a transform xgrad.numpy's creation functions give constants of
    it (traced values), so JAX-style code ``R = xnp.zeros(3); R[1] = v``
    (or ``R.at[1].set(v)``) differentiates."""
    def f(v):
        buf = eval(make)(3)
        buf[0] = 0.0
        buf[2] = 0.0
        buf[1] = v[1] * 2.0
        return xnp.sum(buf * buf)
    np.testing.assert_allclose(xgrad.grad(f)(np.array([1.0, 2.0, 3.0])), [0.0, 16.0, 0.0])


def test_plain_buffer_slice_write_raises():
    def f(v):
        out = np.zeros(3)
        out[0:2] = xnp.sin(v[0:2])
        return xnp.sum(out)
    with pytest.raises(TypeError, match="'out'"):
        xgrad.grad(f)(np.array([1.0, 2.0, 3.0]))


def test_plain_buffer_write_raises_strict():
    s = pytest.importorskip("array_api_strict")

    def f(v):
        w = s.zeros(3, dtype=s.float64)
        w[1] = v[1] * 2.0
        return xnp.sum(w)
    with pytest.raises(TypeError, match="'w'"):
        xgrad.grad(f)(s.asarray([1.0, 2.0, 3.0]))


@pytest.mark.parametrize("transform", ["jvp", "vmap", "hessian"])
def test_plain_buffer_write_raises_under_every_transform(transform):
    def f(v):
        w = np.zeros(3)
        w[0] = v[0]
        return xnp.sum(w * v)
    v = np.array([1.0, 2.0, 3.0])
    with pytest.raises((TypeError, ValueError)) as excinfo:
        if transform == "jvp":
            xgrad.jvp(f, (v,), (v,))
        elif transform == "vmap":
            xgrad.vmap(f)(np.ones((2, 3)))
        else:
            xgrad.hessian(f)(v)
    assert "'w'" in _plain_write_error(excinfo)


def test_integer_writes_and_plain_values_still_work():
    # an index or an integer count carries no derivative: no error
    def f(v):
        counts = np.zeros(3, dtype=np.int64)
        counts[0] = xnp.argmax(v)
        plain = np.zeros(2)
        plain[0] = 5.0
        return xnp.sum(v) * float(counts[0] + plain[0])
    assert_close(xgrad.grad(f)(np.array([1.0, 3.0, 2.0])), np.full(3, 6.0))


# ----- traced buffers record their writes -----

def _fill(ns, v, set_at):
    w = ns.zeros_like(v)
    for i in range(3):
        w = set_at(w, i, v[i] * 2.0 + ns.sin(v[(i + 1) % 3]))
    return ns.sum(w * w)


def _fill_xgrad(v):
    def set_at(w, i, val):
        w[i] = val
        return w
    return _fill(xnp, v, set_at)


def _jax_twin(jax):
    jnp = jax.numpy
    return lambda v: _fill(jnp, v, lambda w, i, val: w.at[i].set(val))


@pytest.mark.parametrize("kind", ["grad", "jacfwd", "hessian", "checkpoint", "vmap-grad"])
def test_zeros_like_buffer_records_writes(xp, jax, kind):
    v = np.array([0.3, -0.2, 0.9])
    ref = _jax_twin(jax)
    if kind == "vmap-grad":
        V = np.array([[0.3, -0.2, 0.9], [1.1, 0.4, -0.6]])
        got = xgrad.vmap(xgrad.grad(_fill_xgrad))(from_np(xp, V))
        assert_close(got, jax.vmap(jax.grad(ref))(V))
        return
    x = from_np(xp, v)
    if kind == "grad":
        got, want = xgrad.grad(_fill_xgrad)(x), jax.grad(ref)(v)
    elif kind == "jacfwd":
        got, want = xgrad.jacfwd(_fill_xgrad)(x), jax.jacfwd(ref)(v)
    elif kind == "hessian":
        got, want = xgrad.hessian(_fill_xgrad)(x), jax.hessian(ref)(v)
    else:
        got, want = xgrad.grad(xgrad.checkpoint(_fill_xgrad))(x), jax.grad(ref)(v)
    assert_close(got, want)


def test_vmap_buffer_is_per_example(jax):
    # under vmap the buffer is batched like x: each example writes its own
    def f(v):
        w = xnp.zeros_like(v)
        w[0] = v[1] * v[2]
        return w
    V = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert_close(xgrad.vmap(f)(V), np.array([[6.0, 0.0, 0.0], [30.0, 0.0, 0.0]]))
    jf = lambda v: jax.numpy.zeros_like(v).at[0].set(v[1] * v[2])
    assert_close(xgrad.vmap(xgrad.jacrev(f))(V), jax.vmap(jax.jacrev(jf))(V))


@pytest.mark.parametrize("name", ["ones_like", "full_like", "empty_like"])
def test_other_like_buffers_record_writes(name):
    def f(v):
        w = getattr(xnp, name)(v, 2.0) if name == "full_like" else getattr(xnp, name)(v)
        w[:] = 0.0
        w[1] = v[0] * v[2]
        return xnp.sum(w)
    assert_close(xgrad.grad(f)(np.array([2.0, 5.0, 3.0])), np.array([3.0, 0.0, 2.0]))


def test_zeros_like_of_plain_array_is_plain():
    # a plain (writable, untraced) numpy array; of the small subclass with .at
    z = xnp.zeros_like(np.ones(3))
    assert isinstance(z, np.ndarray) and not isinstance(z, xgrad.core.Tracer) and not z.any()
    z[0] = 1.0
    assert z.at[1].set(2.0).tolist() == [1.0, 2.0, 0.0]


# ----- values handed to user code are not the caller's buffers -----

def _writer(x):
    x[0] = 0.0
    return xnp.sum(x * x)


@xgrad.custom_vjp
def _cv(x):
    return xnp.sum(xnp.sin(x))


def _cv_fwd(x):
    x[0] = 0.0
    return _cv(x), x


def _cv_bwd(res, g):
    res[1] = 5.0
    return (g * xnp.cos(res),)


_cv.defvjp(_cv_fwd, _cv_bwd)


@xgrad.custom_jvp
def _cj(x):
    x[0] = 0.0
    return xnp.sum(xnp.sin(x))


@_cj.defjvp
def _cj_rule(primals, tangents):
    (x,), (t,) = primals, tangents
    x[1] = 0.0
    t[2] = 0.0
    return _cj(x), xnp.sum(xnp.multiply(xnp.cos(x), t))


def _stop(x):
    y = xgrad.stop_gradient(x)
    y[0] = 0.0
    return xnp.sum(x * y)


def _vmapped(C):
    def body(w, row):
        w[0] = 7.0
        return xnp.sum(w * row)
    return xgrad.vmap(body, in_axes=(None, 0))(C, np.ones((2, 3)))


CASES = {
    "checkpoint-grad": lambda C: xgrad.grad(xgrad.checkpoint(_writer))(C),
    "checkpoint-dots": lambda C: xgrad.grad(xgrad.checkpoint(_writer, policy="dots"))(C),
    "checkpoint-jvp": lambda C: xgrad.jvp(xgrad.checkpoint(_writer), (C,), (np.ones(3),)),
    "checkpoint-vmap": lambda C: xgrad.vmap(xgrad.grad(xgrad.checkpoint(_writer)))(
        xnp.stack([C, C])),
    "stop_gradient": lambda C: xgrad.grad(_stop)(C),
    "custom_vjp": lambda C: xgrad.grad(_cv)(C),
    "custom_vjp-jvp": lambda C: xgrad.jvp(_cv, (C,), (np.ones(3),)),
    "custom_jvp-grad": lambda C: xgrad.grad(_cj)(C),
    "custom_jvp-jvp": lambda C: xgrad.jvp(_cj, (C,), (np.ones(3),)),
    "vmap-unmapped": _vmapped,
    "grad": lambda C: xgrad.grad(_writer)(C),
    "hessian": lambda C: xgrad.hessian(_writer)(C),
    "laplacian": lambda C: xgrad.laplacian(_writer)(C),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_user_code_never_writes_caller_arrays(case):
    C = np.array([1.0, 2.0, 3.0])
    C0 = C.copy()
    CASES[case](C)
    assert np.array_equal(C, C0), f"{case} wrote the caller's array: {C}"


def test_written_copies_give_the_user_codes_numbers():
    # the copies behave as the user's code says: fwd zeroes x[0], bwd sets res[1]
    C = np.array([1.0, 2.0, 3.0])
    assert_close(xgrad.grad(_cv)(C), np.cos(np.array([0.0, 5.0, 3.0])))
    # the checkpointed writer: d/dx sum(x*x) with x[0] overwritten
    assert_close(xgrad.grad(xgrad.checkpoint(_writer))(C), np.array([0.0, 4.0, 6.0]))
    # tangent t[2] zeroed, primal x[0] (function) and x[1] (rule) zeroed
    _, t = xgrad.jvp(_cj, (C,), (np.ones(3),))
    assert_close(t, np.cos(1.0) + np.cos(0.0))


def test_custom_vjp_bwd_writes_do_not_reach_the_tape():
    # a vjp_fn called twice sees the residuals fwd made, whatever bwd wrote
    C = np.array([1.0, 2.0, 3.0])
    _, f_vjp = xgrad.vjp(_cv, C)
    first = to_np(f_vjp(np.asarray(1.0))[0])
    second = to_np(f_vjp(np.asarray(1.0))[0])
    assert np.array_equal(first, second)


def test_strict_backend_user_code_never_writes_caller_arrays():
    s = pytest.importorskip("array_api_strict")
    C = s.asarray([1.0, 2.0, 3.0])
    C0 = np.asarray(C).copy()
    xgrad.grad(xgrad.checkpoint(_writer))(C)
    xgrad.grad(_stop)(C)
    xgrad.grad(_cv)(C)
    xgrad.grad(_cj)(C)
    assert np.array_equal(np.asarray(C), C0)


# ----- arguments that are not differentiated -----

def _writes_c(x, c):
    c[0] = 100.0
    return xnp.sum(x * c)


def _scan_writes_slice(x, c):
    def body(carry, row):
        row[...] = 100.0
        return carry + xnp.sum(x * row), None
    return xgrad.lax.scan(body, 0.0, c)[0]


def _map_writes_slice(x, c):
    def body(row):
        row[...] = 100.0
        return xnp.sum(x * row)
    return xnp.sum(xgrad.lax.map(body, c))


_ONES = np.ones(3)
NONDIFF = {
    "grad": lambda f, C: xgrad.grad(f)(_ONES, C),
    "value_and_grad": lambda f, C: xgrad.value_and_grad(f)(_ONES, C),
    "jacrev": lambda f, C: xgrad.jacrev(f)(_ONES, C),
    "jacfwd": lambda f, C: xgrad.jacfwd(f)(_ONES, C),
    "jacfwd-aux": lambda f, C: xgrad.jacfwd(lambda c, x: (f(x, c), 0.0), argnums=1,
                                            has_aux=True)(C, _ONES),
    "hessian": lambda f, C: xgrad.hessian(f)(_ONES, C),
    "jvp": lambda f, C: xgrad.jvp(f, (_ONES, C), (_ONES, None)),
    "kwargs": lambda f, C: xgrad.grad(lambda x, c=None: f(x, c))(_ONES, c=C),
}


@pytest.mark.parametrize("body", ["plain", "scan", "map"])
@pytest.mark.parametrize("case", sorted(NONDIFF))
def test_arguments_not_differentiated_are_never_written(case, body):
    """An argument that is not differentiated reaches user code (and a
    lax.scan or lax.map body, as its step slices) as a read-only view on
    numpy: a write raises, as writing into a JAX array does, and the
    caller's array stays bitwise unchanged."""
    f = {"plain": _writes_c, "scan": _scan_writes_slice, "map": _map_writes_slice}[body]
    C = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]) if body != "plain" \
        else np.array([1.0, 2.0, 3.0])
    C0 = C.copy()
    with pytest.raises(ValueError, match="read-only"):
        NONDIFF[case](f, C)
    assert np.array_equal(C, C0)


def test_integer_primal_of_jvp_and_vjp_is_never_written():
    k = np.arange(3)

    def f(x, k):
        k[0] = 7
        return x * k
    for call in (lambda: xgrad.jvp(f, (_ONES, k), (_ONES, None)),
                 lambda: xgrad.vjp(f, _ONES, k), lambda: xgrad.linearize(f, _ONES, k)):
        with pytest.raises(ValueError, match="read-only"):
            call()
    assert np.array_equal(k, np.arange(3))


def test_arguments_not_differentiated_other_backends_get_copies():
    s = pytest.importorskip("array_api_strict")
    C = s.asarray([1.0, 2.0, 3.0])
    g = xgrad.grad(_writes_c)(s.asarray(_ONES), C)
    assert np.array_equal(np.asarray(C), [1.0, 2.0, 3.0])
    assert_close(g, [100.0, 2.0, 3.0])          # the user code's own numbers
