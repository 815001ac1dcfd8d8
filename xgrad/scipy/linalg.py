"""``xgrad.scipy.linalg``: the functions of ``jax.scipy.linalg``."""

__all__ = []
