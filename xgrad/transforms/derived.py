"""Derived transforms: compositions of jvp, vjp and grad, no new Trace.

``jacfwd`` pushes the input basis through ``jvp``, ``jacrev`` pulls the
output basis through one ``vjp`` (its ``vjp_fn`` is reused), ``hessian`` is
``jacfwd(jacrev(f))`` and ``hvp`` is ``jvp(grad(f))`` (forward-over-reverse,
never forming the Hessian).
"""
from __future__ import annotations

import math

from .. import numpy as xnp
from .. import tree as _tree
from ..backends import backend_of, is_inexact
from .jvp import jvp
from .vjp import vjp, grad, _check_argnums, _ArgPath
from ._api import as_primal, check_diff_input, split_aux, instantiate

__all__ = ["jacfwd", "jacrev", "hessian", "hvp", "linearize"]


def _basis(x):
    """The standard basis of ``x``'s space, one array per element."""
    n = math.prod(x.shape)
    xp = backend_of(x)
    eye = xp.eye(n, dtype=x.dtype) if n else None
    return [xp.reshape(eye[i, ...], tuple(x.shape)) for i in range(n)]


def _stack_jac(cols, out_shape, in_shape, dtype):
    """Columns (one per input element, each out-shaped) -> out.shape + in.shape."""
    if not cols:
        return xnp.zeros(tuple(out_shape) + tuple(in_shape), dtype=dtype)
    return xnp.reshape(xnp.stack(cols, axis=-1), tuple(out_shape) + tuple(in_shape))


def _stack_rows(rows, out_shape, in_shape, dtype):
    """Rows (one per output element, each in-shaped) -> out.shape + in.shape."""
    if not rows:
        return xnp.zeros(tuple(out_shape) + tuple(in_shape), dtype=dtype)
    return xnp.reshape(xnp.stack(rows, axis=0), tuple(out_shape) + tuple(in_shape))


def _diff_args(args, argnums, fname):
    multi, nums = _check_argnums(argnums, len(args), fname)
    diff = tuple(args[i] for i in nums)
    flat, in_tree = _tree.flatten(diff)
    for i, x in enumerate(flat):
        where = _ArgPath(nums, in_tree, i)
        x = flat[i] = as_primal(x, fname, where)
        check_diff_input(x, fname, where)
    return multi, nums, flat, in_tree


def _closure(fun, args, kwargs, nums, in_tree, has_aux, store):
    def f_flat(*xs):
        new = list(args)
        for i, a in zip(nums, _tree.unflatten(in_tree, xs)):
            new[i] = a
        out = fun(*new, **kwargs)
        if has_aux:
            out, store["aux"] = split_aux(out, store["name"])
        o_flat, store["out_tree"] = _tree.flatten(out)
        return o_flat
    return f_flat


def _assemble(jac, out_tree, in_tree, multi):
    """jac[o][i] -> pytree: outer structure of the output, inner of the input."""
    per_out = []
    for row in jac:
        inner = _tree.unflatten(in_tree, row)
        per_out.append(inner if multi else inner[0])
    return _tree.unflatten(out_tree, per_out)


def jacfwd(fun, argnums=0, has_aux=False):
    """Jacobian by forward mode: one ``jvp`` per input element.

    Returns a function giving an array of shape ``out.shape + in.shape``
    (pytrees nest as in JAX: output structure outside, input inside).

    >>> import xgrad, xgrad.numpy as xnp
    >>> xgrad.jacfwd(lambda x: x ** 2)(xnp.asarray([1.0, 2.0])).tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    """
    def jac_f(*args, **kwargs):
        multi, nums, flat, in_tree = _diff_args(args, argnums, "jacfwd")
        store = {"name": "jacfwd"}
        f_flat = _closure(fun, args, kwargs, nums, in_tree, has_aux, store)
        cols_per_in = []
        outs = None
        for k, x in enumerate(flat):
            cols = []
            for e in _basis(x):
                tangents = [None] * len(flat)
                tangents[k] = e
                outs, t_outs = jvp(f_flat, tuple(flat), tuple(
                    t if t is not None else xnp.zeros_like(p) for t, p in zip(tangents, flat)))
                cols.append(t_outs)
            cols_per_in.append(cols)
        if outs is None:
            outs = f_flat(*flat)
        outs = [instantiate(o) for o in outs]
        jac = [[_stack_jac([c[o] for c in cols_per_in[k]], outs[o].shape, flat[k].shape,
                           outs[o].dtype)
                for k in range(len(flat))] for o in range(len(outs))]
        res = _assemble(jac, store["out_tree"], in_tree, multi)
        return (res, store["aux"]) if has_aux else res
    return jac_f


def jacrev(fun, argnums=0, has_aux=False):
    """Jacobian by reverse mode: one ``vjp`` trace, pulled back once per
    output element.

    >>> import xgrad, xgrad.numpy as xnp
    >>> xgrad.jacrev(lambda x: x ** 2)(xnp.asarray([1.0, 2.0])).tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    """
    def jac_f(*args, **kwargs):
        multi, nums, flat, in_tree = _diff_args(args, argnums, "jacrev")
        store = {"name": "jacrev"}
        f_flat = _closure(fun, args, kwargs, nums, in_tree, has_aux, store)
        outs, vjp_fn = vjp(f_flat, *flat)
        rows = []   # rows[o][e] = tuple of input cotangents
        for o, out in enumerate(outs):
            if not is_inexact(out.dtype):
                raise TypeError(f"jacrev: output {o} has dtype {out.dtype}; "
                                f"the Jacobian needs floating-point outputs")
            per_e = []
            for e in _basis(out):
                ct = [xnp.zeros_like(oo) for oo in outs]
                ct[o] = e
                per_e.append(vjp_fn(ct))
            rows.append(per_e)
        jac = [[_stack_rows([r[k] for r in rows[o]], out.shape, x.shape, x.dtype)
                for k, x in enumerate(flat)] for o, out in enumerate(outs)]
        res = _assemble(jac, store["out_tree"], in_tree, multi)
        return (res, store["aux"]) if has_aux else res
    return jac_f


def hessian(fun, argnums=0, has_aux=False):
    """Hessian, forward-over-reverse: ``jacfwd(jacrev(fun))``; shape
    ``in.shape + in.shape`` for a scalar function.

    >>> import xgrad, xgrad.numpy as xnp
    >>> xgrad.hessian(lambda x: xnp.sum(x ** 3))(xnp.asarray([1.0, 2.0])).tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    if has_aux:
        inner = jacrev(fun, argnums, has_aux=True)
        return jacfwd(inner, argnums, has_aux=True)
    return jacfwd(jacrev(fun, argnums), argnums)


def hvp(fun, primals, tangents):
    """Hessian-vector product w.r.t. the first argument, forward-over-reverse:
    ``jvp(grad(fun), primals, tangents)[1]`` with the other arguments held
    fixed. Never forms the Hessian.

    >>> import xgrad, xgrad.numpy as xnp
    >>> f = lambda w: w[0] ** 2 * xnp.sin(w[1])
    >>> xgrad.hvp(f, (xnp.asarray([1.0, xnp.pi / 2]),), (xnp.asarray([0.5, 1.0]),)).round(12).tolist()
    [1.0, -1.0]
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("hvp: primals and tangents must be tuples or lists")
    if not primals or len(tangents) < 1:
        raise ValueError("hvp: need at least one primal and its tangent")
    rest = tuple(primals[1:])
    g = grad(lambda x: fun(x, *rest))
    return jvp(g, (primals[0],), (tangents[0],))[1]


def linearize(fun, *primals):
    """``(out, f_jvp)`` with ``f_jvp(*tangents) == jvp(fun, primals, tangents)[1]``.

    NB: unlike JAX, ``f_jvp`` re-runs ``fun`` in forward mode on each call
    (eager tracing has no partial evaluation); results are identical.
    """
    out = fun(*primals)

    def f_jvp(*tangents):
        return jvp(fun, primals, tangents)[1]
    return out, f_jvp
