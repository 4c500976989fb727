"""The calibration of `compare` from two measured pairs:

    python -m twinbench.report.calibrate_compare --aa A1.json A2.json --ab A1.json B.json \\
        --out DIR [--fail-on-regression 5] [--baseline RUN.json RUN.json ...]

A/A is two runs of one revision, A/B A against a run with TWINBENCH_INJECT_SLOWDOWN on a few rows
(its context's inject_slowdown: "REGEX=PCT (...)"). Writes DIR/calibration.md (and each pair's
compare report under DIR/aa and DIR/ab) and checks: on A/A at least 95% of the rows same and
--fail-on-regression PCT exits 0; on A/B every injected GPU kernel row slower, at most 5% of the
others flagged, and --fail-on-regression PCT exits 1. Exit 0 when all hold, 1 when one does not,
2 on unusable input.

    python -m twinbench.report.calibrate_compare --gates GATE_DIR [GATE_DIR ...] [--out DIR]

checks gate outputs (each DIR a gate's --out): an A/A gate exits 0; a gate whose B slows GPU
kernel rows exits 1 with at least 90% of them and every injected CPU row confirmed and at most
one other row confirmed. Prints a Markdown table (and writes DIR/gates.md with --out).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from .compare import CompareResult, compare, interval_text
from .document import Heading, Paragraph, Table, to_markdown
from .gate import AMBIGUOUS, CONFIRMED, NOT_REPRODUCED
from .loader import LoadError, load_run
from .noise import GPU_KERNEL_KINDS, injected_pattern, kind_of
from .verdicts import SAME, SLOWER, Comparison, gated

MIN_SAME_AA = 0.95
MAX_FLAGGED_AB = 0.05
DEFAULT_FAIL_PCT = 5.0
MIN_CONFIRMED_INJECTED = 0.90
MAX_OTHERS_CONFIRMED = 1
HEADERS = ["benchmark", "kind", "verdict", "B/A", "95% interval", "threshold"]
AA_HEADERS = HEADERS + ["past its threshold", "--fail-on-regression"]
AB_HEADERS = HEADERS + ["hook within B", "B without the hook / A"]
GATE_HEADERS = ["gate", "B's injection", "exit", "suspects", "confirmed", "not reproduced",
                "ambiguous", "injected confirmed", "others confirmed", "confirm step", "met"]


@dataclass
class Check:
    what: str
    passed: bool
    figures: str


def _row(c: Comparison) -> list[str]:
    return [c.name, kind_of(c.a), c.verdict, f"{c.ratio:.3f}", interval_text(c.interval),
            c.threshold.text if c.threshold else "–"]


def _past_by(c: Comparison) -> str:
    """How far past its threshold a flagged row is: |log B/A| over log(1 + threshold)."""
    if not c.threshold or c.threshold.value <= 0:
        return "–"
    return f"{abs(math.log(c.ratio)) / math.log1p(c.threshold.value):.2f}×"


def _gate_text(c: Comparison, pct: float) -> str:
    if c.verdict != SLOWER or c.ratio - 1 <= pct / 100:
        return "–"
    return "fails" if gated(c, pct) else "not gated"


def _hook_cells(c: Comparison) -> list[str]:
    """What the hook did within B's process (common/sampler.hpp: rows record it since the hook
    measured it), and B's level without the hook against A: the between-run part of B/A."""
    measured = c.b.counters.get("inject_measured_pct")
    base = c.b.counters.get("inject_base_median_s")
    return [f"{measured:+.1f}%" if measured is not None else "–",
            f"{base / c.a.time_s:.3f}" if base and c.a.time_s else "–"]


def check_aa(result: CompareResult, pct: float) -> tuple[list[Check], list]:
    rows = result.comparisons
    same = sum(c.verdict == SAME for c in rows)
    share = same / len(rows) if rows else 0.0
    flagged = result.changed()
    checks = [
        Check(f"A/A: at least {MIN_SAME_AA:.0%} of rows same", bool(rows) and share >= MIN_SAME_AA,
              f"{same} of {len(rows)} same ({share:.1%}); {len(flagged)} flagged"),
        Check(f"A/A: --fail-on-regression {pct:g} would exit 0", not result.regressions(pct),
              f"{len(result.regressions(pct))} regression(s)"),
    ]
    blocks = [Heading("A/A: two runs of one revision"), Paragraph(result.summary + ".")]
    if flagged:
        ungated = result.ungated_regressions(pct)
        blocks += [Paragraph(
            "The rows flagged (false alarms), the largest first. A flagged row is past its "
            "threshold by definition; the column says by how much (|log B/A| over log(1 + "
            "threshold)): GPU kernel and CPU rows have a threshold near their kind's 95th "
            "percentile of between-run moves (GPU kernels: or the 2% floor), so about 5% of "
            "them pass it on identical code; the kinds that time host work 1.5 × their 98th "
            "percentile; how far the rows past it go is the kind's tail. "
            f"--fail-on-regression {pct:g} judges only rows whose threshold is at most "
            f"{pct:g}% (twinbench/report/noise.py): {len(ungated)} slower row(s) here are past "
            f"{pct:g}% and their noise but not gated."),
            Table(AA_HEADERS, [_row(c) + [_past_by(c), _gate_text(c, pct)] for c in flagged])]
    return checks, blocks


def check_ab(result: CompareResult, pattern: str, percent: float,
             pct: float) -> tuple[list[Check], list]:
    regex = re.compile(pattern)
    injected = [c for c in result.comparisons if regex.search(c.name)]
    others = [c for c in result.comparisons if not regex.search(c.name)]
    gpu = [c for c in injected if kind_of(c.a) in GPU_KERNEL_KINDS]
    caught = [c for c in gpu if c.verdict == SLOWER]
    flagged = [c for c in others if c.changed]
    share = len(flagged) / len(others) if others else 0.0
    checks = [
        Check(f"A/B: every injected {percent:g}% slowdown on a GPU kernel row reported",
              bool(gpu) and len(caught) == len(gpu),
              f"{len(caught)} of {len(gpu)} GPU kernel rows slower "
              f"({len(injected)} injected rows in all)"),
        Check(f"A/B: at most {MAX_FLAGGED_AB:.0%} of the other rows flagged",
              share <= MAX_FLAGGED_AB, f"{len(flagged)} of {len(others)} ({share:.1%})"),
        Check(f"A/B: --fail-on-regression {pct:g} would exit 1", bool(result.regressions(pct)),
              f"{len(result.regressions(pct))} regression(s)"),
    ]
    blocks = [Heading("A/B: A against a run with an injected slowdown"),
              Paragraph(f"{result.summary}. Injected: /{pattern}/ at {percent:g}% "
                        f"({len(injected)} rows). Rows of kinds whose threshold is above "
                        f"{percent:g}% by default (CPU, end-to-end, host-side, Thrust) are not "
                        "expected to be caught without a baseline; they are listed with their "
                        "thresholds. The last two columns, where B's rows carry them (runs "
                        "after the hook recorded its effect), split B/A into what the hook did "
                        "within B's process and how B's level without it stood against A."),
              Table(AB_HEADERS, [_row(c) + _hook_cells(c)
                                 for c in sorted(injected, key=lambda c: c.name)])]
    if flagged:
        blocks += [Paragraph("Rows not injected but flagged:"),
                   Table(HEADERS, [_row(c) for c in flagged])]
    return checks, blocks


def calibrate(aa: tuple[str, str], ab: tuple[str, str], out: Path, pct: float = DEFAULT_FAIL_PCT,
              baseline: list[str] | None = None) -> tuple[bool, Path]:
    out.mkdir(parents=True, exist_ok=True)
    injected = injected_pattern(load_run(ab[1]).context)
    if injected is None:
        raise LoadError(f"{ab[1]}: no inject_slowdown in its context (was the hook on?)")
    if injected_pattern(load_run(aa[0]).context) or injected_pattern(load_run(aa[1]).context):
        raise LoadError("an A/A run carries an injected slowdown")
    aa_result = compare(*aa, out / "aa", baseline=baseline)
    ab_result = compare(*ab, out / "ab", baseline=baseline)
    aa_checks, aa_blocks = check_aa(aa_result, pct)
    ab_checks, ab_blocks = check_ab(ab_result, *injected, pct)
    checks = aa_checks + ab_checks
    passed = all(c.passed for c in checks)
    blocks = [
        Heading("compare calibration", 1),
        Paragraph(f"A/A: {aa[0]} against {aa[1]}. A/B: {ab[0]} against {ab[1]}. Thresholds: "
                  + aa_result.noise.describe()),
        Table(["criterion", "met", "figures"],
              [[c.what, "yes" if c.passed else "NO", c.figures] for c in checks]),
        Paragraph("Each pair's full comparison: aa/compare.md, ab/compare.md."),
        *aa_blocks, *ab_blocks,
    ]
    path = out / "calibration.md"
    path.write_text(to_markdown(blocks), encoding="utf-8")
    return passed, path


# ----------------------------------------------------------------- the gate's outputs

def check_gate(folder: Path) -> tuple[list[str], bool]:
    """One gate's --out folder against the criteria (module docstring): its table cells, and
    whether it met them."""
    try:
        data = json.loads((folder / "gate.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LoadError(f"{folder}: no readable gate.json ({exc})") from None
    # The gate writes b.json; a committed gate folder keeps it compressed (b.json.gz).
    run_b = load_run(next((p for p in (folder / "b.json", folder / "b.json.gz") if p.exists()),
                          folder / "b.json"))
    suspects = data.get("suspects", [])
    verdicts = {s["name"]: s["verdict"] for s in suspects}
    confirmed = {n for n, v in verdicts.items() if v == CONFIRMED}
    counts = [sum(v == k for v in verdicts.values())
              for k in (CONFIRMED, NOT_REPRODUCED, AMBIGUOUS)]
    injected = injected_pattern(run_b.context)
    code = data.get("exit_code")
    if injected is None:
        passed = code == 0
        hook, caught, others = "none (A/A)", "–", str(len(confirmed))
    else:
        regex = re.compile(injected[0])
        hooked = [r for r in run_b.rows if regex.search(r.name) and r.time_s]
        gpu = [r.name for r in hooked if kind_of(r) in GPU_KERNEL_KINDS]
        cpu = [r.name for r in hooked if not r.is_gpu]
        wanted = gpu + cpu
        got = [n for n in wanted if n in confirmed]
        extra = confirmed - {r.name for r in hooked}
        enough = (len([n for n in gpu if n in confirmed]) >= MIN_CONFIRMED_INJECTED * len(gpu)
                  and all(n in confirmed for n in cpu))
        passed = code == 1 and bool(wanted) and enough and len(extra) <= MAX_OTHERS_CONFIRMED
        hook = f"/{injected[0]}/ {injected[1]:g}%"
        caught = f"{len(got)} of {len(wanted)} ({len(gpu)} GPU kernel, {len(cpu)} CPU rows)"
        others = str(len(extra))
    cells = [str(folder), hook, str(code), str(len(suspects)), *map(str, counts), caught, others,
             f"{data.get('confirm_wall_s', 0.0):.1f} s", "yes" if passed else "NO"]
    return cells, passed


def check_gates(folders: list[str], out: str | None) -> int:
    try:
        checks = [check_gate(Path(f)) for f in folders]
    except LoadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = to_markdown([
        Heading("gate calibration", 1),
        Paragraph(f"A/A gates must exit 0; gates whose B carries an injected slowdown must exit 1 "
                  f"with at least {MIN_CONFIRMED_INJECTED:.0%} of the injected GPU kernel rows "
                  f"and every injected CPU row confirmed, and at most {MAX_OTHERS_CONFIRMED} "
                  "other row confirmed."),
        Table(GATE_HEADERS, [cells for cells, _ in checks])])
    print(text, end="")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / "gates.md").write_text(text, encoding="utf-8")
    return 0 if all(passed for _, passed in checks) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m twinbench.report.calibrate_compare",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--aa", nargs=2, metavar=("A1", "A2"))
    parser.add_argument("--ab", nargs=2, metavar=("A", "B"))
    parser.add_argument("--out")
    parser.add_argument("--gates", nargs="+", metavar="GATE_DIR",
                        help="check the gate's output folders instead (module docstring)")
    parser.add_argument("--fail-on-regression", type=float, default=DEFAULT_FAIL_PCT,
                        metavar="PCT")
    parser.add_argument("--baseline", nargs="+", default=None, metavar="RUN.json")
    args = parser.parse_args(argv)
    if args.gates:
        return check_gates(args.gates, args.out)
    if not (args.aa and args.ab and args.out):
        parser.error("--aa, --ab and --out are required (or --gates)")
    try:
        passed, path = calibrate(tuple(args.aa), tuple(args.ab), Path(args.out),
                                 args.fail_on_regression, args.baseline)
    except LoadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}: {'all criteria met' if passed else 'a criterion is NOT met'}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
