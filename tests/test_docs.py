"""The examples in the docstrings of xgrad run and print what they say."""
import doctest
import importlib
import pkgutil

import pytest

import xgrad

_MODULES = sorted(m.name for m in pkgutil.walk_packages(xgrad.__path__, "xgrad."))


@pytest.mark.parametrize("name", _MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0, f"{res.failed} of {res.attempted} docstring examples in {name} failed"
