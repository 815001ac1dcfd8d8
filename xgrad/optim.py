"""Tiny optimisers on pytrees: ``sgd`` and ``adam`` as pairs of pure
functions, and learning-rate schedules.

An optimiser is an ``Optimizer(init, update)``: ``state = opt.init(params)``
and ``params, state = opt.update(grads, state, params)``. Nothing is
mutated: the updated parameters and state are new pytrees, so a training step
is a plain function and the whole loop can be differentiated (MAML's inner
SGD step is ``sgd(lr).update`` under ``grad``). The arithmetic is written with
``xgrad.numpy``, so parameters may be numpy, cupy or array_api_strict arrays,
or traced values.

A learning rate is a float or a *schedule*: a function from the step count
(0 for the first update) to a float, e.g. ``exponential_decay(1e-3, 0.1,
5000)``. To add an optimiser, write its ``init`` and ``update`` with
``xgrad.tree.map`` and return them as an ``Optimizer``.

>>> import numpy as np
>>> from xgrad import optim
>>> opt = optim.sgd(0.1)
>>> params = {"w": np.array([1.0, 2.0])}
>>> state = opt.init(params)
>>> params, state = opt.update({"w": np.array([1.0, -1.0])}, state, params)
>>> params["w"].tolist()
[0.9, 2.1]
"""
import math as _math
from typing import Any as _Any, Callable as _Callable, NamedTuple as _NamedTuple

from . import numpy as _xnp
from . import tree as _tree

__all__ = ["Optimizer", "SGDState", "AdamState", "sgd", "adam", "constant",
           "exponential_decay", "cosine_decay", "piecewise_constant"]


class Optimizer(_NamedTuple):
    """``init(params) -> state``; ``update(grads, state, params) -> (params, state)``."""
    init: _Callable[[_Any], _Any]
    update: _Callable[[_Any, _Any, _Any], tuple]


class SGDState(_NamedTuple):
    step: int
    velocity: _Any     # None without momentum


class AdamState(_NamedTuple):
    step: int
    mu: _Any           # first-moment estimate, like params
    nu: _Any           # second-moment estimate, like params


def _lr(learning_rate, step):
    return float(learning_rate(step)) if callable(learning_rate) else learning_rate


def _zeros_like(tree):
    return _tree.map(_xnp._zeros_like, tree)


def sgd(learning_rate, momentum=0.0, nesterov=False):
    """Stochastic gradient descent, optionally with (Nesterov) momentum.

    Args:
      learning_rate: a float or a schedule ``step -> float``.
      momentum: heavy-ball coefficient in [0, 1); 0 for plain SGD.
      nesterov: use Nesterov's look-ahead form of momentum.

    Returns:
      An ``Optimizer``. ``update`` computes ``p - lr * g`` (plain SGD), so it
      is differentiable with respect to the parameters and the gradients.

    >>> import numpy as np
    >>> opt = sgd(0.5)
    >>> p, s = opt.update(np.array([2.0]), opt.init(np.array([1.0])), np.array([1.0]))
    >>> p.tolist()
    [0.0]
    """
    if not 0.0 <= momentum < 1.0:
        raise ValueError(f"sgd: momentum={momentum!r}; expected a float in [0, 1)")

    def init(params):
        return SGDState(0, _zeros_like(params) if momentum else None)

    def update(grads, state, params):
        lr = _lr(learning_rate, state.step)
        if not momentum:
            new = _tree.map(lambda p, g: p - lr * g, params, grads)
            return new, SGDState(state.step + 1, None)
        vel = _tree.map(lambda v, g: momentum * v + g, state.velocity, grads)
        if nesterov:
            step = _tree.map(lambda v, g: g + momentum * v, vel, grads)
        else:
            step = vel
        new = _tree.map(lambda p, s: p - lr * s, params, step)
        return new, SGDState(state.step + 1, vel)

    return Optimizer(init, update)


def adam(learning_rate=1e-3, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.0):
    """Adam (Kingma and Ba, 2015) with bias correction; with ``weight_decay``
    it is AdamW (decoupled decay, Loshchilov and Hutter).

    Args:
      learning_rate: a float or a schedule ``step -> float``.
      b1, b2: decay rates of the first and second moment estimates.
      eps: added to the root of the second moment.
      weight_decay: decoupled weight decay coefficient (0: plain Adam).

    Returns:
      An ``Optimizer``.

    >>> import numpy as np
    >>> opt = adam(0.1)
    >>> p, s = opt.update(np.array([3.0]), opt.init(np.array([1.0])), np.array([1.0]))
    >>> round(float(p[0]), 6)      # the first Adam step moves by lr * sign(g)
    0.9
    """
    def init(params):
        return AdamState(0, _zeros_like(params), _zeros_like(params))

    def update(grads, state, params):
        t = state.step + 1
        lr = _lr(learning_rate, state.step)
        mu = _tree.map(lambda m, g: b1 * m + (1.0 - b1) * g, state.mu, grads)
        nu = _tree.map(lambda v, g: b2 * v + (1.0 - b2) * (g * g), state.nu, grads)
        c1 = 1.0 - b1 ** t
        c2 = 1.0 - b2 ** t
        step = lr * _math.sqrt(c2) / c1    # bias corrections folded into the step size

        def move(p, m, v):
            new = p - step * m / (_xnp.sqrt(v) + eps * _math.sqrt(c2))
            return new - lr * weight_decay * p if weight_decay else new
        new = _tree.map(move, params, mu, nu)
        return new, AdamState(t, mu, nu)

    return Optimizer(init, update)


# ----- learning-rate schedules: step -> float -----

def constant(value):
    """The schedule that is always ``value``."""
    return lambda step: value


def exponential_decay(init_value, decay_rate, transition_steps, end_value=None):
    """``init_value * decay_rate ** (step / transition_steps)``, clipped at
    ``end_value`` if given.

    >>> exponential_decay(1.0, 0.1, 100)(200)
    0.01
    """
    if transition_steps <= 0:
        raise ValueError(f"exponential_decay: transition_steps={transition_steps!r}; "
                         "expected a positive number")

    def schedule(step):
        v = init_value * decay_rate ** (step / transition_steps)
        if end_value is not None:
            v = max(v, end_value) if decay_rate < 1 else min(v, end_value)
        return round(v, 15)
    return schedule


def cosine_decay(init_value, decay_steps, alpha=0.0):
    """Cosine decay from ``init_value`` to ``alpha * init_value`` over
    ``decay_steps`` steps, constant afterwards (Loshchilov and Hutter's SGDR
    without restarts).

    >>> cosine_decay(1.0, 100)(50)
    0.5
    """
    if decay_steps <= 0:
        raise ValueError(f"cosine_decay: decay_steps={decay_steps!r}; expected a positive int")

    def schedule(step):
        frac = min(step, decay_steps) / decay_steps
        cos = 0.5 * (1.0 + _math.cos(_math.pi * frac))
        return round(init_value * ((1.0 - alpha) * cos + alpha), 15)
    return schedule


def piecewise_constant(boundaries, values):
    """``values[i]`` for ``boundaries[i-1] <= step < boundaries[i]``
    (``len(values) == len(boundaries) + 1``).

    >>> piecewise_constant([10, 20], [1.0, 0.5, 0.1])(15)
    0.5
    """
    if len(values) != len(boundaries) + 1:
        raise ValueError("piecewise_constant: need len(values) == len(boundaries) + 1, "
                         f"got {len(values)} values and {len(boundaries)} boundaries")

    def schedule(step):
        for b, v in zip(boundaries, values):
            if step < b:
                return v
        return values[-1]
    return schedule
