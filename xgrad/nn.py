"""``xgrad.nn``: the functions of ``jax.nn`` (activations, softmax, one_hot, ...)."""

__all__ = []
