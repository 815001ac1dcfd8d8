"""The documentation site builds, warnings as errors, and has what it should;
the packaging files the site and the README rely on are there.

The build is the README's command (``sphinx-build -W --keep-going -b html
docs ...``) into a temporary directory, in a subprocess so that Sphinx's
imports and settings stay out of the test process. It is skipped when
Sphinx or myst-parser is not installed (the ``docs`` and ``test`` extras
bring both). A few seconds.
"""
import importlib.metadata
import importlib.util
import os
import re
import subprocess
import sys
import types

import pytest

import xgrad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")

needs_sphinx = pytest.mark.skipif(
    importlib.util.find_spec("sphinx") is None or importlib.util.find_spec("myst_parser") is None,
    reason="the docs tools are not installed: pip install -e '.[docs]'")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    html = out / "html"
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(out / "doctrees"), DOCS, str(html)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"the site does not build:\n{proc.stdout}\n{proc.stderr}"
    return html


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


@needs_sphinx
def test_site_builds_with_its_pages(site):
    for page in ("index", "guide", "sharp_bits", "reference", "examples", "api", "coverage",
                 "changelog", "about"):
        assert (site / f"{page}.html").exists(), page
    guide = read(site / "guide.html")
    for section in ("Traced values", "For PINN users", "For MAML users", "Guarantees", "Layout"):
        assert section in guide, section


@needs_sphinx
def test_api_reference_covers_the_public_modules(site):
    api = site / "_generated" / "api"
    for mod in ("xgrad", "xgrad.numpy", "xgrad.numpy.linalg", "xgrad.numpy.fft",
                "xgrad.numpy.special", "xgrad.tree", "xgrad.debug", "xgrad.testing",
                "xgrad.optim"):
        assert (api / f"{mod}.html").exists(), mod
    page = read(api / "xgrad.html")
    for name in xgrad.__all__:
        if not isinstance(getattr(xgrad, name), types.ModuleType):
            assert f'id="xgrad.{name}"' in page, name     # every public name has an entry


@needs_sphinx
def test_sharp_bits_lists_every_nb(site):
    count = 0
    for dirpath, _, filenames in os.walk(os.path.join(ROOT, "xgrad")):
        for fn in filenames:
            if fn.endswith(".py"):
                count += read(os.path.join(dirpath, fn)).count("NB:")
    page = read(site / "sharp_bits.html")
    body = page[page.index("Every <code"):]
    assert body.count("NB:") >= count > 0


@needs_sphinx
def test_examples_shown_with_their_pictures(site):
    examples = sorted(fn[:-3] for fn in os.listdir(os.path.join(ROOT, "examples"))
                      if fn.endswith(".py"))
    for name in examples:
        page = read(site / "_generated" / "examples" / f"{name}.html")
        assert "Source" in page, name
        if '"--plot"' in read(os.path.join(ROOT, "examples", f"{name}.py")):
            assert f"{name}.png" in page, name
            assert (site / "_images" / f"{name}.png").exists(), name


@needs_sphinx
def test_reference_follows_public_names_not_files():
    """The reference reads __all__ (or, without one, what a module defines):
    a name listed but absent (a module being moved) is skipped, not an error."""
    spec = importlib.util.spec_from_file_location(
        "xgrad_docs", os.path.join(DOCS, "_ext", "xgrad_docs.py"))
    ext = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ext)
    mod = types.ModuleType("xgrad.fake")
    mod.__all__ = ["present", "moved_away"]
    mod.present = lambda: None
    assert ext.public_names(mod) == ["present"]
    names = ext.public_names(xgrad.numpy)
    assert {"sin", "mean", "argsort", "linalg", "fft", "special"} <= set(names)
    assert not {"RULES", "bind", "math"} & set(names)
    assert set(ext.public_modules()) >= {"xgrad", "xgrad.numpy", "xgrad.numpy.linalg",
                                         "xgrad.tree", "xgrad.debug", "xgrad.testing",
                                         "xgrad.optim"}


def test_readme_and_docs_stay_inside_the_repository():
    paths = [os.path.join(ROOT, "README.md")] + [
        os.path.join(DOCS, fn) for fn in os.listdir(DOCS) if fn.endswith((".md", ".rst"))]
    for path in paths:
        assert not re.search(r"(\.\./|\b)shared/", read(path)), path


def test_readme_states_the_docs_build_command():
    readme = read(os.path.join(ROOT, "README.md"))
    assert 'pip install -q -e ".[docs]" && sphinx-build -W --keep-going -b html docs ' in readme


def test_packaging_files():
    for fn in ("LICENSE", "CHANGELOG.md", os.path.join("xgrad", "py.typed")):
        assert os.path.exists(os.path.join(ROOT, fn)), fn
    assert "MIT" in read(os.path.join(ROOT, "LICENSE"))
    pyproject = read(os.path.join(ROOT, "pyproject.toml"))
    assert re.search(r'^dynamic = \["version"\]', pyproject, re.M)
    assert 'version = { attr = "xgrad.__version__" }' in pyproject
    assert not re.search(r'^version = "', pyproject, re.M)     # one version source


def test_installed_version_is_the_package_version():
    try:
        installed = importlib.metadata.version("xgrad")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("xgrad is not installed (pip install -e .)")
    if os.path.dirname(os.path.dirname(os.path.abspath(xgrad.__file__))) != ROOT:
        pytest.skip("the installed xgrad is another tree")
    assert installed == xgrad.__version__
