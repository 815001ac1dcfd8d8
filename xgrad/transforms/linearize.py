"""``linearize``: one forward pass that evaluates ``fun`` and stages its
tangent computation; ``f_jvp`` replays only the staged, linear part.

The tangents of the inputs are tracers of a ``_StageTrace`` that sits below
the ``jvp`` trace. Every operation the JVP rules apply to them is recorded as
an equation ``(primitive, arguments, parameters, outputs)``, with everything
that does not depend on the tangents (``cos(x)`` in the rule of ``sin``, the
primal values) kept as a constant: the residuals, as in JAX's linearize. The
tracers carry a shadow value (the tangent computation run once on zero
tangents) so that the rules see real shapes and dtypes. ``f_jvp(t)`` binds
the equations again on ``t``: no primal work, and since it only binds, it
composes with every transform (vmap of f_jvp, grad through it).
"""
from __future__ import annotations

from ..core import Trace, Tracer, new_main
from ..backends import is_inexact
from .. import numpy as xnp
from .. import tree as _tree
from ._api import as_primal, check_tangent, flatten_fun, fresh, fresh_once, instantiate
from .jvp import jvp_flat

__all__ = ["linearize"]


class _StagedTracer(Tracer):
    """``primal``: the shadow value; ``var``: the variable's index."""

    __slots__ = ()
    var = Tracer.data_slot

    def concrete(self):
        raise TypeError("linearize: a tangent has no concrete value while the linear "
                        "part is staged (a JVP rule branched on a tangent's value)")


class _StageTrace(Trace):
    """Records the tangent computation. ``f_jvp`` outlives the call, so the
    plain arrays the equations keep are copied once each (arrays ``fun``
    closes over are the caller's, who may write them later)."""

    __slots__ = ("eqns", "n", "copies")

    def __init__(self, level):
        Trace.__init__(self, level)
        self.eqns = []
        self.n = 0
        self.copies = {}       # id(array) -> (array, copy) while staging

    def new_var(self, shadow):
        v = self.n
        self.n = v + 1
        return _StagedTracer(self, shadow, v)

    def process_primitive(self, prim, args, params):
        vals, var_ids, _ = self.lower(args, prim)
        refs = tuple((True, v) if v is not None else (False, fresh_once(self.copies, a))
                     for a, v in zip(args, var_ids))
        out = prim.bind(*vals, **params)
        if prim.is_call:               # several outputs
            tracers = [self.new_var(o) if _is_array(o) else o for o in out]
            outs = tuple(t.var if isinstance(t, _StagedTracer) else None for t in tracers)
            self.eqns.append((prim, refs, params, outs))
            return tracers
        t = self.new_var(out)
        self.eqns.append((prim, refs, params, t.var))
        return t


def _is_array(x):
    return hasattr(x, "shape") and hasattr(x, "dtype")


def _live(eqns, out_vars):
    """The equations the outputs depend on (a call primitive may have been
    staged and then redone inline by its rule: its equation is dead)."""
    live = {v for v in out_vars if v is not None}
    kept = []
    for eqn in reversed(eqns):
        outs = eqn[3] if type(eqn[3]) is tuple else (eqn[3],)
        if any(o in live for o in outs if o is not None):
            kept.append(eqn)
            live.update(x for is_var, x in eqn[1] if is_var)
    return kept[::-1]


def _replay(eqns, n, in_vars, tangents):
    env = [None] * n
    for v, t in zip(in_vars, tangents):
        if v is not None:
            env[v] = t
    for prim, refs, params, outs in eqns:
        vals = [env[x] if is_var else x for is_var, x in refs]
        r = prim.bind(*vals, **params)
        if type(outs) is tuple:
            for o, val in zip(outs, r):
                if o is not None:
                    env[o] = val
        else:
            env[outs] = r
    return env


def linearize(fun, *primals):
    """``(out, f_jvp)`` with ``f_jvp(*tangents) == jvp(fun, primals, tangents)[1]``.

    ``fun`` runs once, here; ``f_jvp`` evaluates only the linear map (the
    tangent computation staged during that run, with its residuals), so
    repeated JVPs at one point (Gauss-Newton, Newton-CG on J^T J) cost no
    primal work. ``f_jvp`` takes one tangent per primal, each with its
    primal's structure, shape and dtype.

    >>> import xgrad, xgrad.numpy as xnp
    >>> y, f_jvp = xgrad.linearize(xnp.sin, 0.0)
    >>> float(f_jvp(2.0))
    2.0
    """
    flat, in_tree = _tree.flatten(tuple(primals))
    flat = [as_primal(x, "linearize", f"primals{_tree.path_str(in_tree, i)}")
            for i, x in enumerate(flat)]
    # f_jvp owns its residuals: the caller may write its arguments later
    flat = [fresh(x) if is_inexact(x.dtype) else x for x in flat]
    store = {}
    f_flat = flatten_fun(fun, in_tree, store, "linearize")
    with new_main(_StageTrace) as st:
        ins = [st.new_var(xnp._zeros_like(p)) if is_inexact(p.dtype) else None for p in flat]
        in_vars = [None if t is None else t.var for t in ins]
        outs, t_outs = jvp_flat(f_flat, flat, ins)
        # an output tangent is a staged variable, or does not depend on the
        # input tangents at all (None: zero)
        out_vars = [t.var if isinstance(t, _StagedTracer) and t._trace is st else None
                    for t in t_outs]
    eqns, n = _live(st.eqns, out_vars), st.n
    st.copies = None
    out_tree = store["tree"]
    outs = [fresh(instantiate(o)) for o in outs]

    def f_jvp(*tangents):
        if len(tangents) != len(primals):
            raise TypeError(f"f_jvp: expected {len(primals)} tangent(s), one per primal, "
                            f"got {len(tangents)}")
        t_flat, t_tree = _tree.flatten(tuple(tangents))
        if t_tree != in_tree:
            raise ValueError(f"f_jvp: the tangents have structure {t_tree}, but the primals "
                             f"have {in_tree}")
        t_flat = [check_tangent(p, t, f"tangents{_tree.path_str(in_tree, i)}", "f_jvp")
                  for i, (p, t) in enumerate(zip(flat, t_flat))]
        t_flat = [xnp._zeros_like(p) if t is None and v is not None else t
                  for p, t, v in zip(flat, t_flat, in_vars)]
        env = _replay(eqns, n, in_vars, t_flat)
        res = [instantiate(env[v] if v is not None else None, like=o)
               for o, v in zip(outs, out_vars)]
        return _tree.unflatten(out_tree, res)

    return _tree.unflatten(out_tree, outs), f_jvp
