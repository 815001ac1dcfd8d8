"""Reverse mode's fast paths (one- and two-argument primitives on plain
arrays, factors ``g * d`` kept in the record, add and subtract passing or
negating the cotangent, two records for an operation with two inputs):
values against closed forms, with broadcasting, dtype promotion,
closed-over arrays written after the call, a second order on top, kept
intermediates, the NaN checker, and array_api_strict."""
import importlib.util
import os
import sys

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad.core import RULES
from xgrad.rules import defprim


def test_broadcast_factor_sums_back():
    x = np.linspace(-1.0, 1.0, 3).reshape(3, 1)
    c = np.arange(1.0, 5.0).reshape(1, 4)
    g = xgrad.grad(lambda x: xnp.sum(xnp.sin(x) * c))(x)
    np.testing.assert_allclose(g, np.cos(x) * c.sum(), rtol=1e-14)
    gc = xgrad.grad(lambda c: xnp.sum(xnp.sin(x) * c))(c)
    np.testing.assert_allclose(gc, np.broadcast_to(np.sin(x).sum(), (1, 4)), rtol=1e-14)


def test_factor_dtype_follows_the_input():
    x = np.array([0.5, -0.25], dtype=np.float32)
    c = np.array([2.0, 3.0])                          # float64: the product promotes
    g = xgrad.grad(lambda x: xnp.sum(xnp.exp(x) * c))(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, np.exp(x.astype(np.float64)) * c, rtol=1e-6)


def test_same_tracer_twice_and_scalar_sides():
    x = np.array([1.5, -2.0, 0.25])
    g = xgrad.grad(lambda x: xnp.sum(x * x + 2.0 * x - x * 3.0 + x / 4.0))(x)
    np.testing.assert_allclose(g, 2 * x + 2.0 - 3.0 + 0.25, rtol=1e-14)


def test_vjp_fn_owns_the_factor():
    x = np.array([1.0, 2.0, 3.0])
    c = np.array([4.0, 5.0, 6.0])
    _, f_vjp = xgrad.vjp(lambda x: xnp.tanh(x) * c, x)
    want = (1 - np.tanh(x) ** 2) * c
    c[:] = 0.0                                          # the caller writes its array afterwards
    np.testing.assert_allclose(f_vjp(np.ones(3))[0], want, rtol=1e-14)
    np.testing.assert_allclose(f_vjp(np.ones(3))[0], want, rtol=1e-14)   # tape kept


def test_second_order_through_factors():
    x = np.array([0.3, -0.7, 1.1])
    f = lambda x: xnp.sum(x * x * xnp.sin(x))     # noqa: E731
    h = xgrad.hessian(f)(x)
    want = 2 * np.sin(x) + 4 * x * np.cos(x) - x * x * np.sin(x)
    np.testing.assert_allclose(h, np.diag(want), rtol=1e-12, atol=1e-14)
    hv = xgrad.jvp(xgrad.grad(f), (x,), (np.ones(3),))[1]
    np.testing.assert_allclose(hv, want, rtol=1e-12)


def test_nan_safe_where_with_factors():
    x = np.array([-1.0, 4.0])
    g = xgrad.grad(lambda x: xnp.sum(xnp.where(x > 0, xnp.sqrt(x), 0.0) * 3.0))(x)
    np.testing.assert_allclose(g, [0.0, 3.0 * 0.5 / 2.0], rtol=1e-14)


def test_array_api_strict():
    xps = pytest.importorskip("array_api_strict")
    x = xps.asarray([0.5, 1.5])
    c = xps.asarray([2.0, -1.0])
    g = xgrad.grad(lambda x: xnp.sum(xnp.cos(x) * c))(x)
    assert type(g) is type(x)
    np.testing.assert_allclose(np.asarray(g), -np.sin([0.5, 1.5]) * np.array([2.0, -1.0]), rtol=1e-14)


# rows this sampling can't call: integer-order arguments, or a derivative in a
# parameter that refuses (its first order works: tested in test_special.py)
_UNSAMPLED = {"betainc_da", "betainc_db", "gammainc_da", "hyp1f1_da", "hyp1f1_db", "hyp2f1_da",
              "hyp2f1_db", "hyp2f1_dc", "sph_harm_y", "zeta_dx"}


def _rows_with_factors():
    return sorted(n for n, p in RULES.items() if p.vjp_kinds is not None)


@pytest.mark.parametrize("name", _rows_with_factors())
def test_factor_agrees_with_the_rule(name):
    """Each ``vjp_factor`` entry (a function, or 1 / -1) gives the same
    cotangent as the row's staged ``vjp`` (the table's two statements of
    one derivative agree), on a sample of the row's domain."""
    p = RULES[name]
    lo, hi = p.domain or (-1.0, 1.0)
    rng = np.random.RandomState(len(name))
    args = [rng.uniform(lo, hi, 4) for _ in p.vjp_factor]
    try:
        ans = p.impl(xnp, *args)
    except TypeError:
        assert name in _UNSAMPLED
        return
    g = rng.standard_normal(4)
    checked = 0
    for i, (mk, d, kind) in enumerate(zip(p.vjp, p.vjp_factor, p.vjp_kinds)):
        if mk is None:
            assert d is None and kind is None
            continue
        try:
            want = np.asarray(mk(ans, *args)(g))
        except (NotImplementedError, TypeError):    # a row that needs integer arguments, or
            assert name in _UNSAMPLED               # a derivative in a parameter it refuses
            continue
        got = (g * np.asarray(d(ans, *args)) if kind == 1 else g if kind == 2 else -g)
        assert kind in (1, 2, 3)
        np.testing.assert_array_equal(got, want, err_msg=f"{name}: argument {i}")
        checked += 1
    assert checked or name in _UNSAMPLED


def test_add_subtract_broadcast_both_sides():
    a = np.linspace(-1.0, 1.0, 3).reshape(3, 1)
    b = np.arange(1.0, 5.0).reshape(1, 4)
    w = np.arange(12.0).reshape(3, 4)
    f = lambda a, b: xnp.sum(w * (xnp.sin(a) + b - xnp.cos(b) - a))   # noqa: E731
    ga, gb = xgrad.grad(f, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, (np.cos(a) - 1.0) * w.sum(1, keepdims=True), rtol=1e-14)
    np.testing.assert_allclose(gb, (1.0 + np.sin(b)) * w.sum(0, keepdims=True), rtol=1e-14)
    # the same value on both sides: two records for one node, both accumulated
    x = np.array([0.5, -2.0])
    np.testing.assert_allclose(xgrad.grad(lambda x: xnp.sum((x + x) * (x - 3.0 * x)))(x),
                               -8.0 * x, rtol=1e-14)
    np.testing.assert_array_equal(xgrad.grad(lambda x: xnp.sum(x - x))(x), 0.0)
    np.testing.assert_array_equal(xgrad.grad(lambda x: xnp.sum(-x + (+x) * 2.0))(x), 1.0)


def test_add_subtract_dtypes_and_higher_orders():
    x = np.array([0.5, -0.25], dtype=np.float32)
    c = np.array([2.0, 3.0])                     # float64: the sum promotes
    g = xgrad.grad(lambda x: xnp.sum(xnp.sin(c - x)))(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, -np.cos(c - x.astype(np.float64)), rtol=1e-6)
    y = np.array([0.3, 1.2])
    f = lambda y: xnp.sum(xnp.exp(y - 1.0) * (y + y) - y * (2.0 - y))   # noqa: E731
    h = xgrad.hessian(f)(y)
    # f = 2 y e^(y-1) - 2 y + y^2: f'' = (4 + 2 y) e^(y-1) + 2
    np.testing.assert_allclose(h, np.diag((4 + 2 * y) * np.exp(y - 1.0) + 2.0), rtol=1e-12)
    hv = xgrad.jvp(xgrad.grad(f), (y,), (np.ones(2),))[1]
    np.testing.assert_allclose(hv, (4 + 2 * y) * np.exp(y - 1.0) + 2.0, rtol=1e-12)


def test_kept_intermediate_of_a_two_input_op():
    """``grad_intermediates`` keeps an output's cotangent that two records
    (one per input of the op) read."""
    x = np.array([0.5, 1.5])
    y = np.array([2.0, -1.0])

    def f(x, y):
        s = xgrad.debug.tag(x * y, "s")
        t = xgrad.debug.tag(s - x, "t")
        return xnp.sum(xnp.sin(t))
    (gx, gy), inter = xgrad.debug.grad_intermediates(f, argnums=(0, 1))(x, y)
    ct = np.cos(x * y - x)
    np.testing.assert_allclose(inter["t"], ct, rtol=1e-14)
    np.testing.assert_allclose(inter["s"], ct, rtol=1e-14)
    np.testing.assert_allclose(gx, ct * (y - 1.0), rtol=1e-14)
    np.testing.assert_allclose(gy, ct * x, rtol=1e-14)


def test_nan_check_names_the_backward_op():
    """The NaN checker names the primitive whose backward step made an Inf,
    and its forward call site, with ops of two recorded inputs (two records,
    one site each) before and after it on the tape."""
    x = np.array([0.0, 1.0])
    line = {}

    def f(x):
        u = x * x + x
        line["sqrt"] = sys._getframe().f_lineno + 1
        r = xnp.sqrt(u)                     # sqrt'(0) = inf: Inf going back
        return xnp.sum((r - u) * (u + r))
    with xgrad.debug.nan_check():
        with pytest.raises(FloatingPointError) as e:
            xgrad.grad(f)(x)
    msg = str(e.value)
    assert "backward" in msg and "VJP of 'sqrt'" in msg, msg
    assert f"test_vjp_fastpath.py:{line['sqrt']}" in msg, msg


def _perop():
    """benchmarks/perop.py: its chain of cheap ops and its reverse mode by
    hand in numpy (each local derivative computed on the way forward as the
    table's rule does, then ``g * d`` in reverse)."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "benchmarks", "perop.py")
    spec = importlib.util.spec_from_file_location("perop", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_scalar_factor_chain_bit_for_bit(dtype):
    """The shortest paths (tracer op Python scalar, unary factor rows, the
    backward's direct multiply by an array or a Python scalar, add passing
    its cotangent on) give exactly numpy's numbers, in the input's dtype."""
    perop = _perop()
    ops = list(perop.CYCLE) * 5
    f = perop.chain(xnp, ops)
    x = np.random.RandomState(3).uniform(-1, 1, 6).astype(dtype)
    g = xgrad.grad(f)(x)
    want = perop.manual_grad(x, ops)
    assert g.dtype == dtype and want.dtype == dtype
    np.testing.assert_array_equal(g, want)
    # the NaN checker's path (xnp.multiply in the backward pass) agrees
    with xgrad.debug.nan_check():
        np.testing.assert_array_equal(xgrad.grad(f)(x), want)


def test_scalar_factor_that_changes_the_dtype():
    """tracer * complex scalar: the record casts the cotangent back to the
    input's dtype (the shortest path's fix), float32 stays float32."""
    x = np.array([0.5, -1.5], dtype=np.float32)
    g = xgrad.grad(lambda x: xnp.sum(xnp.real(xnp.sin(x) * (2.0 + 3.0j))))(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 2.0 * np.cos(x), rtol=1e-6)
    g = xgrad.grad(lambda x: xnp.sum(xnp.imag(xnp.sin(x) * (2.0 + 3.0j))))(x)
    np.testing.assert_allclose(g, 3.0 * np.cos(x), rtol=1e-6)


def test_tanh_derivative_at_higher_orders():
    """tanh's derivative (tanh_deriv's impl for a plain array, bind for a
    tracer): second and third derivatives against the closed forms."""
    x = np.array([-0.7, 0.2, 1.3])
    t = np.tanh(x)
    f = lambda x: xnp.sum(xnp.tanh(x))                     # noqa: E731
    np.testing.assert_allclose(xgrad.grad(f)(x), 1 - t * t, rtol=1e-14)
    np.testing.assert_allclose(xgrad.hessian(f)(x), np.diag(-2 * t * (1 - t * t)), rtol=1e-13)
    d3 = xgrad.grad(lambda x: xnp.sum(xgrad.grad(lambda y: xnp.sum(xgrad.grad(f)(y)))(x)))(x)
    np.testing.assert_allclose(d3, -2 * (1 - t * t) * (1 - 3 * t * t), rtol=1e-12)


def test_vjp_factor_with_multiple_results_is_refused():
    with pytest.raises(ValueError, match="multiple_results"):
        defprim("_test_two_results", lambda xp, x: (x, x), family="elementwise",
                multiple_results=True, vjp_factor=(lambda ans, x: 1.0,))
    assert "_test_two_results" not in RULES
