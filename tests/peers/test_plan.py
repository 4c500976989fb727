"""The peers' plan comes from the C++ rows of the suite's file (the H200's default run, committed
in results/), and each peer row states the same work as its C++ row."""

from __future__ import annotations

import gzip
import json
from collections import Counter

import pytest

from conftest import REPO, needs_numba
from peers.numba import plan
from twinbench.bench.suite import BadInput, ceiling_set, choose_ceiling, cpp_rows, parse_name
from twinbench.report.loader import family_of, parse_name as reports_parse_name

H200_RUN = REPO / "results/nvidia-h200/2026-12-02b/run.json.gz"


@pytest.fixture(scope="module")
def h200():
    return json.loads(gzip.decompress(H200_RUN.read_bytes()))


@pytest.fixture(scope="module")
def h200_plan(h200):
    return plan.derive(h200, None)


def test_every_peer_row_has_its_cpp_rows_arguments(h200_plan):
    for row in h200_plan:
        source = parse_name(row.source)
        assert source.workload == row.workload and source.impl == row.peer.mirrors
        # threads kept: the mapping is the identity, but for the args a peer sets and its
        # added sizes
        expected = tuple((k, dict(row.peer.fixed).get(k, v)) for k, v in source.args)
        if row.arg("n") != source.arg("n"):
            assert (source.arg("n"), row.arg("n")) in row.peer.also_n, row.base
            expected = tuple((k, row.arg("n") if k == "n" else v) for k, v in expected)
        assert row.args == expected, row.base


def test_the_plan_follows_the_cpp_sizes_and_blocks(h200_plan):
    count = Counter((r.workload, r.impl) for r in h200_plan)
    # 1M and 256M, kernel rows at 5 block sizes and one e2e row each.
    assert count["vector_add", "numba_cuda"] == 2 * (5 + 1)
    assert count["vector_add", "numba_cuda_pageable"] == 2
    assert count["vector_add", "numba_cpu"] == 2
    # The article's Poisson on the CPU only where the C++ runs omp_article (10M, not 100M).
    assert [r.arg("n") for r in h200_plan if (r.workload, r.impl) == ("poisson", "numba_cpu")] \
        == ["10000000"]
    # The GPU recursion where the C++ has cuda_recursive rows (n <= 30 by default).
    assert {r.arg("n") for r in h200_plan if (r.workload, r.impl) == ("lucas", "numba_cuda")} \
        == {"20", "30"}
    assert {r.arg("n") for r in h200_plan if (r.workload, r.impl) == ("lucas", "numba_cpu")} \
        == {"20", "30", "40"}
    # The progress rows on the Poisson target only: (a)-(e) at 10M and 100M, and (b)-(e) in a
    # kernel of over a second (10^10 samples), after the 100M rows.
    progress = [r for r in h200_plan if r.workload == "progress"]
    assert all(r.arg("target") == "poisson" for r in progress)
    ways = [(r.arg("strategy"), r.arg("counter")) for r in progress]
    five = [("none", "device"), ("per_thread", "device"), ("live_block", "slots8"),
            ("live_warp", "slots8"), ("per_thread", "managed")]
    assert ways == five + five + five[1:]
    assert [r.arg("n") for r in progress] == ["10000000"] * 5 + ["100000000"] * 5 + \
        ["10000000000"] * 4
    # No mode on transposes and transfers, as the C++.
    assert all(r.mode is None for r in h200_plan if r.workload in ("transpose", "transfers"))
    assert count["transfers", "numba_cuda_pinned"] == count["transfers", "numba_cuda_pageable"]


def test_pageable_rows_are_e2e_rows(h200_plan):
    for row in h200_plan:
        if row.pageable:
            assert row.mode == "e2e" and row.impl == row.peer.impl + "_pageable"


def test_names_parse_as_peer_rows_for_the_reports(h200_plan):
    for row in h200_plan:
        workload, impl, args = reports_parse_name(row.name)
        assert (workload, impl) == (row.workload, row.impl)
        assert family_of(impl) in ("numba_cuda", "numba_cpu")


def test_the_plan_ignores_peer_rows_already_in_the_file(h200):
    doc = {"context": {}, "benchmarks": list(h200["benchmarks"]) + [
        {"name": "vector_add/numba_cpu/n:1048576/threads:16/manual_time"}]}
    assert len(cpp_rows(doc)) == len(cpp_rows(h200))


def test_a_quick_run_plans_no_long_progress_kernel():
    doc = {"context": {}, "benchmarks": [
        {"name": "progress/cuda_article/target:poisson/strategy:per_thread/counter:device/"
                 "n:1000000/block:256/manual_time"}]}
    rows = plan.derive(doc, ["progress"])
    assert len(rows) == 5 and {r.arg("n") for r in rows} == {"1000000"}


def test_the_thread_count_follows_numbas(h200):
    rows = plan.derive(h200, ["vector_add"], cpu_threads=lambda t: min(t, 4))
    assert [r.arg("threads") for r in rows if r.impl == "numba_cpu"] == ["4", "4"]


def test_workload_filter(h200):
    rows = plan.derive(h200, ["dot", "lucas"])
    assert {r.workload for r in rows} == {"dot", "lucas"}
    with pytest.raises(BadInput):
        plan.parse_workloads("dot,nope")


def _items(entry: dict) -> float:
    return entry.get("items_per_second", 0.0) * entry["real_time"] * 1e-6


@needs_numba
def test_each_peer_states_the_work_of_its_cpp_row(h200, h200_plan):
    """bytes read and written, FLOPs, items and the ceiling pattern, against the counters of
    every measured C++ row a peer mirrors in the H200 run."""
    from peers.numba.workloads import module
    entries = {e["name"]: e for e in h200["benchmarks"]}
    context = h200["context"]
    checked = Counter()
    for row in h200_plan:
        cpp = entries.get(row.source + "/manual_time")
        if not cpp or cpp.get("error_occurred"):
            continue
        if row.arg("n") != parse_name(row.source).arg("n"):
            continue   # a size the peer adds (Peer.also_n): its work is its own
        work = module(row.workload).work(row)
        assert work.read_bytes == cpp["read_bytes_per_iter"], row.base
        assert work.written_bytes == cpp["written_bytes_per_iter"], row.base
        assert work.flops == cpp["flop_per_iter"], row.base
        assert work.items == pytest.approx(_items(cpp), rel=1e-6), row.base
        if "ceiling_pattern" in cpp and row.mode != "e2e":
            which = ("gpu" if row.side == "gpu"
                     else "cpu_one" if row.peer.serial else "cpu_all")
            chosen = choose_ceiling(ceiling_set(context, which), work.read_bytes,
                                    work.written_bytes)
            assert chosen[0] == cpp["ceiling_pattern"], row.base
        checked[row.workload] += 1
    assert set(checked) == set(plan.WORKLOADS)
