"""The ndarray methods and properties of traced values against ``jax.Array``'s
(``xgrad/numpy/_methods.py``), through the jax.numpy harness: a case
``"ndarray.<method>"`` calls the method on a traced value (on plain inputs
the call runs inside a transform, so that ``self`` is traced there too) and
on a jax array. A case whose namespace function does not exist yet (being
written in another module) is skipped, naming the function."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from jnp_cases import JCase, check, ids

R = np.random.default_rng(7)
A = R.standard_normal((3, 4))
B = R.standard_normal((4, 2))
C = R.standard_normal((2, 3, 4))
S = R.standard_normal((3, 1, 4))
V = R.standard_normal(6)
I3 = np.asarray([2, 0, 1, 3])
CPLX = (R.standard_normal((3, 2)) + 1j * R.standard_normal((3, 2)))

# the xgrad.numpy function a method needs, where its name differs
NEEDS = {"flatten": "ravel", "copy": None, "view": None, "item": None, "tolist": None,
         "T": None, "mT": None, "ndim": None, "size": None, "nbytes": None, "itemsize": None,
         "shape": None, "dtype": None, "byteswap": None}


def _via(ns, x, f):
    """``f(x)`` with ``x`` a traced value for xgrad (``f`` calls methods on
    it): already traced under the harness's transforms; a plain ``x`` is
    traced here (a zero-tangent jvp for floats, a vmap over one example
    otherwise). For jax, ``f(x)`` on the jax array."""
    if ns is not xnp or isinstance(x, xgrad.core.Tracer):
        return f(x)
    held = []

    def g(t):
        r = f(t)
        if isinstance(r, (int, float, bool, complex, list)):   # item(), tolist()
            held.append(r)
            return t
        return r
    if xnp.isdtype(x.dtype, ("real floating", "complex floating")):
        out = xgrad.jvp(g, (x,), (xnp.zeros_like(x),))[0]
    else:
        out = xgrad.vmap(g)(xnp.expand_dims(x, axis=0))
        out = tuple(o[0, ...] for o in out) if isinstance(out, tuple) else out[0, ...]
    return held[0] if held else out


def M(method, *margs, **mkw):
    """A case function calling ``x.<method>(*margs, **mkw)``; an argument
    ``ARG1`` stands for the case's second argument."""
    def fn(ns, x, *rest):
        a = [rest[0] if m is ARG1 else m for m in margs]
        return _via(ns, x, lambda t: getattr(t, method)(*a, **mkw))
    return fn


def P(prop):
    """A case function reading the property ``x.<prop>``."""
    def fn(ns, x):
        r = _via(ns, x, lambda t: getattr(t, prop))
        return ns.asarray(r) if isinstance(r, (int, tuple)) else r
    return fn


ARG1 = object()


def _sorted(ns, x):
    return ns.sort(x)


# NB: a traced comparison (t > 0) or an integer result (argsort, searchsorted)
# carries no derivative, and the transforms return it as a plain array: its
# methods are then the backend's (numpy's; array_api_strict arrays have none),
# so those cases run on numpy only (strict=False). Under vmap it is traced.
CASES = [
    JCase("ndarray.all", lambda ns, x: _via(ns, x, lambda t: (t > 0).all(axis=0)), (A,), order=0,
          strict=False),   # (t > 0) is plain: see above
    JCase("ndarray.any", lambda ns, x: _via(ns, x, lambda t: (t > 1).any()), (A,), order=0,
          strict=False),   # (t > 1) is plain: see above
    JCase("ndarray.any", lambda ns, x: _via(ns, x, lambda t: (t > 0).any(axis=1, keepdims=True)),
          (A,), order=0, id="keepdims", strict=False),   # (t > 0) is plain: see above
    JCase("ndarray.all", lambda ns, x: _via(ns, ns.expand_dims(x, axis=0), lambda t: t.all(axis=0)),
          (np.asarray([True, False, True]),), order=0, id="bool"),
    JCase("ndarray.argmax", M("argmax", axis=1), (A,), order=0),
    JCase("ndarray.argmax", M("argmax"), (A,), order=0, id="flat"),
    JCase("ndarray.argmin", M("argmin", axis=0, keepdims=True), (A,), order=0),
    JCase("ndarray.argpartition", lambda ns, x: _via(ns, x, lambda t: t.argpartition(2)[..., 2]),
          (A,), order=0),
    JCase("ndarray.argsort", M("argsort"), (A,), order=0),
    JCase("ndarray.argsort", M("argsort", axis=0, descending=True), (A,), order=0, id="desc"),
    JCase("ndarray.astype", M("astype", np.float32), (A,), order=2, rtol=1e-6, atol=1e-6),
    JCase("ndarray.astype", M("astype", np.int32), (A * 3,), order=0, id="int"),
    # mode='clip': _via traces the integer index under a vmap of one example, and
    # mode='raise' checks concrete index values
    JCase("ndarray.choose", lambda ns, i, a, b: _via(ns, i, lambda t: t.choose([a, b], mode="clip")),
          (np.asarray([0, 1, 1, 0]), V[:4], V[2:]), order=2),
    JCase("ndarray.byteswap", M("byteswap"), (A,), order=0, strict=False),   # numpy's byte order
    JCase("ndarray.clip", M("clip", -0.5, 0.5), (A,), order=1),
    JCase("ndarray.clip", M("clip", max=0.2), (A,), order=1, id="max"),
    # the condition is a numpy array here, which array_api_strict won't index with
    JCase("ndarray.compress", M("compress", np.asarray([True, False, True, True]), axis=1), (A,),
          strict=False),
    JCase("ndarray.conj", M("conj"), (A,)),
    JCase("ndarray.conj", M("conj"), (CPLX,), id="complex", vmap=False),
    JCase("ndarray.conjugate", M("conjugate"), (A,)),
    JCase("ndarray.copy", M("copy"), (A,)),
    JCase("ndarray.cumprod", M("cumprod", axis=1), (A,)),
    JCase("ndarray.cumsum", M("cumsum", axis=0), (A,)),
    JCase("ndarray.cumsum", M("cumsum"), (A,), id="flat"),
    JCase("ndarray.diagonal", M("diagonal", offset=1), (A,)),
    JCase("ndarray.diagonal", M("diagonal", 0, 2, 1), (C,), id="axes"),
    JCase("ndarray.dot", M("dot", ARG1), (A, B)),
    JCase("ndarray.dot", M("dot", ARG1), (V[:4], B), id="vec"),
    JCase("ndarray.flatten", M("flatten"), (A,)),
    JCase("ndarray.ravel", M("ravel"), (C,)),
    JCase("ndarray.ravel", M("ravel", order="F"), (A,), id="F"),
    JCase("ndarray.item", lambda ns, x: ns.asarray(_via(ns, x, lambda t: t.item(5))), (A,),
          order=0, vmap=False),
    JCase("ndarray.item", lambda ns, x: ns.asarray(_via(ns, x, lambda t: t[1, 2].item())), (A,),
          order=0, vmap=False, id="scalar"),
    JCase("ndarray.item", lambda ns, x: ns.asarray(_via(ns, x, lambda t: t.item(1, 3))), (A,),
          order=0, vmap=False, id="multi"),
    JCase("ndarray.max", M("max", axis=0), (A,), order=1),
    JCase("ndarray.max", M("max", keepdims=True), (A,), order=1, id="keepdims"),
    JCase("ndarray.mean", M("mean", axis=1), (A,)),
    JCase("ndarray.mean", M("mean"), (C,), id="all"),
    JCase("ndarray.min", M("min", axis=(0, 2)), (C,), order=1),
    JCase("ndarray.nonzero", lambda ns, x: _via(ns, x, lambda t: (t > 0).nonzero()), (A,),
          order=0, vmap=False, strict=False),   # a value-dependent shape: numpy-only here
    JCase("ndarray.prod", M("prod", axis=0), (A,)),
    JCase("ndarray.prod", M("prod"), (V,), id="all"),
    JCase("ndarray.ptp", M("ptp", axis=1), (A,), order=1),
    JCase("ndarray.repeat", M("repeat", 2, axis=0), (A,)),
    JCase("ndarray.reshape", M("reshape", 4, 3), (A,)),
    JCase("ndarray.reshape", M("reshape", (2, -1)), (A,), id="tuple"),
    JCase("ndarray.reshape", M("reshape", (2, 6), order="F"), (A,), id="F"),
    JCase("ndarray.round", M("round"), (A * 3,), order=1),
    # (jnp.searchsorted gives int32 even with x64: the function's business, not the method's)
    JCase("ndarray.searchsorted",
          lambda ns, x, v: ns.astype(_via(ns, x, lambda t: ns.sort(t).searchsorted(v)), ns.int64),
          (V, A[0]), order=0),
    JCase("ndarray.sort", M("sort", axis=0), (A,)),
    JCase("ndarray.sort", M("sort", descending=True), (A,), id="desc"),
    JCase("ndarray.squeeze", M("squeeze"), (S,)),
    JCase("ndarray.squeeze", M("squeeze", axis=1), (S,), id="axis"),
    JCase("ndarray.std", M("std", axis=0), (A,)),
    JCase("ndarray.std", M("std", ddof=1), (A,), id="ddof"),
    JCase("ndarray.sum", M("sum", axis=1, keepdims=True), (A,)),
    JCase("ndarray.sum", M("sum"), (C,), id="all"),
    JCase("ndarray.sum", M("sum", axis=(0, 2)), (C,), id="axes"),
    JCase("ndarray.swapaxes", M("swapaxes", 0, 2), (C,)),
    JCase("ndarray.take", M("take", ARG1, axis=1), (A, I3),
          strict=False),   # xnp.take: array_api_strict has no x[:, int_array]
    JCase("ndarray.take", M("take", ARG1), (A, np.asarray([5, 0, 11])), id="flat"),
    JCase("ndarray.tolist", lambda ns, x: ns.asarray(_via(ns, x, lambda t: t.tolist())), (A,),
          order=0, vmap=False),
    JCase("ndarray.trace", M("trace", offset=1), (A,)),
    JCase("ndarray.transpose", M("transpose"), (C,)),
    JCase("ndarray.transpose", M("transpose", 1, 0, 2), (C,), id="args"),
    JCase("ndarray.transpose", M("transpose", (2, 0, 1)), (C,), id="tuple"),
    JCase("ndarray.var", M("var", axis=1, keepdims=True), (A,)),
    JCase("ndarray.var", M("var", correction=1), (A,), id="correction"),
    JCase("ndarray.view", M("view"), (A,)),
    JCase("ndarray.T", P("T"), (C,)),
    JCase("ndarray.mT", P("mT"), (C,)),
    JCase("ndarray.real", P("real"), (CPLX,), vmap=False),
    JCase("ndarray.imag", P("imag"), (CPLX,), vmap=False),
    JCase("ndarray.real", P("real"), (A,), id="float"),
    JCase("ndarray.ndim", P("ndim"), (C,), order=0),
    JCase("ndarray.size", P("size"), (C,), order=0),
    JCase("ndarray.shape", P("shape"), (C,), order=0),
    JCase("ndarray.nbytes", P("nbytes"), (C,), order=0),
    JCase("ndarray.itemsize", P("itemsize"), (C,), order=0),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(case, xp, jax):
    name = case.name.split(".", 1)[1]
    fname = NEEDS.get(name, name)
    assert fname is None or hasattr(xnp, fname), \
        f"xgrad.numpy has no {fname} (ndarray.{name} calls it)"
    check(case, xp, jax)


# ----- what the harness does not see --------------------------------------

def test_out_is_refused():
    def f(x):
        return x.sum(out=x)
    with pytest.raises(TypeError, match="out argument"):
        xgrad.grad(f)(A)


def test_item_and_tolist_under_vmap_raise_clearly():
    with pytest.raises(TypeError, match="needs a concrete value.*per example"):
        xgrad.vmap(lambda x: x.item(0))(A)
    with pytest.raises(TypeError, match="needs a concrete value.*per example"):
        xgrad.vmap(lambda x: x.tolist())(A)


def test_item_needs_one_element():
    with pytest.raises(ValueError, match="12 elements"):
        xgrad.grad(lambda x: x.item() * x.sum())(A)


def test_item_gives_python_scalars():
    got = []
    xgrad.grad(lambda x: got.append((x.item(0), x.astype(np.int64).item(1),
                                     (x > 0).item(2))) or x.sum())(A)
    a, b, c = got[0]
    assert type(a) is float and type(b) is int and type(c) is bool


def test_copy_is_a_new_value():
    def f(x):
        y = x.copy()
        y[0] = 0.0
        return xnp.sum(x) + xnp.sum(y)
    g = xgrad.grad(f)(V)
    np.testing.assert_allclose(g, np.r_[1.0, np.full(5, 2.0)])


def test_ndarray_isinstance():
    assert isinstance(np.zeros(2), xnp.ndarray)
    assert not isinstance(1.0, xnp.ndarray)
    assert not isinstance(np.float64, xnp.ndarray)
    seen = []
    xgrad.grad(lambda x: seen.append(isinstance(x, xnp.ndarray)) or xnp.sum(x))(V)
    assert seen == [True]
    with pytest.raises(TypeError, match="isinstance"):
        xnp.ndarray((2,))


def test_method_without_its_function_says_so(monkeypatch):
    monkeypatch.delattr(xnp, "swapaxes", raising=False)
    with pytest.raises(NotImplementedError, match="no 'swapaxes'"):
        xgrad.grad(lambda x: x.swapaxes(0, 1).sum())(A)
