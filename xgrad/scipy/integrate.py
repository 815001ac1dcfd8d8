"""``xgrad.scipy.integrate``: the functions of ``jax.scipy.integrate``."""

__all__ = []
