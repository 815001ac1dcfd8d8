"""Sphinx configuration of the xgrad documentation site.

Build (from the repository root, in a venv with ``pip install -e ".[docs]"``):

    sphinx-build -W --keep-going -b html docs docs/_build/html

``tests/test_docs_site.py`` runs the same build (warnings are errors) in CI.
What is generated from the code at build time (API pages, example pages,
the NB: list) is in ``_ext/xgrad_docs.py``.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)                        # the xgrad of this tree, installed or not
sys.path.insert(0, os.path.join(HERE, "_ext"))

import xgrad  # noqa: E402

project = "xgrad"
author = "the xgrad developers"
copyright = "2026, the xgrad developers"
release = xgrad.__version__                     # the one version source
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "myst_parser",
    "xgrad_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# ----- docstrings -----
# Google style, the code's docstring convention: Args:/Returns:/Raises: sections.
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
napoleon_use_ivar = True
autodoc_member_order = "bysource"
autodoc_typehints = "signature"        # annotations in the signature, not repeated under Args
autodoc_typehints_format = "short"     # ``Tracer``, not ``xgrad.core.Tracer``

# ----- Markdown pages (guide, sharp bits, api.md, coverage.md, CHANGELOG) -----
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

# ----- HTML -----
html_theme = "alabaster"
html_title = f"xgrad {release}"
html_theme_options = {
    "description": "Composable automatic differentiation on array API backends",
    "fixed_sidebar": False,
}
