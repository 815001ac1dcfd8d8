"""xgrad.numpy.fft against numpy's values and jax's derivatives (complex
conventions included), first and second order, and vmap."""
import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from helpers import assert_close, from_np

CASES = [("fft", {}), ("fft", {"n": 8}), ("fft", {"n": 4, "norm": "ortho"}),
         ("ifft", {"norm": "forward"}), ("ifft", {"axis": 0}), ("rfft", {}), ("rfft", {"n": 9}),
         ("rfft", {"n": 4, "norm": "ortho"}), ("fftn", {}), ("ifftn", {"axes": (0,)}),
         ("rfftn", {}), ("rfftn", {"s": (3, 5)}), ("irfft", {}), ("irfft", {"n": 7}),
         ("irfftn", {}), ("hfft", {}), ("ihfft", {}), ("fftshift", {}), ("ifftshift", {"axes": 1})]
REAL_ONLY = {"rfft", "rfftn", "ihfft"}
SECOND_ORDER = [CASES[i] for i in (0, 1, 5, 6, 10, 13, 15, 16)]   # one of each kind


def _loss(mod, name, kw):
    def f(x):
        y = getattr(mod.fft, name)(x, **kw)
        if "complex" in str(y.dtype):
            return mod.sum(mod.real(y) ** 2 + 3 * mod.real(y) * mod.imag(y) + mod.abs(y))
        return mod.sum(y ** 2 + 3 * y)
    return f


@pytest.mark.parametrize("name,kw", CASES)
def test_values(xp, rng, name, kw):
    x = rng.normal(size=(4, 6))
    ref = getattr(np.fft, name)(x, **({"axes": kw["axes"]} if name.endswith("shift") and kw else kw))
    assert_close(getattr(xnp.fft, name)(from_np(xp, x), **kw), ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,kw", CASES)
@pytest.mark.parametrize("complex_input", [False, True])
def test_grad_and_hessian_vector_vs_jax(jax, rng, name, kw, complex_input):
    import jax.numpy as jnp
    if complex_input and name in REAL_ONLY:
        pytest.skip("real-input transform")
    x = rng.normal(size=(4, 6))
    if complex_input:
        x = x + 1j * rng.normal(size=x.shape)
    fx, fj = _loss(xnp, name, kw), _loss(jnp, name, kw)
    assert_close(xgrad.grad(fx)(x), jax.grad(fj)(x), rtol=1e-10, atol=1e-10)
    if not complex_input and (name, kw) in SECOND_ORDER:
        v = rng.normal(size=x.shape)
        hv = xgrad.hvp(fx, (x,), (v,))
        hv_ref = jax.jvp(jax.grad(fj), (x,), (v,))[1]
        assert_close(hv, hv_ref, rtol=1e-9, atol=1e-9)
        t = xgrad.jvp(lambda x: getattr(xnp.fft, name)(x, **kw), (x,), (v,))[1]
        t_ref = jax.jvp(lambda x: getattr(jnp.fft, name)(x, **kw), (x,), (v,))[1]
        assert_close(t, t_ref, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name,kw", [("fft", {}), ("rfft", {"n": 5}), ("irfft", {}),
                                     ("fftn", {"axes": (0, 1)})])
def test_check_grads_second_order(name, kw, rng):
    x = rng.normal(size=(3, 4))
    xgrad.check_grads(lambda x: xnp.real(getattr(xnp.fft, name)(x, **kw)) ** 2, (x,), order=2)


def test_vmap_matches_loop(rng):
    x = rng.normal(size=(5, 8))
    f = lambda r: xnp.fft.rfft(r, n=6)
    assert_close(xgrad.vmap(f)(x), np.stack([np.fft.rfft(r, n=6) for r in x]), rtol=1e-12)
    assert_close(xgrad.vmap(f, in_axes=1, out_axes=1)(x.T), np.fft.rfft(x, n=6).T, rtol=1e-12)


def test_freqs_and_errors():
    assert_close(xnp.fft.fftfreq(8, d=0.5), np.fft.fftfreq(8, d=0.5))
    assert_close(xnp.fft.rfftfreq(9), np.fft.rfftfreq(9))
    with pytest.raises(ValueError, match="norm"):
        xnp.fft.fft(np.ones(4), norm="bad")
    with pytest.raises(TypeError, match="real-valued"):
        xnp.fft.rfft(np.ones(4, dtype=complex))
