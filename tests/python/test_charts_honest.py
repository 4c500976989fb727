"""The charts don't mislead: like-for-like speedups as dots, rooflines per side with limits from
the data, every swept kernel, and no GPU chart from a CPU-only run."""

from __future__ import annotations

from pathlib import Path

import pytest
from matplotlib.collections import PathCollection
from matplotlib.patches import Rectangle

from twinbench.report import analysis as an
from twinbench.report.charts import (CHARTS, MAX_PANELS, _block_sweeps, chart_occupancy,
                                     chart_roofline, chart_speedup, chart_streams,
                                     chart_transfers, distinct_colors)
from twinbench.report.pairing import algorithm_by_tags, algorithm_tags, speedup_comparisons
from twinbench.report.loader import load_run

REPO = Path(__file__).resolve().parents[2]
H200 = REPO / "results" / "nvidia-h200" / "2026-12-02b" / "run.json.gz"




@pytest.fixture(scope="module")
def h200_run(data_dir):
    # The committed H200 run when present, else the trimmed copy the tests carry.
    return load_run(H200 if H200.exists() else data_dir / "h200_trimmed.json")


def _visible_axes(figure):
    return [ax for ax in figure.axes if ax.get_visible()]


def _markers(ax) -> list[tuple[float, float]]:
    return [tuple(xy) for c in ax.collections if isinstance(c, PathCollection)
            for xy in c.get_offsets()]


def _titles(figure) -> str:
    texts = [figure.get_suptitle()]
    for ax in figure.axes:
        texts += [ax.get_title(loc) for loc in ("left", "center", "right")]
    return "\n".join(texts)


# ----------------------------------------------------------------- speedup

@pytest.mark.parametrize("sample", ["gpu_run", "cpu_run", "h200_run"])
def test_speedup_is_a_dot_plot_on_a_log_axis_through_1(sample, request):
    run = request.getfixturevalue(sample)
    figure = chart_speedup(run.rows, run.context)
    assert figure is not None
    # The panels share their x axis: limits from all of the chart's markers.
    xs = [x for ax in _visible_axes(figure) for x, _ in _markers(ax)]
    for ax in _visible_axes(figure):
        bars = [p for p in ax.patches if isinstance(p, Rectangle)]
        assert not bars, "speedup chart draws bars"
        assert _markers(ax), "no markers"
        assert ax.get_xscale() == "log"
        lo, hi = ax.get_xlim()
        assert lo < 1 < hi
        assert any(line.get_xdata()[0] == 1.0 for line in ax.lines), "no 1x line"
        # Limits from the data: at most a factor 3 past the extreme comparison (or 1).
        assert lo >= min(xs + [1.0]) / 3 and hi <= max(xs + [1.0]) * 3
        assert ax.get_legend() is None  # panels say what the markers are; nothing over the data


def test_speedup_has_one_marker_per_comparison(h200_run):
    comparisons = speedup_comparisons(h200_run.rows)
    figure = chart_speedup(h200_run.rows, h200_run.context)
    markers = sum(len(_markers(ax)) for ax in figure.axes)
    assert markers == len(comparisons)
    keys = [(c.workload, c.algorithm, an.non_numeric_size(c.row), c.kind) for c in comparisons]
    assert len(keys) == len(set(keys))


def test_speedup_panels_are_sorted(h200_run):
    figure = chart_speedup(h200_run.rows, h200_run.context)
    for ax in _visible_axes(figure):
        offsets = sorted((y, x) for x, y in _markers(ax))
        xs = [x for _, x in offsets]
        assert xs == sorted(xs)


def test_lucas_compares_like_with_like(h200_run):
    lucas = [c for c in speedup_comparisons(h200_run.rows) if c.workload == "lucas"]
    assert lucas
    for c in lucas:
        assert c.algorithm in ("recursive", "iterative")
        assert c.row.impl.endswith(c.algorithm) and c.baseline.impl.endswith(c.algorithm), \
            f"{c.row.impl} vs {c.baseline.impl}"
    by_kind = {(c.algorithm, c.kind): c for c in lucas}
    assert by_kind[("recursive", "omp")].baseline.impl == "serial_recursive"
    assert by_kind[("iterative", "kernel")].baseline.impl == "serial_iterative"
    # The old chart's omp_recursive over serial_iterative (2e-8x) is gone.
    assert min(c.speedup for c in lucas) > 1e-4


def test_poisson_article_is_compared_with_the_article():
    rows = load_run(H200).rows if H200.exists() else pytest.skip("no committed H200 run")
    poisson = [c for c in speedup_comparisons(rows) if c.workload == "poisson"]
    for c in poisson:
        assert ("article" in c.row.impl) == ("article" in c.baseline.impl) == \
            (c.algorithm == "article")


def test_algorithm_tags_from_impl_names(h200_run):
    lucas = [r for r in h200_run.rows if r.workload == "lucas"]
    tags = algorithm_tags(lucas)
    assert {"recursive", "iterative"} <= tags
    sgemm = [r for r in h200_run.rows if r.workload == "sgemm"]
    # Variants only one family has (cuda_tiled, cublas_tf32) are the plain algorithm.
    assert {algorithm_by_tags(r, algorithm_tags(sgemm)) for r in sgemm} == {""}


def test_speedup_skips_reference_kernels(h200_run):
    assert all(c.row.impl != "cuda_copy" for c in speedup_comparisons(h200_run.rows))


# ----------------------------------------------------------------- roofline

def test_cpu_only_roofline_has_one_panel_and_no_kernel_time(cpu_run):
    figure = chart_roofline(cpu_run.rows, cpu_run.context)
    assert figure is not None
    panels = [ax for ax in _visible_axes(figure) if ax.get_xscale() == "log"]
    assert len(panels) == 1
    assert "kernel time" not in _titles(figure)
    assert "GPU" not in _titles(figure)


def test_gpu_roofline_has_both_sides(h200_run):
    figure = chart_roofline(h200_run.rows, h200_run.context)
    panels = [ax for ax in _visible_axes(figure) if ax.get_xscale() == "log"]
    assert len(panels) == 2
    assert "kernel time" in panels[0].get_title()


@pytest.mark.parametrize("sample", ["cpu_run", "h200_run", "gpu_run"])
def test_roofline_y_limits_come_from_the_data(sample, request):
    run = request.getfixturevalue(sample)
    figure = chart_roofline(run.rows, run.context)
    for ax in (a for a in _visible_axes(figure) if a.get_xscale() == "log"):
        ys = [y for _, y in _markers(ax)]
        lo, hi = ax.get_ylim()
        assert lo >= min(ys) / 10, "empty decades under the data"
        assert lo <= min(ys) and hi >= max(ys)


def test_roofline_workloads_have_distinct_colours(h200_run):
    figure = chart_roofline(h200_run.rows, h200_run.context)
    legend = figure.legends[0]
    workloads = {r.workload for r in h200_run.rows}
    colours = [tuple(h.get_facecolor()[0]) for h, t in
               zip(legend.legend_handles, [t.get_text() for t in legend.get_texts()])
               if t in workloads]
    assert len(colours) >= 11
    assert len(set(colours)) == len(colours)


@pytest.mark.parametrize("count", [3, 10, 13, 20, 27])
def test_distinct_colors(count):
    colours = distinct_colors(count)
    assert len(colours) == count == len(set(colours))


# ----------------------------------------------------------------- occupancy

@pytest.mark.parametrize("sample", ["gpu_run", "h200_run"])
def test_occupancy_shows_the_kernels_the_block_moves_most_and_says_how_many(sample, request):
    # Every swept kernel took 63 axes on the H200 run, the most expensive chart of the render;
    # the chart shows the MAX_PANELS whose time moves most with the block, and its title says
    # how many of how many (the block-size table has every one).
    run = request.getfixturevalue(sample)
    sweeps = _block_sweeps(run.rows)
    figure = chart_occupancy(run.rows, run.context)
    titles = [ax.get_title() for ax in _visible_axes(figure) if ax.get_title()]
    assert len(titles) == min(len(sweeps), MAX_PANELS)
    moved = sorted(sweeps, key=lambda k: max(r.time_s for r in sweeps[k])
                   / min(r.time_s for r in sweeps[k]), reverse=True)
    for workload, impl, *_ in moved[:MAX_PANELS]:
        assert any(t.startswith(f"{workload}/{impl}") for t in titles)
    if len(sweeps) > MAX_PANELS:
        assert f"the {MAX_PANELS} of {len(sweeps)} swept kernels" in figure._suptitle.get_text()
    width, height = figure.get_size_inches()
    assert width <= 4 * 4.4 + 0.1 and height <= 40.6


def test_h200_sweeps_more_than_twelve_kernels(h200_run):
    if not H200.exists():
        pytest.skip("no committed H200 run")
    assert len(_block_sweeps(h200_run.rows)) > 12


def test_a_strategy_sweep_is_not_a_block_sweep(h200_run):
    for members in _block_sweeps(h200_run.rows).values():
        blocks = [r.args["block"] for r in members]
        assert len(blocks) == len(set(blocks))


# ----------------------------------------------------------------- CPU-only runs

@pytest.mark.parametrize("spec", [s for s in CHARTS if s.needs_gpu], ids=lambda s: s.key)
def test_cpu_only_run_draws_no_gpu_chart(spec, cpu_run):
    assert spec.draw(cpu_run.rows, cpu_run.context) is None


@pytest.mark.parametrize("spec", CHARTS, ids=lambda s: s.key)
def test_no_chart_of_a_cpu_only_run_mentions_the_gpu_side(spec, cpu_run):
    figure = spec.draw(cpu_run.rows, cpu_run.context)
    if figure is None:
        return
    for ax in _visible_axes(figure):
        assert ax.lines or ax.patches or ax.collections, "empty axis"
    assert "kernel time" not in _titles(figure)


def test_cpu_rows_of_gpu_workloads_draw_no_gpu_chart(h200_run):
    cpu_rows = [r for r in h200_run.rows if r.family in ("serial", "omp")]
    assert any(r.workload == "transfers" for r in cpu_rows)  # host memcpy
    for spec in CHARTS:
        if spec.needs_gpu:
            assert spec.draw(cpu_rows, {"gpu_status": "not built"}) is None, spec.key
    assert chart_transfers(cpu_rows) is None and chart_streams(cpu_rows) is None


@pytest.mark.parametrize("sample", ["gpu_run", "h200_run"])
def test_no_chart_has_an_empty_axis(sample, request):
    run = request.getfixturevalue(sample)
    for spec in CHARTS:
        figure = spec.draw(run.rows, run.context)
        if figure is None:
            continue
        for ax in _visible_axes(figure):
            assert ax.lines or ax.patches or ax.collections, f"{spec.key}: empty axis"
