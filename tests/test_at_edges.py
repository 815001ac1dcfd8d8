"""``x.at[idx]`` at the edges, against jax (x64): every update method and
every mode on ±0, ±inf, NaN and ±1e308, repeated indices and ties, empty
index arrays, integer and boolean dtypes; values bit for bit (NaN for NaN,
the sign of zero, the dtype) and the Jacobians of both arguments in forward
and reverse mode.

Where the comparison is not plain equality, the test says why:
- jax on CPU flushes subnormal numbers to zero; numpy (and xgrad) keep them.
- jax's forward-mode Jacobian of scatter-min/max in ``mode="clip"`` is
  wrong (-1 and NaN entries; its reverse mode disagrees with it): there the
  oracle is jax on the indices clipped beforehand.
- ``apply(exp)``: XLA's exp and numpy's differ in the last bit.
- jax's max/min tie shares come out as ``1 + 3 * (-1/3)`` (1e-16 instead of
  0): compared to 1e-15.
- multiply/divide/power: with infinite or NaN entries jax's Jacobian is NaN
  whole rows and columns (``0 * inf``, ``0 * log(-2)``) where a tangent is
  exactly zero; xgrad keeps those entries zero (its NaN-safe rule), so the
  Jacobians are compared on finite edges (±0, ±1e308, negative bases),
  entry for entry where jax's is not NaN; where it is, xgrad's is zero, or
  jax's whole row is NaN (``0 * log(-2)`` and ``0 * 0 ** -1`` spread there).
- the sign of a zero derivative is not compared.
"""
import warnings

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)

inf, nan = np.inf, np.nan
XE = np.array([0., -0., inf, -inf, nan, 1e308, -1e308, 2.5])
VE = np.array([-0., 1e308, inf, -inf, 2., nan])
VT = np.array([0., 1e308, inf, -inf, 2.5, -inf])      # ties with XE at 0, 5, 2, 3, 7
XF = np.array([0., -0., 3., -2., 0.5, 1e308, -1e308, 2.5])    # finite edges
VF = np.array([-1.5, 1e308, 2., -3., 0.5, 4.])
VF2 = np.array([3., -2., 0.5, 2.5, 1e308, -1e308])
IDX = {"repeated": np.array([0, 0, 2, 7, 7, -1]), "ties": np.array([1, 5, 2, 3, 7, 3]),
       "unique": np.array([1, 5, 2, 3, 7, 0]), "out-of-bounds": np.array([1, 9, -10, 3, 4, -8])}
METHODS = ["set", "add", "subtract", "multiply", "divide", "power", "min", "max"]
MODES = [None, "promise_in_bounds", "clip", "drop", "fill"]
TINY = np.finfo(np.float64).tiny


def _upd(ns, m, idx, **kw):
    def f(x, v):
        ref = (xnp.at(x) if ns is xnp and not isinstance(x, xgrad.core.Tracer) else x.at)[idx]
        return getattr(ref, m)(v, **kw)
    return f


def _same(got, want, *, subnormal=True, atol=0.0, rtol=0.0, nan_or_zero=False, sign=True):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    if got.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, want)
        return
    ok = (got == want) | (np.isnan(got) & np.isnan(want))
    if sign:
        ok &= (np.signbit(got) == np.signbit(want)) | np.isnan(got) | (got != 0)
    if subnormal:          # jax flushes subnormals to zero on CPU
        ok |= (want == 0) & (np.abs(got) < TINY)
    if atol or rtol:
        with np.errstate(invalid="ignore"):
            ok |= np.abs(got - want) <= atol + rtol * np.abs(want)
    if nan_or_zero:        # xgrad's NaN-safe zero where jax spreads 0 * inf
        ok |= np.isnan(want) & ((got == 0) | np.isnan(want).all(axis=-1, keepdims=True))
    assert ok.all(), f"\ngot {got}\njax {want}"


def _index_cases():
    for ik, idx in IDX.items():
        for mode in MODES:
            if ik == "out-of-bounds" and mode in (None, "promise_in_bounds"):
                continue            # jax: out of bounds is undefined there
            yield ik, mode


@pytest.mark.parametrize("m", METHODS)
@pytest.mark.parametrize("ik,mode", list(_index_cases()))
@pytest.mark.parametrize("vk", ["edges", "ties"])
def test_values_at_the_edges_equal_jax(m, ik, mode, vk):
    v = VE if vk == "edges" else VT
    idx = IDX[ik]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _upd(xnp, m, idx, mode=mode)(XE, v)
        want = _upd(jnp, m, idx, mode=mode)(jnp.asarray(XE), jnp.asarray(v))
    _same(got, want)


@pytest.mark.parametrize("ik,mode", list(_index_cases()))
def test_get_and_apply_at_the_edges_equal_jax(ik, mode):
    idx = IDX[ik]
    for kw in ({}, {"fill_value": -7.5}):
        if kw and mode != "fill":
            continue
        _same(xnp.at(XE)[idx].get(mode=mode, **kw), jnp.asarray(XE).at[idx].get(mode=mode, **kw))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(xnp.at(XE)[idx].apply(xnp.exp, mode=mode),      # exp: XLA's and numpy's
              jnp.asarray(XE).at[idx].apply(jnp.exp, mode=mode), rtol=1e-15)   # differ in an ulp


def _jac_oracle(m, idx, mode, kw):
    """jax's Jacobian function; in mode "clip" jax's scatter JVP is wrong,
    so the oracle clips the indices itself (the same function)."""
    if mode == "clip":
        n = XE.shape[0]
        idx = np.clip(np.where(idx < 0, idx + n, idx), 0, n - 1)
        mode = None
    return _upd(jnp, m, idx, mode=mode, **kw)


# jax differentiates scatter-mul only at unique indices (tests/test_at.py checks
# repeated ones against one write at a time)
_JAC_CASES = [(m, ik, mode) for m in METHODS for ik, mode in _index_cases()
              if mode != "promise_in_bounds"
              and (ik == "unique" or m not in ("multiply", "divide", "power"))]


@pytest.mark.parametrize("m,ik,mode", _JAC_CASES)
@pytest.mark.parametrize("vk", ["edges", "ties"])
@pytest.mark.parametrize("tr", ["jacfwd", "jacrev"])
def test_jacobians_at_the_edges_equal_jax(m, ik, mode, vk, tr):
    kw = {"unique_indices": True} if m in ("multiply", "divide", "power") else {}
    x, v = (XE, VT if vk == "ties" else VE) if not kw else (XF, VF2 if vk == "ties" else VF)
    idx = IDX[ik]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = getattr(xgrad, tr)(_upd(xnp, m, idx, mode=mode, **kw), argnums=(0, 1))(x, v)
        want = getattr(jax, tr)(_jac_oracle(m, idx, mode, kw), argnums=(0, 1))(
            jnp.asarray(x), jnp.asarray(v))
    for g, w in zip(got, want):
        _same(g, w, atol=1e-15, nan_or_zero=bool(kw), sign=False)


def test_segment_max_idiom_and_the_reported_examples():
    # the segment max: -inf where nothing was written, no NaN
    out = xnp.full(3, -inf).at[xnp.asarray([0, 0, 2])].max(xnp.asarray([1., 2, 3]))
    np.testing.assert_array_equal(out, [2., -inf, 3.])
    np.testing.assert_array_equal(xnp.asarray([1., inf]).at[0].min(5.), [1., inf])
    np.testing.assert_array_equal(xnp.asarray([1e308, 0.]).at[0].max(1e308), [1e308, 0.])
    # derivatives: the untouched infinite entry passes its own; a tie splits in halves
    gx = xgrad.grad(lambda x: xnp.sum(x.at[0].min(5.)))(np.array([1., inf]))
    np.testing.assert_array_equal(gx, [1., 1.])
    gx, gv = xgrad.grad(lambda x, v: xnp.sum(x.at[0].max(v)), argnums=(0, 1))(
        np.array([1e308, 0.]), 1e308)
    np.testing.assert_array_equal(gx, [0.5, 1.])
    assert float(gv) == 0.5
    # segment max under grad: each segment's winner gets 1, the empty segment's x gets 1
    gx, gv = xgrad.grad(lambda x, v: xnp.sum(x.at[np.array([0, 0, 2])].max(v)), argnums=(0, 1))(
        np.full(3, -inf), np.array([1., 2., 3.]))
    np.testing.assert_array_equal(gx, [0., 1., 0.])
    np.testing.assert_array_equal(gv, [0., 1., 1.])


def test_empty_index_arrays():
    e = np.array([], dtype=np.int64)
    for m in METHODS:
        got = getattr(xnp.at(XE)[e], m)(np.array([]))
        _same(got, getattr(jnp.asarray(XE).at[e], m)(jnp.asarray([])), subnormal=False)
        g = xgrad.grad(lambda x: xnp.sum(getattr(x.at[e], m)(np.array([]))))(np.arange(3.))
        np.testing.assert_array_equal(g, np.ones(3))
    assert xnp.at(XE)[e].get().shape == (0,)


_INT_CASES = [
    (np.array([2**60 + 1, -5, 7, 0]), np.array([3, 2**60 + 3, -9])),
    (np.array([0, -3, 5, 1], np.int32), np.float64(2.7)),
    (np.array([0, -3, 5, 1], np.int32), np.float64(-3.7)),
    (np.array([0, -3, 5, 1], np.int32), np.array([2, -1, 4], np.int32)),
    (np.array([0, 3, 255, 1], np.uint8), np.array([2, 250, 4], np.uint8)),
    (np.array([2**62, -2**62], np.int64), 1),
]


@pytest.mark.parametrize("m", ["set", "add", "subtract", "multiply", "min", "max"])
@pytest.mark.parametrize("case", range(len(_INT_CASES)))
def test_integer_updates_keep_their_dtype_and_bits(m, case):
    x, v = _INT_CASES[case]
    idx = np.array([1, 1, 3]) if x.shape[0] > 2 else np.array([0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(jnp.asarray(x).at[idx], m)(jnp.asarray(v) if isinstance(v, np.ndarray)
                                                  else v)
    got = getattr(xnp.at(x)[idx], m)(v)
    _same(got, want)


def test_int32_add_casts_the_sum_not_the_addend():
    x = np.array([0, -3], dtype=np.int32)
    out = xnp.at(x)[1].add(np.float64(2.7))
    assert out.dtype == np.int32 and out.tolist() == [0, 0]      # -3 + 2.7 = -0.3 -> 0
    assert xnp.at(x)[1].subtract(np.float64(2.7)).tolist() == [0, -5]
    assert xnp.at(x)[1].multiply(np.float64(2.7)).tolist() == [0, -8]
    big = np.array([2**60 + 1, 0])
    assert xnp.at(big)[0].max(np.int64(3)).tolist() == [2**60 + 1, 0]
    assert xnp.at(big)[1].min(np.int64(-2**60 - 1)).tolist() == [2**60 + 1, -2**60 - 1]


@pytest.mark.parametrize("m", ["min", "max", "set"])
def test_bool_min_max_set(m):
    x = np.array([True, False, False, True])
    for v in (np.array([True, False, True]), np.array([False, False, False]), True, False):
        got = getattr(xnp.at(x)[np.array([1, 1, 3])], m)(v)
        want = getattr(jnp.asarray(x).at[np.array([1, 1, 3])], m)(
            jnp.asarray(v) if isinstance(v, np.ndarray) else v)
        _same(got, want)


@pytest.mark.parametrize("m", ["add", "subtract", "multiply", "divide", "power"])
def test_bool_arithmetic_updates_raise_as_jax(m):
    x = np.array([True, False])
    with pytest.raises(TypeError):
        getattr(jnp.asarray(x).at[0], m)(True)
    with pytest.raises(TypeError, match=f"at\\[...\\].{m}: not defined for boolean"):
        getattr(xnp.at(x)[0], m)(True)


def test_integer_min_max_under_a_transform_keep_dtype():
    """An integer scatter inside grad (a constant there) stays integer."""
    def f(w):
        k = xnp.asarray(np.array([2**60 + 1, 5])).at[np.array([1, 1])].max(np.array([7, 3]))
        assert k.dtype == np.int64 and int(k[0]) == 2**60 + 1 and int(k[1]) == 7
        return xnp.sum(w * xnp.astype(k[1], w.dtype))
    assert float(xgrad.grad(f)(1.5)) == 7.0
