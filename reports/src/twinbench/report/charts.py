"""Chart functions: rows (+ run context) -> matplotlib Figure, or None without data.

Figures are built with the object API (no pyplot state), so rendering many
reports in one process (tests) does not leak figures.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402
from matplotlib.transforms import ScaledTranslation  # noqa: E402

from . import analysis as an  # noqa: E402
from . import ceilings as ce  # noqa: E402
from .loader import Row  # noqa: E402
from .pairing import CPU_FAMILIES, SPEEDUP_KINDS, speedup_comparisons  # noqa: E402
from .units import fmt_bytes, fmt_speedup, fmt_time  # noqa: E402

CATEGORY_COLORS = {
    "serial": "#7f7f7f", "omp": "#1f77b4", "cuda kernel": "#2ca02c",
    "cuda e2e": "#98df8a", "thrust": "#ff7f0e", "cublas": "#d62728",
}
FAMILY_MARKERS = {"serial": "o", "omp": "s", "cuda": "^", "thrust": "D", "cublas": "v",
                  "openblas": "P", "onednn": "p", "other": "x"}
MAX_PANELS = 12


# Tallest figure a grid grows to (inches): past it the panels get shorter, not the page longer.
MAX_GRID_HEIGHT = 40.0


# A grid's margins in inches, fixed: its panels hold short tick labels, a two-line title and a
# twin axis' labels, so a layout engine has nothing to find out. Constrained layout measured every
# text of the 63 axes of results/nvidia-h200/2026-12-04's occupancy grid to place them: 2.9 s of
# the chart's 7.7 (build 1.2, draw 3.6) on the 2-core development machine, under load 3.
GRID_MARGINS_IN = {"left": 0.85, "right": 0.75, "top": 1.0, "bottom": 0.7}
GRID_GAPS_IN = (1.35, 1.2)  # between panels: across (a twin axis' labels), down (title, labels)


def grid(count: int, width: float = 5.0, height: float = 3.6,
         max_cols: int = 3) -> tuple[Figure, list]:
    cols = min(count, max_cols)
    rows = math.ceil(count / cols)
    height = max(2.4, min(height, (MAX_GRID_HEIGHT - 0.6) / rows))
    fig_w, fig_h = width * cols, height * rows + 0.6
    fig = Figure(figsize=(fig_w, fig_h))
    m = GRID_MARGINS_IN
    panel_w = (fig_w - m["left"] - m["right"] - (cols - 1) * GRID_GAPS_IN[0]) / cols
    panel_h = (fig_h - m["top"] - m["bottom"] - (rows - 1) * GRID_GAPS_IN[1]) / rows
    fig.subplots_adjust(left=m["left"] / fig_w, right=1 - m["right"] / fig_w,
                        top=1 - m["top"] / fig_h, bottom=m["bottom"] / fig_h,
                        wspace=GRID_GAPS_IN[0] / panel_w, hspace=GRID_GAPS_IN[1] / panel_h)
    axes = fig.subplots(rows, cols, squeeze=False).ravel().tolist()
    for ax in axes[count:]:
        ax.set_visible(False)
    return fig, axes[:count]


def text_width_in(texts: list[str], fontsize: float) -> float:
    """The widest of these texts in inches, measured with Agg's font metrics: what a layout
    engine would find out, for the one column of labels that decides a margin."""
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.font_manager import FontProperties
    renderer, font = RendererAgg(1, 1, 72), FontProperties(size=fontsize)
    return max((renderer.get_text_width_height_descent(t, font, ismath=False)[0]
                for t in texts), default=0.0) / 72


def fixed_layout(fig: Figure, rows: int, cols: int, left: float, right: float, top: float,
                 bottom: float, wspace: float = 0.0, hspace: float = 0.0) -> None:
    """Margins and gaps in inches, set once (subplots_adjust): for charts whose only wide texts
    are one column of labels, measured beforehand (text_width_in)."""
    width, height = fig.get_size_inches()
    panel_w = (width - left - right - (cols - 1) * wspace) / cols
    panel_h = (height - top - bottom - (rows - 1) * hspace) / rows
    fig.subplots_adjust(left=left / width, right=1 - right / width, top=1 - top / height,
                        bottom=bottom / height, wspace=wspace / panel_w, hspace=hspace / panel_h)


def _time_formatter() -> FuncFormatter:
    return FuncFormatter(lambda v, _pos: fmt_time(v) if v > 0 else "")


def bytes_formatter() -> FuncFormatter:
    return FuncFormatter(lambda v, _pos: fmt_bytes(v) if v > 0 else "")


def _log_limits(values: list[float], margin: float = 2.0) -> tuple[float, float]:
    """Log-axis limits around the data and 1, with a margin of `margin` times each side."""
    lo, hi = min(values + [1.0]), max(values + [1.0])
    return lo / margin, hi * margin


# ----------------------------------------------------------------- (a) speedup

def chart_speedup(rows: list[Row], context: dict | None = None) -> Figure | None:
    """Sorted dot plot, one marker per like-for-like comparison, one panel per question."""
    comparisons = speedup_comparisons(rows)
    if not comparisons:
        return None
    panels = [(kind, sorted((c for c in comparisons if c.kind == kind.key),
                            key=lambda c: c.speedup))
              for kind in SPEEDUP_KINDS]
    panels = [(kind, members) for kind, members in panels if members]
    counts = [len(members) for _, members in panels]
    fig = Figure(figsize=(11.0, 1.4 + sum(0.24 * n + 0.75 for n in counts)))
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False,
                        height_ratios=[n + 2.5 for n in counts])[:, 0]
    # Laid out once from its one wide column, the row labels: constrained layout took 0.9 s
    # of this chart's 1.6 on results/nvidia-h200/2026-12-04.
    labels = text_width_in([c.label for _, members in panels for c in members], 8)
    fixed_layout(fig, len(panels), 1, left=labels + 0.25, right=0.2, top=0.9, bottom=0.55,
                 hspace=0.85)
    lo, hi = _log_limits([c.speedup for c in comparisons])
    span = math.log10(hi / lo)
    for ax, (kind, members) in zip(axes, panels):
        ys = list(range(len(members)))
        xs = [c.speedup for c in members]
        ax.axvline(1.0, color="black", linewidth=1.0, zorder=1)
        ax.hlines(ys, lo, xs, color=kind.color, alpha=0.25, linewidth=0.8, zorder=1)
        ax.scatter(xs, ys, color=kind.color, marker=kind.marker, s=42, edgecolors="black",
                   linewidths=0.5, zorder=3, label=kind.title)
        for y, c in zip(ys, members):
            # Right of the marker, or left of it in the right third, so no label leaves the axis.
            right = math.log10(c.speedup / lo) / span < 0.62
            ax.annotate(f"{fmt_speedup(c.speedup)}  {c.row.impl} vs {c.baseline.impl}",
                        (c.speedup, y), xytext=(7 if right else -7, 0),
                        textcoords="offset points", ha="left" if right else "right",
                        va="center", fontsize=7.5, zorder=4,
                        bbox=dict(boxstyle="square,pad=0.1", facecolor="white",
                                  edgecolor="none", alpha=0.85))
        ax.set_yticks(ys, [c.label for c in members], fontsize=8)
        ax.set_ylim(-0.7, len(members) - 0.3)
        ax.set_xscale("log")
        ax.set_xlim(lo, hi)
        ax.grid(True, axis="x", which="major", alpha=0.3)
        ax.set_title(kind.title, fontsize=10, color=kind.color, loc="left")
        ax.tick_params(axis="x", labelbottom=True)
        baseline = "serial" if kind.key == "omp" else "the best CPU row"
        ax.set_xlabel(f"speedup over {baseline} (×, log scale; left of the black line: slower)",
                      fontsize=8)
    fig.suptitle("Speedup, like for like: largest size both sides ran at "
                 "(label: contender vs baseline)", fontsize=11)
    return fig


# ----------------------------------------------------------------- (b) roofline

# Panels, left to right; serial points go on the CPU panel with the omp ones.
ROOFLINE_PANELS = (("gpu", "GPU (kernel time)"), ("cpu", "CPU"))
_PANEL_CEILINGS = {"gpu": "gpu", "cpu": "cpu_all"}
ROOF_COLORS = {"FP32": "#1f77b4", "FP64": "#9467bd", "FP16": "#17becf", "INT8": "#8c564b"}
SLOPE_STYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)))


def _roofline_points(rows: list[Row]) -> dict[tuple, Row]:
    """Fastest row per (workload, impl, mode, size): one dot per variant, not per block."""
    return an.fastest_by(rows, lambda r: (r.workload, r.impl, r.mode, r.size_key) if
                         an.arithmetic_intensity(r) is not None and
                         an.achieved_flop_per_s(r) is not None else None)


def roofline_panel(row: Row) -> str | None:
    """gpu or cpu; None for rows on neither, and for the Numba peers' rows: the roofline and
    the ceiling chart show the C++ (the Numba rows have their own section)."""
    side = None if row.is_peer else row.limit_side
    return None if side is None else ("gpu" if side == "gpu" else "cpu")


def _points_by_panel(rows: list[Row]) -> dict[str, list[Row]]:
    panels: dict[str, list[Row]] = defaultdict(list)
    for row in _roofline_points([r for r in rows if r.mode != "e2e"]).values():
        panel = roofline_panel(row)
        if panel:
            panels[panel].append(row)
    return panels


def roofline_flags(rows: list[Row], context: dict | None = None) -> list[tuple[Row, str]]:
    """Roofline points above their own side's roofs, with why: the chart counts them in its
    titles, the report lists them. Hiding them would hide a wrong roof or byte model."""
    context = context or {}
    flags = []
    for panel, members in _points_by_panel(rows).items():
        for row in members:
            reason = ce.above_roof(row, context, _PANEL_CEILINGS[panel])
            if reason:
                flags.append((row, reason))
    return flags


def roofline_note(rows: list[Row], context: dict | None = None, listed: int = 10) -> str | None:
    flags = roofline_flags(rows, context)
    if not flags:
        return None
    head = "; ".join(f"{row.name}: {reason}" for row, reason in flags[:listed])
    more = f"; and {len(flags) - listed} more" if len(flags) > listed else ""
    return (f"{len(flags)} roofline point(s) sit above their side's roof (a roof measured too "
            f"low, a byte/FLOP model that counts too much, or data served from a cache): "
            f"{head}{more}.")


def _x_range(points: list[Row], ridges: list[float]) -> list[float]:
    values = [an.arithmetic_intensity(r) for r in points] + ridges
    lo, hi = min(values) / 4, max(values) * 4
    return [lo * (hi / lo) ** (i / 100) for i in range(101)]


def _draw_slopes(ax, xs: list[float], lines: list[tuple[str, float]], cap: float | None) -> None:
    """Bandwidth lines up to the highest roof, the highest bandwidth solid."""
    for i, (name, bandwidth) in enumerate(lines):
        ys = [bandwidth * x if cap is None else min(cap, bandwidth * x) for x in xs]
        ax.plot(xs, ys, color="black", linestyle=SLOPE_STYLES[i % len(SLOPE_STYLES)],
                linewidth=1.2, label=f"{name} bandwidth {ce.fmt_bandwidth(bandwidth)}")


def _draw_roofs(ax, xs: list[float], roofs: list[ce.Roof], max_bw: float | None) -> None:
    """Each roof from where the highest bandwidth meets it: measured solid, native-ISA dashed,
    datasheet light and dotted across the panel (what the vendor promises, not what this
    machine reached)."""
    for roof in roofs:
        if roof.kind == "datasheet":
            ax.plot(xs, [roof.value] * len(xs), color="grey", alpha=0.6, linestyle=":",
                    linewidth=1.0, label=roof.label)
            continue
        start = roof.value / max_bw if max_bw else xs[0]
        seg = [x for x in xs if x >= start]
        ax.plot([start] + seg, [roof.value] * (len(seg) + 1),
                color=ROOF_COLORS.get(roof.precision, "black"),
                linestyle="--" if roof.kind == "native" else "-",
                linewidth=1.6 if roof.kind == "measured" else 1.0, label=f"{roof.label} roof")


def _panel_title(title: str, roofs: list[ce.Roof], flagged: int) -> str:
    if roofs and not any(r.kind == "measured" for r in roofs):
        title += " (no measured roof: datasheet peak only)"
    if flagged:
        title += f"\n{flagged} point(s) ABOVE the roof: see the report's note"
    return title


def _draw_roofline_panel(ax, panel: str, title: str, points: list[Row], context: dict,
                         colors: dict) -> None:
    side = _PANEL_CEILINGS[panel]
    lines = ce.slopes(context, side)
    roofs = ce.compute_roofs(context, side)
    xs = _x_range(points, [r.value / bw for r in roofs for _, bw in lines])
    # Slopes stop at the highest roof the machine reached (the datasheet's when none measured).
    reached = [r.value for r in roofs if r.kind != "datasheet"] or [r.value for r in roofs]
    _draw_slopes(ax, xs, lines, max(reached) if reached else None)
    _draw_roofs(ax, xs, roofs, lines[0][1] if lines else None)
    # One collection per marker and ring, not one per point: results/nvidia-h200/2026-12-04's
    # 177 collections took the chart 0.50 s to build and 1.37 s to draw, 11 take 0.16 and 1.02 s
    # (best of 3 on the 2-core development machine, busy).
    groups: dict[tuple[str, bool], list[Row]] = defaultdict(list)
    for row in points:
        above = ce.above_roof(row, context, side) is not None
        groups[(FAMILY_MARKERS.get(row.family, "x"), above)].append(row)
    flagged = sum(len(members) for (_, above), members in groups.items() if above)
    for (marker, above), members in groups.items():
        ax.scatter([an.arithmetic_intensity(r) for r in members],
                   [an.achieved_flop_per_s(r) for r in members],
                   color=[colors[r.workload] for r in members], marker=marker,
                   s=60 if above else 36, edgecolors="red" if above else "black",
                   linewidths=1.6 if above else 0.4, zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(*_roofline_ylim(points, reached))
    ax.grid(True, which="major", alpha=0.25)
    ax.set_xlabel("arithmetic intensity (FLOP/byte)")
    ax.set_ylabel("achieved FLOP/s")
    ax.set_title(_panel_title(title, roofs, flagged), fontsize=10,
                 color="#b00000" if flagged else "black")
    if ax.get_legend_handles_labels()[0]:
        # Under the panel, not over the slopes and the low-intensity points.
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), fontsize=7, ncols=2,
                  title="ceilings and roofs", title_fontsize=7,
                  bbox_transform=ax.transAxes + ScaledTranslation(
                      0, -ROOFLINE_AXIS_TEXT_IN, ax.figure.dpi_scale_trans))


def _roofline_ylim(points: list[Row], roofs: list[float]) -> tuple[float, float]:
    """From half a decade under the slowest point to half a decade over the highest point or
    reached roof: the slopes start wherever the x range starts, and would otherwise pull the
    axis down by decades nobody measured."""
    ys = [an.achieved_flop_per_s(r) for r in points]
    return min(ys) / 3.0, max(ys + roofs) * 3.0


def distinct_colors(count: int) -> list:
    """`count` colours no two alike: tab10, then tab20, then evenly spaced hues."""
    if count <= 10:
        return [matplotlib.colormaps["tab10"](i) for i in range(count)]
    if count <= 20:
        # Dark shades first, then their light partners: neighbours in the legend differ most.
        tab20 = matplotlib.colormaps["tab20"]
        return [tab20(2 * i) for i in range(10)] + [tab20(2 * i + 1) for i in range(count - 10)]
    hues = matplotlib.colormaps["gist_rainbow"]
    return [hues(i / count) for i in range(count)]


def chart_roofline(rows: list[Row], context: dict | None = None) -> Figure | None:
    """GPU and CPU panels, each against its own measured roofs and per-pattern bandwidths."""
    context = context or {}
    panels = _points_by_panel(rows)
    if not panels:
        return None
    shown = [(key, title) for key, title in ROOFLINE_PANELS if panels.get(key)]
    fig = Figure(figsize=(max(9.0, 7.5 * len(shown)), 8.4))
    axes = fig.subplots(1, len(shown), squeeze=False)[0]
    points = [r for members in panels.values() for r in members]
    workloads = sorted({r.workload for r in points})
    colors = dict(zip(workloads, distinct_colors(len(workloads))))
    for ax, (key, title) in zip(axes, shown):
        _draw_roofline_panel(ax, key, title, panels[key], context, colors)
    handles = [axes[0].scatter([], [], color=colors[w], marker="o", label=w) for w in workloads]
    handles += [axes[0].scatter([], [], color="white", edgecolors="black", marker=m, label=f)
                for f, m in FAMILY_MARKERS.items() if any(r.family == f for r in points)]
    legend = fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 0.01),
                        fontsize=8, ncols=min(len(handles), 8))
    fig.suptitle("Roofline: measured roofs and per-pattern bandwidths\n"
                 "(fastest block per variant; red ring: above the roof)", fontsize=11)
    # Laid out once: under each panel its tick labels and axis label (ROOFLINE_AXIS_TEXT_IN),
    # then its legend, then the figure's legend, both measured; constrained layout measured
    # every text of the figure for the same (0.6 s of the chart's 1.5 s).
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    renderer = FigureCanvasAgg(fig).get_renderer()
    below = max((ax.get_legend().get_window_extent(renderer).height for ax in axes
                 if ax.get_legend()), default=0.0) / fig.dpi
    under = legend.get_window_extent(renderer).height / fig.dpi
    fixed_layout(fig, 1, len(shown), left=0.95, right=0.25, top=1.25,
                 bottom=ROOFLINE_AXIS_TEXT_IN + below + under + 0.25, wspace=1.0)
    return fig


# Under a roofline panel: its tick labels and its axis label (inches), above its legend.
ROOFLINE_AXIS_TEXT_IN = 0.6


# ----------------------------------------------------------------- (c) occupancy

def _block_threads(block: str) -> int:
    product = 1
    for part in block.lower().split("x"):
        product *= int(part) if part.isdigit() else 1
    return product


def _block_sweeps(rows: list[Row]) -> dict[tuple, list[Row]]:
    """The C++ GPU kernels' block sweeps (analysis.block_sweeps), end-to-end rows left out."""
    return an.block_sweeps(rows, lambda r: r.is_gpu and r.mode != "e2e" and not r.is_peer)


def chart_occupancy(rows: list[Row], context: dict | None = None) -> Figure | None:
    sweeps = _block_sweeps(rows)
    if not sweeps:
        return None
    # The kernels whose time moves most with the block, at most MAX_PANELS (the block-size table
    # has every one): all 31 of results/nvidia-h200/2026-12-04 took 63 axes and 4.7 s to build
    # and draw, the largest share of its render.
    def moved(key: tuple) -> float:
        times = [r.time_s for r in sweeps[key]]
        return max(times) / min(times)
    keys = sorted(sorted(sweeps, key=moved, reverse=True)[:MAX_PANELS])
    fig, axes = grid(len(keys), width=4.4, height=3.3, max_cols=4)
    for ax, key in zip(axes, keys):
        members = sorted(sweeps[key], key=lambda r: (_block_threads(r.args["block"]), r.args["block"]))
        labels = [r.args["block"] for r in members]
        positions = range(len(members))
        ax.plot(positions, [r.time_s for r in members], "o-", color="#1f77b4", label="time")
        # Linear from zero: block choice usually moves time by tens of percent,
        # and a log axis would exaggerate that.
        ax.set_ylim(0, max(r.time_s for r in members) * 1.1)
        ax.yaxis.set_major_formatter(_time_formatter())
        ax.set_ylabel("time per iteration", color="#1f77b4")
        ax.set_xticks(list(positions), labels, rotation=30 if len(labels) > 5 else 0)
        ax.set_xlabel("block size (threads, WxH for 2D)")
        workload, impl, _mode, size, other = key
        tuning = "".join(f" {k}:{v}" for k, v in other)
        ax.set_title(f"{workload}/{impl}{tuning}\n{' '.join(size)}", fontsize=9)
        occ = [r.counter("occupancy") for r in members]
        # Achieved occupancy from Nsight Compute (scripts/gpu-profile.sh), where the profile
        # pass reached this sweep: the warps that were resident on average, against the
        # theoretical share the occupancy API allows. A gap is a tail (too few blocks for a
        # last full wave) or uneven blocks, which the theoretical figure cannot show.
        achieved = [r.counter("ncu_occupancy_achieved_pct") for r in members]
        if any(v is not None for v in occ) or any(v is not None for v in achieved):
            twin = ax.twinx()
            twin.plot(positions, [v if v is not None else float("nan") for v in occ],
                      "s--", color="#d62728", label="theoretical (API)")
            if any(v is not None for v in achieved):
                twin.plot(positions, [v / 100 if v is not None else float("nan") for v in achieved],
                          "^:", color="#2ca02c", label="achieved (ncu)")
                twin.legend(loc="lower right", fontsize=7)
            twin.set_ylim(0, 1.05)
            twin.set_ylabel("occupancy (0–1)" if any(v is not None for v in achieved)
                            else "theoretical occupancy (0–1)", color="#d62728")
    profiled = any(r.counter("ncu_occupancy_achieved_pct") is not None
                   for members in sweeps.values() for r in members)
    occupancy = ("theoretical (red) and achieved (green, ncu) occupancy, right axis," if profiled
                 else "theoretical occupancy (red, right axis)")
    shown = (f"{len(keys)} swept kernel(s)" if len(keys) == len(sweeps) else
             f"the {len(keys)} of {len(sweeps)} swept kernels whose time moves most with it")
    fig.suptitle(f"Kernel time (blue, left axis) and {occupancy} "
                 f"vs block size: {shown}, largest size of each")
    return fig


# ----------------------------------------------------------------- (d) transfers

def _gpu_row(row: Row) -> bool:
    """A C++ row the GPU ran: a GPU family, or a GPU-only workload's row that is not
    serial/omp (the streams and progress charts are about the C++ code)."""
    return row.is_gpu and row.family not in CPU_FAMILIES and not row.is_peer


def chart_transfers(rows: list[Row], context: dict | None = None) -> Figure | None:
    series: dict[str, dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    host_copy: list[tuple[float, float]] = []  # the CPU analog has no direction: drawn in each panel
    flagged: dict[str, list[tuple[float, float]]] = defaultdict(list)  # above their link
    for row in an.usable(rows):
        if row.workload != "transfers":
            continue
        try:
            nbytes = float(row.args.get("bytes") or row.counter("transfer_bytes") or "")
        except ValueError:
            continue
        rate = row.bytes_per_second or nbytes / row.time_s
        if "dir" in row.args:
            # A Numba peer's copies (numba_cuda...) are a line of their own, named by its impl.
            series[row.args["dir"]][row.impl].append((nbytes, rate / 1e9))
            if row.fields.get("suspect"):
                flagged[row.args["dir"]].append((nbytes, rate / 1e9))
        elif not row.is_peer:
            host_copy.append((nbytes, rate / 1e9))
    if not series:
        return None  # the host memcpy line alone (a CPU-only run) is no transfer chart
    directions = sorted(series)
    fig, axes = grid(len(directions), width=6.5, height=4.4)
    for ax, direction in zip(axes, directions):
        for kind, points in sorted(series[direction].items()):
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], "o-", label=kind, markersize=4)
        if host_copy:
            host_copy.sort()
            ax.plot([p[0] for p in host_copy], [p[1] for p in host_copy], "--", color="grey",
                    label="host memcpy (CPU analog)", linewidth=1)
        if flagged[direction]:
            ax.scatter([p[0] for p in flagged[direction]], [p[1] for p in flagged[direction]],
                       s=110, facecolors="none", edgecolors="red", linewidths=1.6, zorder=4,
                       label="above its link: suspect (see the report)")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(bytes_formatter())
        ax.tick_params(axis="x", labelrotation=45, labelsize=8)
        ax.set_xlabel("transfer size")
        ax.set_ylabel("bandwidth (GB/s)")
        ax.set_title({"h2d": "host to device", "d2h": "device to host"}.get(direction, direction))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Host–device transfer bandwidth by memory kind")
    return fig


# ----------------------------------------------------------------- (e) streams

def chart_streams(rows: list[Row], context: dict | None = None) -> Figure | None:
    lines: dict[str, list[Row]] = defaultdict(list)
    for row in an.usable(rows):
        if row.workload == "streams" and "streams" in row.args and _gpu_row(row):
            chunk = row.args.get("chunk") or row.counter("chunk_bytes")
            label = f"{row.impl} {' '.join(row.size_key)}" + (
                f" chunk {fmt_bytes(float(chunk))}" if chunk else "")
            lines[label].append(row)
    if not lines:
        return None
    has_eff = any(r.counter("overlap_efficiency") is not None for m in lines.values() for r in m)
    fig, axes = grid(2 if has_eff else 1, width=6.0, height=4.2)
    for label, members in sorted(lines.items()):
        members.sort(key=lambda r: float(r.args["streams"]))
        xs = [float(r.args["streams"]) for r in members]
        axes[0].plot(xs, [r.time_s for r in members], "o-", label=label)
        if has_eff:
            axes[1].plot(xs, [r.counter("overlap_efficiency") for r in members], "o-", label=label)
    axes[0].set_ylabel("time per iteration")
    axes[0].yaxis.set_major_formatter(_time_formatter())
    axes[0].set_title("time vs stream count")
    if has_eff:
        ideal = {r.counter("ideal_overlap") for m in lines.values() for r in m} - {None}
        for value in sorted(ideal)[:1]:
            axes[1].axhline(value, color="black", linestyle=":", label=f"ideal overlap {value:.2f}")
        axes[1].set_ylabel("overlap efficiency (0–1)")
        axes[1].set_title("overlap efficiency vs stream count")
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
        ax.set_xlabel("CUDA streams")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Copy/compute overlap with multiple streams")
    return fig


# ----------------------------------------------------------------- (f) progress

def chart_progress(rows: list[Row], context: dict | None = None) -> Figure | None:
    """Overhead of each counting strategy over the uninstrumented kernel, one panel per counter
    location, bars grouped by target kernel (its largest size). The article's approach (an
    atomic per thread read by a blocking copy) is its own bar."""
    # (counter, target) -> size, and -> {strategy label: overhead %}
    sizes: dict[tuple[str, str], float] = {}
    table: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for row in an.usable(rows):
        pct = row.counter("overhead_pct")
        if row.workload != "progress" or pct is None or not _gpu_row(row):
            continue
        strategy = row.args.get("strategy", "?")
        if strategy == "none":
            continue  # 0 by definition: its spread is the noise floor, shown by the others
        if row.impl.startswith("cuda_article"):
            strategy = "article (memcpy poll)"
        key = (row.args.get("counter", "device"), row.args.get("target", row.impl))
        scalar = an.size_scalar(row) or 0.0
        if scalar > sizes.get(key, -1):
            sizes[key] = scalar
            table[key] = {}
        if scalar == sizes[key]:
            table[key][strategy] = pct
    if not table:
        return None
    counters = sorted({c for c, _ in table})
    strategies = sorted({s for v in table.values() for s in v})
    fig = Figure(figsize=(6.0 * len(counters), 4.8))
    axes = fig.subplots(1, len(counters), squeeze=False)[0]
    # Fixed margins: its texts are alike in every panel (two-line target labels under the axis,
    # the symlog's labels beside it); constrained layout took 0.6 s of its 1.2 measuring them.
    fixed_layout(fig, 1, len(counters), left=0.75, right=0.5, top=0.7, bottom=1.25,
                 wspace=0.85)
    for ax, counter in zip(axes, counters):
        targets = sorted(t for c, t in table if c == counter)
        width = 0.8 / len(strategies)
        for i, strategy in enumerate(strategies):
            pts = [(j, table[(counter, t)][strategy]) for j, t in enumerate(targets)
                   if strategy in table[(counter, t)]]
            if not pts:
                continue
            xs = [j - 0.4 + width * (i + 0.5) for j, _ in pts]
            ys = [y for _, y in pts]
            bars = ax.bar(xs, ys, width, label=strategy, color=f"C{i}")
            ax.bar_label(bars, labels=[f"{y:.0f}" if abs(y) >= 10 else f"{y:.1f}" for y in ys],
                         fontsize=7, padding=1)
        # Overheads span -2% (noise) to 10^5%: symlog keeps both readable.
        ax.set_yscale("symlog", linthresh=1.0)
        ax.axhline(1.0, color="grey", lw=0.8, ls="--")
        ax.set_xticks(range(len(targets)), [f"{t}\n({int(sizes[(counter, t)]):,})" for t in targets], fontsize=8, rotation=20)
        ax.set_xlabel("target kernel (size)")
        ax.set_ylabel("overhead over the plain kernel (%), symlog")
        ax.set_title(f"counter in {counter} memory")
    axes[0].legend(fontsize=8, title="strategy (dashed: 1% target)", title_fontsize=8)
    fig.suptitle("Progress-reporting overhead by strategy")
    return fig


# ----------------------------------------------------------------- (g) % of pattern ceiling

CEILING_PANELS = (("gpu", "GPU kernels", "#2ca02c"),
                  ("cpu", "CPU (serial: one-thread ceilings; omp: all threads)", "#1f77b4"))


def _larger_or_faster(row: Row, current: Row | None) -> bool:
    """Largest size wins; at equal size, the fastest block."""
    if current is None:
        return True
    scalar, other = an.size_scalar(row) or 0.0, an.size_scalar(current) or 0.0
    return scalar > other or (scalar == other and row.time_s < current.time_s)


def ceiling_rows(rows: list[Row], context: dict | None = None) -> dict[str, list[Row]]:
    """Panel -> memory-bound rows with a ceiling share, best per (workload, impl), lowest first."""
    context = context or {}
    best: dict[tuple, Row] = {}
    for row in an.usable(rows):
        panel = roofline_panel(row)
        if ce.row_ceiling(row) is None or panel is None or row.mode == "e2e":
            continue
        key = (panel, row.workload, row.impl)
        if _larger_or_faster(row, best.get(key)):
            best[key] = row
    panels: dict[str, list[Row]] = defaultdict(list)
    # Judged at the size shown: small matmuls look memory-bound but the kernel is not.
    for (panel, _, _), row in best.items():
        if ce.is_memory_bound(row, context):
            panels[panel].append(row)
    return {p: sorted(m, key=lambda r: ce.row_ceiling(r).pct) for p, m in panels.items()}


def _ceiling_label(row: Row) -> str:
    block = f" block {row.args['block']}" if "block" in row.args else ""
    return f"{row.workload}/{row.impl} {row.size_label}{block}"


def _ceiling_xlabel(members: list[Row]) -> str:
    if all(ce.row_ceiling(r).pattern == ce.DEVICE_COPY for r in members):
        return "% of the measured device copy bandwidth (cudaMemcpy; older file)"
    return "% of the measured bandwidth of the row's access pattern"


def chart_ceiling(rows: list[Row], context: dict | None = None) -> Figure | None:
    """Memory-bound rows against the ceiling of the access pattern nearest their read/write mix,
    each bar labelled with that pattern ("93 % of read")."""
    panels = ceiling_rows(rows, context)
    shown = [spec for spec in CEILING_PANELS if panels.get(spec[0])]
    if not shown:
        return None
    longest = max(len(panels[key]) for key, _, _ in shown)
    fig = Figure(figsize=(10.0 * len(shown), 1.4 + 0.45 * longest))
    axes = fig.subplots(1, len(shown), squeeze=False)[0]
    # Laid out once from its one wide column, the row labels (constrained layout: 0.6 s).
    labels = text_width_in([_ceiling_label(r) for key, _, _ in shown for r in panels[key]], 8)
    fixed_layout(fig, 1, len(shown), left=labels + 0.25, right=0.25, top=0.75, bottom=0.55,
                 wspace=labels + 0.45)
    for ax, (key, title, color) in zip(axes, shown):
        members = panels[key]
        values = [ce.row_ceiling(r).pct for r in members]
        bars = ax.barh(range(len(members)), values, color=color)
        ax.bar_label(bars, labels=[ce.row_ceiling(r).short + (" (suspect)" if r.fields.get("suspect")
                                                            else "") for r in members], fontsize=8,
                     padding=2)
        ax.set_yticks(range(len(members)), [_ceiling_label(r) for r in members], fontsize=8)
        ax.axvline(100, color="black", linestyle=":", linewidth=1)
        # Room right of the longest bar for its "107 % of device copy" label.
        ax.set_xlim(0, max(150, max(values) * 1.5))
        ax.set_xlabel(_ceiling_xlabel(members), fontsize=8)
        ax.set_title(title, fontsize=10)
    fig.suptitle("Memory-bound rows: % of their access pattern's measured ceiling "
                 "(best block, largest size)")
    return fig


# ----------------------------------------------------------------- (h) crossover

def crossover_series(rows: list[Row]) -> dict[tuple, dict[str, list[tuple[float, float]]]]:
    """(workload, label args) -> series -> [(size, seconds)] for serial, omp, cuda e2e."""
    by_problem = an.group_by_problem(an.usable(rows))
    out: dict[tuple, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for (workload, _size), members in by_problem.items():
        scalar = an.size_scalar(members[0])
        if scalar is None:
            continue
        best = an.best_by_category(members)
        key = (workload, an.non_numeric_size(members[0]), an.size_axis_label(members[0]))
        for cat in ("serial", "omp", "cuda e2e"):
            if cat in best:
                out[key][cat].append((scalar, best[cat].time_s))
    return {k: {c: sorted(p) for c, p in v.items()} for k, v in out.items()
            if len({p[0] for pts in v.values() for p in pts}) >= 2 and "cuda e2e" in v
            and ("serial" in v or "omp" in v)}


def chart_crossover(rows: list[Row], context: dict | None = None) -> Figure | None:
    data = crossover_series(rows)
    if not data:
        return None
    keys = sorted(data)[:MAX_PANELS]
    fig, axes = grid(len(keys))
    for ax, key in zip(axes, keys):
        workload, labels, axis_label = key
        for cat, points in data[key].items():
            ax.plot([p[0] for p in points], [p[1] for p in points], "o-",
                    color=CATEGORY_COLORS[cat], label=cat)
        cross = an.crossover_size(data[key])
        title = " ".join((workload,) + labels)
        if cross is None:
            title += " (cuda e2e never fastest here)"
        else:
            ax.axvline(cross, color="black", linestyle=":", linewidth=1)
            ax.annotate(f"cuda e2e faster\nfrom {axis_label}={cross:g}", (cross, 0.95),
                        xycoords=("data", "axes fraction"), fontsize=7, va="top",
                        ha="left", xytext=(3, 0), textcoords="offset points")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(_time_formatter())
        ax.set_xlabel(f"problem size ({axis_label})")
        ax.set_ylabel("time per iteration")
        ax.set_title(title, fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    fig.suptitle("CPU–GPU crossover: when does offloading (end to end) pay?")
    return fig


# ----------------------------------------------------------------- registry

@dataclass(frozen=True)
class ChartSpec:
    key: str
    title: str
    filename: str
    draw: Callable[[list[Row], dict | None], Figure | None]
    needs_gpu: bool
    # A sentence printed under the chart when its data says something a picture can hide.
    note: Callable[[list[Row], dict | None], str | None] | None = None


CHARTS = (
    ChartSpec("speedup", "Speedup over serial", "speedup.png", chart_speedup, False),
    ChartSpec("roofline", "Roofline", "roofline.png", chart_roofline, False, roofline_note),
    ChartSpec("occupancy", "Time and occupancy vs block size", "occupancy.png", chart_occupancy, True),
    ChartSpec("transfers", "Transfer bandwidth", "transfers.png", chart_transfers, True),
    ChartSpec("streams", "Stream overlap", "streams.png", chart_streams, True),
    ChartSpec("progress", "Progress overhead", "progress.png", chart_progress, True),
    ChartSpec("ceiling", "% of its access pattern's ceiling", "ceiling.png", chart_ceiling,
              False),
    ChartSpec("crossover", "CPU–GPU crossover", "crossover.png", chart_crossover, True),
)
