"""``xgrad.tree_util``: ``jax.tree_util``'s names for ``xgrad.tree``."""

__all__ = []
