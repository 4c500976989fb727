"""Numbers in report.md: computed from the GPU sample's round values."""

from __future__ import annotations

import re

import pytest


def _section(markdown: str, title: str) -> str:
    start = markdown.index(f"### {title}\n")
    end = markdown.find("\n### ", start + 1)
    return markdown[start:end if end > 0 else None]


def _row(section: str, impl: str, args: str) -> list[str]:
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) > 2 and cells[0] == impl and cells[1] == args:
            return cells
    raise AssertionError(f"no row {impl} {args}")


@pytest.fixture(scope="module")
def markdown(gpu_report):
    return gpu_report.markdown.read_text()


def test_speedups_over_serial_and_omp(markdown):
    section = _section(markdown, "vector_add — n:268435456")
    omp = _row(section, "omp", "threads:16")
    assert omp[6] == "8.00×"         # 320 ms / 40 ms
    assert omp[7] == "1.00×"
    cuda = _row(section, "cuda", "block:256 mode:kernel")
    assert cuda[2] == "800 µs"
    assert cuda[6] == "400.00×"      # 320 ms / 0.8 ms
    assert cuda[7] == "50.00×"       # 40 ms / 0.8 ms
    e2e = _row(section, "cuda", "block:256 mode:e2e")
    assert e2e[2].startswith("130 ms ± ")  # median of repetitions, with stddev


def test_bandwidth_and_flops_cells(markdown):
    section = _section(markdown, "vector_add — n:268435456")
    serial = _row(section, "serial", "–")
    assert serial[3] == "10.1"       # 12 B * 2^28 / 0.32 s = 10.07 GB/s
    assert serial[4] == "0.839"      # 2^28 FLOP / 0.32 s
    cuda = _row(section, "cuda", "block:256 mode:kernel")
    assert cuda[3] == "4,027"        # 3.22 GB / 0.8 ms
    # vector_add reads 2 bytes for each written: held to the add pattern (4350 GB/s).
    assert cuda[5] == "92.6 % of add"


def test_grayscale_omp_speedup(markdown):
    section = _section(markdown, "grayscale — w:3840 h:2160")
    assert _row(section, "omp", "threads:16")[6] == "8.00×"  # 8 ms / 1 ms


def test_context_table_on_top(markdown):
    head = markdown[: markdown.index("## Charts")]
    assert "| GPU | Sample H200 (synthetic) (cc 9.0, 132 SMs) |" in head
    assert "| CUDA driver | 12.8 |" in head
    assert "| git revision | abc1234 |" in head
    assert "| gpu_status | available |" in head


def test_every_size_has_a_table(markdown):
    sizes = re.findall(r"^### matmul — (n:\d+)$", markdown, flags=re.M)
    assert sizes == ["n:64", "n:128", "n:256", "n:512", "n:1024"]


def test_skipped_rows_collapse_to_one_line_per_reason(tmp_path):
    from conftest import write_run
    from twinbench.report.loader import load_run
    from twinbench.report.tables import skipped_table
    entries = [{"name": f"vector_add/cuda/n:1/block:{b}/manual_time", "error_occurred": True,
                "error_message": "no CUDA device: no driver", "iterations": 0}
               for b in (64, 128, 256)]
    entries.append({"name": "dot/cuda/n:1/block:64/manual_time", "error_occurred": True,
                    "error_message": "needs 9 GiB of host memory, 2 GiB available",
                    "iterations": 0})
    table = skipped_table(load_run(write_run(tmp_path / "r.json", entries)))
    assert table.rows[0][:2] == ["no CUDA device: no driver", "3"]
    assert table.rows[0][2] == "vector_add/cuda/n:1/block:64 and 2 more"
    assert table.rows[1] == ["needs 9 GiB of host memory, 2 GiB available", "1",
                             "dot/cuda/n:1/block:64"]
