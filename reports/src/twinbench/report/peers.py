"""The articles' Numba code beside the C++: a section, its table and its chart. Per workload
(and label args such as dtype), at the largest of the sizes where most pairs were measured, the
fastest Numba CUDA kernel, Numba CUDA end to end and Numba CPU rows beside the C++ rows they are
the peers of (summary.beside_numba), with how many times faster the C++ is."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
from matplotlib.colors import to_rgb  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from . import analysis as an  # noqa: E402
from .document import Block, Heading, Image, Paragraph, Table  # noqa: E402
from .loader import Row  # noqa: E402
from .png import PNG  # noqa: E402
from .summary import NumbaBeside, beside_numba, row_cell, speedup_cell  # noqa: E402
from .tables import numba_versions  # noqa: E402
from .units import fmt_time  # noqa: E402

SECTION_TITLE = "The articles' Numba code beside the C++"
CHART_FILENAME = "numba.png"
CHART_TITLE = "C++ and the articles' Numba code: time per iteration"


# ----------------------------------------------------------------- what is compared

@dataclass
class NumbaPoint:
    """One workload (and its label args) at the size its C++ and Numba rows are compared."""
    workload: str
    size_key: tuple[str, ...]
    beside: NumbaBeside

    @property
    def size_text(self) -> str:
        return " ".join(self.size_key) or "–"


PAIRS = (("cuda", "numba_cuda"), ("cuda_e2e", "numba_cuda_e2e"), ("omp", "numba_cpu"))


def pairs_measured(beside: NumbaBeside) -> int:
    """How many of C++ CUDA / Numba CUDA (kernel, e2e) and C++ OpenMP / Numba CPU have both."""
    return sum(getattr(beside, a) is not None and getattr(beside, b) is not None
               for a, b in PAIRS)


def numba_points(rows: list[Row]) -> list[NumbaPoint]:
    """Per (workload, label args): the largest of the sizes with the most C++/Numba pairs
    measured (a Numba kernel that mirrors a C++ one run at fewer sizes is not left out for a
    larger size only the CPU rows reached); sorted by workload."""
    best: dict[tuple, tuple[tuple[int, float], NumbaPoint]] = {}
    for (workload, size), members in an.group_by_problem(an.usable(rows)).items():
        beside = beside_numba(members)
        if not (beside.has_numba and beside.has_cpp):
            continue
        key = (workload, an.non_numeric_size(members[0]))
        rank = (pairs_measured(beside), an.size_scalar(members[0]) or 0.0)
        if key not in best or rank > best[key][0]:
            best[key] = (rank, NumbaPoint(workload, size, beside))
    return [best[key][1] for key in sorted(best)]


def numba_status_note(context: dict) -> str | None:
    """The context's numba_peers, when it says the peers were skipped."""
    status = str((context or {}).get("numba_peers") or "").strip()
    if not status.lower().startswith("skipped"):
        return None
    reason = status[len("skipped"):].lstrip(" :-–") or "no reason recorded"
    return f"The articles' Numba code (peers/numba/) was not run beside the C++: {reason}."


# ----------------------------------------------------------------- the table

TABLE_HEADERS = [
    "workload", "size", "C++ CUDA kernel", "Numba CUDA kernel", "C++ CUDA e2e",
    "Numba CUDA e2e", "Numba CPU", "C++ OpenMP", "C++ × Numba, CUDA kernel",
    "C++ × Numba, CUDA e2e", "C++ OpenMP × Numba CPU"]
TABLE_ROWS = ("cuda", "numba_cuda", "cuda_e2e", "numba_cuda_e2e", "numba_cpu", "omp")


def numba_table(points: list[NumbaPoint]) -> Table | None:
    if not points:
        return None
    return Table(TABLE_HEADERS, [
        [p.workload, p.size_text, *(row_cell(getattr(p.beside, attr)) for attr in TABLE_ROWS),
         *(speedup_cell(s) for s in (p.beside.kernel_ratio, p.beside.e2e_ratio,
                                     p.beside.cpu_ratio))]
        for p in points])


# ----------------------------------------------------------------- the chart

@dataclass(frozen=True)
class Bar:
    label: str
    color: str
    hatched: bool        # Numba: hatched and lighter; C++: solid. Colour: GPU green, CPU blue.


GPU_GREEN, CPU_BLUE = "#2ca02c", "#1f77b4"
BARS = (Bar("C++ CUDA (the kernel the Numba one is the peer of)", GPU_GREEN, False),
        Bar("Numba CUDA (the articles' kernels)", GPU_GREEN, True),
        Bar("Numba CPU (@njit parallel prange)", CPU_BLUE, True),
        Bar("C++ OpenMP", CPU_BLUE, False))
# Which NumbaBeside row each bar shows, per panel; the CPU bars are the same in both.
PANELS = (("kernel only (GPU: CUDA events, cold L2; transfers: the copy itself)",
           ("cuda", "numba_cuda", "numba_cpu", "omp")),
          ("end to end (GPU: with the host↔device copies; CPU bars as on the left)",
           ("cuda_e2e", "numba_cuda_e2e", "numba_cpu", "omp")))
BAR_HEIGHT = 0.2


def _lighter(color: str, amount: float = 0.65) -> tuple[float, float, float]:
    return tuple(c + (1 - c) * amount for c in to_rgb(color))


def _style(bar: Bar) -> dict:
    if bar.hatched:
        return dict(facecolor=_lighter(bar.color), edgecolor=bar.color, hatch="////", linewidth=0.8)
    return dict(facecolor=bar.color, edgecolor=bar.color, linewidth=0.8)


def _limits(times: list[float]) -> tuple[float, float]:
    """Log-axis limits with room right of the longest bar for its label."""
    lo = min(times) / 2.0
    span = math.log10(max(times) / lo) or 1.0
    return lo, max(times) * 10 ** (0.2 * span + 0.15)


def chart_numba(points: list[NumbaPoint]) -> Figure | None:
    """Grouped horizontal bars, one group per workload at the size numba_points chose, on a log
    time axis; left panel kernel only, right panel end to end. None without Numba rows."""
    if not points:
        return None
    times = [getattr(p.beside, attr).time_s for p in points for _, attrs in PANELS
             for attr in attrs if getattr(p.beside, attr) is not None]
    lo, hi = _limits(times)
    height = 1.6 + len(points) * (len(BARS) * BAR_HEIGHT + 0.35)
    fig = Figure(figsize=(15.0, height), layout="constrained")
    axes = fig.subplots(1, len(PANELS), sharey=True, squeeze=False)[0]
    offsets = [(i - (len(BARS) - 1) / 2) * BAR_HEIGHT for i in range(len(BARS))]
    for ax, (title, attrs) in zip(axes, PANELS):
        for g, point in enumerate(points):
            for bar, attr, offset in zip(BARS, attrs, offsets):
                row = getattr(point.beside, attr)
                y = g + offset
                if row is None:
                    ax.text(lo * 1.15, y, "not measured", va="center", ha="left", fontsize=6.5,
                            color="grey", style="italic")
                    continue
                ax.barh(y, row.time_s - lo, left=lo, height=BAR_HEIGHT * 0.92, **_style(bar))
                ax.annotate(f"{fmt_time(row.time_s)}  {row.impl}", (row.time_s, y),
                            xytext=(3, 0), textcoords="offset points", va="center",
                            ha="left", fontsize=7)
        ax.set_xscale("log")
        ax.set_xlim(lo, hi)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: fmt_time(v) if v > 0 else ""))
        ax.grid(True, axis="x", which="major", alpha=0.3)
        ax.set_xlabel("time per iteration (log scale; shorter is faster)", fontsize=8)
        ax.set_title(title, fontsize=10, loc="left")
        for g in range(1, len(points)):
            ax.axhline(g - 0.5, color="#dddddd", linewidth=0.8)
    axes[0].set_yticks(range(len(points)),
                       [f"{p.workload}\n{p.size_text}" for p in points], fontsize=8)
    axes[0].set_ylim(len(points) - 0.5, -0.5)   # first workload on top, C++ CUDA first
    fig.legend(handles=[Patch(label=bar.label, **_style(bar)) for bar in BARS],
               loc="outside lower center", ncols=len(BARS), fontsize=8)
    fig.suptitle(f"{CHART_TITLE}, each workload at the largest size where most pairs ran "
                 "(label: median time and impl)", fontsize=11)
    return fig


# ----------------------------------------------------------------- the section

SECTION_TEXT = (
    "The Python of the articles this suite grew out of (peers/numba/), run on the same machine, "
    "inputs and sizes and timed like the C++ rows: GPU kernel-only rows with CUDA events on a "
    "cold L2, end-to-end rows with the host↔device copies. Per workload, at the largest of the "
    "sizes where most C++/Numba pairs were measured: the fastest Numba CUDA kernel (the "
    "article's or a second one), Numba CUDA end to end and Numba CPU row (@njit(parallel=True) "
    "with prange), each beside the C++ row it is the peer of (the impl its label names, so the "
    "same algorithm; without a label, the fastest hand-written C++ CUDA kernel, not Thrust or "
    "cuBLAS, and the fastest OpenMP row). C++ × Numba is the Numba time over the C++ time, how "
    "many times faster the C++ is (below 1× Numba is faster), with the summary's intervals. "
    "Numba rows are in no other comparison, chart or best-of choice of this report; the "
    "per-size result tables list them.")


def numba_blocks(a, out_dir: Path) -> tuple[list[Block], Path | None]:
    """The section of an analysis (analyze.Analysis) and the path of the chart it wrote;
    nothing for a run without Numba rows."""
    if not a.peer_rows:
        return [], None
    versions = numba_versions(a.context)
    text = SECTION_TEXT + (f" Versions: {versions}." if versions else "")
    blocks: list[Block] = [Heading(SECTION_TITLE), Paragraph(text)]
    points = a.numba_points
    figure = chart_numba(points)
    if figure is None:
        blocks.append(Paragraph("No Numba row of this run can be set beside a C++ row: none was "
                                "measured at a size the C++ ran (skipped or failed rows are "
                                "listed in the last section).", note=True))
        return blocks, None
    path = Path(out_dir) / CHART_FILENAME
    blocks += [Image(CHART_TITLE, CHART_FILENAME, PNG(figure, path)), numba_table(points)]
    return blocks, path
