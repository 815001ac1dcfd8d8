"""The edge-value sweep's harness (``tests/test_edge_sweep.py`` runs it).

Every function is run at the edges of its domain and compared with jax
(x64), value for value, NaN for NaN (at the same positions) and dtype for
dtype (a boolean or 8- or 16-bit integer input of a function of floats gives
float32, as in jax; an int32 input gives float64 where jax gives float32:
numpy's promotion, exact for every int32, compared with jax's float64 digits,
see ``_promoted`` and ``xgrad.rules.elementwise.float_dtype``), under each
transform that applies: ``value`` (eager), ``jit``,
``vmap``, ``jvp``, ``grad`` (a VJP with a cotangent of ones: for an
elementwise function, the diagonal of the Jacobian) and ``hessian``
(forward over reverse: the JVP, along ones, of that VJP).

Where the cases come from (nothing here lists functions by hand):

- the elementwise rows of the rule table (``xgrad.core.RULES``, families
  ``elementwise`` and ``special``), through tests/test_rules.py's cases: a
  unary function sees the vector of every edge value at once, a binary one
  the grid of every pair (``EDGES``);
- the other cases of tests/test_rules.py (one per row) and every ``JCase``
  of the ``tests/test_*.py`` modules (the jax.numpy, scipy, nn and ``.at``
  catalogues): the edge values of a kind are written into the case's
  floating-point arguments, keeping their shapes (``FILLS``), and its float
  arguments are also given integer and boolean dtypes, and empty and 0-d
  shapes where jax accepts them;
- a few hand-written families the catalogues lack (``EXTRA``): degenerate
  matrices (repeated eigenvalues, singular), ties, and ``xgrad.lax``.

A kind or transform jax refuses (raises for) does not apply: a function
that takes no integers, an empty array it rejects, jit of a function whose
output shape depends on the values; that item or transform is skipped.

``run(item, jax)`` returns ``{transform: message}`` for every transform
that disagrees with jax; the test module holds the tables of documented
differences and of known failures.
"""
from __future__ import annotations

import dataclasses
import importlib
import math
import os
import warnings

import numpy as np

import xgrad
import xgrad.numpy as xnp
from jnp_cases import JCase, _assert_dtypes, _assert_tree_close, _index, _leaves, _rebuild

TESTS = os.path.dirname(os.path.abspath(__file__))

# ----- the edge values ---------------------------------------------------------

TINY = 2.2250738585072014e-308          # the smallest normal float64
SUB = 5e-324                            # the smallest subnormal
# the vector an elementwise function sees (and a binary one every pair of them)
EDGES = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e308, -1e308, SUB, -SUB, TINY,
                  1.0, -1.0, 0.5, -2.5, 3.0, 30.0, -745.0, 710.0])
with np.errstate(over="ignore"):
    EDGES32 = EDGES.astype(np.float32)      # 1e308 -> inf, the subnormals -> 0
INTS = np.array([0, 1, -1, 2, -3, 7, 2 ** 60 + 1, -(2 ** 62)], dtype=np.int64)
INTS32 = np.array([0, 1, -1, 2, -3, 7, 100, -1000], dtype=np.int32)
BOOLS = np.array([True, False])

# what a kind writes, cyclically, into a float argument of another shape
# (a normal value between the edges keeps reductions and matrices meaningful)
FILLS = {
    "zero-ties": [0.0, -0.0, 1.5, 1.5, -2.0, 0.0, -2.0],
    "nonfinite": [np.inf, 1.5, -np.inf, -2.0, np.nan, 0.5],
    "extreme": [1e308, -1e308, 1.5, TINY, -TINY, -2.0],
}
FLOAT_KINDS = tuple(FILLS) + ("edges", "float32")
DTYPE_KINDS = ("int", "int32", "bool")
SHAPE_KINDS = ("empty", "0d")
TRANSFORMS = ("value", "jit", "vmap", "jvp", "grad", "hessian")
# the transforms of a kind (integer and boolean inputs have no derivative)
# (the hessian where it is cheap: the elementwise rows' second derivative, and
# the degenerate matrices)
FIRST = ("value", "jit", "vmap", "jvp", "grad")
KIND_TRANSFORMS = {**{k: FIRST for k in FILLS}, "edges": TRANSFORMS, "float32": TRANSFORMS,
                   **{k: ("value", "jit", "vmap") for k in DTYPE_KINDS},
                   "empty": FIRST, "0d": FIRST, "degenerate": TRANSFORMS}


@dataclasses.dataclass
class Item:
    """One function at one edge kind: ``fn(ns, *args)`` (``jfn`` for jax when
    the two differ), ``swept``: the indices of the arguments the kind wrote,
    ``diff``: those differentiated, ``order``: 0 (values only), 1 or 2,
    ``elementwise``: the edge vector or grid (so a position has one input)."""

    name: str
    ident: str
    kind: str
    fn: object
    args: tuple
    swept: tuple
    diff: tuple
    order: int = 2
    vmap: bool = True
    rtol: float = 1e-9
    atol: float = 1e-12
    jfn: object = None
    elementwise: bool = False
    args2: tuple | None = None      # the second example of the vmap batch

    @property
    def test_id(self):
        return f"{self.ident}::{self.kind}"


# ----- the sources -------------------------------------------------------------

def jcase_tables():
    """Every JCase of the tests/test_*.py modules (tables named CASES,
    CCASES, ...), in file order; ``(module, cases)`` pairs."""
    out = []
    for fn in sorted(os.listdir(TESTS)):
        if not (fn.startswith("test_") and fn.endswith(".py")) or fn == "test_edge_sweep.py":
            continue
        with open(os.path.join(TESTS, fn), encoding="utf-8") as fh:
            if "JCase(" not in fh.read():
                continue
        mod = importlib.import_module(fn[:-3])
        seen = set()
        cases = []
        for value in vars(mod).values():
            if isinstance(value, list) and value and all(isinstance(c, JCase) for c in value):
                cases += [c for c in value if id(c) not in seen and not seen.add(id(c))]
        out.append((fn[:-3], cases))
    return out


def _rule_family(name):
    from xgrad.core import RULES
    return RULES[name].impl.__module__.rsplit(".", 1)[-1]


def rule_cases():
    """(elementwise, other): test_rules' cases of the elementwise rows (one
    per row: its 0-d case) and one case per other row."""
    import test_rules
    elem, other, covered, names = {}, [], set(), set()
    for c in test_rules.CASES:
        p = c.prims[0]
        if (len(c.prims) == 1 and _rule_family(p) in ("elementwise", "special")
                and all(s == () for s in c.shapes) and len(c.shapes) in (1, 2)
                and rule_case_name(c) in (p, f"scipy.special.{p}") and not c.consts):
            elem.setdefault(p, c)
        elif not set(c.prims) <= covered or rule_case_name(c) not in names:
            covered.update(c.prims)
            names.add(rule_case_name(c))
            other.append(c)
    return list(elem.values()), other


def rule_case_name(case):
    """The public name a test_rules case calls: ``sin`` for ``sin[3x4]``,
    ``scipy.special.erf`` for ``special.erf[0]``."""
    base = case.name.split("[")[0]
    return "scipy." + base if base.startswith("special.") else base


def plain_elementwise_rows():
    """(name, arity) of the elementwise rows with no derivative (comparisons,
    predicates, logical and bitwise operations): test_rules has no case of
    them, the sweep calls them by name."""
    import test_rules
    from xgrad.core import RULES
    return [(n, 2 if RULES[n].broadcast else 1) for n in sorted(test_rules.NO_DERIVATIVE)
            if _rule_family(n) == "elementwise" and hasattr(xnp, n)]


def _rule_fn(case):
    """``fn(ns, *args)`` and ``jfn`` of a test_rules case."""
    return (lambda ns, *a: case.f(ns, case.consts, *a),
            lambda ns, *a: case.jf(ns, case.consts, *a))


# ----- building the items ------------------------------------------------------

def _fill(shape, values, offset, dtype=np.float64):
    n = math.prod(shape)
    v = np.resize(np.roll(np.asarray(values, dtype=dtype), -offset), n) if n else \
        np.zeros(0, dtype)
    return v.reshape(shape)


def _float_args(args):
    return tuple(i for i, a in enumerate(args) if isinstance(a, np.ndarray)
                 and a.dtype.kind in "fc")


def _edge_fill(a, values, offset):
    """``a``'s shape and dtype filled with ``values`` (a complex array: in
    its real part, and shifted by one in its imaginary part)."""
    out = _fill(a.shape, values, offset)
    if a.dtype.kind == "c":
        out = out + 1j * _fill(a.shape, values, offset + 1)
    with np.errstate(over="ignore"):
        return out.astype(a.dtype)


def _with(args, idx, make):
    out = list(args)
    for k, i in enumerate(idx):
        out[i] = make(args[i], k)
    return tuple(out)


def _int_values(a, k, dtype):
    with np.errstate(all="ignore"):
        base = np.round(np.nan_to_num(np.real(a) * 3)).astype(np.int64)
    if base.size:
        base.flat[k % base.size] = 7
    return base.astype(dtype)


def items_of(name, ident, fn, args, diff, *, order=2, vmap=True, rtol=1e-10, atol=1e-12,
             jfn=None, kinds=None):
    """The items of one case: each kind that applies to its arguments."""
    fl = _float_args(args)
    if not fl:
        return []
    diff = tuple(i for i in diff if i in fl)
    common = dict(name=name, ident=ident, fn=fn, swept=fl, order=order if diff else 0,
                  vmap=vmap, rtol=max(rtol, 1e-9), atol=max(atol, 1e-12), jfn=jfn)
    out = []
    for kind, values in FILLS.items():
        if kinds is not None and kind not in kinds:
            continue
        a1 = _with(args, fl, lambda a, k: _edge_fill(a, values, 2 * k))
        a2 = _with(args, fl, lambda a, k: _edge_fill(a, values, 2 * k + 1))
        out.append(Item(kind=kind, args=a1, args2=a2, diff=diff, **common))
    for kind, dt in (("int", np.int64),):
        if kinds is not None and kind not in kinds:
            continue
        a1 = _with(args, fl, lambda a, k: _int_values(a, k, dt))
        a2 = _with(args, fl, lambda a, k: _int_values(a, k + 1, dt))
        out.append(Item(kind=kind, args=a1, args2=a2, diff=(), **{**common, "order": 0}))
    if kinds is None or "empty" in kinds:
        a1 = _with(args, fl, lambda a, k: np.zeros((0,) + a.shape[1:], a.dtype) if a.ndim else a)
        if any(np.ndim(args[i]) for i in fl):
            out.append(Item(kind="empty", args=a1, args2=a1, diff=diff, **common))
    if kinds is not None and "0d" in kinds:
        if any(np.ndim(args[i]) for i in fl):
            a1 = _with(args, fl, lambda a, k: np.asarray(a.flat[0] if a.size else 0.5, a.dtype))
            a2 = _with(args, fl, lambda a, k: np.asarray(-1.5, a.dtype))
            out.append(Item(kind="0d", args=a1, args2=a2, diff=diff, **common))
    return out


def elementwise_items(name, fn, arity, *, jfn=None, order=2):
    """The vector (unary) or grid (binary) of every edge value, in float64
    and float32, and the int32 and boolean vectors (int64 and the empty
    and 0-d shapes: the in-shape cases of the same rows)."""
    def grid(v):
        if arity == 1:
            return (v,)
        # every pair, as two flat vectors: the VJP with ones is then the
        # diagonal, position by position (a broadcast grid would sum a row)
        return (np.repeat(v, len(v)), np.tile(v, len(v)))
    common = dict(name=name, ident=name, fn=fn, jfn=jfn, elementwise=True,
                  swept=tuple(range(arity)))
    out = [Item(kind="edges", args=grid(EDGES), diff=tuple(range(arity)), order=order,
                args2=grid(EDGES[::-1].copy()), **common),
           Item(kind="float32", args=grid(EDGES32), diff=tuple(range(arity)), order=order,
                args2=grid(EDGES32[::-1].copy()), **common)]
    for kind, v in (("int32", INTS32), ("bool", BOOLS)):
        out.append(Item(kind=kind, args=grid(v), diff=(), order=0, args2=grid(v[::-1].copy()),
                        **common))
    return out


# ----- running an item ---------------------------------------------------------

class _Cfg:
    """What ``_assert_tree_close`` reads from a case: its tolerances, those
    of float32 (a few ulps: XLA's and numpy's float32 functions differ by
    an ulp or two) where an output is single precision."""

    def __init__(self, item, single=False):
        self.ident, self.rtol, self.atol = item.test_id, item.rtol, item.atol
        if single:
            self.rtol, self.atol = max(self.rtol, 4e-6), max(self.atol, 1e-6)


def _np(x):
    from conftest import to_np
    return to_np(x)


def _subnormal_mask(item, shape):
    """Positions of an elementwise output whose input has a subnormal (XLA
    flushes subnormals to zero on the CPU: jax is no oracle there)."""
    m = np.zeros(shape, bool)
    both = [item.args[i] for i in item.swept]
    both += [item.args2[i] for i in item.swept] if item.args2 is not None else []
    for a in both:            # (the vmap batch's second example too)
        a = np.asarray(a)
        if a.dtype.kind == "f":
            sub = (a != 0) & (np.abs(a) < np.finfo(a.dtype).tiny)
            m = m | np.broadcast_to(sub, np.broadcast_shapes(sub.shape, shape))
    return m


def compare(item, got, want, what, nan_ok=False):
    """Assert ``got`` (xgrad) equals ``want`` (jax): shapes, values with NaN at
    the same positions, and dtypes. ``nan_ok``: a documented difference, a
    number where jax has NaN (or NaN where jax has a number) is accepted,
    and nothing else."""
    g, w = _leaves(got), [np.asarray(b) for b in _leaves(want)]
    if len(g) != len(w):
        raise AssertionError(f"{what}: {len(g)} outputs, jax has {len(w)}")
    g2, w2 = [], []
    for a, b in zip(g, w):
        a = _np(a)
        if b.dtype.kind == "V":
            g2.append(a)
            w2.append(b)
            continue
        if item.elementwise and a.shape == b.shape:
            m = _subnormal_mask(item, b.shape)
            if m.any():      # (XLA flushes a subnormal input to 0, NaN-ness included)
                b = b.copy()
                a = a.copy()
                b[m] = 0
                a[m] = 0
        if nan_ok and b.dtype.kind in "fc" and a.shape == b.shape:
            b = np.where(np.isnan(b) != np.isnan(a), a, b)
        g2.append(a)
        w2.append(b)
    single = any(b.dtype in (np.float32, np.complex64, np.float16) for b in w2)
    _assert_tree_close(g2, w2, _Cfg(item, single), what)
    _assert_dtypes(got, want, _Cfg(item), what)


def _ones_like(a):
    return np.ones(np.shape(a), dtype=np.asarray(a).dtype)


def _split(fn, ns, args, idx):
    def f(*xs):
        full = list(args)
        for i, x in zip(idx, xs):
            full[i] = x
        return fn(ns, *full)
    return f


def _jargs(jnp, args):
    return [jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]


def _cotangents(jax, jout):
    """(xgrad's cotangent tree, jax's): ones on float outputs, jax's float0
    zeros (None for xgrad: zeros of the output's dtype) on the others."""
    jnp = jax.numpy
    leaves, struct = jax.tree_util.tree_flatten(jout)
    cx, cj = [], []
    for o in leaves:
        o = np.asarray(o)
        if o.dtype.kind in "fc":
            cx.append(_ones_like(o))
            cj.append(jnp.asarray(_ones_like(o)))
        else:
            cx.append(None)
            cj.append(np.zeros(o.shape, jax.dtypes.float0))
    ct_x = jax.tree_util.tree_unflatten(struct, cx)
    ct_j = jax.tree_util.tree_unflatten(struct, cj)
    if isinstance(jout, list):
        ct_x, ct_j = list(ct_x), list(ct_j)
    return ct_x, ct_j


def _as_out(ct, out):
    if isinstance(out, (tuple, list)):
        return _rebuild(out, [_as_out(c, o) for c, o in zip(ct, out)])
    return xnp.zeros_like(out) if ct is None else ct


PROMOTED = ("int32",)


def _promoted(item, jax, want, args):
    """jax's answer for an int32 input, with each float32 output replaced
    by jax's float64 answer for the input as float64: a function of floats
    promotes int32 to float64 in xgrad, as numpy does (jax picks float32;
    int64 gives float64 in both, int16 float32 in both), so the
    digits are compared with the float64 computation (jax's float32 one
    overflows where float64 does not: ``exp(100)``). An output jax keeps
    integral (``floor_divide``) is compared as it is."""
    if item.kind not in PROMOTED:
        return want
    narrow = [np.asarray(b).dtype in (np.float32, np.complex64) for b in _leaves(want)]
    if not any(narrow):
        return want
    jnp = jax.numpy
    wide = [a.astype(np.float64) if i in item.swept and isinstance(a, np.ndarray) else a
            for i, a in enumerate(args)]
    want64 = _jax(lambda: (item.jfn or item.fn)(jnp, *_jargs(jnp, wide)))
    leaves, struct = jax.tree_util.tree_flatten(want)
    leaves64 = jax.tree_util.tree_leaves(want64)
    if len(leaves64) != len(leaves):
        return want
    return jax.tree_util.tree_unflatten(
        struct, [w if n else b for b, w, n in zip(leaves, leaves64, narrow)])


class JaxRefuses(Exception):
    """jax raised: the transform does not apply (or xgrad must raise too)."""


def _jax(call):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return call()
    except Exception as e:  # noqa: BLE001
        raise JaxRefuses(f"{type(e).__name__}: {str(e).splitlines()[0][:100] if str(e) else ''}")


def _short(e):
    msg = str(e).strip()
    if isinstance(e, AssertionError):
        lines = [ln for ln in msg.splitlines() if ln.strip()]
        keep = [ln.strip() for ln in lines if ln.strip().startswith(("Mismatch", "Max", "x:", "y:",
                                                                      "(shapes", "x and y nan"))]
        head = lines[0] if lines else ""
        return " | ".join([head] + keep)[:400]
    return f"raises {type(e).__name__}: {msg.splitlines()[0][:160] if msg else ''}"


def run(item, jax, transforms=None, nan_ok=()):
    """{transform: message} for each transform where xgrad and jax disagree
    (``nan_ok``: the transforms of a documented difference, see
    ``compare``). A transform jax refuses is left out; raises
    ``JaxRefuses`` when jax refuses the plain call (the kind does not apply:
    a function of floats only, a shape it rejects)."""
    jnp = jax.numpy
    jfn = item.jfn or item.fn
    todo = [t for t in (KIND_TRANSFORMS[item.kind] if transforms is None else transforms)]
    if not item.diff or item.order == 0:
        todo = [t for t in todo if t not in ("jvp", "grad", "hessian")]
    if item.order < 2:
        todo = [t for t in todo if t != "hessian"]
    if not item.vmap or item.args2 is None:
        todo = [t for t in todo if t != "vmap"]
    bad = {}
    args, jargs = list(item.args), _jargs(jnp, item.args)
    np.seterr(all="ignore")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = _jax(lambda: jfn(jnp, *jargs))
        except JaxRefuses as e:
            raise JaxRefuses(f"jax refuses the {item.kind} kind: {e}") from None
        want = _promoted(item, jax, want, item.args)

        def check(t, call, want_t, nan=False):
            try:
                compare(item, call(), want_t, t, nan_ok=nan or t in nan_ok)
            except Exception as e:  # noqa: BLE001
                bad[t] = _short(e)

        if "value" in todo:
            check("value", lambda: item.fn(xnp, *args), want)
        sw = list(item.swept)
        if "jit" in todo:
            f = _split(item.fn, xnp, args, sw)
            check("jit", lambda: xgrad.jit(f)(*[args[i] for i in sw]), want)
        if "vmap" in todo:
            try:
                want2 = _promoted(item, jax, _jax(lambda: jfn(jnp, *_jargs(jnp, item.args2))),
                                  item.args2)
                stacked = [np.stack([args[i], item.args2[i]]) for i in sw]
                f = _split(item.fn, xnp, args, sw)

                def vm():
                    out = xgrad.vmap(f)(*stacked)
                    return [_index(out, 0), _index(out, 1)]
                check("vmap", vm, [[np.asarray(x) for x in _leaves(want)],
                                   [np.asarray(x) for x in _leaves(want2)]])
            except JaxRefuses:
                pass
        d = list(item.diff)
        if not d:
            return bad
        f = _split(item.fn, xnp, args, d)
        jf = _split(jfn, jnp, jargs, d)
        prim = tuple(args[i] for i in d)
        jprim = tuple(jargs[i] for i in d)
        tans = tuple(_ones_like(p) for p in prim)
        jt = jg = jh = None
        if "hessian" in todo:
            # one forward-over-reverse pass gives jax's JVP, VJP and second
            # order at once (its primal half the VJP, its tangent half the
            # JVP and the second order); separately where jax refuses it
            try:
                ct_x, ct_j = _cotangents(jax, want)

                def both(*xs):
                    out, pull = jax.vjp(jf, *xs)
                    return out, pull(ct_j)
                (_, jg), (jt_out, jh) = _jax(lambda: jax.jvp(
                    both, jprim, tuple(jnp.asarray(t) for t in tans)))
                jt = (want, jt_out)
            except JaxRefuses:
                pass
        if "jvp" in todo:
            try:
                if jt is None:
                    jt = _jax(lambda: jax.jvp(jf, jprim, tuple(jnp.asarray(t) for t in tans)))
                check("jvp", lambda: xgrad.jvp(f, prim, tans), jt)
            except JaxRefuses:
                pass
        if "grad" in todo or "hessian" in todo:
            try:
                ct_x, ct_j = _cotangents(jax, want)
                if jg is None:
                    jg = _jax(lambda: jax.vjp(jf, *jprim)[1](ct_j))
            except JaxRefuses:
                return bad

            def g(*xs):     # the cotangent in the structure of xgrad's own output
                out, pull = xgrad.vjp(f, *xs)
                return pull(_as_out(ct_x, out))
            if "grad" in todo:
                check("grad", lambda: g(*prim), jg)
            if "hessian" in todo:
                try:
                    if jh is None:
                        jh = _jax(lambda: jax.jvp(lambda *xs: jax.vjp(jf, *xs)[1](ct_j), jprim,
                                                  tuple(jnp.asarray(t) for t in tans))[1])
                    check("hessian", lambda: xgrad.jvp(g, prim, tans)[1], jh)
                except JaxRefuses:
                    pass
    return bad


# ----- hand-written families: what the catalogues lack ---------------------------

def lax_of(ns):
    """``xgrad.lax`` for ``xgrad.numpy``, ``jax.lax`` for ``jax.numpy``."""
    if ns is xnp:
        return xgrad.lax
    import jax
    return jax.lax


_R = np.random.default_rng(7)
_X = _R.uniform(-1.0, 1.0, (3, 4))
_V = _R.uniform(-1.0, 1.0, 4)
_U = _R.uniform(-1.0, 1.0, (2, 2))
_P = np.array([[True, False, True, False]] * 3)


def _lax_cases():
    L = lax_of
    return [
        JCase("lax.cond", lambda ns, x: L(ns).cond(True, lambda v: ns.sin(v) * 2.0,
                                                    lambda v: v * v, x), (_X,)),
        JCase("lax.cond", lambda ns, x: L(ns).cond(False, lambda v: ns.sin(v) * 2.0,
                                                    lambda v: v * v, x), (_X,), id="false"),
        JCase("lax.switch", lambda ns, x: L(ns).switch(1, [ns.sin, lambda v: v * v, ns.exp], x),
              (_X,)),
        JCase("lax.fori_loop", lambda ns, x: L(ns).fori_loop(0, 3, lambda i, c: c * 0.5 + ns.sin(c),
                                                             x), (_X,)),
        JCase("lax.while_loop", lambda ns, x: L(ns).while_loop(
            lambda s: s[0] < 3, lambda s: (s[0] + 1, s[1] * 1.5 + 1.0), (0, x)), (_X,)),
        JCase("lax.scan", lambda ns, x: L(ns).scan(lambda c, v: (c + v, c * v), x[0], x), (_X,)),
        JCase("lax.map", lambda ns, x: L(ns).map(lambda v: ns.exp(v) * 2.0, x), (_X,)),
        JCase("lax.associative_scan", lambda ns, x: L(ns).associative_scan(lambda a, b: a + b, x),
              (_X,)),
        JCase("lax.associative_scan", lambda ns, x: L(ns).associative_scan(
            lambda a, b: ns.maximum(a, b), x, axis=1), (_X,), id="max"),
        JCase("lax.dynamic_slice", lambda ns, x: L(ns).dynamic_slice(x, (1, 0), (2, 2)), (_X,)),
        JCase("lax.dynamic_slice_in_dim", lambda ns, x: L(ns).dynamic_slice_in_dim(x, 1, 2, axis=1),
              (_X,)),
        JCase("lax.dynamic_index_in_dim",
              lambda ns, x: L(ns).dynamic_index_in_dim(x, 1, axis=0, keepdims=False), (_X,)),
        JCase("lax.dynamic_update_slice", lambda ns, x, u: L(ns).dynamic_update_slice(x, u, (1, 1)),
              (_X, _U)),
        JCase("lax.dynamic_update_slice_in_dim",
              lambda ns, x, u: L(ns).dynamic_update_slice_in_dim(x, u, 1, axis=0),
              (_X, _X[:2] * 0.5)),
        JCase("lax.dynamic_update_index_in_dim",
              lambda ns, x, v: L(ns).dynamic_update_index_in_dim(x, v, 1, axis=0), (_X, _V)),
        JCase("lax.index_in_dim", lambda ns, x: L(ns).index_in_dim(x, 1, axis=1), (_X,)),
        JCase("lax.slice", lambda ns, x: L(ns).slice(x, (0, 1), (2, 3)), (_X,)),
        JCase("lax.slice_in_dim", lambda ns, x: L(ns).slice_in_dim(x, 1, 3, axis=1), (_X,)),
        JCase("lax.select", lambda ns, p, x, y: L(ns).select(p, x, y), (_P, _X, _X[::-1].copy())),
        JCase("lax.select_n", lambda ns, p, x, y: L(ns).select_n(p, x, y), (_P, _X, _X * 2.0)),
        JCase("lax.stop_gradient", lambda ns, x: L(ns).stop_gradient(x) * x, (_X,)),
    ]


# degenerate matrices: repeated eigenvalues, singular, rank-deficient (run as
# they are: the kind ``degenerate``)
_REP = np.diag([1.0, 1.0, 2.0])
_I2 = 2.0 * np.eye(3)
_SING = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 1.0]])    # rank 2
_PSD = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 2.0]])      # singular PSD
_ZERO = np.zeros((3, 3))


def _degenerate_cases():
    la = lambda ns: ns.linalg                                              # noqa: E731
    out = []
    for tag, m in (("repeated", _REP), ("2I", _I2), ("singular", _SING), ("psd-singular", _PSD),
                   ("zero", _ZERO)):
        sym = tag != "singular"
        out += [
            JCase("linalg.det", lambda ns, a: la(ns).det(a), (m,), id=tag),
            JCase("linalg.slogdet", lambda ns, a: la(ns).slogdet(a), (m,), id=tag),
            JCase("linalg.svdvals", lambda ns, a: la(ns).svdvals(a), (m,), id=tag, order=1),
            JCase("linalg.matrix_norm", lambda ns, a: la(ns).matrix_norm(a, ord=2), (m,),
                  id=tag, order=1),
            JCase("linalg.pinv", lambda ns, a: la(ns).pinv(a), (m,), id=tag, order=1),
            JCase("linalg.matrix_rank", lambda ns, a: la(ns).matrix_rank(a), (m,), id=tag),
        ]
        if sym:
            out += [
                JCase("linalg.eigh", lambda ns, a: ns.sum(la(ns).eigh(a)[0]), (m,), id=f"{tag}-sum"),
                JCase("linalg.eigh", lambda ns, a: ns.sum(la(ns).eigh(a)[0] ** 2), (m,),
                      id=f"{tag}-sum-squares"),
                JCase("linalg.eigh", lambda ns, a: la(ns).eigh(a).eigenvalues, (m,),
                      id=f"{tag}-values"),
                JCase("linalg.eigvalsh", lambda ns, a: la(ns).eigvalsh(a), (m,), id=tag),
                JCase("linalg.norm", lambda ns, a: la(ns).norm(a, "nuc"), (m,), id=f"{tag}-nuc",
                      order=1),
            ]
    return out


def _at(ns, x):
    return xnp.at(x) if ns is xnp and not isinstance(x, xgrad.core.Tracer) else x.at


def _misc_cases():
    idx = np.array([0, 2, 5, -1])
    return [
        JCase("searchsorted", lambda ns, a, v: ns.searchsorted(a, v), (np.sort(_V), _X)),
        JCase("broadcast_arrays", lambda ns, x, v: ns.broadcast_arrays(x, v), (_X, _V)),
        JCase("cumulative_prod", lambda ns, x: ns.cumulative_prod(x, axis=1), (_X,)),
        JCase("isin", lambda ns, x, v: ns.isin(x, v), (_X, _V)),
        JCase("meshgrid", lambda ns, x, v: ns.meshgrid(x, v), (_V[:3], _V)),
        JCase("nonzero", lambda ns, x: ns.nonzero(x), (_X,), order=0),
        JCase("transpose", lambda ns, x: ns.transpose(x), (_X,)),
        JCase("unstack", lambda ns, x: ns.unstack(x, axis=1), (_X,)),
        JCase("unique_values", lambda ns, x: ns.unique_values(x), (_V,), order=0),
        JCase("unique_counts", lambda ns, x: ns.unique_counts(x), (_V,), order=0),
        JCase("unique_inverse", lambda ns, x: ns.unique_inverse(x), (_V,), order=0),
        JCase("unique_all", lambda ns, x: ns.unique_all(x), (_V,), order=0),
        JCase("linalg.cross", lambda ns, x, y: ns.linalg.cross(x, y), (_X[:, :3], _X[::-1, 1:])),
        JCase("linalg.diagonal", lambda ns, x: ns.linalg.diagonal(x), (_X,)),
        JCase("linalg.matmul", lambda ns, x, y: ns.linalg.matmul(x, y), (_X, _X.T.copy())),
        JCase("linalg.outer", lambda ns, x, y: ns.linalg.outer(x, y), (_V, _V[::-1].copy())),
        JCase("linalg.tensordot", lambda ns, x, y: ns.linalg.tensordot(x, y, axes=1),
              (_X, _X.T.copy())),
        JCase("linalg.trace", lambda ns, x: ns.linalg.trace(x), (_X,)),
        JCase("at.apply", lambda ns, x: _at(ns, x)[np.array([0, 2, 0])].apply(ns.sin), (_V,),
              order=0),
        JCase("at.apply", lambda ns, x: _at(ns, x)[idx].apply(ns.sin, mode="clip"), (_V,),
              order=0, id="clip"),
        JCase("at.apply", lambda ns, x: _at(ns, x)[idx].apply(ns.sin, mode="drop"), (_V,),
              order=0, id="drop"),
    ]


def extra_cases():
    """(cases swept like the catalogue's, cases run as they are)."""
    return _lax_cases() + _misc_cases(), _degenerate_cases()


# ----- every item ----------------------------------------------------------------

_MODES = ("clip", "drop", "fill")


def pick(cases):
    """The cases of a catalogue the sweep runs: the first of each name with
    a floating-point argument (its edges then reach every such argument),
    each that names an out-of-bounds mode (``.at``'s modes are swept one
    by one), and each that names a function of a scipy.stats distribution
    not seen yet (``scipy.stats.gamma-cdf+logsf``)."""
    seen, out = set(), []
    for c in cases:
        if not _float_args(c.args):
            continue
        fns = ({f"{c.name}.{f}" for f in c.id.split("-")[0].split("+")}
               if c.name.startswith("scipy.stats.") and c.id else set())
        if c.name not in seen or any(m in c.id for m in _MODES) or fns - seen:
            seen |= {c.name} | fns
            out.append(c)
    return out


def _jcase_items(c, kinds=None):
    return items_of(c.name, c.ident, (lambda c: lambda ns, *a: c.fn(ns, *a))(c), c.args, c.diff,
                    order=c.order, vmap=c.vmap, rtol=c.rtol, atol=c.atol, kinds=kinds)


def _as_is(c):
    fl = _float_args(c.args)
    diff = tuple(i for i in c.diff if i in fl)
    return Item(name=c.name, ident=c.ident, kind="degenerate", fn=c.fn, args=c.args, swept=fl,
                diff=diff, order=c.order if diff else 0, vmap=False, rtol=max(c.rtol, 1e-9),
                atol=max(c.atol, 1e-12))


def all_items():
    """Every item of the sweep, with test ids made unique."""
    items = []
    elem, other = rule_cases()
    for c in elem:
        fn, jfn = _rule_fn(c)
        items += elementwise_items(rule_case_name(c), fn, len(c.shapes), jfn=jfn)
    for name, arity in plain_elementwise_rows():
        fn = (lambda n: lambda ns, *a: getattr(ns, n)(*a))(name)
        items += elementwise_items(name, fn, arity, order=0)
    rng = np.random.default_rng(0)
    for c in other:
        fn, jfn = _rule_fn(c)
        args = tuple(c.sample(rng, "float64"))
        items += items_of(rule_case_name(c), f"rules:{c.name}", fn, args,
                          tuple(range(len(args))), jfn=jfn)
    for _, cases in jcase_tables():
        for c in pick(cases):
            items += _jcase_items(c)
    swept, as_is = extra_cases()
    for c in swept:
        items += _jcase_items(c)
    items += [_as_is(c) for c in as_is]
    seen = {}
    for it in items:
        n = seen.get(it.test_id, 0)
        seen[it.test_id] = n + 1
        if n:
            it.ident = f"{it.ident}#{n}"
    return items


# ----- the KNOWN table's lines ---------------------------------------------------

_OWNERS = [(("at.",), ".at/indexing"), (("lax.",), "lax"),
           (("linalg.", "scipy.linalg."), "linalg"),
           (("scipy.special.", "nn.softmax", "nn.log_softmax"), "special"),
           (("scipy.stats.", "std", "var", "nanstd", "nanvar", "ndarray.std", "ndarray.var"),
            "stats"),
           (("random.",), "random")]


def owner(item, transform, bad):
    """The code area a failure belongs to: by the function's module, else by
    the transform when the plain value agrees (jit, vmap), else the
    elementwise/reduction/shape rules."""
    for prefixes, area in _OWNERS:
        if any(item.name == p or (p.endswith(".") and item.name.startswith(p)) for p in prefixes):
            return area
    if "value" not in bad and transform == "jit":
        return "jit"
    if "value" not in bad and transform == "vmap":
        return "vmap"
    return "numpy"


def known_lines(item, bad):
    """``KNOWN`` lines for the failures ``bad`` of ``item``."""
    out = []
    for t, msg in sorted(bad.items()):
        sym = msg.replace("\\", "/").replace('"', "'")
        for pre in (f"{item.test_id}: {t} ", f"{item.test_id}: "):
            sym = sym.replace(pre, "")
        out.append(f'    "{item.test_id}::{t}": "{owner(item, t, bad)}: {sym[:150]}",')
    return out
