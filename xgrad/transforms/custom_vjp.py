"""``custom_vjp``: a function with a hand-written VJP (JAX's contract).

``fwd(*args) -> (out, res)`` and ``bwd(*nondiff, res, g) -> tuple`` with one
cotangent per differentiable argument (None for zero). NB: unlike JAX,
forward mode works too (so do ``jacfwd`` and ``hessian``): ``bwd`` is linear
in ``g``, so ``J v`` is the VJP of ``g -> bwd(res, g)`` applied to ``v``. That
needs ``bwd`` written with ``xgrad.numpy``; the forward-mode derivative then
follows the custom rule, not the primal code. A ``bwd`` that is not linear
in ``g`` (JAX's ``clip_gradient``) defines no Jacobian: forward mode checks
the staged ``bwd`` (``_call.nonlinear_use``) and raises a TypeError rather
than give a derivative that disagrees with reverse mode. Under ``vmap`` a call becomes a
custom_vjp call of the vmapped functions (JAX's approach), so the custom rule
still applies to the batched function.
"""
from __future__ import annotations

from ..rules._batching import move_to_front
from .. import numpy as xnp
from .. import tree as _tree
from ..core import Tracer
from ._api import fresh, fresh_tree
from ._call import (DYN, CustomFunction, UserSpec, call_primitive, inexact, is_value,
                    nonlinear_use, touches, transpose_linear, zeros)
from .jvp import JVPTracer
from .vmap import BatchTracer, vmap

__all__ = ["custom_vjp"]

custom_vjp_call_p = call_primitive("custom_vjp_call")


class custom_vjp(CustomFunction):
    """A function with a hand-written VJP (JAX semantics).

    >>> import xgrad, xgrad.numpy as xnp
    >>> @xgrad.custom_vjp
    ... def clip_relu(x):
    ...     return xnp.clip(x, 0.0, 1.0)
    >>> def fwd(x):
    ...     return clip_relu(x), x
    >>> def bwd(x, g):
    ...     return (xnp.where((x > 0) & (x < 1), g, 0.0),)
    >>> clip_relu.defvjp(fwd, bwd)
    >>> float(xgrad.grad(clip_relu)(0.5))
    1.0
    """

    missing = "VJP: call {name}.defvjp(fwd, bwd) first"

    def __init__(self, fun, nondiff_argnums=()):
        CustomFunction.__init__(self, fun, nondiff_argnums)
        self.fwd = self.bwd = None

    def defvjp(self, fwd, bwd):
        """``fwd(*args) -> (out, residuals)``; ``bwd(*nondiff, residuals, g)``
        returns one cotangent per differentiable argument (None: zero)."""
        self.fwd, self.bwd = fwd, bwd

    def _has_rule(self):
        return self.fwd is not None


class _VJPSpec(UserSpec):

    def _fwd(self, primals):
        out, res = self._check_fwd(self.f.fwd(*self.full_args(primals)))
        return self.out_flat(out), res

    def _check_fwd(self, r):
        if not (isinstance(r, (tuple, list)) and len(r) == 2):
            raise TypeError(f"fwd of custom_vjp function {self.name} must return a pair "
                            f"(output, residuals), got {type(r).__name__}")
        return r

    def _bwd(self, res, g_flat, primals):
        # bwd may write into its residuals and cotangents: fresh copies, so
        # a vjp_fn called again and the rest of the backward pass see the
        # values fwd made
        cts = self.f.bwd(*self.nondiff_vals, fresh_tree(res),
                         _tree.unflatten(self.out_tree, [fresh(g) for g in g_flat]))
        return self.cts_flat(cts, primals, "bwd")

    def _check_closure(self, o_flat, trace):
        """``o_flat`` with this trace's constants (``xnp.ones(3)`` made in
        fwd: no derivative) as their values; a TypeError for any other
        tracer of ``trace``, a closed-over value whose derivative would be
        lost."""
        o_flat = [o.primal if isinstance(o, Tracer) and o._trace is trace and o._data is None
                  else o for o in o_flat]
        if touches(o_flat, trace):
            raise TypeError(f"custom_vjp function {self.name} closes over a traced value of the "
                            f"transform being applied, so its derivative through that value "
                            f"would be lost; pass the value as an explicit argument (as with "
                            f"jax.closure_convert)")
        return o_flat

    def vjp(self, trace, primals, nodes):
        o_flat, res = self._fwd(primals)
        o_flat = self._check_closure(o_flat, trace)

        def pull(gs):
            g = [zeros(o) if c is None else c for o, c in zip(o_flat, gs)]
            cts = self._bwd(res, g, primals)
            return [(nd, c) for nd, c in zip(nodes, cts) if nd is not None]
        return trace.record_call(o_flat, pull)

    def jvp(self, trace, primals, tangents):
        o_flat, res = self._fwd(primals)
        o_flat = self._check_closure(o_flat, trace)
        diff = [i for i, o in enumerate(o_flat) if inexact(o)]

        def bwd_lin(*g):
            full = [zeros(o) for o in o_flat]
            for i, gi in zip(diff, g):
                full[i] = gi
            cts = self._bwd(res, full, primals)
            return [c if c is not None else zeros(p) for c, p in zip(cts, primals)]
        t_in = [t if t is not None else zeros(p) for t, p in zip(tangents, primals)]
        at = [zeros(o_flat[i]) for i in diff]
        bad = nonlinear_use(bwd_lin, at)
        if bad is not None:
            # NB: never a second answer: bwd's transpose would be a Jacobian
            # that reverse mode (bwd itself, at the given g) does not give
            raise TypeError(
                f"forward mode (jvp, jacfwd, hessian) through custom_vjp function "
                f"{self.name}: its bwd is not linear in the cotangent g (it applies "
                f"{bad.prim.name} to a value computed from g, as a gradient clip does), so it "
                f"defines no Jacobian to transpose. Differentiate it in reverse mode only "
                f"(grad, vjp, jacrev), or give it a custom_jvp rule, or move the "
                f"nonlinearity out of bwd")
        t_out = transpose_linear(bwd_lin, at, t_in)
        out = list(o_flat)
        for i, t in zip(diff, t_out):
            out[i] = JVPTracer(trace, o_flat[i], t if t is not None else zeros(o_flat[i]))
        return out

    def batch(self, trace, vals, bdims):
        axes = tuple(None if b is None else 0 for b in bdims)
        moved = [v if b is None else move_to_front(v, b) for v, b in zip(vals, bdims)]
        unbatched = [b is None for b in bdims]
        spec = self

        def fun_b(*flat):
            return vmap(lambda *fl: spec.impl(fl), in_axes=axes)(*flat)

        # only array residuals are batched; static ones (Python scalars, ...)
        # stay as they are, so bwd sees what fwd returned
        static = {}

        def fwd_one(*fl):
            out, res = spec._fwd(fl)
            r_flat, static["tree"] = _tree.flatten(res)
            static["leaves"] = [DYN if is_value(r) else r for r in r_flat]
            return out, [r for r in r_flat if is_value(r)]

        def rebuild(dyn):
            it = iter(dyn)
            return _tree.unflatten(static["tree"], [next(it) if s is DYN else s
                                                    for s in static["leaves"]])

        def fwd_b(*flat):
            return vmap(fwd_one, in_axes=axes)(*flat)

        def bwd_b(res, g):
            cts = vmap(lambda r, gg, *fl: [c if c is not None else zeros(p) for c, p in
                                          zip(spec._bwd(rebuild(r), gg, fl), fl)],
                       in_axes=(0, 0) + axes)(res, list(g), *moved)
            return tuple(xnp.sum(c, axis=0) if u else c for c, u in zip(cts, unbatched))

        new = custom_vjp(fun_b)
        new.__name__ = f"vmap({self.name})"
        new.defvjp(fwd_b, bwd_b)
        outs = new(*moved)
        return [BatchTracer(trace, o, 0) for o in outs]


custom_vjp.prim, custom_vjp.spec_type = custom_vjp_call_p, _VJPSpec
