"""Trace state is per thread: transforms, nan_check,
set_nan_check, hooks, tags/grad_intermediates and checkpoint policies run in
several threads at once, each giving its single-thread result (a jitted
function shared by threads included), and a
nan_check block checks (and raises in) only the thread that entered it."""
import contextlib
import math
import queue
import sys
import threading
import time
import warnings

import numpy as np
import pytest

import xgrad
import xgrad.numpy as xnp
from xgrad import core, debug

K = 15          # repetitions per thread: many thread switches inside each run


@pytest.fixture
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with np.errstate(all="ignore"):
            yield


@pytest.fixture
def fast_switching():
    """Switch threads every microsecond, so that the workers interleave
    inside single primitives' bookkeeping, not only between calls."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def sw(x):
    """``x``, after letting the other threads run (the GIL is released):
    puts thread switches inside the transforms, between two primitives."""
    time.sleep(0)
    return x


# ----- the eight workloads: each returns a list of numpy arrays -----

X = np.linspace(0.3, 1.7, 5)
XNEG = np.array([1.0, -2.0, 3.0])
W = np.random.default_rng(3).normal(size=(4, 5)) * 0.5
V = np.random.default_rng(4).normal(size=5)
B = np.random.default_rng(5).normal(size=(3, 5))


def w_checked_clean():              # nan_check on, NaN-free: must not raise
    f = lambda x: xnp.sum(sw(xnp.sin(x)) * sw(xnp.exp(x)) + xnp.log(sw(x)))
    return [xgrad.grad(f)(X), xgrad.value_and_grad(f)(X)[0]]


def w_checked_nan():                # nan_check on, log(-2): raises here only
    f = lambda x: xnp.sum(xnp.log(sw(x * 1.0)) * x)
    try:
        xgrad.grad(f)(XNEG)
    except FloatingPointError as e:
        assert "primitive 'log' produced NaN in the forward pass" in str(e)
        return [np.asarray(1.0)]
    return [np.asarray(0.0)]        # did not raise


def w_hooks():
    seen = []

    def h(g):
        seen.append(np.asarray(g).copy())
        return sw(g * 3.0)
    f = lambda x: xnp.sum(sw(debug.hook(sw(xnp.tanh(x)) * 2.0, h)) ** 2)
    g = xgrad.grad(f)(X)
    assert len(seen) == 1
    tf = lambda x: debug.tangent_hook(sw(xnp.sin(x)), lambda t: sw(t * 0.5))
    _, t = xgrad.jvp(tf, (X,), (V,))
    return [g, seen[0], t]


def w_tags():                       # nan_check on
    def f(x):
        s = debug.tag(sw(xnp.sin(x)), "s")
        c = debug.tag(sw(xnp.cos(s)) * x, "c")
        return xnp.sum(sw(c ** 2) + s)
    g, inter = debug.grad_intermediates(f)(X)
    assert sorted(inter) == ["c", "s"]
    return [g, inter["s"], inter["c"]]


def w_checkpoint_dots():
    def layer(Wm, x):
        return sw(xnp.tanh(sw(Wm @ x))) @ Wm

    f = lambda Wm, x: xnp.sum(xnp.tanh(xgrad.checkpoint(layer, policy="dots")(Wm, x)) ** 2)
    gW, gx = xgrad.grad(f, argnums=(0, 1))(W, X)
    return [gW, gx]


def w_jvp():                        # nan_check on
    f = lambda x: {"a": sw(xnp.cos(x)) * x, "b": xnp.sum(sw(x ** 3))}
    out, t = xgrad.jvp(f, (X,), (V,))
    return [out["a"], t["a"], t["b"]]


def w_vmap():                       # nan_check on (it sees BatchTracer cotangents)
    def f(x):
        ck = xgrad.checkpoint(lambda y: xnp.tanh(sw(W @ y)), policy="dots")
        return xnp.sum(sw(ck(x)) ** 2) + xnp.sum(xnp.exp(sw(x)) * x)
    return [xgrad.vmap(xgrad.grad(f))(B), xgrad.vmap(f)(B)]


def w_hessian_and_unchecked_nan():
    f = lambda x: xnp.sum(sw(x ** 3) * xnp.sin(sw(x)))
    H = xgrad.hessian(f)(X)
    # sqrt'(0) = inf and log(-2) = nan, in a thread that does not check while
    # others do: no error, the non-finite values come out
    g = xgrad.grad(lambda x: xnp.sum(sw(xnp.sqrt(x))))(np.array([0.0, 4.0]))
    y = xnp.log(sw(XNEG))
    assert math.isinf(float(g[0])) and float(g[1]) == 0.25 and math.isnan(float(y[1]))
    return [H, g, y]


WORKLOADS = [(w_checked_clean, True), (w_checked_nan, True), (w_hooks, False),
             (w_tags, True), (w_checkpoint_dots, False), (w_jvp, True), (w_vmap, True),
             (w_hessian_and_unchecked_nan, False)]


def _run_single(fn, checked):
    with debug.nan_check() if checked else contextlib.nullcontext():
        return [np.asarray(a).copy() for a in fn()]


def test_eight_threads_at_once_match_single_thread(quiet, fast_switching):
    ref = [_run_single(fn, checked) for fn, checked in WORKLOADS]
    assert ref[1][0] == 1.0                              # raises when run alone
    assert core.get_checker() is None
    n = len(WORKLOADS)
    barrier = threading.Barrier(n, timeout=60)
    results = [None] * n
    errors = []

    def worker(i):
        fn, checked = WORKLOADS[i]
        try:
            with debug.nan_check() if checked else contextlib.nullcontext():
                barrier.wait()            # every checking thread is inside its block
                outs = [[np.asarray(a).copy() for a in fn()] for _ in range(K)]
                barrier.wait()            # nobody leaves before everybody is done
            results[i] = outs
        except BaseException as e:        # noqa: BLE001 -- reported below
            errors.append((fn.__name__, repr(e)))
            barrier.abort()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    for (fn, _), r, outs in zip(WORKLOADS, ref, results):
        assert outs is not None and len(outs) == K, fn.__name__
        for out in outs:
            assert len(out) == len(r)
            for a, b in zip(out, r):
                assert a.shape == b.shape and a.dtype == b.dtype, fn.__name__
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=fn.__name__)
                if fn is not w_checkpoint_dots and fn is not w_vmap:   # no BLAS products
                    assert np.array_equal(a, b, equal_nan=True), fn.__name__
    assert core.get_checker() is None          # the hot path is free again


def test_threads_see_their_own_tags(fast_switching):
    """Two threads tag different intermediates under the same name: each
    gets its own d out / d s."""
    def make(scale):
        def f(x):
            return xnp.sum(sw(debug.tag(sw(xnp.sin(x)) * scale, "s")) ** 2)
        return f
    scales = [1.0, 2.0, 3.0, 4.0]
    barrier = threading.Barrier(len(scales), timeout=60)
    out, errors = {}, []

    def worker(c):
        try:
            barrier.wait()
            out[c] = [debug.grad_intermediates(make(c))(X) for _ in range(K)]
        except BaseException as e:        # noqa: BLE001
            errors.append(repr(e))
            barrier.abort()
    threads = [threading.Thread(target=worker, args=(c,)) for c in scales]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    for c in scales:
        for g, inter in out[c]:
            assert list(inter) == ["s"]
            np.testing.assert_array_equal(inter["s"], 2 * np.sin(X) * c)   # d/ds sum(s^2)
            np.testing.assert_allclose(g, 2 * c * c * np.sin(X) * np.cos(X), rtol=1e-14)


# ----- interleaved nan_check blocks, driven step by step -----

class _Worker:
    """A thread that runs the functions it is given, one at a time, and
    hands back their results (or exceptions): lets a test interleave two
    threads' steps in a fixed order."""

    def __init__(self):
        self.todo, self.done = queue.Queue(), queue.Queue()
        self.t = threading.Thread(target=self._loop, daemon=True)
        self.t.start()

    def _loop(self):
        while True:
            fn = self.todo.get()
            if fn is None:
                return
            try:
                self.done.put((True, fn()))
            except BaseException as e:    # noqa: BLE001 -- handed back
                self.done.put((False, e))

    def __call__(self, fn):
        self.todo.put(fn)
        ok, val = self.done.get(timeout=60)
        if not ok:
            raise val
        return val

    def close(self):
        self.todo.put(None)
        self.t.join(10)


def _nan_grad():
    """A NaN in the forward pass (log(-2)) and an Inf in the backward pass
    (sqrt'(0)): raises FloatingPointError where checking is on."""
    a = xnp.log(XNEG)
    g = xgrad.grad(lambda x: xnp.sum(xnp.sqrt(x)))(np.array([0.0, 1.0]))
    return float(a[1]), float(g[0])


def _unchecked(w):
    nan, inf = w(_nan_grad)
    assert math.isnan(nan) and math.isinf(inf)


def _checked(w):
    with pytest.raises(FloatingPointError, match="primitive 'log' produced NaN"):
        w(_nan_grad)
    with pytest.raises(FloatingPointError, match="inside the VJP of 'sqrt'"):
        w(lambda: xgrad.grad(lambda x: xnp.sum(xnp.sqrt(x)))(np.array([0.0, 1.0])))


def test_interleaved_nan_check_blocks(quiet):
    A, B = _Worker(), _Worker()
    try:
        cm = {}

        def enter(name):
            cm[name] = debug.nan_check()
            cm[name].__enter__()

        def leave(name):
            cm.pop(name).__exit__(None, None, None)

        A(lambda: enter("A"))
        _checked(A)
        _unchecked(B)               # only A has it on: a NaN in B does not raise
        B(lambda: enter("B"))
        _checked(A)
        _checked(B)
        A(lambda: leave("A"))       # A leaves first: B still checks, A does not
        _unchecked(A)
        _checked(B)
        B(lambda: leave("B"))
        _unchecked(A)               # all blocks exited: nothing is checked anywhere
        _unchecked(B)
        _unchecked(lambda fn: fn())                      # nor in the main thread
        assert core.get_checker() is None
    finally:
        A.close()
        B.close()


def test_nan_check_nests_per_thread_and_set_nan_check_is_per_thread(quiet):
    A, B = _Worker(), _Worker()
    try:
        def nested():
            with debug.nan_check():
                with debug.nan_check():
                    pass
                _checked(lambda fn: fn())     # still inside the outer block
            _unchecked(lambda fn: fn())
        A(nested)
        A(lambda: debug.set_nan_check(True))
        _checked(A)
        _unchecked(B)
        _unchecked(lambda fn: fn())
        B(nested)                            # B's blocks leave A's setting alone
        _checked(A)
        A(lambda: debug.set_nan_check(False))
        _unchecked(A)
        assert core.get_checker() is None
    finally:
        A.close()
        B.close()


def test_checkpoint_dots_policy_is_per_thread(fast_switching):
    """Four threads save and replay the products of a "dots" checkpoint of
    the same shapes but different matrices: a replay must never hand one
    thread another's product."""
    mats = [np.random.default_rng(10 + i).normal(size=(6, 6)) * 0.4 for i in range(4)]

    def grad_of(M):
        layer = xgrad.checkpoint(lambda m, x: xnp.tanh(sw(m @ sw(xnp.tanh(m @ x)))),
                                 policy="dots")
        f = lambda m, x: xnp.sum(layer(m, x) ** 2)
        return xgrad.grad(f, argnums=(0, 1))(M, X[:1].repeat(6) + np.arange(6.0) / 7)

    ref = [[np.asarray(a) for a in grad_of(M)] for M in mats]
    barrier = threading.Barrier(len(mats), timeout=60)
    out, errors = {}, []

    def worker(i):
        try:
            barrier.wait()
            out[i] = [[np.asarray(a) for a in grad_of(mats[i])] for _ in range(3 * K)]
        except BaseException as e:        # noqa: BLE001
            errors.append(repr(e))
            barrier.abort()
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(mats))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    for i, r in enumerate(ref):
        for gs in out[i]:
            for a, b in zip(gs, r):
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_jit_cache_shared_by_threads_small_cache(quiet, fast_switching):
    """One jitted function called from many threads with more signatures than
    its cache holds (every call may evict another thread's entry): no error,
    and each result equals the eager one bit for bit."""
    def f(x, s):
        y = xnp.sin(x) * s + xnp.exp(-x ** 2)
        return xnp.sum(y * y) if s > 0 else xnp.max(y)

    cases = [(np.linspace(0.1, 1.0, n).astype(dt), s)
             for n in (3, 4, 5, 6) for dt in (np.float64, np.float32) for s in (1.0, -1.0)]
    want = [(f(x, s), xgrad.grad(lambda v, s=s: f(v, s))(x)) for x, s in cases]
    jf = xgrad.jit(f, static_argnums=1, cache_size=2)
    jg = xgrad.jit(xgrad.grad(f), static_argnums=1, cache_size=1)
    errors = []

    def worker(i):
        try:
            for r in range(K):
                k = (i * 7 + r * 3) % len(cases)
                x, s = cases[k]
                v, g = jf(x, s), jg(x, s)
                for got, exp in ((v, want[k][0]), (g, want[k][1])):
                    assert np.asarray(got).dtype == np.asarray(exp).dtype, (i, k)
                    assert np.asarray(got).tobytes() == np.asarray(exp).tobytes(), (i, k)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(f"thread {i}: {type(e).__name__}: {e}")
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    assert jf.cache_info()[0] <= 2 and jg.cache_info()[0] <= 1
