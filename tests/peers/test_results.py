"""Rows in the suite's format, the ceiling rule, and the atomic merge."""

from __future__ import annotations

import json
import math
import os
import stat

import pytest

from conftest import QUICK_CONTEXT, write_suite
from twinbench.bench.results import (Work, error_row, measured_row, merge, next_family_index,
                                 write_atomically)
from twinbench.bench.sampler import StopReason, summarize
from twinbench.bench.suite import ceiling_set, choose_ceiling, parse_name
from twinbench.report.loader import load_run

BW = {"read": 4.57e12, "write": 4.61e12, "copy": 4.24e12, "scale": 4.22e12, "add": 4.46e12,
      "triad": 4.44e12}


@pytest.mark.parametrize("read, written, pattern", [
    (8.0, 0.0, 0),        # dot: read only
    (0.0, 4.0, 1),        # poisson: write only
    (4.0, 4.0, 2),        # transpose: copy (faster than scale at the same mix)
    (8.0, 4.0, 4),        # vector_add: add (faster than triad at the same mix)
    (12.0, 8.0, 4),       # black_scholes 0.6: nearer 2/3 than 1/2
])
def test_the_ceiling_is_the_pattern_with_the_nearest_read_share(read, written, pattern):
    assert choose_ceiling(BW, read, written)[0] == pattern


def test_the_ceiling_sets_come_from_the_context():
    ctx = {"gpu_bw_add_bytes_per_s": "4.46e+12", "cpu_bw_add_all_bytes_per_s": "2.8e+10",
           "cpu_bw_add_one_bytes_per_s": "1.6e+10", "cpu_bw_read_all_bytes_per_s": "junk"}
    assert ceiling_set(ctx, "gpu") == {"add": 4.46e12}
    assert ceiling_set(ctx, "cpu_all") == {"add": 2.8e10}
    assert ceiling_set(ctx, "cpu_one") == {"add": 1.6e10}
    assert choose_ceiling({}, 1, 1) is None


def test_a_measured_row_has_the_suites_fields_and_rates():
    st = summarize([2e-3, 1e-3, 3e-3])
    st.reason, st.converged = StopReason.SPREAD_UNDER_TARGET, True
    row = measured_row("vector_add/numba_cpu/n:1000/threads:2/manual_time", 7, st,
                       Work(8000.0, 4000.0, 1000.0, 1000.0), BW, {"batch": 1, "odd": math.nan},
                       0.004, "numba peer of vector_add/omp")
    assert row["real_time"] == pytest.approx(2000.0) and row["time_unit"] == "us"
    assert row["iterations"] == 1 and row["run_type"] == "iteration"
    assert row["bytes_per_second"] == pytest.approx(12000 / 2e-3)
    assert row["items_per_second"] == pytest.approx(1000 / 2e-3)
    assert row["flop_per_s"] == pytest.approx(1000 / 2e-3)
    assert row["ceiling_pattern"] == 4 and row["ceiling_bytes_per_s"] == BW["add"]
    assert row["pct_ceiling"] == pytest.approx(100 * 12000 / 2e-3 / BW["add"])
    assert row["samples"] == 3 and row["samples_s"] == [0.002, 0.001, 0.003]
    assert row["stop_reason"] == 1 and row["converged"] == 1
    assert row["odd"] is None   # NaN is written as null, as nlohmann::json writes it
    json.dumps(row, allow_nan=False)


def test_rows_not_held_to_a_ceiling_have_none():
    st = summarize([1e-3] * 3)
    row = measured_row("transfers/numba_cuda_pinned/dir:h2d/bytes:4096/manual_time", 0, st,
                       Work(4096.0, items=1.0, held_to_ceiling=False), BW, {}, 0.0, "")
    assert "pct_ceiling" not in row and "flop_per_s" not in row
    row = measured_row("x/numba_cuda/n:1/mode:e2e/manual_time", 0, st, Work(8.0, 4.0), None,
                       {}, 0.0, "")
    assert "pct_ceiling" not in row


def test_merge_replaces_rows_of_the_same_name_and_adds_context():
    doc = {"context": {"a": 1}, "benchmarks": [{"name": "x/omp/n:1/manual_time"},
                                               {"name": "x/numba_cpu/n:1/manual_time", "old": 1}]}
    new = error_row("x/numba_cpu/n:1/manual_time", 9, "skipped", "")
    merged = merge(doc, [new], {"numba_peers": "ran"})
    assert [e["name"] for e in merged["benchmarks"]] == ["x/omp/n:1/manual_time",
                                                          "x/numba_cpu/n:1/manual_time"]
    assert "old" not in merged["benchmarks"][1]
    assert merged["context"] == {"a": 1, "numba_peers": "ran"}
    assert next_family_index(doc) == 0
    assert next_family_index({"benchmarks": [{"family_index": 4}]}) == 5


def test_the_merged_file_is_replaced_whole_and_keeps_its_permissions(tmp_path):
    path = write_suite(tmp_path / "run.json", ["vector_add/omp/n:10/threads:2"], [])
    os.chmod(path, 0o640)
    doc = json.loads(path.read_text())
    row = error_row("vector_add/numba_cuda/n:10/block:32/mode:kernel/manual_time", 5,
                    QUICK_CONTEXT["gpu_status"], "numba peer of vector_add/cuda_article")
    write_atomically(path, merge(doc, [row], {"numba_peers": "ran"}))
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]   # no temporary left
    run = load_run(path)
    peer = next(r for r in run.rows if r.impl == "numba_cuda")
    assert peer.skipped and peer.error_message == QUICK_CONTEXT["gpu_status"]
    assert peer.family == "numba_cuda" and peer.mode == "kernel"


def test_names_parse():
    n = parse_name("grayscale/numba_cuda_coalesced/w:640/h:360/block:16x16/mode:e2e/manual_time")
    assert n.workload == "grayscale" and n.impl == "numba_cuda_coalesced"
    assert n.arg("block") == "16x16" and n.arg("mode") == "e2e"
    assert parse_name("no_impl") is None and parse_name("w/impl/positional") is None
