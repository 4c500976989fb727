"""The report's section for the workloads measured across GPUs: NCCL's collectives (beside the
same collectives over MPI between host processes, where the run or a merged run has them) and
their chart, the peer-to-peer matrices and the host feeding every GPU at once, and the scaling
rows' efficiency.

These rows are timed on the host across devices and links, with no ceiling of the GPU's own to
be held to, so the summary's limiter column points here (`limiter`) instead of naming a ceiling,
and no CPU-vs-GPU speedup counts them (NCCL's only CPU counterpart, MPI, is set beside it here).
Rows are told apart by their description's fields (workload, impl, axes), never by their names.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from matplotlib.figure import Figure

from . import analysis as an
from .analysis import usable
from .charts import bytes_formatter, distinct_colors, grid
from .document import Block, Heading, Image, Paragraph, Table
from .loader import Row, Run
from .png import PNG
from .units import fmt_bytes, fmt_num, fmt_time

# The workloads whose rows run across GPUs (bench/collectives.cpp, peer_copy.cpp, scaling.cpp):
# the one place that says so. Their rows carry no field of their own that says it (host_timed
# is not written into a row), so the workload decides.
WORKLOADS = ("collectives", "peer_copy", "scaling")
SECTION = "Several GPUs"
LIMITER_WORDS = {"collectives": "NCCL over the links between devices",
                 "peer_copy": "the links between devices and the host",
                 "scaling": "the work spread over GPUs"}
OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all")
TITLE = "Collectives: bandwidth against size"
FILENAME = "collectives.png"
IMPL_STYLES = {"nccl": "o-", "mpi": "s--"}
# How the ranks were spread: NCCL over the GPUs one process sees, NCCL with one MPI rank per
# GPU, or MPI's host processes: (the table's words, the chart's unit and where).
_SPREADS = {"mpi": ("MPI ranks", "rank", "host memory"),
            "ranks": ("across ranks", "rank", "one GPU each"),
            "process": ("one process", "GPU", "one process")}


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


def _measured(rows: list[Row]) -> list[Row]:
    return [r for r in rows if not r.skipped and r.time_s]


def _skip_reason(rows: list[Row], no_gpu: str | None = None) -> str | None:
    """The rows' skip reasons; the run's own reason for having no GPU (`no_gpu`, its gpu_status)
    is said once, in the report's opening note, and only pointed to here."""
    reasons = sorted({an.NO_GPU_SAID_ABOVE if no_gpu and r.error_message.strip() == no_gpu
                      else r.error_message for r in rows if r.skipped and r.error_message})
    return "; ".join(reasons) if reasons else None


# ----------------------------------------------------------------- collectives

def ranks_of(row: Row) -> int:
    """A collectives row's rank count: its ranks axis (across processes) or gpus axis (one
    process), else its counter."""
    for key in ("ranks", "gpus"):
        if row.args.get(key, "").isdigit():
            return int(row.args[key])
    return int(row.counter("ranks") or 1)


def _spread(row: Row) -> tuple[str, str, str]:
    return _SPREADS["mpi" if row.impl == "mpi" else "ranks" if "ranks" in row.args
                    else "process"]


def link_bandwidth(row: Row) -> tuple[str, float | None]:
    """("busbw", GB/s), or ("algbw", GB/s) for one rank, where busbw is 0 by definition."""
    if ranks_of(row) > 1:
        return "busbw", row.counter("busbw_GBps")
    return "algbw", row.counter("algbw_GBps")


def series_label(row: Row) -> str:
    ranks, (_, unit, where) = ranks_of(row), _spread(row)
    plural = "s" if ranks > 1 else ""
    return f"{row.impl.upper()}, {ranks} {unit}{plural}, {where} ({link_bandwidth(row)[0]})"


def collective_series(rows: list[Row]) -> dict[str, dict[str, list[tuple[int, float]]]]:
    """op -> series label -> (bytes, GB/s) points, sorted by size; rows without a size or a
    positive bandwidth are left out (a log axis has no 0)."""
    out: dict = defaultdict(lambda: defaultdict(list))
    for row in usable(rows):
        size, op, (_, value) = row.args.get("bytes", ""), row.args.get("op"), link_bandwidth(row)
        if row.workload == "collectives" and op and size.isdigit() and value and value > 0:
            out[op][series_label(row)].append((int(size), value))
    return {op: {label: sorted(points) for label, points in lines.items()}
            for op, lines in out.items()}


def _draw_panel(ax, op: str, lines: dict[str, list[tuple[int, float]]], colors: dict) -> None:
    for label, points in sorted(lines.items()):
        style = IMPL_STYLES["mpi" if label.startswith("MPI") else "nccl"]
        ax.plot([p[0] for p in points], [p[1] for p in points], style, label=label,
                color=colors[label], markersize=4)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(bytes_formatter())
    ax.tick_params(axis="x", labelrotation=45, labelsize=8)
    ax.set(xlabel="size (nccl-tests' bytes)", ylabel="GB/s", title=op)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


def chart_collectives(rows: list[Row]) -> Figure | None:
    """Each collective's link bandwidth against its size, NCCL's lines beside MPI's, one panel
    per op (log-log, as the transfers chart draws bandwidth): busbw is what compares with a
    link's bandwidth whatever the rank count; with one rank nothing crosses a link and busbw is
    0 (but for broadcast), so that line shows algbw and says so."""
    series = collective_series(rows)
    ops = [op for op in OPS if op in series] + sorted(set(series) - set(OPS))
    if not ops:
        return None
    labels = sorted({label for op in ops for label in series[op]})
    colors = dict(zip(labels, distinct_colors(len(labels))))
    fig, axes = grid(len(ops), width=5.2, height=3.8)
    for ax, op in zip(axes, ops):
        _draw_panel(ax, op, series[op], colors)
    fig.suptitle("Collectives: busbw against size (algbw where one rank: nothing crossed a link)")
    return fig


def _size_ranks(row: Row) -> tuple[int, int]:
    return _int_arg(row, "bytes") or 0, ranks_of(row)


def collective_pairs(rows: list[Row], op: str) -> list[tuple[Row | None, Row | None]]:
    """(NCCL row, MPI row of the same size and ranks) for every NCCL row of `op`, by size and
    ranks; an MPI row no NCCL row matched comes with None beside it."""
    of_op = [r for r in rows if r.args.get("op") == op and _int_arg(r, "bytes") is not None]
    nccl = [r for r in of_op if r.impl == "nccl"]
    mpi = {_size_ranks(r): r for r in of_op if r.impl == "mpi"}
    matched = {_size_ranks(r) for r in nccl}
    pairs = [(r, mpi.get(_size_ranks(r))) for r in nccl]
    pairs += [(None, r) for key, r in mpi.items() if key not in matched]
    return sorted(pairs, key=lambda p: (_size_ranks(p[0] or p[1]), _spread(p[0] or p[1])[0]))


def _impl_cells(row: Row | None) -> list[str]:
    if row is None:
        return ["–", "–", "–"]
    return [fmt_time(row.time_s), _gbps(row.counter("algbw_GBps")),
            _gbps(row.counter("busbw_GBps"))]


def _collective_line(nccl: Row | None, mpi: Row | None) -> list[str]:
    first = nccl or mpi
    size, ranks = _size_ranks(first)
    # MPI's time over NCCL's at the same size and ranks: how many times faster the GPUs' links
    # carried it than the host's (the busbw ratio too, the bus factor being the same).
    both = nccl is not None and mpi is not None and nccl.time_s and mpi.time_s
    return ([fmt_bytes(size), f"{ranks} ({_spread(first)[0]})"] + _impl_cells(nccl)
            + _impl_cells(mpi) + [f"{mpi.time_s / nccl.time_s:.3g}×" if both else "–"])


HEADERS = ["size", "ranks", "NCCL time", "NCCL algbw", "NCCL busbw", "MPI time", "MPI algbw",
           "MPI busbw", "NCCL faster than MPI"]


def collectives_table(rows: list[Row], op: str) -> Table | None:
    pairs = collective_pairs(rows, op)
    if not pairs:
        return None
    lines = [_collective_line(nccl, mpi) for nccl, mpi in pairs]
    if all(mpi is None for _, mpi in pairs):  # a run without mpirun: no MPI columns
        return Table(HEADERS[:5], [line[:5] for line in lines])
    return Table(HEADERS, lines)


COLLECTIVES_TEXT = (
    "NCCL's collectives of float32, validated exactly, timed on the host around the launch and "
    "every rank's wait, as nccl-tests times them. algbw = bytes / time; busbw = algbw × the "
    "op's bus factor (2(n-1)/n for all_reduce, (n-1)/n for all_gather, reduce_scatter and "
    "all_to_all, 1 for broadcast), what each link carried. MPI: the same collective between "
    "host processes over their memory (runs under mpirun), the CPU's counterpart; the last "
    "column is MPI's time over NCCL's at the same size and ranks, how many times faster the "
    "GPUs' links are than the host's. These pairs are set beside each other here only, never "
    "in the headline's CPU-vs-GPU speedups.")
ONE_RANK_NOTE = ("With one rank nothing crossed a link: these rows time NCCL's local copy within "
                 "the GPU and its launch, so busbw is 0 (broadcast's factor is 1); the chart "
                 "shows algbw.")


def collectives_blocks(rows: list[Row], out_dir: Path | None = None, no_gpu: str | None = None
                       ) -> tuple[list[Block], Path | None]:
    ours = [r for r in rows if r.workload == "collectives"]
    if not ours:
        return [], None
    measured = _measured(ours)
    blocks: list[Block] = [Heading("Collectives", 3)]
    if not measured:
        return blocks + [Paragraph(
            f"Every collectives row skipped: {_skip_reason(ours, no_gpu)}.")], None
    blocks.append(Paragraph(COLLECTIVES_TEXT))
    nccl = [r for r in measured if r.impl == "nccl"]
    if nccl and all(ranks_of(r) <= 1 for r in nccl):
        blocks.append(Paragraph(ONE_RANK_NOTE, note=True))
    # The chart's PNG is written beside the report, so there is none without out_dir.
    figure = chart_collectives(measured) if out_dir is not None else None
    path = Path(out_dir) / FILENAME if figure is not None else None
    if figure is not None:
        blocks.append(Image(TITLE, FILENAME, PNG(figure, path)))
    for op in OPS:
        if (table := collectives_table(measured, op)) is not None:
            blocks += [Heading(op, 4), table]
    return blocks, path


# ----------------------------------------------------------------- peer-to-peer

def _bandwidth_cell(row: Row) -> str:
    return _gbps((row.bytes_per_second or 0) / 1e9)


def _bandwidth_link_cell(row: Row) -> str:
    link = row.fields.get("link")
    return _bandwidth_cell(row) + (f" ({link})" if link else "")


def _shared_link(pairs: list[Row]) -> str | None:
    """The link every pair has, where NVML named one and the same for all (an NVSwitch box):
    said once above the matrices instead of in every cell."""
    links = {r.fields.get("link", "") for r in pairs}
    return links.pop() if len(links) == 1 and "" not in links else None


def peer_matrix(rows: list[Row], access: str, size: int, cell=_bandwidth_link_cell
                ) -> Table | None:
    """src × dst at `size` with peer access `access`, each cell `cell(row)` (GB/s with the link
    NVML named in brackets, by default)."""
    cells = {(int(r.args["src"]), int(r.args["dst"])): r for r in rows
             if r.args.get("peer_access") == access and _int_arg(r, "bytes") == size}
    if not cells:
        return None
    devices = sorted({d for pair in cells for d in pair})
    lines = [[f"GPU {s}"] + ["–" if s == d or (s, d) not in cells else cell(cells[(s, d)])
                             for d in devices] for s in devices]
    return Table(["src \\ dst"] + [f"GPU {d}" for d in devices], lines)


def _latency_blocks(pairs: list[Row]) -> list[Block]:
    """The smallest copy's time per pair, peer access on: the link's latency."""
    on = [r for r in pairs if r.args.get("peer_access") == "on"]
    if not on:
        return []
    size = min(_int_arg(r, "bytes") or 0 for r in on)
    return [Paragraph(f"Latency: time per {fmt_bytes(size)} copy, peer access on:"),
            peer_matrix(on, "on", size, lambda r: fmt_time(r.time_s))]


def _matrix_blocks(pairs: list[Row]) -> list[Block]:
    size = max(_int_arg(r, "bytes") or 0 for r in pairs)
    link = _shared_link(pairs)
    blocks: list[Block] = [Paragraph(f"Every pair is joined by {link} (NVML).")] if link else []
    for access in ("on", "off"):
        table = peer_matrix(pairs, access, size, _bandwidth_cell if link else _bandwidth_link_cell)
        if table is not None:
            blocks += [Paragraph(f"{fmt_bytes(size)} per copy, peer access {access}:"), table]
    return blocks + _latency_blocks(pairs)


def _aggregate_line(rows: list[Row], src: str, what: str) -> str | None:
    ours = [r for r in rows if r.args.get("src") == src]
    if not ours:
        return None
    largest = max(ours, key=lambda r: _int_arg(r, "bytes") or 0)
    devices = int(largest.counter("devices") or largest.counter("pairs") or 0)
    unit = ("device" if src == "host" else "pair") + ("" if devices == 1 else "s")
    count = f", {devices} {unit}" if devices else ""
    return (f"{what}: {_bandwidth_cell(largest)} at {fmt_bytes(_int_arg(largest, 'bytes'))} "
            f"each{count}.")


PEER_TEXT = (
    "One copy per sample between two GPUs, with peer access (NVLink or PCIe peer-to-peer) and "
    "without (the driver stages through host memory); in brackets, what joins the pair as "
    "nvidia-smi topo -m names it (NVML). All pairs at once: every ordered pair copying together, "
    "the bytes summed (the bisection figure). The host's side: pinned host memory copied to "
    "every GPU at once, the host's own limit.")


def peer_blocks(rows: list[Row], no_gpu: str | None = None) -> list[Block]:
    ours = [r for r in rows if r.workload == "peer_copy"]
    if not ours:
        return []
    blocks: list[Block] = [Heading("Peer-to-peer", 3), Paragraph(PEER_TEXT)]
    pairs = [r for r in ours if r.args.get("src", "").isdigit()
             and r.args.get("dst", "").isdigit()]
    if _measured(pairs):
        blocks += _matrix_blocks(_measured(pairs))
    else:
        blocks.append(Paragraph(
            f"No pair of GPUs measured: {_skip_reason(pairs, no_gpu) or 'no rows'}."))
    lines = (_aggregate_line(_measured(ours), "all", "All pairs at once"),
             _aggregate_line(_measured(ours), "host", "Host to every GPU at once"))
    return blocks + [Paragraph(line) for line in lines if line]


# ----------------------------------------------------------------- scaling

SCALING_TEXT = (
    "One problem spread over 1, 2, 4, ... GPUs in one process, timed on the host from the first "
    "launch to the last GPU's end. Strong: the same problem split (efficiency t1 / (G × tG)); "
    "weak: each GPU a whole problem (t1 / tG); 1 is perfect.")


def scaling_table(rows: list[Row]) -> Table | None:
    ours = sorted(_measured([r for r in rows if r.workload == "scaling"]),
                  key=lambda r: (r.args.get("target", ""), r.args.get("scaling", ""),
                                 _int_arg(r, "gpus") or 0))
    if not ours:
        return None
    lines = [[r.args.get("target", "?"), r.args.get("scaling", "?"), r.args.get("gpus", "?"),
              r.impl, fmt_time(r.time_s), fmt_num(r.counter("efficiency"))] for r in ours]
    return Table(["target", "scaling", "GPUs", "impl", "time", "efficiency"], lines)


def scaling_blocks(rows: list[Row]) -> list[Block]:
    table = scaling_table(rows)
    if table is None:
        return []
    blocks: list[Block] = [Heading("Scaling", 3), Paragraph(SCALING_TEXT), table]
    if all((_int_arg(r, "gpus") or 1) == 1 for r in rows if r.workload == "scaling"):
        blocks.append(Paragraph("One GPU only: efficiency is 1 by definition.", note=True))
    return blocks


def section_blocks(run: Run, out_dir: Path | None = None) -> tuple[list[Block], Path | None]:
    """The section and the path of the chart it wrote (with out_dir); nothing when the run has
    no rows across GPUs."""
    rows = [r for r in run.rows if is_multi_gpu(r)]
    if not rows:
        return [], None
    blocks: list[Block] = [Heading(SECTION)]
    if links := run.context.get("gpu_links"):
        blocks.append(Paragraph(f"Device links (NVML): {links}."))
    status = run.context.get("gpu_status")
    no_gpu = status.strip() if isinstance(status, str) and status != "available" else None
    collectives, chart = collectives_blocks(rows, out_dir, no_gpu)
    return blocks + collectives + peer_blocks(rows, no_gpu) + scaling_blocks(rows), chart
