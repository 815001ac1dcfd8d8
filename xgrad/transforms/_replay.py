"""jit's replay: a ``Program`` compiled to straight-line Python.

``compile_program(program, guards, restage)`` returns ``run(args) ->
outputs``: one line per live equation (common subexpressions and dead
equations dropped), each guard checked where it was read (a failed one
raises ``restage`` before anything observable), ``del`` after a value's
last use. ``run.source`` is the generated code.

On numpy (the common case) the lines call numpy directly instead of each
primitive's ``impl(xp, ...)``: an equation whose impl is one call of an
array API function of its inputs (found by running the impl once on
placeholders, ``_probe``; nothing here names a primitive) becomes that call,
``sin(v1)``, ``v1 @ v2``, ``v3.reshape(c4)``, with a Python scalar operand
folded to a 0-d array of the other operand's dtype (the same value numpy's
promotion would give, without converting it per call). An elementwise ufunc
whose input dies there and has the output's shape and dtype writes into that
input (``multiply(v3, c5, v3)``: numpy's third positional argument is the
output), when that input is an intermediate of this Program that no live
value can be a view of: the caller's arrays, the constants and the returned
values are never written. Any other backend runs the impls (generic code);
inputs of two backends (numpy weights with a dask batch) bind each
equation's primitive, which picks its namespace from its operands as an
eager call does.

Every output is a buffer of its own: an output that may share memory with
an input, a constant, another output or any other array (an input passed
through, a closed-over array, two equal outputs merged by the elimination
of common subexpressions, a view) is copied, so that the caller may write
one without changing another, its own arguments or a later replay.
"""
from __future__ import annotations

import collections as _collections

from .. import core as _core
from ..core import bind as _bind
from ..backends import backend_of as _backend_of, default_namespace as _default_namespace
from ..program import Eqn as _Eqn, Guard as _Guard, Program as _Program, Var as _Var

__all__ = ["compile_program"]

_SCALARS = (bool, int, float, complex)
_NP = _default_namespace()             # numpy's array API namespace
_UFUNC = type(_NP.add)
_NP_DTYPE = _NP.dtype
_NP_SCALAR = _NP.generic              # numpy's scalars: immutable
_PLAIN = (type(None), bool, int, float, complex, str, slice, type(Ellipsis))


def _same(xp, a, b):
    """Whether a replayed value equals a guard's (NaN equals NaN)."""
    if type(b) in _SCALARS or getattr(b, "ndim", None) == 0:     # the common case: a flag
        if getattr(a, "ndim", 0) != 0 or getattr(a, "dtype", None) != getattr(b, "dtype", None):
            return False
        if bool(a == b):
            return not (xp.isdtype(b.dtype, "real floating") and bool(a == 0)
                        and bool(xp.signbit(a) != xp.signbit(b)))
        return bool(a != a and b != b)
    if tuple(a.shape) != tuple(b.shape) or a.dtype != b.dtype:
        return False
    eq = a == b
    if xp.isdtype(a.dtype, "real floating"):
        eq = xp.logical_or(eq, xp.logical_and(xp.isnan(a), xp.isnan(b)))
        eq = xp.logical_and(eq, xp.signbit(a) == xp.signbit(b))      # 0.0 is not -0.0
    elif xp.isdtype(a.dtype, "complex floating"):
        eq = xp.logical_or(eq, xp.logical_and(xp.isnan(a), xp.isnan(b)))
    return bool(xp.all(eq))


def _copy_const(x):
    """A fresh copy of the array ``x`` (the caller may write it), or ``x``
    itself when it is not an array or is immutable (a numpy scalar)."""
    if (hasattr(x, "shape") and hasattr(x, "dtype")
            and not isinstance(x, (_core.Tracer, _NP_SCALAR))):
        return _backend_of(x).asarray(x, copy=True)
    return x


def _is_view(x):
    """Whether the array ``x`` may share its memory with another array: a
    numpy or cupy view (``base``), a torch view (``_base``), an
    array_api_strict array over a numpy view. (jax and dask arrays are not
    written in place through another array.)"""
    b = getattr(x, "base", None)
    if b is None:
        b = getattr(x, "_base", None)
        if b is None:
            inner = getattr(x, "_array", None)
            b = getattr(inner, "base", None) if inner is not None else None
    return b is not None


def _own(x, srcs):
    """The output ``x``, or a fresh copy of it where it is one of ``srcs``
    (inputs, constants and outputs it may be) or a view of anything."""
    for s in srcs:
        if x is s:
            return _copy_const(x)
    return _copy_const(x) if _is_view(x) else x


def own_outputs(values, outs, sources):
    """The staged call's output ``values`` (for the Program outputs
    ``outs``), each a buffer of its own: a copy where the value is a
    constant of the Program, one of ``sources`` (the caller's arguments),
    an earlier output, or a view."""
    res = []
    for j, (v, o) in enumerate(zip(values, outs)):
        if type(o) is not _Var or any(v is s for s in sources) or any(
                v is w for w in values[:j]) or _is_view(v):
            v = _copy_const(v)
        res.append(v)
    return res


def _cse(eqns, outs, guards):
    """Common subexpressions: an equation that applies the same primitive
    with the same parameters to the same inputs as an earlier one is
    dropped, its outputs read the earlier one's. Returns the equations, the
    outputs and the guards (positions counted in the kept equations)."""
    alias, seen, kept, before = {}, {}, [], []

    def sub(x):
        return alias.get(id(x), x) if type(x) is _Var else x
    for e in eqns:
        before.append(len(kept))
        ins = tuple(sub(x) for x in e.ins)
        key = None
        if not e.prim.is_call:
            try:
                # a scalar by its repr: 0.0 and -0.0 are two constants
                key = (e.prim, tuple(("v", id(x)) if type(x) is _Var else
                                     ("a", id(x)) if hasattr(x, "shape") else
                                     ("s", type(x), repr(x) if type(x) in _SCALARS else x)
                                     for x in ins),
                       tuple(sorted(e.params.items())))
                hash(key)
            except TypeError:              # an array or a slice among the parameters
                key = None
        if key is not None and key in seen:
            for o, p in zip(e.outs, seen[key].outs):
                if o is not None:
                    alias[id(o)] = p
            continue
        ne = _Eqn(e.prim, ins, e.outs, e.params, e.multi)
        kept.append(ne)
        if key is not None:
            seen[key] = ne
    before.append(len(kept))
    return (kept, [sub(o) for o in outs],
            [_Guard(before[g.at], sub(g.var), g.value) for g in guards])


# --------------------------------------------------------------------------
# probing an impl: which namespace calls it makes

class _UnknownDtype:
    """A probed call's dtype: an impl may test it by identity (``sin``'s
    ``out.dtype is not float16``: numpy's dtype for a boolean, which the impl
    computes again in float32) and takes the common branch; any other use
    fails the probe. ``_Codegen._direct`` then calls numpy directly only
    where numpy's own dtype is the staged one."""

    __slots__ = ()

    def __bool__(self):
        raise TypeError("a probed value's dtype is unknown")

    __eq__ = __ne__ = __hash__ = __str__ = __repr__ = __getattr__ = __bool__


class _Recorded:
    """A probed value: arithmetic operators record the ufunc they call on an
    array (``a * b`` is ``multiply(a, b)``); any other use fails the probe."""

    __slots__ = ()

    def __bool__(self):
        raise TypeError("a probed value has no truth value")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __len__ = __iter__ = __bool__
    __hash__ = object.__hash__

    def __add__(self, o): return _Call("add", (self, o), {})
    def __radd__(self, o): return _Call("add", (o, self), {})
    def __sub__(self, o): return _Call("subtract", (self, o), {})
    def __rsub__(self, o): return _Call("subtract", (o, self), {})
    def __mul__(self, o): return _Call("multiply", (self, o), {})
    def __rmul__(self, o): return _Call("multiply", (o, self), {})
    def __truediv__(self, o): return _Call("divide", (self, o), {})
    def __rtruediv__(self, o): return _Call("divide", (o, self), {})
    def __neg__(self): return _Call("negative", (self,), {})
    def __getitem__(self, idx): return _Call("[]", (self, idx), {})


class _Sym(_Recorded):
    """A placeholder for input ``k`` of the probed equation."""

    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k


class _Call(_Recorded):
    """``xp.name(*args, **kwargs)`` as the probe saw it (its dtype allows
    identity tests only: ``_UnknownDtype``)."""

    __slots__ = ("name", "args", "kwargs")
    dtype = _UnknownDtype()

    def __init__(self, name, args, kwargs):
        self.name, self.args, self.kwargs = name, args, kwargs


class _Fn:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __call__(self, *args, **kwargs):
        return _Call(self.name, args, kwargs)


class _ProbeNamespace:
    """Stands for ``xp``: records the calls of its functions."""

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return _Fn(name)


_PROBE = _ProbeNamespace()


def _probe(e):
    """The impl of ``e`` as a tree of ``_Call``s of numpy namespace
    functions over ``_Sym``s and plain constants, or None where it does
    anything else."""
    if e.prim.is_call or e.multi:
        return None
    args = [_Sym(k) if type(x) is _Var else x for k, x in enumerate(e.ins)]
    try:
        r = e.prim.impl(_PROBE, *args, **e.params)
    except Exception:           # the impl does more than call namespace functions
        return None
    known = {id(x) for x in e.ins if type(x) is not _Var}
    known.update(id(v) for v in e.params.values())
    return r if type(r) is _Call and _clean(r, known) else None


def _clean(x, known):
    t = type(x)
    if t is _Call:
        return ((x.name == "[]" or getattr(_NP, x.name, None) is not None)
                and all(_clean(a, known) for a in x.args)
                and all(_clean(a, known) for a in x.kwargs.values()))
    if t is _Sym or t in _PLAIN or id(x) in known:
        return True
    if t in (tuple, list):
        return all(_clean(a, known) for a in x)
    return isinstance(x, _NP_DTYPE)


# the array API functions whose numpy form is a method or an operator of the
# array (the same numpy code as the function, without its Python wrapper)
_METHODS = {
    "matmul": lambda a, kw: f"({a[0]} @ {a[1]})" if len(a) == 2 and not kw else None,
    "matrix_transpose": lambda a, kw: f"{a[0]}.mT" if len(a) == 1 and not kw else None,
    "reshape": lambda a, kw: f"{a[0]}.reshape({a[1]})" if len(a) == 2 and not kw else None,
    "permute_dims": lambda a, kw: f"{a[0]}.transpose({a[1]})" if len(a) == 2 and not kw else None,
    "sum": lambda a, kw: _method("sum", a, kw, {"axis", "dtype", "keepdims"}),
    "prod": lambda a, kw: _method("prod", a, kw, {"axis", "dtype", "keepdims"}),
    "max": lambda a, kw: _method("max", a, kw, {"axis", "keepdims"}),
    "min": lambda a, kw: _method("min", a, kw, {"axis", "keepdims"}),
}


# what gives a C-contiguous result when its operands are: elementwise ufuncs
# (looked up as such), matmul, reshape, concat and stack
_KEEPS_C = frozenset({"matmul", "reshape", "concat", "stack"} |
                     {n for n in dir(_NP) if type(getattr(_NP, n)) is _UFUNC})


# what always returns a new array (or a numpy scalar), never one of its
# operands or a view of one: an output made by one of these is the caller's
_FRESH = frozenset({"matmul", "sum", "prod", "max", "min", "concat", "stack", "where"})


def _method(name, a, kw, allowed):
    if len(a) != 1 or not set(kw) <= allowed:
        return None
    return f"{a[0]}.{name}({', '.join(f'{k}={v}' for k, v in kw.items())})"


# --------------------------------------------------------------------------
# compiling

def compile_program(program, guards, restage):
    """``run(args) -> outputs`` for ``program`` (see the module docstring);
    a failed guard raises ``restage``."""
    eqns, outs, guards = _cse(program.eqns, program.outs, guards)
    program = _Program(program.in_vars, eqns, outs)
    live = {id(v) for v in program.outs if type(v) is _Var}
    live.update(id(g.var) for g in guards)
    keep = [False] * len(eqns)
    for k in range(len(eqns) - 1, -1, -1):          # dead-code elimination
        e = eqns[k]
        if any(o is not None and id(o) in live for o in e.outs):
            keep[k] = True
            live.update(id(x) for x in e.ins if type(x) is _Var)
    ins = [v for v in program.in_vars if v is not None]
    fast = bool(ins) and all(isinstance(v.dtype, _NP_DTYPE) for v in ins)
    generic = _Codegen(program, guards, keep, restage, "impl")
    generic.ns["_mixed"] = _lazily(lambda: _Codegen(program, guards, keep, restage,
                                                    "bind").build())
    if not fast:
        return generic.build()
    fast_program, fast_keep = _absorb_broadcasts(program, guards, keep)
    gen = _Codegen(fast_program, guards, fast_keep, restage, "fast")
    # an array of another backend with numpy's dtypes (cupy, dask)
    gen.ns["_generic"] = _lazily(generic.build)
    return gen.build()


def _lazily(build):
    """``run(args)`` that builds its code (``build()``) at its first call."""
    box = []

    def run(args):
        if not box:
            box.append(build())
        return box[0](args)
    return run


def _elementwise(tree):
    """Whether ``tree`` is one elementwise ufunc of inputs and constants."""
    f = getattr(_NP, tree.name, None) if tree is not None else None
    return (type(f) is _UFUNC and f.signature is None and not tree.kwargs
            and not any(type(a) is _Call for a in tree.args))


def _absorb_broadcasts(program, guards, keep):
    """numpy broadcasts an elementwise ufunc's operands itself: a
    ``broadcast_to`` whose every reader is such a ufunc with the broadcast
    shape as its output's shape is dropped, and its readers read its input.
    Returns the Program and its live equations."""
    eqns, keep = program.eqns, list(keep)
    readers = _collections.defaultdict(list)
    for k, e in enumerate(eqns):
        if keep[k]:
            for x in e.ins:
                if type(x) is _Var:
                    readers[id(x)].append(k)
    pinned = {id(v) for v in program.outs if type(v) is _Var} | {id(g.var) for g in guards}
    trees, sub = {}, {}

    def tree(k):
        if k not in trees:
            trees[k] = _probe(eqns[k])
        return trees[k]
    for k, e in enumerate(eqns):
        t = tree(k) if keep[k] else None
        if (t is None or t.name != "broadcast_to" or t.kwargs or len(t.args) != 2
                or type(t.args[0]) is not _Sym):
            continue
        o = e.outs[0]
        if id(o) in pinned or not readers[id(o)]:
            continue
        if all(_elementwise(tree(r)) and tuple(eqns[r].outs[0].shape) == tuple(o.shape)
               for r in readers[id(o)]):
            sub[id(o)] = e.ins[t.args[0].k]
            keep[k] = False
    if not sub:
        return program, keep

    def resolve(x):
        while type(x) is _Var and id(x) in sub:
            x = sub[id(x)]
        return x
    new = [_Eqn(e.prim, tuple(resolve(x) for x in e.ins), e.outs, e.params, e.multi)
           if any(type(x) is _Var and id(x) in sub for x in e.ins) else e for e in eqns]
    return _Program(program.in_vars, new, program.outs), keep


class _Codegen:
    """The generated ``run`` of one Program: ``mode`` ``"fast"`` for numpy
    (direct calls, buffer reuse), ``"impl"``: one impl call per equation
    (inputs of one backend), ``"bind"``: one bind per equation (inputs of
    several backends)."""

    def __init__(self, program, guards, keep, restage, mode):
        self.program, self.guards, self.keep = program, guards, keep
        self.fast, self.mode = mode == "fast", mode
        self.names = {}
        self.ns = {"_same": _same, "_Restage": restage, "_ns": _backend_of, "_copy": _copy_const,
                   "_own": _own, "_bind": _bind, "_nd": _NP.ndarray}
        self.consts = {}
        self._fresh = set()             # ids of the Vars a fresh numpy result makes

    def name(self, v):
        n = self.names.get(id(v))
        if n is None:
            n = self.names[id(v)] = f"v{len(self.names)}"
        return n

    def const(self, x):
        key = id(x)
        if key in self.consts and self.ns[self.consts[key]] is x:
            return self.consts[key]
        n = f"c{len(self.ns)}"
        self.ns[n] = x
        self.consts[key] = n
        return n

    def scalar(self, x, dtype):
        """A weak Python scalar operand as the 0-d array of the other
        operand's dtype it becomes (numpy's promotion), made once."""
        key = (type(x), repr(x), str(dtype))
        n = self.consts.get(key)
        if n is None:
            n = self.consts[key] = self.const(_NP.asarray(x, dtype=dtype))
        return n

    def fn(self, name):
        """A numpy function by its own name in the generated code."""
        f = getattr(_NP, name)
        if self.ns.get(name, f) is not f:       # pragma: no cover - a clash with our names
            return self.const(f)
        self.ns[name] = f
        return name

    def build(self):
        program, eqns, keep, guards = self.program, self.program.eqns, self.keep, self.guards
        ins = [self.name(v) if v is not None else "_" for v in program.in_vars]
        at_guard = _collections.defaultdict(list)
        for g in guards:
            at_guard[g.at].append(g)
        # the last step that reads each variable: step k is equation k with the
        # guards checked right after it (a guard at ``at`` follows equation at-1)
        last, seen = {}, {}
        for k, e in enumerate(eqns):
            if keep[k]:
                for x in e.ins:
                    if type(x) is _Var:
                        last[id(x)] = k
                        seen[id(x)] = x
        for g in guards:
            last[id(g.var)] = max(last.get(id(g.var), -1), g.at - 1)
            seen[id(g.var)] = g.var
        for v in program.outs:
            if type(v) is _Var:
                last[id(v)] = len(eqns)                  # never dropped
        dying = _collections.defaultdict(list)
        for i, k in last.items():
            if 0 <= k < len(eqns) and i in seen:
                dying[k].append(seen[i])
        reuse = self._plan(last) if self.fast else {}
        named = [n for n in ins if n != "_"]
        body = ["def run(args):"]
        if ins:
            body.append(f"    {', '.join(ins)}, = args")
        if named:
            body.append(f"    xp = _ns({named[0]})")
        else:
            self.ns["_ns0"] = _backend_of(0.0)
            body.append("    xp = _ns0")
        if self.fast:
            # the layout reasoning below takes the inputs of 2+ dimensions as
            # C-contiguous (any other one: the plain replay); every input
            # must be numpy's (a dask batch may come with numpy weights)
            others = "".join(f" or type({n}) is not _nd and _ns({n}) is not _np"
                             for n in named[1:])
            wide = [self.name(v) for v in program.in_vars
                    if v is not None and len(v.shape) > 1]
            layout = "".join(f" or not {n}.flags.c_contiguous" for n in wide) if reuse else ""
            body.append(f"    if xp is not _np{others}{layout}: return _generic(args)")
            self.ns["_np"] = _NP
            if reuse:
                body.insert(1, "    # numpy; f(a, b, a) writes f's result into a (a dead intermediate)")
        elif self.mode == "impl" and len(named) > 1:
            mixed = " or ".join(f"_ns({n}) is not xp" for n in named[1:])
            body.append(f"    if {mixed}: return _mixed(args)")

        def guard_lines(at):
            for g in at_guard.get(at, ()):
                b = g.value
                if (self.fast and getattr(b, "shape", None) == () and str(b.dtype) == "bool"
                        and isinstance(b.dtype, _NP_DTYPE)):
                    # numpy's bool scalars are two objects: the same one passes at once
                    one = self.const(_NP.bool_(bool(b)))
                    body.append(f"    if {self.name(g.var)} is not {one} and not "
                                f"_same(xp, {self.name(g.var)}, {self.const(b)}): raise _Restage")
                    continue
                n = self.name(g.var)
                xp = f"_ns({n})" if self.mode == "bind" else "xp"
                body.append(f"    if not _same({xp}, {n}, {self.const(g.value)}): raise _Restage")

        guard_lines(0)
        for k, e in enumerate(eqns):
            if keep[k]:
                self._eqn(e, body, reuse.get(k))
            guard_lines(k + 1)
            if dying.get(k):
                body.append(f"    del {', '.join(self.name(v) for v in dying[k])}")
        body.append(f"    return [{', '.join(self._outputs(named))}]")
        src = "\n".join(body)
        exec(compile(src, f"<jit program {id(program):x}>", "exec"), self.ns)
        run = self.ns["run"]
        run.source = src
        return run

    def _outputs(self, named):
        """The returned expressions, each a buffer of its own (see the module
        docstring): an output that does not depend on the inputs is a
        constant (the staged run returned that very array to its caller: keep
        a copy, and copy it again per call); an output a fresh numpy result
        makes is returned as it is; any other is checked at run time against
        the inputs and constants it may be (``_own``), and a repeated one is
        copied."""
        program, eqns = self.program, self.program.eqns
        may_be = {}             # id(var) -> the names of the inputs and constants it may be
        for v, n in zip(program.in_vars, self.names_of(program.in_vars)):
            if v is not None:
                may_be[id(v)] = {n}
        for k, e in enumerate(eqns):
            if not self.keep[k]:
                continue
            srcs = set()
            for x in e.ins:
                if type(x) is _Var:
                    srcs |= may_be.get(id(x), set())
                elif hasattr(x, "shape") and hasattr(x, "dtype"):
                    srcs.add(self.const(x))
            for o in e.outs:
                if o is not None:
                    may_be[id(o)] = set() if id(o) in self._fresh else srcs
        res, done = [], []
        for o in program.outs:
            if type(o) is not _Var:
                res.append(f"_copy({self.const(_copy_const(o))})")
                continue
            n = self.name(o)
            if n in done:
                res.append(f"_copy({n})")
            elif id(o) in self._fresh:
                res.append(n)
            else:
                srcs = sorted(may_be.get(id(o), set())) + done
                res.append(f"_own({n}, ({''.join(s + ', ' for s in srcs)}))")
            done.append(n)
        return res

    def names_of(self, vs):
        """The input variables' names in the generated code (read from
        ``args``, which stays alive while the replay runs)."""
        return [f"args[{i}]" if v is not None else None for i, v in enumerate(vs)]

    # ----- one equation ---------------------------------------------------

    def _eqn(self, e, body, into):
        call = self._direct(e, into, body) if self.fast else None
        if call is None:
            args = ", ".join(self.name(x) if type(x) is _Var else self.const(x) for x in e.ins)
            params = f", **{self.const(e.params)}" if e.params else ""
            if self.mode == "bind":
                call = f"_bind({self.const(e.prim)}{', ' + args if args else ''}{params})"
            else:
                call = f"{self.const(e.prim.impl)}(xp{', ' + args if args else ''}{params})"
        if e.multi:
            body.append(f"    _t = {call}")
            for j, o in enumerate(e.outs):
                if o is not None:
                    body.append(f"    {self.name(o)} = _t[{j}]")
        else:
            body.append(f"    {self.name(e.outs[0])} = {call}")

    def _direct(self, e, into, body):
        tree = self._trees.get(id(e))
        if tree is None or not self._numpy_dtype(e, tree):
            return None
        out = e.outs[0]
        def arg(x, top):
            t = type(x)
            if t is _Sym:
                return self.name(e.ins[x.k] if x.k >= 0 else out)
            if t is _Call:
                return expr(x, False)
            if t in (tuple, list):
                inner = ", ".join(arg(a, False) for a in x)
                return f"({inner}{',' if len(x) == 1 else ''})" if t is tuple else f"[{inner}]"
            if top and t in (int, float):
                return self.scalar(x, out.dtype)
            if t in (type(None), bool, int):
                return repr(x)
            return self.const(x)

        def index(i):
            if type(i) is slice and all(type(p) in (type(None), int) for p in
                                        (i.start, i.stop, i.step)):
                return ":".join("" if p is None else repr(p) for p in
                                ((i.start, i.stop) if i.step is None else (i.start, i.stop, i.step)))
            return "..." if i is Ellipsis else arg(i, False)

        def expr(c, top):
            if c.name == "[]":
                x, idx = c.args
                parts = idx if type(idx) is tuple else (idx,)
                text = ", ".join(index(i) for i in parts) + ("," if len(parts) == 1 and
                                                             type(idx) is tuple else "")
                return f"{arg(x, False)}[{text or '()'}]"
            f = getattr(_NP, c.name)
            if type(f) is _UFUNC and not c.kwargs:
                fold = top and self._foldable(e, f, c, out)
                a = [arg(x, fold) for x in c.args]
                if top and into is not None:       # positional out (not for max/min: deprecated)
                    o = self.name(into)
                    a.append(f"out={o}" if c.name in ("maximum", "minimum") else o)
                return f"{self.fn(c.name)}({', '.join(a)})"
            a = [arg(x, False) for x in c.args]
            kw = {k: arg(v, False) for k, v in c.kwargs.items()}
            m = _METHODS.get(c.name)
            text = m(a, kw) if m is not None else None
            if text is None:
                text = f"{self.fn(c.name)}({', '.join(a + [f'{k}={v}' for k, v in kw.items()])})"
            return text
        if into is None and len(out.shape) > 0 and type(getattr(_NP, tree.name, None)) is _UFUNC:
            # an inner elementwise ufunc of the output's shape and dtype: a line of
            # its own, and the outer ufunc writes into its result
            for j, a in enumerate(tree.args):
                if type(a) is _Call and self._same_kind(e, a, out) and (
                        len(out.shape) <= 1 or self._c_args(e, tree)):
                    inner = expr(a, True)
                    body.append(f"    {self.name(out)} = {inner}")
                    tree = _Call(tree.name, tree.args[:j] + (_Sym(-1),) + tree.args[j + 1:], {})
                    into = out
                    break
        return expr(tree, True)

    @staticmethod
    def _numpy_dtype(e, tree):
        """Whether numpy, called directly, gives the staged dtype: an impl may
        compute an integer or boolean operand in a dtype of its own (``sin``
        of a boolean in float32, numpy's float16), which the probe does not
        see. Checked where an operand is an integer or boolean and the call
        an elementwise ufunc (nested calls: the impl, where that happens)."""
        f = getattr(_NP, tree.name, None)
        if type(f) is not _UFUNC or all(
                _NP.isdtype(x.dtype, ("real floating", "complex floating"))
                for x in e.ins if type(x) is _Var):
            return True
        dts = []
        for a in tree.args:
            t = type(a)
            if t is _Sym:
                dts.append(e.ins[a.k].dtype)
            elif t in (int, float, complex):
                dts.append(t)
            elif isinstance(getattr(a, "dtype", None), _NP_DTYPE):
                dts.append(a.dtype)
            else:
                return False
        try:
            got = f.resolve_dtypes(tuple(dts) + (None,) * f.nout)[f.nin:]
        except (TypeError, ValueError):
            return False
        return len(e.outs) == f.nout and all(
            o is None or g == o.dtype for g, o in zip(got, e.outs))

    @staticmethod
    def _foldable(e, f, c, out):
        """Whether the Python scalars among ``c``'s operands may be the 0-d
        arrays of ``out``'s dtype: a binary elementwise ufunc, its other
        operands of that inexact dtype, with a loop for it (not ldexp's)."""
        d = out.dtype
        if f.signature is not None or f.nin != 2 or f.nout != 1:
            return False
        if not _NP.isdtype(d, ("real floating", "complex floating")):
            return False
        if any(type(a) is _Sym and e.ins[a.k].dtype != d for a in c.args):
            return False
        try:
            return all(r == d for r in f.resolve_dtypes((d, d, None)))
        except (TypeError, ValueError):     # pragma: no cover - no such loop
            return False

    @staticmethod
    def _same_kind(e, c, out):
        """Whether ``c`` is an elementwise ufunc of inputs of ``out``'s shape
        and dtype and Python scalars (its result is a fresh array like out)."""
        f = getattr(_NP, c.name, None)
        if type(f) is not _UFUNC or f.signature is not None or c.kwargs:
            return False
        if not _NP.isdtype(out.dtype, ("real floating", "complex floating")):
            return False
        vs = [e.ins[a.k] for a in c.args if type(a) is _Sym]
        return bool(vs) and all(
            type(a) is _Sym or type(a) in (int, float) for a in c.args) and all(
            tuple(v.shape) == tuple(out.shape) and v.dtype == out.dtype for v in vs)

    def _plan(self, last):
        """Probe each equation; return {step: the dead input its ufunc writes
        into}."""
        eqns, keep = self.program.eqns, self.keep
        self._trees = {}
        bases = {}                      # id(var) -> ids of the buffers it may share memory with
        owned = set()                   # fresh arrays made by this Program
        users = _collections.defaultdict(list)       # buffer -> vars that may view it
        for v in self.program.in_vars:
            if v is not None:
                bases[id(v)] = {id(v)}
        pinned = {id(g.var) for g in self.guards}
        # values surely C-contiguous (numpy gives an elementwise result, and so
        # a reduction of it, the layout of its operands: a buffer written into
        # must have the layout a fresh result would, or a later sum rounds
        # differently): the inputs (checked on entry), and what fresh
        # operations make of such values
        corder = self._corder = {id(v) for v in self.program.in_vars if v is not None}
        reuse = {}
        for k, e in enumerate(eqns):
            if not keep[k]:
                continue
            tree = _probe(e)
            if tree is not None:
                self._trees[id(e)] = tree
            out = e.outs[0] if len(e.outs) == 1 else None
            if out is not None and tree is not None and not tree.kwargs.get("out") and (
                    tree.name in _FRESH or type(getattr(_NP, tree.name, None)) is _UFUNC):
                self._fresh.add(id(out))
            if out is not None and (len(out.shape) <= 1 or tree is not None and
                                    tree.name in _KEEPS_C and self._c_args(e, tree)):
                corder.add(id(out))
            fresh = False
            if tree is not None and out is not None and len(out.shape) > 0:
                f = getattr(_NP, tree.name, None)
                ufunc = type(f) is _UFUNC and f.signature is None and not tree.kwargs
                fresh = ufunc or (tree.name == "matmul" and not tree.kwargs)
                if ufunc and not any(type(a) is _Call for a in tree.args):
                    cand = self._candidate(e, k, tree, out, last, bases, owned, users, pinned)
                    if cand is not None:
                        reuse[k] = cand
            vin = [x for x in e.ins if type(x) is _Var]
            for o in e.outs:
                if o is None:
                    continue
                if fresh:
                    bases[id(o)] = {id(o)}
                    owned.add(id(o))
                else:                   # may be a view of any input (or an input)
                    b = set()
                    for x in vin:
                        b |= bases.get(id(x), set())
                    bases[id(o)] = b
                for b in bases[id(o)]:
                    users[b].append(o)
        return reuse

    def _c_args(self, e, tree):
        """Whether every operand of ``tree`` (inputs, constants) is
        C-contiguous or of at most one dimension."""
        for a in tree.args:
            if type(a) is _Sym:
                x = e.ins[a.k] if a.k >= 0 else e.outs[0]
                if len(x.shape) > 1 and id(x) not in self._corder:
                    return False
            elif type(a) is _Call:
                if a.name not in _KEEPS_C or not self._c_args(e, a):
                    return False
            elif getattr(a, "ndim", 0) > 1 and not a.flags.c_contiguous:
                return False
        return True

    def _candidate(self, e, k, tree, out, last, bases, owned, users, pinned):
        if len(out.shape) > 1 and not self._c_args(e, tree):
            return None                 # a fresh result might not be C-contiguous
        syms = [e.ins[a.k] for a in tree.args if type(a) is _Sym]
        vin = [y for y in e.ins if type(y) is _Var]
        for x in syms:
            if (id(x) not in owned or id(x) in pinned or last.get(id(x)) != k
                    or tuple(x.shape) != tuple(out.shape) or x.dtype != out.dtype):
                continue
            if any(y is not x and id(x) in bases.get(id(y), ()) for y in vin):
                continue                # another input of this equation views it
            if any(y is not x and (last.get(id(y), -1) > k or id(y) in pinned)
                   for y in users[id(x)]):
                continue                # a view of it is read later
            return x
        return None
