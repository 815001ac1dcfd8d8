"""What the call primitives (``custom_vjp``, ``custom_jvp``, ``checkpoint``)
share: a call is one ``bind`` of a call primitive whose ``spec`` parameter
holds the user function and tells each trace what to do
(``spec.jvp(trace, primals, tangents)``, ``spec.vjp(trace, primals, nodes)``,
``spec.batch(trace, vals, bdims)``), and returns a list of outputs.

``Spec`` splits a call's arguments into the traced leaves (the primitive's
operands) and the static rest; ``positional`` fills in defaults (as JAX
does, so ``bwd`` returns one cotangent per parameter); ``transpose_linear``
is the VJP of a linear map (how forward mode goes through a custom VJP and
reverse mode through a custom JVP).
"""
from __future__ import annotations

import functools
import inspect

from ..core import LeakedTracerError, LinearRead, Primitive, Tracer, bind, active_level
from ..backends import is_inexact
from ..program import Var, stage
from .. import numpy as xnp
from .. import tree as _tree
from .vjp import vjp_flat, backward_pass
from ._api import fresh, frozen, owned, warn_fallback

__all__ = ["Spec", "UserSpec", "CustomFunction", "call_primitive", "bind_call", "positional",
           "transpose_linear", "nonlinear_use", "touches", "is_value", "zeros", "inexact", "DYN"]


def is_value(x):
    """Arrays and traced values are the call's operands; everything else
    (Python scalars included: weak constants) stays static."""
    return isinstance(x, Tracer) or (hasattr(x, "shape") and hasattr(x, "dtype"))


DYN = object()     # marks an array leaf among static ones


def zeros(x):
    return xnp._zeros_like(x)


def inexact(x):
    return hasattr(x, "dtype") and is_inexact(x.dtype)


class Spec:
    """What one call needs: how to rebuild the arguments from the flat list of
    traced leaves (static leaves and nondiff arguments stay aside)."""

    def __init__(self, name, args, nondiff_argnums=()):
        self.name = name
        self.nondiff = tuple(nondiff_argnums)
        self.nondiff_vals = tuple(args[i] for i in self.nondiff)
        diff = tuple(a for i, a in enumerate(args) if i not in self.nondiff)
        leaves, self.in_tree = _tree.flatten(diff)
        self.is_dyn = [is_value(x) for x in leaves]
        self.static = [None if d else x for x, d in zip(leaves, self.is_dyn)]
        self.flat = [x for x, d in zip(leaves, self.is_dyn) if d]
        self.nargs = len(args)
        self.out_tree = None

    def diff_args(self, flat):
        # user code may write into its arguments: under a transform, plain
        # arrays are copies (the caller's buffers, or residuals of a tape);
        # called eagerly, they are the caller's own: read-only views there
        own = fresh if active_level() > 0 else frozen
        it = iter(flat)
        leaves = [own(next(it)) if d else s for d, s in zip(self.is_dyn, self.static)]
        return _tree.unflatten(self.in_tree, leaves)

    def full_args(self, flat):
        diff = iter(self.diff_args(flat))
        nd = dict(zip(self.nondiff, self.nondiff_vals))
        return [nd[i] if i in nd else next(diff) for i in range(self.nargs)]

    def out_flat(self, out):
        o_flat, self.out_tree = _tree.flatten(out)
        return [xnp.asarray(o) if type(o) in (int, float, complex) else o for o in o_flat]

    def cts_flat(self, cts, primals, who):
        """A user's per-argument cotangent tuple -> one entry per flat leaf."""
        ndiff = self.nargs - len(self.nondiff)
        if not isinstance(cts, (tuple, list)) or len(cts) != ndiff:
            got = f"a {type(cts).__name__}" if not isinstance(cts, (tuple, list)) \
                else f"{len(cts)} entries"
            raise TypeError(f"{who} of {self.name} must return a tuple with one cotangent per "
                            f"differentiable argument ({ndiff}), got {got}")
        per_arg_specs = self.in_tree.children()
        out = []
        for i, (c, spec) in enumerate(zip(cts, per_arg_specs)):
            if c is None:
                out.extend([None] * spec.num_leaves)
                continue
            try:
                leaves = spec.flatten_up_to(c)
            except (ValueError, TypeError) as e:
                raise TypeError(f"{who} of {self.name}: the cotangent for argument {i} does not "
                                f"match the argument's structure {spec}: {e}") from None
            out.extend(leaves)
        res = []
        it = iter(primals)
        for k, (c, d) in enumerate(zip(out, self.is_dyn)):
            if not d:
                continue
            p = next(it)
            if c is None:
                res.append(None)
                continue
            if type(c) in (int, float):
                c = xnp._full_like(p, c)
            if tuple(c.shape) != tuple(p.shape):
                raise ValueError(f"{who} of {self.name}: cotangent leaf {k} has shape "
                                 f"{tuple(c.shape)}, but its argument has shape {tuple(p.shape)}")
            if inexact(p) and c.dtype != p.dtype:
                raise TypeError(f"{who} of {self.name}: cotangent leaf {k} has dtype {c.dtype}, "
                                f"but its argument has dtype {p.dtype}")
            res.append(c if inexact(p) else None)
        return res


def call_primitive(name):
    """A call primitive: its implementation runs ``spec.impl`` on the operands."""
    return Primitive(name, lambda xp, *args, spec: spec.impl(args), is_call=True)


def bind_call(prim, spec):
    outs = bind(prim, *spec.flat, spec=spec)
    if not active_level():
        # called eagerly: an argument passed through (or a view of one) is
        # a copy, as a transform's outputs are
        outs = owned(outs, spec.flat)
    return _tree.unflatten(spec.out_tree, outs)


@functools.lru_cache(maxsize=512)
def signature(fun):
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


def positional(fun, args, kwargs):
    """Arguments as a positional tuple with defaults filled in (as JAX does,
    so ``bwd`` returns one cotangent per parameter)."""
    sig = signature(fun)
    if sig is None:
        if kwargs:
            raise TypeError(f"{fun!r} takes no keyword arguments here")
        return args
    ba = sig.bind(*args, **kwargs)
    ba.apply_defaults()
    return ba.args


_POINT = 0.3183098861837907      # 1/pi: nonzero, and no boundary of a clip or a kink


def transpose_linear(lin, at, cts):
    """Apply the transpose of the linear map ``lin`` (flat lists of arrays
    like ``at``) to ``cts``: the VJP of a linear map is its transpose, at any
    point. It is traced at a nonzero point, since a zero tangent or
    cotangent is where rules take shortcuts (``if not any(g): return 0``).

    Where ``lin`` reads a concrete value of its input (Python control flow
    on a tangent or cotangent, e.g. a convergence test), one trace at
    ``at`` would bake in the branch taken there: the transpose is then
    assembled from ``lin`` applied to each basis vector instead (exact, one
    call per input element), with a warning."""
    box = []

    def marked(*xs):
        for x in xs:
            if isinstance(x, Tracer):
                x._trace.linear = True
                box.append(x._trace)
                break
        return lin(*xs)
    point = [xnp.full_like(a, _POINT) if is_inexact(a.dtype) else a for a in at]
    try:
        outs, out_nodes, in_nodes, trace = vjp_flat(marked, point)
    except LinearRead as e:
        if not box or e.trace is not box[0]:
            raise
        warn_fallback(e, "a custom rule's linear map is applied once per basis vector "
                         "instead of being transposed from one trace")
        return _transpose_by_basis(lin, at, cts)
    trace.linear = False
    seeds = [(nd, c) for nd, c in zip(out_nodes, cts) if nd is not None and c is not None]
    try:
        res = backward_pass(trace.tape, trace.n, seeds, consume=True, sites=trace.sites)
    except LeakedTracerError:
        # a rule that keeps values of the finished trace for its backward
        # pass (a custom_vjp inside ``lin`` whose fwd differentiates a
        # closure over them: the implicit fixed point of JAX's custom-rules
        # guide): apply ``lin`` to each basis vector instead
        return _transpose_by_basis(lin, at, cts)
    return [res[nd] if nd is not None else None for nd in in_nodes]


def nonlinear_use(lin, at):
    """The first equation at which ``lin`` (flat arrays like ``at`` -> flat
    list) is not linear in its inputs, or None. ``lin`` is staged into a
    Program at a nonzero point; an equation is linear in the values that
    depend on the inputs when its primitive is declared ``linear`` (in its
    differentiable arguments) or ``bilinear`` (with one such argument), or,
    for any other primitive, when it passes a check of additivity and
    homogeneity at inputs whose magnitudes span 1e-4..1e4 (``divide`` by a
    constant, ``solve`` for a right-hand side). An equation whose result is
    not floating (a comparison) is not linear; a value that reaches no
    output (read by Python control flow only, as a solver's convergence
    test) is not looked at. Anything that can't be
    decided (staging raises, the check meets traced values) counts as
    linear: the transpose then goes ahead as before."""
    point = [xnp.full_like(a, _POINT) if is_inexact(a.dtype) else a for a in at]
    try:
        # pruned: a value only read by Python control flow (a solver's
        # convergence test on g) does not reach the outputs
        program = stage(lambda *g: list(lin(*g)), point)[0].prune()
    except Exception:        # noqa: BLE001 (no verdict; transpose_linear reports)
        return None
    dep = {v for v in program.in_vars if v is not None}     # values that depend on the input
    for e in program.eqns:
        where = [k for k, x in enumerate(e.ins) if type(x) is Var and x in dep]
        if not where:
            continue
        outs = [o for o in e.outs if o is not None]
        if any(not is_inexact(o.dtype) for o in outs):
            return e
        p = e.prim
        if p.linear:
            ok = not any(k in (p.nondiff or ()) for k in where)
        elif p.bilinear:
            ok = len(where) == 1
        else:
            ok = _passes_linearity_check(e, where, point[0])
        if not ok:
            return e
        dep.update(outs)
    return None


def _sample(var, like, seed):
    """Deterministic values of ``var``'s shape and dtype, magnitudes from
    1e-4 to 1e4 with both signs (no numpy: on ``like``'s backend)."""
    n = 1
    for d in var.shape:
        n *= d
    k = xnp.arange(n, device=xnp._device_of(like)) * 1.0 + seed
    u = xnp.sin(k * 12.9898) * 43758.5453
    u = u - xnp.floor(u)
    w = xnp.sin(k * 78.233) * 12345.6789
    w = w - xnp.floor(w)
    v = xnp.where(w < 0.5, -1.0, 1.0) * 10.0 ** (8.0 * u - 4.0)
    return xnp.reshape(xnp.astype(v, var.dtype), tuple(var.shape))


def _passes_linearity_check(e, where, like):
    """``e`` maps its arguments at ``where`` linearly (the others fixed):
    ``e(a u + w) == a e(u) + e(w)`` at sampled ``u``, ``w``."""
    def run(vals):
        ins = list(e.ins)
        for k, v in zip(where, vals):
            ins[k] = v
        r = bind(e.prim, *ins, **e.params)
        return list(r) if e.multi else [r]
    try:
        u = [_sample(e.ins[k], like, 1.0 + 7 * i) for i, k in enumerate(where)]
        w = [_sample(e.ins[k], like, 3.0 + 7 * i) for i, k in enumerate(where)]
        a = -2.75
        lhs = run([a * x + y for x, y in zip(u, w)])
        ru, rw = run(u), run(w)
        for left, fu, fw in zip(lhs, ru, rw):
            if left is None or isinstance(left, Tracer) or not is_inexact(left.dtype):
                continue
            right = a * fu + fw
            scale = xnp.abs(a * fu) + xnp.abs(fw)
            tol = 1e-3 if xnp.finfo(left.dtype).eps > 1e-10 else 1e-8
            if not bool(xnp.all(xnp.abs(left - right) <= tol * scale + 1e-30)):
                return False
    except Exception:        # noqa: BLE001 (traced constants, a domain error: no verdict)
        return True
    return True


def _transpose_by_basis(lin, at, cts):
    """``lin``'s transpose applied to ``cts``, entry by entry: the entry j of
    input k is the sum over the outputs of ``lin(e_kj) * cts``."""
    res = []
    for k, a in enumerate(at):
        if not is_inexact(a.dtype):
            res.append(None)
            continue
        n = 1
        for d in a.shape:
            n *= d
        entries = []
        for j in range(n):
            e = [zeros(x) for x in at]
            hot = xnp.arange(n, device=xnp._device_of(a)) == j
            e[k] = xnp.reshape(xnp.astype(hot, a.dtype), tuple(a.shape))
            total = None
            for col, ct in zip(lin(*e), cts):
                if col is None or ct is None:
                    continue
                term = xnp.sum(col * ct)
                total = term if total is None else total + term
            entries.append(xnp.zeros((), dtype=a.dtype) if total is None
                           else xnp.astype(total, a.dtype))
        res.append(xnp.reshape(xnp.stack(entries), tuple(a.shape)) if entries
                   else xnp.zeros(tuple(a.shape), dtype=a.dtype))
    return res


class UserSpec(Spec):
    """A call of a custom_vjp / custom_jvp function ``f``."""

    def __init__(self, f, args):
        Spec.__init__(self, f.__name__, args, f.nondiff_argnums)
        self.f = f

    def impl(self, flat):
        return self.out_flat(self.f.fun(*self.full_args(flat)))


class CustomFunction:
    """What ``custom_vjp`` and ``custom_jvp`` share: the wrapped function,
    its nondiff arguments, and a call that binds ``prim`` once the rule is
    defined. Subclasses set ``prim``, ``spec_type`` and ``missing`` (the
    message's end: what to call first), and say in ``_has_rule`` whether
    the rule is defined."""

    prim = spec_type = missing = None

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)

    def __call__(self, *args, **kwargs):
        if not self._has_rule():
            raise AttributeError(f"{type(self).__name__} function {self.__name__} has no "
                                 f"{self.missing.format(name=self.__name__)}")
        args = positional(self.fun, args, kwargs)
        return bind_call(self.prim, self.spec_type(self, args))


def touches(outs, trace):
    """Some output is (or holds, under tracers of other transforms, such as
    linearize's staged tangents) a tracer of ``trace``."""
    for o in outs:
        while isinstance(o, Tracer):
            if o._trace is trace:
                return True
            o = o.primal
    return False
