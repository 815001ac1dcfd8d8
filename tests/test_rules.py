"""Table-driven derivative tests: every differentiable row of the rule table.

For every case below (a user-level function of ``xgrad.numpy`` that binds one
or more rows of ``xgrad.core.RULES``), on every backend of the ``xp`` fixture
and in float32 and float64:

* ``test_against_jax``: the value, the JVP, the VJP and the four second
  orders (fwd-over-fwd, fwd-over-rev, rev-over-fwd, rev-over-rev, each built
  from ``xgrad.jvp``/``xgrad.vjp`` exactly as from ``jax.jvp``/``jax.vjp``,
  see ``_bundle``) agree with JAX. Sample points are float32 numbers, so
  one float64 jax computation per case (x64 enabled) is the oracle of both
  dtypes, with tolerances of the dtype under test;
* ``test_finite_differences`` (no jax needed): the JVP, the VJP (through
  ``<u, f(x)>``) and, in float64, the forward-over-reverse second order agree
  with central differences;
* ``test_dot_product`` (no jax needed): ``<u, J v> == <J^T u, v>``, the same
  identity for the two linear maps of second order, and the dtype contract
  (tangents have the output's dtype, cotangents their primal's).

The list of cases is derived from the table: unary and binary elementwise
rows (and those of ``rules/special.py``) generate their own cases from their
``domain``, on the shape group ``[(), (3,4), (3,1), (1,4)]`` for binary ones;
every other differentiable row needs an entry in the explicit lists, and
``test_every_row_is_covered`` fails for a new row that has none.

Kinks are avoided when sampling (a ``valid`` predicate per case); the
conventions at kinks have their own tests at the bottom.
"""
import math


import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad.core import RULES
from helpers import mm_flags, from_np, to_np
from test_scipy_special import COVERED_ROWS as SCIPY_SPECIAL_COVERED, ROWS as SCIPY_SPECIAL_ROWS

F32, F64 = "float32", "float64"
DTYPES = (F32, F64)
# oracle comparisons (different formulas, same precision); scaled by the size
# of the expected values, so atol is relative to max(1, max|expected|)
TOL = {F32: dict(rtol=2e-4, atol=2e-5), F64: dict(rtol=1e-9, atol=1e-11)}
# central differences: step and tolerance per dtype
FD_EPS = {F32: 1e-2, F64: 1e-6}
FD_TOL = {F32: 2e-2, F64: 1e-6}
# inner products of the dot-product test, relative to the sum of |terms|
DOT_TOL = {F32: 1e-5, F64: 1e-12}
DEFAULT_DOMAIN = (-2.0, 2.0)


# --------------------------------------------------------------------------
# cases

class Case:
    """One differentiable function of ``xgrad.numpy`` and how to sample it.

    ``f(ns, c, *args)`` is written once for ``ns = xgrad.numpy`` and
    ``ns = jax.numpy`` (``jf`` overrides the jax side); ``c`` holds the
    non-differentiated constants (index arrays, conditions), as numpy arrays
    here and converted to the backend for xgrad. ``prims`` names the rows of
    RULES the case is there to test (checked by ``test_cases_bind_their_rows``).
    ``strict``: None, or ("skip"|"xfail", reason) for array_api_strict.
    ``jax``: False where jax is no oracle; ``jax_dtype``: jax runs in the
    test's dtype (for functions whose output dtype depends on the input's).
    """

    def __init__(self, name, prims, f, shapes, *, jf=None, consts=None, domain=None,
                 valid=None, distinct=False, strict=None, tol=1.0, jax=True, jax_dtype=False,
                 f32=False, fd=True):
        self.name, self.prims, self.f, self.shapes = name, tuple(prims), f, tuple(shapes)
        self.jf = jf or f
        self.consts = consts or {}
        if domain is None:
            domain = RULES[self.prims[0]].domain or DEFAULT_DOMAIN
        self.domains = domain if isinstance(domain, list) else [domain] * len(self.shapes)
        self.valid, self.distinct, self.strict, self.tol, self.jax = valid, distinct, strict, tol, jax
        self.jax_dtype = jax_dtype   # jax runs in the test's dtype, not float64
        self.f32 = f32               # the function rounds to float32 inside
        self.fd = fd                 # False: the derivative is not the function's by design

    def __repr__(self):
        return self.name

    def sample(self, rng, dtype):
        """Arguments of ``dtype``, away from kinks. The values are float32
        numbers whatever ``dtype`` is, so the float32 and float64 tests of a
        case run at the same point and share one jax computation."""
        for _ in range(2000):
            args = []
            for shape, (lo, hi) in zip(self.shapes, self.domains):
                if self.distinct:   # well-separated values: no ties in max/min
                    n = math.prod(shape)
                    grid = np.linspace(lo, hi, n) + rng.uniform(-0.2, 0.2) * (hi - lo) / max(n, 2)
                    a = rng.permutation(grid).reshape(shape)
                else:
                    a = rng.uniform(lo, hi, size=shape)
                args.append(np.asarray(a, dtype=np.float32).astype(dtype))
            if self.valid is None or self.valid(*args):
                return args
        raise AssertionError(f"{self.name}: could not sample a point away from the kinks")


def _conv(xp, c):
    if isinstance(c, np.ndarray):
        return from_np(xp, c)
    if isinstance(c, tuple):
        return tuple(_conv(xp, p) for p in c)
    if isinstance(c, dict):
        return {k: _conv(xp, v) for k, v in c.items()}
    return c


def _xgrad_fn(case, xp):
    c = _conv(xp, case.consts)
    return lambda *args: case.f(xnp, c, *args)


def _family(p):
    return p.impl.__module__.rsplit(".", 1)[-1]


def _arity(p):
    return len(p.jvp) if isinstance(p.jvp, tuple) else 1


def _away_from(points, margin=0.05):
    """valid(): every element at least ``margin`` from each of ``points(x)``."""
    return lambda x, *rest: bool(np.all(np.abs(x - points(x)) > margin))


# kinks and jumps of the elementwise rows, avoided when sampling (margin 0.05,
# five times the float32 finite-difference step)
_VALID = {
    "abs": _away_from(lambda x: 0.0),
    "sign": _away_from(lambda x: 0.0),
    "floor": _away_from(np.round), "ceil": _away_from(np.round), "trunc": _away_from(np.round),
    "round": _away_from(lambda x: np.floor(x) + 0.5),
    "maximum": lambda x, y: bool(np.all(np.abs(x - y) > 0.05)),
    "minimum": lambda x, y: bool(np.all(np.abs(x - y) > 0.05)),
    "copysign": lambda x, y: bool(np.all(np.abs(x) > 0.05) and np.all(np.abs(y) > 0.05)),
    "remainder": lambda x, y: bool(np.all(np.abs(x / y - np.round(x / y)) > 0.06)),
    "floor_divide": lambda x, y: bool(np.all(np.abs(x / y - np.round(x / y)) > 0.06)),
}
# domains narrower than the row's, where the row's would make finite
# differences cross a jump: x/y moves by at most eps*(1/y + x/y^2) < 0.04
_DOMAIN = {"remainder": (1.0, 3.0), "floor_divide": (1.0, 3.0)}
# rows whose jax counterpart has no derivative rule: finite differences only
# (NB: jax raises NotImplementedError for the derivative of nextafter; as a
# function of real x it is x plus one ulp, so d/dx = 1, d/dy = 0)
_NO_JAX = {"nextafter"}

# elementwise rows tested by explicit cases below
_EXPLICIT = {"where", "stop_gradient"}

UNARY_SHAPES = [(), (3, 4)]
SHAPE_GROUP = [(), (3, 4), (3, 1), (1, 4)]
BINARY_SHAPES = [(a, b) for a in SHAPE_GROUP for b in SHAPE_GROUP]
# the shapes also compared with jax (all go through finite differences and the
# dot-product test; jax's tracing and compilation, ~70 ms a case, is the budget)
JAX_PAIRS = {((3, 4), (3, 4)), ((3, 1), (1, 4)), ((), (3, 4)), ((1, 4), ())}
JAX_SHAPES = JAX_PAIRS | {((3, 4),)}

# rows with no derivative at all: their outputs are bool or integer
# (checked by test_rows_without_derivative_have_discrete_outputs)
NO_DERIVATIVE = {
    "isfinite", "isinf", "isnan", "signbit", "logical_not", "bitwise_invert",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
    "argmax", "argmin", "all", "any", "argsort", "searchsorted",
    "threefry2x32", "random_poisson", "random_binomial",
}
# rows with a derivative whose tests live elsewhere, and why
TESTED_ELSEWHERE = {
    "random_gamma": "tests/test_random.py: grad of gamma/beta/dirichlet draws against jax.grad "
                    "(first order only: jax has no second derivative either)",
    "random_gamma_grad": "tests/test_random.py (the derivative of random_gamma's sample)",
}


def _elementwise_cases():
    cases = []
    for name, p in RULES.items():
        if (_family(p) != "elementwise" or name in NO_DERIVATIVE or name in _EXPLICIT
                or not hasattr(xnp, name)):
            continue
        n = _arity(p) if p.jvp is not None else (2 if p.broadcast else 1)
        domain = _DOMAIN.get(name, p.domain or DEFAULT_DOMAIN)
        f = (lambda fn: lambda ns, c, *a: getattr(ns, fn)(*a))(name)
        shape_sets = [(s,) for s in UNARY_SHAPES] if n == 1 else BINARY_SHAPES
        for shapes in shape_sets:
            sid = "-".join("x".join(map(str, s)) or "0" for s in shapes)
            cases.append(Case(f"{name}[{sid}]", (name,), f, shapes, domain=domain,
                              valid=_VALID.get(name),
                              jax=name not in _NO_JAX and shapes in JAX_SHAPES))
    return cases


def C(name, prims, f, *shapes, **kw):
    return Case(name, prims if isinstance(prims, tuple) else (prims,), f, shapes, **kw)


def _tanh_deriv(ns, a):
    """The hidden row ``tanh_deriv`` (1 - a**2, tanh' as a function of the value)."""
    if ns is xnp:
        return RULES["tanh_deriv"].bind(a)
    return 1.0 - a * a


def _hidden_cases():
    """Rows with no namespace function of their own (derivative helpers)."""
    return [C(f"tanh_deriv[{'x'.join(map(str, s)) or '0'}]", "tanh_deriv",
              lambda ns, c, a: _tanh_deriv(ns, a), s) for s in ((3, 4), ())]


def _distinct_cases():
    out = []
    for ax, kd in [(None, False), (0, False), (1, True), ((0, 1), False), (-1, False)]:
        for r in ("max", "min"):
            f = (lambda r, ax, kd: lambda ns, c, x: getattr(ns, r)(x, axis=ax, keepdims=kd))(r, ax, kd)
            out.append(C(f"{r}[axis={ax},keepdims={kd}]", r, f, (3, 4), distinct=True))
    out.append(C("max[3d,axis=(0,2)]", "max", lambda ns, c, x: ns.max(x, axis=(0, 2)), (2, 3, 4),
                 distinct=True))
    return out


def _reduction_cases():
    out = []
    for ax, kd in [(None, False), (0, False), (1, True), ((0, 1), False), (-1, True)]:
        out.append(C(f"sum[axis={ax},keepdims={kd}]", "sum",
                     (lambda ax, kd: lambda ns, c, x: ns.sum(x, axis=ax, keepdims=kd))(ax, kd), (3, 4)))
        out.append(C(f"prod[axis={ax},keepdims={kd}]", "prod",
                     (lambda ax, kd: lambda ns, c, x: ns.prod(x, axis=ax, keepdims=kd))(ax, kd), (3, 4)))
        out.append(C(f"mean[axis={ax},keepdims={kd}]", "sum",
                     (lambda ax, kd: lambda ns, c, x: ns.mean(x, axis=ax, keepdims=kd))(ax, kd), (3, 4)))
    out += [
        C("sum[0d]", "sum", lambda ns, c, x: ns.sum(x), ()),
        C("sum[3d,axis=(0,2)]", "sum", lambda ns, c, x: ns.sum(x, axis=(0, 2)), (2, 3, 4)),
        C("sum[dtype=float64]", ("sum",), lambda ns, c, x: ns.sum(x, axis=1, dtype=ns.float64), (3, 4),
          jax_dtype=True),
        C("prod[3d,axis=(0,2)]", "prod", lambda ns, c, x: ns.prod(x, axis=(0, 2)), (2, 3, 4)),
        C("prod[0d]", "prod", lambda ns, c, x: ns.prod(x), ()),
        C("var[all]", "sum", lambda ns, c, x: ns.var(x), (3, 4)),
        C("var[axis=1,correction=1]", "sum", lambda ns, c, x: ns.var(x, axis=1, correction=1), (3, 4)),
        C("var[axis=0,keepdims]", "sum", lambda ns, c, x: ns.var(x, axis=0, keepdims=True), (3, 4)),
        C("std[all]", ("sum", "sqrt"), lambda ns, c, x: ns.std(x), (3, 4)),
        C("std[axis=0,correction=1]", ("sum", "sqrt"),
          lambda ns, c, x: ns.std(x, axis=0, correction=1), (3, 4)),
        C("cumulative_sum[1d]", "cumulative_sum", lambda ns, c, x: ns.cumulative_sum(x), (5,)),
        C("cumulative_sum[axis=0]", "cumulative_sum",
          lambda ns, c, x: ns.cumulative_sum(x, axis=0), (3, 4)),
        C("cumulative_sum[axis=-1]", "cumulative_sum",
          lambda ns, c, x: ns.cumulative_sum(x, axis=-1), (3, 4)),
        C("cumulative_sum[axis=1,include_initial]", "cumulative_sum",
          lambda ns, c, x: ns.cumulative_sum(x, axis=1, include_initial=True), (3, 4)),
        C("cumulative_sum[3d,axis=1]", "cumulative_sum",
          lambda ns, c, x: ns.cumulative_sum(x, axis=1), (2, 3, 4)),
    ]
    return out + _distinct_cases() + _hidden_cases()


def _other_dtype(x):
    return "float64" if "32" in str(x.dtype) else "float32"


def _clip_valid(x, *rest):
    return bool(np.all(np.abs(x + 1.0) > 0.05) and np.all(np.abs(x - 1.0) > 0.05))


def _clip_arr_valid(x, lo, hi):
    return bool(np.all(np.abs(x - lo) > 0.05) and np.all(np.abs(x - hi) > 0.05))


def _shape_cases():
    cond = np.array([[True, False, True, True], [False, False, True, False],
                     [True, True, False, True]])
    idx = {"i": np.array([2, 0, 2])}
    return [
        C("reshape[(3,4)->(4,3)]", "reshape", lambda ns, c, x: ns.reshape(x, (4, 3)), (3, 4)),
        C("reshape[(3,4)->(2,-1)]", "reshape", lambda ns, c, x: ns.reshape(x, (2, -1)), (3, 4)),
        C("reshape[(3,4)->(12,)]", "reshape", lambda ns, c, x: ns.reshape(x, (12,)), (3, 4)),
        C("reshape[()->(1,1)]", "reshape", lambda ns, c, x: ns.reshape(x, (1, 1)), ()),
        C("permute_dims[(2,0,1)]", "permute_dims",
          lambda ns, c, x: ns.permute_dims(x, (2, 0, 1)), (2, 3, 4)),
        C("permute_dims[2d]", "permute_dims", lambda ns, c, x: ns.permute_dims(x, (1, 0)), (3, 4)),
        C("matrix_transpose", "permute_dims", lambda ns, c, x: ns.matrix_transpose(x), (2, 3, 4)),
        C(".mT", "permute_dims", lambda ns, c, x: x.mT, (2, 3, 4)),
        C("expand_dims[0]", "reshape", lambda ns, c, x: ns.expand_dims(x, axis=0), (3, 4)),
        C("expand_dims[-1]", "reshape", lambda ns, c, x: ns.expand_dims(x, axis=-1), (3, 4)),
        C("expand_dims[0d]", "reshape", lambda ns, c, x: ns.expand_dims(x, axis=0), ()),
        C("squeeze[1]", "reshape", lambda ns, c, x: ns.squeeze(x, axis=1), (3, 1, 4)),
        C("squeeze[(0,2)]", "reshape", lambda ns, c, x: ns.squeeze(x, axis=(0, 2)), (1, 4, 1)),
        C("broadcast_to[(3,1)->(2,3,4)]", "broadcast_to",
          lambda ns, c, x: ns.broadcast_to(x, (2, 3, 4)), (3, 1)),
        C("broadcast_to[()->(3,4)]", "broadcast_to", lambda ns, c, x: ns.broadcast_to(x, (3, 4)), ()),
        C("broadcast_to[(4,)->(3,4)]", "broadcast_to",
          lambda ns, c, x: ns.broadcast_to(x, (3, 4)), (4,)),
        C("concat[axis=0]", "concat", lambda ns, c, x, y: ns.concat([x, y], axis=0), (3, 4), (2, 4)),
        C("concat[axis=1]", "concat", lambda ns, c, x, y: ns.concat([x, y], axis=1), (3, 4), (3, 2)),
        C("concat[axis=-1,three]", "concat",
          lambda ns, c, x, y, z: ns.concat([x, y, z], axis=-1), (2, 1), (2, 3), (2, 2)),
        C("concat[axis=None]", "concat",
          lambda ns, c, x, y: ns.concat([x, y], axis=None), (3, 4), (5,)),
        C("concat[1d,same-arg-twice]", "concat",
          lambda ns, c, x: ns.concat([x, ns.multiply(x, x)], axis=0), (4,)),
        C("stack[axis=0]", "concat", lambda ns, c, x, y, z: ns.stack([x, y, z], axis=0),
          (3, 4), (3, 4), (3, 4)),
        C("stack[axis=1]", "concat", lambda ns, c, x, y: ns.stack([x, y], axis=1), (3, 4), (3, 4)),
        C("stack[axis=-1]", "concat", lambda ns, c, x, y: ns.stack([x, y], axis=-1), (3, 4), (3, 4)),
        C("stack[0d]", "concat", lambda ns, c, x, y: ns.stack([x, y]), (), ()),
        C("flip[None]", "flip", lambda ns, c, x: ns.flip(x), (3, 4)),
        C("flip[0]", "flip", lambda ns, c, x: ns.flip(x, axis=0), (3, 4)),
        C("flip[(0,2)]", "flip", lambda ns, c, x: ns.flip(x, axis=(0, 2)), (2, 3, 4)),
        C("roll[1,None]", "roll", lambda ns, c, x: ns.roll(x, 1), (3, 4)),
        C("roll[-2,axis=1]", "roll", lambda ns, c, x: ns.roll(x, -2, axis=1), (3, 4)),
        C("roll[(1,2),axis=(0,1)]", "roll", lambda ns, c, x: ns.roll(x, (1, 2), axis=(0, 1)), (3, 4)),
        C("take[axis=0]", "getitem", lambda ns, c, x: ns.take(x, c["i"], axis=0), (3, 4), consts=idx,
          strict=("skip", "array_api_strict rejects x[(i,)] on a 2-D array (xnp.take "
                          "builds a partial index: see the report)")),
        C("take[axis=1]", "getitem", lambda ns, c, x: ns.take(x, c["i"], axis=1), (3, 4), consts=idx,
          strict=("skip", "array_api_strict rejects (slice, int array) indices")),
        C("take[1d]", "getitem", lambda ns, c, x: ns.take(x, c["i"]), (4,), consts=idx),
        C("where[same]", "where", lambda ns, c, x, y: ns.where(c["c"], x, y), (3, 4), (3, 4),
          consts={"c": cond}),
        C("where[broadcast]", "where", lambda ns, c, x, y: ns.where(c["c"], x, y), (3, 1), (1, 4),
          consts={"c": cond}),
        C("where[scalar,array]", "where", lambda ns, c, x, y: ns.where(c["c"], x, y), (), (3, 4),
          consts={"c": cond}),
        C("where[cond broadcast]", "where", lambda ns, c, x, y: ns.where(c["c"], x, y),
          (3, 4), (3, 4), consts={"c": cond[0]}),
        C("clip[-1,1]", ("maximum", "minimum"), lambda ns, c, x: ns.clip(x, -1.0, 1.0), (3, 4),
          domain=(-3.0, 3.0), valid=_clip_valid),
        C("clip[min only]", "maximum", lambda ns, c, x: ns.clip(x, min=-1.0), (3, 4),
          domain=(-3.0, 3.0), valid=_clip_valid),
        C("clip[array bounds]", ("maximum", "minimum"),
          lambda ns, c, x, lo, hi: ns.clip(x, lo, hi), (3, 4), (3, 1), (1, 4),
          domain=[(-3.0, 3.0), (-2.0, -0.5), (0.5, 2.0)], valid=_clip_arr_valid),
        C("astype[other float]", "astype", lambda ns, c, x: ns.astype(x, _other_dtype(x)), (3, 4),
          jax_dtype=True),
        C("astype[same]", "astype", lambda ns, c, x: ns.astype(x, str(x.dtype).rsplit(".")[-1]),
          (3, 4)),
        C("astype[mixed]", "astype",
          lambda ns, c, x: ns.multiply(ns.astype(x, _other_dtype(x)), ns.sin(x)), (3, 4),
          jax_dtype=True, f32=True),
        C("tril[0]", "tril", lambda ns, c, x: ns.tril(x), (4, 4)),
        C("tril[k=1,batched]", "tril", lambda ns, c, x: ns.tril(x, k=1), (2, 3, 4)),
        C("triu[0]", "triu", lambda ns, c, x: ns.triu(x), (4, 4)),
        C("triu[k=-1,batched]", "triu", lambda ns, c, x: ns.triu(x, k=-1), (2, 3, 4)),
    ]


_MATMUL_SHAPES = [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)),
                  ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((2, 3, 4), (2, 4, 5)),
                  ((4,), (2, 4, 5)), ((2, 3, 4), (4,)), ((1, 3, 4), (2, 4, 5))]


_MATMUL_FLAG_SHAPES = [((4, 3), (4, 5), True, False), ((3, 4), (5, 4), False, True),
                       ((4, 3), (5, 4), True, True), ((2, 4, 3), (4, 5), True, False),
                       ((3, 4), (2, 5, 4), False, True), ((4,), (5, 4), False, True),
                       ((4, 3), (4,), True, False), ((4,), (2, 5, 4), False, True),
                       ((2, 4, 3), (4,), True, False)]


def _linalg_cases():
    out = []
    for a, b in _MATMUL_SHAPES:
        out.append(C(f"matmul[{a}@{b}]", "matmul", lambda ns, c, x, y: ns.matmul(x, y), a, b))
    for a, b, ta, tb in _MATMUL_FLAG_SHAPES:
        out.append(C(f"matmul[{a}@{b},ta={ta},tb={tb}]", "matmul",
                     (lambda ta, tb: lambda ns, c, x, y: mm_flags(ns, x, y, ta, tb))(ta, tb), a, b))
    out += [
        C("matmul[operator]", "matmul", lambda ns, c, x, y: x @ y, (3, 4), (4, 2)),
        C("matmul[x@x.mT]", "matmul", lambda ns, c, x: ns.matmul(x, x.mT), (3, 4)),
        C("tensordot[axes=1]", "matmul", lambda ns, c, x, y: ns.tensordot(x, y, axes=1), (3, 4), (4, 5)),
        C("tensordot[axes=2]", "matmul", lambda ns, c, x, y: ns.tensordot(x, y, axes=2),
          (2, 3, 4), (3, 4, 5)),
        C("tensordot[axes=((0,),(1,))]", "matmul",
          lambda ns, c, x, y: ns.tensordot(x, y, axes=((0,), (1,))), (3, 4), (5, 3)),
        C("tensordot[axes=0]", "matmul", lambda ns, c, x, y: ns.tensordot(x, y, axes=0), (2, 3), (4,)),
        C("vecdot[same]", ("multiply", "sum"), lambda ns, c, x, y: ns.vecdot(x, y), (3, 4), (3, 4)),
        C("vecdot[broadcast]", ("multiply", "sum"), lambda ns, c, x, y: ns.vecdot(x, y), (3, 4), (4,)),
        C("vecdot[axis=0]", ("multiply", "sum"), lambda ns, c, x, y: ns.vecdot(x, y, axis=0),
          (3, 4), (3, 4)),
    ]
    return out


def _setitem(idx):
    """``x[idx] = v`` on a traced value (a functional update); jax: .at[].set."""
    def f(ns, c, x, v):
        y = ns.multiply(x, 1.0)       # a fresh value: plain evaluation may write into it
        y[c[idx]] = v
        return y
    return f


def _at(idx, op):
    return lambda jnp, c, x, v: getattr(x.at[c[idx]], op)(v)


def _indexing_cases():
    i4 = np.array([0, 2, 2, 3])
    m = np.array([[True, False, True, False, True], [False, False, True, True, False],
                  [True, True, False, False, False], [False, True, False, True, True]])
    c = {"i": i4, "rows": np.array([[0], [3]]), "cols": np.array([[1, 4, 1]]),
         "m": m, "mrow": np.array([True, False, True, True]), "ui": np.array([3, 0, 2])}
    gi = lambda idx: lambda ns, c, x: x[idx(c)]          # noqa: E731
    out = [
        C("getitem[1:3,::2]", "getitem", gi(lambda c: (slice(1, 3), slice(None, None, 2))), (4, 5)),
        C("getitem[1,:]", "getitem", gi(lambda c: (1, slice(None))), (4, 5)),
        C("getitem[-1,2]", "getitem", gi(lambda c: (-1, 2)), (4, 5)),
        C("getitem[:,None,1:]", "getitem", gi(lambda c: (slice(None), None, slice(1, None))), (4, 5)),
        C("getitem[...,2]", "getitem", gi(lambda c: (Ellipsis, 2)), (2, 4, 5)),
        C("getitem[None,...,::-1]", "getitem", gi(lambda c: (None, Ellipsis, slice(None, None, -1))),
          (4, 5)),
        C("getitem[::-1,1:4]", "getitem", gi(lambda c: (slice(None, None, -1), slice(1, 4))), (4, 5)),
        C("getitem[:,1,::2]", "getitem", gi(lambda c: (slice(None), 1, slice(None, None, 2))),
          (2, 3, 4)),
        C("getitem[0d-from-1d]", "getitem", gi(lambda c: 2), (5,)),
        C("getitem[int array,1d]", "getitem", gi(lambda c: c["i"]), (5,), consts=c),
        C("getitem[int array]", "getitem", gi(lambda c: c["i"]), (4, 5), consts=c,
          strict=("skip", "array_api_strict needs a full index (x[i, ...] with int arrays)")),
        C("getitem[:,int array]", "getitem", gi(lambda c: (slice(None), c["i"])), (4, 5), consts=c,
          strict=("skip", "array_api_strict rejects (slice, int array) indices")),
        C("getitem[rows,cols]", "getitem", gi(lambda c: (c["rows"], c["cols"])), (4, 5), consts=c),
        C("getitem[1,int array]", "getitem", gi(lambda c: (1, c["i"])), (4, 5), consts=c),
        C("getitem[bool mask]", "getitem", gi(lambda c: c["m"]), (4, 5), consts=c),
        C("getitem[bool row mask]", "getitem", gi(lambda c: c["mrow"]), (4, 5), consts=c),
        C("take_along_axis", "getitem",
          lambda ns, c, x: ns.take_along_axis(x, c["ta"], axis=1), (3, 4),
          consts={"ta": np.array([[0, 3], [2, 2], [1, 0]])}),
        # x[idx] = v on a traced value
        C("setitem[1:3,:]", ("index_set",), _setitem("s"), (4, 5), (2, 5),
          jf=_at("s", "set"), consts={"s": (slice(1, 3), slice(None))}),
        C("setitem[0,:]", ("index_set",), _setitem("s"), (4, 5), (5,),
          jf=_at("s", "set"), consts={"s": (0, slice(None))}),
        C("setitem[1:3,1:3]=scalar", ("index_set",), _setitem("s"), (4, 5), (),
          jf=_at("s", "set"), consts={"s": (slice(1, 3), slice(1, 3))}),
        C("setitem[...,1]", ("index_set",), _setitem("s"), (4, 5), (4,),
          jf=_at("s", "set"), consts={"s": (Ellipsis, 1)}),
        C("setitem[bool mask]=scalar", ("index_set",), _setitem("m"), (4, 5), (),
          jf=_at("m", "set"), consts={"m": m}),
        C("setitem[int array,:]", ("index_set",), _setitem("s"), (4, 5), (3, 5),
          jf=_at("s", "set"), consts={"s": (c["ui"], slice(None))},
          strict=("skip", "array_api_strict has no integer-array setitem")),
        # the scatter-add behind the VJP of a gather, as a row of its own
        C("index_add[1:3,:]", ("index_add",), lambda ns, c, x, v: ns._index_add(x, v, c["s"]),
          (4, 5), (2, 5), jf=_at("s", "add"), consts={"s": (slice(1, 3), slice(None))}),
        C("index_add[repeated int array]", ("index_add",),
          lambda ns, c, x, v: ns._index_add(x, v, c["s"]), (4, 5), (4, 5),
          jf=_at("s", "add"), consts={"s": (c["i"],)},
          strict=("skip", "array_api_strict needs a full index (x[i, ...] with int arrays)")),
        C("index_add[1d repeated]", ("index_add",), lambda ns, c, x, v: ns._index_add(x, v, c["s"]),
          (5,), (4,), jf=_at("s", "add"), consts={"s": (c["i"],)}),
        # gather / scatter: flat positions as an operand (per-example indices under vmap)
        C("gather[2d positions]", ("gather",), lambda ns, c, x: ns._gather(x, c["p"]), (5,),
          jf=lambda ns, c, x: x[c["p"]], consts={"p": np.array([[0, 2, 2], [4, 1, 0]])}),
    ] + [
        C(f"scatter[{op}]", ("scatter",), (lambda op: lambda ns, c, x, v: ns._scatter(
            x, v, c["p"], op))(op), (5,), (4,), jf=_at("p", op), distinct=op in ("max", "min"),
          consts={"p": np.array([0, 2, 2, 4])})
        for op in ("add", "set", "max", "min")
    ]
    for case in out:
        if not case.consts:
            case.consts = c
    return out


# ----- the other families: special functions, linalg extension, fft, sorting -----

def _jax_eigvals(jnp, c, a):
    import jax
    w = jax.lax.linalg.eig(a + jnp.matrix_transpose(a), compute_left_eigenvectors=False,
                           compute_right_eigenvectors=False, enable_eigvec_derivs=True)[0]
    return jnp.sort(jnp.real(w))


def _sp(ns):
    """xgrad.numpy.special, or jax.scipy.special."""
    if ns is xnp:
        return xnp.special
    import jax.scipy.special
    return jax.scipy.special


def _la(ns):
    return xnp.linalg if ns is xnp else ns.linalg


def _grad_of(ns, f):
    if ns is xnp:
        return xgrad.grad(f)
    import jax
    return jax.grad(f)


def _sg(ns, x):
    if ns is xnp:
        return xgrad.stop_gradient(x)
    import jax
    return jax.lax.stop_gradient(x)


def _special_cases():
    """Elementwise rows of rules/special.py, generated like the others."""
    out = []
    for name, p in RULES.items():
        if _family(p) != "special" or not p.broadcast and name not in _SPECIAL_UNARY:
            continue
        if name in SCIPY_SPECIAL_ROWS:      # tested (with their own arities) there
            continue
        f = (lambda n: lambda ns, c, *a: getattr(_sp(ns), n)(*a))(name)
        if name in _SPECIAL_UNARY:
            for s in UNARY_SHAPES:
                out.append(C(f"special.{name}[{'x'.join(map(str, s)) or '0'}]", name, f, s,
                             jax=(s,) in JAX_SHAPES))
        elif name == "polygamma":
            for n in (0, 1, 2):
                out.append(C(f"special.polygamma[n={n}]", name,
                             (lambda n: lambda ns, c, x: _sp(ns).polygamma(n, x))(n), (3, 4)))
        else:
            for shapes in BINARY_SHAPES:
                sid = "-".join("x".join(map(str, s)) or "0" for s in shapes)
                out.append(Case(f"special.{name}[{sid}]", (name,), f, shapes,
                                jax=shapes in JAX_PAIRS))
    for ax in (None, 0, -1):
        for name in ("logsumexp", "softmax", "log_softmax"):
            out.append(C(f"special.{name}[axis={ax}]", name,
                         (lambda n, ax: lambda ns, c, x: getattr(_sp(ns), n)(x, axis=ax))(name, ax),
                         (3, 4)))
    out += [
        C("special.logsumexp[keepdims]", "logsumexp",
          lambda ns, c, x: _sp(ns).logsumexp(x, axis=1, keepdims=True), (3, 4)),
        C("special.logsumexp[b]", ("where",), lambda ns, c, x, b: _sp(ns).logsumexp(x, axis=1, b=b),
          (3, 4), (1, 4), domain=[(-3.0, 3.0), (0.5, 2.0)]),
        C("special.logsumexp[3d,axis=(0,2)]", "logsumexp",
          lambda ns, c, x: _sp(ns).logsumexp(x, axis=(0, 2)), (2, 3, 4)),
    ]
    return out


_SPECIAL_UNARY = {"erf", "erfc", "erfinv", "ndtr", "ndtri", "log_ndtr", "gammaln", "digamma",
                  "gamma", "i0", "i1", "expit", "logit", "entr"}


def _well(ns, c, a):
    """A well-conditioned matrix near ``a``: ``a + 3 I``."""
    return ns.add(a, c["3I"])


def _sym_pd(ns, c, a):
    """A symmetric positive definite matrix: ``a a^T + I``."""
    return ns.add(ns.matmul(a, ns.matrix_transpose(a)), c["I"])


def _flat(ns, *xs):
    return ns.concat([ns.reshape(x, (-1,)) for x in xs], axis=0)


def _linalg_ext_cases():
    I3 = np.eye(3)
    c = {"I": I3, "3I": 3.0 * I3}
    la = lambda f: lambda ns, c, *a: f(_la(ns), ns, c, *a)   # noqa: E731
    out = [
        C("linalg.solve[vector]", "solve", la(lambda L, ns, c, a, b: L.solve(_well(ns, c, a), b)),
          (3, 3), (3,), consts=c),
        C("linalg.solve[matrix]", "solve", la(lambda L, ns, c, a, b: L.solve(_well(ns, c, a), b)),
          (3, 3), (3, 2), consts=c),
        C("linalg.solve[batched]", "solve", la(lambda L, ns, c, a, b: L.solve(_well(ns, c, a), b)),
          (2, 3, 3), (2, 3, 2), consts=c),
        C("linalg.inv", "inv", la(lambda L, ns, c, a: L.inv(_well(ns, c, a))), (3, 3), consts=c),
        C("linalg.inv[batched]", "inv", la(lambda L, ns, c, a: L.inv(_well(ns, c, a))), (2, 3, 3),
          consts=c),
        C("linalg.det", ("det", "adjugate"), la(lambda L, ns, c, a: L.det(a)), (3, 3)),
        C("linalg.det[batched,2x2]", ("det", "adjugate"), la(lambda L, ns, c, a: L.det(a)), (4, 2, 2)),
        # det's gradient (the transposed adjugate), so that its derivative is tested
        C("linalg.det.grad", ("adjugate", "adjugate_dot"),
          lambda ns, c, a: _grad_of(ns, lambda m: _la(ns).det(m))(a), (3, 3)),
        C("linalg.slogdet.logabsdet", "slogdet", la(lambda L, ns, c, a: L.slogdet(_well(ns, c, a))[1]),
          (3, 3), consts=c),
        C("linalg.slogdet[batched]", "slogdet", la(lambda L, ns, c, a: L.slogdet(a)[1]), (2, 3, 3)),
        C("linalg.cholesky", "cholesky", la(lambda L, ns, c, a: L.cholesky(_sym_pd(ns, c, a))), (3, 3),
          consts=c),
        C("linalg.cholesky[upper]", "cholesky",
          la(lambda L, ns, c, a: L.cholesky(_sym_pd(ns, c, a), upper=True)), (3, 3), consts=c),
        # eigenvectors and singular vectors are defined up to sign: compare squares
        C("linalg.eigh", "eigh", la(lambda L, ns, c, a: _flat(ns, *(lambda r: (r[0], ns.square(r[1])))(
            L.eigh(a)))), (3, 3)),
        C("linalg.eigvalsh", "eigvalsh", la(lambda L, ns, c, a: L.eigvalsh(a)), (2, 3, 3)),
        # eig/eigvals of a symmetric matrix: real, distinct eigenvalues (sorted: the
        # order LAPACK returns is not a function of the matrix)
        # (jax differentiates eig twice only with enable_eigvec_derivs)
        C("linalg.eigvals", "eigvals", la(lambda L, ns, c, a: ns.sort(ns.real(
            L.eigvals(a + ns.matrix_transpose(a))))), (3, 3), jf=_jax_eigvals),
        C("linalg.eig", "eig", la(lambda L, ns, c, a: ns.sort(ns.real(
            L.eig(a + ns.matrix_transpose(a))[0]))), (3, 3), jf=_jax_eigvals),
        C("linalg.svd", "svd", la(lambda L, ns, c, a: _flat(ns, *(lambda r: (ns.square(r[0]), r[1],
                                                                              ns.square(r[2])))(
            L.svd(a, full_matrices=False)))), (4, 3)),
        C("linalg.svd[square,full]", "svd", la(lambda L, ns, c, a: _flat(ns, *(
            lambda r: (ns.square(r[0]), r[1], ns.square(r[2])))(L.svd(a)))), (3, 3)),
        C("linalg.svdvals", "svdvals", la(lambda L, ns, c, a: L.svdvals(a)), (2, 4, 3)),
        C("linalg.qr", "qr", la(lambda L, ns, c, a: _flat(ns, *map(ns.square, L.qr(a)))), (4, 3)),
        C("linalg.pinv", "pinv", la(lambda L, ns, c, a: L.pinv(a)), (4, 3)),
        C("linalg.pinv[wide]", "pinv", la(lambda L, ns, c, a: L.pinv(a)), (2, 3)),
    ]
    for ax, kd in [(None, False), (1, True), ((0, 1), False), (-1, False)]:
        out.append(C(f"linalg.vector_norm[axis={ax},keepdims={kd}]", "vector_norm",
                     (lambda ax, kd: la(lambda L, ns, c, x: L.vector_norm(x, axis=ax, keepdims=kd)))(
                         ax, kd), (3, 4)))
    # other orders are composites (abs, max, min, pow): distinct |x|, signs from a constant
    signs = {"s": np.array([[1.0, -1.0, 1.0, -1.0], [-1.0, -1.0, 1.0, 1.0], [1.0, 1.0, -1.0, 1.0]])}
    for o in (1, 3, math.inf, -math.inf):
        out.append(C(f"linalg.vector_norm[ord={o}]", "abs",
                     (lambda o: la(lambda L, ns, c, x: L.vector_norm(ns.multiply(x, c["s"]), axis=1,
                                                                      ord=o)))(o),
                     (3, 4), domain=(0.3, 2.0), distinct=True, consts=signs))
    return out


def _complex_of(ns, x, y):
    return ns.add(x, ns.multiply(1j, y))


def _re_im(ns, z):
    return ns.stack([ns.real(z), ns.imag(z)])


def _fft_cases():
    """Complex transforms as real functions of real inputs (real and imaginary parts)."""
    fft = lambda ns: ns.fft                                       # noqa: E731
    return [
        C("fft.fft", "fft_c2c", lambda ns, c, x, y: _re_im(ns, fft(ns).fft(_complex_of(ns, x, y))),
          (5,), (5,)),
        C("fft.ifft[axis=0,norm=ortho]", "fft_c2c", lambda ns, c, x, y: _re_im(
            ns, fft(ns).ifft(_complex_of(ns, x, y), axis=0, norm="ortho")), (4, 3), (4, 3)),
        C("fft.fftn", "fft_c2c", lambda ns, c, x, y: _re_im(ns, fft(ns).fftn(_complex_of(ns, x, y))),
          (3, 4), (3, 4)),
        C("fft.rfft", "fft_r2c", lambda ns, c, x: _re_im(ns, fft(ns).rfft(x)), (6,)),
        C("fft.rfft[odd,n=7]", "fft_r2c", lambda ns, c, x: _re_im(ns, fft(ns).rfft(x, n=7)), (2, 5)),
        C("fft.rfftn[norm=forward]", "fft_r2c",
          lambda ns, c, x: _re_im(ns, fft(ns).rfftn(x, norm="forward")), (3, 4)),
        C("fft.irfft", "fft_c2r", lambda ns, c, x, y: fft(ns).irfft(_complex_of(ns, x, y)), (4,), (4,)),
        C("fft.irfft[n=7]", "fft_c2r",
          lambda ns, c, x, y: fft(ns).irfft(_complex_of(ns, x, y), n=7), (2, 4), (2, 4)),
        C("fft.irfftn", "fft_c2r", lambda ns, c, x, y: fft(ns).irfftn(_complex_of(ns, x, y)),
          (3, 3), (3, 3)),
    ]


def _hook(ns, x):
    return x if ns is not xnp else xgrad.debug.hook(x, lambda g: None)


def _thook(ns, x):
    return x if ns is not xnp else xgrad.debug.tangent_hook(x, lambda t: None)


def _misc_cases():
    return [
        C("stop_gradient", "stop_gradient",
          lambda ns, c, x: ns.multiply(x, _sg(ns, ns.sin(x))), (3, 4), fd=False),
        C("sort", ("permute_along", "argsort"), lambda ns, c, x: ns.sort(x), (3, 4), distinct=True),
        C("sort[axis=0,descending]", "permute_along",
          lambda ns, c, x: ns.sort(x, axis=0, descending=True), (3, 4), distinct=True,
          jf=lambda jnp, c, x: jnp.flip(jnp.sort(x, axis=0), axis=0)),
        C("debug.hook", "debug_hook", lambda ns, c, x: _hook(ns, ns.sin(x)), (3, 4)),
        C("debug.tangent_hook", "debug_tangent_hook", lambda ns, c, x: _thook(ns, ns.sin(x)), (3, 4)),
        C("checkpoint_name", "checkpoint_name",
          lambda ns, c, x: ns.sin(x if ns is not xnp else xgrad.checkpoint_name(x, "h")), (3, 4)),
    ]


CASES = (_elementwise_cases() + _reduction_cases() + _shape_cases() + _linalg_cases()
         + _indexing_cases() + _special_cases() + _linalg_ext_cases() + _fft_cases()
         + _misc_cases())
_BY_NAME = {case.name: case for case in CASES}
assert len(_BY_NAME) == len(CASES), "case names must be unique"


# --------------------------------------------------------------------------
# machinery

def _gate(case, xp):
    """Skip or xfail a case the array_api_strict backend can't run."""
    if case.strict is not None and xp.__name__.startswith("array_api_strict"):
        kind, reason = case.strict
        if kind == "skip":
            pytest.skip(reason)
        return reason
    return None


def _run_gated(case, xp, fn):
    reason = _gate(case, xp)
    if reason is None:
        return fn()
    # a known limitation must fail loudly; once it works, remove the xfail
    with pytest.raises(NotImplementedError):
        fn()
    pytest.xfail(reason)


def _directions(rng, args, out):
    """v, w (tangents), u, uu (output cotangents), ww (input cotangents)."""
    def draw(shape, dtype):   # float32 numbers, as in Case.sample
        return rng.uniform(-1, 1, shape).astype(np.float32).astype(dtype)
    tan = lambda: tuple(draw(a.shape, a.dtype) for a in args)  # noqa: E731
    v, w = tan(), tan()
    u, uu = draw(out.shape, out.dtype), draw(out.shape, out.dtype)
    return v, w, u, uu, tan()


def _bundle(ad, f, args, v, w, u, uu, ww):
    """First and second order derivatives of f, built the same way for any
    ``ad`` module with ``jvp(f, primals, tangents)`` and ``vjp(f, *primals)``."""
    out, jv = ad.jvp(f, args, v)
    _, pullback = ad.vjp(f, *args)
    ct = pullback(u)
    f_jvp = lambda *a: ad.jvp(f, a, v)[1]                    # noqa: E731
    f_vjp = lambda *a: ad.vjp(f, *a)[1](u)                   # noqa: E731
    return {
        "value": out, "jvp": jv, "vjp": ct,
        "fwd-over-fwd": ad.jvp(f_jvp, args, w)[1],
        "fwd-over-rev": ad.jvp(f_vjp, args, w)[1],
        "rev-over-fwd": ad.vjp(f_jvp, *args)[1](uu),
        "rev-over-rev": ad.vjp(f_vjp, *args)[1](ww),
    }


def _leaves(x):
    return [y for z in x for y in _leaves(z)] if isinstance(x, (tuple, list)) else [x]


def _dtype_name(a):
    return str(to_np(a).dtype)


def _assert_close(actual, expected, dtype, what, tol=1.0):
    a, e = to_np(actual), np.asarray(expected)
    assert a.shape == e.shape, f"{what}: shape {a.shape}, expected {e.shape}"
    t = TOL[dtype]
    scale = max(1.0, float(np.max(np.abs(e), initial=0.0))) if np.all(np.isfinite(e)) else 1.0
    np.testing.assert_allclose(a.astype(np.float64), e.astype(np.float64), rtol=t["rtol"] * tol,
                               atol=t["atol"] * tol * scale, err_msg=what)


_JAX_CACHE = {}


def _f64(d):
    if isinstance(d, tuple):
        return tuple(_f64(x) for x in d)
    return np.asarray(d, dtype=np.float64)


def _jax_bundle(jax, case, args, dirs):
    """JAX's derivatives of the case in float64 at ``args`` (float32 numbers):
    computed once per case and shared by both dtypes and all backends, as one
    jitted function (one XLA compilation per case; op by op, the dispatch of
    every primitive costs more)."""
    key = (case.name, str(args[0].dtype)) if case.jax_dtype else case.name
    args64, dirs64 = (tuple(args), dirs) if case.jax_dtype else (_f64(tuple(args)), _f64(dirs))
    hit = _JAX_CACHE.get(key)
    same = hit is not None and all(np.array_equal(a, b) for a, b in
                                   zip(_leaves(hit[0]), _leaves((args64, dirs64))))
    if same:
        return hit[1]
    import jax.numpy as jnp
    jf = lambda *a: case.jf(jnp, case.consts, *a)           # noqa: E731
    res = jax.jit(lambda a, d: _bundle(jax, jf, a, *d))(args64, dirs64)
    res = {k: [np.asarray(x) for x in _leaves(v)] for k, v in res.items()}
    _JAX_CACHE[key] = ((args64, dirs64), res)
    return res


_OUT_DTYPE_CACHE = {}


def _jax_out_dtype(jax, case, args):
    """The dtype of jax's value (abstract evaluation: no computation)."""
    key = (case.name, tuple(str(a.dtype) for a in args))
    if key not in _OUT_DTYPE_CACHE:
        import jax.numpy as jnp
        spec = jax.eval_shape(lambda *a: case.jf(jnp, case.consts, *a), *args)
        _OUT_DTYPE_CACHE[key] = str(spec.dtype)
    return _OUT_DTYPE_CACHE[key]


def _precision(case, args, out):
    """The dtype whose tolerances apply: float32 if any input or the output
    is, or if the function rounds to float32 inside."""
    return F32 if case.f32 or any(str(a.dtype) == F32 for a in list(args) + [out]) else F64


def _setup(case, dtype, xp, rng):
    args = case.sample(rng, dtype)
    f = _xgrad_fn(case, xp)
    out = to_np(f(*[from_np(xp, a) for a in args]))
    dirs = _directions(rng, args, out)
    return args, f, out, dirs


def _on(xp, dirs):
    return tuple(tuple(from_np(xp, a) for a in d) if isinstance(d, tuple) else from_np(xp, d)
                 for d in dirs)


# --------------------------------------------------------------------------
# the three table-driven tests

_XGRAD_CACHE = {}


def _xgrad_results(case, dtype, xp, rng):
    """xgrad's value and derivatives (``_bundle``) at the case's point, as
    numpy leaves: computed once per (case, dtype, backend) and shared by the
    jax test and the dot-product test."""
    key = (case.name, dtype, xp.__name__)
    if key not in _XGRAD_CACHE:
        args, f, out, dirs = _setup(case, dtype, xp, rng)
        got = _bundle(xgrad, f, tuple(from_np(xp, a) for a in args), *_on(xp, dirs))
        _XGRAD_CACHE[key] = args, out, dirs, {k: [to_np(a) for a in _leaves(v)] for k, v in got.items()}
    return _XGRAD_CACHE[key]


_TANGENTS = ("value", "jvp", "fwd-over-fwd")    # output-shaped; the others are input-shaped


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", [c for c in CASES if c.jax], ids=repr)
def test_against_jax(case, dtype, xp, rng, jax):
    def run():
        args, out, dirs, got = _xgrad_results(case, dtype, xp, rng)
        expected = _jax_bundle(jax, case, args, dirs)
        out_dt = _jax_out_dtype(jax, case, args)
        assert str(out.dtype) == out_dt, f"{case.name}: value dtype {out.dtype}, jax {out_dt}"
        for k, exp in expected.items():
            act = got[k]
            assert len(act) == len(exp), f"{case.name} {k}: {len(act)} outputs, jax {len(exp)}"
            for i, (a, e) in enumerate(zip(act, exp)):
                _assert_close(a, e, dtype, f"{case.name} {dtype} {k}[{i}]", case.tol)
    _run_gated(case, xp, run)


def _fd(f, xp, args, dirs, eps):
    plus = f(*[from_np(xp, (a + eps * d).astype(a.dtype)) for a, d in zip(args, dirs)])
    minus = f(*[from_np(xp, (a - eps * d).astype(a.dtype)) for a, d in zip(args, dirs)])
    return _leaves_np(plus, minus, eps)


def _leaves_np(plus, minus, eps):
    return [(to_np(p).astype(np.float64) - to_np(m).astype(np.float64)) / (2 * eps)
            for p, m in zip(_leaves(plus), _leaves(minus))]


def _assert_fd(actual, expected, dtype, what):
    a = to_np(actual).astype(np.float64)
    e = np.asarray(expected, dtype=np.float64)
    scale = max(1.0, float(np.max(np.abs(e), initial=0.0)))
    np.testing.assert_allclose(a, e, rtol=FD_TOL[dtype], atol=FD_TOL[dtype] * scale, err_msg=what)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", [c for c in CASES if c.fd], ids=repr)
def test_finite_differences(case, dtype, xp, rng):
    def run():
        args, f, out, (v, w, u, uu, ww) = _setup(case, dtype, xp, rng)
        prec = _precision(case, args, out)
        eps = FD_EPS[prec]
        X = tuple(from_np(xp, a) for a in args)
        V, W = tuple(from_np(xp, a) for a in v), tuple(from_np(xp, a) for a in w)
        U = from_np(xp, u)
        # first order, forward
        jv = xgrad.jvp(f, X, V)[1]
        fd = _fd(f, xp, args, v, eps)[0]
        _assert_fd(jv, fd, prec, f"{case.name} {dtype}: jvp vs central differences")
        # first order, reverse: <J^T u, v> against the difference of <u, f>
        ct = xgrad.vjp(f, *X)[1](U)
        lhs = sum(float(np.sum(to_np(c).astype(np.float64) * d)) for c, d in zip(ct, v))
        rhs = float(np.sum(u.astype(np.float64) * fd))
        scale = max(1.0, float(np.sum(np.abs(u * fd))))
        assert abs(lhs - rhs) <= FD_TOL[prec] * scale, \
            f"{case.name} {dtype}: <vjp(u), v> = {lhs}, central differences {rhs}"
        if prec == F64:
            # second order: the derivative of x -> J(x)^T u along w
            f_vjp = lambda *a: xgrad.vjp(f, *a)[1](U)        # noqa: E731
            hw = xgrad.jvp(f_vjp, X, W)[1]
            fds = _fd(f_vjp, xp, args, w, 1e-5)
            for i, (a, e) in enumerate(zip(hw, fds)):
                _assert_fd(a, e, prec, f"{case.name}: fwd-over-rev[{i}] vs central differences")
    _run_gated(case, xp, run)


def _dot(a, b):
    a, b = to_np(a).astype(np.float64), to_np(b).astype(np.float64)
    return float(np.sum(a * b)), float(np.sum(np.abs(a * b)))


def _assert_dot(left, right, dtype, what):
    (l1, s1), (r1, s2) = left, right
    tol = DOT_TOL[dtype] * max(s1 + s2, 1e-30)
    assert abs(l1 - r1) <= tol, f"{what}: {l1} != {r1}"


def _dots(xs, ys):
    pairs = [_dot(x, y) for x, y in zip(xs, ys)]
    return sum(p[0] for p in pairs), sum(p[1] for p in pairs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_dot_product(case, dtype, xp, rng):
    """<u, J v> == <J^T u, v>: the JVP and VJP rules are transposes of each
    other; and the same for the linearisations of x -> J v and x -> J^T u.
    Also the dtype contract: tangents have the output's dtype, cotangents
    their primal's (float32 stays float32)."""
    def run():
        args, out, dirs, d = _xgrad_results(case, dtype, xp, rng)
        for k, leaves in d.items():
            want = [str(out.dtype)] if k in _TANGENTS else [str(a.dtype) for a in args]
            assert [str(a.dtype) for a in leaves] == want, f"{case.name} {k}: dtypes"
            assert [a.shape for a in leaves] == ([out.shape] if k in _TANGENTS else
                                                 [a.shape for a in args]), f"{case.name} {k}: shapes"
        prec = _precision(case, args, out)
        v, w, u, uu, ww = dirs
        _assert_dot(_dot(u, d["jvp"][0]), _dots(d["vjp"], v), prec, f"{case.name}: <u, Jv> vs <J^T u, v>")
        _assert_dot(_dot(uu, d["fwd-over-fwd"][0]), _dots(d["rev-over-fwd"], w), prec,
                    f"{case.name}: <uu, d(Jv).w> vs <d(Jv)^T uu, w>")
        _assert_dot(_dots(ww, d["fwd-over-rev"]), _dots(d["rev-over-rev"], w), prec,
                    f"{case.name}: <ww, d(J^T u).w> vs <d(J^T u)^T ww, w>")
    _run_gated(case, xp, run)


# --------------------------------------------------------------------------
# coverage: a new differentiable row without a case fails here

def test_every_row_is_covered():
    covered = {p for case in CASES for p in case.prims}
    missing = sorted(n for n in RULES if n not in covered and n not in NO_DERIVATIVE
                     and n not in TESTED_ELSEWHERE and n not in SCIPY_SPECIAL_COVERED)
    assert not missing, (f"rows of the rule table without a derivative test: {missing}; "
                         f"add a Case to tests/test_rules.py (or to NO_DERIVATIVE if the "
                         f"output is never floating point)")
    stale = sorted(n for n in NO_DERIVATIVE if n not in RULES)
    assert not stale, f"NO_DERIVATIVE names rows that no longer exist: {stale}"
    with_rules = sorted(n for n in NO_DERIVATIVE if RULES[n].jvp is not None or RULES[n].vjp is not None)
    assert not with_rules, f"rows in NO_DERIVATIVE that have derivative rules (test them): {with_rules}"


def test_cases_bind_their_rows(monkeypatch, rng):
    """Each case really binds the rows it claims to test."""
    bound = set()
    for name, p in RULES.items():
        monkeypatch.setattr(p, "impl", (lambda name, impl: lambda *a, **k: (
            bound.add(name), impl(*a, **k))[1])(name, p.impl))
    import array_api_compat.numpy as np_xp
    for case in CASES:
        args = case.sample(rng, F64)
        bound.clear()
        # traced, as in the tests (x.mT, x @ y and x[i] = v reach xgrad only then)
        xgrad.jvp(_xgrad_fn(case, np_xp), tuple(args), tuple(np.ones_like(a) for a in args))
        assert set(case.prims) <= bound, f"{case.name} binds {sorted(bound)}, not {case.prims}"


def test_rows_without_derivative_have_discrete_outputs():
    """A row with no rules is only safe if its output can't carry a derivative."""
    x = np.array([-1.5, 0.0, 2.5])
    i = np.array([3, 1, 2])
    key = xgrad.random.PRNGKey(0)
    assert xgrad.random.bits(key, (3,)).dtype == np.uint64            # threefry2x32
    assert xnp.isdtype(xgrad.random.poisson(key, 3.0, (3,)).dtype, "integral")
    # random_binomial gives float counts, as jax.random.binomial, and like jax's
    # it is not differentiable in n and p: binomial stops their gradient (0, as jax)
    assert float(xgrad.grad(lambda p: xnp.sum(xgrad.random.binomial(key, 5.0, p, (3,))))(0.3)) == 0
    for name in sorted(n for n in NO_DERIVATIVE if not n.startswith(("threefry", "random_"))):
        fn = getattr(xnp, name)
        args = (i,) if name.startswith("bitwise") else (x,)
        if name in ("argmax", "argmin", "all", "any"):
            out = fn(x)
        else:
            try:
                out = fn(*args)
            except TypeError:
                out = fn(*args, *args)
        assert not xnp.isdtype(out.dtype, ("real floating", "complex floating")), name


# --------------------------------------------------------------------------
# conventions at kinks (JAX's, except where an NB says otherwise)

def _grad(f, x, xp):
    return to_np(xgrad.grad(f)(from_np(xp, np.asarray(x, dtype=np.float64))))


def _fwd(f, x, xp):
    x = from_np(xp, np.asarray(x, dtype=np.float64))
    t = from_np(xp, np.ones(np.shape(x)))
    return to_np(xgrad.jvp(f, (x,), (t,))[1])


def test_abs_at_zero(xp):
    # NB: abs'(0) = 0 (sign(0), the minimum-norm subgradient, as PyTorch and
    # autograd). JAX 0.10 differs: its rule is select(x >= 0, g, -g), so
    # jax.grad(jnp.abs)(0.) == 1. This point is kept out of the oracle tests.
    assert _grad(lambda x: xnp.sum(xnp.abs(x)), [0.0, -2.0, 3.0], xp).tolist() == [0.0, -1.0, 1.0]
    assert _fwd(xnp.abs, [0.0, -2.0, 3.0], xp).tolist() == [0.0, -1.0, 1.0]
    assert float(xgrad.grad(xgrad.grad(xnp.abs))(0.0)) == 0.0


@pytest.mark.parametrize("op,first", [("maximum", 0), ("minimum", 0), ("maximum", 1)])
def test_max_min_ties_split_half(op, first, xp, jax):
    import jax.numpy as jnp
    x = np.array([1.0, 2.0, 3.0])
    y = np.array([1.0, 0.0, 3.5])
    f = lambda ns: (lambda a, b: ns.sum(getattr(ns, op)(a, b)))   # noqa: E731
    got = xgrad.grad(f(xnp), argnums=(0, 1))(from_np(xp, x), from_np(xp, y))
    exp = jax.grad(f(jnp), argnums=(0, 1))(x, y)
    assert to_np(got[0])[0] == 0.5 and to_np(got[1])[0] == 0.5
    for g, e in zip(got, exp):
        np.testing.assert_array_equal(to_np(g), np.asarray(e))
    # forward mode agrees
    t = xgrad.jvp(lambda a: getattr(xnp, op)(a, from_np(xp, y)), (from_np(xp, x),),
                  (from_np(xp, np.ones(3)),))[1]
    assert to_np(t)[0] == 0.5


@pytest.mark.parametrize("red", ["max", "min"])
def test_reduction_ties_share_equally(red, xp, jax):
    import jax.numpy as jnp
    x = np.array([[1.0, 3.0, 3.0, 2.0], [-1.0, -1.0, -1.0, 0.5]])
    if red == "min":
        x = -x
    for axis in (None, 1, 0):
        wts = np.arange(1.0, {None: 1, 1: 2, 0: 4}[axis] + 1)   # a different weight per output
        f = lambda ns, wts: lambda a: ns.sum(ns.multiply(getattr(ns, red)(a, axis=axis), wts))  # noqa: E731
        got = _grad(f(xnp, from_np(xp, wts)), x, xp)
        exp = np.asarray(jax.grad(f(jnp, wts))(x))
        np.testing.assert_allclose(got, exp, rtol=0, atol=1e-15, err_msg=f"{red} axis={axis}")
        t = to_np(xgrad.jvp(lambda a: getattr(xnp, red)(a, axis=axis), (from_np(xp, x),),
                            (from_np(xp, np.ones_like(x)),))[1])
        np.testing.assert_allclose(t, np.asarray(jax.jvp(lambda a: getattr(jnp, red)(a, axis=axis),
                                                         (x,), (np.ones_like(x),))[1]), atol=1e-15)
    assert _grad(lambda a: getattr(xnp, red)(a), x, xp).sum() == 1.0


def test_where_selects_derivative(xp):
    c = from_np(xp, np.array([True, False, True]))
    x = np.array([1.0, 2.0, 3.0])
    f = lambda a, b: xnp.sum(xnp.where(c, a * a, xnp.sin(b)))   # noqa: E731
    ga, gb = xgrad.grad(f, argnums=(0, 1))(from_np(xp, x), from_np(xp, x))
    assert to_np(ga).tolist() == [2.0, 0.0, 6.0]
    np.testing.assert_allclose(to_np(gb), [0.0, math.cos(2.0), 0.0], rtol=1e-15)
    # the unselected branch's derivative is dropped, even when it is inf/nan (it
    # is multiplied by 0, as in JAX: where(x > 0, sqrt(x), 0) at x=0 is nan there)
    g = _grad(lambda a: xnp.sum(xnp.where(a > 0.5, xnp.sqrt(a), 0.0)), [1.0, 4.0], xp)
    np.testing.assert_allclose(g, [0.5, 0.25])


def test_clip_at_bounds_gets_half(xp, jax):
    import jax.numpy as jnp
    x = np.array([-1.0, 0.0, 1.0, 2.0])
    got = _grad(lambda a: xnp.sum(xnp.clip(a, -1.0, 1.0)), x, xp)
    exp = np.asarray(jax.grad(lambda a: jnp.sum(jnp.clip(a, -1.0, 1.0)))(x))
    assert got.tolist() == [0.5, 1.0, 0.5, 0.0]
    np.testing.assert_array_equal(got, exp)


def test_sqrt_pow_hypot_at_zero(xp, jax):
    import jax.numpy as jnp
    with np.errstate(divide="ignore"):      # 0.5 / sqrt(0), on purpose
        assert _grad(lambda a: xnp.sum(xnp.sqrt(a)), [0.0], xp).tolist() == [math.inf]
    # d/dy x**y at x = 0 uses log(1) = 0 (JAX's choice), not -inf * 0 = nan
    gy = xgrad.grad(lambda y: xnp.pow(from_np(xp, np.array(0.0)), y))(from_np(xp, np.array(2.0)))
    assert float(to_np(gy)) == float(jax.grad(lambda y: jnp.pow(0.0, y))(2.0)) == 0.0
    # d/dx x**y at y = 0 is 0 everywhere else
    gx = xgrad.grad(lambda x: xnp.pow(x, from_np(xp, np.array(0.0))))(from_np(xp, np.array(1.5)))
    assert float(to_np(gx)) == 0.0
    # NB: hypot at the origin: xgrad gives 0 (x / hypot with 0/0 read as 0);
    # JAX gives 0.5 for each argument, an artefact of its max/min formula
    gh = xgrad.grad(lambda a, b: xnp.hypot(a, b), argnums=(0, 1))(0.0, 0.0)
    assert [float(g) for g in gh] == [0.0, 0.0]


def _prod_derivatives(x, axis):
    """Gradient and Hessian of sum(prod(x, axis)) (axis None or -1, x 1-D or
    2-D) by brute force: products of the other entries of the same reduced
    slice, exact with zeros."""
    flat = x.ravel()
    n = flat.size
    # which reduced slice each entry belongs to (axis=-1 of a 2-D x: its row)
    slice_of = np.indices(x.shape)[0].ravel() if axis is not None and x.ndim == 2 else np.zeros(n)
    g = np.zeros(n)
    h = np.zeros((n, n))
    for i in range(n):
        same = slice_of == slice_of[i]
        g[i] = np.prod(flat[same & (np.arange(n) != i)])
        for j in range(n):
            if j != i and same[j]:
                h[i, j] = np.prod(flat[same & (np.arange(n) != i) & (np.arange(n) != j)])
    return g.reshape(x.shape), h.reshape(x.shape + x.shape)


def test_prod_with_zeros_is_exact(xp):
    # as JAX: the derivatives are exact products of the other entries, also
    # where one or two entries are zero (no division by x)
    for x in ([1.0, 0.0, 3.0, 2.0], [1.0, 0.0, 0.0, 2.0], [[0.0, 2.0, 5.0], [3.0, 0.0, 0.0]]):
        x = np.array(x)
        for axis in (None, -1):
            f = lambda a: xnp.sum(xnp.prod(a, axis=axis))   # noqa: E731
            g, h = _prod_derivatives(x, axis)
            np.testing.assert_array_equal(_grad(f, x, xp), g)
            np.testing.assert_array_equal(to_np(xgrad.hessian(f)(from_np(xp, x))), h)
            np.testing.assert_array_equal(to_np(xgrad.jacrev(xgrad.grad(f))(from_np(xp, x))), h)


def test_float32_gradients_stay_float32(xp):
    x = from_np(xp, np.array([0.5, 1.5], dtype=np.float32))
    for f in (lambda a: xnp.sum(xnp.sin(a) * 2.0), lambda a: xnp.sum(a, dtype=xnp.float64),
              lambda a: xnp.sum(xnp.astype(a, "float64") ** 2),
              lambda a: xnp.sum(xnp.maximum(a, 1.0))):
        g = xgrad.grad(f)(x)
        assert _dtype_name(g) == "float32"
        gg = xgrad.grad(lambda a: xnp.sum(xnp.multiply(xgrad.grad(f)(a), a)))(x)
        assert _dtype_name(gg) == "float32"


def _grad2(f, x, y, xp):
    """d/dx and d/dy of sum(f(x, y)) (float64 arrays), as numpy."""
    g = xgrad.grad(lambda a, b: xnp.sum(f(a, b)), argnums=(0, 1))(
        from_np(xp, np.asarray(x, dtype=np.float64)), from_np(xp, np.asarray(y, dtype=np.float64)))
    return [to_np(v) for v in g]


def _hess_diag2(f, x, y):
    """The elementwise second derivatives of f at (x, y): d2f/dx2, d2f/dxdy,
    d2f/dy2 (forward over reverse)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    g = lambda a, b: xgrad.grad(lambda u, v: xnp.sum(f(u, v)), argnums=(0, 1))(a, b)  # noqa: E731
    one, zero = np.ones_like(x), np.zeros_like(x)
    gx_x, gy_x = xgrad.jvp(g, (x, y), (one, zero))[1]
    gx_y, gy_y = xgrad.jvp(g, (x, y), (zero, one))[1]
    np.testing.assert_allclose(np.asarray(gy_x), np.asarray(gx_y), rtol=1e-14)   # symmetric
    return np.asarray(gx_x), np.asarray(gy_x), np.asarray(gy_y)


def test_logaddexp_at_infinity(xp, jax):
    # NB: where logaddexp is infinite it is max, and its derivative is max's:
    # d/dx logaddexp(inf, y) = 1, d/dy = 0 for finite y, 0.5 each at a tie of
    # infinities. JAX sets +inf to 0 in x and the output, so its d/dy
    # logaddexp(inf, 3) is exp(3) = 20.1, and its derivative at (-inf, -inf) NaN.
    import jax.numpy as jnp
    inf, nan = math.inf, math.nan
    x = [inf, 3.0, inf, -inf, inf, -inf, nan, -inf]
    y = [3.0, inf, inf, -inf, -inf, 2.0, 1.0, nan]
    gx, gy = _grad2(xnp.logaddexp, x, y, xp)
    np.testing.assert_array_equal(gx, [1.0, 0.0, 0.5, 0.5, 1.0, 0.0, nan, nan])
    np.testing.assert_array_equal(gy, [0.0, 1.0, 0.5, 0.5, 0.0, 1.0, nan, nan])
    hxx, hxy, hyy = _hess_diag2(xnp.logaddexp, x[:6], y[:6])
    for h in (hxx, hxy, hyy):
        np.testing.assert_array_equal(h, np.zeros(6))
    # logaddexp2 is logaddexp scaled: the same limits
    gx2, gy2 = _grad2(xnp.logaddexp2, x, y, xp)
    np.testing.assert_array_equal(gx2, gx)
    np.testing.assert_array_equal(gy2, gy)
    # finite points, extreme ones included: jax's, to the second order
    v = np.array([0.0, -0.0, 1e308, -1e308, 2.2250738585072014e-308, 1.0, -2.5, 30.0, -745.0, 710.0])
    fx, fy = np.repeat(v, v.size), np.tile(v, v.size)
    jg = jax.grad(lambda a, b: jnp.sum(jnp.logaddexp(a, b)), argnums=(0, 1))(fx, fy)
    for got, want in zip(_grad2(xnp.logaddexp, fx, fy, xp), jg):
        np.testing.assert_allclose(got, np.asarray(want), rtol=1e-12, atol=1e-300)
    jh = jax.hessian(lambda a, b: jnp.logaddexp(a, b), argnums=(0, 1))
    for k, got in enumerate(_hess_diag2(xnp.logaddexp, fx, fy)):
        i, j = ((0, 0), (0, 1), (1, 1))[k]
        want = [float(jh(a, b)[i][j]) for a, b in zip(fx, fy)]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)


def test_acosh_atanh_edges(xp, jax):
    import jax.numpy as jnp
    inf = math.inf
    # acosh: NaN below -1, where acosh itself is NaN (jax: 1/sqrt(x**2 - 1));
    # its second derivative -x/(x**2 - 1)**1.5 tends to 0 at +inf (jax: NaN)
    x = [-inf, -2.5, -1.0]
    assert np.isnan(_grad(lambda a: xnp.sum(xnp.acosh(a)), x, xp)).all()
    h = to_np(xgrad.hessian(lambda a: xnp.sum(xnp.acosh(a)))(np.array([inf, 1e308])))
    np.testing.assert_array_equal(np.diag(h), [-0.0, -0.0])
    # atanh'' = 2x/(1 - x**2)**2: +-inf at +-1, the one-sided limits (jax: NaN)
    h = to_np(xgrad.hessian(lambda a: xnp.sum(xnp.atanh(a)))(np.array([1.0, -1.0])))
    np.testing.assert_array_equal(np.diag(h), [inf, -inf])
    # inside the domains (near the ends too): jax's, to the second order
    for f, pts in ((xnp.acosh, [1.0 + 2.0 ** -40, 1.5, 3.0, 1e100]),
                   (xnp.atanh, [-1.0 + 2.0 ** -45, -0.5, 0.0, 0.5, 1.0 - 2.0 ** -40])):
        jf = getattr(jnp, f.__name__)
        for p in pts:
            g = float(to_np(xgrad.grad(f)(from_np(xp, np.array(p)))))
            np.testing.assert_allclose(g, float(jax.grad(jf)(p)), rtol=1e-12)
            gg = float(xgrad.grad(xgrad.grad(f))(p))
            np.testing.assert_allclose(gg, float(jax.grad(jax.grad(jf))(p)), rtol=1e-9)


def test_atan2_second_derivative_at_origin_is_nan():
    # atan2 has no derivative at the origin: its first derivatives are 0/0
    # there, and so is the mixed second one, as jax's (1/0 = inf would claim
    # one). (The pure second derivatives come out 0: their tangents at the
    # origin are exact zeros, which NaN-safe mode keeps zero.)
    hxx, hxy, hyy = _hess_diag2(xnp.atan2, [0.0, 1.0], [0.0, 2.0])
    assert np.isnan(hxy[0])
    ones = (np.ones(2), np.ones(2))
    g = lambda a, b: xgrad.grad(lambda u, v: xnp.sum(xnp.atan2(u, v)), argnums=(0, 1))(a, b)  # noqa: E731
    along = xgrad.jvp(g, (np.array([0.0, 1.0]), np.array([0.0, 2.0])), ones)[1]
    assert np.isnan([along[0][0], along[1][0]]).all()
    # elsewhere the closed forms: d/dy atan2(y, x) = x / r2, d/dx = -y / r2
    y, x, r2 = 1.0, 2.0, 5.0
    np.testing.assert_allclose([hxx[1], hxy[1], hyy[1]],
                               [-2 * y * x / r2 ** 2, (y * y - x * x) / r2 ** 2, 2 * y * x / r2 ** 2],
                               rtol=1e-14)


def test_pow_at_zero_exponent(xp, jax):
    import jax.numpy as jnp
    # d/dx x**y at y = 0 is 0 also at x = 0 (x**0 is 1 for every x; jax:
    # 0 * 0**-1 = NaN) ...
    gx, gy = _grad2(xnp.pow, [0.0, -0.0, 3.0, -2.5], [0.0, 0.0, 0.0, 0.0], xp)
    np.testing.assert_array_equal(gx, [0.0, 0.0, 0.0, 0.0])
    # ... and the mixed second derivative at y = 0 is 1/x, as jax's (a
    # where(y == 0, 0, ...) would make it 0)
    x = np.array([3.0, 0.5, 30.0, 710.0])
    hxx, hxy, hyy = _hess_diag2(xnp.pow, x, np.zeros(4))
    np.testing.assert_allclose(hxy, 1.0 / x, rtol=1e-15)
    np.testing.assert_array_equal(hxx, np.zeros(4))
    jh = jax.hessian(jnp.pow, argnums=(0, 1))
    for a, h in zip(x, hyy):
        np.testing.assert_allclose(h, float(jh(a, 0.0)[1][1]), rtol=1e-12)
    # integers to integer arrays: jax's values (binary exponentiation over the
    # exponent's low six bits), where numpy raises for a negative exponent
    v = np.array([0, 1, -1, 2, -3, 7, 100, -1000], dtype=np.int32)
    a, b = np.repeat(v, v.size), np.tile(v, v.size)
    got = to_np(xnp.pow(from_np(xp, a), from_np(xp, b)))
    np.testing.assert_array_equal(got, np.asarray(jnp.power(a, b)))
    assert got.dtype == np.int32


def test_divide_at_tiny_divisors(xp, jax):
    import jax.numpy as jnp
    # NB: d/dy x / y = -(x / y) / y, which does not overflow where y**2 does:
    # jax's -x * y**-2 is NaN at x = 0, y = 2.2e-308 and -inf at x = y (the
    # closed form: -1/y = -4.5e307), and at y = 1e300 NaN for x = inf and 0
    # for x = y (-1e-300)
    t = 2.2250738585072014e-308
    gx, gy = _grad2(xnp.divide, [0.0, t, 1.0, math.inf, 1e300], [t, t, 1e-200, 1e300, 1e300], xp)
    np.testing.assert_array_equal(gx, [1 / t, 1 / t, 1e200, 1e-300, 1e-300])
    np.testing.assert_array_equal(gy, [-0.0, -1 / t, -math.inf, -math.inf, -1e-300])
    # elsewhere, infinities included: jax's
    v = np.array([0.0, -0.0, np.inf, -np.inf, 1e-100, 1.0, -2.5, 3.0, 1e100])
    a, b = np.repeat(v, v.size), np.tile(v, v.size)
    jg = jax.grad(lambda u, w: jnp.sum(jnp.divide(u, w)), argnums=(0, 1))(a, b)
    with np.errstate(all="ignore"):
        for got, want in zip(_grad2(xnp.divide, a, b, xp), jg):
            np.testing.assert_allclose(got, np.asarray(want), rtol=1e-15)


def test_remainder_at_infinite_divisor(xp, jax):
    import jax.numpy as jnp
    # remainder(1, -inf) = -inf = 1 + y: the quotient is -1, so d/dy is 1 (as
    # jax), though floor(1 / -inf) = floor(-0) is 0
    x = np.array([1.0, -1.0, 1.0, -1.0, 2.2250738585072014e-308, 7.0, -7.0])
    y = np.array([-np.inf, np.inf, np.inf, -np.inf, -1e308, 2.0, 2.0])
    gx, gy = _grad2(xnp.remainder, x, y, xp)
    np.testing.assert_array_equal(gx, np.ones(7))
    np.testing.assert_array_equal(gy, [1.0, 1.0, 0.0, 0.0, 1.0, -3.0, 4.0])
    jg = jax.grad(lambda u, w: jnp.sum(jnp.remainder(u, w)), argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(gy, np.asarray(jg[1]))


def test_integer_floor_divide_by_zero(xp, jax):
    import jax.numpy as jnp
    # jax's (XLA's) quotient: 0 // 0 = -1, x // 0 = -2, the largest value for
    # unsigned integers; numpy gives 0
    for dt in (np.int32, np.int64, np.uint8):
        a = np.array([0, 1, 5, 7, 0, 9], dtype=dt)
        b = np.array([0, 0, 0, 2, 3, 4], dtype=dt)
        with np.errstate(divide="ignore"):
            got = to_np(xnp.floor_divide(from_np(xp, a), from_np(xp, b)))
        np.testing.assert_array_equal(got, np.asarray(jnp.floor_divide(a, b)))
        assert got.dtype == dt
    with np.errstate(divide="ignore"):
        got = to_np(xnp.floor_divide(from_np(xp, np.array([-3, 0, 4])), 0))
        rem = to_np(xnp.remainder(from_np(xp, np.array([-3, 0, 4])), from_np(xp, np.array([0, 0, 3]))))
    assert got.tolist() == [-2, -1, -2]
    assert rem.tolist() == np.asarray(jnp.remainder(np.array([-3, 0, 4]), np.array([0, 0, 3]))).tolist()


def test_cbrt_and_fmod_at_zero(xp, jax):
    import jax.numpy as jnp
    # cbrt'(0) = inf, as jax (sign(x) |x|**(1/3) gave sign(0) * inf -> 0);
    # cbrt''(+-0) = -+inf; cbrt(-0) is -0
    x = np.array([0.0, -0.0, 8.0, -8.0])
    np.testing.assert_allclose(_grad(lambda a: xnp.sum(xnp.cbrt(a)), x, xp),
                               [math.inf, math.inf, 1 / 12, 1 / 12], rtol=1e-15)
    h = np.diag(to_np(xgrad.hessian(lambda a: xnp.sum(xnp.cbrt(a)))(x)))
    np.testing.assert_array_equal(h[:2], [-math.inf, math.inf])
    assert math.copysign(1.0, float(to_np(xnp.cbrt(from_np(xp, np.array(-0.0)))))) == -1.0
    # fmod(x, y) is x near x = 0: d/dx is 1 there (and everywhere), d/dy
    # -trunc(x / y), as jax's (at y = 0 too, where fmod is NaN)
    a = np.array([0.0, -0.0, 0.0, 7.5, -7.5, 7.5, 1.5])
    b = np.array([1.5, 1.5, -2.0, 2.0, 2.0, -2.0, 0.0])
    gx, gy = _grad2(xnp.fmod, a, b, xp)
    np.testing.assert_array_equal(gx, np.ones(7))
    jg = jax.grad(lambda u, w: jnp.sum(jnp.fmod(u, w)), argnums=(0, 1))(a, b)
    np.testing.assert_array_equal(gy, np.asarray(jg[1]))
    np.testing.assert_array_equal(gy[3:6], [-3.0, 3.0, 3.0])
    # integers keep their dtype, and a zero divisor gives 0 (jax)
    i = to_np(xnp.fmod(from_np(xp, np.array([7, -7, 5], dtype=np.int32)),
                       from_np(xp, np.array([2, 2, 0], dtype=np.int32))))
    assert i.dtype == np.int32 and i.tolist() == [1, -1, 0]


def test_sinc_ldexp_at_extremes(xp):
    # ldexp's derivative in x1 is 2**x2, exactly, also where the value
    # overflows or x1 is extreme (reverse mode went through frexp's 2**-1024
    # and 2**1024 and gave inf at x1 = 1e308, x2 = 0)
    x = np.array([1e308, -1e308, 2.2250738585072014e-308, 1.5, 1e-300, 5e-324])
    e = np.array([0, 3, 10, -2, 1100, 1074])
    g = xgrad.vjp(lambda a: xnp.ldexp(a, from_np(xp, e)), from_np(xp, x))[1](
        from_np(xp, np.ones(6)))[0]
    np.testing.assert_array_equal(to_np(g), np.ldexp(1.0, e))
    np.testing.assert_array_equal(to_np(xnp.ldexp(from_np(xp, x), from_np(xp, e))),
                                  np.ldexp(x, e))
    # sinc'(x) = -pi**2 x / 3 near 0 (jax: -+inf at +-2.2e-308)
    t = 2.2250738585072014e-308
    g = _grad(lambda a: xnp.sum(xnp.sinc(a)), [t, -t, 1e-200], xp)
    assert np.all(np.abs(g) <= 4 * np.array([t, t, 1e-200]))
    # the other limits the sweep accepts where jax gives NaN: i0'(1e308) =
    # i1(1e308) = inf, d/dy hypot(inf, y) = 0, and abs'(nan) is NaN
    assert _grad(lambda a: xnp.sum(xnp.i0(a)), [1e308, -1e308], xp).tolist() == [math.inf, -math.inf]
    gx, gy = _grad2(xnp.hypot, [math.inf, math.inf], [2.0, -3.0], xp)
    assert gy.tolist() == [0.0, -0.0]
    assert np.isnan(_grad(lambda a: xnp.sum(xnp.abs(a)), [math.nan], xp)).all()


def test_boolean_arithmetic_dtypes(xp, jax):
    import jax.numpy as jnp
    # as jax: two booleans give int32 (numpy: int8) under pow, remainder,
    # floor_divide and the shifts; conj and positive keep a boolean (numpy:
    # int8, and no boolean positive at all)
    b = np.array([True, True, False, False])
    c = np.array([True, False, True, False])
    for name in ("pow", "remainder", "floor_divide", "bitwise_left_shift", "bitwise_right_shift"):
        with np.errstate(divide="ignore"):
            got = to_np(getattr(xnp, name)(from_np(xp, b), from_np(xp, c)))
        want = np.asarray(getattr(jnp, name)(b, c))
        assert got.dtype == want.dtype == np.int32, name
        np.testing.assert_array_equal(got, want, err_msg=name)
    for name in ("conj", "positive"):
        x = from_np(xp, b)
        got = getattr(xnp, name)(x)
        assert got is not x
        assert to_np(got).dtype == np.bool_ and to_np(got).tolist() == b.tolist()
