"""`twinbench-py run FILE [--quick] [--out RUN.json] [--workload=a,b] [--no-gpu] [--list]`

Runs the Workloads a Python file declares (twinbench.bench.Workload at its top level): each
variant checked against the reference into poisoned outputs, then timed, the GPU kernels swept
over block sizes, the rows written in the suite's results format for `twinbench-report render`.

Exit status: 0 ok, 1 a validation failed (or a row raised), 2 bad input, 3 the results could not
be written, 130/143 interrupted (the file holds the rows measured before it).
"""

from __future__ import annotations

import argparse
import sys

from .results import ResultsNotWritten
from .session import (EXIT_BAD_INPUT, EXIT_NOT_WRITTEN, EXIT_OK, BadInput, load_file, run)


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise BadInput(message)


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="twinbench-py",
                description="Your own CPU and GPU Python code, checked against your reference "
                            "and timed the twinbench way (docs/python.md).",
                epilog="Exit status: 0 ok, 1 a validation failed, 2 bad input, 3 the results "
                       "could not be written, 130/143 interrupted.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    r = sub.add_parser("run", help="run the workloads a Python file declares")
    r.add_argument("file", help="a Python file defining twinbench.bench.Workload objects")
    r.add_argument("--quick", action="store_true",
                   help="the smallest size (or quick_sizes) and the quick stopping rule")
    r.add_argument("--out", default="twinbench-py.json", metavar="RUN.json",
                   help="the results file (default: twinbench-py.json)")
    r.add_argument("--workload", metavar="A,B", help="only these workloads of the file")
    r.add_argument("--no-gpu", action="store_true", help="CPU rows only; GPU rows are skipped")
    r.add_argument("--warm", action="store_true",
                   help="do not flush the GPU's L2 before each sample")
    r.add_argument("--ceilings", choices=("auto", "binary", "python", "none"), default="auto",
                   help="where the machine's limits come from: the twinbench binary where "
                        "found, else Python kernels (auto, the default)")
    r.add_argument("--twinbench", metavar="PATH", help="the twinbench binary for the ceilings")
    r.add_argument("--list", action="store_true", help="print the rows that would run, and exit")
    return p


def numba_missing() -> str | None:
    """Why numba (with its CUDA target) does not import, in one line; None when it does."""
    try:
        import numba  # noqa: F401
        import numba.cuda  # noqa: F401
    except Exception as exc:  # noqa: BLE001 - any failure to import says the same
        return (" ".join(f"{type(exc).__name__}: {exc}".split())
                + "; install it with: pip install 'twinbench[numba]'")
    return None


def main(argv: list[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
        why = numba_missing()
        if why:
            raise BadInput(f"numba is not importable ({why})")
        workloads = load_file(args.file)
        if args.workload:
            wanted = [w for w in args.workload.split(",") if w]
            known = {w.name: w for w in workloads}
            unknown = [w for w in wanted if w not in known]
            if unknown:
                raise BadInput(f"unknown workload(s) {', '.join(unknown)}; {args.file} declares: "
                               f"{', '.join(known)}")
            workloads = [known[w] for w in wanted]
        if args.list:
            for w in workloads:
                for row in w.rows(quick=args.quick):
                    print(row.base)
            return EXIT_OK
        result = run(*workloads, quick=args.quick, out=args.out, no_gpu=args.no_gpu,
                     ceilings=args.ceilings, twinbench=args.twinbench, warm=args.warm)
    except BadInput as exc:
        print(f"twinbench-py: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ResultsNotWritten as exc:
        print(f"twinbench-py: {exc}", file=sys.stderr)
        return EXIT_NOT_WRITTEN
    return result.exit_code


if __name__ == "__main__":
    sys.exit(main())
