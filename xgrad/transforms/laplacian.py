"""The forward Laplacian (Li et al., 2023): one forward pass carrying, for
every value ``v``, its gradient ``J`` (shape ``(d, *v.shape)``, one row per
input direction) and its Laplacian ``L`` (``sum_i d2 v / dx_i2``), without
building the Hessian.

For ``y = f(x_1, ..., x_n)``:
``J_y = sum_k df/dx_k [J_k]`` (each JVP rule applied to the rows of ``J``) and
``L_y = sum_k df/dx_k [L_k] + sum_i D2 f [J_i, J_i]``. The second-order term
is zero for linear primitives, ``f''(x) * sum_i J_i**2`` for elementwise ones
(``f''`` from nested JVP rules), ``2 sum_i f(J_a,i, J_b,i)`` for bilinear ones
(multiply, matmul), and a vmapped second directional derivative otherwise.
Which case applies is read from the primitive's attributes (``linear``,
``bilinear``, ``family``); a primitive with several results, and a call
whose derivatives come from its rule (custom_jvp), go through ``jvp``.
``diag_hessian`` is the same pass keeping the directions apart.
"""
from __future__ import annotations

import math

from ..core import Trace, Tracer, bind, new_main
from ..backends import is_inexact, backend_of
from .. import numpy as xnp
from .. import tree as _tree
from ._api import as_primal, check_diff_input, frozen_args
from .derived import hessian
from .jvp import jvp
from .vmap import vmap

__all__ = ["laplacian", "diag_hessian"]


class LaplacianTracer(Tracer):
    """``primal`` is the value, ``derivs`` the pair ``(J, L)``."""

    __slots__ = ()
    derivs = Tracer.data_slot


class LaplacianTrace(Trace):
    __slots__ = ("d", "keep")

    def __init__(self, level, d, keep):
        Trace.__init__(self, level)
        self.d = d            # number of input directions
        self.keep = keep      # diag_hessian: keep per-direction second derivatives

    def const(self, x):
        return x

    def process_primitive(self, prim, args, params):
        primals, derivs, traced = self.lower(args, prim)
        if prim.several_outputs:
            if prim.jvp_from_rule or prim.multiple_results:
                return self._through_jvp(prim, params, primals, derivs)
            # checkpoint / custom_vjp: run the function inline
            spec = params["spec"]
            ins = [LaplacianTracer(self, p, dv) if dv is not None else p
                   for p, dv in zip(primals, derivs)]
            return spec.impl(ins)
        ans = bind(prim, *primals, **params)
        rules = prim.jvp
        if not traced or rules is None or not is_inexact(ans.dtype):
            return ans
        live = [k for k, dv in enumerate(derivs) if dv is not None and rules[k] is not None]
        if len(live) == 1 and prim.family == "elementwise" and not prim.linear:
            return self._elementwise_one(prim, params, primals, derivs[live[0]], live[0], ans)
        J = L = None
        for k, dv in enumerate(derivs):
            if dv is None or rules[k] is None:
                continue
            Jk, Lk = dv
            rule = rules[k]
            jk = self._rows(lambda t, rule=rule: rule(t, ans, *primals, **params), Jk, ans)
            lk = rule(Lk, ans, *primals, **params) if not self.keep else \
                self._rows(lambda t, rule=rule: rule(t, ans, *primals, **params), Lk, ans)
            if jk is None:
                continue
            lk = self._fit(lk, ans, self.keep)
            J = jk if J is None else xnp.add(J, jk)
            L = lk if L is None else xnp.add(L, lk)
        if J is None:
            return ans
        second = self._second_order(prim, params, primals, derivs, ans)
        if second is not None:
            L = xnp.add(L, second)
        return LaplacianTracer(self, ans, (J, L))

    def _elementwise_one(self, prim, params, primals, deriv, k, ans):
        """An elementwise primitive of one traced argument (tanh, sin, x * c,
        ...): f' and f'' pointwise from one nested JVP, then
        J' = f' J and L' = f' L + f'' sum_i J_i**2."""
        Jk, Lk = deriv
        d1, d2 = _elementwise_derivs(prim, params, primals, k, ans)
        J = self._fit(xnp.multiply(_align(Jk, ans), d1), ans, True)
        Ja = _align(Jk, ans)
        L = xnp.add(xnp.multiply(Lk if not self.keep else _align(Lk, ans), d1),
                    xnp.multiply(d2, self._sumsq(Ja, Ja)))
        return LaplacianTracer(self, ans, (J, self._fit(L, ans, self.keep)))

    def _through_jvp(self, prim, params, primals, derivs):
        """First and second derivatives along the rows from nested ``jvp``
        of the primitive: a custom_jvp function's come from its rule, not
        from its code, and a primitive with several results gets them from
        its JVP rules."""
        live = [k for k, dv in enumerate(derivs) if dv is not None]
        pts = tuple(primals[k] for k in live)

        def g(*xs):
            full = list(primals)
            for k, x in zip(live, xs):
                full[k] = x
            return list(bind(prim, *full, **params))

        def tan(*ts):
            return jvp(g, pts, ts)[1]

        def second(*ts):
            return jvp(lambda *xs: jvp(g, xs, ts)[1], pts, ts)[1]
        outs = g(*pts)
        Js = [derivs[k][0] for k in live]
        J = vmap(tan)(*Js)
        if self.keep:
            L = vmap(tan)(*[derivs[k][1] for k in live])
            S = vmap(second)(*Js)
        else:
            L = tan(*[derivs[k][1] for k in live])
            S = [xnp.sum(s, axis=0) for s in vmap(second)(*Js)]
        return [o if not is_inexact(o.dtype) else
                LaplacianTracer(self, o, (self._fit(j, o, True),
                                          self._fit(xnp.add(lap, s), o, self.keep)))
                for o, j, lap, s in zip(outs, J, L, S)]

    # ---- helpers -----------------------------------------------------------
    def _fit(self, t, ans, batched):
        """Broadcast/cast a (row-batched) tangent to the output's shape/dtype."""
        shape = ((self.d,) if batched else ()) + tuple(ans.shape)
        if tuple(t.shape) != shape:
            t = xnp.broadcast_to(t, shape)
        if t.dtype != ans.dtype:
            t = xnp.astype(t, ans.dtype)
        return t

    def _rows(self, f, rows, ans):
        """``f`` applied to each of the d rows (vmapped)."""
        out = vmap(f)(rows)
        return None if out is None else self._fit(out, ans, True)

    def _sumsq(self, a, b):
        p = xnp.multiply(a, b)
        return p if self.keep else xnp.sum(p, axis=0)

    def _second_order(self, prim, params, primals, derivs, ans):
        live = [k for k, dv in enumerate(derivs) if dv is not None and prim.jvp[k] is not None]
        if prim.linear:
            return None
        if prim.bilinear:
            if len(live) < 2:
                return None
            a, b = live

            def both(x, y):
                full = list(primals)
                full[a], full[b] = x, y
                return bind(prim, *full, **params)
            prod = self._fit(vmap(both)(derivs[a][0], derivs[b][0]), ans, True)
            return 2.0 * (prod if self.keep else xnp.sum(prod, axis=0))
        if prim.family == "elementwise":
            total = None
            for i in live:
                for j in live:
                    if j < i:
                        continue
                    h = _elementwise_second(prim, params, primals, i, j)
                    Ji = _align(derivs[i][0], ans)
                    Jj = _align(derivs[j][0], ans)
                    term = xnp.multiply(h, self._sumsq(Ji, Jj))
                    if i != j:
                        term = 2.0 * term
                    total = term if total is None else xnp.add(total, term)
            return None if total is None else self._fit(total, ans, self.keep)
        # general primitive: the second directional derivative along each row
        Js = [derivs[k][0] for k in live]

        def second(*ts):
            def f(*xs):
                full = list(primals)
                for k, x in zip(live, xs):
                    full[k] = x
                return bind(prim, *full, **params)
            pts = tuple(primals[k] for k in live)
            return jvp(lambda *xs: jvp(f, xs, ts)[1], pts, ts)[1]
        s = self._fit(vmap(second)(*Js), ans, True)
        return s if self.keep else xnp.sum(s, axis=0)


def _align(J, ans):
    """Rows (d, *s) of an input reshaped to broadcast against ans's shape."""
    k = len(ans.shape) - (J.ndim - 1)
    if k > 0:
        J = xnp.reshape(J, (J.shape[0],) + (1,) * k + tuple(J.shape[1:]))
    return J


def _elementwise_derivs(prim, params, primals, i, ans):
    """(f', f'') of an elementwise primitive in its argument ``i``, pointwise
    (``ans``: its value at ``primals``)."""
    def f(z):
        full = list(primals)
        full[i] = z
        return bind(prim, *full, **params)
    one = xnp._ones_like(primals[i])
    d = prim.deriv[i] if prim.deriv is not None and i < len(prim.deriv) else None
    if d is None:
        (_, d1), (_, d2) = jvp(lambda z: jvp(f, (z,), (one,)), (primals[i],), (one,))
        return d1, d2
    # the row's pointwise derivative d(ans, *args): f' = d, and f'' is the JVP
    # of d along (f', 1) in (ans, x): no multiplications by a unit tangent
    d1 = d(ans, *primals)

    def dd(a, z):
        full = list(primals)
        full[i] = z
        return d(a, *full)
    d2 = jvp(dd, (ans, primals[i]), (d1, one))[1]
    return d1, d2


def _elementwise_second(prim, params, primals, i, j):
    """d2 f / dx_i dx_j of an elementwise primitive, pointwise (nested JVPs
    with unit tangents: the Hessian of an elementwise op is diagonal)."""
    def f(*xs):
        full = list(primals)
        full[i] = xs[0]
        if len(xs) > 1:
            full[j] = xs[1]
        return bind(prim, *full, **params)
    xi = primals[i]
    one_i = xnp._ones_like(xi)
    if i == j:
        return jvp(lambda z: jvp(f, (z,), (one_i,))[1], (xi,), (one_i,))[1]
    xj = primals[j]
    one_j = xnp._ones_like(xj)
    zero_j = xnp._zeros_like(xj)
    zero_i = xnp._zeros_like(xi)
    inner = lambda a, b: jvp(f, (a, b), (one_i, zero_j))[1]  # noqa: E731
    return jvp(inner, (xi, xj), (zero_i, one_j))[1]


def _diff_arg(args, argnums, name):
    """The differentiated argument (one array), checked."""
    if not isinstance(argnums, int) or isinstance(argnums, bool):
        raise TypeError(f"{name}: argnums must be an int, got {argnums!r}")
    if not -len(args) <= argnums < len(args):
        raise ValueError(f"{name}: argnums={argnums} is out of range for "
                         f"{len(args)} positional argument(s)")
    x = as_primal(args[argnums], name, f"argument {argnums}")
    check_diff_input(x, name, f"argument {argnums}", False)
    return x


def _forward_laplacian(fun, argnums, keep, name):
    def lap(*args, **kwargs):
        x = _diff_arg(args, argnums, name)
        argnums_ = argnums % len(args)
        d = math.prod(x.shape)
        xp = backend_of(x)
        J0 = xp.reshape(xp.eye(d, dtype=x.dtype), (d,) + tuple(x.shape))
        L0 = xp.zeros(((d,) if keep else ()) + tuple(x.shape), dtype=x.dtype)
        # the other arguments reach fun as they are when not differentiated
        new, kwargs, _ = frozen_args(args, (argnums_,), kwargs)
        with new_main(LaplacianTrace, d, keep) as trace:
            new[argnums_] = LaplacianTracer(trace, x, (J0, L0))
            out = fun(*new, **kwargs)
            flat, tree = _tree.flatten(out)
            res = []
            for o in flat:
                if isinstance(o, Tracer) and o._trace is trace:
                    res.append(o.derivs[1])
                else:
                    o = as_primal(o, name, "output")
                    res.append(xnp.zeros(((d,) if keep else ()) + tuple(o.shape), dtype=o.dtype))
        if keep:   # (d, *out) -> (*out, *in)
            res = [_directions_last(r, x.shape) for r in res]
        return _tree.unflatten(tree, res)
    return lap


def _directions_last(r, in_shape):
    nd = r.ndim
    r = xnp.permute_dims(r, tuple(range(1, nd)) + (0,))
    return xnp.reshape(r, tuple(r.shape[:-1]) + tuple(in_shape))


def laplacian(fun, argnums=0, method="forward"):
    """The Laplacian ``sum_i d2 fun / dx_i2`` with respect to ``args[argnums]``
    (every element of that array is one coordinate x_i), elementwise over
    the output.

    Args:
      fun: function whose ``argnums`` argument is a float array.
      argnums: which positional argument (an int).
      method: ``"forward"`` (one forward pass carrying value, gradient and
        Laplacian; never builds the Hessian) or ``"hessian"`` (the trace of
        ``hessian(fun)``, for comparison; scalar outputs only).

    >>> import xgrad, xgrad.numpy as xnp
    >>> f = lambda x: xnp.sum(x ** 3)          # Laplacian: 6 * sum(x)
    >>> float(xgrad.laplacian(f)(xnp.asarray([1.0, 2.0])))
    18.0
    """
    if method == "forward":
        return _forward_laplacian(fun, argnums, False, "laplacian")
    if method == "hessian":

        def lap(*args, **kwargs):
            x = _diff_arg(args, argnums, "laplacian")
            n = math.prod(x.shape)
            args = list(args)
            args[argnums] = x
            H = hessian(fun, argnums)(*args, **kwargs)
            if tuple(H.shape) != tuple(x.shape) * 2:
                raise TypeError("laplacian(method='hessian') needs a scalar output; "
                                "use method='forward' for vector outputs")
            return xnp.sum(xnp.reshape(H, (n * n,))[::n + 1])
        return lap
    raise ValueError(f"laplacian: method={method!r}; expected 'forward' or 'hessian'")


def diag_hessian(fun, argnums=0):
    """The diagonal of the Hessian, ``d2 fun / dx_i2`` for every i, shaped
    ``out.shape + in.shape``: the forward-Laplacian pass with the directions
    kept apart (no off-diagonal term is ever computed).

    >>> import xgrad, xgrad.numpy as xnp
    >>> xgrad.diag_hessian(lambda x: xnp.sum(x ** 3))(xnp.asarray([1.0, 2.0])).tolist()
    [6.0, 12.0]
    """
    return _forward_laplacian(fun, argnums, True, "diag_hessian")
