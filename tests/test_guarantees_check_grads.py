"""check_grads refuses to pass when it would check nothing: no
floating-point argument or output, empty or unknown modes, an order that is
not an int >= 1. Empty floating-point arguments or outputs pass with a
warning (an empty derivative has no entry to be wrong). It still passes a
correct function, fails a wrong derivative, fails a NaN in every mode and
fails a VJP that is not linear in its cotangent."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad.testing import check_grads

X = np.array([0.3, -0.8, 1.1])
f = lambda x: xnp.sin(x) * x


@pytest.mark.parametrize("args, match", [
    ((), r"nothing to check: no argument is a floating-point array \(argument leaves: none\)"),
    ((3, 4), r"no argument is a floating-point array \(argument leaves: int64\[\], int64\[\]\); "
             r"pass float or complex arrays \(1\.0, not 1\)"),
    ((np.arange(3),), r"no argument is a floating-point array \(argument leaves: int64\[3\]\)"),
    (({"n": np.arange(2), "b": np.array([True])},), r"no argument is a floating-point array"),
])
def test_no_differentiable_argument(args, match):
    with pytest.raises(ValueError, match=match):
        check_grads(lambda *a: xnp.asarray(1.0) * 2.0, args)


@pytest.mark.parametrize("modes, match", [
    ((), r"nothing to check: modes=\(\) is empty .*pass modes=\('fwd', 'rev'\)"),
    ([], r"nothing to check: modes=\(\) is empty"),
    ("", r"unknown mode '' in modes=\('',\)"),
    (("fwd", "reverse"), r"unknown mode 'reverse' in modes=\('fwd', 'reverse'\): modes must "
                         r"be a subset of \('fwd', 'rev'\)"),
    (("bwd",), r"unknown mode 'bwd'"),
    (None, r"modes=None is not a tuple"),
])
def test_empty_or_unknown_modes(modes, match):
    with pytest.raises(ValueError, match=match):
        check_grads(f, (X,), modes=modes)


@pytest.mark.parametrize("order", [0, -1, 1.5, 2.0, True, "2", None])
def test_order_must_be_a_positive_int(order):
    with pytest.raises(ValueError, match=rf"nothing to check: order={order!r}: order must be "
                                         r"an int >= 1"):
        check_grads(f, (X,), order=order)


@pytest.mark.parametrize("out", [lambda x: None, lambda x: (), lambda x: [],
                                 lambda x: xnp.astype(x > 0, xnp.int64),
                                 lambda x: {"n": xnp.argmax(x)}])
def test_no_floating_point_output(out):
    with pytest.raises(ValueError, match="nothing to check: fun's output has no floating-point "
                                         "array"):
        check_grads(out, (X,))


@pytest.mark.parametrize("fun, args", [(lambda x: x[:0], (X,)), (xnp.sin, (np.zeros((0, 2)),))])
def test_empty_derivatives_pass_with_a_warning(fun, args):
    with pytest.warns(RuntimeWarning, match="empty"):
        check_grads(fun, args, order=2)


def _custom(bwd):
    h = xgrad.custom_vjp(lambda x: xnp.sin(x))
    h.defvjp(lambda x: (xnp.sin(x), x), bwd)
    return h


@pytest.mark.parametrize("modes", [("rev",), ("fwd",), ("fwd", "rev")])
def test_a_nan_vjp_fails_every_mode(modes):
    h = _custom(lambda x, g: (g * xnp.nan,))
    with pytest.raises((AssertionError, TypeError)):
        check_grads(h, (X,), modes=modes)


def test_a_vjp_not_linear_in_its_cotangent_fails():
    # right in direction, wrong in scale: |g|**1.5 sign(g) cos(x)
    h = _custom(lambda x, g: (xnp.sign(g) * xnp.abs(g) ** 1.5 * xnp.cos(x),))
    with pytest.raises(AssertionError, match="VJP"):
        check_grads(h, (X,), modes=("rev",), order=2)
    check_grads(_custom(lambda x, g: (g * xnp.cos(x),)), (X,), modes=("rev",), order=2)


def test_normal_cases_still_pass():
    check_grads(f, (X,))
    check_grads(f, (X,), order=3, modes="rev")
    check_grads(f, (X,), order=np.int64(2), modes=["fwd"])
    check_grads(lambda a, n: a * n, (X, 3))                   # one float and one int argument
    check_grads(lambda a, b: a * xnp.sin(b), (0.5, 1.3), order=2)   # Python floats
    check_grads(lambda z: z * z, (np.array([1.0 + 2.0j]),))


def test_wrong_custom_vjp_still_fails():
    @xgrad.custom_vjp
    def bad_sin(x):
        return xnp.sin(x)
    bad_sin.defvjp(lambda x: (xnp.sin(x), x), lambda x, g: (g * xnp.sin(x),))   # not cos
    with pytest.raises(AssertionError, match="check_grads: VJP mismatch, order 1, mode 'rev'"):
        check_grads(bad_sin, (X,), modes=("rev",))
    with pytest.raises(AssertionError, match="mismatch"):
        check_grads(bad_sin, (X,))
    with pytest.raises(AssertionError, match="JVP mismatch"):     # forward mode uses bwd too
        check_grads(bad_sin, (X,), modes=("fwd",))

    @xgrad.custom_vjp
    def good_sin(x):
        return xnp.sin(x)
    good_sin.defvjp(lambda x: (xnp.sin(x), x), lambda x, g: (g * xnp.cos(x),))
    check_grads(good_sin, (X,), order=2)
