"""run(): declared workloads validated, timed and written in the suite's results format, from a
notebook or from `twinbench-py run FILE`.

Exit status (RunResult.exit_code, the command's): 0 ok; 1 a validation failed (its rows get no
time); 2 bad input; 3 the results could not be written; 130/143 interrupted by SIGINT/SIGTERM
(the file then holds the rows measured before it).
"""

from __future__ import annotations

import datetime
import importlib.util
import os
import platform
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .results import ResultsNotWritten, write_atomically
from .sampler import DEFAULT_RULE, QUICK_RULE

EXIT_OK, EXIT_VALIDATION, EXIT_BAD_INPUT, EXIT_NOT_WRITTEN = 0, 1, 2, 3


class BadInput(Exception):
    """A file or argument that cannot be used (exit 2)."""


@dataclass
class RunResult:
    path: Path | None     # the results file (None: not written)
    doc: dict             # what was written: {"context": ..., "benchmarks": [...]}
    exit_code: int
    counts: dict

    @property
    def ok(self) -> bool:
        return self.exit_code == EXIT_OK

    def rows(self) -> dict[str, dict]:
        """Row name (without /manual_time) -> the row."""
        return {r["name"].removesuffix("/manual_time"): r for r in self.doc["benchmarks"]}


def _rule_context(quick: bool) -> dict:
    rule = QUICK_RULE if quick else DEFAULT_RULE
    return {"quick": "true" if quick else "false", "stop_rule": "stdrel",
            "stop_max_rel_spread_pct": f"{100 * rule.max_rel_stdev:g}",
            "stop_min_samples": str(rule.min_samples), "stop_min_time_s": f"{rule.min_time_s:g}",
            "stop_max_time_s": f"{rule.max_time_s:g}"}


def _gpu_context(gpu, simulated: bool) -> dict:
    if not gpu.available:
        return {"gpu_status": gpu.status}
    ctx = {"gpu_status": "available", "gpu_name": gpu.name, "gpu_sms": str(gpu.sms),
           "gpu_cc": f"{gpu.cc[0]}.{gpu.cc[1]}", "gpu_l2_cache_bytes": str(gpu.l2_bytes)}
    ctx["kernel_attributes"] = ("unavailable under Numba's CUDA simulator (no registers, no "
                                "occupancy; times are the simulator's, not a GPU's)"
                                if simulated else
                                "registers and static shared memory from Numba's dispatcher, "
                                "occupancy from cuOccupancyMaxActiveBlocksPerMultiprocessor")
    return ctx


def run(*workloads, quick: bool = False, out: str | os.PathLike | None = "twinbench-py.json",
        no_gpu: bool = False, ceilings: str = "auto", twinbench: str | None = None,
        warm: bool = False, stream=None) -> RunResult:
    """Validates and times every row of `workloads` (Workload objects), writes the results file
    `out` (None: none), and returns what it wrote. Progress goes to `stream` (stderr)."""
    stream = stream or sys.stderr
    import numba

    from . import ceilings as limits
    from . import engine
    from .timing import SIMULATOR
    from .workload import Workload

    def say(text: str) -> None:
        print(f"twinbench-py: {text}", file=stream, flush=True)

    flat = []
    for w in workloads:
        flat.extend(w if isinstance(w, (list, tuple)) else [w])
    if not flat or not all(isinstance(w, Workload) for w in flat):
        raise BadInput("run() takes Workload objects (twinbench.bench.Workload)")
    names = [w.name for w in flat]
    if len(set(names)) != len(names):
        raise BadInput(f"two workloads share a name: {', '.join(names)}")
    if out is not None:
        out = Path(out)
        folder = out.parent if str(out.parent) else Path(".")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise ResultsNotWritten(f"cannot write the results file {out}: its folder {folder} "
                                    "is not writable")
    t0 = time.perf_counter()
    gpu = engine.gpu_for(no_gpu, "--no-gpu: the GPU rows were not run")
    threads = numba.config.NUMBA_NUM_THREADS
    rows = [r for w in flat for r in w.rows(quick=quick, cpu_threads=threads)]
    context = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host_name": socket.gethostname(), "machine": platform.machine(),
        "executable": "twinbench-py", "twinbench_py_version": _version(),
        "num_cpus": os.cpu_count() or 0, "omp_threads": str(threads),
        "gpu_cache_mode": "warm" if warm else "cold",
        **_rule_context(quick), **_gpu_context(gpu, SIMULATOR), **engine.versions(),
    }
    n_gpu = sum(r.side == "gpu" for r in rows)
    say(f"{len(rows)} rows of {', '.join(names)} ({len(rows) - n_gpu} CPU, {n_gpu} GPU); "
        f"numba {numba.__version__}, {threads} threads; GPU: "
        + (f"{gpu.name} ({gpu.status})" if gpu.available else f"none ({gpu.status})"))
    context.update(limits.measure(gpu, quick, twinbench, ceilings, say))
    doc = {"context": context, "benchmarks": []}
    gpu_skip = f"no GPU: {gpu.status}"
    out_rows, runner, stop = engine.execute(doc, rows, gpu, gpu_skip, stream)
    c = runner.counts
    context.update({
        "numba_threading_layer": engine.threading_layer(),
        "benchmarks_planned": len(rows), "benchmarks_measured": c["measured"],
        "benchmarks_skipped": c["skipped"], "benchmarks_failed": c["failed"],
        "benchmarks_errors": c["errors"], "run_wall_s": time.perf_counter() - t0,
        "run_complete": not stop(),
    })
    if stop():
        context["run_interrupted_by"] = stop.name
    doc["benchmarks"] = out_rows
    code = EXIT_OK
    if out is not None:
        try:
            write_atomically(out, doc)
        except ResultsNotWritten as exc:
            say(str(exc))
            return RunResult(None, doc, EXIT_NOT_WRITTEN, c)
    say(f"{c['measured']} measured, {c['skipped']} skipped, {c['failed']} failed validation, "
        f"{c['errors']} errors, in {time.perf_counter() - t0:.0f} s"
        + (f"; written to {out}" if out is not None else ""))
    if stop():
        say(f"interrupted by {stop.name}: the results hold the rows measured before it")
        code = 128 + stop.signal
    elif c["failed"]:
        say(f"{c['failed']} validation failure(s): those rows got no time (see above)")
        code = EXIT_VALIDATION
    elif c["errors"]:
        code = EXIT_VALIDATION
    return RunResult(out, doc, code, c)


def _version() -> str:
    try:
        import importlib.metadata
        return importlib.metadata.version("twinbench")
    except Exception:  # noqa: BLE001 - from a source tree
        return "source"


def load_file(path: str | os.PathLike) -> list:
    """The Workload objects a Python file defines at its top level (`twinbench-py run FILE`),
    in the order it defines them. The file runs as a module named after it, so its own imports
    work from its folder."""
    from .workload import Workload
    path = Path(path)
    if not path.is_file():
        raise BadInput(f"{path}: no such file")
    name = "twinbench_py_user_" + "".join(ch if ch.isalnum() else "_" for ch in path.stem)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(path.resolve().parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    found = [v for v in vars(module).values() if isinstance(v, Workload)]
    if not found:
        raise BadInput(f"{path} defines no twinbench.bench.Workload at its top level")
    return found
