"""How much a row's time moves between two runs of identical code: the practical threshold a
difference must pass before `compare` calls it faster or slower.

A run's samples say how precisely that run measured its median; they say nothing about how much
the next run, on another machine instance or after a reboot, will differ. That between-run noise
is what a comparison of two runs has to clear, and it is measured only by running the same
revision more than once. So:

  threshold = max(floor, k x noise)                       (floor 2%, k 3 by default)

  noise = the largest of
    - the row's own between-run noise, from a baseline (two or more runs of one revision), when
      the user gives one and the row is in at least two of its runs;
    - its kind's between-run noise: from the baseline's rows of that kind when there are enough
      of them, else the kind's default below;
    - the row's within-run spread (relative stdev of its samples, the larger of A's and B's),
      when the baseline did not measure the row (a proxy, see below).

noise is the standard deviation of log(B/A) between two runs of identical code (for small values
the relative difference). k = 3 puts the threshold at three standard deviations: a row of
normal noise passes it by chance in 0.3% of A/A pairs; real noise has heavier tails, which the
floors below (a kind's default is set near the 90th percentile of what we saw, not the median)
and the within-run term absorb.

Why each term:
  - A baseline measures exactly what is needed, but two or three runs estimate one row's noise
    poorly (with two runs, one difference: 8% of the time it is under a tenth of the true
    spread), so the row's own figure never lowers the threshold below its kind's.
  - The within-run spread is a proxy that the committed H200 runs support: between 3c7200f and
    36875ab (identical code for these rows, two machine instances a day apart) the GPU kernels of
    3-20 us (relative stdev 2-4% within a run: lucas, dot, scan, conv2d 3x3) moved 2-7%, those
    of 50 us and more (sgemm, transpose, black_scholes; under 1.5%) moved under 1-2%.

The defaults per kind, and the evidence: |log ratio| of the medians of the two committed H200
runs 3c7200f and 36875ab (cpu/ and bench/ identical between them; two machine instances a day
apart, before threads were pinned in 5c951b8); 25e23e9 against 3c7200f gave the same picture.
Each default is set so that k x default sits near the kind's 90th-98th percentile, not its median:
  GPU kernel      1%   median 0.15%, 90th percentile 1.3% (issue 32: 0.1-1% between instances);
                       the short kernels above it are covered by their within-run spread
  GPU end-to-end  7%   median 0.7%, 75th percentile 9%, 90th 20%: transfers through pageable
                       memory and Numba's host-side allocations move with the host
  GPU host-side   20%  alloc, transfers, sync, streams, progress: timed through the host (API
                       calls, PCIe, polling); median 6%, 90th percentile 35%, 98th 63%
                       (pageable 64 MiB uploads 2.4x, Numba's small transfers 1.4-1.6x)
  CPU serial      15%  median 11%, 90th percentile 40%, 95th 51% (scan/serial 1.67x): one
                       thread, so the instance's frequency and memory placement
  CPU parallel    15%  OpenMP and CPU libraries: median 8%, 90th percentile 33% (conv2d/omp,
                       nested_loop/omp up to 1.6-1.7x)
On those two runs the defaults leave 97% of the 848 rows "same" (the U test alone: 83% flagged
on another such pair, issue 32), but a few host-side and CPU rows still past their thresholds:
a CI that fails on any regression (--fail-on-regression) over every row needs a baseline of
runs made after pinning (`--baseline`), whose measured noise then replaces these defaults,
and is the only way to catch CPU regressions smaller than 45%.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from itertools import combinations

from .loader import Row, Run

DEFAULT_FLOOR = 0.02
DEFAULT_K = 3.0

GPU_KERNEL = "GPU kernel"
GPU_E2E = "GPU end-to-end"
GPU_HOST = "GPU host-side"
CPU_SERIAL = "CPU serial"
CPU_PARALLEL = "CPU parallel"
KINDS = (GPU_KERNEL, GPU_E2E, GPU_HOST, CPU_SERIAL, CPU_PARALLEL)

# See the module docstring for where these come from.
DEFAULT_NOISE = {GPU_KERNEL: 0.01, GPU_E2E: 0.07, GPU_HOST: 0.20, CPU_SERIAL: 0.15,
                 CPU_PARALLEL: 0.15}

# Workloads whose rows are timed through the host: API calls (alloc, sync), PCIe copies
# (transfers, streams) and host polling (progress). Their CPU rows too (transfers/serial is a
# host memcpy of the same sizes, as noisy).
HOST_SIDE_WORKLOADS = frozenset({"alloc", "transfers", "sync", "streams", "progress"})

# A kind's noise is taken from the baseline only when this many of its rows are in it: fewer
# estimate a spread too poorly to replace the default.
MIN_ROWS_FOR_KIND = 5
# The median |x| of a normal variable is 0.6745 sigma: pooled median -> standard deviation.
MEDIAN_TO_SIGMA = 1.4826


def kind_of(row: Row) -> str:
    if row.workload in HOST_SIDE_WORKLOADS:
        return GPU_HOST
    if row.is_gpu:
        return GPU_E2E if row.mode == "e2e" else GPU_KERNEL
    if row.family == "serial" or "serial" in row.impl.split("_"):
        return CPU_SERIAL
    return CPU_PARALLEL


def within_run_spread(row: Row) -> float:
    """The relative stdev of the row's samples (0 when unknown). Not a robust spread on purpose:
    an interquartile-range figure was tried, and on the committed pair it left more rows
    flagged (29 against 24 of 848): rows whose samples have outliers are the ones that move
    between runs, and the stdev is what sees the outliers."""
    if row.cv is not None and math.isfinite(row.cv):
        return max(row.cv, 0.0)
    return 0.0


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
    """Between-run noise per row: from a baseline of runs of one revision, else per kind."""
    floor: float = DEFAULT_FLOOR
    k: float = DEFAULT_K
    # From a baseline: per row name, (noise, number of runs); per kind, (noise, rows).
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
        for name, times in medians.items():
            if len(times) < 2:
                continue
            diffs = [abs(math.log(x / y)) for x, y in combinations(times, 2)]
            # RMS of the pairwise log differences: the standard deviation of log(B/A) between
            # two runs (the same quantity as the defaults).
            model.row_noise[name] = (math.sqrt(statistics.fmean(d * d for d in diffs)), len(times))
            pooled.setdefault(kinds[name], []).extend(diffs)
        for kind, diffs in pooled.items():
            rows = sum(1 for n, kd in kinds.items() if kd == kind and n in model.row_noise)
            if rows >= MIN_ROWS_FOR_KIND:
                # A median is not moved by the few rows that are really noisy (their own figure
                # covers them).
                model.kind_noise[kind] = (MEDIAN_TO_SIGMA * statistics.median(diffs), rows)
        return model

    def kind_figure(self, kind: str) -> tuple[float, str]:
        if kind in self.kind_noise:
            noise, rows = self.kind_noise[kind]
            return noise, f"baseline: {rows} {kind} rows in {self.baseline_runs} runs"
        return DEFAULT_NOISE[kind], f"{kind} default"

    def threshold(self, a: Row, b: Row | None = None) -> Threshold:
        """The practical threshold for comparing B's row with A's (same name)."""
        kind = kind_of(a)
        candidates = [self.kind_figure(kind)]
        if a.name in self.row_noise:
            noise, runs = self.row_noise[a.name]
            candidates.append((noise, f"baseline: this row in {runs} runs"))
        else:
            # No measurement of this row's between-run noise: its within-run spread stands in.
            spread = max(within_run_spread(a), within_run_spread(b) if b is not None else 0.0)
            candidates.append((spread, "within-run spread"))
        noise, source = max(candidates, key=lambda c: c[0])
        value = self.k * noise
        if value <= self.floor:
            return Threshold(self.floor, f"floor; {self.k:g}×{noise:.1%} {source} is under it")
        return Threshold(value, f"{self.k:g}×{noise:.1%} {source}")

    def describe(self) -> str:
        """One paragraph for the report: what the thresholds rest on."""
        text = (f"Practical threshold per row: max({self.floor:.0%}, {self.k:g} × the row's "
                "between-run noise), the noise being the larger of its kind's and its own in the "
                "baseline (its within-run spread where the baseline lacks it). ")
        if self.baseline_runs:
            measured = ", ".join(f"{kind} {noise:.1%} ({rows} rows)"
                                 for kind, (noise, rows) in sorted(self.kind_noise.items()))
            text += (f"Baseline: {self.baseline_runs} runs of one revision, "
                     f"{len(self.row_noise)} rows in two or more of them; measured per kind: "
                     f"{measured or 'no kind with enough rows'}. ")
        defaults = ", ".join(f"{kind} {DEFAULT_NOISE[kind]:.0%}" for kind in KINDS
                             if kind not in self.kind_noise)
        if defaults:
            text += (f"Defaults where no baseline measured it (from two committed H200 runs of "
                     f"identical code, reports/noise.py): {defaults}.")
        return text.strip()
