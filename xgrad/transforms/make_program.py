"""``make_program``: the ``Program`` a function stages, like ``jax.make_jaxpr``."""
import functools as _functools

from .jit import jit as _jit

__all__ = ["make_program"]


def make_program(fun, static_argnums=()):
    """``make_program(fun)(*args, **kwargs) -> Program``: what ``jit(fun)``
    stages for these arguments, guards included (``str()`` lists it, an
    equation per line), like ``jax.make_jaxpr``.

    Args:
      fun: the function (any transform of one: ``grad(f)`` lists the forward
        and the backward pass).
      static_argnums: positional arguments passed as they are (not staged),
        as for ``jit``. Python scalars among the arguments are constants too.

    >>> import xgrad, xgrad.numpy as xnp
    >>> print(xgrad.make_program(lambda x: xnp.sum(xnp.sin(x)))(xnp.ones(3)))
    { lambda a:f64[3] .
        b:f64[3] = sin a
        c:f64[] = sum[axis=None, dtype=None, keepdims=False] b
      in (c) }
    """
    if not callable(fun):
        raise TypeError(f"make_program: fun must be callable, got {type(fun).__name__}")
    lower = _jit(fun, static_argnums=static_argnums).lower

    @_functools.wraps(fun)
    def staged(*args, **kwargs):
        return lower(*args, **kwargs)
    return staged
