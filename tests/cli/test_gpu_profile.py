"""scripts/gpu-profile.sh without a GPU: a stand-in `ncu` on PATH plays Nsight Compute (its
--version, a profiling run that starts the application, --import printing the stored raw CSV
of tests/python/data/ncu_raw_h200.csv) and a stand-in bundle/twinbench records how it was
started, so that the script's own behaviour is tested here: the rows it asks for, the profile
window it turns on, the merge of ncu_* keys into a copy of the run, the summary table, and its
exits (no ncu, no GPU rows, no permission to the counters). The real ncu runs on the H200."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The committed H200 run results/nvidia-h200/2026-12-02 without its per-sample times
# (tests/python/data).
RUN = ROOT / "tests" / "python" / "data" / "ncu_h200_run.json"
CSV = ROOT / "tests" / "python" / "data" / "ncu_raw_h200.csv"
CPU_ONLY = ROOT / "tests" / "python" / "data" / "cpu_only_run.json"

# Records every call; profiles by running the application (the first argument that ends in
# /twinbench, with what follows) and writing a report, unless FAKE_NCU_PERM=1 (then it says what
# the real one says without permission and writes none).
FAKE_NCU = r"""#!/usr/bin/env bash
echo "ncu $*" >> "$FAKE_LOG"
if [ "$1" = "--version" ]; then
  echo "NVIDIA (R) Nsight Compute Command Line Profiler"
  echo "Version 2025.3.0.0 (build 36273991) (public-release)"
  exit 0
fi
if [ "$1" = "--import" ]; then cat "$FAKE_NCU_CSV"; exit 0; fi
rep=""
app=()
while [ $# -gt 0 ]; do
  case "$1" in
    -o) rep=$2; shift 2 ;;
    */twinbench) app=("$@"); break ;;
    *) shift ;;
  esac
done
if [ "${FAKE_NCU_PERM:-0}" = 1 ]; then
  echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0."
  "${app[@]}"
  exit 0
fi
if [ "${FAKE_NCU_HANG:-0}" = 1 ]; then
  sleep 600 &
  sleeper=$!
  trap 'kill $sleeper; echo "==PROF== Received signal: stopping"; echo "fake report" > "$rep.ncu-rep"; exit 130' INT
  wait
fi
"${app[@]}"
rc=$?
echo "fake report" > "$rep.ncu-rep"
exit $rc
"""

FAKE_TWINBENCH = r"""#!/usr/bin/env bash
echo "twinbench window=${TWINBENCH_NCU_WINDOW:-unset} no_pin=${TWINBENCH_NO_PIN:-unset} $*" >> "$FAKE_LOG"
for a in "$@"; do
  case "$a" in --benchmark_out=*) echo '{"context": {}, "benchmarks": []}' > "${a#--benchmark_out=}" ;; esac
done
"""


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "gpu-profile.sh", tmp_path / "scripts")
    shutil.copytree(ROOT / "reports", tmp_path / "reports",
                    ignore=shutil.ignore_patterns("__pycache__"))
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "twinbench").write_text(FAKE_TWINBENCH)
    (bundle / "twinbench").chmod(0o755)
    fake_bin = tmp_path / "fakebin"
    fake_bin.mkdir()
    (fake_bin / "ncu").write_text(FAKE_NCU)
    (fake_bin / "ncu").chmod(0o755)
    shutil.copy(RUN, tmp_path / "run.json")
    return tmp_path


def profile(tree, *args, **env):
    full = {"PATH": f"{tree / 'fakebin'}:/usr/bin:/bin", "HOME": str(tree),
            "FAKE_LOG": str(tree / "calls.log"), "FAKE_NCU_CSV": str(CSV),
            "PYTHON": os.environ.get("PYTHON_FOR_TESTS", shutil.which("python3") or "python3")}
    full.update(env)
    return subprocess.run(["bash", str(tree / "scripts" / "gpu-profile.sh"), *map(str, args)],
                          env=full, cwd=tree, capture_output=True, text=True, timeout=300)


def calls(tree):
    return (tree / "calls.log").read_text().splitlines()


def test_profiles_the_selected_rows_in_a_window_and_merges_a_copy(tree):
    proc = profile(tree, tree / "run.json", tree / "out")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = tree / "out"
    log = calls(tree)
    ncu = [c for c in log if c.startswith("ncu --profile-from-start off")]
    assert len(ncu) == 2  # main and sweep passes
    assert "--nvtx" in ncu[0] and "--section WarpStateStats" in ncu[0]
    assert "--section SpeedOfLight" not in ncu[1]  # the sweep pass: occupancy only
    apps = [c for c in log if c.startswith("twinbench ")]
    assert all("window=1 no_pin=1" in c and "--min-samples=1" in c and "--no-ceilings" in c
               for c in apps)
    assert r"--benchmark_filter=^(aos_soa/cuda_aos/n:67108864/block:256|" in apps[0]
    assert "vector_add/cuda_article/n:268435456/block:256/mode:kernel" in apps[0]
    assert "/mode:e2e" not in apps[0] and "transfers/" not in apps[0]
    assert any(c.startswith("ncu --import") and "--page raw" in c and "--csv" in c for c in log)
    # the input run is untouched; the merged copy carries the keys and ncu's context
    assert "ncu_" not in (tree / "run.json").read_text()
    doc = json.loads((out / "run.json").read_text())
    assert doc["context"]["ncu_version"].startswith("Version 2025.3")
    assert "--profile-from-start off" in doc["context"]["ncu_command"]
    entry = next(e for e in doc["benchmarks"]
                 if e["name"].startswith("vector_add/cuda/n:268435456/block:256/mode:kernel"))
    assert entry["ncu_dram_pct"] == pytest.approx(92.6)
    assert entry["ncu_stall_top"] == "long_scoreboard"
    assert "lucas/cuda_iterative/n:90/block:64/mode:kernel" not in \
        doc["context"]["ncu_rows_without_kernel"]
    assert "aos_soa/cuda_aos/n:67108864/block:256" in doc["context"]["ncu_rows_without_kernel"]
    # the summary table comes last
    lines = proc.stdout.strip().splitlines()
    assert lines[-1].startswith("gpu-profile: total") and "merge exit 0" in lines[-1]
    assert any(l.split()[1:2] == ["main"] and l.split()[2] == "49" for l in lines)
    assert (out / "ncu-main.csv").exists() and (out / "ncu-main.ncu-rep").exists()
    assert len((out / "ncu-selected-main.txt").read_text().split()) == 49


def test_in_place_when_the_output_folder_is_the_runs(tree):
    proc = profile(tree, tree / "run.json", tree, PROFILE_SWEEPS="0")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ncu_dram_pct" in (tree / "run.json").read_text()
    assert len([c for c in calls(tree) if c.startswith("ncu --profile-from-start")]) == 1


def test_no_ncu_exits_2_and_says_so(tree):
    proc = profile(tree, tree / "run.json", tree / "out", NCU=str(tree / "missing" / "ncu"))
    assert proc.returncode == 2
    assert "ncu not found" in proc.stderr


def test_a_run_without_gpu_rows_exits_2(tree):
    shutil.copy(CPU_ONLY, tree / "cpu.json")
    proc = profile(tree, tree / "cpu.json", tree / "out")
    assert proc.returncode == 2
    assert "no GPU kernel rows" in proc.stderr
    assert not (tree / "calls.log").exists() or not any(
        c.startswith("ncu --profile") for c in calls(tree))


def test_no_permission_to_the_counters_exits_3_and_says_why(tree):
    proc = profile(tree, tree / "run.json", tree / "out", FAKE_NCU_PERM="1")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "ERR_NVGPUCTRPERM" in proc.stdout
    assert "NVreg_RestrictProfilingToAdminUsers" in proc.stdout
    # no sweep pass after a refusal, and the run's copy says why it has no counters
    assert len([c for c in calls(tree) if c.startswith("ncu --profile-from-start")]) == 1
    context = json.loads((tree / "out" / "run.json").read_text())["context"]
    assert context["ncu_problem"].startswith("ERR_NVGPUCTRPERM")
    assert context["ncu_rows_profiled"] == "0"


def test_usage_without_a_run(tree):
    proc = profile(tree)
    assert proc.returncode == 2 and "usage" in proc.stderr
    proc = profile(tree, tree / "nothing.json")
    assert proc.returncode == 2 and "no such run file" in proc.stderr


def test_the_budget_stops_a_pass_and_skips_the_sweeps(tree):
    proc = profile(tree, tree / "run.json", tree / "out", PROFILE_BUDGET="3", FAKE_NCU_HANG="1")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "main pass stopped after 3 s (PROFILE_BUDGET=3)" in proc.stdout
    assert "sweep pass skipped" in proc.stdout
    # what ncu saved is still merged
    assert "merge exit 0" in proc.stdout.strip().splitlines()[-1]


def test_the_sections_can_be_replaced(tree):
    proc = profile(tree, tree / "run.json", tree / "out", PROFILE_SWEEPS="0",
                   NCU_MAIN_ARGS="--section SpeedOfLight --metrics gpu__time_duration.sum")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    main = [c for c in calls(tree) if c.startswith("ncu --profile-from-start off")][0]
    assert "--section SpeedOfLight --metrics gpu__time_duration.sum" in main
    assert "WarpStateStats" not in main
