"""Shared fixtures of the Numba peers' tests.

The slow checks run as subprocesses started as soon as the tests that need them are collected,
so that they overlap each other and the quick tests (the suite has two cores in CI):
  sim_gpu     every CUDA peer validated under Numba's CUDA simulator, and each broken kernel
  sim_cpu     every CPU peer validated (real @njit code), and each broken function
  ptx         every CUDA kernel compiled for the H200 (cc 9.0) with compile_ptx
  sim_runner  the runner end to end on CUDA rows, under the simulator
The simulator must be chosen before numba is imported, hence a process of its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "reports" / "src"))

PYTHON = sys.executable

try:
    import numba  # noqa: F401
    import numba.cuda  # noqa: F401
    HAVE_NUMBA = True
except Exception:  # noqa: BLE001 - any failure means the peers cannot run here
    HAVE_NUMBA = False

# Where scripts/deps.sh could not install numba (no network), the tests of the peers themselves
# skip; those of the runner without numba still run.
needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not importable here")


def env(**extra) -> dict:
    e = dict(os.environ)
    # The repository (peers.numba) and the Python package's source (twinbench.bench, which the
    # peers run on), whether or not the package is installed.
    paths = [str(REPO), str(REPO / "reports" / "src")]
    e["PYTHONPATH"] = os.pathsep.join(paths + ([e["PYTHONPATH"]] if e.get("PYTHONPATH") else []))
    e.pop("NUMBA_ENABLE_CUDASIM", None)
    e.pop("NUMBA_PEERS_INJECT_VALIDATION_FAILURE", None)
    e.update(extra)
    return e


def run_peers(args: list[str], timeout: float = 300, **extra_env) -> subprocess.CompletedProcess:
    """python -m peers.numba ARGS from the repository, its output captured."""
    return subprocess.run([PYTHON, "-m", "peers.numba", *args], cwd=REPO, env=env(**extra_env),
                          capture_output=True, text=True, timeout=timeout)


# ---------------------------------------------------------------- suite files

# A context as twinbench writes it (the keys the peers read), for a --quick run.
QUICK_CONTEXT = {
    "quick": "true", "stop_rule": "stdrel", "stop_max_rel_spread_pct": "5",
    "stop_min_samples": "3", "stop_min_time_s": "0.002", "stop_max_time_s": "0.02",
    "gpu_status": "no CUDA device: no NVIDIA driver is loaded (test)", "gpu_cache_mode": "cold",
    "cpu_bw_read_all_bytes_per_s": "2.9e+10", "cpu_bw_write_all_bytes_per_s": "1.4e+10",
    "cpu_bw_copy_all_bytes_per_s": "1.9e+10", "cpu_bw_scale_all_bytes_per_s": "2.3e+10",
    "cpu_bw_add_all_bytes_per_s": "2.8e+10", "cpu_bw_triad_all_bytes_per_s": "2.6e+10",
    "cpu_bw_read_one_bytes_per_s": "1.4e+10", "cpu_bw_write_one_bytes_per_s": "9.5e+09",
    "cpu_bw_copy_one_bytes_per_s": "1.1e+10", "cpu_bw_scale_one_bytes_per_s": "1.1e+10",
    "cpu_bw_add_one_bytes_per_s": "1.6e+10", "cpu_bw_triad_one_bytes_per_s": "1.4e+10",
    "run_complete": True,
}
GPU_CEILINGS = {f"gpu_bw_{p}_bytes_per_s": v for p, v in (
    ("read", "4.56e+12"), ("write", "4.6e+12"), ("copy", "4.24e+12"), ("scale", "4.22e+12"),
    ("add", "4.46e+12"), ("triad", "4.44e+12"))}


def cpp_entry(name: str, index: int, skipped_because: str | None = None) -> dict:
    """A C++ row as twinbench writes it: measured (a few counters) or skipped."""
    full = name + "/manual_time"
    entry = {"name": full, "run_name": full, "run_type": "iteration", "family_index": index,
             "per_family_instance_index": 0, "repetitions": 1, "repetition_index": 0,
             "threads": 1, "time_unit": "us"}
    if skipped_because:
        entry.update({"error_occurred": True, "error_message": skipped_because,
                      "iterations": 0, "real_time": 0.0, "cpu_time": 0.0})
    else:
        entry.update({"iterations": 1, "real_time": 100.0, "cpu_time": 100.0,
                      "median_s": 1e-4, "samples": 5.0, "samples_s": [1e-4] * 5})
    return entry


def write_suite(path: Path, cpu: list[str], gpu: list[str], context: dict | None = None) -> Path:
    """A suite results file: `cpu` rows measured, `gpu` rows skipped as on a machine without a
    GPU (or measured, when the context says the suite had one)."""
    ctx = dict(QUICK_CONTEXT if context is None else context)
    gpu_skip = None if ctx.get("gpu_status") == "available" else ctx.get("gpu_status")
    rows = [cpp_entry(n, i) for i, n in enumerate(cpu)]
    rows += [cpp_entry(n, len(cpu) + i, gpu_skip) for i, n in enumerate(gpu)]
    path.write_text(json.dumps({"context": ctx, "benchmarks": rows}))
    return path


def rows_of(path: Path) -> dict[str, dict]:
    doc = json.loads(Path(path).read_text())
    return {e["name"]: e for e in doc["benchmarks"]}


# ---------------------------------------------------------------- the background checks

# The suite the runner test runs under the simulator: CUDA rows of each kind (kernel, e2e and
# the articles' pageable e2e, a transfer, the progress counter, the recursion, a block the
# shared-memory matmul cannot take) and one CPU row, tiny sizes.
SIM_RUNNER_CPU = ["vector_add/omp/n:96/threads:2"]
SIM_RUNNER_GPU = [
    "vector_add/cuda_article/n:96/block:32/mode:kernel",
    "vector_add/cuda_article/n:96/block:32/mode:e2e",
    "transfers/cuda_pinned/dir:h2d/bytes:4096",
    "transfers/cuda_pageable/dir:d2h/bytes:4096",
    "progress/cuda_article/target:poisson/strategy:per_thread/counter:device/n:64/block:32",
    "progress/cuda_article/target:vector_add/strategy:per_thread/counter:device/n:64/block:32",
    "lucas/cuda_recursive/n:8/block:32/mode:kernel",
    "sgemm/cuda_tiled/n:16/block:16x8/mode:kernel",
]


def _sim_runner_command(tmp: Path) -> tuple[list[str], Path]:
    context = {**QUICK_CONTEXT, **GPU_CEILINGS, "gpu_status": "available",
               "stop_min_samples": "2", "stop_max_time_s": "0.001"}
    suite = write_suite(tmp / "sim_suite.json", SIM_RUNNER_CPU, SIM_RUNNER_GPU, context)
    return [PYTHON, "-m", "peers.numba", "--suite-json", str(suite)], suite


class Background:
    def __init__(self, args: list[str], extra_env: dict, artefact: Path | None = None):
        self.artefact = artefact
        self.proc = subprocess.Popen(args, cwd=REPO, env=env(**extra_env),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self._result = None

    def result(self, timeout: float = 600):
        if self._result is None:
            out, err = self.proc.communicate(timeout=timeout)
            self._result = (self.proc.returncode, out, err)
        return self._result


_JOBS: dict[str, Background] = {}
_TMP: list[Path] = []


def _start(name: str, tmp_root: Path) -> None:
    if name in _JOBS:
        return
    sim = {"NUMBA_ENABLE_CUDASIM": "1"}
    if name == "sim_gpu":
        _JOBS[name] = Background([PYTHON, str(HERE / "sim_driver.py"), "--side", "gpu"], sim)
    elif name == "sim_cpu":
        _JOBS[name] = Background([PYTHON, str(HERE / "sim_driver.py"), "--side", "cpu"], {})
    elif name == "ptx":
        _JOBS[name] = Background([PYTHON, str(HERE / "ptx_driver.py")], {})
    elif name == "sim_runner":
        args, suite = _sim_runner_command(tmp_root)
        _JOBS[name] = Background(args, sim, suite)


def pytest_collection_modifyitems(session, config, items):
    wanted = {f for item in items for f in getattr(item, "fixturenames", ())}
    jobs = [n for n in ("sim_gpu", "sim_cpu", "ptx", "sim_runner") if n in wanted]
    if jobs and HAVE_NUMBA:
        import tempfile
        tmp = Path(tempfile.mkdtemp(prefix="peers-tests-"))
        _TMP.append(tmp)
        for name in jobs:
            _start(name, tmp)


def pytest_sessionfinish(session, exitstatus):
    import shutil
    for job in _JOBS.values():
        if job.proc.poll() is None:
            job.proc.kill()
    for tmp in _TMP:
        shutil.rmtree(tmp, ignore_errors=True)


def _json_job(name: str, tmp_path_factory) -> dict:
    _start(name, tmp_path_factory.mktemp(name))
    code, out, err = _JOBS[name].result()
    assert code == 0, f"{name} exited {code}:\n{err[-4000:]}"
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def sim_gpu(tmp_path_factory) -> dict:
    return _json_job("sim_gpu", tmp_path_factory)


@pytest.fixture(scope="session")
def sim_cpu(tmp_path_factory) -> dict:
    return _json_job("sim_cpu", tmp_path_factory)


@pytest.fixture(scope="session")
def ptx(tmp_path_factory) -> dict:
    return _json_job("ptx", tmp_path_factory)


@pytest.fixture(scope="session")
def sim_runner(tmp_path_factory):
    """(exit code, stderr, the merged results file) of the runner under the simulator."""
    _start("sim_runner", tmp_path_factory.mktemp("sim_runner"))
    job = _JOBS["sim_runner"]
    code, _out, err = job.result()
    return code, err, job.artefact
