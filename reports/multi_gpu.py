"""The report's section for the workloads measured across GPUs: NCCL's collectives (beside the
same collectives over MPI between host processes, where the run has them), the peer-to-peer
matrix and the host feeding every GPU at once, and the scaling rows' efficiency.

These rows are timed on the host across devices and links, with no ceiling of the GPU's own to
be held to, so the summary's limiter column points here (`limiter`) instead of naming a ceiling.
Rows are told apart by their description's fields (workload, impl, axes), never by their names.
"""

from __future__ import annotations

from .document import Block, Heading, Paragraph, Table
from .loader import Row, Run
from .units import fmt_bytes, fmt_num, fmt_time

# The workloads whose rows run across GPUs (bench/collectives.cpp, peer_copy.cpp, scaling.cpp).
WORKLOADS = ("collectives", "peer_copy", "scaling")
SECTION = "Several GPUs"
LIMITER_WORDS = {"collectives": "NCCL over the links between devices",
                 "peer_copy": "the links between devices and the host",
                 "scaling": "the work spread over GPUs"}
OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all")


def is_multi_gpu(row: Row) -> bool:
    return row.workload in WORKLOADS


def limiter(row: Row) -> str | None:
    """The summary's limiter for a row across GPUs, or None for any other row."""
    what = LIMITER_WORDS.get(row.workload)
    return f"{what}, host-timed (see {SECTION})" if what else None


def _gbps(value: float | None) -> str:
    return "–" if value is None else f"{fmt_num(value)} GB/s"


def _int_arg(row: Row, key: str) -> int | None:
    value = row.args.get(key)
    return int(value) if value is not None and value.isdigit() else None


def _ranks(row: Row) -> int:
    """The ranks of a collectives row: its ranks axis (across processes) or gpus axis (one
    process), else its counter."""
    for key in ("ranks", "gpus"):
        n = _int_arg(row, key)
        if n is not None:
            return n
    return int(row.counter("ranks") or 1)


def _measured(rows: list[Row]) -> list[Row]:
    return [r for r in rows if not r.skipped and r.time_s]


def _skip_reason(rows: list[Row]) -> str | None:
    reasons = sorted({r.error_message for r in rows if r.skipped and r.error_message})
    return "; ".join(reasons) if reasons else None


# ----------------------------------------------------------------- collectives

def _nccl_key(row: Row) -> tuple[str, str]:
    """("one process", "gpus") for NCCL over the GPUs one process sees; ("ranks", ...) for NCCL
    across MPI ranks, one GPU each."""
    return ("ranks", "across ranks") if "ranks" in row.args else ("gpus", "one process")


def _collective_line(size: int, nccl: Row, mpi: Row | None) -> list[str]:
    nccl_bus, mpi_bus = nccl.counter("busbw_GBps"), mpi.counter("busbw_GBps") if mpi else None
    nccl_alg, mpi_alg = nccl.counter("algbw_GBps"), mpi.counter("algbw_GBps") if mpi else None
    ratio = "–"
    if mpi is not None and mpi.time_s and nccl.time_s:
        ratio = f"{mpi.time_s / nccl.time_s:.3g}×"
    where = "across ranks" if "ranks" in nccl.args else "one process"
    return [fmt_bytes(size), f"{_ranks(nccl)} ({where})", fmt_time(nccl.time_s), _gbps(nccl_alg),
            _gbps(nccl_bus), fmt_time(mpi.time_s) if mpi else "–",
            _gbps(mpi_bus if mpi_bus else mpi_alg) if mpi else "–", ratio]


def _by_size(rows: list[Row], impl: str, op: str) -> dict[tuple[int, int, str], Row]:
    out = {}
    for r in rows:
        size = _int_arg(r, "bytes")
        if r.impl == impl and r.args.get("op") == op and size is not None:
            out[(size, _ranks(r), _nccl_key(r)[0])] = r
    return out


def collectives_table(rows: list[Row], op: str) -> Table | None:
    nccl = _by_size(rows, "nccl", op)
    mpi = {(size, ranks): r for (size, ranks, _), r in _by_size(rows, "mpi", op).items()}
    if not nccl:
        return None
    lines = [_collective_line(size, row, mpi.get((size, ranks)))
             for (size, ranks, _), row in sorted(nccl.items())]
    headers = ["size", "ranks", "NCCL time", "NCCL algbw", "NCCL busbw", "MPI time", "MPI busbw",
               "NCCL faster than MPI"]
    if not mpi:  # a run without mpirun: no MPI columns
        headers, lines = headers[:5], [line[:5] for line in lines]
    return Table(headers, lines)


COLLECTIVES_TEXT = (
    "NCCL's collectives of float32, validated exactly, timed on the host around the launch and "
    "every rank's wait, as nccl-tests times them. algbw = bytes / time; busbw = algbw × the "
    "op's bus factor (2(n-1)/n for all_reduce, (n-1)/n for all_gather, reduce_scatter and "
    "all_to_all, 1 for broadcast), what each link carried. MPI: the same collective between "
    "host processes over their memory (runs under mpirun), the CPU's counterpart; the last "
    "column is MPI's time over NCCL's at the same size and ranks.")


def _one_rank_note(rows: list[Row]) -> Paragraph | None:
    if any(_ranks(r) > 1 for r in rows if r.impl == "nccl"):
        return None
    return Paragraph("With one rank nothing crosses a link: these rows time NCCL's copy within "
                     "the GPU and its launch, and busbw is 0 (broadcast's factor is 1).",
                     note=True)


def collectives_blocks(rows: list[Row]) -> list[Block]:
    ours = [r for r in rows if r.workload == "collectives"]
    measured = _measured(ours)
    if not ours:
        return []
    blocks: list[Block] = [Heading("Collectives", 3)]
    if not measured:
        return blocks + [Paragraph(f"Every collectives row skipped: {_skip_reason(ours)}.")]
    blocks.append(Paragraph(COLLECTIVES_TEXT))
    note = _one_rank_note(measured)
    if note is not None:
        blocks.append(note)
    for op in OPS:
        table = collectives_table(measured, op)
        if table is not None:
            blocks += [Heading(op, 4), table]
    return blocks


# ----------------------------------------------------------------- peer-to-peer

def _pair_rows(rows: list[Row]) -> list[Row]:
    return [r for r in rows if r.workload == "peer_copy" and r.args.get("src", "").isdigit()
            and r.args.get("dst", "").isdigit()]


def peer_matrix(rows: list[Row], access: str, size: int) -> Table | None:
    """src × dst GB/s at `size` with peer access `access`; the link NVML named in brackets."""
    cells = {(int(r.args["src"]), int(r.args["dst"])): r for r in rows
             if r.args.get("peer_access") == access and _int_arg(r, "bytes") == size}
    if not cells:
        return None
    devices = sorted({d for pair in cells for d in pair})
    lines = []
    for s in devices:
        line = [f"GPU {s}"]
        for d in devices:
            r = cells.get((s, d))
            if s == d or r is None:
                line.append("–")
                continue
            link = r.fields.get("link")
            line.append(_gbps((r.bytes_per_second or 0) / 1e9) + (f" ({link})" if link else ""))
        lines.append(line)
    return Table(["src \\ dst"] + [f"GPU {d}" for d in devices], lines)


def _latency_line(rows: list[Row]) -> str | None:
    small = [r for r in rows if r.args.get("peer_access") == "on"]
    if not small:
        return None
    size = min(_int_arg(r, "bytes") or 0 for r in small)
    times = [r.time_s for r in small if _int_arg(r, "bytes") == size and r.time_s]
    if not times:
        return None
    return (f"Latency ({fmt_bytes(size)} with peer access): {fmt_time(min(times))} to "
            f"{fmt_time(max(times))} over {len(times)} ordered pairs.")


def _aggregate_line(rows: list[Row], src: str, what: str) -> str | None:
    ours = [r for r in rows if r.workload == "peer_copy" and r.args.get("src") == src]
    if not ours:
        return None
    largest = max(ours, key=lambda r: _int_arg(r, "bytes") or 0)
    devices = int(largest.counter("devices") or largest.counter("pairs") or 0)
    unit = ('device' if src == 'host' else 'pair') + ('' if devices == 1 else 's')
    count = f", {devices} {unit}" if devices else ""
    return (f"{what}: {_gbps((largest.bytes_per_second or 0) / 1e9)} at "
            f"{fmt_bytes(_int_arg(largest, 'bytes'))} each{count}.")


PEER_TEXT = (
    "One copy per sample between two GPUs, with peer access (NVLink or PCIe peer-to-peer) and "
    "without (the driver stages through host memory); in brackets, what joins the pair as "
    "nvidia-smi topo -m names it (NVML). The host's side: pinned host memory copied to every "
    "GPU at once, the host's own limit.")


def peer_blocks(rows: list[Row]) -> list[Block]:
    ours = [r for r in rows if r.workload == "peer_copy"]
    if not ours:
        return []
    blocks: list[Block] = [Heading("Peer-to-peer", 3), Paragraph(PEER_TEXT)]
    pairs = _measured(_pair_rows(ours))
    if not pairs:
        reason = _skip_reason(_pair_rows(ours))
        blocks.append(Paragraph(f"No pair of GPUs measured: {reason or 'no rows'}."))
    else:
        size = max(_int_arg(r, "bytes") or 0 for r in pairs)
        for access in ("on", "off"):
            table = peer_matrix(pairs, access, size)
            if table is not None:
                blocks += [Paragraph(f"{fmt_bytes(size)} per copy, peer access {access}:"), table]
    measured = _measured(ours)
    for line in (_latency_line(pairs), _aggregate_line(measured, "all", "All pairs at once"),
                 _aggregate_line(measured, "host", "Host to every GPU at once")):
        if line:
            blocks.append(Paragraph(line))
    return blocks


# ----------------------------------------------------------------- scaling

def scaling_table(rows: list[Row]) -> Table | None:
    ours = sorted(_measured([r for r in rows if r.workload == "scaling"]),
                  key=lambda r: (r.args.get("target", ""), r.args.get("scaling", ""),
                                 _int_arg(r, "gpus") or 0))
    if not ours:
        return None
    lines = [[r.args.get("target", "?"), r.args.get("scaling", "?"), r.args.get("gpus", "?"),
              r.impl, fmt_time(r.time_s), fmt_num(r.counter("efficiency"))] for r in ours]
    return Table(["target", "scaling", "GPUs", "impl", "time", "efficiency"], lines)


SCALING_TEXT = (
    "One problem spread over 1, 2, 4, ... GPUs in one process, timed on the host from the first "
    "launch to the last GPU's end. Strong: the same problem split (efficiency t1 / (G × tG)); "
    "weak: each GPU a whole problem (t1 / tG); 1 is perfect.")


def scaling_blocks(rows: list[Row]) -> list[Block]:
    table = scaling_table(rows)
    if table is None:
        return []
    blocks: list[Block] = [Heading("Scaling", 3), Paragraph(SCALING_TEXT), table]
    if all((_int_arg(r, "gpus") or 1) == 1 for r in rows if r.workload == "scaling"):
        blocks.append(Paragraph("One GPU only: efficiency is 1 by definition.", note=True))
    return blocks


def section_blocks(run: Run) -> list[Block]:
    """The section, or nothing when the run has no rows across GPUs."""
    rows = [r for r in run.rows if is_multi_gpu(r)]
    if not rows:
        return []
    links = run.context.get("gpu_links")
    blocks: list[Block] = [Heading(SECTION)]
    if links:
        blocks.append(Paragraph(f"Device links (NVML): {links}."))
    return blocks + collectives_blocks(rows) + peer_blocks(rows) + scaling_blocks(rows)
