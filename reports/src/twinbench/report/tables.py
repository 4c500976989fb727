"""Report tables: run context, environment, ceilings and roofs, per-problem results, CPU vs
GPU time and energy, machine state, skipped benchmarks."""

from __future__ import annotations

from collections import Counter

from . import analysis as an
from . import pairing
from . import ceilings as ce
from . import machine
from .document import Table
from .loader import Row, Run
from .units import (fmt_bytes, fmt_cuda_version, fmt_energy, fmt_err, fmt_num, fmt_ratio,
                    fmt_time)

RESULT_HEADERS = ["impl", "args", "time", "GB/s", "GFLOP/s", "% of limit",
                  "× serial", "× omp", "max rel err"]


def _ctx(context: dict, key: str) -> str | None:
    value = context.get(key)
    return None if value in (None, "") else str(value)


def _joined(context: dict, keys: tuple[str, ...], sep: str = " / ", unit: str = "") -> str | None:
    return sep.join(f"{_ctx(context, k)}{unit}" for k in keys if _ctx(context, k)) or None


def context_table(context: dict) -> Table:
    """The facts needed to judge a result, in reading order; absent ones are left out."""
    gpu = _ctx(context, "gpu_name")
    if gpu and _ctx(context, "gpu_cc"):
        gpu += f" (cc {context['gpu_cc']}, {context.get('gpu_sms', '?')} SMs)"
    memory = _ctx(context, "gpu_memory_bytes")
    items = [
        ("sample", _ctx(context, "sample")),
        ("gpu_status", gpu_status_text(context)),
        ("GPU", gpu),
        ("GPU memory", fmt_bytes(float(memory)) if memory and memory.isdigit() else memory),
        ("GPU clocks (SM / memory)",
         _joined(context, ("gpu_sm_clock_mhz", "gpu_mem_clock_mhz"), unit=" MHz")),
        ("CUDA driver", fmt_cuda_version(_ctx(context, "cuda_driver_version"))),
        ("CUDA runtime", fmt_cuda_version(_ctx(context, "cuda_runtime_version"))),
        ("CPU", _ctx(context, "cpu_model")),
        ("CPUs / MHz", f"{context['num_cpus']} @ {context.get('mhz_per_cpu', '?')} MHz"
         if "num_cpus" in context else None),
        ("OpenMP threads", _ctx(context, "omp_threads")),
        ("Numba (the articles' code)", numba_versions(context) or None),
        ("host / machine", _joined(context, ("host_name", "machine"))),
        ("twinbench", _ctx(context, "twinbench_version")),
        ("git revision", _ctx(context, "git_revision")),
        ("build", _joined(context, ("build_type", "compiler"), " ")),
        ("benchmark library build", _ctx(context, "library_build_type")),
        ("date", _ctx(context, "date")),
    ]
    return Table(["", "value"], [[k, v] for k, v in items if v])


def numba_versions(context: dict) -> str:
    """"numba 0.60.0, numba-cuda 0.0.17"; "" when the run recorded neither (no Numba peers)."""
    return ", ".join(f"{name} {_ctx(context, key)}"
                     for name, key in (("numba", "numba_version"),
                                       ("numba-cuda", "numba_cuda_version"))
                     if _ctx(context, key))


def ceiling_cell(row: Row) -> str:
    """"93.6 % of read", "41.0 % of FP32 roof", with "(suspect)" where the run flagged it."""
    limit = ce.row_limit(row)
    if limit is None:
        return "–"
    return f"{limit.pct:.1f} % of {limit.name.removesuffix(' bandwidth')}" + (
        " (suspect)" if limit.suspect else "")


ISA_HEADER = "CPU ISA"


def isa_cell(row: Row) -> str:
    """"avx512", "openblas SkylakeX (bf16)": what a CPU row ran, and a precision not FP32."""
    if row.is_gpu:
        return "–"
    precision = row.fields.get("precision", "")
    text = row.cpu_isa or "–"
    return f"{text} ({precision})" if precision and precision != "fp32" else text


def result_cells(row: Row, baselines: an.Baselines, isa: bool = False) -> list[str]:
    cells = [
        row.impl,
        row.tuning_label or "–",
        fmt_time(row.time_s) + (f" ± {fmt_time(row.stddev_s)}" if row.stddev_s else ""),
        fmt_num(an.gb_per_s(row)),
        fmt_num(an.gflop_per_s(row)),
        ceiling_cell(row),
        fmt_ratio(an.speedup(baselines.serial, row)),
        fmt_ratio(an.speedup(baselines.omp, row)),
        fmt_err(row.counter("max_rel_err")),
    ]
    if isa:
        cells.insert(1, isa_cell(row))
    return cells


def result_tables(rows: list[Row]) -> list[tuple[str, Table]]:
    """One table per (workload, size), fastest first, with speedups against its own baselines;
    with the CPU ISA column when the run's CPU rows record it."""
    groups = an.group_by_problem(an.usable(rows))
    isa = any(r.cpu_isa for r in rows)
    headers = RESULT_HEADERS[:1] + [ISA_HEADER] + RESULT_HEADERS[1:] if isa else RESULT_HEADERS
    out = []
    for key in sorted(groups, key=lambda k: pairing.problem_order(groups[k])):
        members = sorted(groups[key], key=lambda r: r.time_s)
        baselines = an.baselines_for(members)
        title = f"{key[0]} — {' '.join(key[1]) or '(no size args)'}"
        out.append((title, Table(list(headers),
                                 [result_cells(r, baselines, isa) for r in members])))
    return out


def gpu_status_text(context: dict) -> str:
    """gpu_status, pointing to the report's opening note for why a run has no GPU."""
    status = _ctx(context, "gpu_status")
    if not status:
        return "not recorded"
    return status if status == "available" else an.NO_GPU_SAID_ABOVE


def skipped_table(run: Run) -> Table | None:
    """One line per reason, with how many benchmarks it stopped and an example: a CPU-only
    run skips hundreds of GPU rows for the same reason, which a row each would bury."""
    by_reason: dict[str, list[str]] = {}
    no_gpu = run.context.get("gpu_status")
    for r in run.skipped_rows:
        reason = r.error_message or "skipped"
        if no_gpu and no_gpu != "available" and reason == no_gpu:
            reason = an.NO_GPU_SAID_ABOVE
        by_reason.setdefault(reason, []).append(r.name)
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


# ----------------------------------------------------------------- method and machine

def environment_table(context: dict) -> Table:
    """The settings that move the numbers, recorded or not: a missing one is worth seeing."""
    return Table(["setting", "value", "context key"], machine.environment_rows(context))


def _without_empty_columns(table: Table, keep: int = 1) -> Table:
    """Leave out columns with no value in any line (a CPU-only run's GPU columns)."""
    used = [i for i in range(len(table.headers))
            if i < keep or any(line[i] != "–" for line in table.rows)]
    return Table([table.headers[i] for i in used], [[line[i] for i in used] for line in table.rows])


# Bytes read : written per element of each pattern (common/ceilings.hpp).
_PATTERN_MIX = {"read": "1 : 0", "write": "0 : 1", "copy": "1 : 1", "scale": "1 : 1",
                "add": "2 : 1", "triad": "2 : 1"}


def ceilings_table(context: dict) -> Table | None:
    """Measured bandwidth per access pattern on the GPU, the CPU (all threads) and the CPU (one
    thread); the device copy (cudaMemcpy) of older files as its own line."""
    sets = {side: ce.pattern_bandwidths(context, side) for side in ce.SIDES}
    lines = [[pattern, _PATTERN_MIX[pattern]] + [ce.fmt_bandwidth(sets[s].get(pattern))
                                                 for s in ce.SIDES]
             for pattern in ce.PATTERNS if any(pattern in sets[s] for s in ce.SIDES)]
    copy = ce.device_copy_bandwidth(context)
    if copy:
        lines.append([f"{ce.DEVICE_COPY} (cudaMemcpy)", "1 : 1", ce.fmt_bandwidth(copy),
                      "–", "–"])
    if not lines:
        return None
    labels = [ce.SIDE_LABELS[s] for s in ce.SIDES]
    if ce.cpu_ceilings_in_cache(context):
        # Arrays inside the L3 (--quick's 32 MiB): these are the cache's bandwidth, and a CPU
        # row's "% of ceiling" is against the cache, not memory.
        labels = [f"{label} (cache ceiling: arrays inside the L3)" if side != "gpu" else label
                  for side, label in zip(ce.SIDES, labels)]
    return _without_empty_columns(Table(["pattern", "read : written", *labels], lines), 2)


def _roof(roofs: list[ce.Roof], precision: str, kind: str) -> ce.Roof | None:
    return next((r for r in roofs if r.precision == precision and r.kind == kind), None)


def _roof_cell(roofs: list[ce.Roof], precision: str, kind: str) -> str:
    found = _roof(roofs, precision, kind)
    return ce.fmt_rate(found.value, found.unit) if found else "–"


def _measured_share(roofs: list[ce.Roof], precision: str) -> str:
    measured, datasheet = (_roof(roofs, precision, k) for k in ("measured", "datasheet"))
    return f"{100 * measured.value / datasheet.value:.0f} %" if measured and datasheet else "–"


def roofs_table(context: dict) -> Table | None:
    """Compute roofs per precision: the GPU measured against its datasheet figure, the CPU
    with all threads, one thread, and what native FMA code (-march=native) reaches."""
    gpu, cpu_all, cpu_one = (ce.compute_roofs(context, side) for side in ce.SIDES)
    isa = ce.native_isa(context)
    native = f"CPU native ({isa})" if isa else "CPU native"
    lines = []
    for precision in ("FP32", "FP64", "FP16", "INT8", "TF32", "BF16", ce.FP16_TENSOR):
        cells = [_roof_cell(gpu, precision, "measured"), _roof_cell(gpu, precision, "datasheet"),
                 _measured_share(gpu, precision), _roof_cell(cpu_all, precision, "measured"),
                 _roof_cell(cpu_one, precision, "measured"),
                 _roof_cell(cpu_all, precision, "native")]
        if any(c != "–" for c in cells):
            lines.append([precision, *cells])
    if not lines:
        return None
    return _without_empty_columns(
        Table(["precision", "GPU measured", "GPU datasheet", "measured / datasheet",
               "CPU all threads", "CPU one thread", native], lines))


def roofs_note(context: dict) -> str | None:
    """Why a roof is missing, when the run said why."""
    notes = []
    why = context.get("cpu_roof_native_why_not")
    if not ce.native_isa(context) and why:
        notes.append(f"CPU native roof: not measured ({why}).")
    for precision in ("bf16", "fp16"):
        why = context.get(f"cpu_roof_{precision}_why_not")
        if why and not context.get(f"cpu_roof_{precision}_flops"):
            notes.append(f"CPU {precision.upper()} roof: not measured ({why}).")
    level = ce.context_text(context, "cpu_roof_isa")
    baseline = an.context_number(context, "cpu_roof_fp32_baseline_flops")
    if level and baseline:
        notes.append(f"The CPU roofs are measured at the ISA level the kernels run ({level}); "
                     f"the same FP32 loop at the x86-64 baseline (SSE2) reaches "
                     f"{ce.fmt_rate(baseline)}.")
    return " ".join(notes) or None


# ----------------------------------------------------------------- CPU vs GPU

CPU_GPU_HEADERS = ["problem", "best CPU", "CPU time", "best GPU (kernel)", "GPU time",
                   "GPU speedup", "GPU e2e speedup", "CPU energy / item", "GPU energy / item",
                   "energy CPU : GPU"]


def _impl_label(row: Row) -> str:
    return f"{row.impl} {row.tuning_label}".strip()


def cpu_gpu_cells(pair: pairing.CpuGpuPair) -> list[str]:
    ratio = an.energy_ratio(pair.cpu, pair.gpu)
    return [
        f"{pair.workload} {' '.join(pair.size_key)}".strip()
        + (f" ({pair.gpu.pairing_precision})" if pair.gpu.pairing_precision else ""),
        _impl_label(pair.cpu), fmt_time(pair.cpu.time_s),
        _impl_label(pair.gpu), fmt_time(pair.gpu.time_s),
        fmt_ratio(pair.speedup), fmt_ratio(pair.e2e_speedup),
        fmt_energy(an.energy_per_item_j(pair.cpu)), fmt_energy(an.energy_per_item_j(pair.gpu)),
        fmt_ratio(ratio),
    ]


def cpu_gpu_table(pairs: list[pairing.CpuGpuPair]) -> Table | None:
    if not pairs:
        return None
    return Table(CPU_GPU_HEADERS, [cpu_gpu_cells(p) for p in pairs])


# ----------------------------------------------------------------- machine state

def _mhz(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}"


def throttled_table(listed: list[Row]) -> Table:
    """The rows measured while the GPU was throttled (machine.throttled_rows)."""
    lines = [[r.name, ", ".join(machine.decode_throttle_reasons(r.counter("gpu_throttle_reasons")))
              or "–",
              f"{_mhz(r.counter('gpu_sm_mhz_min'))} / {_mhz(r.counter('gpu_sm_mhz_mean'))}",
              f"{_mhz(r.counter('gpu_power_w_mean'))} / {_mhz(r.counter('gpu_power_w_max'))}",
              _mhz(r.counter("gpu_temp_c_max"))] for r in listed]
    return Table(["benchmark", "throttle reasons (NVML)", "SM MHz min / mean",
                  "power W mean / max", "temp °C max"], lines)


# Above this many busy rows the table lists counts per workload: a run on a shared machine marks
# most rows busy, and a line each buries the rest of the report.
BUSY_LISTED = 12


def busy_table(rows: list[Row], listed: list[Row] | None = None) -> Table | None:
    """The rows measured while the host was busy (listed: machine.busy_rows(rows))."""
    listed = machine.busy_rows(rows) if listed is None else listed
    if not listed:
        return None
    if len(listed) > BUSY_LISTED:
        return busy_counts_table(rows, listed)
    lines = [[r.name, fmt_num(r.counter("host_load1_before")),
              f"{_mhz(r.counter('host_cpu_mhz_before'))} → "
              f"{_mhz(r.counter('host_cpu_mhz_after'))}"] for r in listed]
    return Table(["benchmark", "load (1 min) before", "CPU MHz before → after"], lines)


def busy_counts_table(rows: list[Row], listed: list[Row]) -> Table:
    """Busy rows per workload: how many of the rows that record it, and the highest load."""
    carried = Counter(row.workload for row in machine.with_counter(rows, "host_busy"))
    busy = Counter(row.workload for row in listed)
    lines = []
    for workload, count in sorted(busy.items()):
        loads = [r.counter("host_load1_before") for r in listed if r.workload == workload
                 and r.counter("host_load1_before") is not None]
        lines.append([workload, f"{count} of {carried.get(workload, count)}",
                      fmt_num(max(loads)) if loads else "–"])
    return Table(["workload", "busy rows", "highest load (1 min) before"], lines)
