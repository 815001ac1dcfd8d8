"""``xgrad.numpy`` as an array API 2024.12 namespace: the functions of
``numpy/_extra.py`` (values against the backend, derivatives against JAX at
orders 1 and 2, the non-differentiable ones on traced values and under
vmap), and every signature against array_api_strict's."""
import inspect

import numpy as np
import pytest

import array_api_strict
import xgrad
import xgrad.numpy as xnp
from xgrad.backends import backend_of
from helpers import assert_close, from_np, to_np


def test_version():
    assert xnp.__array_api_version__ == "2024.12"
    info = xnp.__array_namespace_info__()
    assert set(info.capabilities()) >= {"boolean indexing", "data-dependent shapes"}
    assert info.default_dtypes()["real floating"] == xnp.float64


# --------------------------------------------------------------------------
# signatures: every call the standard's signature allows is allowed by
# xgrad's, with the same meaning. xgrad.numpy also has jax.numpy's
# signatures (positional axes, extra keywords), so the check is
# compatibility, not equality:
# - a positional-only standard parameter is positional in xgrad, at the
#   same position (its name may differ: jax's ``a`` for the standard's ``x``);
# - a positional-or-keyword one is too, under the same name;
# - a keyword-only one exists in xgrad under its name, accepting a keyword,
#   with the same default, or None where None means "not given" (as in JAX:
#   ``correction=None`` is ``ddof``, ``norm=None`` is "backward");
# - xgrad has no required parameter the standard lacks.

_NOT_STANDARD = {"ArrayAPIStrictFlags", "Device", "set_array_api_strict_flags",
                 "get_array_api_strict_flags", "reset_array_api_strict_flags"}
STANDARD = sorted([n for n in array_api_strict.__all__
                   if callable(getattr(array_api_strict, n)) and n not in _NOT_STANDARD
                   and not isinstance(getattr(array_api_strict, n), type)
                   and (not n.startswith("_") or n == "__array_namespace_info__")]
                  + [f"{ext}.{n}" for ext in ("linalg", "fft")
                     for n in getattr(array_api_strict, ext).__all__])
KNOWN = {}   # name -> reason, for a known incompatibility

_P = inspect.Parameter
_POSITIONAL = (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)
# the standard's default -> xgrad's (jax's spelling of the same default)
_SAME_DEFAULT = {("correction", 0.0): None, ("norm", "backward"): None, ("step", 1): None}


def _plain(d):
    plain = d is _P.empty or d is None or isinstance(d, (bool, int, float, str))
    return d if plain else "<sentinel>"


def _get(mod, dotted):
    for part in dotted.split("."):
        mod = getattr(mod, part, None)
    return mod


def _incompatibilities(ref, got):
    """What calls ``ref``'s signature allows that ``got``'s does not."""
    rp = list(inspect.signature(ref).parameters.values())
    gp = list(inspect.signature(got).parameters.values())
    gvar = any(p.kind == _P.VAR_POSITIONAL for p in gp)
    gpos = [p for p in gp if p.kind in _POSITIONAL]
    gby = {p.name: p for p in gp}
    bad = []
    for i, p in enumerate(q for q in rp if q.kind in _POSITIONAL):
        if i >= len(gpos):
            if not gvar:
                bad.append(f"{p.name}: no positional slot {i}")
            continue
        g = gpos[i]
        if p.kind == _P.POSITIONAL_OR_KEYWORD and (g.name != p.name or g.kind != p.kind):
            bad.append(f"{p.name}: positional-or-keyword in the standard, {g} here")
        if p.default is not _P.empty and g.default is _P.empty:
            bad.append(f"{p.name}: optional in the standard, required here")
    for p in rp:
        if p.kind == _P.VAR_POSITIONAL and not gvar:
            bad.append(f"*{p.name}: no *args here")
        if p.kind != _P.KEYWORD_ONLY:
            continue
        g = gby.get(p.name)
        if g is None or g.kind not in (_P.KEYWORD_ONLY, _P.POSITIONAL_OR_KEYWORD):
            bad.append(f"{p.name}: no keyword {p.name} here")
            continue
        d, gd = _plain(p.default), _plain(g.default)
        if d == "<sentinel>":           # array_api_strict's "not given"
            d = None
        if gd != d and not (gd is None and _SAME_DEFAULT.get((p.name, d), 0) is None) \
                and not (gd is None and d is _P.empty):
            bad.append(f"{p.name}: default {d!r} in the standard, {gd!r} here")
    names = {p.name for p in rp}
    npos = sum(1 for p in rp if p.kind in _POSITIONAL)
    for i, g in enumerate(gp):
        required = g.default is _P.empty and g.kind not in (_P.VAR_POSITIONAL, _P.VAR_KEYWORD)
        if required and not (g.kind in _POSITIONAL and i < npos) and g.name not in names:
            bad.append(f"{g.name}: required here, not in the standard")
    return bad


@pytest.mark.parametrize("name", STANDARD)
def test_signature(name):
    got, ref = _get(xnp, name), _get(array_api_strict, name)
    assert got is not None, f"xgrad.numpy lacks the standard function {name}"
    bad = _incompatibilities(ref, got)
    if name in KNOWN and bad:
        pytest.xfail(KNOWN[name])
    assert not bad, f"{name}{inspect.signature(got)} vs the standard's {inspect.signature(ref)}: {bad}"


def test_signature_check_catches_incompatibilities():
    def std(x, /, *, axis=None, keepdims=False):
        pass

    def ok(a, axis=None, out=None, keepdims=False, *, where=None):
        pass

    def no_kw(x, /, axis=None):
        pass

    def extra_required(x, /, y, *, axis=None, keepdims=False):
        pass

    def other_default(x, /, *, axis=None, keepdims=True):
        pass
    assert _incompatibilities(std, ok) == []
    assert _incompatibilities(std, no_kw)
    assert _incompatibilities(std, extra_required)
    assert _incompatibilities(std, other_default)


# --------------------------------------------------------------------------
# values on plain arrays (numpy and array_api_strict) and on traced values

A = np.array([[3.0, -1.0, 2.0, 2.0], [0.5, 0.0, -4.0, 1.5], [1.0, 1.0, np.nan, -0.0]])
B = np.array([[2.0, 0.5, -1.0], [1.5, 3.0, 0.0]])

VALUE_CASES = {
    "sort": (lambda ns, x: ns.sort(x), A),
    "sort-axis0-desc": (lambda ns, x: ns.sort(x, axis=0, descending=True), A),
    "argsort": (lambda ns, x: ns.argsort(x, axis=1), A),
    "argsort-desc": (lambda ns, x: ns.argsort(x, axis=0, descending=True), A),
    "cumulative_prod": (lambda ns, x: ns.cumulative_prod(x, axis=1), A),
    "cumulative_prod-init": (lambda ns, x: ns.cumulative_prod(x, axis=0, include_initial=True), B),
    "count_nonzero": (lambda ns, x: ns.count_nonzero(x, axis=1, keepdims=True), A),
    "count_nonzero-all": (lambda ns, x: ns.count_nonzero(x), A),
    "diff": (lambda ns, x: ns.diff(x), A),
    "diff-n2-axis0": (lambda ns, x: ns.diff(x, axis=0, n=2), A),
    "diff-prepend": (lambda ns, x: ns.diff(x, axis=1, prepend=x[:, :1], append=x[:, -1:]), B),
    "moveaxis": (lambda ns, x: ns.moveaxis(ns.reshape(x, (2, 3, 2)), 0, -1), A),
    "moveaxis-tuple": (lambda ns, x: ns.moveaxis(ns.reshape(x, (2, 3, 2)), (0, 1), (2, 0)), A),
    "repeat": (lambda ns, x: ns.repeat(x, 2, axis=1), B),
    "repeat-flat": (lambda ns, x: ns.repeat(x, 3), B),
    "tile": (lambda ns, x: ns.tile(x, (2, 1)), B),
    "tile-more": (lambda ns, x: ns.tile(x, (2, 1, 3)), B),
    "unstack": (lambda ns, x: ns.stack(ns.unstack(x, axis=1)), A),
    "unique_values": (lambda ns, x: ns.sort(ns.unique_values(x)), B),
    "unique_counts": (lambda ns, x: ns.unique_counts(x).counts,
                      np.array([1.0, 2.0, 2.0, 3.0, 1.0])),
    "unique_inverse": (lambda ns, x: ns.unique_inverse(x).inverse_indices, B),
    "unique_all": (lambda ns, x: ns.unique_all(x).indices, np.array([2.0, 1.0, 2.0, 0.0])),
    "nonzero": (lambda ns, x: ns.stack(ns.nonzero(x)), A),
    "isin": (lambda ns, x: ns.isin(x, x[0, :]), np.array([[3, 1, 2], [0, 3, 5]])),
    "searchsorted": (lambda ns, x: ns.searchsorted(ns.sort(x[0, :]), x), B),
    "searchsorted-right": (lambda ns, x: ns.searchsorted(ns.sort(x[0, :]), x, side="right"), B),
}


def _strict_ref(fn, x):
    return to_np(fn(array_api_strict, array_api_strict.asarray(x)))


@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_values(name, xp):
    fn, a = VALUE_CASES[name]
    ref = _strict_ref(fn, a)
    x = from_np(xp, a)
    got = to_np(fn(xnp, x))                     # plain arrays: the backend's function
    np.testing.assert_array_equal(got, ref)
    assert got.dtype == ref.dtype
    if a.dtype.kind != "f":
        return
    # traced values take the composites: same values and dtypes
    seen = {}

    def f(t):
        seen["out"] = to_np(_value(fn(xnp, t)))
        return xnp.sum(t)
    xgrad.grad(f)(x)
    np.testing.assert_array_equal(seen["out"], ref)
    assert seen["out"].dtype == ref.dtype


def _value(out):
    """The concrete value of an output (traced or plain)."""
    from xgrad.core import concrete
    return concrete(out)


def test_unique_nan_and_namedtuples():
    x = np.array([np.nan, 1.0, np.nan, 1.0])
    r = xnp.unique_all(x)
    assert r._fields == ("values", "indices", "inverse_indices", "counts")
    assert np.isnan(to_np(r.values)).sum() == 2         # NaNs are distinct
    assert xnp.unique_counts(x)._fields == ("values", "counts")
    assert xnp.unique_inverse(x)._fields == ("values", "inverse_indices")


def test_errors():
    x = np.ones((2, 3))
    with pytest.raises(ValueError):
        xgrad.grad(lambda t: xnp.sum(xnp.cumulative_prod(t)))(x)        # axis needed
    with pytest.raises(ValueError):
        xgrad.grad(lambda t: xnp.sum(xnp.moveaxis(t, 0, 0 + 5)))(x)
    with pytest.raises(ValueError):
        xgrad.grad(lambda t: xnp.sum(xnp.moveaxis(t, (0, 0), (0, 1))))(x)
    with pytest.raises(ValueError):
        xgrad.grad(lambda t: xnp.sum(xnp.searchsorted(t, t)))(x)        # x1 must be 1-D
    with pytest.raises(ValueError):
        xnp.searchsorted(np.ones(3), np.ones(3), side="middle")


# --------------------------------------------------------------------------
# derivatives against JAX, orders 1 and 2

X = np.array([[0.3, -1.2, 0.8, 2.1], [1.4, 0.0, -0.5, 0.9], [-0.7, 1.1, 0.6, -1.9]])

def _jcumprod(jnp, x):
    """Cumulative product along the last axis as products of a triangle
    (jnp.cumprod compiles slowly on CPU): an independent oracle."""
    n = x.shape[-1]
    tri = np.tril(np.ones((n, n), dtype=bool))
    return jnp.prod(jnp.where(tri, x[..., None, :], 1.0), axis=-1)


DIFF_CASES = {
    "sort": (lambda ns, x: ns.sort(x, axis=1), None),
    "sort-axis0-desc": (lambda ns, x: ns.sort(x, axis=0, descending=True),
                        lambda jnp, x: jnp.flip(jnp.sort(x, axis=0), axis=0)),
    "cumulative_prod": (lambda ns, x: ns.cumulative_prod(x, axis=1),
                        lambda jnp, x: _jcumprod(jnp, x)),
    "cumulative_prod-init": (lambda ns, x: ns.cumulative_prod(x, axis=0, include_initial=True),
                             lambda jnp, x: jnp.concatenate([jnp.ones((1, 4)), _jcumprod(jnp, x.T).T])),
    "moveaxis": (lambda ns, x: ns.moveaxis(ns.reshape(x, (2, 3, 2)), (0, 2), (1, 0)), None),
    "repeat": (lambda ns, x: ns.repeat(x, 2, axis=0), None),
    "repeat-flat": (lambda ns, x: ns.repeat(x, 3), None),
    "repeat-array": (lambda ns, x: ns.repeat(x, ns.asarray([2, 0, 1, 3]), axis=1),
                     lambda jnp, x: jnp.repeat(x, jnp.asarray([2, 0, 1, 3]), axis=1,
                                               total_repeat_length=6)),
    "tile": (lambda ns, x: ns.tile(x, (2, 1, 3)), None),
    "unstack": (lambda ns, x: ns.stack(ns.unstack(x, axis=1)[::-1]), None),
    "diff": (lambda ns, x: ns.diff(x, axis=0, n=2), None),
    "diff-prepend": (lambda ns, x: ns.diff(x, axis=1, prepend=ns.flip(x[:, :2], axis=1) * 2.0,
                                           append=x[:, :1] ** 2), None),
    "unique_values": (lambda ns, x: ns.unique_values(ns.concat([x[0, :], x[0, :], x[1, :]])),
                      lambda jnp, x: jnp.sort(jnp.concatenate([x[0], x[1]]))),
}


def _loss(fn, ns):
    w = np.linspace(-1.0, 1.5, 256)

    def f(x):
        y = ns.reshape(fn(ns, x), (-1,))
        # constants of x's backend (array_api_strict refuses mixing)
        make = backend_of(x).asarray if ns is xnp else ns.asarray
        return ns.sum(ns.sin(y) * make(w[:y.shape[0]]))
    return f


V = np.cos(np.arange(X.size)).reshape(X.shape)


@pytest.fixture(scope="module")
def jax_refs():
    """Per case: value, gradient, JVP (output and tangent), forward-over-reverse
    and reverse-over-reverse second derivatives applied to V, from JAX, in
    one compiled function for all cases (JAX's per-op dispatch and per-jit
    compilation are slow)."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    def one(fn, x, v):
        f = _loss(fn, jnp)
        y, t = jax.jvp(lambda a: fn(jnp, a), (x,), (v,))
        fr = jax.jvp(jax.grad(f), (x,), (v,))[1]                        # fwd-over-rev
        rr = jax.grad(lambda a: jnp.sum(jax.grad(f)(a) * v))(x)         # rev-over-rev
        return f(x), jax.grad(f)(x), y, t, fr, rr

    def all_cases(x, v):
        return {name: one(jfn or fn, x, v) for name, (fn, jfn) in DIFF_CASES.items()}
    return jax.jit(all_cases)(X, V)


@pytest.mark.parametrize("name", sorted(DIFF_CASES))
def test_derivatives_vs_jax(name, jax_refs):
    fn, _ = DIFF_CASES[name]
    f = _loss(fn, xnp)
    x, v = X.copy(), V
    j_val, j_grad, j_y, j_t, j_fr, j_rr = jax_refs[name]
    tol = dict(rtol=1e-10, atol=1e-12)
    # value and order 1, both modes
    assert_close(f(x), j_val, **tol)
    assert_close(xgrad.grad(f)(x), j_grad, **tol)
    y, t = xgrad.jvp(lambda a: fn(xnp, a), (x,), (v,))
    assert_close(y, j_y, **tol)
    assert_close(t, j_t, **tol)
    # order 2: forward-over-reverse (the Hessian and hvp, applied to v) and reverse-over-reverse
    assert_close(xnp.tensordot(xgrad.hessian(f)(x), v, axes=2), j_fr, **tol)
    assert_close(xgrad.hvp(f, (x,), (v,)), j_fr, **tol)
    hv = xgrad.grad(lambda a: xnp.sum(xgrad.grad(f)(a) * v))(x)
    assert_close(hv, j_rr, **tol)


def test_cumulative_prod_zeros(jax):
    """Exact derivatives where entries are zero (no division by x)."""
    import jax.numpy as jnp
    x = np.array([1.5, 0.0, 2.0, 0.0, -3.0])
    w = np.arange(1.0, 6.0)

    def jf(a):
        return jnp.sum(_jcumprod(jnp, a) * w)

    def f(a):
        return xnp.sum(xnp.cumulative_prod(a) * w)
    j_grad, j_hess = jax.jit(lambda a: (jax.grad(jf)(a), jax.hessian(jf)(a)))(x)
    assert_close(xgrad.grad(f)(x), j_grad)
    assert_close(xgrad.hessian(f)(x), j_hess)


def test_derivatives_strict(rng):
    """The composites run on array_api_strict (no numpy calls leak)."""
    xs = array_api_strict
    x = xs.asarray(X)
    for name, (fn, _) in sorted(DIFF_CASES.items()):
        if name == "repeat-array":
            continue
        g = xgrad.grad(_loss(fn, xnp))(x)
        assert_close(g, xgrad.grad(_loss(fn, xnp))(X), err_msg=name)


# --------------------------------------------------------------------------
# non-differentiable functions on traced values, and vmap

def test_integer_outputs_under_transforms(xp):
    x = from_np(xp, X)
    out = {}

    def f(t):
        out["argsort"] = xnp.argsort(t, axis=0)
        out["nonzero"] = xnp.nonzero(t)
        out["count"] = xnp.count_nonzero(t, axis=1)
        out["search"] = xnp.searchsorted(xnp.sort(t[0, :]), t[1, :], side="right")
        out["unique"] = xnp.unique_all(xnp.round(t))
        return xnp.sum(xnp.sort(t, axis=0)[0, :] * t[1, :])
    xgrad.hessian(f)(x)
    xgrad.jvp(f, (x,), (x,))
    np.testing.assert_array_equal(to_np(_value(out["argsort"])), np.argsort(X, axis=0))
    assert len(out["nonzero"]) == 2
    np.testing.assert_array_equal(to_np(_value(out["count"])), np.count_nonzero(X, axis=1))
    np.testing.assert_array_equal(to_np(_value(out["search"])),
                                  np.searchsorted(np.sort(X[0]), X[1], side="right"))
    np.testing.assert_array_equal(to_np(out["unique"].counts),
                                  np.unique(np.round(X), return_counts=True)[1])


def _loop(xp, fn, *args, in_axes):
    """The reference: fn on each example (numpy arguments, sliced, then moved
    to the backend), stacked."""
    n = next(a.shape[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = [fn(*[from_np(xp, a if ax is None else np.take(a, i, axis=ax))
                 for a, ax in zip(args, in_axes)]) for i in range(n)]
    return np.stack([to_np(o) for o in outs])


VMAP_CASES = {
    "sort": (lambda x: xnp.sort(x, descending=True), (X,), (1,)),
    "argsort": (lambda x: xnp.argsort(x), (X,), (0,)),
    "cumulative_prod": (lambda x: xnp.cumulative_prod(x, include_initial=True), (X,), (1,)),
    "count_nonzero": (lambda x: xnp.count_nonzero(x), (X,), (0,)),
    "searchsorted-batched-x1": (lambda s, v: xnp.searchsorted(s, v),
                                (np.sort(X, axis=1), X[:, ::-1].copy()), (0, 0)),
    "searchsorted-nan-right": (lambda s, v: xnp.searchsorted(s, v, side="right"),
                               (np.array([[0.0, 1.0, np.nan], [-1.0, 2.0, 3.0]]),
                                np.array([np.nan, 1.0, 2.5])), (0, None)),
    "searchsorted-x2": (lambda s, v: xnp.searchsorted(s, v), (np.sort(X[0]), X), (None, 1)),
    "searchsorted-sorter": (lambda s, p, v: xnp.searchsorted(s, v, sorter=p),
                            (X, np.argsort(X, axis=1), X[0]), (0, 0, None)),
    "sort-grad": (xgrad.grad(lambda x: xnp.sum(xnp.sin(xnp.sort(x)) * x)), (X,), (0,)),
    "diff": (lambda x: xnp.diff(x, n=2), (X,), (0,)),
    "repeat-tile": (lambda x: xnp.tile(xnp.repeat(x, 2), (2,)), (X,), (0,)),
    "moveaxis": (lambda x: xnp.moveaxis(xnp.reshape(x, (2, 2)), 0, 1), (X,), (0,)),
    "isin": (lambda x, y: xnp.isin(x, y), (np.round(X), np.round(X[::-1])), (0, None)),
}


@pytest.mark.parametrize("name", sorted(VMAP_CASES))
def test_vmap(name, xp):
    fn, args, in_axes = VMAP_CASES[name]
    got = xgrad.vmap(fn, in_axes=in_axes)(*[from_np(xp, a) for a in args])
    ref = _loop(xp, fn, *args, in_axes=in_axes)
    np.testing.assert_allclose(to_np(got), ref, rtol=1e-12)
    assert to_np(got).dtype == ref.dtype


@pytest.mark.parametrize("fn", [xnp.nonzero, xnp.unique_values, lambda x: xnp.unique_all(x).counts,
                                lambda x: xnp.repeat(x, xnp.astype(x > 0, xnp.int64))])
def test_data_dependent_shapes_refuse_vmap(fn):
    with pytest.raises(TypeError, match="no single concrete value.*outside vmap"):
        xgrad.vmap(fn)(X)
