"""Checkpoint policies (``xgrad.checkpoint_policies``), JAX's names.

A policy says, for each equation of a checkpointed function's staged
forward run, whether its outputs are saved for the backward pass (True) or
recomputed there (False): ``policy(prim, *args, **params) -> bool``, with
``prim`` the primitive (``prim.name``, ``prim.family``), ``args`` its inputs
(arrays: ``.shape``, ``.ndim``, ``.dtype``) and ``params`` its parameters.
Pass one to ``xgrad.checkpoint(fun, policy=...)``; write your own the same
way.

>>> import xgrad, xgrad.numpy as xnp
>>> f = xgrad.checkpoint(lambda x, w: xnp.tanh(x @ w),
...                      policy=xgrad.checkpoint_policies.dots_saveable)
>>> round(float(xgrad.grad(lambda w: xnp.sum(f(xnp.ones((2, 2)), w)))(xnp.eye(2))[0, 0]), 6)
0.839949
"""
__all__ = ["nothing_saveable", "everything_saveable", "dots_saveable", "checkpoint_dots",
           "dots_with_no_batch_dims_saveable", "checkpoint_dots_with_no_batch_dims",
           "save_only_these_names", "save_anything_except_these_names",
           "save_any_names_but_these", "save_from_both_policies"]


def nothing_saveable(prim, *args, **params):
    """Save nothing: recompute the whole function (the default)."""
    return False


def everything_saveable(prim, *args, **params):
    """Save every output: no recomputation (no memory saved either)."""
    return True


def dots_saveable(prim, *args, **params):
    """Save the results of matrix products (``prim.family == "dot"``);
    recompute the cheap elementwise work around them."""
    return prim.family == "dot"


checkpoint_dots = dots_saveable


def dots_with_no_batch_dims_saveable(prim, *args, **params):
    """Save the products whose operands are vectors or matrices (no batch
    dimensions), as in a dense layer."""
    return prim.family == "dot" and all(getattr(a, "ndim", 0) <= 2 for a in args)


checkpoint_dots_with_no_batch_dims = dots_with_no_batch_dims_saveable


def _named(prim, params):
    return prim.name == "checkpoint_name" and params.get("name")


def save_only_these_names(*names):
    """Save only the values marked with ``xgrad.checkpoint_name(x, name)``
    for one of ``names``."""
    names = frozenset(names)

    def policy(prim, *args, **params):
        return _named(prim, params) in names
    return policy


def save_anything_except_these_names(*names):
    """Save everything except the values marked with one of ``names``."""
    names = frozenset(names)

    def policy(prim, *args, **params):
        return _named(prim, params) not in names
    return policy


save_any_names_but_these = save_anything_except_these_names


def save_from_both_policies(policy_1, policy_2):
    """Save what either policy saves."""
    def policy(prim, *args, **params):
        return policy_1(prim, *args, **params) or policy_2(prim, *args, **params)
    return policy
