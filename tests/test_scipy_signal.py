"""xgrad.scipy.signal and xgrad.scipy.integrate against jax.scipy (the
harness of ``jnp_cases``: value, VJP, JVP, second order, vmap; numpy and
array_api_strict) and against scipy."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
import xgrad.scipy as xsp
from jnp_cases import JCase, check, ids, scipy_of

RNG = np.random.default_rng(7)


_sp = scipy_of     # xgrad.scipy, or jax.scipy for the oracle


def _r(*shape):
    return RNG.standard_normal(shape)


def _c(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def _sig(name, *args, id="", order=2, **kw):
    fn = (lambda ns, *a: getattr(_sp(ns).signal, name)(*a, **kw))
    return JCase(f"scipy.signal.{name}", fn, args, id=id, order=order, rtol=1e-9, atol=1e-11)


A7, B3, A56, B23, A453, B222 = _r(7), _r(3), _r(5, 6), _r(2, 3), _r(4, 5, 3), _r(2, 2, 2)
C6, CB3, C45, CB22 = _c(6), _c(3), _c(4, 5), _c(2, 2)

CASES = []
for _m in ("full", "same", "valid"):      # the mode-dependent paths, in every mode
    CASES += [
        _sig("convolve", A7, B3, id=f"1d-{_m}", mode=_m),
        _sig("convolve", A56, B23, id=f"2d-{_m}", mode=_m),
        _sig("correlate", C6, CB3, id=f"complex-{_m}", mode=_m),
        _sig("correlate2d", B23, A56, id=f"swap-{_m}", mode=_m),
        _sig("fftconvolve", A56, B23, id=f"2d-{_m}", mode=_m),
    ]
CASES += [                                # the other paths, in one mode each
    _sig("convolve", B3, A7, id="1d-swap-same", mode="same"),
    _sig("convolve", A453, B222, id="3d-valid", mode="valid", order=1),
    _sig("convolve", A56, B23, id="fft-same", mode="same", method="fft"),
    _sig("correlate", A7, B3, id="1d-full"),
    _sig("correlate", B23, A56, id="2d-swap-same", mode="same"),
    _sig("convolve2d", A56, B23, id="same", mode="same"),
    _sig("convolve2d", B23, A56, id="swap-full"),
    _sig("correlate2d", A56, B23, id="valid", mode="valid"),
    _sig("correlate2d", C45, CB22, id="complex-full"),
    _sig("fftconvolve", A7, B3, id="1d-same", mode="same"),
    _sig("fftconvolve", C45, CB22, id="complex-valid", mode="valid"),
]
CASES += [
    _sig("fftconvolve", _r(3, 8), _r(3, 4), id="axes", axes=1),
    _sig("fftconvolve", _r(6, 2), _r(3, 2), id="axes0-valid", mode="valid", axes=(0,)),
    _sig("detrend", _r(3, 20), id="linear-bp", bp=[5, 12], order=1),
    _sig("detrend", _r(9, 2), id="constant-axis0", axis=0, type="constant"),
    _sig("detrend", _r(2, 9), id="linear"),
    _sig("stft", _r(2, 40), nperseg=16),
    _sig("stft", _r(30), id="odd-linear", nperseg=9, boundary="odd", padded=False,
         detrend="linear", order=1),
    _sig("stft", _c(30), id="complex-even", nperseg=8, boundary="even"),
    _sig("istft", np.fft.rfft(_r(5, 16), axis=1).T.copy(), nperseg=16, noverlap=12),
    _sig("istft", _c(16, 5), id="twosided-hamming", nperseg=16, window="hamming",
         input_onesided=False, boundary=False, order=1),
    _sig("welch", _r(2, 40), nperseg=16),
    _sig("welch", _r(40, 2), id="axis0-spectrum-nfft", nperseg=10, nfft=13, axis=0,
         scaling="spectrum", fs=2.0, order=1),
    _sig("welch", _r(40), id="median", nperseg=8, average="median", order=1),
    _sig("csd", _r(2, 40), _r(2, 36), nperseg=16),
    _sig("csd", _r(40), _r(40), id="twosided-median", nperseg=8, return_onesided=False,
         average="median", order=1),
    JCase("scipy.integrate.trapezoid", lambda ns, y: _sp(ns).integrate.trapezoid(y, dx=0.5),
          (_r(3, 5),), id="dx"),
    JCase("scipy.integrate.trapezoid", lambda ns, y, x: _sp(ns).integrate.trapezoid(y, x, axis=0),
          (_r(5, 3), np.sort(_r(5))), id="x-axis0"),
]


# array_api_strict runs the first case of each function (the rest differ
# in options the backend doesn't see), to keep the file fast
_FIRST = {c.name: c.ident for c in reversed(CASES)}


@pytest.mark.filterwarnings("ignore:Input data is complex")
@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_against_jax(case, xp, jax):
    if xp.__name__.startswith("array_api_strict") and _FIRST[case.name] != case.ident:
        pytest.skip("one case per function on array_api_strict (all of them on numpy)")
    check(case, xp, jax)


def test_values_against_scipy():
    ss = pytest.importorskip("scipy.signal")
    a, b = _r(4, 6), _r(3, 2)
    for m in ("full", "same", "valid"):
        np.testing.assert_allclose(xsp.signal.convolve(a, b, m), ss.convolve(a, b, m), atol=1e-12)
        np.testing.assert_allclose(xsp.signal.correlate(b, a, m), ss.correlate(b, a, m), atol=1e-12)
        np.testing.assert_allclose(xsp.signal.fftconvolve(a, b, m), ss.fftconvolve(a, b, m),
                                   atol=1e-12)
    x = _r(2, 30)
    np.testing.assert_allclose(xsp.signal.detrend(x, bp=[7, 20]), ss.detrend(x, bp=[7, 20]),
                               atol=1e-12)


def test_stft_round_trip():
    x = _r(2, 40)
    _, _, z = xsp.signal.stft(x, nperseg=8)
    t, y = xsp.signal.istft(z, nperseg=8)
    np.testing.assert_allclose(y[:, :40], x, atol=1e-12)
    assert t.shape == (y.shape[-1],)
    g = xgrad.grad(lambda u: xnp.sum(xsp.signal.istft(xsp.signal.stft(u, nperseg=8)[2],
                                                      nperseg=8)[1][:40] ** 2))(x[0])
    np.testing.assert_allclose(g, 2 * x[0], atol=1e-10)


def test_dtypes_and_integers():
    a32 = np.arange(5, dtype=np.float32)
    assert xsp.signal.convolve(a32, a32[:2]).dtype == np.float32
    assert xsp.signal.fftconvolve(a32, a32[:2]).dtype == np.float32
    out = xsp.signal.convolve(np.array([1, 2, 3]), np.array([1, 1]))
    assert out.dtype == np.float64 and out.tolist() == [1.0, 3.0, 5.0, 3.0]


def test_errors():
    a, b = _r(4, 2), _r(2, 4)
    with pytest.raises(ValueError, match="smaller than the other"):
        xsp.signal.convolve(a, b)
    with pytest.raises(ValueError, match="same number of dimensions"):
        xsp.signal.convolve(a, _r(3))
    with pytest.raises(ValueError, match="mode"):
        xsp.signal.convolve(a, a, mode="circular")
    with pytest.raises(ValueError, match="method"):
        xsp.signal.convolve(a, a, method="overlap")
    with pytest.raises(NotImplementedError, match="boundary"):
        xsp.signal.convolve2d(a, a, boundary="wrap")
    with pytest.raises(ValueError, match="2-D"):
        xsp.signal.correlate2d(_r(3), _r(2))
    with pytest.raises(ValueError, match="same length"):
        xsp.signal.fftconvolve(_r(3, 4), _r(2, 4), axes=1)
    with pytest.raises(ValueError, match="type"):
        xsp.signal.detrend(a, type="quadratic")
    with pytest.raises(ValueError, match="noverlap"):
        xsp.signal.welch(_r(20), nperseg=8, noverlap=8)
    with pytest.raises(ValueError, match="boundary"):
        xsp.signal.stft(_r(20), nperseg=8, boundary="wrap")
    with pytest.raises(ValueError, match="average"):
        xsp.signal.csd(_r(20), _r(20), nperseg=8, average="max")


def test_caller_arrays_untouched():
    a, b = _r(6), _r(3)
    a0, b0 = a.copy(), b.copy()
    xgrad.grad(lambda u: xnp.sum(xsp.signal.convolve(u, b) ** 2))(a)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)
