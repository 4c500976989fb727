"""The first screen's table: the columns a reader compares, narrow in Markdown and
HTML, every other column of the full summary kept per workload (folded in HTML); the chart
under the headline: readable size, colours by limiter class."""

from __future__ import annotations

import re
import struct

import pytest

from conftest import DATA, REPO_ROOT, markdown_tables, write_run
from summary_markdown import detail_items, full_summary, narrow_summary
from test_headline import CONTEXT, ROWS
from twinbench.report import first_screen as fs
from twinbench.report import headline as hl
from twinbench.report import speedup_chart as sc
from twinbench.report import summary as su
from twinbench.report.loader import load_run
from twinbench.report.render import render

H200_RUN = REPO_ROOT / "results" / "nvidia-h200" / "2026-12-02b" / "run.json.gz"


@pytest.fixture(scope="module")
def synthetic_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("first_screen")
    path = write_run(out / "run.json", ROWS, CONTEXT)
    return load_run(path), render([path], out / "report")


def test_narrow_columns(synthetic_report):
    _, report = synthetic_report
    header, lines = narrow_summary(report.markdown.read_text())
    assert header == ["workload", "size", "best CPU", "best GPU kernel",
                      "GPU kernel × CPU (interval)", "CPU % of limit", "GPU % of limit", "limiter"]
    rows = {cells[0]: cells for cells in lines}
    assert rows["a"] == ["a", "n:1000", "10 ms omp", "500 µs cuda",
                         "20.0× (no interval: 1 sample)", "80 % of add", "95 % of add",
                         "GPU: memory bandwidth; e2e: PCIe transfers; CPU: memory bandwidth"]
    assert rows["c"][2:5] == ["1 µs serial", "10 µs cuda", "0.1× (no interval: 1 sample)"]
    assert rows["c"][5:7] == ["–", "–"]


def test_every_other_column_is_in_the_detail(synthetic_report):
    run, report = synthetic_report
    markdown = report.markdown.read_text()
    full = su.summary_table(run.rows, run.context)
    shown = full_summary(markdown, full.headers)
    for cells in full.rows:
        assert [shown[cells[0]][h] for h in full.headers] == cells
    # Block sizes and threads, gone from the narrow table, are in the detail.
    titles = dict(detail_items(markdown))
    assert titles["a, n:1000"]["GPU kernel"] == "500 µs (cuda block:256)"
    assert titles["a, n:1000"]["OpenMP"] == "10 ms (omp threads:16)"


def test_html_folds_the_detail_and_wraps_the_table(synthetic_report):
    run, report = synthetic_report
    html = report.html.read_text()
    lines = su.summary_lines(run.rows, run.context, precisions=True)
    assert html.count("<details>") == len(lines)  # closed: no "open" attribute
    assert "<div class='fit'><table class='fit'><thead><tr><th>workload</th>" in html
    # The first table of the page is the narrow one, after the headline and the chart.
    assert html.index("<p class='lead'>") < html.index("<img alt='" + sc.TITLE) \
        < html.index("<table")


def test_limiter_words_and_classes():
    sides = {"GPU": "memory bandwidth (95 % of add)", "e2e": "PCIe transfers (e2e 78.1× the kernel)",
             "CPU": "unknown: the CPU ceiling is suspect (138 % of read; all threads < one)"}
    assert [sc.limiter_class(sides[k]) for k in sides] == [sc.MEMORY, sc.TRANSFER, sc.LATENCY]
    assert sc.without_brackets(sides["GPU"]) == "memory bandwidth"
    for words, cls in (("compute (84 % of the measured FP32 roof)", sc.COMPUTE),
                       ("cache bandwidth (300 % of add: above the memory ceiling)", sc.MEMORY),
                       ("launch latency (kernel 3 µs)", sc.LAUNCH),
                       ("too few threads (low occupancy)", sc.LATENCY),
                       ("latency / other", sc.LATENCY), ("", sc.LATENCY),
                       # Nsight Compute's words (twinbench/report/ncu.py): the class before the colon.
                       ("DRAM bandwidth (ncu: 93 % of peak)", sc.MEMORY),
                       ("compute: FP32 pipe (ncu: SM 80 %, FP32 70 % of peak)", sc.COMPUTE),
                       ("latency: memory bandwidth-like stalls (ncu: SM 10 %)", sc.LATENCY),
                       ("too few threads: 1 block, 0.01 of a wave (ncu: occupancy 3 %)",
                        sc.LATENCY),
                       ("latency / other (not profiled: ncu not installed)", sc.LATENCY)):
        assert sc.limiter_class(words) == cls, words


def _png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", png[16:24])


def test_chart_fits_a_laptop_screen_with_large_labels(synthetic_report):
    run, report = synthetic_report
    png = (report.out_dir / sc.FILENAME).read_bytes()
    assert report.out_dir / sc.FILENAME in report.charts
    width, height = _png_size(png)
    assert 900 <= width <= 1300 and height <= 560
    fig = sc.speedup_chart(su.summary_lines(run.rows, run.context, precisions=True))
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c", "d"]
    assert min(t.get_fontsize() for t in ax.get_yticklabels() + ax.get_xticklabels()) >= 11
    assert ax.get_xscale() == "log"
    low, high = ax.get_xlim()
    assert low < 0.1 and high > 60     # every speedup and the 1× line inside


def test_chart_marks_are_coloured_by_limiter(synthetic_report):
    run, _ = synthetic_report
    lines = su.summary_lines(run.rows, run.context, precisions=True)
    fig = sc.speedup_chart(lines)
    colours = {tuple(round(v, 3) for v in c.get_facecolors()[0][:3])
               for c in fig.axes[0].collections if len(c.get_offsets())}
    from matplotlib.colors import to_rgb
    expected = {tuple(round(v, 3) for v in to_rgb(sc.CLASS_COLORS[k]))
                for k in (sc.MEMORY, sc.TRANSFER, sc.LATENCY)}
    assert colours == expected   # a, b, d memory; their e2e transfers; c latency


def test_h200_chart_and_table_sizes():
    """The committed H200 run: the chart stays within the first screen's budget and no narrow
    cell is long enough to force a wide table."""
    if not H200_RUN.is_file():
        pytest.skip("the committed H200 run is not in this checkout")
    run = load_run(H200_RUN)
    lines = su.summary_lines(run.rows, run.context, precisions=True)
    image, _ = fs.chart_block(lines, run.context, True, None)
    width, height = _png_size(bytes(image.png))
    assert width <= 1300 and height <= 560, (width, height)
    table = fs.narrow_table(lines)
    longest = max(len(c) for row in table.rows for c in row)
    assert longest <= 70, longest
    assert re.search(r"\d+ of \d+ workloads \(median", hl.gpu_headline(lines, run.context))


def test_cpu_only_first_screen(tmp_path):
    markdown = render([DATA / "cpu_only_run.json"], tmp_path / "out").markdown.read_text()
    header, lines = narrow_summary(markdown)
    assert header == fs.CPU_ONLY_NARROW_HEADERS and lines
    # This machine's figures are the headline, the chart under them, then the table.
    lead = next(line for line in markdown.splitlines() if line.startswith("**This machine ("))
    assert "OpenMP × serial median" in lead
    assert markdown.index(lead) < markdown.index(f"]({sc.CPU_FILENAME})") < \
        markdown.index("| workload |")
    assert (tmp_path / "out" / sc.CPU_FILENAME).is_file()
    assert markdown_tables(markdown)[0][0] == fs.CPU_ONLY_NARROW_HEADERS


def test_cpu_chart_leaves_out_a_suspect_thread_ratio():
    """All threads measured below one thread (a busy machine): no ratio, not a 0.86× one."""
    run = load_run(DATA / "cpu_side_cpu_only_run.json")
    lines = {line.workload: line for line in su.summary_lines(run.rows, run.context)}
    assert sc.thread_ratio(lines["vector_add"], run.context) is None    # add: suspect
    assert sc.thread_ratio(lines["sgemm"], run.context) == pytest.approx(16.0, rel=0.01)
    assert sc.cpu_chart(list(lines.values()), run.context) is not None
