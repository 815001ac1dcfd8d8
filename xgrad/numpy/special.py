"""``xgrad.numpy.special``: special functions with derivatives (primitives
in ``xgrad/rules/special.py``)."""
from __future__ import annotations

__all__ = []
