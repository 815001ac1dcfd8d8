"""tools/coverage.py's jax.numpy part, on fake case tables (not the real
counts, which change as functions and cases are added)."""
import importlib.util
import os

import numpy as np
import pytest

from jnp_cases import JCase

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def tool():
    pytest.importorskip("jax")
    spec = importlib.util.spec_from_file_location("_xgrad_coverage_tool",
                                                  os.path.join(ROOT, "tools", "coverage.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_X = np.linspace(0.2, 0.9, 6).reshape(2, 3)

_FAKE = '''
import numpy as np
from jnp_cases import JCase
X = np.linspace(0.2, 0.9, 6).reshape(2, 3)
CASES = [JCase("sin", lambda ns, x: ns.sin(x), (X,), order=1, vmap=False),
         JCase("linalg.det", lambda ns, x: ns.linalg.det(x @ x.T), (X,)),
         JCase("ndarray.sum", lambda ns, x: x.sum(), (X,), strict=False)]
'''


def test_case_tables_are_discovered_and_a_broken_module_is_reported(tool, tmp_path):
    assert tool.load_case_tables(str(tmp_path)) == ({}, [])       # none yet: not an error
    (tmp_path / "test_jnp_fake.py").write_text(_FAKE)
    (tmp_path / "test_jnp_broken.py").write_text("raise RuntimeError('half-written')\n")
    (tmp_path / "test_other.py").write_text("raise RuntimeError('not a case table')\n")
    cases, errors = tool.load_case_tables(str(tmp_path))
    assert sorted(cases) == ["linalg.det", "ndarray.sum", "sin"]
    assert len(errors) == 1 and errors[0].startswith("test_jnp_broken.py: RuntimeError")


def test_case_status(tool):
    f = (lambda ns, x: ns.sin(x))
    assert tool.case_status([]) == dict(values=False, order1=False, order2=False, vmap=False,
                                        strict=False)
    # order 0: values only; vmap runs over differentiated arguments, so none
    assert tool.case_status([JCase("sin", f, (_X,), order=0, strict=False)]) == dict(
        values=True, order1=False, order2=False, vmap=False, strict=False)
    assert tool.case_status([JCase("sin", f, (_X,), order=1, vmap=True)]) == dict(
        values=True, order1=True, order2=False, vmap=True, strict=True)
    both = [JCase("sin", f, (_X,), order=1, vmap=False, strict=False),
            JCase("sin", f, (_X,), order=2, vmap=False, strict=True, id="b")]
    assert tool.case_status(both) == dict(values=True, order1=True, order2=True, vmap=False,
                                          strict=True)


def test_rows_and_summary(tool):
    empty = {"rules": set(), "no_derivative": set(), "vmap": set(), "ns_diff": set(),
             "ns_vmap": set(), "ns_values": set()}
    sin = tool.jnp_row("main", "sin", "function",
                       [JCase("sin", lambda ns, x: ns.sin(x), (_X,), order=1, vmap=False,
                              strict=False)], None, empty)
    assert sin["present"] and not sin["excluded"]
    assert (sin["derivative"], sin["values"], sin["order1"], sin["order2"], sin["vmap"]) == \
        ("yes", "yes", "yes", "", "")
    assert sin["strict"] == "runs (tool)"          # the tool ran the case on array_api_strict
    flat = tool.jnp_row("main", "floor", "function",
                        [JCase("floor", lambda ns, x: ns.floor(x), (_X,))], None, empty)
    assert flat["derivative"] == "zero" and flat["order2"] == "yes"
    absent = tool.jnp_row("main", "no_such_function", "function", [], None, empty)
    assert not absent["present"] and not absent["excluded"]
    save = tool.jnp_row("main", "save", "function", [], None, empty)
    assert not save["present"] and "I/O" in save["excluded"]
    counts = tool.summarize({"sin": sin, "floor": flat, "no_such_function": absent, "save": save})
    assert counts == {"names": 4, "present": 2, "differentiable": 2, "values": 2, "order1": 2,
                      "order2": 1, "vmap": 1, "strict": 2, "excluded": 1, "missing": 1}
    line = tool._summary_line(counts)
    assert "2 present" in line and "1 excluded, 1 missing" in line


def test_the_rule_tables_count_for_one_row_functions(tool):
    tables = {"rules": {"sin"}, "no_derivative": set(), "vmap": {"sin"}, "ns_diff": set(),
              "ns_vmap": set(), "ns_values": set()}
    info = {"status": "yes", "derivative": "differentiable; primitive", "prims": ["sin"]}
    row = tool.jnp_row("main", "sin", "function", [], info, tables)
    assert [row[k] for k in ("values", "order1", "order2", "vmap", "strict")] == ["yes"] * 5
    info = {"status": "yes", "derivative": "differentiable; composite", "prims": ["sin", "mul"]}
    tables["rules"].add("mul")
    row = tool.jnp_row("main", "sin", "function", [], info, tables)
    assert [row[k] for k in ("values", "order1", "order2", "vmap")] == ["rows"] * 3 + [""]


def test_exclusions_name_real_jax_names_with_a_reason(tool):
    names = tool.jnp_names()
    known = {tool._qualified(s, n) for s in ("main", "linalg", "fft") for n, _ in names[s]}
    known |= {f"ndarray.{n}" for n, _ in names["ndarray"]}
    assert set(tool.EXCLUDED) <= known, sorted(set(tool.EXCLUDED) - known)
    assert all(len(why) > 10 for why in tool.EXCLUDED.values())
    kinds = dict(names["main"])
    assert kinds["sin"] == "function" and kinds["r_"] == "index" and kinds["float32"] == "type"
    assert kinds["pi"] == "constant" and "linalg" not in kinds
