"""The report's "Several GPUs" section: collectives beside MPI, the peer-to-peer matrix, the host
feeding every GPU, scaling efficiency, and the limiter the summary gives these rows."""

from pathlib import Path

import pytest

from reports import multi_gpu, summary
from reports.loader import load_run
from reports.render import render

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
    rows += [peer(s, d, size, access, us, "NV18")
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
    return write_run(tmp_path / "run.json", two_gpu_rows(),
                     {"gpu_links": "PCIe gen5 x16 (max gen5 x16); NVLink 18 active (4.0) to NVSwitch"})


def section(markdown: str) -> str:
    start = markdown.index("## Several GPUs")
    return markdown[start:markdown.index("## Run context", start)]


def test_collectives_sit_beside_mpi_with_the_ratio(two_gpu_run, tmp_path):
    text = section(render([two_gpu_run], tmp_path / "out").markdown.read_text())
    tables = markdown_tables(text)
    all_reduce = tables[0]
    assert all_reduce[0] == ["size", "ranks", "NCCL time", "NCCL algbw", "NCCL busbw", "MPI time",
                             "MPI busbw", "NCCL faster than MPI"]
    across = [line for line in all_reduce[1:] if line[1] == "2 (across ranks)"]
    one_process = [line for line in all_reduce[1:] if line[1] == "2 (one process)"]
    assert len(across) == 2 and len(one_process) == 2
    big = next(line for line in across if line[0] == "1 GiB")
    assert big[-1] == "50×"  # MPI's 210 ms over NCCL's 4.2 ms
    assert next(line for line in one_process if line[0] == "1 GiB")[-1] == "52.5×"
    assert "NVLink 18 active (4.0) to NVSwitch" in text
    assert "nothing crosses a link" not in text


def test_peer_matrix_names_the_link_and_the_aggregates(two_gpu_run, tmp_path):
    text = section(render([two_gpu_run], tmp_path / "out").markdown.read_text())
    matrices = [t for t in markdown_tables(text) if t[0][0] == "src \\ dst"]
    assert len(matrices) == 2  # peer access on and off
    on = matrices[0]
    assert on[0] == ["src \\ dst", "GPU 0", "GPU 1"]
    assert on[1][1] == "–" and on[1][2].endswith("(NV18)")
    assert "Latency (8 B with peer access): 2 µs to 2 µs over 2 ordered pairs." in text
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
    assert multi_gpu.section_blocks(load_run(plain)) == []


def test_the_one_gpu_run_says_nothing_crossed_a_link(tmp_path):
    if not H200_RUN.exists():
        pytest.skip("no committed H200 run")
    text = section(render([H200_RUN], tmp_path / "h200").markdown.read_text())
    assert "nothing crosses a link" in text
    assert "No pair of GPUs measured: needs 2 GPUs" in text
    assert "efficiency is 1 by definition" in text
    assert "MPI time" not in text  # no mpirun there: no MPI columns


def test_devices_puts_each_devices_run_side_by_side(tmp_path):
    from reports.cli import main
    runs = []
    for device, us, bus in ((0, 10.0, "0000:19:00.0"), (2, 12.5, "0000:3b:00.0")):
        rows = [row("dot/cuda/n:1000", "dot", "cuda", us),
                row("vector_add/cuda/n:1000", "vector_add", "cuda", us,
                    error="skipped here" if device else None)]
        runs.append(str(write_run(tmp_path / f"run-gpu{device}.json", rows,
                                  {"cuda_visible_devices": str(device), "gpu_pci_bus_id": bus,
                                   "gpu_name": "NVIDIA H200",
                                   "gpu_bw_copy_bytes_per_s": "4.2e12"})))
    assert main(["devices", *runs, "--out", str(tmp_path / "out")]) == 0
    text = (tmp_path / "out" / "devices.md").read_text()
    ceilings, times = markdown_tables(text)
    assert ceilings[1] == ["GPU 0 (0000:19:00.0)", "NVIDIA H200", "–", "4,200 GB/s copy (read + write)"]
    assert times[0][-1] == "GPU 2 (0000:3b:00.0) ÷ GPU 0 (0000:19:00.0)"
    assert times[1] == ["dot/cuda/n:1000", "10 µs", "12.5 µs", "1.25×"]
    assert len(times) == 2  # the row skipped on GPU 2 is not compared
    assert main(["devices", runs[0], "--out", str(tmp_path / "one")]) == 2
