"""dask quirks.

- numpy arrays combine with dask arrays, as dask itself allows (a numpy
  weight times a chunked dask batch is a dask array); nothing else mixes.
- xgrad never computes a dask array: the transforms' finite check counts
  lazy values as finite (``core.all_finite``); a scatter's "was any write
  overwritten?" shortcut is skipped (``index_winners``); reading a traced
  dask array's value (``bool()``, ``float()``, ``int()``, an index,
  ``.item()``, a value-dependent shape) raises ``TypeError``, as a value
  under ``vmap`` does (``no_value``), so that code with a lazy fallback takes
  it and other code fails loudly instead of computing behind the user's back.
- under a transform, the dask arrays xgrad makes are of a subclass whose
  ``bool()``, ``float()``, ``int()``, ``complex()``, index and
  ``numpy.asarray`` raise while a transform runs in this thread (dask's own
  would compute): ``if loss > 0:`` inside ``grad`` is a clear error, not a
  silent compute; once the transform has returned they are plain dask
  arrays again (``.compute()`` is always allowed: it is explicit).
- a scatter into a dask array (the VJP of ``x[:, 0]`` adds the cotangent into
  zeros, which dask makes as one chunk) first takes the chunks of the value
  it scatters (``align_chunks``): otherwise the single chunk would merge the
  batch's chunks, and the backward pass would hold every chunk at once.
- ``reshape`` that merges a chunked axis into a small leading one ((k, n,
  ...) -> (k n, ...), what vmap's batched matmul does) is a concatenation
  of the k slices, which keeps every chunk; dask's own reshape would merge
  neighbouring chunks (the namespace xgrad uses for dask arrays is
  array_api_compat's with this one function replaced: ``namespace``).
- an operation dask lacks, or one whose result has a shape dask knows only
  after ``compute`` (``x[mask]``, ``nonzero``, ``unique``), raises an error
  naming the operation under a transform (``run``); outside transforms
  ``xgrad.numpy`` passes dask's own lazy result through.
"""
import math
import types

import array_api_compat


def is_dask_array(x):
    return array_api_compat.is_dask_array(x)


class _Linalg(types.ModuleType):
    """array_api_compat's dask ``linalg`` with ``cholesky`` fixed (it passes
    to ``dask.array.linalg.cholesky``, whose default is the *upper* factor,
    and returns that as the lower one: a silently wrong factor) and a clear
    error for a stack of matrices in ``solve``/``cholesky``."""

    def __init__(self, base):
        super().__init__(base.__name__, base.__doc__)
        self._base = base

    def __getattr__(self, name):
        value = getattr(self._base, name)
        setattr(self, name, value)
        return value

    def solve(self, x1, x2, /):
        if len(x1.shape) != 2:
            raise NotImplementedError("solve of a stack of matrices is not supported on dask arrays "
                                      "(dask.array.linalg.solve takes one matrix)")
        return self._base.solve(x1, x2)

    def cholesky(self, x, /, *, upper=False):
        import dask.array as da   # optional: only reached with dask arrays
        if len(x.shape) != 2:
            raise NotImplementedError("cholesky of a stack of matrices is not supported on dask "
                                      "arrays (dask.array.linalg.cholesky takes one matrix)")
        low = da.linalg.cholesky(x, lower=True)
        if not upper:
            return low
        u = self._base_ns.matrix_transpose(low)
        return self._base_ns.conj(u) if self._base_ns.isdtype(u.dtype, "complex floating") else u


class _Namespace(types.ModuleType):
    """array_api_compat's dask namespace (same ``__name__``, every function
    its own) with ``reshape`` and ``linalg.cholesky`` replaced."""

    def __init__(self, base):
        super().__init__(base.__name__, base.__doc__)
        self._base = base
        self.linalg = _Linalg(base.linalg)
        self.linalg._base_ns = base

    def __getattr__(self, name):
        value = getattr(self._base, name)
        setattr(self, name, value)
        return value

    def reshape(self, x, /, shape, *, copy=None):
        shape = tuple(shape)
        if (len(x.shape) >= 2 and len(shape) == len(x.shape) - 1 and 1 < x.shape[0] <= 64
                and len(x.chunks[1]) > 1 and tuple(x.shape[2:]) == shape[1:]
                and shape[0] == x.shape[0] * x.shape[1]):
            return self._base.concat([x[i] for i in range(x.shape[0])], axis=0)
        return self._base.reshape(x, shape, copy=copy)


_namespaces: dict = {}


def namespace(base):
    """The namespace xgrad uses for the arrays of array_api_compat's dask
    namespace ``base``."""
    ns = _namespaces.get(id(base))
    if ns is None:
        ns = _namespaces[id(base)] = _Namespace(base)
    return ns


def combine(a, b):
    """The namespace an operation on arrays of namespaces ``a`` and ``b``
    runs on: dask's when one is dask and the other numpy, else None (two
    backends: an error)."""
    if array_api_compat.is_dask_namespace(a) and array_api_compat.is_numpy_namespace(b):
        return a
    if array_api_compat.is_dask_namespace(b) and array_api_compat.is_numpy_namespace(a):
        return b
    return None


def no_value(x, what):
    """The error for reading the value of a traced dask array ``x``."""
    return TypeError(
        f"{what} needs the value of a dask array under an xgrad transform "
        f"(shape={tuple(x.shape)}, dtype={x.dtype}), and xgrad never computes a dask array "
        f"behind your back: it stays lazy until you call .compute(). Python control flow "
        f"(if, while, bool()), "
        f"float(), int(), .item(), an index, and value-dependent shapes (x[mask], nonzero, "
        f"unique) can't be traced lazily: use xgrad.numpy.where(cond, a, b) (and a "
        f"reduction) instead, or compute the value first and pass it as a constant.")


_transforming = None     # set by the core (``watch``): is a transform running in this thread?
_Guarded = None


def watch(fn):
    """The core tells this layer how to ask whether a transform runs."""
    global _transforming
    _transforming = fn


def _refuse(x, what):
    if _transforming is not None and _transforming():
        raise no_value(x, what)


def _guarded_class():
    global _Guarded
    if _Guarded is None:
        # optional: dask is imported by now (its arrays were met)
        import dask.array as da

        class GuardedArray(da.Array):
            """A dask array made under an xgrad transform: reading its value
            raises while the transform runs (see the module docstring)."""
            __slots__ = ()

            def __bool__(self):
                _refuse(self, "bool() (an if or while on a value computed from a traced one)")
                return super().__bool__()

            def __float__(self):
                _refuse(self, "float()")
                return super().__float__()

            def __int__(self):
                _refuse(self, "int()")
                return super().__int__()

            def __complex__(self):
                _refuse(self, "complex()")
                return super().__complex__()

            def __index__(self):
                _refuse(self, "an index (__index__)")
                return super().__index__()

            def __array__(self, *args, **kwargs):
                _refuse(self, "numpy.asarray()")
                return super().__array__(*args, **kwargs)

        _Guarded = GuardedArray
    return _Guarded


def _guard(out, args):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    cls = None
    for o in outs:
        if is_dask_array(o) and type(o) is not _Guarded and not any(o is a for a in args):
            cls = cls or _guarded_class()
            try:
                o.__class__ = cls
            except TypeError:       # a dask Array subclass of another layout: leave it
                pass


def align_chunks(x, idx, v):
    """``x`` rechunked so that every axis that ``idx`` takes whole (a full
    slice) has the chunks of the matching axis of ``v``, where ``v`` is a
    dask array that spans it: a scatter of a chunked value then stays chunk
    by chunk. Basic indices only (ints, slices, None, Ellipsis); anything
    else leaves ``x`` as it is."""
    if not is_dask_array(x) or not is_dask_array(v):
        return x
    parts = idx if isinstance(idx, tuple) else (idx,)
    if any(not (p is None or p is Ellipsis or isinstance(p, (int, slice))) for p in parts):
        return x
    if sum(p is Ellipsis for p in parts) > 1:
        return x
    used = sum(p is not None and p is not Ellipsis for p in parts)
    full = []                       # (axis of x, axis of the region) for whole axes
    a = r = 0
    for p in parts:
        if p is Ellipsis:
            for _ in range(x.ndim - used):
                full.append((a, r))
                a += 1
                r += 1
        elif p is None:
            r += 1
        elif isinstance(p, slice):
            if p == slice(None):
                full.append((a, r))
            a += 1
            r += 1
        else:
            a += 1
    while a < x.ndim:
        full.append((a, r))
        a += 1
        r += 1
    lead = r - v.ndim               # v broadcasts against the region from the right
    chunks = {}
    for ax, rx in full:
        vx = rx - lead
        if 0 <= vx < v.ndim and v.shape[vx] == x.shape[ax] and v.chunks[vx] != x.chunks[ax]:
            chunks[ax] = v.chunks[vx]
    return x.rechunk(chunks) if chunks else x


def scatter(xp, x, idx, v, add):
    """``x`` with ``v`` added at (``add``) or written to ``idx``, for a basic
    index of integers, full slices and one Ellipsis, as elementwise dask
    operations: ``v`` is expanded to ``x``'s rank and placed by a small numpy
    one-hot mask along the integer-indexed axes (dask's ``__setitem__`` walks
    the whole graph: seconds per call at hundreds of chunks). None for any
    other index (the caller falls back to setitem)."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    if sum(p is Ellipsis for p in parts) > 1:
        return None
    for p in parts:
        if not (p is Ellipsis or isinstance(p, int) and not isinstance(p, bool)
                or isinstance(p, slice) and p == slice(None)):
            return None
    nd = x.ndim
    if len(parts) - (Ellipsis in parts) > nd:
        return None
    full = []
    for p in parts:
        if p is Ellipsis:
            full.extend([slice(None)] * (nd - (len(parts) - 1)))
        else:
            full.append(p)
    full.extend([slice(None)] * (nd - len(full)))
    region = tuple(x.shape[a] for a, p in enumerate(full) if isinstance(p, slice))
    v = xp.asarray(v, dtype=x.dtype) if not hasattr(v, "shape") else xp.astype(v, x.dtype)
    v = xp.broadcast_to(v, region)
    shape = tuple(x.shape[a] if isinstance(p, slice) else 1 for a, p in enumerate(full))
    v = xp.reshape(v, shape)
    mask = None
    for a, p in enumerate(full):
        if isinstance(p, slice):
            continue
        n = x.shape[a]
        i = p + n if p < 0 else p
        if not 0 <= i < n:
            raise IndexError(f"index {p} is out of bounds for axis {a} with size {n}")
        hot = [1] * nd
        hot[a] = n
        one = (xp.arange(n) == i)
        one = xp.reshape(one, tuple(hot))
        mask = one if mask is None else (mask & one)
    if mask is None:                                  # every axis whole
        return x + v if add else xp.broadcast_to(v, tuple(x.shape)) + xp.zeros_like(x)
    if add:
        return x + xp.where(mask, v, xp.zeros((), dtype=x.dtype))
    return xp.where(mask, v, x)


def _unknown_shape(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    for o in outs:
        shape = getattr(o, "shape", ())
        if any(isinstance(d, float) and math.isnan(d) for d in shape):
            return tuple(shape)
    return None


def run(name, impl, xp, args, params, transformed):
    """``impl(xp, *args, **params)`` of the operation ``name`` on dask arrays,
    with a clear error where dask can't do it lazily."""
    try:
        out = impl(xp, *args, **params)
    except (AttributeError, NotImplementedError) as e:
        raise NotImplementedError(
            f"the operation {name!r} (an xgrad primitive) is not supported on dask arrays "
            f"({type(e).__name__}: {e}). "
            f"Compute the array first (x.compute()) for this operation, or use one that "
            f"dask runs chunk by chunk.") from e
    if transformed:
        shape = _unknown_shape(out)
        if shape is not None:
            raise ValueError(
                f"the operation {name!r} on a dask array gives an array of shape {shape}, which "
                f"depends on the values (dask knows it only after compute), so xgrad can't "
                f"differentiate or batch it lazily. For x[mask] use "
                f"xgrad.numpy.where(mask, x, 0.0) and a reduction; otherwise compute the "
                f"array first.")
        _guard(out, args)
    return out
