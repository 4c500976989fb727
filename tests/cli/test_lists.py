"""The suite's rows are the same after its workloads moved onto the public API
(include/twinbench/twinbench.hpp): `--benchmark_list_tests` of the default, --quick and --full
runs, for the CUDA build and the CPU-only one, equal the lists committed in tests/cli/lists/
(made by the suite's binary before the move). OMP_NUM_THREADS=2 fixes the threads:N in the
names; nothing else in a list depends on the machine.
"""
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LISTS = Path(__file__).resolve().parent / "lists"
BIN = Path(os.environ.get("TWINBENCH_BIN", ROOT / "build" / "twinbench"))
CPU_BIN = Path(os.environ.get("TWINBENCH_CPU_BIN", ROOT / "build-cpu" / "twinbench"))
MODES = {"default": [], "quick": ["--quick"], "full": ["--full"]}


def listing(binary: Path, mode: str) -> subprocess.CompletedProcess:
    if not binary.exists():
        pytest.skip(f"{binary} not built")
    return subprocess.run([str(binary), "--benchmark_list_tests", *MODES[mode]],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "OMP_NUM_THREADS": "2"})


def kind(proc: subprocess.CompletedProcess) -> str:
    return "cpu" if "TWINBENCH_WITH_CUDA=OFF" in proc.stderr else "cuda"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("binary", [BIN, CPU_BIN], ids=["build", "build-cpu"])
def test_list_unchanged(binary, mode):
    proc = listing(binary, mode)
    assert proc.returncode == 0, proc.stderr
    expected = (LISTS / f"{kind(proc)}-{mode}.txt").read_text().splitlines()
    got = proc.stdout.splitlines()
    missing = [n for n in expected if n not in set(got)]
    added = [n for n in got if n not in set(expected)]
    assert not missing and not added, f"missing {missing[:5]}, added {added[:5]}"
    assert got == expected, "the same rows in another order"
