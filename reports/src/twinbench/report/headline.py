"""The report's first sentence: the answer, with every number taken from the summary lines
(summary.summary_lines), so that it, the chart under it and the table agree. The range and
median are those of the workloads where the GPU is faster; the ones where it is not are named
(a 0.003× beside 187× would make the range say nothing). A run without GPU rows opens with
reference.cpu_figures instead."""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field

from . import summary as su
from .units import fmt_speedup


@dataclass
class GpuFigures:
    """kernel: like-for-like GPU kernel × CPU per line (label -> value); hardware: those lines'
    hardware ratios; e2e: end-to-end × CPU per workload."""
    kernel: dict[str, float] = field(default_factory=dict)
    hardware: list[float] = field(default_factory=list)
    e2e: dict[str, float] = field(default_factory=dict)

    @property
    def gpu_wins(self) -> dict[str, float]:
        return {k: v for k, v in self.kernel.items() if v > 1.0}

    @property
    def cpu_wins(self) -> list[str]:
        return [k for k, v in self.kernel.items() if v <= 1.0]

    @property
    def e2e_slower(self) -> list[str]:
        return [k for k, v in self.e2e.items() if v < 1.0]


def gpu_figures(lines: list[su.SummaryLine]) -> GpuFigures:
    figures = GpuFigures()
    for line in lines:
        if line.gpu_speedup:
            # "sgemm", "sgemm bf16": the workload, and the precision when it is not its own.
            figures.kernel[f"{line.workload} {line.best.precision}".strip()] = \
                line.gpu_speedup.value
            if line.hardware:
                figures.hardware.append(line.hardware.value)
        # End to end is per workload: the workload's own precision, its first line.
        if line.e2e_speedup and line.workload not in figures.e2e and not line.best.precision:
            figures.e2e[line.workload] = line.e2e_speedup.value
    return figures


def _span(values) -> str:
    """"12.7–187×"; one value when they are all the same."""
    low, high = fmt_speedup(min(values)), fmt_speedup(max(values))
    return low if low == high else f"{low.rstrip('×')}–{high}"


def _count(n: int) -> str:
    return f"{n} workload" + ("" if n == 1 else "s")


def _names(names: list[str]) -> str:
    return " and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " and " + names[-1]


def _plain(model: str) -> str:
    """"Intel(R) Xeon(R) Platinum 8480+ CPU @ 2.0GHz" -> "Intel Xeon Platinum 8480+"."""
    text = re.sub(r"\((R|TM|tm|r)\)", "", model)
    text = re.sub(r"\s+CPU\b.*$|\s*@.*$", "", text)
    return re.sub(r"\s+", " ", text).strip()


def machines(context: dict) -> str:
    """"NVIDIA H200 vs its Intel Xeon Processor host (16 OpenMP threads)"."""
    gpu = context.get("gpu_name") or "the GPU"
    cpu = _plain(str(context.get("cpu_model") or "")) or "CPU"
    threads = context.get("omp_threads")
    return f"{gpu} vs its {cpu} host" + (f" ({threads} OpenMP threads)" if threads else "")


def _counted_twice(lines: list[su.SummaryLine]) -> str:
    """"; sgemm counted in FP32 and BF16": a workload counts once per precision with a line."""
    extra: dict[str, list[str]] = {}
    for line in lines:
        if line.best.precision and line.gpu_speedup:
            extra.setdefault(line.workload, []).append(line.best.precision.upper())
    return "".join(f"; {w} counted in FP32 and {' and '.join(p)}" for w, p in extra.items())


def gpu_headline(lines: list[su.SummaryLine], context: dict) -> str | None:
    """The headline sentence; None when no line has a like-for-like GPU kernel speedup."""
    f = gpu_figures(lines)
    if not f.kernel:
        return None
    wins = f.gpu_wins
    text = f"On {machines(context)}, "
    if wins:
        hardware = f"; hardware ratio {_span(f.hardware)}" if f.hardware else ""
        text += (f"GPU kernels are {_span(wins.values())} faster like for like on "
                 f"{len(wins)} of {_count(len(f.kernel))} (median "
                 f"{fmt_speedup(statistics.median(wins.values()))}{hardware}"
                 f"{_counted_twice(lines)})")
        if f.cpu_wins:
            text += f"; the CPU is faster on {_names(f.cpu_wins)}"
    else:
        text += f"no GPU kernel is faster than the CPU like for like ({_count(len(f.kernel))})"
    text += "."
    if f.e2e:
        slower = len(f.e2e_slower)
        text += (f" End to end with the transfers, {slower} of {_count(len(f.e2e))} "
                 f"{'is' if slower == 1 else 'are'} slower on the GPU.")
    return text
