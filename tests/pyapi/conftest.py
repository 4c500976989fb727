"""The Python API's tests (twinbench.bench), run under Numba's CUDA simulator.

The simulator is chosen here, before anything imports numba. With TWINBENCH_PYAPI_INSTALLED=1
(scripts/test-pyapi.sh) the tests run against the installed package and refuse a copy from the
checkout; otherwise against reports/src, and kernel-progress from its source beside it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
INSTALLED = os.environ.get("TWINBENCH_PYAPI_INSTALLED") == "1"
if not INSTALLED:
    sys.path.insert(0, str(REPO / "reports" / "src"))
try:
    import kernel_progress  # noqa: F401
except ImportError:
    sys.path.insert(0, str(REPO / "kernel-progress" / "src"))

import pytest  # noqa: E402

import twinbench.bench  # noqa: E402

if INSTALLED:
    assert REPO not in Path(twinbench.bench.__file__).resolve().parents, (
        f"TWINBENCH_PYAPI_INSTALLED=1 but twinbench.bench comes from {twinbench.bench.__file__}")

# The commands of the docs, installed or (from a checkout) by their modules.
_MODULES = {"twinbench-py": "twinbench.bench.cli", "twinbench-report": "twinbench.report"}


def command(name: str) -> list[str]:
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return [str(beside)]
    if INSTALLED and shutil.which(name):
        return [shutil.which(name)]
    return [sys.executable, "-m", _MODULES[name]]


def env() -> dict:
    e = dict(os.environ)
    if not INSTALLED:
        e["PYTHONPATH"] = os.pathsep.join(
            [str(REPO / "reports" / "src")] + ([e["PYTHONPATH"]] if e.get("PYTHONPATH") else []))
    e["NUMBA_ENABLE_CUDASIM"] = "1"
    return e


def run_command(args: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, env=env(), capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path
