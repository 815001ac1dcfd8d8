"""Vectorisation: ``BatchTrace`` carries (value, batch axis) pairs, and ``vmap()``.

Each primitive's batching rule (the ``batch`` slot of its row in the rule
table, built by ``rules/_batching.py``) maps batched arguments to a batched
result in one backend call: no Python loop over the batch. A primitive
without a rule raises ``NotImplementedError``.

A ``BatchTracer`` stands for one example: its ``shape`` is the per-example
shape, and the batch axis (``bdim``) may sit anywhere in the array underneath
(rules move it only when they must). It has no concrete value, since it holds
a different value per example, so Python control flow on it raises a
``TypeError`` that says to use ``xgrad.numpy.where``.
"""
from __future__ import annotations

import functools

import optree

from ..core import Trace, Tracer, new_main
from .. import numpy as xnp
from ..numpy._at import with_at
from ..rules._batching import moveaxis
from .. import tree as _tree
from ._api import Named, as_primal, fresh, owned, warn_fallback

__all__ = ["BatchTrace", "BatchTracer", "PerExampleRead", "vmap", "map_basis"]


class PerExampleRead(TypeError):
    """Python control flow read a value inside vmap that differs per example."""

    def __init__(self, trace, shape):
        TypeError.__init__(
            self,
            f"a value inside vmap depends on the mapped axis (shape {shape} per example), "
            f"so it has no single concrete value: Python control flow (if, while, bool(), "
            f"float(), int()) can't branch on it and it can't be used as an index. Use "
            f"xgrad.numpy.where(cond, a, b) to select per example, xgrad.lax.cond / "
            f"xgrad.lax.switch for per-example branches and xgrad.lax.while_loop / "
            f"fori_loop for per-example loops, or pass the value with in_axes=None if it "
            f"is the same for every example.")
        self.trace = trace


class BatchTracer(Tracer):
    """``primal`` holds the batched value, ``bdim`` its batch axis."""

    __slots__ = ()
    bdim = Tracer.data_slot

    @property
    def shape(self):
        s = tuple(self.primal.shape)
        b = self.bdim
        return s[:b] + s[b + 1:]

    def concrete(self):
        raise PerExampleRead(self._trace, self.shape)

    def __repr__(self):
        # NB: the per-example value does not exist; show the whole batch.
        return (f"BatchTracer<shape={self.shape}, dtype={self.dtype}, batch axis "
                f"{self.bdim} of size {self.primal.shape[self.bdim]}>({self.primal!r})")


class BatchTrace(Trace):
    __slots__ = ("size",)

    def __init__(self, level, size):
        Trace.__init__(self, level)
        self.size = size

    def const_like(self, x, plain):
        # NB: batched like x (one buffer per example), so that writes of
        # batched values into it are recorded
        return BatchTracer(self, plain(x.primal), x.bdim)

    def process_primitive(self, prim, args, params):
        vals, bdims, batched = self.lower(args, prim)
        if not batched:
            return prim.bind(*vals, **params)
        if prim.several_outputs:
            if prim.is_call:
                return params["spec"].batch(self, vals, bdims)
            if prim.batch is None:
                raise _no_rule(prim)
            outs, bds = prim.batch(vals, bdims, **params)
            return [o if bd is None else BatchTracer(self, o, bd) for o, bd in zip(outs, bds)]
        rule = prim.batch
        if rule is None:
            raise _no_rule(prim)
        out, bd = rule(vals, bdims, **params)
        if bd is None:
            return out
        return BatchTracer(self, out, bd)


def _no_rule(prim):
    return NotImplementedError(
        f"vmap: primitive {prim.name!r} has no batching rule; add `batch=` to its "
        f"row in the rule table (xgrad/rules/)")


def _is_axis(s):
    return s is None or (isinstance(s, int) and not isinstance(s, bool))


def _broadcast_prefix(spec, tree, name):
    """Expand an in_axes/out_axes prefix spec to one entry per leaf of tree
    (as JAX: a spec is a pytree prefix of the value, its leaves ints or None)."""
    leaves_spec = []

    def rec(s, t):
        if _is_axis(s):
            leaves_spec.extend([s] * len(_tree.leaves(t)))
            return
        if isinstance(s, (tuple, list)) and isinstance(t, (tuple, list)):
            sc, tc = list(s), list(t)                 # a tuple and a list match
        elif isinstance(s, dict) and isinstance(t, dict):
            if set(s) != set(t):
                raise ValueError(f"vmap: {name} has keys {sorted(s)} but the value has "
                                 f"keys {sorted(t)}")
            keys = sorted(t)
            sc, tc = [s[k] for k in keys], [t[k] for k in keys]
        elif type(s) is type(t) and t is not None:
            sc, s_meta = optree.tree_flatten_one_level(s, none_is_leaf=True,
                                                       namespace=_tree._NAMESPACE)[:2]
            tc, t_meta = optree.tree_flatten_one_level(t, namespace=_tree._NAMESPACE)[:2]
            if s_meta != t_meta:
                raise ValueError(f"vmap: {name}={s!r} does not match the structure of the value")
        elif isinstance(s, (tuple, list, dict)) or type(s) is type(t):
            raise ValueError(f"vmap: {name}={s!r} does not match the structure of the value "
                             f"(a {type(t).__name__})")
        else:
            raise TypeError(f"vmap: {name} entries must be ints or None, got {s!r}")
        if len(sc) != len(tc):
            raise ValueError(f"vmap: {name} has {len(sc)} entries but the value has {len(tc)}")
        for si, ti in zip(sc, tc):
            rec(si, ti)
    rec(spec, tree)
    return leaves_spec


def _where(in_tree, i):
    """'argument 1['w']' or "keyword argument 'b'" for leaf i of (args, kwargs)."""
    path = in_tree.paths()[i]
    rest = "".join(f"[{k!r}]" for k in path[2:])
    if path[0] == 0:
        return f"argument {path[1]}{rest}"
    return f"keyword argument {path[1]!r}{rest}"


def vmap(fun, in_axes=0, out_axes=0, axis_size=None):
    """Vectorise ``fun`` over an axis of its arguments.

    Args:
      fun: function of pytrees of arrays.
      in_axes: int, None, or a tuple (one entry per positional argument, each
        a pytree prefix of ints/None): which axis of each argument is mapped
        (negative axes count from the end; None: not mapped). Keyword
        arguments are always mapped over axis 0 (as in JAX).
      out_axes: a pytree prefix of the output, of ints/None: where the mapped
        axis goes in each output. None is allowed only for outputs that do not
        depend on the mapped axis.
      axis_size: the batch size; needed only when no argument is mapped.

    Returns:
      The vectorised function. Each primitive runs once on the whole batch
      (its batching rule), never in a Python loop over the examples.

    >>> import xgrad, xgrad.numpy as xnp
    >>> xgrad.vmap(lambda x: xnp.sum(x ** 2))(xnp.reshape(xnp.arange(6.0), (2, 3))).tolist()
    [5.0, 50.0]
    """
    @functools.wraps(fun)
    def vf(*args, **kwargs):
        return _vmap_call(fun, in_axes, out_axes, axis_size, args, kwargs)
    return vf


def map_basis(fun, basis, who):
    """``vmap(fun)(*basis)`` (axis 0 of every array in ``basis``), the batched
    pass of a Jacobian over basis vectors. Where Python control flow in
    ``fun`` reads a value that differs per basis vector (a convergence test
    on a cotangent, say), the basis vectors go through ``fun`` one by one
    instead, with a warning naming the line: an explicit ``vmap`` raises
    there, but a Jacobian has a well-defined answer."""
    box = []
    try:
        return _vmap_call(fun, 0, 0, None, tuple(basis), {}, box)
    except PerExampleRead as e:
        if not box or e.trace is not box[0]:
            raise
        warn_fallback(e, f"{who} loops over the basis vectors instead of one batched pass")
    n = basis[0].shape[0]
    rows = [_tree.flatten(fun(*[b[i, ...] for b in basis])) for i in range(n)]
    tree = rows[0][1]
    return _tree.unflatten(tree, [xnp.stack([r[0][k] for r in rows])
                                  for k in range(len(rows[0][0]))])


def _vmap_call(fun, in_axes, out_axes, axis_size, args, kwargs, box=None):
    spec = tuple(in_axes) if isinstance(in_axes, list) else in_axes
    if isinstance(spec, tuple):
        if len(spec) != len(args):
            raise ValueError(f"vmap: in_axes has {len(spec)} entries but the function "
                             f"was called with {len(args)} positional arguments")
    elif not _is_axis(spec):
        raise TypeError(f"vmap: in_axes must be an int, None, or a tuple with one entry "
                        f"per positional argument; got {type(spec).__name__}. Wrap a "
                        f"single argument's spec in a 1-tuple: in_axes=(spec,)")
    flat, in_tree = _tree.flatten((args, kwargs))
    axes = _broadcast_prefix(spec, args, "in_axes")
    axes += [0] * (len(flat) - len(axes))
    flat = [as_primal(x, "vmap", _where(in_tree, i)) for i, x in enumerate(flat)]
    size = axis_size
    size_from = "axis_size"
    norm_axes = []
    for i, (x, ax) in enumerate(zip(flat, axes)):
        if ax is None:
            norm_axes.append(None)
            continue
        nd = x.ndim
        if not -nd <= ax < nd:
            raise ValueError(f"vmap: in_axes={ax} is out of range for {_where(in_tree, i)} "
                             f"with shape {tuple(x.shape)} ({nd} dimensions)")
        ax %= nd
        n = x.shape[ax]
        if size is None:
            size, size_from = n, f"{_where(in_tree, i)} (axis {ax})"
        elif n != size:
            raise ValueError(f"vmap: inconsistent sizes of the mapped axes: "
                             f"{_where(in_tree, i)} has size {n} on axis {ax}, but "
                             f"{size_from} has size {size}")
        norm_axes.append(ax)
    if size is None:
        raise ValueError("vmap: no argument is mapped (all in_axes are None); pass "
                         "axis_size to say how many examples to make")
    with new_main(BatchTrace, size) as trace:
        if box is not None:
            box.append(trace)
        # an unmapped argument is the same for every example: a copy, so
        # that a write into it in fun does not reach the caller's array; a
        # numpy one gets ``.at`` and indexing by a per-example index
        # (``table[j]``), as the namespace's arrays have
        ins = [with_at(fresh(x)) if ax is None else BatchTracer(trace, x, ax)
               for x, ax in zip(flat, norm_axes)]
        a, k = _tree.unflatten(in_tree, ins)
        out = fun(*a, **k)
        o_flat, out_tree = _tree.flatten(out)
        oax = _broadcast_prefix(tuple(out_axes) if isinstance(out_axes, list) else out_axes,
                                out, "out_axes")
        res = [_finish(trace, o, ax, size, out_tree, i)
               for i, (o, ax) in enumerate(zip(o_flat, oax))]
    # an argument passed through (or a view of it, or two outputs made of
    # one buffer) is a copy: the caller may write each output on its own
    return _tree.unflatten(out_tree, owned(res, flat))


def _finish(trace, o, ax, size, out_tree, i):
    """An output of the batched function with its mapped axis at ``ax``
    (an output that does not depend on the mapped axis is broadcast)."""
    if isinstance(o, Tracer) and o._trace is trace:
        val, bd = o.primal, o.bdim
        if ax is None:
            raise ValueError(f"vmap: out_axes=None for output{_tree.path_str(out_tree, i)}, "
                             f"which depends on the mapped axis; give it an axis")
        return moveaxis(val, bd, _check_out_axis(ax, val.ndim, out_tree, i))
    if isinstance(o, Tracer):
        trace.check_lower(o._trace, Named("vmap output"))
    o = as_primal(o, "vmap", "output")
    if ax is None:
        return o
    ax = _check_out_axis(ax, o.ndim + 1, out_tree, i)
    shape = tuple(o.shape)
    b = xnp.broadcast_to(xnp.reshape(o, shape[:ax] + (1,) + shape[ax:]),
                         shape[:ax] + (size,) + shape[ax:])
    return b


def _check_out_axis(ax, nd, out_tree, i):
    if not -nd <= ax < nd:
        raise ValueError(f"vmap: out_axes={ax} is out of range for output"
                         f"{_tree.path_str(out_tree, i)}, which has {nd} dimensions "
                         f"with the mapped axis")
    return ax % nd
