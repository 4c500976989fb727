"""The report's headline: every number in it from the run, checked against a small
synthetic run whose answers are known by construction."""

from __future__ import annotations

import pytest

from conftest import single, write_run
from twinbench.report import headline as hl
from twinbench.report import summary as su
from twinbench.report.loader import load_run
from twinbench.report.render import render

# Bandwidth ceilings: add 4 TB/s on the GPU against 100 GB/s on all CPU threads (40×), read
# 4 TB/s against 80 GB/s (50×).
CONTEXT = {"gpu_name": "Test GPU", "cpu_model": "Intel(R) Xeon(R) Gold 1234 CPU @ 2.00GHz",
           "omp_threads": "16", "gpu_bw_add_bytes_per_s": 4e12, "cpu_bw_add_all_bytes_per_s": 1e11,
           "cpu_bw_add_one_bytes_per_s": 2e10, "gpu_bw_read_bytes_per_s": 4e12,
           "cpu_bw_read_all_bytes_per_s": 8e10, "cpu_bw_read_one_bytes_per_s": 1.5e10}
ADD, READ = 4, 0  # ceilings.PATTERNS indices
STREAM = 1e9      # bytes per iteration: a stream, not a few cache lines


def _entry(name: str, ms: float, pct: float | None = None, pattern: int = ADD) -> dict:
    entry = single(name, ms)
    if pct is not None:
        entry.update(pct_ceiling=pct, ceiling_pattern=pattern, bytes_per_iter=STREAM)
    return entry


# Kernel speedups: a 20×, b 50×, d 60× (GPU faster), c 0.1× (CPU faster); hardware ratios a 40×,
# b 50×, d 40×; end to end a 0.5× (slower), b 2.5×.
ROWS = [
    _entry("a/serial/n:1000", 100.0, 10, ADD), _entry("a/omp/n:1000/threads:16", 10.0, 80, ADD),
    _entry("a/cuda/n:1000/block:256/mode:kernel", 0.5, 95, ADD),
    _entry("a/cuda/n:1000/block:256/mode:e2e", 20.0),
    _entry("b/serial/n:1000", 50.0, 10, READ), _entry("b/omp/n:1000/threads:16", 5.0, 70, READ),
    _entry("b/cuda/n:1000/block:256/mode:kernel", 0.1, 90, READ),
    _entry("b/cuda/n:1000/block:256/mode:e2e", 2.0),
    _entry("c/serial/n:10", 0.001), _entry("c/cuda/n:10/block:32/mode:kernel", 0.01),
    _entry("d/serial/n:1000", 30.0, 10, ADD), _entry("d/omp/n:1000/threads:16", 3.0, 60, ADD),
    _entry("d/cuda/n:1000/block:256/mode:kernel", 0.05, 90, ADD),
]

EXPECTED = ("On Test GPU vs its Intel Xeon Gold 1234 host (16 OpenMP threads), GPU kernels are "
            "20.0–60.0× faster like for like on 3 of 4 workloads (median 50.0×; hardware ratio "
            "40.0–50.0×); the CPU is faster on c. End to end with the transfers, 1 of 2 "
            "workloads is slower on the GPU.")


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    path = write_run(tmp_path_factory.mktemp("headline") / "run.json", ROWS, CONTEXT)
    return load_run(path)


def _lines(run):
    return su.summary_lines(run.rows, run.context, precisions=True)


def test_figures_from_the_run(synthetic):
    f = hl.gpu_figures(_lines(synthetic))
    assert f.kernel == pytest.approx({"a": 20.0, "b": 50.0, "c": 0.1, "d": 60.0})
    assert sorted(f.gpu_wins) == ["a", "b", "d"] and f.cpu_wins == ["c"]
    assert sorted(f.hardware) == pytest.approx([40.0, 40.0, 50.0])
    assert f.e2e == pytest.approx({"a": 0.5, "b": 2.5}) and f.e2e_slower == ["a"]


def test_headline_sentence(synthetic):
    assert hl.gpu_headline(_lines(synthetic), synthetic.context) == EXPECTED


def test_headline_opens_the_report(synthetic, tmp_path):
    markdown = render([synthetic.path], tmp_path / "out").markdown.read_text()
    lines = markdown.splitlines()
    assert lines[0] == "# twinbench report" and lines[2] == f"**{EXPECTED}**"
    html = (tmp_path / "out" / "report.html").read_text()
    assert "<p class='lead'>On Test GPU vs its Intel Xeon Gold 1234 host" in html


def test_a_workload_in_two_precisions_is_said(tmp_path):
    """sgemm's FP32 and BF16 pairs are two lines: the count says so, and end to end counts the
    workload once (its own precision)."""
    rows = [single("sgemm/openblas/n:4096/threads:16", 100.0), single("sgemm/cublas/n:4096", 2.0),
            single("sgemm/cublas/n:4096/mode:e2e", 5.0),
            single("sgemm/onednn_bf16/n:4096/threads:16", 40.0),
            single("sgemm/cublas_bf16/n:4096", 0.2),
            single("sgemm/cublas_bf16/n:4096/mode:e2e", 4.0)]
    run = load_run(write_run(tmp_path / "run.json", rows, {"gpu_name": "G", "cpu_model": "C"}))
    lines = _lines(run)
    f = hl.gpu_figures(lines)
    assert f.kernel == pytest.approx({"sgemm": 50.0, "sgemm bf16": 200.0})
    assert f.e2e == pytest.approx({"sgemm": 20.0})
    text = hl.gpu_headline(lines, run.context)
    assert text == ("On G vs its C host, GPU kernels are 50.0–200× faster like for like on 2 of 2 "
                    "workloads (median 125×; sgemm counted in FP32 and BF16). End to end with "
                    "the transfers, 0 of 1 workload are slower on the GPU.")


def test_no_gpu_win_and_no_pair(tmp_path):
    rows = [single("c/serial/n:10", 0.001), single("c/cuda/n:10/block:32/mode:kernel", 0.01)]
    run = load_run(write_run(tmp_path / "run.json", rows, {"gpu_name": "G", "cpu_model": "C"}))
    assert hl.gpu_headline(_lines(run), run.context) == (
        "On G vs its C host, no GPU kernel is faster than the CPU like for like (1 workload).")
    only_gpu = load_run(write_run(tmp_path / "gpu.json", [single("t/cuda/n:10", 1.0)]))
    assert hl.gpu_headline(_lines(only_gpu), only_gpu.context) is None


def test_plain_cpu_name():
    assert hl._plain("Intel(R) Xeon(R) Platinum 8480+ CPU @ 2.0GHz") == "Intel Xeon Platinum 8480+"
    assert hl._plain("AMD EPYC 9654 96-Core Processor") == "AMD EPYC 9654 96-Core Processor"
