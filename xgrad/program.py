"""Staged programs: ``Program``, the one way xgrad records a computation.

A ``Program`` (JAX's jaxpr is the model) is a list of equations ``Eqn(prim,
ins, outs, params)`` between input variables and output values. An input of
an equation is a ``Var`` (the output of an earlier equation, or an input of
the program) or a constant (an array the function closed over, a Python
scalar, the value of an outer transform's tracer). ``str(program)`` is a
readable listing::

    { lambda a:f64[3] .
        b:f64[3] = sin a
        c:f64[] = sum[axis=None, dtype=None, keepdims=False] b
      in (c) }

ONE staging trace makes them: ``StageTrace``. Its tracers carry a value (the
eager model: every value xgrad traces is concrete, or for ``linearize`` a
shadow value with the right shape and dtype), so staging runs the function
once and records every primitive applied to a staged value. Who stages:

- ``debug.make_tape`` stages ``fun`` on its arguments (the listing, ``to_dot``);
- ``linearize`` stages the tangent computation of a ``jvp`` (the staged
  tracers are the input tangents), and ``f_jvp`` evaluates the Program;
- ``checkpoint`` with a saving policy stages its forward run, keeps the
  outputs of the equations the policy saves, and its backward pass evaluates
  the Program under ``vjp``, handing the saved equations their values instead
  of recomputing them.

``eval_program`` runs a Program by binding each equation's primitive: on
backend arrays it computes, on traced values it is traced like any other
code, so a Program can be differentiated and batched, and replayed without
running the Python function again (what ``jit`` builds on: stage once, then
replay).

How to extend: a new kind of staging is a new use of ``stage`` /
``StageTrace`` (give it ``const=`` to own constants, ``save=`` to keep
outputs), never a new Trace subclass that records.
"""
from .backends import (backend_of as _backend_of, is_complex as _is_complex,
                       is_inexact as _is_inexact, is_lazy_array as _is_lazy_array)
from .core import (RULES as _RULES, Primitive as _Primitive, Trace as _Trace, Tracer as _Tracer,
                   bind as _bind, new_main as _new_main)

__all__ = ["Program", "Eqn", "Var", "Guard", "StageTrace", "StageTracer", "stage",
           "eval_program", "with_known_output"]


class Var:
    """A variable of a Program: shape and dtype only (no value)."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = dtype

    @property
    def aval(self):
        """``f64[3, 4]``: dtype and shape, as listings show them."""
        return f"{_short_dtype(self.dtype)}{list(self.shape)}"

    def __repr__(self):
        return f"Var({self.aval})"


class Eqn:
    """``outs = prim(*ins, **params)``: ``ins`` are Vars or constants;
    ``outs`` is a tuple of Vars (None for an output that is not an array);
    ``multi`` says the primitive returns a list (call primitives and
    primitives with several results)."""

    __slots__ = ("prim", "ins", "outs", "params", "multi")

    def __init__(self, prim, ins, outs, params, multi):
        self.prim = prim
        self.ins = tuple(ins)
        self.outs = tuple(outs)
        self.params = params
        self.multi = multi

    def label(self):
        """``prim[param=value, ...]``, as listings show it (a call
        primitive's ``spec`` shows as ``fn='<the function's name>'``)."""
        shown = _show_params(self.params)
        p = ", ".join(f"{k}={_fmt_param(val)}" for k, val in shown.items())
        return f"{self.prim.name}[{p}]" if p else self.prim.name

    def __repr__(self):
        return f"Eqn({self.prim.name}, {len(self.ins)} in, {len(self.outs)} out)"


class Guard:
    """A value the staged computation depends on: ``var`` had ``value``
    when the first ``at`` equations had been staged (a replay checks it
    there, and re-stages when it differs)."""

    __slots__ = ("at", "var", "value")

    def __init__(self, at, var, value):
        self.at = at
        self.var = var
        self.value = value

    def __repr__(self):
        return f"Guard({self.var.aval} == {Program.const_text(self.value)} after {self.at} eqns)"


class Program:
    """A staged computation: ``in_vars`` (a Var per input; None for an input
    that was not staged), ``eqns`` in order, ``outs`` (a Var or a constant
    per output), ``guards`` (the values it was staged for: ``Guard`` s; only
    ``make_program`` and ``jit(f).lower`` fill them in).

    ``program(*args)`` evaluates it (``eval_program``; it does not check the
    guards); ``str(program)`` lists it, each guard after the equation it
    follows; ``program.consts`` are the array constants its equations use.
    """

    __slots__ = ("in_vars", "eqns", "outs", "guards", "__weakref__")

    def __init__(self, in_vars, eqns, outs, guards=()):
        self.in_vars = list(in_vars)
        self.eqns = list(eqns)
        self.outs = list(outs)
        self.guards = list(guards)

    def __call__(self, *args):
        return eval_program(self, args)

    @property
    def consts(self):
        """The array constants (closed-over arrays, residuals) in order of use."""
        seen, res = set(), []
        for e in self.eqns:
            for x in e.ins:
                if type(x) is not Var and _is_array(x) and id(x) not in seen:
                    seen.add(id(x))
                    res.append(x)
        return res

    def prune(self):
        """The Program without the equations no output depends on (a call
        staged and then redone inline by its rule is dead, for example)."""
        live = {id(v) for v in self.outs if type(v) is Var}
        live.update(id(g.var) for g in self.guards)
        kept, before = [], [0] * (len(self.eqns) + 1)
        for k in range(len(self.eqns) - 1, -1, -1):
            e = self.eqns[k]
            if any(o is not None and id(o) in live for o in e.outs):
                kept.append(e)
                live.update(id(x) for x in e.ins if type(x) is Var)
        n = 0
        keep = {id(e) for e in kept}
        for k, e in enumerate(self.eqns):      # a guard's position among the kept equations
            before[k] = n
            n += id(e) in keep
        before[-1] = n
        return Program(self.in_vars, kept[::-1], self.outs,
                       [Guard(before[g.at], g.var, g.value) for g in self.guards])

    def names(self):
        """{Var: name}: ``a, b, ..., z, aa, ...`` in order of definition."""
        names = {}
        for v in self.in_vars:
            if v is not None:
                names[v] = _var_name(len(names))
        for e in self.eqns:
            for o in e.outs:
                if o is not None and o not in names:
                    names[o] = _var_name(len(names))
        return names

    def __str__(self):
        return self.pretty()

    def pretty(self):
        """The listing: an equation per line (``out:dtype[shape] =
        prim[params] ins``), constants by dtype and shape (a 0-d one by its
        value), and ``guard v == value`` where a guard is checked."""
        names = self.names()

        def decl(v):
            return f"{names[v]}:{v.aval}"

        def ref(x):
            return names[x] if type(x) is Var else Program.const_text(x)
        at = {}
        for g in self.guards:
            at.setdefault(g.at, []).append(g)

        def guards(k):
            for g in at.get(k, ()):
                lines.append(f"    guard {ref(g.var)} == {Program.const_text(g.value)}")
        lines = ["{ lambda " + ", ".join(decl(v) for v in self.in_vars if v is not None) + " ."]
        guards(0)
        for k, e in enumerate(self.eqns):
            lhs = ", ".join(decl(o) for o in e.outs if o is not None) or "_"
            lines.append(f"    {lhs} = {e.label()} {' '.join(ref(x) for x in e.ins)}".rstrip())
            guards(k + 1)
        lines.append("  in (" + ", ".join(ref(o) for o in self.outs) + ") }")
        return "\n".join(lines)

    def as_text(self):
        """The listing (``str(program)``), under the name JAX's ``Lowered`` uses."""
        return self.pretty()

    __repr__ = __str__

    @staticmethod
    def const_text(x):
        """How a listing shows the constant ``x``: a 0-d array by its value,
        another array by dtype and shape, anything else by its repr."""
        while isinstance(x, _Tracer):     # the value of an outer transform's tracer
            x = x.primal
        if _is_array(x):
            if tuple(x.shape) == ():
                try:
                    if str(x.dtype).endswith("bool"):
                        return repr(bool(x))
                    if _is_inexact(x.dtype):
                        return repr(complex(x) if _is_complex(x.dtype) else float(x))
                    return repr(int(x))
                except Exception:  # pragma: no cover
                    pass
            return f"<const {_short_dtype(x.dtype)}{list(x.shape)}>"
        return repr(x)


# --------------------------------------------------------------------------
# the staging trace

class StageTracer(_Tracer):
    """A staged value: ``primal`` is its value (a shadow value for
    ``linearize``'s tangents), ``staged_var`` its variable."""

    __slots__ = ()
    # not ``var``: that is the array method ``x.var()``
    staged_var = _Tracer.data_slot

    def concrete(self):
        trace = self._trace
        if trace.shadow:
            raise TypeError("linearize: a tangent has no concrete value while the linear "
                            "part is staged (a JVP rule branched on a tangent's value)")
        value = _Tracer.concrete(self)
        if trace.guards is not None and trace.alive:
            # the computation depends on this value: the Program holds only for it
            # (a copy: the caller may write the array it came from)
            trace.guards.append(Guard(len(trace.eqns), self.staged_var, _frozen(value)))
        return value


class StageTrace(_Trace):
    """Records every primitive applied to its tracers as an equation.

    Made by ``new_main(StageTrace, shadow, const, save)`` (or ``stage``).

    Args:
      level: the trace's level (given by ``new_main``).
      shadow: the values are shadows (no concrete value: ``bool(x)`` raises).
      const: ``const(x) -> x'`` applied to every constant an equation keeps,
        among its operands and inside its parameters (an index array of
        ``getitem``/``index_set``, in tuples and lists): ``jit`` copies plain
        arrays there, so that a replay computes with what the staged call
        read even when the caller writes the array later.
      save: ``save(prim, *args, **params) -> bool`` (a checkpoint policy):
        the outputs of the equations it accepts are kept in ``saved``
        (``{Eqn: outputs}``).

    guards: a list to record a ``Guard`` in each time the concrete value of a
      staged value is read (``bool(x)``, ``float(x)``, an index, ...): the
      staged Program holds only while those values are the same (``jit``).
      None: no guards (the other kinds of staging run once).

    ``opaque`` turns True when a primitive is staged while a call primitive
    (checkpoint, custom_vjp, ...) runs its function: the function closes over
    a staged value, so replaying the call's equation would not see the new
    value (use the Program for listing only, or re-run the function).
    """

    __slots__ = ("eqns", "shadow", "const_fn", "save", "saved", "calls", "opaque", "guards")

    def __init__(self, level, shadow=False, const=None, save=None, guards=None):
        _Trace.__init__(self, level)
        self.guards = guards
        self.eqns = []
        self.shadow = shadow
        self.const_fn = const
        self.save = save
        self.saved = {}
        self.calls = 0
        self.opaque = False

    def new_var(self, value):
        return StageTracer(self, value, Var(value.shape, value.dtype))

    def check_finite(self, x):
        """Whether the floating value ``x`` (a tracer of this trace or above
        it) is finite, decided by staged operations and a guard (so a replay
        re-checks it): the transforms' choice between a fast derivative and a
        NaN-safe one (``core.all_finite``). None when not recording guards."""
        if self.guards is None:
            return None
        while not (isinstance(x, StageTracer) and x._trace is self):
            x = x.primal
        if not _is_inexact(x.dtype):
            return True
        if _is_lazy_array(x.primal):
            # NB: a lazy (dask) value counts as finite, as core.all_finite has
            # it eagerly: reading it would compute it behind the user's back
            return True
        n = 1
        for d in x.shape:
            n *= d
        v = _bind(_RULES["reshape"], x, shape=(n,))
        # as core.all_finite: a dot product with itself (no temporary), or a sum
        total = _bind(_RULES["sum"], v, axis=None, dtype=None, keepdims=False) \
            if _is_complex(x.dtype) else _bind(_RULES["matmul"], v, v)
        return bool(_bind(_RULES["isfinite"], total))

    def process_primitive(self, prim, args, params):
        vals, vars_, _ = self.lower(args, prim)
        if self.calls:
            self.opaque = True
        cf = self.const_fn
        ins = [v if v is not None else (cf(a) if cf is not None else a)
               for a, v in zip(vals, vars_)]
        if cf is not None and params:
            params = {k: _own_param(p, cf) for k, p in params.items()}
        multi = prim.several_outputs
        if prim.is_call:
            self.calls += 1
            try:
                out = prim.bind(*vals, **params)
            finally:
                self.calls -= 1
        else:
            out = prim.bind(*vals, **params)
        outs = out if multi else (out,)
        # an output that is already a value of this trace: a call's function
        # returned a value it computed from a closed-over staged value (opaque)
        tracers, out_vars = [], []
        for o in outs:
            if type(o) is StageTracer and o._trace is self:
                t, v = o, None
            elif _is_array(o):
                t = self.new_var(o)
                v = t.staged_var
            else:
                t, v = o, None
            tracers.append(t)
            out_vars.append(v)
        eqn = Eqn(prim, ins, out_vars, params, multi)
        self.eqns.append(eqn)
        if self.save is not None and not prim.is_call and self.save(prim, *vals, **params):
            self.saved[eqn] = out
        return list(tracers) if multi else tracers[0]

    def program(self, in_vars, outs):
        """The Program from the inputs' variables ``in_vars`` (read when the
        inputs were made: ``x[i] = v`` rebinds a tracer in place; None: not
        staged) to ``outs`` (tracers of this trace, or constants)."""
        return Program(in_vars, self.eqns,
                       [o.staged_var if type(o) is StageTracer and o._trace is self else o
                        for o in outs])


def eval_program(program, args, known=None):
    """Run ``program`` on ``args`` (one per input; ignored where the input
    was not staged) by binding each equation's primitive; returns the list of
    outputs. ``known`` (``{Eqn: outputs}``, a checkpoint's saved values):
    those equations are not computed, their outputs are these values (their
    derivative rules still apply: see ``with_known_output``)."""
    env = {}
    for v, a in zip(program.in_vars, args):
        if v is not None:
            env[v] = a
    for e in program.eqns:
        prim = e.prim
        if known is not None and e in known:
            prim = with_known_output(prim, known[e])
        r = _bind(prim, *[env[x] if type(x) is Var else x for x in e.ins], **e.params)
        if e.multi:
            for o, val in zip(e.outs, r):
                if o is not None:
                    env[o] = val
        else:
            env[e.outs[0]] = r
    return [env[o] if type(o) is Var else o for o in program.outs]


def with_known_output(prim, value):
    """``prim`` whose implementation returns ``value`` (already computed and
    saved) without computing; its JVP, VJP and batching rules are ``prim``'s,
    so a transform that meets it still differentiates through it."""
    p = _Primitive.__new__(_Primitive)
    for k in _Primitive.__slots__:
        if k != "__weakref__" and hasattr(prim, k):
            setattr(p, k, getattr(prim, k))
    p.impl = lambda xp, *args, **params: value
    return p


# --------------------------------------------------------------------------
# printing

def _frozen(x):
    """A copy of the array ``x`` (a guard's value), or ``x`` itself."""
    if _is_array(x) and not isinstance(x, _Tracer):
        return _backend_of(x).asarray(x, copy=True)
    return x


def _is_array(x):
    return hasattr(x, "shape") and hasattr(x, "dtype")


def _own_param(p, cf):
    """The parameter ``p`` with ``cf`` applied to each array in it (a
    tuple's or a list's entries included): an index array is a constant too."""
    if type(p) in (tuple, list):
        q = [_own_param(x, cf) for x in p]
        return p if all(a is b for a, b in zip(p, q)) else type(p)(q)
    return cf(p) if _is_array(p) and not isinstance(p, (_Tracer, type)) else p


def _short_dtype(dtype):
    name = str(getattr(dtype, "name", dtype)).rsplit(".", 1)[-1]
    return {"float64": "f64", "float32": "f32", "float16": "f16", "int64": "i64",
            "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8", "uint32": "u32",
            "uint64": "u64", "bool": "bool", "complex128": "c128",
            "complex64": "c64"}.get(name, name)


def _var_name(i):
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(97 + r) + s
    return s


def _show_params(params):
    if "spec" not in params:
        return params
    shown = {k: v for k, v in params.items() if k != "spec"}
    shown["fn"] = getattr(params["spec"], "name", "fn")
    return shown


def _fmt_param(val):
    if callable(val):
        return getattr(val, "__name__", "fn")
    if _is_array(val):
        return f"<array {_short_dtype(val.dtype)}{list(val.shape)}>"
    if isinstance(val, tuple):
        return "(" + ",".join(_fmt_param(x) for x in val) + ("," if len(val) == 1 else "") + ")"
    return repr(val)


def stage(fun, args, *, shadow=False, const=None, save=None, guards=None):
    """Stage ``fun(*tracers) -> list of outputs`` on ``args`` (a value per
    input, None for an input that is not staged). Returns ``(program,
    outs, trace)``: the Program, the output values (``fun``'s outputs with
    staged values replaced by their values), and the finished trace
    (``trace.saved``, ``trace.opaque``, ``trace.guards``)."""
    with _new_main(StageTrace, shadow, const, save, guards) as trace:
        ins = [None if a is None else trace.new_var(a) for a in args]
        in_vars = [None if t is None else t.staged_var for t in ins]
        outs = fun(*[a if t is None else t for a, t in zip(args, ins)])
        program = trace.program(in_vars, outs)
        values = [o.primal if type(o) is StageTracer and o._trace is trace else o for o in outs]
    return program, values, trace
