"""Backend dispatch: which array namespace an operation runs on.

``namespace(*xs)`` returns the array API namespace of the arrays among ``xs``
(through ``array_api_compat``), cached by ``type(x)`` because
``array_namespace`` costs about a microsecond a call. Python scalars are weak
and have no namespace; with no array at all the default backend (numpy) is
used. Two different backends in one operation is an error.

Backend quirks live in ``_<name>.py`` beside this file and nowhere else.

This is the bottom layer: it imports nothing from xgrad. The one thing it
must know about the layers above, which values are traced (``backend_of``
looks through them), the core tells it at import (``look_through``).
"""
from __future__ import annotations

import math

import array_api_compat
import array_api_compat.numpy as _np_compat

from . import _cupy, _dask, _jax, _numpy, _torch

__all__ = ["namespace", "default_namespace", "dtype_in", "to_array",
           "is_inexact", "is_complex", "is_lazy", "is_lazy_array", "SCALAR_TYPES", "backend_of",
           "look_through"]

SCALAR_TYPES = (bool, int, float, complex)
_by_type: dict = {t: None for t in SCALAR_TYPES}
type_namespaces = _by_type     # type -> namespace (None: Python scalar); read-only outside
_quirks: dict = {}


def _lookup(x):
    t = type(x)
    try:
        xp = array_api_compat.array_namespace(x)
    except TypeError:
        raise TypeError(
            f"xgrad can't operate on a value of type {t.__module__}.{t.__qualname__}: "
            f"expected an array of an array API backend (numpy, cupy, "
            f"array_api_strict, ...), a Python scalar, or a traced value") from None
    if _dask.is_dask_array(x):
        # not cached: dask arrays take the core's slow path (_dask.run)
        return _dask.namespace(xp)
    _by_type[t] = xp
    return xp


def namespace(*xs):
    """Array namespace of the arrays in ``xs`` (default backend if none)."""
    xp = None
    get = _by_type.get
    for x in xs:
        ns = get(type(x), False)
        if ns is None:
            continue
        if ns is False:
            if isinstance(x, SCALAR_TYPES):  # numpy scalars are arrays; bool subclasses
                continue
            ns = _lookup(x)
        if xp is None:
            xp = ns
        elif ns is not xp:
            both = _dask.combine(xp, ns)      # numpy with dask: dask
            if both is not None:
                xp = both
                continue
            raise TypeError(
                f"arguments come from two array backends ({xp.__name__} and "
                f"{ns.__name__}); move them to one backend first")
    return xp if xp is not None else default_namespace()


def default_namespace():
    return _np_compat


_wrappers = ()     # types whose instances wrap a value in ``.primal`` (tracers)


def look_through(cls):
    """Make ``backend_of`` see through instances of ``cls`` to their
    ``.primal``: the core registers its ``Tracer`` (this layer may not
    import the core)."""
    global _wrappers
    _wrappers = _wrappers + (cls,)


def backend_of(x):
    """Namespace of one value, looking through tracers."""
    while isinstance(x, _wrappers):
        x = x.primal
    return namespace(x)


# --------------------------------------------------------------------------
# dtypes across backends: the same dtype has a different object per backend

_DTYPE_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128")
_dtype_cache: dict = {}


def _dtype_name(dt):
    name = getattr(dt, "name", None)           # numpy / cupy dtypes
    if name in _DTYPE_NAMES:
        return name
    if isinstance(dt, type):                   # numpy scalar types (np.float32)
        name = getattr(dt, "__name__", None)
        if name in _DTYPE_NAMES:
            return name
        if name == "bool_":
            return "bool"
    s = str(dt).rsplit(".", 1)[-1]            # array_api_strict.float32
    if s in _DTYPE_NAMES:
        return s
    raise TypeError(f"unknown dtype {dt!r}")


def dtype_in(xp, dt):
    """The dtype object of backend ``xp`` that has the same name as ``dt``."""
    if dt is None:
        return None
    key = (xp, type(dt), dt)   # the type first: backends' dtypes never compare
    try:
        return _dtype_cache[key]
    except KeyError:
        pass
    except TypeError:  # unhashable dtype spec
        key = None
    if isinstance(dt, str):
        name = dt
    elif dt is float or dt is int or dt is complex or dt is bool:
        name = {float: "float64", int: "int64", complex: "complex128", bool: "bool"}[dt]
    else:
        name = _dtype_name(dt)
    res = getattr(xp, name)
    if key is not None:
        _dtype_cache[key] = res
    return res


_kind_cache: dict = {}


def _kind(dt):
    key = (type(dt), dt)      # the type first: backends' dtypes never compare
    try:
        return _kind_cache[key]
    except KeyError:
        name = _dtype_name(dt)
        k = "c" if name.startswith("complex") else "f" if name.startswith("float") else "i"
        _kind_cache[key] = k
        return k


def is_inexact(dt):
    """True for real and complex floating dtypes."""
    return _kind(dt) != "i"


def is_complex(dt):
    return _kind(dt) == "c"


def flat_view(xp, x):
    """``x`` as a 1-d array, without a copy where the backend can (numpy and
    cupy: ``ravel(order="K")`` keeps a transposed product's layout; the
    standard's ``reshape`` copies any array that is not C-contiguous)."""
    if array_api_compat.is_numpy_array(x) or array_api_compat.is_cupy_array(x):
        return x.ravel(order="K")
    return xp.reshape(x, (-1,))


def is_lazy(xp):
    """True for namespaces whose arrays are evaluated later (dask): xgrad
    never forces a value of theirs to check it."""
    return array_api_compat.is_dask_namespace(xp)


def is_lazy_array(x):
    """True for arrays evaluated later (dask): their value can't be read."""
    return _dask.is_dask_array(x)


def to_array(x, xp=None):
    """Normalise a value at the API boundary: numpy scalars become 0-d arrays,
    Python floats become 0-d arrays of the default float dtype."""
    t = type(x)
    if t in SCALAR_TYPES:
        xp = xp or default_namespace()
        return xp.asarray(x)
    q = _quirks.get(t, False)
    if q is False:
        q = _numpy.to_array if _numpy.is_numpy_scalar(x) else None
        _quirks[t] = q
    return q(x) if q is not None else x


# --------------------------------------------------------------------------
# scatter operations (the array API standard has no scatter-add)

def _quirk(xp, name):
    key = (id(xp), name)
    try:
        return _quirks[key]
    except KeyError:
        mod = _quirk_module(xp)
        fn = getattr(mod, name, None) if mod is not None else None
        _quirks[key] = fn
        return fn


def _quirk_module(xp):
    """The ``_<name>.py`` module of backend ``xp``, or None. By namespace, not
    by name: ``jax.numpy`` is not numpy."""
    for is_ns, mod in ((array_api_compat.is_numpy_namespace, _numpy),
                       (array_api_compat.is_cupy_namespace, _cupy),
                       (array_api_compat.is_torch_namespace, _torch),
                       (array_api_compat.is_jax_namespace, _jax)):
        if is_ns(xp):
            return mod
    return None


def _is_int_array(i):
    return hasattr(i, "shape") and hasattr(i, "dtype") and not isinstance(i, (bool, int))


def index_set(xp, x, idx, v):
    """``x`` with ``x[idx] = v`` (a copy; ``x`` is never written).

    Repeated integer indices (``x[[0, 0]] = v``): which write wins is the
    backend's. numpy: the last one in C order of the indexed region, as
    observed (its docs promise no order: "For advanced assignments, there is
    in general no guarantee for the iteration order"); cupy: undefined, per
    its "Differences between CuPy and NumPy" page; array_api_strict has no
    integer-array setitem at all (the standard leaves it implementation-
    defined), so there ``_index_set_gather`` writes, the last write in C
    order winning. The VJP asks ``index_winners``, which replays the writes
    through this very function, so reverse mode agrees with the value and
    with forward mode whatever a deterministic backend does.
    """
    q = _quirk(xp, "index_set")
    if q is not None:
        return q(x, idx, v)
    if is_lazy(xp):
        out = _dask.scatter(xp, x, idx, v, add=False)
        if out is not None:
            return out
        x = _dask.align_chunks(x, idx, v)
    out = xp.asarray(x, copy=True)
    try:
        out[idx] = v
    except IndexError:
        parts = idx if isinstance(idx, tuple) else (idx,)
        if not any(_is_int_array(p) and not _is_bool(xp, p) for p in parts):
            raise
        return _index_set_gather(xp, out, idx, v)
    return out


def _index_set_gather(xp, out, idx, v):
    """``out[idx] = v`` on a backend whose setitem refuses integer arrays
    (array_api_strict), for any index it can gather with: the flat positions
    written come from gathering an ``arange``; a stable sort puts the writes
    to one position together, in C order, and the last of each run wins; a
    ``searchsorted`` of every position among the winners then selects, with
    gathers only. O((n + k) log k) for k writes into n elements."""
    shape = tuple(out.shape)
    n = math.prod(shape)
    try:
        where_to = xp.reshape(xp.arange(n), shape)[idx]
    except IndexError as e:
        raise IndexError(f"{xp.__name__} has no integer-array setitem, and xgrad's "
                         f"fallback needs an index it can gather with ({e})") from None
    k = math.prod(where_to.shape)
    if k == 0:
        return out
    pos = xp.reshape(where_to, (k,))
    vals = xp.asarray(v, dtype=out.dtype)
    if vals.ndim > where_to.ndim:          # leading size-1 axes, as numpy's setitem allows
        vals = xp.reshape(vals, tuple(vals.shape)[vals.ndim - where_to.ndim:])
    vals = xp.reshape(xp.broadcast_to(vals, tuple(where_to.shape)), (k,))
    order = xp.argsort(pos, stable=True)
    sp = xp.take(pos, order)
    last = xp.concat((sp[1:] != sp[:-1], xp.ones((1,), dtype=xp.bool)))
    uniq, src = sp[last], order[last]              # written positions, ascending; their winners
    every = xp.arange(n)
    j = xp.clip(xp.searchsorted(uniq, every), max=uniq.shape[0] - 1)
    hit = xp.take(uniq, j) == every
    flat = xp.where(hit, xp.take(vals, xp.take(src, j)), xp.reshape(out, (n,)))
    return xp.reshape(flat, shape)


def index_winners(xp, shape, idx):
    """Which entries of the region ``x[idx]`` (``x`` of ``shape``) survive
    ``x[idx] = v``: a boolean array of the region's shape, False where a
    repeated integer index let another write overwrite the entry; ``None``
    when nothing is overwritten, so the caller needs no mask. Ints, slices
    and boolean masks never repeat: with no integer index array of two or
    more elements this returns at once. Otherwise the writes are replayed by
    ``index_set`` itself on integer ids (``tag[idx] = ids``; an entry won if
    ``tag[idx]`` reads its own id back), so the answer is the backend's own
    order of writes, the one the value and forward mode got."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    arrays = [p for p in parts if _is_int_array(p) and not _is_bool(xp, p)
              and math.prod(p.shape) > 1]
    if not arrays:
        return None
    dev = array_api_compat.device(arrays[0])
    tag = xp.zeros(shape, dtype=xp.int64, device=dev)
    region = tuple(tag[idx].shape)
    ids = xp.reshape(xp.arange(math.prod(region), dtype=xp.int64, device=dev), region)
    won = index_set(xp, tag, idx, ids)[idx] == ids
    if is_lazy(xp):
        return won       # not forced to find out whether every write won
    return None if bool(xp.all(won)) else won


def index_add(xp, x, idx, v):
    """``x`` with ``v`` added at ``idx``; repeated indices accumulate."""
    q = _quirk(xp, "index_add")
    if q is not None:
        return q(x, idx, v)
    if is_lazy(xp):
        out = _dask.scatter(xp, x, idx, v, add=True)
        if out is not None:
            return out
        x = _dask.align_chunks(x, idx, v)
    out = xp.asarray(x, copy=True)
    parts = idx if isinstance(idx, tuple) else (idx,)
    arrays = [i for i, p in enumerate(parts) if _is_int_array(p) and not _is_bool(xp, p)]
    if not arrays:
        out[idx] = out[idx] + v
        return out
    if len(arrays) == 1 and all(isinstance(q, slice) and q == slice(None)
                                for k, q in enumerate(parts) if k != arrays[0]):
        return _index_add_one_array(xp, out, parts, arrays[0], v)
    return _index_add_onehot(xp, out, idx, v)


def _is_bool(xp, a):
    return a.dtype == xp.bool


def _index_add_onehot(xp, out, idx, v):
    """Generic scatter-add for backends without one (array_api_strict): the
    flat positions that ``idx`` selects come from gathering an ``arange`` (so
    any index the backend can gather with works), then a one-hot matrix
    product adds ``v`` there, repeated positions accumulating. O(k n) for k
    updated elements of an n-element array: fine for the sizes such backends
    are used at."""
    n = math.prod(out.shape)
    pos = xp.reshape(xp.reshape(xp.arange(n), tuple(out.shape))[idx], (-1,))
    k = pos.shape[0]
    region = xp.reshape(xp.arange(n), tuple(out.shape))[idx].shape
    vals = xp.reshape(xp.broadcast_to(xp.asarray(v, dtype=out.dtype), tuple(region)), (1, k))
    onehot = xp.astype(pos[:, None] == xp.arange(n)[None, :], out.dtype)   # (k, n)
    return out + xp.reshape(xp.matmul(vals, onehot), tuple(out.shape))


def _index_add_one_array(xp, out, parts, p, v):
    """Scatter-add for one integer index array ``parts[p]`` among full slices
    (a pattern such backends can't gather an arange with): a one-hot matrix
    product along that axis, O(n k)."""
    arr = parts[p]
    n = out.shape[p]
    k = arr.size
    flat_idx = xp.reshape(arr, (k,))
    flat_idx = xp.where(flat_idx < 0, flat_idx + n, flat_idx)
    onehot = xp.astype(flat_idx[:, None] == xp.arange(n)[None, :], out.dtype)
    sub_shape = out.shape[:p] + tuple(arr.shape) + out.shape[p + 1:]
    v = xp.broadcast_to(xp.asarray(v, dtype=out.dtype), sub_shape)
    lead = tuple(range(p, p + arr.ndim))
    rest = tuple(i for i in range(v.ndim) if i not in lead)
    vt = xp.reshape(xp.permute_dims(v, lead + rest), (k,) + tuple(v.shape[i] for i in rest))
    contrib = xp.tensordot(xp.permute_dims(onehot, (1, 0)), vt, axes=1)  # (n, rest...)
    axes = list(range(1, contrib.ndim))
    axes.insert(p, 0)
    return out + xp.permute_dims(contrib, tuple(axes))
