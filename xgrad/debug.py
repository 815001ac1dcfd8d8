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
import math as _math
import os as _os
import shutil as _shutil
import sys as _sys
import threading as _threading
from contextlib import contextmanager as _contextmanager

from . import core as _core
from .core import Tracer as _Tracer, bind as _bind
from . import numpy as _xnp
from . import tree as _tree
from .backends import backend_of as _backend_of, is_inexact as _is_inexact
from .rules import defprim as _defprim
from .rules import _batching
from .transforms.vjp import (vjp_flat as _vjp_flat, backward_pass as _backward_pass,
                             VJPTracer as _VJPTracer, _check_scalar_out)
from .transforms._api import (as_primal as _as_primal, check_argnums as _check_argnums,
                              fresh as _fresh, instantiate as _instantiate)
from .program import Program as _Program, Var as _Var, stage as _stage

__all__ = ["make_tape", "to_dot", "make_graph", "hook", "tangent_hook", "tag",
           "grad_intermediates", "nan_check", "set_nan_check", "grad_report", "GradReport"]


# --------------------------------------------------------------------------
# make_tape: the staged program

def make_tape(fun):
    """``make_tape(fun)(*args) -> Program``: the program ``fun`` runs on
    ``args``, one primitive per line (like ``jax.make_jaxpr``); works on
    derivative functions too (``make_tape(grad(f))`` lists the forward and
    the backward pass).

    >>> import xgrad, xgrad.numpy as xnp
    >>> print(xgrad.debug.make_tape(lambda x: xnp.sum(xnp.sin(x)))(xnp.ones(3)))
    { lambda a:f64[3] .
        b:f64[3] = sin a
        c:f64[] = sum[axis=None, dtype=None, keepdims=False] b
      in (c) }
    """
    def recorded(*args):
        flat, in_tree = _tree.flatten(args)
        flat = [_as_primal(x, "make_tape", f"argument leaf {i}") for i, x in enumerate(flat)]
        program, _, _ = _stage(lambda *xs: _tree.leaves(fun(*_tree.unflatten(in_tree, xs))),
                              flat)
        return program
    return recorded


def _esc(s):
    return str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") \
        .replace("<", "\\<").replace(">", "\\>").replace("{", "\\{").replace("}", "\\}") \
        .replace("|", "\\|")


def to_dot(program, name="xgrad"):
    """A Graphviz DOT graph of a ``Program``: inputs (differentiable ones
    shaded), one node per primitive, outputs. Labels are escaped."""
    lines = [f'digraph "{_esc(name)}" {{', "  rankdir=TB;",
             '  node [fontname="Helvetica", fontsize=10];']
    names = program.names()

    producer = {}
    for v in program.in_vars:
        if v is None:
            continue
        n = names[v]
        style = ', style=filled, fillcolor="#cde4ff"' if _is_inexact(v.dtype) else ""
        lines.append(f'  "{_esc(n)}" [shape=box, label="{_esc(n)}: {_esc(v.aval)}"{style}];')
        producer[v] = f'"{_esc(n)}"'
    for k, e in enumerate(program.eqns):
        node = f'"eq{k}"'
        label = e.label()
        prim = e.prim.name
        if label != prim:              # parameters on a second line
            label = f"{_esc(prim)}\\n{_esc(label[len(prim) + 1:-1])}"
        else:
            label = _esc(prim)
        lines.append(f'  {node} [shape=ellipse, label="{label}"];')
        for i, src in enumerate(e.ins):
            if type(src) is _Var:
                lines.append(f"  {producer[src]} -> {node};")
            else:
                c = f'"c{k}_{i}"'
                lines.append(f'  {c} [shape=plaintext, label="{_esc(_Program.const_text(src))}"];')
                lines.append(f"  {c} -> {node};")
        for o in e.outs:
            if o is not None:
                producer[o] = node
    for j, o in enumerate(program.outs):
        out = f'"out{j}"'
        label = f"output {j}" + (f": {o.aval}" if type(o) is _Var else f" = {_Program.const_text(o)}")
        lines.append(f'  {out} [shape=doubleoctagon, label="{_esc(label)}"];')
        if type(o) is _Var:
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
            import graphviz  # optional: the graph extra
            if _shutil.which("dot") is None:
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
    seen = _fresh(g)
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
    xp = _backend_of(seen)
    return not bool(xp.all(xp.equal(seen, g)))


_hook_p = _defprim("debug_hook", lambda xp, x, *, fn: x, family="debug", linear=True,
                  jvp=lambda x_dot, ans, x, *, fn: x_dot,
                  vjp=lambda ans, x, *, fn: lambda g: _apply_hook(fn, g),
                  batch=_batching.elementwise)
_thook_p = _defprim("debug_tangent_hook", lambda xp, x, *, fn: x, family="debug", linear=True,
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
    return _bind(_hook_p, x, fn=fn)


def tangent_hook(x, fn):
    """Forward-mode counterpart of ``hook``: ``fn(tangent)`` sees (and may
    replace) the tangent carried by ``x``."""
    return _bind(_thook_p, x, fn=fn)


# --------------------------------------------------------------------------
# tags: gradients with respect to intermediates

_collect = _threading.local()


def tag(x, name):
    """Mark the intermediate ``x`` as ``name`` for ``grad_intermediates``;
    the identity otherwise."""
    c = getattr(_collect, "stack", None)
    if c:
        trace, names = c[-1]
        v = x
        while isinstance(v, _Tracer) and not (isinstance(v, _VJPTracer) and v._trace is trace):
            v = v.primal                 # under an inner transform's tracer (vmap, jvp)
        if isinstance(v, _VJPTracer):
            names[name] = (v.node, v)
        elif not isinstance(x, _Tracer) and hasattr(x, "dtype") and _is_inexact(x.dtype):
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

    def g(*args):
        multi, nums = _check_argnums(argnums, len(args), "grad_intermediates")
        flat, in_tree = _tree.flatten(tuple(args[i] for i in nums))
        flat = [_as_primal(x, "grad_intermediates", f"argument leaf {i}") for i, x in enumerate(flat)]
        names = {}

        def f_flat(*xs):
            new = list(args)
            for i, a in zip(nums, _tree.unflatten(in_tree, xs)):
                new[i] = a
            stack = getattr(_collect, "stack", None)
            if stack is None:
                stack = _collect.stack = []
            stack.append((_core.current_trace(), names))
            try:
                return [_check_scalar_out(fun(*new), "grad_intermediates")]
            finally:
                stack.pop()

        (out,), (node,), in_nodes, trace = _vjp_flat(f_flat, flat)
        keep = {nd for nd, _ in names.values() if nd is not None}
        seeds = [(node, _xnp._ones_like(_instantiate(out)))] if node is not None else []
        cts = _backward_pass(trace.tape, trace.n, seeds, consume=True, keep=keep)
        grads = _tree.unflatten(in_tree, [_instantiate(cts[nd] if nd is not None else None, like=p)
                                          for p, nd in zip(flat, in_nodes)])
        inter = {k: _instantiate(cts[nd] if nd is not None else None,
                                like=v.primal if isinstance(v, _VJPTracer) else v)
                 for k, (nd, v) in names.items()}
        return (grads if multi else grads[0]), inter
    return g


# --------------------------------------------------------------------------
# NaN / Inf hunting

_XGRAD_DIR = _os.path.dirname(_os.path.abspath(__file__))


def _user_site():
    f = _sys._getframe(1)
    while f is not None:
        fn = _os.path.abspath(f.f_code.co_filename)
        if not fn.startswith(_XGRAD_DIR) and "contextlib" not in fn:
            return f"{fn}:{f.f_lineno}"
        f = f.f_back
    return "<unknown>"


class _PerThread(_threading.local):
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
        self._lock = _threading.Lock()
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
            _core.set_checker(self if self._threads else None)

    def site(self):
        if not self.local.on:
            return "<recorded while nan_check was off in this thread>"
        return _user_site()

    def check(self, prim, args, out):
        if not self.local.on:
            return
        outs = out if isinstance(out, (list, tuple)) else [out]
        for o in outs:
            while isinstance(o, _Tracer):    # a custom rule's cotangent under vmap
                o = o.primal
            if not (hasattr(o, "dtype") and _is_inexact(o.dtype)):
                continue
            xp = _backend_of(o)
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


@_contextmanager
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
        xp = _backend_of(g)
        finite = bool(xp.all(xp.isfinite(g)))
        n = float(xp.sqrt(xp.sum(xp.abs(g) ** 2))) if finite else _math.nan
        norms.append((path, tuple(g.shape), n, finite))
    total = _math.sqrt(sum(n * n for *_, n, f in norms if f))
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
    return [("".join(f"[{k!r}]" for k in p) or "[]", leaf)
            for p, leaf in zip(spec.paths(), leaves)]
