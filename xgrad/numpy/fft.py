"""``xgrad.numpy.fft``: the array API ``fft`` extension (primitives in
``xgrad/rules/fft.py``)."""
from __future__ import annotations

__all__ = []
