"""``xgrad.scipy.special``: the functions of ``jax.scipy.special``."""

__all__ = []
