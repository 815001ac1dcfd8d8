"""Reverse mode: ``VJPTrace`` records a tape, ``backward_pass`` walks it once.

The tape is a flat list, appended in forward order, of flat records
``(out_node, in_node, fn, fix, prim, kind, last)``: one record per input
that needs a cotangent (one tuple each, so an operation allocates little
that lives until the backward pass). ``kind`` says how the input's
cotangent comes from the output's ``g``: ``fn(g)`` (``fn`` is the staged
rule's inner function, so the record keeps exactly the residuals the rule
asked for); ``g * fn`` (a row with ``vjp_factor``: elementwise ``deriv``
rows, multiply: ``fn`` is the factor ``d`` itself, no closure per
operation); ``g`` itself or ``-g`` (add, subtract: no call at all). An
operation with two such inputs makes two records with the same
``out_node``; ``last`` is True on the one processed last (recorded first),
which drops the output's cotangent. ``fix`` (shape, dtype) is set when the
engine must sum a broadcast cotangent back to the input's shape or cast it
back to the input's dtype; rules never do either.

Nodes are integers; cotangents live in a list indexed by node, so the
backward pass is one reverse loop with no graph search and no recursion.
For ``grad`` the tape is consumed: each record is dropped as soon as it is
processed, so its residuals are freed early and nothing outlives the call.
Rules compute with xgrad operations, so a backward pass that runs under an
outer transform is itself traced: that is how higher orders come out.
"""
from __future__ import annotations

from .. import core as _core
from ..core import Trace, Tracer, new_main, add_any
from ..core import bind
from ..backends import is_inexact, is_complex, dtype_in, backend_of
from ..backends import type_namespaces as _type_namespaces
from .. import numpy as xnp
from .. import tree as _tree
from ..rules._cotangent import Scattered, accumulate as _acc, dense as _dense
from ._api import (Named, as_primal, diff_args, flatten_fun, fresh, fresh_once, frozen, instantiate,
                   lower_out, nan_safe_result, owned, owned_tree, repeat)

__all__ = ["VJPTrace", "VJPTracer", "vjp", "grad", "value_and_grad",
           "backward_pass", "vjp_flat"]

_ns_get = _type_namespaces.get     # type -> backend (tracer types are never in it)
_new = object.__new__

# what a tape record's ``kind`` says (``Primitive.vjp_kinds`` uses 1 to 3)
_CLOSURE, _TIMES, _PASS, _NEG, _CALL = 0, 1, 2, 3, 4
_mul = xnp.multiply
_mul_impl = _core.RULES["multiply"].impl


class VJPTracer(Tracer):
    """``primal``: the value; ``node``: its tape node (None: a constant)."""

    __slots__ = ()
    node = Tracer.data_slot

    # A checkpointed function that copies a traced value it closes over
    # (copy.copy(w)) must capture w itself, as if a primitive had seen it: the
    # recomputation copies the rebound w again, and only then is the copy a
    # tracer of the recomputing trace (the forward run's copy is not reused).
    def __copy__(self):
        _capture_copied(self)
        return Tracer.__copy__(self)

    def __deepcopy__(self, memo):
        _capture_copied(self)
        return Tracer.__deepcopy__(self, memo)


def _capture_copied(x):
    cap = getattr(x._trace, "capture", None)
    if cap is not None and id(x) not in cap:
        cap[id(x)] = (x, x.primal, x.node)


class VJPTrace(Trace):
    """Records the tape (see the module docstring). A call record (several
    outputs) is ``(out_nodes_tuple, None, pull, None, None, _CALL, True)``
    where ``pull(cotangents) -> [(in_node, cotangent), ...]``."""

    __slots__ = ("tape", "n", "sites", "capture", "copies")

    def __init__(self, level):
        Trace.__init__(self, level)
        self.tape = []
        self.n = 0
        self.sites = None       # record index -> (primitive, user file:line) under nan_check
        # while a checkpointed function runs forward: {id: tracer} of this
        # trace's tracers it closes over (nothing is recorded meanwhile)
        self.capture = None
        self.copies = None      # id(plain array) -> (array, copy) while tracing (_own)

    def new_input(self, primal):
        node = self.n
        self.n = node + 1
        return VJPTracer(self, primal, node)

    def const(self, x):
        # a checkpointed function's forward run computes values only
        return VJPTracer(self, x, None) if self.capture is None else x

    def record_call(self, outs, pull):
        """Wrap the outputs of a call primitive; ``pull(gs)`` maps the list of
        output cotangents (None: zero) to [(in_node, cotangent)]."""
        res = []
        nodes = []
        for o in outs:
            if hasattr(o, "dtype") and is_inexact(o.dtype):
                node = self.n
                self.n = node + 1
                nodes.append(node)
                res.append(VJPTracer(self, o, node))
            else:
                nodes.append(-1)
                res.append(o)
        live = tuple(n for n in nodes if n >= 0)
        if live:
            index = [i for i, n in enumerate(nodes) if n >= 0]

            def pull_live(gs):
                full = [None] * len(outs)
                for i, g in zip(index, gs):
                    full[i] = g
                return pull(full)
            self.tape.append((live, None, pull_live, None, None, _CALL, True))
        return res

    def _captured(self, prim, args, params):
        """Capture mode (a checkpointed function's forward run): values only,
        and this trace's tracers among the arguments are remembered, so the
        checkpoint record can take them as inputs (closure conversion)."""
        vals = []
        for a in args:
            if isinstance(a, Tracer):
                if a._trace is self and a.node is None:   # a constant of this trace
                    a = a.primal
                elif a._trace is self:
                    if id(a) not in self.capture:     # as the function first saw it
                        self.capture[id(a)] = (a, a.primal, a.node)
                    a = a.primal
                else:
                    self.check_lower(a._trace, prim)
            vals.append(a)
        return bind(prim, *vals, **params)

    def process_primitive(self, prim, args, params):
        # fast paths (the hot path of eager reverse mode): one or two
        # arguments, tracers of this trace or plain arrays or Python scalars
        # of one known backend; anything else: _process
        n = len(args)
        if n == 1:
            a = args[0]
            if type(a) is VJPTracer and a._trace is self:
                return self.process_unary(prim, a, params)
        elif n == 2:
            return self.process_binary(prim, args[0], args[1], params)
        return self._process(prim, args, params)

    def process_unary(self, prim, x, params=None):
        """``prim(x)`` for a tracer ``x`` of this trace (``Trace.process_unary``;
        ``params`` may be given by ``process_primitive``)."""
        p = x.primal
        xp = _ns_get(type(p), False)
        if xp and not params and self.capture is None and (kinds := prim.vjp_kinds) is not None:
            # a row with vjp_factor (never several_outputs: defprim): the shortest path
            ans = prim.impl(xp, p)
            # one read for the check and the site: see core._checker
            if (chk := _core._checker) is not None:
                chk.check(prim, (p,), ans)
            node = x._data
            kind = kinds[0]
            if node is None or kind is None:     # a constant of this trace; no derivative
                return ans
            fn = prim.vjp_factor[0](ans, p) if kind == _TIMES else None
        else:
            return self._unary(prim, x, p, xp, params)
        pd = p.dtype
        ad = ans.dtype
        out = self.n
        self.n = out + 1
        if chk is not None:
            self._site(prim, chk)
        self.tape.append((out, node, fn, None if (pd is ad or pd == ad) else (p.shape, pd),
                          prim, kind, True))
        t = _new(VJPTracer)
        t._trace = self
        t.primal = ans
        t._data = out
        return t

    def _unary(self, prim, x, p, xp, params):
        """``process_unary`` off its shortest path: params, a rule that is
        not a factor, capture mode, an inner tracer, an unseen type."""
        if not xp or self.capture is not None or prim.several_outputs:
            return self._process(prim, (x,), params or {})
        ans = prim.impl(xp, p, **params) if params else prim.impl(xp, p)
        if (chk := _core._checker) is not None:
            chk.check(prim, (p,), ans)
        node = x._data
        if node is None:                       # a constant of this trace
            return ans
        # here params or no vjp_factor: the row's staged rule
        rules = prim.vjp
        if rules is None or (mk := rules[0]) is None:
            return ans
        fn = mk(ans, p, **params) if params else mk(ans, p)
        if fn is None:
            return ans
        kind = _CLOSURE
        pd = p.dtype
        ad = ans.dtype
        out = self.n
        self.n = out + 1
        if chk is not None:
            self._site(prim, chk)
        self.tape.append((out, node, fn, None if (pd is ad or pd == ad) else (p.shape, pd),
                          prim, kind, True))
        t = _new(VJPTracer)
        t._trace = self
        t.primal = ans
        t._data = out
        return t

    def process_binary(self, prim, x, y, params=None):
        """``prim(x, y)`` with at least one of them a tracer of this trace
        (``Trace.process_binary``; ``params`` may be given by
        ``process_primitive``)."""
        if (type(x) is VJPTracer and x._trace is self and _ns_get(type(y), False) is None
                and not params and self.capture is None and (kinds := prim.vjp_kinds) is not None
                and (xa := _ns_get(type(a := x.primal), False))):
            # the commonest case, in fewer steps: tracer op Python scalar (h * c,
            # h + c) of a row with vjp_factor (never several_outputs: defprim)
            ans = prim.impl(xa, a, y)
            if (chk := _core._checker) is not None:    # one read: see core._checker
                chk.check(prim, (a, y), ans)
            kind = kinds[0]
            na = x._data
            if kind is None or na is None:     # no derivative; a constant of this trace
                return ans
            pd = a.dtype
            ad = ans.dtype
            out = self.n
            self.n = out + 1
            if chk is not None:
                self._site(prim, chk)
            self.tape.append((out, na, prim.vjp_factor[0](ans, a, y) if kind == _TIMES else None,
                              None if (pd is ad or pd == ad) else (a.shape, pd), prim, kind, True))
            t = _new(VJPTracer)
            t._trace = self
            t.primal = ans
            t._data = out
            return t
        a = x
        b = y
        na = nb = None
        if type(a) is VJPTracer and a._trace is self:
            na = a._data
            a = a.primal
        if type(b) is VJPTracer and b._trace is self:
            nb = b._data
            b = b.primal
        xa = _ns_get(type(a), False)
        xb = _ns_get(type(b), False)
        if (xa is False or xb is False or not (xa or xb) or not (xa is xb or xa is None or xb is None)
                or self.capture is not None or prim.several_outputs):
            return self._process(prim, (x, y), params or {})   # a lower tracer, an unseen type, two backends
        try:
            if params:
                ans = prim.impl(xa or xb, a, b, **params)
                kinds = None
            else:
                ans = prim.impl(xa or xb, a, b)
                kinds = prim.vjp_kinds
        except ValueError as e:            # two devices: core.bind's TypeError
            _core._raise_if_devices(prim, e)
            raise
        # one read for the check and the sites: see core._checker
        if (chk := _core._checker) is not None:
            chk.check(prim, (a, b), ans)
        if na is None and nb is None:
            return ans
        if kinds is None and prim.vjp is None:
            return ans
        if self.copies is not None:        # vjp: plain operands become copies
            primals = [a, b]
            self._own((x, y), primals)
            a, b = primals
        multi = xa is not None and xb is not None    # broadcasting needs two arrays
        ad = ans.dtype
        out = self.n
        tape = self.tape
        last = True             # the record processed last clears the output's cotangent
        if na is not None:
            if kinds is not None:
                kind = kinds[0]
                fn = prim.vjp_factor[0](ans, a, b) if kind == _TIMES else None
            elif (mk := prim.vjp[0]) is not None:
                fn = mk(ans, a, b, **params) if params else mk(ans, a, b)
                kind = None if fn is None else _CLOSURE
            else:
                kind = None
            if kind is not None:
                pd = a.dtype
                if chk is not None:
                    self._site(prim, chk)
                tape.append((out, na, fn, (a.shape, pd) if ((multi and a.shape != ans.shape)
                                                            or (pd is not ad and pd != ad)) else None,
                             prim, kind, True))
                last = False
        if nb is not None:
            if kinds is not None:
                kind = kinds[1]
                fn = prim.vjp_factor[1](ans, a, b) if kind == _TIMES else None
            elif (mk := prim.vjp[1]) is not None:
                fn = mk(ans, a, b, **params) if params else mk(ans, a, b)
                kind = None if fn is None else _CLOSURE
            else:
                kind = None
            if kind is not None:
                pd = b.dtype
                if chk is not None:
                    self._site(prim, chk)
                tape.append((out, nb, fn, (b.shape, pd) if ((multi and b.shape != ans.shape)
                                                            or (pd is not ad and pd != ad)) else None,
                             prim, kind, last))
                last = False
        if last:                           # nothing recorded
            return ans
        self.n = out + 1
        t = _new(VJPTracer)
        t._trace = self
        t.primal = ans
        t._data = out
        return t

    def _process(self, prim, args, params):
        if self.capture is not None:
            return self._captured(prim, args, params)
        primals = []
        nodes = []
        diff = False
        xp = None              # the primals' backend; False: take the full bind
        arrays = 0
        for a in args:
            if isinstance(a, Tracer):
                if a._trace is self:
                    nodes.append(a.node)         # None: a constant of this trace
                    diff = True
                    a = a.primal
                else:
                    self.check_lower(a._trace, prim)
                    nodes.append(None)
            else:
                nodes.append(None)
            primals.append(a)
            ns = _ns_get(type(a), False)
            if ns is None:                     # Python scalar
                continue
            arrays += 1
            if ns is False or (xp is not None and ns is not xp):
                xp = False                     # a lower tracer, an unseen type, two backends
            else:
                xp = ns
        if prim.several_outputs:
            if prim.multiple_results:
                return self._multiple(prim, args, primals, nodes, diff, params)
            return params["spec"].vjp(self, primals, nodes)
        if xp:
            try:
                ans = prim.impl(xp, *primals, **params)
            except ValueError as e:            # two devices: core.bind's TypeError
                _core._raise_if_devices(prim, e)
                raise
            if (chk := _core._checker) is not None:    # one read: see core._checker
                chk.check(prim, primals, ans)
        else:
            ans = bind(prim, *primals, **params)
        rules = prim.vjp
        if not diff or rules is None:
            return ans
        if self.copies is not None:            # vjp: plain operands become copies
            self._own(args, primals)
        # rows with a vjp_factor keep d (or nothing: g passes on) instead of
        # a staged closure, here too (higher orders: the d's are traced)
        kinds = None if params else prim.vjp_kinds
        multi = arrays > 1     # broadcasting and promotion need two arrays
        a_dtype = ans.dtype
        out = self.n
        last = True
        for i, node in enumerate(nodes):
            if node is None:
                continue
            if kinds is not None:
                kind = kinds[i]
                if kind is None:
                    continue
                fn = prim.vjp_factor[i](ans, *primals) if kind == _TIMES else None
            else:
                mk = rules[i]
                if mk is None:
                    continue
                fn = mk(ans, *primals, **params)
                if fn is None:
                    continue
                kind = _CLOSURE
            fix = None
            p = primals[i]
            p_dtype = p.dtype
            if multi:
                if p.shape != ans.shape or (p_dtype is not a_dtype and p_dtype != a_dtype):
                    fix = (p.shape, p_dtype)
            elif p_dtype is not a_dtype and p_dtype != a_dtype:   # real(z), abs(z), ...
                fix = (p.shape, p_dtype)
            if (chk := _core._checker) is not None:
                self._site(prim, chk)
            self.tape.append((out, node, fn, fix, prim, kind, last))
            last = False
        if last:                   # nothing recorded
            return ans
        self.n = out + 1
        return VJPTracer(self, ans, out)

    def _multiple(self, prim, args, primals, nodes, diff, params):
        """A primitive with several results: one call record (``record_call``)
        whose pull hands each staged rule the tuple of the results'
        cotangents, zeros instantiated for those that got none."""
        outs = bind(prim, *primals, **params)
        rules = prim.vjp
        if not diff or rules is None:
            return outs
        if self.copies is not None:
            self._own(args, primals)
        fns = []
        for i, node in enumerate(nodes):
            if node is not None and rules[i] is not None:
                fn = rules[i](outs, *primals, **params)
                if fn is not None:
                    fns.append((node, fn, primals[i]))
        if not fns:
            return outs

        def pull(gs):
            gs = tuple(xnp._zeros_like(o) if g is None else g for o, g in zip(outs, gs))
            safe = _core.safe_derivatives()
            res = []
            for node, fn, p in fns:
                c = fn(gs)
                if safe:
                    c = _nan_safe_multiple(prim, gs, c)
                if c is not None and (c.shape != p.shape or c.dtype != p.dtype):
                    c = _fix(c, (p.shape, p.dtype))
                res.append((node, c))
            return res
        return self.record_call(outs, pull)

    def _own(self, args, primals):
        """For ``vjp``, whose ``vjp_fn`` outlives the call (``copies`` is a
        dict while it traces): the plain arrays among a recorded operation's
        operands (arrays the function closes over) become copies, one per
        array, before the rule keeps them as residuals, since the caller may
        write them after the call. Intermediate values (primals of tracers)
        are xgrad's own and never copied.

        NB: ``grad`` takes no copies: its tape is used before it returns, and
        a copy of a large closed-over batch costs more than its matmul on
        fresh memory (+6% on the peers' MLP). So numpy code that writes into
        a plain array after an operation used it, inside the differentiated
        function (``y = x * c; c[0] = 9.``), changes that derivative: write
        into a copy (see README, Sharp bits)."""
        for i, a in enumerate(args):
            if not isinstance(a, Tracer):
                primals[i] = fresh_once(self.copies, a)

    def _site(self, prim, checker):
        if self.sites is None:
            self.sites = {}
        self.sites[len(self.tape)] = (prim.name, checker.site())

    def before_update(self):
        if self.capture is not None:
            raise TypeError(
                "checkpoint: the checkpointed function updates a traced value it closes "
                "over (x[idx] = v); its recomputation would not see the same value. Pass "
                "the value as an argument, or update a copy (y = x * 1.0; y[idx] = v)")


def _fix(c, fix):
    shape, dtype = fix
    if c.shape != shape:
        c = xnp._unbroadcast(c, shape)
    if c.dtype != dtype:
        if is_complex(c.dtype) and not is_complex(dtype):
            c = xnp.real(c)
        c = xnp.astype(c, dtype_in(backend_of(c), dtype))
    return c


def _nan_safe_multiple(prim, gs, c):
    """NaN-safe mode (``nan_safe_result``) for a rule given several
    cotangents: a non-finite ``c`` becomes zero only when all are zero."""
    for g in gs:
        z = nan_safe_result(prim, g, c)
        if z is c:
            return c
    return z


_CALL_RESULT = Named("cotangent returned by a custom rule or checkpoint")


def backward_pass(tape, n, seeds, consume, keep=(), sites=None, wanted=None):
    """Propagate cotangents ``seeds`` [(node, g)] back through ``tape``.

    Returns the list of cotangents indexed by node (None: zero). With
    ``consume`` each record is dropped once processed (grad); without it the
    tape stays intact so a ``vjp_fn`` can be called again. Nodes in ``keep``
    keep their cotangents (gradients w.r.t. tagged intermediates). Under
    ``xgrad.debug.nan_check`` the checker is told which primitive's VJP runs
    (``sites``: record index -> (primitive, forward call site)).

    NaN safety: with ``wanted`` (the nodes whose cotangents the caller
    returns; for a tape that is kept, as ``vjp_fn``'s), the pass runs the
    fast way first; only when a wanted cotangent comes out non-finite is it
    run again in NaN-safe mode (``core.nan_safe``), where an exactly zero
    cotangent stays zero through every rule. The fast path pays one
    reduction per wanted cotangent. (``grad`` consumes its tape and redoes
    the whole call instead: see ``value_and_grad``.)
    """
    safe = _core.safe_derivatives()
    if wanted is None or safe:
        return _backward(tape, n, seeds, consume, keep, sites, safe)
    if consume:
        raise ValueError("backward_pass: a consumed tape can't be run again (wanted=)")
    cts = _backward(tape, n, seeds, False, keep, sites, False)
    return _core.again_if_nonfinite(cts, [_dense(cts[w]) for w in wanted if w is not None],
                                    lambda: _backward(tape, n, seeds, False, keep, sites, True))


def _backward(tape, n, seeds, consume, keep, sites, safe):
    checker = _core._checker
    ctx = checker.backward if checker is not None else None
    prev = getattr(ctx, "ctx", None) if ctx is not None else None
    cts = [None] * n
    for node, g in seeds:
        cts[node] = add_any(cts[node], g)
    lazy = []               # nodes that were given a Scattered cotangent
    # records are popped from the end: from the tape itself when it is
    # consumed (each is dropped once processed), else from a copy of the list
    recs = tape if consume else list(tape)
    pop = recs.pop
    seen_t = seen_xp = None     # g * d: a cotangent type and its backend (None: xnp.multiply)
    try:
        while recs:
            out, node, fn, fix, prim, kind, last = pop()
            if ctx is not None:
                ctx.ctx = (sites or {}).get(len(recs), ("?", "<recorded before nan_check was on>"))
            if kind == _CALL:                    # a call record: several outputs
                gs = [_dense(cts[o]) for o in out]
                if all(g is None for g in gs):
                    continue
                for o, g in zip(out, gs):
                    cts[o] = g if keep and o in keep else None
                for node, c in fn(gs):
                    if c is not None and checker is not None:
                        checker.check(_CALL_RESULT, (), c)   # user bwd code on plain arrays
                    if c is not None:
                        prev_c = cts[node]
                        cts[node] = c if prev_c is None else _acc(prev_c, c)
                continue
            g = cts[out]
            if g is None:
                continue
            tg = type(g)
            if tg is Scattered:
                g = g.materialize()
                tg = type(g)
                if not last or (keep and out in keep):
                    cts[out] = g
            if last and (not keep or out not in keep):
                cts[out] = None
            if kind == _TIMES:
                # g * d: a plain array times a plain array of its type or a
                # Python scalar: multiply's impl (what xnp.multiply calls)
                if tg is not seen_t:             # the backend of the last cotangent's type
                    seen_t = tg
                    seen_xp = _ns_get(tg) if checker is None else None
                if (xp := seen_xp) and (type(fn) is tg or _ns_get(type(fn), False) is None):
                    try:
                        c = _mul_impl(xp, g, fn)
                    except ValueError:           # two devices: multiply's own error
                        c = _mul(g, fn)
                    if fix is None and not safe:    # a plain array: nothing more to do
                        prev_c = cts[node]
                        cts[node] = c if prev_c is None else _acc(prev_c, c)
                        continue
                else:
                    c = _mul(g, fn)
            elif kind == _PASS:                  # add: g itself
                if fix is None and not safe:
                    prev_c = cts[node]
                    cts[node] = g if prev_c is None else _acc(prev_c, g)
                    continue
                c = g
            elif kind == _NEG:                   # subtract: -g
                c = -g
            else:
                c = fn(g)
                if c is None:
                    continue
            if safe and type(c) is not Scattered:
                c = nan_safe_result(prim, g, c)
                if c is None:
                    continue
            if type(c) is Scattered:
                if fix is not None:
                    c = _fix(c.materialize(), fix)
                else:
                    lazy.append(node)
            elif fix is not None:
                c = _fix(c, fix)
            prev_c = cts[node]
            cts[node] = c if prev_c is None else _acc(prev_c, c)
        for node in lazy:           # cotangents of inputs still lazy
            cts[node] = _dense(cts[node])
    finally:
        if ctx is not None:
            ctx.ctx = prev
    if consume:
        tape.clear()
    return cts


def vjp_flat(f_flat, primals, captured=(), own=False):
    """Trace ``f_flat`` on flat ``primals``; returns (outs, out_nodes, in_nodes, trace).

    ``captured``: ``(tracer, value)`` pairs, tracers (of a finished trace) that
    ``f_flat`` closes over and the value each had when it was captured; while
    ``f_flat`` runs, each is rebound in place to a fresh input of this trace
    holding that value (their nodes follow the primals' in ``in_nodes``), then
    restored."""
    with new_main(VJPTrace) as trace:
        if own:
            trace.copies = {}
        ins = [trace.new_input(p) if is_inexact(p.dtype) else frozen(p) for p in primals]
        # read the nodes now: `x[i] = v` inside f_flat rebinds the tracer objects
        in_nodes = [x.node if isinstance(x, VJPTracer) else None for x in ins]
        saved = [(c.__class__, c._trace, c.primal, c._data) for c, _ in captured]
        for c, value in captured:
            node = trace.n
            trace.n = node + 1
            c.__class__ = VJPTracer
            c._trace, c.primal, c._data = trace, value, node
            in_nodes.append(node)
        try:
            outs = f_flat(*ins)
            pairs = [lower_out(trace, o) for o in outs]
        finally:
            for (c, _), (cls, t, p, a) in zip(captured, saved):
                c.__class__ = cls
                c._trace, c.primal, c._data = t, p, a
    return [p for p, _ in pairs], [nd for _, nd in pairs], in_nodes, trace


def vjp(fun, *primals, has_aux=False):
    """Reverse-mode vector-Jacobian product.

    NB: ``vjp_fn`` owns what it keeps: it is unaffected by later in-place
    writes to the primals, to the returned outputs or to arrays ``fun``
    closes over (it holds copies of those it needs; JAX gets this from
    immutable arrays).

    Args:
      fun: function of ``len(primals)`` positional arguments (pytrees of arrays).
      *primals: the point at which to differentiate.
      has_aux: ``fun`` returns ``(out, aux)``; aux is returned undifferentiated.

    Returns:
      ``(out, vjp_fn)`` or ``(out, vjp_fn, aux)``. ``vjp_fn(cotangent)`` takes
      a cotangent structured like ``out`` and returns a tuple with one
      cotangent per primal. It may be called any number of times. NB: the
      cotangent of an integer or boolean primal is zeros of that primal's
      own dtype (JAX: ``float0`` zeros, which not every backend has).

    >>> import xgrad, xgrad.numpy as xnp
    >>> y, f_vjp = xgrad.vjp(xnp.sin, 0.0)
    >>> float(f_vjp(xnp.asarray(3.0))[0])
    3.0
    """
    return vjp_owning(fun, primals, has_aux, own=True)


def vjp_owning(fun, primals, has_aux=False, own=False):
    """``vjp``; with ``own=False`` the tape keeps the caller's arrays
    themselves (for callers whose ``vjp_fn`` does not escape, as jacrev)."""
    flat, in_tree = _tree.flatten(tuple(primals))
    flat = [as_primal(x, "vjp", f"argument{_tree.path_str(in_tree, i)}")
            for i, x in enumerate(flat)]
    store = {}
    f_flat = flatten_fun(fun, in_tree, store, "vjp", has_aux)
    # vjp_fn owns what it keeps: the caller may write into its arguments and
    # into the returned outputs later, so the tape sees copies of both (and
    # of closed-over arrays: VJPTrace._own)
    if own:
        ins = [fresh(x) for x in flat]
        outs, out_nodes, in_nodes, trace = vjp_flat(f_flat, ins, own=True)
        outs = [fresh(instantiate(o)) for o in outs]
    else:
        ins = flat
        outs, out_nodes, in_nodes, trace = vjp_flat(f_flat, flat)
        outs = [instantiate(o) for o in outs]
    trace.copies = None            # the tape holds the copies it needs
    out_tree = store["tree"]
    tape, n = trace.tape, trace.n

    def vjp_fn(ct):
        c_flat, c_tree = _tree.flatten(ct)
        if c_tree != out_tree:
            raise ValueError(f"vjp_fn: the cotangent has structure {c_tree}, but the "
                             f"function's output has structure {out_tree}")
        seeds = []
        for i, (o, c, node) in enumerate(zip(outs, c_flat, out_nodes)):
            c = as_primal(c, "vjp_fn", f"cotangent{_tree.path_str(out_tree, i)}")
            if tuple(c.shape) != tuple(o.shape):
                raise ValueError(
                    f"vjp_fn: cotangent{_tree.path_str(out_tree, i)} has shape "
                    f"{tuple(c.shape)}, but the output has shape {tuple(o.shape)}")
            if is_inexact(o.dtype) and c.dtype != o.dtype:
                raise TypeError(
                    f"vjp_fn: cotangent{_tree.path_str(out_tree, i)} has dtype {c.dtype}, "
                    f"but the output has dtype {o.dtype}")
            if node is not None:
                seeds.append((node, c))
        cts = backward_pass(tape, n, seeds, consume=False, sites=trace.sites, wanted=in_nodes)
        res = [instantiate(cts[nd] if nd is not None else None, like=p)
               for p, nd in zip(flat, in_nodes)]
        # a cotangent passed through (the identity) is a copy of the caller's
        return _tree.unflatten(in_tree, owned(res, [c for _, c in seeds]))

    res = (_tree.unflatten(out_tree, outs), vjp_fn)
    if has_aux:
        # aux is the caller's: never a primal, nor a copy the tape keeps
        return res + (owned_tree(store["aux"], flat + ins + outs),)
    return res


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, *, _name="value_and_grad"):
    """Function returning ``(fun(*args), grad of fun w.r.t. args[argnums])``.

    Args:
      fun: function returning a real scalar (shape ``()``), or
        ``(scalar, aux)`` with ``has_aux``.
      argnums: int or tuple of ints: which positional arguments to
        differentiate; a repeated entry gets the same gradient in each
        place (as ``grad``).
      has_aux: see above.
      holomorphic: ``fun`` is holomorphic (complex in, complex out); the
        result is the complex derivative f'(z).

    Returns:
      A function returning ``(value, grad)`` or ``((value, aux), grad)``; the
      gradient has the structure of ``args[argnums]`` (a tuple for a tuple).

    >>> import xgrad
    >>> v, g = xgrad.value_and_grad(lambda x: x ** 3)(2.0)
    >>> float(v), float(g)
    (8.0, 12.0)
    """

    def vg(*args, **kwargs):
        multi, nums, flat, in_tree, pick = diff_args(args, argnums, _name,
                                                     True if holomorphic else None)
        store = {}
        f_flat = flatten_fun(fun, in_tree, store, _name, has_aux, args, nums, kwargs)
        first = out, g_flat = _value_and_grad_flat(f_flat, flat, holomorphic)
        aux = store.get("aux")
        # NaN safety (core.nan_safe): a non-finite gradient is computed once
        # more, NaN-safely. NB: the tape of the fast attempt was consumed as
        # it ran (its residuals freed early), so the function runs again: its
        # side effects happen twice in this case (the value and aux returned
        # are the first run's)
        _, g_flat = _core.again_if_nonfinite(
            first, g_flat, lambda: _value_and_grad_flat(f_flat, flat, holomorphic))
        g = repeat(_tree.unflatten(in_tree, g_flat), pick)
        if not multi:
            g = g[0]
        if has_aux:     # an argument passed through as aux is a copy
            aux = owned_tree(aux, flat + _tree.leaves((args, kwargs)) + [out])
        value = (out, aux) if has_aux else out
        return value, g

    def _value_and_grad_flat(f_flat, flat, holomorphic):
        outs, out_nodes, in_nodes, trace = vjp_flat(f_flat, flat)
        if len(outs) != 1:
            raise TypeError(f"{_name} requires a function that returns a scalar array, got a "
                            f"pytree with {len(outs)} leaves. Use vjp or jacrev instead.")
        out = _check_scalar_out(outs[0], _name, holomorphic)
        node = out_nodes[0]
        if node is not None:
            seed = xnp._ones_like(out)
            cts = backward_pass(trace.tape, trace.n, [(node, seed)], consume=True,
                                sites=trace.sites)
        else:
            cts = [None] * trace.n
        return out, [instantiate(cts[nd] if nd is not None else None, like=p)
                     for p, nd in zip(flat, in_nodes)]

    return vg


def _check_scalar_out(out, fname, holomorphic=False):
    if type(out) in (float, int):
        out = as_primal(float(out), fname, "output")
    if not hasattr(out, "shape") or not hasattr(out, "dtype"):
        raise TypeError(f"{fname} requires a function that returns a scalar array; got "
                        f"{type(out).__name__}. Use vjp or jacrev for other outputs.")
    if tuple(out.shape) != ():
        raise TypeError(
            f"{fname} requires a real scalar output (shape ()), but the function returned "
            f"shape {tuple(out.shape)}. Use vjp or jacrev for non-scalar outputs, or reduce "
            f"it (e.g. out[0] or xgrad.numpy.sum(out)).")
    if holomorphic:
        if not is_complex(out.dtype):
            raise TypeError(f"{fname} with holomorphic=True requires a complex output, but the "
                            f"function returned dtype {out.dtype}")
        return out
    if not is_inexact(out.dtype) or is_complex(out.dtype):
        raise TypeError(
            f"{fname} requires a real floating-point output, but the function returned "
            f"dtype {out.dtype}. For complex outputs use vjp, or take the real part"
            f"{'' if not is_complex(out.dtype) else ' (xgrad.numpy.real)'}.")
    return out


def grad(fun, argnums=0, has_aux=False, holomorphic=False):
    """Gradient of a real-scalar function.

    Args:
      fun: function returning a real scalar (shape ``()``).
      argnums: int or tuple of ints: which positional arguments to
        differentiate (a tuple gives a tuple of gradients). NB: an entry
        may repeat (``argnums=(0, 0)``): each place gets the gradient with
        respect to that argument (JAX gives no defined result there).
      has_aux: ``fun`` returns ``(scalar, aux)``; then ``(grad, aux)`` is returned.
      holomorphic: differentiate a holomorphic complex function (complex
        input and output): returns f'(z).

    Returns:
      A function with the same arguments as ``fun`` returning the gradient,
      structured like ``args[argnums]``.

    >>> import xgrad
    >>> float(xgrad.grad(lambda x: x ** 3)(2.0))
    12.0
    """
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, _name="grad")

    def grad_f(*args, **kwargs):
        value, g = vg(*args, **kwargs)
        if has_aux:
            return g, value[1]
        return g

    return grad_f
