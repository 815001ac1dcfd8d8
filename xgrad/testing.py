"""Derivative checking for users' own functions and rules.

- ``check_grads(fun, args, order=1, modes=("fwd", "rev"))``: central finite
  differences against forward and reverse mode, one argument at a time, the
  inner-product test ``<u, J v> == <J^T u, v>`` between the modes, and
  recursion to ``order`` through every combination of modes
  (forward-over-forward included). Raises AssertionError naming the
  argument, mode, order, worst element and both values.
- ``numerical_jvp(fun, args, tangents, eps)``: the central difference itself.
- ``check_derivative_properties(fun, args)``: identities a correct second
  derivative satisfies (Hessian symmetry, ``hvp == hessian @ v``, agreement
  of all four nesting orders).
- ``arrays``/``functions``: hypothesis strategies (hypothesis is optional:
  they are imported on first use).
"""
import math as _math
import numbers as _numbers
import warnings as _warnings

import numpy as _np_host   # only to draw random directions and report numbers

from . import numpy as _xnp
from . import tree as _tree
from .core import RULES as _RULES, concrete as _concrete
from .backends import (backend_of as _backend_of, is_inexact as _is_inexact,
                       is_complex as _is_complex, default_namespace as _default_namespace)
from .transforms.jvp import jvp as _jvp
from .transforms.vjp import vjp as _vjp, grad as _grad
from .transforms.derived import hessian as _hessian, hvp as _hvp, jacfwd as _jacfwd, jacrev as _jacrev

__all__ = ["check_grads", "numerical_jvp", "check_derivative_properties", "arrays",
           "functions", "default_tolerance"]

# (atol, rtol, eps) by dtype name: float64 tight, float32 loose
_TOL = {"float64": (1e-6, 1e-5, 1e-5), "float32": (5e-2, 5e-2, 3e-3),
        "complex128": (1e-6, 1e-5, 1e-5), "complex64": (5e-2, 5e-2, 3e-3)}


def default_tolerance(dtype):
    """(atol, rtol, eps) used for ``dtype`` when none is given."""
    return _TOL.get(str(getattr(dtype, "name", dtype)).rsplit(".", 1)[-1], _TOL["float64"])


def _host(x):
    """A value as a numpy array on the host (for reporting and inner products)."""
    x = _concrete(x)
    if hasattr(x, "get"):
        x = x.get()
    try:
        return _np_host.asarray(x)
    except TypeError:      # array_api_strict on Python >= 3.12 forbids __array__
        return _np_host.from_dlpack(x)


def _like(x, host):
    """A host array as an array of ``x``'s backend and dtype."""
    xp = _backend_of(x)
    return xp.asarray(host.astype(_host(x).dtype))


def _rand_like(rng, x):
    h = _host(x)
    r = rng.normal(size=h.shape)
    if _np_host.iscomplexobj(h):
        r = r + 1j * rng.normal(size=h.shape)
    return _like(x, r.astype(h.dtype))


def _vdot(a, b):
    return complex(_np_host.vdot(_host(a).ravel(), _host(b).ravel()))


def _inexact(x):
    return hasattr(x, "dtype") and _is_inexact(x.dtype)


def _conj(x):
    return _xnp.conj(x) if _is_complex(x.dtype) else x


def _numerical_vjp(fun, args, flat, tree, i, cts, eps):
    """Re <u, J e_k> (+ i Re <u, J (i e_k)> for complex leaves), element by
    element of leaf ``i``: the numerical J^H u, to locate a VJP mismatch."""
    x = _host(flat[i])
    out = _np_host.zeros(x.shape, dtype=x.dtype)
    units = [1.0, 1j] if _np_host.iscomplexobj(x) else [1.0]
    for k in range(x.size):
        for unit in units:
            e = _np_host.zeros(x.shape, dtype=x.dtype)
            e.flat[k] = unit
            t_flat = [_like(y, e) if j == i else _xnp._zeros_like(y) if hasattr(y, "dtype") else y
                      for j, y in enumerate(flat)]
            d = numerical_jvp(fun, args, _tree.unflatten(tree, t_flat), eps)
            val = sum(_vdot(n, c).real for n, c in zip(d, cts))
            out.flat[k] += val if unit == 1.0 else 1j * val
    return out


def numerical_jvp(fun, args, tangents, eps=None):
    """Central difference ``(f(x + eps t) - f(x - eps t)) / (2 eps)`` on flat
    lists of array outputs."""
    if eps is None:
        eps = default_tolerance(_tree.leaves(args)[0].dtype)[2]
    plus = _tree.map(lambda x, t: x + eps * t if _inexact(x) else x, args, tangents)
    minus = _tree.map(lambda x, t: x - eps * t if _inexact(x) else x, args, tangents)
    fp = _tree.leaves(fun(*plus))
    fm = _tree.leaves(fun(*minus))
    return [(_host(a) - _host(b)) / (2 * eps) for a, b in zip(fp, fm)]


def _fail(what, order, mode, arg, auto, num, atol, rtol):
    auto = _np_host.atleast_1d(_np_host.asarray(auto))
    num = _np_host.atleast_1d(_np_host.asarray(num))
    err = _np_host.abs(auto - num) - rtol * _np_host.abs(num)
    i = int(_np_host.argmax(err))
    idx = _np_host.unravel_index(i, auto.shape) if auto.ndim else ()
    raise AssertionError(
        f"check_grads: {what} mismatch, order {order}, mode {mode!r}, argument {arg}: "
        f"worst element {tuple(int(k) for k in idx)}: automatic {complex(auto.ravel()[i]).real!r} vs "
        f"numerical {complex(num.ravel()[i]).real!r} (atol={atol:g}, rtol={rtol:g})")


def _close(a, b, atol, rtol):
    a, b = _np_host.asarray(a), _np_host.asarray(b)
    return a.shape == b.shape and bool(_np_host.all(_np_host.abs(a - b) <= atol + rtol * _np_host.abs(b)))


def _leaf_kind(x):
    return f"{x.dtype}{list(x.shape)}" if hasattr(x, "dtype") else type(x).__name__


def _no_int_tangents(tree, t_flat, flat):
    """The tangents for ``jvp``: None (a zero) for the leaves that are not
    floating arrays (an integer argument has no tangent)."""
    return _tree.unflatten(tree, [t if hasattr(x, "dtype") and _is_inexact(x.dtype) else None
                                  for t, x in zip(t_flat, flat)])


def _check(fun, args, order, modes, atol, rtol, eps, rng, path):
    """One level of checks; recurses on the derivative functions."""
    args = tuple(args)
    flat, tree = _tree.flatten(args)
    dtype = next((x.dtype for x in flat if hasattr(x, "dtype") and _is_inexact(x.dtype)), None)
    if dtype is None:
        return
    a0, r0, e0 = default_tolerance(dtype)
    atol = a0 * (1 + 4 * len(path)) if atol is None else atol   # looser at higher orders
    rtol = r0 * (1 + 4 * len(path)) if rtol is None else rtol
    eps = e0 if eps is None else eps
    diff = [i for i, x in enumerate(flat) if hasattr(x, "dtype") and _is_inexact(x.dtype)]
    out = fun(*args)
    o_flat = _tree.leaves(out)
    if not any(_inexact(o) and _math.prod(o.shape) > 0 for o in o_flat):
        if not any(_inexact(o) for o in o_flat):
            raise ValueError(
                f"check_grads: nothing to check: fun's output has no floating-point array "
                f"(output leaves: {', '.join(_leaf_kind(o) for o in o_flat) or 'none'})")
        if not path:   # an empty derivative can't be wrong: pass, and say so
            _warnings.warn("check_grads: fun's floating-point outputs are all empty (size 0): "
                           "there is no derivative entry to compare", RuntimeWarning, stacklevel=3)
        return
    here = " over ".join(reversed(path)) or "-"
    for i in diff:
        t_flat = [_rand_like(rng, x) if k == i else _xnp._zeros_like(x) if hasattr(x, "dtype") else x
                  for k, x in enumerate(flat)]
        tangents = _tree.unflatten(tree, t_flat)
        name = f"{i}{_tree.path_str(tree, i)}" if len(flat) > 1 else "0"
        num = numerical_jvp(fun, args, tangents, eps)
        if "fwd" in modes:
            _, t_out = _jvp(fun, args, _no_int_tangents(tree, t_flat, flat))
            for a, n in zip(_tree.leaves(t_out), num):
                if not _close(_host(a), n, atol, rtol):
                    _fail("JVP", len(path) + 1, "fwd" + (f" (inside {here})" if path else ""),
                          name, _host(a), n, atol, rtol)
        if "rev" in modes:
            # JAX's convention (check_vjp): g = conj(vjp(conj(u))) = J^H u, so that
            # Re <J v, u> == Re <v, g> for real and complex functions alike
            cts = [_rand_like(rng, o) for o in o_flat]
            _, f_vjp = _vjp(fun, *args)
            ct_tree = _tree.unflatten(_tree.structure(out), [_conj(c) for c in cts])
            g = _conj(_tree.leaves(f_vjp(ct_tree))[i])
            lhs = sum(_vdot(n, c) for c, n in zip(cts, num)).real   # Re <J v, u> numerically
            rhs = _vdot(t_flat[i], g).real                          # Re <v, J^H u>
            scale = max(1.0, abs(lhs), abs(rhs))
            if not abs(lhs - rhs) <= atol * scale + rtol * abs(lhs) + rtol * scale:   # NaN fails
                mode = "rev" + (f" (inside {here})" if path else "")
                if _math.prod(flat[i].shape) <= 1000:       # locate the wrong element
                    _fail("VJP", len(path) + 1, mode, name, _host(g),
                          _numerical_vjp(fun, args, flat, tree, i, cts, eps), atol, rtol)
                _fail("VJP", len(path) + 1, mode, name, [rhs], [lhs], atol, rtol)
            _check_vjp_linear(f_vjp, out, o_flat, i, rng, atol, rtol, len(path) + 1, here, name)
            if "fwd" in modes:
                _, t_out = _jvp(fun, args, _no_int_tangents(tree, t_flat, flat))
                ip = sum(_vdot(t, c) for c, t in zip(cts, _tree.leaves(t_out))).real
                ip_tol = (1e-9 if "64" in str(dtype) or "128" in str(dtype) else 1e-3) * scale
                if not abs(ip - rhs) <= ip_tol:
                    _fail("inner product <u, J v> vs <J^T u, v> between fwd and rev",
                          len(path) + 1, "fwd/rev", name, [rhs.real], [ip.real], atol, rtol)
    if order <= 1:
        return
    if "fwd" in modes:
        t_flat = [_rand_like(rng, x) if k in diff else x for k, x in enumerate(flat)]
        tangents = _no_int_tangents(tree, t_flat, flat)
        _check(lambda *a: _jvp(fun, a, tangents)[1], args, order - 1, modes,
               atol, rtol, eps, rng, path + ["fwd"])
    if "rev" in modes:
        cts = _tree.unflatten(_tree.structure(out), [_rand_like(rng, o) for o in o_flat])
        _check(lambda *a: _vjp(fun, *a)[1](cts), args, order - 1, modes,
               atol, rtol, eps, rng, path + ["rev"])


def _check_vjp_linear(f_vjp, out, o_flat, i, rng, atol, rtol, order, here, name):
    """A VJP is linear in its cotangent: vjp(u1 + 2 u2) == vjp(u1) + 2 vjp(u2)
    (autograd's check_vjp). The inner-product check sees one cotangent only, so
    a VJP that is right at that cotangent and wrong in how it scales passes it."""
    u1 = [_rand_like(rng, o) for o in o_flat]
    u2 = [_rand_like(rng, o) for o in o_flat]
    st = _tree.structure(out)
    g1, g2, g12 = (_host(_tree.leaves(f_vjp(_tree.unflatten(st, u)))[i])
                   for u in (u1, u2, [a + 2 * b for a, b in zip(u1, u2)]))
    want = g1 + 2 * g2
    scale = max(1.0, float(_np_host.max(_np_host.abs(want), initial=0.0)))
    if not _close(g12, want, atol * scale, rtol):
        _fail("VJP linearity in the cotangent (vjp(u1 + 2 u2) vs vjp(u1) + 2 vjp(u2))", order,
              "rev" + (f" (inside {here})" if here != "-" else ""), name, g12, want, atol, rtol)


def check_grads(fun, args, order=1, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Check ``fun``'s derivatives against central finite differences.

    Args:
      fun: function of the positional ``args`` (pytrees of float arrays).
      args: tuple of arguments.
      order: check derivatives up to this order, through every combination
        of ``modes`` (forward-over-forward, reverse-over-forward, ...).
      modes: ``"fwd"`` (jvp), ``"rev"`` (vjp) or both; with both, the
        inner-product identity between them is checked too.
      atol, rtol, eps: tolerances and finite-difference step; by default
        they depend on the dtype (float64 tight, float32 loose).

    Returns:
      None. Raises AssertionError naming the argument, mode, order, worst
      element and both values on a mismatch (a NaN fails every check), and
      ValueError when there is nothing to check (no floating-point argument
      or output, empty or unknown ``modes``, ``order`` not an int >= 1),
      rather than passing. Empty floating-point arguments or outputs pass
      with a RuntimeWarning: an empty derivative has no entry to be wrong.
      In reverse mode the VJP is also checked to be linear in its cotangent.

    >>> import xgrad, xgrad.numpy as xnp
    >>> xgrad.check_grads(_xnp.sin, (_xnp.asarray([0.1, 0.2]),), order=2)
    """
    modes = _check_modes(modes)
    if isinstance(order, bool) or not isinstance(order, _numbers.Integral) or order < 1:
        raise ValueError(f"check_grads: nothing to check: order={order!r}: order must be an "
                         f"int >= 1 (1: first derivatives)")
    if not isinstance(args, (tuple, list)):
        raise TypeError("check_grads: args must be a tuple of arguments")
    rng = _np_host.random.default_rng(0)
    args = tuple(_tree.map(lambda x: _default_namespace().asarray(x)
                           if type(x) in (int, float, complex) else x, tuple(args)))
    _check_some_input(args)
    _check(fun, args, int(order), modes, atol, rtol, eps, rng, [])


def _check_modes(modes):
    """``modes`` as a non-empty tuple of "fwd"/"rev", or ValueError: an empty
    or misspelt one would check nothing and pass."""
    if isinstance(modes, str):
        modes = (modes,)
    try:
        modes = tuple(modes)
    except TypeError:
        raise ValueError(f"check_grads: modes={modes!r} is not a tuple; modes must be a "
                         f"subset of ('fwd', 'rev')") from None
    if not modes:
        raise ValueError("check_grads: nothing to check: modes=() is empty (modes must be a "
                         "subset of ('fwd', 'rev'), not empty); pass modes=('fwd', 'rev')")
    bad = [m for m in modes if m not in ("fwd", "rev")]
    if bad:
        raise ValueError(f"check_grads: unknown mode {bad[0]!r} in modes={modes!r}: modes must "
                         f"be a subset of ('fwd', 'rev')")
    return modes


def _check_some_input(args):
    """ValueError when no argument leaf is a non-empty floating-point array:
    there would be no direction to differentiate in, and nothing checked."""
    flat = _tree.leaves(args)
    inexact = [x for x in flat if _inexact(x)]
    if not inexact:
        kinds = ", ".join(_leaf_kind(x) for x in flat) or "none"
        raise ValueError(
            f"check_grads: nothing to check: no argument is a floating-point array (argument "
            f"leaves: {kinds}); pass float or complex arrays (1.0, not 1)")
    if all(_math.prod(x.shape) == 0 for x in inexact):   # an empty derivative can't be wrong
        _warnings.warn("check_grads: every floating-point argument is empty (size 0): there is "
                       "no derivative entry to compare", RuntimeWarning, stacklevel=3)


def check_derivative_properties(fun, args, atol=None, rtol=None):
    """Assert the identities a correct second derivative of the scalar
    function ``fun(x)`` satisfies at ``args = (x,)``: the Hessian is
    symmetric; ``hvp(fun, x, v) == hessian(fun)(x) @ v``; forward-over-
    reverse, reverse-over-forward, reverse-over-reverse and
    forward-over-forward second derivatives agree; and first-order forward
    and reverse modes satisfy the inner-product test."""
    (x,) = args
    a0, r0, _ = default_tolerance(x.dtype)
    atol = 10 * a0 if atol is None else atol
    rtol = 10 * r0 if rtol is None else rtol
    n = _math.prod(x.shape)
    rng = _np_host.random.default_rng(1)
    H = _host(_hessian(fun)(x)).reshape(n, n)
    if not _close(H, H.T, atol, rtol):
        _fail("Hessian symmetry", 2, "fwd-over-rev", 0, H, H.T, atol, rtol)
    v = _rand_like(rng, x)
    hv = _host(_hvp(fun, (x,), (v,))).reshape(n)
    if not _close(hv, H @ _host(v).reshape(n), atol, rtol):
        _fail("hvp vs hessian @ v", 2, "fwd-over-rev", 0, hv, H @ _host(v).reshape(n), atol, rtol)
    variants = {
        "rev-over-fwd": _jacrev(_jacfwd(fun)),
        "rev-over-rev": _jacrev(_jacrev(fun)),
        "fwd-over-fwd": _jacfwd(_jacfwd(fun)),
    }
    for name, h in variants.items():
        Hv = _host(h(x)).reshape(n, n)
        if not _close(Hv, H, atol, rtol):
            _fail("second derivative", 2, name + " vs fwd-over-rev", 0, Hv, H, atol, rtol)
    u = _rand_like(rng, x)
    _, t = _jvp(fun, (x,), (u,))
    g = _grad(fun)(x)
    lhs, rhs = float(_host(t)), _vdot(g, u).real
    if abs(lhs - rhs) > atol + rtol * abs(rhs):
        _fail("inner product", 1, "fwd/rev", 0, [lhs], [rhs], atol, rtol)


# ----- hypothesis strategies (hypothesis imported lazily) -----

def arrays(shape, dtype="float64", elements=(-3.0, 3.0), xp=None):
    """A hypothesis strategy for arrays of ``shape`` with finite elements in
    the closed interval ``elements`` (a row's ``domain`` fits), on backend
    ``xp`` (default numpy)."""
    # optional third-party package: imported on first use, never by import xgrad
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp
    lo, hi = elements
    width = 32 if "32" in str(dtype) else 64
    if width == 32:            # st.floats(width=32) wants bounds float32 can represent
        lo32, hi32 = _np_host.float32(lo), _np_host.float32(hi)
        if lo32 < lo:
            lo32 = _np_host.nextafter(lo32, _np_host.float32(_np_host.inf))
        if hi32 > hi:
            hi32 = _np_host.nextafter(hi32, _np_host.float32(-_np_host.inf))
        lo, hi = float(lo32), float(hi32)
    strat = hnp.arrays(_np_host.dtype(str(dtype).rsplit(".", 1)[-1]), shape,
                       elements=st.floats(lo, hi, allow_nan=False, allow_infinity=False,
                                          width=width))
    backend = xp or _default_namespace()
    return strat.map(lambda a: backend.asarray(a))


# kinks inside their domain (abs at 0, max/min at ties): check_grads rejects them there
_NON_SMOOTH = {"abs", "sign", "max", "min", "floor", "ceil", "round", "trunc"}


def functions(names=None, depth=3):
    """A hypothesis strategy for random compositions of unary elementwise
    primitives (each kept inside its own domain by a tanh squash): returns
    ``(f, description)``."""
    # optional third-party package: imported on first use, never by import xgrad
    from hypothesis import strategies as st
    if names is None:
        names = [n for n, p in _RULES.items() if p.domain is not None and p.jvp is not None
                 and len(p.jvp) == 1 and p.jvp[0] is not None and hasattr(_xnp, n)
                 and n not in _NON_SMOOTH]

    def build(seq):
        def f(x):
            for n in seq:
                lo, hi = _RULES[n].domain
                x = (lo + hi) / 2 + (hi - lo) / 2 * 0.9 * _xnp.tanh(x)
                x = getattr(_xnp, n)(x)
            return x
        return f, " o ".join(reversed(seq))
    return st.lists(st.sampled_from(sorted(names)), min_size=1, max_size=depth).map(build)
