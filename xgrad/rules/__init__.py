"""THE TABLE: one ``defprim`` row per primitive, one module per family.

A row holds the backend implementation, per-argument JVP and VJP rules,
which arguments have no derivative, and the sampling domain the tests use::

    defprim("sin", lambda xp, x: xp.sin(x),
            deriv=lambda ans, x: xnp.cos(x), domain=(-3.0, 3.0))

``batch`` is a builder ``prim -> rule`` from ``rules/_batching.py`` (the
elementwise family gets its rule by default). Shortcuts: ``deriv`` (elementwise ops: per-argument pointwise derivative
``d``; JVP is ``x_dot * d``, VJP is ``g * d``), ``linear=True`` (the JVP
applies the op to the tangent in place of the argument; valid for ops linear
in each argument separately), ``jvp_joint`` (optional: one rule taking every
argument's tangent at once, for variadic linear ops such as concat). ``None``
in a tuple means "no derivative".
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

__all__ = ["defprim", "RULES", "Variadic"]


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


def defprim(name, impl, jvp=None, vjp=None, *, deriv=None, linear=False,
            broadcast=False, nondiff=(), domain=None, batch=None, nargs=1, jvp_joint=None,
            family=None):
    """Create the primitive ``name`` (``RULES[name]``) from one row of rules."""
    if deriv is not None:
        derivs = deriv if isinstance(deriv, tuple) else (deriv,)
        jvp = tuple(None if d is None else _deriv_jvp(d) for d in derivs)
        vjp = tuple(None if d is None else _deriv_vjp(d) for d in derivs)
    if linear:
        prim_holder = []

        def _lin(i):
            def rule(x_dot, ans, *args, **params):
                args = list(args)
                args[i] = x_dot
                return bind(prim_holder[0], *args, **params)
            return rule
        jvp = tuple(None if i in nondiff else _lin(i) for i in range(nargs))
    jvp = _as_tuple(jvp, nargs)
    vjp = _as_tuple(vjp, nargs)
    if nondiff and isinstance(jvp, tuple):
        jvp = tuple(None if i in nondiff else r for i, r in enumerate(jvp))
        vjp = tuple(None if i in nondiff else r for i, r in enumerate(vjp)) if vjp else vjp
    p = Primitive(name, impl, jvp, vjp, broadcast=broadcast, domain=domain, nondiff=nondiff)
    p.batch = batch(p) if batch is not None else None
    p.jvp_joint = jvp_joint
    p.family = family
    if deriv is not None:
        p.deriv = derivs
    if linear:
        prim_holder.append(p)
    if name in RULES:
        raise ValueError(f"primitive {name!r} defined twice")
    RULES[name] = p
    return p


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
