"""scripts/gpu-sanitize.sh without a GPU: a stand-in compute-sanitizer on PATH plays each tool's
outcome, so that the script's own behaviour is tested here (its exit status, one log per run,
the summary lines, the time limit, the archive of the logs); the real tools run on the H200."""
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Plays the tool named by --tool: FAKE_ERRORS_<TOOL>=1 reports an error and exits with the
# --error-exitcode the script asks for (99); FAKE_HANG_<TOOL>=1 never finishes.
FAKE = r"""#!/usr/bin/env bash
tool=$2
upper=$(echo "$tool" | tr a-z A-Z)
hang=FAKE_HANG_$upper
errors=FAKE_ERRORS_$upper
echo "fake $tool: $* (TWINBENCH_TEST_REDUCED=${TWINBENCH_TEST_REDUCED:-unset})"
if [ "${!hang:-0}" = 1 ]; then sleep 600; fi
if [ "${!errors:-0}" = 1 ]; then
  echo "========= Uninitialized __global__ memory read of size 4 bytes"
  echo "========= ERROR SUMMARY: 1 error"
  exit 99
fi
echo "========= ERROR SUMMARY: 0 errors"
"""


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "gpu-sanitize.sh", tmp_path / "scripts")
    (tmp_path / "bundle").mkdir()
    fake_bin = tmp_path / "fakebin"
    fake_bin.mkdir()
    fake = fake_bin / "compute-sanitizer"
    fake.write_text(FAKE)
    fake.chmod(0o755)
    return tmp_path


def sanitize(tree, **env):
    full = {"PATH": f"{tree / 'fakebin'}:/usr/bin:/bin", "HOME": str(tree), "OUT": str(tree / "out")}
    full.update(env)
    return subprocess.run(["bash", str(tree / "scripts" / "gpu-sanitize.sh")], env=full,
                          capture_output=True, text=True, timeout=120)


def test_clean_tools_exit_zero_with_a_log_per_run_and_one_archive(tree):
    proc = sanitize(tree, SANITIZE_SUITE="1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [l for l in proc.stdout.splitlines() if l.startswith("gpu-sanitize:")]
    assert len(lines) == 8  # four tools, tests and suite
    assert all("exit 0" in l and "0 errors" in l for l in lines)
    logs = sorted(p.name for p in (tree / "out").glob("sanitize-*.log"))
    assert len(logs) == 8 and "sanitize-racecheck-suite.log" in logs
    with tarfile.open(tree / "out" / "sanitize-logs.tar.gz") as archive:
        assert sorted(archive.getnames()) == logs


def test_memcheck_asks_for_the_leak_check_and_the_suite_runs_quick(tree):
    sanitize(tree, SANITIZE_TOOLS="memcheck", SANITIZE_SUITE="1")
    tests_log = (tree / "out" / "sanitize-memcheck-tests.log").read_text()
    suite_log = (tree / "out" / "sanitize-memcheck-suite.log").read_text()
    assert "--leak-check full" in tests_log and "--error-exitcode 99" in tests_log
    assert "twinbench --quick" in suite_log and "--min-samples=1" in suite_log


def test_a_tool_that_reports_errors_fails_the_run_and_names_them(tree):
    proc = sanitize(tree, SANITIZE_TOOLS="initcheck synccheck", FAKE_ERRORS_INITCHECK="1")
    assert proc.returncode == 1
    assert "initcheck tests: exit 99" in proc.stdout and "1 error" in proc.stdout
    assert "synccheck tests: exit 0" in proc.stdout  # the others still run


def test_the_time_limit_stops_a_run_and_says_so(tree):
    proc = sanitize(tree, SANITIZE_TOOLS="racecheck memcheck", SANITIZE_TIMEOUT="2",
                    FAKE_HANG_RACECHECK="1")
    assert proc.returncode == 1
    assert "racecheck tests: exit 124" in proc.stdout
    assert "stopped by SANITIZE_TIMEOUT=2" in proc.stdout
    assert "memcheck tests: exit 0" in proc.stdout


def test_the_filter_reaches_the_tests(tree):
    sanitize(tree, SANITIZE_TOOLS="synccheck", SANITIZE_FILTER="Sgemm*:Progress*")
    log = (tree / "out" / "sanitize-synccheck-tests.log").read_text()
    assert "--gtest_filter=Sgemm*:Progress*" in log


def test_racecheck_runs_the_reduced_tests_and_the_suite_without_ceilings(tree):
    sanitize(tree, SANITIZE_TOOLS="racecheck memcheck", SANITIZE_SUITE="1")
    out = tree / "out"
    assert "TWINBENCH_TEST_REDUCED=1" in (out / "sanitize-racecheck-tests.log").read_text()
    assert "TWINBENCH_TEST_REDUCED=0" in (out / "sanitize-memcheck-tests.log").read_text()
    assert "--no-ceilings" in (out / "sanitize-racecheck-suite.log").read_text()
    sanitize(tree, SANITIZE_TOOLS="racecheck", SANITIZE_FULL_TESTS="1")
    assert "TWINBENCH_TEST_REDUCED=0" in (out / "sanitize-racecheck-tests.log").read_text()


def test_suite_arguments_reach_the_suite_runs(tree):
    sanitize(tree, SANITIZE_TOOLS="racecheck", SANITIZE_SUITE="1",
             SANITIZE_SUITE_ARGS="--benchmark_filter=-sgemm --workload=dot")
    log = (tree / "out" / "sanitize-racecheck-suite.log").read_text()
    assert "--benchmark_filter=-sgemm --workload=dot" in log
    assert "--benchmark_filter" not in (tree / "out" / "sanitize-racecheck-tests.log").read_text()
