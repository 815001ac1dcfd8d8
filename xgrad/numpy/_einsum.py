"""``einsum`` and the products written with it: ``einsum_path``,
``matvec``, ``vecmat`` and ``linalg.multi_dot``.

``einsum`` is a composite, not a primitive: its derivatives and its batching
come from the rules of the operations it is made of. A call is planned from
the subscripts and the operand shapes alone (the plan is cached per
subscripts, shapes and ``optimize``), then run:

1. each operand on its own: a label repeated within it becomes a diagonal
   (a permute, a reshape and a strided slice); a size-1 axis whose label has
   a larger size elsewhere is squeezed (that is broadcasting); a label found
   in no other operand and not in the output is summed;
2. the operands are contracted in pairs, in the order opt_einsum's
   ``contract_path`` gives (the library jax uses; left to right without it):
   a pair with a contracted label is ONE ``matmul`` (shared kept labels as
   leading batch axes, after ``permute_dims``/``reshape`` of each side); a
   pair with none is a broadcast ``multiply``;
3. the last operand is permuted to the output's order.

So the derivative of an einsum is made of matmuls, permutes and reshapes
(einsums again), it batches under ``vmap`` with matmul's batching rule, and a
contraction costs what the same thing written with ``matmul`` costs.

To add a product function: write it here as a composite and list it in
``__all__``.
"""
from __future__ import annotations

import math
import operator

from ..backends import backend_of, default_namespace, dtype_in
from ..core import Tracer
from . import (astype as _astype, conj as _conj, isdtype as _isdtype, matmul as _matmul,
               multiply as _multiply, permute_dims as _permute_dims,
               reshape as _reshape, result_type as _result_type, sum as _sum)

try:                               # optional: contraction orders (jax's own dependency)
    import opt_einsum as _oe
except ImportError:                # pragma: no cover - the fallback is tested by monkeypatching
    _oe = None

# ``multi_dot`` lives here too but belongs to ``linalg`` (which imports it),
# so it is not in the main namespace's star import
__all__ = ["einsum", "einsum_path", "matvec", "vecmat"]

_PLANS = {}
_MAX_PLANS = 1024


# --------------------------------------------------------------------------
# parsing (shapes only)

def _interleaved(args):
    """``einsum(a, [0, 1], b, [1, 2], [0, 2])`` as a subscripts string and
    the operands."""
    args = list(args)
    out = args.pop() if len(args) % 2 else None
    ops, terms = args[0::2], args[1::2]
    names = {}

    def letter(k):
        if k is Ellipsis:
            return "..."
        if k not in names:
            if len(names) >= 52:
                raise ValueError("einsum: at most 52 distinct axis labels in the interleaved form")
            n = len(names)
            names[k] = chr(ord("a") + n) if n < 26 else chr(ord("A") + n - 26)
        return names[k]

    subs = ",".join("".join(letter(operator.index(k) if k is not Ellipsis else k) for k in t)
                    for t in terms)
    if out is not None:
        subs += "->" + "".join(letter(operator.index(k) if k is not Ellipsis else k) for k in out)
    return subs, ops


def _parse(subscripts, shapes):
    """Labels of each operand and of the output, and each label's size.
    Letters are labels; the axes under ``...`` get the labels -1, -2, ...
    counted from the right (so ellipses broadcast right-aligned)."""
    subs = subscripts.replace(" ", "")
    if "->" in subs:
        ins, out = subs.split("->", 1)
        if "->" in out:
            raise ValueError(f"einsum: subscripts {subscripts!r} have more than one '->'")
    else:
        ins, out = subs, None
    terms = ins.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum: subscripts {subscripts!r} name {len(terms)} operand(s) but "
                         f"{len(shapes)} were given")
    labels, n_ell = [], 0
    for k, (t, shape) in enumerate(zip(terms, shapes)):
        names = _letters(t, subscripts)
        nd = len(shape)
        if "..." in t:
            head, tail = t.split("...")
            e = nd - len(head) - len(tail)
            if e < 0:
                raise ValueError(f"einsum: term {t!r} names more axes than operand {k} has "
                                 f"({nd})")
            labels.append(tuple(head) + tuple(range(-e, 0)) + tuple(tail))
            n_ell = max(n_ell, e)
        else:
            if len(names) != nd:
                raise ValueError(f"einsum: term {t!r} names {len(names)} axes but operand {k} "
                                 f"has {nd} (shape {tuple(shape)})")
            labels.append(tuple(names))
    sizes = {}
    for k, (ls, shape) in enumerate(zip(labels, shapes)):
        own = {}
        for lab, n in zip(ls, shape):
            if own.setdefault(lab, n) != n:
                raise ValueError(f"einsum: label {_show(lab)!r} repeats in operand {k} with sizes "
                                 f"{own[lab]} and {n}; a diagonal needs equal sizes")
            m = sizes.get(lab)
            if m is None or m == 1:
                sizes[lab] = n
            elif n != 1 and n != m:
                raise ValueError(f"einsum: label {_show(lab)!r} has size {n} in operand {k} but "
                                 f"{m} in an earlier one (sizes must match or be 1)")
    ell = tuple(range(-n_ell, 0))
    if out is None:                          # implicit: ellipsis, then labels seen once, sorted
        count = {}
        for ls in labels:
            for lab in ls:
                count[lab] = count.get(lab, 0) + 1
        out_labels = ell + tuple(sorted(lab for lab, c in count.items()
                                        if c == 1 and isinstance(lab, str)))
    else:
        names = _letters(out, subscripts)
        if "..." in out:
            head, tail = out.split("...")
            out_labels = tuple(head) + ell + tuple(tail)
        else:
            out_labels = tuple(names)            # (axes under '...' are summed, as in jax)
        seen = set()
        for lab in out_labels:
            if lab in seen:
                raise ValueError(f"einsum: output label {lab!r} appears more than once")
            seen.add(lab)
            if lab not in sizes:
                raise ValueError(f"einsum: output label {lab!r} is not in any input term")
    return labels, out_labels, sizes


def _letters(term, subscripts):
    if term.count("...") > 1:
        raise ValueError(f"einsum: term {term!r} has more than one '...'")
    names = term.replace("...", "")
    for c in names:
        if not c.isalpha():
            raise ValueError(f"einsum: subscripts {subscripts!r}: {c!r} is not a letter (labels "
                             "are letters; '...' stands for the broadcast axes)")
    return names


def _show(lab):
    return lab if isinstance(lab, str) else "..."


# --------------------------------------------------------------------------
# planning: a list of steps on shapes, built once per (subscripts, shapes, optimize)

def _perm(ops, labels, order):
    """Append a permute of ``labels`` into ``order`` (none if it's the identity)."""
    axes = tuple(labels.index(lab) for lab in order)
    if axes != tuple(range(len(axes))):
        ops.append(("perm", axes))


def _prepare(labels, shape, sizes, others, out_labels):
    """Steps that take one operand to unique labels, without broadcast size-1
    axes or labels it alone carries; returns (ops, labels)."""
    ops, labels, shape = [], list(labels), list(shape)
    for lab in list(dict.fromkeys(labels)):            # diagonals of repeated labels
        pos = [i for i, x in enumerate(labels) if x == lab]
        if len(pos) < 2:
            continue
        rest = [i for i in range(len(labels)) if i not in pos]
        n, k = shape[pos[0]], len(pos)
        if rest + pos != list(range(len(labels))):
            ops.append(("perm", tuple(rest + pos)))
        ops.append(("reshape", tuple(shape[i] for i in rest) + (n ** k,)))
        ops.append(("slice", sum(n ** j for j in range(k))))
        labels = [labels[i] for i in rest] + [lab]
        shape = [shape[i] for i in rest] + [n]
    squeeze = [i for i, lab in enumerate(labels) if shape[i] == 1 and sizes[lab] != 1]
    if squeeze:
        labels = [lab for i, lab in enumerate(labels) if i not in squeeze]
        shape = [n for i, n in enumerate(shape) if i not in squeeze]
        ops.append(("reshape", tuple(shape)))
    alone = tuple(i for i, lab in enumerate(labels) if lab not in others and lab not in out_labels)
    if alone:
        ops.append(("sum", alone))
        labels = [lab for i, lab in enumerate(labels) if i not in alone]
    return ops, labels


def _pair(la, lb, kept, sizes):
    """Steps for one pairwise contraction: (ops on a, ops on b, kind, ops on
    the result, result labels)."""
    sa, sb = set(la), set(lb)
    batch = [lab for lab in la if lab in sb and lab in kept]
    contr = [lab for lab in la if lab in sb and lab not in kept]
    fa = [lab for lab in la if lab not in sb]
    fb = [lab for lab in lb if lab not in sa]
    opa, opb, post = [], [], []
    drop_a = tuple(i for i, lab in enumerate(la) if lab in fa and lab not in kept)
    drop_b = tuple(i for i, lab in enumerate(lb) if lab in fb and lab not in kept)
    if drop_a:                                          # (not reached with planned paths)
        opa.append(("sum", drop_a))
        fa = [lab for lab in fa if lab in kept]
        la = [lab for lab in la if lab in kept or lab in sb]
    if drop_b:
        opb.append(("sum", drop_b))
        fb = [lab for lab in fb if lab in kept]
        lb = [lab for lab in lb if lab in kept or lab in sa]
    bs = tuple(sizes[lab] for lab in batch)
    fas = tuple(sizes[lab] for lab in fa)
    fbs = tuple(sizes[lab] for lab in fb)
    out = batch + fa + fb
    if not contr:                                       # a broadcast product
        _perm(opa, la, batch + fa)
        _perm(opb, lb, batch + fb)
        if fb:
            opa.append(("reshape", bs + fas + (1,) * len(fb)))
        if fa:
            opb.append(("reshape", bs + (1,) * len(fa) + fbs))
        return opa, opb, "mul", post, out
    k = math.prod(sizes[lab] for lab in contr)
    _perm(opa, la, batch + fa + contr)
    _perm(opb, lb, batch + contr + fb)
    m, n = math.prod(fas), math.prod(fbs)
    if len(fa) != 1 or len(contr) != 1:
        opa.append(("reshape", bs + (m, k)))
    if len(fb) != 1 or len(contr) != 1:
        opb.append(("reshape", bs + (k, n)))
    if len(fa) != 1 or len(fb) != 1:
        post.append(("reshape", bs + fas + fbs))
    return opa, opb, "matmul", post, out


def _path(labels, out_labels, sizes, optimize):
    n = len(labels)
    if isinstance(optimize, (list, tuple)):
        path = [tuple(operator.index(i) for i in step) for step in optimize
                if not isinstance(step, str)]            # numpy's ['einsum_path', ...] too
        return path
    if n < 2:
        return [(0,)] if n else []
    if optimize is False or _oe is None:
        return [(0, 1)] * (n - 1)
    sym = {}
    for ls in labels:
        for lab in ls:
            sym.setdefault(lab, _oe.get_symbol(len(sym)))
    eq = ",".join("".join(sym[lab] for lab in ls) for ls in labels)
    eq += "->" + "".join(sym[lab] for lab in out_labels)
    shapes = [tuple(sizes[lab] for lab in ls) for ls in labels]
    how = "optimal" if optimize is True else optimize
    return [tuple(step) for step in _oe.contract_path(eq, *shapes, shapes=True, optimize=how)[0]]


def _plan(subscripts, shapes, optimize):
    labels, out_labels, sizes = _parse(subscripts, shapes)
    pre, cur = [], []
    for k, (ls, shape) in enumerate(zip(labels, shapes)):
        others = {lab for j, o in enumerate(labels) if j != k for lab in o}
        ops, ls2 = _prepare(ls, shape, sizes, others, out_labels)
        pre.append(ops)
        cur.append(ls2)
    steps = []
    live = list(cur)
    for step in _path(cur, out_labels, sizes, optimize):
        if not step or len(set(step)) != len(step) or any(not 0 <= i < len(live) for i in step):
            raise ValueError(f"einsum: optimize path step {step!r} is not a set of operand "
                             f"positions among {len(live)}")
        group = [live[i] for i in step]
        live = [ls for i, ls in enumerate(live) if i not in step]
        outside = set(out_labels).union(*live) if live else set(out_labels)
        # fold the group left to right (a pair per step; a single one is a no-op)
        acc = group[0]
        pairs = []
        for j in range(1, len(group)):
            kept = outside.union(*group[j + 1:]) if j + 1 < len(group) else outside
            opa, opb, kind, post, acc = _pair(acc, group[j], kept, sizes)
            pairs.append((opa, opb, kind, post))
        steps.append((tuple(step), pairs))
        live.append(acc)
    if len(live) != 1:
        raise ValueError(f"einsum: the optimize path leaves {len(live)} operands, not one")
    final = []
    _perm(final, live[0], list(out_labels))
    return pre, steps, final


def _apply(x, ops):
    for op, arg in ops:
        if op == "perm":
            x = _permute_dims(x, arg)
        elif op == "reshape":
            x = _reshape(x, arg)
        elif op == "sum":
            x = _sum(x, axis=arg)
        else:                                          # "slice": a diagonal
            x = x[..., ::arg]
    return x


def _run(plan, arrays):
    pre, steps, final = plan[3:]
    live = [_apply(x, ops) if ops else x for x, ops in zip(arrays, pre)]
    for step, pairs in steps:
        if len(live) == 2 and step == (0, 1):          # the common case: one pair left
            group, live = live, []
        else:
            group = [live[i] for i in step]
            live = [x for i, x in enumerate(live) if i not in step]
        acc = group[0]
        for (opa, opb, kind, post), b in zip(pairs, group[1:]):
            a = _apply(acc, opa) if opa else acc
            if opb:
                b = _apply(b, opb)
            acc = _matmul(a, b) if kind == "matmul" else _multiply(a, b)
            if post:
                acc = _apply(acc, post)
        live.append(acc)
    return _apply(live[0], final) if final else live[0]


# --------------------------------------------------------------------------
# dtypes (jax's promotion: a float beats any integer, Python scalars are weak)

_KIND = ("bool", "integral", "real floating", "complex floating")


def _kind(dt):
    for i in range(3, -1, -1):
        if _isdtype(dt, _KIND[i]):
            return i
    raise TypeError(f"einsum: unsupported dtype {dt}")


def _dtype(xp, arrays, scalars):
    """The result dtype of jax for these operands (with x64 on)."""
    if arrays:
        kinds = [_kind(a.dtype) for a in arrays]
        top = max(kinds)
        pick = [a.dtype for a, k in zip(arrays, kinds) if k == top or (top == 3 and k == 2)]
        dt = _result_type(*pick)
    else:
        top, dt = -1, None
    for s in scalars:
        k = 0 if isinstance(s, bool) else 1 if isinstance(s, int) else 3 if isinstance(
            s, complex) else 2
        if k > top:
            if k == 3 and top == 2 and dt == xp.float32:
                dt = xp.complex64
            else:
                dt = (xp.bool, xp.int64, xp.float64, xp.complex128)[k]
            top = k
    return dt


_NUMBERS = (bool, int, float, complex)


def _prepare_dtypes(operands, preferred):
    """(dtype, compute dtype, cast) for a call: the result's dtype, the dtype
    to compute in and, per operand, 0 (use as is), 1 (cast the array) or 2
    (a Python number: make an array)."""
    arrays = [x for x in operands if type(x) not in _NUMBERS]
    scalars = [x for x in operands if type(x) in _NUMBERS]
    xp = backend_of(arrays[0]) if arrays else default_namespace()
    dt = _dtype(xp, arrays, scalars) if preferred is None else dtype_in(xp, preferred)
    # booleans are contracted as integers (matmul is for numeric dtypes), then cast back
    cdt = xp.int64 if dt == xp.bool else dt
    return dt, cdt, tuple(2 if type(x) in _NUMBERS else int(x.dtype != cdt) for x in operands)


# --------------------------------------------------------------------------
# the functions

def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None):
    """Einstein summation, as ``jax.numpy.einsum``: explicit (``'ij,jk->ik'``)
    or implicit (``'ij,jk'``) output, ``...`` for broadcast axes, repeated
    labels for diagonals and traces, any number of operands; also the
    interleaved form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``.

    Each pairwise contraction is one ``matmul`` (see the module docstring),
    so derivatives of any order and ``vmap`` come from matmul's rules.

    Args:
        subscripts: the labels of each operand, comma-separated, and
            optionally ``->`` and the output's labels.
        *operands: arrays (or Python numbers) to contract.
        out: not supported (must be None), as in jax.
        optimize: the contraction order: ``"auto"`` (default), ``True``
            (``"optimal"``), ``False`` (left to right), any opt_einsum
            strategy name (``"greedy"``, ``"optimal"``, ``"dp"``, ...), or a
            path such as ``einsum_path`` returns. Without opt_einsum
            installed, every strategy is left to right.
        precision: accepted for compatibility; NB: it does nothing here (the
            backends multiply in the operands' dtype at full precision).
        preferred_element_type: the dtype to compute and return in; the
            operands are cast to it first (default: jax's promotion of the
            operands' dtypes, a float beating any integer).

    Returns:
        The contracted array.

    >>> import xgrad.numpy as xnp
    >>> a = xnp.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> xnp.einsum("ij,jk->ik", a, a)
    array([[ 7., 10.],
           [15., 22.]])
    >>> float(xnp.einsum("ii", a))
    5.0
    """
    if out is not None:
        raise NotImplementedError("einsum: the 'out' argument is not supported (arrays are "
                                  "immutable here, as in jax); use the return value")
    if not isinstance(subscripts, str):
        subscripts, operands = _interleaved((subscripts,) + operands)
    if not operands:
        raise ValueError("einsum: no operands given")
    shapes, dts = [], []
    for x in operands:
        if type(x) in _NUMBERS:
            shapes.append(())
            dts.append(("number", type(x)))
        else:
            try:
                shapes.append(tuple(x.shape))
                d = x.dtype
                dts.append((type(d), d))      # type first: dtypes of two libraries don't compare
            except AttributeError:
                raise TypeError(f"einsum: operand of type {type(x).__name__} is not an array or "
                                "a Python number") from None
    shapes = tuple(shapes)
    okey = tuple(tuple(s) if not isinstance(s, str) else s for s in optimize) \
        if isinstance(optimize, (list, tuple)) else optimize
    key = (subscripts, shapes, tuple(dts), okey, type(preferred_element_type),
           preferred_element_type)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _prepare_dtypes(operands, preferred_element_type) + _plan(subscripts, shapes,
                                                                          optimize)
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        _PLANS[key] = plan
    dt, cdt, cast = plan[0], plan[1], plan[2]
    arrays = operands
    if any(cast):
        arrays, xp = list(operands), None
        for k, c in enumerate(cast):
            if c == 1:
                arrays[k] = _astype(operands[k], cdt)
            elif c == 2:
                if xp is None:
                    first = [x for x, c in zip(operands, cast) if c != 2]
                    xp = backend_of(first[0]) if first else default_namespace()
                arrays[k] = xp.asarray(operands[k], dtype=cdt)
    out = _run(plan, arrays)
    # a sum of booleans (or of small integers) comes back wider: cast to jax's dtype
    return out if out.dtype == dt else _astype(out, dt)


def einsum_path(subscripts, /, *operands, optimize="auto"):
    """The contraction order ``einsum`` would use, as ``jax.numpy.einsum_path``:
    ``(path, info)`` where ``path`` is a list of tuples of operand positions
    (pass it as ``einsum(..., optimize=path)``) and ``info`` opt_einsum's
    printable ``PathInfo``. Only the operands' shapes are read.

    NB: without opt_einsum installed the path is left to right and ``info``
    is a one-line string.
    """
    if not isinstance(subscripts, str):
        subscripts, operands = _interleaved((subscripts,) + operands)
    shapes = [tuple(x.shape) if isinstance(x, Tracer) or hasattr(x, "shape") else ()
              for x in operands]
    if _oe is None:
        labels, out_labels, sizes = _parse(subscripts, shapes)
        path = _path(labels, out_labels, sizes, optimize if isinstance(optimize, (list, tuple))
                     else False)
        return path, f"einsum_path: {subscripts!r}, left to right (opt_einsum is not installed)"
    _parse(subscripts, shapes)                         # the same errors as einsum
    if optimize is False:
        how = [(0, 1)] * (len(shapes) - 1) if len(shapes) > 1 else "auto"
    else:
        how = "optimal" if optimize is True else optimize
    path, info = _oe.contract_path(subscripts, *shapes, shapes=True, optimize=how)
    return [tuple(step) for step in path], info


def matvec(x1, x2, /):
    """Batched matrix-vector product: ``x1`` (..., m, n) times ``x2`` (..., n)
    gives (..., m), the leading axes broadcast."""
    if len(x1.shape) < 2 or len(x2.shape) < 1:
        raise ValueError(f"matvec: x1 needs at least 2 axes and x2 at least 1; got shapes "
                         f"{tuple(x1.shape)} and {tuple(x2.shape)}")
    return einsum("...mn,...n->...m", x1, x2)


def vecmat(x1, x2, /):
    """Batched conjugate-vector-matrix product: ``conj(x1)`` (..., n) times
    ``x2`` (..., n, m) gives (..., m), the leading axes broadcast."""
    if len(x1.shape) < 1 or len(x2.shape) < 2:
        raise ValueError(f"vecmat: x1 needs at least 1 axis and x2 at least 2; got shapes "
                         f"{tuple(x1.shape)} and {tuple(x2.shape)}")
    if _isdtype(x1.dtype, "complex floating"):
        x1 = _conj(x1)
    return einsum("...n,...nm->...m", x1, x2)


def multi_dot(arrays, *, precision=None):
    """The product of a chain of matrices in the cheapest order (dynamic
    programming over the chain), as ``jax.numpy.linalg.multi_dot``: the
    first array may be a vector (a row), the last one too (a column).
    ``precision`` is accepted and does nothing (see ``einsum``)."""
    arrays = list(arrays)
    n = len(arrays)
    if n < 2:
        raise ValueError(f"multi_dot: needs at least two arrays, got {n}")
    for k, a in enumerate(arrays):
        nd = len(a.shape)
        if not (nd == 2 or nd == 1 and k in (0, n - 1)):
            raise ValueError(f"multi_dot: array {k} has {nd} axes; the first and last may be "
                             "1-D, the others must be 2-D")
    if n == 2:
        return einsum(_chain_subs(arrays), *arrays)
    dims = [a.shape[0] if len(a.shape) == 2 else 1 for a in arrays]
    dims.append(arrays[-1].shape[1] if len(arrays[-1].shape) == 2 else 1)
    # cost[i][j]: cheapest product of arrays i..j; split[i][j]: where it splits
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            cost[i][j] = math.inf
            for s in range(i, j):
                c = cost[i][s] + cost[s + 1][j] + dims[i] * dims[s + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, s
    subs = _chain_subs(arrays)
    terms, out = subs.split("->")
    terms = terms.split(",")
    live = list(range(n))                              # positions of the chain, as a path

    def order(i, j):
        if i == j:
            return
        s = split[i][j]
        order(i, s)
        order(s + 1, j)
        steps.append((i, s + 1))
    steps = []
    order(0, n - 1)
    path = []
    for i, j in steps:                                 # chain positions -> einsum_path positions
        a, b = live.index(i), live.index(j)
        path.append((a, b))
        live = [x for x in live if x not in (i, j)] + [i]
    return einsum(subs, *arrays, optimize=path)


def _chain_subs(arrays):
    n = len(arrays)
    letters = [chr(ord("a") + k) if k < 26 else chr(ord("A") + k - 26) for k in range(n + 1)]
    if n + 1 > 52:
        raise ValueError("multi_dot: at most 51 arrays")
    terms = []
    for k, a in enumerate(arrays):
        if len(a.shape) == 1:
            terms.append(letters[k + 1] if k == 0 else letters[k])
        else:
            terms.append(letters[k] + letters[k + 1])
    out = ("" if len(arrays[0].shape) == 1 else letters[0]) + \
          ("" if len(arrays[-1].shape) == 1 else letters[n])
    return ",".join(terms) + "->" + out
