"""Each public module exposes its API and nothing else: its public names
(``dir()`` without the underscored ones) are exactly ``__all__`` plus its
submodules, every name in ``__all__`` exists, and none of them is something
the module imported for its own use (``sys``, ``annotations``, ``bind``,
``RULES``): each public value is defined in xgrad's public package it
belongs to, or is a plain constant (or, in ``xgrad.numpy``, a dtype)."""
import importlib
import types

import pytest

import xgrad
import xgrad.numpy as xnp

PUBLIC = ["xgrad", "xgrad.numpy", "xgrad.numpy.linalg", "xgrad.numpy.fft",
          "xgrad.numpy.special", "xgrad.tree", "xgrad.testing", "xgrad.optim", "xgrad.debug",
          "xgrad.program", "xgrad.transforms.checkpoint_policies", "xgrad.tree_util", "xgrad.scipy",
          "xgrad.scipy.special", "xgrad.scipy.stats", "xgrad.scipy.linalg", "xgrad.scipy.signal",
          "xgrad.scipy.integrate", "xgrad.nn", "xgrad.random", "xgrad.lax"]

_DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float32", "float64", "complex64", "complex128"}


def _public(mod):
    return {n for n in dir(mod) if not n.startswith("_")}


def _submodules(mod):
    return {n for n in _public(mod) if isinstance(getattr(mod, n), types.ModuleType)
            and getattr(mod, n).__name__.startswith("xgrad.")}


# the JAX-named modules re-export xgrad's own functions under JAX's names
_SHARED = {"xgrad.tree_util": ("xgrad.tree",), "xgrad.scipy": ("xgrad.numpy",),
           "xgrad.nn": ("xgrad.numpy",), "xgrad.lax": ("xgrad.transforms",)}


def _home(name):
    """The public packages a module's values may come from: ``xgrad.numpy``
    for ``xgrad.numpy.linalg`` (which re-exports ``matmul``), ``xgrad`` for
    the top level (which re-exports the transforms); the JAX-named modules
    also share ``xgrad.numpy``'s and ``xgrad.tree``'s functions."""
    top = ".".join(name.split(".")[:2])
    return (top,) + _SHARED.get(top, ())


def _foreign(mod):
    home = _home(mod.__name__)
    bad = []
    for n in sorted(_public(mod)):
        v = getattr(mod, n)
        if isinstance(v, types.ModuleType):
            ok = v.__name__.startswith("xgrad.")
        elif v is None or type(v) in (bool, int, float, complex, str):
            ok = True
        elif "xgrad.numpy" in home and n in _DTYPES:
            ok = True
        elif "xgrad.numpy" in home and isinstance(v, type) and getattr(v, "__module__", "") \
                .split(".")[0] == "numpy":
            # numpy's scalar types, dtype class and ComplexWarning, re-exported
            # as jax.numpy re-exports them (float_, generic, floating, dtype, ...)
            ok = True
        else:
            m = getattr(v, "__module__", None) or ""
            ok = any(m == h or m.startswith(h + ".") for h in home)
        if not ok:
            bad.append(n)
    return bad


@pytest.mark.parametrize("name", PUBLIC)
def test_public_names_are_the_api(name):
    mod = importlib.import_module(name)
    assert all(hasattr(mod, n) for n in mod.__all__), \
        [n for n in mod.__all__ if not hasattr(mod, n)]
    extra = _public(mod) - set(mod.__all__) - _submodules(mod)
    assert extra == set(), f"{name} exposes names that are not its API: {sorted(extra)}"
    assert _foreign(mod) == [], f"{name} exposes what it imported for its own use"


def test_nothing_imported_for_internal_use_leaks():
    for name in ("xgrad.numpy", "xgrad.tree", "xgrad.testing", "xgrad.optim", "xgrad.debug",
                 "xgrad.program"):
        mod = importlib.import_module(name)
        leaked = _public(mod) & {"sys", "builtins", "annotations", "RULES", "bind",
                                 "operator_index", "math", "Tracer", "xnp"}
        assert leaked == set(), f"{name}: {sorted(leaked)}"
    assert not hasattr(xgrad, "Zero")


def test_backend_namespace_copies_keep_the_api():
    strict = pytest.importorskip("array_api_strict")
    ns = xnp.namespace_for(strict)
    assert _public(ns) == _public(xnp)
    assert ns.float32 is strict.float32
    x = ns.zeros(3, dtype=ns.float32)
    assert type(x) is type(strict.zeros(3))
