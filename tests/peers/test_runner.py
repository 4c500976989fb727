"""The runner end to end: its rows in the suite's results file, its skip paths (no numba, no GPU),
its exit codes (bad input, validation failure, results not written, interrupted)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import (GPU_CEILINGS, PYTHON, QUICK_CONTEXT, REPO, SIM_RUNNER_CPU, SIM_RUNNER_GPU,
                      env, needs_numba, rows_of, run_peers, write_suite)
from twinbench.report.loader import load_run

CPU_ROWS = ["vector_add/serial/n:1000", "vector_add/omp/n:1000/threads:2",
            "nested_loop/serial/n:300", "nested_loop/omp/n:300/threads:2"]
GPU_ROWS = ["vector_add/cuda_article/n:1000/block:64/mode:kernel",
            "vector_add/cuda_article/n:1000/block:256/mode:e2e",
            "nested_loop/cuda/n:300/block:64/mode:kernel",
            "transfers/cuda_pinned/dir:h2d/bytes:4096"]


def peer(name: str) -> str:
    return name + "/manual_time"


@pytest.fixture
def suite(tmp_path) -> Path:
    return write_suite(tmp_path / "run.json", CPU_ROWS, GPU_ROWS)


# ---------------------------------------------------------------- no GPU (this machine)

@needs_numba
def test_cpu_rows_run_and_cuda_rows_skip_without_a_gpu(suite):
    before = rows_of(suite)
    r = run_peers(["--suite-json", str(suite)])
    assert r.returncode == 0, r.stderr
    rows = rows_of(suite)
    assert set(before) <= set(rows)   # the suite's rows are kept
    threads = json.loads(Path(suite).read_text())["context"]["numba_num_threads"]
    cpu = rows[peer(f"vector_add/numba_cpu/n:1000/threads:{min(2, int(threads))}")]
    assert not cpu.get("error_occurred")
    assert cpu["samples"] >= 3 and cpu["real_time"] > 0 and cpu["time_unit"] == "us"
    assert cpu["bytes_per_iter"] == 12000 and cpu["read_bytes_per_iter"] == 8000
    assert cpu["ceiling_pattern"] == 4   # add: 2/3 of the bytes read, as vector_add/omp
    assert cpu["max_rel_err"] == 0 and cpu["label"] == "numba peer of vector_add/omp"
    serial = rows[peer("nested_loop/numba_cpu_serial/n:300")]
    assert not serial.get("error_occurred") and serial["flop_per_iter"] == 2 * 300 * 300
    # Every CUDA row is there, skipped with the suite's own reason.
    for name in ("vector_add/numba_cuda/n:1000/block:64/mode:kernel",
                 "vector_add/numba_cuda/n:1000/block:256/mode:e2e",
                 "vector_add/numba_cuda_pageable/n:1000/block:256/mode:e2e",
                 "nested_loop/numba_cuda/n:300/block:64/mode:kernel",
                 "transfers/numba_cuda_pinned/dir:h2d/bytes:4096"):
        row = rows[peer(name)]
        assert row["error_occurred"] and row["error_message"] == QUICK_CONTEXT["gpu_status"]
    # Progress lines count the rows that run (the CPU ones), as the suite's do.
    assert "[1/3 " in r.stderr and "[3/3 " in r.stderr and "[4/" not in r.stderr
    assert "CUDA rows are skipped: no CUDA device" in r.stderr
    ctx = json.loads(Path(suite).read_text())["context"]
    assert ctx["numba_peers"] == "ran" and ctx["numba_peers_complete"] is True
    assert ctx["numba_version"] and ctx["numba_cuda_version"] and ctx["python_version"]
    assert ctx["numba_peers_measured"] == 3 and ctx["numba_peers_skipped"] == 5
    # The merged file is a run the reports read, with the peer rows parsed as such.
    run = load_run(suite)
    parsed = {r.name: r for r in run.rows}
    assert parsed["vector_add/numba_cpu/n:1000/threads:2"].family == "numba_cpu"
    assert parsed["vector_add/numba_cuda_pageable/n:1000/block:256/mode:e2e"].mode == "e2e"
    assert parsed["vector_add/numba_cuda/n:1000/block:64/mode:kernel"].skipped
    assert not run.problems


@needs_numba
def test_a_second_run_replaces_the_first_runs_rows(suite):
    assert run_peers(["--suite-json", str(suite), "--workload=nested_loop"]).returncode == 0
    first = json.loads(Path(suite).read_text())["benchmarks"]
    assert run_peers(["--suite-json", str(suite), "--workload=nested_loop"]).returncode == 0
    second = json.loads(Path(suite).read_text())["benchmarks"]
    assert len(first) == len(second)
    assert len({e["name"] for e in second}) == len(second)


@needs_numba
def test_the_cuda_skip_says_why_numba_sees_no_gpu_when_the_suite_saw_one(tmp_path):
    context = {**QUICK_CONTEXT, **GPU_CEILINGS, "gpu_status": "available"}
    suite = write_suite(tmp_path / "run.json", [], ["vector_add/cuda_article/n:1000/block:64/"
                                                    "mode:kernel"], context)
    r = run_peers(["--suite-json", str(suite)])
    assert r.returncode == 0, r.stderr
    row = rows_of(suite)[peer("vector_add/numba_cuda/n:1000/block:64/mode:kernel")]
    assert row["error_message"].startswith("no CUDA device for Numba: ")


@needs_numba
def test_no_gpu_flag(suite):
    r = run_peers(["--suite-json", str(suite), "--no-gpu", "--workload=transfers"])
    assert r.returncode == 0, r.stderr
    row = rows_of(suite)[peer("transfers/numba_cuda_pinned/dir:h2d/bytes:4096")]
    assert row["error_occurred"] and "--no-gpu" not in row["error_message"]   # the suite's reason


# ---------------------------------------------------------------- no numba

def run_without_numba(args: list[str]) -> subprocess.CompletedProcess:
    code = ("import runpy, sys; sys.modules['numba'] = None; sys.argv = ['peers.numba'] + "
            f"{args!r}; runpy.run_module('peers.numba', run_name='__main__', alter_sys=True)")
    return subprocess.run([PYTHON, "-c", code], cwd=REPO, env=env(), capture_output=True,
                          text=True, timeout=120)


def test_without_numba_the_peers_are_skipped_and_the_file_says_why(suite):
    before = json.loads(Path(suite).read_text())
    r = run_without_numba(["--suite-json", str(suite)])
    assert r.returncode == 0, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "skipped: numba is not importable (" in lines[0]
    after = json.loads(Path(suite).read_text())
    assert after["benchmarks"] == before["benchmarks"]
    assert after["context"]["numba_peers"].startswith("skipped: numba is not importable (")
    assert after["context"]["python_version"]
    assert not load_run(suite).problems


# ---------------------------------------------------------------- exit codes

def test_help():
    r = run_peers(["--help"])
    assert r.returncode == 0 and "--suite-json" in r.stdout and "Exit status" in r.stdout


@pytest.mark.parametrize("args, message", [
    ([], "--suite-json"),
    (["--suite-json"], "--suite-json"),
    (["--suite-json", "/nonexistent/run.json"], "cannot read"),
    (["--suite-json", "run.json", "--bogus"], "unrecognized arguments"),
])
def test_bad_arguments_exit_2(args, message):
    r = run_peers(args)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_unknown_workload_exits_2_and_lists_the_known_ones(suite):
    r = run_peers(["--suite-json", str(suite), "--workload=vector_add,warp_drive"])
    assert r.returncode == 2
    assert "warp_drive" in r.stderr and "vector_add, dot" in r.stderr


@pytest.mark.parametrize("text, message", [
    ('{"context": {}, "benchmarks": [', "not valid JSON"),
    ('{"context": {}}', 'no "benchmarks" list'),
    ("[1, 2]", 'no "benchmarks" list'),
])
def test_a_suite_file_that_cannot_be_read_exits_2(tmp_path, text, message):
    path = tmp_path / "run.json"
    path.write_text(text)
    r = run_peers(["--suite-json", str(path)])
    assert r.returncode == 2 and message in r.stderr
    assert path.read_text() == text   # left as it was


def test_list_prints_the_plan_without_running(suite):
    before = Path(suite).read_text()
    r = run_peers(["--suite-json", str(suite), "--list"])
    assert r.returncode == 0
    assert "vector_add/numba_cpu/n:1000/threads:2    <- vector_add/omp/n:1000/threads:2" in r.stdout
    assert Path(suite).read_text() == before


def test_peers_script_runs_the_runner(suite):
    r = subprocess.run(["bash", str(REPO / "scripts/peers.sh"), str(suite), "--list"],
                       capture_output=True, text=True, timeout=120, env=env())
    assert r.returncode == 0 and "numba_cpu" in r.stdout
    r = subprocess.run(["bash", str(REPO / "scripts/peers.sh")], capture_output=True, text=True,
                       timeout=60, env=env())
    assert r.returncode == 2 and "RESULTS_JSON" in r.stderr


@needs_numba
def test_a_failed_validation_exits_1_and_gets_no_time(suite):
    r = run_peers(["--suite-json", str(suite), "--workload=vector_add"],
                  NUMBA_PEERS_INJECT_VALIDATION_FAILURE="vector_add/numba_cpu")
    assert r.returncode == 1
    assert "VALIDATION FAILED: vector_add/numba_cpu/n:1000/threads:2" in r.stderr
    row = rows_of(suite)[peer("vector_add/numba_cpu/n:1000/threads:2")]
    assert row["error_occurred"] and row["error_message"].startswith("validation failed: ")
    assert row["real_time"] == 0 and "samples" not in row
    assert json.loads(Path(suite).read_text())["context"]["numba_peers_failed"] == 1


def test_results_that_cannot_be_written_exit_3(suite, monkeypatch, capsys):
    from peers.numba import cli
    from twinbench.bench import results
    before = Path(suite).read_text()
    monkeypatch.setattr(results.os, "access", lambda *a, **k: False)
    assert cli.main(["--suite-json", str(suite)]) == 3
    assert "cannot write" in capsys.readouterr().err
    assert Path(suite).read_text() == before


def test_a_write_that_fails_at_the_end_exits_3_and_leaves_the_file(suite, monkeypatch):
    from peers.numba import cli
    from twinbench.bench import results

    def failing(*args, **kwargs):
        raise OSError(28, "No space left on device")

    before = Path(suite).read_text()
    monkeypatch.setattr(cli, "import_numba", lambda: "ImportError: test")
    monkeypatch.setattr(results.tempfile, "NamedTemporaryFile", failing)
    assert cli.main(["--suite-json", str(suite)]) == 3
    assert Path(suite).read_text() == before
    assert not [p for p in Path(suite).parent.iterdir() if p.name.endswith(".tmp")]


@needs_numba
def test_sigterm_keeps_the_finished_rows_and_exits_143(tmp_path):
    # A serial nested loop of 30000^2 takes a second or more a call: the signal arrives while
    # its row is being validated or sampled, with rows still to come.
    suite = write_suite(tmp_path / "run.json",
                        ["nested_loop/omp/n:300/threads:2", "nested_loop/serial/n:30000",
                         "vector_add/omp/n:1000/threads:2", "lucas/serial_recursive/n:20"], [])
    proc = subprocess.Popen([PYTHON, "-m", "peers.numba", "--suite-json", str(suite)],
                            cwd=REPO, env=env(), stderr=subprocess.PIPE, text=True)
    seen = []
    deadline = time.monotonic() + 120
    for line in proc.stderr:
        seen.append(line)
        if "nested_loop/numba_cpu_serial" in line:
            time.sleep(0.5)
            proc.send_signal(signal.SIGTERM)
            break
        assert time.monotonic() < deadline, "".join(seen)
    rest = proc.stderr.read()
    assert proc.wait(timeout=120) == 128 + signal.SIGTERM, "".join(seen) + rest
    doc = json.loads(Path(suite).read_text())
    ctx = doc["context"]
    assert ctx["numba_peers_complete"] is False and ctx["numba_peers_interrupted_by"] == "SIGTERM"
    rows = {e["name"]: e for e in doc["benchmarks"]}
    threads = min(2, int(ctx["numba_num_threads"]))
    done = rows[peer(f"nested_loop/numba_cpu/n:300/threads:{threads}")]
    assert not done.get("error_occurred") and done["samples"] >= 1
    for name in ("nested_loop/numba_cpu_serial/n:30000", "lucas/numba_cpu_serial/n:20"):
        assert "interrupted (signal 15)" in rows[peer(name)]["error_message"]
    assert "interrupted by SIGTERM" in rest


# ---------------------------------------------------------------- CUDA rows, simulated

@needs_numba
def test_runner_under_the_cuda_simulator(sim_runner):
    code, err, suite = sim_runner
    assert code == 0, err
    rows = rows_of(suite)
    kernel = rows[peer("vector_add/numba_cuda/n:96/block:32/mode:kernel")]
    assert not kernel.get("error_occurred"), kernel.get("error_message")
    assert kernel["block"] == 32 and kernel["grid_blocks"] == 3 and kernel["samples"] >= 2
    assert kernel["ceiling_pattern"] == 4 and kernel["ceiling_bytes_per_s"] == 4.46e12
    assert kernel["l2_flushed"] == 0   # no L2 in the simulator
    e2e = rows[peer("vector_add/numba_cuda/n:96/block:32/mode:e2e")]
    pageable = rows[peer("vector_add/numba_cuda_pageable/n:96/block:32/mode:e2e")]
    assert e2e["host_pinned"] == 1 and pageable["host_pinned"] == 0
    assert "pct_ceiling" not in e2e and "pct_ceiling" not in pageable   # PCIe-bound
    h2d = rows[peer("transfers/numba_cuda_pinned/dir:h2d/bytes:4096")]
    d2h = rows[peer("transfers/numba_cuda_pageable/dir:d2h/bytes:4096")]
    for row in (h2d, d2h):
        assert not row.get("error_occurred") and row["bytes_per_iter"] == 4096
        assert row["us_per_transfer"] > 0 and "pct_ceiling" not in row
    progress = rows[peer("progress/numba_cuda/target:poisson/strategy:per_thread/"
                         "counter:device/n:64/block:32")]
    assert not progress.get("error_occurred"), progress.get("error_message")
    assert progress["distinct_updates"] == 1 and "overhead_pct" in progress
    assert {"overhead_median_pct", "overhead_lo_pct", "overhead_hi_pct"} <= set(progress)
    assert progress["overhead_lo_pct"] <= progress["overhead_median_pct"] <= \
        progress["overhead_hi_pct"]
    for way, slots in (("live_block", 2), ("live_warp", 2)):
        live = rows[peer(f"progress/numba_cuda/target:poisson/strategy:{way}/counter:slots8/"
                         "n:64/block:32")]
        assert not live.get("error_occurred"), live.get("error_message")
        assert live["slots"] == slots and live["distinct_updates"] >= 1
    for name in ("strategy:none/counter:device", "strategy:per_thread/counter:managed"):
        row = rows[peer(f"progress/numba_cuda/target:poisson/{name}/n:64/block:32")]
        assert not row.get("error_occurred"), row.get("error_message")
    assert not [n for n in rows if "numba" in n and "target:vector_add" in n]
    lucas = rows[peer("lucas/numba_cuda/n:8/block:32/mode:kernel")]
    assert not lucas.get("error_occurred") and lucas["max_rel_err"] == 0
    shared = rows[peer("sgemm/numba_cuda_shared/n:16/block:16x8/mode:kernel")]
    assert shared["error_occurred"] and "needs a square block" in shared["error_message"]
    assert "SKIPPED: sgemm/numba_cuda_shared/n:16/block:16x8/mode:kernel" in err
    ctx = json.loads(Path(suite).read_text())["context"]
    assert ctx["numba_peers"] == "ran" and ctx["numba_peers_errors"] == 0
    # numba_cpu; kernel, e2e, pageable e2e; 2 transfers; 5 progress rows (poisson only); lucas;
    # the shared matmul, announced last and then skipped.
    runnable = 13
    assert "[13/13 " in err
    assert len(SIM_RUNNER_CPU) + len(SIM_RUNNER_GPU) + runnable == \
        len([e for e in rows if e.endswith("manual_time")])
    assert not load_run(suite).problems


# ---------------------------------------------------------------- versions the requirements exclude

def test_an_interpreter_whose_numpy_the_requirements_exclude_is_refused_with_the_reason(
        suite, tmp_path):
    # Metadata of a NumPy 2.5 first on the path: importlib.metadata reports it, NumPy itself is
    # untouched (the peers must not run on a NumPy that numba-cuda cannot compile with).
    fake = tmp_path / "site" / "numpy-2.5.0.dist-info"
    fake.mkdir(parents=True)
    (fake / "METADATA").write_text("Metadata-Version: 2.1\nName: numpy\nVersion: 2.5.0\n")
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{fake.parent}:$PYTHONPATH" exec {PYTHON} "$@"\n')
    wrapper.chmod(0o755)
    before = json.loads(Path(suite).read_text())
    r = subprocess.run(["bash", str(REPO / "scripts/peers.sh"), str(suite)], capture_output=True,
                       text=True, timeout=300, env=env(PYTHON=str(wrapper)))
    assert r.returncode == 0, r.stderr
    reason = json.loads(Path(suite).read_text())["context"]["numba_peers"]
    assert reason.startswith("skipped: peers/numba/requirements.txt is not met: "), reason
    assert "numpy 2.5.0 is not " in reason and "<2.5" in reason, reason
    assert json.loads(Path(suite).read_text())["benchmarks"] == before["benchmarks"]
