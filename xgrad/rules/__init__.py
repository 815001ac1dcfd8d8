"""THE TABLE: one ``defprim`` row per primitive, one module per family.

A row holds the backend implementation, per-argument JVP and VJP rules,
which arguments have no derivative, the sampling domain the tests use, and
what the operation is (its ``family``, whether it is ``linear``, ...)::

    defprim("sin", lambda xp, x: xp.sin(x), family="elementwise",
            deriv=lambda ans, x: xnp.cos(x), domain=(-3.0, 3.0))

How to write a row (keywords of ``defprim``):

- ``family`` (required): one of ``FAMILIES``. ``"elementwise"`` promises
  that each output entry depends only on the same entry of each
  (broadcast) input: NaN-safe mode masks such a row's derivatives entry by
  entry, the forward Laplacian takes its pointwise fast path, and the row
  batches by broadcasting unless it names another ``batch``. ``"dot"`` is
  a contraction (what the checkpoint policy ``dots_saveable`` saves).
- ``linear=True``: jointly linear in the differentiable arguments (add,
  sum, reshape, getitem, where), so the derivative is the op itself and
  the second derivative vanishes. ``bilinear=True``: linear in each
  argument separately (multiply, matmul). For either, a row without
  ``jvp`` gets the derived one: the op applied with the tangent in place
  of argument ``i`` (valid for both).
- ``deriv`` (elementwise rows): per-argument pointwise derivative ``d``;
  the JVP is ``x_dot * d``, the VJP ``g * d``.
- ``vjp_factor`` (optional, rows with no params): per-argument
  ``d(ans, *args)`` such that the VJP is ``g * d``, when the row's ``vjp``
  says the same (multiply); reverse mode then keeps ``d`` itself instead
  of a staged closure. An entry may be the constant ``1`` or ``-1`` instead
  of a function, where the row's VJP is ``g`` or ``-g`` (add, subtract):
  reverse mode then passes the cotangent on, or negates it, with no call.
  ``deriv`` rows get it from ``deriv``.
- ``jvp_joint`` (optional): one rule taking every argument's tangent at
  once, for variadic linear ops such as concat.
- ``multiple_results=True``: ``impl`` returns a tuple of arrays; each
  ``jvp[i]`` gets that tuple as ``ans`` and returns a tuple of tangents
  (None: zero), each staged ``vjp[i]`` gets it too and its inner function
  takes the tuple of output cotangents (zero ones are given as zeros) and
  returns the argument's cotangent; the batching rule returns a tuple of
  batch axes, one per result. ``bind`` returns the results as a sequence.
- ``batch``: a builder ``prim -> rule`` from ``rules/_batching.py``.
- ``export=True``: ``xgrad.numpy`` exports the row as the unary (or, with
  ``broadcast=True``, binary) array API function of its name: adding the
  row adds the function.
- ``None`` in a rule tuple, or in ``nondiff``, means "no derivative".

Rule bodies use ``xgrad.numpy`` operations, never ``xp.*``, so every rule is
differentiable again. Between two different values, write ``xnp.multiply(a,
b)`` rather than ``a * b``: one of them may be a plain array and the other a
tracer, and some backends' operators (array_api_strict's) raise instead of
deferring to the tracer. Rules never see a zero tangent or cotangent (the
engine skips the rule), never unbroadcast and never cast dtypes: the engine
does all three. A VJP may return a lazy ``Scattered`` cotangent
(``_cotangent.py``) instead of an array.
"""
from __future__ import annotations

from ..core import Primitive, RULES, bind

__all__ = ["defprim", "RULES", "Variadic", "FAMILIES"]

# what ``Primitive.family`` may say
FAMILIES = ("elementwise", "reduction", "shape", "indexing", "sort", "dot", "linalg",
            "fft", "special", "debug", "call")


class Variadic:
    """Rule slot for primitives with any number of array arguments:
    ``rule(i, ...)`` gets the argument index first."""

    __slots__ = ("fn", "_cache")

    def __init__(self, fn):
        self.fn = fn
        self._cache = {}

    def __getitem__(self, i):
        try:
            return self._cache[i]
        except KeyError:
            fn = self.fn
            r = self._cache[i] = (lambda *a, **k: fn(i, *a, **k))
            return r


def _as_tuple(r, n):
    if r is None or isinstance(r, (tuple, Variadic)):
        return r
    return (r,) * n if n == 1 else (r,)


def defprim(name, impl, jvp=None, vjp=None, *, family, deriv=None, linear=False,
            bilinear=False, multiple_results=False, export=False, broadcast=False,
            nondiff=(), domain=None, batch=None, nargs=1, jvp_joint=None, vjp_factor=None):
    """Create the primitive ``name`` (``RULES[name]``) from one row of rules."""
    if family not in FAMILIES:
        raise ValueError(f"defprim({name!r}): family={family!r}; expected one of {FAMILIES}")
    if deriv is not None:
        derivs = deriv if isinstance(deriv, tuple) else (deriv,)
        jvp = tuple(None if d is None else _deriv_jvp(d) for d in derivs)
        vjp = tuple(None if d is None else _deriv_vjp(d) for d in derivs)
    prim_holder = []
    if (linear or bilinear) and jvp is None:
        jvp = tuple(None if i in nondiff else _tangent_in_place(prim_holder, i)
                    for i in range(nargs))
    jvp = _as_tuple(jvp, nargs)
    vjp = _as_tuple(vjp, nargs)
    if nondiff and isinstance(jvp, tuple):
        jvp = tuple(None if i in nondiff else r for i, r in enumerate(jvp))
        vjp = tuple(None if i in nondiff else r for i, r in enumerate(vjp)) if vjp else vjp
    p = Primitive(name, impl, jvp, vjp, broadcast=broadcast, domain=domain, nondiff=nondiff,
                  family=family, linear=linear, bilinear=bilinear,
                  multiple_results=multiple_results, export=export)
    if batch is None and family == "elementwise":
        from . import _batching  # cycle: _batching needs xgrad.numpy, which runs the rows
        batch = _batching.elementwise
    p.batch = batch(p) if batch is not None else None
    p.jvp_joint = jvp_joint
    if deriv is not None:
        p.deriv = derivs
        vjp_factor = derivs
    if vjp_factor is not None:
        if multiple_results:      # reverse mode's fast paths take vjp_kinds for one result
            raise ValueError(f"defprim({name!r}): vjp_factor (or deriv) with multiple_results")
        p.vjp_factor = tuple(None if r is None else d for r, d in zip(vjp, vjp_factor))
        p.vjp_kinds = tuple(_factor_kind(name, d) for d in p.vjp_factor)
    prim_holder.append(p)
    if name in RULES:
        raise ValueError(f"primitive {name!r} defined twice")
    RULES[name] = p
    return p


def _factor_kind(name, d):
    """How reverse mode applies one ``vjp_factor`` entry (``Primitive.vjp_kinds``)."""
    if d is None:
        return None
    if callable(d):
        return 1                 # g * d(ans, *args)
    if type(d) is int and d in (1, -1):
        return 2 if d == 1 else 3     # g itself, -g
    raise ValueError(f"defprim({name!r}): a vjp_factor entry is a function, 1 or -1; got {d!r}")


def _tangent_in_place(prim_holder, i):
    """The JVP of a linear or bilinear op in argument ``i``: the op itself,
    with the tangent in place of that argument."""
    def rule(x_dot, ans, *args, **params):
        args = list(args)
        args[i] = x_dot
        return bind(prim_holder[0], *args, **params)
    return rule


def _deriv_jvp(d):
    # cycle: xgrad.numpy imports the table's modules, which import this one
    from .. import numpy as xnp
    return lambda x_dot, ans, *args: xnp.multiply(x_dot, d(ans, *args))


def _deriv_vjp(d):
    # cycle: xgrad.numpy imports the table's modules, which import this one
    from .. import numpy as xnp
    # the derivative is computed when the record is made, so the record keeps
    # one array (d) instead of the op's input and output
    def stage(ans, *args):
        dv = d(ans, *args)
        return lambda g: xnp.multiply(g, dv)
    return stage
