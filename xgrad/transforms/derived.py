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
from ..backends import backend_of, is_inexact, is_complex
from .jvp import jvp
from .vjp import vjp_owning, grad
from .vmap import map_basis
from ._api import (as_primal, check_diff_input, diff_args, flatten_fun, frozen, instantiate,
                   owned_tree, repeat)

__all__ = ["jacfwd", "jacrev", "hessian", "hvp"]


def _assemble(jac, out_tree, in_tree, multi, pick=None):
    """jac[o][i] -> pytree: outer structure of the output, inner of the input
    (``pick``: repeated argnums, see ``diff_args``)."""
    per_out = []
    for row in jac:
        inner = repeat(_tree.unflatten(in_tree, row), pick)
        per_out.append(inner if multi else inner[0])
    return _tree.unflatten(out_tree, per_out)


def _std_basis(leaves):
    """The identity over the concatenated space of ``leaves``, split per leaf:
    one (N, *leaf.shape) array each, N = total number of elements."""
    sizes = [math.prod(x.shape) for x in leaves]
    n = sum(sizes)
    out, start = [], 0
    for x, k in zip(leaves, sizes):
        xp_k = backend_of(x)
        dev = xnp._device_of(x)             # the input's device (array_api_strict checks)
        eye = (xp_k.eye(n, k, k=-start, dtype=x.dtype, device=dev) if n
               else xp_k.zeros((0, k), dtype=x.dtype, device=dev))
        out.append(xp_k.reshape(eye, (n,) + tuple(x.shape)))
        start += k
    return out, sizes


def _split_rows(m, sizes, shapes, tail):
    """(N, *tail) -> one (*shape_o, *tail) block per leaf o of the N-space."""
    out, start = [], 0
    for k, shp in zip(sizes, shapes):
        block = m[start:start + k, ...]
        out.append(xnp.reshape(block, tuple(shp) + tuple(tail)))
        start += k
    return out


def jacfwd(fun, argnums=0, has_aux=False, holomorphic=False):
    """Jacobian by forward mode: ``vmap`` of ``jvp`` over the input basis
    (one batched pass, no Python loop over basis vectors).

    Returns a function giving an array of shape ``out.shape + in.shape``
    (pytrees nest as in JAX: output structure outside, input inside). A
    repeated entry of a tuple ``argnums`` gets the same Jacobian in each
    place (as ``grad``; so do ``jacrev`` and ``hessian``).

    >>> import xgrad, xgrad.numpy as xnp
    >>> xgrad.jacfwd(lambda x: x ** 2)(xnp.asarray([1.0, 2.0])).tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    """

    def jac_f(*args, **kwargs):
        multi, nums, flat, in_tree, pick = diff_args(args, argnums, "jacfwd", holomorphic)
        store = {}
        f_flat = flatten_fun(fun, in_tree, store, "jacfwd", has_aux, args, nums, kwargs)
        basis, sizes = _std_basis(flat)

        def push(*ts):
            return jvp(f_flat, tuple(flat), ts)
        outs = None
        if sum(sizes):
            # the outputs come out of the same batched pass: they don't depend on
            # the tangent (every row is the same; a call primitive may still mark
            # them batched, hence out_axes 0 and row 0); aux would be batched
            # there, so with has_aux it is recomputed
            outs, cols = map_basis(push, basis, "jacfwd")           # (N, *out_o)
            outs = [o[0, ...] for o in outs]
        if outs is None or has_aux:
            outs = f_flat(*[frozen(x) for x in flat])
        aux = store.get("aux")
        outs = [instantiate(o) for o in outs]
        if not sum(sizes):
            cols = [xnp.zeros((0,) + tuple(o.shape), dtype=o.dtype, device=xnp._device_of(o))
                    for o in outs]
        jac = []
        for o, c in zip(outs, cols):
            c = xnp.astype(c, o.dtype) if c.dtype != o.dtype else c
            blocks = _split_rows(c, sizes, [x.shape for x in flat], o.shape)
            # each block is (*in_k, *out_o): bring the output axes first
            row = []
            for b, x in zip(blocks, flat):
                ni, no = len(x.shape), len(o.shape)
                row.append(xnp.permute_dims(b, tuple(range(ni, ni + no)) + tuple(range(ni))))
            jac.append(row)
        # the Jacobians of outputs linear in x are views of one tangent
        # buffer (the basis itself for x, x[1:]): each leaf gets its own
        res = owned_tree(_assemble(jac, store["tree"], in_tree, multi, pick), flat)
        return (res, aux) if has_aux else res
    return jac_f


def jacrev(fun, argnums=0, has_aux=False, holomorphic=False):
    """Jacobian by reverse mode: one ``vjp`` trace, pulled back with ``vmap``
    over the output basis (one batched backward pass).

    >>> import xgrad, xgrad.numpy as xnp
    >>> xgrad.jacrev(lambda x: x ** 2)(xnp.asarray([1.0, 2.0])).tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    """

    def jac_f(*args, **kwargs):
        multi, nums, flat, in_tree, pick = diff_args(args, argnums, "jacrev",
                                               True if holomorphic else None)
        store = {}
        f_flat = flatten_fun(fun, in_tree, store, "jacrev", has_aux, args, nums, kwargs)
        outs, vjp_fn = vjp_owning(f_flat, flat)   # vjp_fn does not escape: no copies
        for o, out in enumerate(outs):
            if not is_inexact(out.dtype):
                raise TypeError(f"jacrev: output {o} has dtype {out.dtype}; "
                                f"the Jacobian needs floating-point outputs")
            if is_complex(out.dtype) and not holomorphic:
                raise TypeError(f"jacrev requires real-valued outputs, but output {o} has dtype "
                                f"{out.dtype}. For holomorphic differentiation pass "
                                f"holomorphic=True.")
            if holomorphic and not is_complex(out.dtype):
                raise TypeError(f"jacrev with holomorphic=True requires complex outputs, but "
                                f"output {o} has dtype {out.dtype}")
        basis, sizes = _std_basis(outs)
        if sum(sizes) == 1:
            # one output element (a scalar function): one pull-back, no vmap level
            rows = [xnp.expand_dims(r, axis=0) for r in vjp_fn([b[0, ...] for b in basis])]
        elif sum(sizes):
            rows = map_basis(lambda *cts: vjp_fn(list(cts)), basis, "jacrev")  # (N, *in_k)
        else:
            rows = [xnp.zeros((0,) + tuple(x.shape), dtype=x.dtype, device=xnp._device_of(x))
                    for x in flat]
        per_in = [_split_rows(r, sizes, [o.shape for o in outs], x.shape)
                  for r, x in zip(rows, flat)]
        jac = [[per_in[k][o] for k in range(len(flat))] for o in range(len(outs))]
        res = _assemble(jac, store["tree"], in_tree, multi, pick)
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
    fixed. Never forms the Hessian. ``tangents`` holds exactly one tangent
    (for ``primals[0]``): more is a TypeError, not silently dropped.

    >>> import xgrad, xgrad.numpy as xnp
    >>> f = lambda w: w[0] ** 2 * xnp.sin(w[1])
    >>> xgrad.hvp(f, (xnp.asarray([1.0, xnp.pi / 2]),), (xnp.asarray([0.5, 1.0]),)).round(12).tolist()
    [1.0, -1.0]
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("hvp: primals and tangents must be tuples or lists")
    if not primals:
        raise TypeError("hvp: need at least one primal")
    if len(tangents) != 1:
        # NB: the tangent is for the first argument only (the others are held
        # fixed): a tangent per argument would be silently dropped
        raise TypeError(f"hvp: {len(primals)} primal(s) and {len(tangents)} tangents; hvp "
                        f"differentiates with respect to primals[0] only, so tangents must "
                        f"hold exactly one tangent, structured like primals[0] (for tangents "
                        f"of every argument use jvp(grad(fun, argnums), primals, tangents))")
    leaves, p_tree = _tree.flatten(primals[0])
    for i, x in enumerate(leaves):
        check_diff_input(as_primal(x, "hvp", f"primals[0]{_tree.path_str(p_tree, i)}"), "hvp",
                         f"primals[0]{_tree.path_str(p_tree, i)}")
    rest = tuple(primals[1:])
    g = grad(lambda x: fun(x, *rest))
    return jvp(g, (primals[0],), (tangents[0],))[1]
