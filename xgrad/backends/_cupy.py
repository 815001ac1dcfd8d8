"""cupy quirks (through ``array_api_compat.cupy``).

Where each known difference from numpy is handled (cupy can't run on the
machines this was written on; ``scripts/gpu_check.sh`` runs the whole suite
on cupy where a GPU is):

- integer-index scatter with repeats: ``index_add`` below, through
  ``cupyx.scatter_add`` (``x[i] += v`` would drop repeats); its float sums
  use atomics, so their order, hence the last bits, may vary between runs;
- ``x[i] = v`` with repeated indices: which write wins is undefined on cupy;
  ``backends.index_winners`` replays the writes through ``index_set`` so
  the VJP agrees with the value whatever cupy picked (generic path);
- dtype promotion of Python scalars: cupy follows numpy 2 (NEP 50: a scalar
  takes the array's dtype) and xgrad keeps scalars weak until the impl;
- creation functions and ``device=``: xgrad creates its arrays through the
  namespace of an input, with ``device=`` that input's device
  (``xnp._device_of``), and ``xnp.zeros(..., dtype=cupy.float32)`` picks the
  array_api_compat namespace from the dtype (``numpy._creation_xp``); a
  creation call with neither gives numpy (the default backend);
- special functions: ``rules/special.py`` calls ``cupyx.scipy.special`` on
  cupy arrays (never a round trip to the host);
- fft: ``rules/fft.py`` calls ``xp.fft`` (cupy's, which caches cuFFT plans
  itself); nothing here;
- numpy scalars vs 0-d arrays: cupy returns 0-d arrays already.
"""


def index_add(x, idx, v):
    # optional third-party package: imported only when cupy arrays are met
    import cupy
    import cupyx
    out = cupy.array(x, copy=True)
    cupyx.scatter_add(out, idx, v)
    return out
