"""cupy quirks: scatter-add comes from cupyx."""


def index_add(x, idx, v):
    # optional third-party package: imported only when cupy arrays are met
    import cupy
    import cupyx
    out = cupy.array(x, copy=True)
    cupyx.scatter_add(out, idx, v)
    return out
