"""`python -m peers.numba --suite-json FILE [--workload=a,b] [--list] [--no-gpu]`

Runs the articles' Numba programs beside the C++ rows of a twinbench results file and merges
their rows into it. numba is imported only once the arguments and the file have been checked,
so that a machine without it records why the peers were skipped instead of failing.

Exit status: 0 ok (also when numba is not importable: the peers are then skipped, and the file
says so); 1 a validation failed; 2 bad input (arguments, a results file that cannot be read);
3 the results could not be written; 130/143 interrupted by SIGINT/SIGTERM (the file then holds
the rows measured before it).
"""

from __future__ import annotations

import argparse
import platform
import sys

from . import plan
from .results import ResultsNotWritten, check_writable, merge, write_atomically
from .suite import BadInput, load

EXIT_OK, EXIT_BAD_INPUT, EXIT_NOT_WRITTEN = 0, 2, 3


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
    from .compat import numpy_aliases
    numpy_aliases()
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
    if why is not None:
        reason = f"skipped: numba is not importable ({why})"
        print(f"numba peers: {reason}", file=sys.stderr)
        try:
            write_atomically(args.suite_json, merge(doc, [], {
                "numba_peers": reason, "python_version": platform.python_version()}))
        except ResultsNotWritten as exc:
            print(f"numba peers: {exc}", file=sys.stderr)
            return EXIT_NOT_WRITTEN
        return EXIT_OK
    from .runner import run
    try:
        return run(args.suite_json, doc, workloads, args.no_gpu)
    except BadInput as exc:
        print(f"numba peers: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
