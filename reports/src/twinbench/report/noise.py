"""How much a row's median moves between two runs of identical code: the practical threshold a
difference must pass before `compare` calls it faster or slower.

What a comparison of two runs has to clear is the between-run noise of the MEDIAN, not the spread of
one run's samples: a 7 us kernel whose samples spread by 3-4% within a run has a median that two
runs of identical code put 0.4-2% apart (the H200 runs of results/nvidia-h200/2026-12-02). So, per
row:

  threshold = max(floor, e^(k x sigma) - 1)                (floor 2%, k 2 by default)
  sigma^2   = between^2 + se_A^2 + se_B^2                  (all of log(median B / median A))

  between  the between-run sigma of the row's kind: from a baseline of two or more runs of one
           revision when the user gives one (the kind's figure from the baseline's rows; the
           row's own where the baseline has it, pooled with its kind's as a prior:
           pooled_sigma), else the kind's default below;
  se_X     the standard error of run X's median from its own samples (the distribution-free
           order-statistic 95% interval of the median, half-width / 1.96, in log space): how
           precisely that run measured its median. Tiny for thousands of samples, large for a
           CPU row of 5 samples, whose median is then judged with its own uncertainty.

Kinds (kind_of): GPU kernel; GPU Thrust call (a kernel row whose timed region holds host work:
Thrust's reduce and inner_product return their result to the host, its scan sizes its temporary
storage there); GPU end-to-end, and end-to-end under 20 us (the latency of a launch, a tiny copy
and a sync: lucas); GPU host-side alloc/paging (alloc/*, and copies through pageable or
managed host memory: transfers/cuda_pageable, cuda_managed*, serial_memcpy; the OS maps, pins,
faults or migrates pages in their timed region) and the other GPU host-side rows (pinned and
mapped copies, sync, streams, progress); CPU serial; CPU parallel. Each split is where the moves
differ by a factor of 2 or more (the table below); allocations and paged copies move alike
(Q98 55% and 53%), so they are one kind.

The rule per kind (between_run_sigma), from |log ratio| of the medians over every pair of runs of
one revision:
  - GPU kernels, whose tail is light (median move 0.15%, Q95 1.8%, Q98 2.2%): sigma = Q95 / 1.96,
    so k = 2 puts the threshold at about the 95th percentile, and the 2% floor is what binds.
  - the kinds that time host work (Thrust calls, end-to-end, host-side), whose tail is heavy (host
    API calls, the OS's paging; alloc rows moved up to 2.6x, a managed copy 286x): sigma = 1.5 x Q98
    / 2, so k = 2 puts the threshold at 1.5 x the 98th percentile of the kind's moves, in log space.
    A 95th percentile flags 5% of each such kind on identical code by construction, the whole
    budget; the margin is what later runs needed: the 98th percentiles of the runs of
    results/nvidia-h200/2026-12-02 held 96.7% of the moves of these kinds in
    results/nvidia-h200/2026-12-02b's A/A pair as they were, 97.6% at 1.25x, 98.2% at 1.5x.
  - CPU rows keep sigma = Q95 / 1.96 although their tail is heavy too (the VM's vCPUs: medians moved
    10% typically, up to 1.9x, 3.5x for the 1M rows' cache flip below): the tail rule would put
    their thresholds at 2.3-2.7x, and a report that cannot call a CPU row 1.6x slower without a
    baseline is of no use for CPU code (tests/python/test_numba_peers.py asks exactly that). So
    about 5% of the CPU rows (12% of all rows) are flagged on identical code by construction (7 of
    82 in results/nvidia-h200/2026-12-02b's A/A pair, 2 of them the cache flip); their thresholds
    are above 5%, so --fail-on-regression 5 does not gate them.
Using a row's own within-run spread as well (a floor of c x its 10-90% spread) was tried: it
cleared one more A/A row at c = 0.25 and missed 4 of the 31 injected rows at c = 0.5, so it is not
used.

The defaults: over the 12 pairs of runs of one revision from the H200
(results/nvidia-h200/2026-12-02, in git history: run-aa, run, run-baseline and run-ab;
results/nvidia-h200/2026-12-02b: run, run-aa, run-ab-a and run-ab; the rows the slowdown hook
touched left out):
  kind                     diffs  median   Q95     Q98   largest   sigma  threshold (k 2)
  GPU kernel                1462  0.15%   1.83%   2.23%   5.41%   0.94%   2% (floor)
  GPU Thrust call             72  0.73%  11.0%   12.0%   13.1%    9.0%   19.8%
  GPU end-to-end             258  0.41%   4.3%    8.1%   14.3%    6.1%   12.9%
  GPU e2e under 20 us         24  33%    55%     57%     58%     42.5%  134%
  GPU host-side              544  0.29%  15.0%   20.9%   47%     15.7%   36.9%
  GPU host-side alloc/paging 492  11%    47%     55%    566%     41.5%  129%
  CPU serial                 212  11%    41%     55%     62%     20.9%   51.8%
  CPU parallel               204  10%    43%     66%    124%     21.7%   54.4%
(CPU parallel's largest moves are the 1M rows that were cold in one run and warm in the other in
results/nvidia-h200/2026-12-02b, fixed in the C++ since.) GPU kernels under 20 us move more than
longer ones (Q95 2.7% and largest 5.4% against 1.5% and 4.6%; 10% of their moves pass 2%), but the
committed A/B pair showed its 5% slowdown on 7-13 us kernels as 2.2-4.3% (B's level up to 2.7% under
A's), so any threshold above the floor would miss it: both keep the floor, and the short ones' moves
past it are most of the GPU kernel false alarms (4 of the 5 GPU kernel rows flagged in
results/nvidia-h200/2026-12-02b's A/A pair). `python -m twinbench.report.noise RUN.json ...` prints this
table (from any runs; only runs of one revision are paired); `compare --baseline RUN.json ...`
measures the figures from the runs it is given.

Checked on the committed pairs (twinbench.report.calibrate_compare): results/nvidia-h200/2026-12-02b's A/A
pair has 687 of 704 rows same (97.6%) with these defaults, in sample; fitted on
results/nvidia-h200/2026-12-02's runs alone 686 (97.4%; out of sample but for the margin of 1.5,
which was read from that pair); the A/B pair reports all 31 injected GPU kernel rows, flags none of
the 54 others, and --fail-on-regression 5 exits 1 on it and 0 on the A/A pair either way.

--fail-on-regression (compare.regressions) gates only rows whose threshold is at most its
percentage: a row whose noise is wider than the budget cannot tell a PCT regression from the
machine, and across hundreds of such rows some pass their threshold on identical code in every
pair of runs. Those rows are still reported when they change beyond noise; a baseline of repeated
runs (their own, usually lower, noise) or a larger PCT brings them under the gate.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from itertools import combinations

from . import stats as st
from .stats import quantile  # noqa: F401  (re-exported)
from .loader import Row, Run

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
KINDS = (GPU_KERNEL, GPU_THRUST, GPU_E2E, GPU_E2E_SHORT, GPU_HOST, GPU_HOST_PAGING, CPU_SERIAL,
         CPU_PARALLEL)
# The kinds whose rows time device work: what calibrate_compare counts as "GPU kernel rows".
GPU_KERNEL_KINDS = frozenset({GPU_KERNEL, GPU_THRUST})

# The between-run sigma of log(median B / median A) per kind; the module docstring says which
# runs and which rule each figure comes from (`python -m twinbench.report.noise` prints them).
DEFAULT_NOISE = {GPU_KERNEL: 0.0094, GPU_THRUST: 0.090, GPU_E2E: 0.061, GPU_E2E_SHORT: 0.425,
                 GPU_HOST: 0.157, GPU_HOST_PAGING: 0.415, CPU_SERIAL: 0.209, CPU_PARALLEL: 0.217}

# Workloads whose rows are timed through the host: API calls (alloc, sync), PCIe copies
# (transfers, streams) and host polling (progress). Their CPU rows too (transfers/serial is a
# host memcpy of the same sizes, as noisy).
HOST_SIDE_WORKLOADS = frozenset({"alloc", "transfers", "sync", "streams", "progress"})
# Transfers through pageable or managed host memory: the OS's page handling is in the timed
# path (page faults, migration), not only the copy engine's DMA as for pinned and mapped memory;
# with the allocations (mapping and pinning pages) they are the host-side rows that move most.
PAGING_COPIES = frozenset({"cuda_pageable", "cuda_managed", "cuda_managed_prefetch",
                           "serial_memcpy"})
# An end-to-end row shorter than this is the latency of its API calls and syncs, not bandwidth
# (lucas' 8-15 us e2e rows: a 3-4 us kernel, its launch, a copy of a few bytes and a sync).
SHORT_E2E_S = 20e-6

# The rule for a kind's sigma from its moves (between_run_sigma). These kinds: sigma matched to
# the 95th percentile (GPU kernels: a light tail; CPU rows: a heavy one, but a threshold past it
# would hide every CPU change short of 2.3x). The others: to TAIL_MARGIN x the TAIL_QUANTILE
# (module docstring: why, and what the margin was measured against).
Q95_KINDS = frozenset({GPU_KERNEL, CPU_SERIAL, CPU_PARALLEL})
TAIL_QUANTILE = 0.98
TAIL_MARGIN = 1.5

# A kind's figure is taken from the baseline only when it has this many differences of two runs
# (rows x pairs of runs): a high percentile of fewer is mostly its largest value.
MIN_DIFFS_FOR_KIND = 40


def kind_of(row: Row) -> str:
    if row.workload in HOST_SIDE_WORKLOADS:
        return _host_side_kind(row)
    if row.is_gpu:
        if row.mode == "e2e":
            short = row.time_s is not None and row.time_s < SHORT_E2E_S
            return GPU_E2E_SHORT if short else GPU_E2E
        # Thrust's reduce and inner_product return their result to the host and its scan sizes
        # its temporary storage there: host work inside a kernel row's timed region.
        return GPU_THRUST if row.family == "thrust" else GPU_KERNEL
    if row.family == "serial" or "serial" in row.impl.split("_"):
        return CPU_SERIAL
    return CPU_PARALLEL


def _host_side_kind(row: Row) -> str:
    if row.workload == "alloc" or (row.workload == "transfers" and row.impl in PAGING_COPIES):
        return GPU_HOST_PAGING
    return GPU_HOST


def median_log_halfwidth(samples: list[float]) -> float | None:
    """Half the width of the 95% interval of the median, in log space (None: fewer than two
    positive samples): stats.median_interval's, the one interval of a median the reports use."""
    interval = st.median_interval(samples, 0.95)
    return None if interval is None else (math.log(interval[1]) - math.log(interval[0])) / 2


def median_standard_error(row: Row | None) -> float:
    """The standard error of the row's median from its own samples, in log space (0 without
    samples: a single number carries no such figure)."""
    if row is None:
        return 0.0
    half = median_log_halfwidth(row.samples_s)
    return half / Z95 if half else 0.0


def q95_sigma(moves: list[float]) -> float:
    """A standard deviation matched to the 95th percentile of |log ratio|: with k = 2 the
    threshold is about that percentile."""
    return quantile(moves, 0.95) / Z95


def tail_sigma(moves: list[float]) -> float:
    """A sigma whose default multiple (k = 2) is TAIL_MARGIN x the TAIL_QUANTILE of |log ratio|:
    a reach past the kind's tail as measured, for kinds whose next runs went past it."""
    return TAIL_MARGIN * quantile(moves, TAIL_QUANTILE) / DEFAULT_K


def between_run_sigma(diffs: list[float], kind: str) -> float:
    """The kind's between-run sigma from its log ratios of identical code (module docstring)."""
    moves = [abs(d) for d in diffs]
    return q95_sigma(moves) if kind in Q95_KINDS else tail_sigma(moves)


# How many differences of two runs the kind's figure is worth beside a row's own in a baseline.
PRIOR_DIFFS = 4


def pooled_sigma(kind_sigma: float, mean_square: float, dof: int) -> float:
    """A row's between-run sigma from a baseline: its own mean square difference (dof degrees of
    freedom) pooled with its kind's figure weighted as PRIOR_DIFFS differences (the posterior
    mean of sigma^2 under a scaled inverse chi-square prior). Two runs give one difference: on
    its own it is under a tenth of the true sigma 8% of the time and over twice it 5% of the time,
    so it would make thresholds of chance (a 7 us kernel seen moving 2.1% once would hide a 5%
    slowdown at k x 2.1%); pooled, a row seen moving far still gets a wide threshold (12% once:
    sigma 5.4% against its kind's 1%) and a row seen still keeps most of its kind's."""
    return math.sqrt((PRIOR_DIFFS * kind_sigma ** 2 + dof * mean_square) / (PRIOR_DIFFS + dof))


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
    """Between-run noise of a row's median: from a baseline of runs of one revision, else per
    kind; plus each run's own standard error of the median."""
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
        for run in runs:
            for row in run.rows:
                if row.time_s and row.time_s > 0 and not row.skipped:
                    medians.setdefault(row.name, []).append(row.time_s)
                    kinds.setdefault(row.name, kind_of(row))
        pooled: dict[str, list[float]] = {}
        rows_per_kind: dict[str, int] = {}
        own: dict[str, tuple[float, int]] = {}
        for name, times in medians.items():
            if len(times) < 2:
                continue
            diffs = [math.log(x / y) for x, y in combinations(times, 2)]
            # The mean square of the pairwise differences estimates sigma^2 of log(B/A), with
            # len(times) - 1 degrees of freedom.
            own[name] = (sum(d * d for d in diffs) / len(diffs), len(times))
            pooled.setdefault(kinds[name], []).extend(diffs)
            rows_per_kind[kinds[name]] = rows_per_kind.get(kinds[name], 0) + 1
        for kind, diffs in pooled.items():
            if len(diffs) >= MIN_DIFFS_FOR_KIND:
                model.kind_noise[kind] = (between_run_sigma(diffs, kind), rows_per_kind[kind])
        for name, (mean_square, runs) in own.items():
            prior = model.kind_figure(kinds[name])[0]
            model.row_noise[name] = (pooled_sigma(prior, mean_square, runs - 1), runs)
        return model

    def kind_figure(self, kind: str) -> tuple[float, str]:
        if kind in self.kind_noise:
            noise, rows = self.kind_noise[kind]
            return noise, f"baseline: {rows} {kind} rows in {self.baseline_runs} runs"
        return DEFAULT_NOISE[kind], f"{kind} default"

    def between(self, a: Row) -> tuple[float, str]:
        """The row's between-run sigma and where it came from: its own in the baseline (pooled
        with its kind's), else its kind's."""
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
        # sigma is of log(B/A), so k sigma is a bound on |log B/A|: as a relative change it is
        # e^(k sigma) - 1, the same bound for "faster" (1 / that factor). For the 1% of a GPU
        # kernel that is k sigma itself; for a host-side row's 40% it is not (2 x 40% -> 123%).
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
    spec = value.split(" (test hook", 1)[0]
    pattern, _, pct = spec.rpartition("=")
    try:
        return pattern, float(pct)
    except ValueError:
        return None


def _timed_medians(run: Run) -> dict[str, Row]:
    """The run's rows with a median, less those the slowdown hook touched: what two runs of one
    revision can say about noise."""
    injected = injected_pattern(run.context)
    hooked = re.compile(injected[0]) if injected else None
    return {r.name: r for r in run.rows
            if r.time_s and r.time_s > 0 and not r.skipped
            and not (hooked and hooked.search(r.name))}


def same_code_pairs(runs: list[Run]) -> list[tuple[Run, Run]]:
    """Every pair of runs of one revision (the context's git_revision; runs without one count as
    one revision): runs of different code are never paired."""
    by_revision: dict[str, list[Run]] = {}
    for run in runs:
        by_revision.setdefault(str(run.context.get("git_revision", "")), []).append(run)
    return [pair for group in by_revision.values() for pair in combinations(group, 2)]


def moves_by_kind(runs: list[Run]) -> dict[str, list[float]]:
    """|log(median B / median A)| per kind, over every row of every pair of runs of one revision.
    A row's kind is read from the pair's first run."""
    moves: dict[str, list[float]] = {}
    for run_a, run_b in same_code_pairs(runs):
        rows_a, rows_b = _timed_medians(run_a), _timed_medians(run_b)
        for name, a in rows_a.items():
            if name in rows_b:
                moves.setdefault(kind_of(a), []).append(
                    abs(math.log(rows_b[name].time_s / a.time_s)))
    return moves


@dataclass(frozen=True)
class KindFigure:
    """How far the medians of one kind moved between runs of identical code."""
    kind: str
    diffs: int
    median: float
    q95: float
    q98: float
    largest: float
    sigma: float

    @property
    def rule(self) -> str:
        if self.kind in Q95_KINDS:
            return "Q95 / 1.96"
        return f"{TAIL_MARGIN:g} x Q{TAIL_QUANTILE * 100:.0f} / {DEFAULT_K:g}"


def kind_figures(runs: list[Run]) -> list[KindFigure]:
    """Per kind, from runs (pairs of one revision only): the figures the defaults above were
    read from."""
    moves = moves_by_kind(runs)
    return [KindFigure(kind, len(m), quantile(m, 0.5), quantile(m, 0.95),
                       quantile(m, TAIL_QUANTILE), max(m), between_run_sigma(m, kind))
            for kind in KINDS if (m := moves.get(kind))]


def main(argv: list[str] | None = None) -> int:
    import argparse
    import sys

    from .loader import LoadError, load_run
    parser = argparse.ArgumentParser(
        prog="python -m twinbench.report.noise",
        description="How far the medians of runs of one revision moved, per kind of row: the "
                    "figures the defaults of twinbench/report/noise.py were read from. Runs of several "
                    "revisions may be given: only runs of one revision are paired, and rows "
                    "that a run's slowdown hook touched are left out.")
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
              f"{f.largest:.2%} | {f.rule} | {f.sigma:.2%} | {threshold:.1%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
