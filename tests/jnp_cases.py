"""One harness for the jax.numpy functions of ``xgrad.numpy``: a module of
cases (``tests/test_jnp_*.py``) lists ``CASES = [JCase(...), ...]`` and
runs ``check(case, xp, jax)`` on each. A case is a function of a namespace,
``fn(ns, *args)``, run with ``ns = xgrad.numpy`` on the ``xp`` backend and
with ``ns = jax.numpy`` as the oracle. It checks, as the case says:

- the value (and dtype) against jax, on plain arrays and on traced values;
- reverse mode (a VJP with a random cotangent) and forward mode (a JVP with
  a random tangent) against jax, w.r.t. the float arguments in ``diff``;
- the second order (forward over reverse) against jax where ``order=2``;
- ``vmap`` over a leading batch axis of the ``diff`` arguments against a
  Python loop of the same function.

``tools/coverage.py`` reads the ``CASES`` of these modules: a name is
"tested at orders 1 and 2" when a case of that name has ``order=2``, and so
on; keep ``name`` the jax.numpy name (``"linalg.norm"`` for submodules).
"""
from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from conftest import from_np, to_np


def scipy_of(ns):
    """``xgrad.scipy`` for ``xgrad.numpy``, ``jax.scipy`` (its submodules
    imported) for ``jax.numpy``: the scipy of a case's namespace."""
    if ns is xnp:
        return xgrad.scipy
    import jax.scipy.integrate, jax.scipy.linalg, jax.scipy.signal  # noqa: E401,F401  (jax only through the fixture)
    return sys.modules["jax.scipy"]


@dataclasses.dataclass
class JCase:
    """``name``: the jax.numpy function (dotted for submodules); ``fn(ns,
    *args)``: the call, on a namespace; ``args``: numpy arrays (or Python
    values, passed as they are); ``diff``: indices of the arguments to
    differentiate (default: every floating array); ``order``: 0 (values only:
    integer or boolean output, or no derivative), 1, or 2; ``vmap``: test
    vmap over the diff arguments; ``strict``: run on array_api_strict too
    (composites of standard functions); ``jit``: compile the jax side as
    one program (a large composite); ``rtol``/``atol``: tolerances;
    ``id``: a suffix telling several cases of one name apart."""

    name: str
    fn: object
    args: tuple
    diff: tuple | None = None
    order: int = 2
    vmap: bool = True
    strict: bool = True
    jit: bool = False
    rtol: float = 1e-10
    atol: float = 1e-12
    id: str = ""

    def __post_init__(self):
        self.args = tuple(self.args)
        if self.diff is None:
            self.diff = tuple(i for i, a in enumerate(self.args)
                              if isinstance(a, np.ndarray) and a.dtype.kind in "fc")
        if self.order == 0:
            self.diff = ()

    @property
    def ident(self):
        return f"{self.name}-{self.id}" if self.id else self.name


def ids(cases):
    return [c.ident for c in cases]


def _leaves(out):
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _leaves(o)]
    return [out]


def _on(xp, a):
    return from_np(xp, a) if isinstance(a, np.ndarray) else a


def _assert_tree_close(got, want, case, what):
    g, w = _leaves(got), _leaves(want)
    assert len(g) == len(w), f"{case.ident}: {what}: {len(g)} outputs, jax has {len(w)}"
    for k, (a, b) in enumerate(zip(g, w)):
        b = np.asarray(b)
        if b.dtype.kind == "V":          # jax's float0: the tangent of an integer output
            continue
        a = to_np(a)
        assert a.shape == b.shape, f"{case.ident}: {what} output {k}: shape {a.shape} vs jax {b.shape}"
        if b.dtype.kind in "fc":
            np.testing.assert_allclose(a, b, rtol=case.rtol, atol=case.atol,
                                       err_msg=f"{case.ident}: {what} output {k}")
        else:
            np.testing.assert_array_equal(a, b, err_msg=f"{case.ident}: {what} output {k}")


def _assert_dtypes(got, want, case, what):
    """dtypes follow jax's (x64 on), output by output."""
    for k, (a, b) in enumerate(zip(_leaves(got), _leaves(want))):
        b = np.asarray(b)
        if b.dtype.kind == "V":          # jax's float0
            continue
        assert str(to_np(a).dtype) == str(b.dtype), \
            f"{case.ident}: {what} output {k}: dtype {to_np(a).dtype} vs jax {b.dtype}"


def _split(case, args):
    """``f(*diff_args)`` with the other arguments fixed."""
    def f(*xs):
        full = list(args)
        for i, x in zip(case.diff, xs):
            full[i] = x
        return f.ns_fn(*full)
    return f


def _oracle(jax, jit, f, *args):
    """``f(*args)`` in jax: eagerly (jax compiles each operation once per
    shape for the whole run, which suits the many small cases), or with
    ``jit`` as one compiled program (a case of many operations used once:
    one compilation instead of one per operation; the same numbers, as
    every array is an argument and nothing is folded at compile time). A
    function that needs concrete values (a data-dependent shape) runs
    eagerly."""
    if not jit:
        return f(*args)
    try:
        return jax.jit(f)(*args)
    except (jax.errors.JAXTypeError, jax.errors.JAXIndexError):
        return f(*args)


class _Jax:
    """The jax side of a case: its value, JVP, VJP and second order, each
    one compiled program with the case's arrays as arguments."""

    def __init__(self, jax, case, jargs):
        self.jax, self.case, self.jargs = jax, case, jargs
        self.where = [i for i, a in enumerate(jargs) if isinstance(a, jax.Array)]
        self.arrays = tuple(jargs[i] for i in self.where)

    def fn(self, arrays, diff=None):
        """The case's function of its diff arguments (of all arguments
        when ``diff`` is None), the other arrays being ``arrays``."""
        full = list(self.jargs)
        for i, a in zip(self.where, arrays):
            full[i] = a

        def f(*xs):
            args = list(full)
            for i, x in zip(self.case.diff, xs):
                args[i] = x
            return self.case.fn(self.jax.numpy, *args)
        return f if diff is not None else self.case.fn(self.jax.numpy, *full)

    def value(self):
        return _oracle(self.jax, self.case.jit, lambda a: self.fn(a), self.arrays)

    def jvp(self, prim, tans):
        return _oracle(self.jax, self.case.jit, lambda a, p, t: self.jax.jvp(self.fn(a, True), p, t),
                       self.arrays, prim, tans)

    def vjp(self, prim, ct):
        return _oracle(self.jax, self.case.jit, lambda a, p, c: self.jax.vjp(self.fn(a, True), *p)[1](c),
                       self.arrays, prim, ct)

    def all(self, prim, tans, ct):
        """The value, JVP, VJP and second order (d/dt of the VJP along the
        tangents: forward over reverse) from one forward-over-reverse pass:
        its primal half is the value and the VJP, its tangent half the JVP
        and the second order (one trace of the function instead of four)."""
        jax = self.jax

        def h(a, p, t, c):
            f = self.fn(a, True)

            def both(*xs):
                out, pull = jax.vjp(f, *xs)
                return out, pull(c)
            (out, ct_x), (t_out, second) = jax.jvp(both, p, t)
            return out, t_out, ct_x, second
        return _oracle(jax, self.case.jit, h, self.arrays, prim, tans, ct)


def check(case, xp, jax):
    """Run every check the case asks for (see the module docstring)."""
    if not case.strict and xp.__name__.startswith("array_api_strict"):
        pytest.skip(f"{case.ident}: numpy-only (not a composite of standard functions)")
    jnp = jax.numpy
    args = [_on(xp, a) for a in case.args]
    jargs = [jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in case.args]
    oracle = _Jax(jax, case, jargs)
    want = oracle.value()
    got = case.fn(xnp, *args)
    _assert_tree_close(got, want, case, "value")
    _assert_dtypes(got, want, case, "value")
    if not case.diff:
        return
    rng = np.random.default_rng(1)
    prim = [args[i] for i in case.diff]
    jprim = tuple(jargs[i] for i in case.diff)
    f = _split(case, args)
    f.ns_fn = lambda *a: case.fn(xnp, *a)
    # forward mode (and the value on traced values)
    tans = [_draw(rng, np.shape(case.args[i]), case.args[i].dtype) for i in case.diff]
    jtans = tuple(jnp.asarray(t) for t in tans)
    out, t_out = xgrad.jvp(f, tuple(prim), tuple(from_np(xp, t) for t in tans))
    # reverse mode: a random cotangent per float output
    cts = [_draw(rng, np.shape(o), np.asarray(o).dtype)
           if np.asarray(o).dtype.kind in "fc" else np.zeros(np.shape(o), jax.dtypes.float0)
           for o in _leaves(want)]
    struct = jax.tree_util.tree_structure(want)
    ct_x = jax.tree_util.tree_unflatten(struct, [from_np(xp, c) if c.dtype.kind in "fc"
                                                 else None for c in cts])
    ct_j = jax.tree_util.tree_unflatten(struct, [jnp.asarray(c) if c.dtype.kind in "fc" else c
                                                 for c in cts])
    if isinstance(want, list):
        ct_x, ct_j = list(ct_x), list(ct_j)
    if case.order >= 2:
        jout, jt_out, j_ct, j_second = oracle.all(jprim, jtans, ct_j)
    else:
        (jout, jt_out), j_ct = oracle.jvp(jprim, jtans), oracle.vjp(jprim, ct_j)
    _assert_tree_close(out, jout, case, "value under jvp")
    _assert_tree_close(t_out, jt_out, case, "jvp")
    _, vjp_fn = xgrad.vjp(f, *prim)
    _assert_tree_close(vjp_fn(_as_out(ct_x, out, xp)), j_ct, case, "vjp")
    if case.order >= 2:
        # forward over reverse: d/dt of the VJP along the tangents
        def g(*xs):
            return xgrad.vjp(f, *xs)[1](_as_out(ct_x, out, xp))
        _, h = xgrad.jvp(g, tuple(prim), tuple(from_np(xp, t) for t in tans))
        _assert_tree_close(h, j_second, case, "second order (jvp of vjp)")
    if case.vmap:
        stacked = [np.stack([case.args[i], case.args[i] * 0.5 + 0.25]) for i in case.diff]
        vout = xgrad.vmap(f)(*[from_np(xp, s) for s in stacked])
        loop = [f(*[from_np(xp, s[k]) for s in stacked]) for k in range(2)]
        for k in range(2):
            _assert_tree_close(_index(vout, k), [to_np(x) for x in _leaves(loop[k])], case,
                               f"vmap (element {k})")


def _draw(rng, shape, dtype):
    """A random tangent or cotangent: complex ones have both parts, so
    complex derivatives are really tested (a real direction would miss
    the conjugations)."""
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _rebuild(like, items):
    """A sequence of ``like``'s type holding ``items``: a namedtuple (jax's and
    xgrad's ``SlogdetResult``, ``EighResult``...) takes its fields one by one,
    a tuple or a list the iterable."""
    return type(like)(*items) if hasattr(like, "_fields") else type(like)(items)


def _as_out(ct, out, xp):
    """The cotangent tree with zeros for non-float outputs (xgrad wants
    arrays of the output's dtype there)."""
    if isinstance(out, (tuple, list)):
        return _rebuild(out, [_as_out(c, o, xp) for c, o in zip(ct, out)])
    if ct is None:
        return xnp.zeros_like(out)
    return ct


def _index(tree, k):
    if isinstance(tree, (tuple, list)):
        return [x for t in tree for x in _leaves(_index(t, k))]
    return tree[k, ...]
