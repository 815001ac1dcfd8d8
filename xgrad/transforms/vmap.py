"""Vectorisation: ``BatchTrace`` carries (value, batch axis) pairs, and ``vmap()``.

Each primitive's batching rule (the ``batch`` slot of its row in the rule
table) maps batched arguments to a batched result in one backend call: no
Python loop over the batch. A primitive without a rule raises.
"""
from __future__ import annotations

from ..core import Trace, Tracer, new_main
from .. import numpy as xnp
from .. import tree as _tree
from ._api import as_primal

__all__ = ["BatchTrace", "BatchTracer", "vmap"]


class BatchTracer(Tracer):
    """``primal`` holds the batched value, ``aux`` its batch axis."""

    __slots__ = ()

    @property
    def shape(self):
        s = tuple(self.primal.shape)
        b = self.aux
        return s[:b] + s[b + 1:]

    def concrete(self):
        raise TypeError(
            f"a value inside vmap depends on the mapped axis (shape {self.shape} per "
            f"example), so it has no single concrete value: Python control flow "
            f"(if, bool(), float(), int()) can't branch on it. Use "
            f"xgrad.numpy.where(cond, a, b) instead.")


class BatchTrace(Trace):
    __slots__ = ("size",)

    def __init__(self, level, size):
        Trace.__init__(self, level)
        self.size = size

    def process_primitive(self, prim, args, params):
        vals = []
        bdims = []
        batched = False
        for a in args:
            if isinstance(a, Tracer):
                if a._trace is self:
                    vals.append(a.primal)
                    bdims.append(a.aux)
                    batched = True
                    continue
                self.check_lower(a._trace, prim)
            vals.append(a)
            bdims.append(None)
        if not batched:
            return prim.bind(*vals, **params)
        if prim.is_call:
            return params["spec"].batch(self, vals, bdims)
        rule = prim.batch
        if rule is None:
            raise NotImplementedError(
                f"vmap: primitive {prim.name!r} has no batching rule; add `batch=` to its "
                f"row in the rule table (xgrad/rules/)")
        out, bd = rule(vals, bdims, **params)
        if bd is None:
            return out
        return BatchTracer(self, out, bd)


def _moveaxis(x, src, dst):
    if src == dst:
        return x
    nd = x.ndim
    order = [i for i in range(nd) if i != src]
    order.insert(dst, src)
    return xnp.permute_dims(x, tuple(order))


def _broadcast_prefix(spec, tree, name):
    """Expand an in_axes/out_axes prefix spec to one entry per leaf of tree."""
    leaves_spec = []

    def rec(s, t):
        if s is None or isinstance(s, int):
            n = len(_tree.leaves(t))
            leaves_spec.extend([s] * n)
            return
        if isinstance(s, (tuple, list)) and isinstance(t, (tuple, list)):
            if len(s) != len(t):
                raise ValueError(f"vmap: {name} has {len(s)} entries but the value has {len(t)}")
            for si, ti in zip(s, t):
                rec(si, ti)
            return
        if isinstance(s, dict) and isinstance(t, dict):
            if set(s) != set(t):
                raise ValueError(f"vmap: {name} keys {sorted(s)} differ from {sorted(t)}")
            for k in sorted(t):
                rec(s[k], t[k])
            return
        raise ValueError(f"vmap: {name}={s!r} does not match the structure of the value")
    rec(spec, tree)
    return leaves_spec


def vmap(fun, in_axes=0, out_axes=0, axis_size=None):
    """Vectorise ``fun`` over an axis of its arguments.

    Args:
      fun: function of pytrees of arrays.
      in_axes: int, None, or a tuple (one entry per positional argument, each
        a pytree prefix of ints/None): which axis of each argument is mapped.
      out_axes: the same for the outputs: where the mapped axis goes.
      axis_size: the batch size, needed only when no argument is mapped.

    Returns:
      The vectorised function.

    >>> import xgrad, xgrad.numpy as xnp
    >>> xgrad.vmap(lambda x: xnp.sum(x ** 2))(xnp.reshape(xnp.arange(6.0), (2, 3))).tolist()
    [5.0, 50.0]
    """
    def vf(*args):
        if isinstance(in_axes, list):
            spec = tuple(in_axes)
        else:
            spec = in_axes
        if isinstance(spec, tuple) and len(spec) != len(args):
            raise ValueError(f"vmap: in_axes has {len(spec)} entries but the function was "
                             f"called with {len(args)} positional arguments")
        flat, in_tree = _tree.flatten(args)
        axes = _broadcast_prefix(spec, args, "in_axes") if not isinstance(spec, tuple) \
            else _broadcast_prefix(spec, tuple(args), "in_axes")
        flat = [as_primal(x, "vmap", f"argument leaf {i}") for i, x in enumerate(flat)]
        size = axis_size
        norm_axes = []
        for i, (x, ax) in enumerate(zip(flat, axes)):
            if ax is None:
                norm_axes.append(None)
                continue
            nd = x.ndim
            if not -nd <= ax < nd:
                raise ValueError(f"vmap: in_axes={ax} is out of range for argument leaf {i} "
                                 f"with shape {tuple(x.shape)}")
            ax %= nd
            n = x.shape[ax]
            if size is None:
                size = n
            elif n != size:
                raise ValueError(f"vmap: inconsistent sizes of the mapped axes: argument leaf "
                                 f"{i} has size {n} on axis {ax}, others {size}")
            norm_axes.append(ax)
        if size is None:
            raise ValueError("vmap: no argument is mapped (all in_axes are None); "
                             "pass axis_size")
        with new_main(BatchTrace, size) as trace:
            ins = [x if ax is None else BatchTracer(trace, x, ax)
                   for x, ax in zip(flat, norm_axes)]
            out = fun(*_tree.unflatten(in_tree, ins))
            o_flat, out_tree = _tree.flatten(out)
            oax = _broadcast_prefix(out_axes, out, "out_axes")
            res = [_finish(trace, o, ax, size) for o, ax in zip(o_flat, oax)]
        return _tree.unflatten(out_tree, res)
    return vf


def _finish(trace, o, ax, size):
    if isinstance(o, Tracer) and o._trace is trace:
        val, bd = o.primal, o.aux
        if ax is None:
            raise ValueError("vmap: out_axes=None for an output that depends on the "
                             "mapped axis")
        ax = ax % val.ndim
        return _moveaxis(val, bd, ax)
    if isinstance(o, Tracer):
        trace.check_lower(o._trace, _Out)
    o = as_primal(o, "vmap", "output")
    if ax is None:
        return o
    nd = o.ndim + 1
    ax = ax % nd
    shape = tuple(o.shape)
    b = xnp.broadcast_to(xnp.reshape(o, (1,) + shape), (size,) + shape)
    return _moveaxis(b, 0, ax)


class _Out:
    name = "vmap output"
