"""jax.numpy's creation and inspection functions (the array API's own, with
jax's spellings) against jax: values and dtypes (x64 on), and the *_like
functions' derivative (zero) where they take an array."""
import numpy as np
import pytest

from jnp_cases import JCase, check, ids

RNG = np.random.default_rng(11)
A = RNG.standard_normal((2, 3))
IDX = np.arange(6).reshape(2, 3)

CASES = [
    JCase("arange", lambda ns: ns.arange(5), (), order=0),
    JCase("arange", lambda ns: ns.arange(1.0, 2.0, 0.25), (), order=0, id="float-step"),
    JCase("array", lambda ns, x: ns.array(x), (A,), id="copy"),
    JCase("array", lambda ns: ns.array([[1, 2], [3, 4]]), (), order=0, id="list"),
    JCase("asarray", lambda ns, x: ns.asarray(x), (A,)),
    JCase("asarray", lambda ns: ns.asarray([1.5, 2.5], dtype=ns.float32), (), order=0, id="dtype"),
    # empty's entries are undefined: its shape and dtype, through zeros_like
    JCase("empty", lambda ns: ns.zeros_like(ns.empty((2, 3))), (), order=0),
    JCase("empty_like", lambda ns, x: ns.zeros_like(ns.empty_like(x)), (A,), order=0),
    JCase("eye", lambda ns: ns.eye(3, 4, k=1), (), order=0),
    JCase("full", lambda ns: ns.full((2, 2), 7.5), (), order=0),
    JCase("full_like", lambda ns, x: ns.full_like(x, 2.0) * x, (A,)),
    JCase("linspace", lambda ns: ns.linspace(0.0, 1.0, 7), (), order=0),
    JCase("linspace", lambda ns: ns.linspace(0.0, 1.0, 4, endpoint=False), (), order=0,
          id="open"),
    JCase("ones", lambda ns: ns.ones((3,), dtype=ns.float32), (), order=0),
    JCase("ones_like", lambda ns, x: ns.ones_like(x) + x, (A,)),
    JCase("zeros", lambda ns: ns.zeros((2, 2)), (), order=0),
    JCase("zeros_like", lambda ns, x: ns.zeros_like(x) + x * x, (A,)),
    # Python scalars (HIPS autograd's tests call ones_like(1.3))
    JCase("ones_like", lambda ns: ns.ones_like(1.3), (), order=0, id="scalar"),
    JCase("zeros_like", lambda ns: ns.zeros_like(2), (), order=0, id="scalar"),
    JCase("full_like", lambda ns: ns.full_like(0.5, 3.0), (), order=0, id="scalar"),
    JCase("inner", lambda ns, x: ns.inner(2.5, x), (A,), id="scalar"),
    JCase("inner", lambda ns, x: ns.inner(x, 1.5), (A,), id="scalar-right"),
    JCase("broadcast_shapes", lambda ns: ns.broadcast_shapes((2, 1), (1, 3)), (), order=0),
    JCase("can_cast", lambda ns: ns.can_cast(ns.float32, ns.float64), (), order=0),
    JCase("isdtype", lambda ns: ns.isdtype(ns.float32, "real floating"), (), order=0),
    JCase("result_type", lambda ns: str(ns.result_type(ns.float32, ns.float64)), (), order=0),
    JCase("ndim", lambda ns, x: ns.ndim(x), (A,), order=0),
    JCase("shape", lambda ns, x: ns.shape(x), (A,), order=0),
    JCase("size", lambda ns, x: ns.size(x), (A,), order=0),
    # (the case hands a numpy array to from_dlpack, which array_api_strict refuses)
    JCase("from_dlpack", lambda ns, x: ns.from_dlpack(x), (IDX,), order=0, strict=False),
    JCase("fft.fftfreq", lambda ns: ns.fft.fftfreq(8, d=0.5), (), order=0),
    JCase("fft.rfftfreq", lambda ns: ns.fft.rfftfreq(9), (), order=0),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(case, xp, jax):
    check(case, xp, jax)
