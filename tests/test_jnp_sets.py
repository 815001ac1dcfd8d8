"""jax.numpy's sets, sorting, searching, selection and histograms
(``xgrad/numpy/_sets.py``) against jax, with the shared harness."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp

from jnp_cases import JCase, check, ids

_r = np.random.default_rng(7)
X = _r.standard_normal(7)                      # distinct floats
M = _r.standard_normal((3, 5))
DUP = np.array([2.5, 1.0, 2.5, -3.0, 1.0, 4.0])  # repeated values (first occurrences matter)
DUPM = np.array([[3.0, 1.0, 3.0], [2.0, 1.0, 0.5]])
IX = np.array([3, 1, 3, 0, 7, 1, 1])
IM = np.array([[1, 2], [0, 5], [1, 2], [0, 5], [4, 4]])
W = _r.standard_normal(7)
A = np.array([1.0, 2.0, 2.0, 5.0, 3.0])
B = np.array([2.0, 5.0, 6.0, 5.0])
H = np.array([0.3, 1.1, 2.7, 2.2, 0.9, 3.9, 3.1, 1.6])   # no value on an edge of 3 or 4 bins
HW = _r.standard_normal(8)
PTS = _r.uniform(0.1, 0.9, (9, 3))
PW = _r.standard_normal(9)
Z = np.array([0.0, 0.0, 1.5, 0.0, -2.0, 0.0])
ZM = np.array([[0.0, 0.0, 0.0, 0.0], [0.0, 1.5, 0.0, 0.0], [0.0, 0.0, -2.0, 0.0]])
C = np.array([1.0 + 2.0j, -1.0 + 0.5j, 1.0 - 1.0j, 0.5 + 0.0j])
BITS = np.array([[1, 0, 1, 1, 0, 0, 1, 0, 1, 1], [0, 1, 1, 0, 1, 0, 0, 1, 0, 0]])
U8 = np.array([[3, 255, 17], [128, 0, 90]], dtype=np.uint8)
MASK = np.array([True, False, True, True, False, False, True])
CH = _r.standard_normal((3, 4))
IDX = np.array([0, 2, 1, 2])
BAD = np.array([0, 3, -1, 5])

CASES = [
    # unique: the values carry the derivative of the first occurrence; jax's
    # derivative is zero without size= (xgrad's is not: NB in the docstring),
    # so the derivative is compared with size= only
    JCase("unique", lambda ns, x: ns.unique(x), (DUP,), order=0, id="values"),
    JCase("unique", lambda ns, x: ns.unique(x, True, True, True), (DUPM,), order=0, id="all"),
    JCase("unique", lambda ns, x: ns.unique(x, return_inverse=True), (IX,), order=0, id="int"),
    JCase("unique", lambda ns, x: ns.unique(x, True, True, True, axis=0), (IM,), order=0,
          id="axis0"),
    JCase("unique", lambda ns, x: ns.unique(x, True, True, True, axis=1), (IM.T,), order=0,
          id="axis1"),
    JCase("unique", lambda ns, x: ns.unique(x, True, True, True, equal_nan=False),
          (np.array([2.0, np.nan, 1.0, np.nan, 2.0]),), order=0, id="nan_distinct"),
    JCase("unique", lambda ns, x: ns.unique(x, True, True, True),
          (np.array([2.0, np.nan, 1.0, np.nan, 2.0]),), order=0, id="nan_equal"),
    JCase("unique", lambda ns, x: ns.unique(x, return_counts=True, size=3), (DUP,),
          id="size_cut"),
    JCase("unique", lambda ns, x: ns.unique(x, True, True, True, size=7, fill_value=-9.0),
          (DUP,), id="size_fill"),
    JCase("unique", lambda ns, x: ns.unique(x, size=6), (DUP,), id="size_min_fill"),
    JCase("unique", lambda ns, x: ns.unique(x, True, True, True, size=4),
          (np.array([2.0, np.nan, 1.0, np.nan, 2.0]),), id="size_nan"),
    JCase("unique", lambda ns, x: ns.unique(x, True, True, True, axis=0, size=4), (IM,),
          order=0, id="axis_size"),
    JCase("union1d", lambda ns, a, b: ns.union1d(a, b), (A, B), order=0),
    JCase("union1d", lambda ns, a, b: ns.union1d(a, b, size=7, fill_value=0.0), (A, B),
          id="size"),
    JCase("intersect1d", lambda ns, a, b: ns.intersect1d(a, b), (A, B), order=0),
    JCase("intersect1d", lambda ns, a, b: ns.intersect1d(a, b, return_indices=True), (A, B),
          order=0, id="indices"),
    JCase("intersect1d", lambda ns, a, b: ns.intersect1d(a, b, assume_unique=True,
                                                         return_indices=True),
          (np.array([4.0, 1.0, 2.0]), np.array([2.0, 3.0, 4.0])), order=0, id="assume_unique"),
    JCase("intersect1d", lambda ns, a, b: ns.intersect1d(a, b, size=3, fill_value=-1.0), (A, B),
          id="size"),
    JCase("intersect1d", lambda ns, a, b: ns.intersect1d(a, b, return_indices=True, size=4),
          (np.append(A, 7.0), B), id="size_indices"),
    JCase("setdiff1d", lambda ns, a, b: ns.setdiff1d(a, b), (A, B), order=0),
    JCase("setdiff1d", lambda ns, a, b: ns.setdiff1d(a, b, size=4), (A, B), id="size"),
    JCase("setdiff1d", lambda ns, a, b: ns.setdiff1d(a, b, True, size=3),
          (np.array([3.0, 1.0, 3.0]), np.array([1.0])), id="assume_unique"),
    JCase("setxor1d", lambda ns, a, b: ns.setxor1d(a, b), (A, B), order=0),
    JCase("setxor1d", lambda ns, a, b: ns.setxor1d(a, b, assume_unique=True),
          (np.array([3.0, 1.0]), np.array([1.0, 4.0])), order=0, id="assume_unique"),
    JCase("setxor1d", lambda ns, a, b: ns.setxor1d(a, b, size=4, fill_value=0.0), (A, B),
          id="size"),
    JCase("setxor1d", lambda ns, a, b: ns.setxor1d(a, b, size=6), (A, B[::-1]), id="size_fill"),
    # counting and histograms: linear in the weights
    JCase("bincount", lambda ns, x: ns.bincount(x), (IX,), order=0),
    JCase("bincount", lambda ns, x: ns.bincount(x, minlength=10), (IX,), order=0, id="minlength"),
    JCase("bincount", lambda ns, x, w: ns.bincount(x, w), (IX, W), id="weights"),
    JCase("bincount", lambda ns, x, w: ns.bincount(x, w, length=5), (np.array([-1, 0, 4, 9, 2,
                                                                              2, 3]), W),
          id="length"),
    JCase("digitize", lambda ns, x, b: ns.digitize(x, b), (X, np.array([-1.0, 0.0, 0.5])),
          order=0),
    JCase("digitize", lambda ns, x, b: ns.digitize(x, b, right=True),
          (np.array([-1.0, 0.2, 0.5, 2.0]), np.array([-1.0, 0.0, 0.5])), order=0, id="right"),
    JCase("digitize", lambda ns, x, b: ns.digitize(x, b),
          (np.array([-1.0, 0.2, 0.5, 2.0]), np.array([0.5, 0.0, -1.0])), order=0,
          id="decreasing"),
    JCase("digitize", lambda ns, x, b: ns.digitize(x, b, True),
          (np.array([-1.0, 0.2, 0.5, 2.0]), np.array([0.5, 0.0, -1.0])), order=0,
          id="decreasing_right"),
    JCase("histogram", lambda ns, a: ns.histogram(a, bins=4), (H,), order=1),
    JCase("histogram", lambda ns, a, w: ns.histogram(a, 3, weights=w), (H, HW), diff=(1,),
          id="weights"),
    JCase("histogram", lambda ns, a, w: ns.histogram(a, 3, weights=w, density=True), (H, HW),
          order=1, id="density"),
    JCase("histogram", lambda ns, a, e, w: ns.histogram(a, e, weights=w),
          (H, np.array([0.0, 1.0, 1.5, 5.0]), HW), diff=(2,), id="edges"),
    JCase("histogram", lambda ns, a, w: ns.histogram(a, 4, range=(0.0, 3.0), weights=w),
          (H, HW), diff=(1,), id="range"),
    JCase("histogram_bin_edges", lambda ns, a: ns.histogram_bin_edges(a, 5), (H,)),
    JCase("histogram_bin_edges", lambda ns, a: ns.histogram_bin_edges(a, 3, range=(-1.0, 2.0)),
          (H,), id="range"),
    JCase("histogram2d", lambda ns, x, y, w: ns.histogram2d(x, y, bins=3, range=[(0, 1), (0, 1)],
                                                          weights=w),
          (PTS[:, 0], PTS[:, 1], PW), diff=(2,)),
    JCase("histogram2d", lambda ns, x, y: ns.histogram2d(x, y, bins=(2, 3), density=True),
          (PTS[:, 0], PTS[:, 1]), order=1, id="density"),
    JCase("histogramdd", lambda ns, s, w: ns.histogramdd(s, bins=2, weights=w), (PTS, PW),
          diff=(1,)),
    JCase("histogramdd", lambda ns, s: ns.histogramdd(s, bins=[2, 3, 2], range=[(0, 1)] * 3),
          (PTS,), order=0, id="range"),
    # sorting
    JCase("lexsort", lambda ns, a, b: ns.lexsort((a, b)),
          (np.array([3, 1, 2, 1, 3]), np.array([1, 1, 0, 1, 0])), order=0),
    JCase("lexsort", lambda ns, k: ns.lexsort(k, axis=0),
          (np.array([[[1, 0], [0, 0], [1, 1]], [[0, 0], [0, 1], [0, 0]]]),), order=0, id="array"),
    JCase("sort_complex", lambda ns, c: ns.sort_complex(c), (C,)),
    JCase("sort_complex", lambda ns, x: ns.sort_complex(x), (M,), id="real"),
    JCase("partition", lambda ns, x: ns.partition(x, 2), (X,), order=1),
    JCase("partition", lambda ns, x: ns.partition(x, -2, axis=0), (M,), order=1, id="axis0"),
    JCase("partition", lambda ns, x: ns.partition(x, 2), (DUP,), order=1, id="ties"),
    JCase("argpartition", lambda ns, x: ns.argpartition(x, 3), (X,), order=0),
    JCase("argpartition", lambda ns, x: ns.argpartition(x, 1, axis=0), (M,), order=0,
          id="axis0"),
    JCase("argpartition", lambda ns, x: ns.argpartition(x, 2), (DUP,), order=0, id="ties"),
    # bits
    JCase("packbits", lambda ns, a: ns.packbits(a), (BITS,), order=0),
    JCase("packbits", lambda ns, a: ns.packbits(a, axis=1, bitorder="little"), (BITS,), order=0,
          id="axis_little"),
    JCase("packbits", lambda ns, a: ns.packbits(a, axis=0), (BITS.astype(bool),), order=0,
          id="bool_axis0"),
    JCase("unpackbits", lambda ns, a: ns.unpackbits(a), (U8,), order=0),
    JCase("unpackbits", lambda ns, a: ns.unpackbits(a, axis=0, bitorder="little"), (U8,),
          order=0, id="axis_little"),
    JCase("unpackbits", lambda ns, a: ns.unpackbits(a, axis=1, count=-5), (U8,), order=0,
          id="count_neg"),
    JCase("unpackbits", lambda ns, a: ns.unpackbits(a, count=30), (U8,), order=0, id="count_pad"),
    # data-dependent selection
    JCase("argwhere", lambda ns, a: ns.argwhere(a), (ZM,), order=0),
    JCase("argwhere", lambda ns, a: ns.argwhere(a, size=4, fill_value=-1), (ZM,), order=0,
          id="size"),
    JCase("flatnonzero", lambda ns, a: ns.flatnonzero(a), (ZM,), order=0),
    JCase("flatnonzero", lambda ns, a: ns.flatnonzero(a, size=1), (Z,), order=0, id="size"),
    JCase("extract", lambda ns, c, a: ns.extract(c, a), (MASK, X)),
    JCase("extract", lambda ns, a: ns.extract(a > 0, a, size=6, fill_value=7.0), (M,),
          id="size"),
    JCase("compress", lambda ns, c, a: ns.compress(c, a), (MASK, X)),
    JCase("compress", lambda ns, c, a: ns.compress(c, a, axis=1),
          (np.array([True, False, True, True]), M), id="axis1_short"),
    JCase("compress", lambda ns, c, a: ns.compress(c, a, axis=0, size=3, fill_value=0.5),
          (np.array([False, True, False]), M), id="size"),
    JCase("compress", lambda ns, a: ns.compress(a[0, :] > 0, a, axis=1, size=2), (M,),
          id="size_axis1"),
    # trim_zeros: the output shape depends on the values of the batched argument (no vmap)
    JCase("trim_zeros", lambda ns, a: ns.trim_zeros(a), (Z,), vmap=False),
    JCase("trim_zeros", lambda ns, a: ns.trim_zeros(a, "b"), (Z,), vmap=False, id="back"),
    JCase("trim_zeros", lambda ns, a: ns.trim_zeros(a, "f"), (Z,), vmap=False, id="front"),
    JCase("trim_zeros", lambda ns, a: ns.trim_zeros(a, axis=1), (ZM,), vmap=False, id="axis1"),
    JCase("trim_zeros", lambda ns, a: ns.trim_zeros(a), (ZM,), vmap=False, id="2d"),
    # fixed-shape selection
    JCase("select", lambda ns, x, y: ns.select([x > 0, y > 0], [x * y, y], 1.5), (M, M[::-1])),
    JCase("select", lambda ns, x: ns.select([x > 0.5, x > -0.5], [x, ns.sin(x)]), (X,),
          id="default0"),
    JCase("select", lambda ns, x, d: ns.select([x > 0.5], [ns.exp(x)], d), (X, X[::-1] * 2),
          id="default_array"),
    JCase("piecewise", lambda ns, x: ns.piecewise(x, [x < 0, x >= 0],
                                                  [lambda v: v * v, lambda v: ns.sin(v)]),
          (X,)),
    JCase("piecewise", lambda ns, x: ns.piecewise(x, [x < -0.5, x > 0.5],
                                                  [lambda v: v ** 3, 2.0, lambda v: v / 2]),
          (M,), id="otherwise"),
    JCase("piecewise", lambda ns, x: ns.piecewise(x, [x > 0], [lambda v, k: v * k], 3.0), (X,),
          id="one_cond_args"),
    JCase("choose", lambda ns, a, c: ns.choose(a, c), (IDX, CH)),
    JCase("choose", lambda ns, a, c: ns.choose(a, c, mode="wrap"), (BAD, CH), id="wrap"),
    JCase("choose", lambda ns, a, c0, c1: ns.choose(a, [c0, c1, 2.0], mode="clip"),
          (BAD, X[:4], X[:1]), id="clip_broadcast"),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(case, xp, jax):
    check(case, xp, jax)


# ----- errors: data-dependent shapes under vmap, bad arguments -----

@pytest.mark.parametrize("fn", [
    lambda x: xnp.unique(x),
    lambda x: xnp.unique(x[None, :], axis=1, size=3),
    lambda x: xnp.intersect1d(x, x[:2]),
    lambda x: xnp.flatnonzero(x),
    lambda x: xnp.extract(x > 0, x),
    lambda x: xnp.trim_zeros(x),
], ids=["unique", "unique_axis_size", "intersect1d", "flatnonzero", "extract", "trim_zeros"])
def test_data_dependent_shape_under_vmap_is_a_clear_error(fn):
    with pytest.raises(TypeError, match="vmap"):
        xgrad.vmap(fn)(np.stack([X, -X]))


def test_bincount_needs_length_under_vmap():
    w = np.stack([W, 2 * W])
    with pytest.raises(TypeError, match="length="):
        xgrad.vmap(lambda x: xnp.bincount(x))(np.stack([IX, IX[::-1]]))
    out = xgrad.vmap(lambda w: xnp.bincount(IX, w, length=8))(w)
    np.testing.assert_allclose(out[1], np.bincount(IX, 2 * W, minlength=8))


def test_bad_arguments():
    with pytest.raises(ValueError, match="outside"):
        xnp.choose(BAD, CH)
    with pytest.raises(ValueError, match="mode"):
        xnp.choose(IDX, CH, mode="nope")
    with pytest.raises(TypeError, match="integer"):
        xnp.bincount(X)
    with pytest.raises(ValueError, match="funclist"):
        xnp.piecewise(X, [X > 0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="same length"):
        xnp.select([X > 0], [X, X])
    with pytest.raises(ValueError, match="kth"):
        xnp.partition(X, 7)
    with pytest.raises(ValueError, match="bitorder"):
        xnp.packbits(BITS, bitorder="middle")
    with pytest.raises(ValueError, match="trim"):
        xnp.trim_zeros(Z, "x")


def test_inputs_are_not_written():
    a, before = DUP.copy(), DUP.copy()
    xnp.unique(a, True, True, True, size=8)
    xnp.partition(a, 2)
    xnp.histogram(a, 3, weights=a)
    np.testing.assert_array_equal(a, before)


def test_size_under_vmap_matches_a_loop():
    """With size= the data-dependent functions have fixed shapes and vmap."""
    xs = np.stack([Z, Z[::-1] * 2, np.zeros(6)])
    fns = [lambda x: xnp.flatnonzero(x, size=3, fill_value=-1),
           lambda x: xnp.argwhere(xnp.reshape(x, (2, 3)), size=4, fill_value=-1),
           lambda x: xnp.unique(x, True, True, True, size=4),
           lambda x: xnp.union1d(x, x[:2] + 1.0, size=5)]
    for f in fns:
        got = xgrad.vmap(f)(xs)
        for k in range(3):
            want = f(xs[k])
            for g, w in zip(got if isinstance(got, tuple) else (got,),
                            want if isinstance(want, tuple) else (want,)):
                np.testing.assert_array_equal(np.asarray(g[k]), np.asarray(w))


def test_unique_derivative_goes_to_the_first_occurrence():
    """NB: jax's derivative of unique without size= is zero; xgrad's values
    carry the derivative of each value's first occurrence (as jax with
    size=)."""
    g = xgrad.grad(lambda x: xnp.sum(xnp.unique(x) * xnp.asarray([1.0, 10.0, 100.0, 1000.0])))
    np.testing.assert_array_equal(g(DUP), [100.0, 10.0, 0.0, 1.0, 0.0, 1000.0])
