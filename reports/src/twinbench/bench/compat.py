"""What the installed packages need of each other, put right for this process only."""

from __future__ import annotations


def numpy_aliases() -> None:
    """numba-cuda 0.30 registers its CUDA overload of np.row_stack unconditionally (numba 0.68's
    CPU target checks first); NumPy 2.5 removed that alias of np.vstack. With numpy 2.5.2 and
    numba-cuda 0.30.4 (the H200 machine) every kernel's first compile then failed
    with "module 'numpy' has no attribute 'row_stack'". Must run before the first compile."""
    try:
        import numpy as np
    except ImportError:
        return
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
