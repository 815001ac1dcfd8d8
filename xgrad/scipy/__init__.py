"""``xgrad.scipy``: the functions of ``jax.scipy`` (``special``, ``stats``,
``linalg``, ``signal``, ``integrate``), differentiable at every order, on
the same backends as ``xgrad.numpy``.
"""
from . import special, stats, linalg, signal, integrate

__all__ = ["special", "stats", "linalg", "signal", "integrate"]
