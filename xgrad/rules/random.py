"""Random numbers: the rows behind ``xgrad.random``.

* ``threefry2x32``: the Threefry-2x32 block cipher (20 rounds of add, rotate
  and xor on uint32), elementwise in its four broadcast arguments (two key
  words, two counter words), two results. Every random bit of
  ``xgrad.random`` comes from this row, so ``vmap`` over keys batches by
  broadcasting. On numpy arrays the rounds run in place on cache-sized
  blocks (no temporaries per round); on other backends with ``xp`` calls.
* ``random_gamma``: Marsaglia and Tsang's rejection sampler, one key per
  entry, drawing exactly the bits ``jax.random.gamma`` draws (its
  ``_gamma_one`` loop, vectorised with masks on the host). Its derivative in
  the shape ``a`` is the implicit reparametrisation
  ``dx/da = -(dF/da) / (dF/dx)``, ``F`` the regularized lower incomplete gamma
  function: the row ``random_gamma_grad`` (JAX's ``random_gamma_grad``).
* ``random_poisson`` and ``random_binomial``: JAX's whole-array rejection
  loops (Knuth / PTRS, inversion / BTRS), no derivative.

The rejection samplers and ``random_gamma_grad`` compute on the host with
numpy (other backends make a round trip through DLPack); scipy is imported on
first use.
"""
from __future__ import annotations

import math

import numpy as _np
from array_api_compat import is_numpy_namespace as _is_numpy_ns

from . import defprim
from ._batching import elementwise as _elementwise_batch, move_to_front
from .. import numpy as xnp

_U32 = _np.uint32
_ROT = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA
_BLOCK = 1 << 15          # entries per block of the in-place numpy loop


# --------------------------------------------------------------------------
# threefry2x32

def _is_numpy(xp):
    return _is_numpy_ns(xp)          # by namespace: jax.numpy is not numpy


def _threefry_numpy(k0, k1, x0, x1):
    """Threefry-2x32 on numpy arrays, in place on blocks of ``_BLOCK`` entries."""
    k0, k1, x0, x1 = (_np.asarray(v, dtype=_U32) for v in (k0, k1, x0, x1))
    shape = _np.broadcast_shapes(k0.shape, k1.shape, x0.shape, x1.shape)
    y0 = _np.empty(shape, _U32)
    y1 = _np.empty(shape, _U32)
    n = y0.size
    if n == 0:
        return y0, y1
    k2 = k0 ^ k1 ^ _U32(_PARITY)
    ks = (k0, k1, k2)
    # the key injected after each group of four rounds (mod 2**32)
    inj = [(ks[(i + 1) % 3], ks[(i + 2) % 3] + _U32(i + 1)) for i in range(5)]
    scalar_keys = k0.ndim == 0 and k1.ndim == 0
    if scalar_keys:
        # keys are scalars: the counters alone set the shape, work on flat views
        x0 = _np.broadcast_to(x0, shape).reshape(-1)
        x1 = _np.broadcast_to(x1, shape).reshape(-1)
        f0, f1 = y0.reshape(-1), y1.reshape(-1)
        tmp = _np.empty(min(n, _BLOCK), _U32)
        for s in range(0, n, _BLOCK):
            e = min(n, s + _BLOCK)
            a, b = f0[s:e], f1[s:e]
            _np.add(x0[s:e], ks[0], out=a)
            _np.add(x1[s:e], ks[1], out=b)
            _rounds(a, b, tmp[:e - s], inj)
        return y0, y1
    a, b = y0, y1
    a[...] = x0
    b[...] = x1
    a += k0
    b += k1
    _rounds(a, b, _np.empty(shape, _U32), inj)
    return y0, y1


def _rounds(a, b, t, inj):
    """The 20 rounds of threefry-2x32 on ``a``, ``b`` in place (``t``: a
    temporary of their shape), with the key injections ``inj``."""
    for i in range(5):
        for r in _ROT[i % 2]:
            a += b
            _np.left_shift(b, _U32(r), out=t)
            b >>= _U32(32 - r)
            b |= t
            b ^= a
        a += inj[i][0]
        b += inj[i][1]


def _threefry_generic(xp, k0, k1, x0, x1):
    u32 = xp.uint32
    k0, k1, x0, x1 = (xp.asarray(v, dtype=u32) for v in (k0, k1, x0, x1))
    shape = tuple(_np.broadcast_shapes(tuple(k0.shape), tuple(k1.shape),
                                       tuple(x0.shape), tuple(x1.shape)))
    ks = (k0, k1, k0 ^ k1 ^ xp.asarray(_PARITY, dtype=u32))
    a = xp.broadcast_to(x0 + k0, shape)
    b = xp.broadcast_to(x1 + k1, shape)
    for i in range(5):
        for r in _ROT[i % 2]:
            a = a + b
            b = (b << xp.asarray(r, dtype=u32)) | (b >> xp.asarray(32 - r, dtype=u32))
            b = b ^ a
        a = a + ks[(i + 1) % 3]
        b = b + ks[(i + 2) % 3] + xp.asarray(i + 1, dtype=u32)
    return a, b


def _threefry_impl(xp, k0, k1, x0, x1):
    if _is_numpy(xp):
        return _threefry_numpy(k0, k1, x0, x1)
    return _threefry_generic(xp, k0, k1, x0, x1)


def _broadcast_batch(prim):
    """Every batched argument's batch axis to the front; unbatched ones get a
    size-1 axis there, all padded to one rank (the op broadcasts)."""
    def rule(vals, bdims, **params):
        ranks = [len(getattr(v, "shape", ())) - (b is not None) for v, b in zip(vals, bdims)]
        r = max(ranks)
        args = []
        for v, b, k in zip(vals, bdims, ranks):
            if b is None:
                s = tuple(getattr(v, "shape", ()))
                args.append(xnp.reshape(xnp.asarray(v), (1,) * (r - k + 1) + s))
            else:
                v = move_to_front(v, b)
                s = tuple(v.shape)
                args.append(xnp.reshape(v, s[:1] + (1,) * (r - k) + s[1:]))
        out = prim.bind(*args, **params)
        return tuple(out), (0,) * len(out)
    return rule


threefry2x32_p = defprim("threefry2x32", _threefry_impl, family="elementwise", nargs=4,
                         multiple_results=True, batch=_broadcast_batch)


def threefry2x32(k0, k1, x0, x1):
    """The Threefry-2x32 hash of counters ``(x0, x1)`` under key ``(k0, k1)``."""
    return tuple(threefry2x32_p.bind(k0, k1, x0, x1))


# --------------------------------------------------------------------------
# host helpers for the rejection samplers (numpy, exactly jax's bits)

def _to_host(x):
    if isinstance(x, _np.ndarray):
        return x
    try:
        return _np.from_dlpack(x)
    except (TypeError, AttributeError, RuntimeError, BufferError):
        return _np.asarray(x)


def _from_host(xp, x):
    if _is_numpy(xp):
        return x
    return xp.asarray(x)


def _h_split(keys, n):
    """``keys`` (..., 2) split into ``n`` each: (..., n, 2), jax's
    partitionable split (counter hi word 0, lo word the index)."""
    k0 = keys[..., 0:1]
    k1 = keys[..., 1:2]
    lo = _np.arange(n, dtype=_U32)
    y0, y1 = _threefry_numpy(k0, k1, _np.zeros((), _U32), lo)
    return _np.stack([y0, y1], axis=-1)


def _h_bits(keys, width, shape=()):
    """jax's random bits for each key of ``keys`` (..., 2): (..., *shape)."""
    kb = keys.shape[:-1]
    pad = (1,) * len(shape)
    k0 = keys[..., 0].reshape(kb + pad)
    k1 = keys[..., 1].reshape(kb + pad)
    n = math.prod(shape)
    lo = _np.arange(n, dtype=_np.uint64)
    hi = (lo >> _np.uint64(32)).astype(_U32).reshape(shape)
    lo = lo.astype(_U32).reshape(shape)
    y0, y1 = _threefry_numpy(k0, k1, hi, lo)
    if width == 64:
        return (y0.astype(_np.uint64) << _np.uint64(32)) | y1.astype(_np.uint64)
    bits = y0 ^ y1
    return bits if width == 32 else bits.astype(_np.uint16 if width == 16 else _np.uint8)


def _h_uniform(keys, dtype, shape=()):
    """jax's ``uniform(key, shape, dtype)`` in [0, 1) for each key."""
    dtype = _np.dtype(dtype)
    fi = _np.finfo(dtype)
    nbits = fi.bits
    bits = _h_bits(keys, nbits, shape)
    m = bits >> bits.dtype.type(nbits - fi.nmant)
    return (m.astype(dtype) * dtype.type(2.0 ** -fi.nmant)).astype(dtype)


def _scipy_special():
    try:   # optional third-party package: imported on first use, never by import xgrad
        import scipy.special as sps
    except ImportError:
        raise ImportError("xgrad.random's gamma, poisson and binomial samplers need scipy "
                          "(pip install scipy)") from None
    return sps


def _h_normal(keys, dtype):
    """jax's scalar ``normal(key, (), dtype)`` for each key."""
    dtype = _np.dtype(dtype)
    u = _h_uniform(keys, dtype)
    lo = _np.nextafter(dtype.type(-1.0), dtype.type(0.0))
    u = _np.maximum(lo, u * (dtype.type(1.0) - lo) + lo)
    return (dtype.type(math.sqrt(2.0)) * _scipy_special().erfinv(u)).astype(dtype)


# --------------------------------------------------------------------------
# gamma: Marsaglia-Tsang, one key per entry

def _gamma_host(keys, a, log_space):
    """Gamma(a) samples; ``keys`` (*k, 2) with ``a.shape[:len(k)] == k``."""
    dtype = a.dtype
    tp = dtype.type
    kb = keys.shape[:-1]
    count = math.prod(a.shape[len(kb):])
    keys = _h_split(keys.reshape(-1, 2), count).reshape(-1, 2)
    alpha = a.reshape(-1)
    n = alpha.size
    one, third = tp(1.0), tp(1.0 / 3.0)
    boost_mask = alpha >= one
    al = _np.where(boost_mask, alpha, alpha + one)
    d = (al - third).astype(dtype)
    c = (third / _np.sqrt(d)).astype(dtype)
    sk = _h_split(keys, 2)
    key, subkey = sk[:, 0], sk[:, 1]
    X = _np.zeros(n, dtype)
    V = _np.ones(n, dtype)
    U = _np.full(n, 2.0, dtype)

    def cond(X, V, U, d):
        with _np.errstate(all="ignore"):
            return ((U >= one - tp(0.0331) * (X * X))
                    & (_np.log(U) >= X * tp(0.5) + d * ((one - V) + _np.log(V))))

    active = _np.nonzero(cond(X, V, U, d))[0]
    while active.size:
        s3 = _h_split(key[active], 3)
        knew, xkey, ukey = s3[:, 0], s3[:, 1], s3[:, 2]
        ca = c[active]
        x = _np.zeros(active.size, dtype)
        v = _np.full(active.size, -1.0, dtype)
        inner = _np.arange(active.size)
        while inner.size:
            s2 = _h_split(xkey[inner], 2)
            xkey[inner] = s2[:, 0]
            xi = _h_normal(s2[:, 1], dtype)
            x[inner] = xi
            v[inner] = one + xi * ca[inner]
            inner = inner[v[inner] <= tp(0.0)]
        key[active] = knew
        X[active] = x * x
        V[active] = (v * v) * v
        U[active] = _h_uniform(ukey, dtype)
        active = active[cond(X[active], V[active], U[active], d[active])]
    with _np.errstate(all="ignore"):
        if log_space:
            u = _h_uniform(subkey, dtype)
            log_samples = -(-_np.log1p(-u))
            log_boost = _np.where(boost_mask | (log_samples == 0), tp(0.0),
                                  log_samples * (one / alpha))
            out = (_np.log(d) + _np.log(V)) + log_boost
        else:
            samples = one - _h_uniform(subkey, dtype)
            boost = _np.where(boost_mask, one, _np.power(samples, one / alpha))
            out = (d * V) * boost
    return out.astype(dtype).reshape(a.shape)


def _gamma_impl(xp, keys, a, *, log_space=False):
    out = _gamma_host(_to_host(keys), _to_host(a), log_space)
    return _from_host(xp, out)


def _gamma_grad_host(a, x):
    """d x / d a for x ~ Gamma(a): ``-(dP/da) / (dP/dx)``, ``P(a, x)`` the
    regularized lower incomplete gamma function. ``dP/da`` from the series
    ``P = sum_n exp((a + n) log x - x - lgamma(a + n + 1))`` for ``x < a + 1``
    (each term times ``log x - digamma(a + n + 1)``), summed in float64 past
    its peak at ``n ~ x - a`` until the terms are negligible."""
    sps = _scipy_special()
    dtype = _np.result_type(a, x)
    a64 = _np.asarray(a, _np.float64)
    x64 = _np.asarray(x, _np.float64)
    a64, x64 = _np.broadcast_arrays(a64, x64)
    out = _np.empty(a64.shape)
    with _np.errstate(all="ignore"):
        lx = _np.log(x64)
        logpdf = (a64 - 1.0) * lx - x64 - sps.gammaln(a64)   # log dP/dx
        # dP/da by the series, summed in log-space terms with signs
        total = _np.zeros(a64.shape)
        n_max = int(min(100000, 50 + 20 * math.sqrt(float(_np.max(x64, initial=0.0)))
                        + float(_np.max(x64 - a64, initial=0.0))))
        ap = a64.copy()
        logterm = a64 * lx - x64 - sps.gammaln(a64 + 1.0)
        for _ in range(n_max):
            term = _np.exp(logterm)
            total += term * (lx - sps.digamma(ap + 1.0))
            if _np.all((term < 1e-18 * _np.maximum(_np.abs(total), 1e-300)) & (x64 < ap + 1.0)):
                break
            ap = ap + 1.0
            logterm = logterm + lx - _np.log(ap)
        out = -total / _np.exp(logpdf)
        out = _np.where(x64 == 0, 0.0, out)
    return out.astype(dtype)


def _gamma_grad_impl(xp, a, x):
    return _from_host(xp, _gamma_grad_host(_to_host(a), _to_host(x)))


def _no_second_derivative(*args, **kw):
    raise NotImplementedError("the derivative of random_gamma_grad (a second derivative of "
                              "xgrad.random.gamma in its shape) is not implemented; JAX has "
                              "none either")


random_gamma_grad_p = defprim("random_gamma_grad", _gamma_grad_impl, nargs=2,
                              family="special", batch=_elementwise_batch,
                              jvp=(_no_second_derivative, _no_second_derivative),
                              vjp=(_no_second_derivative, _no_second_derivative))


def _gamma_deriv(ans, keys, a, *, log_space=False):
    if not log_space:
        return random_gamma_grad_p.bind(a, ans)
    x = xnp.exp(ans)
    tiny = float(_np.finfo(_np.dtype(str(x.dtype).rsplit(".", 1)[-1])).tiny)
    x = xnp.where(x == 0, tiny, x)
    return xnp.divide(random_gamma_grad_p.bind(a, x), x)


def _front_batch(prim):
    """Keys and parameters with the batch axis in front (the impl splits each
    leading key over the trailing entries of the parameters, as JAX's
    batching rule of ``random_gamma`` does)."""
    def rule(vals, bdims, **params):
        size = next(v.shape[b] for v, b in zip(vals, bdims) if b is not None)
        args = []
        for v, b in zip(vals, bdims):
            if b is None:
                v = xnp.asarray(v)
                v = xnp.broadcast_to(xnp.reshape(v, (1,) + tuple(v.shape)), (size,) + tuple(v.shape))
            else:
                v = move_to_front(v, b)
            args.append(v)
        return prim.bind(*args, **params), 0
    return rule


random_gamma_p = defprim(
    "random_gamma", _gamma_impl, nargs=2, family="special", nondiff=(0,), batch=_front_batch,
    jvp=(None, lambda a_dot, ans, keys, a, **p: xnp.multiply(a_dot, _gamma_deriv(ans, keys, a, **p))),
    vjp=(None, lambda ans, keys, a, **p: (lambda d: lambda g: xnp.multiply(g, d))(
        _gamma_deriv(ans, keys, a, **p))))


# --------------------------------------------------------------------------
# poisson and binomial: jax's whole-array loops (one key per call)

def _h_split1(key, n):
    return _h_split(key[None], n)[0]


def _poisson_host(key, lam, dtype):
    f32 = _np.float32
    lam = lam.astype(f32)
    shape = lam.shape
    with _np.errstate(all="ignore"):
        use_knuth = _np.isnan(lam) | (lam < 10)
        lam_k = _np.where(use_knuth, lam, f32(0.0))
        lam_r = _np.where(use_knuth, f32(100000.0), lam)
        # Knuth
        k = _np.zeros(shape, dtype)
        log_prod = _np.zeros(shape, f32)
        rng = key
        while _np.any(log_prod > -lam_k):
            s = _h_split1(rng, 2)
            rng, sub = s[0], s[1]
            k = _np.where(log_prod > -lam_k, k + 1, k)
            u = _h_uniform(sub, f32, shape)
            log_prod = log_prod + _np.log(u)
        knuth = (k - 1).astype(dtype)
        # PTRS rejection
        log_lam = _np.log(lam_r)
        b = f32(0.931) + f32(2.53) * _np.sqrt(lam_r)
        a = f32(-0.059) + f32(0.02483) * b
        inv_alpha = f32(1.1239) + f32(1.1328) / (b - f32(3.4))
        v_r = f32(0.9277) - f32(3.6224) / (b - f32(2))
        k_out = _np.full(shape, -1.0, f32)
        accepted = _np.zeros(shape, bool)
        rng = key
        gammaln = _scipy_special().gammaln
        while not _np.all(accepted):
            s = _h_split1(rng, 3)
            rng = s[0]
            u = _h_uniform(s[1], f32, shape) - f32(0.5)
            v = _h_uniform(s[2], f32, shape)
            us = f32(0.5) - _np.abs(u)
            kk = _np.floor((f32(2) * a / us + b) * u + lam_r + f32(0.43))
            sv = _np.log(v * inv_alpha / (a / (us * us) + b))
            t = -lam_r + kk * log_lam - gammaln(kk + f32(1)).astype(f32)
            accept1 = (us >= f32(0.07)) & (v <= v_r)
            reject = (kk < 0) | ((us < f32(0.013)) & (v > us))
            accept = accept1 | (~reject & (sv <= t))
            k_out = _np.where(accept, kk, k_out)
            accepted |= accept
        rej = k_out.astype(dtype)
    out = _np.where(use_knuth, knuth, rej)
    return _np.where(lam == 0, _np.zeros_like(out), out)


def _loop_keys(fn, keys, *arrays, **kw):
    """``fn`` once per key of ``keys`` (*b, 2), the arrays with the same
    leading axes *b."""
    keys = _to_host(keys)
    arrays = [_to_host(v) for v in arrays]
    kb = keys.shape[:-1]
    if not kb:
        return fn(keys, *arrays, **kw)
    flat = keys.reshape(-1, 2)
    arrs = [_np.broadcast_to(v, kb + v.shape[len(kb):]).reshape((-1,) + v.shape[len(kb):])
            for v in arrays]
    outs = [fn(flat[i], *(v[i] for v in arrs), **kw) for i in range(flat.shape[0])]
    return _np.stack(outs).reshape(kb + outs[0].shape) if outs else None


def _poisson_impl(xp, keys, lam, *, dtype):
    return _from_host(xp, _loop_keys(_poisson_host, keys, lam, dtype=_np.dtype(dtype)))


random_poisson_p = defprim("random_poisson", _poisson_impl, nargs=2, family="special",
                           batch=_front_batch)

_STIRLING = _np.array([0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                       0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                       0.0118967099458917, 0.010411265261972, 0.00925546218271273,
                       0.00833056343336287])


def _stirling_tail(k):
    tp = k.dtype.type
    use = k <= 9
    kc = _np.clip(k, tp(0.0), tp(9.0))
    kp1sq = (kc + 1) * (kc + 1)
    approx = (tp(1.0 / 12) - (tp(1.0 / 360) - tp(1.0 / 1260) / kp1sq) / kp1sq) / (kc + 1)
    idx = _np.floor(kc).astype(_np.int32)
    return _np.where(use, _STIRLING.astype(k.dtype)[idx], approx)


def _binomial_host(key, count, prob, dtype):
    dt = prob.dtype
    tp = dt.type
    shape = prob.shape
    with _np.errstate(all="ignore"):
        p_lt_half = prob < 0.5
        q = _np.where(p_lt_half, prob, tp(1.0) - prob)
        count_nan_or_neg = _np.isnan(count) | (count < 0.0)
        count_inf = _np.isinf(count)
        q_is_nan = _np.isnan(q)
        q_l_0 = q < 0.0
        q = _np.where(q_is_nan | q_l_0, tp(0.01), q)
        use_inv = count_nan_or_neg | (count * q <= 10.0)
        count = _np.floor(count)
        count_inv = _np.where(use_inv, count, tp(0.0))
        count_btrs = _np.where(use_inv, tp(10000.0), count)
        q_btrs = _np.where(use_inv, tp(0.5), q)
        # inversion
        log1mq = _np.log1p(-q)
        num_geom = _np.zeros(shape, dt)
        geom_sum = _np.zeros(shape, dt)
        rng = key
        while _np.any(geom_sum <= count_inv):
            s = _h_split1(rng, 2)
            sub, rng = s[0], s[1]
            num_geom = _np.where(geom_sum <= count_inv, num_geom + 1, num_geom)
            u = _h_uniform(sub, dt, shape)
            geom_sum = geom_sum + _np.ceil(_np.log(u) / log1mq)
        inv = (num_geom - 1).astype(dtype)
        # BTRS
        n, p = count_btrs, q_btrs
        stddev = _np.sqrt(n * p * (1 - p))
        b = tp(1.15) + tp(2.53) * stddev
        a = tp(-0.0873) + tp(0.0248) * b + tp(0.01) * p
        c = n * p + tp(0.5)
        v_r = tp(0.92) - tp(4.2) / b
        r = p / (1 - p)
        alpha = (tp(2.83) + tp(5.1) / b) * stddev
        m = _np.floor((n + 1) * p)
        k_out = _np.full(shape, -1.0, dt)
        accepted = _np.zeros(shape, bool)
        rng = key
        while not _np.all(accepted):
            s = _h_split1(rng, 3)
            rng = s[0]
            u = _h_uniform(s[1], dt, shape)
            v = _h_uniform(s[2], dt, shape)
            u = u - tp(0.5)
            us = tp(0.5) - _np.abs(u)
            accept1 = (us >= tp(0.07)) & (v <= v_r)
            k = _np.floor((2 * a / us + b) * u + c)
            reject = (k < 0) | (k > n)
            v = _np.log(v * alpha / (a / (us * us) + b))
            ub = ((m + tp(0.5)) * _np.log((m + 1) / (r * (n - m + 1)))
                  + (n + 1) * _np.log((n - m + 1) / (n - k + 1))
                  + (k + tp(0.5)) * _np.log(r * (n - k + 1) / (k + 1))
                  + _stirling_tail(m) + _stirling_tail(n - m)
                  - _stirling_tail(k) - _stirling_tail(n - k))
            accept = accept1 | (~reject & (v <= ub))
            k_out = _np.where(accept, k, k_out)
            accepted |= accept
        btrs = k_out.astype(dtype)
        samples = _np.where(use_inv, inv, btrs)
        invalid = q_l_0 | q_is_nan | count_nan_or_neg
        samples = _np.where(invalid, _np.nan, samples)
        samples = _np.where(count_inf & ~invalid, _np.inf, samples)
        samples = _np.where(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples,
                            count.astype(dtype) - samples)
    return samples.astype(dtype)


def _binomial_impl(xp, keys, count, prob, *, dtype):
    return _from_host(xp, _loop_keys(_binomial_host, keys, count, prob, dtype=_np.dtype(dtype)))


random_binomial_p = defprim("random_binomial", _binomial_impl, nargs=3, family="special",
                            batch=_front_batch)

