"""The package's layers, each importing only those below it:
backends < core < rules/numpy < transforms < everything public.

Two checks. Dynamic: a fresh interpreter imports one layer and reports which
xgrad modules that pulled in. ``import xgrad.core`` would run
``xgrad/__init__.py`` first, which imports everything, so the probe
registers an empty package ``xgrad`` (its ``__path__`` the package folder)
before importing the layer: only the layer's own imports run. Static: the
source of each layer, imports inside functions included (they run later, at
call time, where the dynamic check can't see them). And an import inside a
function says why it is there (``# cycle: ...`` or ``# optional ...``).
"""
import ast
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.join(ROOT, "xgrad")

# above the rules and the namespace
ABOVE_RULES = ("xgrad.transforms", "xgrad.debug", "xgrad.testing", "xgrad.optim")
# above the transforms
TOOLS = ("xgrad.debug", "xgrad.testing", "xgrad.optim")

_PROBE = """
import importlib, json, sys, types
pkg = types.ModuleType("xgrad")
pkg.__path__ = [sys.argv[1]]
sys.modules["xgrad"] = pkg
importlib.import_module(sys.argv[2])
print(json.dumps(sorted(m for m in sys.modules if m.startswith("xgrad."))))
"""


def _pulled_in(module):
    """The xgrad modules a fresh interpreter loads to import ``module``."""
    run = subprocess.run([sys.executable, "-c", _PROBE, PKG, module],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, f"importing {module} alone failed:\n{run.stderr}"
    return set(json.loads(run.stdout.strip().splitlines()[-1]))


def _under(name, prefixes):
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _modules(folder):
    """Dotted names of the modules in ``xgrad/<folder>``."""
    base = os.path.join(PKG, folder)
    return sorted(f"xgrad.{folder}.{f[:-3]}" for f in os.listdir(base)
                  if f.endswith(".py") and f != "__init__.py")


def test_backends_import_nothing_from_xgrad():
    assert {m for m in _pulled_in("xgrad.backends") if not _under(m, ["xgrad.backends"])} == set()


def test_core_imports_only_backends():
    pulled = _pulled_in("xgrad.core")
    assert {m for m in pulled if not _under(m, ["xgrad.backends", "xgrad.core"])} == set()


@pytest.mark.parametrize("module", ["xgrad.rules", "xgrad.numpy", "xgrad.numpy.linalg",
                                    "xgrad.numpy.fft", "xgrad.numpy.special",
                                    "xgrad.scipy", "xgrad.nn", "xgrad.random",
                                    "xgrad.tree_util"])
def test_rules_and_namespace_import_no_transform(module):
    pulled = _pulled_in(module)
    assert {m for m in pulled if _under(m, ABOVE_RULES)} == set()
    assert module in pulled


def test_rules_package_needs_only_the_core():
    # the table's machinery (defprim, RULES) comes before any row
    pulled = _pulled_in("xgrad.rules")
    assert {m for m in pulled if not _under(m, ["xgrad.backends", "xgrad.core", "xgrad.rules"])} \
        == set()


@pytest.mark.parametrize("module", _modules("transforms"))
def test_transforms_import_no_tool(module):
    pulled = _pulled_in(module)
    assert {m for m in pulled if _under(m, TOOLS)} == set()


# ----- static: every import statement in the source, nested ones included -----

def _sources(*parts):
    """(module name, path) of ``xgrad/<parts>``: one file, or a folder's files."""
    path = os.path.join(PKG, *parts)
    if path.endswith(".py"):
        return [(_dotted(path), path)]
    return [(_dotted(os.path.join(path, f)), os.path.join(path, f))
            for f in sorted(os.listdir(path)) if f.endswith(".py")]


def _dotted(path):
    rel = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
    return rel[:-len(".__init__")] if rel.endswith(".__init__") else rel


def _imports(module, path):
    """(line, absolute module name) of every import of an xgrad module in the
    file, at any depth; ``from . import x`` counts as ``<package>.x``."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    is_pkg = path.endswith("__init__.py")
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if _under(a.name, ["xgrad"])]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[:len(base) - node.level + (1 if is_pkg else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not _under(target, ["xgrad"]):
                continue
            if node.module is None:         # from . import a, b: the submodules
                out += [(node.lineno, f"{target}.{a.name}") for a in node.names]
            else:
                out.append((node.lineno, target))
    return out


def _violations(parts, allowed=None, forbidden=()):
    bad = []
    for module, path in _sources(*parts):
        for line, target in _imports(module, path):
            if (allowed is not None and not _under(target, allowed)) or _under(target, forbidden):
                bad.append(f"{os.path.relpath(path, ROOT)}:{line} imports {target}")
    return bad


def test_static_backends_import_nothing_from_xgrad():
    assert _violations(["backends"], allowed=["xgrad.backends"]) == []


def test_static_core_imports_only_backends():
    assert _violations(["core.py"], allowed=["xgrad.backends"]) == []


@pytest.mark.parametrize("folder", ["rules", "numpy"])
def test_static_rules_and_namespace_import_no_transform(folder):
    assert _violations([folder], forbidden=ABOVE_RULES) == []


def test_static_transforms_import_no_tool():
    assert _violations(["transforms"], forbidden=TOOLS) == []


# files being rewritten in other work, whose in-function imports are reported
# for it: take a file out of here once its imports say why
_PENDING = set()


def _nested_imports(tree):
    """Import statements inside function bodies."""
    out = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            out += [n for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))]
    return out


def _has_reason(lines, lineno):
    """A ``# cycle: ...`` or ``# optional ...`` comment on the import's line
    or on the first line above the run of imports it belongs to."""
    i = lineno - 1
    if "# cycle:" in lines[i] or "# optional" in lines[i]:
        return True
    i -= 1
    while i >= 0 and lines[i].strip().startswith(("import ", "from ")):
        i -= 1
    return i >= 0 and ("# cycle:" in lines[i] or "# optional" in lines[i])


def test_imports_inside_functions_say_why():
    bad = []
    for dirpath, _, files in os.walk(PKG):
        for f in sorted(files):
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
            if not f.endswith(".py") or rel in _PENDING:
                continue
            text = open(path, encoding="utf-8").read()
            lines = text.splitlines()
            bad += [f"{rel}:{n.lineno}" for n in _nested_imports(ast.parse(text, path))
                    if not _has_reason(lines, n.lineno)]
    assert bad == [], ("imports inside functions without a '# cycle: ...' or '# optional ...' "
                       f"reason: {bad}")
