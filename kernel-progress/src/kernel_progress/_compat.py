"""What the installed packages need of each other, put right for this process only."""

from __future__ import annotations


def numpy_aliases() -> None:
    """numba-cuda 0.30 registers a CUDA overload of np.row_stack whenever its CUDA target loads;
    NumPy 2.5 removed that alias of np.vstack, so with numpy 2.5 and numba-cuda 0.30.4 (the H200
    machine's python3) the first compile fails with "module 'numpy' has no attribute
    'row_stack'". The alias is restored before numba.cuda loads; nothing else changes."""
    try:
        import numpy as np
    except ImportError:
        return
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
