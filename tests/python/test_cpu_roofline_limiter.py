"""The CPU limiter under both limits: the side of the roofline the row's model puts it on
(where the host gives no hardware counters, the roofline against the CPU's measured
limits says more than "latency / other")."""

from conftest import single, write_run

from twinbench.report import summary as su
from twinbench.report.loader import load_run

CONTEXT = {"cpu_roof_fp32_flops": 1.0e12, "cpu_bw_add_all_bytes_per_s": 100e9}


def cpu_row(name, ms, flop, nbytes, pct):
    row = single(name, ms)
    row.update(bytes_per_iter=nbytes, flop_per_iter=flop, pct_ceiling=pct, ceiling_pattern=4,
               ceiling_bytes_per_s=100e9, precision="fp32")
    row["flop_per_s"] = flop / (ms * 1e-3)
    return row


def limiter(tmp_path, row):
    run = load_run(write_run(tmp_path / "run.json", [row], CONTEXT))
    return su.cpu_limiter(run.rows[0], run.context)


def test_low_intensity_under_both_limits_is_on_the_memory_side(tmp_path):
    # 1 FLOP/B against a ridge of 10: memory side, at 40 % of add.
    text = limiter(tmp_path, cpu_row("bs/omp/n:1/threads:16", 5.0, 2e8, 2e8, 40.0))
    assert text.startswith("memory bandwidth (under the ceiling: 40 % of add; roofline: 1 FLOP/B")


def test_high_intensity_under_both_limits_is_on_the_compute_side(tmp_path):
    # 100 FLOP/B: compute side; 2e10 FLOP in 50 ms = 0.4 TFLOP/s, 40 % of the roof.
    text = limiter(tmp_path, cpu_row("conv/omp/n:1/threads:16", 50.0, 2e10, 2e8, 4.0))
    assert text.startswith("compute (under the roof: 40 % of the FP32 roof")


def test_no_flops_in_the_model_says_so(tmp_path):
    text = limiter(tmp_path, cpu_row("gen/omp/n:1/threads:16", 5.0, 0.0, 4e8, 38.0))
    assert "its model counts no FLOPs" in text
