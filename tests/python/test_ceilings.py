"""Per-pattern ceilings, measured roofs and the roofline: the current schema and the fallbacks
for files written before it (pct_copy_bw, one device copy bandwidth, a datasheet peak)."""

from __future__ import annotations

import pytest

from conftest import single, write_run
from twinbench.report import ceilings as ce
from twinbench.report.charts import chart_ceiling, chart_roofline, roofline_flags
from twinbench.report.loader import load_run
from twinbench.report.render import render
from twinbench.report.tables import ceilings_table, roofs_note, roofs_table

import make_samples as samples



@pytest.fixture(scope="module")
def old_run(data_dir):
    return load_run(data_dir / "old_format_run.json")


def _row(run, name):
    return next(r for r in run.rows if r.name == name)


def _labels(ax) -> list[str]:
    return [line.get_label() for line in ax.get_lines()]


# ----------------------------------------------------------------- a row's ceiling

@pytest.mark.parametrize("name,text,ceiling", [
    # GPU kernel rows: the GPU set. dot only reads: read; vector_add reads 2 per 1 written: add.
    ("dot/cuda/n:67108864/block:256/mode:kernel", "64.8 % of read", 4.6e12),
    ("vector_add/cuda/n:268435456/block:256/mode:kernel", "92.6 % of add", 4.35e12),
    # serial rows: the one-thread set; omp rows: the all-thread set.
    ("dot/serial/n:67108864", "67.1 % of read", 20e9),
    ("dot/omp/n:67108864/threads:16", "44.7 % of read", 240e9),
    # grayscale reads 3 bytes per 1 written (0.75): add (2/3) is nearer than read (1).
    ("grayscale/omp/w:3840/h:2160/threads:16", "16.6 % of add", 200e9),
])
def test_row_ceiling_names_its_pattern(gpu_run, name, text, ceiling):
    got = ce.row_ceiling(_row(gpu_run, name))
    assert got.text == text
    assert got.bytes_per_s == ceiling


def test_sample_pct_ceiling_is_bytes_over_time_over_ceiling(gpu_run):
    # Rows held to a bandwidth: a row whose limit is its roof has its % of that in pct_ceiling.
    held = [r for r in gpu_run.ok_rows if r.counter("pct_ceiling") is not None
            and r.fields.get("limit_kind") == "bandwidth"]
    assert len(held) > 30
    for row in held:
        ceiling = row.counter("ceiling_bytes_per_s")
        expected = 100 * row.counter("bytes_per_iter") / row.time_s / ceiling
        assert row.counter("pct_ceiling") == pytest.approx(expected, rel=1e-6), row.name


def test_e2e_rows_have_no_ceiling(gpu_run):
    e2e = [r for r in gpu_run.ok_rows if r.mode == "e2e"]
    assert e2e and all(ce.row_ceiling(r) is None for r in e2e)


def test_choose_ceiling_in_the_samples_matches_the_suite_rule():
    # Same mix as copy and scale (1:1), equal speed: either; a mix between two: the nearer.
    assert samples.choose_ceiling(samples.GPU_BW, 12, 8) == "add"      # 0.6: nearer 2/3 than 1/2
    assert samples.choose_ceiling(samples.GPU_BW, 1, 0) == "read"
    assert samples.choose_ceiling(samples.GPU_BW, 0, 1) == "write"
    # add and triad share a mix: the faster one (add, 4350 GB/s) is the ceiling.
    assert samples.choose_ceiling(samples.GPU_BW, 2, 1) == "add"


def test_old_files_fall_back_to_pct_copy_bw(old_run, data_dir):
    row = _row(old_run, "vector_add/cuda/n:268435456/block:256/mode:kernel")
    assert ce.row_ceiling(row).text == "100.7 % of device copy"
    real = load_run(data_dir / "h200_trimmed.json")
    dot = _row(real, "dot/cuda/n:268435456/block:256/mode:kernel")
    assert ce.row_ceiling(dot).text == "107.7 % of device copy"


def test_pct_ceiling_wins_over_pct_copy_bw_and_an_unknown_pattern_is_said(tmp_path):
    entry = dict(single("dot/cuda/n:1/block:256/mode:kernel", 1.0), pct_ceiling=50.0,
                 pct_copy_bw=60.0, ceiling_pattern=9)
    run = load_run(write_run(tmp_path / "r.json", [entry]))
    assert ce.row_ceiling(run.rows[0]).text == "50.0 % of ceiling"


def test_report_table_cells_name_the_pattern(gpu_report, tmp_path, data_dir):
    markdown = gpu_report.markdown.read_text()
    assert "| % of limit |" in markdown
    assert "| 64.8 % of read |" in markdown
    old = render([data_dir / "old_format_run.json"], tmp_path / "old").markdown.read_text()
    assert "| 100.7 % of device copy (suspect) |" in old  # above its limit: flagged


# ----------------------------------------------------------------- ceiling chart

def test_ceiling_chart_labels_each_bar_with_its_pattern(gpu_run, old_run):
    figure = chart_ceiling(gpu_run.rows, gpu_run.context)
    gpu_ax, cpu_ax = figure.axes[:2]
    assert gpu_ax.get_title() == "GPU kernels" and cpu_ax.get_title().startswith("CPU")
    texts = [t.get_text() for t in gpu_ax.texts]
    assert "93 % of add" in texts and "65 % of read" in texts
    old = chart_ceiling(old_run.rows, old_run.context)
    assert len(old.axes) == 1  # old files held only GPU rows to a ceiling
    assert any(t.get_text().endswith("% of device copy") for t in old.axes[0].texts)
    assert "device copy" in old.axes[0].get_xlabel()


def test_ceiling_chart_leaves_compute_bound_rows_out(gpu_run):
    # matmul's intensity (n/6 FLOP/byte) is past the ridge of both sides at n:1024.
    names = [t.get_text() for ax in chart_ceiling(gpu_run.rows, gpu_run.context).axes
             for t in ax.get_yticklabels()]
    assert names and not any(n.startswith("matmul/") for n in names)


# ----------------------------------------------------------------- roofs and tables

def test_compute_roofs_measured_datasheet_and_native(gpu_run):
    gpu = {(r.precision, r.kind): r.value for r in ce.compute_roofs(gpu_run.context, "gpu")}
    assert gpu[("FP32", "measured")] == 58e12 and gpu[("FP32", "datasheet")] == 60e12
    assert gpu[("INT8", "measured")] == 220e12 and gpu[("FP64", "datasheet")] == 30e12
    cpu = {(r.precision, r.kind): r.value for r in ce.compute_roofs(gpu_run.context, "cpu_all")}
    assert cpu == {("FP32", "measured"): 1.6e12, ("FP64", "measured"): 0.8e12,
                   ("FP32", "native"): 3.2e12, ("FP64", "native"): 1.6e12}


def test_native_roof_absent_says_why(data_dir):
    context = load_run(data_dir / "cpu_only_run.json").context
    assert all(r.kind != "native" for r in ce.compute_roofs(context, "cpu_all"))
    assert roofs_note(context) == ("CPU native roof: not measured (the CPU has neither "
                                   "AVX-512F nor AVX2 with FMA).")


def test_ceilings_and_roofs_tables(gpu_run, old_run):
    table = ceilings_table(gpu_run.context)
    assert table.headers[2:] == ["GPU", "CPU, all threads", "CPU, one thread"]
    assert ["read", "1 : 0", "4,600 GB/s", "240 GB/s", "20 GB/s"] in table.rows
    assert table.rows[-1][:3] == ["device copy (cudaMemcpy)", "1 : 1", "4,000 GB/s"]
    roofs = roofs_table(gpu_run.context)
    assert roofs.headers[-1] == "CPU native (AVX-512 FMA)"
    assert roofs.rows[0] == ["FP32", "58 TFLOP/s", "60 TFLOP/s", "97 %", "1.6 TFLOP/s",
                             "100 GFLOP/s", "3.2 TFLOP/s"]
    old = ceilings_table(old_run.context)
    assert [r[0] for r in old.rows] == ["triad", "device copy (cudaMemcpy)"]
    assert old.headers[2:] == ["GPU", "CPU, all threads"]  # no one-thread figure: no column
    old_roofs = roofs_table(old_run.context)
    assert old_roofs.headers == ["precision", "GPU datasheet"]
    assert old_roofs.rows == [["FP32", "60 TFLOP/s"]]


def test_cpu_only_tables_have_no_gpu_columns(data_dir):
    context = load_run(data_dir / "cpu_only_run.json").context
    assert ceilings_table(context).headers == ["pattern", "read : written", "CPU, all threads",
                                               "CPU, one thread"]
    assert roofs_table(context).headers == ["precision", "CPU all threads", "CPU one thread"]


# ----------------------------------------------------------------- roofline

def test_roofline_draws_measured_roofs_and_pattern_slopes(gpu_run):
    figure = chart_roofline(gpu_run.rows, gpu_run.context)
    gpu_ax, cpu_ax = figure.axes[:2]
    assert gpu_ax.get_title().startswith("GPU") and cpu_ax.get_title().startswith("CPU")
    gpu = _labels(gpu_ax)
    assert "measured FP32 58 TFLOP/s roof" in gpu
    assert {"measured FP64 29 TFLOP/s roof", "measured FP16 110 TFLOP/s roof",
            "measured INT8 220 TOP/s roof"} <= set(gpu)
    # Highest (read) and lowest (copy = scale) pattern, and triad.
    assert {"read bandwidth 4,600 GB/s", "copy bandwidth 4,000 GB/s",
            "triad bandwidth 4,300 GB/s"} <= set(gpu)
    assert not any("cudaMemcpy" in label for label in gpu)
    datasheet = next(line for line in gpu_ax.get_lines()
                     if line.get_label().startswith("datasheet"))
    assert datasheet.get_label() == "datasheet FP32 60 TFLOP/s"
    assert datasheet.get_alpha() < 1 and datasheet.get_linestyle() == ":"  # drawn lighter
    cpu = _labels(cpu_ax)
    assert {"measured FP32 1.6 TFLOP/s roof", "native AVX-512 FMA FP32 3.2 TFLOP/s roof",
            "read bandwidth 240 GB/s", "write bandwidth 150 GB/s"} <= set(cpu)
    assert "ABOVE" not in gpu_ax.get_title() + cpu_ax.get_title()
    assert roofline_flags(gpu_run.rows, gpu_run.context) == []


def test_roofline_of_an_old_file_uses_the_old_keys(old_run):
    figure = chart_roofline(old_run.rows, old_run.context)
    gpu_ax, cpu_ax = figure.axes[:2]
    assert _labels(gpu_ax) == ["device copy (cudaMemcpy) bandwidth 4,000 GB/s",
                               "datasheet FP32 60 TFLOP/s"]
    assert "datasheet peak only" in gpu_ax.get_title()
    assert _labels(cpu_ax) == ["triad bandwidth 200 GB/s"]


def _above_roof_run(tmp_path):
    """A GPU row at 5 TB/s against a 4.6 TB/s read ceiling, and an fp16 row above the FP32 roof
    but under its own FP16 roof (not above anything)."""
    context = {"gpu_bw_read_bytes_per_s": "4.6e12", "gpu_bw_copy_bytes_per_s": "4e12",
               "gpu_roof_fp32_flops": "5e13", "gpu_roof_fp16_flops": "1e14",
               "gpu_peak_fp32_flops": "6e13"}
    fast = dict(single("dot/cuda/n:1000/block:256/mode:kernel", 1.0), bytes_per_iter=5e9,
                flop_per_iter=1.25e9)
    half = dict(single("dtypes/cuda/kernel:fma/dtype:fp16/n:1000", 1.0), bytes_per_iter=1e6,
                flop_per_iter=8e10)
    return write_run(tmp_path / "above.json", [fast, half], context)


def test_points_above_the_roof_are_flagged_not_hidden(tmp_path):
    path = _above_roof_run(tmp_path)
    run = load_run(path)
    flags = roofline_flags(run.rows, run.context)
    assert [row.name for row, _ in flags] == ["dot/cuda/n:1000/block:256/mode:kernel"]
    assert "5,000 GB/s is 109 % of the highest bandwidth measured (read, 4,600 GB/s)" in flags[0][1]
    figure = chart_roofline(run.rows, run.context)
    assert "1 point(s) ABOVE the roof" in figure.axes[0].get_title()
    markdown = render([path], tmp_path / "out").markdown.read_text()
    assert "1 roofline point(s) sit above their side's roof" in markdown
    assert "dot/cuda/n:1000/block:256/mode:kernel: 5,000 GB/s" in markdown


def test_a_row_is_held_to_its_dtype_roof(tmp_path):
    run = load_run(_above_roof_run(tmp_path))
    half = _row(run, "dtypes/cuda/kernel:fma/dtype:fp16/n:1000")
    assert ce.roof_for(half, run.context, "gpu").precision == "FP16"
    assert ce.above_roof(half, run.context, "gpu") is None
