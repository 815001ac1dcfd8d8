"""``xgrad.lax``: JAX's structured control flow and dynamic slicing.

``cond``, ``switch``, ``select``, ``fori_loop``, ``while_loop``, ``scan``,
``map``, ``associative_scan``, ``dynamic_slice``, ``dynamic_update_slice``
(and their ``_in_dim`` forms) with the signatures and semantics of
``jax.lax``.

How they run: xgrad traces eagerly (every traced value has a concrete
value), so a loop is a Python loop over the body and a branch is the branch
its predicate selects; every transform then sees the operations the run
made. That gives each of them every derivative (forward and reverse, any
order) and batching with no rule of their own:

- ``cond``/``switch`` with a predicate or index that is batched under
  ``vmap`` run every branch and select per example (JAX's batching rule);
- ``while_loop`` (and ``fori_loop`` with batched bounds) under ``vmap``
  runs until every example's condition is false, each example's state
  frozen once its own condition is false (JAX's rule);
- reverse mode through ``while_loop`` works (JAX refuses it): the forward
  run knows its trip count, and the gradient is the unrolled loop's;
- ``scan``'s reverse pass is the tape of the forward loop: it keeps what
  each step's derivative needs (wrap the body in ``xgrad.checkpoint`` to
  recompute instead).

Under ``xgrad.jit`` the loop is staged unrolled, and a predicate read
while staging is a guard of the staged program (re-staged when it changes).

NB: because the values are concrete, the branch not taken is not run (JAX
traces both branches for their types, then runs one) and a body runs once
per iteration; the shapes and dtypes are still checked where JAX checks
them (the carry of ``scan``, ``fori_loop`` and ``while_loop``, the outputs
of ``cond``'s branches), with JAX's TypeError.
"""
import builtins as _builtins
import operator as _operator

from . import numpy as _xnp
from .backends import backend_of as _backend_of
from .core import Tracer as _Tracer, concrete as _concrete
from .transforms.stop_gradient import stop_gradient
from .tree import flatten as _flatten, unflatten as _unflatten, map as _map

__all__ = ["cond", "switch", "select", "select_n", "fori_loop", "while_loop", "scan", "map",
           "associative_scan", "stop_gradient", "dynamic_slice", "dynamic_update_slice",
           "dynamic_slice_in_dim", "dynamic_update_slice_in_dim", "dynamic_index_in_dim",
           "dynamic_update_index_in_dim", "slice", "slice_in_dim", "index_in_dim"]


# ----- concrete or batched ---------------------------------------------------

def _known(x):
    """``x``'s single concrete value, or None when it has none (batched
    under vmap: each example has its own)."""
    if not isinstance(x, _Tracer):
        return x
    try:
        return _concrete(x)
    except TypeError:
        return None


def _any_example(x):
    """Whether ``x`` is true for at least one example of every enclosing
    vmap (its batched value, looked at under all tracers)."""
    while isinstance(x, _Tracer):
        if getattr(x._trace, "guards", None) is not None:
            x = x.concrete()          # staged (jit): the trip count becomes a guard
            break
        x = x.primal
    return bool(_backend_of(x).any(x))


# ----- type checks, as JAX makes them ---------------------------------------

def _aval(x):
    if isinstance(x, (bool, int, float, complex)):
        return ((), None)          # a Python scalar: weakly typed, any dtype goes
    return (tuple(x.shape), x.dtype)


def _check_same(what, a_tree, b_tree, a_name, b_name):
    la, ta = _flatten(a_tree)
    lb, tb = _flatten(b_tree)
    if ta != tb:
        raise TypeError(f"{what}: {a_name} and {b_name} must have the same pytree structure, "
                        f"got {ta} and {tb}")
    for i, (a, b) in enumerate(zip(la, lb)):
        (sa, da), (sb, db) = _aval(a), _aval(b)
        if sa != sb or (da is not None and db is not None and da != db):
            raise TypeError(f"{what}: {a_name} and {b_name} must have equal types; leaf {i} is "
                            f"{da}{list(sa)} in {a_name} and {db}{list(sb)} in {b_name}")


# ----- branches ---------------------------------------------------------------

def select(pred, on_true, on_false):
    """``on_true`` where ``pred`` is true, else ``on_false`` (arrays of one
    shape and dtype; ``pred`` boolean, of their shape or a scalar)."""
    _check_select(pred, [on_true, on_false])
    return _xnp.where(pred, on_true, on_false)


def select_n(which, *cases):
    """``cases[which]`` elementwise: ``which`` boolean (two cases) or an
    integer array with values in ``[0, len(cases))``."""
    if not cases:
        raise ValueError("select_n: at least one case is required")
    _check_select(which, cases, integer_ok=True)
    if len(cases) == 1:
        return cases[0]
    out = cases[-1]
    for k in range(len(cases) - 2, -1, -1):
        out = _xnp.where(which == k if _xnp.isdtype(which.dtype, "integral") else
                         _xnp.logical_not(which) if k == 0 else which, cases[k], out)
    return out


def _check_select(pred, cases, integer_ok=False):
    shapes = {tuple(c.shape) for c in cases}
    dtypes = {c.dtype for c in cases}
    if len(shapes) > 1 or len(dtypes) > 1:
        raise TypeError(f"select: the cases must have the same shape and dtype, got "
                        f"{[(c.dtype, tuple(c.shape)) for c in cases]}")
    ok = _xnp.isdtype(pred.dtype, "bool") or (integer_ok and _xnp.isdtype(pred.dtype, "integral"))
    if not ok:
        raise TypeError(f"select: the predicate must be boolean{' or integer' if integer_ok else ''},"
                        f" got {pred.dtype}")
    if tuple(pred.shape) not in ((), tuple(cases[0].shape)):
        raise TypeError(f"select: the predicate's shape {tuple(pred.shape)} must be () or the "
                        f"cases' shape {tuple(cases[0].shape)}")


def cond(pred, true_fun, false_fun, *operands, operand=None):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``.

    ``pred`` is a scalar (boolean or number: nonzero is true). Under vmap
    with a per-example ``pred`` both branches run and each example takes
    its own (JAX's rule; their outputs must then have equal types)."""
    if operand is not None:
        operands = operands + (operand,)
    if hasattr(pred, "shape") and tuple(pred.shape) != ():
        raise TypeError(f"cond: pred must be a scalar, got shape {tuple(pred.shape)}")
    p = _known(pred)
    if p is not None:
        return (true_fun if bool(p) else false_fun)(*operands)
    t, f = true_fun(*operands), false_fun(*operands)
    _check_same("cond", t, f, "true_fun's output", "false_fun's output")
    sel = pred if _xnp.isdtype(pred.dtype, "bool") else pred != 0
    return _map(lambda a, b: _xnp.where(sel, a, b), t, f)


def switch(index, branches, *operands, operand=None):
    """``branches[index](*operands)``, ``index`` clamped to the branches
    (JAX's rule); a per-example ``index`` under vmap runs every branch and
    selects."""
    if operand is not None:
        operands = operands + (operand,)
    branches = list(branches)
    if not branches:
        raise ValueError("switch: branches must be a non-empty sequence of functions")
    if hasattr(index, "shape") and tuple(index.shape) != ():
        raise TypeError(f"switch: index must be a scalar, got shape {tuple(index.shape)}")
    n = len(branches)
    i = _known(index)
    if i is not None:
        return branches[_builtins.min(_builtins.max(int(i), 0), n - 1)](*operands)
    outs = [b(*operands) for b in branches]
    for k in range(1, n):
        _check_same("switch", outs[0], outs[k], "branch 0's output", f"branch {k}'s output")
    idx = _xnp.clip(index, 0, n - 1)
    res = outs[-1]
    for k in range(n - 2, -1, -1):
        res = _map(lambda a, b, k=k: _xnp.where(idx == k, a, b), outs[k], res)
    return res


# ----- loops ------------------------------------------------------------------

def while_loop(cond_fun, body_fun, init_val):
    """``val = init_val; while cond_fun(val): val = body_fun(val)``.

    Differentiable in reverse mode too (JAX refuses: xgrad's forward run
    knows its trip count). Under vmap with a per-example condition, the loop
    runs until no example's condition holds; an example whose condition is
    false keeps its state."""
    val = init_val
    while True:
        c = cond_fun(val)
        if hasattr(c, "shape") and tuple(c.shape) != ():
            raise TypeError(f"while_loop: cond_fun must return a scalar boolean, got shape "
                            f"{tuple(c.shape)}")
        k = _known(c)
        if k is not None:
            if not bool(k):
                return val
            new = body_fun(val)
            _check_same("while_loop", val, new, "the body's input carry", "its output carry")
            val = new
            continue
        if not _any_example(c):
            return val
        new = body_fun(val)
        _check_same("while_loop", val, new, "the body's input carry", "its output carry")
        val = _map(lambda a, b: _xnp.where(c, a, b), new, val)


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``; ``i``
    is an integer array of the bounds' dtype. Bounds that are batched under
    vmap run as ``while_loop`` (each example its own trip count)."""
    lo, hi = _known(lower), _known(upper)
    dtype = _index_dtype(lower, upper)
    if lo is None or hi is None:
        def c(s):
            return s[0] < upper

        def b(s):
            return (s[0] + 1, body_fun(s[0], s[1]))
        return while_loop(c, b, (_xnp.asarray(lower, dtype=dtype), init_val))[1]
    val = init_val
    for i in range(int(lo), int(hi)):
        new = body_fun(_xnp.asarray(i, dtype=dtype), val)
        _check_same("fori_loop", val, new, "the body's input carry", "its output carry")
        val = new
    return val


def _index_dtype(lower, upper):
    for b in (lower, upper):
        if hasattr(b, "dtype"):
            if not _xnp.isdtype(b.dtype, "integral"):
                raise TypeError(f"fori_loop: the bounds must be integers, got {b.dtype}")
            return b.dtype
        if not isinstance(b, int) or isinstance(b, bool):
            raise TypeError(f"fori_loop: the bounds must be integers, got {type(b).__name__}")
    return _xnp.int64


def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    """``carry, y = f(carry, x)`` for each ``x`` along the leading axis of
    ``xs`` (a pytree); returns the final carry and the stacked ``y`` values.

    ``xs=None`` needs ``length``; ``reverse=True`` goes from the last
    ``x`` to the first (the ``y`` values keep the order of ``xs``); ``unroll`` is
    accepted (every iteration runs unrolled here)."""
    leaves, tree = _flatten(xs)
    n = length
    for x in leaves:
        if not hasattr(x, "shape") or len(x.shape) == 0:
            raise ValueError("scan: every leaf of xs must be an array with a leading axis")
        if n is None:
            n = x.shape[0]
        elif x.shape[0] != n:
            raise ValueError(f"scan: xs leaves have leading axes {[x.shape[0] for x in leaves]}"
                             + (f" and length={length}" if length is not None else "")
                             + "; they must agree")
    if n is None:
        raise ValueError("scan: length is required when xs has no leaves")
    n = _operator.index(n)
    carry = init
    ys = [None] * n
    for i in (range(n - 1, -1, -1) if reverse else range(n)):
        x_i = _unflatten(tree, [x[i, ...] for x in leaves]) if leaves else xs
        new, y = f(carry, x_i)
        _check_same("scan", carry, new, "the body's input carry", "its output carry")
        carry = new
        ys[i] = y
    if n == 0:
        return carry, _empty_ys(f, carry, tree, leaves, xs)
    ys_leaves = [_flatten(y)[0] for y in ys]
    y_tree = _flatten(ys[0])[1]
    stacked = [_xnp.stack([_xnp.asarray(yl[k]) for yl in ys_leaves])
               for k in range(len(ys_leaves[0]))]
    return carry, _unflatten(y_tree, stacked)


def _empty_ys(f, carry, tree, leaves, xs):
    """The stacked ``y`` values of a zero-length scan: their types come from one
    call of ``f`` on zero-filled slices (its results are dropped)."""
    x0 = _unflatten(tree, [_xnp.zeros(tuple(x.shape[1:]), dtype=x.dtype) for x in leaves]) \
        if leaves else xs
    _, y = f(carry, x0)
    return _map(lambda v: _xnp.zeros((0,) + tuple(_xnp.asarray(v).shape),
                                     dtype=_xnp.asarray(v).dtype), y)


def map(f, xs, *, batch_size=None):  # noqa: A001
    """``f`` applied to each slice of ``xs`` (a pytree) along its leading
    axis, results stacked: ``scan`` without a carry. ``batch_size`` is
    accepted (the result does not depend on it)."""
    if batch_size is not None and (not isinstance(batch_size, int) or batch_size < 1):
        raise ValueError(f"map: batch_size must be a positive integer, got {batch_size!r}")
    return scan(lambda c, x: (c, f(x)), (), xs)[1]


# ----- associative scan ----------------------------------------------------------

def associative_scan(fn, elems, reverse=False, axis=0):
    """Inclusive prefix scan of ``elems`` (a pytree of arrays of one length
    along ``axis``) with the associative ``fn`` (elementwise over slices):
    ``out[i] = fn(out[i-1], elems[i])``, in O(log n) rounds of ``fn`` on
    halves of the arrays (the odd-even recursion JAX uses)."""
    leaves, tree = _flatten(elems)
    if not leaves:
        raise ValueError("associative_scan: elems has no leaves")
    axis = _operator.index(axis)
    nd = len(leaves[0].shape)
    if not -nd <= axis < nd:
        raise ValueError(f"associative_scan: axis={axis} is out of range for {nd} dimensions")
    axis %= nd
    n = leaves[0].shape[axis]
    if any(x.shape[axis] != n for x in leaves):
        raise ValueError("associative_scan: every leaf of elems must have the same length "
                         "along axis")
    if reverse:
        leaves = [_xnp.flip(x, axis=axis) for x in leaves]

    def combine(a, b):
        out = fn(_unflatten(tree, a), _unflatten(tree, b))
        out_leaves, out_tree = _flatten(out)
        if out_tree != tree:
            raise TypeError(f"associative_scan: fn must return the structure of elems ({tree}), "
                            f"got {out_tree}")
        return out_leaves

    def sl(xs, start, stop=None, step=1):
        idx = (_builtins.slice(None),) * axis + (_builtins.slice(start, stop, step),)
        return [x[idx + (...,)] for x in xs]

    def rec(xs):
        m = xs[0].shape[axis]
        if m < 2:
            return xs
        reduced = combine(sl(xs, 0, -1, 2), sl(xs, 1, None, 2))
        odd = rec(reduced)
        if m % 2 == 0:
            even = combine(sl(odd, 0, -1), sl(xs, 2, None, 2))
        else:
            even = combine(odd, sl(xs, 2, None, 2))
        even = [_xnp.concat([f, e], axis=axis) for f, e in zip(sl(xs, 0, 1), even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    out = rec(leaves)
    if reverse:
        out = [_xnp.flip(x, axis=axis) for x in out]
    return _unflatten(tree, out)


def _interleave(a, b, axis):
    """``a[0], b[0], a[1], b[1], ...`` along ``axis`` (``a`` as long as
    ``b`` or one longer)."""
    extra = a.shape[axis] - b.shape[axis]
    if extra:
        pad = [(0, 0)] * len(b.shape)
        pad[axis] = (0, 1)
        b = _xnp.pad(b, pad)
    both = _xnp.stack([a, b], axis=axis + 1)
    shape = list(a.shape)
    shape[axis] = 2 * a.shape[axis]
    out = _xnp.reshape(both, tuple(shape))
    if extra:
        idx = (_builtins.slice(None),) * axis + (_builtins.slice(0, shape[axis] - 1),)
        out = out[idx + (...,)]
    return out


# ----- static and dynamic slicing -------------------------------------------------

def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001
    """``operand[start:limit:stride]`` on every axis (static bounds)."""
    strides = strides or (1,) * len(start_indices)
    if not len(start_indices) == len(limit_indices) == len(strides) == len(operand.shape):
        raise TypeError("slice: start_indices, limit_indices and strides need one entry per axis "
                        f"of the operand ({len(operand.shape)})")
    return operand[tuple(_builtins.slice(s, e, k)
                         for s, e, k in zip(start_indices, limit_indices, strides))]


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    """``slice`` along one axis (``None`` bounds: the whole axis; negative
    bounds count from the end)."""
    nd = len(operand.shape)
    axis %= nd
    n = operand.shape[axis]
    start = 0 if start_index is None else start_index % n if start_index < 0 else start_index
    stop = n if limit_index is None else limit_index % n if limit_index < 0 else limit_index
    idx = (_builtins.slice(None),) * axis + (_builtins.slice(start, stop, stride),)
    return operand[idx + (...,)]


def index_in_dim(operand, index, axis=0, keepdims=True):
    """Entry ``index`` along ``axis`` (static; the axis kept as size 1 by default)."""
    out = slice_in_dim(operand, index, index + 1 if index != -1 else None, 1, axis)
    return out if keepdims else _xnp.squeeze(out, axis=axis)


def _starts(operand, start_indices, sizes, what, allow_negative):
    nd = len(operand.shape)
    start_indices = list(start_indices) if not hasattr(start_indices, "shape") else \
        [start_indices[i] for i in range(start_indices.shape[0])]
    if len(start_indices) != nd or len(sizes) != nd:
        raise TypeError(f"{what}: need one start index and one size per axis of the operand "
                        f"({nd}), got {len(start_indices)} and {len(sizes)}")
    out = []
    for s, size, n in zip(start_indices, sizes, operand.shape):
        if size < 0 or size > n:
            raise TypeError(f"{what}: slice size {size} doesn't fit an axis of size {n}")
        k = _known(s)
        if k is not None:
            k = int(k)
            if allow_negative and k < 0:
                k += n
            out.append(_builtins.min(_builtins.max(k, 0), n - size))
        else:                             # per-example under vmap: clamp as an array
            if allow_negative:
                s = _xnp.where(s < 0, s + n, s)
            out.append(_xnp.clip(s, 0, n - size))
    return out


def _known_starts(starts):
    return all(isinstance(s, int) for s in starts)


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    """``operand[s0:s0+n0, s1:s1+n1, ...]`` with start indices that may be
    traced values, clamped so the slice fits (JAX's rule; negative starts
    count from the end)."""
    sizes = [_operator.index(n) for n in slice_sizes]
    starts = _starts(operand, start_indices, sizes, "dynamic_slice", allow_negative_indices)
    if _known_starts(starts):
        return operand[tuple(_builtins.slice(s, s + n) for s, n in zip(starts, sizes))]
    out = operand
    for k, (s, n) in enumerate(zip(starts, sizes)):   # one gather per axis
        out = _xnp.take(out, _xnp.arange(n) + s, axis=k)
    return out


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    """``operand`` with ``update`` written at the start indices (clamped so
    it fits, as ``dynamic_slice``); a new array."""
    if len(update.shape) != len(operand.shape):
        raise TypeError(f"dynamic_update_slice: update has {len(update.shape)} dimensions, the "
                        f"operand {len(operand.shape)}")
    sizes = list(update.shape)
    starts = _starts(operand, start_indices, sizes, "dynamic_update_slice",
                     allow_negative_indices)
    if _known_starts(starts):
        idx = tuple(_builtins.slice(s, s + n) for s, n in zip(starts, sizes))
        return _xnp.at(operand)[idx].set(update)
    # per-example starts: spread the update over the operand's shape (a
    # gather per axis) and select it inside the window
    spread, inside = update, None
    nd = len(sizes)
    for k, (s, n, full) in enumerate(zip(starts, sizes, operand.shape)):
        pos = _xnp.arange(full) - s
        spread = _xnp.take(spread, _xnp.clip(pos, 0, n - 1), axis=k)
        m = _xnp.reshape((pos >= 0) & (pos < n), (full,) + (1,) * (nd - k - 1))
        inside = m if inside is None else inside & m
    return _xnp.where(inside, _xnp.astype(spread, operand.dtype), operand)


def _in_dim(operand, index, axis):
    axis %= len(operand.shape)
    starts = [0] * len(operand.shape)
    starts[axis] = index
    return starts, axis


def dynamic_slice_in_dim(operand, start_index, slice_size=1, axis=0, *,
                         allow_negative_indices=True):
    """``dynamic_slice`` along one axis (the others whole)."""
    starts, axis = _in_dim(operand, start_index, axis)
    sizes = list(operand.shape)
    sizes[axis] = slice_size
    return dynamic_slice(operand, starts, sizes, allow_negative_indices=allow_negative_indices)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True, *, allow_negative_indices=True):
    """Entry ``index`` (may be traced) along ``axis``."""
    out = dynamic_slice_in_dim(operand, index, 1, axis,
                               allow_negative_indices=allow_negative_indices)
    return out if keepdims else _xnp.squeeze(out, axis=axis % len(operand.shape))


def dynamic_update_slice_in_dim(operand, update, start_index, axis, *,
                                allow_negative_indices=True):
    """``dynamic_update_slice`` along one axis."""
    starts, _ = _in_dim(operand, start_index, axis)
    return dynamic_update_slice(operand, update, starts,
                                allow_negative_indices=allow_negative_indices)


def dynamic_update_index_in_dim(operand, update, index, axis, *, allow_negative_indices=True):
    """Write ``update`` (without the ``axis`` dimension, or with it of size
    1) at entry ``index`` along ``axis``."""
    axis %= len(operand.shape)
    if len(update.shape) == len(operand.shape) - 1:
        update = _xnp.expand_dims(update, axis=axis)
    return dynamic_update_slice_in_dim(operand, update, index, axis,
                                       allow_negative_indices=allow_negative_indices)
