"""`compare` opens with both runs' summary rows side by side: speedups in A and B, the B/A time
ratios, and a verdict per workload ("not comparable" when settings or headline sizes differ)."""

from __future__ import annotations


import pytest

from conftest import DATA, repeated, write_run, markdown_tables
from summary_markdown import full_summary
from twinbench.report import summary as sm
from twinbench.report.compare import (NOT_COMPARABLE, ONLY_IN_A, SAME, SIDE_BY_SIDE_HEADERS, SIZES_DIFFER,
                             SLOWER, compare)
from twinbench.report.render import render

BASE = [1.0, 1.02, 0.98, 1.01, 0.99, 1.005]
CONTEXT = {"gpu_name": "Test GPU", "cpu_model": "Test CPU", "quick": "false"}



def _side_by_side(result) -> dict[str, dict[str, str]]:
    tables = [t for t in markdown_tables(result.markdown.read_text())
              if t[0] == SIDE_BY_SIDE_HEADERS]
    assert len(tables) == 1
    header, *lines = tables[0]
    return {cells[0]: dict(zip(header, cells)) for cells in lines}


def _scaled(factor: float) -> list[float]:
    return [s * factor for s in BASE]


def _benchmarks(*, vadd_cuda: float = 1.0, dot: bool = True, n: str = "1000") -> list[dict]:
    rows = (repeated(f"vadd/serial/n:{n}", _scaled(40.0))
            + repeated(f"vadd/omp/n:{n}", _scaled(8.0))
            + repeated(f"vadd/cuda/n:{n}", _scaled(vadd_cuda)))
    if dot:
        rows += repeated("dot/serial/n:500", _scaled(20.0)) + repeated("dot/cuda/n:500", BASE)
    return rows


def _compare(tmp_path, benchmarks_b: list[dict], context_b: dict | None = None,
             benchmarks_a: list[dict] | None = None):
    a = write_run(tmp_path / "a.json", benchmarks_a or _benchmarks(), CONTEXT)
    b = write_run(tmp_path / "b.json", benchmarks_b, {**CONTEXT, **(context_b or {})})
    return compare(a, b, tmp_path / "out")


def test_identical_runs_are_the_same_everywhere(tmp_path):
    result = _compare(tmp_path, _benchmarks())
    assert result.workload_verdicts() == {"dot": SAME, "vadd": SAME}
    rows = _side_by_side(result)
    assert rows["vadd"]["GPU kernel time B/A"] == "1.000"
    assert rows["vadd"]["best CPU time B/A"] == "1.000"
    assert rows["vadd"]["GPU kernel × CPU in A"] == rows["vadd"]["GPU kernel × CPU in B"]
    assert rows["vadd"]["GPU kernel × CPU in A"].startswith("8.00× (")   # omp 8 ms / cuda 1 ms
    assert rows["vadd"]["how decided"].startswith("GPU kernel: Mann-Whitney U")


def test_the_sample_compared_with_itself_is_the_same(tmp_path):
    result = compare(DATA / "gpu_run.json", DATA / "gpu_run.json", tmp_path / "out")
    assert result.workloads and set(result.workload_verdicts().values()) == {SAME}


def test_a_gpu_kernel_twice_as_slow_is_slower(tmp_path):
    result = _compare(tmp_path, _benchmarks(vadd_cuda=2.0))
    assert result.workload_verdicts() == {"dot": SAME, "vadd": SLOWER}
    rows = _side_by_side(result)
    assert rows["vadd"]["verdict"] == SLOWER
    assert rows["vadd"]["GPU kernel time B/A"] == "2.000"
    assert rows["vadd"]["best CPU time B/A"] == "1.000"
    assert rows["vadd"]["GPU kernel × CPU in B"].startswith("4.00× (")
    assert "best CPU: same" in rows["vadd"]["how decided"]


def test_a_different_gpu_makes_every_verdict_not_comparable(tmp_path):
    result = _compare(tmp_path, _benchmarks(vadd_cuda=2.0), {"gpu_name": "Another GPU"})
    assert set(result.workload_verdicts().values()) == {NOT_COMPARABLE}
    text = result.markdown.read_text()
    # The warning stays at the top, above the table.
    assert text.index("> **Note:** The runs differ in settings") < text.index("| workload |")
    rows = _side_by_side(result)
    # The ratios are still there, labelled.
    assert rows["vadd"]["GPU kernel time B/A"] == "2.000 (settings differ: not like for like)"
    assert "settings differ: GPU" in rows["dot"]["how decided"]
    # Benchmark by benchmark too: not comparable, with what the samples alone would say.
    assert result.comparisons and {c.verdict for c in result.comparisons} == {NOT_COMPARABLE}
    assert all("the samples alone say" in c.method for c in result.comparisons)
    assert "not comparable (the runs' settings differ)" in text


def test_a_different_headline_size_is_not_comparable(tmp_path):
    result = _compare(tmp_path, _benchmarks(n="2000"))
    assert result.workload_verdicts() == {"dot": SAME, "vadd": SIZES_DIFFER}
    assert _side_by_side(result)["vadd"]["size"] == "A n:1000 / B n:2000"


def test_a_workload_missing_in_b_has_a_row_saying_so(tmp_path):
    result = _compare(tmp_path, _benchmarks(dot=False))
    assert result.workload_verdicts() == {"dot": ONLY_IN_A, "vadd": SAME}
    row = _side_by_side(result)["dot"]
    assert row["verdict"] == ONLY_IN_A
    assert row["how decided"] == "no summary row for dot in B"
    assert row["GPU kernel × CPU in B"] == "–" and row["GPU kernel × CPU in A"] != "–"


@pytest.mark.parametrize("context_b", [{}, {"gpu_name": "Another GPU"}])
def test_the_side_by_side_table_is_the_first_table_when_nothing_changed(tmp_path, context_b):
    result = _compare(tmp_path, _benchmarks(), context_b)
    text = result.markdown.read_text()
    assert markdown_tables(text)[0][0] == SIDE_BY_SIDE_HEADERS
    assert text.index("## Summary, A and B side by side") < text.index("## Per benchmark")


def test_what_changed_beyond_noise_leads_then_the_summaries(tmp_path):
    result = _compare(tmp_path, _benchmarks(vadd_cuda=2.0))
    text = result.markdown.read_text()
    assert (text.index("## Changed beyond noise") < text.index("## Summary, A and B side by side")
            < text.index("## Per benchmark"))
    assert markdown_tables(text)[0][1][0] == "vadd/cuda/n:1000"


def test_cells_are_those_of_each_runs_own_summary(tmp_path):
    """The same headline size, pairing and speedups as the run's own report."""
    own = render([DATA / "gpu_run.json"], tmp_path / "own").markdown.read_text()
    own_rows = full_summary(own, sm.SUMMARY_HEADERS)
    rows = _side_by_side(compare(DATA / "gpu_run.json", DATA / "gpu_run.json", tmp_path / "c"))
    assert set(rows) == set(own_rows)
    for workload, cells in rows.items():
        assert cells["size"] == own_rows[workload]["size"]
        for column in ("GPU kernel × CPU", "GPU e2e × CPU", "OpenMP × serial"):
            assert cells[f"{column} in A"] == own_rows[workload][column]
            assert cells[f"{column} in B"] == own_rows[workload][column]
