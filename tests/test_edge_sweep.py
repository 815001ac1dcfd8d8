# ruff: noqa: E501  (the KNOWN table: one line per failure, its symptom in full)
"""The edge-value sweep: every function of the public namespaces at +-0,
+-inf, nan, +-1e308, the smallest normal and subnormal numbers, ties,
integer and boolean dtypes, empty and 0-d arrays and degenerate matrices,
under its value, jit, vmap, jvp, grad and hessian, against jax (x64):
value for value, NaN for NaN, dtype for dtype. The harness and where the
cases come from: tests/edge_cases.py.

Four tables below say where xgrad and the sweep part ways with jax:

- ``DIFFERENCES``: deliberate differences, each with its reason (the
  comparison then accepts a number where jax gives NaN, and nothing else);
- ``WAIVED``: transforms not compared at all, where xgrad's convention at a
  kink differs from jax's by design (each an NB in its rule module);
- ``KNOWN``: failures not fixed yet, one line per (item, transform) with
  its symptom. The item is a strict xfail: a known line that starts
  passing fails the test ("remove the line"), and so does any other
  failure of the item;
- ``NOT_SWEPT``: public names with nothing to sweep, and why.

``XGRAD_SWEEP_RECORD=/tmp/known pytest tests/test_edge_sweep.py -k test_edge`` writes
the KNOWN lines of every failure (with its owner area) to ``/tmp/known.<pid>``
instead of failing: the table regenerated after a round of fixes.

``test_every_function_is_swept`` fails for a public function with no item
and no ``NOT_SWEPT`` line: a new function is swept the day it is added.
"""
import fnmatch
import inspect
import os

import pytest

import edge_cases as E

ITEMS = E.all_items()

# The default test run sweeps the edge kinds below (the elementwise rows' full
# edge vector in float64, float32, int32 and bool, and the degenerate matrices);
# ``XGRAD_SWEEP=full`` sweeps every kind (every function's non-finite, tie,
# extreme, int64 and empty fills too: well over 15 minutes on 2 cores, past the
# suite's budget). The coverage tests below always see every item.
DEFAULT_KINDS = ("edges", "float32", "int32", "bool", "degenerate")
RUN = ITEMS if os.environ.get("XGRAD_SWEEP") == "full" else [
    i for i in ITEMS if i.kind in DEFAULT_KINDS]

# ----- deliberate differences ------------------------------------------------------
# pattern over "ident::kind::transform" -> why xgrad gives a number where jax gives NaN
# (or NaN where jax gives a number); the comparison accepts that, and nothing else
_POLES = ("the limits at the poles and at +inf: digamma(+-0) = -+inf (as scipy), polygamma(n, .) "
          "the signed limit of its pole, polygamma(n >= 1, inf) = 0, hence gammaln'(+-0) = -+inf, "
          "gamma'(+-0) = -inf, digamma'(inf) = 0 (jax: nan; NB in rules/special.py); "
          "tests/test_special_edges.py::test_gamma_family_limits")
_BESSEL = ("i0' = i1 and i1' are +-inf where i1 and i0 overflow (jax: nan), and nan at a nan "
           "(jax's i1e' is 1/2 there; NB in rules/special.py); "
           "tests/test_special_edges.py::test_bessel_i_limits")
DIFFERENCES = {
    "acosh::*::[jgh][vre]*": "acosh's derivatives are NaN below -1, where acosh is NaN (jax: "
                             "1/sqrt(x**2 - 1), a number), and acosh'' is 0 at +inf and 1e308, "
                             "the limit (jax: NaN); tests/test_rules.py::test_acosh_atanh_edges",
    "rules:acosh*::*::[jg][vr]*": "as acosh::edges",
    "atanh::*::hessian": "atanh'' is +-inf at +-1, the one-sided limit (jax: NaN), and NaN at "
                         "+-inf and +-1e308, where atanh is NaN (jax: 0); "
                         "tests/test_rules.py::test_acosh_atanh_edges",
    "pow::*::[jgh][vre]*": "d/dx x**y is 0 at y = 0, also at x = 0 (x**0 is 1 for every x; jax: "
                           "0 * 0**-1 = NaN); the second derivatives in y at x = +inf or 1e308 "
                           "are inf (jax: NaN); tests/test_rules.py::test_pow_at_zero_exponent",
    "rules:pow*::zero-ties::*": "as pow::edges",
    "float_power::zero-ties::*": "as pow::edges",
    "rules:abs*::nonfinite::*": "abs'(nan) is NaN, sign(nan) (jax: -1, from select(x >= 0, g, -g))",
    "fabs::nonfinite::*": "as rules:abs::nonfinite",
    "rules:hypot*::nonfinite::*": "d/dy hypot(inf, y) is y / inf = 0, the limit (jax: NaN)",
    "i0::extreme::*": "i0'(+-1e308) = i1(+-1e308) = +-inf, the limit (jax: NaN)",
    **{p: _POLES for p in ("scipy.special.digamma::*", "rules:special.digamma*",
                           "rules:special.polygamma*", "scipy.special.gammaln::*",
                           "rules:special.gammaln*", "scipy.special.gamma::*",
                           "rules:special.gamma[[]*", "scipy.special.polygamma::*")},
    **{p: _BESSEL for p in ("scipy.special.i0::*", "scipy.special.i1::*", "scipy.special.i1e::*",
                            "rules:special.i0[[]*", "rules:special.i1[[]*")},
    **{p: "the second derivatives of erf, erfc and ndtr are 0 at |x| = 1e308 and +-inf (jax: nan "
          "or 0 * inf; NB in rules/special.py); "
          "tests/test_special_edges.py::test_gaussian_derivatives_vanish_far_out"
       for p in ("scipy.special.erf::*", "scipy.special.erfc::*", "scipy.special.ndtr::*")},
    **{p: "rel_entr(x, y) = x log(x / y) is its limit where jax's x log x - x log y is inf - inf = "
          "nan (rel_entr(inf, 1) = inf, rel_entr(1e308, 1e308) = 0, as scipy), and so are its "
          "derivatives; tests/test_special_edges.py::test_rel_entr_far_out"
       for p in ("scipy.special.rel_entr::*", "rules:special.rel_entr*")},
    **{p: "d/dy x log y = x / y is 0 at x = y = 0 (the value is 0 all along x = 0; jax: nan) and "
          "+-inf at (inf, 1e308) (jax: nan) (NB in rules/special.py); "
          "tests/test_special.py::test_xlogy_xlog1py_at_zero"
       for p in ("scipy.special.xlogy::*", "scipy.special.xlog1py::*", "rules:special.xlogy*",
                 "rules:special.xlog1py*")},
    **{p: "entr' = 0 for x < 0, where entr is the constant -inf (jax's forward mode: 0, its "
          "reverse mode: nan; NB in rules/special.py); "
          "tests/test_special.py::test_entr_rel_entr_conventions"
       for p in ("scipy.special.entr::*::grad", "rules:special.entr*::grad")},
}
# pattern -> why the transform is not compared at all: a convention at a kink that
# xgrad chose differently (each is an NB in its rule module and has its own test)
WAIVED = {
    "abs::edges::*": "abs'(0) = 0, the minimum-norm subgradient (NB in rules/elementwise.py; "
                     "jax: 1); tests/test_rules.py::test_abs_at_zero",
    "abs::float32::*": "abs'(0) = 0 (as abs::edges)",
    "copysign::edges::*": "d/dx copysign(x, y) is 0 at x = 0, like abs'(0) (NB in "
                          "rules/elementwise.py)",
    "copysign::float32::*": "as copysign::edges",
    "hypot::edges::*": "hypot's gradient is 0 at the origin (NB in rules/elementwise.py; jax: "
                       "0.5 per argument)",
    "hypot::float32::*": "as hypot::edges",
    "rules:abs*::zero-ties::*": "abs'(0) = 0 (as abs::edges)",
    "fabs::zero-ties::*": "abs'(0) = 0 (as abs::edges)",
    "rules:copysign*::zero-ties::*": "as copysign::edges",
    "rules:hypot*::zero-ties::*": "as hypot::edges",
    "ldexp::extreme::*": "jax's ldexp derivative is NaN or 0 at +-1e308 and 2.2e-308 (0 where "
                         "2**-2 is the answer); xgrad's is 2**x2 "
                         "(tests/test_rules.py::test_sinc_ldexp_at_extremes)",
    "sinc::extreme::*": "jax's sinc derivative at x = +-2.2e-308 is -+inf (its pi x**2 "
                        "underflows); the derivative there is -pi**2 x / 3, 0 to within 1e-307 "
                        "(tests/test_rules.py::test_sinc_ldexp_at_extremes)",
    **{f"{i}::{k}::{t}": "jax's i0'(0) = 1, i0''(0) = 1.5 and i1''(0) = 1 (the kink of |x| in its "
                         "exp(|x|) i0e(x)); xgrad's are i1(0) = 0, 1/2 and 0 (NB in "
                         "rules/special.py); tests/test_special_edges.py::test_bessel_i_limits"
       for i, k, ts in (("scipy.special.i0", "edges", ("jvp", "grad", "hessian")),
                        ("scipy.special.i0", "float32", ("jvp", "grad", "hessian")),
                        ("scipy.special.i0", "zero-ties", ("jvp", "grad")),
                        ("scipy.special.i1", "edges", ("hessian",)),
                        ("scipy.special.i1", "float32", ("hessian",)),
                        ("rules:special.i0[[]3x4]", "zero-ties", ("jvp", "grad")))
       for t in ts},
    **{f"{i}::{k}::{t}": "jax's ndtri' is 0 at p = 0 and 1, where ndtri is -+inf; xgrad's is the "
                         "limit +inf (NB in rules/special.py); "
                         "tests/test_special_edges.py::test_ndtri_derivative_at_0_and_1"
       for i, k in (("scipy.special.ndtri", "edges"), ("scipy.special.ndtri", "float32"),
                    ("scipy.special.ndtri", "zero-ties"), ("rules:special.ndtri[[]3x4]", "zero-ties"))
       for t in ("jvp", "grad", "hessian")},
    "scipy.special.gamma::float32::*": "jax's float32 gamma is exp(lgamma): 1e-5 off at 30 (29! = "
                                       "8.8417620e30, jax 8.8419e30); xgrad's is scipy's, rounded "
                                       "once; tests/test_special_edges.py::"
                                       "test_gamma_float32_is_correctly_rounded",
    **{p: "jax's reverse-mode d/dy at (+-1e308, +-1e308) is +-0: XLA flushes the subnormal g / y "
          "before the product with x; xgrad's is x / y = +-1, as jax's own forward mode; "
          "tests/test_special_edges.py::test_x_over_y_derivatives_at_huge_arguments"
       for p in ("scipy.special.xlogy::edges::grad", "scipy.special.xlog1py::edges::grad",
                 "scipy.special.rel_entr::edges::grad", "rules:special.xlogy[[]*::extreme::grad",
                 "rules:special.xlog1py[[]*::extreme::grad",
                 "rules:special.rel_entr[[]*::extreme::grad")},
    "rules:hypot*::extreme::*": "jax's hypot derivative loses the scale at 1e308 and 1e-300 "
                                "(1.06 and -inf where x / hypot(x, y) is 0.7071); xgrad's is "
                                "x / hypot(x, y)",
    "logaddexp::edges::[jgh][vre]*": "jax's logaddexp derivative is wrong at +inf: d/dy "
                                     "logaddexp(inf, y) = exp(y) (20.1 at y = 3; the limit is 0), "
                                     "NaN at x = y = -inf; xgrad's is max's there (1, 0, 0.5 at "
                                     "a tie; NB in rules/elementwise.py); "
                                     "tests/test_rules.py::test_logaddexp_at_infinity",
    "logaddexp::float32::[jgh][vre]*": "as logaddexp::edges",
    "rules:logaddexp*::nonfinite::*": "as logaddexp::edges",
    "logaddexp2::nonfinite::*": "as logaddexp::edges (logaddexp2 is logaddexp scaled)",
    "divide::edges::[jgh][vre]*": "jax's d/dy x / y is -x * y**-2, which overflows for |y| < "
                                  "1e-154 (NaN at x = 0, y = 2.2e-308, and -inf where -x/y/y is "
                                  "-4.5e307); xgrad's is -(x / y) / y; "
                                  "tests/test_rules.py::test_divide_at_tiny_divisors",
}

# ----- known failures (strict) -------------------------------------------------------
# "ident::kind::transform" -> "owner area: symptom"; remove the line when it passes
KNOWN = {
    "angle-complex::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "angle-complex::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "angle-complex::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "apply_along_axis::empty::grad": "numpy: raises ValueError: apply_along_axis: the array has no 1-D slices",
    "apply_along_axis::empty::jit": "numpy: raises ValueError: apply_along_axis: the array has no 1-D slices",
    "apply_along_axis::empty::jvp": "numpy: raises ValueError: apply_along_axis: the array has no 1-D slices",
    "apply_along_axis::empty::value": "numpy: raises ValueError: apply_along_axis: the array has no 1-D slices",
    "apply_along_axis::empty::vmap": "numpy: raises ValueError: apply_along_axis: the array has no 1-D slices",
    "argpartition::zero-ties::jit": "numpy: Arrays are not equal | Mismatched elements: 2 / 7 (28.6%) | Mismatch at indices: | Max absolute difference among violations: 1 | Max relative differen",
    "argpartition::zero-ties::value": "numpy: Arrays are not equal | Mismatched elements: 2 / 7 (28.6%) | Mismatch at indices: | Max absolute difference among violations: 1 | Max relative differen",
    "argpartition::zero-ties::vmap": "numpy: Arrays are not equal | Mismatched elements: 2 / 7 (28.6%) | Mismatch at indices: | Max absolute difference among violations: 1 | Max relative differen",
    "argwhere::empty::vmap": "vmap: raises TypeError: argwhere: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends on",
    "argwhere::extreme::vmap": "vmap: raises TypeError: argwhere: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends on",
    "argwhere::int::vmap": "vmap: raises TypeError: argwhere: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends on",
    "argwhere::nonfinite::vmap": "vmap: raises TypeError: argwhere: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends on",
    "argwhere::zero-ties::vmap": "vmap: raises TypeError: argwhere: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends on",
    "at.divide-clip::extreme::grad": ".at/indexing: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "at.divide-clip::extreme::jvp": ".at/indexing: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "at.divide-clip::nonfinite::jvp": ".at/indexing: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "at.divide-drop::nonfinite::jvp": ".at/indexing: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "at.divide-int::nonfinite::jvp": ".at/indexing: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "at.multiply-clip::nonfinite::jvp": ".at/indexing: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "at.multiply-drop::nonfinite::jvp": ".at/indexing: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "at.multiply-int::nonfinite::jvp": ".at/indexing: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "at.power-clip::extreme::jvp": ".at/indexing: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "at.power-clip::nonfinite::jvp": ".at/indexing: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "at.power-drop::extreme::jvp": ".at/indexing: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "at.power-drop::nonfinite::jvp": ".at/indexing: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "at.power-drop::zero-ties::grad": ".at/indexing: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "at.power-drop::zero-ties::jvp": ".at/indexing: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "at.power-int::extreme::jvp": ".at/indexing: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "at.power-int::nonfinite::jvp": ".at/indexing: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "at.power-int::zero-ties::jvp": ".at/indexing: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "average::empty::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "average::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 0.04166667 | Max relativ",
    "average::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 0.04166667 | Max relativ",
    "average::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 0.04166667 | Max relativ",
    "average::extreme::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 0.04166667 | Max relativ",
    "convolve-full::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "convolve-full::nonfinite::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "convolve-full::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "convolve-full::nonfinite::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "convolve-full::nonfinite::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "corrcoef::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "corrcoef::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "corrcoef::nonfinite::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "corrcoef::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "correlate-full::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "correlate-full::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 10 (20%) | Mismatch at indices: | Max absolute difference among violations: 1",
    "correlate-full::nonfinite::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "correlate-full::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "correlate-full::nonfinite::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "correlate-full::nonfinite::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "cov::extreme::vmap": "vmap: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "cov::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "cumprod::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "cumprod::extreme::jit": "jit: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "cumprod::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "cumprod::extreme::vmap": "vmap: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "cumprod::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "cumulative_prod::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "digitize::nonfinite::vmap": "vmap: Arrays are not equal | Mismatched elements: 6 / 7 (85.7%) | Max absolute difference among violations: 1 | Max relative difference among violations: 0.",
    "digitize::zero-ties::vmap": "vmap: Arrays are not equal | Mismatched elements: 2 / 7 (28.6%) | Mismatch at indices: | Max absolute difference among violations: 1 | Max relative differen",
    "einsum-matmul::extreme::vmap": "vmap: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "fft.ifft2::empty::grad": "numpy: raises ValueError: ifftn: lengths must be positive, got s=(0, 4)",
    "fft.ifft2::empty::jit": "numpy: raises ValueError: ifftn: lengths must be positive, got s=(0, 4)",
    "fft.ifft2::empty::jvp": "numpy: raises ValueError: ifftn: lengths must be positive, got s=(0, 4)",
    "fft.ifft2::empty::value": "numpy: raises ValueError: ifftn: lengths must be positive, got s=(0, 4)",
    "fft.ifft2::empty::vmap": "numpy: raises ValueError: ifftn: lengths must be positive, got s=(0, 4)",
    "fft.ifft2::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "fft.ifft2::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "fft.ifft2::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "fft.ifft2::extreme::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "fft.irfft2::empty::jit": "numpy: raises ValueError: irfftn: lengths must be positive, got s=(0, 6)",
    "fft.irfft2::empty::jvp": "numpy: raises ValueError: irfftn: lengths must be positive, got s=(0, 6)",
    "fft.irfft2::empty::value": "numpy: raises ValueError: irfftn: lengths must be positive, got s=(0, 6)",
    "fft.irfft2::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "fft.irfft2::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "fft.irfft2::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "fft.irfftn::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "fft.irfftn::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "fft.irfftn::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "fft.rfftn::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "fft.rfftn::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "fft.rfftn::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "flatnonzero::empty::vmap": "vmap: raises TypeError: flatnonzero: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends",
    "flatnonzero::extreme::vmap": "vmap: raises TypeError: flatnonzero: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends",
    "flatnonzero::int::vmap": "vmap: raises TypeError: flatnonzero: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends",
    "flatnonzero::nonfinite::vmap": "vmap: raises TypeError: flatnonzero: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends",
    "flatnonzero::zero-ties::vmap": "vmap: raises TypeError: flatnonzero: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends",
    "geomspace::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "geomspace::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "geomspace::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "geomspace::zero-ties::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "histogram2d::int::jit": "numpy: output 0: dtype int64 vs jax float64",
    "histogram2d::int::value": "numpy: output 0: dtype int64 vs jax float64",
    "histogram2d::int::vmap": "numpy: output 0: dtype int64 vs jax float64",
    "histogram::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 4 / 4 (100%) | Mismatch at indices: | Max absolute difference among violations: 2",
    "histogram::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 4 / 4 (100%) | Mismatch at indices: | Max absolute difference among violations: 2",
    "histogram::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 4 / 4 (100%) | Mismatch at indices: | Max absolute difference among violations: 2",
    "histogram::extreme::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 4 / 4 (100%) | Mismatch at indices: | Max absolute difference among violations: 2",
    "histogram_bin_edges::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "histogram_bin_edges::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "histogram_bin_edges::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "histogram_bin_edges::extreme::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "histogramdd::int::jit": "numpy: output 0: dtype int64 vs jax float64",
    "histogramdd::int::value": "numpy: output 0: dtype int64 vs jax float64",
    "histogramdd::int::vmap": "numpy: output 0: dtype int64 vs jax float64",
    "histogramdd::nonfinite::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "histogramdd::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "histogramdd::nonfinite::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "histogramdd::nonfinite::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "interp::extreme::vmap": "vmap: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 5 (40%) | Mismatch at indices: | Max absolute difference among violations: 1.",
    "interp::int::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 5 (20%) | Mismatch at index: | Max absolute difference among violations: 7.57",
    "interp::int::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 5 (20%) | Mismatch at index: | Max absolute difference among violations: 7.57",
    "interp::int::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 5 (20%) | Mismatch at index: | Max absolute difference among violations: 7.57",
    "interp::nonfinite::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "interp::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "intersect1d::empty::vmap": "vmap: raises TypeError: intersect1d: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends",
    "intersect1d::extreme::vmap": "vmap: raises TypeError: intersect1d: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends",
    "intersect1d::int::vmap": "vmap: raises TypeError: intersect1d: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends",
    "intersect1d::nonfinite::vmap": "vmap: raises TypeError: intersect1d: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends",
    "intersect1d::zero-ties::vmap": "vmap: raises TypeError: intersect1d: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends",
    "linalg.cholesky-c::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.cholesky-c::nonfinite::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.cholesky-c::zero-ties::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.cholesky::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.cholesky::nonfinite::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.cholesky::zero-ties::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.cond-None::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.cond-None::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.det-c::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.det-c::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.det-c::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.det-c::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.det-c::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.det-c::nonfinite::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.det-c::nonfinite::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.det::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.det::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.det::nonfinite::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.det::nonfinite::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.eig-real::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.eig-real::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 3 / 4 (75%) | Mismatch at indices: | Max absolute difference among violations: 1.",
    "linalg.eig-real::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 3 / 4 (75%) | Mismatch at indices: | Max absolute difference among violations: 1.",
    "linalg.eig-real::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 3 / 4 (75%) | Mismatch at indices: | Max absolute difference among violations: 1.",
    "linalg.eig-real::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 3 / 4 (75%) | Mismatch at indices: | Max absolute difference among violations: 1.",
    "linalg.eigvals::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 3 / 4 (75%) | Mismatch at indices: | Max absolute difference among violations: 1.",
    "linalg.eigvals::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 3 / 4 (75%) | Mismatch at indices: | Max absolute difference among violations: 1.",
    "linalg.eigvals::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 3 / 4 (75%) | Mismatch at indices: | Max absolute difference among violations: 1.",
    "linalg.eigvals::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 3 / 4 (75%) | Mismatch at indices: | Max absolute difference among violations: 1.",
    "linalg.eigvalsh::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 4 (25%) | Mismatch at index: | Max absolute difference among violations: 5.55",
    "linalg.eigvalsh::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 4 (25%) | Mismatch at index: | Max absolute difference among violations: 5.55",
    "linalg.inv::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 16 (12.5%) | Mismatch at indices: | Max absolute difference among violations:",
    "linalg.inv::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 16 (6.25%) | Mismatch at index: | Max absolute difference among violations: 0",
    "linalg.inv::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 16 (6.25%) | Mismatch at index: | Max absolute difference among violations: 0",
    "linalg.inv::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 16 (6.25%) | Mismatch at index: | Max absolute difference among violations: 0",
    "linalg.lstsq-vec::empty::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.lstsq-vec::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 3 (33.3%) | Mismatch at index: | Max absolute difference among violations: 0.",
    "linalg.matrix_norm-c-fro::empty::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.matrix_norm-c-fro::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.matrix_power::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.matrix_power::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.matrix_power::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.multi_dot::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.norm-vec-None::empty::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.norm-vec-None::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.pinv-c-tall::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.qr-c-tall::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 3 / 12 (25%) | Mismatch at indices: | Max absolute difference among violations: 1",
    "linalg.qr-c-tall::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 3 / 12 (25%) | Mismatch at indices: | Max absolute difference among violations: 1",
    "linalg.qr-c-tall::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 3 / 12 (25%) | Mismatch at indices: | Max absolute difference among violations: 1",
    "linalg.qr-c-tall::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 3 / 12 (25%) | Mismatch at indices: | Max absolute difference among violations: 1",
    "linalg.qr-r::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.qr-r::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 3 / 16 (18.8%) | Mismatch at indices: | Max absolute difference among violations:",
    "linalg.qr-r::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 3 / 16 (18.8%) | Mismatch at indices: | Max absolute difference among violations:",
    "linalg.qr-r::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 3 / 16 (18.8%) | Mismatch at indices: | Max absolute difference among violations:",
    "linalg.slogdet-c::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 16 (6.25%) | Mismatch at index: | Max absolute difference among violations: 0",
    "linalg.slogdet-c::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 1.84775907 | Max relativ",
    "linalg.slogdet-c::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 1.84775907 | Max relativ",
    "linalg.slogdet-c::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 1.84775907 | Max relativ",
    "linalg.slogdet-c::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 1.84775907 | Max relativ",
    "linalg.slogdet::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 16 (6.25%) | Mismatch at index: | Max absolute difference among violations: 0",
    "linalg.slogdet::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 36.15029632 | Max relati",
    "linalg.slogdet::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 36.15029632 | Max relati",
    "linalg.slogdet::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 36.15029632 | Max relati",
    "linalg.solve::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 4 / 16 (25%) | Mismatch at indices: | Max absolute difference among violations: 0",
    "linalg.solve::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.solve::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.solve::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.svd::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 3 (33.3%) | Mismatch at index: | Max absolute difference among violations: 5.",
    "linalg.svd::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 3 (33.3%) | Mismatch at index: | Max absolute difference among violations: 5.",
    "linalg.svd::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 3 (33.3%) | Mismatch at index: | Max absolute difference among violations: 5.",
    "linalg.svdvals-c::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 3 (33.3%) | Mismatch at index: | Max absolute difference among violations: 1.",
    "linalg.tensorinv-ind2::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.tensorinv-ind2::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.tensorinv-ind2::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.tensorinv-ind2::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "linalg.vector_norm-c::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "logspace::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "min-initial::empty::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nancumprod::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nancumprod::extreme::jit": "jit: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nancumprod::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nancumprod::extreme::vmap": "vmap: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nancumprod::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nanpercentile::nonfinite::value": "numpy: raises ValueError: nanpercentile: q must lie in [0, 1] (percentiles in [0, 100]), and not be NaN",
    "nanpercentile::nonfinite::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nanprod::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nanquantile::extreme::value": "numpy: raises ValueError: nanquantile: q must lie in [0, 1] (percentiles in [0, 100]), and not be NaN",
    "nanquantile::nonfinite::value": "numpy: raises ValueError: nanquantile: q must lie in [0, 1] (percentiles in [0, 100]), and not be NaN",
    "nanquantile::zero-ties::value": "numpy: raises ValueError: nanquantile: q must lie in [0, 1] (percentiles in [0, 100]), and not be NaN",
    "nanstd::extreme::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nanstd::extreme::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nanstd::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nanvar::extreme::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nanvar::extreme::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nanvar::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "ndarray.argpartition::zero-ties::vmap": "vmap: Arrays are not equal | Mismatched elements: 1 / 3 (33.3%) | Mismatch at index: | Max absolute difference among violations: 2 | Max relative difference",
    "ndarray.byteswap::empty::vmap": "vmap: raises TypeError: ndarray.byteswap() needs a concrete value, but this traced value has none (a value inside vmap depends on the mapped axis (shape (0,",
    "ndarray.byteswap::extreme::vmap": "vmap: raises TypeError: ndarray.byteswap() needs a concrete value, but this traced value has none (a value inside vmap depends on the mapped axis (shape (3,",
    "ndarray.byteswap::int::value": "numpy: raises TypeError: ndarray.byteswap() needs a concrete value, but this traced value has none (a value inside vmap depends on the mapped axis (shape (3,",
    "ndarray.byteswap::int::vmap": "numpy: raises TypeError: ndarray.byteswap() needs a concrete value, but this traced value has none (a value inside vmap depends on the mapped axis (shape (3,",
    "ndarray.byteswap::nonfinite::vmap": "vmap: raises TypeError: ndarray.byteswap() needs a concrete value, but this traced value has none (a value inside vmap depends on the mapped axis (shape (3,",
    "ndarray.byteswap::zero-ties::vmap": "vmap: raises TypeError: ndarray.byteswap() needs a concrete value, but this traced value has none (a value inside vmap depends on the mapped axis (shape (3,",
    "ndarray.cumprod::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "ndarray.cumprod::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "ndarray.cumprod::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "ndarray.cumprod::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "ndarray.cumprod::extreme::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "ndarray.cumprod::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "ndarray.dot::extreme::vmap": "vmap: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "ndarray.item::int::value": "numpy: raises TypeError: ndarray.item() needs a concrete value, but this traced value has none (a value inside vmap depends on the mapped axis (shape (3, 4) ",
    "ndarray.nonzero::int::value": "numpy: raises TypeError: nonzero: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends on ",
    "ndarray.prod::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "ndarray.std::empty::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "ndarray.std::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "ndarray.tolist::int::value": "numpy: raises TypeError: ndarray.tolist() needs a concrete value, but this traced value has none (a value inside vmap depends on the mapped axis (shape (3, 4",
    "ndarray.var::extreme::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "ndarray.var::extreme::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "ndarray.var::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.celu::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.dot_product_attention::extreme::grad": "numpy: Not equal to tolerance rtol=3e-06, atol=5e-06",
    "nn.dot_product_attention::extreme::jit": "numpy: Not equal to tolerance rtol=3e-06, atol=5e-06",
    "nn.dot_product_attention::extreme::jvp": "numpy: Not equal to tolerance rtol=3e-06, atol=5e-06",
    "nn.dot_product_attention::extreme::value": "numpy: Not equal to tolerance rtol=3e-06, atol=5e-06",
    "nn.dot_product_attention::extreme::vmap": "numpy: Not equal to tolerance rtol=3e-06, atol=5e-06",
    "nn.gelu::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.glu::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.hard_sigmoid::nonfinite::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 12 (16.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "nn.hard_sigmoid::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 12 (16.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "nn.hard_silu::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.hard_tanh::int::jit": "numpy: output 0: dtype float64 vs jax int64",
    "nn.hard_tanh::int::value": "numpy: output 0: dtype float64 vs jax int64",
    "nn.hard_tanh::int::vmap": "numpy: output 0: dtype float64 vs jax int64",
    "nn.log1mexp::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 12 (16.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "nn.log1mexp::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.log1mexp::nonfinite::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 12 (16.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "nn.log1mexp::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.log_softmax::nonfinite::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.log_softmax::nonfinite::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.log_softmax::nonfinite::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.log_softmax::nonfinite::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.log_softmax::nonfinite::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.logmeanexp::empty::grad": "numpy: raises ValueError: math domain error",
    "nn.logmeanexp::empty::jit": "numpy: raises ValueError: math domain error",
    "nn.logmeanexp::empty::jvp": "numpy: raises ValueError: math domain error",
    "nn.logmeanexp::empty::value": "numpy: raises ValueError: math domain error",
    "nn.logmeanexp::empty::vmap": "numpy: raises ValueError: math domain error",
    "nn.mish::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.mish::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.relu6::nonfinite::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 12 (16.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "nn.relu6::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 12 (16.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "nn.relu::int::jit": "numpy: output 0: dtype float64 vs jax int64",
    "nn.relu::int::value": "numpy: output 0: dtype float64 vs jax int64",
    "nn.relu::int::vmap": "numpy: output 0: dtype float64 vs jax int64",
    "nn.relu::nonfinite::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 12 (16.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "nn.relu::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 12 (16.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "nn.silu::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.softmax::nonfinite::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.softmax::nonfinite::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.softmax::nonfinite::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.softmax::nonfinite::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.sparse_plus::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.sparse_plus::nonfinite::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.squareplus::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.squareplus::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.squareplus::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.squareplus::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.squareplus::extreme::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.squareplus::nonfinite::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.squareplus::nonfinite::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.squareplus::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.squareplus::nonfinite::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.squareplus::nonfinite::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nn.standardize::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "nonzero::nonfinite::vmap": "vmap: raises TypeError: nonzero: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends on ",
    "partition::zero-ties::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 7 (28.6%) | Mismatch at indices: | Max absolute difference among violations: ",
    "percentile::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "percentile::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 4 / 16 (25%) | Mismatch at indices: | Max absolute difference among violations: 2",
    "percentile::extreme::value": "numpy: raises ValueError: percentile: q must lie in [0, 1] (percentiles in [0, 100]), and not be NaN",
    "percentile::int::value": "numpy: raises ValueError: percentile: q must lie in [0, 1] (percentiles in [0, 100]), and not be NaN",
    "percentile::nonfinite::value": "numpy: raises ValueError: percentile: q must lie in [0, 1] (percentiles in [0, 100]), and not be NaN",
    "percentile::zero-ties::value": "numpy: raises ValueError: percentile: q must lie in [0, 1] (percentiles in [0, 100]), and not be NaN",
    "poly::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "poly::nonfinite::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "poly::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "poly::nonfinite::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "poly::nonfinite::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "polydiv::extreme::vmap": "vmap: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "polydiv::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "polydiv::nonfinite::vmap": "vmap: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "polyfit::extreme::grad": "numpy: raises LinAlgError: SVD did not converge",
    "polyfit::extreme::jit": "numpy: raises LinAlgError: SVD did not converge",
    "polyfit::extreme::jvp": "numpy: raises LinAlgError: SVD did not converge",
    "polyfit::extreme::value": "numpy: raises LinAlgError: SVD did not converge",
    "polyfit::extreme::vmap": "numpy: raises LinAlgError: SVD did not converge",
    "polyfit::nonfinite::grad": "numpy: raises LinAlgError: SVD did not converge",
    "polyfit::nonfinite::jit": "numpy: raises LinAlgError: SVD did not converge",
    "polyfit::nonfinite::jvp": "numpy: raises LinAlgError: SVD did not converge",
    "polyfit::nonfinite::value": "numpy: raises LinAlgError: SVD did not converge",
    "polyfit::nonfinite::vmap": "numpy: raises LinAlgError: SVD did not converge",
    "polyfit::zero-ties::grad": "numpy: Not equal to tolerance rtol=1e-08, atol=1e-10",
    "polyfit::zero-ties::jvp": "numpy: Not equal to tolerance rtol=1e-08, atol=1e-10",
    "polymul::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 3 (66.7%) | Mismatch at indices: | Max absolute difference among violations: ",
    "polymul::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 6 (16.7%) | Mismatch at index: | Max absolute difference among violations: 1.",
    "polymul::nonfinite::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "polymul::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "polymul::nonfinite::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "polymul::nonfinite::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "quantile::extreme::value": "numpy: raises ValueError: quantile: q must lie in [0, 1] (percentiles in [0, 100]), and not be NaN",
    "quantile::nonfinite::value": "numpy: raises ValueError: quantile: q must lie in [0, 1] (percentiles in [0, 100]), and not be NaN",
    "quantile::zero-ties::value": "numpy: raises ValueError: quantile: q must lie in [0, 1] (percentiles in [0, 100]), and not be NaN",
    "roots::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 3 (33.3%) | Mismatch at index: | Max absolute difference among violations: 1.",
    "roots::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 3 (33.3%) | Mismatch at index: | Max absolute difference among violations: 1.",
    "roots::extreme::vmap": "numpy: raises TypeError: trim_leading_zeros: the number of leading zeros depends on the values, and a value inside vmap has one value per example; call trim_",
    "roots::int::vmap": "vmap: raises TypeError: trim_leading_zeros: the number of leading zeros depends on the values, and a value inside vmap has one value per example; call trim_",
    "roots::nonfinite::jit": "numpy: raises LinAlgError: Array must not contain infs or NaNs",
    "roots::nonfinite::value": "numpy: raises LinAlgError: Array must not contain infs or NaNs",
    "roots::nonfinite::vmap": "numpy: raises TypeError: trim_leading_zeros: the number of leading zeros depends on the values, and a value inside vmap has one value per example; call trim_",
    "roots::zero-ties::vmap": "vmap: raises TypeError: trim_leading_zeros: the number of leading zeros depends on the values, and a value inside vmap has one value per example; call trim_",
    "rules:fft.fft::empty::grad": "numpy: raises ValueError: fftn: lengths must be positive, got s=(0,)",
    "rules:fft.fft::empty::jit": "numpy: raises ValueError: fftn: lengths must be positive, got s=(0,)",
    "rules:fft.fft::empty::jvp": "numpy: raises ValueError: fftn: lengths must be positive, got s=(0,)",
    "rules:fft.fft::empty::value": "numpy: raises ValueError: fftn: lengths must be positive, got s=(0,)",
    "rules:fft.fft::empty::vmap": "numpy: raises ValueError: fftn: lengths must be positive, got s=(0,)",
    "rules:fft.fftn::empty::grad": "numpy: raises ValueError: fftn: lengths must be positive, got s=(0, 4)",
    "rules:fft.fftn::empty::jit": "numpy: raises ValueError: fftn: lengths must be positive, got s=(0, 4)",
    "rules:fft.fftn::empty::jvp": "numpy: raises ValueError: fftn: lengths must be positive, got s=(0, 4)",
    "rules:fft.fftn::empty::value": "numpy: raises ValueError: fftn: lengths must be positive, got s=(0, 4)",
    "rules:fft.fftn::empty::vmap": "numpy: raises ValueError: fftn: lengths must be positive, got s=(0, 4)",
    "rules:fft.ifft[axis=0,norm=ortho]::empty::grad": "numpy: raises ValueError: ifftn: lengths must be positive, got s=(0,)",
    "rules:fft.ifft[axis=0,norm=ortho]::empty::jit": "numpy: raises ValueError: ifftn: lengths must be positive, got s=(0,)",
    "rules:fft.ifft[axis=0,norm=ortho]::empty::jvp": "numpy: raises ValueError: ifftn: lengths must be positive, got s=(0,)",
    "rules:fft.ifft[axis=0,norm=ortho]::empty::value": "numpy: raises ValueError: ifftn: lengths must be positive, got s=(0,)",
    "rules:fft.ifft[axis=0,norm=ortho]::empty::vmap": "numpy: raises ValueError: ifftn: lengths must be positive, got s=(0,)",
    "rules:fft.ifft[axis=0,norm=ortho]::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.ifft[axis=0,norm=ortho]::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.ifft[axis=0,norm=ortho]::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.ifft[axis=0,norm=ortho]::extreme::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.ifft[axis=0,norm=ortho]::nonfinite::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.ifft[axis=0,norm=ortho]::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.ifft[axis=0,norm=ortho]::nonfinite::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.ifft[axis=0,norm=ortho]::nonfinite::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.irfft::empty::jit": "numpy: raises ValueError: irfftn: lengths must be positive, got s=(-2,)",
    "rules:fft.irfft::empty::jvp": "numpy: raises ValueError: irfftn: lengths must be positive, got s=(-2,)",
    "rules:fft.irfft::empty::value": "numpy: raises ValueError: irfftn: lengths must be positive, got s=(-2,)",
    "rules:fft.irfft::empty::vmap": "numpy: raises ValueError: irfftn: lengths must be positive, got s=(-2,)",
    "rules:fft.irfftn::empty::jit": "numpy: raises ValueError: irfftn: lengths must be positive, got s=(0, 4)",
    "rules:fft.irfftn::empty::jvp": "numpy: raises ValueError: irfftn: lengths must be positive, got s=(0, 4)",
    "rules:fft.irfftn::empty::value": "numpy: raises ValueError: irfftn: lengths must be positive, got s=(0, 4)",
    "rules:fft.irfftn::empty::vmap": "numpy: raises ValueError: irfftn: lengths must be positive, got s=(0, 4)",
    "rules:fft.irfftn::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.irfftn::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.irfftn::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.irfftn::extreme::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.rfftn[norm=forward]::empty::grad": "numpy: raises ValueError: rfftn: lengths must be positive, got s=(0, 4)",
    "rules:fft.rfftn[norm=forward]::empty::jit": "numpy: raises ValueError: rfftn: lengths must be positive, got s=(0, 4)",
    "rules:fft.rfftn[norm=forward]::empty::jvp": "numpy: raises ValueError: rfftn: lengths must be positive, got s=(0, 4)",
    "rules:fft.rfftn[norm=forward]::empty::value": "numpy: raises ValueError: rfftn: lengths must be positive, got s=(0, 4)",
    "rules:fft.rfftn[norm=forward]::empty::vmap": "numpy: raises ValueError: rfftn: lengths must be positive, got s=(0, 4)",
    "rules:fft.rfftn[norm=forward]::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.rfftn[norm=forward]::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.rfftn[norm=forward]::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.rfftn[norm=forward]::extreme::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.rfftn[norm=forward]::nonfinite::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.rfftn[norm=forward]::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.rfftn[norm=forward]::nonfinite::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:fft.rfftn[norm=forward]::nonfinite::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.cholesky::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.cholesky::nonfinite::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.det.grad::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.det.grad::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.det.grad::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.det.grad::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.det.grad::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.det.grad::nonfinite::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.det.grad::nonfinite::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.det.grad::nonfinite::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.det::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.det::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.det::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.det::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.det::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.inv::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 9 (22.2%) | Mismatch at indices: | Max absolute difference among violations: ",
    "rules:linalg.pinv::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.qr::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 6 / 21 (28.6%) | Max absolute difference among violations: 2.25 | Max relative di",
    "rules:linalg.qr::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 6 / 21 (28.6%) | Max absolute difference among violations: 2.25 | Max relative di",
    "rules:linalg.qr::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 6 / 21 (28.6%) | Max absolute difference among violations: 2.25 | Max relative di",
    "rules:linalg.qr::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 6 / 21 (28.6%) | Max absolute difference among violations: 2.25 | Max relative di",
    "rules:linalg.slogdet.logabsdet::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 36.15029632 | Max relati",
    "rules:linalg.slogdet.logabsdet::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 36.15029632 | Max relati",
    "rules:linalg.slogdet.logabsdet::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 36.15029632 | Max relati",
    "rules:linalg.slogdet.logabsdet::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 36.15029632 | Max relati",
    "rules:linalg.slogdet[batched]::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.slogdet[batched]::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 2 (50%) | Mismatch at index: | Max absolute difference among violations: 36.1",
    "rules:linalg.slogdet[batched]::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 2 (50%) | Mismatch at index: | Max absolute difference among violations: 36.1",
    "rules:linalg.slogdet[batched]::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 2 (50%) | Mismatch at index: | Max absolute difference among violations: 36.1",
    "rules:linalg.slogdet[batched]::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 2 (50%) | Mismatch at index: | Max absolute difference among violations: 36.1",
    "rules:linalg.solve[vector]::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 3 (33.3%) | Mismatch at index: | Max absolute difference among violations: 9.",
    "rules:linalg.svdvals::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 6 (33.3%) | Mismatch at indices: | Max absolute difference among violations: ",
    "rules:linalg.vector_norm[axis=None,keepdims=False]::empty::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:linalg.vector_norm[axis=None,keepdims=False]::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:mean[axis=None,keepdims=False]::empty::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:mean[axis=None,keepdims=False]::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 0.04166667 | Max relativ",
    "rules:mean[axis=None,keepdims=False]::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 0.04166667 | Max relativ",
    "rules:mean[axis=None,keepdims=False]::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 0.04166667 | Max relativ",
    "rules:mean[axis=None,keepdims=False]::extreme::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 0.04166667 | Max relativ",
    "rules:prod[axis=None,keepdims=False]::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:prod[axis=None,keepdims=False]::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:setitem[1:3,:]::int::jit": "numpy: output 0: dtype float64 vs jax int64",
    "rules:setitem[1:3,:]::int::value": "numpy: output 0: dtype float64 vs jax int64",
    "rules:setitem[1:3,:]::int::vmap": "numpy: output 0: dtype float64 vs jax int64",
    "rules:special.logsumexp[axis=None]::empty::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:std[all]::empty::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:std[all]::extreme::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:std[all]::extreme::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:std[all]::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:sum[axis=None,keepdims=False]::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 0.5 | Max relative diffe",
    "rules:sum[axis=None,keepdims=False]::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 0.5 | Max relative diffe",
    "rules:sum[axis=None,keepdims=False]::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 0.5 | Max relative diffe",
    "rules:sum[axis=None,keepdims=False]::extreme::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 1 (100%) | Max absolute difference among violations: 0.5 | Max relative diffe",
    "rules:var[all]::extreme::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:var[all]::extreme::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:var[all]::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "rules:vecdot[same]::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 3 / 3 (100%) | Mismatch at indices: | Max absolute difference among violations: 1",
    "scipy.linalg.cho_factor::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.cho_factor::nonfinite::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.cho_factor::zero-ties::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.cholesky-upper::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.cholesky-upper::nonfinite::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.cholesky-upper::zero-ties::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.companion::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 1 / 9 (11.1%) | Mismatch at index: | Max absolute difference among violations: 1.",
    "scipy.linalg.companion::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 1 / 9 (11.1%) | Mismatch at index: | Max absolute difference among violations: 1.",
    "scipy.linalg.companion::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 1 / 9 (11.1%) | Mismatch at index: | Max absolute difference among violations: 1.",
    "scipy.linalg.convolution_matrix::nonfinite::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.convolution_matrix::nonfinite::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.convolution_matrix::nonfinite::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.convolution_matrix::nonfinite::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.det::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.det::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.det::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.det::nonfinite::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.det::nonfinite::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.eigh_tridiagonal::empty::jit": "linalg: raises ValueError: eigh_tridiagonal: e must have one entry fewer than d, got shapes (0,) and (0,)",
    "scipy.linalg.eigh_tridiagonal::empty::value": "linalg: raises ValueError: eigh_tridiagonal: e must have one entry fewer than d, got shapes (0,) and (0,)",
    "scipy.linalg.eigh_tridiagonal::empty::vmap": "linalg: raises ValueError: eigh_tridiagonal: e must have one entry fewer than d, got shapes (0,) and (0,)",
    "scipy.linalg.eigh_tridiagonal::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.eigh_tridiagonal::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.eigh_tridiagonal::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.fiedler::nonfinite::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.fiedler_companion::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 1 / 25 (4%) | Mismatch at index: | Max absolute difference among violations: 1. |",
    "scipy.linalg.fiedler_companion::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 1 / 25 (4%) | Mismatch at index: | Max absolute difference among violations: 1. |",
    "scipy.linalg.fiedler_companion::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 1 / 25 (4%) | Mismatch at index: | Max absolute difference among violations: 1. |",
    "scipy.linalg.hankel::nonfinite::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.hankel::nonfinite::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.hankel::nonfinite::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.hankel::nonfinite::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.hessenberg::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 6 / 16 (37.5%) | Max absolute difference among violations: 1.e+308 | Max relative",
    "scipy.linalg.hessenberg::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 6 / 16 (37.5%) | Max absolute difference among violations: 1.e+308 | Max relative",
    "scipy.linalg.hessenberg::extreme::vmap": "linalg: raises NotImplementedError: scipy.linalg.hessenberg has no derivative and can't be traced (as in JAX); apply xgrad.stop_gradient to its argument, or c",
    "scipy.linalg.hessenberg::nonfinite::jit": "linalg: raises ValueError: array must not contain infs or NaNs",
    "scipy.linalg.hessenberg::nonfinite::value": "linalg: raises ValueError: array must not contain infs or NaNs",
    "scipy.linalg.hessenberg::nonfinite::vmap": "linalg: raises NotImplementedError: scipy.linalg.hessenberg has no derivative and can't be traced (as in JAX); apply xgrad.stop_gradient to its argument, or c",
    "scipy.linalg.hessenberg::zero-ties::vmap": "linalg: raises NotImplementedError: scipy.linalg.hessenberg has no derivative and can't be traced (as in JAX); apply xgrad.stop_gradient to its argument, or c",
    "scipy.linalg.inv::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 2 / 16 (12.5%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.linalg.inv::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 1 / 16 (6.25%) | Mismatch at index: | Max absolute difference among violations: 0",
    "scipy.linalg.inv::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 1 / 16 (6.25%) | Mismatch at index: | Max absolute difference among violations: 0",
    "scipy.linalg.inv::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 1 / 16 (6.25%) | Mismatch at index: | Max absolute difference among violations: 0",
    "scipy.linalg.inv::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.lu::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 13 / 16 (81.2%) | Max absolute difference among violations: 1.75 | Max relative d",
    "scipy.linalg.lu::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 6 / 16 (37.5%) | Max absolute difference among violations: 1. | Max relative diff",
    "scipy.linalg.lu::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 6 / 16 (37.5%) | Max absolute difference among violations: 1. | Max relative diff",
    "scipy.linalg.lu::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 6 / 16 (37.5%) | Max absolute difference among violations: 1. | Max relative diff",
    "scipy.linalg.lu::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 6 / 16 (37.5%) | Max absolute difference among violations: 1. | Max relative diff",
    "scipy.linalg.lu::nonfinite::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.lu::nonfinite::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 6 / 16 (37.5%) | Max absolute difference among violations: 1. | Max relative diff",
    "scipy.linalg.lu::nonfinite::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 6 / 16 (37.5%) | Max absolute difference among violations: 1. | Max relative diff",
    "scipy.linalg.lu::nonfinite::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 6 / 16 (37.5%) | Max absolute difference among violations: 1. | Max relative diff",
    "scipy.linalg.lu::nonfinite::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 6 / 16 (37.5%) | Max absolute difference among violations: 1. | Max relative diff",
    "scipy.linalg.lu_factor::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 13 / 16 (81.2%) | Max absolute difference among violations: 1.75 | Max relative d",
    "scipy.linalg.lu_factor::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 8 / 16 (50%) | Max absolute difference among violations: 1.e+308 | Max relative d",
    "scipy.linalg.lu_factor::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 8 / 16 (50%) | Max absolute difference among violations: 1.e+308 | Max relative d",
    "scipy.linalg.lu_factor::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 8 / 16 (50%) | Max absolute difference among violations: 1.e+308 | Max relative d",
    "scipy.linalg.lu_factor::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 8 / 16 (50%) | Max absolute difference among violations: 1.e+308 | Max relative d",
    "scipy.linalg.lu_factor::nonfinite::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.lu_factor::nonfinite::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.lu_factor::nonfinite::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.lu_factor::nonfinite::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.lu_factor::nonfinite::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.lu_solve::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.lu_solve::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.lu_solve::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.lu_solve::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.lu_solve::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.polar::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 10 / 12 (83.3%) | Max absolute difference among violations: 0.70710678 | Max rela",
    "scipy.linalg.polar::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 10 / 12 (83.3%) | Max absolute difference among violations: 0.70710678 | Max rela",
    "scipy.linalg.polar::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 10 / 12 (83.3%) | Max absolute difference among violations: 0.70710678 | Max rela",
    "scipy.linalg.qr-economic-R::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.qr-economic-R::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 2 / 9 (22.2%) | Mismatch at indices: | Max absolute difference among violations: ",
    "scipy.linalg.qr-economic-R::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 2 / 9 (22.2%) | Mismatch at indices: | Max absolute difference among violations: ",
    "scipy.linalg.qr-economic-R::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 2 / 9 (22.2%) | Mismatch at indices: | Max absolute difference among violations: ",
    "scipy.linalg.qr-economic-R::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 2 / 9 (22.2%) | Mismatch at indices: | Max absolute difference among violations: ",
    "scipy.linalg.qr_multiply::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.qr_multiply::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.qr_multiply::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.rsf2csf::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 5 / 16 (31.2%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.linalg.rsf2csf::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 5 / 16 (31.2%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.linalg.rsf2csf::extreme::vmap": "linalg: raises NotImplementedError: scipy.linalg.schur has no derivative and can't be traced (as in JAX); apply xgrad.stop_gradient to its argument, or call i",
    "scipy.linalg.rsf2csf::nonfinite::jit": "linalg: raises ValueError: array must not contain infs or NaNs",
    "scipy.linalg.rsf2csf::nonfinite::value": "linalg: raises ValueError: array must not contain infs or NaNs",
    "scipy.linalg.rsf2csf::nonfinite::vmap": "linalg: raises NotImplementedError: scipy.linalg.schur has no derivative and can't be traced (as in JAX); apply xgrad.stop_gradient to its argument, or call i",
    "scipy.linalg.rsf2csf::zero-ties::vmap": "linalg: raises NotImplementedError: scipy.linalg.schur has no derivative and can't be traced (as in JAX); apply xgrad.stop_gradient to its argument, or call i",
    "scipy.linalg.schur::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 5 / 16 (31.2%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.linalg.schur::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 5 / 16 (31.2%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.linalg.schur::extreme::vmap": "linalg: raises NotImplementedError: scipy.linalg.schur has no derivative and can't be traced (as in JAX); apply xgrad.stop_gradient to its argument, or call i",
    "scipy.linalg.schur::nonfinite::jit": "linalg: raises ValueError: array must not contain infs or NaNs",
    "scipy.linalg.schur::nonfinite::value": "linalg: raises ValueError: array must not contain infs or NaNs",
    "scipy.linalg.schur::nonfinite::vmap": "linalg: raises NotImplementedError: scipy.linalg.schur has no derivative and can't be traced (as in JAX); apply xgrad.stop_gradient to its argument, or call i",
    "scipy.linalg.schur::zero-ties::vmap": "linalg: raises NotImplementedError: scipy.linalg.schur has no derivative and can't be traced (as in JAX); apply xgrad.stop_gradient to its argument, or call i",
    "scipy.linalg.solve::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 2 / 8 (25%) | Mismatch at indices: | Max absolute difference among violations: 0.",
    "scipy.linalg.solve::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.solve::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.solve::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.solve::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.solve_sylvester::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.solve_sylvester::zero-ties::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 4 / 12 (33.3%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.linalg.solve_sylvester::zero-ties::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 8 / 12 (66.7%) | Max absolute difference among violations: 1.80234659 | Max relat",
    "scipy.linalg.solve_sylvester::zero-ties::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 8 / 12 (66.7%) | Max absolute difference among violations: 1.80234659 | Max relat",
    "scipy.linalg.solve_sylvester::zero-ties::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 8 / 12 (66.7%) | Max absolute difference among violations: 1.80234659 | Max relat",
    "scipy.linalg.solve_sylvester::zero-ties::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 8 / 12 (66.7%) | Max absolute difference among violations: 1.80234659 | Max relat",
    "scipy.linalg.solve_triangular::extreme::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.solve_triangular::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.solve_triangular::nonfinite::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.solve_triangular::nonfinite::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.solve_triangular::nonfinite::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.solve_triangular::nonfinite::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.solve_triangular::nonfinite::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.solve_triangular::zero-ties::grad": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.solve_triangular::zero-ties::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.solve_triangular::zero-ties::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.solve_triangular::zero-ties::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.solve_triangular::zero-ties::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.sqrtm::extreme::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 7 / 16 (43.8%) | Max absolute difference among violations: 4.50821278e+153 | Max ",
    "scipy.linalg.sqrtm::extreme::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 7 / 16 (43.8%) | Max absolute difference among violations: 4.50821278e+153 | Max ",
    "scipy.linalg.sqrtm::extreme::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 7 / 16 (43.8%) | Max absolute difference among violations: 4.50821278e+153 | Max ",
    "scipy.linalg.svd-values::extreme::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10 | Mismatched elements: 1 / 3 (33.3%) | Mismatch at index: | Max absolute difference among violations: 2.",
    "scipy.linalg.toeplitz::nonfinite::jit": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.toeplitz::nonfinite::jvp": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.toeplitz::nonfinite::value": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.linalg.toeplitz::nonfinite::vmap": "linalg: Not equal to tolerance rtol=1e-09, atol=1e-10",
    "scipy.signal.convolve-1d-full::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.convolve-1d-full::nonfinite::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.convolve-1d-full::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.convolve-1d-full::nonfinite::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.convolve-1d-full::nonfinite::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.convolve2d-same::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11 | Mismatched elements: 16 / 30 (53.3%) | Max absolute difference among violations: 1.5 | Max relative di",
    "scipy.signal.convolve2d-same::nonfinite::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.convolve2d-same::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.convolve2d-same::nonfinite::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.convolve2d-same::nonfinite::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.correlate-complex-full::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.correlate-complex-full::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.correlate-complex-full::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.correlate-complex-full::extreme::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.correlate2d-swap-full::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.correlate2d-swap-full::nonfinite::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.correlate2d-swap-full::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.correlate2d-swap-full::nonfinite::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.correlate2d-swap-full::nonfinite::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.detrend-linear-bp::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11 | Mismatched elements: 3 / 60 (5%) | Mismatch at indices: | Max absolute difference among violations: 8.",
    "scipy.signal.detrend-linear-bp::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11 | Mismatched elements: 3 / 60 (5%) | Mismatch at indices: | Max absolute difference among violations: 8.",
    "scipy.signal.detrend-linear-bp::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11 | Mismatched elements: 3 / 60 (5%) | Mismatch at indices: | Max absolute difference among violations: 8.",
    "scipy.signal.detrend-linear-bp::extreme::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11 | Mismatched elements: 3 / 60 (5%) | Mismatch at indices: | Max absolute difference among violations: 8.",
    "scipy.signal.detrend-linear-bp::nonfinite::vmap": "vmap: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.fftconvolve-2d-full::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.stft::empty::grad": "numpy: raises ValueError: vjp_fn: cotangent[0] has shape (0, 40), but the output has shape (9,)",
    "scipy.signal.stft::empty::jit": "numpy: output 0: shape (9,) vs jax (0, 40)",
    "scipy.signal.stft::empty::jvp": "numpy: output 0: shape (9,) vs jax (0, 40)",
    "scipy.signal.stft::empty::value": "numpy: output 0: shape (9,) vs jax (0, 40)",
    "scipy.signal.stft::empty::vmap": "numpy: output 0: shape (9,) vs jax (0, 40)",
    "scipy.signal.welch::empty::grad": "numpy: raises ValueError: vjp_fn: cotangent[0] has shape (0, 40), but the output has shape (9,)",
    "scipy.signal.welch::empty::jit": "numpy: output 0: shape (9,) vs jax (0, 40)",
    "scipy.signal.welch::empty::jvp": "numpy: output 0: shape (9,) vs jax (0, 40)",
    "scipy.signal.welch::empty::value": "numpy: output 0: shape (9,) vs jax (0, 40)",
    "scipy.signal.welch::empty::vmap": "numpy: output 0: shape (9,) vs jax (0, 40)",
    "scipy.signal.welch::extreme::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.welch::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.welch::extreme::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.welch::extreme::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.signal.welch::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-11",
    "scipy.special.bessel_jn::extreme::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.bessel_jn::extreme::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.bessel_jn::extreme::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.bessel_jn::extreme::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.bessel_jn::extreme::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.bessel_jn::nonfinite::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.bessel_jn::nonfinite::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.bessel_jn::nonfinite::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.bessel_jn::nonfinite::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.bessel_jn::zero-ties::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.bessel_jn::zero-ties::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.bessel_jn::zero-ties::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.bessel_jn::zero-ties::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.bessel_jn::zero-ties::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.beta::extreme::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.beta::extreme::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.beta::extreme::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.beta::extreme::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.beta::extreme::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.beta::int::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 5 / 12 (41.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.special.beta::int::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 5 / 12 (41.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.special.beta::int::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 5 / 12 (41.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.special.beta::nonfinite::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.beta::nonfinite::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.beta::nonfinite::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.beta::nonfinite::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.beta::nonfinite::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.beta::zero-ties::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.beta::zero-ties::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.beta::zero-ties::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.beta::zero-ties::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.beta::zero-ties::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.betainc-x::nonfinite::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.betainc-x::nonfinite::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.betaln::extreme::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.betaln::extreme::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.betaln::extreme::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.betaln::extreme::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.betaln::extreme::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.betaln::nonfinite::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.betaln::nonfinite::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.betaln::nonfinite::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.betaln::nonfinite::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.betaln::nonfinite::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.betaln::zero-ties::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.betaln::zero-ties::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.betaln::zero-ties::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.betaln::zero-ties::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.betaln::zero-ties::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.boxcox1p::extreme::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 12 (16.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.special.boxcox1p::extreme::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 12 (16.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.special.boxcox1p::extreme::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 12 (16.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.special.boxcox1p::extreme::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 12 (16.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.special.boxcox1p::extreme::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 12 (16.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.special.boxcox1p::nonfinite::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.boxcox1p::zero-ties::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.boxcox::extreme::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.boxcox::extreme::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 12 (16.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.special.boxcox::extreme::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 12 (16.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.special.boxcox::extreme::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 12 (16.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.special.boxcox::extreme::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 2 / 12 (16.7%) | Mismatch at indices: | Max absolute difference among violations:",
    "scipy.special.boxcox::nonfinite::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.boxcox::zero-ties::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.dawsn::extreme::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.dawsn::extreme::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.erfcx::extreme::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.erfcx::extreme::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.exp1::nonfinite::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.exp1::nonfinite::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.exp1::nonfinite::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.exp1::nonfinite::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.exp1::nonfinite::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.exp1::zero-ties::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.exp1::zero-ties::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.expi::nonfinite::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.expi::nonfinite::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.expi::nonfinite::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.expi::nonfinite::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.expi::zero-ties::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.expi::zero-ties::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.expi::zero-ties::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.expi::zero-ties::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.expn::nonfinite::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.expn::nonfinite::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.expn::nonfinite::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.expn::nonfinite::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.expn::nonfinite::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.factorial::extreme::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.factorial::nonfinite::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.gammainc-x::nonfinite::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.gammainc-x::nonfinite::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.gammainc-x::nonfinite::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.gammainc-x::nonfinite::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.gammaincc-x::extreme::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.gammaincc-x::extreme::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.gammaincc-x::extreme::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.gammaincc-x::extreme::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.gammaincc-x::nonfinite::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.gammaincc-x::nonfinite::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.gammaincc-x::nonfinite::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.gammaincc-x::nonfinite::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.hyp1f1-x::nonfinite::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.hyp1f1-x::nonfinite::jit": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.hyp1f1-x::nonfinite::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.hyp1f1-x::nonfinite::value": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.hyp1f1-x::nonfinite::vmap": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.log_ndtr::edges::hessian": "special: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 1 / 18 (5.56%) | Mismatch at index: | Max absolute difference among violations: 3",
    "scipy.special.log_ndtr::float32::hessian": "special: Not equal to tolerance rtol=4e-06, atol=1e-06 | Mismatched elements: 1 / 18 (5.56%) | Mismatch at index: | Max absolute difference among violations: 0",
    "scipy.special.logsumexp::empty::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.multigammaln::nonfinite::grad": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.special.multigammaln::nonfinite::jvp": "special: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.bernoulli-logpmf+pmf+cdf+ppf::nonfinite::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.beta-logpdf+pdf+cdf+logcdf+sf+logsf::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-08, atol=1e-12",
    "scipy.stats.betabinom-logpmf+pmf::nonfinite::grad": "stats: Not equal to tolerance rtol=1e-05, atol=1e-12",
    "scipy.stats.betabinom-logpmf+pmf::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-05, atol=1e-12",
    "scipy.stats.binom-logpmf+pmf::nonfinite::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.chi2-cdf+logcdf+sf+logsf::nonfinite::grad": "stats: Not equal to tolerance rtol=1e-08, atol=1e-12",
    "scipy.stats.dirichlet-logpdf+pdf::nonfinite::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.expon-logpdf+pdf+cdf+logcdf+sf+logsf+ppf::nonfinite::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.gamma-cdf+logcdf+sf+logsf::nonfinite::vmap": "stats: Not equal to tolerance rtol=1e-08, atol=1e-12",
    "scipy.stats.gamma-logpdf+pdf::nonfinite::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.geom-logpmf+pmf::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.gumbel_l-logpdf+pdf+cdf+logcdf+sf+logsf+ppf::nonfinite::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.gumbel_l-logpdf+pdf+cdf+logcdf+sf+logsf+ppf::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.gumbel_r-logpdf+pdf+cdf+logcdf+sf+logsf+ppf::nonfinite::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.gumbel_r-logpdf+pdf+cdf+logcdf+sf+logsf+ppf::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.multinomial-logpmf+pmf::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.multivariate_normal-logpdf+pdf+logpdf+logpdf::nonfinite::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.pareto-logpdf+pdf+cdf+logcdf+sf+logsf+ppf::nonfinite::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.poisson-entropy::nonfinite::jit": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.poisson-entropy::nonfinite::value": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.poisson-entropy::nonfinite::vmap": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.sem::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.truncnorm-logpdf+pdf+cdf+logcdf+sf+logsf::nonfinite::jit": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.truncnorm-logpdf+pdf+cdf+logcdf+sf+logsf::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.truncnorm-logpdf+pdf+cdf+logcdf+sf+logsf::nonfinite::value": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.truncnorm-logpdf+pdf+cdf+logcdf+sf+logsf::nonfinite::vmap": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.uniform-logpdf+pdf+cdf+ppf::nonfinite::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.uniform-logpdf+pdf+cdf+ppf::nonfinite::vmap": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.vonmises-logpdf+pdf::nonfinite::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.vonmises-logpdf+pdf::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.wrapcauchy-logpdf+pdf::nonfinite::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "scipy.stats.wrapcauchy-logpdf+pdf::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "searchsorted::nonfinite::jit": "numpy: output 0: dtype int64 vs jax int32",
    "searchsorted::nonfinite::jvp": "numpy: output 0: dtype int64 vs jax int32",
    "searchsorted::nonfinite::value": "numpy: output 0: dtype int64 vs jax int32",
    "searchsorted::nonfinite::vmap": "numpy: Arrays are not equal | Mismatched elements: 8 / 12 (66.7%) | Max absolute difference among violations: 2 | Max relative difference among violations: 0",
    "select::nonfinite::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "setdiff1d::empty::vmap": "vmap: raises TypeError: setdiff1d: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends o",
    "setdiff1d::extreme::vmap": "vmap: raises TypeError: setdiff1d: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends o",
    "setdiff1d::int::vmap": "vmap: raises TypeError: setdiff1d: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends o",
    "setdiff1d::nonfinite::vmap": "vmap: raises TypeError: setdiff1d: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends o",
    "setdiff1d::zero-ties::vmap": "vmap: raises TypeError: setdiff1d: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends o",
    "setxor1d-size_fill::empty::vmap": "vmap: raises TypeError: setxor1d: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends on",
    "setxor1d-size_fill::nonfinite::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "setxor1d-size_fill::nonfinite::jit": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "setxor1d-size_fill::nonfinite::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "setxor1d-size_fill::nonfinite::value": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "setxor1d-size_fill::nonfinite::vmap": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "setxor1d::empty::vmap": "vmap: raises TypeError: setxor1d: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends on",
    "setxor1d::extreme::vmap": "vmap: raises TypeError: setxor1d: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends on",
    "setxor1d::int::vmap": "vmap: raises TypeError: setxor1d: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends on",
    "setxor1d::nonfinite::jit": "numpy: output 0: shape (4,) vs jax (5,)",
    "setxor1d::nonfinite::value": "numpy: output 0: shape (4,) vs jax (5,)",
    "setxor1d::nonfinite::vmap": "numpy: raises TypeError: setxor1d: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends on",
    "setxor1d::zero-ties::vmap": "vmap: raises TypeError: setxor1d: its output shape depends on the values, and this traced value has no single concrete value (a value inside vmap depends on",
    "std-ddof::empty::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "std-ddof::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "union1d::extreme::vmap": "vmap: raises TypeError: unique: the number of unique values depends on the values, and this traced value has no single concrete value (a value inside vmap d",
    "union1d::int::vmap": "vmap: raises TypeError: unique: the number of unique values depends on the values, and this traced value has no single concrete value (a value inside vmap d",
    "union1d::nonfinite::vmap": "vmap: raises TypeError: unique: the number of unique values depends on the values, and this traced value has no single concrete value (a value inside vmap d",
    "union1d::zero-ties::vmap": "vmap: raises TypeError: unique: the number of unique values depends on the values, and this traced value has no single concrete value (a value inside vmap d",
    "unique-size_fill::empty::grad": "numpy: raises ValueError: vjp_fn: cotangent[1] has shape (0,), but the output has shape (7,)",
    "unique-size_fill::empty::jit": "numpy: output 1: shape (7,) vs jax (0,)",
    "unique-size_fill::empty::jvp": "numpy: output 1: shape (7,) vs jax (0,)",
    "unique-size_fill::empty::value": "numpy: output 1: shape (7,) vs jax (0,)",
    "unique-size_fill::empty::vmap": "numpy: output 1: shape (7,) vs jax (0,)",
    "unique-size_fill::int::jit": "numpy: output 0: dtype float64 vs jax int64",
    "unique-size_fill::int::value": "numpy: output 0: dtype float64 vs jax int64",
    "unique-size_fill::int::vmap": "numpy: output 0: dtype float64 vs jax int64",
    "unique-values::extreme::vmap": "vmap: raises TypeError: unique: the number of unique values depends on the values, and this traced value has no single concrete value (a value inside vmap d",
    "unique-values::int::vmap": "vmap: raises TypeError: unique: the number of unique values depends on the values, and this traced value has no single concrete value (a value inside vmap d",
    "unique-values::nonfinite::vmap": "vmap: raises TypeError: unique: the number of unique values depends on the values, and this traced value has no single concrete value (a value inside vmap d",
    "unique-values::zero-ties::vmap": "vmap: raises TypeError: unique: the number of unique values depends on the values, and this traced value has no single concrete value (a value inside vmap d",
    "unique_all::nonfinite::vmap": "vmap: raises TypeError: unique_all: the number of unique values depends on the values, and this traced value has no single concrete value (a value inside vm",
    "unique_counts::nonfinite::vmap": "vmap: raises TypeError: unique_counts: the number of unique values depends on the values, and this traced value has no single concrete value (a value inside",
    "unique_inverse::nonfinite::vmap": "vmap: raises TypeError: unique_inverse: the number of unique values depends on the values, and this traced value has no single concrete value (a value insid",
    "unique_values::nonfinite::vmap": "vmap: raises TypeError: unique_values: the number of unique values depends on the values, and this traced value has no single concrete value (a value inside",
    "vander::zero-ties::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "vander::zero-ties::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "var-ddof::extreme::grad": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "var-ddof::extreme::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "var-ddof::nonfinite::jvp": "stats: Not equal to tolerance rtol=1e-09, atol=1e-12",
    "vecdot::extreme::jvp": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12 | Mismatched elements: 3 / 3 (100%) | Mismatch at indices: | Max absolute difference among violations: 1",
    "vecmat::extreme::grad": "numpy: Not equal to tolerance rtol=1e-09, atol=1e-12",
}


class KnownFailure(Exception):
    """Every failure of the item is a KNOWN line."""


def _nan_ok(item):
    return {t for t in E.TRANSFORMS for pat in DIFFERENCES
            if fnmatch.fnmatchcase(f"{item.test_id}::{t}", pat)}


def _waived(item):
    return {t for t in E.TRANSFORMS for pat in WAIVED
            if fnmatch.fnmatchcase(f"{item.test_id}::{t}", pat)}


def _known(item):
    pre = f"{item.test_id}::"
    return {k[len(pre):]: v for k, v in KNOWN.items() if k.startswith(pre)}


def _param(item):
    known = _known(item)
    marks = [pytest.mark.xfail(strict=True, raises=KnownFailure,
                               reason="; ".join(f"{t}: {v}" for t, v in sorted(known.items())))
             ] if known else []
    return pytest.param(item, id=item.test_id, marks=marks)


@pytest.mark.parametrize("item", [_param(i) for i in RUN])
def test_edge(item, jax):
    try:
        todo = [t for t in E.KIND_TRANSFORMS[item.kind] if t not in _waived(item)]
        bad = E.run(item, jax, transforms=todo, nan_ok=_nan_ok(item))
    except E.JaxRefuses as e:
        pytest.skip(str(e))
    known = _known(item)
    new = {t: m for t, m in bad.items() if t not in known}
    record = os.environ.get("XGRAD_SWEEP_RECORD")
    if record:               # regenerate the KNOWN table: write the lines, don't fail
        with open(f"{record}.{os.getpid()}", "a", encoding="utf-8") as fh:
            fh.writelines(line + "\n" for line in E.known_lines(item, bad))
        return
    fixed = sorted(t for t in known if t not in bad)
    msgs = [f"{item.test_id}::{t}: {m}" for t, m in sorted(new.items())]
    msgs += [f"{item.test_id}::{t} now agrees with jax: remove its KNOWN line" for t in fixed]
    assert not msgs, "\n".join(msgs)
    if known:
        raise KnownFailure("; ".join(f"{t}: {bad[t]}" for t in sorted(known)))


# ----- every public function is swept --------------------------------------------------

# public names with nothing to sweep: no floating-point array argument to put an
# edge value in, or not a function of arrays at all
_NO_FLOAT = "integer or boolean arguments only (swept by its own elementwise row if it has one)"
_CREATE = "creation from a shape, a size or Python values: no array argument to put an edge in"
_DTYPE = "a question about dtypes or types, not a function of array values"
_SPECIAL_MATRIX = "a named matrix of a given size: no array argument"
NOT_SWEPT = {
    **{n: _NO_FLOAT for n in (
        "bitwise_count", "gcd", "lcm", "packbits", "unpackbits", "ravel_multi_index",
        "unravel_index", "lexsort",
        "diag_indices", "ix_", "mask_indices", "tril_indices", "triu_indices", "nn.one_hot",
        "scipy.special.bernoulli")},
    **{n: _CREATE for n in (
        "arange", "empty", "eye", "full", "identity", "indices", "linspace", "ones", "zeros",
        "tri", "bartlett", "blackman", "hamming", "hanning", "fft.fftfreq", "fft.rfftfreq",
        "frombuffer", "fromfunction", "fromiter", "fromstring", "from_dlpack",
        "broadcast_shapes")},
    **{n: _DTYPE for n in ("can_cast", "finfo", "iinfo", "isdtype", "issubdtype",
                           "promote_types", "result_type", "namespace_for")},
    **{f"scipy.linalg.{n}": _SPECIAL_MATRIX for n in (
        "dft", "hadamard", "helmert", "hilbert", "invhilbert", "invpascal", "pascal")},
    "to_device": "moves an array between devices: no arithmetic",
    "at": "x.at itself: each method of x.at[i] is swept (at.set, at.add, ...)",
    "random_gamma": "a random draw: its derivative is tested against jax.grad in "
                    "tests/test_random.py",
    "random_gamma_grad": "the derivative of random_gamma's draw (tests/test_random.py)",
}


def _public(mod, prefix):
    out = set()
    for n in dir(mod):
        obj = getattr(mod, n)
        if n.startswith("_") or inspect.ismodule(obj) or isinstance(obj, type) or not callable(obj):
            continue
        out.add(prefix + n)
    return out


def public_functions():
    """Every public function the sweep must cover, by its swept name."""
    import xgrad
    import xgrad.nn
    import xgrad.numpy as xnp
    import xgrad.scipy.linalg
    import xgrad.scipy.special
    import xgrad.scipy.stats
    names = _public(xnp, "") | _public(xnp.linalg, "linalg.") | _public(xnp.fft, "fft.")
    names |= _public(xgrad.scipy.special, "scipy.special.")
    names |= _public(xgrad.scipy.linalg, "scipy.linalg.")
    names |= _public(xgrad.scipy.stats, "scipy.stats.")
    names |= _public(xgrad.nn, "nn.") | _public(xgrad.lax, "lax.")
    stats = xgrad.scipy.stats
    for d in dir(stats):
        sub = getattr(stats, d)
        if inspect.ismodule(sub) and not d.startswith("_"):
            names |= _public(sub, f"scipy.stats.{d}.")
    return names


def _resolve(name):
    import xgrad
    obj = xgrad.numpy if not name.startswith(("scipy.", "nn.", "lax.")) else xgrad
    for part in name.split("."):
        obj = getattr(obj, part, None)
    return obj


def swept_names():
    """The names the items sweep; a scipy.stats distribution's functions by
    the case ids that name them (``scipy.stats.norm-logpdf+cdf``), and an
    alias (``arccos`` of ``acos``) by the function it is."""
    out = set()
    for it in ITEMS:
        out.add(it.name)
        if it.name.startswith("scipy.stats.") and "-" in it.ident:
            fns = it.ident.split("-", 1)[1].split("-")[0].split("+")
            out |= {f"{it.name}.{f}" for f in fns}
    objs = {id(o) for o in map(_resolve, out) if o is not None}
    out |= {n for n in public_functions() if id(_resolve(n)) in objs}
    return out


def test_every_function_is_swept():
    missing = sorted(public_functions() - swept_names() - set(NOT_SWEPT))
    assert not missing, (f"public functions with no edge-sweep item: {missing}; add a case "
                         "(a JCase in a tests/test_*.py table, or to tests/edge_cases.py) or a "
                         "NOT_SWEPT line saying why there is nothing to sweep")
    from xgrad.core import RULES
    stale = sorted(n for n in NOT_SWEPT if n not in public_functions() | set(RULES)
                   or n in swept_names())
    assert not stale, f"NOT_SWEPT lines for names that are swept or gone: {stale}"


def test_every_row_is_swept():
    """Every row of the rule table is bound by a swept case (its own test_rules
    case, elementwise or not) or by a function that is swept."""
    import test_rules
    from xgrad.core import RULES
    elem, other = E.rule_cases()
    from test_scipy_special import COVERED_ROWS          # their scipy.special cases
    covered = {p for c in elem + other for p in c.prims} | set(COVERED_ROWS)
    names = swept_names()
    missing = sorted(r for r in RULES if r not in covered and r not in names
                     and f"scipy.special.{r}" not in names and r not in test_rules.NO_DERIVATIVE
                     and r not in NOT_SWEPT)
    assert not missing, f"rows of the rule table that no edge-sweep item binds: {missing}"


def test_every_at_method_and_mode_is_swept():
    from xgrad.numpy._at import _IndexUpdateRef      # x.at[i]: its methods
    methods = {n for n in dir(_IndexUpdateRef) if not n.startswith("_")
               and callable(getattr(_IndexUpdateRef, n))}
    ids = {it.ident.split("#")[0] for it in ITEMS if it.name.startswith("at.")}
    missing = []
    for m in sorted(methods):
        modes = ("clip", "fill", "drop") if m == "get" else ("clip", "drop")
        have = {i for i in ids if i.startswith(f"at.{m}")}
        if not have:
            missing.append(f"at.{m}")
        missing += [f"at.{m} mode={mode}" for mode in modes
                    if not any(mode in i for i in have)]
    assert not missing, f".at methods and modes with no edge-sweep item: {missing}"


def test_tables_name_real_items():
    ids = {f"{it.test_id}::{t}" for it in ITEMS for t in E.TRANSFORMS}
    stale = sorted(k for k in KNOWN if k not in ids)
    assert not stale, f"KNOWN lines naming no item: {stale}"
    unused = sorted(p for p in {**DIFFERENCES, **WAIVED}
                    if not any(fnmatch.fnmatchcase(i, p) for i in ids))
    assert not unused, f"DIFFERENCES/WAIVED patterns matching no item: {unused}"
