from __future__ import annotations

import json

import pytest

from conftest import repeated, write_run
from twinbench.report.loader import (LoadError, TUNING_ARGS, family_of, load_run, parse_name,
                            strip_gb_suffixes)


def test_parse_name_strips_measurement_suffix_and_splits_args():
    workload, impl, args = parse_name(
        "grayscale/cuda_coalesced/w:3840/h:2160/block:16x16/mode:kernel/manual_time")
    assert (workload, impl) == ("grayscale", "cuda_coalesced")
    assert args == {"w": "3840", "h": "2160", "block": "16x16", "mode": "kernel"}


def test_strip_suffixes():
    assert strip_gb_suffixes("dot/omp/n:1048576/threads:16/real_time") == "dot/omp/n:1048576/threads:16"


@pytest.mark.parametrize("impl,family", [("cuda_article_slow", "cuda"), ("omp", "omp"),
                                         ("cublas", "cublas"), ("pinned", "other")])
def test_family(impl, family):
    assert family_of(impl) == family


def test_tuning_args_are_a_named_constant():
    assert {"block", "mode", "threads", "strategy", "streams", "chunk"} <= TUNING_ARGS


def test_gpu_sample_rows(data_dir):
    run = load_run(data_dir / "gpu_run.json")
    assert run.context["sample"] == "synthetic, for tests"
    rows = {r.name: r for r in run.rows}
    row = rows["grayscale/cuda_coalesced/w:3840/h:2160/block:16x16/mode:kernel"]
    assert row.size_key == ("w:3840", "h:2160")
    assert row.mode == "kernel"
    assert row.counters["occupancy"] == 1.0
    assert row.time_s == pytest.approx(16e-6)
    omp = rows["vector_add/omp/n:268435456/threads:16"]
    assert omp.family == "omp" and omp.counters["threads"] == 16
    assert omp.size_key == ("n:268435456",)


def test_median_aggregate_is_preferred_and_spread_kept(data_dir):
    run = load_run(data_dir / "gpu_run.json")
    row = next(r for r in run.rows if r.name == "vector_add/cuda/n:268435456/block:256/mode:e2e")
    assert row.aggregate == "median"
    assert row.time_s == pytest.approx(0.130)
    assert row.stddev_s == pytest.approx(2.517e-3)
    assert row.cv == pytest.approx(0.0193)
    assert row.samples_s == pytest.approx([0.128, 0.130, 0.133])


def test_errors_become_skipped_rows_with_reason(data_dir):
    run = load_run(data_dir / "errors_run.json")
    reasons = {r.name: r.error_message for r in run.skipped_rows}
    assert "out of memory" in reasons["dot/cuda/n:4294967296/block:256/mode:e2e"]
    assert all(r.time_s is None for r in run.skipped_rows)


def test_truncated_file_is_salvaged(data_dir):
    run = load_run(data_dir / "partial_run.json")
    assert run.partial
    assert "ends early" in run.problems[0]
    assert run.context.get("gpu_status") == "available"
    assert len(run.rows) == 7  # 6 measured + the block:2048 error


def test_extra_keys_are_tolerated(tmp_path):
    entry = {"name": "dot/serial/n:8", "run_type": "iteration", "real_time": 1.0,
             "time_unit": "us", "future_key": {"nested": [1, 2]}, "label": "x",
             "brand_new_counter": 3.5, "flag": True}
    path = tmp_path / "extra.json"
    path.write_text(json.dumps({"context": {"new_ctx": [1]}, "benchmarks": [entry],
                                "extra_top": 1}))
    row = load_run(path).rows[0]
    assert row.time_s == pytest.approx(1e-6)
    assert row.counters == {"brand_new_counter": 3.5}


def test_iteration_rows_without_aggregates_use_their_median(tmp_path):
    entries = [e for e in repeated("dot/serial/n:8", [1.0, 5.0, 2.0]) if e["run_type"] == "iteration"]
    row = load_run(write_run(tmp_path / "r.json", entries)).rows[0]
    assert row.time_s == pytest.approx(2e-3)
    assert row.aggregate == "median of iterations"


def test_not_json_raises(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("this is not json")
    with pytest.raises(LoadError, match="not valid JSON"):
        load_run(path)


def test_missing_benchmarks_raises(tmp_path):
    path = tmp_path / "nobench.json"
    path.write_text(json.dumps({"context": {}}))
    with pytest.raises(LoadError, match='no "benchmarks" list'):
        load_run(path)


def _suite_entry(name: str, samples: list[float]) -> dict:
    """A row as twinbench writes it: one iteration, the median as its time, the samples kept."""
    ordered = sorted(samples)
    return {"name": name + "/manual_time", "run_name": name + "/manual_time",
            "run_type": "iteration", "iterations": 1, "time_unit": "us",
            "real_time": ordered[len(ordered) // 2] * 1e6, "cpu_time": 1.0,
            "samples": float(len(samples)), "sample_set": 0.0, "samples_s": samples}


def test_kept_samples_give_the_spread(tmp_path):
    path = write_run(tmp_path / "r.json", [_suite_entry("dot/serial/n:1000", [1e-3, 2e-3, 3e-3])],
                     {"benchmarks_planned": "1", "run_complete": True})
    run = load_run(path)
    row = run.rows[0]
    assert row.samples_s == [1e-3, 2e-3, 3e-3]
    assert row.time_s == pytest.approx(2e-3)
    assert row.cv == pytest.approx(0.5)
    assert "samples_s" not in row.counters
    assert not run.partial


def test_run_without_its_completion_mark_is_partial_with_counts(tmp_path):
    path = write_run(tmp_path / "r.json", [_suite_entry("dot/serial/n:1000", [1e-3] * 5)],
                     {"benchmarks_planned": "12"})
    run = load_run(path)
    assert run.partial
    assert "cut short: 1 of 12 benchmarks measured" in run.problems[0]


def test_runs_from_before_the_mark_are_not_called_partial(tmp_path):
    path = write_run(tmp_path / "r.json", [_suite_entry("dot/serial/n:1000", [1e-3] * 5)])
    assert not load_run(path).partial


def test_typed_fields_win_over_the_name(tmp_path):
    """A row that carries `workload`, `impl`, `side` and `axes` is read from them; its name, which
    would parse to another workload, impl, side and size, is only its label."""
    entries = [
        {"name": "vector_add/cuda_tiled/n:5/block:64/manual_time", "run_name":
         "vector_add/cuda_tiled/n:5/block:64/manual_time", "run_type": "iteration",
         "real_time": 2.0, "time_unit": "ms", "iterations": 1,
         "workload": "dot", "impl": "omp_blocked", "side": "cpu", "mode": "",
         "algorithm": "", "threads": 16,
         "axes": {"n": 1048576, "dtype": "float32", "block": "16x16", "threads": 16}},
        # An older row in the same file: no `axes`, so its name is parsed.
        {"name": "scan/cuda/dtype:int32/n:1048576/block:256/manual_time", "run_type": "iteration",
         "real_time": 1.0, "time_unit": "ms", "iterations": 1},
    ]
    path = tmp_path / "typed.json"
    path.write_text(json.dumps({"context": {}, "benchmarks": entries}))
    rows = {r.name: r for r in load_run(path).rows}
    typed = rows["vector_add/cuda_tiled/n:5/block:64"]
    assert (typed.workload, typed.impl, typed.family) == ("dot", "omp_blocked", "omp")
    assert typed.args == {"n": "1048576", "dtype": "float32", "block": "16x16", "threads": "16"}
    assert typed.size_key == ("n:1048576", "dtype:float32")
    assert typed.tuning_label == "block:16x16 threads:16"
    assert typed.typed and typed.described
    assert not typed.is_gpu and typed.pair_side == "omp" and typed.limit_side == "cpu_all"
    # The run writes the axes' keys sorted; they are read in the order the name declares them.
    ordered = [{"name": "conv2d/omp/image:64x32/filter:3/threads:2/manual_time",
                "run_type": "iteration", "real_time": 1.0, "time_unit": "ms", "iterations": 1,
                "workload": "conv2d", "impl": "omp", "side": "cpu", "algorithm": "",
                "axes": {"filter": 3, "image": "64x32", "threads": 2, "extra": 1}}]
    path2 = tmp_path / "ordered.json"
    path2.write_text(json.dumps({"context": {}, "benchmarks": ordered}))
    (conv,) = load_run(path2).rows
    assert list(conv.args) == ["image", "filter", "threads", "extra"]
    assert conv.size_key == ("image:64x32", "filter:3", "extra:1")
    old = rows["scan/cuda/dtype:int32/n:1048576/block:256"]
    assert (old.workload, old.impl) == ("scan", "cuda") and not old.typed
    assert old.args == {"dtype": "int32", "n": "1048576", "block": "256"}
    assert old.is_gpu
