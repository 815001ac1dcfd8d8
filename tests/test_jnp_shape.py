"""jax.numpy's shape, construction and indexing functions
(``xgrad/numpy/_shape_ext.py``) against jax: values and dtypes, derivatives
at orders 1 and 2, and vmap, on every backend (tests/jnp_cases.py)."""
import numpy as np
import pytest

from jnp_cases import JCase, check, ids

_r = np.random.default_rng(7)
A = _r.standard_normal((3, 4))
B = _r.standard_normal((2, 3))
V = _r.standard_normal(4)
W = _r.standard_normal(3)
C3 = _r.standard_normal((2, 3, 4))
S = _r.standard_normal((3, 3))
P = np.asarray([0.7, -1.3, 2.1, 0.4, -0.2])        # distinct values (no ties at kinks)
Q = _r.standard_normal((4, 5))
POS = np.asarray([1.5, 2.0, 3.0])
I3 = np.asarray([0, 5, 11])


def _pad(mode, width=((1, 2), (2, 1)), **kw):
    return lambda ns, x: ns.pad(x, width, mode=mode, **kw)


def _rowfn(row, pw, iaxis, kwargs):
    return row * 2.0 + 1.0


CASES = [
    JCase("append", lambda ns, a, b: ns.append(a, b), (A, V)),
    JCase("append", lambda ns, a, b: ns.append(a, b, axis=0), (A, Q[:2, :4]), id="axis"),
    JCase("apply_along_axis", lambda ns, a: ns.apply_along_axis(lambda r: ns.cumsum(r * r), 1, a),
          (A,)),
    JCase("apply_along_axis", lambda ns, a: ns.apply_along_axis(lambda r: ns.sum(r ** 3), 0, a),
          (C3,), id="scalar"),
    JCase("apply_over_axes", lambda ns, a: ns.apply_over_axes(lambda x, ax: ns.sum(x, axis=ax),
                                                              a, (0, 2)), (C3,)),
    JCase("array_split", lambda ns, a: ns.array_split(a, 3, axis=1), (A,)),
    JCase("array_split", lambda ns, a: ns.array_split(a, [1, 3]), (V,), id="indices"),
    JCase("atleast_1d", lambda ns, a, b: ns.atleast_1d(a, b), (np.asarray(2.0), A)),
    JCase("atleast_2d", lambda ns, a, b: ns.atleast_2d(a, b), (V, np.asarray(1.5))),
    JCase("atleast_3d", lambda ns, a, b, c: ns.atleast_3d(a, b, c), (V, A, np.asarray(1.5))),
    JCase("block", lambda ns, a, b, c, d: ns.block([[a, b], [c, d]]),
          (A[:2, :2], A[:2, 2:], B[:, :2], B[:, 1:])),
    JCase("block", lambda ns, a, b: ns.block([a, b]), (V, W), id="1d"),
    JCase("c_", lambda ns, a, b: ns.c_[a, b], (V, V * 2)),
    JCase("c_", lambda ns, a: ns.c_[a, 2 * a], (A,), id="2d"),
    JCase("column_stack", lambda ns, a, b: ns.column_stack((a, b)), (W, B.T)),
    JCase("copy", lambda ns, a: ns.copy(a), (A,)),
    JCase("delete", lambda ns, a: ns.delete(a, 1, axis=1), (A,)),
    JCase("delete", lambda ns, a: ns.delete(a, np.asarray([0, 2, -1])), (A,), id="array"),
    JCase("delete", lambda ns, a: ns.delete(a, slice(0, None, 2), axis=0), (A,), id="slice"),
    JCase("diag", lambda ns, a: ns.diag(a, 1), (V,)),
    JCase("diag", lambda ns, a: ns.diag(a, -1), (A,), id="2d"),
    JCase("diag_indices", lambda ns: ns.diag_indices(3, 3), (), order=0),
    JCase("diag_indices_from", lambda ns, a: ns.diag_indices_from(a), (S,), order=0),
    JCase("diagflat", lambda ns, a: ns.diagflat(a, -2), (B,)),
    JCase("diagonal", lambda ns, a: ns.diagonal(a, 1, 2, 0), (C3,)),
    JCase("diagonal", lambda ns, a: ns.diagonal(a, -1), (A,), id="2d"),
    JCase("dsplit", lambda ns, a: ns.dsplit(a, [1, 3]), (C3,)),
    JCase("dstack", lambda ns, a, b: ns.dstack([a, b]), (A, A * 3)),
    JCase("fill_diagonal", lambda ns, a, v: ns.fill_diagonal(a, v, inplace=False), (A, W[:2])),
    JCase("fill_diagonal", lambda ns, a: ns.fill_diagonal(a, 2.5, inplace=False), (S,),
          id="scalar"),
    JCase("fliplr", lambda ns, a: ns.fliplr(a), (A,)),
    JCase("flipud", lambda ns, a: ns.flipud(a), (A,)),
    JCase("hsplit", lambda ns, a: ns.hsplit(a, 2), (A,)),
    JCase("hstack", lambda ns, a, b: ns.hstack([a, b]), (A, A[:, :1])),
    JCase("hstack", lambda ns, a, b: ns.hstack((a, b)), (V, W), id="1d"),
    JCase("identity", lambda ns: ns.identity(3), (), order=0),
    JCase("identity", lambda ns: ns.identity(2, dtype=ns.int32), (), order=0, id="dtype"),
    JCase("index_exp", lambda ns, a: a[ns.index_exp[1:, ::2]], (A,)),
    JCase("indices", lambda ns: ns.indices((2, 3)), (), order=0),
    JCase("indices", lambda ns: ns.indices((2, 3), sparse=True), (), order=0, id="sparse"),
    JCase("insert", lambda ns, a, v: ns.insert(a, 1, v, axis=1), (A, W)),
    JCase("insert", lambda ns, a, v: ns.insert(a, np.asarray([3, 0, 3]), v), (V, W), id="array"),
    JCase("insert", lambda ns, a, v: ns.insert(a, np.asarray([1]), v, axis=0), (A, V), id="list"),
    JCase("insert", lambda ns, a: ns.insert(a, slice(0, 4, 2), 7.0), (V,), id="slice"),
    JCase("ix_", lambda ns: ns.ix_(np.asarray([0, 2]), np.asarray([1, 0, 3])), (),
          order=0),
    JCase("kron", lambda ns, a, b: ns.kron(a, b), (B, W)),
    JCase("kron", lambda ns, a, b: ns.kron(a, b), (B, A), id="2d"),
    JCase("mask_indices", lambda ns: ns.mask_indices(3, lambda m, k: ns.triu(m, k=k), 1), (),
          order=0),
    JCase("mgrid", lambda ns: ns.mgrid[0:3, 1:5:2], (), order=0),
    JCase("mgrid", lambda ns: ns.mgrid[0:1:5j], (), order=0, id="complex"),
    JCase("ogrid", lambda ns: ns.ogrid[0:3, 0:1:3j], (), order=0),
    JCase("pad", _pad("constant", constant_values=1.5), (A,)),
    JCase("pad", lambda ns, x, c: ns.pad(x, 2, constant_values=c), (A, np.asarray(0.3)),
          id="constant-traced"),
    JCase("pad", _pad("constant", constant_values=((1.0, 2.0), (3.0, 4.0))), (A,),
          id="constant-pairs"),
    JCase("pad", _pad("edge"), (A,), id="edge"),
    JCase("pad", _pad("linear_ramp", end_values=(0.5, -1.0)), (A,), id="linear_ramp"),
    JCase("pad", _pad("maximum", ((2, 1),), stat_length=3), (P,), order=1, id="maximum"),
    JCase("pad", _pad("minimum", (1, 3)), (P,), order=1, id="minimum"),
    JCase("pad", _pad("mean", stat_length=((2, 1), (1, 3))), (A,), id="mean"),
    JCase("pad", _pad("median", (2, 2)), (P,), order=1, id="median"),
    JCase("pad", _pad("median", (1, 1), stat_length=4), (P,), order=1, id="median-even"),
    JCase("pad", _pad("reflect", ((2, 7), (1, 3))), (A,), id="reflect"),
    JCase("pad", _pad("reflect", (4, 9), reflect_type="odd"), (V,), id="reflect-odd"),
    JCase("pad", _pad("symmetric", ((3, 5), (0, 2))), (A,), id="symmetric"),
    JCase("pad", _pad("symmetric", (5, 4), reflect_type="odd"), (W,), id="symmetric-odd"),
    JCase("pad", _pad("wrap", ((4, 5), (1, 2))), (A,), id="wrap"),
    JCase("pad", _pad("empty"), (A,), id="empty"),
    JCase("pad", lambda ns, x: ns.pad(x, 1, mode=_rowfn), (B,), id="callable"),
    JCase("place", lambda ns, a, v, m: ns.place(a, m, v, inplace=False), (A, W, A > 0)),
    JCase("put", lambda ns, a, v: ns.put(a, np.asarray([0, 5, 11]), v, inplace=False), (A, W)),
    JCase("put", lambda ns, a, v: ns.put(a, np.asarray([1, 14, -2]), v, mode="wrap",
                                         inplace=False), (A, W[:2]), id="wrap"),
    JCase("put", lambda ns, a, v: ns.put(a, np.asarray([1, 14]), v, mode="clip",
                                         inplace=False), (A, W[:2]), id="clip"),
    JCase("put_along_axis", lambda ns, a, v: ns.put_along_axis(a, np.asarray([[1], [0], [3]]),
                                                              v, 1, inplace=False),
          (A, W[:, None])),
    JCase("r_", lambda ns, a, b: ns.r_[a, 0.5, b], (V, W)),
    JCase("r_", lambda ns: ns.r_[0:3, 5:6, 0:1:3j], (), order=0, id="slices"),
    JCase("r_", lambda ns, a: ns.r_["0,2", a, a], (W,), id="directive"),
    JCase("r_", lambda ns, a: ns.r_["r", a, a], (W,), id="matrix"),
    JCase("ravel", lambda ns, a: ns.ravel(a), (C3,)),
    JCase("ravel", lambda ns, a: ns.ravel(a, order="F"), (A,), id="F"),
    JCase("ravel_multi_index", lambda ns, i, j: ns.ravel_multi_index((i, j), (3, 4)),
          (np.asarray([0, 2, 1]), np.asarray([3, 0, 1])), order=0),
    JCase("ravel_multi_index", lambda ns, i, j: ns.ravel_multi_index((i, j), (3, 4), mode="clip",
                                                                     order="F"),
          (np.asarray([0, 5, -1]), np.asarray([3, 0, 9])), order=0, id="clip-F"),
    JCase("ravel_multi_index", lambda ns, i, j: ns.ravel_multi_index((i, j), (3, 4), mode="wrap"),
          (np.asarray([0, 5, -1]), np.asarray([3, 0, 9])), order=0, id="wrap"),
    JCase("resize", lambda ns, a: ns.resize(a, (4, 5)), (A,)),
    JCase("resize", lambda ns, a: ns.resize(a, (2, 2)), (A,), id="shrink"),
    JCase("rollaxis", lambda ns, a: ns.rollaxis(a, 2, 0), (C3,)),
    JCase("rollaxis", lambda ns, a: ns.rollaxis(a, 0, 3), (C3,), id="end"),
    JCase("rot90", lambda ns, a: ns.rot90(a), (A,)),
    JCase("rot90", lambda ns, a: ns.rot90(a, 2), (A,), id="k2"),
    JCase("rot90", lambda ns, a: ns.rot90(a, -1, axes=(2, 0)), (C3,), id="k3"),
    JCase("s_", lambda ns, a: a[ns.s_[::-1, 1:3]], (A,)),
    JCase("split", lambda ns, a: ns.split(a, 2, axis=1), (A,)),
    JCase("split", lambda ns, a: ns.split(a, [1, 2]), (A,), id="indices"),
    JCase("swapaxes", lambda ns, a: ns.swapaxes(a, 0, -1), (C3,)),
    JCase("tri", lambda ns: ns.tri(3, 4, 1), (), order=0),
    JCase("tril_indices", lambda ns: ns.tril_indices(3, -1, 4), (), order=0),
    JCase("tril_indices_from", lambda ns, a: ns.tril_indices_from(a, 1), (A,), order=0),
    JCase("triu_indices", lambda ns: ns.triu_indices(4, 1), (), order=0),
    JCase("triu_indices_from", lambda ns, a: ns.triu_indices_from(a), (A,), order=0),
    JCase("unravel_index", lambda ns, i: ns.unravel_index(i, (3, 4)),
          (np.asarray([0, 5, 11, 13, -1, -7]),), order=0),
    JCase("vander", lambda ns, x: ns.vander(x), (POS,)),
    JCase("vander", lambda ns, x: ns.vander(x, 4, increasing=True), (POS,), id="increasing"),
    JCase("vsplit", lambda ns, a: ns.vsplit(a, [2]), (A,)),
    JCase("vstack", lambda ns, a, b: ns.vstack([a, b]), (V, A)),
    JCase("fromfunction", lambda ns: ns.fromfunction(lambda i, j: i * 2 + j, (2, 3)), (),
          order=0),
    JCase("geomspace", lambda ns, a, b: ns.geomspace(a, b, 5), (POS, POS * 3)),
    JCase("geomspace", lambda ns, a, b: ns.geomspace(a, b, 4, endpoint=False, axis=1),
          (-POS, -POS * 2), id="negative-axis"),
    JCase("logspace", lambda ns, a, b: ns.logspace(a, b, 6), (W, W + 1)),
    JCase("logspace", lambda ns, a, b: ns.logspace(a, b, 3, base=2.0, endpoint=False, axis=-1),
          (W, W * 2), id="base"),
    JCase("logspace", lambda ns: ns.logspace(0, 2, 5), (), order=0, id="ints"),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(case, xp, jax):
    check(case, xp, jax)
