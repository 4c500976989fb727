"""The summary that opens report.md: one row per workload, like-for-like speedups with their
intervals, the limiter read off the numbers, the crossover table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import DATA, single, write_run, markdown_tables
from summary_markdown import full_summary, narrow_summary
from twinbench.report import first_screen as fs
from twinbench.report import summary as sm
from twinbench.report.charts import CHARTS
from twinbench.report.loader import Row, load_run, parse_name, size_key_of, family_of
from twinbench.report.render import render

SPEEDUP_COLUMNS = ("OpenMP × serial", "GPU kernel × CPU", "GPU e2e × CPU",
                   "best vs best (any algorithm)")



def _summary(markdown: str, headers: list[str] = sm.SUMMARY_HEADERS
             ) -> dict[str, dict[str, str]]:
    """Every column of the summary (the first screen's table and each workload's detail)."""
    return full_summary(markdown, headers)


@pytest.fixture(scope="module")
def algorithms_report(tmp_path_factory):
    return render([DATA / "algorithms_run.json"], tmp_path_factory.mktemp("algorithms"))


@pytest.fixture(scope="module")
def cpu_only_report(tmp_path_factory):
    return render([DATA / "cpu_only_run.json"], tmp_path_factory.mktemp("cpu_only"))


def test_summary_is_the_first_table(gpu_report, algorithms_report):
    for report in (gpu_report, algorithms_report):
        markdown = report.markdown.read_text()
        assert markdown_tables(markdown)[0][0] == fs.NARROW_HEADERS
        # Right after the title, the headline and its chart; the method line after it.
        head = markdown[:markdown.index("| workload |")]
        assert head.index("# twinbench report") < head.index("**On ") < \
            head.index("](first-screen-speedup.png)") < \
            head.index("## Summary: how much faster, and why")
        assert "## Run context" not in head and "Source: " not in head
        assert markdown.index("| workload |") < markdown.index("Source: ") < \
            markdown.index("## Run context")


def test_every_workload_with_rows_has_a_summary_row(gpu_report, algorithms_report):
    for report, path in ((gpu_report, "gpu_run.json"), (algorithms_report, "algorithms_run.json")):
        workloads = {r.workload for r in load_run(DATA / path).ok_rows}
        assert set(_summary(report.markdown.read_text())) == workloads


def test_every_speedup_has_an_interval(algorithms_report):
    rows = _summary(algorithms_report.markdown.read_text())
    filled = 0
    for workload, cells in rows.items():
        for column in SPEEDUP_COLUMNS:
            if cells[column] == "–":
                continue
            filled += 1
            assert re.fullmatch(r"[\d.,]+× \([\d.,]+–[\d.,]+\)", cells[column]), \
                (workload, column, cells[column])
    assert filled >= 10


def test_interval_brackets_the_speedup(algorithms_report):
    cells = _summary(algorithms_report.markdown.read_text())["poisson"]
    # 400 ms serial / 40 ms omp, samples spread ±3 %.
    value, low, high = (float(v) for v in
                        re.fullmatch(r"([\d.]+)× \(([\d.]+)–([\d.]+)\)",
                                     cells["OpenMP × serial"]).groups())
    assert value == 10.0 and low < value < high and high / low < 1.2


def test_median_interval_is_distribution_free():
    assert sm.median_interval([1.0]) is None
    low, high, coverage = sm.median_interval([5.0, 1.0, 3.0, 2.0, 4.0])
    # Five samples reach at most 1 - 2/32 = 93.75 %: min..max.
    assert (low, high) == (1.0, 5.0) and coverage == pytest.approx(0.9375)
    low, high, coverage = sm.median_interval([float(i) for i in range(1, 101)])
    assert 38 <= low < 50.5 < high <= 63 and coverage >= 0.975


def test_few_samples_say_their_coverage():
    slow = Row("k/serial/n:1", "k", "serial", "serial", {}, (), None, 1.0,
               samples_s=[0.9, 0.95, 1.0, 1.05, 1.1])
    fast = Row("k/omp/n:1", "k", "omp", "omp", {}, (), None, 0.1,
               samples_s=[0.09, 0.095, 0.1, 0.105, 0.11])
    text = sm.speedup_of(slow, fast).text
    assert text == "10.0× (8.18–12.2; 88 %)"
    one = Row("k/omp/n:1", "k", "omp", "omp", {}, (), None, 0.1, samples_s=[0.1])
    assert sm.speedup_of(slow, one).text == "10.0× (no interval: 1 sample)"


# ----------------------------------------------------------------- like for like

def _problem(path: Path, workload: str, size: str) -> list[Row]:
    return [r for r in load_run(path).ok_rows if r.workload == workload
            and " ".join(r.size_key) == size]


def test_lucas_pairs_recursive_with_recursive_and_iterative_with_iterative():
    rows = _problem(DATA / "algorithms_run.json", "lucas", "n:30")
    groups = sm.like_for_like(rows)
    assert set(groups) == {"recursive", "iterative"}
    recursive, iterative = groups["recursive"], groups["iterative"]
    assert (recursive.serial.impl, recursive.omp.impl, recursive.gpu.impl) == \
        ("serial_recursive", "omp_recursive", "cuda_recursive")
    assert (iterative.serial.impl, iterative.omp, iterative.gpu.impl, iterative.e2e.impl) == \
        ("serial_iterative", None, "cuda_iterative", "cuda_iterative")


def test_poisson_pairs_article_with_article_and_fast_with_fast():
    rows = _problem(DATA / "algorithms_run.json", "poisson", "n:10000000")
    groups = sm.like_for_like(rows)
    assert set(groups) == {"article", ""}
    article, fast = groups["article"], groups[""]
    assert (article.serial.impl, article.omp.impl, article.gpu.impl) == \
        ("serial_article", "omp_article", "cuda_article")
    # cuda_curand is a GPU variant of the plain algorithm, slower than cuda.
    assert (fast.serial.impl, fast.omp.impl, fast.gpu.impl) == ("serial", "omp", "cuda")


def test_float32_meets_float32_and_best_vs_best_is_labelled(algorithms_report):
    names = sm.algorithms(["serial", "serial_fp32", "omp", "cuda", "cuda_naive", "thrust",
                           "cublas_tf32"])
    assert set(names.values()) == {""}
    cells = _summary(algorithms_report.markdown.read_text())["black_scholes"]
    assert cells["serial"] == "750 ms (serial_fp32)"     # not the float64 reference
    assert cells["GPU kernel"] == "50 µs (cuda block:256)"
    assert "best vs best (any algorithm)" in cells


def test_headline_shows_the_algorithm_measured_on_both_sides(algorithms_report):
    rows = _summary(algorithms_report.markdown.read_text())
    assert rows["lucas"]["size"] == "n:90" and rows["lucas"]["algorithm"] == "iterative"
    assert rows["poisson"]["algorithm"] == "plain"


def test_extension_words_belong_to_their_algorithm():
    names = sm.algorithms(["serial_aos", "omp_soa", "cuda_aos", "cuda_aos_vec", "cuda_soa",
                           "cuda_tiled64_diag"])
    assert names["cuda_aos_vec"] == "aos" and names["omp_soa"] == "soa"
    assert names["cuda_tiled64_diag"] == ""


# ----------------------------------------------------------------- limiters

CONTEXT = {"gpu_sms": "132", "gpu_roof_fp32_flops": "60e12", "cpu_roof_fp32_flops": "1e12",
           "cpu_roof_fp32_one_flops": "1e11"}


def _row(name: str, seconds: float, flop_per_s: float | None = None, **counters) -> Row:
    workload, impl, args = parse_name(name)
    return Row(name, workload, impl, family_of(impl), args, size_key_of(args), args.get("mode"),
               seconds, flop_per_s=flop_per_s, counters={k: float(v) for k, v in counters.items()})


def test_limiter_words_from_the_numbers():
    memory = _row("k/cuda/n:1/mode:kernel", 1e-3, pct_ceiling=92, ceiling_pattern=4,
                  grid_blocks=4096, low_occupancy=0)
    assert sm.gpu_limiter(memory, CONTEXT) == "memory bandwidth (92 % of add)"
    compute = _row("k/cublas/n:1/mode:kernel", 1e-3, flop_per_s=50e12, pct_ceiling=5,
                   ceiling_pattern=0)
    assert sm.gpu_limiter(compute, CONTEXT).startswith("compute (83 % of the measured FP32")
    launch = _row("k/cuda/n:1/mode:kernel", 4e-6, pct_ceiling=3, ceiling_pattern=2,
                  grid_blocks=1024, low_occupancy=0)
    assert sm.gpu_limiter(launch, CONTEXT).startswith("launch latency")
    launch_heavy = _row("k/cuda/n:1/mode:kernel", 50e-6, grid_blocks=1024,
                        launch_included_us=200)
    assert sm.gpu_limiter(launch_heavy, CONTEXT).startswith("launch latency")
    few = _row("k/cuda/n:1/mode:kernel", 1e-3, grid_blocks=100, low_occupancy=0)
    assert sm.gpu_limiter(few, CONTEXT) == "too few threads (100 blocks for 132 SMs)"
    # Low theoretical occupancy alone is no shortage of threads; under part of a wave is.
    low = _row("k/cuda/n:1/mode:kernel", 1e-3, grid_blocks=4096, low_occupancy=1)
    assert sm.gpu_limiter(low, CONTEXT) == "latency / other"
    part = _row("k/cuda/n:1/mode:kernel", 1e-3, grid_blocks=264, active_blocks_per_sm=8)
    assert sm.gpu_limiter(part, CONTEXT) == \
        "too few threads (264 blocks, 0.25 of a wave of 132 SMs × 8)"
    other = _row("k/cuda/n:1/mode:kernel", 1e-3, pct_ceiling=20, ceiling_pattern=0,
                 grid_blocks=4096, low_occupancy=0)
    assert sm.gpu_limiter(other, CONTEXT) == "latency / other"
    e2e = _row("k/cuda/n:1/mode:e2e", 20e-3)
    kernel = _row("k/cuda/n:1/mode:kernel", 1e-3)
    assert sm.e2e_limiter(e2e, kernel).startswith("PCIe transfers")
    assert sm.e2e_limiter(_row("k/cuda/n:1/mode:e2e", 1.2e-3), kernel) is None
    cpu = _row("k/omp/n:1/threads:16", 1e-3, flop_per_s=0.7e12)
    assert sm.cpu_limiter(cpu, CONTEXT).startswith("compute (70 %")
    # A few hundred bytes "above the memory ceiling" are latency, not cache bandwidth.
    tiny = _row("lucas/serial_iterative/n:90", 25e-9, pct_ceiling=447, ceiling_pattern=1,
                bytes_per_iter=728)
    assert sm.cpu_limiter(tiny, CONTEXT).startswith("latency (its model has no bytes to stream")
    big = _row("k/omp/n:1/threads:16", 1e-3, pct_ceiling=180, ceiling_pattern=5,
               bytes_per_iter=8 << 20)
    assert sm.cpu_limiter(big, CONTEXT).startswith("cache bandwidth (180 % of triad")


def test_limiter_column_in_the_report(algorithms_report):
    rows = _summary(algorithms_report.markdown.read_text())
    assert rows["black_scholes"]["limiter"].startswith("GPU: memory bandwidth (92 % of add)")
    assert "e2e: PCIe transfers" in rows["poisson"]["limiter"]
    assert rows["lucas"]["limiter"].startswith("GPU: too few threads")


# ----------------------------------------------------------------- crossover, CPU only

def test_crossover_only_with_several_sizes(algorithms_report, tmp_path):
    markdown = algorithms_report.markdown.read_text()
    crossover = markdown[markdown.index(f"### {sm.CROSSOVER_TITLE}"):]
    table = markdown_tables(crossover)[0]
    assert table[0] == ["workload", "sizes run", "GPU kernel faster from",
                        "GPU end to end faster from"]
    poisson = next(line for line in table if line[0] == "poisson")
    assert poisson[2] == "n=10,000,000 (the smallest run: faster at every size)"
    assert poisson[3] == "not faster at the largest size (n=100,000,000)"
    one_size = write_run(tmp_path / "one.json", [
        single("k/serial/n:1024", 2.0), single("k/cuda/n:1024/block:256/mode:kernel", 0.1),
        single("k/cuda/n:1024/block:256/mode:e2e", 1.0)])
    out = render([one_size], tmp_path / "out")
    text = out.markdown.read_text()
    assert "## Summary" in text and sm.CROSSOVER_TITLE not in text


def test_cpu_only_summary_has_cpu_columns_and_says_why(cpu_only_report):
    """A run without GPU rows: no empty GPU columns, and the reason first."""
    markdown = cpu_only_report.markdown.read_text()
    rows = _summary(markdown, sm.CPU_ONLY_HEADERS)
    assert rows and narrow_summary(markdown)[0] == fs.CPU_ONLY_NARROW_HEADERS
    for cells in rows.values():
        assert not any("GPU" in column for column in cells)
        assert cells["OpenMP × serial"] != "–"
        assert cells["% of limit CPU"] != "–"
    summary = markdown[:markdown.index("## Summary")]
    assert "No GPU in this run (gpu_status: not built: TWINBENCH_WITH_CUDA=OFF)" in summary


# ----------------------------------------------------------------- captions, left-out charts

def _visible_text(html: str) -> str:
    return re.sub(r"<[^>]+>", "\n", html)


def test_each_chart_caption_appears_once_in_html(gpu_report):
    text = _visible_text(gpu_report.html.read_text())
    for spec in CHARTS:
        caption = spec.title.replace("&", "&amp;").replace("'", "&#x27;")
        assert text.count(caption) == 1, spec.title


def test_left_out_charts_are_listed_once(cpu_only_report):
    markdown = cpu_only_report.markdown.read_text()
    reason = "no data in this run (no GPU in this run: the note at the top says why)"
    assert markdown.count(reason) == 1
    section = markdown[markdown.index("### Charts left out"):]
    assert section.splitlines()[2] == f"- occupancy, transfers, streams, progress, crossover: {reason}"
    # Not pasted into the body as paragraphs.
    assert "left out: no data" not in markdown
    html = _visible_text(cpu_only_report.html.read_text())
    assert html.count(reason) == 1
