"""Batching-rule builders used by the rows of the rule table.

A batching rule is ``rule(vals, bdims, **params) -> (out, out_bdim)``:
``vals`` are the arguments with their batch axis (if any) still inside,
``bdims[i]`` is that axis or ``None`` for an unbatched argument. A primitive
with several results (``multiple_results``) returns the tuple of results
and a tuple of batch axes, one per result (``result`` makes both). A row names
its builder with ``batch=<builder>``; the builder gets the primitive and
returns the rule. Primitives without a rule fail loudly in ``vmap`` (no
silent Python loop).

Rules keep the batch axis where it is whenever the operation allows it (an
axis parameter is shifted past it instead), because every moved axis costs a
``permute_dims`` bind and leaves a strided array behind. Only operations that
must see the batch axis in a fixed place (reshape, matrix axes, advanced
indexing) move it to the front. Products with one unbatched operand fold the
batch axis into a matrix dimension, so ``vmap`` of a matrix-vector product
is one matrix-matrix product, not a stack of them.
"""
from __future__ import annotations

import math

import array_api_compat

from ..core import bind
from ..backends import _dtype_name, backend_of


def result(prim, out, bd):
    """A rule's ``(out, out_bdim)`` when every result has the batch axis
    ``bd``: one axis per result for a primitive with several."""
    return out, ((bd,) * len(out) if prim.multiple_results else bd)


def move_to_front(x, bd):
    """The batch axis of ``x`` moved to position 0 (no-op when it is there)."""
    return moveaxis(x, bd, 0)


def moveaxis(x, src, dst):
    """``x`` with axis ``src`` moved to position ``dst`` (no-op if equal)."""
    if src == dst:
        return x
    order = [i for i in range(x.ndim) if i != src]
    order.insert(dst, src)
    return xnp.permute_dims(x, tuple(order))


def _rank(x, bd):
    nd = len(getattr(x, "shape", ()))
    return nd - (bd is not None)


def _insert_one(x, pos):
    """``x`` with a size-1 axis inserted at ``pos`` (a reshape: no copy)."""
    s = tuple(x.shape)
    return xnp.reshape(x, s[:pos] + (1,) + s[pos:])


def _align(v, b, k, tb, r):
    """Batched ``v`` (example rank ``k``, batch axis ``b``) laid out as a
    rank ``r + 1`` array with the batch axis at ``tb`` and size-1 axes in
    front of its example axes, ready to broadcast against an example of
    rank ``r``. Transposes only when the batch axis must pass an example
    axis; inserting size-1 axes is a reshape."""
    pad = r - k
    tb_in = min(max(tb - pad, 0), k)      # example axes of v before the batch
    v = moveaxis(v, b, tb_in)
    if pad:
        s = tuple(v.shape)
        ex = (1,) * pad + s[:tb_in] + s[tb_in + 1:]
        v = xnp.reshape(v, ex[:tb] + (s[tb_in],) + ex[tb:])
    return v


def _unbatched_to(v, k, tb, r):
    """Unbatched ``v`` of rank ``k`` broadcast against examples of rank
    ``r`` whose batch axis sits at ``tb``: a size-1 axis goes where the batch
    axis falls inside ``v``'s own axes."""
    if k and tb > r - k:
        return _insert_one(v, tb - (r - k))
    return v


# ----- elementwise -----

def elementwise(prim):
    """Broadcasting elementwise op (also a unary op with parameters, such as
    ``astype``). The batch axis stays where the highest-rank batched argument
    has it (shifted right by the size-1 axes that broadcasting puts in front
    of it); other arguments get size-1 axes (reshapes) and move their batch
    axis only when it is elsewhere."""
    def rule(vals, bdims, **params):
        if len(vals) == 1:                    # unary: the batch axis stays put
            return bind(prim, vals[0], **params), bdims[0]
        fast = _aligned(vals, bdims)
        if fast is not None:                  # nothing to move or reshape
            return bind(prim, *vals, **params), fast
        ranks = [_rank(v, b) for v, b in zip(vals, bdims)]
        r = max(ranks)
        kb, tb = max((k, -i, b) for i, (b, k) in enumerate(zip(bdims, ranks))
                     if b is not None)[::2]
        tb += r - kb
        args = []
        for v, b, k in zip(vals, bdims, ranks):
            if b is None:
                args.append(_unbatched_to(v, k, tb, r))
            elif k == r and b == tb:
                args.append(v)
            else:
                args.append(_align(v, b, k, tb, r))
        return bind(prim, *args, **params), tb
    return rule


_SCALARS = (int, float, complex, bool)


def _aligned(vals, bdims):
    """The common batch axis when the arguments broadcast as they are: every
    batched one has it at the same place with the same rank, and every
    unbatched one broadcasts from the right without reaching it. Else None
    (the hot path of elementwise ops under vmap: a few checks, no binds)."""
    b0 = nd = None
    for v, b in zip(vals, bdims):
        if b is None:
            continue
        if b0 is None:
            b0, nd = b, v.ndim
        elif b != b0 or v.ndim != nd:
            return None
    r = nd - 1
    for v, b in zip(vals, bdims):
        if b is None and type(v) not in _SCALARS:
            k = v.ndim
            if k and (k > r or b0 > r - k):
                return None
    return b0


def matrix_op(prim):
    """One-argument op on the last two axes (tril/triu): the batch axis stays
    put unless it is one of those two."""
    def rule(vals, bdims, **params):
        (v,), (b,) = vals, bdims
        if b >= v.ndim - 2:
            v, b = move_to_front(v, b), 0
        return bind(prim, v, **params), b
    return rule


# ----- reductions and scans -----

def reduction(prim, single_axis=False, arg=False):
    """Reduction/scan with an ``axis`` parameter: the axes are shifted past
    the batch axis (``axis=None``: every axis but the batch axis), which
    stays in place (minus the reduced axes before it). ``arg``: the op
    takes one axis and ``axis=None`` indexes the flattened array (argmax)."""

    def rule(vals, bdims, *, axis, **params):
        (v,), (b,) = vals, bdims
        r = v.ndim - 1
        if single_axis:                       # scans keep every axis
            return bind(prim, v, axis=axis + (axis >= b), **params), b
        keepdims = params.get("keepdims", False)
        if axis is None and arg:
            # the index into the flattened example: flatten it first
            v = move_to_front(v, b)
            n = v.shape[0]
            flat = xnp.reshape(v, (n, math.prod(v.shape[1:])))
            out = bind(prim, flat, axis=1, **dict(params, keepdims=False))
            if keepdims:
                out = xnp.reshape(out, (n,) + (1,) * r)
            return out, 0
        if axis is None:
            axes = tuple(i for i in range(r + 1) if i != b)
        else:
            ex = axis if isinstance(axis, tuple) else (axis % r,)
            axes = tuple(a + (a >= b) for a in ex)
        out = bind(prim, v, axis=axes[0] if arg else axes, **params)
        return out, (b if keepdims else b - sum(a < b for a in axes))
    return rule


# ----- shape -----

def axes_shift(prim):
    """Ops with an ``axis`` parameter where ``None`` means "every axis" and
    the result keeps the input's shape (flip)."""
    def rule(vals, bdims, *, axis, **params):
        (v,), (b,) = vals, bdims
        ex = range(v.ndim - 1) if axis is None else axis
        return bind(prim, v, axis=tuple(a + (a >= b) for a in ex), **params), b
    return rule


def axes_param(prim):
    """Ops with an ``axes`` parameter (a tuple of non-negative example axes,
    order significant, e.g. the FFTs): the axes are shifted past the batch
    axis, which stays put."""
    def rule(vals, bdims, *, axes, **params):
        (v,), (b,) = vals, bdims
        return bind(prim, v, axes=tuple(a + (a >= b) for a in axes), **params), b
    return rule


def reshape_rule(prim):
    def rule(vals, bdims, *, shape):
        (v,), (b,) = vals, bdims
        v = move_to_front(v, b)
        return bind(prim, v, shape=(v.shape[0],) + tuple(shape)), 0
    return rule


def permute_rule(prim):
    def rule(vals, bdims, *, axes):
        (v,), (b,) = vals, bdims
        return bind(prim, v, axes=_perm_with_batch(axes, b)), b
    return rule


def _perm_with_batch(axes, b):
    """Permutation of the batched array that keeps the batch axis at ``b``."""
    rest = [a + (a >= b) for a in axes]
    rest.insert(b, b)
    return tuple(rest)


def broadcast_rule(prim):
    """New leading axes go in front of the whole batched array, so the
    batch axis moves right by their number and nothing is transposed."""
    def rule(vals, bdims, *, shape):
        (v,), (b,) = vals, bdims
        shape = tuple(shape)
        pad = len(shape) - (v.ndim - 1)
        if pad:
            v = xnp.reshape(v, (1,) * pad + tuple(v.shape))
            b += pad
        return bind(prim, v, shape=shape[:b] + (v.shape[b],) + shape[b:]), b
    return rule


def roll_rule(prim):
    def rule(vals, bdims, *, shift, axis):
        (v,), (b,) = vals, bdims
        r = v.ndim - 1
        if axis is None:                      # roll of the flattened example
            v = move_to_front(v, b)
            shape = tuple(v.shape)
            flat = xnp.reshape(v, (shape[0], math.prod(shape[1:])))
            return xnp.reshape(bind(prim, flat, shift=shift, axis=1), shape), 0
        if isinstance(axis, tuple):
            ax = tuple(a % r + (a % r >= b) for a in axis)
        else:
            ax = axis % r + (axis % r >= b)
        return bind(prim, v, shift=shift, axis=ax), b
    return rule


def concat_rule(prim):
    """Batched arguments that share a batch axis keep it; unbatched ones are
    broadcast along it (concat needs every argument batched)."""
    def rule(vals, bdims, *, axis):
        bds = [b for b in bdims if b is not None]
        size = next(v.shape[b] for v, b in zip(vals, bdims) if b is not None)
        tb = bds[0] if axis is not None and all(b == bds[0] for b in bds) else 0
        args = []
        for v, b in zip(vals, bdims):
            if b is None:
                s = tuple(v.shape)
                v = xnp.broadcast_to(_insert_one(v, tb), s[:tb] + (size,) + s[tb:])
            else:
                v = moveaxis(v, b, tb)
            if axis is None:
                v = xnp.reshape(v, (size, math.prod(v.shape[1:])))
            args.append(v)
        if axis is None:
            return bind(prim, *args, axis=1), 0
        return bind(prim, *args, axis=axis + (axis >= tb)), tb
    return rule


# ----- matrix product -----

def matmul_rule(prim):
    """With one operand unbatched and the batched one at most a matrix per
    example, the batch axis becomes a row (or column) dimension of a single
    product: ``vmap`` of ``A @ x`` over vectors ``x`` is ``A @ X``, one
    matrix-matrix product. Otherwise both batch axes go in front and the
    stack dimensions are padded so that they line up."""
    def rule(vals, bdims, ta=False, tb=False):
        (x, y), (bx, by) = vals, bdims
        xv = x.ndim - (bx is not None)        # per-example ranks
        yv = y.ndim - (by is not None)
        if ta:                                # transpose flags become transposes,
            x = _example_mT(x, bx)            # except an unbatched right matrix's
        if tb and not (by is None and yv == 2):
            y, tb = _example_mT(y, by), False
        if by is None and yv <= 2:
            return _matmul_batched_left(prim, x, bx, xv, y, yv, tb)
        if bx is None and yv <= 2:
            return _matmul_batched_right(x, xv, y, by, yv)
        return _matmul_general(x, bx, xv, y, by, yv)
    return rule


def _example_mT(v, b):
    """``v`` with the last two axes of each example swapped (a view)."""
    if b is None:
        return xnp.matrix_transpose(v)
    perm = list(range(v.ndim))
    i, j = [a for a in perm if a != b][-2:]
    perm[i], perm[j] = j, i
    return xnp.permute_dims(v, tuple(perm))


def _matmul_batched_left(prim, x, bx, xv, y, yv, tb):
    """x batched, y an unbatched vector or matrix (transposed with ``tb``):
    every axis of x but the last is a row of one product."""
    if bx == x.ndim - 1:                      # batch on the contracted axis
        if xv == 1:
            x, bx = xnp.permute_dims(x, (1, 0)), 0     # a transposed view
        else:
            x, bx = move_to_front(x, bx), 0
    lead = tuple(x.shape[:-1])
    tail = ((y.shape[0] if tb else y.shape[1]),) if yv == 2 else ()
    if len(lead) > 1:
        out = bind(prim, xnp.reshape(x, (math.prod(lead), x.shape[-1])), y, tb=tb)
        return xnp.reshape(out, lead + tail), bx
    return bind(prim, x, y, tb=tb), bx


def _matmul_batched_right(x, xv, y, by, yv):
    """x unbatched, y batched with vector or matrix examples: the batch axis
    joins y's columns."""
    lead = tuple(x.shape[:-1])                # x's stacks and rows
    if yv == 1:
        if by == 0:
            y = xnp.permute_dims(y, (1, 0))   # (k, B): a transposed view
        return xnp.matmul(x, y), len(lead)
    if by == 0:                               # (B, k, m) -> (k, B, m)
        y = xnp.permute_dims(y, (1, 0, 2))
    k, p, q = y.shape
    out = xnp.matmul(x, xnp.reshape(y, (k, p * q)))
    return xnp.reshape(out, lead + (p, q)), len(lead) + (by == 2)


def _matmul_general(x, bx, xv, y, by, yv):
    xm = bx is not None and xv == 1           # batched vectors become matrices
    ym = by is not None and yv == 1
    if bx is not None:
        x = move_to_front(x, bx)
        if xm:
            x = _insert_one(x, 1)             # (B, 1, k)
    if by is not None:
        y = move_to_front(y, by)
        if ym:
            y = _insert_one(y, 2)             # (B, k, 1)
    xs = (max(xv, 2) if bx is not None else xv) - 2       # stack ranks
    ys = (max(yv, 2) if by is not None else yv) - 2
    lead = max(xs, ys, 0)
    if bx is not None:
        x = _pad_stack(x, lead - xs)
    if by is not None:
        y = _pad_stack(y, lead - ys)
    out = xnp.matmul(x, y)
    if ym:
        out = xnp.squeeze(out, axis=-1)
    if xm:
        out = xnp.squeeze(out, axis=-2 if not ym else -1)
    return out, 0


def _pad_stack(v, k):
    """Insert k size-1 axes right after the batch axis."""
    if k <= 0:
        return v
    return xnp.reshape(v, (v.shape[0],) + (1,) * k + tuple(v.shape[1:]))


# ----- indexing -----

def _is_array(p):
    return hasattr(p, "shape") and hasattr(p, "dtype")


def _is_bool_array(p):
    try:
        return _dtype_name(p.dtype) == "bool"
    except TypeError:
        return False


def _expand_index(idx, ndim):
    """The index as a tuple with Ellipsis expanded (for a per-example rank)
    and 0-d integer arrays turned into ints."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    norm = []
    for p in parts:
        if _is_array(p) and p.ndim == 0 and not _is_bool_array(p):
            p = int(p)
        norm.append(p)
    n_used = sum(p.ndim if _is_array(p) and _is_bool_array(p) else 1
                 for p in norm if p is not None and p is not Ellipsis)
    out = []
    seen = False
    for p in norm:
        if p is Ellipsis:
            if not seen:
                out.extend([slice(None)] * (ndim - n_used))
                seen = True
        else:
            out.append(p)
    return tuple(out)


def _consumes(p):
    if p is None:
        return 0
    return p.ndim if _is_array(p) and _is_bool_array(p) else 1


def _basic_with_batch(parts, r, b):
    """Basic index (ints, slices, None) for the batched array with the batch
    axis left at ``b``: a full slice goes where example axis ``b`` would be
    consumed. Returns the index and the batch axis of the result."""
    used = sum(_consumes(p) for p in parts)
    parts = parts + (slice(None),) * (r - used)
    out, d, o = [], 0, 0
    placed = False
    for p in parts:
        if not placed and d == b and p is not None:
            out.append(slice(None))
            placed, ob = True, o
        out.append(p)
        d += _consumes(p)
        o += not isinstance(p, int)
    if not placed:
        out.append(slice(None))
        ob = o
    return tuple(out), ob


def _adv_shapes(parts):
    shapes = []
    for p in parts:
        if _is_array(p):
            shapes.append((-1,) if _is_bool_array(p) else tuple(p.shape))
        elif isinstance(p, int):
            shapes.append(())
    return shapes


def _front_index(parts):
    """Index for the batched array with the batch axis in front (the index
    is applied per example), and the batch axis of the result: numpy puts
    the dimensions of separated advanced indices first."""
    new = (slice(None),) + parts
    has_array = any(_is_array(p) for p in parts)
    adv = [i for i, p in enumerate(parts) if _is_array(p) or isinstance(p, int)]
    if has_array and adv[-1] - adv[0] + 1 != len(adv):
        return new, max(len(s) for s in _adv_shapes(parts))
    return new, 0


def _gather_index(v, parts):
    """An index made only of ints and integer/boolean arrays, for the
    batched array with the batch axis in front: a broadcast ``arange`` picks
    the example (booleans become their ``nonzero`` integer arrays). This form
    is valid on array_api_strict, which forbids slices among index arrays."""
    arrays = []
    for p in parts:
        if _is_array(p) and _is_bool_array(p):
            arrays.extend(backend_of(p).nonzero(p))
        else:
            arrays.append(p)
    ref = next(p for p in arrays if _is_array(p))
    xp = backend_of(ref)
    nd = max(p.ndim if _is_array(p) else 0 for p in arrays)
    n = v.shape[0]
    bi = xp.reshape(xp.arange(n, device=array_api_compat.device(ref)), (n,) + (1,) * nd)
    return (bi,) + tuple(arrays)


def getitem_rule(prim):
    def rule(vals, bdims, *, idx):
        (v,), (b,) = vals, bdims
        r = v.ndim - 1
        parts = _expand_index(idx, r)
        if not any(_is_array(p) for p in parts):          # basic: no transpose
            new, ob = _basic_with_batch(parts, r, b)
            return bind(prim, v, idx=new), ob
        v = move_to_front(v, b)
        if all(_is_array(p) or isinstance(p, int) for p in parts):
            return bind(prim, v, idx=_gather_index(v, parts)), 0
        new, ob = _front_index(parts)
        return bind(prim, v, idx=new), ob
    return rule


def scatter_rule(prim):
    """index_add / index_set: the operand gets the batch axis in front (an
    unbatched operand is broadcast), the update is aligned to the indexed
    region of the batched operand."""
    def rule(vals, bdims, *, idx):
        (x, v), (bx, bv) = vals, bdims
        size = x.shape[bx] if bx is not None else v.shape[bv]
        if bx is None:
            s = tuple(x.shape)
            x = xnp.broadcast_to(xnp.reshape(x, (1,) + s), (size,) + s)
        else:
            x = move_to_front(x, bx)
        r = x.ndim - 1
        parts = _expand_index(idx, r)
        if len(parts) == 1 and _is_array(parts[0]) and _is_bool_array(parts[0]) \
                and parts[0].ndim == r:
            return _masked_update(prim, x, v, bv, parts[0], size)
        if any(_is_array(p) for p in parts) and all(_is_array(p) or isinstance(p, int)
                                                    for p in parts):
            # ints and index arrays only: an arange picks the example (as in
            # getitem_rule), a form array_api_strict can gather and so write
            # with (a slice among index arrays it rejects). The example's
            # repeated positions repeat within its own batch row only, in the
            # same order, so the same write wins as without vmap.
            new, ob = _gather_index(x, parts), 0
        else:
            new, ob = _front_index(parts)
        region = _index_shape(tuple(x.shape), new)
        rr = len(region) - 1                  # example rank of the region
        extra = _rank(v, bv) - rr
        if extra > 0:                         # leading size-1 axes numpy's setitem drops
            if bv is not None:
                v, bv = move_to_front(v, bv), 0
                v = xnp.reshape(v, (size,) + tuple(v.shape)[1 + extra:])
            else:
                v = xnp.reshape(v, tuple(v.shape)[extra:])
        if bv is not None:
            k = v.ndim - 1
            v = _align(v, bv, k, ob, rr) if (k < rr or bv != ob) else v
        else:
            v = _unbatched_to(v, _rank(v, None), ob, rr)
        return bind(prim, x, v, idx=new), 0
    return rule


def _masked_update(prim, x, v, bv, mask, size):
    """Update at a boolean mask over the whole example: the mask is broadcast
    over the batch (still a lone boolean index, as array_api_strict wants)
    and the update flattened to match the selected elements."""
    xp = backend_of(mask)
    count = int(xp.sum(xp.astype(mask, xp.int64)))
    bmask = xp.broadcast_to(xp.reshape(mask, (1,) + tuple(mask.shape)), (size,) + tuple(mask.shape))
    if bv is None and _rank(v, None) == 0:    # one value for every element
        return bind(prim, x, v, idx=(bmask,)), 0
    if bv is not None:
        v = move_to_front(v, bv)
        if v.ndim == 1:
            v = xnp.reshape(v, (size, 1))
    v = xnp.broadcast_to(v, (size, count))
    return bind(prim, x, xnp.reshape(v, (size * count,)), idx=(bmask,)), 0


def _flat_front(x, b, size):
    """``x`` (1-D per example) as one flat array of the whole batch, the
    examples one after another (an unbatched ``x`` is repeated), and the
    offset of each example's first entry, shaped to broadcast against
    positions with the batch axis in front."""
    if b is None:
        x = xnp.broadcast_to(_insert_one(x, 0), (size,) + tuple(x.shape))
    else:
        x = move_to_front(x, b)
    n = x.shape[1]
    xp = backend_of(x)
    start = xp.arange(size, dtype=xp.int64, device=xnp._device_of(x)) * n
    return xnp.reshape(x, (size * n,)), start, n


def _front(a, b, size, shape):
    """``a`` of per-example ``shape`` with the batch axis in front (an
    unbatched ``a`` broadcast along it)."""
    if b is None:
        return xnp.broadcast_to(xnp.reshape(a, (1,) + tuple(a.shape)), (size,) + tuple(shape))
    return move_to_front(a, b)


def gather_rule(prim):
    """``gather(x, pos)``: positions batched alone need nothing (a gather
    takes positions of any shape); otherwise the examples of ``x`` are laid
    end to end and each example's positions shifted by its offset."""
    def rule(vals, bdims):
        (x, pos), (bx, bp) = vals, bdims
        if bx is None:
            return bind(prim, x, pos), bp
        size = x.shape[bx]
        xf, start, _ = _flat_front(x, bx, size)
        ps = tuple(pos.shape) if bp is None else tuple(pos.shape)[:bp] + tuple(pos.shape)[bp + 1:]
        pos = _front(pos, bp, size, ps)
        pos = xnp.add(pos, xnp.reshape(start, (size,) + (1,) * len(ps)))
        return bind(prim, xf, pos), 0
    return rule


def flat_scatter_rule(prim):
    """``scatter(x, v, pos)``: the examples of ``x`` laid end to end (an
    unbatched ``x`` repeated), each example's positions shifted by its
    offset, ``v`` alongside; repeated positions of one example stay within
    it, in the same order."""
    def rule(vals, bdims, *, op):
        (x, v, pos), (bx, bv, bp) = vals, bdims
        size = next(a.shape[b] for a, b in zip(vals, bdims) if b is not None)
        xf, start, n = _flat_front(x, bx, size)
        ps = tuple(v.shape) if bv is None else tuple(v.shape)[:bv] + tuple(v.shape)[bv + 1:]
        v = _front(v, bv, size, ps)
        pos = _front(pos, bp, size, ps)
        pos = xnp.add(pos, xnp.reshape(start, (size,) + (1,) * len(ps)))
        out = bind(prim, xf, v, pos, op=op)
        return xnp.reshape(out, (size, n)), 0
    return rule


def _index_shape(shape, parts):
    """Shape of ``x[parts]`` for ``x`` of ``shape`` (numpy's rules), computed
    without touching data."""
    out, adv, adv_pos, d, last = [], [], None, 0, None
    separated = False
    for i, p in enumerate(parts):
        if p is None:
            out.append(1)
        elif isinstance(p, slice):
            out.append(len(range(*p.indices(shape[d]))))
            d += 1
        elif isinstance(p, int) or _is_array(p):
            if adv_pos is None:
                adv_pos = len(out)
            elif last != i - 1:
                separated = True
            last = i
            if _is_array(p) and _is_bool_array(p):
                xp = backend_of(p)
                adv.append((int(xp.sum(xp.astype(p, xp.int64))),))
                d += p.ndim
            else:
                adv.append(tuple(p.shape) if _is_array(p) else ())
                d += 1
    out.extend(shape[d:])
    if not any(_is_array(p) for p in parts):
        return tuple(out)
    bshape = xnp.broadcast_shapes(*adv) if adv else ()
    if separated:
        return tuple(bshape) + tuple(out)
    return tuple(out[:adv_pos]) + tuple(bshape) + tuple(out[adv_pos:])


# last: importing the namespace runs the rule modules, whose rows take the
# builders above (a module that imports this one first must find them defined)
from .. import numpy as xnp  # noqa: E402
