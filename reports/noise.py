"""How much a row's median moves between two runs of identical code: the practical threshold a
difference must pass before `compare` calls it faster or slower.

What a comparison of two runs has to clear is the between-run noise of the MEDIAN, not the spread
of one run's samples: a 7 us kernel whose samples spread by 3-4% within a run has a median that two
runs of identical code put 0.4-2% apart (the committed H200 runs, 2026-12-02); a threshold from
the per-sample spread (the previous model: 3 x that spread) was 6-12% on such rows and missed a 5%
slowdown on 9 of them. So, per row:

  threshold = max(floor, k x sigma)                        (floor 2%, k 2 by default)
  sigma^2   = between^2 + se_A^2 + se_B^2

  between  the between-run standard deviation of log(median B / median A) for the row's kind
           (GPU kernel, GPU end-to-end, GPU host-side, CPU serial, CPU parallel): from a baseline
           of two or more runs of one revision when the user gives one (the kind's figure from
           the baseline's rows; the row's own where the baseline has it, pooled with its kind's
           as a prior: pooled_sigma), else the kind's default below;
  se_X     the standard error of run X's median from its own samples (the distribution-free
           order-statistic 95% interval of the median, half-width / 1.96, in log space): how
           precisely that run measured its median. Tiny for thousands of samples, large for a
           CPU row of 5 samples, whose median is then judged with its own uncertainty.

Between-run shifts are not normal: most rows do not move at all (GPU kernel medians: 0.2% is the
median move) while a few move a lot (a 12% move of a 12 us Thrust scan). A standard deviation from
the RMS would be ruled by that tail, one from the median absolute move would ignore it. So
`between` is matched to the 95th percentile of the kind's moves: between = Q95(|log B/A|) / 1.96,
and with k = 2 the threshold is about that 95th percentile itself: a row of identical code is
flagged in about 5% of pairs, the issue's budget ("at least 95% same"), wherever its kind's tail
is. k = 3 (the previous default) would put GPU kernels at 3%: past the 2.4% by which a 5%
slowdown showed on a 7 us dot kernel of the committed A/B pair (inferred: its level in B's
process 2.5% under A's, common/sampler.hpp), so a k that keeps 5% detectable on GPU kernels is
about 2.

The defaults per kind: Q95 / 1.96 of |log ratio| of the medians over the three pairs of the
three default runs of revision 7d240bb on the H200 (results/nvidia-h200/2026-12-02: run-aa,
run, run-baseline; 684 rows; threads pinned, CPU kernels vectorised):
  GPU kernel      1.0%   (Q95 2.0%; median 0.2%, 99th percentile 3.6%)   -> threshold 2% (floor)
  GPU end-to-end  5.5%   (Q95 10.8%; median 0.4%; lucas e2e rows moved 1.6x)
  GPU host-side   19%    (Q95 37%; median 3%: host API calls, pageable copies, polling)
  CPU serial      21.5%  (Q95 42%; median 11%)
  CPU parallel    20%    (Q95 40%; median 10%: the VM's vCPUs, see the results README)
`python -m reports.noise run-aa.json run.json run-baseline.json` prints these figures (from any
runs of one revision); `compare --baseline RUN.json ...` measures them from the runs it is given.

--fail-on-regression (compare.regressions) gates only rows whose threshold is at most its
percentage: a row whose noise is wider than the budget cannot tell a PCT regression from the
machine, and across hundreds of such rows (host-side API calls, CPU rows in a VM) some pass their
95th percentile on identical code in every pair of runs (the two alloc rows at 1.62x and 1.66x of
the committed A/A pair). Those rows are still reported when they change beyond noise; a baseline
of repeated runs (their own, usually lower, noise) or a larger PCT brings them under the gate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations

from .loader import Row, Run

DEFAULT_FLOOR = 0.02
DEFAULT_K = 2.0
Z95 = 1.959964

GPU_KERNEL = "GPU kernel"
GPU_E2E = "GPU end-to-end"
GPU_HOST = "GPU host-side"
CPU_SERIAL = "CPU serial"
CPU_PARALLEL = "CPU parallel"
KINDS = (GPU_KERNEL, GPU_E2E, GPU_HOST, CPU_SERIAL, CPU_PARALLEL)

# The between-run standard deviation of log(median B / median A) per kind; see the module
# docstring for where these come from.
DEFAULT_NOISE = {GPU_KERNEL: 0.010, GPU_E2E: 0.055, GPU_HOST: 0.19, CPU_SERIAL: 0.215,
                 CPU_PARALLEL: 0.20}

# Workloads whose rows are timed through the host: API calls (alloc, sync), PCIe copies
# (transfers, streams) and host polling (progress). Their CPU rows too (transfers/serial is a
# host memcpy of the same sizes, as noisy).
HOST_SIDE_WORKLOADS = frozenset({"alloc", "transfers", "sync", "streams", "progress"})

# A kind's figure is taken from the baseline only when it has this many differences of two runs
# (rows x pairs of runs): a 95th percentile of fewer is mostly its largest value.
MIN_DIFFS_FOR_KIND = 40


def kind_of(row: Row) -> str:
    if row.workload in HOST_SIDE_WORKLOADS:
        return GPU_HOST
    if row.is_gpu:
        return GPU_E2E if row.mode == "e2e" else GPU_KERNEL
    if row.family == "serial" or "serial" in row.impl.split("_"):
        return CPU_SERIAL
    return CPU_PARALLEL


def median_log_halfwidth(samples: list[float]) -> float | None:
    """Half the width of the 95% interval of the median, in log space (None: fewer than two
    positive samples). Order statistics: the median lies between the l-th and u-th of n sorted
    samples with 95% probability, l, u = n/2 -/+ 1.96 sqrt(n)/2; no resampling, so it costs
    nothing on rows of 10000 samples; with 5 samples it is [min, max] (93.75% coverage)."""
    values = sorted(s for s in samples if s > 0)
    n = len(values)
    if n < 2:
        return None
    low = max(0, math.floor(n / 2 - Z95 * math.sqrt(n) / 2))
    high = min(n - 1, math.ceil(n / 2 + Z95 * math.sqrt(n) / 2) - 1)
    return (math.log(values[high]) - math.log(values[low])) / 2


def median_standard_error(row: Row | None) -> float:
    """The standard error of the row's median from its own samples, in log space (0 without
    samples: a single number carries no such figure)."""
    if row is None:
        return 0.0
    half = median_log_halfwidth(row.samples_s)
    return half / Z95 if half else 0.0


def quantile(values: list[float], q: float) -> float:
    """The q-quantile by linear interpolation between order statistics (values non-empty)."""
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def between_run_sigma(diffs: list[float]) -> float:
    """A standard deviation matched to the 95th percentile of |log ratio| (module docstring)."""
    return quantile([abs(d) for d in diffs], 0.95) / Z95


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
                model.kind_noise[kind] = (between_run_sigma(diffs), rows_per_kind[kind])
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
        value = self.k * sigma
        if value <= self.floor:
            return Threshold(self.floor, f"floor; {self.k:g}×{sigma:.1%} {source} is under it")
        return Threshold(value, f"{self.k:g}×{sigma:.1%} {source}")

    def describe(self) -> str:
        """One paragraph for the report: what the thresholds rest on."""
        text = (f"Practical threshold per row: max({self.floor:.0%}, {self.k:g} × σ), σ the "
                "between-run noise of the row's median: its kind's between-run figure (σ matched "
                "to the 95th percentile of how far medians of identical code moved between runs) "
                "or, from a baseline, its own pooled with its kind's, combined with each run's "
                "standard error of the median from its samples. ")
        if self.baseline_runs:
            measured = ", ".join(f"{kind} {noise:.1%} ({rows} rows)"
                                 for kind, (noise, rows) in sorted(self.kind_noise.items()))
            text += (f"Baseline: {self.baseline_runs} runs of one revision, "
                     f"{len(self.row_noise)} rows in two or more of them; σ measured per kind: "
                     f"{measured or 'no kind with enough rows'}. ")
        defaults = ", ".join(f"{kind} {DEFAULT_NOISE[kind]:.1%}" for kind in KINDS
                             if kind not in self.kind_noise)
        if defaults:
            text += (f"σ defaults where no baseline measured it (three committed H200 runs of one "
                     f"revision, reports/noise.py): {defaults}.")
        return text.strip()


def kind_figures(runs: list[Run]) -> list[tuple[str, int, float, float, float, float]]:
    """Per kind, from runs of one revision: (kind, differences, median, Q95 and Q99 of
    |log ratio| of the medians over every pair of runs, and the sigma a baseline would use).
    What the defaults above were read from."""
    medians = {}
    for run in runs:
        for row in run.rows:
            if row.time_s and row.time_s > 0 and not row.skipped:
                medians.setdefault((kind_of(row), row.name), []).append(row.time_s)
    diffs: dict[str, list[float]] = {}
    for (kind, _name), times in medians.items():
        diffs.setdefault(kind, []).extend(abs(math.log(x / y)) for x, y in combinations(times, 2))
    return [(kind, len(d), quantile(d, 0.5), quantile(d, 0.95), quantile(d, 0.99),
             between_run_sigma(d)) for kind in KINDS if (d := diffs.get(kind))]


def main(argv: list[str] | None = None) -> int:
    import argparse
    import sys

    from .loader import LoadError, load_run
    parser = argparse.ArgumentParser(
        prog="python -m reports.noise",
        description="How far the medians of runs of one revision moved, per kind of row: the "
                    "figures the defaults of reports/noise.py were read from.")
    parser.add_argument("runs", nargs="+", metavar="RUN.json", help="two or more runs")
    args = parser.parse_args(argv)
    if len(args.runs) < 2:
        parser.error("two or more runs of one revision are needed")
    try:
        runs = [load_run(p) for p in args.runs]
    except LoadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("| kind | differences | median | 95th percentile | 99th percentile | σ (Q95/1.96) |")
    print("|---|---|---|---|---|---|")
    for kind, n, med, q95, q99, sigma in kind_figures(runs):
        print(f"| {kind} | {n} | {med:.2%} | {q95:.2%} | {q99:.2%} | {sigma:.2%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
