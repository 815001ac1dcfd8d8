"""A function with a hand-written derivative, checked with check_grads.

The clipped ReLU min(max(0, x), c) gets a custom VJP (its backward pass
passes the cotangent only where 0 < x < c). ``xgrad.check_grads`` compares
it with central finite differences in forward mode, in reverse mode and at
second order; then a broken version, whose backward pass forgets the mask,
is caught, and the error names the argument, mode, order, worst element and
both values.

NB: unlike JAX, forward mode (jvp, jacfwd, hessian) works on a custom_vjp
function too: xgrad transposes ``bwd``.

Run: ``python examples/custom_function.py`` (about a second).
"""
import numpy as np

import xgrad
import xgrad.numpy as xnp


@xgrad.custom_vjp
def clipped_relu(x, c):
    return xnp.minimum(xnp.maximum(x, 0.0), c)


def clipped_relu_fwd(x, c):
    return clipped_relu(x, c), (x, c)          # residuals: what bwd needs


def clipped_relu_bwd(res, g):
    x, c = res
    return xnp.where((x > 0.0) & (x < c), g, 0.0), None     # None: no cotangent for c


clipped_relu.defvjp(clipped_relu_fwd, clipped_relu_bwd)


@xgrad.custom_vjp
def broken_relu(x, c):
    return xnp.minimum(xnp.maximum(x, 0.0), c)


broken_relu.defvjp(clipped_relu_fwd, lambda res, g: (g, None))   # forgot the mask


def main():
    x = np.array([-1.0, 0.25, 0.5, 0.9, 1.5])      # away from the kinks at 0 and 1
    f = lambda x: clipped_relu(x, 1.0) ** 2

    print("x                       ", x)
    print("clipped_relu(x, 1)      ", clipped_relu(x, 1.0))
    print("grad sum(crelu^2)       ", xgrad.grad(lambda x: xnp.sum(f(x)))(x))
    print("jvp (forward mode), t=1 ", xgrad.jvp(f, (x,), (np.ones_like(x),))[1])
    print("hessian diagonal        ", np.diag(xgrad.hessian(lambda x: xnp.sum(f(x)))(x)))

    xgrad.check_grads(f, (x,), order=2, modes=("fwd", "rev"))
    print("check_grads(clipped_relu, order=2, fwd+rev): passed")

    for modes in (("fwd",), ("rev",)):
        try:
            xgrad.check_grads(lambda x: broken_relu(x, 1.0), (x,), order=1, modes=modes)
        except AssertionError as e:
            print(f"check_grads(broken_relu, modes={modes}) caught it:\n    {e}")
        else:
            raise SystemExit("the broken VJP was not caught")


if __name__ == "__main__":
    main()
