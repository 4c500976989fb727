"""The report's "Several GPUs" section: collectives beside MPI (in one run or merged runs), the
peer-to-peer matrices, the host feeding every GPU, scaling efficiency, its chart, the limiter the
summary gives these rows, and `twinbench-report devices`. Synthetic rows for 2 and 8 GPUs (MPI rows exist
only in runs under mpirun) and the committed one-GPU H200 run."""

from pathlib import Path

import pytest

from twinbench.report import headline, multi_gpu, summary
from twinbench.report.loader import load_run, merge_runs
from twinbench.report.render import render

from conftest import markdown_tables, single, write_run

ROOT = Path(__file__).resolve().parents[2]
H200_RUN = ROOT / "results" / "nvidia-h200" / "2026-12-04" / "run.json.gz"


def row(name: str, workload: str, impl: str, us: float, counters: dict | None = None,
        fields: dict | None = None, error: str | None = None) -> dict:
    entry = single(name + "/manual_time", us / 1000.0)
    entry.update({"workload": workload, "impl": impl, "side": "gpu" if impl != "mpi" else "cpu",
                  "algorithm": "", "mode": "", "precision": ""})
    entry.update(counters or {})
    entry.update(fields or {})
    if error:
        entry.update({"error_occurred": True, "error_message": error, "real_time": 0})
    return entry


def collective(impl: str, op: str, size: int, axis: str, ranks: int, us: float) -> dict:
    algbw = size / (us * 1e-6) / 1e9
    factor = {"all_reduce": 2 * (ranks - 1) / ranks, "broadcast": 1.0}.get(op, (ranks - 1) / ranks)
    return row(f"collectives/{impl}/op:{op}/bytes:{size}/{axis}:{ranks}", "collectives", impl, us,
               {"algbw_GBps": algbw, "busbw_GBps": algbw * factor, "ranks": ranks,
                "bytes_per_second": algbw * 1e9})


def peer(src: int, dst: int, size: int, access: str, us: float, link: str) -> dict:
    return row(f"peer_copy/cuda/src:{src}/dst:{dst}/bytes:{size}/peer_access:{access}",
               "peer_copy", "cuda", us, {"bytes_per_second": size / (us * 1e-6)},
               {"link": link})


def two_gpu_rows() -> list[dict]:
    rows = [collective("nccl", "all_reduce", size, "gpus", 2, us)
            for size, us in ((8, 12.0), (1 << 30, 4000.0))]
    rows += [collective("nccl", "all_reduce", size, "ranks", 2, us)
             for size, us in ((8, 15.0), (1 << 30, 4200.0))]
    rows += [collective("mpi", "all_reduce", size, "ranks", 2, us)
             for size, us in ((8, 3.0), (1 << 30, 210000.0))]
    rows += [peer(s, d, size, access, us, "NV18" if s == 0 else "SYS")
             for s, d in ((0, 1), (1, 0)) for size, us in ((8, 2.0), (1 << 28, 700.0))
             for access in ("on", "off")]
    rows.append(row("peer_copy/cuda/src:all/dst:all/bytes:268435456/peer_access:on", "peer_copy",
                    "cuda", 800.0, {"bytes_per_second": 2 * (1 << 28) / 800e-6, "pairs": 2}))
    rows.append(row("peer_copy/cuda/src:host/dst:all/bytes:268435456", "peer_copy", "cuda",
                    9000.0, {"bytes_per_second": 2 * (1 << 28) / 9000e-6, "devices": 2}))
    rows += [row(f"scaling/cuda/target:poisson/scaling:strong/gpus:{g}/n:100000000", "scaling",
                 "cuda", us, {"efficiency": eff})
             for g, us, eff in ((1, 200.0, 1.0), (2, 110.0, 200 / 220))]
    return rows


@pytest.fixture
def two_gpu_run(tmp_path):
    links = "PCIe gen5 x16 (max gen5 x16); NVLink 18 active (4.0) to NVSwitch"
    return write_run(tmp_path / "run.json", two_gpu_rows(), {"gpu_links": links})


def section(markdown: str) -> str:
    start = markdown.index("## Several GPUs")
    return markdown[start:markdown.index("## Run context", start)]


def test_collectives_sit_beside_mpi_with_the_ratio(two_gpu_run, tmp_path):
    text = section(render([two_gpu_run], tmp_path / "out").markdown.read_text())
    tables = markdown_tables(text)
    all_reduce = tables[0]
    assert all_reduce[0] == ["size", "ranks", "NCCL time", "NCCL algbw", "NCCL busbw", "MPI time",
                             "MPI algbw", "MPI busbw", "NCCL faster than MPI"]
    across = [line for line in all_reduce[1:] if line[1] == "2 (across ranks)"]
    one_process = [line for line in all_reduce[1:] if line[1] == "2 (one process)"]
    assert len(across) == 2 and len(one_process) == 2
    big = next(line for line in across if line[0] == "1 GiB")
    assert big[-1] == "50×"  # MPI's 210 ms over NCCL's 4.2 ms
    assert next(line for line in one_process if line[0] == "1 GiB")[-1] == "52.5×"
    assert "NVLink 18 active (4.0) to NVSwitch" in text
    assert "nothing crossed a link" not in text


def test_peer_matrix_names_the_link_and_the_aggregates(two_gpu_run, tmp_path):
    text = section(render([two_gpu_run], tmp_path / "out").markdown.read_text())
    matrices = [t for t in markdown_tables(text) if t[0][0] == "src \\ dst"]
    assert len(matrices) == 3  # GB/s with peer access on and off, then the latency
    on, off, latency = matrices
    assert on[0] == ["src \\ dst", "GPU 0", "GPU 1"]
    assert on[1][1] == "–" and on[1][2] == "383 GB/s (NV18)"  # 256 MiB in 700 µs
    assert "Every pair is joined by" not in text  # the pairs differ: each cell names its link
    assert "Latency: time per 8 B copy, peer access on:" in text
    assert latency[1:] == [["GPU 0", "–", "2 µs"], ["GPU 1", "2 µs", "–"]]
    assert "All pairs at once:" in text and "2 pairs" in text
    assert "Host to every GPU at once:" in text and "2 devices" in text


def test_scaling_table_has_the_efficiency(two_gpu_run, tmp_path):
    text = section(render([two_gpu_run], tmp_path / "out").markdown.read_text())
    scaling = next(t for t in markdown_tables(text) if t[0][0] == "target")
    assert scaling[2] == ["poisson", "strong", "2", "cuda", "110 µs", "0.909"]
    assert "efficiency is 1 by definition" not in text


def test_rows_across_gpus_get_no_ceiling_limiter(two_gpu_run):
    run = load_run(two_gpu_run)
    for r in run.rows:
        words = summary.gpu_limiter(r, run.context)
        assert "host-timed (see Several GPUs)" in words, (r.name, words)
        assert "copy bandwidth" not in words


def test_skipped_pairs_say_why_and_other_runs_have_no_section(tmp_path):
    rows = [row("peer_copy/cuda/src:0/dst:1/bytes:8/peer_access:on", "peer_copy", "cuda", 1.0,
                error="needs 2 GPUs: this process sees 1")]
    path = write_run(tmp_path / "one.json", rows + [row("dot/cuda/n:1000", "dot", "cuda", 5.0)])
    text = section(render([path], tmp_path / "one").markdown.read_text())
    assert "No pair of GPUs measured: needs 2 GPUs: this process sees 1." in text
    plain = write_run(tmp_path / "plain.json", [row("dot/cuda/n:1000", "dot", "cuda", 5.0)])
    assert "## Several GPUs" not in render([plain], tmp_path / "plain").markdown.read_text()
    assert multi_gpu.section_blocks(load_run(plain)) == ([], None)


def test_a_run_without_a_gpu_says_why_once(tmp_path):
    """The reason a run has no GPU is the opening note's; the collectives and the pairs of GPUs
    point to it rather than repeat it."""
    why = "no CUDA device: no NVIDIA driver is loaded (cudaErrorInsufficientDriver)"
    rows = [row("peer_copy/cuda/src:0/dst:1/bytes:8/peer_access:on", "peer_copy", "cuda", 1.0,
                error=why),
            row("collectives/nccl/op:all_reduce/bytes:8/gpus:1", "collectives", "nccl", 1.0,
                error=why),
            row("dot/serial/n:1000", "dot", "serial", 5.0, fields={"side": "cpu"})]
    path = write_run(tmp_path / "cpu.json", rows, {"gpu_status": why})
    text = render([path], tmp_path / "cpu").markdown.read_text()
    assert text.count(why) == 1, text
    assert "No pair of GPUs measured: no GPU in this run: the note at the top says why." in text
    assert "Every collectives row skipped: no GPU in this run: the note at the top says why." \
        in text


def test_the_one_gpu_run_says_nothing_crossed_a_link(tmp_path):
    if not H200_RUN.exists():
        pytest.skip("no committed H200 run")
    text = section(render([H200_RUN], tmp_path / "h200").markdown.read_text())
    assert "nothing crossed a link" in text
    assert "No pair of GPUs measured: needs 2 GPUs" in text
    assert "efficiency is 1 by definition" in text
    assert "MPI time" not in text  # no mpirun there: no MPI columns
    assert "![Collectives: bandwidth against size](collectives.png)" in text
    assert (tmp_path / "h200" / "collectives.png").stat().st_size > 10_000


def test_devices_puts_each_devices_run_side_by_side(tmp_path):
    from twinbench.report.cli import main
    runs = []
    for device, us, bus in ((0, 10.0, "0000:19:00.0"), (2, 12.5, "0000:3b:00.0")):
        rows = [row("dot/cuda/n:1000", "dot", "cuda", us),
                row("vector_add/cuda/n:1000", "vector_add", "cuda", us,
                    error="skipped here" if device else None)]
        runs.append(str(write_run(tmp_path / f"run-gpu{device}.json", rows,
                                  {"cuda_visible_devices": str(device), "gpu_pci_bus_id": bus,
                                   "gpu_name": "NVIDIA H200",
                                   "gpu_bw_copy_bytes_per_s": "4.2e12",
                                   "gpu_bw_read_bytes_per_s": "4.5e12",
                                   "gpu_roof_fp32_flops": "6e13"})))
    assert main(["devices", *runs, "--out", str(tmp_path / "out")]) == 0
    text = (tmp_path / "out" / "devices.md").read_text()
    ceilings, times = markdown_tables(text)
    assert ceilings[0][3:] == ["copy bandwidth", "read bandwidth", "write bandwidth",
                               "triad bandwidth", "FP32 roof"]
    assert ceilings[1] == ["GPU 0 (0000:19:00.0)", "NVIDIA H200", "–", "4,200 GB/s",
                           "4,500 GB/s", "–", "–", "60 TFLOP/s (measured)"]
    assert times[0][-1] == "GPU 2 (0000:3b:00.0) ÷ GPU 0 (0000:19:00.0)"
    assert times[1] == ["dot/cuda/n:1000", "10 µs", "12.5 µs", "1.25×"]
    assert len(times) == 2  # the row skipped on GPU 2 is not compared
    assert main(["devices", runs[0], "--out", str(tmp_path / "one")]) == 2


# ----------------------------------------------------------------- eight GPUs, MPI in its own run

SIZES = (8, 1 << 20, 1 << 30)


def nccl_8_rows() -> list[dict]:
    """NCCL over 8 GPUs in one process: every op at three sizes, 100 µs + bytes / 200 GB/s."""
    return [collective("nccl", op, size, "gpus", 8, 100.0 + size / 200e3)
            for op in multi_gpu.OPS for size in SIZES]


def mpi_8_rows() -> list[dict]:
    """MPI over 8 ranks' host memory (a run of its own, under mpirun): 20 µs + bytes / 10 GB/s."""
    return [collective("mpi", op, size, "ranks", 8, 20.0 + size / 10e3)
            for op in ("all_reduce", "broadcast") for size in SIZES]


def peer_8_rows() -> list[dict]:
    rows = [peer(s, d, size, access, us, "NV18")
            for s in range(8) for d in range(8) if s != d
            for size, us in ((8, 3.0 + s), (1 << 28, 700.0)) for access in ("on", "off")]
    rows.append(row("peer_copy/cuda/src:all/dst:all/bytes:268435456/peer_access:on", "peer_copy",
                    "cuda", 2000.0, {"bytes_per_second": 56 * (1 << 28) / 2000e-6, "pairs": 56}))
    return rows


def scaling_8_rows() -> list[dict]:
    rows = []
    for target, impl, n in (("poisson", "cuda", 100000000), ("sgemm", "cublas", 4096)):
        for mode in ("strong", "weak"):
            for g in (1, 2, 4, 8):
                us = 200.0 / g * 1.1 if mode == "strong" and g > 1 else 220.0 if g > 1 else 200.0
                eff = 200.0 / (g * us) if mode == "strong" else 200.0 / us
                rows.append(row(f"scaling/{impl}/target:{target}/scaling:{mode}/gpus:{g}/n:{n}",
                                "scaling", impl, us, {"efficiency": eff, "gpus": g}))
    return rows


def cpu_gpu_pair() -> list[dict]:
    """One like-for-like workload, for the headline to count."""
    return [row("dot/cuda/n:1000", "dot", "cuda", 5.0), row("dot/omp/n:1000", "dot", "omp", 50.0)]


@pytest.fixture
def eight_gpu_runs(tmp_path):
    gpus = write_run(tmp_path / "gpus.json",
                     nccl_8_rows() + peer_8_rows() + scaling_8_rows() + cpu_gpu_pair(),
                     {"gpu_links": "NVLink 18 active (4.0) to NVSwitch"})
    mpi = write_run(tmp_path / "mpi.json", mpi_8_rows())
    return gpus, mpi


def test_merged_mpi_run_sits_beside_nccl_over_eight_gpus(eight_gpu_runs, tmp_path):
    report = render(list(eight_gpu_runs), tmp_path / "out")
    text = section(report.markdown.read_text())
    tables = markdown_tables(text)
    all_reduce, all_gather = tables[0], tables[1]
    big = next(line for line in all_reduce[1:] if line[0] == "1 GiB")
    # NCCL 1 GiB in 100 µs + 5369 µs; MPI in 20 µs + 107374 µs: 19.6 times slower.
    assert big[1] == "8 (one process)" and big[-1] == "19.6×"
    algbw = (1 << 30) / (100e-6 + (1 << 30) / 200e9) / 1e9
    assert big[3] == f"{algbw:.3g} GB/s" and big[4] == f"{algbw * 2 * 7 / 8:.3g} GB/s"
    assert len(all_gather[0]) == 5  # no MPI all_gather: no MPI columns
    assert report.out_dir / "collectives.png" in report.charts
    assert "![Collectives: bandwidth against size](collectives.png)" in text


def test_eight_gpu_matrices_and_aggregate(eight_gpu_runs, tmp_path):
    text = section(render([eight_gpu_runs[0]], tmp_path / "out").markdown.read_text())
    on, off, latency = [t for t in markdown_tables(text) if t[0][0] == "src \\ dst"]
    for matrix in (on, off, latency):
        assert len(matrix) == 9 and all(len(line) == 9 for line in matrix)
        assert all(matrix[i][i] == "–" for i in range(1, 9))
    assert latency[8][1] == "10 µs"  # GPU 7's 8 B copy: 3 + 7 µs
    assert "Every pair is joined by NV18 (NVML)." in text and on[1][2] == "383 GB/s"
    assert "All pairs at once: 7,516 GB/s at 256 MiB each, 56 pairs." in text
    assert "MPI time" not in text


def test_eight_gpu_scaling_table(eight_gpu_runs, tmp_path):
    text = section(render([eight_gpu_runs[0]], tmp_path / "out").markdown.read_text())
    scaling = next(t for t in markdown_tables(text) if t[0][0] == "target")
    assert len(scaling) == 1 + 16
    assert ["poisson", "strong", "8", "cuda", "27.5 µs", "0.909"] in scaling
    assert ["sgemm", "weak", "4", "cublas", "220 µs", "0.909"] in scaling
    assert "efficiency is 1 by definition" not in text


def test_rows_across_gpus_stay_out_of_the_headline(eight_gpu_runs):
    run = merge_runs([load_run(p) for p in eight_gpu_runs])
    lines = summary.summary_lines(run.rows, run.context)
    text = headline.gpu_headline(lines, run.context)
    assert "10.0× faster like for like on 1 of 1 workload" in text
    across = [line for line in lines if multi_gpu.is_multi_gpu(line.best.gpu or line.best.cpu)]
    assert {line.workload for line in across} == {"collectives", "peer_copy", "scaling"}
    for line in across:
        assert line.best.cpu is None and line.gpu_speedup is None  # MPI is no CPU contender
        assert line.limiter.startswith("GPU: ") and "see Several GPUs" in line.limiter
        assert "copy bandwidth" not in line.limiter and "% of" not in line.limiter


def test_mpi_rows_without_nccl_get_their_own_lines(tmp_path):
    rows = mpi_8_rows() + [row("collectives/nccl/op:all_reduce/bytes:8/ranks:8", "collectives",
                               "nccl", 1.0, error="rank 0: no GPU")]
    text = section(render([write_run(tmp_path / "mpi.json", rows)], tmp_path / "out")
                   .markdown.read_text())
    all_reduce = markdown_tables(text)[0]
    assert all_reduce[1][:5] == ["8 B", "8 (MPI ranks)", "–", "–", "–"]
    assert all_reduce[1][-1] == "–"
    assert "nothing crossed a link" not in text  # no NCCL row measured, none of one rank


def test_devices_matches_rows_by_their_fields(tmp_path):
    from twinbench.report import devices
    runs = []
    for device, algorithm in ((0, ""), (1, "other")):
        rows = [row("dot/cuda/n:1000", "dot", "cuda", 10.0 + device),
                row("scan/cuda/n:1000", "scan", "cuda", 20.0, fields={"algorithm": algorithm})]
        runs.append(load_run(write_run(tmp_path / f"gpu{device}.json", rows,
                                       {"cuda_visible_devices": str(device)})))
    times = devices.times_table(runs, ["GPU 0", "GPU 1"])
    # scan's rows share a name but not their algorithm field: not the same benchmark.
    assert times.rows == [["dot/cuda/n:1000", "10 µs", "11 µs", "1.1×"]]
