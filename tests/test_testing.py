"""xgrad.testing: check_grads passes on correct functions (orders 1-3, every
mode) and catches wrong custom rules with a message that names the argument,
mode, order, worst element and both values; check_derivative_properties;
numerical_jvp; the hypothesis strategies."""
import math
import re

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad.testing import check_derivative_properties, numerical_jvp
from helpers import assert_close, from_np

X = np.array([-1.0, 0.25, 0.5, 1.5, 0.9, -0.3])
_MSG = re.compile(r"check_grads: (?P<what>.+?) mismatch, order (?P<order>\d+), mode '(?P<mode>[^']+)', "
                  r"argument (?P<arg>\S+): worst element \((?P<idx>[\d, ]*)\): automatic "
                  r"(?P<auto>\S+) vs numerical (?P<num>\S+) \(atol=(?P<atol>\S+), rtol=(?P<rtol>\S+)\)")


def _parse(excinfo):
    m = _MSG.fullmatch(str(excinfo.value))
    assert m, str(excinfo.value)
    d = m.groupdict()
    d["idx"] = tuple(int(k) for k in d["idx"].split(",") if k.strip())
    d["auto"], d["num"] = float(d["auto"]), float(d["num"])
    return d


def smooth(x):
    return xnp.sin(x) * xnp.exp(x) + x ** 3


# ----- functions with wrong custom rules -----

@xgrad.custom_vjp
def bad_crelu(x):                      # clipped ReLU whose bwd forgets the mask
    return xnp.minimum(xnp.maximum(x, 0.0), 1.0)


bad_crelu.defvjp(lambda x: (bad_crelu(x), x), lambda x, g: (g,))


@xgrad.custom_vjp
def good_crelu(x):
    return xnp.minimum(xnp.maximum(x, 0.0), 1.0)


good_crelu.defvjp(lambda x: (good_crelu(x), x),
                  lambda x, g: (xnp.where((x > 0.0) & (x < 1.0), g, 0.0),))


@xgrad.custom_jvp
def bad_sin(x):                        # tangent 1.5x too big
    return xnp.sin(x)


bad_sin.defjvp(lambda p, t: (bad_sin(p[0]), xnp.multiply(1.5 * xnp.cos(p[0]), t[0])))


@xgrad.custom_jvp
def frozen_sin(x):                     # right first derivative, wrong second (cos x frozen)
    return xnp.sin(x)


frozen_sin.defjvp(lambda p, t: (frozen_sin(p[0]),
                                xnp.multiply(xnp.cos(xgrad.stop_gradient(p[0])), t[0])))


# --------------------------------------------------------------------------
# check_grads passes on correct functions

@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("modes", [("fwd",), ("rev",), ("fwd", "rev")])
def test_check_grads_passes(order, modes, xp):
    xgrad.check_grads(smooth, (from_np(xp, X),), order=order, modes=modes)


def test_check_grads_multiple_and_pytree_arguments():
    p = {"w": X, "b": np.asarray(0.2)}
    f = lambda p, y: {"s": xnp.sum(p["w"] * y) + xnp.sin(p["b"]), "v": xnp.tanh(y) * p["b"]}
    xgrad.check_grads(f, (p, X[::-1].copy()), order=2)
    xgrad.check_grads(lambda a, b: a * xnp.sin(b), (0.5, 1.3), order=3)   # Python floats
    xgrad.check_grads(good_crelu, (X,), order=2)
    xgrad.check_grads(xgrad.checkpoint(smooth), (X,), order=2)


def test_check_grads_modes_string_and_errors():
    xgrad.check_grads(smooth, (X,), modes="rev")
    with pytest.raises(ValueError, match=r"modes must be a subset of \('fwd', 'rev'\)"):
        xgrad.check_grads(smooth, (X,), modes=("bwd",))
    with pytest.raises(ValueError, match="modes must be a subset"):
        xgrad.check_grads(smooth, (X,), modes=())
    with pytest.raises(TypeError, match="args must be a tuple"):
        xgrad.check_grads(smooth, X)


def test_check_grads_float32(xp):
    x32 = from_np(xp, X.astype(np.float32))
    xgrad.check_grads(smooth, (x32,), order=2)
    with pytest.raises(AssertionError) as e:
        xgrad.check_grads(bad_crelu, (x32,), modes=("fwd",))
    d = _parse(e)
    assert (d["atol"], d["rtol"]) == ("0.05", "0.05")      # float32 defaults
    assert X[d["idx"]] > 1.0 or X[d["idx"]] < 0.0


# --------------------------------------------------------------------------
# check_grads catches wrong rules

def test_catches_wrong_custom_vjp_forward_mode():
    # forward mode of a custom_vjp follows bwd (transposed): the tangent leaks
    # through where the mask should have zeroed it
    with pytest.raises(AssertionError) as e:
        xgrad.check_grads(bad_crelu, (X,), order=1, modes=("fwd",))
    d = _parse(e)
    assert d["what"] == "JVP" and d["order"] == "1" and d["mode"] == "fwd" and d["arg"] == "0"
    assert len(d["idx"]) == 1 and not 0.0 < X[d["idx"][0]] < 1.0     # an element off the mask
    assert d["num"] == 0.0                                          # the true derivative there
    assert abs(d["auto"]) > 1e-3


def test_catches_wrong_custom_vjp_reverse_mode():
    with pytest.raises(AssertionError) as e:
        xgrad.check_grads(bad_crelu, (X,), order=1, modes=("rev",))
    d = _parse(e)
    assert d["what"] == "VJP" and d["order"] == "1" and d["mode"] == "rev" and d["arg"] == "0"
    assert abs(d["auto"] - d["num"]) > 1e-3
    xgrad.check_grads(good_crelu, (X,), order=1, modes=("rev",))


def test_reverse_mode_message_locates_the_wrong_element():
    with pytest.raises(AssertionError) as e:
        xgrad.check_grads(bad_crelu, (X,), order=1, modes=("rev",))
    d = _parse(e)
    assert len(d["idx"]) == 1 and not 0.0 < X[d["idx"][0]] < 1.0
    assert d["num"] == 0.0


def test_catches_wrong_custom_vjp_in_second_argument():
    @xgrad.custom_vjp
    def f(x, y):
        return x * y
    f.defvjp(lambda x, y: (f(x, y), (x, y)), lambda r, g: (g * r[1], g * r[1]))   # 2nd wrong
    with pytest.raises(AssertionError) as e:
        xgrad.check_grads(f, (X, X[::-1] + 2.0), modes=("rev",))
    d = _parse(e)
    assert d["arg"].startswith("1"), d


def test_catches_wrong_custom_jvp():
    with pytest.raises(AssertionError) as e:
        xgrad.check_grads(bad_sin, (X,), order=1, modes=("fwd",))
    d = _parse(e)
    assert d["mode"] == "fwd" and d["arg"] == "0"
    assert math.isclose(d["auto"], 1.5 * d["num"], rel_tol=1e-5)
    with pytest.raises(AssertionError) as e:
        xgrad.check_grads(bad_sin, (X,), order=1, modes=("rev",))   # reverse transposes the rule
    d = _parse(e)
    assert d["mode"] == "rev"
    assert math.isclose(d["auto"], 1.5 * d["num"], rel_tol=1e-5)


@pytest.mark.parametrize("modes", [("fwd",), ("rev",)])
def test_catches_wrong_second_derivative_only_at_order_2(modes):
    xgrad.check_grads(frozen_sin, (X,), order=1, modes=modes)
    with pytest.raises(AssertionError) as e:
        xgrad.check_grads(frozen_sin, (X,), order=2, modes=modes)
    d = _parse(e)
    assert d["order"] == "2"
    assert "inside" in d["mode"]
    if modes == ("fwd",):               # d2 = 0 where -sin x is expected
        assert d["auto"] == 0.0 and d["num"] != 0.0


def test_tolerances_and_eps_are_used():
    # huge tolerances accept the wrong rule; default ones reject it
    xgrad.check_grads(bad_sin, (X,), modes=("fwd",), atol=10.0, rtol=10.0)
    with pytest.raises(AssertionError, match=r"atol=1e-07, rtol=0"):
        xgrad.check_grads(bad_sin, (X,), modes=("fwd",), atol=1e-7, rtol=0.0)
    # a big step makes the central difference of x^3 wrong by eps^2 * t^3
    with pytest.raises(AssertionError):
        xgrad.check_grads(lambda x: x ** 3, (X,), modes=("fwd",), eps=0.5)
    xgrad.check_grads(lambda x: x ** 3, (X,), modes=("fwd",), eps=1e-6)


def test_check_grads_integer_argument_order_2():
    xgrad.check_grads(lambda x, n: x ** n, (X, np.array(3)), order=1)      # fine
    xgrad.check_grads(lambda x, n: x ** n, (X, np.array(3)), order=2)


@pytest.mark.parametrize("case", ["holomorphic", "complex_to_real", "real_to_complex"])
def test_check_grads_complex_reverse_mode(case):
    z = X + 1j * X[::-1]
    fun, arg = {"holomorphic": (lambda z: xnp.sin(z) * z, z),
                "complex_to_real": (lambda z: xnp.real(z * xnp.conj(z)), z),
                "real_to_complex": (lambda x: xnp.exp(1j * x), X)}[case]
    xgrad.check_grads(fun, (arg,), order=1, modes=("fwd",))                # fine
    xgrad.check_grads(fun, (arg,), order=1, modes=("rev",))


# --------------------------------------------------------------------------
# numerical_jvp, check_derivative_properties

def test_numerical_jvp_closed_form():
    t = np.linspace(0.1, 0.6, X.size)
    (num,) = numerical_jvp(xnp.sin, (X,), (t,), eps=1e-6)
    assert_close(num, np.cos(X) * t, rtol=1e-8, atol=1e-9)
    num = numerical_jvp(lambda a, b: (a * b, a + b), (X, 2 * X), (t, t), eps=1e-5)
    assert_close(num[0], t * 2 * X + X * t, rtol=1e-8, atol=1e-9)
    assert_close(num[1], 2 * t, rtol=1e-8, atol=1e-9)


def test_check_derivative_properties_passes_on_smooth(xp):
    f = lambda x: xnp.sum(xnp.sin(x) * xnp.flip(x) ** 2) + xnp.prod(xnp.cos(x))
    check_derivative_properties(f, (from_np(xp, np.array([0.3, -0.5, 0.9])),))


def test_check_derivative_properties_catches_asymmetric_hessian():
    @xgrad.custom_vjp
    def asym(x):                                  # claims grad (x1, 2 x0): not a gradient field
        return x[0] * x[1]
    asym.defvjp(lambda x: (asym(x), x), lambda x, g: (g * xnp.stack([x[1], 2.0 * x[0]]),))
    with pytest.raises(AssertionError, match=r"Hessian symmetry mismatch, order 2, "
                                             r"mode 'fwd-over-rev'.*worst element \((1, 0|0, 1)\)"):
        check_derivative_properties(asym, (np.array([0.3, -0.5]),))


# --------------------------------------------------------------------------
# hypothesis strategies (each test skips without hypothesis)

SMOOTH = ["sin", "cos", "tanh", "exp", "log", "sqrt", "atan", "sinh", "log1p", "reciprocal",
          "square", "asinh"]


def _given(*strategies, n=25):
    hyp = pytest.importorskip("hypothesis")
    return lambda f: hyp.settings(max_examples=n, deadline=None, derandomize=True)(
        hyp.given(*strategies)(f))


def test_arrays_strategy_in_domain():
    pytest.importorskip("hypothesis")
    from xgrad.testing import arrays

    @_given(arrays((3, 2), elements=(-1.0, 2.0)))
    def check(a):
        assert isinstance(a, np.ndarray) and a.shape == (3, 2) and a.dtype == np.float64
        assert np.all((a >= -1.0) & (a <= 2.0)) and np.all(np.isfinite(a))
    check()


def test_arrays_strategy_float32_strict():
    pytest.importorskip("hypothesis")
    xs = pytest.importorskip("array_api_strict")
    from xgrad.testing import arrays

    @_given(arrays((4,), dtype="float32", elements=(0.25, 4.0), xp=xs), n=10)
    def check(a):
        assert type(a).__module__.startswith("array_api_strict")
        assert a.dtype == xs.float32 and a.shape == (4,)
        assert bool(xs.all((a >= 0.25) & (a <= 4.0)))
        xgrad.check_grads(xnp.log, (a,))
    check()


def test_arrays_strategy_float32_row_domain():
    pytest.importorskip("hypothesis")
    from xgrad.testing import arrays

    @_given(arrays((4,), dtype="float32", elements=(0.2, 4.0)), n=10)
    def check(a):
        assert a.dtype == np.float32
        assert np.all((a >= np.float32(0.2)) & (a <= 4.0))
    check()


def test_functions_strategy_accepted_by_check_grads():
    pytest.importorskip("hypothesis")
    from xgrad.testing import arrays, functions

    @_given(functions(names=SMOOTH, depth=3), arrays((3,)))
    def check(fd, a):
        f, desc = fd
        assert 1 <= len(desc.split(" o ")) <= 3
        assert set(desc.split(" o ")) <= set(SMOOTH)
        assert np.all(np.isfinite(f(a)))
        xgrad.check_grads(f, (a,), order=2)
    check()


def test_functions_strategy_default_names_accepted_by_check_grads():
    hyp = pytest.importorskip("hypothesis")
    from xgrad.testing import functions
    try:
        f, desc = hyp.find(functions(), lambda fd: "abs" in fd[1].split(" o "),
                           settings=hyp.settings(database=None))
    except hyp.errors.NoSuchExample:
        return                                  # fixed: no kinked primitive is drawn
    xgrad.check_grads(f, (np.zeros(3),), order=2)      # abs'' at 0: 0 vs a huge difference
