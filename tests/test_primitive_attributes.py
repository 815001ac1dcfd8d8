"""Each row of the rule table says what its primitive is (``family``,
``linear``, ``bilinear``, ``multiple_results``, ``export``); the transforms
believe it (the forward Laplacian skips the second-order term of a linear
row, NaN-safe mode masks an elementwise row's derivatives entry by entry,
vmap batches it by broadcasting). These tests check every declaration
against the primitive itself, at real invocations of each row: the
arguments and parameters its ``impl`` sees while the cases of
``tests/test_rules.py`` run (sampled from the rows' domains), plus a few
calls of the rows without derivatives.

* ``linear``: ``f(a x + b y) = a f(x) + b f(y)`` jointly in the
  differentiable arguments, and a zero second directional derivative;
* ``bilinear``: the same identity in each differentiable argument alone;
* ``family``: one of ``rules.FAMILIES``; an elementwise row's output entry
  changes only where a perturbed input entry lands after broadcasting;
* ``multiple_results``: exactly those rows return a tuple;
* ``export``: exactly those rows are ``xgrad.numpy`` functions made from
  the table, and nothing keeps a hand list of primitive names.
"""
import ast
import inspect

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad.core import RULES, bind
from xgrad.rules import FAMILIES
from xgrad.transforms import laplacian as _laplacian_mod
from xgrad.rules import elementwise as _elementwise_mod
from xgrad.transforms.custom_jvp import custom_jvp_call_p
from xgrad.transforms.custom_vjp import custom_vjp_call_p
from xgrad.transforms.checkpoint import checkpoint_call_p
import test_rules
import test_scipy_special

KEEP = 4            # invocations kept per row
_X = np.array([[-1.5, 0.25, 2.5], [0.5, -0.75, 1.25]])
_I = np.array([[3, 1, 2], [0, 5, 4]])


def _calls_without_derivative():
    """Rows that no derivative case binds: one plain call of each."""
    for name in sorted(test_rules.NO_DERIVATIVE):
        p = RULES[name]
        if p.family == "elementwise" and hasattr(xnp, name):
            x = _I if name.startswith("bitwise") else _X > 0 if name.startswith("logical") else _X
            getattr(xnp, name)(*((x, x[::-1]) if p.broadcast else (x,)))
    xnp.argmax(_X, axis=1), xnp.argmin(_X), xnp.all(_X > 0, axis=0), xnp.any(_X > 0)
    xnp.argsort(_X, axis=1)
    bind(RULES["searchsorted"], np.sort(_X[0]), _X, side="left")   # plain arrays skip it
    key = xgrad.random.PRNGKey(0)
    xgrad.random.bits(key, (5,))                                  # threefry2x32
    xgrad.random.poisson(key, 3.0, (4,)), xgrad.random.binomial(key, 5.0, 0.3, (4,))
    xgrad.grad(lambda a: xnp.sum(xgrad.random.gamma(key, a, (3,))))(np.asarray([1.5, 2.0, 0.5]))


@pytest.fixture(scope="module")
def calls():
    """name -> up to 2 KEEP ``(args, params)`` that the row's impl was given:
    the first KEEP with a floating-point array of two or more entries among
    the arguments, then the first KEEP others."""
    rich = {name: [] for name in RULES}
    other = {name: [] for name in RULES}

    def spy(name, impl):
        def f(xp, *args, **params):
            kept = rich if any(_inexact(a) and a.size > 1 for a in args) else other
            if len(kept[name]) < KEEP:
                kept[name].append((args, params))
            return impl(xp, *args, **params)
        return f
    import array_api_compat.numpy as np_xp
    rng = np.random.default_rng(0)
    with pytest.MonkeyPatch.context() as mp:
        for name, p in RULES.items():
            mp.setattr(p, "impl", spy(name, p.impl))
        for case in test_rules.CASES:
            args = case.sample(rng, "float64")
            f = test_rules._xgrad_fn(case, np_xp)
            xgrad.jvp(f, tuple(args), tuple(np.ones_like(a) for a in args))
        _calls_without_derivative()
        for case in test_scipy_special.CASES:         # the special rows tested there
            args = list(case.args)
            diff = [i for i in case.diff]

            def f(*xs, case=case, args=args, diff=diff):
                full = list(args)
                for i, x in zip(diff, xs):
                    full[i] = x
                return case.fn(xnp, *full)
            try:
                xgrad.jvp(f, tuple(args[i] for i in diff), tuple(np.ones_like(args[i]) for i in diff))
            except NotImplementedError:       # a derivative xgrad raises for (documented)
                case.fn(xnp, *args)
        xgrad.grad(lambda a, b: xnp.sum(xgrad.scipy.special.betainc(a, b, np.array([0.3, 0.6]))),
                   argnums=(0, 1))(np.array([0.7, 1.2]), np.array([1.5, 0.8]))
        for i in range(3):                            # hyp2f1's parameter derivatives
            xgrad.grad(lambda p, i=i: xnp.sum(xgrad.scipy.special.hyp2f1(
                *[p if j == i else np.array([0.5, 1.5]) for j in range(3)], np.array([0.3, -0.4]))))(
                    np.array([0.7, 1.2]))
    seen = {name: rich[name] + other[name] for name in RULES}
    missing = sorted(n for n, c in seen.items() if not c)
    assert not missing, f"rows never invoked by the cases: {missing}"
    return seen


# --------------------------------------------------------------------------
# helpers

def _is_array(a):
    return isinstance(a, np.ndarray) or (hasattr(a, "shape") and hasattr(a, "dtype"))


def _inexact(a):
    return _is_array(a) and np.issubdtype(np.asarray(a).dtype, np.inexact)


def _diff_positions(p, args):
    """The arguments a derivative flows into: inexact arrays whose JVP slot is set."""
    if p.jvp is None:
        return []
    return [i for i, a in enumerate(args) if _inexact(a) and p.jvp[i] is not None]


def _other(rng, a):
    a = np.asarray(a)
    y = rng.standard_normal(a.shape)
    if np.iscomplexobj(a):
        y = y + 1j * rng.standard_normal(a.shape)
    return y.astype(a.dtype)


def _call(p, args, params, replace):
    full = list(args)
    for i, v in replace.items():
        full[i] = v
    return bind(p, *full, **params)


def _close(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    rtol = 1e-5 if np.asarray(want).dtype in (np.float32, np.complex64) else 1e-9
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, err_msg=what)


def _linear_identity(p, args, params, positions, rng, what):
    a, b = 0.7, -1.3
    xs = {i: np.asarray(args[i]) for i in positions}
    ys = {i: _other(rng, x) for i, x in xs.items()}
    mix = {i: (a * xs[i] + b * ys[i]).astype(xs[i].dtype) for i in positions}
    fx, fy = np.asarray(_call(p, args, params, xs)), np.asarray(_call(p, args, params, ys))
    _close(_call(p, args, params, mix), a * fx + b * fy, what)


def _rows(attr):
    return sorted(n for n, p in RULES.items() if getattr(p, attr))


# --------------------------------------------------------------------------
# family

def test_every_row_has_a_family():
    bad = {n: p.family for n, p in RULES.items() if p.family not in FAMILIES}
    assert not bad, f"rows with a family outside rules.FAMILIES: {bad}"
    for p in (custom_jvp_call_p, custom_vjp_call_p, checkpoint_call_p):
        assert p.family == "call" and p.is_call and p.several_outputs
    assert custom_jvp_call_p.jvp_from_rule and not custom_vjp_call_p.jvp_from_rule
    assert RULES["matmul"].family == "dot"     # what the "dots" checkpoint policies select


@pytest.mark.parametrize("name", sorted(n for n, p in RULES.items() if p.family == "elementwise"))
def test_elementwise_rows_are_entrywise(name, calls):
    """Perturbing one entry of one input changes no output entry but those
    that entry broadcasts to."""
    p = RULES[name]
    checked = 0
    for args, params in calls[name]:
        out = np.asarray(bind(p, *args, **params))
        for i, a in enumerate(args):
            if not _is_array(a) or np.asarray(a).size < 2:
                continue
            a = np.asarray(a)
            for k in (0, a.size - 1):
                bumped = a.copy().reshape(-1)
                if a.dtype == np.bool_:
                    bumped[k] = not bumped[k]
                else:
                    bumped[k] = bumped[k] + (1 if a.dtype.kind in "iu" else 0.375)
                bumped = bumped.reshape(a.shape)
                new = np.asarray(_call(p, args, params, {i: bumped}))
                where = np.zeros(a.size, dtype=bool)
                where[k] = True
                reach = np.broadcast_to(where.reshape(a.shape), out.shape)
                same = (new == out) | (np.isnan(new) & np.isnan(out))
                assert same[~reach].all(), (
                    f"{name}: entry {k} of argument {i} changed other output entries")
                checked += 1
    assert checked, f"{name}: no invocation with an array argument of two or more entries"


# --------------------------------------------------------------------------
# linear and bilinear

def test_linear_and_bilinear_exclude_each_other():
    both = sorted(n for n, p in RULES.items() if p.linear and p.bilinear)
    assert not both, f"rows both linear and bilinear: {both}"


def _differentiable_calls(name, calls, least):
    """The row's invocations with at least ``least`` differentiable
    arguments, as ``(args, params, positions)`` (there must be one)."""
    p = RULES[name]
    found = [(args, params, pos) for args, params in calls[name]
             if len(pos := _diff_positions(p, args)) >= least]
    assert found, f"{name}: no invocation with {least} differentiable argument(s)"
    return found


@pytest.mark.parametrize("name", _rows("linear"))
def test_linear_rows_are_linear(name, calls):
    p = RULES[name]
    rng = np.random.default_rng(1)
    for args, params, pos in _differentiable_calls(name, calls, 1):
        _linear_identity(p, args, params, pos, rng, f"{name}: f(a x + b y) != a f(x) + b f(y)")

        def f(*xs):
            return _call(p, args, params, dict(zip(pos, xs)))
        xs = tuple(np.asarray(args[i]) for i in pos)
        vs = tuple(_other(rng, x) for x in xs)
        second = xgrad.jvp(lambda *z: xgrad.jvp(f, z, vs)[1], xs, vs)[1]
        assert np.all(np.asarray(second) == 0), f"{name}: nonzero second derivative"


@pytest.mark.parametrize("name", _rows("bilinear"))
def test_bilinear_rows_are_linear_in_each_argument(name, calls):
    p = RULES[name]
    rng = np.random.default_rng(2)
    for args, params, pos in _differentiable_calls(name, calls, 2):
        for i in pos:
            _linear_identity(p, args, params, [i], rng, f"{name}: not linear in argument {i}")


# --------------------------------------------------------------------------
# several results

@pytest.mark.parametrize("name", sorted(RULES))
def test_tuple_exactly_for_multiple_results(name, calls):
    p = RULES[name]
    assert p.several_outputs == p.multiple_results      # no call primitive in the table
    for args, params in calls[name]:
        out = bind(p, *args, **params)
        assert isinstance(out, tuple) == p.multiple_results, name
        if p.multiple_results:
            assert len(out) >= 2 and all(_is_array(o) for o in out), name


def _eigh_loss(a):
    w, v = xnp.linalg.eigh(xnp.matmul(a, a))
    return xnp.sum(w ** 2) + xnp.sum(v[:, 0] ** 2) + xnp.sum(xnp.linalg.svd(a)[1])


_A = np.array([[2.0, 0.3, -0.4], [0.3, 1.0, 0.2], [-0.4, 0.2, -0.5]])


def test_every_transform_takes_several_results():
    """Each trace meets a primitive with several results (eigh, svd), not
    only those with a derivative test of their own."""
    g = xgrad.grad(_eigh_loss)(_A)
    np.testing.assert_allclose(xgrad.grad(xgrad.checkpoint(_eigh_loss))(_A), g, rtol=1e-12)
    np.testing.assert_allclose(xgrad.grad(xgrad.checkpoint(_eigh_loss, policy="dots"))(_A), g,
                               rtol=1e-12)
    t = xgrad.jvp(_eigh_loss, (_A,), (_A,))[1]
    np.testing.assert_allclose(xgrad.linearize(_eigh_loss, _A)[1](_A), t, rtol=1e-12)
    np.testing.assert_allclose(np.vdot(g, _A), t, rtol=1e-10)
    np.testing.assert_allclose(xgrad.vmap(xgrad.grad(_eigh_loss))(np.stack([_A, -_A]))[0], g,
                               rtol=1e-12)
    assert "pow" in str(xgrad.debug.make_tape(_eigh_loss)(_A))   # the results are traced on


# --------------------------------------------------------------------------
# the namespace and the transforms read the table, not names

def test_exported_rows_are_the_namespace_functions():
    for name, p in RULES.items():
        if p.export:
            f = getattr(xnp, name)
            assert f.__name__ == name and f.__module__ == xnp.__name__, name
    assert not hasattr(xnp, "_UNARY") and not hasattr(xnp, "_BINARY")


def _string_constants(module):
    tree = ast.parse(inspect.getsource(module))
    return {node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def test_laplacian_names_no_primitive():
    names = set(RULES) | {p.name for p in (custom_jvp_call_p, custom_vjp_call_p,
                                           checkpoint_call_p)}
    named = sorted(_string_constants(_laplacian_mod) & names)
    assert not named, f"transforms/laplacian.py names primitives {named}: use their attributes"
    src = inspect.getsource(_laplacian_mod)
    assert "ELEMENTWISE" not in src and ".name ==" not in src and ".name in" not in src


def test_elementwise_family_is_declared_per_row():
    src = inspect.getsource(_elementwise_mod)
    for banned in ("ELEMENTWISE", "RULES", "frozenset", "_FIRST"):
        assert banned not in src, f"rules/elementwise.py uses {banned}: declare the family per row"
