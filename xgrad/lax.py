"""``xgrad.lax``: JAX's structured control flow and dynamic slicing.

``cond``, ``switch``, ``select``, ``fori_loop``, ``while_loop``, ``scan``,
``map``, ``associative_scan``, ``dynamic_slice``, ``dynamic_update_slice``
(and their ``_in_dim`` forms) with the signatures and semantics of
``jax.lax``.

How they run: xgrad traces eagerly (every traced value has a concrete
value), so a loop is a Python loop over the body and a branch is the branch
its predicate selects; every transform then sees the operations the run
made. That gives each of them every derivative (forward and reverse, any
order) and batching with no rule of their own:

- ``cond``/``switch`` with a predicate or index that is batched under
  ``vmap`` run every branch and select per example (JAX's batching rule);
- ``while_loop`` (and ``fori_loop`` with batched bounds) under ``vmap``
  runs until every example's condition is false, each example's state
  frozen once its own condition is false (JAX's rule);
- reverse mode through ``while_loop`` works (JAX refuses it): the forward
  run knows its trip count, and the gradient is the unrolled loop's;
- ``scan``'s reverse pass is the tape of the forward loop: it keeps what
  each step's derivative needs (wrap the body in ``xgrad.checkpoint`` to
  recompute instead).

Under ``xgrad.jit`` the loop is staged unrolled, and a predicate read
while staging is a guard of the staged program (re-staged when it changes).

NB: because the values are concrete, a body runs once per iteration, and
``cond``/``switch`` run the branch not taken too, on the same operands, only
to compare its output types with the taken branch's (JAX traces both
branches for their types, then runs one); its result is dropped, and under
``jit`` its staged equations are dead code. The shapes and dtypes are
checked where JAX checks them (the carry of ``scan``, ``fori_loop`` and
``while_loop``, the outputs of ``cond``'s branches), with JAX's TypeError.
"""
import builtins as _builtins
import copy as _copy
import operator as _operator

import numpy as _np

from . import numpy as _xnp
from .backends import backend_of as _backend_of
from .core import Tracer as _Tracer, concrete as _concrete
from .transforms.stop_gradient import stop_gradient
from .transforms._api import frozen as _frozen, owned_tree as _owned_tree
from .tree import flatten as _flatten, unflatten as _unflatten, map as _map

__all__ = ["cond", "switch", "select", "select_n", "fori_loop", "while_loop", "scan", "map",
           "associative_scan", "stop_gradient", "dynamic_slice", "dynamic_update_slice",
           "dynamic_slice_in_dim", "dynamic_update_slice_in_dim", "dynamic_index_in_dim",
           "dynamic_update_index_in_dim", "slice", "slice_in_dim", "index_in_dim"]


# ----- concrete or batched ---------------------------------------------------

def _known(x):
    """``x``'s single concrete value, or None when it has none (batched
    under vmap: each example has its own)."""
    if not isinstance(x, _Tracer):
        return x
    try:
        return _concrete(x)
    except TypeError:
        return None


def _any_example(x):
    """Whether ``x`` is true for at least one example of every enclosing
    vmap (its batched value, looked at under all tracers)."""
    while isinstance(x, _Tracer):
        if getattr(x._trace, "guards", None) is not None:
            x = x.concrete()          # staged (jit): the trip count becomes a guard
            break
        x = x.primal
    return bool(_backend_of(x).any(x))


# ----- type checks, as JAX makes them ---------------------------------------

# a Python number is weakly typed (JAX's weak type): its default dtype, and
# the kinds of dtype a loop carry that starts as one may take (int < float <
# complex). A bool is strongly typed.
_PY_DTYPE = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}
_WEAK_KIND = {int: 0, float: 1, complex: 2}
_KIND_OF = (("bool", -1), ("int", 0), ("uint", 0), ("float", 1), ("complex", 2))


def _dtname(dt):
    name = getattr(dt, "name", None)
    return name if isinstance(name, str) else str(dt).rsplit(".", 1)[-1]


def _kind(name):
    return next((k for p, k in _KIND_OF if name.startswith(p)), -2)


def _aval(x, what, whose, i):
    """``(shape, dtype name, weak kind or None)`` of the leaf ``x``; a
    TypeError for a leaf that is neither an array nor a Python number."""
    t = type(x)
    if t in _PY_DTYPE:
        return (), _PY_DTYPE[t], _WEAK_KIND.get(t)
    dt, shape = getattr(x, "dtype", None), getattr(x, "shape", None)
    if dt is None or shape is None or t is str:
        raise TypeError(f"{what}: {whose} must be a pytree of arrays and Python numbers; "
                        f"leaf {i} is a {t.__name__}")
    return tuple(shape), _dtname(dt), None


def _leaves_avals(tree, what, whose):
    leaves, treedef = _flatten(tree)
    return treedef, [_aval(x, what, whose, i) for i, x in enumerate(leaves)]


def _typestr(a):
    return f"{a[1]}{list(a[0])}" + (" (a Python number)" if a[2] is not None else "")


def _check_outputs(what, outs, names):
    """JAX's rule for the outputs of ``cond``'s or ``switch``'s branches:
    one pytree structure, equal shapes and dtypes leaf by leaf (a Python
    number has its default dtype: ``1.0`` is float64)."""
    t0, a0 = _leaves_avals(outs[0], what, names[0] + "'s output")
    for out, name in zip(outs[1:], names[1:]):
        t, a = _leaves_avals(out, what, name + "'s output")
        if t != t0:
            raise TypeError(f"{what}: {names[0]} and {name} must return the same pytree "
                            f"structure, got {t0} and {t}")
        for i, (x, y) in enumerate(zip(a0, a)):
            if x[:2] != y[:2]:
                raise TypeError(f"{what}: {names[0]} and {name} must return equal types (shape "
                                f"and dtype); "
                                f"output leaf {i} is {_typestr(x)} from {names[0]} and "
                                f"{_typestr(y)} from {name}")


def _check_carry(what, fun, carry, new):
    """JAX's rule for a loop body's carry: its output ``new`` has the
    pytree structure of its input ``carry`` and, leaf by leaf, its shape and
    dtype. A carry leaf that is a Python number (weakly typed) may come back
    as any dtype of its kind or a higher one (an int as a float32, a float
    as a complex64), as JAX promotes it."""
    t0, a0 = _leaves_avals(carry, what, f"{fun}'s input carry")
    t, a = _leaves_avals(new, what, f"{fun}'s output carry")
    if t != t0:
        raise TypeError(f"{what}: {fun} must return a carry of the same pytree structure as "
                        f"its input carry, {t0}; got {t}")
    for i, (x, y) in enumerate(zip(a0, a)):
        if x[2] is not None:                      # a weak input: promotable
            ok = x[0] == y[0] and (y[2] is not None and y[2] >= x[2]
                                   or y[2] is None and _kind(y[1]) >= x[2])
        else:
            ok = x[:2] == y[:2]
        if not ok:
            raise TypeError(f"{what}: {fun}'s input carry and output carry must have equal "
                            f"types (shape and dtype); leaf {i} is {_typestr(x)} in the input "
                            f"and {_typestr(y)} in the output")


def _callable(what, **fns):
    for name, fn in fns.items():
        if not callable(fn):
            raise TypeError(f"{what}: {name} must be callable, got {type(fn).__name__}")


def _protected(operands):
    """The operands for a branch run only for its output types: tracers as
    new tracer objects (``x[i] = v`` in the branch rebinds its own copy) and
    numpy arrays as read-only views (a write raises)."""
    def one(x):
        if isinstance(x, _Tracer):
            return _copy.copy(x)
        if isinstance(x, _np.ndarray):
            v = x.view()
            v.flags.writeable = False
            return v
        return x
    return _map(one, operands)


def _readonly(tree):
    """The caller's arrays as a loop body gets them (its carry's start, the
    ``xs`` it slices): read-only views on numpy (a write raises, as a write
    into a JAX array does), copies on backends without them; tracers pass
    (their writes are functional)."""
    return _map(_frozen, tree)


def _own(val, given):
    """A loop's result: a leaf that is (a view of) one of the caller's
    arrays in ``given`` (a carry passed through unchanged) is a copy."""
    return _owned_tree(val, _flatten(given)[0])


def _run_for_types(fn, operands):
    """``fn(*operands)`` for its output types only (the branch that is not
    taken, which JAX traces): None when it raises on these values (a
    singular matrix, an index out of range...), so that its types go
    unchecked rather than fail a call JAX runs."""
    try:
        with _np.errstate(all="ignore"):
            return (fn(*_protected(operands)),)
    except Exception:
        return None


# ----- branches ---------------------------------------------------------------

def select(pred, on_true, on_false):
    """``on_true`` where ``pred`` is true, else ``on_false`` (arrays of one
    shape and dtype; ``pred`` boolean, of their shape or a scalar; an
    integer ``pred`` selects as ``select_n(pred, on_false, on_true)``)."""
    return select_n(pred, on_false, on_true)


def select_n(which, *cases):
    """``cases[which]`` elementwise: ``which`` boolean (two cases at most) or
    an integer array; the cases of one shape and dtype (Python numbers have
    their default dtype, as in JAX: no promotion). Out-of-range values of
    ``which`` take the first or last case, as JAX's lowering does."""
    if not cases:
        raise ValueError("select_n: at least one case is required")
    dt = _check_select(which, cases)
    cases = [_xnp.asarray(c) if type(c) in _PY_DTYPE else c for c in cases]
    if len(cases) == 1:
        return cases[0]
    if type(which) in _PY_DTYPE:
        which = _xnp.asarray(which)
    if dt == "bool":
        return _xnp.where(which, cases[1], cases[0])
    which = _xnp.clip(which, 0, len(cases) - 1)
    out = cases[-1]
    for k in range(len(cases) - 2, -1, -1):
        out = _xnp.where(which == k, cases[k], out)
    return out


def _check_select(which, cases):
    avals = [_aval(c, "select_n", "each case", i) for i, c in enumerate(cases)]
    if len({a[0] for a in avals}) > 1:
        raise TypeError(f"select: the cases must have the same shape, got "
                        f"{[a[0] for a in avals]}")
    if len({a[1] for a in avals}) > 1:
        raise TypeError(f"select: the cases must have the same dtype (no promotion; "
                        f"xgrad.numpy.where promotes), got {[a[1] for a in avals]}")
    if which is None or type(which) in (str, bytes) or (type(which) not in _PY_DTYPE and
                                                        not hasattr(which, "dtype")):
        raise TypeError(f"select: the predicate (which) must be a boolean or integer array, "
                        f"got {type(which).__name__}")
    shape, dt, _ = _aval(which, "select", "the predicate", 0)
    if dt != "bool" and _kind(dt) != 0:
        raise TypeError(f"select: the predicate (which) must be boolean or integer, got {dt}")
    if dt == "bool" and len(cases) > 2:
        raise TypeError(f"select_n: a boolean predicate selects between two cases, got "
                        f"{len(cases)}")
    if shape not in ((), avals[0][0]):
        raise TypeError(f"select: the predicate's shape {shape} must be () or the cases' "
                        f"shape {avals[0][0]}")
    return dt


def _operands(what, operands, operand):
    if operand is not _NO_OPERAND:
        if operands:
            raise TypeError(f"{what}: operand= can't be passed together with positional "
                            f"operands, got operand={operand!r} and {len(operands)} positional")
        operands = (operand,)
    return operands


_NO_OPERAND = object()


def _scalar_dtype(x, what, name):
    """The dtype name of the scalar ``x`` (a Python number or a 0-d array)."""
    if x is None or isinstance(x, (str, bytes, list, tuple, dict)):
        raise TypeError(f"{what}: {name} must be a scalar, got {x!r} of type {type(x).__name__}")
    if type(x) in _PY_DTYPE:
        return _PY_DTYPE[type(x)]
    shape, dt = getattr(x, "shape", None), getattr(x, "dtype", None)
    if shape is None or dt is None:
        raise TypeError(f"{what}: {name} must be a scalar boolean or number, got "
                        f"{type(x).__name__}")
    if tuple(shape) != ():
        raise TypeError(f"{what}: {name} must be a scalar, got shape {tuple(shape)}")
    return _dtname(dt)


def cond(pred, true_fun, false_fun, *operands, operand=_NO_OPERAND):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``.

    ``pred`` is a scalar boolean or number (nonzero is true; JAX refuses
    anything else, complex numbers included). Both branches must return the
    same pytree structure, shapes and dtypes (a TypeError as JAX's): the
    branch not taken runs too, on the same operands, for its output types
    only (see the module's NB). Under vmap with a per-example ``pred`` both
    branches run and each example takes its own (JAX's rule)."""
    _callable("cond", true_fun=true_fun, false_fun=false_fun)
    operands = _operands("cond", operands, operand)
    dt = _scalar_dtype(pred, "cond", "pred")
    if _kind(dt) not in (-1, 0, 1):
        raise TypeError(f"cond: pred must be a boolean or a real number, got {dt}")
    names = ["true_fun", "false_fun"]
    p = _known(pred)
    if p is not None:
        taken = 0 if bool(p) else 1
        return _run_taken("cond", [true_fun, false_fun], names, taken, operands)
    t, f = true_fun(*operands), false_fun(*_protected(operands))
    _check_outputs("cond", [t, f], names)
    sel = pred if dt == "bool" else pred != 0
    return _map(lambda a, b: _xnp.where(sel, a, b), t, f)


def _run_taken(what, fns, names, taken, operands):
    """``fns[taken](*operands)``, its output types checked against those of
    the other branches (run for their types only)."""
    out = fns[taken](*operands)
    outs, used = [out], [names[taken]]
    for k, fn in enumerate(fns):
        if k != taken:
            other = _run_for_types(fn, operands)
            if other is not None:
                outs.append(other[0])
                used.append(names[k])
    if len(outs) > 1:
        _check_outputs(what, outs, used)
    return out


def switch(index, branches, *operands, operand=_NO_OPERAND):
    """``branches[index](*operands)``: ``index`` a scalar integer, taken as
    int32 and clamped to the branches (JAX's rule). The branches must return
    equal types, as ``cond``'s. A per-example ``index`` under vmap runs every
    branch and selects."""
    operands = _operands("switch", operands, operand)
    dt = _scalar_dtype(index, "switch", "index")
    if _kind(dt) != 0:
        raise TypeError(f"switch: index must be an integer, got {index!r} of dtype {dt}")
    try:
        branches = tuple(branches)
    except TypeError:
        raise TypeError(f"switch: branches must be a sequence of functions, got "
                        f"{type(branches).__name__}") from None
    if not branches:
        raise ValueError("switch: branches must be a non-empty sequence of functions")
    if not all(callable(b) for b in branches):
        raise TypeError("switch: branches must be a sequence of callables")
    n = len(branches)
    if n == 1:
        return branches[0](*operands)
    names = [f"branch {k}" for k in range(n)]
    i = _known(index)
    if i is not None:
        i = (int(i) + 2 ** 31) % 2 ** 32 - 2 ** 31        # as int32 (JAX's conversion)
        return _run_taken("switch", branches, names, _builtins.min(_builtins.max(i, 0), n - 1),
                          operands)
    outs = [b(*(operands if k == 0 else _protected(operands))) for k, b in enumerate(branches)]
    _check_outputs("switch", outs, names)
    idx = _xnp.clip(_xnp.astype(index, _xnp.int32) if dt != "int32" else index, 0, n - 1)
    res = outs[-1]
    for k in range(n - 2, -1, -1):
        res = _map(lambda a, b, k=k: _xnp.where(idx == k, a, b), outs[k], res)
    return res


# ----- loops ------------------------------------------------------------------

def _check_pred(c):
    """``cond_fun``'s result: a boolean scalar (Python or array), as JAX requires."""
    if type(c) is bool:
        return
    shape, dt = getattr(c, "shape", None), getattr(c, "dtype", None)
    if shape is None or dt is None or tuple(shape) != () or _dtname(dt) != "bool":
        got = (f"{_dtname(dt)}{list(shape)}" if shape is not None and dt is not None
               else f"a {type(c).__name__}")
        raise TypeError(f"while_loop: cond_fun must return a boolean scalar, got {got}")


def while_loop(cond_fun, body_fun, init_val):
    """``val = init_val; while cond_fun(val): val = body_fun(val)``.

    ``cond_fun`` returns a boolean scalar; ``body_fun`` returns a carry of
    ``init_val``'s pytree structure, shapes and dtypes (JAX's TypeErrors).
    Differentiable in reverse mode too (JAX refuses: xgrad's forward run
    knows its trip count). Under vmap with a per-example condition, the loop
    runs until no example's condition holds; an example whose condition is
    false keeps its state."""
    _callable("while_loop", cond_fun=cond_fun, body_fun=body_fun)
    val = _readonly(init_val)
    while True:
        c = cond_fun(val)
        _check_pred(c)
        k = _known(c)
        if k is not None:
            if not bool(k):
                return _own(val, init_val)
            new = body_fun(val)
            _check_carry("while_loop", "body_fun", val, new)
            val = new
            continue
        if not _any_example(c):
            return _own(val, init_val)
        new = body_fun(val)
        _check_carry("while_loop", "body_fun", val, new)
        val = _map(lambda a, b: _xnp.where(c, a, b), new, val)


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``.

    With bounds that have a value (not per-example under vmap), ``i`` is a
    Python int: weakly typed, as JAX's index (``val + i`` keeps a float32
    ``val`` float32). Bounds that are batched under vmap run as
    ``while_loop`` (each example its own trip count), and ``i`` is then an
    integer array of the bounds' dtype. The bounds are integer scalars of
    one dtype, a Python int going with any (JAX's rule). NB: JAX also takes
    two float bounds and truncates them; xgrad refuses them."""
    _callable("fori_loop", body_fun=body_fun)
    dtype = _index_dtype(lower, upper)
    lo, hi = _known(lower), _known(upper)
    if lo is None or hi is None:
        if unroll not in (None, False, 1):
            raise ValueError("fori_loop: unroll needs bounds with a value (these are "
                             "per-example under vmap)")

        def c(s):
            return s[0] < upper

        def b(s):
            new = body_fun(s[0], s[1])
            _check_carry("fori_loop", "body_fun", s[1], new)
            return (s[0] + 1, new)
        return while_loop(c, b, (_xnp.asarray(lower, dtype=dtype), init_val))[1]
    val = _readonly(init_val)
    for i in range(int(lo), int(hi)):
        new = body_fun(i, val)
        _check_carry("fori_loop", "body_fun", val, new)
        val = new
    return _own(val, init_val)


def _index_dtype(lower, upper):
    """The dtype of ``fori_loop``'s index (JAX's rule): the bounds' common
    integer dtype, a Python int taking the other bound's."""
    names, weak = [], []
    for name, b in (("lower", lower), ("upper", upper)):
        if type(b) is int:
            names.append("int64")
            weak.append(True)
            continue
        dt, shape = getattr(b, "dtype", None), getattr(b, "shape", None)
        if dt is None or shape is None or type(b) in _PY_DTYPE:
            raise TypeError(f"fori_loop: {name} must be an integer, got {b!r} of type "
                            f"{type(b).__name__}")
        if tuple(shape) != ():
            raise TypeError(f"fori_loop: {name} must be a scalar, got shape {tuple(shape)}")
        if _kind(_dtname(dt)) != 0:
            raise TypeError(f"fori_loop: {name} must be an integer, got dtype {_dtname(dt)}")
        names.append(_dtname(dt))
        weak.append(False)
    if names[0] != names[1] and weak[0] == weak[1]:
        raise TypeError(f"fori_loop: lower and upper must have equal types, got {names[0]} "
                        f"and {names[1]}")
    for b, w in zip((lower, upper), weak):
        if not w:
            return b.dtype
    return _xnp.int64


def _check_unroll(unroll):
    if isinstance(unroll, bool):
        return
    try:
        unroll = _operator.index(unroll)
    except TypeError:
        raise TypeError(f"scan: unroll must be a bool or a non-negative int, got "
                        f"{unroll!r}") from None
    if unroll < 0:
        raise ValueError(f"scan: unroll must be a bool or a non-negative int, got {unroll}")


def _pair(out):
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        got = (f"a {type(out).__name__} of length {len(out)}"
               if isinstance(out, (tuple, list)) else f"a {type(out).__name__}")
        raise TypeError(f"scan: the body f must return a pair (carry, y), got {got}")
    return out


def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    """``carry, y = f(carry, x)`` for each ``x`` along the leading axis of
    ``xs`` (a pytree); returns the final carry and the stacked ``y`` values.

    ``f`` returns a pair ``(carry, y)``; its carry keeps ``init``'s pytree
    structure, shapes and dtypes, and its ``y`` keeps the types of the
    first step's (JAX's TypeErrors). ``xs=None`` needs ``length``;
    ``reverse=True`` goes from the last ``x`` to the first (the ``y`` values
    keep the order of ``xs``); ``unroll`` is checked and accepted (every
    iteration runs unrolled here)."""
    _callable("scan", f=f)
    _check_unroll(unroll)
    return _scan(f, init, xs, length, reverse, "scan", "f")


def _count(what, name, value):
    """``value`` as a non-negative int, or JAX's TypeError/ValueError naming ``name``."""
    try:
        n = _operator.index(value)
    except TypeError:
        raise TypeError(f"{what}: {name} must be an integer, got {value!r}") from None
    if n < 0:
        raise ValueError(f"{what}: {name} must be non-negative, got {n}")
    return n


def _scan(f, init, xs, length, reverse, what, fun):
    leaves, tree = _flatten(xs)
    if length is not None:
        length = _count(what, "length", length)
    n = length
    for x in leaves:
        if not hasattr(x, "shape") or len(x.shape) == 0:
            raise ValueError(f"{what}: every leaf of xs must be an array with a leading axis, "
                             f"got {type(x).__name__}" + ("" if not hasattr(x, "shape") else
                                                          f" of shape {tuple(x.shape)}"))
        if n is None:
            n = x.shape[0]
        elif x.shape[0] != n:
            raise ValueError(f"{what}: xs leaves have leading axes {[x.shape[0] for x in leaves]}"
                             + (f" and length={length}" if length is not None else "")
                             + "; they must agree")
    if n is None:
        raise ValueError(f"{what}: length is required when xs has no leaves")
    n = _operator.index(n)
    carry = _readonly(init)
    leaves = [_frozen(x) for x in leaves]
    ys = [None] * n
    ys_name = f"{fun}'s y" if what == "scan" else f"{fun}'s output"
    for i in (range(n - 1, -1, -1) if reverse else range(n)):
        x_i = _unflatten(tree, [x[i, ...] for x in leaves]) if leaves else xs
        new, y = _pair(f(carry, x_i))
        _check_carry(what, fun, carry, new)
        carry = new
        ys[i] = y
    carry = _own(carry, init)
    if n == 0:
        return carry, _empty_ys(f, carry, tree, leaves, xs, what, ys_name)
    first = ys[n - 1] if reverse else ys[0]
    y_tree, y_avals = _leaves_avals(first, what, ys_name)
    ys_leaves = []
    for y in ys:
        t, a = _leaves_avals(y, what, ys_name)
        if t != y_tree or [v[:2] for v in a] != [v[:2] for v in y_avals]:
            raise TypeError(f"{what}: {ys_name} must have one pytree structure, shape and dtype "
                            f"at every step, got {y_tree} {[_typestr(v) for v in y_avals]} "
                            f"and {t} {[_typestr(v) for v in a]}")
        ys_leaves.append(_flatten(y)[0])
    stacked = [_xnp.stack([_xnp.asarray(yl[k]) for yl in ys_leaves])
               for k in range(len(y_avals))]
    return carry, _unflatten(y_tree, stacked)


def _empty_ys(f, carry, tree, leaves, xs, what, ys_name):
    """The stacked ``y`` values of a zero-length scan: their types come from one
    call of ``f`` on zero-filled slices (its results are dropped)."""
    x0 = _unflatten(tree, [_xnp.zeros(tuple(x.shape[1:]), dtype=x.dtype) for x in leaves]) \
        if leaves else xs
    _, y = _pair(f(carry, x0))
    _leaves_avals(y, what, ys_name)
    return _map(lambda v: _xnp.zeros((0,) + tuple(_xnp.asarray(v).shape),
                                     dtype=_xnp.asarray(v).dtype), y)


def map(f, xs, *, batch_size=None):  # noqa: A001
    """``f`` applied to each slice of ``xs`` (a pytree) along its leading
    axis, results stacked: ``scan`` without a carry. ``f`` returns a pytree
    of arrays and Python numbers of one structure and types at every step.
    ``batch_size`` (a non-negative int) is accepted (the result does not
    depend on it)."""
    _callable("map", f=f)
    if batch_size is not None:
        _count("map", "batch_size", batch_size)
    return _scan(lambda c, x: (c, f(x)), (), xs, None, False, "map", "f")[1]


# ----- associative scan ----------------------------------------------------------

def associative_scan(fn, elems, reverse=False, axis=0):
    """Inclusive prefix scan of ``elems`` (a pytree of arrays of one length
    along ``axis``) with the associative ``fn`` (elementwise over slices):
    ``out[i] = fn(out[i-1], elems[i])``, in O(log n) rounds of ``fn`` on
    halves of the arrays (the odd-even recursion JAX uses)."""
    _callable("associative_scan", fn=fn)
    leaves, tree = _flatten(elems)
    if not leaves:
        raise ValueError("associative_scan: elems has no leaves")
    axis = _operator.index(axis)
    nd = len(leaves[0].shape)
    if not -nd <= axis < nd:
        raise ValueError(f"associative_scan: axis={axis} is out of range for {nd} dimensions")
    axis %= nd
    n = leaves[0].shape[axis]
    if any(x.shape[axis] != n for x in leaves):
        raise ValueError("associative_scan: every leaf of elems must have the same length "
                         "along axis")
    if reverse:
        leaves = [_xnp.flip(x, axis=axis) for x in leaves]

    def combine(a, b):
        out = fn(_unflatten(tree, a), _unflatten(tree, b))
        out_leaves, out_tree = _flatten(out)
        if out_tree != tree:
            raise TypeError(f"associative_scan: fn must return the structure of elems ({tree}), "
                            f"got {out_tree}")
        for i, (x, y) in enumerate(zip(a, out_leaves)):
            ax = _aval(x, "associative_scan", "elems", i)
            ay = _aval(y, "associative_scan", "fn's output", i)
            if ax[:2] != ay[:2]:
                raise TypeError(f"associative_scan: fn must return the shapes and dtypes of its "
                                f"arguments; leaf {i} is {_typestr(ax)} in and {_typestr(ay)} out")
        return out_leaves

    def sl(xs, start, stop=None, step=1):
        idx = (_builtins.slice(None),) * axis + (_builtins.slice(start, stop, step),)
        return [x[idx + (...,)] for x in xs]

    def rec(xs):
        m = xs[0].shape[axis]
        if m < 2:
            return xs
        reduced = combine(sl(xs, 0, -1, 2), sl(xs, 1, None, 2))
        odd = rec(reduced)
        if m % 2 == 0:
            even = combine(sl(odd, 0, -1), sl(xs, 2, None, 2))
        else:
            even = combine(odd, sl(xs, 2, None, 2))
        even = [_xnp.concat([f, e], axis=axis) for f, e in zip(sl(xs, 0, 1), even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    out = rec(leaves)
    if reverse:
        out = [_xnp.flip(x, axis=axis) for x in out]
    return _unflatten(tree, out)


def _interleave(a, b, axis):
    """``a[0], b[0], a[1], b[1], ...`` along ``axis`` (``a`` as long as
    ``b`` or one longer)."""
    extra = a.shape[axis] - b.shape[axis]
    if extra:
        pad = [(0, 0)] * len(b.shape)
        pad[axis] = (0, 1)
        b = _xnp.pad(b, pad)
    both = _xnp.stack([a, b], axis=axis + 1)
    shape = list(a.shape)
    shape[axis] = 2 * a.shape[axis]
    out = _xnp.reshape(both, tuple(shape))
    if extra:
        idx = (_builtins.slice(None),) * axis + (_builtins.slice(0, shape[axis] - 1),)
        out = out[idx + (...,)]
    return out


# ----- static and dynamic slicing -------------------------------------------------

def _ints(what, name, values):
    try:
        return [_operator.index(v) for v in values]
    except TypeError:
        raise TypeError(f"{what}: {name} must be integers, got {tuple(values)!r}") from None


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001
    """``operand[start:limit:stride]`` on every axis (static bounds: integers
    with ``0 <= start <= limit <= shape`` and positive strides, as JAX
    requires)."""
    shape = tuple(operand.shape)
    start = _ints("slice", "start_indices", start_indices)
    limit = _ints("slice", "limit_indices", limit_indices)
    strides = [1] * len(start) if strides is None else _ints("slice", "strides", strides)
    if not len(start) == len(limit) == len(strides) == len(shape):
        raise TypeError("slice: start_indices, limit_indices and strides need one entry per axis "
                        f"of the operand ({len(shape)}), got {len(start)}, {len(limit)} and "
                        f"{len(strides)}")
    if any(b < 0 for b in start):
        raise TypeError(f"slice: start_indices must be non-negative, got {tuple(start)}")
    if any(e > n for e, n in zip(limit, shape)):
        raise TypeError(f"slice: limit_indices must be at most the operand's shape {shape}, got "
                        f"{tuple(limit)}")
    if any(e < b for b, e in zip(start, limit)):
        raise TypeError(f"slice: limit_indices must be at least start_indices, got "
                        f"{tuple(limit)} and {tuple(start)}")
    if any(k < 1 for k in strides):
        raise TypeError(f"slice: strides must be positive, got {tuple(strides)}")
    return operand[tuple(_builtins.slice(b, e, k) for b, e, k in zip(start, limit, strides))]


def _axis(what, operand, axis):
    nd = len(operand.shape)
    axis = _operator.index(axis)
    if not -nd <= axis < nd:
        raise IndexError(f"{what}: axis {axis} is out of range for an operand of "
                         f"{nd} dimensions")
    return axis % nd


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    """``slice`` along one axis (``None`` bounds: the whole axis; a negative
    bound counts once from the end, as JAX's)."""
    axis = _axis("slice_in_dim", operand, axis)
    n = operand.shape[axis]
    start = 0 if start_index is None else _operator.index(start_index)
    stop = n if limit_index is None else _operator.index(limit_index)
    start, stop = start + n if start < 0 else start, stop + n if stop < 0 else stop
    starts, limits, strides = [0] * len(operand.shape), list(operand.shape), [1] * len(operand.shape)
    starts[axis], limits[axis], strides[axis] = start, stop, stride
    return slice(operand, starts, limits, strides)


def index_in_dim(operand, index, axis=0, keepdims=True):
    """Entry ``index`` along ``axis`` (static, negative from the end; out of
    range is an IndexError; the axis kept as size 1 by default)."""
    axis = _axis("index_in_dim", operand, axis)
    index = _operator.index(index)
    n = operand.shape[axis]
    k = index + n if index < 0 else index
    if not 0 <= k < n:
        raise IndexError(f"index_in_dim: index {index} is out of bounds for axis {axis} with "
                         f"size {n}")
    out = slice_in_dim(operand, k, k + 1, 1, axis)
    return out if keepdims else _xnp.squeeze(out, axis=axis)


def _starts(operand, start_indices, sizes, what, allow_negative):
    """The start indices, clamped so the slice fits: Python ints where they
    are known, arrays where they are per-example under vmap. JAX's checks:
    one integer scalar per axis, all of one dtype (a Python int is int64),
    sizes within the operand."""
    nd = len(operand.shape)
    if hasattr(start_indices, "shape"):
        if len(start_indices.shape) != 1:
            raise ValueError(f"{what}: start_indices must be a 1-D sequence, got shape "
                             f"{tuple(start_indices.shape)}")
        start_indices = [start_indices[i] for i in range(start_indices.shape[0])]
    else:
        start_indices = list(start_indices)
    sizes = _ints(what, "the slice sizes", sizes)
    if len(start_indices) != nd:
        raise ValueError(f"{what}: need one start index per axis of the operand ({nd}), got "
                         f"{len(start_indices)}")
    if len(sizes) != nd:
        raise TypeError(f"{what}: need one slice size per axis of the operand ({nd}), got "
                        f"{len(sizes)}")
    dts = []
    for s in start_indices:
        if type(s) is int:
            dts.append("int64")
            continue
        shape, dt = getattr(s, "shape", None), getattr(s, "dtype", None)
        if shape is None or dt is None:
            raise TypeError(f"{what}: start_indices must be integers, got {type(s).__name__}")
        if tuple(shape) != ():
            raise TypeError(f"{what}: start_indices must be scalars, got shape {tuple(shape)}")
        dts.append(_dtname(dt))
    if any(_kind(d) != 0 for d in dts) or len(set(dts)) > 1:
        raise TypeError(f"{what}: start_indices must be integers of one dtype (a Python int is "
                        f"int64), got {', '.join(dts)}")
    allow = [allow_negative] * nd if isinstance(allow_negative, bool) else list(allow_negative)
    out = []
    for s, size, n, neg in zip(start_indices, sizes, operand.shape, allow):
        if size < 0 or size > n:
            raise TypeError(f"{what}: slice size {size} doesn't fit an axis of size {n}")
        k = _known(s)
        if k is not None:
            k = int(k)
            if k < 0 and neg:
                k += n
            elif k < 0 and isinstance(s, (int, _np.integer)):
                raise ValueError(f"{what}: start index {k} is out of bounds for an axis of size "
                                 f"{n} with allow_negative_indices=False")
            out.append(_builtins.min(_builtins.max(k, 0), n - size))
        else:                             # per-example under vmap: clamp as an array
            if neg and not dts[0].startswith("uint"):
                s = _xnp.where(s < 0, s + n, s)
            out.append(_xnp.clip(s, 0, n - size))
    return out, sizes


def _known_starts(starts):
    return all(isinstance(s, int) for s in starts)


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    """``operand[s0:s0+n0, s1:s1+n1, ...]`` with start indices that may be
    traced values, clamped so the slice fits (JAX's rule; negative starts
    count from the end). The starts are integer scalars of one dtype."""
    starts, sizes = _starts(operand, start_indices, slice_sizes, "dynamic_slice",
                            allow_negative_indices)
    if _known_starts(starts):
        return operand[tuple(_builtins.slice(s, s + n) for s, n in zip(starts, sizes))]
    out = operand
    for k, (s, n) in enumerate(zip(starts, sizes)):   # one gather per axis
        out = _xnp.take(out, _xnp.arange(n) + s, axis=k)
    return out


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    """``operand`` with ``update`` written at the start indices (clamped so
    it fits, as ``dynamic_slice``); a new array. ``update`` has the
    operand's rank and dtype (JAX casts nothing)."""
    what = "dynamic_update_slice"
    o_shape, o_dt, _ = _aval(operand, what, "operand", 0)
    u_shape, u_dt, u_weak = _aval(update, what, "update", 0)
    if len(u_shape) != len(o_shape):
        raise TypeError(f"{what}: update must have the operand's rank, got update shape "
                        f"{u_shape} for operand shape {o_shape}")
    if u_dt != o_dt and not (u_weak is not None and _kind(o_dt) >= u_weak):
        raise TypeError(f"{what}: update must have the operand's dtype {o_dt}, got {u_dt} "
                        f"(cast it with .astype)")
    if u_weak is not None:
        update = _xnp.asarray(update, dtype=operand.dtype)
    starts, sizes = _starts(operand, start_indices, list(u_shape), what, allow_negative_indices)
    if _known_starts(starts):
        idx = tuple(_builtins.slice(s, s + n) for s, n in zip(starts, sizes))
        return _xnp.at(operand)[idx].set(update)
    # per-example starts: spread the update over the operand's shape (a
    # gather per axis) and select it inside the window
    spread, inside = update, None
    nd = len(sizes)
    for k, (s, n, full) in enumerate(zip(starts, sizes, operand.shape)):
        pos = _xnp.arange(full) - s
        spread = _xnp.take(spread, _xnp.clip(pos, 0, n - 1), axis=k)
        m = _xnp.reshape((pos >= 0) & (pos < n), (full,) + (1,) * (nd - k - 1))
        inside = m if inside is None else inside & m
    return _xnp.where(inside, spread, operand)


def _in_dim(operand, index, axis, what):
    """Start indices that are ``index`` along ``axis`` and zeros of its
    dtype elsewhere (JAX's ``_const(index, 0)``)."""
    axis = _axis(what, operand, axis)
    zero = 0 if type(index) is int or not hasattr(index, "dtype") else \
        _xnp.zeros((), dtype=index.dtype)
    starts = [zero] * len(operand.shape)
    starts[axis] = index
    return starts, axis


def dynamic_slice_in_dim(operand, start_index, slice_size=1, axis=0, *,
                         allow_negative_indices=True):
    """``dynamic_slice`` along one axis (the others whole)."""
    starts, axis = _in_dim(operand, start_index, axis, "dynamic_slice_in_dim")
    sizes = list(operand.shape)
    sizes[axis] = slice_size
    return dynamic_slice(operand, starts, sizes, allow_negative_indices=allow_negative_indices)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True, *, allow_negative_indices=True):
    """Entry ``index`` (may be traced) along ``axis``."""
    out = dynamic_slice_in_dim(operand, index, 1, axis,
                               allow_negative_indices=allow_negative_indices)
    return out if keepdims else _xnp.squeeze(out, axis=_axis("dynamic_index_in_dim", operand,
                                                             axis))


def dynamic_update_slice_in_dim(operand, update, start_index, axis, *,
                                allow_negative_indices=True):
    """``dynamic_update_slice`` along one axis."""
    starts, _ = _in_dim(operand, start_index, axis, "dynamic_update_slice_in_dim")
    return dynamic_update_slice(operand, update, starts,
                                allow_negative_indices=allow_negative_indices)


def dynamic_update_index_in_dim(operand, update, index, axis, *, allow_negative_indices=True):
    """Write ``update`` (without the ``axis`` dimension, or with it of size
    1) at entry ``index`` along ``axis``."""
    axis = _axis("dynamic_update_index_in_dim", operand, axis)
    u_nd = len(getattr(update, "shape", ()))
    if u_nd == len(operand.shape) - 1:
        update = _xnp.expand_dims(_xnp.asarray(update, dtype=operand.dtype)
                                  if type(update) in _PY_DTYPE else update, axis=axis)
    return dynamic_update_slice_in_dim(operand, update, index, axis,
                                       allow_negative_indices=allow_negative_indices)
