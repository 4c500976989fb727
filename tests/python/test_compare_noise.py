"""The verdict logic calibrated on synthetic run pairs: how often identical code is
called faster or slower (false alarms), and how often a known slowdown is caught (detection),
with between-run noise drawn per row as two machine instances give it."""

from __future__ import annotations

import math
import random

import pytest

from conftest import repeated
from twinbench.report.compare import FASTER, SAME, SLOWER, compare_runs, regressions
from twinbench.report.loader import Run, rows_from_entries
from twinbench.report.noise import (CPU_PARALLEL, CPU_SERIAL, DEFAULT_NOISE, GPU_E2E, GPU_E2E_SHORT,
                           GPU_HOST, GPU_HOST_PAGING, GPU_KERNEL, GPU_THRUST, NoiseModel, kind_of)

# One synthetic row per (kind, index): a name whose kind_of is the kind.
NAMES = {GPU_KERNEL: "k{i}/cuda/n:1024/mode:kernel", GPU_THRUST: "k{i}/thrust/n:1024/mode:kernel",
         GPU_E2E: "k{i}/cuda/n:1024/mode:e2e", GPU_E2E_SHORT: "s{i}/cuda/n:1/mode:e2e",
         GPU_HOST: "transfers/cuda_pinned/bytes:{i}",
         GPU_HOST_PAGING: "alloc/cuda_malloc_free/bytes:{i}", CPU_SERIAL: "k{i}/serial/n:1024",
         CPU_PARALLEL: "k{i}/omp/n:1024/threads:16"}
# True times (ms): 1-100 ms, but an end-to-end row under 20 us is its own kind.
TIMES_MS = {GPU_E2E_SHORT: (0.008, 0.015)}
ROWS_PER_KIND = 40
PAIRS = 5
SAMPLES = 40
# Within-run spread (relative stdev of a row's samples) by kind: what the committed H200 runs
# show for most rows (GPU kernels under 1-3%, CPU rows a few %).
WITHIN = {GPU_KERNEL: 0.01, GPU_THRUST: 0.03, GPU_E2E: 0.02, GPU_E2E_SHORT: 0.1, GPU_HOST: 0.05,
          GPU_HOST_PAGING: 0.05, CPU_SERIAL: 0.02, CPU_PARALLEL: 0.04}


def _t3(rng: random.Random) -> float:
    """Student t with 3 degrees of freedom, scaled to unit variance: heavier tails than normal,
    as real between-run shifts have."""
    z = rng.gauss(0, 1)
    chi2 = sum(rng.gauss(0, 1) ** 2 for _ in range(3))
    return z / math.sqrt(chi2 / 3) / math.sqrt(3)


class Population:
    """Rows with a true time, a between-run noise (drawn per row, up to its kind's default) and a
    within-run spread; each call of run() is one run of that code on a fresh machine."""

    def __init__(self, seed: int, kinds=tuple(NAMES), noise_scale: float = 1.0):
        self.rng = random.Random(seed)
        self.rows = []
        for kind in kinds:
            for i in range(ROWS_PER_KIND):
                between = DEFAULT_NOISE[kind] * noise_scale * self.rng.uniform(0.1, 1.0)
                self.rows.append((NAMES[kind].format(i=i), kind,
                                  self.rng.uniform(*TIMES_MS.get(kind, (1, 100))), between,
                                  WITHIN[kind]))

    def run(self, slowdown: dict[str, float] | None = None) -> Run:
        entries = []
        for name, _kind, true_ms, between, within in self.rows:
            # Half the variance of a two-run difference belongs to each run.
            level = true_ms * math.exp(_t3(self.rng) * between / math.sqrt(2))
            level *= 1 + (slowdown or {}).get(name, 0.0)
            samples = [level * math.exp(self.rng.gauss(0, within)) for _ in range(SAMPLES)]
            entries += repeated(name, samples, with_iterations=True)
        rows, _ = rows_from_entries(entries)
        return Run(path="synthetic", context={}, rows=rows)


def _verdicts(run_a: Run, run_b: Run, noise) -> dict[str, str]:
    comparisons, _, _, _ = compare_runs(run_a, run_b, noise)
    return {c.name: c.verdict for c in comparisons}


def test_synthetic_rows_have_the_intended_kinds():
    population = Population(1)
    run = population.run()
    assert {kind_of(r) for r in run.rows} == set(NAMES)
    assert {r.name: kind_of(r) for r in run.rows} == {name: kind for name, kind, *_ in population.rows}


def test_identical_code_is_the_same_in_at_least_95_percent_of_rows():
    """A/A pairs: both runs of the same code, each on its own 'machine instance'."""
    population = Population(2)
    flagged = total = 0
    for _ in range(PAIRS):
        verdicts = _verdicts(population.run(), population.run(), NoiseModel())
        flagged += sum(v != SAME for v in verdicts.values())
        total += len(verdicts)
    assert total == PAIRS * ROWS_PER_KIND * len(NAMES)
    assert flagged / total < 0.05


def test_the_u_test_alone_is_what_raised_the_false_alarms():
    """The check above has teeth: with no practical threshold (floor 0, k 0: the old verdict,
    Mann-Whitney alone) the same A/A pairs are mostly flagged (83% in two committed H200 runs)."""
    population = Population(2)
    verdicts = _verdicts(population.run(), population.run(), NoiseModel(floor=0.0, k=0.0))
    assert sum(v != SAME for v in verdicts.values()) / len(verdicts) > 0.5


@pytest.mark.parametrize("shift", [0.05, 0.10])
def test_a_slowdown_past_the_threshold_is_caught_on_gpu_kernel_rows(shift):
    """GPU kernel rows (noise up to 1%, threshold 2%): a 5% or 10% slowdown is reported."""
    population = Population(3, kinds=(GPU_KERNEL,))
    slowed = {name: shift for name, *_ in population.rows}
    caught = total = 0
    for _ in range(PAIRS):
        verdicts = _verdicts(population.run(), population.run(slowed), NoiseModel())
        caught += sum(v == SLOWER for v in verdicts.values())
        total += len(verdicts)
    assert caught / total > 0.90


def test_a_10_percent_slowdown_is_caught_on_cpu_rows_with_a_baseline():
    """CPU rows' default thresholds (40-43%) are wide; a baseline of three runs that shows their
    noise is 2-3% brings a 10% slowdown within reach."""
    population = Population(4, kinds=(CPU_SERIAL, CPU_PARALLEL), noise_scale=0.2)
    slowed = {name: 0.10 for name, *_ in population.rows}
    caught = total = alarms = 0
    for _ in range(PAIRS):
        baseline = [population.run() for _ in range(3)]
        noise = NoiseModel.from_baseline(baseline)
        assert noise.kind_noise[CPU_SERIAL][0] < 0.05
        verdicts = _verdicts(baseline[0], population.run(slowed), noise)
        caught += sum(v == SLOWER for v in verdicts.values())
        alarms += sum(v != SAME for v in _verdicts(baseline[0], population.run(), noise).values())
        total += len(verdicts)
    assert caught / total > 0.90
    assert alarms / total < 0.05


def test_without_a_baseline_the_same_cpu_slowdown_is_not_claimed():
    """The defaults are conservative on purpose: 10% on a CPU row is within what two runs of
    identical code differed by before pinning, so it is "same" unless a baseline says better."""
    population = Population(4, kinds=(CPU_PARALLEL,), noise_scale=0.2)
    slowed = {name: 0.10 for name, *_ in population.rows}
    verdicts = _verdicts(population.run(), population.run(slowed), NoiseModel())
    assert sum(v == SLOWER for v in verdicts.values()) / len(verdicts) < 0.05


def test_a_baseline_raises_the_threshold_of_a_row_it_saw_move():
    population = Population(5, kinds=(GPU_KERNEL,))
    runs = [population.run() for _ in range(3)]
    wild = population.rows[0][0]
    for factor, run in zip((1.0, 1.2, 0.9), runs):
        row = next(r for r in run.rows if r.name == wild)
        row.time_s *= factor
    noise = NoiseModel.from_baseline(runs)
    row = next(r for r in runs[0].rows if r.name == wild)
    threshold = noise.threshold(row, row)
    # Its moves (1.2x, 0.9x) pooled with the kind's 1% as a prior: sigma 11.9%, threshold 24%.
    assert threshold.value > 0.2 and "this row in 3 runs" in threshold.source
    other = next(r for r in runs[0].rows if r.name != wild)
    assert "this row" not in noise.threshold(other, other).source or noise.threshold(
        other, other).value < 0.1


def test_faster_is_symmetric_to_slower():
    population = Population(6, kinds=(GPU_KERNEL,))
    faster = {name: 1 / 1.10 - 1 for name, *_ in population.rows}
    verdicts = _verdicts(population.run(), population.run(faster), NoiseModel())
    assert sum(v == FASTER for v in verdicts.values()) / len(verdicts) > 0.90


def test_regressions_need_both_the_noise_threshold_and_the_percent():
    population = Population(7, kinds=(GPU_KERNEL,))
    names = [name for name, *_ in population.rows]
    slowed = {names[0]: 0.30, names[1]: 0.08, names[2]: -0.30}
    comparisons, _, _, _ = compare_runs(population.run(), population.run(slowed), NoiseModel())
    by_name = {c.name: c for c in comparisons}
    assert by_name[names[0]].verdict == SLOWER and by_name[names[1]].verdict == SLOWER
    assert [c.name for c in regressions(comparisons, 5)] == [names[0], names[1]]
    assert [c.name for c in regressions(comparisons, 20)] == [names[0]]   # 8% is under 20%
    assert regressions(comparisons, 50) == []
