"""``checkpoint`` (alias ``remat``): rematerialisation.

Reverse mode stores only the call's inputs (and what the policy saves); the
backward pass recomputes the rest under ``vjp``. With a saving policy
(``xgrad.checkpoint_policies``) the forward run is staged into a
``Program``; the policy decides per equation what is saved, and the
recomputation evaluates the Program with the saved equations' values handed
in (their derivative rules still run, their computation does not). Under
``vjp``, whose ``vjp_fn`` outlives the call, the forward run is staged too
(with copies of the arrays ``fun`` closes over) and ``vjp_fn`` replays it,
so a later write into a closed-over weight leaves its cotangent unchanged;
a function that closes over traced values is re-run instead. Forward
mode and vmap produce a new checkpointed call of ``jvp(fun)`` /
``vmap(fun)``, so rematerialisation survives any nesting.
"""
from __future__ import annotations

import functools

from ..core import Tracer, bind, current_trace, new_main, rematerialising
from ..program import Var, eval_program, stage
from ..rules._batching import move_to_front, moveaxis
from ..rules.markers import checkpoint_name_p
from .. import tree as _tree
from ._api import fresh, fresh_once
from ._call import Spec, bind_call, call_primitive, inexact, positional, touches, zeros
from . import checkpoint_policies
from .jvp import JVPTracer, jvp_flat
from .vjp import VJPTrace, vjp_flat, backward_pass
from .vmap import BatchTrace, BatchTracer

__all__ = ["checkpoint", "remat", "checkpoint_sequential", "checkpoint_name"]

checkpoint_call_p = call_primitive("checkpoint_call")


def checkpoint(fun, *, policy=None, prevent_cse=True):
    """Rematerialisation: ``fun`` unchanged, but reverse mode stores only its
    inputs and re-runs it during the backward pass.

    ``fun`` may close over traced values (a layer closing over the network's
    parameters): they become inputs of the checkpoint, as with
    ``jax.checkpoint``, and get their cotangents from the recomputation.
    NB: with such a closure, a saving policy saves nothing (the whole
    function is recomputed), and so it does when its arguments are traced
    values of an outer transform (``hessian`` of a checkpointed function).

    Args:
      fun: the function to checkpoint.
      policy: what may still be saved, decided per equation of the staged
        forward run: a function of ``xgrad.checkpoint_policies``
        (``nothing_saveable``, ``dots_saveable``,
        ``dots_with_no_batch_dims_saveable``, ``everything_saveable``,
        ``save_only_these_names(...)`` with ``xgrad.checkpoint_name``, ...)
        or your own ``policy(prim, *args, **params) -> bool``. ``None`` and
        ``"nothing"`` save only the inputs; ``"dots"`` is ``dots_saveable``.
      prevent_cse: accepted for JAX compatibility; xgrad runs eagerly and
        never merges the recomputation with the forward pass.

    >>> import xgrad, xgrad.numpy as xnp
    >>> f = xgrad.checkpoint(lambda x: xnp.sin(xnp.sin(x)))
    >>> round(float(xgrad.grad(f)(0.5)), 6)
    0.778644
    """
    policy = _policy_function(policy)

    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
        args = positional(fun, args, kwargs)
        spec = _RematSpec(fun, args, policy)
        top = current_trace()
        if type(top) is not VJPTrace:
            return bind_call(checkpoint_call_p, spec)
        # the innermost reverse-mode trace takes the call even when no
        # argument is its tracer: fun may close over its tracers (a
        # network's parameters), which it then captures as inputs
        outs = top.process_primitive(checkpoint_call_p, spec.flat, {"spec": spec})
        return _tree.unflatten(spec.out_tree, outs)
    return wrapped


remat = checkpoint


_ALIASES = {None: None, "nothing": None, "dots": checkpoint_policies.dots_saveable}


def _policy_function(policy):
    """The policy function for ``checkpoint(policy=...)``: None for
    ``None``/``"nothing"``/``nothing_saveable`` (nothing to stage: the
    backward pass re-runs the function), ``dots_saveable`` for ``"dots"``, a
    callable as it is."""
    if policy is checkpoint_policies.nothing_saveable:
        return None
    if callable(policy):
        return policy
    try:
        return _ALIASES[policy]
    except (KeyError, TypeError):
        raise ValueError(f"checkpoint: policy={policy!r}; expected None, 'nothing', 'dots' or "
                         f"a policy function such as xgrad.checkpoint_policies.dots_saveable"
                         ) from None


class _RematSpec(Spec):
    def __init__(self, fun, args, policy, name=None):
        Spec.__init__(self, name or getattr(fun, "__name__", "checkpoint"), args)
        self.fun = fun
        self.policy = policy

    def impl(self, flat):
        return self.out_flat(self.fun(*self.full_args(flat)))

    def vjp(self, trace, primals, nodes):
        # a saving policy stages the forward run into a Program and keeps the
        # outputs of the equations it saves; only on concrete arguments: under
        # an outer transform the saved values would be that transform's tracers
        # Under vjp (whose vjp_fn outlives the call: trace.copies) the
        # forward run is staged too, with copies of the plain arrays fun
        # closes over: the recomputation replays it, so a later write into a
        # closed-over weight can't change the cotangent (as JAX's immutable
        # arrays can't change)
        own = trace.copies is not None
        staged = ((self.policy is not None or own)
                  and not any(isinstance(p, Tracer) for p in primals))
        # tracers of this trace that fun closes over (a network's parameters)
        # are captured during the forward run (nothing is recorded meanwhile)
        # and become inputs of the recomputation (closure conversion), so they
        # get cotangents from it too
        prev, trace.capture = trace.capture, {}
        try:
            if staged:
                copies = trace.copies
                program, o_flat, st = stage(
                    lambda *fl: self.impl(fl), list(primals), save=self.policy,
                    const=(lambda a: fresh_once(copies, a)) if own else None)
                # NB: a nested call closing over a value of fun (opaque) can't
                # be replayed: fun runs again, and nothing is saved
                saved = None if st.opaque else _through_names(program, st.saved)
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
        if saved is not None and not captured:
            # replay the Program; the saved equations are not recomputed
            def recompute(*fl):
                return eval_program(program, fl, known=saved)
        else:
            # NB: a closure is recomputed in full (its closed-over values may
            # hold tracers of outer transforms, which a replay must not reuse)
            program = saved = None

            def recompute(*fl):
                return self.impl(fl)

        # only the arguments of this trace get cotangents; the rest are constants
        live = [i for i, nd in enumerate(nodes) if nd is not None]

        def recompute_live(*xs):
            full = list(primals)
            for i, x in zip(live, xs):
                full[i] = x
            return recompute(*full)

        def pull(gs):
            with rematerialising():
                outs, out_nodes, in_nodes, tr = vjp_flat(
                    recompute_live, [primals[i] for i in live], captured)
            seeds = [(nd, g) for nd, g in zip(out_nodes, gs) if nd is not None and g is not None]
            cts = backward_pass(tr.tape, tr.n, seeds, consume=True, sites=tr.sites)
            n = len(live)
            return ([(nodes[i], cts[k]) for i, k in zip(live, in_nodes[:n]) if k is not None] +
                    [(nd, cts[k]) for nd, k in zip(cap_nodes, in_nodes[n:])])
        return trace.record_call(o_flat, pull)

    def jvp(self, trace, primals, tangents):
        n = len(primals)
        live = [i for i, t in enumerate(tangents) if t is not None]

        def fun_jvp(*flat):
            ts = [None] * n
            for i, t in zip(live, flat[n:]):
                ts[i] = t
            outs, t_outs = jvp_flat(lambda *fl: self.impl(fl), list(flat[:n]), ts)
            return outs + [t if t is not None else zeros(o) for o, t in zip(outs, t_outs)]
        spec = _RematSpec(fun_jvp, list(primals) + [tangents[i] for i in live], self.policy,
                          f"jvp({self.name})")
        res = bind(checkpoint_call_p, *spec.flat, spec=spec)
        if touches(res, trace):                  # a closure over a tracer of this trace
            return self.impl([p if t is None else JVPTracer(trace, p, t)
                              for p, t in zip(primals, tangents)])
        m = len(res) // 2
        return [JVPTracer(trace, o, t) if inexact(o) else o for o, t in zip(res[:m], res[m:])]

    def batch(self, trace, vals, bdims):
        axes = tuple(None if b is None else 0 for b in bdims)
        moved = [v if b is None else move_to_front(v, b) for v, b in zip(vals, bdims)]
        size = next(v.shape[0] for v, b in zip(moved, bdims) if b is not None)
        store = {}
        spec = _RematSpec(lambda *fl: _batched(self.impl, fl, axes, size, store),
                          moved, self.policy, f"vmap({self.name})")
        res = bind(checkpoint_call_p, *spec.flat, spec=spec)
        if touches(res, trace):                  # a closure over a tracer of this trace
            return self.impl([v if b is None else BatchTracer(trace, v, b)
                              for v, b in zip(vals, bdims)])
        # outputs that don't depend on a batched input stay unbatched (jacfwd
        # relies on it: the primal outputs of a batched jvp are not batched)
        return [BatchTracer(trace, o, 0) if b else o for o, b in zip(res, store["batched"])]


def _through_names(program, saved):
    """A saved ``checkpoint_name(x, name)`` is the value of ``x`` too: the
    equation that made ``x`` is then not recomputed either (its own
    derivative rule still runs)."""
    named = [e for e in saved if e.prim is checkpoint_name_p and type(e.ins[0]) is Var]
    if not named:
        return saved
    made_by = {e.outs[0]: e for e in program.eqns if not e.multi}
    saved = dict(saved)
    for e in named:
        src = made_by.get(e.ins[0])
        if src is not None:
            saved.setdefault(src, saved[e])
    return saved


def _batched(impl, flat, axes, size, store):
    """``impl`` on the flat list under a fresh BatchTrace (batch axis 0 where
    ``axes`` says 0); outputs come back with the batch axis first, and
    ``store["batched"]`` says which outputs are batched at all."""
    with new_main(BatchTrace, size) as bt:
        outs = impl([v if a is None else BatchTracer(bt, v, a) for v, a in zip(flat, axes)])
        res, flags = [], []
        for o in outs:
            mine = isinstance(o, Tracer) and o._trace is bt
            res.append(moveaxis(o.primal, o.bdim, 0) if mine else o)
            flags.append(mine)
    store["batched"] = flags
    return res


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


def checkpoint_name(x, name):
    """``x`` unchanged, marked ``name`` for a checkpoint policy such as
    ``checkpoint_policies.save_only_these_names(name)`` (JAX's
    ``checkpoint_name``).

    >>> import xgrad, xgrad.numpy as xnp
    >>> pol = xgrad.checkpoint_policies.save_only_these_names("h")
    >>> f = xgrad.checkpoint(lambda x: xnp.sin(xgrad.checkpoint_name(x * x, "h")), policy=pol)
    >>> round(float(xgrad.grad(f)(1.0)), 6)
    1.080605
    """
    if not isinstance(name, str):
        raise TypeError(f"checkpoint_name: name must be a str, got {type(name).__name__}")
    return bind(checkpoint_name_p, x, name=name)
