"""jax quirks (``jax.Array`` through ``jax.numpy``, its own array API namespace).

jax arrays are immutable: ``x[i] = v`` raises jax's TypeError ("JAX arrays
are immutable ... use x = x.at[idx].set(y)"). xgrad never writes an array
in place: on traced values ``x[i] = v`` is already a functional update (the
``index_set`` row), and its two scatters come here, as ``.at[]`` updates.
A user's own ``x[i] = v`` on a plain jax array gets jax's error unchanged.

Elsewhere: Python scalars are weak in jax as in the standard (``x32 * 2.0``
stays float32); float64 needs ``jax.config.update("jax_enable_x64", True)``
(without it jax makes every float64 request float32, and xgrad's results
follow); the scipy-valued special functions reach scipy through DLPack
(``rules/special.py``: CPU arrays only).
"""


def index_add(x, idx, v):
    return x.at[idx].add(v)          # repeated indices accumulate


def index_set(x, idx, v):
    # which of repeated writes wins is jax's (unspecified); index_winners
    # replays the writes through this function, so the VJP agrees with it
    return x.at[idx].set(v)
