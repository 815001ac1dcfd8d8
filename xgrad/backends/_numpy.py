"""numpy quirks: ufuncs return numpy scalars (``np.float64``) for 0-d results;
at the API boundary users get 0-d arrays, like every other backend returns."""
import numpy as np


def is_numpy_scalar(x):
    return isinstance(x, np.generic)


def to_array(x):
    return np.asarray(x)


def index_add(x, idx, v):
    out = np.array(x, copy=True)
    np.add.at(out, idx, v)
    return out


def index_set(x, idx, v):
    out = np.array(x, copy=True)
    out[idx] = v
    return out
