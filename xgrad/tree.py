"""Pytree utilities: thin re-exports of optree in xgrad's own namespace.

Containers: tuples, lists, dicts (keys sorted), namedtuples, None (an empty
node, never a leaf), plus anything registered with ``register_pytree_node``
or ``register_dataclass``. ``global_norm`` and ``clip_by_global_norm`` work
on gradient pytrees.
"""
import dataclasses as _dataclasses
import functools as _functools

import optree as _optree

from . import numpy as _xnp

__all__ = ["flatten", "unflatten", "leaves", "structure", "map", "global_norm",
           "clip_by_global_norm",
           "register_pytree_node", "register_dataclass", "path_str", "path_index",
           "tree_flatten", "tree_unflatten", "tree_map", "tree_leaves", "tree_structure"]

_NAMESPACE = "xgrad"     # optree's registry of xgrad's containers


def flatten(tree):
    """``(leaves, treedef)`` of a pytree."""
    return _optree.tree_flatten(tree, none_is_leaf=False, namespace=_NAMESPACE)


def unflatten(treedef, leaves):
    """Inverse of ``flatten``."""
    return _optree.tree_unflatten(treedef, leaves)


def leaves(tree):
    return _optree.tree_leaves(tree, none_is_leaf=False, namespace=_NAMESPACE)


def structure(tree):
    return _optree.tree_structure(tree, none_is_leaf=False, namespace=_NAMESPACE)


def map(f, tree, *rest):
    """Apply ``f`` leaf-wise over one or more pytrees of the same structure."""
    return _optree.tree_map(f, tree, *rest, none_is_leaf=False, namespace=_NAMESPACE)


def register_pytree_node(cls, flatten_fn, unflatten_fn):
    """Register a container: ``flatten_fn(x) -> (children, aux)``,
    ``unflatten_fn(aux, children) -> x``."""
    _optree.register_pytree_node(cls, flatten_fn, unflatten_fn, namespace=_NAMESPACE)
    return cls


def register_dataclass(cls=None, *, data_fields=None, meta_fields=None):
    """Register a dataclass: ``data_fields`` are children (default: all
    fields not in ``meta_fields``), ``meta_fields`` static. Usable as a
    decorator."""
    if cls is None:
        return _functools.partial(register_dataclass, data_fields=data_fields,
                                  meta_fields=meta_fields)
    names = [f.name for f in _dataclasses.fields(cls)]
    meta = tuple(meta_fields or ())
    data = tuple(data_fields) if data_fields is not None else tuple(n for n in names if n not in meta)

    def flat(x):
        return [getattr(x, n) for n in data], tuple(getattr(x, n) for n in meta)

    def unflat(aux, children):
        return cls(**dict(zip(data, children)), **dict(zip(meta, aux)))

    return register_pytree_node(cls, flat, unflat)


def path_str(treedef, i, skip=0):
    """Readable path of leaf ``i`` (for error messages): ``[0]['w']``."""
    try:
        path = treedef.paths()[i][skip:]
    except Exception:  # pragma: no cover
        return f"[leaf {i}]"
    return "".join(f"[{k!r}]" for k in path)


def path_index(treedef, i):
    """First key of leaf ``i``'s path (which positional argument)."""
    return treedef.paths()[i][0]


def global_norm(tree):
    """sqrt of the sum of squares of every leaf (differentiable)."""
    ls = leaves(tree)
    if not ls:
        return 0.0
    total = None
    for x in ls:
        s = _xnp.sum(_xnp.real(x * _xnp.conj(x)))
        total = s if total is None else _xnp.add(total, s)
    # double where: at an all-zero tree the value is 0 and the gradient 0 (a
    # subgradient), not sqrt's 0 * inf = NaN
    pos = total > 0
    return _xnp.where(pos, _xnp.sqrt(_xnp.where(pos, total, 1.0)), 0.0)


def clip_by_global_norm(tree, max_norm):
    """Scale every leaf by ``min(1, max_norm / global_norm(tree))`` (the
    gradient clipping of data-parallel training; differentiable)."""
    norm = global_norm(tree)
    scale = _xnp.minimum(1.0, max_norm / _xnp.maximum(norm, 1e-30))
    return map(lambda x: x * _xnp.astype(scale, x.dtype), tree)


tree_flatten, tree_unflatten, tree_map = flatten, unflatten, map
tree_leaves, tree_structure = leaves, structure
