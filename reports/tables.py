"""Report tables: run context, per-problem results, skipped benchmarks."""

from __future__ import annotations

from . import analysis as an
from .document import Table
from .loader import Row, Run
from .units import fmt_bytes, fmt_cuda_version, fmt_err, fmt_num, fmt_pct, fmt_ratio, fmt_time

RESULT_HEADERS = ["impl", "args", "time", "GB/s", "GFLOP/s", "% copy ceiling",
                  "× serial", "× omp", "max rel err"]


def _ctx(context: dict, key: str) -> str | None:
    value = context.get(key)
    return None if value in (None, "") else str(value)


def context_table(context: dict) -> Table:
    """The facts needed to judge a result, in reading order; absent ones are left out."""
    gpu = _ctx(context, "gpu_name")
    if gpu and _ctx(context, "gpu_cc"):
        gpu += f" (cc {context['gpu_cc']}, {context.get('gpu_sms', '?')} SMs)"
    memory = _ctx(context, "gpu_memory_bytes")
    copy_bw = an.context_number(context, "gpu_copy_bw_bytes_per_s")
    peak = an.context_number(context, "gpu_peak_fp32_flops")
    triad = an.context_number(context, "cpu_triad_bw_bytes_per_s")
    items = [
        ("sample", _ctx(context, "sample")),
        ("gpu_status", _ctx(context, "gpu_status") or "not recorded"),
        ("GPU", gpu),
        ("GPU memory", fmt_bytes(float(memory)) if memory and memory.isdigit() else memory),
        ("GPU clocks (SM / memory)", " / ".join(
            f"{context[k]} MHz" for k in ("gpu_sm_clock_mhz", "gpu_mem_clock_mhz") if _ctx(context, k))
            or None),
        ("GPU copy bandwidth (measured)", f"{copy_bw / 1e9:.0f} GB/s" if copy_bw else None),
        ("GPU FP32 peak", f"{peak / 1e12:.1f} TFLOP/s" if peak else None),
        ("CUDA driver", fmt_cuda_version(_ctx(context, "cuda_driver_version"))),
        ("CUDA runtime", fmt_cuda_version(_ctx(context, "cuda_runtime_version"))),
        ("CPU", _ctx(context, "cpu_model")),
        ("CPUs / MHz", f"{context['num_cpus']} @ {context.get('mhz_per_cpu', '?')} MHz"
         if "num_cpus" in context else None),
        ("CPU triad bandwidth", f"{triad / 1e9:.0f} GB/s" if triad else None),
        ("OpenMP threads", _ctx(context, "omp_threads")),
        ("host / machine", " / ".join(v for v in (_ctx(context, "host_name"), _ctx(context, "machine")) if v)
         or None),
        ("twinbench", _ctx(context, "twinbench_version")),
        ("git revision", _ctx(context, "git_revision")),
        ("build", " ".join(v for v in (_ctx(context, "build_type"), _ctx(context, "compiler")) if v)
         or None),
        ("benchmark library build", _ctx(context, "library_build_type")),
        ("date", _ctx(context, "date")),
    ]
    return Table(["", "value"], [[k, v] for k, v in items if v])


def result_cells(row: Row, baselines: an.Baselines) -> list[str]:
    return [
        row.impl,
        row.tuning_label or "–",
        fmt_time(row.time_s) + (f" ± {fmt_time(row.stddev_s)}" if row.stddev_s else ""),
        fmt_num(an.gb_per_s(row)),
        fmt_num(an.gflop_per_s(row)),
        fmt_pct(row.counter("pct_copy_bw")),
        fmt_ratio(an.speedup(baselines.serial, row)),
        fmt_ratio(an.speedup(baselines.omp, row)),
        fmt_err(row.counter("max_rel_err")),
    ]


def _problem_order(key: tuple[str, tuple[str, ...]], rows: list[Row]) -> tuple:
    return (key[0], an.non_numeric_size(rows[0]), an.size_scalar(rows[0]) or 0.0, key[1])


def result_tables(rows: list[Row]) -> list[tuple[str, Table]]:
    """One table per (workload, size), fastest first, with speedups against its own baselines."""
    groups = an.group_by_problem(an.usable(rows))
    out = []
    for key in sorted(groups, key=lambda k: _problem_order(k, groups[k])):
        members = sorted(groups[key], key=lambda r: r.time_s)
        baselines = an.baselines_for(members)
        title = f"{key[0]} — {' '.join(key[1]) or '(no size args)'}"
        out.append((title, Table(RESULT_HEADERS, [result_cells(r, baselines) for r in members])))
    return out


def skipped_table(run: Run) -> Table | None:
    """One line per reason, with how many benchmarks it stopped and an example: a CPU-only
    run skips hundreds of GPU rows for the same reason, which a row each would bury."""
    by_reason: dict[str, list[str]] = {}
    for r in run.skipped_rows:
        by_reason.setdefault(r.error_message or "skipped", []).append(r.name)
    if not by_reason:
        return None
    lines = [[reason, str(len(names)), names[0] if len(names) == 1
              else f"{names[0]} and {len(names) - 1} more"]
             for reason, names in sorted(by_reason.items(), key=lambda kv: -len(kv[1]))]
    return Table(["reason", "benchmarks", "which"], lines)


def block_choice_table(rows: list[Row]) -> Table | None:
    """Per GPU kernel and problem: the fastest measured block size beside the one
    cudaOccupancyMaxPotentialBlockSize suggests, and what the suggestion would have cost.
    Only kernels swept over two or more block sizes appear."""
    sweeps: dict[tuple, list[Row]] = {}
    for row in an.usable(rows):
        if not row.is_gpu or "block" not in row.args or row.counter("suggested_block") is None:
            continue
        sweeps.setdefault((row.workload, row.impl, row.size_label, row.mode or ""), []).append(row)
    lines = []
    for (workload, impl, size, mode), members in sorted(sweeps.items()):
        if len({r.args["block"] for r in members}) < 2:
            continue
        best = min(members, key=lambda r: r.time_s)
        suggested = int(best.counter("suggested_block"))
        at_suggested = [r for r in members if r.counter("block") == suggested]
        cost = (fmt_ratio(at_suggested[0].time_s / best.time_s) if at_suggested
                else "not swept")
        lines.append([f"{workload}/{impl}", f"{size} {mode}".strip(), best.args["block"],
                      fmt_time(best.time_s), str(suggested), cost])
    if not lines:
        return None
    return Table(["kernel", "problem", "best block", "best time", "suggested block",
                  "time at suggested / best"], lines)
