"""The tracing core: primitives, ``bind``, traces and tracers.

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

import copy as _copy
import dis
import linecache
import os
import re
import sys
import threading
from contextlib import contextmanager

from . import backends as _backends
from .backends import (namespace, default_namespace, type_namespaces, flat_view, is_complex,
                       is_inexact, is_lazy, is_lazy_array, look_through)

_ns_get = type_namespaces.get   # tracer types are never in it

__all__ = ["Primitive", "bind", "Trace", "Tracer", "new_main",
           "concrete", "current_trace", "LeakedTracerError", "RULES", "add_any", "active_level"]

RULES: dict[str, "Primitive"] = {}


class Primitive:
    """One operation and its rules (one row of the rule table).

    ``impl(xp, *args, **params)`` runs on backend arrays. ``jvp[i]`` is
    ``(x_dot, ans, *args, **params) -> tangent`` and ``vjp[i]`` is the staged
    ``(ans, *args, **params) -> (g -> cotangent)``; ``None`` means argument
    ``i`` has no derivative. A staged VJP may return ``None`` to say that no
    cotangent flows (e.g. a cast to an integer dtype).

    What the operation is, for the transforms that need to know (they read
    these attributes and never a primitive's name):

    - ``family``: the kind of operation, one of ``rules.FAMILIES``:
      ``"elementwise"`` means each output entry depends only on the same
      entry of each (broadcast) input, so NaN-safe mode may mask its
      derivatives entry by entry and vmap batches it by broadcasting;
      ``"dot"`` is a contraction (matmul), what the checkpoint policy
      ``dots_saveable`` saves; ``"call"`` a call primitive.
    - ``linear``: jointly linear in its differentiable inputs, its
      derivative is the operation itself, so its second derivative vanishes
      (add, sum, reshape, getitem, where, fft, ...).
    - ``bilinear``: linear in each argument separately, not jointly
      (multiply, matmul): its second derivative is the operation applied
      to two tangents.
    - ``multiple_results``: ``impl`` returns a tuple of arrays (eigh, svd,
      ...); ``jvp[i]`` gets the tuple of outputs as ``ans`` and returns one
      tangent per output (None: zero), ``vjp[i]``'s inner function takes
      the tuple of output cotangents (zeros instantiated) and returns the
      input's; the batching rule returns a tuple of batch axes. Under a
      transform ``bind`` returns a sequence.
    - ``jvp_from_rule`` (call primitives): forward-mode derivatives of the
      call come from its custom rule (through ``jvp``), not from inlining
      its function (custom_jvp).
    - ``export``: ``xgrad.numpy`` exports a function of the primitive's
      name that is just the primitive (the array API's unary and binary
      elementwise functions).

    A *call primitive* (``is_call``: custom_vjp, custom_jvp, checkpoint) runs
    a user function; its ``spec`` parameter tells each trace what to do
    (``spec.jvp(trace, primals, tangents)``, ``spec.vjp(trace, primals,
    nodes)``, ``spec.batch(trace, vals, bdims)``) and it returns a list.
    ``several_outputs`` (``is_call or multiple_results``, fixed at
    construction) is the one attribute the traces' hot paths test.
    """

    __slots__ = ("name", "impl", "jvp", "vjp", "batch", "broadcast", "domain",
                 "nondiff", "is_call", "deriv", "jvp_joint", "family", "linear",
                 "bilinear", "multiple_results", "jvp_from_rule", "export",
                 "several_outputs", "vjp_factor", "vjp_kinds", "__weakref__")

    def __init__(self, name, impl, jvp=None, vjp=None, batch=None,
                 broadcast=False, domain=None, nondiff=(), is_call=False, *,
                 family=None, linear=False, bilinear=False, multiple_results=False,
                 jvp_from_rule=False, export=False):
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
        # per-argument ``d(ans, *args)`` (no params) such that the VJP is
        # ``multiply(g, d)``, the same as ``vjp[i]``: reverse mode keeps d
        # itself, no staged closure (set by ``defprim`` for ``deriv`` rows)
        self.vjp_factor = None
        # per argument, how reverse mode applies ``vjp_factor`` (None: no
        # factor): 1 keeps d and multiplies, 2 passes g on (d is the constant
        # 1: add), 3 negates it (d is -1: subtract); set by ``defprim``
        self.vjp_kinds = None
        # optional ``(tangents, ans, *args) -> tangent`` taking every argument's
        # tangent at once (None: zero), used by forward mode when several are
        # live: a concat of n tangents is one concat, not n concats and n-1 adds
        self.jvp_joint = None
        self.family = "call" if family is None and is_call else family
        self.linear = linear
        self.bilinear = bilinear
        self.multiple_results = multiple_results
        self.jvp_from_rule = jvp_from_rule
        self.export = export
        self.several_outputs = is_call or multiple_results

    # ``prim.bind(*args, **params)`` is ``bind(prim, *args, **params)`` (set
    # below to the function itself: one call, not two)

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
    try:
        if params:
            out = prim.impl(xp if xp is not None else default_namespace(), *args, **params)
        else:                           # a call with **{} costs a dict copy
            out = prim.impl(xp if xp is not None else default_namespace(), *args)
    except ValueError as e:             # free unless raised (zero-cost try)
        _raise_if_devices(prim, e)
        raise
    if (c := _checker) is not None:    # one read: another thread may reset it
        c.check(prim, args, out)
    return out


Primitive.bind = bind


def _raise_if_devices(prim, e):
    """The backend's error for arguments on two devices (array_api_strict's
    ValueError names both) as the TypeError xgrad gives for two backends."""
    if "devices" in str(e):
        raise TypeError(f"{prim.name}: the arguments are on two devices ({e}); move them to "
                        f"one device first") from e


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
        xp = namespace(*args)
        if is_lazy(xp):      # dask: a clear error where it can't stay lazy
            out = _backends._dask.run(prim.name, prim.impl, xp, args, params, bool(_state.stack))
        else:
            try:
                out = prim.impl(xp, *args, **params)
            except ValueError as e:
                _raise_if_devices(prim, e)
                raise
        if (c := _checker) is not None:
            c.check(prim, args, out)
        return out
    if not top.alive:
        raise LeakedTracerError(
            f"{prim.name}: an argument is a traced value of a transform that has "
            f"already returned (a leaked tracer). Return values from the "
            f"transformed function instead of storing them outside it.")
    return top.process_primitive(prim, args, params)


# xgrad.debug's NaN checker while at least one thread has checking on (None:
# free). It is one object for all threads and checks only in the threads that
# turned it on (its own per-thread state); read it once per use, as
# ``if (c := _checker) is not None: c.check(...)``: another thread may reset it
# between two reads.
_checker = None


def set_checker(checker):
    """Install ``checker`` (``check(prim, args, out)``, ``site()``,
    ``backward``) for every thread, or remove it with None."""
    global _checker
    _checker = checker


def get_checker():
    return _checker


def checking():
    """Whether the NaN checker checks in this thread (not: in some thread)."""
    c = _checker
    return c is not None and c.active()


class LinearRead(TypeError):
    """A concrete read of a value of a linear map traced to be transposed
    (``transpose_linear``): the map's control flow depends on the point it
    is traced at, so its transpose can't be read off one trace."""

    def __init__(self, trace):
        TypeError.__init__(self, "a linear map being transposed reads the concrete value of "
                                 "its input (Python control flow on a tangent or cotangent)")
        self.trace = trace


class LeakedTracerError(Exception):
    """A tracer escaped the transform that made it, or levels were mixed up."""


# --------------------------------------------------------------------------
# traces and the per-thread stack


class _State(threading.local):
    def __init__(self):
        self.stack = []
        self.remat = 0      # > 0 while a checkpointed function is recomputed
        self.nan_safe = 0   # > 0 while derivatives are recomputed NaN-safely


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


@contextmanager
def nan_safe():
    """Derivatives computed inside are NaN-safe: an exactly zero cotangent or
    tangent entry stays zero through every elementwise rule, even where the
    local derivative is Inf or NaN (``0 * inf`` would be NaN), and an
    all-zero one stays zero through every other rule.

    Why: ``where(x > 0, sqrt(x), 0.)`` at ``x < 0`` and ``x[mask] = v``
    discard a branch whose derivative is Inf or NaN; the discarded branch
    gets a zero cotangent, and ``0 * nan`` would poison the gradient. The
    transforms compute a derivative once the fast way and, only when it
    comes out non-finite, once more in this mode (see ``all_finite``)."""
    _state.nan_safe += 1
    try:
        yield
    finally:
        _state.nan_safe -= 1


def safe_derivatives():
    """Whether derivatives are computed NaN-safely from the start in this
    thread: inside ``nan_safe()``, or while the NaN checker checks here (a
    fast attempt's discarded NaN would trip it)."""
    return _state.nan_safe > 0 or checking()


def again_if_nonfinite(first, derivs, run):
    """``first``, the result of a fast attempt whose derivative outputs are
    ``derivs``; when one of them is non-finite (and the attempt was not
    NaN-safe already), ``run()`` once more in NaN-safe mode, and its result.
    The one place the transforms decide to recompute (see ``nan_safe``)."""
    if safe_derivatives() or all_finite(derivs):
        return first
    with nan_safe():
        return run()


def all_finite(xs):
    """True when no array among ``xs`` (tracers are looked through to the
    values underneath; None is skipped) holds a NaN or
    an Inf. One reduction per array: a vector's dot product with itself (a
    BLAS call on numpy) is finite exactly when every entry is, except for
    entries above ~1e154, where it overflows and says False: then the
    caller recomputes NaN-safely, which gives the same numbers. Lazy
    backends (dask) are not evaluated: they count as finite. A value being
    staged (under ``jit``) is checked by its trace (``check_finite``), so that
    the staged program re-checks it at every replay."""
    for x in xs:
        while isinstance(x, Tracer):
            check = getattr(x._trace, "check_finite", None)
            ok = check(x) if check is not None else None
            if ok is not None:
                if not ok:
                    return False
                break
            x = x.primal
        if isinstance(x, Tracer):
            continue
        if x is None or not hasattr(x, "dtype"):
            continue
        xp = namespace(x)
        kind = _finite_kind(xp, x.dtype)
        if kind is None:
            continue
        v = flat_view(xp, x)
        s = xp.matmul(v, v) if kind == "real" else xp.sum(v)
        if not bool(xp.isfinite(s)):
            return False
    return True


def _finite_kind(xp, dtype):
    if not is_inexact(dtype) or is_lazy(xp):
        return None
    return "complex" if is_complex(dtype) else "real"


def _undead(a):
    while isinstance(a, Tracer) and not a._trace.alive:
        a = a.primal
    return a


_state = _State()
_backends._dask.watch(lambda: bool(_state.stack))    # dask values refuse reads under a transform


def current_trace():
    """The innermost active trace of this thread, or None."""
    stack = _state.stack
    return stack[-1] if stack else None


def active_level():
    """Number of transforms active in this thread (0: plain evaluation)."""
    return len(_state.stack)


def active_traces():
    """The active traces of this thread, outermost first."""
    return tuple(_state.stack)


class Trace:
    """Base class of all transforms. One instance per transform call.

    ``level`` is the position in this thread's stack (1 = outermost);
    ``alive`` turns False when the transform call returns, so a leaked tracer
    fails loudly instead of giving a wrong number.
    """

    __slots__ = ("level", "alive", "linear")

    def __init__(self, level):
        self.level = level
        self.alive = True
        # set while a linear map is traced at an arbitrary point to be
        # transposed: a concrete read of its values would bake in a branch
        # taken at that point only (LinearRead)
        self.linear = False

    def process_primitive(self, prim, args, params):  # pragma: no cover
        raise NotImplementedError

    # The dispatchers of ``xgrad.numpy`` (elementwise functions and operators)
    # call these two for a primitive without params when a tracer of this
    # (live) trace is the top-level argument: ``x`` for ``process_unary``;
    # for ``process_binary`` at least one of ``x``, ``y`` (the other one is a
    # tracer of this trace, a plain array or a Python scalar). A trace with a
    # faster path for them overrides them (reverse mode).
    def process_unary(self, prim, x):
        return self.process_primitive(prim, (x,), {})

    def process_binary(self, prim, x, y):
        return self.process_primitive(prim, (x, y), {})

    def lower(self, args, prim):
        """Split the arguments of ``prim``: ``(values, per-trace data, traced)``
        where tracers of this trace give their value and data (tangent, batch
        axis, ...), everything else (constants, tracers of outer transforms)
        gives itself and None."""
        vals = []
        data = []
        traced = False
        for a in args:
            if isinstance(a, Tracer):
                if a._trace is self:
                    vals.append(a.primal)
                    data.append(a._data)
                    traced = True
                    continue
                self.check_lower(a._trace, prim)
            vals.append(a)
            data.append(None)
        return vals, data, traced

    def const(self, x):
        """``x`` as a constant of this trace (a tracer with no derivative), or
        ``x`` itself where the trace has no such thing."""
        return x

    def const_like(self, x, plain):
        """A constant of this trace shaped like its tracer ``x``, made by
        ``plain(value) -> array`` (``zeros_like`` of a traced value: writes
        into it are then recorded). vmap overrides it: its constant is
        batched like ``x``."""
        return self.const(plain(x))

    def before_update(self):
        """Called before ``x[idx] = v`` rebinds a tracer ``x`` of this trace
        in place (a functional update); a trace that can't follow such an
        update raises. vjp overrides it (a checkpointed function's forward
        run)."""

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

    __slots__ = ("_trace", "primal", "_data")
    __array_ufunc__ = None      # numpy defers to our reflected operators
    __array_priority__ = 1e6

    # each transform's tracer class names the slot for what it holds
    # (``JVPTracer.tangent = Tracer.data_slot``): one descriptor, one slot
    data_slot = None          # set below, once the class exists

    def __init__(self, trace, primal, data):
        self._trace = trace
        self.primal = primal
        self._data = data

    # ---- eager model: concrete values where they exist --------------------
    def concrete(self):
        if self._trace.linear:
            raise LinearRead(self._trace)
        v = concrete(self.primal)
        if is_lazy_array(v):
            raise _backends._dask.no_value(v, "reading its concrete value")
        return v

    def __bool__(self):
        _refuse_lazy(self, "bool() (an if or while on a traced value)")
        return bool(self.concrete())

    def __float__(self):
        _refuse_plain_write(self)
        _refuse_lazy(self, "float()")
        return float(self.concrete())

    def __int__(self):
        _refuse_lazy(self, "int()")
        return int(self.concrete())

    def __complex__(self):
        _refuse_plain_write(self)
        _refuse_lazy(self, "complex()")
        return complex(self.concrete())

    def __index__(self):
        _refuse_lazy(self, "an index (__index__)")
        return self.concrete().__index__()

    def __array__(self, dtype=None, copy=None):
        _refuse_plain_write(self)
        hint = ("" if _backends.is_inexact(self.dtype) else
                " To index a numpy array `a` with it (a per-example index under "
                "vmap), index the namespace's array instead: xgrad.numpy.asarray(a)[i].")
        raise TypeError(
            f"a traced value ({_describe(self)}) can't be converted to a "
            f"numpy array: the derivative would be lost silently. Use "
            f"xgrad.numpy functions on it, or xgrad.stop_gradient(x) and "
            f"x.concrete() if you really want the value as a constant.{hint}")

    def __repr__(self):
        try:
            val = repr(peek(self))
        except TypeError:          # no single concrete value (batched under vmap)
            val = repr(self.primal)
        return f"{type(self).__name__}<{_describe(self)}>({val})"

    def __hash__(self):
        raise TypeError("traced values are unhashable (like arrays)")

    # ---- copy and pickle -------------------------------------------------
    # A copy is a tracer of the same (live) trace with the same data (tape
    # node, tangent, batch axis), so the derivative flows through it. It is a
    # new object: ``x[i] = v`` rebinds a tracer in place, and must not change
    # its copies. The default deepcopy would copy the trace too: a second,
    # unregistered trace that every later operation rejects as leaked.
    def __copy__(self):
        new = object.__new__(type(self))
        new._trace, new.primal, new._data = self._trace, self.primal, self._data
        return new

    def __deepcopy__(self, memo):
        new = object.__new__(type(self))
        memo[id(self)] = new
        # the primal may be an inner tracer (copied the same way) or an array
        # (a fresh one); the data is kept: a node index, or a tangent that is
        # immutable in this model (and may be a tracer of an outer trace)
        new._trace, new.primal, new._data = self._trace, _copy.deepcopy(self.primal, memo), self._data
        return new

    def __reduce_ex__(self, protocol):
        raise TypeError(
            f"a traced value ({_describe(self)}) can't be pickled: it stands for a "
            f"value of a running transform, and its derivative can't be saved. Pickle "
            f"a concrete value instead: use xgrad.stop_gradient(x) / its concrete "
            f"value x.concrete(), or pickle the transform's result after it returns.")

    def __reduce__(self):
        return self.__reduce_ex__(2)


Tracer.data_slot = Tracer.__dict__["_data"]
look_through(Tracer)     # backends.backend_of sees through tracers to their values


_STORE_SUBSCR = dis.opmap["STORE_SUBSCR"]
_HERE = os.path.dirname(os.path.abspath(__file__))


def _refuse_plain_write(x):
    """Raise if ``x`` is being written into a plain (non-traced) array.

    ``w = numpy.zeros(3); w[i] = traced`` makes numpy call ``float(traced)``
    (or ``__array__``) from inside its ``__setitem__``: the buffer would hold
    a constant and the derivative would be lost silently. The caller's frame
    shows it: it is executing ``STORE_SUBSCR`` (frames of the array
    library's own Python ``__setitem__``, as array_api_strict's, are looked
    through; a frame of xgrad's ends the search: a functional update of a
    traced value is xgrad's own). Integer and boolean values carry no
    derivative and are let through."""
    try:
        if not is_inexact(x.dtype):
            return
    except Exception:     # pragma: no cover
        return
    f = sys._getframe(2)
    for _ in range(12):
        if f is None:
            return
        code = f.f_code
        if code.co_filename.startswith(_HERE):
            return
        lasti = f.f_lasti
        if 0 <= lasti < len(code.co_code) and code.co_code[lasti] == _STORE_SUBSCR:
            break
        f = f.f_back
    else:
        return
    line = linecache.getline(code.co_filename, f.f_lineno).strip()
    m = re.match(r"([\w.]+)\s*\[", line)
    name = f"the plain array {m.group(1)!r}" if m else "a plain array"
    raise TypeError(
        f"`{line}` ({code.co_filename}:{f.f_lineno}) writes a traced value "
        f"({_describe(x)}) into {name}, which would store a constant and drop "
        f"the derivative silently. Make the buffer a traced value: create it "
        f"from a traced array (w = xgrad.numpy.zeros_like(x), or ones_like, "
        f"full_like, empty_like, with x traced: writes into it are recorded), "
        f"or collect the entries in a list and join them with "
        f"xgrad.numpy.stack / xgrad.numpy.concat.")


def _refuse_lazy(x, what):
    """Raise if the value under the tracer ``x`` is lazy (dask): reading it
    would compute it behind the user's back."""
    while isinstance(x, Tracer):
        x = x.primal
    if is_lazy_array(x):
        raise _backends._dask.no_value(x, what)


def _describe(x):
    try:
        return f"shape={tuple(x.shape)}, dtype={x.dtype}"
    except Exception:  # pragma: no cover
        return "?"


def concrete(x):
    """The concrete value under any number of tracers (eager model). A
    decision taken on it is one the computation depends on: under ``jit`` it
    becomes a guard of the staged program."""
    return x.concrete() if isinstance(x, Tracer) else x


def peek(x):
    """The value under any number of tracers, for looking only (a repr, the
    device): no guard under ``jit``. Raises TypeError where the value
    differs per example (vmap)."""
    while isinstance(x, Tracer):
        if type(x).concrete is not Tracer.concrete and not hasattr(x._trace, "guards"):
            return x.concrete()        # a trace with its own rule (vmap refuses)
        x = x.primal
    return x


def add_any(a, b):
    """Sum of two tangents or cotangents; ``None`` (a zero) is the identity."""
    if a is None:
        return b
    if b is None:
        return a
    return bind(RULES["add"], a, b)
