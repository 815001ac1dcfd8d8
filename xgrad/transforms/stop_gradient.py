"""``stop_gradient``: the identity, a constant to every transform."""
from __future__ import annotations

from ..core import RULES, Tracer, bind, active_level
from .. import tree as _tree
from ._api import fresh

__all__ = ["stop_gradient"]

_stop_gradient_p = RULES["stop_gradient"]


def stop_gradient(x):
    """``x`` itself, treated as a constant by every transform at every level
    (pytrees are mapped leaf by leaf).

    >>> import xgrad
    >>> float(xgrad.grad(lambda x: x * xgrad.stop_gradient(x))(3.0))
    3.0
    """
    # under a transform the result is always a fresh value (user code may
    # write into it), as it is for a traced leaf (the row's impl copies)
    copy = active_level() > 0
    return _tree.map(lambda leaf: bind(_stop_gradient_p, leaf) if isinstance(leaf, Tracer)
                     else fresh(leaf) if copy else leaf, x)
