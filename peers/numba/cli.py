"""`python -m peers.numba --suite-json FILE [--workload=a,b] [--list] [--no-gpu]`

Runs the articles' Numba programs beside the C++ rows of a twinbench results file and merges
their rows into it, through twinbench's Python API (twinbench.bench): the plan here says which
rows (one per C++ row with a Numba peer), the workload modules what each computes, and the
API's engine validates and times them. numba is imported only once the arguments and the file
have been checked, so that a machine without it records why the peers were skipped instead of
failing.

Exit status: 0 ok (also when numba is not importable: the peers are then skipped, and the file
says so); 1 a validation failed; 2 bad input (arguments, a results file that cannot be read);
3 the results could not be written; 130/143 interrupted by SIGINT/SIGTERM (the file then holds
the rows measured before it).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

from twinbench.bench.results import ResultsNotWritten, check_writable, merge, write_atomically
from twinbench.bench.suite import BadInput, load

from . import plan

EXIT_OK, EXIT_VALIDATION, EXIT_BAD_INPUT, EXIT_NOT_WRITTEN = 0, 1, 2, 3
# Set by scripts/peers.sh when numba imports but the installed versions do not meet
# peers/numba/requirements.txt: the peers are skipped with this reason.
UNMET_ENV = "NUMBA_PEERS_UNMET"


class _Parser(argparse.ArgumentParser):
    def error(self, message):   # one line and exit 2, as the suite's own bad input
        raise BadInput(message)


def parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="python -m peers.numba",
        description="The articles' Numba programs as peers of twinbench's C++ rows: each C++ row "
                    "with a Numba peer gets a numba_cpu* or numba_cuda* row of the same size, "
                    "validated and timed the suite's way, merged into the same results file.",
        epilog="Exit status: 0 ok (also when numba is not importable: the peers are skipped and "
               "the file says why), 1 a validation failed, 2 bad input, 3 the results could not "
               "be written, 130/143 interrupted.")
    p.add_argument("--suite-json", required=True, metavar="FILE",
                   help="the suite's results (twinbench --benchmark_out); the peer rows are "
                        "merged into it")
    p.add_argument("--workload", metavar="A,B",
                   help=f"only these workloads (of: {', '.join(plan.WORKLOADS)})")
    p.add_argument("--list", action="store_true",
                   help="print the rows that would run, and exit")
    p.add_argument("--no-gpu", action="store_true",
                   help="run the CPU peers only; the CUDA rows are recorded as skipped")
    return p


def import_numba() -> str | None:
    """None when numba (with its CUDA target) imports, else why not, in one line."""
    try:
        import numba  # noqa: F401
        import numba.cuda  # noqa: F401
    except Exception as exc:  # noqa: BLE001 - any failure to import is a reason to skip
        return " ".join(f"{type(exc).__name__}: {exc}".split())
    return None


def list_plan(doc: dict, workloads: list[str] | None) -> int:
    rows = plan.derive(doc, workloads)
    for row in rows:
        print(f"{row.base}    <- {row.source}")
    print(f"{len(rows)} rows", file=sys.stderr)
    return EXIT_OK


def gpu_skip_reason(context: dict, gpu) -> str:
    """What a CUDA peer row says when there is no GPU: the suite's own reason when the suite
    saw none either (so both sides' skips read alike), else why Numba sees none."""
    suite_status = str(context.get("gpu_status", ""))
    if suite_status and suite_status != "available":
        return suite_status
    return f"no CUDA device for Numba: {gpu.status}"


def run(path: str, doc: dict, workload_filter: list[str] | None, no_gpu: bool,
        out=sys.stderr) -> int:
    import numba

    from twinbench.bench import engine

    t0 = time.perf_counter()
    max_threads = numba.config.NUMBA_NUM_THREADS

    def cpu_threads(cpp_threads: int) -> int:
        return min(cpp_threads, max_threads) if cpp_threads > 0 else max_threads

    rows = plan.derive(doc, workload_filter, cpu_threads)
    gpu = engine.gpu_for(no_gpu, "--no-gpu: the CUDA peers were not run")
    gpu_skip = gpu_skip_reason(doc["context"], gpu)
    n_gpu = sum(r.side == "gpu" for r in rows)
    print(f"numba peers: {len(rows)} rows ({len(rows) - n_gpu} CPU, {n_gpu} CUDA) from {path}; "
          f"numba {numba.__version__}, numba-cuda {engine.version_of('numba-cuda')}, "
          f"{max_threads} threads ({numba.config.THREADING_LAYER} layer requested)",
          file=out, flush=True)
    if not gpu.available and n_gpu:
        print(f"numba peers: the {n_gpu} CUDA rows are skipped: {gpu_skip}", file=out, flush=True)
    elif gpu.available:
        print(f"numba peers: GPU: {gpu.name} ({gpu.status})", file=out, flush=True)
    out_rows, runner, stop = engine.execute(doc, rows, gpu, gpu_skip, out)
    c = runner.counts
    wall = time.perf_counter() - t0
    context = {
        "numba_peers": "ran",
        **engine.versions(),
        "numba_threading_layer": engine.threading_layer(),
        "numba_cuda_status": gpu.status if gpu.available else gpu_skip,
        "numba_peers_planned": len(rows),
        "numba_peers_measured": c["measured"],
        "numba_peers_skipped": c["skipped"],
        "numba_peers_failed": c["failed"],
        "numba_peers_errors": c["errors"],
        "numba_peers_wall_s": wall,
        "numba_peers_complete": not stop(),
    }
    if gpu.available:
        context["numba_gpu_name"] = gpu.name
        context["numba_gpu_cache_mode"] = "cold" if runner.timer.cold else "warm"
    if stop():
        context["numba_peers_interrupted_by"] = stop.name
    try:
        write_atomically(path, merge(doc, out_rows, context))
    except ResultsNotWritten as exc:
        print(f"numba peers: {exc}", file=out)
        return EXIT_NOT_WRITTEN
    print(f"numba peers: {c['measured']} measured, {c['skipped']} skipped, {c['failed']} failed "
          f"validation, {c['errors']} errors, in {wall:.0f} s; merged into {path}", file=out)
    if stop():
        print(f"numba peers: interrupted by {stop.name}: the results hold the rows measured "
              "before it", file=out)
        return 128 + stop.signal
    if c["failed"]:
        print(f"numba peers: {c['failed']} validation failure(s); see above", file=out)
        return EXIT_VALIDATION
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
        workloads = plan.parse_workloads(args.workload)
        doc = load(args.suite_json)
    except BadInput as exc:
        print(f"numba peers: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.list:
        return list_plan(doc, workloads)
    try:
        check_writable(args.suite_json)
    except ResultsNotWritten as exc:
        print(f"numba peers: {exc}", file=sys.stderr)
        return EXIT_NOT_WRITTEN
    why = import_numba()
    unmet = os.environ.get(UNMET_ENV)
    if why is not None or unmet:
        reason = f"skipped: {unmet}" if unmet else f"skipped: numba is not importable ({why})"
        print(f"numba peers: {reason}", file=sys.stderr)
        try:
            write_atomically(args.suite_json, merge(doc, [], {
                "numba_peers": reason, "python_version": platform.python_version()}))
        except ResultsNotWritten as exc:
            print(f"numba peers: {exc}", file=sys.stderr)
            return EXIT_NOT_WRITTEN
        return EXIT_OK
    try:
        return run(args.suite_json, doc, workloads, args.no_gpu)
    except BadInput as exc:
        print(f"numba peers: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
