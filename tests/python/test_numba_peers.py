"""The articles' Numba code beside the C++: numba_cuda*/numba_cpu* rows appended to a
run by peers/numba/ get their own summary column, section, table and chart, and change nothing
the report says about the C++ (pairing, best-of choices, crossover, charts)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from conftest import DATA, markdown_tables, single, write_run
from summary_markdown import full_summary
from twinbench.report import first_screen as fs
from twinbench.report import pairing
from twinbench.report import analysis as an
from twinbench.report import charts
from twinbench.report import summary as sm
from twinbench.report.compare import compare
from twinbench.report.loader import family_of, load_run, parse_name
from twinbench.report.peers import (CHART_FILENAME, SECTION_TITLE, TABLE_HEADERS, chart_numba,
                           numba_points, numba_status_note)
from twinbench.report.render import render

NUMBA_CONTEXT = {"numba_version": "0.61.2", "numba_cuda_version": "0.15.1",
                 "numba_peers": "ran"}

# (C++ row to copy, the Numba impl it becomes, time factor). Factors are round so the ratios
# the report prints are known: the copy of the fastest C++ CUDA kernel at 2.5x its time reads
# "2.50x" (the C++ is 2.5 times faster). Each copy is labelled as peers/numba/ labels its rows,
# "numba peer of <workload>/<the C++ impl copied>", but for the workloads in UNLABELLED.
NUMBA_COPIES = (
    # black_scholes: the fastest C++ CUDA kernel is cuda (block:256, kernel); "naive" and
    # "fp32" are words C++ impls use too (cuda_naive, serial_fp32): Numba must not turn them
    # into algorithms of the C++ pairing.
    ("black_scholes/cuda/n:10000000/block:256/mode:kernel/manual_time", "numba_cuda", 2.5),
    ("black_scholes/cuda_naive/n:10000000/block:256/mode:kernel/manual_time",
     "numba_cuda_naive", 4.0),
    ("black_scholes/cuda/n:10000000/block:256/mode:e2e/manual_time", "numba_cuda", 1.25),
    ("black_scholes/omp/n:10000000/threads:16/real_time", "numba_cpu", 0.8),
    ("black_scholes/serial_fp32/n:10000000/real_time", "numba_cpu_fp32", 0.5),
    # poisson at both sizes: the table takes the larger.
    ("poisson/cuda/n:10000000/block:256/mode:kernel/manual_time", "numba_cuda", 3.0),
    ("poisson/cuda/n:100000000/block:256/mode:kernel/manual_time", "numba_cuda", 3.0),
    ("poisson/cuda/n:100000000/block:256/mode:e2e/manual_time", "numba_cuda", 1.1),
    # The articles' own end to end (pageable NumPy arrays) and the serial @njit: slower.
    ("poisson/cuda/n:100000000/block:256/mode:e2e/manual_time", "numba_cuda_pageable", 1.6),
    ("poisson/omp/n:100000000/threads:16/real_time", "numba_cpu", 1.5),
    ("poisson/serial/n:100000000/real_time", "numba_cpu_serial", 1.2),
    # dot: Numba CPU only (no Numba CUDA kernel: the summary cell stays empty).
    ("dot/omp/n:67108864/threads:16/real_time", "numba_cpu", 2.0),
    # matmul: the largest size is 1024; a second kernel at 1024 only.
    ("matmul/cuda_tiled/n:512/block:16x16/mode:kernel/manual_time", "numba_cuda", 2.0),
    ("matmul/cuda_tiled/n:1024/block:16x16/mode:kernel/manual_time", "numba_cuda", 2.0),
    ("matmul/cuda_tiled/n:1024/block:16x16/mode:kernel/manual_time", "numba_cuda_shared", 1.5),
    ("matmul/cuda_tiled/n:1024/block:16x16/mode:e2e/manual_time", "numba_cuda", 1.2),
    # transfers, a GPU-only workload: a Numba copy is still no C++ row.
    ("transfers/pinned/dir:h2d/bytes:268435456/manual_time", "numba_cuda", 1.5),
    ("transfers/pinned/dir:d2h/bytes:268435456/manual_time", "numba_cuda", 1.5),
    ("transfers/pageable/dir:d2h/bytes:268435456/manual_time", "numba_cuda_pageable", 1.0),
    # vector_add: the Numba kernel is faster than the C++ one (ratio below 1).
    ("vector_add/cuda/n:268435456/block:256/mode:kernel/manual_time", "numba_cuda", 0.5),
)
# Without the label: set beside the fastest hand-written C++ CUDA row (transfers' pinned).
UNLABELLED = frozenset({"transfers"})

_TIMES = ("real_time", "cpu_time", "median_s", "min_s", "max_s", "energy_per_iter_j",
          "energy_per_item_j")
_RATES = ("items_per_second", "bytes_per_second", "flop_per_s")


def _renamed(text: str, impl: str) -> str:
    workload, _old, rest = text.split("/", 2)
    return f"{workload}/{impl}/{rest}"


def numba_entries(benchmarks: list[dict], name: str, impl: str, factor: float) -> list[dict]:
    """Every entry of the C++ benchmark `name` (iterations and aggregates) as the Numba row
    `impl` would write it, `factor` times the time."""
    workload, cpp_impl = name.split("/")[:2]
    out = []
    for entry in benchmarks:
        if entry.get("run_name", entry["name"]) != name:
            continue
        new = copy.deepcopy(entry)
        new["name"] = _renamed(entry["name"], impl)
        new["run_name"] = _renamed(entry.get("run_name", entry["name"]), impl)
        for key in _TIMES:
            if isinstance(new.get(key), (int, float)):
                new[key] *= factor
        for key in _RATES:
            if isinstance(new.get(key), (int, float)):
                new[key] /= factor
        if new.get("samples_s"):
            new["samples_s"] = [s * factor for s in new["samples_s"]]
        for key in ("suggested_block", "launch_gated", "launch_included_us"):
            new.pop(key, None)
        if workload not in UNLABELLED:
            new["label"] = f"numba peer of {workload}/{cpp_impl}"
        out.append(new)
    assert out, f"no entry named {name} in the samples"
    return out


SAMPLES = ("gpu_run.json", "algorithms_run.json")


def base_document(samples=SAMPLES) -> dict:
    """The committed samples in one run (the first one's context)."""
    docs = [json.loads((DATA / name).read_text()) for name in samples]
    return {"context": docs[0]["context"], "benchmarks": [e for d in docs for e in d["benchmarks"]]}


def numba_document(copies=NUMBA_COPIES, context: dict | None = None, samples=SAMPLES) -> dict:
    doc = base_document(samples)
    names = {e.get("run_name", e["name"]) for e in doc["benchmarks"]}
    added = [e for name, impl, factor in copies if name in names
             for e in numba_entries(doc["benchmarks"], name, impl, factor)]
    # A Numba row that failed validation: listed with the skipped, set beside nothing.
    added.append({"name": "lucas/numba_cuda/n:30/block:64/mode:kernel/manual_time",
                  "run_name": "lucas/numba_cuda/n:30/block:64/mode:kernel/manual_time",
                  "run_type": "iteration", "repetitions": 1, "repetition_index": 0,
                  "threads": 1, "iterations": 0, "real_time": 0, "cpu_time": 0,
                  "time_unit": "ns", "error_occurred": True,
                  "error_message": "validation failed: max rel err 1.0e+00"})
    doc["benchmarks"] = doc["benchmarks"] + added
    doc["context"] = {**doc["context"], **NUMBA_CONTEXT, **(context or {})}
    return doc


def _write(path: Path, doc: dict) -> Path:
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture(scope="module")
def base_path(tmp_path_factory) -> Path:
    return _write(tmp_path_factory.mktemp("base") / "base.json", base_document())


@pytest.fixture(scope="module")
def numba_path(tmp_path_factory) -> Path:
    return _write(tmp_path_factory.mktemp("numba") / "numba.json", numba_document())


@pytest.fixture(scope="module")
def base_run(base_path):
    return load_run(base_path)


@pytest.fixture(scope="module")
def numba_run(numba_path):
    return load_run(numba_path)


@pytest.fixture(scope="module")
def numba_report(numba_path, tmp_path_factory):
    return render([numba_path], tmp_path_factory.mktemp("numba_report"))


def _summary(markdown: str) -> tuple[list[str], dict[str, dict[str, str]]]:
    """The full summary's columns (the first screen's table and each workload's detail): with
    the Numba column when a detail has a Numba cell."""
    header = sm.summary_headers(numba=True)
    return header, full_summary(markdown, header)


# ----------------------------------------------------------------- loader

@pytest.mark.parametrize("impl,family,gpu", [
    ("numba_cuda", "numba_cuda", True), ("numba_cuda_coalesced", "numba_cuda", True),
    ("numba_cuda_shared", "numba_cuda", True), ("numba_cpu", "numba_cpu", False),
    ("numba_cpu_serial", "numba_cpu", False), ("numba_cudafoo", "other", False)])
def test_numba_families(impl, family, gpu):
    assert family_of(impl) == family
    workload, _, args = parse_name(f"vector_add/{impl}/n:1024/mode:kernel")
    row = sm.Row(f"vector_add/{impl}/n:1024", workload, impl, family, args, ("n:1024",),
                 "kernel", 1e-3)
    assert row.is_gpu is gpu
    assert row.is_peer is (family != "other")
    # Not C++: no category, no side of any C++ pairing.
    assert row.kind is None and row.pair_side is None


def test_numba_cpu_in_a_gpu_only_workload_is_not_gpu(numba_run):
    by_name = {r.name: r for r in numba_run.rows}
    assert by_name["transfers/numba_cuda/dir:h2d/bytes:268435456"].is_gpu
    row = sm.Row("transfers/numba_cpu/dir:h2d/bytes:1", "transfers", "numba_cpu", "numba_cpu",
                 {"dir": "h2d", "bytes": "1"}, ("dir:h2d", "bytes:1"), None, 1e-3)
    assert not row.is_gpu


# ----------------------------------------------------------------- C++ results unchanged

def _line_key(line: sm.SummaryLine) -> tuple:
    best = line.best
    names = tuple(r.name if r else None for r in (best.serial, best.omp, best.gpu, best.e2e,
                                                   line.any_cpu, line.any_gpu))
    return line.workload, line.size_key, best.algorithm, names, line.limiter


def test_numba_rows_change_no_cpp_pairing(base_run, numba_run):
    base = sm.summary_lines(base_run.rows, base_run.context)
    with_numba = sm.summary_lines(numba_run.rows, numba_run.context)
    assert [_line_key(line) for line in with_numba] == [_line_key(line) for line in base]
    # The words Numba impls share with C++ impls (naive, fp32) name no algorithm.
    impls = {r.impl for r in numba_run.rows if r.workload == "black_scholes"}
    assert sm.algorithms(impls) == sm.algorithms({i for i in impls if "numba" not in i})
    assert sm.algorithms(impls)["cuda_naive"] == ""


def test_numba_rows_change_no_crossover_or_cpu_gpu_pair(base_run, numba_run):
    def tables(run):
        crossover = sm.crossover_table(run.rows)
        return (crossover.rows if crossover else None, charts.crossover_series(run.rows),
                sm.kernel_series(run.rows),
                [(p.workload, p.size_key, p.cpu.name, p.gpu.name,
                  p.gpu_e2e.name if p.gpu_e2e else None) for p in pairing.cpu_gpu_pairs(run.rows)])
    assert tables(numba_run) == tables(base_run)
    assert sm.crossover_table(numba_run.rows) is not None


def test_numba_rows_stay_out_of_the_cpp_charts(base_run, numba_run):
    comparisons = pairing.speedup_comparisons(numba_run.rows)
    assert comparisons and not any(c.row.is_peer or c.baseline.is_peer for c in comparisons)
    assert [(c.label, c.kind, c.row.name) for c in comparisons] == \
        [(c.label, c.kind, c.row.name) for c in pairing.speedup_comparisons(base_run.rows)]
    points = [r for members in charts._points_by_panel(numba_run.rows).values() for r in members]
    assert points and not any(r.is_peer for r in points)
    assert not any(r.is_peer for members in charts.ceiling_rows(numba_run.rows,
                                                                  numba_run.context).values()
                   for r in members)
    assert not any("numba" in key[1] for key in charts._block_sweeps(numba_run.rows))


def test_cpp_columns_of_the_summary_unchanged(base_run, numba_run, numba_report):
    base = sm.summary_table(base_run.rows, base_run.context)
    assert base.headers == sm.SUMMARY_HEADERS
    header, rows = _summary(numba_report.markdown.read_text())
    assert header == sm.summary_headers(numba=True)
    assert header.index(sm.NUMBA_HEADER) == header.index("best vs best (any algorithm)") + 1
    assert sorted(rows) == [cells[0] for cells in base.rows]
    for cells in base.rows:
        shown = rows[cells[0]]
        assert [shown[k] for k in base.headers] == [c.replace("\n", " ") for c in cells]


# ----------------------------------------------------------------- the summary column

def test_numba_column_has_the_ratio_and_its_interval(numba_report):
    _, rows = _summary(numba_report.markdown.read_text())
    cell = rows["black_scholes"][sm.NUMBA_HEADER]
    match = re.fullmatch(r"(\S+ \S+) \(numba_cuda block:256\); C\+\+ cuda: "
                         r"([\d.]+)× \(([\d.]+)–([\d.]+)\)", cell)
    assert match, cell
    value, low, high = (float(v) for v in match.groups()[1:])
    assert value == 2.5 and low < 2.5 < high
    # Numba faster than the C++: below 1.
    assert rows["vector_add"][sm.NUMBA_HEADER].endswith("C++ cuda: 0.50× (no interval: 1 sample)")
    # Unlabelled: beside the fastest C++ copy (pinned), not the pageable one at 1.0x.
    assert rows["transfers"][sm.NUMBA_HEADER] == \
        "7.34 ms (numba_cuda); C++ pinned: 1.50× (no interval: 1 sample)"


def test_numba_row_meets_the_cpp_impl_its_label_names(tmp_path):
    """lucas: the Numba kernel is the recursive one; beside the C++ iterative kernel its ratio
    would measure the algorithm, not the language."""
    def numba(name, ms, mirrors=None):
        entry = single(name, ms)
        return dict(entry, label=f"numba peer of lucas/{mirrors}") if mirrors else entry
    base = [single("lucas/serial_recursive/n:30", 50.0), single("lucas/serial_iterative/n:30", 1e-4),
            single("lucas/omp_recursive/n:30/threads:16", 5.0),
            single("lucas/cuda_iterative/n:30/block:64/mode:kernel", 1e-3),
            single("lucas/cuda_recursive/n:30/block:64/mode:kernel", 0.1),
            single("lucas/cuda_recursive/n:30/block:64/mode:e2e", 0.2)]
    labelled = load_run(write_run(tmp_path / "labelled.json", base + [
        numba("lucas/numba_cuda/n:30/block:64/mode:kernel", 0.2, "cuda_recursive"),
        numba("lucas/numba_cuda/n:30/block:64/mode:e2e", 0.3, "cuda_recursive"),
        numba("lucas/numba_cpu_serial/n:30", 60.0, "serial_recursive")]))
    beside = sm.beside_numba(labelled.rows)
    assert beside.numba_cuda.mirrors == "cuda_recursive"
    assert beside.cuda.impl == "cuda_recursive" and beside.kernel_ratio.value == pytest.approx(2)
    assert beside.cuda_e2e.mode == "e2e" and beside.e2e_ratio.value == pytest.approx(1.5)
    assert beside.omp.impl == "serial_recursive" and beside.cpu_ratio.value == pytest.approx(1.2)
    unlabelled = load_run(write_run(tmp_path / "unlabelled.json", base + [
        numba("lucas/numba_cuda/n:30/block:64/mode:kernel", 0.2)]))
    beside = sm.beside_numba(unlabelled.rows)
    assert beside.numba_cuda.mirrors is None
    assert beside.cuda.impl == "cuda_iterative" and beside.kernel_ratio.value == pytest.approx(200)
    # A label naming an impl with no row at this size sets nothing beside it.
    orphan = load_run(write_run(tmp_path / "orphan.json", base + [
        numba("lucas/numba_cuda/n:30/block:64/mode:kernel", 0.2, "cuda_gone")]))
    assert sm.beside_numba(orphan.rows).cuda is None


def test_numba_column_dash_without_a_numba_kernel(numba_report):
    _, rows = _summary(numba_report.markdown.read_text())
    assert rows["dot"][sm.NUMBA_HEADER] == "–"        # Numba CPU only
    assert rows["lucas"][sm.NUMBA_HEADER] == "–"      # its Numba row failed
    assert rows["grayscale"][sm.NUMBA_HEADER] == "–"  # no Numba row at all


def test_numba_column_explained_under_the_table(numba_report):
    markdown = numba_report.markdown.read_text()
    summary = markdown[markdown.index("## Summary"):markdown.index(f"## {SECTION_TITLE}")]
    assert sm.NUMBA_COLUMN_TEXT in summary


# ----------------------------------------------------------------- the section

def test_section_table_at_the_largest_common_size(numba_report):
    markdown = numba_report.markdown.read_text()
    section = markdown[markdown.index(f"## {SECTION_TITLE}"):markdown.index("## Run context")]
    header, *lines = markdown_tables(section)[0]
    assert header == TABLE_HEADERS
    by = {(cells[0], cells[1]): dict(zip(header, cells)) for cells in lines}
    matmul = by[("matmul", "n:1024")]
    # The fastest Numba kernel at 1024 is the shared one (1.5x the tiled C++ kernel).
    assert "(numba_cuda_shared block:16x16)" in matmul["Numba CUDA kernel"]
    assert matmul["C++ × Numba, CUDA kernel"].startswith("1.50×")
    assert matmul["C++ × Numba, CUDA e2e"].startswith("1.20×")
    assert matmul["Numba CPU"] == "–" and matmul["C++ × Numba, CUDA e2e"] != "–"
    poisson = by[("poisson", "n:100000000")]
    assert poisson["C++ × Numba, CUDA kernel"].startswith("3.00× (")
    assert poisson["C++ OpenMP × Numba CPU"].startswith("1.50× (")
    black_scholes = by[("black_scholes", "n:10000000")]
    assert black_scholes["C++ OpenMP × Numba CPU"].startswith("0.80× (")
    assert "numba_cpu" in black_scholes["Numba CPU"]
    assert poisson["Numba CUDA e2e"].endswith("(numba_cuda block:256)")
    assert poisson["Numba CPU"].endswith("(numba_cpu threads:16)")
    assert ("dot", "n:67108864") in by and by[("dot", "n:67108864")]["Numba CUDA kernel"] == "–"
    assert {("transfers", "dir:d2h bytes:268435456"),
            ("transfers", "dir:h2d bytes:268435456")} <= set(by)
    assert not any(workload in ("lucas", "grayscale") for workload, _ in by)
    assert "numba 0.61.2, numba-cuda 0.15.1" in section


def test_chart_written_only_with_numba_rows(numba_report, gpu_report):
    chart = numba_report.out_dir / CHART_FILENAME
    assert chart.is_file() and chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert chart in numba_report.charts
    assert f"]({CHART_FILENAME})" in numba_report.markdown.read_text()
    html = numba_report.html.read_text()
    assert SECTION_TITLE.replace("'", "&#x27;") in html and html.count("data:image/png") == \
        len(numba_report.charts)
    # The GPU sample has no Numba rows: no chart, no section, no column.
    assert not (gpu_report.out_dir / CHART_FILENAME).exists()
    assert chart_numba(numba_points(load_run(DATA / "gpu_run.json").rows)) is None
    markdown = gpu_report.markdown.read_text()
    assert SECTION_TITLE not in markdown and sm.NUMBA_HEADER not in markdown


def test_chart_panels_and_labels(numba_run):
    points = numba_points(numba_run.rows)
    figure = chart_numba(points)
    kernel, e2e = [ax for ax in figure.axes if ax.get_visible()]
    assert kernel.get_xscale() == "log" and "kernel only" in kernel.get_title(loc="left")
    assert "end to end" in e2e.get_title(loc="left")
    labels = [t.get_text() for t in kernel.get_yticklabels()]
    assert "matmul\nn:1024" in labels and "black_scholes\nn:10000000" in labels
    assert len(kernel.patches) == sum(
        getattr(p.beside, a) is not None for p in points
        for a in ("cuda", "numba_cuda", "numba_cpu", "omp"))
    assert chart_numba([]) is None


def test_numba_row_meets_the_cpp_row_of_the_same_strategy(tmp_path):
    """progress' strategy changes what is measured: the Numba kernel with the article's
    counter is set beside the C++ kernel with the same counter, not the one without."""
    name = "progress/{}/target:poisson/strategy:{}/counter:device/n:1000/block:256"
    path = write_run(tmp_path / "run.json", [
        dict(single(name.format("cuda", "none"), 1.0), overhead_pct=0.0),
        dict(single(name.format("cuda", "per_thread"), 3.0), overhead_pct=200.0),
        dict(single(name.format("numba_cuda", "per_thread"), 6.0), overhead_pct=500.0)])
    run = load_run(path)
    beside = sm.beside_numba(run.rows)
    assert beside.cuda.args["strategy"] == "per_thread"
    assert beside.kernel_ratio.value == pytest.approx(2.0)
    # The progress chart is about the C++ strategies: the Numba row is no bar of it.
    figure = charts.chart_progress(run.rows)
    heights = sorted(round(p.get_height()) for ax in figure.axes for p in ax.patches)
    assert heights == [200]


# ----------------------------------------------------------------- without Numba rows

@pytest.mark.parametrize("status,said", [
    ("skipped: numba is not installed (No module named 'numba')",
     "numba is not installed (No module named 'numba')"),
    ("skipped", "no reason recorded"),
    ("ran", None), (None, None)])
def test_skipped_line(status, said, tmp_path):
    context = {} if status is None else {"numba_peers": status}
    path = write_run(tmp_path / "run.json", [
        single("k/serial/n:1024", 2.0), single("k/omp/n:1024/threads:16", 0.5),
        single("k/cuda/n:1024/block:256/mode:kernel", 0.1)], context)
    markdown = render([path], tmp_path / "out").markdown.read_text()
    line = "The articles' Numba code (peers/numba/) was not run beside the C++"
    if said is None:
        assert line not in markdown
    else:
        assert markdown.count(line) == 1 and f"{line}: {said}." in markdown
        assert numba_status_note(context) == f"{line}: {said}."
    # Otherwise the report is as before: no column, no section, no chart.
    assert markdown_tables(markdown)[0][0] == fs.NARROW_HEADERS
    assert sm.NUMBA_HEADER not in markdown
    assert SECTION_TITLE not in markdown
    assert not (tmp_path / "out" / CHART_FILENAME).exists()


def test_only_failed_numba_rows_say_so(tmp_path):
    path = write_run(tmp_path / "run.json", [
        single("k/serial/n:1024", 2.0), single("k/cuda/n:1024/block:256/mode:kernel", 0.1),
        dict(single("k/numba_cuda/n:1024/block:256/mode:kernel", 0.0), error_occurred=True,
             error_message="numba: CUDA_ERROR_NO_DEVICE")])
    out = render([path], tmp_path / "out")
    markdown = out.markdown.read_text()
    assert f"## {SECTION_TITLE}" in markdown and "No Numba row of this run" in markdown
    assert not (tmp_path / "out" / CHART_FILENAME).exists()
    assert _summary(markdown)[1]["k"][sm.NUMBA_HEADER] == "–"


# ----------------------------------------------------------------- compare

def test_compare_with_numba_rows(tmp_path):
    """Numba rows compare by name like any row (the algorithms sample keeps it quick)."""
    samples = ("algorithms_run.json",)
    a_path = _write(tmp_path / "a.json", numba_document(samples=samples))
    # 1.6x: beyond every row kind's practical threshold in compare (CPU parallel rows: ±45 %).
    slower = numba_document(tuple((n, i, f * 1.6) for n, i, f in NUMBA_COPIES), samples=samples)
    b_path = _write(tmp_path / "b.json", slower)
    result = compare(a_path, b_path, tmp_path / "ab")
    numba = [c for c in result.comparisons if "/numba_" in c.name]
    assert len(numba) == len({_renamed(n, i) for n, i, _ in NUMBA_COPIES
                              if n.startswith(("black_scholes/", "poisson/"))})
    assert all(c.ratio == pytest.approx(1.6) for c in numba)
    assert all(c.verdict == "slower" for c in numba if len(c.a.samples_s) >= 4)
    # Against a run without them: listed as only in B, the C++ rows compared as before.
    base_path = _write(tmp_path / "base.json", base_document(samples))
    result = compare(base_path, a_path, tmp_path / "base_b")
    text = result.markdown.read_text()
    assert "Only in B" in text and "numba_cuda" in text
    assert not any("/numba_" in c.name for c in result.comparisons)
    assert len(result.comparisons) == len(load_run(base_path).ok_rows)
