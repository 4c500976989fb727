"""The finer kinds and their thresholds (twinbench/report/noise.py): which rows are which kind, the
threshold as a bound on |log B/A|, and the committed pairs' cases on synthetic runs (no GPU)."""

from __future__ import annotations

import math
import random

import pytest

from conftest import repeated, write_run
from twinbench.report.cli import EXIT_OK, EXIT_REGRESSION, main
from twinbench.report.compare import FASTER, SAME, SLOWER, compare_runs
from twinbench.report.loader import Run, load_run, rows_from_entries
from twinbench.report.noise import (CPU_PARALLEL, CPU_SERIAL, DEFAULT_NOISE, GPU_E2E, GPU_E2E_SHORT,
                           GPU_HOST, GPU_HOST_PAGING, GPU_KERNEL, GPU_THRUST, NoiseModel,
                           kind_of, tail_sigma)

CONTEXT = {"gpu_name": "Test GPU", "cpu_model": "Test CPU", "quick": "false"}


def _rows(rows: dict[str, list[float]], unit: str = "ms") -> list:
    entries = []
    for name, samples in rows.items():
        entries += repeated(name, samples, unit=unit)
    parsed, _ = rows_from_entries(entries)
    return parsed


@pytest.mark.parametrize("name, samples_us, kind", [
    ("dot/cuda/n:1048576/block:256/mode:kernel", 7, GPU_KERNEL),
    ("dot/thrust/n:1048576/mode:kernel", 22, GPU_THRUST),
    ("scan/thrust/dtype:int32/n:1048576", 11, GPU_THRUST),
    ("dot/cuda/n:1048576/block:256/mode:e2e", 177, GPU_E2E),
    ("lucas/cuda_iterative/n:90/block:64/mode:e2e", 15, GPU_E2E_SHORT),
    ("alloc/cuda_malloc_free/bytes:4096", 50, GPU_HOST_PAGING),
    ("transfers/cuda_managed/dir:d2h/bytes:262144", 50, GPU_HOST_PAGING),
    ("transfers/serial_memcpy/bytes:1048576", 50, GPU_HOST_PAGING),
    ("transfers/cuda_pinned/dir:h2d/bytes:1048576", 50, GPU_HOST),
    ("sync/cuda_launch_sync/launches:1", 9, GPU_HOST),
    ("lucas/serial_iterative/n:40", 30, CPU_SERIAL),
    ("dot/omp/n:1048576/threads:16", 30, CPU_PARALLEL),
])
def test_each_row_has_the_kind_its_timed_region_calls_for(name, samples_us, kind):
    row, = _rows({name: [samples_us] * 5}, unit="us")
    assert kind_of(row) == kind


def test_an_end_to_end_row_is_short_by_its_median():
    short, long_ = _rows({"k/cuda/n:1/mode:e2e": [19.0] * 5, "l/cuda/n:1/mode:e2e": [21.0] * 5},
                         unit="us")
    assert (kind_of(short), kind_of(long_)) == (GPU_E2E_SHORT, GPU_E2E)


def test_the_threshold_bounds_the_log_ratio_both_ways():
    """sigma is of log(B/A): a host-side row's threshold is e^(2 sigma) - 1 slower, and the same
    factor faster, not 2 sigma as a relative change (which would be 1.3x narrower in log)."""
    sigma = DEFAULT_NOISE[GPU_HOST_PAGING]
    bound = math.exp(2 * sigma)
    names = ["alloc/cuda_malloc_free/bytes:1", "alloc/cuda_malloc_free/bytes:2",
             "alloc/cuda_malloc_free/bytes:3", "alloc/cuda_malloc_free/bytes:4"]
    flat = [1.0, 1.001, 0.999, 1.0005, 0.9995]
    a = Run("a", {}, _rows({n: flat for n in names}))
    factors = [bound * 1.05, bound / 1.05, 1 / (bound * 1.05), 1 + 2 * sigma]
    b = Run("b", {}, _rows({n: [s * f for s in flat] for n, f in zip(names, factors)}))
    comparisons, _, _, _ = compare_runs(a, b, NoiseModel())
    verdicts = [c.verdict for c in comparisons]
    assert verdicts == [SLOWER, SAME, FASTER, SAME]
    assert comparisons[0].threshold.value == pytest.approx(math.expm1(2 * sigma), rel=0.01)


def test_the_tail_rule_is_one_and_a_half_times_the_98th_percentile():
    moves = [i / 1000 for i in range(1001)]
    assert 2 * tail_sigma(moves) == pytest.approx(1.5 * 0.98)


# ----------------------------------------------------------------- the committed pairs' cases

# One run's rows as the runs of results/nvidia-h200/2026-12-02b had them (ms), A's level.
LEVELS = {
    "dot/cuda/n:1048576/block:256/mode:kernel": 0.0075,       # 7.5 us, injected in the A/B pair
    "vector_add/cuda_article/n:268435456/block:256/mode:kernel": 0.93,   # injected
    "conv2d/cuda_direct/image:3840x2160/filter:7/block:16x16/mode:kernel": 0.033,
    "dot/thrust/n:1048576/mode:kernel": 0.022,
    "lucas/cuda_iterative/n:90/block:64/mode:e2e": 0.0153,
    "alloc/cuda_malloc_free/bytes:268435456": 0.5,
    "transfers/cuda_managed_prefetch/dir:d2h/bytes:16777216": 2.0,
    "lucas/serial_iterative/n:40": 0.4,
}
# How far each row's median moved in the committed A/A pair (B/A): all within its kind's noise.
AA_MOVES = {
    "dot/cuda/n:1048576/block:256/mode:kernel": 1.012,
    "vector_add/cuda_article/n:268435456/block:256/mode:kernel": 1.001,
    "conv2d/cuda_direct/image:3840x2160/filter:7/block:16x16/mode:kernel": 0.985,
    "dot/thrust/n:1048576/mode:kernel": 1.121,               # failed a CI gate under a single default threshold
    "lucas/cuda_iterative/n:90/block:64/mode:e2e": 0.577,     # latency-bound: flagged before
    "alloc/cuda_malloc_free/bytes:268435456": 0.573,
    "transfers/cuda_managed_prefetch/dir:d2h/bytes:16777216": 0.673,
    "lucas/serial_iterative/n:40": 1.4,
}
INJECTED = ("dot/cuda/n:1048576/block:256/mode:kernel",
            "vector_add/cuda_article/n:268435456/block:256/mode:kernel")


def _write(path, factors: dict[str, float], seed: int) -> str:
    """A run: each row's 2000 samples spread 3% around its level x factor (the committed 1M
    kernels had 5000: their medians' own error is a tenth of the floor)."""
    rng = random.Random(seed)
    entries = []
    for name, level in LEVELS.items():
        median = level * factors.get(name, 1.0)
        entries += repeated(name, [median * math.exp(rng.gauss(0, 0.03)) for _ in range(2000)])
    return str(write_run(path, entries, CONTEXT))


def test_the_committed_a_a_pair_passes_the_ci(tmp_path, capsys):
    a = _write(tmp_path / "a.json", {}, 1)
    b = _write(tmp_path / "b.json", AA_MOVES, 2)
    assert main(["compare", a, b, "--out", str(tmp_path / "aa"),
                 "--fail-on-regression", "5"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "8 matched: 0 slower and 0 faster beyond noise, 8 same" in out


def test_the_committed_a_b_pair_fails_it_on_both_injected_rows(tmp_path, capsys):
    """5% injected, on top of B's level 2.5% under A's for the short kernel (as the committed
    A/B pair had it): it shows as 2.4% and is still past the 2% floor."""
    a = _write(tmp_path / "a.json", {}, 1)
    moves = {name: 1.0 for name in LEVELS}
    moves[INJECTED[0]] = 0.975 * 1.05
    moves[INJECTED[1]] = 1.05 * 1.002
    b = _write(tmp_path / "b.json", moves, 3)
    comparisons, _, _, _ = compare_runs(load_run(a), load_run(b), NoiseModel())
    assert {c.name for c in comparisons if c.verdict == SLOWER} == set(INJECTED)
    assert main(["compare", a, b, "--out", str(tmp_path / "ab"),
                 "--fail-on-regression", "5"]) == EXIT_REGRESSION
    err = capsys.readouterr().err
    assert INJECTED[1] in err          # 5.2%: past 5% as well as the threshold
