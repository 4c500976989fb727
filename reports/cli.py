"""Command line: `python -m reports [render] RUN.json [MORE.json] --out DIR`
`python -m reports compare A.json B.json --out DIR` and
`python -m reports merge PART.json [PART.json] --out RUN.json [--drop REGEX]`.

Exit codes: 0 report written (even for empty, partial or CPU-only runs),
2 unusable input or bad usage.
"""

from __future__ import annotations

import argparse
import math
import re
import sys

from .loader import LoadError

EXIT_OK = 0
EXIT_BAD_INPUT = 2
SUBCOMMANDS = ("render", "compare", "merge")


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line and exit 2, like every other failure of this command."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"error: {message} (see --help)\n")


def _threshold(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--threshold: '{text}' is not a number") from None
    if not math.isfinite(value) or not 0 < value < 1:
        raise argparse.ArgumentTypeError(
            f"--threshold: expected a relative change between 0 and 1, got {text}")
    return value


def _regex(text: str) -> str:
    try:
        re.compile(text)
    except re.error as exc:
        raise argparse.ArgumentTypeError(f"--drop: '{text}' is not a valid regex ({exc})") from None
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m reports",
        description="Charts and tables from twinbench (Google Benchmark) JSON results.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    render = sub.add_parser("render", help="report for one run (several files are merged)")
    render.add_argument("results", nargs="+", help="Google Benchmark JSON file(s)")
    render.add_argument("--out", required=True, help="output folder (created if missing)")
    compare = sub.add_parser("compare", help="B relative to A, per benchmark")
    compare.add_argument("baseline", help="A: the reference run")
    compare.add_argument("candidate", help="B: the run being judged")
    compare.add_argument("--out", required=True, help="output folder (created if missing)")
    compare.add_argument("--threshold", type=_threshold, default=None,
                         help="relative change counted as real when no repetitions exist "
                              "(default 0.05)")
    merge = sub.add_parser("merge", help="one JSON from several parts of a run (later wins)")
    merge.add_argument("results", nargs="+", help="Google Benchmark JSON file(s), in order")
    merge.add_argument("--out", required=True, help="merged JSON file to write")
    merge.add_argument("--drop", type=_regex, default=None,
                       help="regex: leave out entries whose name matches")
    return parser


def _with_default_command(argv: list[str]) -> list[str]:
    # `python -m reports RUN.json --out DIR` is the common case: treat as render.
    if argv and argv[0] not in SUBCOMMANDS and argv[0] not in ("-h", "--help"):
        return ["render", *argv]
    return argv


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(_with_default_command(list(sys.argv[1:] if argv is None else argv)))
    try:
        if args.command == "render":
            from .render import render
            result = render(args.results, args.out)
            print(f"wrote {result.markdown}, {result.html} and {len(result.charts)} chart(s)")
            for line in result.left_out:
                print(line)
        elif args.command == "merge":
            from .merge import write_merged
            count = write_merged(args.results, args.out, args.drop)
            print(f"wrote {args.out}: {count} entries from {len(args.results)} file(s)")
        else:
            from .compare import compare
            kwargs = {} if args.threshold is None else {"threshold": args.threshold}
            result = compare(args.baseline, args.candidate, args.out, **kwargs)
            print(f"wrote {result.markdown}: {result.summary}")
    except LoadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        # An output path that is a file, lies under a file, or cannot be written.
        where = f" {exc.filename}" if exc.filename else ""
        print(f"error: cannot write{where}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK
