"""Pairing rows that solve the same problem, and the numbers derived from them."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from .loader import Row, Run, usable  # noqa: F401  (usable: one definition, the loader's)
from .rates import (  # noqa: F401  (re-exported: the row's rates, the context's numbers)
    achieved_flop_per_s, arithmetic_intensity, context_number, gb_per_s, gflop_per_s)

# Bars of the speedup chart, in order. Kernel-only and end-to-end CUDA are
# separate because they answer different questions (is the kernel fast / is
# offloading worth it).
CATEGORIES = ("serial", "omp", "cuda kernel", "cuda e2e", "thrust", "cublas")
# The CPU libraries' rows (openblas, onednn): every thread, like omp, but not the OpenMP
# teaching kernel, so not the "× omp" baseline.
CPU_LIBRARY = "cpu library"


def fastest(rows: list[Row]) -> Row | None:
    rows = usable(rows)
    return min(rows, key=lambda r: r.time_s) if rows else None


def group_by_problem(rows: list[Row]) -> dict[tuple[str, tuple[str, ...]], list[Row]]:
    """(workload, size_key) -> rows, in first-seen order."""
    groups: dict[tuple[str, tuple[str, ...]], list[Row]] = defaultdict(list)
    for row in rows:
        groups[(row.workload, row.size_key)].append(row)
    return dict(groups)


def best_by_category(rows: list[Row]) -> dict[str, Row]:
    """Fastest row per category among rows of one problem."""
    buckets: dict[str, list[Row]] = defaultdict(list)
    for row in usable(rows):
        cat = row.kind
        if cat is None:
            continue
        # thrust/cublas: compare kernel-only numbers when there are any, so the
        # bar means the same thing as "cuda kernel".
        buckets[cat].append(row)
    best = {}
    for cat, members in buckets.items():
        if cat in ("thrust", "cublas"):
            kernel_only = [r for r in members if r.mode != "e2e"]
            members = kernel_only or members
        best[cat] = fastest(members)
    return best


@dataclass
class Baselines:
    serial: Row | None
    omp: Row | None


def baselines_for(rows: list[Row]) -> Baselines:
    best = best_by_category(rows)
    return Baselines(serial=best.get("serial"), omp=best.get("omp"))


def speedup(baseline: Row | None, row: Row) -> float | None:
    if baseline is None or row.time_s is None or not baseline.time_s or not row.time_s:
        return None
    return baseline.time_s / row.time_s


# The like-for-like pair of the CPU-vs-GPU table: the fastest CPU row against the fastest GPU
# row that times the kernel alone (e2e adds transfers, a different question).
CPU_CATEGORIES = ("serial", "omp", CPU_LIBRARY)
GPU_KERNEL_CATEGORIES = ("cuda kernel", "thrust", "cublas")


# ----------------------------------------------------------------- energy

def energy_per_iter_j(row: Row) -> float | None:
    """Joules per iteration (mean power while the samples ran x the median time)."""
    # gpu_energy_per_iter_j: the name GPU rows used before the CPU side measured energy too.
    for key in ("energy_per_iter_j", "gpu_energy_per_iter_j"):
        value = row.counter(key)
        if value is not None and value > 0:
            return value
    return None


def items_per_iter(row: Row) -> float | None:
    if row.items_per_second and row.time_s:
        return row.items_per_second * row.time_s
    return row.counter("items_per_iter")


def energy_per_item_j(row: Row) -> float | None:
    value = row.counter("energy_per_item_j")
    if value is not None and value > 0:
        return value
    per_iter, items = energy_per_iter_j(row), items_per_iter(row)
    return per_iter / items if per_iter and items else None


def energy_ratio(cpu: Row, gpu: Row) -> float | None:
    """CPU energy over GPU energy for the same problem (> 1: the GPU used less)."""
    for measure in (energy_per_iter_j, energy_per_item_j):
        a, b = measure(cpu), measure(gpu)
        if a and b:
            return a / b
    return None


def size_scalar(row: Row) -> float | None:
    """One number for "how big": the product of the numeric size args (n, w*h, ...)."""
    product = 1.0
    found = False
    for item in row.size_key:
        _, _, value = item.partition(":")
        try:
            number = float(value)
        except ValueError:
            continue
        product *= number
        found = True
    return product if found else None


def size_axis_label(row: Row) -> str:
    keys = []
    for item in row.size_key:
        key, _, value = item.partition(":")
        try:
            float(value)
        except ValueError:
            continue
        keys.append(key)
    return "×".join(keys) if keys else "size"


def non_numeric_size(row: Row) -> tuple[str, ...]:
    """Size args that are labels (dtype:fp32), which split a size sweep into series."""
    out = []
    for item in row.size_key:
        _, _, value = item.partition(":")
        try:
            float(value)
        except ValueError:
            out.append(item)
    return tuple(out)


def largest_problem(rows: list[Row]) -> tuple[str, ...] | None:
    """The size key with the biggest size scalar; headline charts use it."""
    sized = [(size_scalar(r) or 0.0, r.size_key) for r in rows]
    return max(sized)[1] if sized else None


def crossover_size(points: dict[str, list[tuple[float, float]]],
                   gpu_series: str = "cuda e2e") -> float | None:
    """Smallest size from which the GPU series (cuda e2e unless named) beats the best CPU at
    every larger size.

    points: series name -> [(size, seconds)]. Requiring "every larger size"
    keeps one noisy small-size win from being reported as the crossover.
    """
    gpu = dict(points.get(gpu_series, []))
    cpu: dict[float, float] = {}
    for name in ("serial", "omp"):
        for size, seconds in points.get(name, []):
            cpu[size] = min(seconds, cpu.get(size, math.inf))
    common = sorted(set(gpu) & set(cpu))
    answer = None
    for size in reversed(common):
        if gpu[size] < cpu[size]:
            answer = size
        else:
            break
    return answer


# What a table or a list says where a run has no GPU: why is said once, in the report's opening
# note (reference.no_gpu_blocks), not again wherever gpu_status would appear.
NO_GPU_SAID_ABOVE = "no GPU in this run: the note at the top says why"


def gpu_status_note(context: dict) -> str | None:
    """A sentence for the report when GPU variants did not run, else None."""
    status = (context or {}).get("gpu_status")
    if status is None:
        return "gpu_status not recorded in this run; GPU results may be missing."
    if status == "available":
        return None
    if status.startswith("not built"):
        return f"GPU variants were not built ({status}); only CPU results are shown."
    return f"GPU variants were skipped ({status}); only CPU results are shown."


def timing_note(rows: list[Row], listed: int = 8) -> str | None:
    """How the GPU rows were timed (the launch_gated counter), or None when no row says.

    Gated rows time the GPU's execution only; the others include the host's launch latency
    (a few microseconds), which matters for kernels of tens of microseconds."""
    gated = [r for r in rows if r.counter("launch_gated") == 1.0]
    inline = [r for r in rows if r.counter("launch_gated") == 0.0]
    if not gated and not inline:
        return None
    text = (f"GPU timing: {len(gated)} row(s) timed behind the launch gate (GPU execution "
            f"only, launch latency left out); {len(inline)} with the launch latency included")
    if inline:
        names = [r.name for r in inline[:listed]]
        more = f", and {len(inline) - listed} more" if len(inline) > listed else ""
        text += " (work that waits for the GPU, e2e, or longer than 10 ms: " + \
            ", ".join(names) + more + ")"
    return text + "."


def _minutes(seconds: float) -> str:
    minutes, seconds = divmod(int(round(seconds)), 60)
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"


def wall_time_note(context: dict, peers: bool = False) -> str:
    """", in 4 min 12 s" for a finished run (twinbench records its wall time). peers: the run
    holds the Numba peers' rows, which peers/numba/ measured after the C++ (numba_peers_wall_s):
    their time is added, so that the time covers what the count counts."""
    wall = context_number(context, "run_wall_s")
    if wall is None:
        return ""
    if not peers:
        return f", in {_minutes(wall)}"
    numba = context_number(context, "numba_peers_wall_s")
    if numba is None:
        return f", in {_minutes(wall)} for the C++ rows (the Numba peers' time not recorded)"
    return (f", in {_minutes(wall + numba)} ({_minutes(wall)} the C++, {_minutes(numba)} the "
            "Numba peers)")


def stopping_note(context: dict) -> str:
    """How each time was taken: the stopping rule recorded in the context."""
    if context.get("stop_rule") == "stdrel":
        return ("Each time is the median of samples taken, once at least "
                f"{context.get('stop_min_samples', '?')} samples and "
                f"{context.get('stop_min_time_s', '?')} s of measured time were in, until their "
                f"relative spread (stdev/mean) fell under "
                f"{context.get('stop_max_rel_spread_pct', '?')}% or stopped changing, or until "
                f"{context.get('stop_max_time_s', '?')} s had passed (the row's stop_reason "
                "says which).")
    return "Times are per iteration (median of repetitions when repeated)."
