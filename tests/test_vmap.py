"""vmap: every primitive's batching rule against a Python loop over the batch
and against ``jax.vmap``, with mixed ``in_axes``/``out_axes``; nesting; pytree
axes; errors; compositions with grad/jvp/vjp/jacfwd/jacrev/hessian; indexing
and functional updates inside vmap; random programs (hypothesis).

The primitive table ``CASES`` is checked against ``xgrad.core.RULES``: a new
primitive without a case here fails ``test_every_primitive_has_a_batching_case``.
Case functions take the namespace first (``xgrad.numpy`` or ``jax.numpy``) and
use only namespace functions, never operators between two values, because
array_api_strict arrays raise instead of deferring to a traced value.
"""

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad.core import RULES, bind
from helpers import mm_flags, assert_close, from_np, to_np

try:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
except ImportError:  # pragma: no cover
    jax = jnp = None

needs_jax = pytest.mark.skipif(jax is None, reason="jax is not installed")

B = 3          # batch size used throughout (distinct from every example dimension)


# --------------------------------------------------------------------------
# the case table

class Arg:
    """One argument of a case: example shape, kind of values, and whether
    vmap may map it (index arrays and fixed operands are always unmapped).
    ``value`` fixes the example value (then the argument is never mapped)."""

    def __init__(self, shape, kind="f", domain=None, batch=True, value=None):
        if value is not None:
            shape = np.shape(value)
        self.shape, self.kind, self.domain = tuple(shape), kind, domain
        self.batch = batch and value is None
        self.value = value

    def make(self, rng, shape):
        if self.value is not None:
            return np.asarray(self.value)
        if self.kind == "f":
            lo, hi = self.domain or (-3.0, 3.0)
            return rng.uniform(lo, hi, size=shape)
        if self.kind == "c":
            return rng.normal(size=shape) + 1j * rng.normal(size=shape)
        if self.kind == "i":
            return rng.integers(0, 4, size=shape)
        if self.kind == "b":
            return rng.random(size=shape) < 0.5
        if self.kind == "t":   # floats with ties and repeats (max/min/argmax)
            return rng.integers(-2, 3, size=shape).astype(np.float64)
        if self.kind == "spd":   # symmetric positive definite matrices
            a = rng.normal(size=shape)
            return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
        if self.kind == "m":     # well-conditioned square matrices
            return rng.normal(size=shape) + 3.0 * np.eye(shape[-1])
        if self.kind == "sorted":
            return np.sort(rng.uniform(-3.0, 3.0, size=shape), axis=-1)
        if self.kind == "perm":
            return np.argsort(rng.random(size=shape), axis=-1)
        raise ValueError(self.kind)


class Case:
    """``np_only``: the per-example program itself is invalid on
    array_api_strict (partial or mixed slice/array indices, fancy setitem)."""

    def __init__(self, fn, *args, jfn=None, rtol=1e-10, id="", np_only=False):
        self.fn, self.args, self.jfn, self.rtol, self.id = fn, args, jfn, rtol, id
        self.np_only = np_only

    def __repr__(self):
        return self.id or f"Case{[a.shape for a in self.args]}"


CASES = {}


def case(name, fn, *args, **kw):
    CASES.setdefault(name, []).append(Case(fn, *args, **kw))


def _dom(name):
    return RULES[name].domain if name in RULES and RULES[name].domain else (-3.0, 3.0)


# the namespace's unary and binary elementwise functions: the rows it exports
_UNARY = [n for n, p in RULES.items() if p.export and not p.broadcast]
_BINARY = [n for n, p in RULES.items() if p.export and p.broadcast]
_UNARY_KIND = {"bitwise_invert": "i", "logical_not": "b", "imag": "c"}
for _name in _UNARY:
    _k = _UNARY_KIND.get(_name, "f")
    _f = (lambda n: lambda ns, x: getattr(ns, n)(x))(_name)
    case(_name, _f, Arg((2, 3), _k, _dom(_name)), id="2x3")
    case(_name, _f, Arg((), _k, _dom(_name)), id="0d")
for _name in ("real", "imag", "conj", "abs", "sqrt", "exp"):
    case(_name, (lambda n: lambda ns, x: getattr(ns, n)(x))(_name), Arg((4,), "c"), id="complex")

_BIN_SHAPES = [((2, 3), (2, 3)), ((2, 3), (3,)), ((1, 3), (2, 1)), ((), (2, 3))]
for _name in _BINARY:
    _k = ("b" if _name.startswith("logical") else
          "i" if _name.startswith("bitwise") else "f")
    _f = (lambda n: lambda ns, x, y: getattr(ns, n)(x, y))(_name)
    for _s1, _s2 in _BIN_SHAPES:
        case(_name, _f, Arg(_s1, _k, _dom(_name)), Arg(_s2, _k, _dom(_name)), id=f"{_s1}{_s2}")
case("add", lambda ns, x: ns.add(x, 2.5), Arg((2, 3)), id="scalar")
case("multiply", lambda ns, x: ns.multiply(3, x), Arg((3,)), id="scalar-left")
case("where", lambda ns, c, x, y: ns.where(c, x, y), Arg((2, 3), "b"), Arg((2, 3)), Arg(()))
case("where", lambda ns, c, x, y: ns.where(c, x, y), Arg((3,), "b"), Arg((2, 1)), Arg((2, 3)))
case("where", lambda ns, c, x: ns.where(c, x, 0.0), Arg((2, 3), "b"), Arg((3,)), id="scalar")
case("debug_hook", lambda ns, x: xgrad.debug.hook(x, lambda g: g) if ns is xnp else x, Arg((2, 3)))
case("debug_tangent_hook", lambda ns, x: xgrad.debug.tangent_hook(x, lambda t: t) if ns is xnp else x,
     Arg((2, 3)))
case("checkpoint_name", lambda ns, x: xgrad.checkpoint_name(x, "h") if ns is xnp else x, Arg((2, 3)))
case("stop_gradient", lambda ns, x: (xgrad.stop_gradient if ns is xnp else jax.lax.stop_gradient)(x),
     Arg((2, 3)))
for _s in ((2, 3), ()):      # tanh' as a function of the value (a hidden row)
    case("tanh_deriv", lambda ns, a: RULES["tanh_deriv"].bind(a) if ns is xnp else 1.0 - a * a,
         Arg(_s, "f", _dom("tanh_deriv")), id="x".join(map(str, _s)) or "0d")

# ----- reductions -----
for _name in ("sum", "prod", "max", "min"):
    _kind = "t" if _name in ("max", "min") else "f"
    _dm = (0.5, 1.5) if _name == "prod" else None
    for _ax in (None, 0, 1, (0, 1), -1):
        for _kd in (False, True):
            _f = (lambda n, a, k: lambda ns, x: getattr(ns, n)(x, axis=a, keepdims=k))(_name, _ax, _kd)
            case(_name, _f, Arg((2, 3), _kind, _dm), id=f"axis={_ax},keepdims={_kd}")
    case(_name, lambda ns, x, n=_name: getattr(ns, n)(x), Arg((), _kind, _dm), id="0d")
    case(_name, lambda ns, x, n=_name: getattr(ns, n)(x, axis=(0, 2)),
         Arg((2, 3, 4), _kind, _dm), id="3d-axis02")
case("sum", lambda ns, x: ns.sum(x, axis=1, dtype=ns.float32), Arg((2, 3)), id="dtype",
     rtol=1e-6)
for _name in ("argmax", "argmin"):
    for _ax, _kd in ((None, False), (None, True), (0, False), (-1, True), (1, False)):
        _f = (lambda n, a, k: lambda ns, x: getattr(ns, n)(x, axis=a, keepdims=k))(_name, _ax, _kd)
        case(_name, _f, Arg((2, 3), "f"), id=f"axis={_ax},keepdims={_kd}")
for _name in ("all", "any"):
    for _ax, _kd in ((None, False), (None, True), (0, False), (-1, True), ((0, 1), False)):
        _f = (lambda n, a, k: lambda ns, x: getattr(ns, n)(x, axis=a, keepdims=k))(_name, _ax, _kd)
        case(_name, _f, Arg((2, 3), "b"), id=f"axis={_ax},keepdims={_kd}")
for _ax, _inc in ((0, False), (1, True), (-1, False)):
    case("cumulative_sum",
         (lambda a, i: lambda ns, x: ns.cumulative_sum(x, axis=a, include_initial=i))(_ax, _inc),
         Arg((2, 3)), id=f"axis={_ax},init={_inc}")
case("cumulative_sum", lambda ns, x: ns.cumulative_sum(x), Arg((4,)), id="1d")

# ----- shape -----
for _src, _dst in (((2, 3), (3, 2)), ((2, 3), (6,)), ((2, 3), (1, 6, 1)), ((6,), (2, 3)), ((), (1,)),
                   ((2, 3, 4), (4, -1))):
    case("reshape", (lambda d: lambda ns, x: ns.reshape(x, d))(_dst), Arg(_src), id=f"{_src}->{_dst}")
for _shape, _axes in (((2, 3), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (0, 2, 1)), ((4,), (0,))):
    case("permute_dims", (lambda a: lambda ns, x: ns.permute_dims(x, a))(_axes), Arg(_shape),
         id=f"{_shape}{_axes}")
for _src, _dst in (((3,), (2, 3)), ((1, 3), (4, 2, 3)), ((2, 1), (2, 3)), ((), (2, 2))):
    case("broadcast_to", (lambda d: lambda ns, x: ns.broadcast_to(x, d))(_dst), Arg(_src),
         id=f"{_src}->{_dst}")
for _ax in (None, 0, 1, (0, 1), -1):
    case("flip", (lambda a: lambda ns, x: ns.flip(x, axis=a))(_ax), Arg((2, 3)), id=f"axis={_ax}")
for _sh, _ax in ((1, None), (2, 0), (-1, 1), ((1, -1), (0, 1)), (1, -1)):
    case("roll", (lambda s, a: lambda ns, x: ns.roll(x, s, axis=a))(_sh, _ax), Arg((2, 3)),
         id=f"shift={_sh},axis={_ax}")
for _name in ("tril", "triu"):
    for _k in (0, 1, -1):
        case(_name, (lambda n, k: lambda ns, x: getattr(ns, n)(x, k=k))(_name, _k), Arg((3, 3)), id=f"k={_k}")
    case(_name, lambda ns, x, n=_name: getattr(ns, n)(x), Arg((2, 3, 4)), id="stacked")
for _ax in (0, 1, -1):
    case("concat", (lambda a: lambda ns, x, y, z: ns.concat([x, y, z], axis=a))(_ax),
         Arg((2, 3)), Arg((2, 3)), Arg((2, 3)), id=f"axis={_ax}")
case("concat", lambda ns, x, y: ns.concat([x, y], axis=0), Arg((2, 3)), Arg((1, 3)), id="uneven")
case("concat", lambda ns, x, y: ns.concat([x, y], axis=None), Arg((2, 3)), Arg((4,)), id="axis=None")
case("concat", lambda ns, x: ns.concat([x], axis=0), Arg((3,)), id="single")
for _dt in ("float32", "int64", "complex128", "bool"):
    case("astype", (lambda d: lambda ns, x: ns.astype(x, getattr(ns, d)))(_dt), Arg((2, 3)), id=_dt,
         rtol=1e-6)

# ----- sorting and searching -----
for _ax, _desc in ((-1, False), (0, True)):
    case("argsort", (lambda a, d: lambda ns, x: ns.argsort(x, axis=a, descending=d))(_ax, _desc),
         Arg((2, 5)), id=f"axis={_ax},descending={_desc}")
    case("permute_along", (lambda a, d: lambda ns, x: ns.sort(x, axis=a, descending=d))(_ax, _desc),
         Arg((2, 5)), id=f"sort-axis={_ax},descending={_desc}")
case("permute_along", lambda ns, a, v: ns.searchsorted(a, v, sorter=ns.argsort(a)), Arg((5,)),
     Arg((3,)), id="sorter")
case("permute_along", lambda ns, x, p: ns.take_along_axis(x, p, axis=-1) if ns is not xnp else
     bind(RULES["permute_along"], x, p, axis=1), Arg((2, 5)), Arg((2, 5), "perm"), id="direct")
for _side in ("left", "right"):
    case("searchsorted", (lambda sd: lambda ns, a, v: ns.searchsorted(a, v, side=sd))(_side),
         Arg((5,), "sorted"), Arg((2, 3), "t"), id=_side)

# ----- special functions -----
def _sp(ns):
    return xnp.special if ns is xnp else jax.scipy.special


for _name in ("digamma", "entr", "erf", "erfc", "erfinv", "expit", "gamma", "gammaln", "i0", "i1", "log_ndtr",
              "logit", "ndtr", "ndtri"):
    case(_name, (lambda n: lambda ns, x: getattr(_sp(ns), n)(x))(_name), Arg((2, 3), "f", _dom(_name)))
for _name in ("rel_entr", "xlog1py", "xlogy"):
    for _s1, _s2 in _BIN_SHAPES[:3]:
        case(_name, (lambda n: lambda ns, x, y: getattr(_sp(ns), n)(x, y))(_name),
             Arg(_s1, "f", _dom(_name)), Arg(_s2, "f", _dom(_name)), id=f"{_s1}{_s2}")
case("polygamma", lambda ns, x: _sp(ns).polygamma(1, x), Arg((2, 3), "f", _dom("polygamma")), id="n=1")
case("polygamma", lambda ns, n, x: _sp(ns).polygamma(n, x), Arg((3,), "i"),
     Arg((2, 3), "f", _dom("polygamma")), id="n-array", rtol=1e-8)
for _ax, _kd in ((None, False), (1, True), ((0, 1), False), (0, False)):
    case("logsumexp", (lambda a, k: lambda ns, x: _sp(ns).logsumexp(x, axis=a, keepdims=k))(_ax, _kd),
         Arg((2, 3)), id=f"axis={_ax},keepdims={_kd}")
for _ax in (-1, 0, (0, 1)):
    case("log_softmax",
         (lambda a: lambda ns, x: (_sp(ns) if ns is xnp else jax.nn).log_softmax(x, axis=a))(_ax),
         Arg((2, 3)), id=f"axis={_ax}")
    case("softmax", (lambda a: lambda ns, x: _sp(ns).softmax(x, axis=a))(_ax), Arg((2, 3)), id=f"axis={_ax}")

# ----- linear algebra -----
for _name, _kind in (("inv", "m"), ("det", "m"), ("cholesky", "spd"), ("eigvalsh", "spd"),
                     ("svdvals", "f")):
    case(_name, (lambda n: lambda ns, a: getattr(ns.linalg, n)(a))(_name), Arg((3, 3), _kind), rtol=1e-8)
    case(_name, (lambda n: lambda ns, a: getattr(ns.linalg, n)(a))(_name), Arg((2, 3, 3), _kind),
         id="stacked", rtol=1e-8)
case("solve", lambda ns, a, b: ns.linalg.solve(a, b), Arg((3, 3), "m"), Arg((3, 2)), rtol=1e-8)
case("solve", lambda ns, a, b: ns.linalg.solve(a, b), Arg((2, 3, 3), "m"), Arg((3, 2)), id="stacked",
     rtol=1e-8)
case("solve", lambda ns, a, b: ns.linalg.solve(a, b), Arg((3, 3), "m"), Arg((3,)), id="vector",
     rtol=1e-8, np_only=True)
case("pinv", lambda ns, a: ns.linalg.pinv(a), Arg((3, 2)), rtol=1e-8)
case("slogdet", lambda ns, a: tuple(ns.linalg.slogdet(a)), Arg((3, 3), "m"), rtol=1e-8)
case("eigh", lambda ns, a: (lambda r: (r[0], ns.abs(r[1])))(ns.linalg.eigh(a)), Arg((3, 3), "spd"),
     rtol=1e-8)
case("eigvals", lambda ns, a: ns.sort(ns.real(ns.linalg.eigvals(a + ns.matrix_transpose(a)))),
     Arg((3, 3), "m"), rtol=1e-8)
case("eig", lambda ns, a: ns.sort(ns.real(ns.linalg.eig(a + ns.matrix_transpose(a))[0])),
     Arg((3, 3), "m"), rtol=1e-8)
case("qr", lambda ns, a: tuple(ns.abs(m) for m in ns.linalg.qr(a)), Arg((4, 3)), rtol=1e-8)
case("svd", lambda ns, a: tuple(ns.abs(m) for m in ns.linalg.svd(a, full_matrices=False)), Arg((3, 4)),
     rtol=1e-8)
case("adjugate", lambda ns, a: bind(RULES["adjugate"], a) if ns is xnp else
     jnp.linalg.det(a)[..., None, None] * jnp.linalg.inv(a), Arg((3, 3), "m"), rtol=1e-8)
case("adjugate_dot", lambda ns, a, e: bind(RULES["adjugate_dot"], a, e) if ns is xnp else
     jax.jvp(lambda m: jnp.linalg.det(m)[..., None, None] * jnp.linalg.inv(m), (a,), (e,))[1],
     Arg((3, 3), "m"), Arg((3, 3)), rtol=1e-8)
for _ax, _kd, _ord in ((None, False, 2), (1, True, 2), ((0, 1), False, 1), (0, False, 3)):
    case("vector_norm", (lambda a, k, o: lambda ns, x: ns.linalg.vector_norm(x, axis=a, keepdims=k, ord=o))(
        _ax, _kd, _ord), Arg((2, 3)), id=f"axis={_ax},keepdims={_kd},ord={_ord}", rtol=1e-9)

# ----- FFT -----
for _fn, _kind, _shape, _kw in (("fft", "c", (2, 5), {}), ("ifft", "c", (2, 5), dict(axis=0, n=3)),
                                ("fftn", "c", (2, 3, 4), dict(axes=(2, 0))),
                                ("ifftn", "c", (3, 4), dict(s=(4, 6), norm="ortho")),
                                ("rfft", "f", (2, 6), {}), ("rfftn", "f", (3, 4), dict(axes=(1, 0))),
                                ("irfft", "c", (2, 4), {}), ("irfftn", "c", (2, 3, 4), dict(axes=(0, 2))),
                                ("hfft", "c", (4, 3), dict(axis=0, n=5))):
    _prim = ("fft_r2c" if _fn.startswith("rfft") else
             "fft_c2r" if _fn.startswith(("irfft", "hfft")) else "fft_c2c")
    case(_prim, (lambda n, kw: lambda ns, x: getattr(ns.fft, n)(x, **kw))(_fn, _kw), Arg(_shape, _kind),
         id=f"{_fn}{_kw}", rtol=1e-9)

# ----- matmul -----
for _s1, _s2 in (((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)), ((4,), (4,)), ((2, 3, 4), (4, 5)),
                 ((2, 3, 4), (2, 4, 5)), ((3, 4), (2, 4, 5)), ((4,), (2, 4, 5)), ((2, 3, 4), (4,)),
                 ((1, 3, 4), (2, 4, 5)), ((3, 4), (4, 1)), ((1, 4), (4, 5))):
    case("matmul", lambda ns, x, y: ns.matmul(x, y), Arg(_s1), Arg(_s2), id=f"{_s1}@{_s2}")


for _s1, _s2, _ta, _tb in (((4, 3), (4, 5), True, False), ((3, 4), (5, 4), False, True),
                           ((4, 3), (5, 4), True, True), ((2, 4, 3), (4, 5), True, False),
                           ((3, 4), (2, 5, 4), False, True), ((4,), (5, 4), False, True),
                           ((4, 3), (4,), True, False), ((2, 4, 3), (2, 5, 4), True, True)):
    case("matmul", (lambda ta, tb: lambda ns, x, y: mm_flags(ns, x, y, ta, tb))(_ta, _tb),
         Arg(_s1), Arg(_s2), id=f"{_s1}@{_s2} ta={_ta} tb={_tb}")


# ----- indexing -----
def _gi(idx):
    return lambda ns, x: x[idx]


_IDX = np.array([2, 0, 2, 1])
_IDX2 = np.array([[0, 1], [1, 0]])
_MASK = np.array([True, False, True, True])
_MASK2 = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
for _i, _idx in enumerate([(1, Ellipsis), (-1, Ellipsis), (slice(None), 1), (Ellipsis, 0),
                           (None, slice(1, None), Ellipsis),
                           (slice(None, None, -1), None, slice(None, None, 2)),
                           (0, Ellipsis, None), (slice(1, 3), 2), Ellipsis, (1, -2)]):
    case("getitem", _gi(_idx), Arg((3, 4)), id=f"basic{_i}")
for _i, _idx in enumerate([1, (None, slice(1, None)), ()]):       # partial indices: numpy only
    case("getitem", _gi(_idx), Arg((3, 4)), id=f"partial{_i}", np_only=True)
case("getitem", lambda ns, x, i: x[i], Arg((4,)), Arg(None, value=_IDX), id="int-array")
case("getitem", lambda ns, x, i: x[i, 1], Arg((4, 3)), Arg(None, value=_IDX), id="array-int")
case("getitem", lambda ns, x, i, j: x[i, j], Arg((4, 3)), Arg(None, value=_IDX2),
     Arg(None, value=_IDX2[::-1]), id="two-arrays")
case("getitem", lambda ns, x, m: x[m], Arg((3, 4)), Arg(None, value=_MASK2), id="mask2d")
case("getitem", lambda ns, x, m: x[m], Arg((4,)), Arg(None, value=_MASK), id="mask")
case("getitem", lambda ns, x, i: x[i], Arg((4, 3)), Arg(None, value=_IDX), id="int-array-rows",
     np_only=True)
case("getitem", lambda ns, x, i: x[:, i], Arg((3, 4)), Arg(None, value=_IDX), id="int-array-axis1",
     np_only=True)
case("getitem", lambda ns, x, i: x[i, :, 1], Arg((4, 2, 3)), Arg(None, value=_IDX), id="separated",
     np_only=True)
case("getitem", lambda ns, x, i: x[..., i], Arg((2, 4)), Arg(None, value=_IDX2), id="2d-array",
     np_only=True)
case("getitem", lambda ns, x, m: x[m], Arg((4, 2)), Arg(None, value=_MASK), id="mask-rows", np_only=True)
case("getitem", lambda ns, x, m: x[:, m], Arg((3, 4)), Arg(None, value=_MASK), id="mask-axis1",
     np_only=True)


def _scatter(kind, idx):
    """x.at[idx].add/set(v): the index_add / index_set primitives. A callable
    ``idx`` builds the index from the case's index-array arguments."""
    def f(ns, x, v, *arrays):
        i = idx(*arrays) if callable(idx) else idx
        if ns is xnp:
            return bind(RULES["index_" + kind], x, v, idx=i)
        return getattr(x.at[i], kind)(v)
    return f


def _const(a):
    return Arg(None, value=a)


for _kind in ("add", "set"):
    for _i, (_idx, _vs) in enumerate([((1, Ellipsis), (4,)), ((slice(None), 2), (3,)),
                                      ((slice(1, 3), slice(None)), (2, 4)), ((Ellipsis, 0), ()),
                                      ((slice(None), slice(None)), (4,)), ((0, 1), ())]):
        case("index_" + _kind, _scatter(_kind, _idx), Arg((3, 4)), Arg(_vs), id=f"basic{_i}")
    case("index_" + _kind, _scatter(_kind, lambda m: (m,)), Arg((3, 4)), Arg(()), _const(_MASK2),
         id="mask")
    case("index_" + _kind, _scatter(_kind, lambda m: (m,)), Arg((3, 4)), Arg((6,)), _const(_MASK2),
         id="mask-values")
    case("index_" + _kind, _scatter(_kind, lambda i: (i,)), Arg((4,)), Arg((3,)), _const(_IDX[:3]),
         id="int-array", np_only=_kind == "set")
    case("index_" + _kind, _scatter(_kind, lambda i: (i,)), Arg((3, 4)), Arg((3, 4)), _const(_IDX[:3]),
         id="int-array-rows", np_only=True)
    case("index_" + _kind, _scatter(_kind, lambda i: (slice(None), i)), Arg((3, 4)), Arg((4,)),
         _const(_IDX), id="int-array-axis1", np_only=True)
    case("index_" + _kind, _scatter(_kind, lambda i: (i, slice(None), 1)), Arg((3, 2, 4)), Arg((2, 2)),
         _const(_IDX[:2]), id="separated", np_only=True)
    case("index_" + _kind, _scatter(_kind, 1), Arg((3, 4)), Arg((4,)), id="partial", np_only=True)


# gather / scatter: the index is an operand (flat positions into a 1-D x),
# so it may be batched like any other argument
def _gather(ns, x, pos):
    return xnp._gather(x, pos) if ns is xnp else x[pos]


def _scatter_op(op):
    def f(ns, x, v, pos):
        if ns is xnp:
            return xnp._scatter(x, v, pos, op)
        return getattr(x.at[pos], op)(v)
    return f


case("gather", _gather, Arg((5,)), Arg((2, 3), "i"), id="2d-positions")
case("gather", _gather, Arg((4,)), Arg((), "i"), id="0d-position")
for _op in ("set", "add", "max", "min"):
    case("scatter", _scatter_op(_op), Arg((5,), "t"), Arg((2, 3), "t"), Arg((2, 3), "i"),
         id=f"{_op}-repeated")
    case("scatter", _scatter_op(_op), Arg((4,)), Arg((), "f"), Arg((), "i"), id=f"{_op}-0d")


# --------------------------------------------------------------------------
# the machinery: build batched arguments, run vmap, a loop and jax.vmap

def _axes_combos(args):
    """Deterministic in_axes combinations: all 0, all 1, all -1, and the
    four rotations of (None, 0, 1, -1); unmappable args get None. Axis 1
    falls back to 0 for 0-d examples; all-None combinations are dropped."""
    n = len(args)
    pats = [(0,) * n, (1,) * n, (-1,) * n]
    pats += [tuple([None, 0, 1, -1][(i + k) % 4] for i in range(n)) for k in range(4)]
    out = []
    for p in pats:
        p = tuple(None if not a.batch else (0 if ax == 1 and len(a.shape) == 0 else ax)
                  for a, ax in zip(args, p))
        if all(ax is None for ax in p) or p in out:
            continue
        out.append(p)
    return out


def _make_args(c, axes, seed):
    rng = np.random.default_rng(seed)
    out = []
    for a, ax in zip(c.args, axes):
        if ax is None:
            out.append(a.make(rng, a.shape))
        else:     # one example at a time (kinds such as "perm" are per example)
            out.append(np.stack([a.make(rng, a.shape) for _ in range(B)], axis=ax))
    return out


def _loop(fn, np_args, axes, out_axis, xp):
    """The reference: call fn on each example (plain arrays), stack (outputs
    may be tuples of arrays)."""
    res = []
    for b in range(B):
        ex = [a if ax is None else np.take(a, b, axis=ax) for a, ax in zip(np_args, axes)]
        res.append(fn(xnp, *[from_np(xp, np.asarray(e)) for e in ex]))
    if isinstance(res[0], tuple):
        return tuple(np.stack([to_np(r[i]) for r in res], axis=out_axis) for i in range(len(res[0])))
    return np.stack([to_np(r) for r in res], axis=out_axis)


def _compare(actual, expected, rtol, msg):
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected), msg
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, rtol, f"{msg} output {i}")
        return
    actual = to_np(actual)
    assert actual.shape == expected.shape, f"{msg}: shape {actual.shape} != {expected.shape}"
    assert actual.dtype == expected.dtype, f"{msg}: dtype {actual.dtype} != {expected.dtype}"
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol, err_msg=msg)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=msg)


# rows whose batching is tested against a loop in their own files
BATCHED_ELSEWHERE = {
    **{n: "tests/test_scipy_special.py: vmap of every function against a loop (jnp_cases), and "
          "vmap of the parameter derivatives (test_parameter_derivatives_batch)"
       for n in ("bessel_jv", "beta", "betainc", "betainc_da", "betainc_db", "betaln", "ci", "dawsn",
                 "erfcx", "exp1", "expi", "expn", "fresnel_c", "fresnel_s", "gammainc",
                 "gammainc_da", "gammaincc", "gammasgn", "hyp1f1", "hyp1f1_da", "hyp1f1_db", "hyp2f1",
                 "hyp2f1_da", "hyp2f1_db", "hyp2f1_dc", "i0e", "i1e", "loggamma", "owens_t", "poch",
                 "si", "spence", "sph_harm_y", "wofz", "zeta", "zeta_dx")},
    **{n: "tests/test_random.py: vmap over keys (and of grad of gamma) against a loop"
       for n in ("random_binomial", "random_gamma", "random_gamma_grad", "random_poisson",
                 "threefry2x32")},
}


def _run_cases(name, xp):
    if name in BATCHED_ELSEWHERE and name not in CASES:
        pytest.skip(BATCHED_ELSEWHERE[name])
    if name not in CASES:
        pytest.fail(f"primitive {name!r} has no batching case in tests/test_vmap.py::CASES")
    strict = xp.__name__.startswith("array_api_strict")
    for ci, c in enumerate(CASES[name]):
        if strict and c.np_only:
            continue
        for k, axes in enumerate(_axes_combos(c.args)):
            out_axis = (0, -1)[k % 2]
            np_args = _make_args(c, axes, seed=ci * 31 + k)
            expected = _loop(c.fn, np_args, axes, out_axis, xp)
            f = xgrad.vmap(lambda *a: c.fn(xnp, *a), in_axes=axes, out_axes=out_axis)
            got = f(*[from_np(xp, a) for a in np_args])
            _compare(got, expected, c.rtol, f"{name} {c!r} in_axes={axes} out_axes={out_axis}")


@pytest.mark.parametrize("name", sorted(RULES))
def test_batching_rule_vs_loop(name, xp):
    _run_cases(name, xp)


def test_every_primitive_has_a_batching_case():
    missing = sorted(set(RULES) - set(CASES) - set(BATCHED_ELSEWHERE))
    assert not missing, f"primitives without a vmap test case in CASES: {missing}"
    stale = sorted(set(BATCHED_ELSEWHERE) - set(RULES))
    assert not stale, f"BATCHED_ELSEWHERE names rows that no longer exist: {stale}"
    missing = sorted(n for n, p in RULES.items() if p.batch is None)
    assert not missing, f"primitives without a batching rule: {missing}"


@needs_jax
@pytest.mark.parametrize("name", sorted(CASES))
def test_batching_rule_vs_jax(name):
    # one mixed in_axes combination per case (the loop test covers the rest);
    # jax dispatches op by op and compiles each new shape, so this is the slow part
    cases = CASES[name]
    if name in RULES and RULES[name].batch is not None and \
            RULES[name].batch.__qualname__.startswith("elementwise"):
        cases = cases[-1:]          # one rule for the whole family: the loop test covers it
    elif len(cases) > 3:
        cases = [cases[0], cases[len(cases) // 2], cases[-1]]
    for ci, c in enumerate(cases):
        axes = _axes_combos(c.args)[-1]
        out_axis = -1
        np_args = _make_args(c, axes, seed=ci * 17)
        got = xgrad.vmap(lambda *a: c.fn(xnp, *a), in_axes=axes, out_axes=out_axis)(*np_args)
        jf = c.jfn or c.fn
        # fixed arguments (index arrays, masks) are closed over: concrete under jit
        fixed = [a.value is not None for a in c.args]

        def jfun(*dyn, jf=jf, fixed=fixed, np_args=np_args):
            it = iter(dyn)
            return jf(jnp, *[a if f else next(it) for a, f in zip(np_args, fixed)])
        ref = jax.jit(jax.vmap(jfun, in_axes=tuple(ax for ax, f in zip(axes, fixed) if not f),
                               out_axes=out_axis))(
            *[jnp.asarray(a) for a, f in zip(np_args, fixed) if not f])
        ref = tuple(map(np.asarray, ref)) if isinstance(ref, tuple) else np.asarray(ref)
        if not isinstance(ref, tuple) and ref.dtype.kind in "iu" and to_np(got).dtype.kind in "iu":
            ref = ref.astype(to_np(got).dtype)        # jax indices are int32
        _compare(got, ref, max(c.rtol, 1e-9), f"{name} {c!r} in_axes={axes} out_axes={out_axis} vs jax")


# --------------------------------------------------------------------------
# helpers for the tests below

def _loop_ref(f, args, in_axes, out_axes=0):
    """Python loop over the batch on numpy arrays (pytrees of outputs)."""
    if not isinstance(in_axes, tuple):
        in_axes = (in_axes,) * len(args)
    leaves_axes = [xgrad.tree.leaves(ax) if isinstance(ax, (dict, list, tuple)) else ax
                   for ax in in_axes]
    size = next(np.shape(xgrad.tree.leaves(a)[0])[ax if isinstance(ax, int) else la[0]]
                for a, ax, la in zip(args, in_axes, leaves_axes)
                if ax is not None and (isinstance(ax, int) or la))

    def take(a, ax, b):
        if ax is None:
            return a
        if isinstance(ax, int):
            return xgrad.tree.map(lambda leaf: np.take(leaf, b, axis=ax), a)
        if isinstance(ax, dict):
            return {k: take(a[k], ax[k], b) for k in a}
        return type(a)(take(ai, axi, b) for ai, axi in zip(a, ax))

    outs = [f(*[take(a, ax, b) for a, ax in zip(args, in_axes)]) for b in range(size)]
    return xgrad.tree.map(lambda *xs: np.stack([to_np(x) for x in xs], axis=out_axes), *outs)


def _tree_close(actual, expected, rtol=1e-10, atol=1e-12):
    a_leaves, a_tree = xgrad.tree.flatten(actual)
    e_leaves, e_tree = xgrad.tree.flatten(expected)
    assert a_tree == e_tree, f"{a_tree} != {e_tree}"
    for a, e in zip(a_leaves, e_leaves):
        assert tuple(np.shape(to_np(a))) == tuple(np.shape(to_np(e)))
        assert_close(a, e, rtol=rtol, atol=atol)


def _jax_tree(t):
    return jax.tree_util.tree_map(lambda leaf: jnp.asarray(to_np(leaf)), t)


def _mlp_loss(ns):
    def loss(params, x, y):
        h = ns.tanh(ns.matmul(x, params["w1"]) + params["b1"])
        out = ns.matmul(h, params["w2"]) + params["b2"]
        return ns.sum((out - y) ** 2)
    return loss


def _mlp_params(rng, n_in=3, n_hidden=4, n_out=2):
    return {"w1": rng.normal(size=(n_in, n_hidden)), "b1": rng.normal(size=n_hidden),
            "w2": rng.normal(size=(n_hidden, n_out)), "b2": rng.normal(size=n_out)}


# --------------------------------------------------------------------------
# nesting, pytrees, axis_size, keyword arguments

def test_nested_vmap(rng, xp):
    x = rng.normal(size=(3, 4, 5))     # outer axis 1 (size 4), inner axis 1 of the rest (5)
    y = rng.normal(size=(5, 2))        # inner axis 0 (size 5); not mapped by the outer vmap
    g = xgrad.vmap(xgrad.vmap(lambda a, b: xnp.multiply(xnp.sum(xnp.sin(a)), b), in_axes=(1, 0)),
                   in_axes=(1, None), out_axes=-1)
    out = g(from_np(xp, x), from_np(xp, y))
    ref = np.stack([np.stack([np.sin(x[:, i, j]).sum() * y[j] for j in range(5)])
                    for i in range(4)], axis=-1)
    assert_close(out, ref)
    # the inner function closes over the outer traced value
    h = xgrad.vmap(lambda a: xgrad.vmap(lambda b: xnp.multiply(a, b))(from_np(xp, y[:, 0])))
    assert_close(h(from_np(xp, x[0, 0])), np.outer(x[0, 0], y[:, 0]))


@needs_jax
def test_nested_vmap_vs_jax(rng):
    f = lambda ns: lambda a, b: ns.matmul(ns.tanh(a), b)
    setups = [((4, 3, 5), (2, 5, 6), (0, None), (None, 0)),     # all pairs
              ((2, 3, 5), (2, 5, 6), (0, None), (0, 0)),        # zip outside, broadcast inside
              ((3, 5, 4), (5, 6, 4), (0, None), (-1, -1)),      # mapped axes last
              ((4, 3, 5), (3, 6, 5), (1, 2), (0, None))]        # inner maps the last axes
    for sx, sy, inner, outer in setups:
        x, y = rng.normal(size=sx), rng.normal(size=sy)
        got = xgrad.vmap(xgrad.vmap(f(xnp), in_axes=inner), in_axes=outer)(x, y)
        ref = jax.jit(jax.vmap(jax.vmap(f(jnp), in_axes=inner), in_axes=outer))(
            jnp.asarray(x), jnp.asarray(y))
        assert_close(got, np.asarray(ref))


def test_pytree_in_axes_and_out_axes(rng, xp):
    p = {"w": rng.normal(size=(3, 2)), "b": rng.normal(size=(2,))}
    xs = rng.normal(size=(5, 3))
    px = {k: from_np(xp, v) for k, v in p.items()}

    def f(params, x):
        y = xnp.add(xnp.matmul(x, params["w"]), params["b"])
        return {"y": y, "n": xnp.sum(y * y)}, [params["b"], x]

    cases = [(({"w": None, "b": None}, 0), ({"y": 0, "n": 0}, [None, 0])),
             ((None, 0), ({"y": -1, "n": 0}, [None, 1])),
             (None, 0)]
    for in_axes, out_axes in cases[:2]:
        got = xgrad.vmap(f, in_axes=in_axes, out_axes=out_axes)(px, from_np(xp, xs))
        ref = _loop_ref(f, (p, xs), in_axes, 0)
        y_ref = ref[0]["y"] if out_axes[0]["y"] == 0 else np.moveaxis(ref[0]["y"], 0, -1)
        assert_close(got[0]["y"], y_ref)
        assert_close(got[0]["n"], ref[0]["n"])
        assert_close(got[1][0], p["b"])                  # out_axes None: not broadcast
        assert_close(got[1][1], xs if out_axes[1][1] == 0 else xs.T)
    # mapping over the parameters: one model per example
    ps = {"w": rng.normal(size=(3, 5, 2)), "b": rng.normal(size=(5, 2))}
    got = xgrad.vmap(lambda q, x: f(q, x)[0]["y"], in_axes=({"w": 1, "b": 0}, None))(
        {k: from_np(xp, v) for k, v in ps.items()}, from_np(xp, xs[0]))
    ref = np.stack([xs[0] @ ps["w"][:, i] + ps["b"][i] for i in range(5)])
    assert_close(got, ref)


def test_pytree_in_axes_namedtuple_and_dataclass(rng):
    import collections
    import dataclasses
    Pt = collections.namedtuple("Pt", "a b")

    @xgrad.tree.register_dataclass
    @dataclasses.dataclass
    class Box:
        lo: object
        hi: object

    x = rng.normal(size=(4, 3))
    got = xgrad.vmap(lambda p: xnp.add(p.a, p.b), in_axes=(Pt(0, None),))(Pt(x, x[0]))
    assert_close(got, x + x[0])
    got = xgrad.vmap(lambda bx: xnp.subtract(bx.hi, bx.lo), in_axes=(Box(lo=None, hi=1),))(
        Box(lo=x[0], hi=x.T))
    assert_close(got, x - x[0])
    out = xgrad.vmap(lambda v: Box(lo=v, hi=xnp.sum(v)), out_axes=Box(lo=-1, hi=0))(x)
    assert isinstance(out, Box)
    assert_close(out.lo, x.T)
    assert_close(out.hi, x.sum(1))


def test_keyword_arguments_are_mapped_over_axis_0(rng):
    x, s = rng.normal(size=(4, 3)), rng.normal(size=(4,))
    got = xgrad.vmap(lambda x, scale: xnp.multiply(x, scale), in_axes=(0,))(x, scale=s)
    assert_close(got, x * s[:, None])


def test_axis_size_with_all_none_in_axes(xp):
    x = from_np(xp, np.arange(3.0))
    got = xgrad.vmap(lambda v: xnp.sin(v), in_axes=None, axis_size=4)(x)
    assert tuple(got.shape) == (4, 3)
    assert_close(got, np.broadcast_to(np.sin(np.arange(3.0)), (4, 3)))
    got = xgrad.vmap(lambda v: xnp.sin(v), in_axes=(None,), axis_size=2, out_axes=1)(x)
    assert_close(got, np.broadcast_to(np.sin(np.arange(3.0))[:, None], (3, 2)))
    got = xgrad.vmap(lambda: 1.5, axis_size=3)()
    assert_close(got, np.full(3, 1.5))


@needs_jax
def test_axis_size_vs_jax():
    x = np.arange(3.0)
    got = xgrad.vmap(lambda v: xnp.cos(v), in_axes=None, axis_size=4, out_axes=1)(x)
    ref = jax.jit(jax.vmap(lambda v: jnp.cos(v), in_axes=None, axis_size=4, out_axes=1))(jnp.asarray(x))
    assert_close(got, np.asarray(ref))


def test_unbatched_and_identity_outputs(rng):
    x = rng.normal(size=(4, 3))
    a, b, c = xgrad.vmap(lambda v: (v, xnp.ones(2), 2.0), out_axes=(1, 0, 0))(x)
    assert_close(a, x.T)
    assert_close(b, np.ones((4, 2)))
    assert_close(c, np.full(4, 2.0))


def test_caller_arrays_are_not_written(rng):
    x = rng.normal(size=(4, 3))
    x0 = x.copy()

    def f(v):
        v[0] = 7.0
        v[1:] = v[1:] * 2.0
        return v
    out = xgrad.vmap(f)(x)
    np.testing.assert_array_equal(x, x0)
    ref = x0.copy()
    ref[:, 0] = 7.0
    ref[:, 1:] *= 2.0
    assert_close(out, ref)


# --------------------------------------------------------------------------
# errors

def test_error_inconsistent_sizes():
    with pytest.raises(ValueError, match=r"inconsistent sizes.*argument 1 has size 3.*argument 0"):
        xgrad.vmap(xnp.add)(np.ones((4, 2)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="axis_size"):
        xgrad.vmap(xnp.sin, axis_size=5)(np.ones(4))


def test_error_axis_out_of_range():
    with pytest.raises(ValueError, match=r"in_axes=2 is out of range for argument 0.*\(4, 3\)"):
        xgrad.vmap(xnp.sin, in_axes=2)(np.ones((4, 3)))
    with pytest.raises(ValueError, match=r"in_axes=-3 is out of range"):
        xgrad.vmap(xnp.sin, in_axes=-3)(np.ones((4, 3)))
    with pytest.raises(ValueError, match="out of range"):
        xgrad.vmap(xnp.sin, in_axes=0)(1.0)            # a scalar has no axis to map
    with pytest.raises(ValueError, match=r"out_axes=3 is out of range"):
        xgrad.vmap(xnp.sin, out_axes=3)(np.ones((4, 3)))


def test_error_in_axes_structure():
    with pytest.raises(ValueError, match=r"in_axes has 1 entries.*2 positional"):
        xgrad.vmap(xnp.add, in_axes=(0,))(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="keys"):
        xgrad.vmap(lambda d: d["a"], in_axes=({"b": 0},))({"a": np.ones(3)})
    with pytest.raises(ValueError, match="2 entries but the value has 3"):
        xgrad.vmap(lambda t: t[0], in_axes=((0, 0),))((np.ones(3),) * 3)
    with pytest.raises(TypeError, match="in_axes"):
        xgrad.vmap(xnp.sin, in_axes=1.0)(np.ones(3))
    with pytest.raises(TypeError, match="in_axes"):
        xgrad.vmap(xnp.sin, in_axes={"a": 0})(np.ones(3))


def test_error_out_axes_none_for_batched_output():
    with pytest.raises(ValueError, match="out_axes=None.*depends on the mapped axis"):
        xgrad.vmap(xnp.sin, out_axes=None)(np.ones(3))
    with pytest.raises(ValueError, match=r"out_axes=None for output\[1\]"):
        xgrad.vmap(lambda v: (v[0] * 0 + 1.0, v), out_axes=(0, None))(np.ones((2, 3)))


def test_error_no_mapped_argument():
    with pytest.raises(ValueError, match="axis_size"):
        xgrad.vmap(xnp.sin, in_axes=None)(np.ones(3))


def test_error_primitive_without_batching_rule():
    from xgrad.rules import defprim
    name = "_test_vmap_no_batching_rule"
    p = defprim(name, lambda xp, x: x, family="special")   # not elementwise: no default rule
    try:
        assert p.batch is None
        with pytest.raises(NotImplementedError, match=f"{name}.*no batching rule.*batch="):
            xgrad.vmap(lambda x: bind(p, x))(np.ones((2, 3)))
        # not batched: fine
        assert_close(xgrad.vmap(lambda x, c: xnp.add(x, bind(p, c)), in_axes=(0, None))(
            np.ones((2, 3)), np.ones(3)), np.full((2, 3), 2.0))
    finally:
        del RULES[name]


def test_error_python_control_flow_on_batched_value():
    def f(x):
        if xnp.sum(x) > 0:
            return x
        return -x
    with pytest.raises(TypeError, match=r"vmap.*xgrad.numpy.where"):
        xgrad.vmap(f)(np.ones((2, 3)))
    with pytest.raises(TypeError, match="concrete value"):
        xgrad.vmap(lambda x: float(xnp.sum(x)))(np.ones((2, 3)))
    # a per-example index with a partial slice is a gather (it raised once)
    x3 = np.arange(24.0).reshape(2, 3, 4)
    assert_close(xgrad.vmap(lambda x, i: x[i, 1:])(x3, np.array([0, 2])),
                 np.stack([x3[0, 0, 1:], x3[1, 2, 1:]]))
    # under grad inside vmap, too
    with pytest.raises(TypeError, match="xgrad.numpy.where"):
        xgrad.vmap(xgrad.grad(lambda x: xnp.sum(f(x))))(np.ones((2, 3)))
    # the replacement works and agrees with the loop
    g = lambda x: xnp.where(xnp.sum(x) > 0, x, -x)
    x = np.array([[1.0, 2.0], [-3.0, 1.0]])
    assert_close(xgrad.vmap(g)(x), np.array([[1.0, 2.0], [3.0, -1.0]]))
    # unbatched values are still concrete inside vmap
    h = lambda x, n: x * float(n) if n > 1 else x
    assert_close(xgrad.vmap(h, in_axes=(0, None))(x, np.asarray(2.0)), 2 * x)


def test_repr_of_batched_value_and_leak():
    seen = []

    def f(x):
        seen.append(repr(x))
        return x
    xgrad.vmap(f)(np.ones((2, 3)))
    assert "shape=(3,)" in seen[0] and "batch axis 0 of size 2" in seen[0]
    leaked = []
    xgrad.vmap(lambda x: leaked.append(x) or x)(np.ones((2, 3)))
    with pytest.raises(xgrad.LeakedTracerError):
        xnp.sin(leaked[0])


# --------------------------------------------------------------------------
# compositions with the derivative transforms

def test_per_example_gradients(rng, xp):
    p = _mlp_params(rng)
    X, Y = rng.normal(size=(6, 3)), rng.normal(size=(6, 2))
    loss = _mlp_loss(xnp)
    px = {k: from_np(xp, v) for k, v in p.items()}
    got = xgrad.vmap(xgrad.grad(loss), in_axes=(None, 0, 0))(px, from_np(xp, X), from_np(xp, Y))
    ref = _loop_ref(xgrad.grad(loss), (p, X, Y), (None, 0, 0))
    _tree_close(got, ref)
    # summed over the examples: the gradient of the summed loss
    assert_close(to_np(got["w1"]).sum(0), xgrad.grad(lambda q: xnp.sum(
        xgrad.vmap(loss, in_axes=(None, 0, 0))(q, X, Y)))(p)["w1"])


@needs_jax
def test_per_example_gradients_vs_jax(rng):
    p = _mlp_params(rng)
    X, Y = rng.normal(size=(6, 3)), rng.normal(size=(6, 2))
    got = xgrad.vmap(xgrad.grad(_mlp_loss(xnp)), in_axes=(None, 0, 0))(p, X, Y)
    ref = jax.jit(jax.vmap(jax.grad(_mlp_loss(jnp)), in_axes=(None, 0, 0)))(_jax_tree(p), jnp.asarray(X),
                                                                   jnp.asarray(Y))
    _tree_close(got, jax.tree_util.tree_map(np.asarray, ref))


def test_grad_of_vmap(rng, xp):
    p = _mlp_params(rng)
    X, Y = rng.normal(size=(6, 3)), rng.normal(size=(6, 2))
    loss = _mlp_loss(xnp)

    def total(q, X, Y):
        return xnp.sum(xgrad.vmap(loss, in_axes=(None, 0, 0))(q, X, Y))
    px = {k: from_np(xp, v) for k, v in p.items()}
    got = xgrad.grad(total)(px, from_np(xp, X), from_np(xp, Y))
    ref = xgrad.grad(loss)(p, X, Y)           # the loss sums over examples already
    _tree_close(got, ref)
    if jax is not None:
        jref = jax.jit(jax.grad(lambda q: jnp.sum(jax.vmap(_mlp_loss(jnp), in_axes=(None, 0, 0))(
            q, jnp.asarray(X), jnp.asarray(Y)))))(_jax_tree(p))
        _tree_close(got, jax.tree_util.tree_map(np.asarray, jref))


def test_jvp_of_vmap_and_vmap_of_jvp(rng, xp):
    f = lambda x, y: xnp.multiply(xnp.sin(x), xnp.sum(xnp.exp(y)))
    X, Y = rng.normal(size=(4, 3)), rng.normal(size=(2, 4))
    TX, TY = rng.normal(size=(4, 3)), rng.normal(size=(2, 4))
    b = lambda a: from_np(xp, a)
    out, t = xgrad.jvp(xgrad.vmap(f, in_axes=(0, 1)), (b(X), b(Y)), (b(TX), b(TY)))
    ref = [xgrad.jvp(f, (X[i], Y[:, i]), (TX[i], TY[:, i])) for i in range(4)]
    assert_close(out, np.stack([r[0] for r in ref]))
    assert_close(t, np.stack([r[1] for r in ref]))
    out2, t2 = xgrad.vmap(lambda x, y, tx, ty: xgrad.jvp(f, (x, y), (tx, ty)),
                          in_axes=(0, 1, 0, 1))(b(X), b(Y), b(TX), b(TY))
    assert_close(out2, out)
    assert_close(t2, t)
    if jax is not None:
        jf = lambda x, y: jnp.sin(x) * jnp.sum(jnp.exp(y))
        jo, jt = jax.jit(lambda *a: jax.jvp(jax.vmap(jf, in_axes=(0, 1)), a[:2], a[2:]))(
            jnp.asarray(X), jnp.asarray(Y), jnp.asarray(TX), jnp.asarray(TY))
        assert_close(t, np.asarray(jt))


def test_vmap_of_hessian(rng, xp):
    f = lambda x: xnp.sum(xnp.tanh(x) ** 2) + xnp.prod(x[:2])
    X = rng.normal(size=(5, 3))
    got = xgrad.vmap(xgrad.hessian(f))(from_np(xp, X))
    ref = np.stack([to_np(xgrad.hessian(f)(x)) for x in X])
    assert_close(got, ref)
    if jax is not None:
        jf = lambda x: jnp.sum(jnp.tanh(x) ** 2) + jnp.prod(x[:2])
        assert_close(got, np.asarray(jax.jit(jax.vmap(jax.hessian(jf)))(jnp.asarray(X))))


def test_vmap_of_vjp_fn_gives_the_jacobian(rng, xp):
    A = rng.normal(size=(4, 3))
    f = lambda x: xnp.tanh(xnp.matmul(from_np(xp, A), x))
    x = from_np(xp, rng.normal(size=3))
    out, vjp_fn = xgrad.vjp(f, x)
    rows = xgrad.vmap(vjp_fn)(from_np(xp, np.eye(4)))[0]
    assert_close(rows, xgrad.jacfwd(f)(x))
    # a batch of cotangents along axis 1
    G = rng.normal(size=(4, 6))
    cols = xgrad.vmap(lambda g: vjp_fn(g)[0], in_axes=1, out_axes=1)(from_np(xp, G))
    assert_close(cols, to_np(xgrad.jacrev(f)(x)).T @ G)


def test_vmap_vmap_grad(rng, xp):
    f = lambda w, x: xnp.sum(xnp.sin(xnp.multiply(w, x)) ** 2)
    W, X = rng.normal(size=(3, 4)), rng.normal(size=(2, 4))
    g = xgrad.vmap(xgrad.vmap(xgrad.grad(f), in_axes=(None, 0)), in_axes=(0, None))
    got = g(from_np(xp, W), from_np(xp, X))
    ref = np.stack([np.stack([to_np(xgrad.grad(f)(w, x)) for x in X]) for w in W])
    assert_close(got, ref)
    if jax is not None:
        jf = lambda w, x: jnp.sum(jnp.sin(w * x) ** 2)
        jg = jax.jit(jax.vmap(jax.vmap(jax.grad(jf), in_axes=(None, 0)), in_axes=(0, None)))
        assert_close(got, np.asarray(jg(jnp.asarray(W), jnp.asarray(X))))


def test_vmap_of_value_and_grad_with_aux(rng):
    f = lambda x: (xnp.sum(x ** 3), {"max": xnp.max(x)})
    X = rng.normal(size=(4, 3))
    (v, aux), g = xgrad.vmap(xgrad.value_and_grad(f, has_aux=True))(X)
    assert_close(v, (X ** 3).sum(1))
    assert_close(aux["max"], X.max(1))
    assert_close(g, 3 * X ** 2)


@needs_jax
@pytest.mark.parametrize("mode", ["jacfwd", "jacrev", "hessian"])
def test_jacobians_on_pytrees_vs_jax(rng, mode):
    p = {"a": rng.normal(size=(2, 3)), "b": rng.normal(size=3)}
    x = rng.normal(size=3)

    def f(ns):
        def fun(p, x):
            h = ns.tanh(ns.matmul(p["a"], x * p["b"]))
            if mode == "hessian":
                return ns.sum(h ** 2) + ns.sum(p["b"] * x ** 3)
            return {"h": h, "s": (ns.sum(h * h), p["b"] * x)}
        return fun
    xt, jt = getattr(xgrad, mode), getattr(jax, mode)
    for argnums in (0, 1, (0, 1)):
        got = xt(f(xnp), argnums=argnums)(p, x)
        ref = jax.jit(jt(f(jnp), argnums=argnums))(_jax_tree(p), jnp.asarray(x))
        _tree_close(got, jax.tree_util.tree_map(np.asarray, ref), rtol=1e-9, atol=1e-11)


@needs_jax
@pytest.mark.parametrize("out", ["scalar", "shape (1,)", "with an empty output"])
def test_jacrev_of_one_output_element_vs_jax(rng, out):
    # one output element: jacrev pulls back once, without a vmap level
    W = rng.normal(size=(3, 2))
    x = rng.normal(size=3)

    def f(ns):
        def fun(x):
            s = ns.sum(ns.tanh(ns.matmul(x, W)) ** 2)
            if out == "shape (1,)":
                return ns.reshape(s, (1,))
            if out == "with an empty output":
                return (s, x[:0] * 2.0)
            return s
        return fun
    got = xgrad.jacrev(f(xnp))(x)
    ref = jax.jacrev(f(jnp))(jnp.asarray(x))
    _tree_close(got, jax.tree_util.tree_map(np.asarray, ref))
    X = rng.normal(size=(5, 3))
    got_h = xgrad.vmap(xgrad.hessian(f(xnp)))(X)
    ref_h = jax.vmap(jax.hessian(f(jnp)))(jnp.asarray(X))
    _tree_close(got_h, jax.tree_util.tree_map(np.asarray, ref_h))


def test_jacobians_on_strict_backend(rng, xp):
    A = rng.normal(size=(3, 4))
    f = lambda x: xnp.sin(xnp.matmul(from_np(xp, A), x))
    x = rng.normal(size=4)
    J = np.cos(A @ x)[:, None] * A
    assert_close(xgrad.jacfwd(f)(from_np(xp, x)), J)
    assert_close(xgrad.jacrev(f)(from_np(xp, x)), J)
    H = xgrad.hessian(lambda x: xnp.sum(f(x)))(from_np(xp, x))
    assert_close(H, -(A.T * np.sin(A @ x)) @ A)


def test_vmap_of_checkpoint_and_custom_vjp(rng):
    X = rng.normal(size=(4, 3))
    f = xgrad.checkpoint(lambda x: xnp.sin(xnp.sin(x)))
    got = xgrad.vmap(xgrad.grad(lambda x: xnp.sum(f(x))))(X)
    assert_close(got, np.cos(np.sin(X)) * np.cos(X))

    @xgrad.custom_vjp
    def clip_grad(x):
        return x

    clip_grad.defvjp(lambda x: (x, None), lambda res, g: (xnp.clip(g, -1.0, 1.0),))
    got = xgrad.vmap(xgrad.grad(lambda x: xnp.sum(clip_grad(x) * 3.0)))(X)
    assert_close(got, np.ones_like(X))


# --------------------------------------------------------------------------
# indexing and functional updates inside vmap

def test_setitem_inside_vmap(rng, xp):
    X = rng.normal(size=(4, 5))
    V = rng.normal(size=(4, 2))

    def f(x, v):
        y = x * 1.0
        y[1:3] = v                 # batched update
        y[0] = 2.0                 # unbatched scalar update
        y[-1] = xnp.sum(v)
        return y
    got = xgrad.vmap(f)(from_np(xp, X), from_np(xp, V))
    ref = X.copy()
    ref[:, 1:3] = V
    ref[:, 0] = 2.0
    ref[:, -1] = V.sum(1)
    assert_close(got, ref)
    # update with an unbatched value into a batched array, batch axis not in front
    got = xgrad.vmap(lambda x: f(x, from_np(xp, V[0])), in_axes=1, out_axes=1)(from_np(xp, X.T))
    ref = X.copy()
    ref[:, 1:3] = V[0]
    ref[:, 0] = 2.0
    ref[:, -1] = V[0].sum()
    assert_close(got, ref.T)


def test_setitem_fancy_and_mask_inside_vmap(rng):
    X = rng.normal(size=(4, 5))
    idx, mask = np.array([4, 0]), X[0] > 0

    def f(x):
        y = x + 0.0
        y[idx] = x[:2] * 10.0
        y[mask] = 0.0
        return y
    got = xgrad.vmap(f)(X)
    ref = np.stack([to_np(f(x)) for x in X])
    assert_close(got, ref)
    # and its per-example gradient
    g = xgrad.vmap(xgrad.grad(lambda x: xnp.sum(f(x) ** 2)))(X)
    assert_close(g, np.stack([to_np(xgrad.grad(lambda x: xnp.sum(f(x) ** 2))(x)) for x in X]))


def test_gradient_through_indexing_inside_vmap(rng, xp):
    X = rng.normal(size=(3, 4, 5))
    f = lambda x: xnp.sum(x[1:, ::2] ** 2) + xnp.sum(x[..., 0] * x[:, 1])
    got = xgrad.vmap(xgrad.grad(f), in_axes=1)(from_np(xp, X))
    ref = np.stack([to_np(xgrad.grad(f)(X[:, i])) for i in range(4)])
    assert_close(got, ref)


def test_batched_index_array():
    x, i = np.arange(12.0).reshape(3, 4), np.array([0, 3, 1])
    assert_close(xgrad.vmap(lambda r, j: r[j])(x, i), x[np.arange(3), i])
    # per-example cross-entropy with integer labels
    z, y = np.random.default_rng(0).normal(size=(5, 4)), np.array([0, 3, 2, 2, 1])
    g = xgrad.vmap(xgrad.grad(lambda a, t: -xnp.special.log_softmax(a, axis=-1)[t]))(z, y)
    p = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    assert_close(g, p - np.eye(4)[y])


def test_repr_of_derivative_tracer_inside_vmap():
    seen = []

    def f(x):
        seen.append(repr(x))
        return xnp.sum(x * x)
    xgrad.vmap(xgrad.grad(f))(np.ones((2, 3)))
    assert "shape=(3,)" in seen[0]


# --------------------------------------------------------------------------
# random programs: vmap against the loop (and vmap(grad) against the loop of grad)

try:
    from hypothesis import HealthCheck, given, settings, strategies as st
except ImportError:  # pragma: no cover
    given = None

_M3 = np.array([[0.5, -1.0, 0.2], [0.3, 0.8, -0.4], [1.0, 0.1, 0.6]])
_M2 = np.array([[0.7, -0.2], [0.4, 1.1]])
_PROG_OPS = [
    ("sin", lambda a, b: xnp.sin(a)),
    ("tanh*", lambda a, b: xnp.multiply(xnp.tanh(a), b)),
    ("add", lambda a, b: xnp.add(a, b)),
    ("max", lambda a, b: xnp.maximum(a, xnp.multiply(0.5, b))),
    ("where", lambda a, b: xnp.where(a > b, a, xnp.multiply(b, 0.5))),
    ("rowsum", lambda a, b: xnp.multiply(a, xnp.sum(b, axis=1, keepdims=True))),
    ("colmax", lambda a, b: xnp.subtract(a, xnp.max(a, axis=0))),
    ("right-matmul", lambda a, b: xnp.matmul(a, _M3)),
    ("left-matmul", lambda a, b: xnp.matmul(_M2, b)),
    ("mat-mat", lambda a, b: xnp.matmul(xnp.matmul(a, xnp.permute_dims(b, (1, 0))), a) * 0.3),
    ("vec", lambda a, b: xnp.add(a, xnp.matmul(b, a[0]))[..., None] * 0.2 + a),
    ("flip-roll", lambda a, b: xnp.roll(xnp.flip(a, axis=1), 1, axis=0)),
    ("reshape", lambda a, b: xnp.reshape(xnp.permute_dims(xnp.reshape(a, (3, 2)), (1, 0)), (2, 3))),
    ("concat", lambda a, b: xnp.concat([a[:, :1], b[:, 1:]], axis=1)),
    ("cumsum", lambda a, b: xnp.cumulative_sum(a, axis=1) * 0.3),
    ("stack-mean", lambda a, b: xnp.mean(xnp.stack([a, b]), axis=0)),
    ("setitem", lambda a, b: _set_row(a, b)),
    ("broadcast", lambda a, b: xnp.broadcast_to(xnp.sum(a, axis=0), (2, 3)) * 0.5),
]


def _set_row(a, b):
    y = a * 1.0
    y[1] = b[0]
    return y


def _program(ops):
    def f(x, y):
        vals = [x, y]
        for i, j, k in ops:
            vals.append(_PROG_OPS[k][1](vals[i % len(vals)], vals[j % len(vals)]))
        return xnp.sum(vals[-1] ** 2) * 0.1 + xnp.sum(vals[-2]), vals[-1]
    return f


if given is not None:
    _op = st.tuples(st.integers(0, 8), st.integers(0, 8), st.integers(0, len(_PROG_OPS) - 1))

    @settings(max_examples=40, derandomize=True, deadline=None, print_blob=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(ops=st.lists(_op, min_size=1, max_size=5),
           axes=st.tuples(st.sampled_from([0, 1, -1, None]), st.sampled_from([0, 1, -1])),
           out_axis=st.sampled_from([0, 1, -1]), seed=st.integers(0, 2 ** 16))
    def test_random_programs_vmap_vs_loop(ops, axes, out_axis, seed):
        rng = np.random.default_rng(seed)
        f = _program(ops)
        shapes = []
        for ax in axes:
            s = [2, 3]
            if ax is not None:
                s.insert(ax % 3, 4)
            shapes.append(tuple(s))
        x, y = (rng.normal(size=s) for s in shapes)
        out = xgrad.vmap(f, in_axes=axes, out_axes=(0, out_axis))(x, y)
        ref = _loop_ref(f, (x, y), axes)
        _tree_close(out, (ref[0], np.moveaxis(ref[1], 0, out_axis)), rtol=1e-9, atol=1e-10)
        g = xgrad.vmap(xgrad.grad(lambda a, b: f(a, b)[0], argnums=(0, 1)), in_axes=axes)(x, y)
        g_ref = _loop_ref(xgrad.grad(lambda a, b: f(a, b)[0], argnums=(0, 1)), (x, y), axes)
        _tree_close(g, g_ref, rtol=1e-9, atol=1e-10)


def test_per_example_gradients_example():
    """examples/per_example_gradients.py: the DP-SGD gradient (vmap) equals
    its Python loop."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "examples", "per_example_gradients.py")
    spec = importlib.util.spec_from_file_location("per_example_gradients", path)
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)
    rng = np.random.default_rng(1)
    X, Y, _ = ex.make_data(rng, 16, 5, 3)
    params = ex.init_params(rng, [5, 8, 3])
    g, norms = ex.dp_gradient(params, X, Y, 1.5, 0.0, rng)
    g_ref, norms_ref = ex.dp_gradient_loop(params, X, Y, 1.5)
    assert_close(norms, norms_ref)
    _tree_close(g, g_ref)


def test_an_unmapped_numpy_argument_is_indexed_per_example():
    """``vmap(lambda t, j: t[1, j], in_axes=(None, 0))`` with ``t`` a numpy
    array: the unmapped argument indexes like the namespace's arrays (it is
    handed to the function as one, with ``.at``); a numpy array closed over
    and indexed by a traced index raises a TypeError that says what to
    write instead, as jax refuses a numpy array indexed by a tracer."""
    t = np.arange(20.0).reshape(4, 5)
    j = np.array([[0, 2], [1, 1], [4, 3]])
    got = xgrad.vmap(lambda t, j: t[1, j], in_axes=(None, 0))(t, j)
    np.testing.assert_array_equal(got, np.stack([t[1, r] for r in j]))
    rows = np.array([3, 0, 3])
    got = xgrad.vmap(lambda t, j: t.at[j].add(1.0), in_axes=(None, 0))(t, rows)
    want = np.stack([t + np.eye(4)[r][:, None] for r in rows])
    np.testing.assert_array_equal(got, want)
    with pytest.raises(TypeError, match=r"xgrad\.numpy\.asarray\(a\)\[i\]"):
        xgrad.vmap(lambda k: t[k])(j[:, 0])
