"""The tracing core: primitives, ``bind``, traces, tracers and symbolic zeros.

Nothing here knows any math or any array library. A transform is a ``Trace``
subclass (see ``transforms/``); an operation is a ``Primitive`` whose rules live
in one row of the rule table (``rules/``).

How dispatch works (anchor: Autodidax ``bind`` / ``find_top_trace``): every
``Tracer`` points at the ``Trace`` that made it, and each trace has a *level*,
its depth in the per-thread stack of active transforms. ``bind`` hands the
operation to the highest-level trace among its arguments; that trace treats
tracers of lower levels as constants. Why levels are needed, by the example
that breaks without them (perturbation confusion)::

    grad(lambda x: x * grad(lambda y: x + y)(1.0))(1.0)

The inner ``grad`` must see ``x`` as a constant (d(x+y)/dy = 1), so the outer
derivative is 1, not 2. The inner trace has a higher level than the outer
one, so ``x + y`` goes to the inner trace, which lifts ``x`` as a constant.

When no argument is a tracer, ``bind`` calls the backend implementation
directly: plain arrays pay one dict look-up and one call.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager

from .backends import namespace, default_namespace, type_namespaces

_ns_get = type_namespaces.get   # tracer types are never in it

__all__ = ["Primitive", "bind", "Trace", "Tracer", "Zero", "new_main",
           "concrete", "current_trace", "LeakedTracerError", "RULES", "add_any", "active_level"]

RULES: dict[str, "Primitive"] = {}


class Primitive:
    """One operation and its rules (one row of the rule table).

    ``impl(xp, *args, **params)`` runs on backend arrays. ``jvp[i]`` is
    ``(x_dot, ans, *args, **params) -> tangent`` and ``vjp[i]`` is the staged
    ``(ans, *args, **params) -> (g -> cotangent)``; ``None`` means argument
    ``i`` has no derivative. A staged VJP may return ``None`` to say that no
    cotangent flows (e.g. a cast to an integer dtype).

    A *call primitive* (``is_call``: custom_vjp, custom_jvp, checkpoint) runs
    a user function; its ``spec`` parameter tells each trace what to do
    (``spec.jvp(trace, primals, tangents)``, ``spec.vjp(trace, primals,
    nodes)``, ``spec.batch(trace, vals, bdims)``) and it returns a list.
    """

    __slots__ = ("name", "impl", "jvp", "vjp", "batch", "broadcast", "domain",
                 "nondiff", "is_call", "deriv", "jvp_joint", "__weakref__")

    def __init__(self, name, impl, jvp=None, vjp=None, batch=None,
                 broadcast=False, domain=None, nondiff=(), is_call=False):
        self.name = name
        self.impl = impl
        self.jvp = jvp
        self.vjp = vjp
        self.batch = batch
        self.broadcast = broadcast
        self.domain = domain
        self.nondiff = tuple(nondiff)
        self.is_call = is_call
        self.deriv = None      # elementwise rows: per-argument d(ans, *args), if given
        # optional ``(tangents, ans, *args) -> tangent`` taking every argument's
        # tangent at once (None: zero), used by forward mode when several are
        # live: a concat of n tangents is one concat, not n concats and n-1 adds
        self.jvp_joint = None

    def bind(self, *args, **params):
        return bind(self, *args, **params)

    def __repr__(self):
        return f"Primitive({self.name})"


def bind(prim, *args, **params):
    """Apply ``prim`` to ``args`` under the innermost transform that sees them."""
    # fast path: plain arrays of one known backend and Python scalars, one
    # dict look-up per argument (tracers and unseen types: _bind_slow)
    xp = None
    for a in args:
        ns = _ns_get(type(a), False)
        if ns is None:                 # Python scalar
            continue
        if ns is False or (xp is not None and ns is not xp):
            return _bind_slow(prim, args, params)
        xp = ns
    out = prim.impl(xp if xp is not None else default_namespace(), *args, **params)
    if _checker is not None:
        _checker.check(prim, args, out)
    return out


def _bind_slow(prim, args, params):
    if _state.remat:
        args = tuple(_undead(a) for a in args)
    top = None
    for a in args:
        if isinstance(a, Tracer):
            t = a._trace
            if top is None or t.level > top.level:
                top = t
    if top is None:
        out = prim.impl(namespace(*args), *args, **params)
        if _checker is not None:
            _checker.check(prim, args, out)
        return out
    if not top.alive:
        raise LeakedTracerError(
            f"{prim.name}: an argument is a traced value of a transform that has "
            f"already returned (a leaked tracer). Return values from the "
            f"transformed function instead of storing them outside it.")
    return top.process_primitive(prim, args, params)


_checker = None     # xgrad.debug's NaN checker while it is on (None: free)


def set_checker(checker):
    global _checker
    _checker = checker


def get_checker():
    return _checker


class LeakedTracerError(Exception):
    """A tracer escaped the transform that made it, or levels were mixed up."""


# --------------------------------------------------------------------------
# traces and the per-thread stack


class _State(threading.local):
    def __init__(self):
        self.stack = []
        self.remat = 0      # > 0 while a checkpointed function is recomputed


@contextmanager
def rematerialising():
    """While a checkpointed function is recomputed in a backward pass, a
    tracer of a finished transform that it closes over (an inner ``grad``'s
    value, met again after that grad returned) stands for its value: the
    transform's own derivatives are done, so it is a constant now."""
    _state.remat += 1
    try:
        yield
    finally:
        _state.remat -= 1


def _undead(a):
    while isinstance(a, Tracer) and not a._trace.alive:
        a = a.primal
    return a


_state = _State()


def current_trace():
    """The innermost active trace of this thread, or None."""
    stack = _state.stack
    return stack[-1] if stack else None


def active_level():
    """Number of transforms active in this thread (0: plain evaluation)."""
    return len(_state.stack)


class Trace:
    """Base class of all transforms. One instance per transform call.

    ``level`` is the position in this thread's stack (1 = outermost);
    ``alive`` turns False when the transform call returns, so a leaked tracer
    fails loudly instead of giving a wrong number.
    """

    __slots__ = ("level", "alive")

    def __init__(self, level):
        self.level = level
        self.alive = True

    def process_primitive(self, prim, args, params):  # pragma: no cover
        raise NotImplementedError

    def lower(self, args, prim):
        """Split the arguments of ``prim``: ``(values, per-trace data, traced)``
        where tracers of this trace give their value and data (tangent, batch
        axis, ...), everything else (constants, tracers of outer transforms)
        gives itself and None."""
        vals = []
        auxes = []
        traced = False
        for a in args:
            if isinstance(a, Tracer):
                if a._trace is self:
                    vals.append(a.primal)
                    auxes.append(a.aux)
                    traced = True
                    continue
                self.check_lower(a._trace, prim)
            vals.append(a)
            auxes.append(None)
        return vals, auxes, traced

    def const(self, x):
        """``x`` as a constant of this trace (a tracer with no derivative), or
        ``x`` itself where the trace has no such thing."""
        return x

    def check_lower(self, t, prim):
        """A tracer of another trace met this one: lower levels are constants."""
        if t.level >= self.level:
            raise LeakedTracerError(
                f"{prim.name}: can't lift level {t.level} to level {self.level}: "
                f"a traced value leaked out of the transform that made it.")


@contextmanager
def new_main(trace_type, *args):
    """Push a fresh trace (fresh level) for one transform call."""
    stack = _state.stack
    trace = trace_type(len(stack) + 1, *args)
    stack.append(trace)
    try:
        yield trace
    finally:
        stack.pop()
        trace.alive = False


class Tracer:
    """A value being traced by some transform.

    All tracers share one slot layout (trace, primal value, per-transform
    extra), so that ``__setitem__`` can rebind a tracer in place to the result
    of a functional update. Operators and array attributes are attached by
    ``xgrad.numpy``.
    """

    __slots__ = ("_trace", "primal", "aux")
    __array_ufunc__ = None      # numpy defers to our reflected operators
    __array_priority__ = 1e6

    def __init__(self, trace, primal, aux):
        self._trace = trace
        self.primal = primal
        self.aux = aux

    # ---- eager model: concrete values where they exist --------------------
    def concrete(self):
        return concrete(self.primal)

    def __bool__(self):
        return bool(self.concrete())

    def __float__(self):
        return float(self.concrete())

    def __int__(self):
        return int(self.concrete())

    def __complex__(self):
        return complex(self.concrete())

    def __index__(self):
        return self.concrete().__index__()

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            f"a traced value ({_describe(self)}) can't be converted to a "
            f"numpy array: the derivative would be lost silently. Use "
            f"xgrad.numpy functions on it, or xgrad.stop_gradient(x) and "
            f"x.concrete() if you really want the value as a constant.")

    def __repr__(self):
        try:
            val = repr(self.concrete())
        except TypeError:          # no single concrete value (batched under vmap)
            val = repr(self.primal)
        return f"{type(self).__name__}<{_describe(self)}>({val})"

    def __hash__(self):
        raise TypeError("traced values are unhashable (like arrays)")


def _describe(x):
    try:
        return f"shape={tuple(x.shape)}, dtype={x.dtype}"
    except Exception:  # pragma: no cover
        return "?"


def concrete(x):
    """The concrete value under any number of tracers (eager model)."""
    return x.concrete() if isinstance(x, Tracer) else x


# --------------------------------------------------------------------------
# symbolic zeros


class Zero:
    """A symbolic zero tangent or cotangent of a given shape and dtype.

    Rules never see one: the engine skips the rule of a zero input, and
    ``add_any`` treats it as the identity. Zeros become arrays only at the
    API boundary (``instantiate``).
    """

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = dtype

    @classmethod
    def like(cls, x):
        return cls(x.shape, x.dtype)

    def __repr__(self):
        return f"Zero({self.shape}, {self.dtype})"


def add_any(a, b):
    """Sum of two tangents or cotangents; ``Zero`` and ``None`` are identities."""
    if a is None or type(a) is Zero:
        return b
    if b is None or type(b) is Zero:
        return a
    from . import numpy as xnp
    return xnp.add(a, b)
