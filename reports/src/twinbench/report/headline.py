"""The report's first sentence: the answer, with every number taken from the run.

With GPU rows: "On NVIDIA H200 vs its Intel Xeon Processor host (16 OpenMP
threads), GPU kernels are 12.6–187× faster like for like on 14 of 17 workloads (median 48.3×;
hardware ratio 23.6–58.6×; sgemm counted in FP32 and BF16); the CPU is faster on alloc, lucas
and sync. End to end with the transfers, 7 of 9 workloads are slower on the GPU." The range and
median are those of the workloads where the GPU is faster; the ones where it is not are named
(a 0.003× beside 187× would make the range say nothing); the hardware ratio is the GPU's limit
over the CPU's for the bound each pair is nearest (summary.hardware_ratio), lowest to highest.

A run without GPU rows opens with reference.cpu_figures instead (OpenMP × serial, each best CPU
row's share of its own limits): first_screen.py sets it where this sentence goes.

The figures come from summary.summary_lines (one line per workload at its headline size, and
one more per other precision measured on both sides: sgemm's BF16 pair is a workload line of its
own, labelled "sgemm bf16"), so the sentence, the chart under it and the table agree.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field

from . import summary as su


@dataclass
class GpuFigures:
    """What the GPU headline says. kernel: like-for-like GPU kernel × CPU per line (label ->
    value); hardware: those lines' hardware ratios; e2e: end-to-end × CPU per workload."""
    kernel: dict[str, float] = field(default_factory=dict)
    hardware: list[float] = field(default_factory=list)
    e2e: dict[str, float] = field(default_factory=dict)

    @property
    def gpu_wins(self) -> dict[str, float]:
        return {k: v for k, v in self.kernel.items() if v > 1.0}

    @property
    def cpu_wins(self) -> list[str]:
        """Lines whose GPU kernel is not faster than the CPU (a speedup of at most 1×)."""
        return [k for k, v in self.kernel.items() if v <= 1.0]

    @property
    def e2e_slower(self) -> list[str]:
        return [k for k, v in self.e2e.items() if v < 1.0]


def workload_label(line: su.SummaryLine) -> str:
    """"sgemm", "sgemm bf16": the workload, and the precision when it is not its own."""
    return f"{line.workload} {line.best.precision}".strip()


def gpu_figures(lines: list[su.SummaryLine]) -> GpuFigures:
    figures = GpuFigures()
    for line in lines:
        label = workload_label(line)
        if line.gpu_speedup:
            figures.kernel[label] = line.gpu_speedup.value
            if line.hardware:
                figures.hardware.append(line.hardware.value)
        # End to end is per workload: the workload's own precision, its first line.
        if line.e2e_speedup and line.workload not in figures.e2e and not line.best.precision:
            figures.e2e[line.workload] = line.e2e_speedup.value
    return figures


def _x(value: float) -> str:
    return su.fmt_speedup(value)


def _span(values, fmt=_x) -> str:
    """"12.7–187×"; one value when they are all the same."""
    low, high = min(values), max(values)
    if fmt(low) == fmt(high):
        return fmt(low)
    return f"{fmt(low).rstrip('×')}–{fmt(high)}"


def _count(n: int, word: str = "workload") -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _names(names: list[str]) -> str:
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


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
    """"; sgemm counted in FP32 and BF16": a workload with a line per precision counts once per
    precision, and the sentence says so."""
    extra: dict[str, list[str]] = {}
    for line in lines:
        if line.best.precision and line.gpu_speedup:
            extra.setdefault(line.workload, []).append(line.best.precision.upper())
    if not extra:
        return ""
    return "".join(f"; {w} counted in FP32 and {' and '.join(p)}" for w, p in extra.items())


def gpu_headline(lines: list[su.SummaryLine], context: dict) -> str | None:
    """The headline sentence; None when no line has a like-for-like GPU kernel speedup."""
    f = gpu_figures(lines)
    if not f.kernel:
        return None
    wins = f.gpu_wins
    parts = [f"On {machines(context)}, "]
    if wins:
        hardware = f"; hardware ratio {_span(f.hardware)}" if f.hardware else ""
        parts.append(f"GPU kernels are {_span(wins.values())} faster like for like on "
                     f"{len(wins)} of {_count(len(f.kernel))} (median "
                     f"{_x(statistics.median(wins.values()))}{hardware}{_counted_twice(lines)})")
        if f.cpu_wins:
            parts.append(f"; the CPU is faster on {_names(f.cpu_wins)}")
    else:
        parts.append("no GPU kernel is faster than the CPU like for like "
                     f"({_count(len(f.kernel))})")
    text = "".join(parts) + "."
    if f.e2e:
        slower = len(f.e2e_slower)
        text += (f" End to end with the transfers, {slower} of {_count(len(f.e2e))} "
                 f"{'is' if slower == 1 else 'are'} slower on the GPU.")
    return text
