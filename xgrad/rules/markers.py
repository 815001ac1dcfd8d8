"""Identity primitives that mark a value for a transform.

- ``checkpoint_name(x, name)``: ``x`` unchanged; a checkpoint policy such as
  ``checkpoint_policies.save_only_these_names("h")`` saves the values marked
  with one of its names (JAX's ``checkpoint_name``).
"""
from __future__ import annotations

from . import defprim
from . import _batching

__all__ = ["checkpoint_name_p"]

# ----- markers: the identity, linear, batched like its argument -----
checkpoint_name_p = defprim("checkpoint_name", lambda xp, x, *, name: x, linear=True,
                            vjp=lambda ans, x, *, name: lambda g: g,
                            batch=_batching.elementwise, family="elementwise")
