"""Sphinx extension of the xgrad site: the parts that are generated from the
code at build time, so that they cannot go stale.

- API reference: one page per public module, ``_generated/api/<module>.rst``,
  written when the builder starts. Modules and names come from the package
  itself, never from file paths: ``xgrad`` and the public submodules it
  exports, each module's ``__all__`` (a module without one, like
  ``xgrad.numpy``: the functions and classes defined in it or its private
  submodules, and its public submodules). A name listed in ``__all__`` but
  absent is reported (``-v``) and skipped. An object exported by several
  modules (``check_grads``, ``remat``, ``linalg.matmul``) is documented once,
  in its home module (the longest prefix of its ``__module__``), and
  elsewhere is a short entry that links there.
- Examples: one page per script in ``examples/``, with its docstring, its
  recorded output and picture (``docs/examples/<name>.txt``/``.png``, made by
  ``scripts/render_examples.py``) and its source.
- ``xgrad-nb-notes`` directive: every ``NB:`` in the package's docstrings and
  comments (the deliberate differences from JAX and numpy), with where it is.

Everything generated goes under ``docs/_generated/`` (ignored by git) and is
rewritten only when it changes, so incremental builds stay incremental.
"""
import ast
import importlib
import inspect
import io
import os
import re
import sys
import tokenize
import types

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.util import logging

logger = logging.getLogger(__name__)

PACKAGE = "xgrad"
DOCS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(DOCS)
GENERATED = os.path.join(DOCS, "_generated")


def write_if_changed(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def heading(text, char):
    return f"{text}\n{char * len(text)}\n"


def indent(text, prefix="   "):
    return "\n".join(prefix + line if line.strip() else "" for line in text.splitlines())


# ----- API reference -----

def public_names(mod):
    """The public names of a module, in the order the module gives them."""
    names = getattr(mod, "__all__", None)
    if names is not None:
        missing = [n for n in names if not hasattr(mod, n)]
        for n in missing:
            logger.info(f"xgrad_docs: {mod.__name__}.__all__ lists {n!r}, which is absent; skipped")
        return [n for n in names if n not in missing]
    out = []
    for n in sorted(vars(mod)):
        if n.startswith("_"):
            continue
        obj = getattr(mod, n)
        if isinstance(obj, types.ModuleType):
            if obj.__name__.startswith(mod.__name__ + "."):
                out.append(n)
        elif (inspect.isroutine(obj) or inspect.isclass(obj)) and (
                getattr(obj, "__module__", None) or "").startswith(mod.__name__):
            out.append(n)
    return out


def public_modules():
    """xgrad and the public submodules reachable through public names, once each."""
    found = {}

    def visit(mod):
        if mod.__name__ in found:
            return
        found[mod.__name__] = mod
        for n in public_names(mod):
            obj = getattr(mod, n)
            if isinstance(obj, types.ModuleType) and obj.__name__.startswith(PACKAGE + "."):
                visit(obj)
    visit(importlib.import_module(PACKAGE))
    return found


def summary(obj):
    """The first paragraph of a docstring, on one line."""
    doc = inspect.getdoc(obj) or ""
    first = doc.strip().split("\n\n")[0]
    return " ".join(line.strip() for line in first.splitlines())


def kind(obj):
    if isinstance(obj, types.ModuleType):
        return "mod"
    if inspect.isclass(obj):
        return "exc" if issubclass(obj, BaseException) else "class"
    if inspect.isroutine(obj):
        return "func"
    return "data"


def homes(modules):
    """id(obj) -> (module name, name) where the object gets its full entry."""
    listed = {}
    for mname, mod in modules.items():
        for n in public_names(mod):
            obj = getattr(mod, n)
            if kind(obj) != "mod":
                listed.setdefault(id(obj), []).append((mname, n))
    home = {}
    for key, places in listed.items():
        obj_mod = getattr(_objects[key], "__module__", None) or ""
        def rank(place):
            mname, n = place
            prefix = obj_mod == mname or obj_mod.startswith(mname + ".")
            same_name = n == getattr(_objects[key], "__name__", n)
            return (not prefix, -len(mname) if prefix else 0, not same_name)
        home[key] = min(places, key=rank)
    return home


_objects = {}


def _foreign_class(obj):
    """A class xgrad re-exports from numpy (dtypes, scalar types, ComplexWarning)."""
    return inspect.isclass(obj) and (getattr(obj, "__module__", "") or "").split(".")[0] == "numpy"


def _foreign_text(obj):
    return (f"numpy's ``{obj.__module__}.{obj.__name__}``, re-exported (as jax.numpy "
            "re-exports numpy's types).")


def module_page(mname, mod, home):
    lines = [f".. _api-{mname}:", "", heading(f"``{mname}``", "="),
             f".. automodule:: {mname}", "   :no-members:", ""]
    names = public_names(mod)
    subs = [n for n in names if kind(getattr(mod, n)) == "mod"]
    entries = [n for n in names if kind(getattr(mod, n)) != "mod"]
    if subs:
        names_of = {}                       # a module exported under two names: one item
        for n in subs:
            names_of.setdefault(getattr(mod, n).__name__, []).append(n)
        items = []
        for target, ns in names_of.items():
            aliases = [f"``{mname}.{n}``" for n in ns if f"{mname}.{n}" != target]
            also = f" (also {', '.join(aliases)})" if aliases else ""
            items.append(f"- :py:mod:`{target}`{also}: {summary(sys.modules[target])}")
        lines += [heading("Submodules", "-"), *items, ""]
    if not entries:
        return "\n".join(lines) + "\n"
    rows = []
    for n in entries:
        obj = getattr(mod, n)
        hm, hn = home[id(obj)]
        text = summary(obj) or "(no docstring)"
        if _foreign_class(obj):
            text = _foreign_text(obj)
        if (hm, hn) != (mname, n):
            text = f"The same object as :py:obj:`{hm}.{hn}`."
        rows.append(f"   * - :py:obj:`~{mname}.{n}`\n     - {text}")
    lines += [heading("Summary", "-"), ".. list-table::", "   :header-rows: 1",
              "   :widths: 25 75", "", "   * - name", "     - what it is", *rows, "",
              heading("Reference", "-")]
    for n in entries:
        obj = getattr(mod, n)
        k = kind(obj)
        hm, hn = home[id(obj)]
        if (hm, hn) != (mname, n):
            directive = {"class": "py:class", "exc": "py:exception",
                         "func": "py:function", "data": "py:data"}[k]
            role = "obj"
            lines += [f".. {directive}:: {n}", "",
                      f"   The same object as :py:{role}:`{hm}.{hn}`.", ""]
        elif _foreign_class(obj):
            # numpy's types (their docstrings are numpy's RST, with numpy's labels)
            directive = "py:exception" if k == "exc" else "py:class"
            lines += [f".. {directive}:: {n}", "", f"   {_foreign_text(obj)}", ""]
        elif k in ("class", "exc"):
            auto = "autoexception" if k == "exc" else "autoclass"
            lines += [f".. {auto}:: {n}", "   :members:", ""]
        elif k == "func":
            lines += [f".. autofunction:: {n}", ""]
        else:
            lines += [f".. autodata:: {n}", "   :no-value:", ""]
    return "\n".join(lines) + "\n"


def generate_api(app):
    modules = public_modules()
    _objects.clear()
    for mod in modules.values():
        for n in public_names(mod):
            obj = getattr(mod, n)
            _objects[id(obj)] = obj
    home = homes(modules)
    outdir = os.path.join(GENERATED, "api")
    wanted = set()
    for mname, mod in modules.items():
        wanted.add(mname + ".rst")
        write_if_changed(os.path.join(outdir, mname + ".rst"), module_page(mname, mod, home))
    for fn in os.listdir(outdir):               # a module that is gone
        if fn not in wanted:
            os.remove(os.path.join(outdir, fn))


# ----- examples -----

def example_page(name):
    path = os.path.join(ROOT, "examples", name + ".py")
    with open(path, encoding="utf-8") as f:
        source = f.read()
    doc = ast.get_docstring(ast.parse(source)) or ""
    title = doc.split("\n\n")[0].replace("\n", " ") or name
    rel = f"../../../examples/{name}.py"
    lines = [f".. _example-{name}:", "", heading(f"``{name}.py``: {title}", "="),
             "::", "", indent(doc), ""]
    picture = os.path.join(DOCS, "examples", name + ".png")
    output = os.path.join(DOCS, "examples", name + ".txt")
    if '"--plot"' in source and not os.path.exists(picture):
        logger.warning(f"xgrad_docs: examples/{name}.py draws a picture but "
                       f"docs/examples/{name}.png is missing: run scripts/render_examples.py")
    if os.path.exists(picture):
        lines += [heading("Picture", "-"), f".. image:: ../../examples/{name}.png",
                  f"   :alt: the picture drawn by examples/{name}.py", ""]
    if os.path.exists(output):
        lines += [heading("Output", "-"),
                  f"``python examples/{name}.py``, as recorded by ``scripts/render_examples.py``:",
                  "", f".. literalinclude:: ../../examples/{name}.txt", "   :language: text", ""]
    lines += [heading("Source", "-"), f".. literalinclude:: {rel}", "   :language: python", ""]
    return "\n".join(lines) + "\n"


def generate_examples(app):
    outdir = os.path.join(GENERATED, "examples")
    names = sorted(fn[:-3] for fn in os.listdir(os.path.join(ROOT, "examples"))
                   if fn.endswith(".py") and not fn.startswith("_"))
    for name in names:
        write_if_changed(os.path.join(outdir, name + ".rst"), example_page(name))
    for fn in os.listdir(outdir):
        if fn[:-4] not in names:
            os.remove(os.path.join(outdir, fn))


# ----- NB: notes -----

def _scopes(tree):
    """(first line, last line, qualified name) of every def and class."""
    out = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = prefix + child.name
                out.append((child.lineno, child.end_lineno, qual))
                walk(child, qual + ".")
            else:
                walk(child, prefix)
    walk(tree, "")
    return out


def _scope_of(scopes, line):
    inner = [s for s in scopes if s[0] <= line <= s[1]]
    return max(inner, key=lambda s: s[0])[2] if inner else None


def nb_notes(path):
    """[(line, scope, text)] for each NB: of a Python file, a docstring's
    paragraph or a comment block."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    tree = ast.parse(source)
    scopes = _scopes(tree)
    notes = []
    # docstrings: the paragraphs that contain NB:
    for node in [tree] + [n for n in ast.walk(tree) if isinstance(
            n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]:
        doc = ast.get_docstring(node, clean=True)
        if not doc or "NB:" not in doc:
            continue
        start = node.body[0].lineno
        lines = doc.splitlines()
        seen = set()
        for i, line in enumerate(lines):
            if "NB:" not in line or _item(lines, i) in seen:
                continue
            seen.add(_item(lines, i))
            scope = _scope_of(scopes, node.lineno) if hasattr(node, "name") else None
            notes.append((start + i, scope, _item(lines, i)))
    # comments: the block of consecutive comment lines around each NB:
    comments = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string.lstrip("#").strip()
    lines = source.splitlines()
    full = {n for n in comments if lines[n - 1].lstrip().startswith("#")}
    used = set()
    for n in sorted(comments):
        if "NB:" not in comments[n] or n in used:
            continue
        first = last = n
        if n in full:       # a comment line of its own: the block above belongs to it
            while first - 1 in full and first - 1 not in used and not _stops(comments[first - 1]):
                first -= 1
        while last + 1 in full and not _stops(comments[last + 1]):
            last += 1
        block = range(first, last + 1)
        used.update(block)
        notes.append((n, _scope_of(scopes, n), " ".join(comments[i] for i in block)))
    return sorted(notes)


_ITEM = re.compile(r"^\s*- |^\s+[\w*]+( \([^)]*\))?: ")


def _item(lines, i):
    """The part of a docstring around line i that a note needs: its list item
    or Google-style argument entry if it is in one, else its paragraph; on
    one line."""
    top = i
    while top > 0 and lines[top].strip() and not _ITEM.match(lines[top]):
        top -= 1
    if not lines[top].strip() or not _ITEM.match(lines[top]):     # a plain paragraph
        top = top + 1 if not lines[top].strip() else top
        end = i
        while end + 1 < len(lines) and lines[end + 1].strip() and not _ITEM.match(lines[end + 1]):
            end += 1
    else:
        depth = len(lines[top]) - len(lines[top].lstrip())
        end = top
        while (end + 1 < len(lines) and lines[end + 1].strip() and not _ITEM.match(lines[end + 1])
               and len(lines[end + 1]) - len(lines[end + 1].lstrip()) > depth - (
                   0 if lines[top].lstrip().startswith("- ") else 1)):
            end += 1
        if end < i:
            end = i
    return " ".join(line.strip() for line in lines[top:end + 1])


def _stops(comment):
    """A banner (``----- x -----``) or an empty comment ends a block."""
    return not comment or comment.startswith("-----")


def inline(text):
    """Text with ``literal`` and `literal` spans as docutils nodes (no parsing,
    so comment text never trips a markup warning)."""
    out = []
    pos = 0
    for m in re.finditer(r"``(.+?)``|`([^`]+?)`", text):
        if m.start() > pos:
            out.append(nodes.Text(text[pos:m.start()]))
        code = m.group(1) or m.group(2)
        out.append(nodes.literal(code, code))
        pos = m.end()
    if pos < len(text):
        out.append(nodes.Text(text[pos:]))
    return out


class NBNotes(Directive):
    """Every NB: in the package, grouped by file."""
    has_content = False

    def run(self):
        env = self.state.document.settings.env
        pkg = os.path.join(ROOT, PACKAGE)
        result = []
        for dirpath, dirnames, filenames in os.walk(pkg):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(("_", ".")))
            for fn in sorted(filenames):
                if not fn.endswith(".py"):
                    continue
                path = os.path.join(dirpath, fn)
                env.note_dependency(path)
                notes = nb_notes(path)
                if not notes:
                    continue
                rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
                module = rel[:-3].replace("/", ".").removesuffix(".__init__")
                items = nodes.bullet_list()
                for line, scope, text in notes:
                    where = f"{module}.{scope}" if scope else module
                    para = nodes.paragraph()
                    para += nodes.literal(where, where)
                    para += nodes.Text(f" ({rel}, line {line}): ")
                    para += inline(text)
                    items += nodes.list_item("", para)
                section = nodes.section(ids=[nodes.make_id("nb-" + module)])
                section += nodes.title(module, module)
                section += items
                result.append(section)
        return result


def generate(app):
    generate_api(app)
    generate_examples(app)


def setup(app):
    app.connect("builder-inited", generate)
    app.add_directive("xgrad-nb-notes", NBNotes)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
