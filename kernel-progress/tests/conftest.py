"""The package's tests run without a GPU: kernels under Numba's CUDA simulator (chosen here,
before numba is imported, for this pytest process) and the PTX that the real target compiles
(compile_ptx, in a process of its own without the simulator: ptx_check.py).

The package is imported from src/ (this checkout's code, installed or not)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SRC = ROOT / "src"

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
if "numba" in sys.modules and not sys.modules["numba"].config.ENABLE_CUDASIM:
    raise RuntimeError("kernel-progress tests: numba was imported before the simulator was "
                       "chosen; run them in a pytest process of their own")

sys.path.insert(0, str(SRC))   # this checkout's code, even where an older copy is installed


def env_without_simulator() -> dict:
    e = dict(os.environ)
    e.pop("NUMBA_ENABLE_CUDASIM", None)
    e["PYTHONPATH"] = str(SRC) + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    return e


def env_with_simulator() -> dict:
    e = env_without_simulator()
    e["NUMBA_ENABLE_CUDASIM"] = "1"
    return e
