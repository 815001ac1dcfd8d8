"""Python control flow under the batched passes of the Jacobians, and under
the linear maps that custom rules are transposed from.

A fixed-point solver with a ``float()`` convergence test, in a custom_vjp
whose bwd solves for the cotangent with the same loop (the pattern of JAX's
custom-derivatives tutorial), has a well-defined Jacobian and Hessian:
jacrev/jacfwd/hessian give it (a loop over basis vectors where one batched
pass can't branch, with a warning naming the line), an explicit vmap
raises, and forward mode never transposes a map traced on one branch only.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp


def _solve(f, z):
    for _ in range(500):
        zn = f(z)
        if float(xnp.max(xnp.abs(zn - z))) < 1e-14:       # the line the warning names
            return zn
        z = zn
    return z


@functools.partial(xgrad.custom_vjp, nondiff_argnums=(0,))
def fixed_point(f, a, z0):
    return _solve(lambda z: f(a, z), z0)


def _fp_fwd(f, a, z0):
    z = fixed_point(f, a, z0)
    return z, (a, z)


def _fp_bwd(f, res, zbar):
    a, z = res
    _, vjp_a = xgrad.vjp(lambda a: f(a, z), a)
    _, vjp_z = xgrad.vjp(lambda z: f(a, z), z)
    w = _solve(lambda u: vjp_z(u)[0] + zbar, zbar)
    return vjp_a(w)[0], xnp.zeros_like(z)


fixed_point.defvjp(_fp_fwd, _fp_bwd)


def _f(a, z):
    return xnp.cos(z) * a


A = np.array([0.5, 0.6, 0.7])


def _closed_form(a):
    """z = a cos z: z, dz/da and d2z/da2 (elementwise)."""
    z = a.copy()
    for _ in range(200):
        z = a * np.cos(z)
    s, c = np.sin(z), np.cos(z)
    d1 = c / (1 + a * s)
    # differentiate d1 = c / (1 + a s) with dz/da = d1
    dc, ds = -s * d1, c * d1
    d2 = (dc * (1 + a * s) - c * (s + a * ds)) / (1 + a * s) ** 2
    return z, d1, d2


def _fp(a):
    return fixed_point(_f, a, a)


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobians_through_a_value_dependent_solver(jac):
    _, d1, _ = _closed_form(A)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        J = getattr(xgrad, jac)(_fp)(A)
    np.testing.assert_allclose(J, np.diag(d1), rtol=1e-12, atol=1e-13)
    # the grad (one cotangent, no batched pass) agrees
    np.testing.assert_allclose(xgrad.grad(lambda a: xnp.sum(_fp(a)))(A), d1, rtol=1e-12)
    assert not any("differs per basis vector" in str(x.message) and x.filename != __file__
                   for x in w)


def test_hessian_through_a_value_dependent_solver():
    _, _, d2 = _closed_form(A)
    H = xgrad.hessian(lambda a: xnp.sum(_fp(a)))(A)
    np.testing.assert_allclose(H, np.diag(d2), rtol=1e-10, atol=1e-12)
    # the same as differentiating the plain (unrolled) solver twice
    plain = xgrad.hessian(lambda a: xnp.sum(_solve(lambda z: _f(a, z), a)))(A)
    np.testing.assert_allclose(H, plain, rtol=1e-10, atol=1e-12)


def test_forward_mode_through_custom_vjp_is_not_traced_at_zero():
    # transposing bwd from one trace at a zero cotangent would stop the
    # cotangent solve after one step (0.7045 instead of 0.7395)
    _, d1, _ = _closed_form(A)
    t = np.array([1.0, -2.0, 0.5])
    _, tangent = xgrad.jvp(_fp, (A,), (t,))
    np.testing.assert_allclose(tangent, d1 * t, rtol=1e-12)


def test_fallback_warns_once_and_names_the_line():
    # a fresh function, so that its line has not warned yet
    def solve(f, z):
        for _ in range(500):
            zn = f(z)
            if float(xnp.max(xnp.abs(zn - z))) < 1e-14: return zn  # noqa: E701
            z = zn
        return z

    @xgrad.custom_vjp
    def g(a):
        return solve(lambda z: xnp.cos(z) * a, a)

    def g_fwd(a):
        z = g(a)
        return z, (a, z)

    def g_bwd(res, zbar):
        a, z = res
        w = solve(lambda u: -a * xnp.sin(z) * u + zbar, zbar)
        return (w * xnp.cos(z),)
    g.defvjp(g_fwd, g_bwd)
    with pytest.warns(RuntimeWarning, match="jacrev loops over the basis vectors") as rec:
        J1 = xgrad.jacrev(g)(A)
    line = [r for r in rec if "jacrev" in str(r.message)][0]
    assert line.filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        J2 = xgrad.jacrev(g)(A + 0.01)              # the same line: no second warning
    np.testing.assert_allclose(J1, np.diag(_closed_form(A)[1]), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(J2, np.diag(_closed_form(A + 0.01)[1]), rtol=1e-12, atol=1e-13)


def test_shortcuts_on_zero_cotangents_or_tangents_are_not_baked_in():
    # a bwd that skips work for a zero cotangent: traced at zero it would
    # transpose to a zero JVP
    @xgrad.custom_vjp
    def sq(x):
        return x * x

    def sq_bwd(x, g):
        if not bool(xnp.any(g != 0)):
            return (xnp.zeros_like(x),)
        return (2.0 * x * g,)
    sq.defvjp(lambda x: (sq(x), x), sq_bwd)
    x = np.array([1.0, -3.0])
    np.testing.assert_allclose(xgrad.jvp(sq, (x,), (np.ones(2),))[1], 2 * x, rtol=1e-15)
    np.testing.assert_allclose(xgrad.jacfwd(sq)(x), np.diag(2 * x), rtol=1e-15)

    # the same for a JVP rule transposed for reverse mode
    @xgrad.custom_jvp
    def cube(x):
        return x ** 3

    @cube.defjvp
    def cube_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        if float(xnp.max(xnp.abs(t))) == 0.0:
            return cube(x), xnp.zeros_like(t)
        return cube(x), 3.0 * x ** 2 * t
    np.testing.assert_allclose(xgrad.grad(lambda x: xnp.sum(cube(x)))(x), 3 * x ** 2,
                               rtol=1e-15)
    np.testing.assert_allclose(xgrad.jacrev(cube)(x), np.diag(3 * x ** 2), rtol=1e-15)


def test_explicit_vmap_still_raises_and_points_to_lax():
    def f(x):
        return x if float(x) > 0 else -x
    with pytest.raises(TypeError, match="lax.while_loop"):
        xgrad.vmap(f)(np.array([1.0, -2.0]))
    # vmap outside a Jacobian that had to loop: the outer read is per example
    with pytest.raises(TypeError, match="depends on the mapped axis"):
        xgrad.vmap(xgrad.jacrev(_fp))(np.stack([A, A + 0.1]))


def test_no_warning_and_one_pass_without_value_dependent_control_flow():
    calls = []

    def f(x):
        calls.append(1)
        return xnp.sin(x) * x[::-1]
    x = np.array([0.3, -1.2, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        J = xgrad.jacfwd(f)(x)
        H = xgrad.hessian(lambda x: xnp.sum(f(x) ** 2))(x)
    assert len(calls) == 2                       # one batched pass each
    fd = np.stack([(np.sin(x + h) * (x + h)[::-1] - np.sin(x - h) * (x - h)[::-1]) / 2e-6
                   for h in 1e-6 * np.eye(3)], axis=1)
    np.testing.assert_allclose(J, fd, rtol=1e-7, atol=1e-8)

    def loss(v):
        return np.sum((np.sin(v) * v[::-1]) ** 2)
    h, E = 1e-4, np.eye(3)
    fd2 = np.array([[(loss(x + h * E[i] + h * E[j]) - loss(x + h * E[i] - h * E[j])
                      - loss(x - h * E[i] + h * E[j]) + loss(x - h * E[i] - h * E[j]))
                     / (4 * h * h) for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(H, fd2, rtol=1e-5, atol=1e-6)
