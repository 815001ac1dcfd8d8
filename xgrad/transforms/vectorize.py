"""``vectorize``: NumPy's generalized-ufunc vectorization, built on ``vmap``.

The function runs once per call on whole arrays: every broadcast (loop)
dimension becomes one ``vmap`` level, so the result is differentiable and
batchable like any other xgrad function. Exported as ``xgrad.numpy.vectorize``
(by ``xgrad/__init__.py``: the namespace may not import the transforms).
"""
from __future__ import annotations

import functools
import re

from .. import numpy as xnp
from .vmap import vmap

__all__ = ["vectorize"]

_DIM = r"\w+"
_CORE = rf"(?:{_DIM}(?:,{_DIM})*)?"
_ARG = rf"\({_CORE}\)"
_ARGS = rf"{_ARG}(?:,{_ARG})*"
_SIGNATURE = re.compile(rf"^{_ARGS}->{_ARGS}$")


def _parse_signature(signature):
    """``'(m,n),(n)->(m)'`` -> ([('m', 'n'), ('n',)], [('m',)])."""
    sig = re.sub(r"\s+", "", signature)
    if not _SIGNATURE.match(sig):
        raise ValueError(f"vectorize: signature={signature!r} is not a valid gufunc signature "
                         "(expected e.g. '(m,n),(n)->(m)')")
    ins, outs = sig.split("->")
    return ([tuple(re.findall(_DIM, a)) for a in re.findall(_ARG, s)] for s in (ins, outs))


def _update_sizes(sizes, shape, core, context, what):
    if not core:
        return
    if len(shape) < len(core):
        raise ValueError(f"vectorize: {what} with shape {tuple(shape)} does not have enough "
                         f"dimensions for the core dimensions {core} {context}")
    for name, size in zip(core, shape[len(shape) - len(core):]):
        if sizes.setdefault(name, size) != size:
            raise ValueError(f"vectorize: inconsistent size for core dimension {name!r}: "
                             f"{sizes[name]} vs {size} {context}")


def _broadcast_shapes(shapes, context):
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for i, d in enumerate((1,) * (n - len(s)) + tuple(s)):
            if d != 1 and out[i] not in (1, d):
                raise ValueError(f"vectorize: loop dimensions {[tuple(t) for t in shapes]} do "
                                 f"not broadcast {context}")
            out[i] = d if d != 1 else out[i]
    return tuple(out)


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """A function that maps ``pyfunc`` over the leading (loop) dimensions of
    its arguments, as ``numpy.vectorize`` does, with ``vmap``.

    Args:
      pyfunc: the function to vectorize.
      excluded: positions (ints) or keyword names (strs) of arguments passed
        to ``pyfunc`` as they are, not vectorized.
      signature: a generalized-ufunc signature such as ``'(m,n),(n)->(m)'``:
        the trailing core dimensions ``pyfunc`` sees of each argument and
        returns; default: every argument and output is a scalar.

    Returns:
      The vectorized function.

    NB: keyword arguments not in ``excluded`` are vectorized like the
    positional ones, after them (numpy's behaviour; jax.numpy 0.10 drops
    them silently).

    >>> import xgrad, xgrad.numpy as xnp
    >>> dot = xnp.vectorize(lambda a, b: xnp.sum(a * b), signature="(n),(n)->()")
    >>> dot(xnp.ones((2, 3)), xnp.arange(3.0)).tolist()
    [3.0, 3.0]
    """
    if any(not isinstance(e, (int, str)) for e in excluded):
        raise TypeError(f"vectorize: excluded must hold ints (positions) or strs (keyword "
                        f"names), got {excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"vectorize: excluded={excluded!r} holds a negative position")
    parsed = None if signature is None else tuple(_parse_signature(signature))

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        context = f"(vectorize with excluded={excluded!r}, signature={signature!r})"
        fixed = [(i, args[i]) for i in sorted(e for e in excluded if isinstance(e, int))
                 if i < len(args)]
        fixed_kw = {k: v for k, v in kwargs.items() if k in excluded}
        kwargs = {k: v for k, v in kwargs.items() if k not in excluded}
        args = [a for i, a in enumerate(args) if i not in excluded]
        # keyword arguments that are vectorized become trailing positional ones
        keys = list(kwargs)
        args += [kwargs[k] for k in keys]
        nones = [i for i, a in enumerate(args) if a is None]
        if parsed is None:
            in_core, out_core = [()] * len(args), None
        else:
            in_core, out_core = list(parsed[0]), parsed[1]
            if len(in_core) != len(args):
                raise TypeError(f"vectorize: expected {len(in_core)} vectorized arguments, got "
                                f"{len(args)} {context}")
        if any(in_core[i] for i in nones):
            raise ValueError(f"vectorize: None passed at positions {nones}, which have core "
                             f"dimensions {context}")
        fixed_none = set(nones)
        live = [i for i in range(len(args)) if i not in fixed_none]
        arrays = [a if hasattr(a, "shape") and hasattr(a, "dtype") else xnp.asarray(a)
                  for a in (args[i] for i in live)]
        cores = [in_core[i] for i in live]

        def call(*xs):
            full = list(args)
            for i, x in zip(live, xs):
                full[i] = x
            pos = full[:len(full) - len(keys)]
            for i, a in fixed:
                pos.insert(i, a)
            kw = dict(zip(keys, full[len(full) - len(keys):]), **fixed_kw)
            out = pyfunc(*pos, **kw)
            if out_core is not None:
                outs = out if isinstance(out, tuple) else (out,)
                if len(out_core) > 1 and not isinstance(out, tuple):
                    raise TypeError(f"vectorize: the function must return a tuple of "
                                    f"{len(out_core)} outputs {context}")
                if len(outs) != len(out_core):
                    raise TypeError(f"vectorize: expected {len(out_core)} outputs, got "
                                    f"{len(outs)} {context}")
                s = dict(sizes)
                for o, c in zip(outs, out_core):
                    _update_sizes(s, tuple(xnp.asarray(o).shape if not hasattr(o, "shape")
                                           else o.shape), c, context, "output")
            return out

        sizes = {}
        loops = []
        for a, c in zip(arrays, cores):
            _update_sizes(sizes, tuple(a.shape), c, context, "input")
            loops.append(tuple(a.shape[:len(a.shape) - len(c)]))
        shape = _broadcast_shapes(loops, context)
        squeezed, filled = [], []
        for a, loop in zip(arrays, loops):
            filled.append((1,) * (len(shape) - len(loop)) + loop)
            ones = tuple(i for i, d in enumerate(loop) if d == 1)
            squeezed.append(xnp.squeeze(a, axis=ones) if ones else a)
        f = call
        expand = []
        for k in range(len(shape) - 1, -1, -1):       # innermost loop dimension first
            axes = tuple(None if s[k] == 1 else 0 for s in filled)
            if all(ax is None for ax in axes):
                expand.append(k)
            else:
                f = vmap(f, in_axes=axes)
        out = f(*squeezed)
        if not expand:
            return out

        def grow(o):
            for k in sorted(expand):
                o = xnp.expand_dims(o, axis=k)
            return o
        return tuple(grow(o) for o in out) if isinstance(out, tuple) else grow(out)

    return wrapped


vectorize.__module__ = "xgrad.numpy"
