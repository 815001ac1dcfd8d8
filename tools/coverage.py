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
        "# Array API coverage of `xgrad.numpy`",
        "",
        "Generated by `python tools/coverage.py` from the rule table, the namespace itself "
        "and the test modules; do not edit by hand.",
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
    for section in ("main", "linalg", "fft", "special"):
        rows = names[section]
        title = {"main": "Main namespace", "linalg": "`linalg` extension",
                 "fft": "`fft` extension", "special": "`special` (API.md)"}[section]
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
            ok = info["status"] == "yes"
            if not later:
                std += 1
                have += ok
            t = tested(section, name, info, tables, calls) if ok and kind == "function" else ""
            body.append(f"| `{name}` | {since or ''}{' (after 2024.12)' if later else ''} | "
                        f"{'yes' if ok else '**missing**'} | {info['derivative']} | {t} |")
        body.append("")
        summary.append(f"| {title} | {have} / {std} |")
    lines += ["## Summary", "", "| part | 2024.12 names implemented |", "|---|---|"] + summary + [""]
    lines += body
    lines += _render_conformance(conformance)
    return "\n".join(lines) + "\n"


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
