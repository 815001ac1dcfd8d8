"""``xgrad.random``: JAX's functional key-based random numbers."""

__all__ = []
