"""``jit``: stage a function once per input signature into a ``Program``
and replay it: no Python body, no dispatch, no tape building.

The first call with a signature (the pytree structure of the arguments, the
shape, dtype and backend of each array, the values of the static arguments
and of Python scalars) runs ``fun`` under a ``StageTrace`` that records
every primitive, as xgrad's eager model always can (every staged value is
concrete). What comes out is a ``Program``; it is compiled to straight-line
Python (one call of each primitive's backend implementation per equation,
``del`` after a value's last use) and cached. Later calls with the same
signature run that code.

Guards, not stale branches: where the staged run read a concrete value
(``if x > 0:``, ``float(x)``, an index, a value-dependent shape, the
transforms' choice of a NaN-safe derivative), the Program holds only for
that value. Each such read is a guard: the replay checks it where it
happened (one comparison) and, when it differs, stages again for the new
value. A signature keeps its most recent Programs (one per branch taken) and
tries them in turn; after ``restage_warning`` re-stagings of one signature
a warning says the function is value-dependent.

Side effects of the Python body (``print``, appending to a list) happen when
it is staged, not at replays (as in JAX). Python scalars among the
arguments are static (part of the signature): pass an array for a value that
changes from call to call.

Inside another transform (``grad(jit(f))``, ``jvp(jit(f))``) the Program
staged for the values under the tracers (checked against its guards) is
evaluated by binding each equation, so the transform differentiates the
Program, not the Python body; where those values differ per example
(``vmap(jit(f))``) or another jit is staging (its guards need the reads),
the function runs as it is. ``jit(grad(f))`` stages the whole forward and
backward pass into one Program.
"""
from __future__ import annotations

import collections as _collections
import functools as _functools
import inspect as _inspect
import operator as _operator
import threading as _threading
import warnings as _warnings

import numpy as _np

from .. import core as _core
from . import _replay
from ..backends import backend_of as _backend_of
from ..program import (Program as _Program, StageTrace as _StageTrace, eval_program as _eval_program,
                       stage as _stage)
from ..tree import flatten as _flatten, unflatten as _unflatten

__all__ = ["jit"]

_SCALARS = (bool, int, float, complex)
_ndarray = _np.ndarray


class _Restage(Exception):
    """A guard of a replayed Program failed."""


def jit(fun=None, *, static_argnums=(), static_argnames=(), donate_argnums=(),
        donate_argnames=(), keep_unused=False, device=None, backend=None, inline=False,
        cache_size=64, restage_warning=8):
    """``fun`` staged once per input signature and replayed (see the module
    docstring).

    Args:
      fun: the function; ``jit(static_argnums=...)`` without it returns a
        decorator.
      static_argnums, static_argnames: arguments that are part of the
        signature instead of being staged (hashable values: shapes, flags,
        functions); a new value stages again.
      cache_size: how many signatures to keep (least recently used first out).
      restage_warning: re-stagings of one signature after which a warning
        says the function's staged program depends on its values.

    ``donate_argnums``, ``donate_argnames``, ``keep_unused``, ``device``,
    ``backend`` and ``inline`` are accepted for JAX compatibility and do
    nothing (xgrad never writes the caller's arrays). As JAX does, the
    argument numbers and names are checked against ``fun``'s signature (a
    number past its positional parameters, a name it does not take, a
    static argument also donated: ValueError; not an int or a str:
    TypeError).
    """
    if fun is None:
        return _functools.partial(jit, static_argnums=static_argnums,
                                  static_argnames=static_argnames,
                                  donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                                  cache_size=cache_size, restage_warning=restage_warning)
    if not callable(fun):
        raise TypeError(f"jit: fun must be callable, got {type(fun).__name__}")
    return _Jitted(fun, static_argnums, static_argnames, cache_size, restage_warning,
                   donate_argnums, donate_argnames)


class _Jitted:
    """The jitted function: call it; ``clear_cache()``; ``cache_info()``."""

    def __init__(self, fun, static_argnums, static_argnames, cache_size, restage_warning,
                 donate_argnums=(), donate_argnames=()):
        if not isinstance(cache_size, int) or cache_size < 1:
            raise ValueError(f"jit: cache_size must be a positive integer, got {cache_size!r}")
        self._fun = fun
        try:
            params = list(_inspect.signature(fun).parameters.values())
        except (TypeError, ValueError):
            params = None                   # a builtin, say: nothing to check against
        nums, names = _argnums_and_names(fun, params, static_argnums, static_argnames, "static")
        donated = _argnums_and_names(fun, params, donate_argnums, donate_argnames, "donate")
        both = names & donated[1]
        if both:
            raise ValueError(f"jit: static_argnames and donate_argnames cannot intersect: "
                             f"argument names {sorted(both)} appear in both (static_argnums "
                             f"and donate_argnums count as their names)")
        both = nums & donated[0]
        if both:
            raise ValueError(f"jit: static_argnums and donate_argnums cannot intersect: "
                             f"{sorted(both)} appear in both")
        self._static_nums = frozenset(nums)
        self._static_names = frozenset(names)
        self._cache = _collections.OrderedDict()
        # the cache's bookkeeping (look-up, order, insertion, eviction) is
        # done under this lock; replays and stagings run outside it, so that
        # threads replay at once
        self._lock = _threading.Lock()
        self._size = cache_size
        self._warn_after = restage_warning
        self._restages = {}
        self.stagings = 0            # how many times fun was staged (tests, diagnostics)
        # the name and docstring only: copying fun.__dict__ would copy another
        # jit's state (functools.wraps of a jitted function carries it along)
        _functools.update_wrapper(self, fun, updated=())

    def __repr__(self):
        return f"<jit of {getattr(self._fun, '__name__', self._fun)!r}>"

    def clear_cache(self):
        with self._lock:
            self._cache.clear()
            self._restages.clear()

    def cache_info(self):
        """``(signatures, programs)`` currently cached."""
        with self._lock:
            return len(self._cache), sum(len(v) for v in self._cache.values())

    def lower(self, *args, **kwargs):
        """The ``Program`` a call with these arguments runs, guards included
        (``str()`` or ``.as_text()`` lists it), like JAX's ``jit(f).lower``:
        staged now for the listing, not cached and not compiled (the cached
        code is this Program after common-subexpression and dead-code
        elimination). ``xgrad.make_program`` is the same for any function."""
        key, leaves, where = self._signature(args, kwargs)
        flat = self._flat_fun(key[0], args, kwargs, leaves, where, [])
        guards = []
        # closed-over arrays are copied now, as a jit replay's constants are
        program, _, _ = _stage(flat, [leaves[i] for i in where], guards=guards,
                               const=_OwnConstants())
        return _LoweredProgram(program.in_vars, program.eqns, program.outs, guards)

    # ----- calling ------------------------------------------------------

    def __call__(self, *args, **kwargs):
        if _core.active_level():
            return self._traced_call(args, kwargs)
        key, leaves, where = self._signature(args, kwargs)
        progs = self._lookup(key)
        if progs is not None:
            dyn = [leaves[i] for i in where]
            for k, entry in enumerate(progs):
                try:
                    out = entry.run(dyn)
                except _Restage:
                    continue
                if k:
                    self._first(key, entry)
                return _unflatten(entry.out_tree, out)
            self._count_restage(key)
        return self._stage(key, args, kwargs, leaves, where)

    def _lookup(self, key):
        """A snapshot of the Programs cached for ``key`` (most recently
        used first), None if none; ``key`` becomes the most recently used."""
        with self._lock:
            progs = self._cache.get(key)
            if progs is None:
                return None
            self._cache.move_to_end(key)
            return list(progs)

    def _first(self, key, entry):
        """The branch taken now is tried first next time."""
        with self._lock:
            progs = self._cache.get(key)
            if progs is not None and entry in progs:
                progs.remove(entry)
                progs.insert(0, entry)

    def _traced_call(self, args, kwargs):
        """A call inside another transform: the Program for the values under
        the tracers, evaluated on the tracers (see the module docstring)."""
        if any(isinstance(t, _StageTrace) for t in _core.active_traces()):
            return self._fun(*args, **kwargs)
        n = len(args)
        try:
            plain = tuple(a if self._static_at(i, n) else _peek_tree(a)
                          for i, a in enumerate(args))
            plain_kw = {k: v if k in self._static_names else _peek_tree(v)
                        for k, v in kwargs.items()}
        except TypeError:               # a value that differs per example (vmap)
            return self._fun(*args, **kwargs)
        key, leaves, where = self._signature(plain, plain_kw)
        dyn = [leaves[i] for i in where]
        entry = None
        progs = self._lookup(key)
        for k, e in enumerate(progs or ()):
            if e.guards:
                try:
                    e.run(dyn)              # checks the guards on the values
                except _Restage:
                    continue
            entry = e
            if k:
                self._first(key, e)
            break
        if entry is None:
            if progs is not None:
                self._count_restage(key)
            entry = self._stage_entry(key, plain, plain_kw, leaves, where)[0]
            if entry is None:           # not cacheable (closes over a tracer, say)
                return self._fun(*args, **kwargs)
        t_leaves = _flatten((tuple(a for i, a in enumerate(args) if not self._static_at(i, n)),
                             {k: v for k, v in kwargs.items() if k not in self._static_names}))[0]
        out = _eval_program(entry.pruned(), [t_leaves[i] for i in where])
        return _unflatten(entry.out_tree, out)

    def _count_restage(self, key):
        with self._lock:
            n = self._restages.get(key, 0) + 1
            self._restages[key] = n
        if n == self._warn_after:
            _warnings.warn(
                f"jit of {getattr(self._fun, '__name__', 'a function')}: staged again {n} "
                f"times for one input signature because a value it reads (if/while on a "
                f"traced value, float(), an index, a value-dependent shape) keeps "
                f"changing; every call pays for staging. Use xgrad.lax.cond/while_loop "
                f"or pass that value as a static argument.", RuntimeWarning, stacklevel=3)

    def _static_at(self, i, n):
        """Whether positional argument ``i`` of ``n`` is static (``static_argnums``
        may count from the end)."""
        return i in self._static_nums or i - n in self._static_nums

    def _signature(self, args, kwargs):
        """``(key, leaves, where)``: the cache key, the leaves of the
        non-static arguments, and the positions of the array leaves among
        them (the staged inputs)."""
        static = []
        for i in self._static_nums:
            if i >= len(args) or i < -len(args):
                continue
            static.append((i, _static_key(args[i], f"static argument {i}")))
        for n in self._static_names:
            if n in kwargs:
                static.append((n, _static_key(kwargs[n], f"static argument {n!r}")))
        dyn_args = tuple(a for i, a in enumerate(args) if not self._static_at(i, len(args)))
        dyn_kw = {k: v for k, v in kwargs.items() if k not in self._static_names}
        leaves, tree = _flatten((dyn_args, dyn_kw))
        sig, where = [], []
        for i, x in enumerate(leaves):
            t = type(x)
            if t in _SCALARS:
                # repr tells 0.0 from -0.0, and a NaN equals itself
                sig.append((t, repr(x) if t in (float, complex) else x))
            elif t is _ndarray:                          # the common case, cheaply
                sig.append((t, x.shape, x.dtype))
                where.append(i)
            elif hasattr(x, "shape") and hasattr(x, "dtype"):
                # the dtype object itself: its str() costs microseconds
                sig.append((t, tuple(x.shape), x.dtype, _device(x)))
                where.append(i)
            else:
                raise TypeError(
                    f"jit: argument leaf {i} is a {t.__name__}, not an array or a Python "
                    f"scalar: its contents could change between calls unseen. Pass it as a "
                    f"static argument (static_argnums/static_argnames; it must be hashable), "
                    f"or register its class as a pytree (xgrad.tree_util.register_pytree_node)")
        return (tree, tuple(sig), tuple(sorted(static, key=repr)), len(args)), leaves, where

    def _flat_fun(self, tree, args, kwargs, leaves, where, out_box):
        """``fun`` as a function of the staged leaves (the array leaves at
        ``where`` among the non-static arguments' ``leaves``, pytree
        ``tree``) returning its output leaves; their structure goes into
        ``out_box``."""
        def flat(*staged):
            full = list(leaves)
            for i, t in zip(where, staged):
                full[i] = t
            dyn_args, dyn_kw = _unflatten(tree, full)
            it = iter(dyn_args)
            call = [a if self._static_at(i, len(args)) else next(it) for i, a in enumerate(args)]
            kw = {k: (v if k in self._static_names else dyn_kw[k]) for k, v in kwargs.items()}
            out_leaves, out_tree = _flatten(self._fun(*call, **kw))
            for k, o in enumerate(out_leaves):
                if not (type(o) in _SCALARS or isinstance(o, _core.Tracer)
                        or hasattr(o, "shape") and hasattr(o, "dtype")):
                    raise TypeError(
                        f"jit: output leaf {k} is a {type(o).__name__}, not an array or a "
                        f"Python scalar; return arrays, or register its class as a pytree "
                        f"(xgrad.tree_util.register_pytree_node)")
            out_box.append(out_tree)
            return out_leaves
        return flat

    def _stage(self, key, args, kwargs, leaves, where):
        entry, out_tree, values = self._stage_entry(key, args, kwargs, leaves, where)
        return _unflatten(out_tree, values)

    def _stage_entry(self, key, args, kwargs, leaves, where):
        """Stage ``fun`` for the signature ``key`` and cache the Program;
        returns ``(entry, out_tree, values)``, entry None when the Program
        can't be replayed (a call closes over a staged value, or the
        function closes over an outer transform's tracer)."""
        out_box = []
        flat = self._flat_fun(key[0], args, kwargs, leaves, where, out_box)
        guards = []
        program, values, trace = _stage(flat, [leaves[i] for i in where], guards=guards,
                                        const=_OwnConstants())
        with self._lock:
            self.stagings += 1
        out_tree = out_box[0]
        # the caller may write each output: none is its argument, a closed-over
        # array, another output or a view (as a replay's)
        values = _replay.own_outputs(values, program.outs, leaves)
        entry = None
        if not trace.opaque and not _closes_over_tracers(program):
            entry = _Entry(_compile(program, guards), out_tree, program, bool(guards))
            with self._lock:
                progs = self._cache.setdefault(key, [])
                progs.insert(0, entry)
                del progs[8:]               # the most recent branches of one signature
                self._cache.move_to_end(key)
                while len(self._cache) > self._size:
                    self._cache.popitem(last=False)
        return entry, out_tree, values


class _LoweredProgram(_Program):
    """What ``lower`` (and ``make_program``) returns: called, each output is
    a buffer of its own (never an argument, a constant of the Program,
    another output or a view), as a jit call's."""

    def __call__(self, *args):
        return _replay.own_outputs(_eval_program(self, args), self.outs, args)


class _Entry:
    """A cached Program: ``run`` (compiled), ``out_tree``, ``guards``
    (whether it has any), and the Program for evaluation under transforms."""

    __slots__ = ("run", "out_tree", "program", "guards", "_pruned")

    def __init__(self, run, out_tree, program, guards):
        self.run = run
        self.out_tree = out_tree
        self.program = program
        self.guards = guards
        self._pruned = None

    def pruned(self):
        if self._pruned is None:
            self._pruned = self.program.prune()
        return self._pruned


def _closes_over_tracers(program):
    """Whether an equation or an output uses an outer transform's tracer
    (the function closed over it): the Program then holds for that tracer only."""
    return (any(isinstance(x, _core.Tracer) for e in program.eqns for x in e.ins)
            or any(isinstance(o, _core.Tracer) for o in program.outs))


def _same_layout_copy(x):
    """A read-only copy of the numpy array ``x`` with ``x``'s strides (zero
    strides of a broadcast included): numpy and BLAS pick their kernels, and
    so the order of a sum, by the strides, and a replay must round as the
    staged call did."""
    item = x.itemsize
    lo = sum(min(0, (n - 1) * s) for n, s in zip(x.shape, x.strides))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(x.shape, x.strides))
    if x.size == 0 or lo % item or hi % item:
        c = x.copy(order="K")
    else:
        buf = _np.empty((hi - lo) // item + 1, dtype=x.dtype)
        c = _np.lib.stride_tricks.as_strided(buf[-lo // item:], x.shape, x.strides)
        c[...] = x
    c.flags.writeable = False
    return c


def _peek_tree(x):
    """``x`` with each traced leaf replaced by the value under it (no guard);
    TypeError where it differs per example."""
    leaves, tree = _flatten(x)
    if not any(isinstance(v, _core.Tracer) for v in leaves):
        return x
    return _unflatten(tree, [_core.peek(v) if isinstance(v, _core.Tracer) else v
                             for v in leaves])


def _argnums_and_names(fun, params, argnums, argnames, kind):
    """``({kind}_argnums, {kind}_argnames)`` as sets, checked against
    ``fun``'s parameters ``params`` (None: unknown) and each completed from
    the other through them, as JAX does."""
    what_n, what_s = f"{kind}_argnums", f"{kind}_argnames"
    if argnums is None:
        argnums = ()
    nums = (argnums,) if not isinstance(argnums, (tuple, list)) else tuple(argnums)
    for i in nums:
        if isinstance(i, bool) or not isinstance(i, int):
            try:
                _operator.index(i)
            except TypeError:
                raise TypeError(f"jit: {what_n} must be an int or a sequence of ints, got "
                                f"{argnums!r}") from None
    nums = tuple(_operator.index(i) for i in nums)
    if argnames is None:
        argnames = ()
    names = (argnames,) if isinstance(argnames, str) else argnames
    try:
        names = tuple(names)
    except TypeError:
        raise TypeError(f"jit: {what_s} must be a str or a sequence of str, got "
                        f"{argnames!r}") from None
    for n in names:
        if not isinstance(n, str):
            raise TypeError(f"jit: {what_s} must be a str or a sequence of str, got "
                            f"{argnames!r}")
    if params is None:
        return set(nums), set(names)
    fname = getattr(fun, "__name__", "the function")
    kinds = _inspect.Parameter
    positional = [p for p in params if p.kind in (kinds.POSITIONAL_ONLY,
                                                  kinds.POSITIONAL_OR_KEYWORD)]
    n = len(positional)
    if nums and not any(p.kind == kinds.VAR_POSITIONAL for p in params):
        bad = [i for i in nums if not -n <= i < n]
        if bad:
            raise ValueError(
                f"jit: {what_n}={nums}, but {fname} accepts only {n} positional "
                f"argument{'s' if n != 1 else ''} (valid: {-n} to {n - 1}); "
                f"{bad} {'is' if len(bad) == 1 else 'are'} out of range")
    pos_only = {p.name for p in params if p.kind == kinds.POSITIONAL_ONLY}
    bad = sorted(pos_only & set(names))
    if bad:
        raise ValueError(f"jit: {what_s} names {bad}, positional-only parameter(s) of {fname}; "
                         f"give {what_n} instead")
    if not any(p.kind == kinds.VAR_KEYWORD for p in params):
        valid = {p.name for p in params if p.kind in (kinds.POSITIONAL_OR_KEYWORD,
                                                      kinds.KEYWORD_ONLY)}
        bad = sorted(set(names) - valid)
        if bad:
            raise ValueError(f"jit: {what_s} names {bad}, which {fname} does not take "
                             f"(its parameters: {[p.name for p in params]})")
    # JAX infers each form from the other through the signature
    index = {p.name: i for i, p in enumerate(positional)}
    all_nums = set(nums) | {index[s] for s in names if s in index}
    all_names = set(names) | {positional[i].name for i in nums if 0 <= i < n
                              and positional[i].kind != kinds.POSITIONAL_ONLY}
    return all_nums, all_names


def _static_key(v, what):
    """A static argument's part of the cache key: its type and value (1 and
    1.0 give different dtypes), a float by its repr (0.0 is not -0.0, and a
    NaN equals itself)."""
    try:
        hash(v)
    except TypeError:
        raise TypeError(f"jit: {what} must be hashable (it is part of the cache key), got a "
                        f"{type(v).__name__}; pass arrays as non-static arguments, or make "
                        f"it a tuple") from None
    return (type(v), repr(v) if type(v) in (float, complex) else v)


class _OwnConstants:
    """``const=`` of the staging: each array an equation keeps as a constant
    (one the function closed over, or computed from such; an operand, or an
    index array among its parameters) is a copy taken when it is used, so
    that the Program is what the staged call computed even if the array is
    written later, during the call or after it (as JAX fixes constants when
    it traces). A numpy array whose bytes have not
    changed since its last copy shares that copy."""

    def __init__(self):
        self.copies = {}

    def __call__(self, x):
        if (isinstance(x, (_core.Tracer, _np.generic))       # numpy's scalars are immutable
                or not (hasattr(x, "shape") and hasattr(x, "dtype"))):
            return x
        if type(x) is _ndarray:
            prev = self.copies.get(id(x))
            if (prev is not None and prev[0] is x and prev[1].dtype == x.dtype
                    and prev[1].shape == x.shape and prev[1].tobytes() == x.tobytes()):
                return prev[1]
            c = _same_layout_copy(x)
            self.copies[id(x)] = (x, c)
            return c
        return _backend_of(x).asarray(x, copy=True)


def _device(x):
    if type(x).__module__ == "numpy":
        return None
    return str(getattr(x, "device", None))


# --------------------------------------------------------------------------
# compiling a Program to straight-line Python (the code generator is _replay's)

def _compile(program, guards):
    """``run(args) -> outputs`` for ``program``: generated Python that calls
    each live equation's implementation directly (numpy's functions on numpy
    arrays), checks each guard where it was read, and drops each value after
    its last use (``_replay.compile_program``)."""
    return _replay.compile_program(program, guards, _Restage)
