"""The edge-value sweep: every function of the public namespaces at +-0,
+-inf, nan, +-1e308, the smallest normal and subnormal numbers, ties,
integer and boolean dtypes, empty and 0-d arrays and degenerate matrices,
under its value, jit, vmap, jvp, grad and hessian, against jax (x64):
value for value, NaN for NaN, dtype for dtype. The harness and where the
cases come from: tests/edge_cases.py.

Three tables below say where xgrad and the sweep part ways with jax:

- ``DIFFERENCES``: deliberate differences, each with its reason (the
  comparison then accepts a number where jax gives NaN, and nothing else);
- ``KNOWN``: failures not fixed yet, one line per (item, transform) with
  its symptom. The item is a strict xfail: a known line that starts
  passing fails the test ("remove the line"), and so does any other
  failure of the item;
- ``NOT_SWEPT``: public names with nothing to sweep, and why.

``XGRAD_SWEEP_RECORD=/tmp/known pytest tests/test_edge_sweep.py -k test_edge`` writes
the KNOWN lines of every failure (with its owner area) to ``/tmp/known.<pid>``
instead of failing: the table regenerated after a round of fixes.

``test_every_function_is_swept`` fails for a public function with no item
and no ``NOT_SWEPT`` line: a new function is swept the day it is added.
"""
import fnmatch
import inspect
import os

import pytest

import edge_cases as E

ITEMS = E.all_items()

# ----- deliberate differences ------------------------------------------------------
# pattern over "ident::kind::transform" -> why xgrad gives a number where jax gives NaN
DIFFERENCES = {
}

# ----- known failures (strict) -------------------------------------------------------
# "ident::kind::transform" -> "owner area: symptom"; remove the line when it passes
KNOWN = {
}


class KnownFailure(Exception):
    """Every failure of the item is a KNOWN line."""


def _nan_ok(item):
    return {t for t in E.TRANSFORMS for pat in DIFFERENCES
            if fnmatch.fnmatchcase(f"{item.test_id}::{t}", pat)}


def _known(item):
    pre = f"{item.test_id}::"
    return {k[len(pre):]: v for k, v in KNOWN.items() if k.startswith(pre)}


def _param(item):
    known = _known(item)
    marks = [pytest.mark.xfail(strict=True, raises=KnownFailure,
                               reason="; ".join(f"{t}: {v}" for t, v in sorted(known.items())))
             ] if known else []
    return pytest.param(item, id=item.test_id, marks=marks)


@pytest.mark.parametrize("item", [_param(i) for i in ITEMS])
def test_edge(item, jax):
    try:
        bad = E.run(item, jax, nan_ok=_nan_ok(item))
    except E.JaxRefuses as e:
        pytest.skip(str(e))
    known = _known(item)
    new = {t: m for t, m in bad.items() if t not in known}
    record = os.environ.get("XGRAD_SWEEP_RECORD")
    if record:               # regenerate the KNOWN table: write the lines, don't fail
        with open(f"{record}.{os.getpid()}", "a", encoding="utf-8") as fh:
            fh.writelines(line + "\n" for line in E.known_lines(item, bad))
        return
    fixed = sorted(t for t in known if t not in bad)
    msgs = [f"{item.test_id}::{t}: {m}" for t, m in sorted(new.items())]
    msgs += [f"{item.test_id}::{t} now agrees with jax: remove its KNOWN line" for t in fixed]
    assert not msgs, "\n".join(msgs)
    if known:
        raise KnownFailure("; ".join(f"{t}: {bad[t]}" for t in sorted(known)))


# ----- every public function is swept --------------------------------------------------

# public names with nothing to sweep: no floating-point array argument to put an
# edge value in, or not a function of arrays at all
_NO_FLOAT = "integer or boolean arguments only (swept by its own elementwise row if it has one)"
_CREATE = "creation from a shape, a size or Python values: no array argument to put an edge in"
_DTYPE = "a question about dtypes or types, not a function of array values"
_SPECIAL_MATRIX = "a named matrix of a given size: no array argument"
NOT_SWEPT = {
    **{n: _NO_FLOAT for n in (
        "bitwise_count", "gcd", "lcm", "packbits", "unpackbits", "ravel_multi_index",
        "unravel_index", "lexsort",
        "diag_indices", "ix_", "mask_indices", "tril_indices", "triu_indices", "nn.one_hot",
        "scipy.special.bernoulli")},
    **{n: _CREATE for n in (
        "arange", "empty", "eye", "full", "identity", "indices", "linspace", "ones", "zeros",
        "tri", "bartlett", "blackman", "hamming", "hanning", "fft.fftfreq", "fft.rfftfreq",
        "frombuffer", "fromfunction", "fromiter", "fromstring", "from_dlpack",
        "broadcast_shapes")},
    **{n: _DTYPE for n in ("can_cast", "finfo", "iinfo", "isdtype", "issubdtype",
                           "promote_types", "result_type", "namespace_for")},
    **{f"scipy.linalg.{n}": _SPECIAL_MATRIX for n in (
        "dft", "hadamard", "helmert", "hilbert", "invhilbert", "invpascal", "pascal")},
    "to_device": "moves an array between devices: no arithmetic",
    "at": "x.at itself: each method of x.at[i] is swept (at.set, at.add, ...)",
    "random_gamma": "a random draw: its derivative is tested against jax.grad in "
                    "tests/test_random.py",
    "random_gamma_grad": "the derivative of random_gamma's draw (tests/test_random.py)",
}


def _public(mod, prefix):
    out = set()
    for n in dir(mod):
        obj = getattr(mod, n)
        if n.startswith("_") or inspect.ismodule(obj) or isinstance(obj, type) or not callable(obj):
            continue
        out.add(prefix + n)
    return out


def public_functions():
    """Every public function the sweep must cover, by its swept name."""
    import xgrad
    import xgrad.nn
    import xgrad.numpy as xnp
    import xgrad.scipy.linalg
    import xgrad.scipy.special
    import xgrad.scipy.stats
    names = _public(xnp, "") | _public(xnp.linalg, "linalg.") | _public(xnp.fft, "fft.")
    names |= _public(xgrad.scipy.special, "scipy.special.")
    names |= _public(xgrad.scipy.linalg, "scipy.linalg.")
    names |= _public(xgrad.scipy.stats, "scipy.stats.")
    names |= _public(xgrad.nn, "nn.") | _public(xgrad.lax, "lax.")
    stats = xgrad.scipy.stats
    for d in dir(stats):
        sub = getattr(stats, d)
        if inspect.ismodule(sub) and not d.startswith("_"):
            names |= _public(sub, f"scipy.stats.{d}.")
    return names


def _resolve(name):
    import xgrad
    obj = xgrad.numpy if not name.startswith(("scipy.", "nn.", "lax.")) else xgrad
    for part in name.split("."):
        obj = getattr(obj, part, None)
    return obj


def swept_names():
    """The names the items sweep; a scipy.stats distribution's functions by
    the case ids that name them (``scipy.stats.norm-logpdf+cdf``), and an
    alias (``arccos`` of ``acos``) by the function it is."""
    out = set()
    for it in ITEMS:
        out.add(it.name)
        if it.name.startswith("scipy.stats.") and "-" in it.ident:
            fns = it.ident.split("-", 1)[1].split("-")[0].split("+")
            out |= {f"{it.name}.{f}" for f in fns}
    objs = {id(o) for o in map(_resolve, out) if o is not None}
    out |= {n for n in public_functions() if id(_resolve(n)) in objs}
    return out


def test_every_function_is_swept():
    missing = sorted(public_functions() - swept_names() - set(NOT_SWEPT))
    assert not missing, (f"public functions with no edge-sweep item: {missing}; add a case "
                         "(a JCase in a tests/test_*.py table, or to tests/edge_cases.py) or a "
                         "NOT_SWEPT line saying why there is nothing to sweep")
    from xgrad.core import RULES
    stale = sorted(n for n in NOT_SWEPT if n not in public_functions() | set(RULES)
                   or n in swept_names())
    assert not stale, f"NOT_SWEPT lines for names that are swept or gone: {stale}"


def test_every_row_is_swept():
    """Every row of the rule table is bound by a swept case (its own test_rules
    case, elementwise or not) or by a function that is swept."""
    import test_rules
    from xgrad.core import RULES
    elem, other = E.rule_cases()
    from test_scipy_special import COVERED_ROWS          # their scipy.special cases
    covered = {p for c in elem + other for p in c.prims} | set(COVERED_ROWS)
    names = swept_names()
    missing = sorted(r for r in RULES if r not in covered and r not in names
                     and f"scipy.special.{r}" not in names and r not in test_rules.NO_DERIVATIVE
                     and r not in NOT_SWEPT)
    assert not missing, f"rows of the rule table that no edge-sweep item binds: {missing}"


def test_every_at_method_and_mode_is_swept():
    from xgrad.numpy._at import _IndexUpdateRef      # x.at[i]: its methods
    methods = {n for n in dir(_IndexUpdateRef) if not n.startswith("_")
               and callable(getattr(_IndexUpdateRef, n))}
    ids = {it.ident.split("#")[0] for it in ITEMS if it.name.startswith("at.")}
    missing = []
    for m in sorted(methods):
        modes = ("clip", "fill", "drop") if m == "get" else ("clip", "drop")
        have = {i for i in ids if i.startswith(f"at.{m}")}
        if not have:
            missing.append(f"at.{m}")
        missing += [f"at.{m} mode={mode}" for mode in modes
                    if not any(mode in i for i in have)]
    assert not missing, f".at methods and modes with no edge-sweep item: {missing}"


def test_tables_name_real_items():
    ids = {f"{it.test_id}::{t}" for it in ITEMS for t in E.TRANSFORMS}
    stale = sorted(k for k in KNOWN if k not in ids)
    assert not stale, f"KNOWN lines naming no item: {stale}"
    unused = sorted(p for p in DIFFERENCES if not any(fnmatch.fnmatchcase(i, p) for i in ids))
    assert not unused, f"DIFFERENCES patterns matching no item: {unused}"
