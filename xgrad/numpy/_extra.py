"""The rest of the array API standard's main namespace: sorting, searching,
set functions, more manipulation and statistics (primitives in
``xgrad/rules/``; composites here)."""
from __future__ import annotations

__all__ = []
