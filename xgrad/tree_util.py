"""``xgrad.tree_util``: ``jax.tree_util``'s names for ``xgrad.tree``.

The same pytrees and the same registry as ``xgrad.tree`` (``tree_map`` is
``xgrad.tree.map`` with JAX's ``is_leaf``), so a JAX script's
``jax.tree_util`` calls port by changing the import. Key paths use JAX's
key types (``SequenceKey``, ``DictKey``, ``GetAttrKey``,
``FlattenedIndexKey``) and print as JAX prints them (``keystr``).

>>> from xgrad import tree_util
>>> tree_util.tree_map(lambda x: 2 * x, {"w": 1, "b": (2, 3)})
{'w': 2, 'b': (4, 6)}
>>> [tree_util.keystr(p) for p, _ in tree_util.tree_leaves_with_path({"w": [5, 6]})]
["['w'][0]", "['w'][1]"]
"""
import dataclasses as _dataclasses
import functools as _functools

import optree as _optree

from . import tree as _tree
from .tree import register_dataclass, register_pytree_node

__all__ = ["tree_map", "tree_leaves", "tree_flatten", "tree_unflatten", "tree_structure",
           "tree_all", "tree_reduce", "tree_transpose", "tree_map_with_path",
           "tree_flatten_with_path", "tree_leaves_with_path", "keystr", "all_leaves",
           "treedef_children", "treedef_is_leaf", "treedef_tuple", "tree_broadcast",
           "tree_reduce_associative", "flatten_one_level", "flatten_one_level_with_keys",
           "is_tree_node", "register_pytree_with_keys", "register_pytree_with_keys_class",
           "register_pytree_node", "register_pytree_node_class", "register_dataclass",
           "register_static", "Partial", "SequenceKey", "DictKey", "GetAttrKey",
           "FlattenedIndexKey"]

_NS = _tree._NAMESPACE


def tree_flatten(tree, is_leaf=None):
    """``(leaves, treedef)``; ``is_leaf(x)`` true makes ``x`` a leaf."""
    return _optree.tree_flatten(tree, is_leaf=is_leaf, none_is_leaf=False, namespace=_NS)


def tree_unflatten(treedef, leaves):
    """Inverse of ``tree_flatten``."""
    return _optree.tree_unflatten(treedef, leaves)


def tree_leaves(tree, is_leaf=None):
    return _optree.tree_leaves(tree, is_leaf=is_leaf, none_is_leaf=False, namespace=_NS)


def tree_structure(tree, is_leaf=None):
    return _optree.tree_structure(tree, is_leaf=is_leaf, none_is_leaf=False, namespace=_NS)


def tree_map(f, tree, *rest, is_leaf=None):
    """``f`` applied leaf-wise over ``tree`` and the trees of ``rest`` (of
    ``tree``'s structure, or with ``tree``'s leaves as their prefixes)."""
    return _optree.tree_map(f, tree, *rest, is_leaf=is_leaf, none_is_leaf=False, namespace=_NS)


def tree_all(tree, *, is_leaf=None):
    """Whether every leaf is truthy."""
    return all(tree_leaves(tree, is_leaf=is_leaf))


_NO_INIT = object()


def tree_reduce(function, tree, initializer=_NO_INIT, is_leaf=None):
    """``functools.reduce`` over the leaves."""
    leaves = tree_leaves(tree, is_leaf=is_leaf)
    if initializer is _NO_INIT:
        return _functools.reduce(function, leaves)
    return _functools.reduce(function, leaves, initializer)


def tree_reduce_associative(operation, tree, *, identity=_NO_INIT, is_leaf=None):
    """Reduce the leaves with the associative ``operation``, pairwise (a
    balanced tree of calls); ``identity`` for an empty tree."""
    xs = tree_leaves(tree, is_leaf=is_leaf)
    if not xs:
        if identity is _NO_INIT:
            raise TypeError("tree_reduce_associative: empty tree and no identity")
        return identity
    while len(xs) > 1:
        xs = [operation(xs[i], xs[i + 1]) if i + 1 < len(xs) else xs[i]
              for i in range(0, len(xs), 2)]
    return xs[0]


def tree_broadcast(prefix_tree, full_tree, is_leaf=None):
    """``prefix_tree`` with each of its leaves repeated over the subtree of
    ``full_tree`` at its place."""
    return _optree.tree_broadcast_prefix(prefix_tree, full_tree, is_leaf=is_leaf,
                                         none_is_leaf=False, namespace=_NS)


def _one_level(tree):
    if tree is None or not is_tree_node(type(tree)):
        raise ValueError(f"can't flatten one level of a leaf ({type(tree).__name__})")
    return _optree.tree_flatten_one_level(tree, none_is_leaf=False, namespace=_NS)


def _aux(out):
    m = out.metadata if out.metadata is not None else out.entries
    return tuple(m) if isinstance(m, list) else m


def flatten_one_level(tree):
    """``(children, aux)`` of the node ``tree`` (ValueError for a leaf)."""
    out = _one_level(tree)
    return tuple(out.children), _aux(out)


def flatten_one_level_with_keys(tree):
    """``(((key, child), ...), aux)`` of the node ``tree``, with JAX's key
    types (those of ``tree_flatten_with_path``, one level down)."""
    out = _one_level(tree)
    # every child a leaf: one path entry per child
    spec = tree_structure(tree, is_leaf=lambda x: x is not tree)
    keys = [_key(acc[0]) for acc in spec.accessors()]
    return tuple(zip(keys, out.children)), _aux(out)


def is_tree_node(typ):
    """Whether instances of the type ``typ`` are nodes (containers), not leaves."""
    if not isinstance(typ, type):
        raise TypeError(f"is_tree_node: expected a type, got {typ!r}")
    if typ is type(None):
        return True
    return (_optree.register_pytree_node.get(typ, namespace=_NS) is not None
            or _optree.is_namedtuple_class(typ))


def register_pytree_with_keys(nodetype, flatten_with_keys, unflatten_func, flatten_func=None):
    """Register ``nodetype`` with a flatten that gives ``((key, child), ...)``
    pairs (``flatten_func``, when given, is used where keys are not needed)."""
    def flat(x):
        if flatten_func is not None:
            return flatten_func(x)
        pairs, aux = flatten_with_keys(x)
        return [c for _, c in pairs], aux
    return register_pytree_node(nodetype, flat, unflatten_func)


def register_pytree_with_keys_class(cls):
    """Register a class with ``tree_flatten_with_keys(self)`` and
    ``tree_unflatten(cls, aux, children)`` methods."""
    flat = getattr(cls, "tree_flatten", None)
    return register_pytree_with_keys(cls, lambda x: x.tree_flatten_with_keys(), cls.tree_unflatten,
                                     (lambda x: x.tree_flatten()) if flat is not None else None)


def tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose):
    """An outer tree of inner trees as an inner tree of outer trees
    (``inner_treedef`` None: read from the first inner tree)."""
    if inner_treedef is None:
        first = outer_treedef.flatten_up_to(pytree_to_transpose)[0]
        inner_treedef = tree_structure(first)
    return _optree.tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose)


def all_leaves(iterable, is_leaf=None):
    """Whether every element of ``iterable`` is a leaf."""
    return all(_optree.treespec_is_leaf(tree_structure(x, is_leaf=is_leaf)) for x in iterable)


def treedef_children(treedef):
    return list(treedef.children())


def treedef_is_leaf(treedef):
    return _optree.treespec_is_leaf(treedef)


def treedef_tuple(treedefs):
    """The treedef of a tuple of trees of these treedefs."""
    return _optree.treespec_tuple(list(treedefs), none_is_leaf=False, namespace=_NS)


def register_pytree_node_class(cls):
    """Register a class with ``tree_flatten(self) -> (children, aux)`` and
    ``tree_unflatten(cls, aux, children)`` methods; usable as a decorator."""
    return register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)


def register_static(cls):
    """Register a class as a node with no children: its instances are part
    of the tree structure (compared by ``==``), never leaves."""
    return register_pytree_node(cls, lambda x: ((), x), lambda aux, _: aux)


class Partial(_functools.partial):
    """``functools.partial`` as a pytree: the bound arguments are children
    (a transform differentiates or batches them), the function is structure;
    so a ``Partial`` passes through ``grad``/``vmap`` as an argument."""

    def __new__(cls, func, *args, **kw):
        # Partial(Partial(f, a), b) binds both, as functools.partial does
        if isinstance(func, Partial):
            return super().__new__(cls, func.func, *func.args, *args, **{**func.keywords, **kw})
        return super().__new__(cls, func, *args, **kw)


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, c: Partial(func, *c[0], **c[1]))


# ----- key paths, as JAX spells them -----

class _Key:
    """One step of a key path; prints as JAX prints it (``_form`` of its
    one field's repr, or of its name for an attribute)."""
    _form = "[{!r}]"

    def __str__(self):
        return self._form.format(*_dataclasses.astuple(self))


@_dataclasses.dataclass(frozen=True)
class SequenceKey(_Key):
    """A position in a list or tuple: ``[idx]``."""
    idx: int


@_dataclasses.dataclass(frozen=True)
class DictKey(_Key):
    """A dict key: ``[key]``."""
    key: object


@_dataclasses.dataclass(frozen=True)
class GetAttrKey(_Key):
    """An attribute (namedtuple or dataclass field): ``.name``."""
    name: str
    _form = ".{}"


@_dataclasses.dataclass(frozen=True)
class FlattenedIndexKey(_Key):
    """The position of a child of a custom node: ``[<flat index key>]``."""
    key: int
    _form = "[<flat index {}>]"


def _key(entry):
    """JAX's key for one optree path entry."""
    if isinstance(entry, (_optree.NamedTupleEntry, _optree.StructSequenceEntry)):
        return GetAttrKey(entry.field)
    if isinstance(entry, _optree.DataclassEntry):
        return GetAttrKey(entry.name)
    if isinstance(entry, _optree.MappingEntry):
        return DictKey(entry.entry)
    if isinstance(entry, _optree.SequenceEntry) and entry.type in (list, tuple):
        return SequenceKey(entry.entry)
    return FlattenedIndexKey(entry.entry)


def tree_flatten_with_path(tree, is_leaf=None):
    """``([(key_path, leaf), ...], treedef)``: each leaf with the tuple of
    keys that leads to it."""
    leaves, treedef = tree_flatten(tree, is_leaf=is_leaf)
    paths = [tuple(_key(e) for e in acc) for acc in treedef.accessors()]
    return list(zip(paths, leaves)), treedef


def tree_leaves_with_path(tree, is_leaf=None):
    return tree_flatten_with_path(tree, is_leaf=is_leaf)[0]


def tree_map_with_path(f, tree, *rest, is_leaf=None):
    """``f(key_path, leaf, *others)`` applied leaf-wise."""
    pairs, treedef = tree_flatten_with_path(tree, is_leaf=is_leaf)
    others = [treedef.flatten_up_to(r) for r in rest]
    return tree_unflatten(treedef, [f(p, x, *xs) for (p, x), *xs in zip(pairs, *others)])


def keystr(keys, *, simple=False, separator=""):
    """A key path as text: ``['w'][0].b``; ``simple=True`` drops the
    brackets and quotes and joins with ``separator``."""
    if not simple:
        return "".join(str(k) for k in keys)
    return separator.join(str(_dataclasses.astuple(k)[0]) for k in keys)
