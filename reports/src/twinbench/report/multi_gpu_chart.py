"""The Several GPUs section's chart: each collective's link bandwidth against its size, NCCL's
lines beside MPI's, one panel per op (log-log, as the transfers chart draws bandwidth).

busbw is what compares with a link's bandwidth whatever the rank count; with one rank nothing
crosses a link and busbw is 0 (but for broadcast), so that line shows algbw and says so.
"""

from __future__ import annotations

from collections import defaultdict

from matplotlib.figure import Figure

from .analysis import usable
from .charts import bytes_formatter, grid, distinct_colors
from .loader import Row

TITLE = "Collectives: bandwidth against size"
FILENAME = "collectives.png"
OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all")
IMPL_STYLES = {"nccl": "o-", "mpi": "s--"}


def ranks_of(row: Row) -> int:
    """A collectives row's rank count: its ranks axis (across processes) or gpus axis (one
    process), else its counter."""
    for key in ("ranks", "gpus"):
        value = row.args.get(key, "")
        if value.isdigit():
            return int(value)
    return int(row.counter("ranks") or 1)


def link_bandwidth(row: Row) -> tuple[str, float | None]:
    """("busbw", GB/s), or ("algbw", GB/s) for one rank, where busbw is 0 by definition."""
    if ranks_of(row) > 1:
        return "busbw", row.counter("busbw_GBps")
    return "algbw", row.counter("algbw_GBps")


def series_label(row: Row) -> str:
    ranks = ranks_of(row)
    what, _ = link_bandwidth(row)
    if row.impl == "mpi":
        where = f"{ranks} rank{'s' if ranks > 1 else ''}, host memory"
    elif "ranks" in row.args:
        where = f"{ranks} rank{'s' if ranks > 1 else ''}, one GPU each"
    else:
        where = f"{ranks} GPU{'s' if ranks > 1 else ''}, one process"
    return f"{row.impl.upper()}, {where} ({what})"


def collective_series(rows: list[Row]) -> dict[str, dict[str, list[tuple[int, float]]]]:
    """op -> series label -> (bytes, GB/s) points, sorted by size; rows without a size or a
    positive bandwidth are left out (a log axis has no 0)."""
    out: dict[str, dict[str, list[tuple[int, float]]]] = defaultdict(lambda: defaultdict(list))
    for row in usable(rows):
        size, op = row.args.get("bytes", ""), row.args.get("op")
        _, value = link_bandwidth(row)
        if row.workload == "collectives" and op and size.isdigit() and value and value > 0:
            out[op][series_label(row)].append((int(size), value))
    for lines in out.values():
        for points in lines.values():
            points.sort()
    return out


def _draw_panel(ax, op: str, lines: dict[str, list[tuple[int, float]]], colors: dict) -> None:
    for label, points in sorted(lines.items()):
        style = IMPL_STYLES["mpi" if label.startswith("MPI") else "nccl"]
        ax.plot([p[0] for p in points], [p[1] for p in points], style, label=label,
                color=colors[label], markersize=4)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(bytes_formatter())
    ax.tick_params(axis="x", labelrotation=45, labelsize=8)
    ax.set_xlabel("size (nccl-tests' bytes)")
    ax.set_ylabel("GB/s")
    ax.set_title(op)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


def chart_collectives(rows: list[Row]) -> Figure | None:
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
