"""``xgrad.numpy.linalg``: the array API ``linalg`` extension on plain and
traced arrays. Products are composites of the main namespace; the
decompositions are primitives in ``xgrad/rules/linalg.py``."""
from __future__ import annotations

from . import matmul, matrix_transpose, tensordot, vecdot   # noqa: F401

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]
