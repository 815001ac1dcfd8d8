"""``custom_jvp``: a function with a hand-written JVP rule (JAX's contract):
``rule(*nondiff, primals, tangents) -> (out, tangent_out)``.

Reverse mode transposes the rule (the VJP of ``t -> rule(primals, t)[1]``),
so reverse over a custom_jvp follows the custom rule to any order; so does
the forward Laplacian (the call primitive says ``jvp_from_rule``). Under
``vmap`` a call becomes a custom_jvp call of the vmapped function and rule.
"""
from __future__ import annotations

from ..core import bind
from ..rules._batching import move_to_front
from .. import tree as _tree
from ._call import (CustomFunction, UserSpec, call_primitive, inexact, is_value,
                    transpose_linear, zeros)
from .jvp import JVPTracer
from .vmap import BatchTracer, vmap

__all__ = ["custom_jvp"]

custom_jvp_call_p = call_primitive("custom_jvp_call")
custom_jvp_call_p.jvp_from_rule = True      # laplacian: derivatives from the rule


class custom_jvp(CustomFunction):
    """A function with a hand-written JVP rule (JAX semantics); reverse mode
    transposes the rule, so both modes follow it to any order.

    >>> import xgrad, xgrad.numpy as xnp
    >>> @xgrad.custom_jvp
    ... def f(x):
    ...     return xnp.sin(x)
    >>> @f.defjvp
    ... def f_jvp(primals, tangents):
    ...     return xnp.sin(primals[0]), 2.0 * tangents[0]
    >>> float(xgrad.grad(f)(0.3))
    2.0
    """

    missing = "JVP rule: call {name}.defjvp(rule) first"

    def __init__(self, fun, nondiff_argnums=()):
        CustomFunction.__init__(self, fun, nondiff_argnums)
        self.rule = None

    def defjvp(self, rule):
        """``rule(*nondiff, primals, tangents) -> (out, tangent_out)``."""
        self.rule = rule
        return rule

    def _has_rule(self):
        return self.rule is not None


class _JVPSpec(UserSpec):

    def _rule(self, primals, tangents):
        r = self.f.rule(*self.nondiff_vals, tuple(self.diff_args(primals)),
                        tuple(self.diff_args(tangents)))
        if not (isinstance(r, (tuple, list)) and len(r) == 2):
            raise TypeError(f"the JVP rule of {self.name} must return a pair "
                            f"(output, tangent_output), got {type(r).__name__}")
        out, t_out = r
        o_flat = self.out_flat(out)
        t_flat, t_tree = _tree.flatten(t_out)
        if t_tree != self.out_tree:
            raise TypeError(f"the JVP rule of {self.name} returned a tangent with structure "
                            f"{t_tree}, but the output has structure {self.out_tree}")
        for k, (o, t) in enumerate(zip(o_flat, t_flat)):
            if not inexact(o):
                continue
            if not is_value(t):
                raise TypeError(f"the JVP rule of {self.name}: tangent output leaf {k} is a "
                                f"{type(t).__name__}; expected an array of shape "
                                f"{tuple(o.shape)} and dtype {o.dtype}")
            if tuple(t.shape) != tuple(o.shape):
                raise ValueError(f"the JVP rule of {self.name}: tangent output leaf {k} has "
                                 f"shape {tuple(t.shape)}, the output {tuple(o.shape)}")
            if t.dtype != o.dtype:
                raise TypeError(f"the JVP rule of {self.name}: tangent output leaf {k} has "
                                f"dtype {t.dtype}, the output {o.dtype}")
        return o_flat, t_flat

    def jvp(self, trace, primals, tangents):
        t_in = [t if t is not None else zeros(p) for t, p in zip(tangents, primals)]
        o_flat, t_flat = self._rule(primals, t_in)
        return [JVPTracer(trace, o, t) if inexact(o) else o for o, t in zip(o_flat, t_flat)]

    def vjp(self, trace, primals, nodes):
        o_flat = bind(custom_jvp_call_p, *primals, spec=self)

        def pull(gs):
            diff = [i for i, o in enumerate(o_flat) if inexact(o)]

            def lin(*t):
                t_flat = self._rule(primals, list(t))[1]
                return [t_flat[i] for i in diff]
            cts = [gs[i] if gs[i] is not None else zeros(o_flat[i]) for i in diff]
            res = transpose_linear(lin, [zeros(p) for p in primals], cts)
            return [(nd, c) for nd, c in zip(nodes, res) if nd is not None]
        return trace.record_call(o_flat, pull)

    def batch(self, trace, vals, bdims):
        axes = tuple(None if b is None else 0 for b in bdims)
        moved = [v if b is None else move_to_front(v, b) for v, b in zip(vals, bdims)]
        spec = self

        def fun_b(*flat):
            return vmap(lambda *fl: spec.impl(fl), in_axes=axes)(*flat)

        def rule_b(primals, tangents):
            o, t = vmap(lambda p, t: spec._rule(list(p), list(t)), in_axes=(axes, axes))(
                tuple(primals), tuple(tangents))
            return list(o), list(t)

        new = custom_jvp(fun_b)
        new.__name__ = f"vmap({self.name})"
        new.defjvp(rule_b)
        outs = new(*moved)
        return [BatchTracer(trace, o, 0) for o in outs]


custom_jvp.prim, custom_jvp.spec_type = custom_jvp_call_p, _JVPSpec
