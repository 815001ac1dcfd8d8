"""torch quirks (``torch.Tensor`` through ``array_api_compat.torch``).

Where each known difference from numpy is handled:

- scatter-add with repeated integer indices: ``index_add`` below (torch's
  ``index_add_`` on the flat positions; ``x[i] += v`` would drop repeats, and
  ``Tensor.size`` is a method, which the generic path can't call);
- setitem, ``copy=``, creation functions with ``device=``: the generic paths
  in ``backends/__init__.py`` through ``array_api_compat.torch`` (its
  ``asarray(x, copy=True)`` clones; setitem on the clone never writes the
  caller's tensor);
- dtype promotion of Python scalars: ``array_api_compat.torch`` follows the
  standard (a scalar takes the tensor's dtype), and xgrad creates its own
  constants with explicit dtypes; NB: ``torch.asarray(1.5)`` alone is
  float32 (torch's default dtype), so xgrad never relies on it;
- strided (transposed, expanded) tensors: ``index_add`` works on a
  contiguous clone, so a view of a view is never written;
- special functions (the scipy-valued rows): ``rules/special.py`` hands CPU
  tensors to scipy through DLPack (no copy) and back; CUDA tensors raise a
  TypeError (torch.special is not wired in: it lacks many of the rows).
"""


def _may_repeat(p):
    """An index part that can repeat positions: an integer array (numpy or
    torch), not a boolean mask."""
    shape = getattr(p, "shape", None)
    if shape is None or isinstance(p, (bool, int)) or len(shape) == 0:
        return False
    return "bool" not in str(p.dtype)


def index_add(x, idx, v):
    # optional third-party package: imported only when torch tensors are met
    import torch
    out = x.clone(memory_format=torch.contiguous_format)
    parts = idx if type(idx) is tuple else (idx,)
    if not any(_may_repeat(p) for p in parts):
        out[idx] = out[idx] + v                  # no index repeats: plain setitem
        return out
    # the flat positions the index selects (any index torch can gather with),
    # then one index_add_ on the flat view: repeated positions accumulate.
    # NB: on CUDA the order of the additions (atomics) is not deterministic.
    pos = torch.arange(out.numel(), device=out.device).reshape(out.shape)[idx]
    vals = torch.as_tensor(v, dtype=out.dtype, device=out.device)
    if vals.ndim > pos.ndim:                     # leading size-1 axes, as setitem allows
        vals = vals.reshape(tuple(vals.shape)[vals.ndim - pos.ndim:])
    vals = vals.broadcast_to(pos.shape)
    out.view(-1).index_add_(0, pos.reshape(-1), vals.reshape(-1))
    return out
