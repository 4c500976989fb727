"""The CPU jit decorator of the workload modules."""

from __future__ import annotations

import functools
import os

from numba import njit

# CPU functions are cached on disk (compiling a parallel function takes a second or more), where
# the package's folder can take the cache; Numba would otherwise refuse at decoration time.
_CACHE = os.access(os.path.dirname(os.path.abspath(__file__)), os.W_OK)
cpu_jit = functools.partial(njit, cache=_CACHE)
