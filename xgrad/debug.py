"""Introspection and debugging: the functional answers to PyTorch's
``grad_fn`` graphs, torchviz, ``register_hook``, ``retain_grad`` and NaN
hunting.

- ``make_tape(fun)(*args)``: the recorded program, one primitive per line
  (like ``jax.make_jaxpr``); works on derivative functions too
  (``make_tape(grad(f))`` lists the forward and the backward pass).
- ``to_dot(tape)`` / ``make_graph(fun)(*args)``: a Graphviz DOT graph of it.
- ``hook(x, fn)``: identity forward; in the backward pass ``fn(cotangent)``
  sees (and may replace) the cotangent flowing into ``x``.
  ``tangent_hook(x, fn)`` is the forward-mode counterpart.
- ``tag(x, name)`` + ``grad_intermediates(fun)(*args)``: gradients with
  respect to tagged intermediates (``retain_grad``).
- ``nan_check()``: raise FloatingPointError at the first primitive that makes
  a NaN/Inf, forward or backward, with the user's file:line.
- ``grad_report(grads)``: per-leaf gradient norms with vanishing/exploding/NaN
  flags.
"""
from __future__ import annotations

import math
import os
import shutil
import sys
import threading
from contextlib import contextmanager

from . import core
from .core import Trace, Tracer, new_main, bind
from . import numpy as xnp
from . import tree as _tree
from .backends import backend_of, is_inexact
from .rules import defprim
from .rules import _batching
from .transforms.vjp import vjp_flat, backward_pass, VJPTracer
from .transforms._api import as_primal, fresh, instantiate

__all__ = ["make_tape", "to_dot", "make_graph", "hook", "tangent_hook", "tag",
           "grad_intermediates", "nan_check", "set_nan_check", "grad_report", "Tape"]


# --------------------------------------------------------------------------
# make_tape: record the program

class Tape:
    """A recorded program: ``inputs`` (names), ``eqns`` (primitive, input
    names/constants, params, output names), ``outputs``, and the shape and
    dtype of every variable. ``str(tape)`` is the readable listing."""

    def __init__(self):
        self.inputs, self.eqns, self.outputs = [], [], []
        self.avals = {}
        self.diff_inputs = set()

    def __str__(self):
        def v(n):
            s, d = self.avals[n]
            return f"{n}:{_short(d)}{list(s)}"
        lines = ["{ lambda " + ", ".join(v(n) for n in self.inputs) + " ."]
        for prim, ins, params, outs in self.eqns:
            p = ", ".join(f"{k}={_fmt(val)}" for k, val in params.items())
            lhs = ", ".join(v(o) for o in outs) if outs else "_"
            lines.append(f"    {lhs} = {prim}{'[' + p + ']' if p else ''} {' '.join(ins)}")
        lines.append("  in (" + ", ".join(self.outputs) + ") }")
        return "\n".join(lines)

    __repr__ = __str__


def _short(dtype):
    name = str(getattr(dtype, "name", dtype)).rsplit(".", 1)[-1]
    return {"float64": "f64", "float32": "f32", "int64": "i64", "int32": "i32",
            "bool": "bool", "complex128": "c128", "complex64": "c64"}.get(name, name)


def _fmt(val):
    if callable(val):
        return getattr(val, "__name__", "fn")
    if hasattr(val, "shape") and hasattr(val, "dtype"):
        return f"<array {_short(val.dtype)}{list(val.shape)}>"
    if isinstance(val, tuple):
        return "(" + ",".join(_fmt(x) for x in val) + ")"
    if val.__class__.__name__.endswith("Spec"):
        return getattr(val, "name", "spec")
    return repr(val)


def _var_name(i):
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(97 + r) + s
    return s


class _RecordTrace(Trace):
    __slots__ = ("tape", "count")

    def __init__(self, level):
        Trace.__init__(self, level)
        self.tape = Tape()
        self.count = 0

    def new_var(self, val):
        name = _var_name(self.count)
        self.count += 1
        self.tape.avals[name] = (tuple(val.shape), val.dtype)
        return _RecordTracer(self, val, name)

    def process_primitive(self, prim, args, params):
        vals, names, _ = self.lower(args, prim)
        ins = [n if n is not None else _const(v) for v, n in zip(vals, names)]
        out = prim.bind(*vals, **params)
        multi = prim.several_outputs
        outs = out if multi else [out]
        wrapped = [self.new_var(o) if hasattr(o, "shape") else o for o in outs]
        names = [w.var for w in wrapped if isinstance(w, _RecordTracer)]
        shown = {k: v for k, v in params.items() if k != "spec"}
        if prim.is_call:
            shown["fn"] = params["spec"].name
        self.tape.eqns.append((prim.name, ins, shown, names))
        return wrapped if multi else wrapped[0]


class _RecordTracer(Tracer):
    __slots__ = ()
    var = Tracer.data_slot


def _const(a):
    if hasattr(a, "shape") and hasattr(a, "dtype"):
        if tuple(a.shape) == ():
            try:
                return repr(float(a))
            except Exception:  # pragma: no cover
                pass
        return f"<const {_short(a.dtype)}{list(a.shape)}>"
    return repr(a)


def make_tape(fun):
    """``make_tape(fun)(*args) -> Tape``: the program ``fun`` runs on ``args``.

    >>> import xgrad, xgrad.numpy as xnp
    >>> print(xgrad.debug.make_tape(lambda x: xnp.sum(xnp.sin(x)))(xnp.ones(3)))
    { lambda a:f64[3] .
        b:f64[3] = sin a
        c:f64[] = sum[axis=None, dtype=None, keepdims=False] b
      in (c) }
    """
    def recorded(*args):
        flat, in_tree = _tree.flatten(args)
        flat = [as_primal(x, "make_tape", f"argument leaf {i}") for i, x in enumerate(flat)]
        with new_main(_RecordTrace) as trace:
            ins = []
            for x in flat:
                t = trace.new_var(x)
                trace.tape.inputs.append(t.var)
                if is_inexact(x.dtype):
                    trace.tape.diff_inputs.add(t.var)
                ins.append(t)
            out = fun(*_tree.unflatten(in_tree, ins))
            for o in _tree.leaves(out):
                trace.tape.outputs.append(o.var if isinstance(o, _RecordTracer) and
                                          o._trace is trace else _const(o))
        return trace.tape
    return recorded


def _esc(s):
    return str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") \
        .replace("<", "\\<").replace(">", "\\>").replace("{", "\\{").replace("}", "\\}") \
        .replace("|", "\\|")


def to_dot(tape, name="xgrad"):
    """A Graphviz DOT graph of a ``Tape``: inputs (differentiable ones
    shaded), one node per primitive, outputs. Labels are escaped."""
    lines = [f'digraph "{_esc(name)}" {{', "  rankdir=TB;",
             '  node [fontname="Helvetica", fontsize=10];']

    def aval(n):
        s, d = tape.avals[n]
        return f"{_short(d)}{list(s)}"
    for n in tape.inputs:
        style = ', style=filled, fillcolor="#cde4ff"' if n in tape.diff_inputs else ""
        lines.append(f'  "{_esc(n)}" [shape=box, label="{_esc(n)}: {_esc(aval(n))}"{style}];')
    producer = {n: f'"{_esc(n)}"' for n in tape.inputs}
    for k, (prim, ins, params, outs) in enumerate(tape.eqns):
        node = f'"eq{k}"'
        label = prim + ("\\n" + _esc(", ".join(f"{a}={_fmt(b)}" for a, b in params.items()))
                        if params else "")
        lines.append(f'  {node} [shape=ellipse, label="{_esc(prim)}{label[len(prim):]}"];')
        for i, src in enumerate(ins):
            if src in producer:
                lines.append(f"  {producer[src]} -> {node};")
            else:
                c = f'"c{k}_{i}"'
                lines.append(f'  {c} [shape=plaintext, label="{_esc(src)}"];')
                lines.append(f"  {c} -> {node};")
        for o in outs:
            producer[o] = node
    for j, o in enumerate(tape.outputs):
        out = f'"out{j}"'
        label = f"output {j}" + (f": {aval(o)}" if o in tape.avals else f" = {o}")
        lines.append(f'  {out} [shape=doubleoctagon, label="{_esc(label)}"];')
        if o in producer:
            lines.append(f"  {producer[o]} -> {out};")
    lines.append("}")
    return "\n".join(lines)


def make_graph(fun, filename=None, format="svg"):
    """``make_graph(fun)(*args)``: the DOT text of ``fun``'s program, or, with
    ``filename``, the path of the rendered file (``format`` svg/png/pdf) when
    the ``graphviz`` package and the ``dot`` binary exist (else the DOT text
    is written to ``filename + '.dot'`` and that path is returned)."""
    def graph(*args):
        dot = to_dot(make_tape(fun)(*args), getattr(fun, "__name__", "xgrad"))
        if filename is None:
            return dot
        try:
            import graphviz
            if shutil.which("dot") is None:
                raise ImportError
        except ImportError:
            path = filename + ".dot"
            with open(path, "w") as f:
                f.write(dot)
            return path
        return graphviz.Source(dot).render(filename, format=format, cleanup=True)
    return graph


# --------------------------------------------------------------------------
# hooks

def _apply_hook(fn, g):
    # fn sees a copy: the cotangent may be shared with the rest of the
    # backward pass (or be a read-only broadcast view), and fn may write it
    seen = fresh(g)
    r = fn(seen)
    if r is None:
        return seen if seen is not g and _written(seen, g) else g
    if tuple(r.shape) != tuple(g.shape):
        raise ValueError(f"hook: {getattr(fn, '__name__', fn)} returned shape {tuple(r.shape)} "
                         f"for a cotangent of shape {tuple(g.shape)}")
    return r


def _written(seen, g):
    """Did the hook write into its copy (``g[...] *= 0.5`` and return
    nothing)? Then the written copy is the new cotangent."""
    xp = backend_of(seen)
    return not bool(xp.all(xp.equal(seen, g)))


_hook_p = defprim("debug_hook", lambda xp, x, *, fn: x, family="debug", linear=True,
                  jvp=lambda x_dot, ans, x, *, fn: x_dot,
                  vjp=lambda ans, x, *, fn: lambda g: _apply_hook(fn, g),
                  batch=_batching.elementwise)
_thook_p = defprim("debug_tangent_hook", lambda xp, x, *, fn: x, family="debug", linear=True,
                   jvp=lambda x_dot, ans, x, *, fn: _apply_hook(fn, x_dot),
                   vjp=lambda ans, x, *, fn: lambda g: g,
                   batch=_batching.elementwise)


def hook(x, fn):
    """Identity in the forward pass; in the backward pass ``fn(cotangent)``
    is called with the cotangent flowing into ``x``; if it returns an array,
    that replaces the cotangent (scaling, clipping, noise).

    >>> import xgrad, xgrad.numpy as xnp
    >>> f = lambda x: xnp.sum(xgrad.debug.hook(x * 2.0, lambda g: g * 10.0))
    >>> xgrad.grad(f)(xnp.ones(2)).tolist()
    [20.0, 20.0]
    """
    return bind(_hook_p, x, fn=fn)


def tangent_hook(x, fn):
    """Forward-mode counterpart of ``hook``: ``fn(tangent)`` sees (and may
    replace) the tangent carried by ``x``."""
    return bind(_thook_p, x, fn=fn)


# --------------------------------------------------------------------------
# tags: gradients with respect to intermediates

_collect = threading.local()


def tag(x, name):
    """Mark the intermediate ``x`` as ``name`` for ``grad_intermediates``;
    the identity otherwise."""
    c = getattr(_collect, "stack", None)
    if c:
        trace, names = c[-1]
        v = x
        while isinstance(v, Tracer) and not (isinstance(v, VJPTracer) and v._trace is trace):
            v = v.primal                 # under an inner transform's tracer (vmap, jvp)
        if isinstance(v, VJPTracer):
            names[name] = (v.node, v)
        elif not isinstance(x, Tracer) and hasattr(x, "dtype") and is_inexact(x.dtype):
            # independent of the arguments: make it an input of the tape, so that
            # d out / d x is still computed
            x = trace.new_input(x)
            names[name] = (x.node, x)
        else:
            names[name] = (None, x)
    return x


def grad_intermediates(fun, argnums=0):
    """``grad_intermediates(fun)(*args) -> (grad, {name: d out / d intermediate})``
    for a scalar ``fun`` that tags intermediates with ``tag(x, name)`` (the
    ``retain_grad`` equivalent)."""
    from .transforms.vjp import _check_scalar_out
    from .transforms._api import check_argnums

    def g(*args):
        multi, nums = check_argnums(argnums, len(args), "grad_intermediates")
        flat, in_tree = _tree.flatten(tuple(args[i] for i in nums))
        flat = [as_primal(x, "grad_intermediates", f"argument leaf {i}") for i, x in enumerate(flat)]
        names = {}

        def f_flat(*xs):
            new = list(args)
            for i, a in zip(nums, _tree.unflatten(in_tree, xs)):
                new[i] = a
            stack = getattr(_collect, "stack", None)
            if stack is None:
                stack = _collect.stack = []
            stack.append((core.current_trace(), names))
            try:
                return [_check_scalar_out(fun(*new), "grad_intermediates")]
            finally:
                stack.pop()

        (out,), (node,), in_nodes, trace = vjp_flat(f_flat, flat)
        keep = {nd for nd, _ in names.values() if nd is not None}
        seeds = [(node, xnp._ones_like(instantiate(out)))] if node is not None else []
        cts = backward_pass(trace.tape, trace.n, seeds, consume=True, keep=keep)
        grads = _tree.unflatten(in_tree, [instantiate(cts[nd] if nd is not None else None, like=p)
                                          for p, nd in zip(flat, in_nodes)])
        inter = {k: instantiate(cts[nd] if nd is not None else None,
                                like=v.primal if isinstance(v, VJPTracer) else v)
                 for k, (nd, v) in names.items()}
        return (grads if multi else grads[0]), inter
    return g


# --------------------------------------------------------------------------
# NaN / Inf hunting

_XGRAD_DIR = os.path.dirname(os.path.abspath(__file__))


def _user_site():
    f = sys._getframe(1)
    while f is not None:
        fn = os.path.abspath(f.f_code.co_filename)
        if not fn.startswith(_XGRAD_DIR) and "contextlib" not in fn:
            return f"{fn}:{f.f_lineno}"
        f = f.f_back
    return "<unknown>"


class _PerThread(threading.local):
    def __init__(self):
        self.depth = 0         # nan_check() blocks this thread is inside
        self.flag = False      # set_nan_check(True) in this thread
        self.on = False        # depth > 0 or flag
        self.ctx = None        # the backward pass's (primitive, forward site), or None


class _NanChecker:
    """Checking is per thread: ``nan_check()`` in one thread never checks
    (or raises in) another, and blocks nest by a per-thread count, so that
    interleaved blocks of two threads (A enters, B enters, A exits, B exits)
    leave both unchecked. The checker is installed in ``core`` (one global,
    read on every primitive) only while at least one thread has checking
    on, so the hot path stays one ``is None`` test when nobody checks;
    while installed, ``check`` returns at once in threads that did not turn
    it on."""

    def __init__(self):
        self.local = _PerThread()
        self.backward = self.local     # vjp.backward_pass sets ``.ctx`` here
        self._lock = threading.Lock()
        self._threads = 0              # threads with checking on

    def active(self):
        """Whether this thread checks."""
        return self.local.on

    def _sync(self):
        loc = self.local
        on = loc.depth > 0 or loc.flag
        if on == loc.on:
            return
        loc.on = on
        with self._lock:
            self._threads += 1 if on else -1
            core.set_checker(self if self._threads else None)

    def site(self):
        if not self.local.on:
            return "<recorded while nan_check was off in this thread>"
        return _user_site()

    def check(self, prim, args, out):
        if not self.local.on:
            return
        outs = out if isinstance(out, (list, tuple)) else [out]
        for o in outs:
            while isinstance(o, Tracer):    # a custom rule's cotangent under vmap
                o = o.primal
            if not (hasattr(o, "dtype") and is_inexact(o.dtype)):
                continue
            xp = backend_of(o)
            if bool(xp.all(xp.isfinite(o))):
                continue
            bad = "NaN" if bool(xp.any(xp.isnan(o))) else "Inf"
            ctx = self.local.ctx
            shapes = ", ".join(str(tuple(getattr(a, "shape", ()))) for a in args)
            if ctx is None:
                where = f"in the forward pass, called at {_user_site()}"
            else:
                name, site = ctx
                where = (f"in the backward pass, inside the VJP of {name!r} (which the forward "
                         f"pass called at {site})")
            raise FloatingPointError(
                f"nan_check: primitive {prim.name!r} produced {bad} {where}; input shapes "
                f"{shapes}, output shape {tuple(o.shape)}")


_checker = _NanChecker()


def set_nan_check(enabled):
    """Turn NaN/Inf checking on or off in the calling thread (off by
    default; free when no thread checks). ``nan_check()`` blocks check
    whatever this says. NB: per thread, like JAX's ``debug_nans`` context
    manager, not process-wide like its config flag; a new thread starts
    unchecked."""
    _checker.local.flag = bool(enabled)
    _checker._sync()


@contextmanager
def nan_check():
    """``with xgrad.debug.nan_check(): ...`` raises FloatingPointError at the
    first primitive whose output holds a NaN or Inf, forward or backward,
    naming the primitive, the direction and the user's file:line. Only the
    calling thread is checked; blocks nest."""
    loc = _checker.local
    loc.depth += 1
    _checker._sync()
    try:
        yield
    finally:
        loc.depth -= 1
        _checker._sync()


# --------------------------------------------------------------------------
# gradient health

class GradReport:
    """Per-leaf gradient norms with flags; ``str()`` is a table, ``flags``
    maps a leaf path to its problems, ``ok`` is True when there are none."""

    def __init__(self, rows, global_norm):
        self.rows = rows
        self.global_norm = global_norm
        self.flags = {path: fl for path, _, _, fl in rows if fl}
        self.ok = not self.flags

    def __str__(self):
        w = max([len(p) for p, *_ in self.rows] + [4])
        lines = [f"{'leaf':<{w}}  {'shape':<14} {'norm':>12}  flags",
                 "-" * (w + 40)]
        for path, shape, norm, fl in self.rows:
            lines.append(f"{path:<{w}}  {str(shape):<14} {norm:>12.4e}  {', '.join(fl)}")
        lines.append(f"{'global':<{w}}  {'':<14} {self.global_norm:>12.4e}")
        return "\n".join(lines)

    __repr__ = __str__


def grad_report(grads, vanishing=1e-8, exploding=1e3):
    """Per-leaf norms of a gradient pytree, by path, flagging ``nan`` (NaN
    or Inf entries), ``vanishing`` (norm below ``vanishing`` times the global
    norm, or exactly zero) and ``exploding`` (norm above ``exploding``)."""
    paths_leaves = _tree_paths(grads)
    norms = []
    for path, g in paths_leaves:
        xp = backend_of(g)
        finite = bool(xp.all(xp.isfinite(g)))
        n = float(xp.sqrt(xp.sum(xp.abs(g) ** 2))) if finite else math.nan
        norms.append((path, tuple(g.shape), n, finite))
    total = math.sqrt(sum(n * n for *_, n, f in norms if f))
    rows = []
    for path, shape, n, finite in norms:
        fl = []
        if not finite:
            fl.append("nan")
        elif n == 0 or n < vanishing * total:
            fl.append("vanishing")
        elif n > exploding:
            fl.append("exploding")
        rows.append((path, shape, n, fl))
    return GradReport(rows, total)


def _tree_paths(tree):
    leaves, spec = _tree.flatten(tree)
    return [("".join(f"[{k!r}]" for k in p) or "[]", l) for p, l in zip(spec.paths(), leaves)]
