"""Indexing: gather (``x[idx]``) and its two transposes, ``index_add``
(scatter-add, for the VJP of a gather) and ``index_set`` (the functional
update behind ``x[idx] = v`` on a traced value).

``idx`` is a normalised static index: Python ints, slices, None, Ellipsis
and concrete integer or boolean arrays (traced index arrays are replaced by
their concrete values: an index has no derivative).
"""
from __future__ import annotations

from . import defprim
from . import _batching as B
from .. import numpy as xnp
from ..backends import index_add as _backend_index_add, index_set as _backend_index_set

defprim("getitem", lambda xp, x, *, idx: x[idx], linear=True,
        vjp=lambda ans, x, *, idx: (
            lambda g, shape=x.shape: xnp._index_add(xnp._zeros_as(g, shape), g, idx)),
        batch=B.getitem_rule)

defprim("index_add", lambda xp, x, v, *, idx: _backend_index_add(xp, x, idx, v),
        nargs=2, linear=False,
        jvp=(lambda x_dot, ans, x, v, *, idx: x_dot,
             lambda v_dot, ans, x, v, *, idx: xnp._index_add(xnp.zeros_like(ans), v_dot, idx)),
        vjp=(lambda ans, x, v, *, idx: lambda g: g,
             lambda ans, x, v, *, idx: lambda g: g[idx]),
        batch=B.scatter_rule)

defprim("index_set", lambda xp, x, v, *, idx: _backend_index_set(xp, x, idx, v), nargs=2,
        jvp=(lambda x_dot, ans, x, v, *, idx: xnp._index_set(x_dot, 0.0, idx),
             lambda v_dot, ans, x, v, *, idx: xnp._index_set(xnp.zeros_like(ans), v_dot, idx)),
        vjp=(lambda ans, x, v, *, idx: lambda g: xnp._index_set(g, 0.0, idx),
             lambda ans, x, v, *, idx: lambda g: g[idx]),
        batch=B.scatter_rule)
