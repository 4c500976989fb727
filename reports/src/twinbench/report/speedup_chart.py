"""The chart under the report's headline: per workload, how much faster the GPU is like for like
(kernel only and end to end), against the hardware ratio, each point coloured by what limits it.
A run without GPU rows gets the CPU's own version: OpenMP × serial against the ratio of the
all-thread to the one-thread limits, and each best CPU row's share of its own limit.

One figure, sized for the first screen of a laptop (about 1250 × 470 px at the report's DPI):
the reader sees the answer and its spread before reading a number.
"""

from __future__ import annotations

import math
import re

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator  # noqa: E402

from . import ceilings as ce  # noqa: E402
from . import summary as su  # noqa: E402

FILENAME = "first-screen-speedup.png"
CPU_FILENAME = "first-screen-cpu.png"
TITLE = "GPU speedup per workload, like for like, against the hardware ratio"
CPU_TITLE = "OpenMP speedup over serial, and each best CPU row's share of its own limit"

# ----------------------------------------------------------------- limiter classes
#
# summary.limiters names the limiter per side ({"GPU": "memory bandwidth (95 % of add)", "e2e":
# "PCIe transfers (...)", "CPU": "latency / other"}), the class first. The chart needs five
# colours, not a sentence: the head of each side's words is read into its class.

MEMORY, COMPUTE, LATENCY, LAUNCH, TRANSFER = "memory", "compute", "latency", "launch", "transfer"
CLASSES = (MEMORY, COMPUTE, LATENCY, LAUNCH, TRANSFER)
CLASS_LABELS = {MEMORY: "memory bandwidth", COMPUTE: "compute", LATENCY: "latency / other",
                LAUNCH: "launch latency", TRANSFER: "PCIe transfers"}
# Colour-blind safe (Okabe-Ito), one hue per class.
CLASS_COLORS = {MEMORY: "#0072B2", COMPUTE: "#D55E00", LATENCY: "#7F7F7F", LAUNCH: "#CC79A7",
                TRANSFER: "#E69F00"}

# Read from the words before any bracket or colon ("DRAM bandwidth (ncu: 93 % of peak)",
# "compute: FP32 pipe (...)", "latency: long scoreboard stalls (...)"): the class comes first,
# the detail after. First match wins; "too few threads" is a latency limit (not enough work in
# flight to hide it).
_CLASS_WORDS = ((TRANSFER, ("pcie", "transfer")), (LAUNCH, ("launch",)),
                (MEMORY, ("bandwidth",)), (COMPUTE, ("compute",)))


def limiter_class(text: str | None) -> str:
    """One side's limiter words -> a class; anything unnamed (latency / other, too few threads,
    an unknown or suspect ceiling) is latency."""
    words = without_brackets(text or "").lower().split(":")[0]
    for name, keys in _CLASS_WORDS:
        if any(k in words for k in keys):
            return name
    return LATENCY


def without_brackets(text: str) -> str:
    """"memory bandwidth (95 % of add)" -> "memory bandwidth": the share has its own column."""
    out, depth = [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return re.sub(r"\s+", " ", "".join(out)).strip().rstrip(":").strip()


def kernel_class(line: su.SummaryLine) -> str:
    """The GPU kernel row's limiter: the speedup's fast side sets how far it can go."""
    return limiter_class(line.limiters.get("GPU"))


def e2e_class(line: su.SummaryLine) -> str:
    """Transfers when the e2e row is PCIe-bound, else the kernel's own class."""
    return TRANSFER if "e2e" in line.limiters else kernel_class(line)


def cpu_class(line: su.SummaryLine) -> str:
    return limiter_class(line.limiters.get("CPU"))


# ----------------------------------------------------------------- labels and axes

def line_label(line: su.SummaryLine) -> str:
    """"sgemm", "sgemm bf16", "lucas iterative": a workload, and what tells its lines apart."""
    extra = [w for w in (line.best.algorithm, line.best.precision) if w]
    return " ".join([line.workload, *extra])


def _fmt_x(value: float, _pos=None) -> str:
    if value >= 1:
        return f"{value:,.0f}×"
    return f"{value:.2g}×"


def _decades(low: float, high: float) -> tuple[float, float]:
    """Whole powers of ten around [low, high], so the tick labels are 0.01×, 1×, 100×."""
    return 10 ** math.floor(math.log10(low)), 10 ** math.ceil(math.log10(high))


LABEL_PT = 12        # tick labels: read on a laptop screen at 100 % zoom
SMALL_PT = 11        # legends
VALUE_PT = 10        # the kernel speedup beside its marker
FIG_WIDTH_IN = 11.4  # 1254 px at the report's 110 DPI: fits a 1400 px window with margins
ROW_IN = 0.2         # inches per workload line: 22 px, a 12 pt label and a gap
BASE_IN = 1.2        # two legend rows and the axis label


def _figure(count: int) -> Figure:
    height = BASE_IN + ROW_IN * max(count, 7)  # a few lines still get a readable plot
    return Figure(figsize=(FIG_WIDTH_IN, height), layout="constrained")


def _style_rows(ax, labels: list[str]):
    ax.set_yticks(range(len(labels)), labels, fontsize=LABEL_PT)
    ax.set_ylim(len(labels) - 0.5, -0.5)  # first line on top, as in the table
    ax.tick_params(axis="x", labelsize=LABEL_PT)
    ax.grid(axis="x", which="major", color="#dddddd", linewidth=0.8)
    ax.set_axisbelow(True)


def _log_x(ax, values: list[float]):
    low, high = _decades(min(values), max(values))
    ax.set_xscale("log")
    # A margin past the outer decades keeps their tick labels inside the figure.
    ax.set_xlim(low / 1.5, high * 1.5)
    ax.xaxis.set_major_locator(FixedLocator([10.0 ** k for k in range(
        round(math.log10(low)), round(math.log10(high)) + 1)]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(_fmt_x))


def _class_legend(used: set[str]) -> list:
    return [Patch(color=CLASS_COLORS[c], label=CLASS_LABELS[c]) for c in CLASSES if c in used]


def _legends(fig, marks: list, used: set[str]):
    """What the marks are above the plot; what the colours mean (the limiter) below it."""
    fig.legend(handles=marks, loc="outside upper center", ncol=len(marks), fontsize=SMALL_PT,
               frameon=False, handletextpad=0.4, columnspacing=1.4)
    # The legend's own title would take a line of the first screen: a blank handle says it.
    classes = [Patch(alpha=0.0, label="colour = what limits it:")] + _class_legend(used)
    fig.legend(handles=classes, loc="outside lower center", ncol=len(classes),
               fontsize=SMALL_PT, frameon=False, handletextpad=0.4, columnspacing=1.4)


# ----------------------------------------------------------------- the GPU run's chart

def charted_lines(lines: list[su.SummaryLine]) -> list[su.SummaryLine]:
    """The summary lines with a like-for-like GPU speedup (kernel or end to end)."""
    return [line for line in lines if line.gpu_speedup or line.e2e_speedup]


def hardware_band(lines: list[su.SummaryLine]) -> tuple[float, float] | None:
    """The lowest and highest hardware ratio of the lines that have a kernel speedup."""
    ratios = [line.hardware.value for line in lines if line.hardware and line.gpu_speedup]
    return (min(ratios), max(ratios)) if ratios else None


def speedup_chart(lines: list[su.SummaryLine]) -> Figure | None:
    """One row per summary line: ● GPU kernel × CPU, ◆ end to end × CPU (both like for like,
    log axis), | the line's hardware ratio, the band from the lowest to the highest ratio, and
    the 1× line; each marker coloured by the class of its limiter."""
    lines = charted_lines(lines)
    if not lines:
        return None
    fig = _figure(len(lines))
    ax = fig.subplots()
    labels = [line_label(line) for line in lines]
    values: list[float] = []
    used: set[str] = set()
    band = hardware_band(lines)
    if band:
        ax.axvspan(*band, color="#bfe3bf", alpha=0.55, zorder=0)
    ax.axvline(1.0, color="#333333", linewidth=1.4, zorder=1)
    for y, line in enumerate(lines):
        points = [(s, kind) for s, kind in ((line.gpu_speedup, "kernel"),
                                            (line.e2e_speedup, "e2e")) if s]
        xs = [s.value for s, _ in points]
        if line.hardware:
            ax.plot([line.hardware.value] * 2, [y - 0.38, y + 0.38], color="#2e7d32",
                    linewidth=2.2, zorder=2)
            xs.append(line.hardware.value)
        if len(xs) > 1:  # a thin guide from the slowest to the fastest mark: one row, one eye
            ax.plot([min(xs), max(xs)], [y, y], color="#cccccc", linewidth=1.0, zorder=1)
        for speedup, kind in points:
            cls = kernel_class(line) if kind == "kernel" else e2e_class(line)
            used.add(cls)
            ax.scatter([speedup.value], [y], s=95 if kind == "kernel" else 80,
                       marker="o" if kind == "kernel" else "D", color=CLASS_COLORS[cls],
                       edgecolor="black", linewidth=0.7, zorder=4)
            if speedup.low is not None and speedup.high is not None:
                ax.plot([speedup.low, speedup.high], [y, y], color=CLASS_COLORS[cls],
                        linewidth=3, zorder=3)
            values += [speedup.value]
            if kind == "kernel":  # the number, so the reader need not read it off a log axis
                ax.annotate(su.fmt_speedup(speedup.value), (speedup.value, y), xytext=(9, 0),
                            textcoords="offset points", va="center", fontsize=VALUE_PT,
                            color="#222222", zorder=5,
                            bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none",
                                      alpha=0.85))
        values += xs
    _log_x(ax, values + [1.0])
    _style_rows(ax, labels)
    ax.set_xlabel("times faster on the GPU than the best CPU row of the same algorithm "
                  "(log)   ← CPU faster | GPU faster →", fontsize=LABEL_PT)
    handles = [Line2D([], [], marker="o", linestyle="", color="white", markeredgecolor="black",
                      markersize=10, label="GPU kernel"),
               Line2D([], [], marker="D", linestyle="", color="white", markeredgecolor="black",
                      markersize=9, label="end to end (with transfers)"),
               Line2D([], [], color="#2e7d32", linewidth=2.2,
                      label="hardware ratio (the GPU's limit / the CPU's)")]
    if band:
        handles.append(Patch(color="#bfe3bf", label=f"its range, {_band_text(band)}"))
    _legends(fig, handles, used)
    return fig


def _band_text(band: tuple[float, float]) -> str:
    low, high = band
    return f"{su.fmt_speedup(low)}–{su.fmt_speedup(high)}" if high > low else su.fmt_speedup(low)


# ----------------------------------------------------------------- a run without GPU rows

def cpu_charted_lines(lines: list[su.SummaryLine]) -> list[su.SummaryLine]:
    return [line for line in lines if line.best.cpu is not None]


def thread_ratio(line: su.SummaryLine, context: dict) -> float | None:
    """All threads' limit over one thread's, for the bound the OpenMP row is held to: the
    bandwidth of its pattern, or the roof of its precision when it is nearer that."""
    omp = line.best.omp
    if omp is None:
        return None
    limit = ce.row_limit(omp)
    if limit is None:
        return None
    what = limit.what
    if limit.kind == "compute":
        every = ce.precision_roof(context, "cpu_all", what)
        one = ce.precision_roof(context, "cpu_one", what)
        return every.value / one.value if every and one and one.value else None
    if what in ce.suspect_cpu_ceilings(context):  # all threads below one: measured while busy
        return None
    every = ce.pattern_bandwidths(context, "cpu_all").get(what)
    one = ce.pattern_bandwidths(context, "cpu_one").get(what)
    return every / one if every and one else None


def cpu_chart(lines: list[su.SummaryLine], context: dict) -> Figure | None:
    """Left: OpenMP × serial per workload (log), | the all-thread over one-thread limit ratio,
    the 1× line. Right: the best CPU row's % of its own limit. Coloured by the CPU limiter."""
    lines = cpu_charted_lines(lines)
    if not lines:
        return None
    fig = _figure(len(lines))
    left, right = fig.subplots(1, 2, sharey=True, width_ratios=(3, 2))
    labels = [line_label(line) for line in lines]
    used: set[str] = set()
    values = [1.0]
    left.axvline(1.0, color="#333333", linewidth=1.4, zorder=1)
    ratios = []
    for y, line in enumerate(lines):
        cls = cpu_class(line)
        used.add(cls)
        ratio = thread_ratio(line, context)
        if ratio:
            left.plot([ratio] * 2, [y - 0.38, y + 0.38], color="#2e7d32", linewidth=2.2,
                      zorder=2)
            values.append(ratio)
            ratios.append(ratio)
        speedup = line.omp_speedup
        if speedup:
            left.scatter([speedup.value], [y], s=95, marker="o", color=CLASS_COLORS[cls],
                         edgecolor="black", linewidth=0.7, zorder=4)
            if speedup.low is not None:
                left.plot([speedup.low, speedup.high], [y, y], color=CLASS_COLORS[cls],
                          linewidth=3, zorder=3)
            values.append(speedup.value)
        limit = ce.row_limit(line.best.cpu)  # its share of its own limit, as the run wrote it
        if limit:
            right.barh([y], [min(limit.pct, 150.0)], color=CLASS_COLORS[cls], height=0.6,
                       edgecolor="black", linewidth=0.5)
            right.text(min(limit.pct, 150.0) + 2, y, f"{limit.pct:.0f} % {limit.what}",
                       va="center", fontsize=SMALL_PT - 1)
    _log_x(left, values)
    _style_rows(left, labels)
    _style_rows(right, labels)
    right.set_xlim(0, 175)
    right.axvline(100, color="#333333", linewidth=1.2)
    right.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:.0f} %"))
    left.set_xlabel("OpenMP × serial, same algorithm (log)", fontsize=LABEL_PT)
    right.set_xlabel("best CPU row: % of its own limit", fontsize=LABEL_PT)
    band = (min(ratios), max(ratios)) if ratios else None
    handles = [Line2D([], [], marker="o", linestyle="", color="white", markeredgecolor="black",
                      markersize=10, label="OpenMP × serial"),
               Line2D([], [], color="#2e7d32", linewidth=2.2,
                      label="all threads / one thread limit"
                      + (f" ({_band_text(band)})" if band else ""))]
    _legends(fig, handles, used)
    return fig
