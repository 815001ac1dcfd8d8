"""Call primitives: ``custom_vjp``, ``custom_jvp`` and ``checkpoint``.

Each runs a user function. A call is one ``bind`` of a call primitive whose
``spec`` tells each trace what to do:

- ``custom_vjp``: JAX's contract (``fwd(*args) -> (out, res)``,
  ``bwd(*nondiff, res, g) -> tuple`` with one cotangent per argument, None
  for zero). NB: unlike JAX, forward mode works too (so do ``jacfwd`` and
  ``hessian``): ``bwd`` is linear in ``g``, so ``J v`` is the VJP of
  ``g -> bwd(res, g)`` applied to ``v``. That needs ``bwd`` written with
  ``xgrad.numpy``; the forward-mode derivative then follows the custom rule,
  not the primal code.
- ``custom_jvp``: ``rule(*nondiff, primals, tangents) -> (out, tangent_out)``.
  Reverse mode transposes the rule (the VJP of ``t -> rule(primals, t)[1]``),
  so reverse over a custom_jvp follows the custom rule to any order.
- ``checkpoint``: reverse mode stores only the call's inputs; the backward
  pass re-runs the function under ``vjp``. Forward mode and vmap produce a
  new checkpointed call of ``jvp(fun)`` / ``vmap(fun)``, so rematerialisation
  survives any nesting.

Under ``vmap`` each call becomes the same kind of call of vmapped functions
(JAX's approach), so the custom rule still applies to the batched function.
"""
from __future__ import annotations

import functools
import inspect

from ..core import (Primitive, Trace, Tracer, bind, new_main, current_trace, rematerialising,
                    active_level)
from ..backends import is_inexact
from .. import numpy as xnp
from .. import tree as _tree
from .jvp import JVPTracer, jvp_flat
from .vjp import VJPTrace, vjp_flat, backward_pass
from ._api import fresh, fresh_tree

__all__ = ["custom_vjp", "custom_jvp", "checkpoint", "remat", "checkpoint_sequential"]


def _is_value(x):
    """Arrays and traced values are the call's operands; everything else
    (Python scalars included: weak constants) stays static."""
    return isinstance(x, Tracer) or (hasattr(x, "shape") and hasattr(x, "dtype"))


_DYN = object()     # marks an array leaf among static ones


def _zeros(x):
    return xnp._zeros_like(x)


def _inexact(x):
    return hasattr(x, "dtype") and is_inexact(x.dtype)


class _Spec:
    """What one call needs: how to rebuild the arguments from the flat list of
    traced leaves (static leaves and nondiff arguments stay aside)."""

    def __init__(self, name, args, nondiff_argnums=()):
        self.name = name
        self.nondiff = tuple(nondiff_argnums)
        self.nondiff_vals = tuple(args[i] for i in self.nondiff)
        diff = tuple(a for i, a in enumerate(args) if i not in self.nondiff)
        leaves, self.in_tree = _tree.flatten(diff)
        self.is_dyn = [_is_value(x) for x in leaves]
        self.static = [None if d else x for x, d in zip(leaves, self.is_dyn)]
        self.flat = [x for x, d in zip(leaves, self.is_dyn) if d]
        self.nargs = len(args)
        self.out_tree = None

    def diff_args(self, flat):
        # user code may write into its arguments: under a transform, plain
        # arrays are copies (the caller's buffers, or residuals of a tape)
        copy = active_level() > 0
        it = iter(flat)
        leaves = [(fresh(next(it)) if copy else next(it)) if d else s
                  for d, s in zip(self.is_dyn, self.static)]
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
            if _inexact(p) and c.dtype != p.dtype:
                raise TypeError(f"{who} of {self.name}: cotangent leaf {k} has dtype {c.dtype}, "
                                f"but its argument has dtype {p.dtype}")
            res.append(c if _inexact(p) else None)
        return res


def _call_prim(name):
    return Primitive(name, lambda xp, *args, spec: spec.impl(args), is_call=True)


custom_vjp_call_p = _call_prim("custom_vjp_call")
custom_jvp_call_p = _call_prim("custom_jvp_call")
custom_jvp_call_p.jvp_from_rule = True    # derivatives come from its rule
checkpoint_call_p = _call_prim("checkpoint_call")


def _bind_call(prim, spec):
    outs = bind(prim, *spec.flat, spec=spec)
    return _tree.unflatten(spec.out_tree, outs)


@functools.lru_cache(maxsize=512)
def _signature(fun):
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


def _positional(fun, args, kwargs):
    """Arguments as a positional tuple with defaults filled in (as JAX does,
    so ``bwd`` returns one cotangent per parameter)."""
    sig = _signature(fun)
    if sig is None:
        if kwargs:
            raise TypeError(f"{fun!r} takes no keyword arguments here")
        return args
    ba = sig.bind(*args, **kwargs)
    ba.apply_defaults()
    return ba.args


def _move_front(x, b):
    from ..rules._batching import move_to_front
    return move_to_front(x, b)


def _transpose_linear(lin, at, cts):
    """Apply the transpose of the linear map ``lin`` (flat lists, evaluated
    at the points ``at``) to ``cts``: the VJP of a linear map is its transpose."""
    outs, out_nodes, in_nodes, trace = vjp_flat(lin, at)
    seeds = [(nd, c) for nd, c in zip(out_nodes, cts) if nd is not None and c is not None]
    res = backward_pass(trace.tape, trace.n, seeds, consume=True, sites=trace.sites)
    return [res[nd] if nd is not None else None for nd in in_nodes]


# --------------------------------------------------------------------------
# custom_vjp

class custom_vjp:
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

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd = self.bwd = None

    def defvjp(self, fwd, bwd):
        """``fwd(*args) -> (out, residuals)``; ``bwd(*nondiff, residuals, g)``
        returns one cotangent per differentiable argument (None: zero)."""
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args, **kwargs):
        if self.fwd is None:
            raise AttributeError(f"custom_vjp function {self.__name__} has no VJP: call "
                                 f"{self.__name__}.defvjp(fwd, bwd) first")
        args = _positional(self.fun, args, kwargs)
        return _bind_call(custom_vjp_call_p, _VJPSpec(self, args))


class _UserSpec(_Spec):
    """A call of a custom_vjp / custom_jvp function ``f``."""

    def __init__(self, f, args):
        _Spec.__init__(self, f.__name__, args, f.nondiff_argnums)
        self.f = f

    def impl(self, flat):
        return self.out_flat(self.f.fun(*self.full_args(flat)))


class _VJPSpec(_UserSpec):

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
        if _touches(o_flat, trace):
            raise TypeError(f"custom_vjp function {self.name} closes over a traced value of the "
                            f"transform being applied, so its derivative through that value "
                            f"would be lost; pass the value as an explicit argument (as with "
                            f"jax.closure_convert)")

    def vjp(self, trace, primals, nodes):
        o_flat, res = self._fwd(primals)
        self._check_closure(o_flat, trace)

        def pull(gs):
            g = [_zeros(o) if c is None else c for o, c in zip(o_flat, gs)]
            cts = self._bwd(res, g, primals)
            return [(nd, c) for nd, c in zip(nodes, cts) if nd is not None]
        return trace.record_call(o_flat, pull)

    def jvp(self, trace, primals, tangents):
        o_flat, res = self._fwd(primals)
        self._check_closure(o_flat, trace)
        diff = [i for i, o in enumerate(o_flat) if _inexact(o)]

        def bwd_lin(*g):
            full = [_zeros(o) for o in o_flat]
            for i, gi in zip(diff, g):
                full[i] = gi
            cts = self._bwd(res, full, primals)
            return [c if c is not None else _zeros(p) for c, p in zip(cts, primals)]
        t_in = [t if t is not None else _zeros(p) for t, p in zip(tangents, primals)]
        t_out = _transpose_linear(bwd_lin, [_zeros(o_flat[i]) for i in diff], t_in)
        out = list(o_flat)
        for i, t in zip(diff, t_out):
            out[i] = JVPTracer(trace, o_flat[i], t if t is not None else _zeros(o_flat[i]))
        return out

    def batch(self, trace, vals, bdims):
        from .vmap import BatchTracer, vmap
        axes = tuple(None if b is None else 0 for b in bdims)
        moved = [v if b is None else _move_front(v, b) for v, b in zip(vals, bdims)]
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
            static["leaves"] = [_DYN if _is_value(r) else r for r in r_flat]
            return out, [r for r in r_flat if _is_value(r)]

        def rebuild(dyn):
            it = iter(dyn)
            return _tree.unflatten(static["tree"], [next(it) if s is _DYN else s
                                                    for s in static["leaves"]])

        def fwd_b(*flat):
            return vmap(fwd_one, in_axes=axes)(*flat)

        def bwd_b(res, g):
            cts = vmap(lambda r, gg, *fl: [c if c is not None else _zeros(p) for c, p in
                                          zip(spec._bwd(rebuild(r), gg, fl), fl)],
                       in_axes=(0, 0) + axes)(res, list(g), *moved)
            return tuple(xnp.sum(c, axis=0) if u else c for c, u in zip(cts, unbatched))

        new = custom_vjp(fun_b)
        new.__name__ = f"vmap({self.name})"
        new.defvjp(fwd_b, bwd_b)
        outs = new(*moved)
        return [BatchTracer(trace, o, 0) for o in outs]


# --------------------------------------------------------------------------
# custom_jvp

class custom_jvp:
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

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.rule = None

    def defjvp(self, rule):
        """``rule(*nondiff, primals, tangents) -> (out, tangent_out)``."""
        self.rule = rule
        return rule

    def __call__(self, *args, **kwargs):
        if self.rule is None:
            raise AttributeError(f"custom_jvp function {self.__name__} has no JVP rule: call "
                                 f"{self.__name__}.defjvp(rule) first")
        args = _positional(self.fun, args, kwargs)
        return _bind_call(custom_jvp_call_p, _JVPSpec(self, args))


class _JVPSpec(_UserSpec):

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
            if not _inexact(o):
                continue
            if not _is_value(t):
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
        t_in = [t if t is not None else _zeros(p) for t, p in zip(tangents, primals)]
        o_flat, t_flat = self._rule(primals, t_in)
        return [JVPTracer(trace, o, t) if _inexact(o) else o for o, t in zip(o_flat, t_flat)]

    def vjp(self, trace, primals, nodes):
        o_flat = bind(custom_jvp_call_p, *primals, spec=self)

        def pull(gs):
            diff = [i for i, o in enumerate(o_flat) if _inexact(o)]

            def lin(*t):
                t_flat = self._rule(primals, list(t))[1]
                return [t_flat[i] for i in diff]
            cts = [gs[i] if gs[i] is not None else _zeros(o_flat[i]) for i in diff]
            res = _transpose_linear(lin, [_zeros(p) for p in primals], cts)
            return [(nd, c) for nd, c in zip(nodes, res) if nd is not None]
        return trace.record_call(o_flat, pull)

    def batch(self, trace, vals, bdims):
        from .vmap import BatchTracer, vmap
        axes = tuple(None if b is None else 0 for b in bdims)
        moved = [v if b is None else _move_front(v, b) for v, b in zip(vals, bdims)]
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


# --------------------------------------------------------------------------
# checkpoint

_POLICIES = (None, "nothing", "dots")


def checkpoint(fun, *, policy=None):
    """Rematerialisation: ``fun`` unchanged, but reverse mode stores only its
    inputs and re-runs it during the backward pass.

    ``fun`` may close over traced values (a layer closing over the network's
    parameters): they become inputs of the checkpoint, as with
    ``jax.checkpoint``, and get their cotangents from the recomputation.
    NB: with such a closure, ``policy="dots"`` recomputes the products too.

    Args:
      fun: the function to checkpoint.
      policy: what may still be saved: ``None``/``"nothing"`` (only the
        inputs) or ``"dots"`` (also the results of matrix products, so the
        recomputation skips them).

    >>> import xgrad, xgrad.numpy as xnp
    >>> f = xgrad.checkpoint(lambda x: xnp.sin(xnp.sin(x)))
    >>> round(float(xgrad.grad(f)(0.5)), 6)
    0.778644
    """
    if policy not in _POLICIES:
        raise ValueError(f"checkpoint: policy={policy!r}; expected one of {_POLICIES}")

    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
        args = _positional(fun, args, kwargs)
        spec = _RematSpec(fun, args, policy)
        top = current_trace()
        if type(top) is not VJPTrace:
            return _bind_call(checkpoint_call_p, spec)
        # the innermost reverse-mode trace takes the call even when no
        # argument is its tracer: fun may close over its tracers (a
        # network's parameters), which it then captures as inputs
        outs = top.process_primitive(checkpoint_call_p, spec.flat, {"spec": spec})
        return _tree.unflatten(spec.out_tree, outs)
    return wrapped


remat = checkpoint


class _RematSpec(_Spec):
    def __init__(self, fun, args, policy, name=None):
        _Spec.__init__(self, name or getattr(fun, "__name__", "checkpoint"), args)
        self.fun = fun
        self.policy = policy

    def impl(self, flat):
        return self.out_flat(self.fun(*self.full_args(flat)))

    def vjp(self, trace, primals, nodes):
        # "dots" saves and replays only on concrete inputs: under an outer
        # transform the sequence of products is not the same in both passes
        concrete = not any(isinstance(p, Tracer) for p in primals)
        # the forward run records nothing; tracers of this trace that fun
        # closes over (a network's parameters) are captured and become
        # inputs of the record (closure conversion), so they get cotangents
        # from the recomputation too
        prev, trace.capture = trace.capture, {}
        try:
            if self.policy == "dots" and concrete:
                saved = _SavedDots()
                o_flat = _run_saving_dots(self, primals, saved)
            else:
                saved = None
                o_flat = bind(checkpoint_call_p, *primals, spec=self)
            for i, o in enumerate(o_flat):        # fun returned a closed-over tracer
                if isinstance(o, Tracer) and o._trace is trace:
                    trace.capture.setdefault(id(o), (o, o.primal, o.node))
                    o_flat[i] = o.primal
        finally:
            seen, trace.capture = list(trace.capture.values()), prev
        # under vjp (whose vjp_fn outlives the call: trace.copies) the
        # recomputation may run after the caller wrote its plain arguments
        # (constants of this trace): keep copies, as for any residual
        if trace.copies is not None:
            primals = [fresh(p) if nd is None else p for p, nd in zip(primals, nodes)]
        captured = [(c, value) for c, value, _ in seen]
        cap_nodes = [node for _, _, node in seen]
        if not captured and all(nd is None for nd in nodes):
            return o_flat                           # nothing of this trace flows in
        if captured:
            # NB: "concrete" looked at the arguments only; a closed-over
            # value may hold tracers of outer transforms, whose products must
            # not be replayed later, so a closure recomputes everything
            saved = None

        def pull(gs):
            with _dot_replay(saved), rematerialising():
                outs, out_nodes, in_nodes, tr = vjp_flat(lambda *fl: self.impl(fl), primals,
                                                         captured)
            seeds = [(nd, g) for nd, g in zip(out_nodes, gs) if nd is not None and g is not None]
            cts = backward_pass(tr.tape, tr.n, seeds, consume=True, sites=tr.sites)
            n = len(nodes)
            return ([(nd, cts[i]) for nd, i in zip(nodes, in_nodes[:n])
                     if nd is not None and i is not None] +
                    [(nd, cts[i]) for nd, i in zip(cap_nodes, in_nodes[n:])])
        return trace.record_call(o_flat, pull)

    def jvp(self, trace, primals, tangents):
        n = len(primals)
        live = [i for i, t in enumerate(tangents) if t is not None]

        def fun_jvp(*flat):
            ts = [None] * n
            for i, t in zip(live, flat[n:]):
                ts[i] = t
            outs, t_outs = jvp_flat(lambda *fl: self.impl(fl), list(flat[:n]), ts)
            return outs + [t if t is not None else _zeros(o) for o, t in zip(outs, t_outs)]
        spec = _RematSpec(fun_jvp, list(primals) + [tangents[i] for i in live], self.policy,
                          f"jvp({self.name})")
        res = bind(checkpoint_call_p, *spec.flat, spec=spec)
        if _touches(res, trace):                  # a closure over a tracer of this trace
            return self.impl([p if t is None else JVPTracer(trace, p, t)
                              for p, t in zip(primals, tangents)])
        m = len(res) // 2
        return [JVPTracer(trace, o, t) if _inexact(o) else o for o, t in zip(res[:m], res[m:])]

    def batch(self, trace, vals, bdims):
        from .vmap import BatchTracer
        axes = tuple(None if b is None else 0 for b in bdims)
        moved = [v if b is None else _move_front(v, b) for v, b in zip(vals, bdims)]
        size = next(v.shape[0] for v, b in zip(moved, bdims) if b is not None)
        store = {}
        spec = _RematSpec(lambda *fl: _batched(self.impl, fl, axes, size, store),
                          moved, self.policy, f"vmap({self.name})")
        res = bind(checkpoint_call_p, *spec.flat, spec=spec)
        if _touches(res, trace):                  # a closure over a tracer of this trace
            return self.impl([v if b is None else BatchTracer(trace, v, b)
                              for v, b in zip(vals, bdims)])
        # outputs that don't depend on a batched input stay unbatched (jacfwd
        # relies on it: the primal outputs of a batched jvp are not batched)
        return [BatchTracer(trace, o, 0) if b else o for o, b in zip(res, store["batched"])]


def _batched(impl, flat, axes, size, store):
    """``impl`` on the flat list under a fresh BatchTrace (batch axis 0 where
    ``axes`` says 0); outputs come back with the batch axis first, and
    ``store["batched"]`` says which outputs are batched at all."""
    from .vmap import BatchTrace, BatchTracer
    from ..rules._batching import moveaxis
    with new_main(BatchTrace, size) as bt:
        outs = impl([v if a is None else BatchTracer(bt, v, a) for v, a in zip(flat, axes)])
        res, flags = [], []
        for o in outs:
            mine = isinstance(o, Tracer) and o._trace is bt
            res.append(moveaxis(o.primal, o.bdim, 0) if mine else o)
            flags.append(mine)
    store["batched"] = flags
    return res


def _touches(outs, trace):
    """Some output is (or holds, under tracers of other transforms, such as
    linearize's staged tangents) a tracer of ``trace``."""
    for o in outs:
        while isinstance(o, Tracer):
            if o._trace is trace:
                return True
            o = o.primal
    return False


def checkpoint_sequential(fns, segments):
    """Compose ``fns`` (each one array -> one array) left to right, with every
    run of ``len(fns) / segments`` consecutive functions checkpointed as one
    block (like ``torch.utils.checkpoint.checkpoint_sequential``).

    Returns the composed function.
    """
    fns = list(fns)
    if not fns:
        raise ValueError("checkpoint_sequential: fns is empty")
    if not isinstance(segments, int) or segments < 1:
        raise ValueError(f"checkpoint_sequential: segments must be a positive int, got {segments!r}")
    segments = min(segments, len(fns))
    size, extra = divmod(len(fns), segments)
    blocks, start = [], 0
    for s in range(segments):
        stop = start + size + (s < extra)
        chunk = fns[start:stop]
        blocks.append(checkpoint(lambda h, chunk=chunk: functools.reduce(lambda a, f: f(a), chunk, h)))
        start = stop

    def run(x):
        for b in blocks:
            x = b(x)
        return x
    return run


# ----- policy "dots": matmul results saved in the forward pass, replayed -----

class _SavedDots:
    def __init__(self):
        self.values = []
        self.i = 0


class _SaveTrace(Trace):
    """Forward run of a "dots" checkpoint: the inputs are tracers of this
    trace so that every operation of the function goes through ``bind``, as
    in the recomputation (plain arrays would use their own operators); the
    products themselves are saved by matmul's implementation."""

    __slots__ = ()

    def process_primitive(self, prim, args, params):
        vals, _, _ = self.lower(args, prim)
        if prim.several_outputs:
            from ..rules import linalg
            with linalg.suspended():
                out = prim.bind(*vals, **params)
            return [_SaveTracer(self, o, None) for o in out]
        return _SaveTracer(self, prim.bind(*vals, **params), None)


class _SaveTracer(Tracer):
    __slots__ = ()


def _run_saving_dots(spec, primals, saved):
    from ..rules import linalg
    with new_main(_SaveTrace) as trace, linalg.saving(saved):
        outs = spec.impl([_SaveTracer(trace, p, None) for p in primals])
        return [o.primal if isinstance(o, Tracer) and o._trace is trace else o for o in outs]


def _dot_replay(saved):
    from ..rules import linalg
    return linalg.replaying(saved)


def stop_gradient(x):
    """``x`` itself, treated as a constant by every transform at every level
    (pytrees are mapped leaf by leaf).

    >>> import xgrad
    >>> float(xgrad.grad(lambda x: x * xgrad.stop_gradient(x))(3.0))
    3.0
    """
    from ..core import RULES
    p = RULES["stop_gradient"]
    # under a transform the result is always a fresh value (user code may
    # write into it), as it is for a traced leaf (the row's impl copies)
    copy = active_level() > 0
    return _tree.map(lambda leaf: bind(p, leaf) if isinstance(leaf, Tracer)
                     else fresh(leaf) if copy else leaf, x)
