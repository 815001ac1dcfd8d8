"""Forward mode: ``JVPTrace`` carries (primal, tangent) pairs, and ``jvp()``.

A ``JVPTracer`` always has a real (non-zero) tangent: a value without one is
simply not a tracer of this trace. When every input of a primitive has a
zero tangent the primitive runs on the parent trace and no JVP work is done.
"""
from __future__ import annotations

from .. import core as _core
from ..core import Trace, Tracer, bind, new_main
from ..backends import is_inexact
from .. import numpy as xnp
from .. import tree as _tree
from ._api import (as_primal, check_tangent, flatten_fun, fresh, frozen, instantiate, lower_out,
                   nan_safe_result, owned, owned_tree, tangents_like)

__all__ = ["JVPTrace", "JVPTracer", "jvp", "jvp_flat"]


class JVPTracer(Tracer):
    """``primal``: the value; ``tangent``: its tangent (None: a constant)."""

    __slots__ = ()
    tangent = Tracer.data_slot


class JVPTrace(Trace):
    """A ``JVPTracer`` whose tangent is ``None`` is a constant of this trace.

    ``safe``: NaN-safe mode (``core.nan_safe``), fixed when the trace starts:
    an exactly zero tangent entry stays zero through elementwise rules."""

    __slots__ = ("safe",)

    def __init__(self, level):
        Trace.__init__(self, level)
        self.safe = _core.safe_derivatives()

    def const(self, x):
        return JVPTracer(self, x, None)

    def process_primitive(self, prim, args, params):
        primals, tangents, _ = self.lower(args, prim)
        any_t = any(t is not None for t in tangents)
        if prim.several_outputs:
            if prim.is_call:
                return params["spec"].jvp(self, primals, tangents)
            return self._multiple(prim, primals, tangents, any_t, params)
        ans = bind(prim, *primals, **params) if params else bind(prim, *primals)   # no **{}
        rules = prim.jvp
        if not any_t or rules is None:
            return ans
        t_out = None
        joint = prim.jvp_joint
        if joint is not None and sum(t is not None for t in tangents) > 1:
            t_out = joint(tangents, ans, *primals, **params)
            tangents = ()
        for i, t in enumerate(tangents):
            if t is None:
                continue
            rule = rules[i]
            if rule is None:
                continue
            c = rule(t, ans, *primals, **params) if params else rule(t, ans, *primals)
            if c is None:
                continue
            if self.safe:
                c = nan_safe_result(prim, t, c)
            t_out = c if t_out is None else xnp.add(t_out, c)
        if t_out is None:
            return ans
        if not is_inexact(ans.dtype):
            return ans
        if prim.broadcast and t_out.shape != ans.shape:
            t_out = xnp.broadcast_to(t_out, ans.shape)
        if t_out.dtype != ans.dtype:
            t_out = xnp.astype(t_out, ans.dtype)
        return JVPTracer(self, ans, t_out)

    def _multiple(self, prim, primals, tangents, any_t, params):
        """A primitive with several results: each rule gives one tangent per
        result (None: zero); the results without one are constants."""
        outs = prim.bind(*primals, **params)
        rules = prim.jvp
        if not any_t or rules is None:
            return outs
        t_outs = [None] * len(outs)
        for i, t in enumerate(tangents):
            if t is None or rules[i] is None:
                continue
            cs = rules[i](t, outs, *primals, **params)
            for k, c in enumerate(cs or ()):
                if c is not None:
                    if self.safe:
                        c = nan_safe_result(prim, t, c)
                    t_outs[k] = c if t_outs[k] is None else xnp.add(t_outs[k], c)
        return [o if t is None or not is_inexact(o.dtype) else
                JVPTracer(self, o, t if t.dtype == o.dtype else xnp.astype(t, o.dtype))
                for o, t in zip(outs, t_outs)]


def jvp_flat(f_flat, primals, tangents):
    """Flat lists in, flat lists out. ``tangents[i]`` may be ``None`` (zero).

    When a tangent output comes out non-finite, ``f_flat`` runs once more in
    NaN-safe mode (``core.nan_safe``): a zero input tangent entry must not
    become NaN through ``0 * inf``. The fast path pays one reduction per
    tangent output."""
    first = _jvp_flat(f_flat, primals, tangents)
    return _core.again_if_nonfinite(first, first[1],
                                    lambda: _jvp_flat(f_flat, primals, tangents))


def _jvp_flat(f_flat, primals, tangents):
    with new_main(JVPTrace) as trace:
        ins = [frozen(p) if t is None else JVPTracer(trace, p, t)
               for p, t in zip(primals, tangents)]
        outs = f_flat(*ins)
        pairs = [lower_out(trace, o) for o in outs]
    return [p for p, _ in pairs], [t for _, t in pairs]


def jvp(fun, primals, tangents, has_aux=False):
    """Forward-mode Jacobian-vector product.

    Args:
      fun: function of ``len(primals)`` positional arguments (pytrees of arrays).
      primals: tuple or list of the point at which to differentiate.
      tangents: tuple or list with the same structure, shapes and dtypes (and
        backend). An integer or boolean primal has no tangent: its tangent is
        None (a symbolic zero) or a ``jax.dtypes.float0`` array, as in JAX;
        any other tangent for it is a TypeError, never a silent zero.
      has_aux: ``fun`` returns ``(out, aux)``; aux is returned undifferentiated.

    Returns:
      ``(out, tangent_out)``, or ``(out, tangent_out, aux)`` with ``has_aux``.

    >>> import xgrad, xgrad.numpy as xnp
    >>> y, t = xgrad.jvp(xnp.sin, (0.0,), (2.0,))
    >>> float(t)
    2.0
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("jvp: primals and tangents must be tuples or lists "
                        f"(got {type(primals).__name__} and {type(tangents).__name__})")
    # structure mismatches are TypeErrors, as in JAX
    if len(primals) != len(tangents):
        raise TypeError(f"jvp: {len(primals)} primals but {len(tangents)} tangents; primals "
                        f"and tangents must have the same structure")
    p_flat, in_tree = _tree.flatten(tuple(primals))
    t_flat = tangents_like(in_tree, tangents, "jvp")
    p_flat = [as_primal(p, "jvp", f"primals{_tree.path_str(in_tree, i)}") for i, p in enumerate(p_flat)]
    t_flat = [check_tangent(p, t, f"tangents{_tree.path_str(in_tree, i)}")
              for i, (p, t) in enumerate(zip(p_flat, t_flat))]
    store = {}
    f_flat = flatten_fun(fun, in_tree, store, "jvp", has_aux)
    outs, t_outs = jvp_flat(f_flat, p_flat, t_flat)
    out_tree = store["tree"]
    # an output with no tangent is a constant to fun, maybe an array it
    # closes over: a copy (rare: an output that does not depend on primals)
    outs = [instantiate(o) if t is not None else fresh(instantiate(o))
            for o, t in zip(outs, t_outs)]
    t_outs = [instantiate(t, like=o) for o, t in zip(outs, t_outs)]
    # an output passed through (the identity, a view) is a copy: the caller
    # may write it without changing a primal, a tangent or another output
    given = p_flat + [t for t in t_flat if t is not None]
    both = owned(outs + t_outs, given)
    outs, t_outs = both[:len(outs)], both[len(outs):]
    res = (_tree.unflatten(out_tree, outs), _tree.unflatten(out_tree, t_outs))
    if has_aux:
        return res + (owned_tree(store["aux"], given + both),)
    return res

