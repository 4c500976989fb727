"""The package's tests run without a GPU: kernels under Numba's CUDA simulator (chosen here,
before numba is imported, for this pytest process) and the PTX that the real target compiles
(compile_ptx, in a process of its own without the simulator: ptx_check.py).

Which code they test: the checkout's src/ by default (its tests run the revision's code, an
older copy installed or not); the installed package with KERNEL_PROGRESS_TEST_INSTALLED=1 (a
wheel installed in a fresh venv, the tests run from the sdist or the checkout), where a test
fails if the package would come from anywhere but site-packages."""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SRC = ROOT / "src"
EXAMPLES = ROOT / "examples"
INSTALLED = os.environ.get("KERNEL_PROGRESS_TEST_INSTALLED") == "1"

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
if "numba" in sys.modules and not sys.modules["numba"].config.ENABLE_CUDASIM:
    raise RuntimeError("kernel-progress tests: numba was imported before the simulator was "
                       "chosen; run them in a pytest process of their own")

if not INSTALLED:
    sys.path.insert(0, str(SRC))   # this checkout's code, even where an older copy is installed


def _env(simulator: bool) -> dict:
    e = dict(os.environ)
    e.pop("NUMBA_ENABLE_CUDASIM", None)
    if simulator:
        e["NUMBA_ENABLE_CUDASIM"] = "1"
    if not INSTALLED:
        e["PYTHONPATH"] = str(SRC) + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH")
                                      else "")
    return e


def env_without_simulator() -> dict:
    return _env(False)


def env_with_simulator() -> dict:
    return _env(True)
