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

Inside another transform (``grad(jit(f))``, ``vmap(jit(f))``) the function
runs as it is, traced by that transform, so every composition is the eager
one; ``jit(grad(f))`` stages the whole forward and backward pass into one
Program.
"""
from __future__ import annotations

import collections as _collections
import functools as _functools
import inspect as _inspect
import warnings as _warnings

from .. import core as _core
from . import _replay
from ..program import stage as _stage
from ..tree import flatten as _flatten, unflatten as _unflatten

__all__ = ["jit"]

_SCALARS = (bool, int, float, complex)


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
    nothing (xgrad never writes the caller's arrays).
    """
    if fun is None:
        return _functools.partial(jit, static_argnums=static_argnums,
                                  static_argnames=static_argnames, cache_size=cache_size,
                                  restage_warning=restage_warning)
    if not callable(fun):
        raise TypeError(f"jit: fun must be callable, got {type(fun).__name__}")
    return _Jitted(fun, static_argnums, static_argnames, cache_size, restage_warning)


class _Jitted:
    """The jitted function: call it; ``clear_cache()``; ``cache_info()``."""

    def __init__(self, fun, static_argnums, static_argnames, cache_size, restage_warning):
        if not isinstance(cache_size, int) or cache_size < 1:
            raise ValueError(f"jit: cache_size must be a positive integer, got {cache_size!r}")
        self._fun = fun
        nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
        names = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames)
        try:
            params = list(_inspect.signature(fun).parameters.values())
        except (TypeError, ValueError):
            params = []
        positional = [p.name for p in params
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        # JAX infers each form from the other through the signature
        nums = set(nums) | {positional.index(n) for n in names if n in positional}
        names = set(names) | {positional[i] for i in nums if 0 <= i < len(positional)
                              and params[i].kind != params[i].POSITIONAL_ONLY}
        self._static_nums = frozenset(nums)
        self._static_names = frozenset(names)
        self._cache = _collections.OrderedDict()
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
        self._cache.clear()
        self._restages.clear()

    def cache_info(self):
        """``(signatures, programs)`` currently cached."""
        return len(self._cache), sum(len(v) for v in self._cache.values())

    # ----- calling ------------------------------------------------------

    def __call__(self, *args, **kwargs):
        if _core.active_level():
            # inside a transform (or another jit's staging): run as it is
            return self._fun(*args, **kwargs)
        key, leaves, where = self._signature(args, kwargs)
        progs = self._cache.get(key)
        if progs is not None:
            self._cache.move_to_end(key)
            dyn = [leaves[i] for i in where]
            for k, entry in enumerate(progs):
                try:
                    out = entry.run(dyn)
                except _Restage:
                    continue
                if k:                       # the branch taken now is tried first next time
                    progs.insert(0, progs.pop(k))
                return _unflatten(entry.out_tree, out)
            n = self._restages.get(key, 0) + 1
            self._restages[key] = n
            if n == self._warn_after:
                _warnings.warn(
                    f"jit of {getattr(self._fun, '__name__', 'a function')}: staged again {n} "
                    f"times for one input signature because a value it reads (if/while on a "
                    f"traced value, float(), an index, a value-dependent shape) keeps "
                    f"changing; every call pays for staging. Use xgrad.lax.cond/while_loop "
                    f"or pass that value as a static argument.", RuntimeWarning, stacklevel=2)
        return self._stage(key, args, kwargs, leaves, where)

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
            static.append((i, _hashable(args[i], f"static argument {i}")))
        for n in self._static_names:
            if n in kwargs:
                static.append((n, _hashable(kwargs[n], f"static argument {n!r}")))
        dyn_args = tuple(a for i, a in enumerate(args) if not self._static_at(i, len(args)))
        dyn_kw = {k: v for k, v in kwargs.items() if k not in self._static_names}
        leaves, tree = _flatten((dyn_args, dyn_kw))
        sig, where = [], []
        for i, x in enumerate(leaves):
            t = type(x)
            if t in _SCALARS:
                # repr tells 0.0 from -0.0, and a NaN equals itself
                sig.append((t, repr(x) if t in (float, complex) else x))
            elif hasattr(x, "shape") and hasattr(x, "dtype"):
                sig.append((t, tuple(x.shape), str(x.dtype), _device(x)))
                where.append(i)
            else:
                raise TypeError(
                    f"jit: argument leaf {i} is a {t.__name__}, not an array or a Python "
                    f"scalar: its contents could change between calls unseen. Pass it as a "
                    f"static argument (static_argnums/static_argnames; it must be hashable), "
                    f"or register its class as a pytree (xgrad.tree_util.register_pytree_node)")
        return (tree, tuple(sig), tuple(sorted(static, key=repr)), len(args)), leaves, where

    def _stage(self, key, args, kwargs, leaves, where):
        out_box = []
        tree = key[0]

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

        guards = []
        program, values, trace = _stage(flat, [leaves[i] for i in where], guards=guards)
        self.stagings += 1
        out_tree = out_box[0]
        if not trace.opaque:
            entry = _Entry(_compile(program, guards), out_tree)
            progs = self._cache.setdefault(key, [])
            progs.insert(0, entry)
            del progs[8:]                   # the most recent branches of one signature
            self._cache.move_to_end(key)
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return _unflatten(out_tree, values)


class _Entry:
    __slots__ = ("run", "out_tree")

    def __init__(self, run, out_tree):
        self.run = run
        self.out_tree = out_tree


def _hashable(v, what):
    try:
        hash(v)
    except TypeError:
        raise TypeError(f"jit: {what} must be hashable (it is part of the cache key), got a "
                        f"{type(v).__name__}; pass arrays as non-static arguments, or make "
                        f"it a tuple") from None
    return v


def _device(x):
    if type(x).__module__ == "numpy":
        return None
    return str(getattr(x, "device", None))


# --------------------------------------------------------------------------
# compiling a Program to straight-line Python (the code generator is _replay's)

_same, _cse, _copy_const = _replay._same, _replay._cse, _replay._copy_const


def _compile(program, guards):
    """``run(args) -> outputs`` for ``program``: generated Python that calls
    each live equation's implementation directly (numpy's functions on numpy
    arrays), checks each guard where it was read, and drops each value after
    its last use (``_replay.compile_program``)."""
    return _replay.compile_program(program, guards, _Restage)
