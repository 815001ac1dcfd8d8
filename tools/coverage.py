"""Generate ``docs/coverage.md``: what of the array API standard (2024.12)
``xgrad.numpy`` implements, how each function is differentiated, and what
the tests cover. Nothing in the report is typed by hand:

* the standard's names come from ``array_api_strict`` (main namespace,
  ``linalg``, ``fft``; the version that introduced each name is read from
  array_api_strict's ``requires_api_version`` gates), and the ``special``
  names from ``docs/api.md`` (plus ``xgrad.numpy.special.__all__``);
* the derivative status comes from running each function on sample inputs:
  which rows of the rule table it binds (recorded by wrapping every row's
  ``impl``), and whether ``xgrad.jvp`` gives a non-zero tangent;
* the test coverage comes from the test modules' own case tables
  (``tests/test_rules.py``: CASES, NO_DERIVATIVE; ``tests/test_vmap.py``:
  CASES; ``tests/test_namespace.py``: DIFF_CASES, VMAP_CASES, VALUE_CASES)
  and from scanning ``tests/*.py`` for calls of each name;
* the conformance numbers come from ``docs/conformance.json``, written by
  ``--run-conformance`` or ``--junit`` from pytest's JUnit XML files.

Usage::

    python tools/coverage.py                      # rewrite docs/coverage.md
    python tools/coverage.py --run-conformance /path/to/array-api-tests
    python tools/coverage.py --junit xgrad.numpy=xg.xml --junit array_api_compat.numpy=np.xml
"""
from __future__ import annotations

import argparse
import datetime
import inspect
import json
import os
import re
import subprocess
import sys
import warnings
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "coverage.md")
CONF = os.path.join(ROOT, "docs", "conformance.json")
VERSION = "2024.12"
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests")]

import numpy as np  # noqa: E402

import xgrad  # noqa: E402
import xgrad.numpy as xnp  # noqa: E402
from xgrad.core import RULES, Trace, Tracer, concrete, new_main  # noqa: E402


# --------------------------------------------------------------------------
# the standard's names

def _introduced(f):
    """The API version array_api_strict gates ``f`` behind (None: always)."""
    found = None
    while f is not None:
        code = getattr(f, "__code__", None)
        if code is not None and f.__closure__:
            cells = dict(zip(code.co_freevars, f.__closure__))
            if "version" in cells:
                v = cells["version"].cell_contents
                found = v if found is None or v > found else found
        f = getattr(f, "__wrapped__", None)
    return found


_STRICT_ONLY = {"ArrayAPIStrictFlags", "Device", "set_array_api_strict_flags",
                "get_array_api_strict_flags", "reset_array_api_strict_flags", "__version__"}


def standard_names():
    """{section: [(name, kind, introduced)]}, kind 'function' or 'constant'."""
    import array_api_strict as s
    out = {}
    for section, mod in (("main", s), ("linalg", s.linalg), ("fft", s.fft)):
        rows = []
        for name in mod.__all__:
            if name in _STRICT_ONLY or name in ("linalg", "fft"):
                continue
            obj = getattr(mod, name)
            if name == "__array_api_version__":
                rows.append((name, "constant", None))
            elif isinstance(obj, type) or not callable(obj):
                rows.append((name, "dtype" if not isinstance(obj, (float, type(None))) else
                             "constant", None))
            else:
                rows.append((name, "function", _introduced(obj)))
        out[section] = sorted(rows)
    out["special"] = [(n, "function", None) for n in special_names()]
    return out


def special_names():
    """The ``special`` names listed in docs/api.md, plus what
    ``xgrad.numpy.special`` exports."""
    names = []
    for path in (os.path.join(ROOT, "docs", "api.md"),):
        if os.path.exists(path):
            text = open(path, encoding="utf-8").read()
            m = re.search(r"`special` submodule \(([^)]*)\)", text)
            if m:
                names = re.findall(r"`(\w+)`", m.group(1))
            break
    extra = getattr(getattr(xnp, "special", None), "__all__", [])
    return sorted(set(names) | set(extra))


# --------------------------------------------------------------------------
# sample calls

def _f(shape, lo=0.2, hi=0.9, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, size=shape)


X = _f((3, 4))
Y = _f((3, 4), seed=1)
M = _f((3, 3), seed=2)
SPD = M @ M.T + 3 * np.eye(3)
V = _f((3,), seed=3)
I32 = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [0, 1, 0, 1]], dtype=np.int32)
BOOL = X > 0.5


def _sample_args(section, name):
    """(args, kwargs) for one call of ``name``; float numpy arrays are the
    differentiated arguments."""
    main = {
        "matmul": ((X, Y.T), {}), "tensordot": ((X, Y.T), {"axes": 1}),
        "vecdot": ((X, Y), {}), "matrix_transpose": ((X,), {}),
        "take": ((X, np.array([2, 0])), {"axis": 1}),
        "take_along_axis": ((X, np.argsort(X, axis=1)), {"axis": 1}),
        "where": ((BOOL, X, Y), {}), "reshape": ((X, (4, 3)), {}),
        "permute_dims": ((X, (1, 0)), {}), "broadcast_to": ((X[:1], (3, 4)), {}),
        "expand_dims": ((X,), {"axis": 0}), "squeeze": ((X[:1],), {"axis": 0}),
        "roll": ((X, 1), {"axis": 1}), "concat": (([X, Y],), {}), "stack": (([X, Y],), {}),
        "moveaxis": ((X, 0, 1), {}), "repeat": ((X, 2), {"axis": 1}), "tile": ((X, (2, 1)), {}),
        "astype": ((X, xnp.float32), {}), "clip": ((X, 0.3, 0.6), {}),
        "searchsorted": ((np.sort(X[0]), X), {}), "isin": ((X, Y), {}),
        "cumulative_sum": ((X,), {"axis": 1}), "cumulative_prod": ((X,), {"axis": 1}),
        "meshgrid": ((V, V), {}), "broadcast_arrays": ((X, Y[:1]), {}),
        "broadcast_shapes": (((3, 1), (1, 4)), {}),
        "zeros": (((2,),), {}), "ones": (((2,),), {}), "empty": (((2,),), {}),
        "full": (((2,), 1.0), {}), "eye": ((2,), {}), "arange": ((3,), {}),
        "linspace": ((0.0, 1.0, 3), {}), "asarray": (([1.0, 2.0],), {}),
        "from_dlpack": ((X,), {}), "can_cast": ((xnp.float32, xnp.float64), {}),
        "finfo": ((xnp.float32,), {}), "iinfo": ((xnp.int32,), {}),
        "isdtype": ((xnp.float32, "real floating"), {}),
        "result_type": ((xnp.float32, xnp.float64), {}), "__array_namespace_info__": ((), {}),
        "full_like": ((X, 1.0), {}),
        "real": ((X + 1j * Y,), {}), "imag": ((X + 1j * Y,), {}), "conj": ((X + 1j * Y,), {}),
        # jax.numpy names outside the standard
        "dot": ((X, Y.T), {}), "invert": ((I32,), {}), "left_shift": ((I32, I32 % 3), {}),
        "right_shift": ((I32, I32 % 3), {}), "transpose": ((X,), {}),
    }
    linalg = {
        "cross": ((V, V[::-1].copy()), {}), "matrix_power": ((M, 2), {}),
        "outer": ((V, V), {}), "solve": ((SPD, M), {}), "tensordot": ((M, M), {"axes": 1}),
        "vecdot": ((M, M), {}), "matmul": ((M, M), {}), "vector_norm": ((M,), {}),
    }
    fft = {"fftfreq": ((8,), {}), "rfftfreq": ((8,), {})}
    special = {"xlogy": ((X, Y), {}), "xlog1py": ((X, Y), {}), "rel_entr": ((X, Y), {})}
    table = {"main": main, "linalg": linalg, "fft": fft, "special": special}[section]
    if name in table:
        return table[name]
    if name.startswith(("bitwise_", "logical_")):
        a = BOOL if name.startswith("logical_") else I32
        n = 1 if name.endswith(("_not", "_invert")) else 2
        return (a,) * n, {}
    if section == "linalg":
        return (SPD,), {}
    if section == "fft":
        return (_f((8,)),), {}
    try:
        params = list(inspect.signature(_lookup(section, name)).parameters.values())
    except (TypeError, ValueError):
        params = []
    n = sum(p.kind == p.POSITIONAL_ONLY for p in params) or 1
    return (X, Y)[:n] if n <= 2 else (X,) * n, {}


def _lookup(section, name):
    mod = xnp if section == "main" else getattr(xnp, section, None)
    return getattr(mod, name, None) if mod is not None else None


class _RecordTrace(Trace):
    """A transform that only records the rows of the rule table a function
    binds (its derivative rules are not run, so they are not recorded)."""

    def __init__(self, level):
        Trace.__init__(self, level)
        self.names = []

    def process_primitive(self, prim, args, params):
        self.names.append(prim.name)
        primals = [a.primal if isinstance(a, Tracer) and a._trace is self else a for a in args]
        out = prim.bind(*primals, **params)
        if prim.is_call:
            return [Tracer(self, o, None) for o in out]
        return Tracer(self, out, None)


def _map_arrays(args, fn):
    """``args`` with every numpy array (also inside lists) replaced by ``fn(a)``."""
    def one(a):
        if isinstance(a, np.ndarray):
            return fn(a)
        if isinstance(a, list):
            return [one(b) for b in a]
        return a
    return tuple(one(a) for a in args)


def _bound_rows(f, args, kwargs):
    with new_main(_RecordTrace) as trace:
        out = f(*_map_arrays(args, lambda a: Tracer(trace, a, None)), **kwargs)
        names = sorted(set(trace.names))
        outs = [concrete(o) for o in _leaves(out)]
    return names, outs


def _leaves(out):
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in _leaves(o)]
    return [out] if hasattr(out, "dtype") else []


def _is_float(a):
    return hasattr(a, "dtype") and np.asarray(concrete(a)).dtype.kind in "fc"


def _jvp_nonzero(f, args, kwargs):
    """Whether the JVP of ``f`` in its float array arguments is non-zero at
    the sample point (raises what the JVP raises)."""
    leaves = []
    _map_arrays(args, lambda a: leaves.append(a) if a.dtype.kind in "fc" else None)
    rng = np.random.default_rng(5)
    tangents = tuple(rng.normal(size=a.shape) + (1j * rng.normal(size=a.shape)
                                                  if a.dtype.kind == "c" else 0) for a in leaves)

    def g(*d):
        it = iter(d)
        return f(*_map_arrays(args, lambda a: next(it) if a.dtype.kind in "fc" else a), **kwargs)
    _, t_out = xgrad.jvp(g, tuple(leaves), tangents)
    return any(np.any(np.asarray(concrete(t)) != 0) for t in _leaves(t_out))


def classify(section, name):
    """Dict with 'status' (yes / missing), 'derivative', 'prims'."""
    f = _lookup(section, name)
    if f is None:
        return {"status": "missing", "derivative": "", "prims": []}
    if not callable(f):
        return {"status": "yes", "derivative": "(constant)", "prims": []}
    args, kwargs = _sample_args(section, name)
    has_array = []
    _map_arrays(args, has_array.append)
    try:
        if not has_array:
            f(*args, **kwargs)
            return {"status": "yes", "derivative": "no derivative (no array argument: creation, "
                    "dtype or inspection function)", "prims": []}
        f(*args, **kwargs)
    except Exception as e:  # noqa: BLE001
        return {"status": "yes", "derivative": f"**sample call failed**: {type(e).__name__}: "
                f"{str(e).splitlines()[0][:100]}", "prims": []}
    try:
        prims, outs = _bound_rows(f, args, kwargs)
    except Exception as e:  # noqa: BLE001
        return {"status": "yes", "derivative": f"plain arrays only (a traced argument fails: "
                f"{type(e).__name__}: {str(e).splitlines()[0][:80]})", "prims": []}
    one = len(prims) == 1 and prims[0] in (name, f"{section}_{name}", f"{section}.{name}")
    if one:
        p = RULES[prims[0]]
        rules = ", ".join(k for k, v in (("JVP", p.jvp), ("VJP", p.vjp), ("batching", p.batch))
                          if v is not None)
        kind = f"primitive ({rules or 'no rules'})"
    elif prims:
        kind = "composite of " + ", ".join(f"`{q}`" for q in prims)
    else:
        kind = "no rows bound (a constant, or the backend on the concrete value)"
    if not any(_is_float(o) for o in outs):
        return {"status": "yes", "derivative": f"non-differentiable (integer/bool output); {kind}",
                "prims": prims}
    if not any(a.dtype.kind in "fc" for a in has_array):
        return {"status": "yes", "derivative": f"no float input; {kind}", "prims": prims}
    try:
        nonzero = _jvp_nonzero(f, args, kwargs)
    except Exception as e:  # noqa: BLE001
        return {"status": "yes", "derivative": f"**JVP failed**: {type(e).__name__}: "
                f"{str(e).splitlines()[0][:100]}; {kind}", "prims": prims}
    what = "differentiable" if nonzero else "zero derivative"
    return {"status": "yes", "derivative": f"{what}; {kind}", "prims": prims}


# --------------------------------------------------------------------------
# what the tests cover

def test_tables():
    """{'rules': covered prims, 'no_derivative': set, 'vmap': prims,
    'ns_diff': names, 'ns_vmap': names, 'ns_values': names}."""
    out = {"rules": set(), "no_derivative": set(), "vmap": set(), "ns_diff": set(),
           "ns_vmap": set(), "ns_values": set(), "errors": []}
    for mod, fill in (("test_rules", lambda m: (out["rules"].update(p for c in m.CASES for p in c.prims),
                                                out["no_derivative"].update(m.NO_DERIVATIVE))),
                      ("test_vmap", lambda m: out["vmap"].update(m.CASES)),
                      ("test_namespace", lambda m: (
                          out["ns_diff"].update(k.split("-")[0] for k in m.DIFF_CASES),
                          out["ns_vmap"].update(k.split("-")[0] for k in m.VMAP_CASES),
                          out["ns_values"].update(k.split("-")[0] for k in m.VALUE_CASES)))):
        try:
            fill(__import__(mod))
        except Exception as e:  # noqa: BLE001
            out["errors"].append(f"{mod}: {type(e).__name__}: {e}")
    return out


def mentions():
    """{name: [test files that call .name(]}."""
    found = {}
    tdir = os.path.join(ROOT, "tests")
    for fn in sorted(os.listdir(tdir)):
        if fn.startswith("test_") and fn.endswith(".py"):
            text = open(os.path.join(tdir, fn), encoding="utf-8").read()
            for name in set(re.findall(r"\.(\w+)\(", text)):
                found.setdefault(name, []).append(fn)
    return found


def tested(section, name, info, tables, calls):
    bits = []
    prims = info["prims"]
    diff_prims = [p for p in prims if p not in tables["no_derivative"]]
    if "differentiable" in info["derivative"] and not info["derivative"].startswith("non"):
        if name in tables["ns_diff"] and section == "main":
            bits.append("orders 1-2, fwd+rev vs JAX (test_namespace)")
        if diff_prims and all(p in tables["rules"] for p in diff_prims):
            bits.append("its rows: orders 1-2, all fwd/rev combinations vs JAX + FD (test_rules)")
        elif diff_prims:
            missing = [p for p in diff_prims if p not in tables["rules"]]
            bits.append("rows without a test_rules case: " + ", ".join(f"`{p}`" for p in missing))
    if prims and all(p in tables["vmap"] for p in prims):
        bits.append("its rows' batching rules (test_vmap)")
    if name in tables["ns_vmap"] and section == "main":
        bits.append("vmap of the function (test_namespace)")
    if name in tables["ns_values"] and section == "main":
        bits.append("values, plain and traced (test_namespace)")
    files = [f for f in calls.get(name, []) if f not in ("test_rules.py", "test_vmap.py")]
    if files:
        bits.append("called in " + ", ".join(files))
    return "; ".join(bits) or "-"


# --------------------------------------------------------------------------
# jax.numpy: every public name, its exclusions, and what the tests cover

_NO_DTYPE = "a dtype numpy and the array API backends lack (jax/ml_dtypes only)"
_PRINT = "print options: how jax prints its arrays; xgrad's values are the backend's arrays"
EXCLUDED = {
    # I/O
    "load": "I/O (numpy.load on files); use the backend's loader, then asarray",
    "save": "I/O (jax re-exports numpy.save); use the backend's",
    "savez": "I/O (jax re-exports numpy.savez); use the backend's",
    "fromfile": "I/O (jax.numpy raises NotImplementedError too); read with the backend, then asarray",
    # print options
    "printoptions": _PRINT, "get_printoptions": _PRINT, "set_printoptions": _PRINT,
    "array_repr": "printing: a string of a concrete array (jax re-exports numpy's); no traced meaning",
    "array_str": "printing: a string of a concrete array (jax re-exports numpy's); no traced meaning",
    # jax's own types and dtypes
    "ufunc": "jax's ufunc class (jitted ufunc objects with .at/.reduce/.outer); xgrad's elementwise "
             "functions are plain functions",
    "frompyfunc": "makes a jax ufunc object from a Python function; use vectorize",
    "bfloat16": _NO_DTYPE,
    **{n: _NO_DTYPE for n in ("float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
                              "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
                              "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "int1", "int2",
                              "int4", "uint1", "uint2", "uint4")},
    # jax.Array methods of the jax runtime
    **{f"ndarray.{n}": "JAX runtime (devices, sharding, host transfer): no numpy meaning"
       for n in ("addressable_data", "addressable_shards", "committed", "copy_to_host_async",
                 "global_shards", "is_fully_addressable", "is_fully_replicated", "sharding")},
    "ndarray.flat": "JAX raises NotImplementedError for arr.flat itself (it suggests arr.flatten())",
}
INDEX_OBJECTS = {"r_", "c_", "s_", "index_exp", "mgrid", "ogrid"}


def jnp_names():
    """{section: [(name, kind)]}: jax.numpy (``main``), ``linalg``, ``fft``
    and ``ndarray`` (jax.Array's public attributes); kind ``function``,
    ``index`` (r_, s_, mgrid, ...), ``type`` (dtypes, scalar types, classes),
    ``constant`` or ``method``."""
    import types

    import jax
    import jax.numpy as jnp
    out = {}
    for section, mod in (("main", jnp), ("linalg", jnp.linalg), ("fft", jnp.fft)):
        rows = []
        for name in sorted(n for n in dir(mod) if not n.startswith("_")):
            obj = getattr(mod, name)
            if isinstance(obj, types.ModuleType):
                continue
            if name in INDEX_OBJECTS:
                kind = "index"
            elif isinstance(obj, type) or type(obj).__name__ == "_ScalarMeta":
                kind = "type"
            elif not callable(obj):
                kind = "constant"
            else:
                kind = "function"
            rows.append((name, kind))
        out[section] = rows
    out["ndarray"] = [(n, "method") for n in sorted(dir(jax.Array)) if not n.startswith("_")]
    return out


def _qualified(section, name):
    return name if section == "main" else f"{section}.{name}"


def load_case_tables(tdir=None):
    """({jax.numpy name: [JCase]}, errors) from every ``tests/test_jnp_*.py``
    found now (a module that is missing is simply not there; one that fails
    to import is reported, not fatal)."""
    import importlib.util
    tdir = tdir or os.path.join(ROOT, "tests")
    if tdir not in sys.path:
        sys.path.insert(0, tdir)
    cases, errors = {}, []
    for fn in sorted(os.listdir(tdir)):
        if not (fn.startswith("test_jnp_") and fn.endswith(".py")):
            continue
        try:
            spec = importlib.util.spec_from_file_location(f"_coverage_{fn[:-3]}",
                                                          os.path.join(tdir, fn))
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            table = getattr(mod, "CASES", [])
        except Exception as e:  # noqa: BLE001
            errors.append(f"{fn}: {type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}")
            continue
        for c in table:
            cases.setdefault(c.name, []).append(c)
    return cases, errors


def case_status(cases):
    """What a name's JCases test: {'values', 'order1', 'order2', 'vmap',
    'strict'} (booleans). vmap runs only over differentiated arguments, so a
    case of order 0 tests no batching."""
    diff = [c for c in cases if c.order >= 1 and c.diff]
    return {"values": bool(cases),
            "order1": bool(diff),
            "order2": any(c.order >= 2 for c in diff),
            "vmap": any(c.vmap for c in diff),
            "strict": any(c.strict for c in cases)}


def _np_args(case):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in case.args]


def _case_derivative(case):
    """'differentiable' / 'zero derivative' / '**JVP failed**: ...' for a
    case with differentiated arguments (its own function and arguments)."""
    args = _np_args(case)
    rng = np.random.default_rng(5)
    prim = tuple(args[i] for i in case.diff)
    tans = tuple(rng.normal(size=np.shape(p)).astype(p.dtype) for p in prim)

    def f(*xs):
        full = list(args)
        for i, x in zip(case.diff, xs):
            full[i] = x
        return case.fn(xnp, *full)
    try:
        _, t_out = xgrad.jvp(f, prim, tans)
    except Exception as e:  # noqa: BLE001
        return f"**JVP failed**: {type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''}"
    nonzero = any(np.any(np.asarray(concrete(t)) != 0) for t in _leaves(t_out)
                  if hasattr(t, "dtype") and np.asarray(concrete(t)).dtype.kind in "fc")
    return "differentiable" if nonzero else "zero derivative"


def _runs_on_strict(call):
    """'runs (tool)' or 'no: <error>' for ``call(to_strict)``."""
    try:
        import array_api_strict as s
    except ImportError:
        return "-"
    try:
        call(lambda a: s.asarray(a) if isinstance(a, np.ndarray) else a)
        return "runs (tool)"
    except Exception as e:  # noqa: BLE001
        return f"no: {type(e).__name__}: {str(e).splitlines()[0][:60] if str(e) else ''}"


def _short(derivative):
    """The classify() text, short, for the jax.numpy table."""
    d = derivative
    for key, short in (("non-differentiable", "no (int/bool output)"),
                       ("no derivative (no array", "n/a (no array argument)"),
                       ("no float input", "n/a (no float input)"),
                       ("zero derivative", "zero"), ("differentiable", "yes")):
        if d.startswith(key) or (key == "differentiable" and d.startswith("differentiable")):
            return short
    return d


def jnp_row(section, name, kind, cases, std_info=None, tables=None):
    """One row of the jax.numpy table: a dict with 'present', 'excluded'
    (reason or ''), 'derivative', and 'values', 'order1', 'order2', 'vmap',
    'strict' ('yes', 'rows' (through the rows of the rule table it binds,
    tested in test_rules/test_vmap), 'n/a', 'runs (tool)', or '')."""
    q = _qualified(section, name)
    tables = tables or {"rules": set(), "no_derivative": set(), "vmap": set(), "ns_diff": set(),
                        "ns_vmap": set(), "ns_values": set()}
    if section == "ndarray":
        present = hasattr(Tracer, name)
    else:
        mod = xnp if section == "main" else getattr(xnp, section, None)
        present = mod is not None and hasattr(mod, name)
    row = {"present": present, "excluded": EXCLUDED.get(q, ""), "derivative": "",
           "values": "", "order1": "", "order2": "", "vmap": "", "strict": ""}
    if not present or kind in ("type", "constant", "index"):
        if present and kind == "index":
            row["values"] = "yes" if cases else ""
        return row
    st = case_status(cases)
    info = std_info
    if info is None and section in ("main", "linalg", "fft") and kind == "function":
        info = classify(section, name)
    prims = (info or {}).get("prims", [])
    diff_cases = [c for c in cases if c.order >= 1 and c.diff]
    measured = _short(info["derivative"]) if info is not None else ""
    if "sample call failed" in measured:
        measured = ""
    if diff_cases:
        row["derivative"] = _short(_case_derivative(diff_cases[0]))
    elif measured:
        row["derivative"] = measured
    elif cases:
        row["derivative"] = "n/a (order-0 cases only)"
    else:
        row["derivative"] = "? (no case; the tool's sample call failed)"
    differentiable = row["derivative"] in ("yes", "zero") or bool(diff_cases)
    one_row = len(prims) == 1 and prims[0] in (name, f"{section}_{name}", f"{section}.{name}")
    rows_tested = bool(prims) and all(p in tables["rules"] or p in tables["no_derivative"]
                                      for p in prims)
    in_ns = section == "main" and name
    # values
    if st["values"] or (in_ns in tables["ns_values"] | tables["ns_diff"] | tables["ns_vmap"]):
        row["values"] = "yes"
    elif one_row and prims[0] in tables["rules"] | tables["vmap"]:
        row["values"] = "yes"
    elif rows_tested:
        row["values"] = "rows"
    # orders 1 and 2 (test_rules and test_namespace's DIFF_CASES test both)
    if not differentiable:
        row["order1"] = row["order2"] = "n/a" if row["derivative"] else ""
    else:
        direct = in_ns in tables["ns_diff"] or (one_row and prims[0] in tables["rules"])
        for k in ("order1", "order2"):
            row[k] = "yes" if st[k] or direct else ("rows" if rows_tested else "")
    # batching
    if st["vmap"] or in_ns in tables["ns_vmap"] or (one_row and prims[0] in tables["vmap"]):
        row["vmap"] = "yes"
    elif prims and all(p in tables["vmap"] for p in prims):
        row["vmap"] = "rows"
    # array_api_strict: a case that runs there, test_rules (runs every row there), or try it
    if st["strict"] or (one_row and prims[0] in tables["rules"]):
        row["strict"] = "yes"
    elif cases:
        c = cases[0]
        row["strict"] = _runs_on_strict(lambda to: c.fn(xnp, *[to(a) for a in _np_args(c)]))
    elif section in ("main", "linalg", "fft"):
        f = _lookup(section, name)
        args, kwargs = _sample_args(section, name)
        row["strict"] = _runs_on_strict(lambda to: f(*_map_arrays(args, to), **kwargs))
        if row["strict"].startswith("no") and row["values"] == "rows":
            row["strict"] = "rows" if prims and all(p in tables["rules"] for p in prims) \
                else row["strict"]
    return row


def _section_of(q):
    head = q.split(".")[0]
    return head if "." in q and head in ("linalg", "fft", "ndarray") else "main"


def summarize(rows):
    """Counts over {qualified name: row}: present, tested at order 1 and 2,
    vmap, strict, excluded, missing (neither present nor excluded)."""
    def n(pred):
        return sum(1 for r in rows.values() if pred(r))
    return {"names": len(rows),
            "present": n(lambda r: r["present"]),
            "differentiable": n(lambda r: r["derivative"] in ("yes", "zero")),
            "values": n(lambda r: r["present"] and r["values"] in ("yes", "rows")),
            "order1": n(lambda r: r["order1"] in ("yes", "rows")),
            "order2": n(lambda r: r["order2"] in ("yes", "rows")),
            "vmap": n(lambda r: r["vmap"] in ("yes", "rows")),
            "strict": n(lambda r: r["strict"] in ("yes", "rows", "runs (tool)")),
            "excluded": n(lambda r: bool(r["excluded"]) and not r["present"]),
            "missing": n(lambda r: not r["present"] and not r["excluded"])}


def jnp_report(std_infos=None, tables=None):
    """(lines, summary) of the jax.numpy part of the report."""
    import jax
    jax.config.update("jax_enable_x64", True)
    names = jnp_names()
    cases, errors = load_case_tables()
    tables = tables or test_tables()
    std_infos = std_infos or {}
    rows, body = {}, []
    titles = {"main": "`jax.numpy`", "linalg": "`jax.numpy.linalg`", "fft": "`jax.numpy.fft`",
              "ndarray": "`jax.Array` methods and attributes (on traced values)"}
    for section in ("main", "linalg", "fft", "ndarray"):
        funcs = [(n, k) for n, k in names[section] if k != "type"]
        body += [f"### {titles[section]}", "",
                 "| name | present | derivative | values | order 1 | order 2 | vmap | "
                 "array_api_strict |", "|---|---|---|---|---|---|---|---|"]
        for name, kind in funcs:
            q = _qualified(section, name) if section != "ndarray" else f"ndarray.{name}"
            r = jnp_row(section, name, kind, cases.get(q, []), std_infos.get((section, name)),
                        tables)
            rows[q] = r
            pres = "yes" if r["present"] else ("excluded" if r["excluded"] else "**missing**")
            kind_note = f" ({kind})" if kind not in ("function", "method") else ""
            cells = [r[k] for k in ("derivative", "values", "order1", "order2", "vmap", "strict")]
            body.append(f"| `{name}`{kind_note} | {pres} | " + " | ".join(
                c.replace("|", "/") for c in cells) + " |")
        body.append("")
    types_ = [(s, n) for s in ("main", "linalg", "fft") for n, k in names[s] if k == "type"]
    body += ["### Dtype and type names", "", "| name | present | note |", "|---|---|---|"]
    for section, name in types_:
        q = _qualified(section, name)
        r = jnp_row(section, name, "type", [], None, tables)
        rows[q] = r
        pres = "yes" if r["present"] else ("excluded" if r["excluded"] else "**missing**")
        obj = getattr(xnp, name, None)
        note = f"`{getattr(obj, '__module__', '')}.{getattr(obj, '__name__', name)}`" \
            if r["present"] else ""
        body.append(f"| `{name}` | {pres} | {note} |")
    body.append("")
    body += ["### Exclusions", "", "| name | reason |", "|---|---|"]
    body += [f"| `{n}` | {why} |" for n, why in sorted(EXCLUDED.items()) if n in rows]
    body.append("")
    s = summarize(rows)
    table = ["| part | names | present | differentiable | values | order 1 | order 2 | vmap | "
             "strict | excluded | missing |", "|---|" + "---|" * 10]
    for section in ("main", "linalg", "fft", "ndarray", "types"):
        if section == "types":
            part = {q: r for q, r in rows.items() if q in {_qualified(a, b) for a, b in types_}}
        else:
            part = {q: r for q, r in rows.items() if _section_of(q) == section
                    and (section, q.split(".")[-1]) not in {(a, b) for a, b in types_}}
        c = summarize(part)
        title = "dtype/type names" if section == "types" else titles[section]
        table.append(f"| {title} | " + " | ".join(str(c[k]) for k in (
            "names", "present", "differentiable", "values", "order1", "order2", "vmap", "strict",
            "excluded", "missing")) + " |")
    lines = ["## jax.numpy coverage", ""] + table + ["",
             "A row per public name of `jax.numpy`, `jax.numpy.linalg`, `jax.numpy.fft` "
             f"(jax {jax.__version__}) and of `jax.Array`. *derivative*: does `xgrad.jvp` give a "
             "non-zero tangent (on the first differentiable case of tests/test_jnp_*.py, else "
             "on the tool's sample input). *values*, *order 1*, *order 2*, *vmap*: the "
             "tests/test_jnp_*.py cases (`JCase`: value and dtype, JVP and VJP, forward over "
             "reverse, vmap against a loop, all against jax), tests/test_namespace.py's tables "
             "and, for a function that is one row of the rule table, tests/test_rules.py and "
             "tests/test_vmap.py; *rows*: the function is a composite whose rows are all tested "
             "there. *array_api_strict*: a case that runs there (or a test_rules row), else "
             "*runs (tool)* when the tool ran the function on array_api_strict arrays.", ""]
    if errors:
        lines += ["Case tables that could not be read: " + "; ".join(errors), ""]
    unknown = sorted(set(cases) - set(rows))
    if unknown:
        lines += ["Case names that are not jax.numpy names (so no row counts them): "
                  + ", ".join(f"`{n}`" for n in unknown), ""]
    return lines, body, s


def _summary_line(s):
    return (f"**jax.numpy**: {s['names']} names; {s['present']} present "
            f"({s['differentiable']} differentiable), "
            f"{s['values']} values tested, {s['order1']} tested at order 1, "
            f"{s['order2']} at order 2, {s['vmap']} vmap, {s['strict']} on array_api_strict, "
            f"{s['excluded']} excluded, {s['missing']} missing.")


# --------------------------------------------------------------------------
# conformance (array-api-tests)

def parse_junit(path):
    root = ET.parse(path).getroot()
    counts = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    failures = []
    for case in root.iter("testcase"):
        parts = case.get("classname", "").split(".")
        k = next((i for i, p in enumerate(parts) if p.startswith("test_")), len(parts) - 1)
        tid = "::".join([f"{parts[k]}.py"] + parts[k + 1:] + [case.get("name", "")])
        status = "passed"
        for tag in ("failure", "error", "skipped"):
            el = case.find(tag)
            if el is not None:
                status = {"failure": "failed", "error": "error", "skipped": "skipped"}[tag]
                if tag != "skipped":
                    msg = (el.get("message") or "").strip().splitlines()
                    failures.append([tid, msg[0][:160] if msg else ""])
                break
        counts[status] += 1
    return counts, failures


def run_conformance(suite, max_examples=20, timeout=3600):
    """Run array-api-tests (a checkout with its array-api submodule) against
    xgrad.numpy and array_api_compat.numpy; returns the conformance record."""
    record = {}
    commit = subprocess.run(["git", "-C", suite, "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    for module in ("xgrad.numpy", "array_api_compat.numpy"):
        xml = os.path.join(suite, f"junit-{module}.xml")
        env = dict(os.environ, ARRAY_API_TESTS_MODULE=module, ARRAY_API_TESTS_VERSION=VERSION,
                   PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        cmd = [sys.executable, "-m", "pytest", "array_api_tests/", f"--max-examples={max_examples}",
               "-q", "-p", "no:cacheprovider", f"--junitxml={xml}"]
        subprocess.run(["timeout", str(timeout)] + cmd, cwd=suite, env=env)
        record[module] = _record(module, xml, commit, max_examples)
    return record


def _record(label, xml, commit, max_examples=20):
    """One run's record; ``label`` is ``MODULE`` or ``MODULE@NOTE`` (a note on
    the code that ran, e.g. a patch applied)."""
    module, _, note = label.partition("@")
    counts, failures = parse_junit(xml)
    return {"counts": counts, "failures": failures, "suite_commit": commit, "note": note,
            "date": datetime.date.today().isoformat(),
            "command": (("PYTHONPATH=<xgrad checkout> " if module.startswith("xgrad") else "")
                        + f"ARRAY_API_TESTS_MODULE={module} ARRAY_API_TESTS_VERSION={VERSION} "
                        f"python -m pytest array_api_tests/ --max-examples={max_examples} "
                        f"-q -p no:cacheprovider --junitxml=junit.xml")}


# --------------------------------------------------------------------------
# the report

def render(conformance):
    names = standard_names()
    tables = test_tables()
    calls = mentions()
    lines = [
        "## Array API coverage",
        "",
        f"* `xgrad.numpy.__array_api_version__` = `{xnp.__array_api_version__}`",
        "* Names of the standard: array_api_strict "
        f"{__import__('array_api_strict').__version__} (main namespace, `linalg`, `fft`); "
        "names introduced after 2024.12 are marked. `special`: the list in docs/api.md.",
        "* Derivative: found by running each function on a sample input under `xgrad.jvp`: "
        "*primitive* = one row of the rule table (its rules listed); *composite* = built from "
        "the rows listed (derivatives come from theirs); *zero derivative* = piecewise "
        "constant; *non-differentiable* = integer/bool output.",
        "* Tests: the case tables of tests/test_rules.py (every differentiable row: value, JVP, "
        "VJP and the four second orders vs JAX, finite differences, dot-product identity; "
        "float32/float64; numpy and array_api_strict), tests/test_vmap.py (every row: "
        "vmap vs a loop and vs jax.vmap), tests/test_namespace.py, and the test files that "
        "call the name.",
        "",
    ]
    if tables["errors"]:
        lines += ["Test tables that could not be read: " + "; ".join(tables["errors"]), ""]
    summary = []
    body = []
    infos = {}
    for section in ("main", "linalg", "fft", "special"):
        rows = names[section]
        title = {"main": "Main namespace", "linalg": "`linalg` extension",
                 "fft": "`fft` extension", "special": "`special` (xgrad.numpy.special)"}[section]
        body += [f"## {title}", "", "| name | since | in xgrad.numpy | derivative | tested |",
                 "|---|---|---|---|---|"]
        have = 0
        std = 0
        for name, kind, since in rows:
            later = since is not None and since > VERSION
            if kind != "function":
                mod = xnp if section == "main" else getattr(xnp, section, None)
                ok = mod is not None and hasattr(mod, name)
                info = {"status": "yes" if ok else "missing", "derivative": f"({kind})", "prims": []}
            else:
                info = classify(section, name)
                infos[(section, name)] = info
            ok = info["status"] == "yes"
            if not later:
                std += 1
                have += ok
            t = tested(section, name, info, tables, calls) if ok and kind == "function" else ""
            body.append(f"| `{name}` | {since or ''}{' (after 2024.12)' if later else ''} | "
                        f"{'yes' if ok else '**missing**'} | {info['derivative']} | {t} |")
        body.append("")
        summary.append(f"| {title} | {have} / {std} |")
    lines += ["### Summary", "", "| part | 2024.12 names implemented |", "|---|---|"] + summary + [""]
    lines += [b.replace("## ", "### ", 1) if b.startswith("## ") else b for b in body]
    jlines, jbody, jsum = jnp_report(infos, tables)
    head = ["# Coverage of `xgrad.numpy`", "",
            "Generated by `python tools/coverage.py` from the rule table, the namespace itself "
            "and the test modules; do not edit by hand.", "",
            _summary_line(jsum), "",
            f"**Array API {VERSION}**: " + ", ".join(
                f"{t.split('|')[1].strip()} {t.split('|')[2].strip()}" for t in summary) + ".", ""]
    out = head + jlines + jbody + other_modules_report() + lines + _render_conformance(conformance)
    return "\n".join(out) + "\n"


def _render_conformance(conf):
    out = ["## Conformance: data-apis/array-api-tests", ""]
    if not conf:
        return out + ["Not run yet: `python tools/coverage.py --run-conformance PATH`.", ""]
    out += ["The suite is not vendored: fetch data-apis/array-api-tests (with its `array-api` "
            "submodule), `pip install pytest hypothesis ndindex array-api-strict`, and run "
            "`python tools/coverage.py --run-conformance PATH/TO/array-api-tests` (both runs, "
            "then this report), or the commands below from the suite's root and "
            "`python tools/coverage.py --junit MODULE=junit.xml`. Hypothesis draws examples at "
            "random, so a run may differ from another by a rare special case.", ""]
    out += ["| run | passed | failed | errors | skipped | total | suite commit | date |",
            "|---|---|---|---|---|---|---|---|"]
    for label, rec in conf.items():
        c = rec["counts"]
        module, _, note = label.partition("@")
        name = f"`{module}`" + (f" ({note})" if note else "")
        out.append(f"| {name} | {c['passed']} | {c['failed']} | {c['error']} | {c['skipped']} | "
                   f"{sum(c.values())} | {rec['suite_commit'][:10]} | {rec['date']} |")
    out.append("")
    ref = conf.get("array_api_compat.numpy")
    ref_fail = {t for t, _ in ref["failures"]} if ref else set()
    for label, rec in conf.items():
        module, _, note = label.partition("@")
        out += [f"### `{module}`" + (f" ({note})" if note else ""), "", "```",
                rec["command"], "```", ""]
        fails = rec["failures"]
        if not fails:
            continue
        if ref is not None and rec is not ref:
            own = [f for f in fails if f[0] not in ref_fail]
            shared = len(fails) - len(own)
            out += [f"{len(fails)} failures; {shared} of them fail for array_api_compat.numpy "
                    f"too (numpy's behaviour)" + (f"; the other {len(own)}:" if own else
                                                  ", none other."), ""]
            fails = own
        else:
            out += [f"{len(fails)} failures:", ""]
        out += [f"* `{tid}`: {msg.replace('|', '/')}" for tid, msg in fails]
        out.append("")
    return out


# JAX's other modules: (jax module, xgrad module, the test files that test it)
OTHER_MODULES = [
    ("jax.scipy.special", "xgrad.scipy.special", ["test_scipy_special.py", "test_special.py"]),
    ("jax.scipy.stats", "xgrad.scipy.stats", ["test_scipy_stats.py"]),
    ("jax.scipy.linalg", "xgrad.scipy.linalg", ["test_scipy_linalg.py"]),
    ("jax.scipy.signal", "xgrad.scipy.signal", ["test_scipy_signal.py"]),
    ("jax.scipy.integrate", "xgrad.scipy.integrate", ["test_scipy_signal.py"]),
    ("jax.nn", "xgrad.nn", ["test_nn.py"]),
    ("jax.random", "xgrad.random", ["test_random.py"]),
    ("jax.tree_util", "xgrad.tree_util", ["test_tree_util.py"]),
]
# names of those modules with no meaning here, and why
OTHER_EXCLUDED = {
    "jax.nn.initializers": "out of the issue's scope (jax.nn's initializers)",
    "jax.nn.scaled_matmul": "microscaling float8/float4 dtypes (and cuDNN)",
    "jax.nn.scaled_dot_general": "microscaling float8/float4 dtypes",
    "jax.nn.get_scaled_dot_general_config": "microscaling float8/float4 dtypes",
    "jax.random.random_gamma_p": "a JAX primitive object (xgrad's rows are internal)",
    "jax.tree_util.default_registry": "JAX's registry object (xgrad.tree has its own)",
    "jax.tree_util.KeyEntry": "a typing alias (any of the key types)",
    "jax.tree_util.KeyPath": "a typing alias (a tuple of keys)",
    "jax.tree_util.PyTreeDef": "JAX's treedef class: optree's PyTreeSpec plays its part "
                               "(what tree_structure returns)",
}


def _public_names(mod):
    return sorted(n for n in dir(mod) if not n.startswith("_"))


def other_modules_report():
    """Markdown lines: each public name of the jax modules above, whether
    xgrad has it, and whether its test files call it (for a stats
    distribution: each function of its module)."""
    import importlib
    tdir = os.path.join(ROOT, "tests")
    lines = ["## JAX's other modules", "",
             "Each public name of the jax module (jax "
             f"{importlib.import_module('jax').__version__}), whether the xgrad module has it, "
             "and the test files that call it (against jax: values, derivatives, vmap; see "
             "each file's docstring).", ""]
    summary = ["| module | names | present | tested | excluded | missing |", "|---|---|---|---|---|---|"]
    body = []
    for jname, xname, files in OTHER_MODULES:
        jmod, xmod = importlib.import_module(jname), importlib.import_module(xname)
        text = "".join(open(os.path.join(tdir, f), encoding="utf-8").read() for f in files)
        rows, counts = [], dict(names=0, present=0, tested=0, excluded=0, missing=0)
        for n in _public_names(jmod):
            obj = getattr(jmod, n)
            subs = [(f"{n}.{m}", getattr(obj, m)) for m in _public_names(obj)
                    if callable(getattr(obj, m))] if jname == "jax.scipy.stats" and \
                isinstance(obj, type(jmod)) else [(n, obj)]
            for qual, _ in subs:
                counts["names"] += 1
                full = f"{jname}.{qual}"
                if full in OTHER_EXCLUDED:
                    counts["excluded"] += 1
                    rows.append(f"| `{qual}` | excluded: {OTHER_EXCLUDED[full]} | |")
                    continue
                x = xmod
                for part in qual.split("."):
                    x = getattr(x, part, None)
                if x is None:
                    counts["missing"] += 1
                    rows.append(f"| `{qual}` | **missing** | |")
                    continue
                counts["present"] += 1
                leaf = qual.split(".")[-1]
                head = qual.split(".")[0]
                hit = re.search(r"\b" + re.escape(leaf) + r"\b", text) is not None and \
                    (head == leaf or re.search(r"\b" + re.escape(head) + r"\b", text) is not None)
                counts["tested"] += hit
                rows.append(f"| `{qual}` | yes | {', '.join(files) if hit else 'not called'} |")
        summary.append(f"| `{xname}` | {counts['names']} | {counts['present']} | {counts['tested']} | "
                       f"{counts['excluded']} | {counts['missing']} |")
        body += [f"### `{xname}`", "", "| name | present | tested in |", "|---|---|---|"] + rows + [""]
    return lines + summary + [""] + body


def main(argv=None):
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run-conformance", metavar="SUITE",
                    help="run array-api-tests from this checkout first (minutes)")
    ap.add_argument("--junit", action="append", default=[], metavar="MODULE[@NOTE]=FILE",
                    help="record an existing JUnit XML result of array-api-tests (NOTE: "
                         "what differed from the repository, e.g. a patch)")
    ap.add_argument("--suite-commit", default="", help="commit of the suite (with --junit)")
    ap.add_argument("--max-examples", type=int, default=20)
    args = ap.parse_args(argv)
    conf = json.load(open(CONF)) if os.path.exists(CONF) else {}
    if args.run_conformance:
        conf.update(run_conformance(args.run_conformance, args.max_examples))
    for spec in args.junit:
        label, path = spec.split("=", 1)
        conf[label] = _record(label, path, args.suite_commit, args.max_examples)
    if args.run_conformance or args.junit:
        os.makedirs(os.path.dirname(CONF), exist_ok=True)
        with open(CONF, "w") as fh:
            json.dump(conf, fh, indent=1, sort_keys=True)
    text = render(conf)
    os.makedirs(os.path.dirname(DOC), exist_ok=True)
    with open(DOC, "w", encoding="utf-8") as fh:
        fh.write(text)
    print(f"wrote {os.path.relpath(DOC, ROOT)}")


if __name__ == "__main__":
    main()
