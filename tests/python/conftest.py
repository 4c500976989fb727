"""Shared fixtures: sample paths, a rendered GPU report, a JSON run builder."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
# The checkout's package, whether or not (and however) it is installed.
SRC = REPO_ROOT / "reports" / "src"
sys.path.insert(0, str(SRC))
# ... and in the processes the tests start (`python -m twinbench.report`).
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))
sys.path.insert(0, str(DATA))

from twinbench.report.loader import load_run  # noqa: E402
from twinbench.report.render import render  # noqa: E402


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def gpu_report(tmp_path_factory):
    """The GPU sample rendered once; several tests read its output."""
    out = tmp_path_factory.mktemp("gpu_report")
    return render([DATA / "gpu_run.json"], out)


@pytest.fixture(scope="session")
def gpu_run(data_dir):
    return load_run(data_dir / "gpu_run.json")


@pytest.fixture(scope="session")
def cpu_run(data_dir):
    return load_run(data_dir / "cpu_only_run.json")


def markdown_tables(markdown: str) -> list[list[list[str]]]:
    """Every Markdown table, as lists of cells (the header row first)."""
    tables, current = [], None
    for line in markdown.splitlines():
        if line.startswith("|"):
            if re.fullmatch(r"\|(---\|)+", line):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            if current is None:
                current = []
                tables.append(current)
            current.append(cells)
        else:
            current = None
    return tables


def write_run(path: Path, benchmarks: list[dict], context: dict | None = None) -> Path:
    ctx = {"sample": "synthetic, for tests", "gpu_status": "available"}
    ctx.update(context or {})
    path.write_text(json.dumps({"context": ctx, "benchmarks": benchmarks}))
    return path


def repeated(name: str, samples: list[float], *, with_iterations: bool = True,
             unit: str = "ms") -> list[dict]:
    """Entries Google Benchmark writes for a benchmark run with --benchmark_repetitions."""
    import statistics

    reps = len(samples)
    base = {"run_name": name, "repetitions": reps, "threads": 1, "iterations": 10,
            "time_unit": unit}
    out = []
    if with_iterations:
        out += [dict(base, name=name, run_type="iteration", repetition_index=i,
                     real_time=s, cpu_time=s) for i, s in enumerate(samples)]
    aggregates = {"mean": statistics.fmean(samples), "median": statistics.median(samples),
                  "stddev": statistics.stdev(samples)}
    out += [dict(base, name=f"{name}_{agg}", run_type="aggregate", aggregate_name=agg,
                 aggregate_unit="time", real_time=v, cpu_time=v) for agg, v in aggregates.items()]
    return out


def single(name: str, seconds_ms: float) -> dict:
    return {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1,
            "repetition_index": 0, "threads": 1, "iterations": 100,
            "real_time": seconds_ms, "cpu_time": seconds_ms, "time_unit": "ms"}
