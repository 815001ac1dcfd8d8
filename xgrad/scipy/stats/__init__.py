"""``xgrad.scipy.stats``: the distributions of ``jax.scipy.stats``."""

__all__ = []
