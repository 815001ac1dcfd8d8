"""xgrad: composable function transforms for automatic differentiation on
array API backends (numpy, cupy, array_api_strict, ...), in the JAX style.

>>> import xgrad, xgrad.numpy as xnp
>>> float(xgrad.grad(lambda x: x ** 3)(2.0))
12.0
"""
from . import numpy
from . import numpy as xp
from . import tree
from . import tree_util
from . import scipy
from . import nn
from . import random
from . import lax
from .core import LeakedTracerError
from .transforms.jvp import jvp
from .transforms.vjp import vjp, grad, value_and_grad
from .transforms.vmap import vmap
from .transforms.jit import jit
from .transforms.make_program import make_program
from .transforms.custom_vjp import custom_vjp
from .transforms.custom_jvp import custom_jvp
from .transforms.checkpoint import checkpoint, remat, checkpoint_sequential, checkpoint_name
from .transforms import checkpoint_policies
from .transforms.stop_gradient import stop_gradient
from .transforms.derived import jacfwd, jacrev, hessian, hvp
from .transforms.linearize import linearize
from .transforms.laplacian import laplacian, diag_hessian
from . import program
from . import testing
from . import debug
from . import optim
from .testing import check_grads
from .transforms.vectorize import vectorize as _vectorize

# jnp.vectorize is vmap underneath: the namespace can't import the transforms
# (layering), so the top layer attaches it.
numpy.vectorize = _vectorize
numpy.__all__ = sorted(set(numpy.__all__) | {"vectorize"})

__all__ = ["jit", "make_program", "grad", "value_and_grad", "vjp", "jvp", "linearize", "jacfwd", "jacrev",
           "hessian", "hvp", "vmap", "laplacian", "diag_hessian", "custom_vjp", "custom_jvp",
           "checkpoint", "remat", "checkpoint_sequential", "checkpoint_name",
           "checkpoint_policies", "stop_gradient", "check_grads",
           "program", "testing", "debug", "optim", "numpy", "xp", "tree", "tree_util", "scipy", "nn",
           "random", "lax", "LeakedTracerError"]
__version__ = "0.1.0"   # the one version source: pyproject.toml and docs/conf.py read it
