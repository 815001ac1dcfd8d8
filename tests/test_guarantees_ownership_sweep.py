"""Guarantee: no transform shares a buffer with its caller, the ownership
sweep: every public transform (and the common compositions) x every way a
buffer can be written, generated from two tables.

``ROWS``: one row per transform. ``prep(f, x, c)`` applies it to a family's
function ``f(x, c)`` (``x`` differentiated, ``c`` a numpy array it does not
differentiate unless the row says so) and returns what the first step gives
back (``vjp``'s primal output, a jitted function's first call; or None) and
``run()``, the step the caller repeats (``vjp_fn(g)``, ``f_jvp(t)``, the
jitted function again, ``grad(f)(x, c)`` again). ``kept`` says when the row
reads the arrays it closes over and its arguments: ``"prep"`` (they are kept:
``vjp_fn``, ``f_jvp``, a jit replay's constants, as JAX fixes constants at
tracing), ``"run"`` (read again at every call).

``FAMILIES``: one row per user function, grouped by write kind:

- ``arg``: user code writes its arguments (the differentiated one, the numpy
  one it does not differentiate, a ``lax.scan``/``lax.map`` body its step
  slice, a ``fori_loop``/``while_loop`` body its carry): the caller's arrays
  stay bitwise unchanged and the result is the one of the same function
  without the in-place writes (its twin);
- ``out``: the caller writes every output in turn (equal outputs, outputs
  that are the input, views of it, the numpy argument passed through, a
  constant): no other output, no argument and no later call changes;
- ``later``: the caller writes a closed-over array (a weight, index arrays
  of ``x[idx]``, ``.at[idx]`` and setitem, a mask) or an argument between
  ``prep`` and ``run``: ``run`` gives bit for bit what a fresh run with the
  values at the time ``kept`` names gives.

A cell that cannot apply says why in ``NOT_APPLICABLE``; a cell that fails
today is a strict xfail in ``KNOWN`` (its reason is the symptom), so a fix
shows up as an XPASS and its line is deleted.
"""
import functools

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad import lax
from xgrad.tree import leaves

# the NaN-safe family's fast attempt divides by sqrt(0), as intended
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

X = np.array([0.5, -1.0, 2.0])
C = np.array([[1.0, 2.0, 3.0], [0.5, -0.25, 4.0]])
TX = np.array([0.3, -0.7, 1.1])            # a tangent for x
TC = np.array([[0.2, 0.1, -0.3], [1.0, 0.5, 0.25]])
MASK = np.array([0.0, 1.0, 1.0])

# ----- cells that fail today (strict: the fix turns them into an XPASS) -----

_NUMPY_ARG = ("user code gets the caller's own array argument (numpy, array_api_strict, "
              "dask; the one not differentiated): its write changes the caller's array")
_SLICE = ("a lax.scan/lax.map body gets a view of the caller's numpy array (closed over) as "
          "its step slice: its write changes the caller's array")
_CARRY = ("a lax.fori_loop/while_loop body gets the init_val buffer itself (a view of the "
          "caller's array, or of a custom_vjp residual): its in-place write reaches it")
_EAGER = ("called outside any other transform, this hands f the caller's own arrays (and "
          "lax.scan/map the step slices as views): f's writes change them")
_AUX_ALIAS = ("has_aux: the aux output is the caller's argument itself (or a view of it), "
              "not a copy")
_PASS_ALIAS = ("an output that is an input passed through (identity, a view, the numpy "
               "argument) is the caller's buffer (argument, tangent or cotangent) itself, "
               "or two outputs (or two calls) share one buffer")
_JIT_EQ = "jit replays return one buffer for equal outputs"
_PROG_CONST = "a make_program Program returns its constant outputs by reference: every call the same buffer"
_JAC_VIEWS = ("jacfwd returns the Jacobians of outputs linear in x (x, x[1:], x + c) as "
              "views of one buffer")
_RERUN = ("the NaN-safe re-run gets the same copy of the numpy argument that the first "
          "run wrote in place: the derivative is computed at the written values (2x here)")
_CV_CONST = ("custom_vjp under grad/vjp refuses a function that returns an xgrad.numpy "
             "creation constant (xnp.ones): 'closes over a traced value' (jax accepts)")
_LIN_CKPT = "linearize(checkpoint(f)): the primal output is a staging tracer (TypeError on use)"
_CKPT_LIVE = "vjp/linearize of checkpoint(f) recompute with the live closed-over array"
_PROG_LIVE = "a make_program Program reads closed-over arrays live, not as staged"
_VMAP_JIT = "vmap(jit(f)) reads closed-over arrays live at every call (jit alone fixes them)"

# one failing cell a line: row, family, symptom (the strings above); a cell that
# passes after a fix is an XPASS: delete its line
KNOWN_CELLS = """
jvp-has_aux passthrough_c AUX_ALIAS
linearize-checkpoint matmul-W CKPT_LIVE
linearize-checkpoint getitem-idx CKPT_LIVE
linearize-checkpoint at_add-idx CKPT_LIVE
linearize-checkpoint at_set-idx CKPT_LIVE
linearize-checkpoint at_max-idx CKPT_LIVE
linearize-checkpoint at_get_fill-fidx CKPT_LIVE
linearize-checkpoint setitem-idx CKPT_LIVE
linearize-checkpoint where-mask CKPT_LIVE
vmap-jit matmul-W VMAP_JIT
vmap-jit getitem-idx VMAP_JIT
vmap-jit at_add-idx VMAP_JIT
vmap-jit at_set-idx VMAP_JIT
vmap-jit at_max-idx VMAP_JIT
vmap-jit at_get_fill-fidx VMAP_JIT
vmap-jit setitem-idx VMAP_JIT
vmap-jit where-mask VMAP_JIT
grad-custom_vjp writes_args_nan_rerun RERUN
vjp-custom_vjp writes_args_nan_rerun RERUN
linearize-checkpoint writes_args_nan_rerun LIN_CKPT
"""

KNOWN = {(r, f): globals()["_" + k] for r, f, k in map(str.split, KNOWN_CELLS.strip().splitlines())}


def _xfail(row, fam):
    reason = KNOWN.get((row, fam))
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


def _known_cell(test):
    """A KNOWN cell's failure is reported by its message only (``pytrace=False``):
    pytest formats a traceback of this module in about 0.1 s, which the
    grid's xfails would otherwise spend; other cells show their tracebacks."""
    @functools.wraps(test)
    def run(row, fam, dt=None):
        if (row, fam) not in KNOWN:
            return test(row, fam, dt)
        try:
            test(row, fam, dt)
        except Exception as e:              # noqa: BLE001 (reported, not swallowed)
            failed = f"{type(e).__name__}: {e}"
        else:
            return
        pytest.fail(failed, pytrace=False)
    return run


# ----- helpers -----

def _copy_tree(t):
    return xgrad.tree.map(lambda a: np.array(a, copy=True) if isinstance(a, np.ndarray) else a, t)


def _np(a):
    return a if isinstance(a, np.ndarray) else np.asarray(a)


def _same(a, b):
    a, b = _np(a), _np(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def assert_same_tree(got, want, what):
    gl, wl = leaves(got), leaves(want)
    assert len(gl) == len(wl), f"{what}: {len(gl)} leaves, want {len(wl)}"
    for i, (a, b) in enumerate(zip(gl, wl)):
        assert _same(a, b), f"{what}, leaf {i}: got {_np(a)!r}, want {_np(b)!r}"


def _scalar(f):
    """The family's outputs summed: a scalar function for grad-like rows."""
    def s(x, c):
        return sum(xnp.sum(o) for o in leaves(f(x, c)))
    return s


def _ct(out):
    """A cotangent for ``out`` (the caller's own arrays)."""
    return xgrad.tree.map(lambda o: (np.full(np.shape(o), 0.5) + np.arange(np.size(o)).reshape(
        np.shape(o)) * 0.25).astype(np.asarray(o).dtype), out)


def _stack(x):
    return np.stack([x, 2.0 * x])


# ----- the transform table -----

class Row:
    """``prep(f, x, c) -> (first, run, callers)``: ``first`` the first
    step's output (or None), ``run()`` the repeated step, ``callers`` more
    arrays the caller owns (cotangents, tangents) that must stay unchanged.
    ``kept``: when closed-over arrays are read (``"prep"``/``"run"``);
    ``args_kept``: when the arguments are. ``c_closed``: the row closes over
    ``c`` (jvp and linearize differentiate every primal), so a write into
    ``c`` by the function itself is the caller's own write."""

    def __init__(self, prep, kept="run", args_kept=None, c_closed=False):
        self.prep, self.kept = prep, kept
        self.args_kept = args_kept or kept
        self.c_closed = c_closed


def _plain(make):
    """A row whose one step is ``make(f)(x, c)``, read at every call."""
    def prep(f, x, c):
        tf = make(f)
        return None, lambda: tf(x, c), ()
    return Row(prep)


def _staged(make, batched=False):
    """A row whose function is staged at its first call (jit and its
    compositions): constants are fixed then, arguments read at each call
    (``batched``: x stacked twice, mapped over)."""
    def prep(f, x, c):
        tf = make(f)
        first = tf(_stack(x) if batched else x, c)
        return first, lambda: tf(_stack(x) if batched else x, c), ()
    return Row(prep, kept="prep", args_kept="run")


def _vjp_prep(f, x, c):
    out, fn = xgrad.vjp(f, x, c)
    g = _ct(out)
    return out, lambda: fn(g), leaves(g)


def _vjp_aux_prep(f, x, c):
    out, fn, aux = xgrad.vjp(lambda x, c: (_scalar(f)(x, c), f(x, c)), x, c, has_aux=True)
    return (out, aux), lambda: fn(np.asarray(1.5, dtype=x.dtype)), ()


def _vjp_ckpt_prep(f, x, c):
    return _vjp_prep(xgrad.checkpoint(f), x, c)


def _linearize_prep(f, x, c):
    out, fl = xgrad.linearize(lambda x: f(x, c), x)
    t = TX.astype(x.dtype)
    return out, lambda: fl(t), (t,)


def _linearize_ckpt_prep(f, x, c):
    return _linearize_prep(xgrad.checkpoint(f), x, c)


def _jvp_prep(f, x, c):
    t = TX.astype(x.dtype)
    return None, lambda: xgrad.jvp(lambda x: f(x, c), (x,), (t,)), (t,)


def _jvp_both_prep(f, x, c):
    tx, tc = TX.astype(x.dtype), TC.astype(c.dtype)
    return None, lambda: xgrad.jvp(f, (x, c), (tx, tc)), (tx, tc)


def _jvp_aux_prep(f, x, c):
    t = TX.astype(x.dtype)
    return None, lambda: xgrad.jvp(lambda x: (_scalar(f)(x, c), f(x, c)), (x,), (t,),
                                   has_aux=True), (t,)


def _hvp_prep(f, x, c):
    t = TX.astype(x.dtype)
    return None, lambda: xgrad.hvp(_scalar(f), (x, c), (t,)), (t,)


def _vmap_prep(f, x, c):
    return None, lambda: xgrad.vmap(f, in_axes=(0, None))(_stack(x), c), ()


def _vmap_c_prep(f, x, c):
    return None, lambda: xgrad.vmap(f, in_axes=(None, 0))(x, _stack(c)), ()


def _vmap_grad_prep(f, x, c):
    return None, lambda: xgrad.vmap(xgrad.grad(_scalar(f)), in_axes=(0, None))(_stack(x), c), ()


def _make_program_prep(f, x, c):
    prog = xgrad.make_program(f)(x, c)
    return None, lambda: prog(x, c), ()


def _custom_vjp(f):
    cv = xgrad.custom_vjp(lambda x, c: f(x, c))
    cv.defvjp(lambda x, c: (f(x, c), (x, c)), lambda res, g: xgrad.vjp(f, *res)[1](g))
    return cv


def _custom_jvp(f):
    cj = xgrad.custom_jvp(lambda x, c: f(x, c))
    cj.defjvp(lambda p, t: xgrad.jvp(f, p, t))
    return cj


def _cv_vjp_prep(f, x, c):
    return _vjp_prep(_custom_vjp(f), x, c)


def _cj_jvp_prep(f, x, c):
    return _jvp_prep(_custom_jvp(f), x, c)


def _cj_linearize_prep(f, x, c):
    return _linearize_prep(_custom_jvp(f), x, c)


def _scan(f):
    """f as a scan body: its arguments are the step slices of (x[None], c[None])."""
    return lambda x, c: lax.scan(lambda k, xc: (k + 1.0, f(*xc)), 0.0, (x[None], c[None]))[1]


def _lax_map(f):
    return lambda x, c: lax.map(lambda xc: f(*xc), (x[None], c[None]))


def _zeros_out(f, x, c):
    """Zeros shaped like f's outputs (f run on new arrays), a loop's init."""
    return xgrad.tree.map(lambda o: o * 0.0, f(x * 1.0, c * 1.0))


def _fori(f):
    """f as a fori_loop body: its arguments are the carry, x and c themselves."""
    def g(x, c):
        return lax.fori_loop(0, 1, lambda i, s: (s[0], s[1], f(s[0], s[1])),
                             (x, c, _zeros_out(f, x, c)))[2]
    return g


def _while(f):
    def g(x, c):
        return lax.while_loop(lambda s: s[0] < 1, lambda s: (s[0] + 1, s[1], s[2], f(s[1], s[2])),
                              (0, x, c, _zeros_out(f, x, c)))[3]
    return g


ROWS = {
    "grad": _plain(lambda f: xgrad.grad(_scalar(f))),
    "grad-argnums01": _plain(lambda f: xgrad.grad(_scalar(f), argnums=(0, 1))),
    "grad-has_aux": _plain(lambda f: xgrad.grad(lambda x, c: (_scalar(f)(x, c), f(x, c)),
                                                has_aux=True)),
    "value_and_grad": _plain(lambda f: xgrad.value_and_grad(_scalar(f))),
    "value_and_grad-has_aux": _plain(lambda f: xgrad.value_and_grad(
        lambda x, c: (_scalar(f)(x, c), f(x, c)), has_aux=True)),
    "vjp": Row(_vjp_prep, kept="prep"),
    "vjp-has_aux": Row(_vjp_aux_prep, kept="prep"),
    "jvp": Row(_jvp_prep, c_closed=True),
    "jvp-both": Row(_jvp_both_prep),
    "jvp-has_aux": Row(_jvp_aux_prep, c_closed=True),
    "linearize": Row(_linearize_prep, kept="prep", c_closed=True),
    "jacfwd": _plain(xgrad.jacfwd),
    "jacrev": _plain(xgrad.jacrev),
    "hessian": _plain(lambda f: xgrad.hessian(_scalar(f))),
    "hvp": Row(_hvp_prep, c_closed=True),
    "laplacian": _plain(lambda f: xgrad.laplacian(_scalar(f))),
    "diag_hessian": _plain(lambda f: xgrad.diag_hessian(_scalar(f))),
    "vmap": Row(_vmap_prep),
    "vmap-c": Row(_vmap_c_prep),
    "jit": _staged(xgrad.jit),
    "make_program": Row(_make_program_prep, kept="prep", args_kept="run"),
    "checkpoint": _plain(xgrad.checkpoint),
    "grad-checkpoint": _plain(lambda f: xgrad.grad(_scalar(xgrad.checkpoint(f)))),
    "vjp-checkpoint": Row(_vjp_ckpt_prep, kept="prep"),
    "linearize-checkpoint": Row(_linearize_ckpt_prep, kept="prep", c_closed=True),
    "custom_vjp": _plain(_custom_vjp),
    "grad-custom_vjp": _plain(lambda f: xgrad.grad(_scalar(_custom_vjp(f)))),
    "vjp-custom_vjp": Row(_cv_vjp_prep, kept="prep"),
    "custom_jvp": _plain(_custom_jvp),
    "jvp-custom_jvp": Row(_cj_jvp_prep, c_closed=True),
    "grad-custom_jvp": _plain(lambda f: xgrad.grad(_scalar(_custom_jvp(f)))),
    "linearize-custom_jvp": Row(_cj_linearize_prep, kept="prep", c_closed=True),
    "lax.scan": _plain(_scan),
    "lax.map": _plain(_lax_map),
    "lax.fori_loop": _plain(_fori),
    "lax.while_loop": _plain(_while),
    "grad-lax.scan": _plain(lambda f: xgrad.grad(_scalar(_scan(f)))),
    "jit-grad": _staged(lambda f: xgrad.jit(xgrad.grad(_scalar(f)))),
    "grad-jit": _staged(lambda f: xgrad.grad(_scalar(xgrad.jit(f)))),
    "jit-vmap": _staged(lambda f: xgrad.jit(xgrad.vmap(f, in_axes=(0, None))), batched=True),
    "vmap-jit": _staged(lambda f: xgrad.vmap(xgrad.jit(f), in_axes=(0, None)), batched=True),
    "jit-lax.scan": _staged(lambda f: xgrad.jit(_scan(f))),
    "vmap-grad": Row(_vmap_grad_prep),
    "jacfwd-jacrev": _plain(lambda f: xgrad.jacfwd(xgrad.jacrev(_scalar(f)))),
}


# ----- the user-function table -----

def _write_or(pure, arr, idx, value):
    """``arr[idx] = value`` in place, or its functional twin (a new array)."""
    if not pure:
        arr[idx] = value
        return arr
    onehot = np.zeros(np.shape(arr)[-1], dtype=_np_dtype(arr))
    onehot[idx if not isinstance(idx, tuple) else idx[-1]] = 1.0
    if isinstance(idx, tuple):                  # a row of a matrix: (row, col)
        rows = [arr[i] for i in range(np.shape(arr)[0])]
        r = idx[0]
        rows[r] = rows[r] * (1.0 - onehot) + value * onehot
        return xnp.stack(rows)
    return arr * (1.0 - onehot) + value * onehot


def _np_dtype(a):
    return np.dtype(str(a.dtype).split(".")[-1])


def _writes_args(pure):
    def f(x, c):
        c = _write_or(pure, c, (0, 0), 7.0)          # the numpy, non-differentiated argument
        x = _write_or(pure, x, 1, 3.0 * x[2])        # the differentiated one
        return xnp.sin(x) * c[0] + c[1]
    return f


def _writes_args_nan_rerun(pure):
    """An in-place scaling of the numpy argument in a function whose fast
    derivative is not finite (sqrt at 0 under a where): grad, jvp, jacfwd and
    hessian run the function again NaN-safe, and the second run must see the
    caller's values, not the first run's write."""
    def f(x, c):
        if pure:
            c = c * 2.0
        else:
            c *= 2.0
        return xnp.where(x > 0.0, xnp.sqrt(xnp.abs(x) * (x > 0.0)), 0.0) * c[0] + c[1]
    return f


def _scan_writes_slice(pure):
    def f(x, c):
        def body(k, row):
            row = _write_or(pure, row, 0, 0.0)
            return k * xnp.cos(row) + xnp.sin(x) * row, row * 2.0
        k, ys = lax.scan(body, x, c)
        return k + xnp.sum(ys, axis=0)
    return f


def _map_writes_slice(pure):
    def f(x, c):
        def body(row):
            row = _write_or(pure, row, 2, -1.0)
            return xnp.sin(x) * row
        return xnp.sum(lax.map(body, c), axis=0)
    return f


def _fori_writes_carry(pure):
    def f(x, c):
        def body(i, v):
            return _write_or(pure, v, 0, v[0] + 1.0)
        return xnp.sin(x) * lax.fori_loop(0, 2, body, c[1])
    return f


def _while_writes_carry(pure):
    def f(x, c):
        def body(s):
            return s[0] + 1, _write_or(pure, s[1], 1, s[1][1] * 2.0)
        return xnp.cos(x) * lax.while_loop(lambda s: s[0] < 2, body, (0, c[0]))[1]
    return f


def _add(x, c):
    """Linear in both arguments: a derivative can be the cotangent/tangent itself."""
    return {"sum": x + c[0], "diff": x - 0.0}


def _equal_outputs(x, c):
    return {"a": xnp.sin(x) * c[0], "m": x * 0.0, "v": x * 0.0}


def _identity(x, c):
    return x


def _views(x, c):
    return (x, x[1:], xnp.reshape(x, (3, 1)), x[::-1], xnp.sin(x))


def _passthrough_c(x, c):
    return (xnp.sin(x), c, c[0])


def _constants(x, c):
    return {"s": xnp.sin(x) * c[1], "ones": xnp.ones(3, dtype=x.dtype), "zeros": xnp.zeros(3, dtype=x.dtype)}


ARG_FAMILIES = {
    "writes_args": _writes_args,
    "writes_args_nan_rerun": _writes_args_nan_rerun,
    "scan_writes_slice": _scan_writes_slice,
    "map_writes_slice": _map_writes_slice,
    "fori_writes_carry": _fori_writes_carry,
    "while_writes_carry": _while_writes_carry,
}

OUT_FAMILIES = {
    "equal_outputs": _equal_outputs,
    "add": _add,
    "identity": _identity,
    "views": _views,
    "passthrough_c": _passthrough_c,
    "constants": _constants,
}


def _at(x):
    return x.at if hasattr(x, "at") else xnp.at(x)


def _env(dt):
    return {"W": np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0], [2.0, 0.0, 1.5]], dtype=dt),
            "idx": np.array([0, 2, 0]), "fidx": np.array([0, 5, 2]),
            "mask": np.array([True, False, True])}


# a closure family: (make(env) -> f, the env array the caller writes later, its new value)
LATER_FAMILIES = {
    "matmul-W": (lambda e: lambda x, c: xnp.matmul(e["W"], xnp.sin(x)) * c[0], "W",
                 lambda a: a[::-1] * 2.0),
    "getitem-idx": (lambda e: lambda x, c: x[e["idx"]] * 2.0 * c[0], "idx", lambda a: a * 0 + 1),
    "at_add-idx": (lambda e: lambda x, c: _at(x * c[0])[e["idx"]].add(x * x), "idx",
                   lambda a: a * 0 + 1),
    "at_set-idx": (lambda e: lambda x, c: _at(x * c[0])[e["idx"]].set(xnp.sin(x)), "idx",
                   lambda a: a * 0 + 1),
    "at_max-idx": (lambda e: lambda x, c: _at(x * c[0])[e["idx"]].max(x * x), "idx",
                   lambda a: a * 0 + 1),
    "at_get_fill-fidx": (lambda e: lambda x, c: _at(x * c[1])[e["fidx"]].get(
        mode="fill", fill_value=-1.0), "fidx", lambda a: a * 0 + 1),
    "setitem-idx": (lambda e: _setitem(e), "idx", lambda a: a * 0 + 1),
    "where-mask": (lambda e: lambda x, c: xnp.where(e["mask"], xnp.sin(x), x * c[0]), "mask",
                   lambda a: ~a),
    "matmul-args": (lambda e: lambda x, c: xnp.matmul(e["W"], xnp.sin(x)) * c[0], "args", None),
}


def _setitem(e):
    def f(x, c):
        y = x * c[0]
        y[e["idx"]] = xnp.sin(x) * 3.0
        return y
    return f


# cells that cannot apply, and why
NOT_APPLICABLE = {
    ("lax.map", "identity"): "x is mapped: lax.map's output is a stack, never an input",
}
for _r, _row in ROWS.items():
    if _row.c_closed:
        NOT_APPLICABLE[(_r, "writes_args_nan_rerun")] = (
            "c is closed over: the function scales the caller's own array, a side effect "
            "that the NaN-safe re-run repeats (as the README says of side effects)")
for _r in ["vjp-custom_vjp"]:
    for _f in LATER_FAMILIES:
        if _f != "matmul-args":
            NOT_APPLICABLE[(_r, _f)] = ("bwd is user code that vjp_fn runs: it reads what it "
                                        "closes over at that call, as in jax")


# rows also swept in float32 (the grid's dtype check then holds float32 too)
FLOAT32_ROWS = ["grad", "value_and_grad", "vjp", "jvp", "linearize", "hessian", "vmap", "jit",
                "jit-grad", "vjp-checkpoint", "lax.scan", "lax.fori_loop"]


def _cells(families):
    out = []
    for r in ROWS:
        for fam in families:
            if (r, fam) in NOT_APPLICABLE:
                continue
            for dt in ["float64", "float32"] if r in FLOAT32_ROWS else ["float64"]:
                out.append(pytest.param(r, fam, np.dtype(dt), marks=_xfail(r, fam),
                                        id=f"{r}-{fam}" + ("-f32" if dt == "float32" else "")))
    return out


def test_not_applicable_cells_name_real_rows():
    fams = set(ARG_FAMILIES) | set(OUT_FAMILIES) | set(LATER_FAMILIES)
    for (r, fam), why in list(NOT_APPLICABLE.items()) + list(KNOWN.items()):
        if "@" in fam:
            kind, backend = fam.split("@")
            table = {"writes_c": BACKEND_WRITES, "scales_c": BACKEND_WRITES,
                     "identity": BACKEND_IDENTITY}[kind]
            assert r in table and backend in BACKENDS and why
        else:
            assert r in ROWS and fam in fams and why


# ----- the grid -----

@pytest.mark.parametrize("row, fam, dt", _cells(ARG_FAMILIES))
@_known_cell
def test_user_code_writes_its_arguments(row, fam, dt):
    T = ROWS[row]
    want_first, want_run, _ = T.prep(ARG_FAMILIES[fam](True), X.astype(dt), C.astype(dt))
    want = (want_first, want_run())
    x, c = X.astype(dt), C.astype(dt)
    try:
        first, run, callers = T.prep(ARG_FAMILIES[fam](False), x, c)
        caller0 = [a.copy() for a in callers]
        got = (first, run())
    except ValueError as e:           # a read-only argument refuses the write, as jax's does
        assert "read-only" in str(e), e
        assert _same(x, X.astype(dt)) and _same(c, C.astype(dt))
        return
    assert _same(x, X.astype(dt)), f"{row}: the caller's differentiated argument was written: {x}"
    if not (T.c_closed and fam == "writes_args"):
        assert _same(c, C.astype(dt)), f"{row}: the caller's numpy argument was written: {c}"
    for a, a0 in zip(callers, caller0):
        assert _same(a, a0), f"{row}: the caller's tangent/cotangent was written"
    assert_dtype(got, dt, f"{row}/{fam}")
    # the in-place writes give the numbers of their functional twin
    for a, b in zip(leaves(got), leaves(want)):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-13, atol=1e-14, err_msg=row)
        assert _np(a).dtype == _np(b).dtype
    assert_same_tree(run(), got[1], f"{row}: a second run")


def assert_dtype(tree, dt, what):
    """Every floating output has the inputs' dtype (jax's rule; float32 stays float32)."""
    for i, a in enumerate(leaves(tree)):
        a = _np(a)
        if np.issubdtype(a.dtype, np.floating):
            assert a.dtype == dt, f"{what}: output {i} is {a.dtype}, inputs are {dt}"


def _writable(a):
    return isinstance(a, np.ndarray) and a.flags.writeable and a.size


@pytest.mark.parametrize("row, fam, dt", _cells(OUT_FAMILIES))
@_known_cell
def test_caller_writes_outputs(row, fam, dt):
    T = ROWS[row]
    x, c = X.astype(dt), C.astype(dt)
    first, run, callers = T.prep(OUT_FAMILIES[fam], x, c)
    r1 = run()
    r2 = run()
    assert_dtype((first, r1), dt, f"{row}/{fam}")
    want = _copy_tree(r1)
    outs = leaves(first) + leaves(r1) + leaves(r2)
    snap = [np.array(o, copy=True) for o in outs]
    owned = [x, c, *callers]
    owned0 = [a.copy() for a in owned]
    for i, o in enumerate(outs):
        if not _writable(o):
            continue
        o[...] = 12345.0
        for j, (p, s) in enumerate(zip(outs, snap)):
            if j != i:
                assert _same(p, s), (f"{row}/{fam}: writing output {i} changed output {j}: "
                                     f"{_np(p)!r}")
        for a, a0 in zip(owned, owned0):
            assert _same(a, a0), f"{row}/{fam}: writing output {i} wrote the caller's {a0!r}"
        assert_same_tree(run(), want, f"{row}/{fam}: a later run after writing output {i}")
        o[...] = snap[i]


@pytest.mark.parametrize("row, fam, dt", _cells(LATER_FAMILIES))
@_known_cell
def test_caller_writes_closed_over_arrays_later(row, fam, dt):
    T = ROWS[row]
    make, name, new = LATER_FAMILIES[fam]
    env, x, c = _env(dt), X.astype(dt), C.astype(dt)
    first, run, _ = T.prep(make(env), x, c)
    first0 = _copy_tree(first)
    env0, x0, c0 = _copy_tree(env), x.copy(), c.copy()
    if name == "args":
        x[...] = x[::-1] * 1.5
        c[...] = c * -2.0
        kept = T.args_kept
    else:
        env[name][...] = new(env[name])
        kept = T.kept
    got = run()
    # a fresh run with the values at the time the row reads them
    if kept == "prep":
        ref_env, ref_x, ref_c = env0, x0, c0
    else:
        ref_env, ref_x, ref_c = _copy_tree(env), x.copy(), c.copy()
    if name == "args":
        ref_env = env0
    elif T.args_kept == "prep":
        ref_x, ref_c = x0, c0
    else:
        ref_x, ref_c = x.copy(), c.copy()
    want_first, want_run, _ = T.prep(make(_copy_tree(ref_env)), ref_x, ref_c)
    assert_same_tree(got, want_run(), f"{row}/{fam}: run after the caller wrote {name}")
    assert_same_tree(first, first0, f"{row}/{fam}: the first output after the caller wrote {name}")


# ----- the same guarantees on array_api_strict and dask arrays -----

BACKENDS = ["array_api_strict", "dask"]


def _on(backend, a):
    if backend == "dask":
        da = pytest.importorskip("dask.array")
        return da.from_array(np.array(a, copy=True), chunks=2)
    s = pytest.importorskip("array_api_strict")
    return s.asarray(np.array(a, copy=True))


def _to_np(a):
    a = a.compute() if hasattr(a, "compute") else a
    return np.asarray(a)


def _writes_c(x, c):
    c[0] = 7.0
    return xnp.sum(xnp.sin(x) * c)


def _scales_c(x, c):
    """Scales c in place where the fast derivative is not finite (sqrt at 0
    under a where, at x = -1): the NaN-safe re-run (and every run per basis
    vector) must start from the caller's c, not from the copy the first run
    scaled."""
    c *= 2.0
    on = xnp.where(x > 0.0, 1.0, 0.0)
    return xnp.sum(xnp.where(x > 0.0, xnp.sqrt(xnp.abs(x) * on), 0.0) * c)


WRITERS = {"writes_c": _writes_c, "scales_c": _scales_c}


# row -> its call of a function of (x, c) that writes c (not differentiated)
BACKEND_WRITES = {
    "grad": lambda f, x, c: xgrad.grad(f)(x, c),
    "value_and_grad": lambda f, x, c: xgrad.value_and_grad(f)(x, c),
    "jacrev": lambda f, x, c: xgrad.jacrev(f)(x, c),
    "hessian": lambda f, x, c: xgrad.hessian(f)(x, c),
    "vmap": lambda f, x, c: xgrad.vmap(f, in_axes=(0, None))(xnp.stack([x, x]), c),
    "jit": lambda f, x, c: xgrad.jit(f)(x, c),
    "grad-checkpoint": lambda f, x, c: xgrad.grad(xgrad.checkpoint(f))(x, c),
    "jacfwd": lambda f, x, c: xgrad.jacfwd(f)(x, c),
    "laplacian": lambda f, x, c: xgrad.laplacian(f)(x, c),
    "vmap-grad": lambda f, x, c: xgrad.vmap(xgrad.grad(f), in_axes=(0, None))(
        xnp.stack([x, x]), c),
}

# row -> (its outputs, for inputs a and b) when the function is the identity
BACKEND_IDENTITY = {
    "jvp": lambda a, b: xgrad.jvp(lambda v: v, (a,), (b,)),
    "vjp_fn": lambda a, b: xgrad.vjp(lambda v: v, a)[1](b),
    "jit": lambda a, b: (xgrad.jit(lambda v: v)(a),),
    "vmap": lambda a, b: (xgrad.vmap(lambda v: v)(a),),
    "grad-has_aux": lambda a, b: xgrad.grad(lambda v: (xnp.sum(v), v), has_aux=True)(a)[1:],
}


def _backend_cells(table, kind, backends=BACKENDS):
    return [pytest.param(r, f"{kind}@{b}", id=f"{r}-{kind}@{b}", marks=_xfail(r, f"{kind}@{b}"))
            for r in table for b in backends]


@pytest.mark.parametrize("row, fam", _backend_cells(BACKEND_WRITES, "writes_c")
                         # dask is lazy: its derivatives are not checked for a NaN,
                         # so nothing runs again
                         + _backend_cells(BACKEND_WRITES, "scales_c", ["array_api_strict"]))
@_known_cell
def test_user_code_writes_an_argument_other_backends(row, fam, dt=None):
    kind, backend = fam.split("@")
    x0, c0 = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    # the reference: numpy arguments, c given to the function as a copy
    # (numpy's read-only view would refuse the write)
    user = WRITERS[kind]
    want = BACKEND_WRITES[row](lambda x, c: user(x, c.copy()), x0.copy(), c0.copy())
    if kind == "scales_c":      # a run that scaled c twice would double this
        assert np.abs(np.asarray(leaves(want)[0])).max() > 0.1
    x, c = _on(backend, x0), _on(backend, c0)
    got = BACKEND_WRITES[row](user, x, c)
    assert _same(_to_np(c), c0), f"{row}: the caller's {backend} argument was written: {_to_np(c)}"
    for a, b in zip(leaves(got), leaves(want)):
        np.testing.assert_allclose(_to_np(a), b, rtol=1e-14, err_msg=row)


@pytest.mark.parametrize("row, fam", _backend_cells(BACKEND_IDENTITY, "identity"))
@_known_cell
def test_identity_outputs_are_not_the_inputs_other_backends(row, fam, dt=None):
    backend = fam.split("@")[1]
    a0, b0 = np.array([[0.5, -1.0, 2.0], [1.0, 2.0, 3.0]]), np.array([[3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
    a, b = _on(backend, a0), _on(backend, b0)
    outs = leaves(BACKEND_IDENTITY[row](a, b))
    assert outs and not any(o is a or o is b for o in outs), f"{row} returned the caller's array"
