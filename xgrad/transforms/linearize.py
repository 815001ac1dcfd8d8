"""``linearize``: one forward pass that evaluates ``fun`` and stages its
tangent computation into a ``Program``; ``f_jvp`` evaluates only that
linear part.

The tangents of the inputs are staged values (``program.StageTrace``, with
shadow values: the tangent computation run once on zero tangents, so that
the rules see real shapes and dtypes) of a trace that sits below the ``jvp``
trace. Every operation the JVP rules apply to them becomes an equation;
everything that does not depend on the tangents (``cos(x)`` in the rule of
``sin``, the primal values) is a constant of the Program: the residuals, as
in JAX's linearize. ``f_jvp(t)`` evaluates the Program on ``t``: no primal
work, and since evaluating only binds, it composes with every transform
(vmap of f_jvp, grad through it).
"""
from __future__ import annotations

from ..core import new_main
from ..backends import is_inexact
from ..program import StageTrace, StageTracer, eval_program
from .. import numpy as xnp
from .. import tree as _tree
from ._api import (as_primal, check_tangent, flatten_fun, fresh, fresh_once, instantiate, owned,
                   tangents_like)
from .jvp import jvp_flat

__all__ = ["linearize"]


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
    flat = [fresh(x) for x in flat]
    store = {}
    f_flat = flatten_fun(fun, in_tree, store, "linearize")
    # f_jvp outlives the call: the plain arrays the Program keeps (arrays fun
    # closes over are the caller's, who may write them later) are copied once
    copies = {}
    with new_main(StageTrace, True, lambda a: fresh_once(copies, a)) as st:
        ins = [st.new_var(xnp._zeros_like(p)) if is_inexact(p.dtype) else None for p in flat]
        in_vars = [None if t is None else t.staged_var for t in ins]
        outs, t_outs = jvp_flat(f_flat, flat, ins)
        # an output tangent is a staged value, or does not depend on the input
        # tangents at all (None: zero)
        t_outs = [t if type(t) is StageTracer and t._trace is st else None for t in t_outs]
        program = st.program(in_vars, t_outs).prune()
    copies = None
    out_tree = store["tree"]
    # a call primitive (checkpoint) binds its primal and tangent outputs in
    # one staged equation: a primal output is then a staged value holding
    # the primal value (the tangents are shadows), never returned as such
    outs = [fresh(instantiate(o.primal if type(o) is StageTracer and o._trace is st else o))
            for o in outs]

    def f_jvp(*tangents):
        if len(tangents) != len(primals):
            raise TypeError(f"f_jvp: expected {len(primals)} tangent(s), one per primal, "
                            f"got {len(tangents)}")
        t_flat = tangents_like(in_tree, tangents, "f_jvp")
        t_flat = [check_tangent(p, t, f"tangents{_tree.path_str(in_tree, i)}", "f_jvp")
                  for i, (p, t) in enumerate(zip(flat, t_flat))]
        t_flat = [xnp._zeros_like(p) if t is None and v is not None else t
                  for p, t, v in zip(flat, t_flat, program.in_vars)]
        res = [instantiate(t, like=o) for o, t in zip(outs, eval_program(program, t_flat))]
        # a tangent passed through (the identity, a view) is a copy
        return _tree.unflatten(out_tree, owned(res, t_flat))

    return _tree.unflatten(out_tree, outs), f_jvp
