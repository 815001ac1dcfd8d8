"""``xgrad.scipy.integrate``: the functions of ``jax.scipy.integrate``.

``trapezoid(y, x=None, dx=1.0, axis=-1)`` is ``xgrad.numpy.trapezoid`` (the
same signature as jax's), differentiable in ``y``, ``x`` and ``dx``.

>>> import numpy as np, xgrad.scipy as xsp
>>> float(xsp.integrate.trapezoid(np.asarray([1.0, 2.0, 3.0]), dx=0.5))
2.0
"""
from ..numpy import trapezoid

__all__ = ["trapezoid"]
