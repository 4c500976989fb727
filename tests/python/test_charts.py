from __future__ import annotations

import pytest

from twinbench.report import analysis as an
from twinbench.report.charts import CHARTS, crossover_series




def _has_data(figure) -> bool:
    axes = [ax for ax in figure.axes if ax.get_visible()]
    return any(ax.lines or ax.patches or ax.collections for ax in axes)


@pytest.mark.parametrize("spec", CHARTS, ids=lambda s: s.key)
def test_every_chart_is_drawn_for_the_gpu_sample(spec, gpu_run):
    figure = spec.draw(gpu_run.rows, gpu_run.context)
    assert figure is not None
    assert _has_data(figure)
    for ax in figure.axes:
        if ax.get_visible() and (ax.lines or ax.patches):
            assert ax.get_ylabel() or ax.get_xlabel()


@pytest.mark.parametrize("spec", [s for s in CHARTS if s.needs_gpu], ids=lambda s: s.key)
def test_gpu_charts_have_no_data_in_cpu_only_run(spec, cpu_run):
    assert spec.draw(cpu_run.rows, cpu_run.context) is None


def test_charts_return_none_without_rows():
    assert all(spec.draw([], {}) is None for spec in CHARTS)


def test_crossover_is_found_where_cuda_e2e_overtakes(gpu_run):
    series = crossover_series(gpu_run.rows)
    matmul = next(v for k, v in series.items() if k[0] == "matmul")
    assert an.crossover_size(matmul) == 128
    vector_add = next(v for k, v in series.items() if k[0] == "vector_add")
    assert an.crossover_size(vector_add) is None  # omp stays faster


def test_crossover_ignores_an_isolated_small_size_win():
    points = {"serial": [(1, 1.0), (2, 1.0), (4, 1.0)],
              "cuda e2e": [(1, 0.5), (2, 2.0), (4, 0.5)]}
    assert an.crossover_size(points) == 4


@pytest.mark.parametrize("status,expected", [
    ("available", None),
    ("no CUDA device: cudaErrorNoDevice", "GPU variants were skipped (no CUDA device: cudaErrorNoDevice)"),
    ("not built: TWINBENCH_WITH_CUDA=OFF", "GPU variants were not built"),
])
def test_gpu_status_note(status, expected):
    note = an.gpu_status_note({"gpu_status": status})
    assert note == expected if expected is None else note.startswith(expected)
