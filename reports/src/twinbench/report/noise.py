"""How far a row's median moves between two runs of identical code: the practical threshold a
difference must pass before `compare` calls it faster or slower. It is the between-run noise of
the MEDIAN, not the spread of one run's samples (a 7 us kernel whose samples spread 3-4% has a
median that two runs put 0.4-2% apart). Per row, in log(median B / median A):

  threshold = max(floor, e^(k x sigma) - 1),  sigma^2 = between^2 + se_A^2 + se_B^2

with floor 2% and k 2 by default; `between` the row's kind's sigma (from a baseline of runs of
one revision when given, the row's own moves pooled with its kind's: pooled_sigma), se_X the
standard error of run X's median from its order-statistic interval (large for 5 samples).

Kinds (kind_of) split where the moves differ by 2x or more: Thrust calls return to the host
inside their timed region; end-to-end rows under 20 us are launch and sync latency; host-side
alloc/paging rows (alloc, pageable and managed copies) have the OS map, pin, fault or migrate
pages in their timed region. The rule per kind (between_run_sigma), over |log ratio| of every
pair of runs of one revision: GPU kernels (light tail) and CPU rows sigma = Q95 / 1.96, so k = 2
sits at the 95th percentile; the kinds that time host work (heavy tails: an alloc row moved
2.6x) sigma = 1.5 x Q98 / 2, because the 98th percentiles of results/nvidia-h200/2026-12-02 held
96.7% of these kinds' moves in results/nvidia-h200/2026-12-02b's A/A pair, 98.2% at 1.5x. The
tail rule would put CPU thresholds at 2.3-2.7x, hiding a CPU row 1.6x slower
(test_numba_peers.py), so about 5% of CPU rows are flagged on identical code (7 of 82 in that A/A
pair), all above --fail-on-regression 5's gate. A floor of c x a row's own 10-90% spread cleared
one more A/A row at c = 0.25 and missed 4 of 31 injected rows at c = 0.5: not used.

The defaults, over 12 pairs of same-revision H200 runs (results/nvidia-h200/2026-12-02 in git
history and results/nvidia-h200/2026-12-02b; the rows the slowdown hook touched left out):
  kind                     diffs  median   Q95     Q98   largest   sigma  threshold (k 2)
  GPU kernel                1462  0.15%   1.83%   2.23%   5.41%   0.94%   2% (floor)
  GPU Thrust call             72  0.73%  11.0%   12.0%   13.1%    9.0%   19.8%
  GPU end-to-end             258  0.41%   4.3%    8.1%   14.3%    6.1%   12.9%
  GPU e2e under 20 us         24  33%    55%     57%     58%     42.5%  134%
  GPU host-side              544  0.29%  15.0%   20.9%   47%     15.7%   36.9%
  GPU host-side alloc/paging 492  11%    47%     55%    566%     41.5%  129%
  CPU serial                 212  11%    41%     55%     62%     20.9%   51.8%
  CPU parallel               204  10%    43%     66%    124%     21.7%   54.4%
GPU kernels under 20 us move more (Q95 2.7% against 1.5%) but keep the floor: the committed A/B
pair showed its 5% slowdown on 7-13 us kernels as 2.2-4.3%. `python -m twinbench.report.noise
RUN.json ...` prints this table for any runs. Checked (calibrate_compare): 687 of 704 rows same
in results/nvidia-h200/2026-12-02b's A/A pair; its A/B pair reports all 31 injected GPU kernel
rows and flags none of the 54 others.

--fail-on-regression gates only rows whose threshold is at most its percentage: a noisier row
cannot tell that regression from the machine. The others are reported; a baseline or a larger
PCT brings them under the gate.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from itertools import combinations
from typing import NamedTuple

from .loader import Row, Run
from .stats import median_interval, quantile

DEFAULT_FLOOR = 0.02
DEFAULT_K = 2.0
Z95 = 1.959964

GPU_KERNEL = "GPU kernel"
GPU_THRUST = "GPU Thrust call"
GPU_E2E = "GPU end-to-end"
GPU_E2E_SHORT = "GPU end-to-end under 20 us"
GPU_HOST = "GPU host-side"
GPU_HOST_PAGING = "GPU host-side alloc/paging"
CPU_SERIAL = "CPU serial"
CPU_PARALLEL = "CPU parallel"
# The between-run sigma of log(median B / median A) per kind (the module docstring's table).
DEFAULT_NOISE = {GPU_KERNEL: 0.0094, GPU_THRUST: 0.090, GPU_E2E: 0.061, GPU_E2E_SHORT: 0.425,
                 GPU_HOST: 0.157, GPU_HOST_PAGING: 0.415, CPU_SERIAL: 0.209, CPU_PARALLEL: 0.217}
KINDS = tuple(DEFAULT_NOISE)
# The kinds whose rows time device work: what calibrate_compare counts as "GPU kernel rows".
GPU_KERNEL_KINDS = frozenset({GPU_KERNEL, GPU_THRUST})

# Workloads timed through the host: API calls, PCIe copies, host polling; their CPU rows too
# (transfers/serial_memcpy is a host memcpy of the same sizes, as noisy).
HOST_SIDE_WORKLOADS = frozenset({"alloc", "transfers", "sync", "streams", "progress"})
PAGING_COPIES = frozenset({"cuda_pageable", "cuda_managed", "cuda_managed_prefetch",
                           "serial_memcpy"})
# An end-to-end row shorter than this is the latency of its API calls and syncs, not bandwidth.
SHORT_E2E_S = 20e-6

# Kinds whose sigma is matched to the 95th percentile; the others to TAIL_MARGIN x the
# TAIL_QUANTILE (the module docstring says why).
Q95_KINDS = frozenset({GPU_KERNEL, CPU_SERIAL, CPU_PARALLEL})
TAIL_QUANTILE = 0.98
TAIL_MARGIN = 1.5
# A kind's figure is taken from a baseline only with this many differences of two runs: a high
# percentile of fewer is mostly its largest value.
MIN_DIFFS_FOR_KIND = 40
# How many differences of two runs the kind's figure is worth beside a row's own in a baseline.
PRIOR_DIFFS = 4


def kind_of(row: Row) -> str:
    if row.workload in HOST_SIDE_WORKLOADS:
        paging = row.workload == "alloc" or (row.workload == "transfers"
                                             and row.impl in PAGING_COPIES)
        return GPU_HOST_PAGING if paging else GPU_HOST
    if row.is_gpu:
        if row.mode == "e2e":
            short = row.time_s is not None and row.time_s < SHORT_E2E_S
            return GPU_E2E_SHORT if short else GPU_E2E
        return GPU_THRUST if row.family == "thrust" else GPU_KERNEL
    if row.family == "serial" or "serial" in row.impl.split("_"):
        return CPU_SERIAL
    return CPU_PARALLEL


def median_log_halfwidth(samples: list[float]) -> float | None:
    """Half the width of the median's 95% interval (stats.median_interval), in log space; None
    under two positive samples."""
    interval = median_interval(samples, 0.95)
    return None if interval is None else (math.log(interval[1]) - math.log(interval[0])) / 2


def median_standard_error(row: Row | None) -> float:
    """The standard error of the row's median from its own samples, in log space (0 without)."""
    half = median_log_halfwidth(row.samples_s) if row is not None else None
    return half / Z95 if half else 0.0


def tail_sigma(moves: list[float]) -> float:
    """A sigma whose k = 2 multiple is TAIL_MARGIN x the TAIL_QUANTILE of |log ratio|."""
    return TAIL_MARGIN * quantile(moves, TAIL_QUANTILE) / DEFAULT_K


def between_run_sigma(diffs: list[float], kind: str) -> float:
    """The kind's between-run sigma from its log ratios of identical code (module docstring)."""
    moves = [abs(d) for d in diffs]
    return quantile(moves, 0.95) / Z95 if kind in Q95_KINDS else tail_sigma(moves)


def pooled_sigma(kind_sigma: float, mean_square: float, dof: int) -> float:
    """A row's sigma from a baseline: its own mean square difference (dof degrees of freedom)
    pooled with its kind's figure weighted as PRIOR_DIFFS differences (the posterior mean of
    sigma^2 under a scaled inverse chi-square prior). One difference alone is under a tenth of
    the true sigma 8% of the time and over twice it 5%: a 7 us kernel seen moving 2.1% once would
    hide a 5% slowdown. Pooled, a row seen moving 12% once gets sigma 5.4% against its kind's 1%,
    and a row seen still keeps most of its kind's."""
    return math.sqrt((PRIOR_DIFFS * kind_sigma ** 2 + dof * mean_square) / (PRIOR_DIFFS + dof))


def _timed(row: Row) -> bool:
    return bool(row.time_s and row.time_s > 0 and not row.skipped)


@dataclass(frozen=True)
class Threshold:
    """The relative change a row must pass, and where its noise figure came from."""
    value: float
    source: str

    @property
    def text(self) -> str:
        return f"{self.value:.1%} ({self.source})"


@dataclass
class NoiseModel:
    """Between-run noise of a row's median (from a baseline, else per kind) plus each run's own
    standard error of the median."""
    floor: float = DEFAULT_FLOOR
    k: float = DEFAULT_K
    # From a baseline: per row name, (sigma, number of runs); per kind, (sigma, rows).
    row_noise: dict[str, tuple[float, int]] = field(default_factory=dict)
    kind_noise: dict[str, tuple[float, int]] = field(default_factory=dict)
    baseline_runs: int = 0

    @classmethod
    def from_baseline(cls, runs: list[Run], floor: float = DEFAULT_FLOOR,
                      k: float = DEFAULT_K) -> "NoiseModel":
        """Runs of one revision (two or more): each row's and each kind's between-run noise."""
        model = cls(floor=floor, k=k, baseline_runs=len(runs))
        medians: dict[str, list[float]] = {}
        kinds: dict[str, str] = {}
        for row in (r for run in runs for r in run.rows if _timed(r)):
            medians.setdefault(row.name, []).append(row.time_s)
            kinds.setdefault(row.name, kind_of(row))
        diffs = {name: [math.log(x / y) for x, y in combinations(times, 2)]
                 for name, times in medians.items() if len(times) >= 2}
        for kind in KINDS:
            names = [n for n in diffs if kinds[n] == kind]
            pooled = [d for n in names for d in diffs[n]]
            if len(pooled) >= MIN_DIFFS_FOR_KIND:
                model.kind_noise[kind] = (between_run_sigma(pooled, kind), len(names))
        for name, own in diffs.items():
            # The mean square of the pairwise differences estimates sigma^2 of log(B/A), with
            # runs - 1 degrees of freedom.
            runs_seen = len(medians[name])
            mean_square = sum(d * d for d in own) / len(own)
            prior = model.kind_figure(kinds[name])[0]
            model.row_noise[name] = (pooled_sigma(prior, mean_square, runs_seen - 1), runs_seen)
        return model

    def kind_figure(self, kind: str) -> tuple[float, str]:
        if kind in self.kind_noise:
            noise, rows = self.kind_noise[kind]
            return noise, f"baseline: {rows} {kind} rows in {self.baseline_runs} runs"
        return DEFAULT_NOISE[kind], f"{kind} default"

    def between(self, a: Row) -> tuple[float, str]:
        """The row's between-run sigma and its source: its own in the baseline, else its kind's."""
        if a.name in self.row_noise:
            noise, runs = self.row_noise[a.name]
            return noise, f"baseline: this row in {runs} runs, pooled with its kind's"
        return self.kind_figure(kind_of(a))

    def threshold(self, a: Row, b: Row | None = None) -> Threshold:
        """The practical threshold for comparing B's row with A's (same name)."""
        between, source = self.between(a)
        se = math.hypot(median_standard_error(a), median_standard_error(b))
        sigma = math.hypot(between, se)
        # Say the medians' own error only where it adds something visible to the figure.
        if se > 0.25 * between:
            source += f", medians' error {se:.1%}"
        # k sigma bounds |log B/A|: as a relative change e^(k sigma) - 1, the same factor for
        # "faster". For a GPU kernel's 1% that is k sigma; for a host-side 40% it is 123%, not 80%.
        value = math.expm1(self.k * sigma)
        figure = f"e^({self.k:g}×{sigma:.1%})−1"
        if value <= self.floor:
            return Threshold(self.floor, f"floor; {figure} is under it: {source}")
        return Threshold(value, f"{figure}: {source}")

    def describe(self) -> str:
        """One paragraph for the report: what the thresholds rest on."""
        text = (f"Practical threshold per row: max({self.floor:.0%}, e^({self.k:g} × σ) − 1), "
                "σ the between-run noise of log(median B / median A): its kind's between-run "
                "figure from how far medians of identical code moved between runs (GPU kernels "
                "and CPU rows: σ matched to the 95th percentile of those moves; the kinds that "
                f"time host work: {DEFAULT_K:g} × σ = {TAIL_MARGIN:g} × their "
                f"{TAIL_QUANTILE * 100:.0f}th percentile) or, from a baseline, its own pooled "
                "with its kind's, combined with each run's standard error of the median from its "
                "samples. ")
        if self.baseline_runs:
            measured = ", ".join(f"{kind} {noise:.1%} ({rows} rows)"
                                 for kind, (noise, rows) in sorted(self.kind_noise.items()))
            text += (f"Baseline: {self.baseline_runs} runs of one revision, "
                     f"{len(self.row_noise)} rows in two or more of them; σ measured per kind: "
                     f"{measured or 'no kind with enough rows'}. ")
        defaults = ", ".join(f"{kind} {DEFAULT_NOISE[kind]:.1%}" for kind in KINDS
                             if kind not in self.kind_noise)
        if defaults:
            text += ("σ defaults where no baseline measured it (the committed H200 runs, 12 "
                     f"pairs of runs of one revision, twinbench/report/noise.py): {defaults}.")
        return text.strip()


def injected_pattern(context: dict) -> tuple[str, float] | None:
    """(regex, percent) from a run's inject_slowdown context key (TWINBENCH_INJECT_SLOWDOWN),
    None when the hook was off."""
    value = context.get("inject_slowdown")
    if not isinstance(value, str) or not value:
        return None
    pattern, _, pct = value.split(" (test hook", 1)[0].rpartition("=")
    try:
        return pattern, float(pct)
    except ValueError:
        return None


def _timed_medians(run: Run) -> dict[str, Row]:
    """The run's timed rows less those the slowdown hook touched: what two runs of one revision
    can say about noise."""
    injected = injected_pattern(run.context)
    hooked = re.compile(injected[0]) if injected else None
    return {r.name: r for r in run.rows if _timed(r) and not (hooked and hooked.search(r.name))}


def same_code_pairs(runs: list[Run]) -> list[tuple[Run, Run]]:
    """Every pair of runs of one revision (git_revision; runs without one count as one)."""
    by_revision: dict[str, list[Run]] = {}
    for run in runs:
        by_revision.setdefault(str(run.context.get("git_revision", "")), []).append(run)
    return [pair for group in by_revision.values() for pair in combinations(group, 2)]


def moves_by_kind(runs: list[Run]) -> dict[str, list[float]]:
    """|log(median B / median A)| per kind (read from A's row) over every row of every pair of
    runs of one revision."""
    moves: dict[str, list[float]] = {}
    for run_a, run_b in same_code_pairs(runs):
        rows_b = _timed_medians(run_b)
        for name, a in _timed_medians(run_a).items():
            if name in rows_b:
                moves.setdefault(kind_of(a), []).append(
                    abs(math.log(rows_b[name].time_s / a.time_s)))
    return moves


class KindFigure(NamedTuple):
    """How far the medians of one kind moved between runs of identical code."""
    kind: str
    diffs: int
    median: float
    q95: float
    q98: float
    largest: float
    sigma: float


def kind_figures(runs: list[Run]) -> list[KindFigure]:
    """Per kind, from runs (pairs of one revision only): the figures the defaults were read from."""
    moves = moves_by_kind(runs)
    return [KindFigure(kind, len(m), quantile(m, 0.5), quantile(m, 0.95),
                       quantile(m, TAIL_QUANTILE), max(m), between_run_sigma(m, kind))
            for kind in KINDS if (m := moves.get(kind))]


def _rule(kind: str) -> str:
    if kind in Q95_KINDS:
        return "Q95 / 1.96"
    return f"{TAIL_MARGIN:g} x Q{TAIL_QUANTILE * 100:.0f} / {DEFAULT_K:g}"


def main(argv: list[str] | None = None) -> int:
    import argparse
    import sys

    from .loader import LoadError, load_run
    parser = argparse.ArgumentParser(
        prog="python -m twinbench.report.noise",
        description="How far the medians of runs of one revision moved, per kind of row: the "
                    "figures the defaults of twinbench/report/noise.py were read from. Runs of "
                    "several revisions may be given: only runs of one revision are paired, and "
                    "rows that a run's slowdown hook touched are left out.")
    parser.add_argument("runs", nargs="+", metavar="RUN.json", help="two or more runs")
    args = parser.parse_args(argv)
    if len(args.runs) < 2:
        parser.error("two or more runs of one revision are needed")
    try:
        runs = [load_run(p) for p in args.runs]
    except LoadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    pairs = same_code_pairs(runs)
    if not pairs:
        parser.error("no two of these runs are of one revision")
    print(f"{len(pairs)} pairs of runs of one revision")
    print("| kind | differences | median | Q95 | Q98 | largest | rule | σ | threshold (k 2) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for f in kind_figures(runs):
        threshold = max(DEFAULT_FLOOR, math.expm1(DEFAULT_K * f.sigma))
        print(f"| {f.kind} | {f.diffs} | {f.median:.2%} | {f.q95:.2%} | {f.q98:.2%} | "
              f"{f.largest:.2%} | {_rule(f.kind)} | {f.sigma:.2%} | {threshold:.1%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
