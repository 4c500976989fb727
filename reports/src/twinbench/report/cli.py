"""The `twinbench-report` command: render (the default: `twinbench-report RUN.json --out DIR`),
compare, merge, devices and gate (twinbench/report/gate.py: run, compare, confirm the suspects in
fresh processes); reports/README.md and docs/command-line.md describe them.

Exit codes: 0 done (a report is written even for empty, partial or CPU-only runs); 1 a regression:
with compare --fail-on-regression PCT, one beyond PCT% and its noise among the benchmarks whose
threshold is PCT% or less (twinbench/report/noise.py says why the others are only printed), with
gate, one confirmed in every round of the confirm step; 2 unusable input or bad usage.
"""

from __future__ import annotations

import argparse
import math
import re
import sys

from .loader import LoadError

EXIT_OK = 0
EXIT_REGRESSION = 1
EXIT_BAD_INPUT = 2
# Regressions printed when --fail-on-regression fails (the report lists them all).
MAX_PRINTED = 20


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line and exit 2, like every other failure of this command."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"error: {message} (see --help)\n")


def _checked(option: str, convert, ok, expected: str, what: str = "a number"):
    """An argparse type: `convert(text)`, refused in one line unless `ok(value)`."""
    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{option}: '{text}' is not {what}") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"{option}: expected {expected}, got {text}")
        return value
    return parse


def _positive(option: str):
    return _checked(option, float, lambda v: math.isfinite(v) and v >= 0, "a number ≥ 0")


_threshold = _checked("--threshold", float, lambda v: math.isfinite(v) and 0 < v < 1,
                      "a relative change between 0 and 1")
_rounds = _checked("--rounds", int, lambda v: 1 <= v <= 20, "1 to 20", "a whole number")


def _regex(text: str) -> str:
    try:
        re.compile(text)
    except re.error as exc:
        raise argparse.ArgumentTypeError(f"--drop: '{text}' is not a valid regex ({exc})") from None
    return text


def _arg(*flags: str, **options) -> tuple[tuple[str, ...], dict]:
    return flags, options


def _commands() -> dict[str, tuple[str, list]]:
    """Each subcommand: its help and its arguments (add_argument's flags and keywords)."""
    from .gate import DEFAULT_MAX_SUSPECTS, DEFAULT_PCT, DEFAULT_ROUNDS, DEFAULT_TIMEOUT_S
    out = _arg("--out", required=True, help="output folder (created if missing)")
    return {
        "render": ("report for one run (several files are merged)", [
            _arg("results", nargs="+", help="Google Benchmark JSON file(s)"), out,
            _arg("--linked-charts", action="store_true",
                 help="report.html links the chart PNGs beside it instead of embedding them (for "
                      "a report kept in results/)")]),
        "compare": ("B relative to A, per benchmark", [
            _arg("baseline_run", metavar="A", help="A: the reference run"),
            _arg("candidate", metavar="B", help="B: the run being judged"), out,
            _arg("--threshold", type=_threshold,
                 help="the smallest relative change ever reported: the floor of every row's "
                      "threshold max(floor, k × noise) (default 0.02)"),
            _arg("--baseline", nargs="+", metavar="RUN.json",
                 help="two or more runs of one revision (A's, say): their differences measure "
                      "each row's between-run noise (else defaults per kind of row, "
                      "twinbench/report/noise.py)"),
            _arg("--noise-k", type=_positive("--noise-k"),
                 help="the threshold is e^(k x sigma) - 1, sigma the row's between-run noise in "
                      "log space (default 2: about the 95th percentile of its kind's moves, "
                      "1.5 x the 98th for kinds that time host work)"),
            _arg("--repo", default=".",
                 help="the git repository holding both runs' revisions, whose commits between "
                      "them name the causes of the changes (changes.md; default: the current "
                      "directory's)"),
            _arg("--fail-on-regression", type=_positive("--fail-on-regression"), metavar="PCT",
                 help="exit 1 when a benchmark whose threshold is at most PCT percent is slower "
                      "beyond it and by more than PCT percent (for CI); noisier rows that are "
                      "slower are printed, not failed on")]),
        "merge": ("one JSON from several parts of a run (later wins)", [
            _arg("results", nargs="+", help="Google Benchmark JSON file(s), in order"),
            _arg("--out", required=True, help="merged JSON file to write"),
            _arg("--drop", type=_regex, help="regex: leave out entries whose name matches")]),
        "devices": ("several devices' runs side by side (one run per device: twinbench "
                    "--devices=0,2)", [
            _arg("results", nargs="+", help="one results file per device, the first the "
                                            "reference"), out]),
        "gate": ("run A and B, compare, confirm the suspects in fresh processes; exit 1 only on a "
                 "confirmed regression", [
            _arg("--a", required=True, metavar="BIN_OR_RESULTS",
                 help="the reference: a twinbench binary, or a results file of it (the confirm "
                      "step then measures B against its samples)"),
            _arg("--b", required=True, metavar="BIN", help="the candidate's twinbench binary"),
            _arg("--out", default="gate-out", help="output folder (default gate-out)"),
            _arg("--pct", type=_positive("--pct"), default=DEFAULT_PCT,
                 help="the slowdown to catch, in percent; rows whose noise threshold is at most "
                      f"this are gated (default {DEFAULT_PCT:g})"),
            _arg("--cpu-pct", type=_positive("--cpu-pct"),
                 help="gate every CPU row at this slowdown, screened and confirmed at its "
                      "midpoint (default: CPU rows are gated like the others, by threshold)"),
            _arg("--rounds", type=_rounds, default=DEFAULT_ROUNDS,
                 help=f"confirm rounds, each a fresh process per build (default {DEFAULT_ROUNDS})"),
            _arg("--repetitions", type=_rounds, default=1,
                 help="--benchmark_repetitions within each confirm process (default 1)"),
            _arg("--bench-args", default="",
                 help="arguments for every twinbench run, one string (e.g. "
                      "\"--workload=dot,vector_add --no-ceilings\")"),
            _arg("--a-env", action="append", metavar="KEY=VALUE",
                 help="environment for A's processes only (repeatable)"),
            _arg("--b-env", action="append", metavar="KEY=VALUE",
                 help="environment for B's processes only (repeatable), e.g. "
                      "TWINBENCH_INJECT_SLOWDOWN='^dot/cuda=5'"),
            _arg("--baseline", nargs="+", metavar="RUN.json",
                 help="two or more runs of A's revision: each row's own noise (compare)"),
            _arg("--max-suspects", type=int, default=DEFAULT_MAX_SUSPECTS,
                 help=f"suspects measured again at most, largest first (default "
                      f"{DEFAULT_MAX_SUSPECTS})"),
            _arg("--timeout", type=_positive("--timeout"), default=DEFAULT_TIMEOUT_S,
                 help=f"seconds one twinbench process may take (default {DEFAULT_TIMEOUT_S:g})")]),
    }


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="twinbench-report",
        description="Charts and tables from twinbench (Google Benchmark) JSON results.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, (help_text, arguments) in _commands().items():
        command = sub.add_parser(name, help=help_text)
        for flags, options in arguments:
            command.add_argument(*flags, **options)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # `twinbench-report RUN.json --out DIR` is the common case: treat as render.
    if argv and argv[0] not in _commands() and argv[0] not in ("-h", "--help"):
        argv = ["render", *argv]
    args = build_parser().parse_args(argv)
    try:
        if args.command == "render":
            from .render import render
            result = render(args.results, args.out, embed_images=not args.linked_charts)
            print(f"wrote {result.markdown}, {result.html} and {len(result.charts)} chart(s)")
            for line in result.left_out:
                print(line)
        elif args.command == "merge":
            from .merge import write_merged
            count = write_merged(args.results, args.out, args.drop)
            print(f"wrote {args.out}: {count} entries from {len(args.results)} file(s)")
        elif args.command == "devices":
            from .devices import write
            print(f"wrote {write(args.results, args.out)}")
        elif args.command == "gate":
            from .gate import main_from_args
            return main_from_args(args)
        else:
            return _compare(args)
    except LoadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        # An output path that is a file, lies under a file, or cannot be written.
        where = f" {exc.filename}" if exc.filename else ""
        print(f"error: cannot write{where}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK


def _print_changes(changes, line, file=None) -> None:
    for c in changes[:MAX_PRINTED]:
        print(f"  {line(c)}, threshold ±{c.threshold.text}", file=file)


def _compare(args) -> int:
    from .compare import NOT_COMPARABLE, compare, gated
    if args.baseline is not None and len(args.baseline) < 2:
        print("error: --baseline needs two or more runs of one revision (their differences are "
              "the noise)", file=sys.stderr)
        return EXIT_BAD_INPUT
    options = {"threshold": args.threshold, "k": args.noise_k}
    # LoadError and OSError reach main()'s handler, which says what went wrong (exit 2).
    result = compare(args.baseline_run, args.candidate, args.out, baseline=args.baseline,
                     repo=args.repo,
                     **{key: value for key, value in options.items() if value is not None})
    print(f"wrote {result.markdown}: {result.summary}")
    if result.causes and result.causes.groups:
        print(f"wrote {result.out_dir / 'changes.md'}: the changed rows by cause")
    _print_changes(result.changed(), lambda c: f"{c.verdict} {c.name}: B/A {c.ratio:.3f}")
    pct = args.fail_on_regression
    if pct is None:
        return EXIT_OK
    if any(c.verdict == NOT_COMPARABLE for c in result.comparisons):
        print("warning: the runs' settings differ: no benchmark was judged, so none regressed",
              file=sys.stderr)
    regressed, ungated = result.regressions(pct), result.ungated_regressions(pct)
    if ungated:
        # Reported, not failed on: these rows' kinds move past PCT between runs of identical
        # code (twinbench/report/noise.py), so their flags are not evidence of a PCT regression.
        print(f"not gated: {len(ungated)} benchmark(s) slower by more than {pct:g}% and beyond "
              f"their noise, whose threshold is above {pct:g}% (a --baseline of repeated runs "
              "measures their own noise):")
        _print_changes(ungated, lambda c: f"{c.name}: B/A {c.ratio:.3f}")
    if not any(gated(c, pct) for c in result.comparisons):
        smallest = min((c.threshold.value for c in result.comparisons if c.threshold), default=0)
        print(f"warning: no benchmark has a threshold of {pct:g}% or less, so none is gated "
              f"(the smallest threshold is {smallest:.1%})", file=sys.stderr)
    if not regressed:
        print(f"no regression beyond {pct:g}% and noise among the benchmarks whose threshold is "
              f"{pct:g}% or less")
        return EXIT_OK
    print(f"FAIL: {len(regressed)} benchmark(s) slower by more than {pct:g}% and beyond noise:",
          file=sys.stderr)
    _print_changes(regressed, lambda c: f"{c.name}: B/A {c.ratio:.3f} {_interval(c.interval)}",
                   file=sys.stderr)
    return EXIT_REGRESSION


def _interval(interval) -> str:
    return f"[{interval[0]:.3f}, {interval[1]:.3f}]" if interval else ""
