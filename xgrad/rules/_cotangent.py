"""Cotangents a VJP rule may return besides an array: ``Scattered``, the
lazy scatter of a gather's VJP, and the two operations the backward pass
(``transforms/vjp.py``) needs on them: ``accumulate`` (a sum that stays lazy
while both sides are) and ``dense`` (an array).

It lives in the rule layer, beside the rule that returns it
(``rules/indexing.py``) and below the transform that consumes it, so no
rule imports a transform.
"""
from .. import numpy as xnp

__all__ = ["Scattered", "accumulate", "dense"]


class Scattered:
    """A cotangent that is zero except at some indices: what the VJP of a
    gather (``x[idx]``) returns, kept lazy so that the cotangents of several
    gathers from one array are summed into one array, not each scattered
    into zeros of the full shape and then added (autograd's SparseObject).
    Slices that tile the leading axis are joined by one ``concat``.
    ``parts`` is a tuple of ``(idx, g)``."""

    __slots__ = ("shape", "parts")

    def __init__(self, shape, parts):
        self.shape = tuple(shape)
        self.parts = parts

    def add_to(self, acc):
        for idx, g in self.parts:
            acc = xnp._index_add(acc, g, idx)
        return acc

    def materialize(self):
        g0 = self.parts[0][1]
        pieces = self._tiling()
        if pieces is None:
            return self.add_to(xnp._zeros_as(g0, self.shape))
        n, rest = self.shape[0], self.shape[1:]
        out, pos = [], 0
        for start, stop, g in pieces:
            if start > pos:
                out.append(xnp._zeros_as(g0, (start - pos,) + rest))
            out.append(g)
            pos = stop
        if pos < n:
            out.append(xnp._zeros_as(g0, (n - pos,) + rest))
        return out[0] if len(out) == 1 else xnp.concat(out, axis=0)

    def _tiling(self):
        """Sorted ``(start, stop, g)`` when every part is a step-1 slice of
        the leading axis and no two overlap; else None."""
        if not self.shape:
            return None
        n, rest = self.shape[0], self.shape[1:]
        pieces = []
        for idx, g in self.parts:
            if type(idx) is tuple:
                if len(idx) != 1:
                    return None
                idx = idx[0]
            if type(idx) is not slice or idx.step not in (None, 1):
                return None
            start, stop, _ = idx.indices(n)
            stop = max(stop, start)            # x[5:2] is empty
            if tuple(g.shape) != (stop - start,) + rest:
                return None
            pieces.append((start, stop, g))
        pieces.sort(key=lambda p: p[0])
        for (_, stop, _), (start, _, _) in zip(pieces, pieces[1:]):
            if start < stop:
                return None
        return pieces


def accumulate(prev, c):
    """prev + c for cotangents, either of which may be ``Scattered``."""
    if prev is None:
        return c
    tp, tc = type(prev) is Scattered, type(c) is Scattered
    if tp and tc:
        return Scattered(prev.shape, prev.parts + c.parts)
    if tp:
        return prev.add_to(c)
    if tc:
        return c.add_to(prev)
    return xnp.add(prev, c)


def dense(g):
    return g.materialize() if type(g) is Scattered else g
