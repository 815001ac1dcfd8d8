"""Random small programs against jax.

Each example is a list of steps on a working set of arrays of one shape
(``(n,)`` or ``(m, n)``, n, m in 1..4): elementwise ops, in-place writes
``y[idx] = e`` / ``y[idx] += e`` (idx an int, a slice, a boolean mask, integer
arrays with repeats; e at idx, with distinct weights, or a 0-d value
broadcast), writes into fresh ``xnp.zeros_like``/``ones_like``/``full_like``
buffers, writes under a data-dependent mask, masked division
``y = a / b; y[b == 0] = 1.0``,
``where(c, sqrt(x), 0.)``, ``maximum``/``clip`` of ``log`` at 0, ``log(x)[mask]``
gathers, ``copy.copy``/``copy.deepcopy`` (of values and of pytrees), aliases
(``y = x``), ``stop_gradient``, writes of a traced value into a plain numpy
array (must raise) and sub-blocks under ``xgrad.checkpoint``; then a scalar
loss. The same step list is run twice: as an xgrad program (in-place writes,
the naive NaN-producing discarded branches) and as its jax twin (functional
``.at[].set`` on flat indices, only the last write of a repeated index, the
"double where" for every discarded branch, aliasing tracked by hand).

xgrad's ``value_and_grad``, ``jvp``, ``vmap`` (with an unmapped argument
the program writes into), ``vmap(grad)`` and ``hessian`` (every other
example) must match jax's (float64, one jit per program) to ~1e-9, and every
array the caller owns (inputs, tangents, closed-over constants, index and
weight arrays) must be bitwise unchanged after every call. The same
generator runs a few examples on array_api_strict (no integer-array
indices there: that namespace has no integer-array setitem). About 25 s on
two cores.
"""
import copy
import warnings

import numpy as np
import pytest

jax = pytest.importorskip("jax")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import strategies as st  # noqa: E402

import xgrad  # noqa: E402
import xgrad.numpy as xnp  # noqa: E402
from helpers import to_np  # noqa: E402

jnp = jax.numpy

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

BATCH = 2
CONSTS = (0.0, 1.0, -0.5, 2.5)

# ----------------------------------------------------------------------------
# the programs


class Index:
    """A host index: ``obj`` for the xgrad program, ``ids`` (the flat index of
    every selected element, in the selection's shape) and ``win`` (which of
    them, flattened, is the last write of its element) for the jax twin."""

    def __init__(self, kind, obj, shape):
        self.kind, self.obj = kind, obj
        self.ids = np.asarray(np.arange(int(np.prod(shape))).reshape(shape)[obj])
        flat = self.ids.reshape(-1)
        self.win = np.array([flat[p] not in flat[p + 1:] for p in range(flat.size)], dtype=bool)

    def host_arrays(self):
        objs = self.obj if isinstance(self.obj, tuple) else (self.obj,)
        return [o for o in objs if isinstance(o, np.ndarray)]

    def __repr__(self):
        def r(o):
            if isinstance(o, np.ndarray):
                return repr(o.tolist() if o.dtype != bool else o.astype(int).tolist())
            if isinstance(o, slice):
                return (f"{'' if o.start is None else o.start}:{'' if o.stop is None else o.stop}"
                        + ("" if o.step is None else f":{o.step}"))
            return repr(o)
        if isinstance(self.obj, tuple):
            return ", ".join(r(o) for o in self.obj)
        return r(self.obj)


def _idx_kinds(shape, int_arrays):
    kinds = ["int", "slice", "mask"] + (["ints"] if int_arrays else [])
    if len(shape) == 2:
        kinds += ["row_slice"] + (["ints2"] if int_arrays else [])
    return kinds


@st.composite
def indices(draw, shape, int_arrays=True):
    kind = draw(st.sampled_from(_idx_kinds(shape, int_arrays)))
    n0 = shape[0]
    ints = lambda n: st.integers(-n, n - 1)  # noqa: E731
    if kind == "int":
        obj = draw(ints(n0))
    elif kind == "slice":
        b = st.none() | st.integers(-n0, n0)
        obj = slice(draw(b), draw(b), draw(st.sampled_from([None, 1, 2, -1])))
    elif kind == "mask":
        bits = draw(st.lists(st.booleans(), min_size=int(np.prod(shape)),
                             max_size=int(np.prod(shape))))
        obj = np.array(bits, dtype=bool).reshape(shape)
    elif kind == "ints":
        obj = np.array(draw(st.lists(ints(n0), min_size=1, max_size=5)), dtype=np.int64)
    elif kind == "row_slice":
        obj = (draw(ints(n0)), slice(draw(st.none() | st.integers(0, shape[1])), None))
    else:  # ints2: element-level scatter, repeats possible
        k = draw(st.integers(1, 5))
        obj = (np.array(draw(st.lists(ints(n0), min_size=k, max_size=k)), dtype=np.int64),
               np.array(draw(st.lists(ints(shape[1]), min_size=k, max_size=k)), dtype=np.int64))
    return Index(kind, obj, shape)


class Slots:
    """Generation-time view of the working set: the object each slot holds
    (aliases share one), and per object whether it may be a plain array in
    some transform (``mp``: a traced value written into it would raise),
    whether it may be traced in some (``mt``), and whether it may be a
    traced constant (``mc``: ``zeros_like`` of a traced value before a traced
    write; operations on it give plain values). ``used``: the objects some
    operation has read: grad keeps plain operands by reference (README,
    Sharp bits), so no in-place write into a maybe-plain object after that."""

    def __init__(self, flags):
        self.obj, self.mp, self.mt, self.mc = [], {}, {}, {}
        self.next, self.used = 0, set()
        for f in flags:
            self.new(*f)

    def new(self, mp, mt, mc=False):
        o = self.next
        self.next += 1
        self.obj.append(o)
        self.mp[o], self.mt[o], self.mc[o] = mp, mt, mc
        return o

    def same(self, i):
        """The flags of a copy of slot ``i``."""
        o = self.obj[i]
        return self.mp[o], self.mt[o], self.mc[o]

    def surely_traced(self, i):
        o = self.obj[i]
        return self.mt[o] and not self.mp[o] and not self.mc[o]

    def alias(self, i):
        self.obj.append(self.obj[i])

    def use(self, *slots):
        self.used.update(self.obj[i] for i in slots if i is not None)

    def writable(self, i):
        o = self.obj[i]
        return not (self.mp[o] and o in self.used)

    def flags(self, *slots):
        """The flags of the result of an operation on ``slots``."""
        objs = [self.obj[i] for i in slots]
        return (all(self.mp[o] or self.mc[o] for o in objs), any(self.mt[o] for o in objs))

    def __len__(self):
        return len(self.obj)


UNARY = ("sin", "tanh", "expclip")
BINARY = ("mul", "add", "sub")
FNS = ("id", "sin", "twice")
MAKERS = ("zeros_like", "ones_like", "full_like")


@st.composite
def sources(draw, sl, target, idx):
    """What a write stores: a constant, the closed-over K at idx, or a
    function of a slot at idx (not a maybe-traced value into a maybe-plain
    target: that raises in some transform, by design), times distinct
    weights or not (so that repeated indices write different values)."""
    ok = [j for j in range(len(sl)) if not (sl.mp[sl.obj[target]] and sl.mt[sl.obj[j]])]
    kinds = ["const", "K"] + (["val"] * 3 if ok else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "const":
        return ("const", draw(st.sampled_from(CONSTS)))
    if kind == "K":
        return ("K",)
    return ("val", draw(st.sampled_from(ok)), draw(st.sampled_from(FNS)), draw(weights(idx)))


@st.composite
def weights(draw, idx):
    """None (the slot at idx), distinct weights in the selection's shape, or
    "first" (the slot's first entry, a 0-d value broadcast over idx)."""
    how = draw(st.sampled_from([None, "weights", "first"]))
    if how == "weights":
        return 0.5 + np.arange(idx.ids.size, dtype=np.float64).reshape(idx.ids.shape)
    return how


@st.composite
def steps(draw, sl, shape, depth, int_arrays, n_max):
    out = []
    n = draw(st.integers(1 if depth else 3, n_max))
    for _ in range(n):
        kinds = ["un", "bin", "set", "set", "set", "fresh", "fresh", "dset", "mdiv", "mdiv",
                 "wsqrt", "wsqrt", "mlog", "mlog", "glog", "copy", "tdeep", "tshallow", "alias"]
        kinds += ["sg"]
        if depth == 0 and any(sl.surely_traced(i) for i in range(len(sl))):
            kinds += ["npw"]
        if depth < 2:
            kinds += ["ckpt"] * (2 if depth == 0 else 1)
        kind = draw(st.sampled_from(kinds))
        slot = st.integers(0, len(sl) - 1)
        targets = [i for i in range(len(sl)) if sl.writable(i)]
        if kind in ("set", "dset") and not targets:
            continue
        if kind == "un":
            i = draw(slot)
            out.append(("un", draw(st.sampled_from(UNARY)), i))
            sl.new(*sl.flags(i))
        elif kind == "bin":
            i, j = draw(slot), draw(st.none() | slot)      # None: the closed-over K
            out.append(("bin", draw(st.sampled_from(BINARY)), i, j))
            sl.new(*sl.flags(i, *([] if j is None else [j])))
        elif kind == "set":
            i = draw(st.sampled_from(targets))
            idx = draw(indices(shape, int_arrays))
            out.append(("set", i, idx, draw(sources(sl, i, idx)),
                        draw(st.sampled_from(["=", "+="]))))
            src = out[-1][3]
            if src[0] == "val":       # the target may now be traced
                o = sl.obj[i]
                sl.mt[o] = sl.mt[o] or sl.mt[sl.obj[src[1]]]
                if sl.surely_traced(src[1]) and idx.ids.size:
                    sl.mc[o] = False
        elif kind == "fresh":
            i = draw(slot)
            idx = draw(indices(shape, int_arrays))
            mp, mt, _ = sl.same(i)
            src = draw(sources(sl, i, idx))
            out.append(("fresh", i, idx, src, draw(st.sampled_from(MAKERS))))
            # zeros_like of a traced value is a traced constant until a
            # traced write (test_op_on_traced_constant_under_grad)
            real = src[0] == "val" and sl.surely_traced(src[1]) and idx.ids.size
            sl.new(mp, mt or (src[0] == "val" and sl.mt[sl.obj[src[1]]]), not mp and not real)
        elif kind == "dset":
            i = draw(st.sampled_from(targets))
            ok = [j for j in range(len(sl)) if not (sl.mp[sl.obj[i]] and sl.mt[sl.obj[j]])]
            if not ok:
                continue
            out.append(("dset", i, draw(st.sampled_from(ok)), draw(st.sampled_from(CONSTS))))
        elif kind == "mdiv":
            i, j = draw(slot), draw(slot)
            out.append(("mdiv", i, j))
            sl.new(*sl.flags(i, j))
        elif kind == "wsqrt":
            i = draw(slot)
            out.append(("wsqrt", i))
            sl.new(*sl.flags(i))
        elif kind == "mlog":
            i = draw(slot)
            out.append(("mlog", i, draw(st.sampled_from(["maximum", "clip"]))))
            sl.new(*sl.flags(i))
        elif kind == "glog":
            i, k = draw(slot), draw(slot)
            out.append(("glog", i, k))
            sl.new(*sl.flags(i, k))
        elif kind == "copy":
            i = draw(slot)
            out.append(("copy", i, draw(st.sampled_from(["copy", "deepcopy"]))))
            sl.new(*sl.same(i))
        elif kind == "tdeep":
            i, j = draw(slot), draw(slot)
            out.append(("tdeep", i, j))
            a = sl.new(*sl.same(i))
            if sl.obj[i] == sl.obj[j]:     # deepcopy's memo keeps the alias
                sl.obj.append(a)
            else:
                sl.new(*sl.same(j))
        elif kind == "tshallow":
            i, j = draw(slot), draw(slot)
            out.append(("tshallow", i, j))
            sl.alias(i)
            sl.alias(j)
        elif kind == "alias":
            i = draw(slot)
            out.append(("alias", i))
            sl.alias(i)
        elif kind == "sg":         # a fresh value, plain or not (test_stop_gradient_*)
            i = draw(slot)
            out.append(("sg", i))
            sl.new(True, sl.mt[sl.obj[i]])
        elif kind == "npw":
            i = draw(st.sampled_from([i for i in range(len(sl)) if sl.surely_traced(i)]))
            out.append(("npw", i, draw(indices(shape, int_arrays))))
        else:  # ckpt: distinct objects in, a block of steps, distinct objects out
            firsts = {}
            for s, o in enumerate(sl.obj):
                firsts.setdefault(o, s)
            args = draw(st.lists(st.sampled_from(sorted(firsts.values())), min_size=1,
                                 max_size=3, unique_by=lambda s: sl.obj[s]))
            inner = Slots([sl.flags(a) for a in args])   # a constant comes in plain
            body = draw(steps(inner, shape, depth + 1, int_arrays, 3))
            firsts = {}
            for s, o in enumerate(inner.obj):
                firsts.setdefault(o, s)
            outs = draw(st.lists(st.sampled_from(sorted(firsts.values())), min_size=1,
                                 max_size=2, unique=True))
            out.append(("ckpt", args, body, outs))
            arg_mt = sl.flags(*args)[1]
            for o in outs:   # a checkpoint's outputs are traced when any input is
                mp, mt = inner.flags(o)
                sl.new(mp, mt or arg_mt)
        sl.use(*reads(out[-1]) if out else ())
    return out


def reads(step):
    """The slots whose values ``step`` reads (operands, sources, masks)."""
    kind = step[0]
    if kind in ("un", "wsqrt", "mlog", "sg", "npw"):
        return [step[2] if kind == "un" else step[1]]
    if kind in ("bin",):
        return [step[2], step[3]]
    if kind in ("set", "fresh"):
        return [step[3][1]] if step[3][0] == "val" else []
    if kind == "dset":
        return [step[2]]
    if kind in ("mdiv", "glog"):
        return [step[1], step[2]]
    if kind == "ckpt":
        return list(step[1])
    return []          # copies, aliases


class Program:
    def __init__(self, shape, seed, body, loss, hosts):
        self.shape, self.seed, self.body, self.loss, self.hosts = shape, seed, body, loss, hosts

    def __repr__(self):
        lines = [f"Program(shape={self.shape}, seed={self.seed}):"]

        def show(body, pad):
            for s in body:
                if s[0] == "ckpt":
                    lines.append(f"{pad}ckpt(args={s[1]}, outs={s[3]}):")
                    show(s[2], pad + "    ")
                else:
                    lines.append(pad + repr(s))
        show(self.body, "  ")
        lines.append(f"  loss {self.loss}")
        return "\n".join(lines)


def _walk_hosts(body, acc):
    for s in body:
        for part in s:
            if isinstance(part, Index):
                acc.extend(part.host_arrays())
            if isinstance(part, tuple) and part and part[0] == "val" and \
                    isinstance(part[3], np.ndarray):
                acc.append(part[3])
        if s[0] == "ckpt":
            _walk_hosts(s[2], acc)
    return acc


@st.composite
def programs(draw, int_arrays=True, n_max=8):
    nd = draw(st.integers(1, 2))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(nd))
    sl = Slots([(False, True), (True, False)])     # x (traced), c (a plain argument)
    body = draw(steps(sl, shape, 0, int_arrays, n_max))
    # every slot (c included: a constant) and the last one twice
    loss = [(s, draw(st.sampled_from(["sq", "sin"]))) for s in list(range(len(sl))) + [-1]]
    return Program(shape, draw(st.integers(0, 2 ** 31)), body, loss, _walk_hosts(body, []))


def data(prog):
    """The caller's arrays: x, a tangent, a batch of x, the argument c, the
    closed-over K and the zero pattern Z (at least one exact zero)."""
    rng = np.random.default_rng(prog.seed)
    S = prog.shape
    Z = (rng.random(S) < 0.5).astype(np.float64)
    Z.reshape(-1)[rng.integers(Z.size)] = 0.0
    return dict(X=rng.uniform(-1.5, 1.5, S), T=rng.normal(size=S),
                XB=rng.uniform(-1.5, 1.5, (BATCH,) + S), C=rng.uniform(-1.0, 1.0, S),
                K=rng.uniform(-1.0, 1.0, S), Z=Z, Zm=Z != 0)


# ----------------------------------------------------------------------------
# the xgrad program: in-place writes, naive discarded branches


def _xfn(name):
    return {"id": lambda v: v, "sin": xnp.sin, "twice": lambda v: v * 2.0,
            "tanh": xnp.tanh, "expclip": lambda v: xnp.exp(xnp.clip(v, -2.0, 2.0))}[name]


def _x_src(src, idx, slots, env):
    if src[0] == "const":
        return src[1]
    if src[0] == "K":
        return env["K"][idx]
    if isinstance(src[3], str):          # "first"
        y = slots[src[1]]
        return _xfn(src[2])(y[(0,) * y.ndim])
    v = _xfn(src[2])(slots[src[1]][idx])
    return v if src[3] is None else xnp.multiply(v, env["conv"](src[3]))


def _x_index(idx, env):
    return env["index"](idx)


def x_run(body, slots, env):
    for s in body:
        kind = s[0]
        if kind == "un":
            slots.append(_xfn(s[1])(slots[s[2]]))
        elif kind == "bin":
            op = {"mul": xnp.multiply, "add": xnp.add, "sub": xnp.subtract}[s[1]]
            slots.append(op(slots[s[2]], env["K"] if s[3] is None else slots[s[3]]))
        elif kind == "set":
            _, i, idx, src, mode = s
            ix = _x_index(idx, env)
            y = slots[i]
            v = _x_src(src, ix, slots, env)
            if mode == "=":
                y[ix] = v
            else:
                y[ix] += v
        elif kind == "fresh":
            _, i, idx, src, make = s
            ix = _x_index(idx, env)
            y = slots[i]
            w = xnp.full_like(y, 0.5) if make == "full_like" else getattr(xnp, make)(y)
            w[ix] = _x_src(src, ix, slots, env)
            slots.append(w)
        elif kind == "dset":
            _, i, j, c = s
            y = slots[i]
            y[slots[j] > 0] = c
        elif kind == "mdiv":
            b = xnp.multiply(slots[s[2]], env["Z"])
            y = xnp.divide(slots[s[1]], b)
            y[b == 0] = 1.0
            slots.append(y)
        elif kind == "wsqrt":
            v = slots[s[1]]
            slots.append(xnp.where(v > 0, xnp.sqrt(v), 0.0))
        elif kind == "mlog":
            lv = xnp.log(xnp.multiply(slots[s[1]] ** 2 + 0.1, env["Z"]))
            slots.append(xnp.maximum(lv, -1.0) if s[2] == "maximum" else xnp.clip(lv, -1.0, 2.0))
        elif kind == "glog":
            g = xnp.log(xnp.multiply(slots[s[1]] ** 2 + 0.1, env["Z"]))[env["Zm"]]
            slots.append(xnp.multiply(slots[s[2]], xnp.sum(g)))
        elif kind == "copy":
            slots.append(getattr(copy, s[2])(slots[s[1]]))
        elif kind == "tdeep":
            t = copy.deepcopy({"a": [slots[s[1]], (slots[s[2]],)]})
            slots += [t["a"][0], t["a"][1][0]]
        elif kind == "tshallow":
            slots += copy.copy([slots[s[1]], slots[s[2]]])
        elif kind == "alias":
            slots.append(slots[s[1]])
        elif kind == "sg":
            slots.append(xgrad.stop_gradient(slots[s[1]]))
        elif kind == "npw":
            _, i, idx = s
            ix = _x_index(idx, env)
            plain = env["xp"].zeros(slots[i].shape, dtype=slots[i].dtype)
            with pytest.raises((TypeError, ValueError)) as info:
                plain[ix] = slots[i][ix]
            if info.type is ValueError:     # numpy's wrapper of the TypeError (0-d writes)
                assert isinstance(info.value.__cause__, TypeError), info.value
            assert not np.any(to_np(plain)), "a refused write changed the plain array"
        elif kind == "ckpt":
            _, args, block, outs = s

            def fn(*a, block=block, outs=outs):
                inner = list(a)
                x_run(block, inner, env)
                return tuple(inner[o] for o in outs)
            slots += list(xgrad.checkpoint(fn)(*[slots[a] for a in args]))
        else:  # pragma: no cover
            raise AssertionError(kind)
    return slots


def x_loss(prog, env):
    def f(x, c):
        slots = x_run(prog.body, [x, c], env)
        total = 0.0
        for s, how in prog.loss:
            v = slots[s]
            total = xnp.add(xnp.sum(v ** 2) if how == "sq" else xnp.sum(xnp.sin(v)), total)
        return total
    return f


# ----------------------------------------------------------------------------
# the jax twin: functional updates on flat indices, last write wins, double
# where, aliasing by object ids


def _jfn(name):
    return {"id": lambda v: v, "sin": jnp.sin, "twice": lambda v: v * 2.0,
            "tanh": jnp.tanh, "expclip": lambda v: jnp.exp(jnp.clip(v, -2.0, 2.0))}[name]


def _j_gather(v, idx):
    return v.reshape(-1)[idx.ids]


def _j_scatter(y, idx, new):
    new = jnp.broadcast_to(new, idx.ids.shape).reshape(-1)[np.nonzero(idx.win)[0]]
    return y.reshape(-1).at[idx.ids.reshape(-1)[idx.win]].set(new).reshape(y.shape)


def _j_src(src, idx, st_, env):
    if src[0] == "const":
        return src[1]
    if src[0] == "K":
        return env["K"].reshape(-1)[idx.ids]
    if isinstance(src[3], str):          # "first"
        return _jfn(src[2])(st_.get(src[1]).reshape(-1)[0])
    v = _jfn(src[2])(_j_gather(st_.get(src[1]), idx))
    return v if src[3] is None else v * src[3]


class JState:
    """Slots as object ids; writes replace the object (every alias sees them)."""

    def __init__(self, values):
        self.slot, self.val = [], {}
        for v in values:
            self.add(v)

    def add(self, v):
        o = object()
        self.val[o] = v
        self.slot.append(o)
        return o

    def get(self, i):
        return self.val[self.slot[i]]

    def put(self, i, v):
        self.val[self.slot[i]] = v


def _dw(c, f, v, fill):
    """``where(c, f(v), fill)`` with the double-where trick."""
    return jnp.where(c, f(jnp.where(c, v, 1.0)), fill)


def j_run(body, S, env):
    for s in body:
        kind = s[0]
        if kind == "un":
            S.add(_jfn(s[1])(S.get(s[2])))
        elif kind == "bin":
            op = {"mul": jnp.multiply, "add": jnp.add, "sub": jnp.subtract}[s[1]]
            S.add(op(S.get(s[2]), env["K"] if s[3] is None else S.get(s[3])))
        elif kind == "set":
            _, i, idx, src, mode = s
            v = _j_src(src, idx, S, env)
            y = S.get(i)
            S.put(i, _j_scatter(y, idx, v if mode == "=" else _j_gather(y, idx) + v))
        elif kind == "fresh":
            _, i, idx, src, make = s
            y = S.get(i)
            w = jnp.full_like(y, 0.5) if make == "full_like" else getattr(jnp, make)(y)
            S.add(_j_scatter(w, idx, _j_src(src, idx, S, env)))
        elif kind == "dset":
            _, i, j, c = s
            S.put(i, jnp.where(S.get(j) > 0, c, S.get(i)))
        elif kind == "mdiv":
            b = S.get(s[2]) * env["Z"]
            a = S.get(s[1])
            S.add(_dw(b != 0, lambda bb: a / bb, b, 1.0))
        elif kind == "wsqrt":
            v = S.get(s[1])
            S.add(_dw(v > 0, jnp.sqrt, v, 0.0))
        elif kind == "mlog":
            v = (S.get(s[1]) ** 2 + 0.1) * env["Z"]
            f = ((lambda u: jnp.maximum(jnp.log(u), -1.0)) if s[2] == "maximum"
                 else (lambda u: jnp.clip(jnp.log(u), -1.0, 2.0)))
            S.add(_dw(env["Zm"], f, v, -1.0))
        elif kind == "glog":
            v = (S.get(s[1]) ** 2 + 0.1) * env["Z"]
            S.add(S.get(s[2]) * jnp.sum(_dw(env["Zm"], jnp.log, v, 0.0)))
        elif kind in ("copy", "sg"):
            v = S.get(s[1])
            S.add(jax.lax.stop_gradient(v) if kind == "sg" else v)
        elif kind == "tdeep":
            a = S.add(S.get(s[1]))
            if S.slot[s[1]] == S.slot[s[2]]:
                S.slot.append(a)
            else:
                S.add(S.get(s[2]))
        elif kind == "tshallow":
            S.slot += [S.slot[s[1]], S.slot[s[2]]]
        elif kind == "alias":
            S.slot.append(S.slot[s[1]])
        elif kind == "npw":
            pass
        elif kind == "ckpt":
            _, args, block, outs = s

            def fn(*a, block=block, outs=outs):
                inner = JState(a)
                j_run(block, inner, env)
                return tuple(inner.get(o) for o in outs)
            for v in jax.checkpoint(fn)(*[S.get(a) for a in args]):
                S.add(v)
        else:  # pragma: no cover
            raise AssertionError(kind)
    return S


def j_loss(prog, env):
    def f(x, c):
        S = j_run(prog.body, JState([jnp.asarray(x), jnp.asarray(c)]), env)
        total = 0.0
        for s, how in prog.loss:
            v = S.get(s)
            total = (jnp.sum(v ** 2) if how == "sq" else jnp.sum(jnp.sin(v))) + total
        return total
    return f


# ----------------------------------------------------------------------------
# the comparison


def close(a, b, what, prog):
    a, b = to_np(a), np.asarray(b)
    assert a.shape == b.shape, (what, a.shape, b.shape)
    scale = max(1.0, float(np.max(np.abs(b)))) if b.size else 1.0
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9 * scale,
                               err_msg=f"{what}\n{prog!r}")


def check(prog, xp=None, hessian=True):
    """Run ``prog`` under xgrad's transforms (arrays on ``xp``: numpy when
    None) and under jax's, and compare; the caller's arrays must not change."""
    jax.config.update("jax_enable_x64", True)
    d = data(prog)
    conv = (lambda a: a) if xp is None else xp.asarray
    xd = {k: conv(v) for k, v in d.items()}
    index = (lambda idx: idx.obj) if xp is None else (lambda idx: _strict_index(xp, idx))
    env_x = dict(K=xd["K"], Z=xd["Z"], Zm=xd["Zm"], xp=np if xp is None else xp, conv=conv,
                 index=index)
    env_j = dict(K=d["K"], Z=d["Z"], Zm=d["Zm"])
    owned = list(xd.values())
    owned_np = list(d.values()) + list(prog.hosts)
    saved = [np.array(to_np(a), copy=True) for a in owned]
    saved_np = [a.copy() for a in owned_np]

    def untouched(what):
        for a, s in zip(owned, saved):
            assert np.array_equal(to_np(a), s), f"{what} wrote into a caller's array\n{prog!r}"
        for a, s in zip(owned_np, saved_np):
            assert np.array_equal(a, s), f"{what} wrote into a caller's array\n{prog!r}"

    f, fj = x_loss(prog, env_x), j_loss(prog, env_j)
    # grad passes a plain argument through as it is (as jax does), and a
    # transform may run f twice (the NaN-safe retry: see
    # test_nan_safe_retry_under_grad_runs_the_function_again): each run
    # writes into a fresh copy of c
    fc = lambda x: f(x, conv(d["C"].copy()))      # noqa: E731
    ref = jax_reference(fj, d, hessian)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        v, g = xgrad.value_and_grad(fc)(xd["X"])
        untouched("value_and_grad")
        close(v, ref["value"], "value", prog)
        close(g, ref["grad"], "grad", prog)

        p, t = xgrad.jvp(fc, (xd["X"],), (xd["T"],))
        untouched("jvp")
        close(p, ref["value"], "jvp primal", prog)
        close(t, ref["tangent"], "jvp tangent", prog)

        # c unmapped: vmap hands f a copy, so the caller's C stays as it is
        # (no derivative here, so f runs once)
        vb = xgrad.vmap(f, in_axes=(0, None))(xd["XB"], xd["C"])
        untouched("vmap (c unmapped)")
        close(vb, ref["vmap"], "vmap", prog)

        gb = xgrad.vmap(xgrad.grad(fc))(xd["XB"])
        untouched("vmap(grad)")
        close(gb, ref["vmap(grad)"], "vmap(grad)", prog)

        if hessian:
            h = xgrad.hessian(fc)(xd["X"])
            untouched("hessian")
            close(h, ref["hessian"], "hessian", prog)


def jax_reference(fj, d, hessian):
    """Every jax result at once, under one jit (one compilation per program:
    op-by-op dispatch costs five times more here)."""
    def every(X, T, XB, C):
        fjc = lambda x: fj(x, C)      # noqa: E731
        value, grad = jax.value_and_grad(fjc)(X)
        out = {"value": value, "grad": grad, "tangent": jax.jvp(fjc, (X,), (T,))[1],
               "vmap": jax.vmap(fj, in_axes=(0, None))(XB, C),
               "vmap(grad)": jax.vmap(jax.grad(fjc))(XB)}
        if hessian:
            out["hessian"] = jax.hessian(fjc)(X)
        return out
    return jax.jit(every)(d["X"], d["T"], d["XB"], d["C"])


def _strict_index(xp, idx):
    o = idx.obj
    if isinstance(o, np.ndarray):
        return xp.asarray(o)
    if isinstance(o, (int, slice)):
        return (o, Ellipsis)        # array_api_strict wants every axis indexed
    return o


SETTINGS = dict(deadline=None, derandomize=True, database=None,
                suppress_health_check=list(hypothesis.HealthCheck))


@hypothesis.settings(max_examples=70, **SETTINGS)
@hypothesis.given(programs())
def test_random_programs_match_jax(prog):
    check(prog, hessian=prog.seed % 2 == 0)


# ----------------------------------------------------------------------------
# array_api_strict: int, slice and mask indices only (no integer arrays)


@hypothesis.settings(max_examples=15, **SETTINGS)
@hypothesis.given(programs(int_arrays=False, n_max=5))
def test_random_programs_array_api_strict(prog):
    xp = pytest.importorskip("array_api_strict")
    check(prog, xp=xp, hessian=False)


# ----------------------------------------------------------------------------
# what the fuzzing found, one small test each: regressions for the bugs it
# found (fixed), and the documented NaN-safe retry under grad

X3 = np.array([0.3, -0.8, 1.1])


def test_op_on_traced_constant_under_grad():
    # was: VJPTrace recorded a unary op on one of its constants (zeros_like of
    # a traced value, node None); the backward pass then indexed cts[None]
    f = lambda x: xnp.sum(xnp.sin(xnp.zeros_like(x))) + xnp.sum(x ** 2)  # noqa: E731
    np.testing.assert_allclose(xgrad.grad(f)(X3), 2 * X3)
    np.testing.assert_allclose(xgrad.hessian(f)(X3), 2 * np.eye(3))
    np.testing.assert_allclose(xgrad.vmap(xgrad.grad(f))(np.stack([X3, -X3])), [2 * X3, -2 * X3])


def test_stop_gradient_of_plain_value_is_fresh():
    # was: stop_gradient of a value plain at the differentiating level
    # returned that object, so a write into it changed its argument under
    # grad (and a closed-over array of the caller) but not under vmap(grad)
    K = np.array([1.0, 2.0, 3.0])

    def f(x):
        a = xgrad.stop_gradient(x)    # plain under grad, batched under vmap(grad)
        b = xgrad.stop_gradient(a)
        b[0] = 7.0
        k = xgrad.stop_gradient(K)
        k[1] = 0.0
        return xnp.sum(a * x * k)     # d/dx = a * k, a = x
    want = X3 * np.array([1.0, 0.0, 3.0])
    np.testing.assert_allclose(xgrad.grad(f)(X3), want)
    np.testing.assert_allclose(xgrad.vmap(xgrad.grad(f))(np.stack([X3, X3])), [want] * 2)
    np.testing.assert_array_equal(K, [1.0, 2.0, 3.0])


def test_checkpoint_under_vjp_recomputes_with_the_arguments_it_was_called_with():
    # vjp_fn outlives the call, so checkpoint's recomputation must not see
    # writes into its plain arguments after the call (under grad it does, by
    # design: README, Sharp bits, "grad copies nothing"; the fuzzing writes
    # into no maybe-plain array after an operation has read it)
    def f(x):
        c = np.array([2.0])
        y = xgrad.checkpoint(lambda x, c: xnp.sin(x) * c)(x, c)
        c[0] = 100.0
        return xnp.sum(y)
    x = np.array([0.5])
    _, f_vjp = xgrad.vjp(f, x)
    np.testing.assert_allclose(f_vjp(np.float64(1.0))[0], 2.0 * np.cos(x))


def test_nan_safe_retry_under_grad_runs_the_function_again():
    # documented (README, Sharp bits): grad frees its tape as it goes, so the
    # NaN-safe retry runs the function a second time; value and aux are the
    # first run's
    count = np.zeros(1)

    def f(x):
        count[0] += 1.0          # any side effect: a counter, a log, a random draw
        return xnp.sum(xnp.where(x > 0, xnp.sqrt(x), 0.0)) + count[0]
    v, g = xgrad.value_and_grad(f)(np.array([-1.0, 4.0]))
    np.testing.assert_allclose(g, [0.0, 0.25])      # the NaN-safe derivative
    assert float(v) == 3.0 and count[0] == 2.0
    # a function whose gradient is finite runs once
    count[0] = 0.0
    xgrad.grad(f)(np.array([1.0, 4.0]))
    assert count[0] == 1.0
