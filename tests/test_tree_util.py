"""xgrad.tree_util against jax.tree_util: the same leaves, structures, paths
and key strings for the same trees, and Partial through the transforms."""
import collections
import dataclasses
import operator

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad import tree_util as tu

Pair = collections.namedtuple("Pair", "a b")


@dataclasses.dataclass
class Params:
    w: object
    b: object


tu.register_dataclass(Params, data_fields=["w", "b"], meta_fields=[])

TREES = [
    {"w": [1.0, (2.0, 3.0)], "b": Pair(4.0, 5.0)},
    [1.0, None, {"z": 2.0, "a": [3.0]}],
    (),
    7.0,
    Pair(a=[1.0, 2.0], b={"k": (3.0,)}),
]


@pytest.fixture
def jtu(jax):
    return jax.tree_util


@pytest.mark.parametrize("tree", TREES, ids=range(len(TREES)))
def test_leaves_paths_and_keystr_match_jax(tree, jtu):
    assert tu.tree_leaves(tree) == jtu.tree_leaves(tree)
    got = tu.tree_leaves_with_path(tree)
    want = jtu.tree_leaves_with_path(tree)
    assert [x for _, x in got] == [x for _, x in want]
    assert [tu.keystr(p) for p, _ in got] == [jtu.keystr(p) for p, _ in want]
    assert [tu.keystr(p, simple=True, separator="/") for p, _ in got] == \
        [jtu.keystr(p, simple=True, separator="/") for p, _ in want]
    assert tu.tree_structure(tree).num_leaves == jtu.tree_structure(tree).num_leaves


def test_map_reduce_all_and_is_leaf(jtu):
    t = TREES[0]
    assert tu.tree_map(lambda x, y: x * y, t, t) == jtu.tree_map(lambda x, y: x * y, t, t)
    assert tu.tree_reduce(operator.add, t) == jtu.tree_reduce(operator.add, t) == 15.0
    assert tu.tree_reduce(operator.add, (), 10) == 10
    assert tu.tree_all([True, (1, 2.0)]) and not tu.tree_all([True, (0, 2.0)])
    is_pair = lambda x: isinstance(x, Pair)                        # noqa: E731
    assert tu.tree_leaves(t, is_leaf=is_pair) == jtu.tree_leaves(t, is_leaf=is_pair)
    assert tu.tree_map(lambda p: p.a if is_pair(p) else p, t, is_leaf=is_pair)["b"] == 4.0
    got = tu.tree_map_with_path(lambda p, x: tu.keystr(p) + str(x), t)
    want = jtu.tree_map_with_path(lambda p, x: jtu.keystr(p) + str(x), t)
    assert got == want


def test_flatten_unflatten_transpose_and_treedefs(jtu):
    t = TREES[1]
    leaves, td = tu.tree_flatten(t)
    assert tu.tree_unflatten(td, [2 * x for x in leaves]) == [2.0, None, {"z": 4.0, "a": [6.0]}]
    outer = tu.tree_structure([0, 0, 0])
    inner = tu.tree_structure((0, 0))
    tr = tu.tree_transpose(outer, inner, [(1, 2), (3, 4), (5, 6)])
    assert tr == jtu.tree_transpose(jtu.tree_structure([0, 0, 0]), jtu.tree_structure((0, 0)),
                                    [(1, 2), (3, 4), (5, 6)]) == ([1, 3, 5], [2, 4, 6])
    assert tu.tree_transpose(outer, None, [(1, 2), (3, 4), (5, 6)]) == ([1, 3, 5], [2, 4, 6])
    assert len(tu.treedef_children(tu.tree_structure((1, [2, 3])))) == 2
    assert tu.treedef_is_leaf(tu.tree_structure(1.0))
    assert not tu.treedef_is_leaf(tu.tree_structure((1.0,)))
    both = tu.treedef_tuple([tu.tree_structure([0]), tu.tree_structure(0)])
    assert tu.tree_unflatten(both, [1, 2]) == ([1], 2)
    assert tu.all_leaves([1.0, 2.0]) and not tu.all_leaves([1.0, (2.0,)])


def test_registered_classes_and_dataclass_paths(jtu):
    @tu.register_pytree_node_class
    class Box:
        def __init__(self, x, tag):
            self.x, self.tag = x, tag

        def tree_flatten(self):
            return (self.x,), self.tag

        @classmethod
        def tree_unflatten(cls, tag, children):
            return cls(children[0], tag)

    b = tu.tree_map(lambda v: v + 1, Box(1.0, "t"))
    assert (b.x, b.tag) == (2.0, "t")
    assert tu.keystr(tu.tree_leaves_with_path([Box(1.0, "t")])[0][0]) == "[0][<flat index 0>]"
    p = Params(w=1.0, b=2.0)
    assert [tu.keystr(k) for k, _ in tu.tree_leaves_with_path(p)] == [".w", ".b"]

    @tu.register_static
    class Cfg:
        def __init__(self, n):
            self.n = n

        def __eq__(self, o):
            return isinstance(o, Cfg) and o.n == self.n

        def __hash__(self):
            return hash(self.n)

    assert tu.tree_leaves([Cfg(3), 1.0]) == [1.0]


def test_partial_is_a_pytree_through_grad_and_vmap():
    def f(w, x):
        return xnp.sum(w * xnp.sin(x))

    p = tu.Partial(f, xnp.asarray([1.0, 2.0]))
    assert tu.tree_leaves(p)[0].shape == (2,)
    x = np.array([0.3, -0.7])
    assert float(p(x)) == pytest.approx(np.sum([1.0, 2.0] * np.sin(x)), rel=1e-15)

    # the bound weight is a leaf: grad through the Partial reaches it
    g = xgrad.grad(lambda q: q(x))(p)
    np.testing.assert_allclose(np.asarray(g.args[0]), np.sin(x), rtol=1e-15)
    assert g.func is f
    # Partial of a Partial binds both
    pp = tu.Partial(tu.Partial(lambda a, b, c: a + 10 * b + 100 * c, 1.0), 2.0)
    assert pp(3.0) == 321.0 and len(pp.args) == 2
    out = xgrad.vmap(lambda q, xi: q(xi), in_axes=(None, 0))(p, np.stack([x, 2 * x]))
    np.testing.assert_allclose(np.asarray(out), [f(np.array([1.0, 2.0]), x),
                                                 f(np.array([1.0, 2.0]), 2 * x)], rtol=1e-14)


def test_same_registry_as_xgrad_tree():
    assert tu.tree_map is not xgrad.tree.map
    assert tu.register_pytree_node is xgrad.tree.register_pytree_node
    assert tu.tree_leaves(Params(w=1.0, b=2.0)) == xgrad.tree.leaves(Params(w=1.0, b=2.0))


class Pair2:
    def __init__(self, x):
        self.x = x


def test_one_level_broadcast_associative_and_keyed_registration(jtu):
    t = {"a": 1.0, "b": [2.0, 3.0]}
    assert tu.flatten_one_level(t) == ((1.0, [2.0, 3.0]), ("a", "b"))
    assert tuple(jtu.flatten_one_level(t)[0]) == (1.0, [2.0, 3.0])
    got = tu.flatten_one_level_with_keys(t)[0]
    want = jtu.flatten_one_level_with_keys(t)[0]
    assert [(jtu.keystr((k,)), c) for k, c in want] == [(tu.keystr((k,)), c) for k, c in got]
    with pytest.raises(ValueError):
        tu.flatten_one_level(1.0)
    assert tu.tree_broadcast([1, {"a": 2}], [(3, 4), {"a": [5, 6]}]) == \
        jtu.tree_broadcast([1, {"a": 2}], [(3, 4), {"a": [5, 6]}])
    assert tu.tree_reduce_associative(operator.add, [1, 2, 3, 4, 5]) == 15
    assert tu.tree_reduce_associative(operator.add, [], identity=0) == 0
    tu.register_pytree_with_keys(Pair2, lambda p: (((tu.GetAttrKey("x"), p.x),), None),
                                 lambda aux, c: Pair2(*c))
    assert tu.tree_leaves(Pair2(5.0)) == [5.0]
    assert tu.is_tree_node(list) and tu.is_tree_node(Pair) and not tu.is_tree_node(float)

    @tu.register_pytree_with_keys_class
    class Two:
        def __init__(self, u, v):
            self.u, self.v = u, v

        def tree_flatten_with_keys(self):
            return ((tu.GetAttrKey("u"), self.u), (tu.GetAttrKey("v"), self.v)), None

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children)
    out = tu.tree_map(lambda x: x * 10, Two(1.0, 2.0))
    assert (out.u, out.v) == (10.0, 20.0)


def test_key_types_print_as_jax_and_flatten_with_path(jtu):
    for ours, theirs in [(tu.SequenceKey(2), jtu.SequenceKey(2)), (tu.DictKey("w"), jtu.DictKey("w")),
                         (tu.GetAttrKey("b"), jtu.GetAttrKey("b")),
                         (tu.FlattenedIndexKey(1), jtu.FlattenedIndexKey(1))]:
        assert str(ours) == str(theirs)
    pairs, td = tu.tree_flatten_with_path(TREES[0])
    jpairs, _ = jtu.tree_flatten_with_path(TREES[0])
    assert [tu.keystr(p) for p, _ in pairs] == [jtu.keystr(p) for p, _ in jpairs]
    assert tu.tree_unflatten(td, [x for _, x in pairs]) == TREES[0]
