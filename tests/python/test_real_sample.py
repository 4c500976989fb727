"""The report on a real (trimmed) H200 run: every chart it has data for is drawn, and the table
holds ratios computed from the JSON's own numbers."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from twinbench.report.render import render

SAMPLE = Path(__file__).parent / "data" / "h200_trimmed.json"


def _time_us(name_prefix: str) -> float:
    for b in json.loads(SAMPLE.read_text())["benchmarks"]:
        if b["name"].startswith(name_prefix):
            assert b["time_unit"] == "us"
            return b["real_time"]
    raise AssertionError(name_prefix)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return render([SAMPLE], tmp_path_factory.mktemp("h200"))


def test_charts_with_data_are_drawn(report):
    names = {Path(c).name for c in report.charts}
    for chart in ("speedup.png", "occupancy.png", "transfers.png", "streams.png", "progress.png",
                  "ceiling.png", "roofline.png"):
        assert chart in names
    for chart in report.charts:
        assert Path(chart).stat().st_size > 10_000  # a drawn chart, not an empty canvas


def test_context_and_speedup_cells(report):
    md = report.markdown.read_text()
    assert "NVIDIA H200" in md
    serial = _time_us("vector_add/serial/n:268435456")
    omp = _time_us("vector_add/omp/n:268435456")
    expected = f"{serial / omp:.2f}×"
    section = md[md.index("vector_add — n:268435456"):]
    omp_line = next(line for line in section.splitlines() if line.startswith("| omp "))
    assert expected in omp_line


def test_block_choice_table_names_best_and_suggested(report):
    md = report.markdown.read_text()
    section = md[md.index("## Block size: best measured"):]
    line = next(l for l in section.splitlines() if l.startswith("| vector_add/cuda |")
                and l.split("|")[2].strip().endswith("kernel"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    times = {int(b["block"]): b["real_time"] for b in json.loads(SAMPLE.read_text())["benchmarks"]
             if b["name"].startswith("vector_add/cuda/") and "mode:kernel" in b["name"]}
    assert cells[2] == str(min(times, key=times.get))  # the fastest block of the sweep
    assert cells[4].isdigit()                            # the occupancy API's suggestion
