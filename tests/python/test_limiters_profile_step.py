"""scripts/run.sh's profile pass, without a GPU: stand-ins for nvidia-smi, ncu (its version, a
profiling run that starts the application, --import printing tests/python/data/ncu_raw_h200.csv)
and twinbench (a run of the committed H200 rows of vector_add) play the machine, so that what
run.sh decides is tested here: it profiles where it can and merges the counters into the run's
results file, says in one line why not where it cannot (no GPU, no ncu, no permission to the
counters), leaves the pass out with --no-profile, and keeps twinbench's exit status."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "python" / "data"

FAKE_NCU = r"""#!/usr/bin/env bash
echo "ncu $*" >> "$FAKE_LOG"
case "$1" in
  --version) echo "Version 2025.3.0.0 (build 36273991) (public-release)"; exit 0 ;;
  --import) cat "$FAKE_NCU_CSV"; exit 0 ;;
esac
rep="" app=()
while [ $# -gt 0 ]; do
  case "$1" in
    -o) rep=$2; shift 2 ;;
    */twinbench) app=("$@"); break ;;
    *) shift ;;
  esac
done
if [ "${FAKE_NCU_PERM:-0}" = 1 ]; then
  echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters"
  "${app[@]}"
  exit 0
fi
"${app[@]}"
echo "fake report" > "$rep.ncu-rep"
"""

# The timed run writes the committed rows; the profile pass's own run (TWINBENCH_NCU_WINDOW=1)
# writes an empty one, as its timings are not results.
FAKE_TWINBENCH = r"""#!/usr/bin/env bash
echo "twinbench window=${TWINBENCH_NCU_WINDOW:-unset} $*" >> "$FAKE_LOG"
for a in "$@"; do
  case "$a" in
    --benchmark_out=*)
      if [ "${TWINBENCH_NCU_WINDOW:-0}" = 1 ]; then
        echo '{"context": {}, "benchmarks": []}' > "${a#--benchmark_out=}"
      else
        cp "$FAKE_RUN" "${a#--benchmark_out=}"
      fi ;;
  esac
done
exit "${FAKE_STATUS:-0}"
"""

FAKE_NVIDIA_SMI = r"""#!/usr/bin/env bash
case "$*" in
  -L) echo "GPU 0: NVIDIA H200 (UUID: GPU-fake)" ;;
  *) echo "NVIDIA H200" ;;
esac
"""


def _script(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o755)


@pytest.fixture
def tree(tmp_path):
    """A copy of the scripts and reports with the stand-ins, and a Python environment link."""
    shutil.copytree(ROOT / "scripts", tmp_path / "scripts")
    shutil.copytree(ROOT / "reports", tmp_path / "reports",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / ".venv").symlink_to(Path(sys.prefix))
    fake = tmp_path / "fakebin"
    fake.mkdir()
    _script(fake / "ncu", FAKE_NCU)
    _script(fake / "nvidia-smi", FAKE_NVIDIA_SMI)
    (tmp_path / "build").mkdir()
    _script(tmp_path / "build" / "twinbench", FAKE_TWINBENCH)
    doc = json.loads((DATA / "ncu_h200_run.json").read_text())
    doc["benchmarks"] = [e for e in doc["benchmarks"]
                         if e.get("run_name", e["name"]).startswith("vector_add/")
                         and "/n:268435456" in e["name"]]
    (tmp_path / "run.json").write_text(json.dumps(doc))
    return tmp_path


def run_sh(tree: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    full = {"PATH": f"{tree / 'fakebin'}:/usr/bin:/bin", "HOME": str(tree),
            "TWINBENCH_BIN": str(tree / "build" / "twinbench"),
            "TWINBENCH_RESULTS": str(tree / "results"), "FAKE_LOG": str(tree / "calls.log"),
            "FAKE_NCU_CSV": str(DATA / "ncu_raw_h200.csv"), "FAKE_RUN": str(tree / "run.json")}
    full.update(env)
    return subprocess.run(["bash", str(tree / "scripts" / "run.sh"), "--machine=fake",
                           "--no-peers", *args], env=full, cwd=tree, capture_output=True,
                          text=True, timeout=600)


def results(tree: Path) -> dict:
    (path,) = (tree / "results" / "fake").glob("*.json")
    return json.loads(path.read_text())


def profile_lines(proc) -> list[str]:
    return [line for line in proc.stderr.splitlines() if "profile pass" in line]


def test_profiles_where_it_can_and_merges_into_the_results_file(tree):
    proc = run_sh(tree)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = profile_lines(proc)
    assert lines[0].startswith("twinbench: profile pass over the fastest GPU kernels")
    assert "run.sh --no-profile leaves it out" in lines[0]
    assert lines[-1].startswith("twinbench: profile pass: the counters of 2 GPU rows merged into")
    doc = results(tree)
    assert doc["context"]["ncu_version"].startswith("Version 2025.3")
    entry = next(e for e in doc["benchmarks"]
                 if e["name"].startswith("vector_add/cuda/n:268435456/block:256/mode:kernel"))
    assert entry["ncu_dram_pct"] == pytest.approx(92.6)
    (folder,) = [p for p in (tree / "results" / "fake").iterdir() if p.is_dir()]
    assert (folder / "ncu" / "ncu-main.csv").exists()
    # the merged copy took the results file's place: no second copy of the run is left
    assert not (folder / "ncu" / f"{folder.name}.json").exists()
    # the report read the counters
    assert "DRAM bandwidth (ncu: 93 % of peak)" in (folder / "report.md").read_text()


def test_no_profile_leaves_the_pass_out(tree):
    proc = run_sh(tree, "--no-profile")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not profile_lines(proc)
    assert "ncu_version" not in results(tree)["context"]
    assert "ncu --profile-from-start" not in (tree / "calls.log").read_text()


@pytest.mark.parametrize("setup, words", [
    ("no_gpu", "twinbench: no profile pass: no GPU (nvidia-smi finds none)"),
    ("no_ncu", "twinbench: no profile pass: no ncu (Nsight Compute"),
    ("admin_only", "twinbench: no profile pass: no permission to the GPU counters "
                   "(RmProfilingAdminOnly: 1 in"),
])
def test_says_in_one_line_why_it_cannot(tree, setup, words):
    env = {}
    if setup == "no_gpu":
        (tree / "fakebin" / "nvidia-smi").unlink()
    elif setup == "no_ncu":
        (tree / "fakebin" / "ncu").unlink()
        env["NCU"] = str(tree / "missing" / "ncu")
    else:  # a user other than root, on a driver that keeps the counters for root
        _script(tree / "fakebin" / "id", "#!/bin/sh\necho 1000\n")
        (tree / "params").write_text("ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\n")
        env["NVIDIA_PARAMS"] = str(tree / "params")
    proc = run_sh(tree, **env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (line,) = profile_lines(proc)
    assert line.startswith(words), line
    assert line.endswith("the report names the GPU limiters by its rules")
    assert "ncu_version" not in results(tree)["context"]


def test_a_refusal_during_the_pass_is_one_line_and_keeps_the_exit_status(tree):
    proc = run_sh(tree, FAKE_NCU_PERM="1", FAKE_STATUS="1")
    assert proc.returncode == 1, proc.stderr[-3000:]  # twinbench's: a validation failed
    assert profile_lines(proc)[-1].startswith(
        "twinbench: profile pass refused: the driver keeps the GPU counters from this user")
    assert results(tree)["context"]["ncu_problem"].startswith("ERR_NVGPUCTRPERM")


def test_check_alone(tree):
    env = {"PATH": f"{tree / 'fakebin'}:/usr/bin:/bin", "NVIDIA_PARAMS": str(tree / "none")}
    check = ["bash", str(tree / "scripts" / "gpu-profile.sh"), "--check"]
    proc = subprocess.run(check, env=env, capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout) == (0, "")
    (tree / "fakebin" / "ncu").unlink()
    proc = subprocess.run(check, env={**env, "NCU": str(tree / "no-ncu")}, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout.startswith("no ncu")
