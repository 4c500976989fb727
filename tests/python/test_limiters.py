"""The GPU limiter without Nsight Compute's counters (a run without the profile pass: what
scripts/run.sh gives where ncu cannot read the counters): a kernel under both of its limits is
placed on its roofline, "too few threads" only under a wave, "latency / other" only where the
row's model has neither bytes nor FLOPs. Over the H200 run results/nvidia-h200/2026-12-02c (in git history)
(tests/python/data/h200_limiters.json, made by make_limiter_sample.py) with its ncu_* keys
removed, and the counters' own words kept aside to compare with."""

from __future__ import annotations

import json

import pytest
from conftest import DATA, markdown_tables, single, write_run

from twinbench.report import ncu
from twinbench.report import speedup_chart as sc
from twinbench.report import summary as su
from twinbench.report.loader import load_run
from twinbench.report.render import render

SAMPLE = DATA / "h200_limiters.json"
OTHER = su.OTHER
BOUND = (sc.MEMORY, sc.COMPUTE)


def without_counters(doc: dict) -> dict:
    """The run as one without a profile pass: no ncu_* key in any row or in the context."""
    strip = lambda d: {k: v for k, v in d.items() if not k.startswith("ncu_")}  # noqa: E731
    return {"context": strip(doc["context"]),
            "benchmarks": [strip(e) for e in doc["benchmarks"]]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """(with counters, without counters) of the same committed run."""
    folder = tmp_path_factory.mktemp("limiters")
    bare = folder / "run.json"
    bare.write_text(json.dumps(without_counters(json.loads(SAMPLE.read_text()))))
    return load_run(SAMPLE), load_run(bare)


def kernel_rows(run):
    return [r for r in run.rows if ncu.profilable(r)]


def has_model(row) -> bool:
    return bool(row.counter("bytes_per_iter")) or bool(row.counter("flop_per_iter"))


def test_the_sample_has_no_counters_once_stripped(runs):
    profiled, bare = runs
    assert sum(ncu.has_profile(r) for r in profiled.rows) >= 30
    assert not any(ncu.has_profile(r) for r in bare.rows)
    assert not ncu.profiled_run(bare.context)


def test_no_gpu_kernel_row_with_a_work_model_reads_latency_other(runs):
    _, bare = runs
    rows = [r for r in kernel_rows(bare) if has_model(r)]
    assert len(rows) >= 100
    unplaced = {r.name: su.gpu_limiter(r, bare.context) for r in rows
                if su.gpu_limiter(r, bare.context).startswith(OTHER)}
    assert not unplaced


def test_rows_the_counters_call_bound_are_bound_by_the_rules_too(runs):
    """Every row Nsight Compute calls bandwidth- or compute-bound gets memory bandwidth or
    compute from the rules alone (the side can differ near the ridge: conv2d's model puts it at
    12 FLOP/B against a ridge of 14, the counters see its FMA pipe at 61 %)."""
    profiled, bare = runs
    rules = {r.name: su.gpu_limiter(r, bare.context) for r in kernel_rows(bare)}
    bound = {r.name: ncu.limiter_words(r) for r in kernel_rows(profiled)
             if ncu.has_profile(r) and sc.limiter_class(ncu.limiter_words(r)) in BOUND}
    assert len(bound) >= 25
    wrong = {n: (words, rules[n]) for n, words in bound.items()
             if sc.limiter_class(rules[n]) not in BOUND}
    assert not wrong


def test_the_summary_names_a_bound_for_the_rows_that_read_latency_other(runs):
    _, bare = runs
    lines = {line.workload: line.limiters for line in
             su.summary_lines(bare.rows, bare.context)}
    assert lines["conv2d"]["GPU"].startswith(
        "memory bandwidth (under the ceiling: 56 % of copy; roofline: 12 FLOP/B against a "
        "ridge of 14)")
    assert lines["nested_loop"]["GPU"].startswith(
        "compute (under the roof: 10 % of the FP32 roof")
    assert lines["poisson"]["GPU"] == ("memory bandwidth (under the ceiling: 56 % of write; "
                                       "roofline by bytes alone: its model counts no FLOPs)")
    assert lines["streams"]["GPU"].startswith("compute (under the roof: 48 % of the FP32 roof")
    # the rows the rules named before stay as they were
    assert lines["vector_add"]["GPU"] == "memory bandwidth (100 % of add)"
    assert lines["sgemm"]["GPU"].startswith("compute (84 % of the measured FP32 roof)")
    assert lines["lucas"]["GPU"] == "too few threads (2 blocks for 132 SMs)"
    assert lines["sync"]["GPU"].startswith("latency (its model has no bytes")
    assert not [w for w, sides in lines.items() if sides.get("GPU", "").startswith(OTHER)]


def test_the_rendered_report_names_no_gpu_row_latency_other(runs, tmp_path):
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(without_counters(json.loads(SAMPLE.read_text()))))
    markdown = render([bare], tmp_path / "out").markdown.read_text()
    table = next(t for t in markdown_tables(markdown) if t[0][-1] == "limiter")
    # The cell: "GPU: memory bandwidth; e2e: PCIe transfers; CPU: ..." (no brackets left).
    gpu = {row[0]: dict(part.split(": ", 1) for part in row[-1].split("; ") if ": " in part)
           .get("GPU") for row in table[1:]}
    assert gpu["conv2d"] == "memory bandwidth" and gpu["nested_loop"] == "compute"
    assert gpu["poisson"] == "memory bandwidth"
    assert not [w for w, text in gpu.items() if text and text.startswith(OTHER)]


# ----------------------------------------------------------------- the rules, one at a time

CONTEXT = {"gpu_sms": 132, "gpu_roof_fp32_flops": 60e12, "gpu_roof_bf16_flops": 800e12,
           "gpu_bw_copy_bytes_per_s": 4e12, "gpu_bw_read_bytes_per_s": 4.5e12,
           "gpu_peak_fp32_flops": 67e12}


def gpu_row(tmp_path, name, us, flop=0.0, nbytes=0.0, pct=None, context=CONTEXT, **counters):
    entry = single(name + "/manual_time", us / 1000)
    entry.update({"side": "gpu", "mode": "kernel", "bytes_per_iter": nbytes,
                  "flop_per_iter": flop, "grid_blocks": 4096, "active_blocks_per_sm": 8,
                  **counters})
    if flop:
        entry["flop_per_s"] = flop / (us * 1e-6)
    if pct is not None:
        entry.update(pct_ceiling=pct, ceiling_pattern=2, ceiling_bytes_per_s=4e12)
    run = load_run(write_run(tmp_path / "run.json", [entry], context))
    return su.gpu_limiter(run.rows[0], run.context)


def test_under_the_ridge_is_memory_bandwidth_with_its_share(tmp_path):
    # 4 FLOP/B against 60e12 / 4e12 = 15: memory side, at 40 % of copy.
    text = gpu_row(tmp_path, "k/cuda/n:1/block:256", 500, flop=4e9, nbytes=1e9, pct=40.0)
    assert text == ("memory bandwidth (under the ceiling: 40 % of copy; roofline: 4 FLOP/B "
                    "against a ridge of 15)")


def test_past_the_ridge_is_compute_with_its_share(tmp_path):
    # 100 FLOP/B; 1e11 FLOP in 5 ms = 20 TFLOP/s, 33 % of the FP32 roof.
    text = gpu_row(tmp_path, "k/cuda/n:1/block:256", 5000, flop=1e11, nbytes=1e9, pct=5.0)
    assert text == ("compute (under the roof: 33 % of the FP32 roof; roofline: 1e+02 FLOP/B "
                    "against a ridge of 15)")


def test_the_ridge_of_the_pipe_its_precision_uses(tmp_path):
    # BF16: a ridge of 800e12 / 4e12 = 200; 100 FLOP/B is on the memory side there, though
    # past the FP32 ridge.
    text = gpu_row(tmp_path, "k/cuda_bf16/n:1/block:256", 5000, flop=1e11, nbytes=1e9,
                   pct=5.0, precision="bf16")
    assert text.startswith("memory bandwidth (under the ceiling: 5 % of copy; roofline: "
                           "1e+02 FLOP/B against a ridge of 2e+02)")


def test_without_a_measured_roof_the_datasheet_peak(tmp_path):
    context = {k: v for k, v in CONTEXT.items() if k != "gpu_roof_fp32_flops"}
    text = gpu_row(tmp_path, "k/cuda/n:1/block:256", 5000, flop=1e11, nbytes=1e9, pct=5.0,
                   context=context)
    assert text.startswith("compute (under the roof: 30 % of the datasheet FP32 roof")


def test_flops_without_bytes_worth_streaming_are_compute(tmp_path):
    text = gpu_row(tmp_path, "nested/cuda_warp/n:1/block:128", 35, flop=2e8, nbytes=8e4)
    assert text == "compute (under the roof: 10 % of the FP32 roof; its model streams under 1 MiB)"


def test_bytes_without_flops_are_placed_by_bytes_alone(tmp_path):
    text = gpu_row(tmp_path, "gen/cuda/n:1/block:1024", 155, nbytes=4e8, pct=56.0)
    assert text == ("memory bandwidth (under the ceiling: 56 % of copy; roofline by bytes "
                    "alone: its model counts no FLOPs)")


def test_too_few_threads_only_under_a_wave(tmp_path):
    one_wave = gpu_row(tmp_path, "gen/cuda/n:1/block:1024", 155, nbytes=4e8, pct=56.0,
                       **{"grid_blocks": 132, "active_blocks_per_sm": 1, "low_occupancy": 1})
    assert one_wave.startswith("memory bandwidth")
    idle_sms = gpu_row(tmp_path, "k/cuda/n:1/block:64", 50, nbytes=4e8, pct=20.0,
                       **{"grid_blocks": 2})
    assert idle_sms == "too few threads (2 blocks for 132 SMs)"


def test_latency_other_only_without_bytes_or_flops(tmp_path):
    # A model of a few bytes is a dependent chain; no model at all (older files) says nothing.
    chain = gpu_row(tmp_path, "chain/cuda/n:1/block:64", 50, nbytes=728)
    assert chain.startswith("latency (its model has no bytes to stream or FLOPs")
    entry = single("old/cuda/n:1/block:256/manual_time", 0.05)
    entry.update(side="gpu", mode="kernel", grid_blocks=4096)
    run = load_run(write_run(tmp_path / "old.json", [entry], CONTEXT))
    assert su.gpu_limiter(run.rows[0], run.context) == OTHER
