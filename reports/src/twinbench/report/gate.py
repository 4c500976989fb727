"""`gate`: a regression gate for CI that measures a suspect again before it fails.

    twinbench-report gate --a A --b B [--pct 5] [--cpu-pct PCT] [--rounds 3] [--out DIR]
                           [--bench-args "..."] [--a-env K=V] [--b-env K=V] [--baseline RUN ...]

Runs A's binary (or reads A's results file) and B's with the same arguments and compares them
(compare.py). Suspects are the gated rows found slower: threshold at most --pct (as `compare
--fail-on-regression`), and with --cpu-pct every CPU row. Each is run again by its exact name in
fresh processes, --rounds times, A and B interleaved (or B against A's samples), and is
confirmed (slower past its bar in every round), not reproduced (in none) or ambiguous. Exit 1
on a confirmed suspect, else 0; 2 on input it cannot judge (docs/compare-and-gate.md).

Why confirm: a short GPU kernel of identical code moves up to 5.4% between two processes (the
results/nvidia-h200/2026-12-02c pair, in git history: `lucas/cuda_iterative` n:90), as much as
the slowdown to catch; such a move rarely recurs in every fresh round, a real slowdown does. The
bar is the midpoint in log space between no change and --pct (2.47% for 5%), or the row's own
threshold where higher: a --pct slowdown passes it by the margin identical code stays under it.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .compare import CompareResult, compare, interval_text
from .document import Table, to_markdown
from .loader import LoadError, Row, Run, load_run
from .noise import CPU_PARALLEL, CPU_SERIAL, kind_of
from .stats import u_test
from .verdicts import (NOT_COMPARABLE, SIGNIFICANCE, SLOWER, Comparison, ratio_interval,
                       ungated_regressions)

EXIT_PASS, EXIT_REGRESSION, EXIT_BAD_INPUT = 0, 1, 2
DEFAULT_PCT = 5.0
DEFAULT_ROUNDS = 3
DEFAULT_TIMEOUT_S = 600.0
# Suspects measured again at most, the largest slowdowns first. The committed A/A pairs gave 5-9
# GPU kernel rows past 2%; far more means B is slower everywhere, which the first few confirm.
DEFAULT_MAX_SUSPECTS = 40

CONFIRMED, NOT_REPRODUCED, AMBIGUOUS = "confirmed", "not reproduced", "ambiguous"
ROUND_SLOWER, ROUND_SAME, ROUND_FASTER, ROUND_MISSING = "slower", "same", "faster", "missing"
CPU_KINDS = frozenset({CPU_SERIAL, CPU_PARALLEL})
# Google Benchmark appends these to a registered name (UseManualTime, ...) before it matches the
# filter, which it reads as a POSIX extended regex.
_GB_TIME_SUFFIXES = "(/(manual_time|real_time|process_time))?"
_ERE_SPECIAL = re.compile(r"([.\[\]{}()\\*+?^$|])")
# twinbench's exit codes (docs/command-line.md).
_EXIT_REASONS = {1: "a validation failed", 2: "bad input", 3: "the results could not be written",
                 4: "the build has no code for this GPU"}


class GateError(Exception):
    """Input the gate cannot judge from (exit 2): the message says what and why."""


# ----------------------------------------------------------------- inputs

@dataclass
class Side:
    """One build: its binary (run again by the confirm step) or only a results file."""
    label: str
    path: Path
    is_binary: bool
    env: dict[str, str] = field(default_factory=dict)


def side_from(label: str, text: str, env: dict[str, str], binary_only: bool = False) -> Side:
    path = Path(text)
    if not path.exists():
        raise GateError(f"{label}: {text} does not exist")
    if path.is_file() and os.access(path, os.X_OK) and path.suffix != ".json":
        return Side(label, path.resolve(), True, env)
    if binary_only:
        raise GateError(f"{label}: {text} is not an executable twinbench binary (the confirm step "
                        "runs it again, so it must be a build, not a results file)")
    try:
        load_run(path)
    except LoadError as exc:
        raise GateError(f"{label}: {text} is neither an executable nor a results file: {exc}")
    return Side(label, path, False, env)


def parse_env(items: list[str] | None, option: str) -> dict[str, str]:
    env = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise GateError(f"{option}: expected KEY=VALUE, got '{item}'")
        env[key] = value
    return env


# ----------------------------------------------------------------- running the binary

def name_filter(names: list[str]) -> str:
    """A --benchmark_filter that selects exactly these registered names."""
    escaped = sorted(_ERE_SPECIAL.sub(r"\\\1", n) for n in names)
    return "^(" + "|".join(escaped) + ")" + _GB_TIME_SUFFIXES + "$"


def _has_flag(args: list[str], flag: str) -> bool:
    return any(a == flag or a.startswith(flag + "=") for a in args)


def bench_command(binary: Path, out_json: Path, bench_args: list[str],
                  names: list[str] | None = None, workloads: list[str] | None = None,
                  repetitions: int = 1) -> list[str]:
    """The user's arguments, then (for a confirm round) the suspects' workloads and exact names,
    and the results file in JSON."""
    cmd = [str(binary), *bench_args]
    if names is not None:
        if workloads and not _has_flag(bench_args, "--workload"):
            # Registers only these workloads: the process starts faster and holds less memory.
            cmd.append("--workload=" + ",".join(sorted(set(workloads))))
        if not _has_flag(bench_args, "--no-ceilings"):
            # The ceilings measured at start are for the report; the gate reads times only.
            cmd.append("--no-ceilings")
        cmd.append("--benchmark_filter=" + name_filter(names))
        if repetitions > 1:
            cmd.append(f"--benchmark_repetitions={repetitions}")
    return cmd + [f"--benchmark_out={out_json}", "--benchmark_out_format=json"]


def run_binary(side: Side, out_json: Path, bench_args: list[str], log: Path,
               names: list[str] | None = None, workloads: list[str] | None = None,
               repetitions: int = 1, timeout_s: float = DEFAULT_TIMEOUT_S) -> float:
    """Run one process of the side's binary; its wall time in seconds."""
    cmd = bench_command(side.path, out_json, bench_args, names, workloads, repetitions)
    start = time.monotonic()
    try:
        with open(log, "w", encoding="utf-8") as out:
            rc = subprocess.call(cmd, stdout=out, stderr=subprocess.STDOUT,
                                 env={**os.environ, **side.env}, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise GateError(f"{side.label}: {side.path} ran past {timeout_s:g} s ({log})") from None
    except OSError as exc:
        raise GateError(f"{side.label}: cannot run {side.path}: {exc.strerror or exc}") from None
    wall = time.monotonic() - start
    if rc != 0:
        raise GateError(f"{side.label}: {side.path.name} exited {rc} "
                        f"({_EXIT_REASONS.get(rc, 'see its log')}; {log}): {_tail(log)}")
    if not out_json.is_file():
        raise GateError(f"{side.label}: {side.path.name} wrote no results file ({log})")
    return wall


def _tail(log: Path, lines: int = 3) -> str:
    try:
        text = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(text[-lines:])


# ----------------------------------------------------------------- suspects and rounds

def midpoint(percent: float) -> float:
    """The relative change halfway, in log space, between no change and percent."""
    return math.sqrt(1 + percent / 100) - 1


@dataclass
class Suspect:
    name: str
    kind: str
    first: Comparison
    bar: float          # the relative slowdown a round must pass


@dataclass
class Round:
    index: int
    ratio: float | None = None
    interval: tuple[float, float] | None = None
    p: float | None = None
    verdict: str = ROUND_MISSING

    @property
    def text(self) -> str:
        if self.ratio is None:
            return "missing"
        interval = f" {interval_text(self.interval)}" if self.interval else ""
        p = f" p={self.p:.2g}" if self.p is not None else ""
        return f"{self.ratio:.3f}{interval}{p} {self.verdict}"


def judge_round(index: int, a: Row | None, b: Row | None, bar: float) -> Round:
    """Slower (faster) when B/A is past the bar and the U test tells the samples apart."""
    if a is None or b is None or not a.time_s or not b.time_s:
        return Round(index)
    ratio = b.time_s / a.time_s
    p = u_test(a.samples_s, b.samples_s)
    clear = p is None or p < SIGNIFICANCE
    if clear and ratio > 1 + bar:
        verdict = ROUND_SLOWER
    elif clear and ratio < 1 / (1 + bar):
        verdict = ROUND_FASTER
    else:
        verdict = ROUND_SAME
    return Round(index, ratio, ratio_interval(a.samples_s, b.samples_s), p, verdict)


def gate_bar(c: Comparison, pct: float, cpu_pct: float | None) -> float | None:
    """The bar of a row the gate judges, None for a row it leaves to the report."""
    if cpu_pct is not None and kind_of(c.a) in CPU_KINDS:
        return midpoint(cpu_pct)
    if c.threshold is not None and c.threshold.value <= pct / 100:
        return max(c.threshold.value, midpoint(pct))
    return None


def find_suspects(result: CompareResult, pct: float, cpu_pct: float | None,
                  limit: int = DEFAULT_MAX_SUSPECTS) -> tuple[list[Suspect], int]:
    """The gated rows the first comparison finds slower, largest slowdown first, and how many
    more there were past `limit`. A row gated by its threshold is a suspect when the comparison
    calls it slower (past that threshold, at most the bar: a slowdown of pct that reads low in
    the first pair is still measured again); a CPU row gated by --cpu-pct when it is slower past
    the midpoint of cpu_pct as a round judges it."""
    found = []
    for c in result.comparisons:
        bar = gate_bar(c, pct, cpu_pct)
        if bar is None:
            continue
        if kind_of(c.a) in CPU_KINDS and cpu_pct is not None:
            slower = judge_round(0, c.a, c.b, bar).verdict == ROUND_SLOWER
        else:
            slower = c.verdict == SLOWER
        if slower:
            found.append(Suspect(c.name, kind_of(c.a), c, bar))
    found.sort(key=lambda s: -s.first.ratio)
    return found[:limit], max(0, len(found) - limit)


def verdict_of(rounds: list[Round]) -> str:
    """Confirmed when slower in every round, not reproduced when in none, else ambiguous (also
    when the row did not run in a round)."""
    slower = sum(r.verdict == ROUND_SLOWER for r in rounds)
    if rounds and slower == len(rounds):
        return CONFIRMED
    if slower == 0 and all(r.verdict != ROUND_MISSING for r in rounds):
        return NOT_REPRODUCED
    return AMBIGUOUS


@dataclass
class Confirmed:
    suspect: Suspect
    rounds: list[Round]
    verdict: str

    @property
    def combined(self) -> float | None:
        """The geometric mean of the rounds' ratios."""
        ratios = [r.ratio for r in self.rounds if r.ratio]
        return statistics.geometric_mean(ratios) if ratios else None


@dataclass
class ConfirmStep:
    results: list[Confirmed]
    processes: int
    wall_s: float
    mode: str | None = None


def _rows(path: Path) -> dict[str, Row]:
    try:
        return {r.name: r for r in load_run(path).rows}
    except LoadError as exc:
        raise GateError(f"a confirm round's results cannot be read: {exc}") from None


def confirm(suspects: list[Suspect], a: Side, b: Side, run_a: Run, out_dir: Path,
            bench_args: list[str], rounds: int = DEFAULT_ROUNDS, repetitions: int = 1,
            timeout_s: float = DEFAULT_TIMEOUT_S) -> ConfirmStep:
    """Each round runs the suspects in a fresh process of B (and of A when A is a binary, in
    alternating order so that a drift of the machine over the rounds falls on both sides)."""
    start = time.monotonic()
    names = [s.name for s in suspects]
    workloads = [s.first.a.workload for s in suspects]
    sides = [a, b] if a.is_binary else [b]
    out_dir.mkdir(parents=True, exist_ok=True)
    per_round: list[dict[str, dict[str, Row]]] = []
    a_rows = {r.name: r for r in run_a.rows}
    for index in range(1, rounds + 1):
        got = {a.label: a_rows}
        for side in sides if index % 2 else sides[::-1]:
            stem = out_dir / f"round{index}-{side.label}"
            run_binary(side, stem.with_suffix(".json"), bench_args, stem.with_suffix(".log"),
                       names, workloads, repetitions, timeout_s)
            got[side.label] = _rows(stem.with_suffix(".json"))
        per_round.append(got)
    results = []
    for s in suspects:
        judged = [judge_round(i, got[a.label].get(s.name), got[b.label].get(s.name), s.bar)
                  for i, got in enumerate(per_round, 1)]
        results.append(Confirmed(s, judged, verdict_of(judged)))
    mode = ("A and B interleaved, fresh processes" if a.is_binary
            else f"B in fresh processes against A's samples ({run_a.path})")
    return ConfirmStep(results, rounds * len(sides), time.monotonic() - start, mode)


# ----------------------------------------------------------------- the summary

@dataclass
class GateOutcome:
    exit_code: int
    compared: CompareResult
    suspects: list[Suspect]
    over_limit: int
    step: ConfirmStep           # no results and 0 s when there was no suspect
    pct: float
    cpu_pct: float | None
    run_walls: dict[str, float]

    def with_verdict(self, verdict: str) -> list[Confirmed]:
        return [c for c in self.step.results if c.verdict == verdict]


def _pct(ratio: float | None) -> str:
    return "–" if ratio is None else f"{(ratio - 1) * 100:+.1f}%"


def markdown(outcome: GateOutcome) -> str:
    confirmed = outcome.with_verdict(CONFIRMED)
    head = (f"FAIL: {len(confirmed)} confirmed regression(s)" if confirmed
            else "PASS: no confirmed regression")
    c = outcome.compared
    gated_text = (f"rows whose noise threshold is at most {outcome.pct:g}%"
                  + (f", and CPU rows at {outcome.cpu_pct:g}%" if outcome.cpu_pct is not None
                     else ""))
    over = (f", {outcome.over_limit} more past the limit not measured again"
            if outcome.over_limit else "")
    lines = [f"## twinbench gate: {head}", "",
             f"- First comparison: {c.summary} ({c.markdown}).",
             f"- Gated: {gated_text}. Suspects (gated and slower): {len(outcome.suspects)}{over}.",
             "- Suite runs: " + ", ".join(f"{k} {v:.1f} s" for k, v in outcome.run_walls.items())
             + "."]
    step = outcome.step
    if not step.results:
        lines += ["- Confirm step: 0.0 s (no suspect).", ""]
    else:
        lines += [f"- Confirm step: {step.wall_s:.1f} s, {step.processes} processes, "
                  f"{len(step.results[0].rounds)} rounds ({step.mode}).",
                  "", _table(step.results), "",
                  "A round is slower when B/A is past the bar and the U test tells the samples "
                  f"apart (p<{SIGNIFICANCE}); confirmed: slower in every round; not reproduced: "
                  "in none; ambiguous: in some (not failed on; listed above)."]
        if ambiguous := outcome.with_verdict(AMBIGUOUS):
            lines.append(f"Ambiguous: {len(ambiguous)} (not failed on; measure them again "
                         "or give a --baseline).")
    judged = {s.name for s in outcome.suspects}
    ungated = [u for u in ungated_regressions(c.comparisons, outcome.pct) if u.name not in judged]
    if ungated:
        lines += ["", f"Not gated (their noise threshold is above {outcome.pct:g}%), slower "
                  f"beyond noise and by more than {outcome.pct:g}%: {len(ungated)}, e.g. "
                  + "; ".join(f"`{u.name}` {u.ratio:.3f}" for u in ungated[:5]) + "."]
    return "\n".join(lines) + "\n"


def _table(results: list[Confirmed]) -> str:
    header = (["suspect", "kind", "first B/A", "bar"]
              + [f"round {i + 1}" for i in range(len(results[0].rounds))]
              + ["combined", "verdict"])
    return to_markdown([Table(header, [
        [f"`{r.suspect.name}`", r.suspect.kind, f"{r.suspect.first.ratio:.3f}",
         f"+{r.suspect.bar:.1%}", *[x.text for x in r.rounds], _pct(r.combined),
         f"**{r.verdict}**"] for r in results])]).rstrip("\n")


def outcome_json(outcome: GateOutcome) -> dict:
    return {
        "exit_code": outcome.exit_code,
        "pct": outcome.pct,
        "cpu_pct": outcome.cpu_pct,
        "summary": outcome.compared.summary,
        "suspects_over_limit": outcome.over_limit,
        "confirm_wall_s": outcome.step.wall_s,
        "confirm_mode": outcome.step.mode,
        "suspects": [{
            "name": r.suspect.name, "kind": r.suspect.kind, "first_ratio": r.suspect.first.ratio,
            "bar": r.suspect.bar, "verdict": r.verdict, "combined_ratio": r.combined,
            "rounds": [{"ratio": x.ratio, "interval": x.interval, "p": x.p, "verdict": x.verdict}
                       for x in r.rounds],
        } for r in outcome.step.results],
    }


# ----------------------------------------------------------------- the whole gate

def run_gate(a_text: str, b_text: str, out_dir: str | Path, pct: float = DEFAULT_PCT,
             cpu_pct: float | None = None, rounds: int = DEFAULT_ROUNDS,
             bench_args: list[str] | None = None, a_env: dict[str, str] | None = None,
             b_env: dict[str, str] | None = None, baseline: list[str] | None = None,
             repetitions: int = 1, max_suspects: int = DEFAULT_MAX_SUSPECTS,
             timeout_s: float = DEFAULT_TIMEOUT_S) -> GateOutcome:
    """Run, compare, confirm. Raises GateError (exit 2) on input it cannot judge from."""
    if rounds < 1:
        raise GateError("--rounds: at least 1")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    a = side_from("A", a_text, a_env or {})
    b = side_from("B", b_text, b_env or {}, binary_only=True)
    args = list(bench_args or [])
    walls: dict[str, float] = {}
    a_results = out / "a.json" if a.is_binary else a.path
    for side, results in ((a, a_results), (b, out / "b.json")):
        if side.is_binary:
            walls[side.label] = run_binary(side, results, args, out / f"{side.label.lower()}.log",
                                           timeout_s=timeout_s)
    try:
        compared = compare(a_results, out / "b.json", out / "compare", baseline=baseline)
    except LoadError as exc:
        raise GateError(str(exc)) from None
    if any(c.verdict == NOT_COMPARABLE for c in compared.comparisons):
        settings = "; ".join(d.sentence for d in compared.differences)
        raise GateError(f"the runs' settings differ, so no row can be judged: {settings}")
    if not compared.comparisons:
        raise GateError("A and B have no benchmark in common (see compare/compare.md)")
    suspects, over = find_suspects(compared, pct, cpu_pct, max_suspects)
    step = ConfirmStep([], 0, 0.0)
    if suspects:
        step = confirm(suspects, a, b, load_run(a_results), out / "confirm", args, rounds,
                       repetitions, timeout_s)
    code = EXIT_REGRESSION if any(r.verdict == CONFIRMED for r in step.results) else EXIT_PASS
    outcome = GateOutcome(code, compared, suspects, over, step, pct, cpu_pct, walls)
    (out / "gate.md").write_text(markdown(outcome), encoding="utf-8")
    (out / "gate.json").write_text(json.dumps(outcome_json(outcome), indent=1), encoding="utf-8")
    return outcome


def main_from_args(args) -> int:
    """The `gate` subcommand (cli.py parses the arguments)."""
    try:
        outcome = run_gate(args.a, args.b, args.out, pct=args.pct, cpu_pct=args.cpu_pct,
                           rounds=args.rounds, bench_args=shlex.split(args.bench_args or ""),
                           a_env=parse_env(args.a_env, "--a-env"),
                           b_env=parse_env(args.b_env, "--b-env"), baseline=args.baseline,
                           repetitions=args.repetitions, max_suspects=args.max_suspects,
                           timeout_s=args.timeout)
    except GateError as exc:
        print(f"gate: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(markdown(outcome), end="")
    print(f"gate: confirm step took {outcome.step.wall_s:.1f} s; "
          f"exit {outcome.exit_code} ({Path(args.out) / 'gate.md'})")
    return outcome.exit_code
