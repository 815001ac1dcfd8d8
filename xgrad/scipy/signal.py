"""``xgrad.scipy.signal``: the functions of ``jax.scipy.signal``."""

__all__ = []
