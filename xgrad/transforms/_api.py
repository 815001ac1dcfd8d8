"""Helpers shared by the transforms at the API boundary: argument checks,
turning Python scalars into arrays, lowering outputs out of a finished trace,
and turning zeros (None) into arrays."""
from __future__ import annotations

import os
import warnings

from ..core import Tracer, all_finite, current_trace
from ..backends import (SCALAR_TYPES, backend_of, default_namespace, is_inexact, is_complex,
                        namespace, to_array)
from .. import numpy as xnp
from .. import tree as _tree


def as_primal(x, fname, where):
    """A primal leaf as an array (Python scalars -> 0-d default-dtype arrays)."""
    if isinstance(x, Tracer):
        return x
    if type(x) in SCALAR_TYPES:
        return default_namespace().asarray(x)
    try:
        backend_of(x)
    except TypeError:
        raise TypeError(f"{fname}: {where} is a {type(x).__name__}; expected an "
                        f"array, a Python scalar, or a pytree of those") from None
    x = to_array(x)
    try:
        is_inexact(x.dtype)
    except TypeError:       # np.longdouble, structured dtypes, ...
        raise TypeError(f"{fname}: {where} has dtype {x.dtype}, which xgrad does not support "
                        f"(bool, integers, float16/32/64, complex64/128); convert it first, "
                        f"e.g. with .astype(float64)") from None
    return x


def nan_safe_result(prim, t, c):
    """``c``, what ``prim``'s JVP or VJP rule made of the tangent or
    cotangent ``t``, in NaN-safe mode (``core.nan_safe``): an elementwise
    primitive's result is zero wherever ``t`` is exactly zero (even where
    the local derivative is Inf or NaN: ``0 * inf`` must not leak from a
    discarded entry), and an all-zero ``t`` gives zero through any rule.
    A finite ``c`` is returned as it is (one reduction)."""
    if c is None or all_finite((c,)):
        return c
    zero = t == 0
    if prim is not None and prim.family == "elementwise":
        return xnp.where(zero, 0.0, c)
    try:
        all_zero = bool(xnp.all(zero))
    except TypeError:        # no concrete value (under vmap, or staged by linearize)
        return c
    return xnp._zeros_like(c) if all_zero else c


def fresh(x):
    """``x`` as a value that user code may write into: a plain array is
    copied (it may be the caller's buffer, or a value xgrad keeps for a
    backward pass); traced values pass, their writes are functional.

    Transforms hand every value they pass to user code (checkpointed and
    custom functions, custom rules, stop_gradient, vmap's unmapped
    arguments, hooks) through here, so ``x[0] = 0.0`` in user code never
    writes the caller's arrays: JAX gets that from immutable arrays."""
    if isinstance(x, Tracer) or not (hasattr(x, "shape") and hasattr(x, "dtype")):
        return x
    if callable(getattr(x, "copy", None)):     # numpy, cupy: keeps subclasses
        return x.copy()
    try:
        return backend_of(x).asarray(x, copy=True)
    except TypeError:          # not an array of a known backend: leave it
        return x


def frozen(x):
    """``x`` as user code may see it when no transform traces it (an
    argument that is not differentiated, an integer primal): a read-only
    view of a numpy array (free; a write raises, as a write into a JAX array
    does), a copy (``fresh``) of another backend's array; traced values,
    Python scalars and read-only arrays pass.

    The transforms that hand such values to user code without copying them
    (grad, jvp, vjp, the Jacobians; vmap and jit copy) go through here, so
    user code, or a ``lax.scan`` body writing into its slice, can never
    write the caller's array."""
    if isinstance(x, Tracer) or not hasattr(x, "shape"):
        return x
    flags = getattr(x, "flags", None)
    writeable = getattr(flags, "writeable", None)
    if writeable is None:
        return fresh(x)
    if not writeable:
        return x
    v = x.view()
    v.flags.writeable = False
    return v


def frozen_args(args, nums, kwargs):
    """``(args, kwargs, copied)``: the arguments not in ``nums`` (and every
    keyword argument) through ``frozen``, as user code gets them when they
    are not differentiated; ``copied`` says whether one is a copy (a backend
    without read-only arrays), which a run of user code may write: each
    run then needs its own."""
    seen = []

    def froze(a):
        f = frozen(a)
        if f is not a and getattr(getattr(f, "flags", None), "writeable", None) is None:
            seen.append(True)
        return f
    args = [a if i in nums else _tree.map(froze, a) for i, a in enumerate(args)]
    kwargs = _tree.map(froze, kwargs) if kwargs else kwargs
    return args, kwargs, bool(seen)


def fresh_once(copies, a):
    """The copy of the plain array ``a`` in ``copies`` (``id -> (array,
    copy)``, made on first use), for a derivative function that outlives
    its call and so must own what it keeps; a tracer or a Python scalar is
    returned as it is."""
    if isinstance(a, Tracer) or not hasattr(a, "shape"):
        return a
    hit = copies.get(id(a))
    if hit is None:
        hit = copies[id(a)] = (a, fresh(a))
    return hit[1]


def _root(a):
    """The array that owns ``a``'s memory: the end of its ``.base`` chain
    (numpy, cupy: a view's base); ``a`` itself elsewhere."""
    b = getattr(a, "base", None)
    while b is not None:
        a, b = b, getattr(b, "base", None)
    return a


def owned(outs, given):
    """``outs`` (a flat list) with each plain array a buffer of its own: one
    that is (or is a view of) an array in ``given`` (the caller's:
    arguments, tangents, cotangents, or views of theirs) or shares its
    memory with an earlier output is copied, so the caller may write any
    output without changing another or an input. An identity function, a
    view (``x[1:]``), a value passed through or two outputs made of one
    buffer are what copies; computed results pass as they are. The test is
    a few attribute reads (the ``.base`` chain; identity on backends
    without one)."""
    seen = {id(_root(g)) for g in given if hasattr(g, "shape") and not isinstance(g, Tracer)}
    res = []
    for o in outs:
        if isinstance(o, Tracer) or not hasattr(o, "shape"):
            res.append(o)
            continue
        r = id(_root(o))
        if r in seen:
            o = fresh(o)
            r = id(o)
        seen.add(r)
        res.append(o)
    return res


def owned_tree(tree, given):
    flat, t = _tree.flatten(tree)
    return _tree.unflatten(t, owned(flat, given))


def fresh_tree(tree):
    return _tree.map(fresh, tree)


def check_diff_input(x, fname, where, holomorphic=None):
    """Differentiated inputs must be floating arrays: real or complex for
    grad (``holomorphic=None``), real for jacfwd, complex with holomorphic."""
    if not is_inexact(x.dtype):
        raise TypeError(
            f"{fname} requires real- or complex-valued inputs, but {where} has dtype "
            f"{x.dtype}. Convert it with xgrad.numpy.astype(x, float64) (or pass a "
            f"float), or leave it out of argnums if it is not differentiated.")
    if holomorphic and not is_complex(x.dtype):
        raise TypeError(f"{fname} with holomorphic=True requires complex inputs, but {where} "
                        f"has dtype {x.dtype}")
    if holomorphic is False and is_complex(x.dtype):
        raise TypeError(f"{fname} requires real-valued inputs, but {where} has dtype "
                        f"{x.dtype}. For holomorphic differentiation pass holomorphic=True.")


def is_float0(t):
    """A float0 array (``jax.dtypes.float0``): the tangent JAX gives and takes
    for an integer or boolean primal."""
    return getattr(getattr(t, "dtype", None), "names", None) == ("float0",)


def _backend_name(x):
    return backend_of(x).__name__.rsplit(".", 1)[-1]


def check_tangent(p, t, where, fname="jvp"):
    """A tangent must match its primal's backend, shape and dtype; an
    integer or boolean primal has no tangent space: its tangent is None (a
    symbolic zero) or a float0 array, as in JAX. Returns the tangent, None
    for a zero."""
    if t is None:
        return None
    if is_float0(t):
        if tuple(t.shape) != tuple(p.shape):
            raise ValueError(f"{fname}: {where} has shape {tuple(t.shape)}, but its primal has "
                             f"shape {tuple(p.shape)}; tangents must match their primals")
        if is_inexact(p.dtype):
            raise TypeError(f"{fname}: {where} is a float0 array, but its primal has dtype "
                            f"{p.dtype}; a floating primal needs a tangent of its own dtype")
        return None
    t = as_primal(t, fname, where)
    try:
        namespace(_peel(p), _peel(t))
    except TypeError:
        raise TypeError(f"{fname}: {where} is a {_backend_name(t)} array, but its primal is a "
                        f"{_backend_name(p)} array; a tangent must be an array of its "
                        f"primal's backend (convert it with {_backend_name(p)}'s asarray)"
                        ) from None
    if tuple(t.shape) != tuple(p.shape):
        raise ValueError(f"{fname}: {where} has shape {tuple(t.shape)}, but its primal has "
                         f"shape {tuple(p.shape)}; tangents must match their primals")
    if not is_inexact(p.dtype):
        # NB: as JAX, never a silent zero derivative for an integer primal
        raise TypeError(f"{fname}: {where} has dtype {t.dtype}, but its primal has dtype "
                        f"{p.dtype}: an integer or boolean primal has no tangent. Pass None "
                        f"(or a float0 array, jax.dtypes.float0) as its tangent, close over "
                        f"it instead, or convert the primal to a float dtype")
    if t.dtype != p.dtype:
        raise TypeError(f"{fname}: {where} has dtype {t.dtype}, but its primal has dtype "
                        f"{p.dtype}; tangents must match their primals")
    return t


def tangents_like(in_tree, tangents, fname):
    """The flat tangents, one per leaf of the primals' structure ``in_tree``
    (a None in a leaf's place is a symbolic zero); a TypeError, as JAX's,
    when the structures differ."""
    try:
        flat = in_tree.flatten_up_to(tuple(tangents))
        if all(t is None or _tree.structure(t).num_nodes == 1 for t in flat):
            return flat
    except (ValueError, TypeError):
        pass
    t_tree = _tree.structure(tuple(tangents))
    raise TypeError(f"{fname}: the tangents have structure {t_tree}, but the primals "
                    f"have {in_tree}; they must have the same structure")


def _peel(x):
    while isinstance(x, Tracer):
        x = x.primal
    return x


def lower_out(trace, o):
    """(value, derivative-info) of an output of ``trace``; (o, None) for constants."""
    if isinstance(o, Tracer) and o._trace is trace:
        return o.primal, o._data
    if isinstance(o, Tracer):
        trace.check_lower(o._trace, Named("output"))
    return o, None


class Named:
    """Stands in for a primitive in messages and checks (``.name`` only)."""

    def __init__(self, name):
        self.name = name


def strip_aux(aux):
    """aux outputs leave the transform as plain values of the level below."""
    trace = current_trace()

    def lower(x):
        while isinstance(x, Tracer) and x._trace is trace:
            x = x.primal
        return x
    return _tree.map(lower, aux)


def split_aux(out, name):
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError(f"{name} with has_aux=True: the function must return a pair "
                        f"(output, aux), got {type(out).__name__}")
    return out[0], strip_aux(out[1])


def instantiate(x, like=None):
    """A zero (None) becomes zeros like ``like``; numpy scalars become 0-d arrays."""
    if x is None:
        return xnp._zeros_like(like)
    if isinstance(x, Tracer):
        return x
    return to_array(x)


def check_argnums(argnums, nargs, fname):
    """``(multi, normalised argnums tuple)``; errors name the bad value."""
    multi = isinstance(argnums, (tuple, list))
    nums = tuple(argnums) if multi else (argnums,)
    for a in nums:
        if not isinstance(a, int) or isinstance(a, bool):
            raise TypeError(f"{fname}: argnums must be an int or a tuple of ints, got {argnums!r}")
        if not -nargs <= a < nargs:
            raise ValueError(f"{fname}: argnums={argnums!r} is out of range for a "
                             f"function called with {nargs} positional argument(s)")
    return multi, tuple(a % nargs for a in nums)


class ArgPath:
    """Lazy 'argument 1['w']' for error messages (built only on error)."""

    def __init__(self, nums, in_tree, i):
        self.nums, self.in_tree, self.i = nums, in_tree, i

    def __str__(self):
        return (f"argument {self.nums[_tree.path_index(self.in_tree, self.i)]}"
                f"{_tree.path_str(self.in_tree, self.i, skip=1)}")


def diff_args(args, argnums, fname, holomorphic=None):
    """The differentiated arguments, flattened and checked:
    ``(multi, nums, flat leaves, in_tree, pick)``.

    A repeated entry of ``argnums`` (``argnums=(0, 0)``) is differentiated
    once: ``nums`` has no repeats, and ``pick`` (None when nothing repeats)
    gives, for each entry of ``argnums``, its position in ``nums``; callers
    build their result over ``nums`` and pick it out (``repeat``)."""
    multi, nums = check_argnums(argnums, len(args), fname)
    pick = None
    uniq = tuple(dict.fromkeys(nums))
    if len(uniq) != len(nums):
        pick = tuple(uniq.index(a) for a in nums)
        nums = uniq
    flat, in_tree = _tree.flatten(tuple(args[i] for i in nums))
    for i, x in enumerate(flat):
        where = ArgPath(nums, in_tree, i)
        x = flat[i] = as_primal(x, fname, where)
        check_diff_input(x, fname, where, holomorphic)
    return multi, nums, flat, in_tree, pick


def repeat(per_num, pick):
    """A tuple with one entry per deduplicated argnum, as one entry per
    argnum the caller asked for (see ``diff_args``)."""
    return per_num if pick is None else tuple(per_num[k] for k in pick)


def flatten_fun(fun, in_tree, store, fname, has_aux=False, args=None, nums=None, kwargs=None):
    """``fun`` as a function of flat leaves returning flat output leaves.

    With ``nums``, the leaves replace ``args[nums]`` (the other arguments and
    ``kwargs`` are passed as they are). ``store`` receives the output tree
    (``"tree"``) and, with ``has_aux``, the aux value (``"aux"``)."""
    if nums is not None:
        given = args, kwargs
        args, kwargs, copied = frozen_args(args, nums, kwargs)
        runs = [0]

    def f_flat(*xs):
        nonlocal args, kwargs
        if nums is None:
            call = _tree.unflatten(in_tree, xs)
        else:
            if copied and runs[0]:
                # a re-run (NaN-safe, per basis vector) starts from the
                # caller's values, not from what the last run wrote into
                # its copies
                args, kwargs, _ = frozen_args(given[0], nums, given[1])
            runs[0] += 1
            call = list(args)
            for i, a in zip(nums, _tree.unflatten(in_tree, xs)):
                call[i] = a
        out = fun(*call, **(kwargs or {}))
        if has_aux:
            out, store["aux"] = split_aux(out, fname)
        o_flat, store["tree"] = _tree.flatten(out)
        return o_flat
    return f_flat


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_warned_at = set()


def warn_fallback(exc, what):
    """Warn, once per line of user code, that ``what`` (a slower fallback)
    is taken because the Python control flow at that line (the innermost
    frame outside xgrad in ``exc``'s traceback) read a value."""
    where = None
    tb = exc.__traceback__
    while tb is not None:
        f = tb.tb_frame.f_code.co_filename
        if not os.path.abspath(f).startswith(_PACKAGE):
            where = (f, tb.tb_lineno)
        tb = tb.tb_next
    if where is None or where in _warned_at:
        return
    _warned_at.add(where)
    warnings.warn_explicit(
        f"{what}: Python control flow (if/while, float(), int(), bool()) at this line reads "
        f"a value that differs per basis vector. xgrad.lax.cond/while_loop or "
        f"xgrad.numpy.where keep it in one pass.", RuntimeWarning, where[0], where[1])
