"""numpy quirks: ufuncs return numpy scalars (``np.float64``) for 0-d results;
at the API boundary users get 0-d arrays, like every other backend returns."""
import numpy as np


def is_numpy_scalar(x):
    return isinstance(x, np.generic)


def to_array(x):
    return np.asarray(x)


_NO_REPEATS = (int, slice, type(None), type(Ellipsis), np.integer, np.bool_)


def index_add(x, idx, v):
    out = np.array(x, copy=True)
    for p in (idx if type(idx) is tuple else (idx,)):
        if not (isinstance(p, _NO_REPEATS) or (isinstance(p, np.ndarray) and p.dtype == np.bool_)):
            np.add.at(out, idx, v)       # an integer array: repeated indices accumulate
            return out
    out[idx] += v                        # no index repeats: the buffered path
    return out


def index_set(x, idx, v):
    out = np.array(x, copy=True)
    out[idx] = v
    return out
