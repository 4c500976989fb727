"""Pairing rows that solve the same problem, and the numbers derived from them."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from .loader import TUNING_ARGS, Row, Run, usable  # noqa: F401  (usable: the loader's)
from .rates import (  # noqa: F401  (re-exported: the row's rates, the context's numbers)
    achieved_flop_per_s, arithmetic_intensity, context_number, gb_per_s, gflop_per_s)

# The CPU libraries' rows (openblas, onednn): every thread, like omp, but not the OpenMP
# teaching kernel, so not the "× omp" baseline.
CPU_LIBRARY = "cpu library"
# The like-for-like pair of the CPU-vs-GPU table: the fastest CPU row against the fastest GPU
# row that times the kernel alone (e2e adds transfers, a different question).
CPU_CATEGORIES = ("serial", "omp", CPU_LIBRARY)
GPU_KERNEL_CATEGORIES = ("cuda kernel", "thrust", "cublas")


def fastest(rows: list[Row]) -> Row | None:
    rows = usable(rows)
    return min(rows, key=lambda r: r.time_s) if rows else None


def fastest_by(rows: list[Row], key) -> dict:
    """key(row) -> the fastest usable row with that key (None: left out), in first-seen order;
    the first of equal times."""
    best: dict = {}
    for row in usable(rows):
        k = key(row)
        if k is not None and (k not in best or row.time_s < best[k].time_s):
            best[k] = row
    return best


def group_by(items: list, key) -> dict:
    """key(item) -> the items with that key, in first-seen order."""
    groups: dict = defaultdict(list)
    for item in items:
        groups[key(item)].append(item)
    return dict(groups)


def group_by_problem(rows: list[Row]) -> dict[tuple[str, tuple[str, ...]], list[Row]]:
    """(workload, size_key) -> rows, in first-seen order."""
    return group_by(rows, lambda r: (r.workload, r.size_key))


def best_by_category(rows: list[Row]) -> dict[str, Row]:
    """The fastest row of each kind among rows of one problem; thrust and cuBLAS by their
    kernel-only rows where there are any, so that their bar means what "cuda kernel" means."""
    best = fastest_by(rows, lambda r: r.kind)
    for kind in ("thrust", "cublas"):
        kernel = fastest([r for r in rows if r.kind == kind and r.mode != "e2e"])
        if kernel:
            best[kind] = kernel
    return best


@dataclass
class Baselines:
    serial: Row | None
    omp: Row | None


def baselines_for(rows: list[Row]) -> Baselines:
    best = best_by_category(rows)
    return Baselines(serial=best.get("serial"), omp=best.get("omp"))


def speedup(baseline: Row | None, row: Row) -> float | None:
    if baseline is None or not baseline.time_s or not row.time_s:
        return None
    return baseline.time_s / row.time_s


# ----------------------------------------------------------------- energy

def energy_per_iter_j(row: Row) -> float | None:
    """Joules per iteration (mean power while the samples ran x the median time);
    gpu_energy_per_iter_j is the name GPU rows used before the CPU side measured energy."""
    return next((v for v in map(row.counter, ("energy_per_iter_j", "gpu_energy_per_iter_j"))
                 if v is not None and v > 0), None)


def energy_per_item_j(row: Row) -> float | None:
    value = row.counter("energy_per_item_j")
    if value is not None and value > 0:
        return value
    items = row.items_per_second * row.time_s if row.items_per_second and row.time_s \
        else row.counter("items_per_iter")
    per_iter = energy_per_iter_j(row)
    return per_iter / items if per_iter and items else None


def energy_ratio(cpu: Row, gpu: Row) -> float | None:
    """CPU energy over GPU energy for the same problem (> 1: the GPU used less)."""
    for measure in (energy_per_iter_j, energy_per_item_j):
        a, b = measure(cpu), measure(gpu)
        if a and b:
            return a / b
    return None


# ----------------------------------------------------------------- sizes

def _size_args(row: Row) -> list[tuple[str, str, float | None]]:
    """(item, key, its number or None for a label) of each size arg."""
    out = []
    for item in row.size_key:
        key, _, value = item.partition(":")
        try:
            out.append((item, key, float(value)))
        except ValueError:
            out.append((item, key, None))
    return out


def size_scalar(row: Row) -> float | None:
    """One number for "how big": the product of the numeric size args (n, w*h, ...)."""
    numbers = [n for _, _, n in _size_args(row) if n is not None]
    return math.prod(numbers) if numbers else None


def size_axis_label(row: Row) -> str:
    return "×".join(k for _, k, n in _size_args(row) if n is not None) or "size"


def non_numeric_size(row: Row) -> tuple[str, ...]:
    """Size args that are labels (dtype:fp32), which split a size sweep into series."""
    return tuple(item for item, _, n in _size_args(row) if n is None)


def largest_problem(rows: list[Row]) -> tuple[str, ...] | None:
    """The size key with the biggest size scalar; headline charts use it."""
    sized = [(size_scalar(r) or 0.0, r.size_key) for r in rows]
    return max(sized)[1] if sized else None


def headline_size(rows: list[Row]) -> tuple[str, ...] | None:
    """The largest size measured on both the CPU and the GPU, else the largest the run has for
    the workload (CPU-only runs, GPU-only experiments, atomics). Numba rows have no say."""
    rows = [r for r in usable(rows) if not r.is_peer]
    sides: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for row in rows:
        if row.pair_side:
            sides[row.size_key].add("cpu" if row.pair_side in ("serial", "omp") else "gpu")
    both = [r for r in rows if sides[r.size_key] == {"cpu", "gpu"}]
    return largest_problem(both or rows)


def block_sweeps(rows: list[Row], swept) -> dict[tuple, list[Row]]:
    """(workload, impl, mode, size, other tuning args) -> the rows of one kernel's block sweep
    (two or more blocks) at the largest size it was swept at, for the rows `swept(row)` keeps.
    Rows that differ in another tuning arg (progress's strategy) are not one block sweep."""
    sweeps: dict[tuple, list[Row]] = defaultdict(list)
    for row in usable(rows):
        if "block" in row.args and swept(row):
            other = tuple(sorted((k, v) for k, v in row.args.items()
                                 if k in TUNING_ARGS and k not in ("block", "mode")))
            sweeps[(row.workload, row.impl, row.mode, row.size_key, other)].append(row)
    largest: dict[tuple, tuple] = {}
    for key, members in sweeps.items():
        if len({r.args["block"] for r in members}) < 2:
            continue
        kernel = key[:3] + key[4:]
        scalar = size_scalar(members[0]) or 0.0
        if kernel not in largest or scalar > (size_scalar(sweeps[largest[kernel]][0]) or 0.0):
            largest[kernel] = key
    return {key: sweeps[key] for key in sorted(largest.values())}


def crossover_size(points: dict[str, list[tuple[float, float]]],
                   gpu_series: str = "cuda e2e") -> float | None:
    """Smallest size from which the GPU series (points: series -> [(size, seconds)]) beats the
    best CPU at every larger size, so one noisy small-size win is no crossover."""
    gpu = dict(points.get(gpu_series, []))
    cpu: dict[float, float] = {}
    for name in ("serial", "omp"):
        for size, seconds in points.get(name, []):
            cpu[size] = min(seconds, cpu.get(size, math.inf))
    answer = None
    for size in sorted(set(gpu) & set(cpu), reverse=True):
        if not gpu[size] < cpu[size]:
            break
        answer = size
    return answer


# ----------------------------------------------------------------- notes

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
    how = "not built" if status.startswith("not built") else "skipped"
    return f"GPU variants were {how} ({status}); only CPU results are shown."


def timing_note(rows: list[Row], listed: int = 8) -> str | None:
    """How the GPU rows were timed (the launch_gated counter), or None when no row says: gated
    rows time the GPU's execution only, the others include the host's launch latency (a few
    microseconds, which matter for kernels of tens of microseconds)."""
    gated = [r for r in rows if r.counter("launch_gated") == 1.0]
    inline = [r for r in rows if r.counter("launch_gated") == 0.0]
    if not gated and not inline:
        return None
    text = (f"GPU timing: {len(gated)} row(s) timed behind the launch gate (GPU execution "
            f"only, launch latency left out); {len(inline)} with the launch latency included")
    if inline:
        more = f", and {len(inline) - listed} more" if len(inline) > listed else ""
        text += (" (work that waits for the GPU, e2e, or longer than 10 ms: "
                 + ", ".join(r.name for r in inline[:listed]) + more + ")")
    return text + "."


def _minutes(seconds: float) -> str:
    minutes, seconds = divmod(int(round(seconds)), 60)
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"


def wall_time_note(context: dict, peers: bool = False) -> str:
    """", in 4 min 12 s" for a finished run. peers: the run holds the Numba peers' rows, which
    peers/numba/ measured after the C++ (numba_peers_wall_s), so their time is added."""
    wall = context_number(context, "run_wall_s")
    numba = context_number(context, "numba_peers_wall_s")
    if wall is None:
        return ""
    if not peers:
        return f", in {_minutes(wall)}"
    if numba is None:
        return f", in {_minutes(wall)} for the C++ rows (the Numba peers' time not recorded)"
    return (f", in {_minutes(wall + numba)} ({_minutes(wall)} the C++, {_minutes(numba)} the "
            "Numba peers)")


def stopping_note(context: dict) -> str:
    """How each time was taken: the stopping rule recorded in the context."""
    if context.get("stop_rule") != "stdrel":
        return "Times are per iteration (median of repetitions when repeated)."
    return ("Each time is the median of samples taken, once at least "
            f"{context.get('stop_min_samples', '?')} samples and "
            f"{context.get('stop_min_time_s', '?')} s of measured time were in, until their "
            f"relative spread (stdev/mean) fell under "
            f"{context.get('stop_max_rel_spread_pct', '?')}% or stopped changing, or until "
            f"{context.get('stop_max_time_s', '?')} s had passed (the row's stop_reason "
            "says which).")
