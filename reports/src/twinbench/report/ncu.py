"""Nsight Compute counters behind the GPU rows: which rows to profile, ncu's raw CSV -> `ncu_*`
keys merged into the run's JSON rows, and the words the limiter and "why" paragraphs read off them.

scripts/gpu-profile.sh profiles the rows `select` names: with TWINBENCH_NCU_WINDOW=1 each row's
work runs once inside an NVTX range "tb[<row name>]" (common/gpu_timing.hpp ncu_window), and a
kernel maps back to its row by that name, never by launch order, so a row that launches several
kernels (Thrust, a scan's passes, streams' chunks) or none (a copy) cannot shift the others.

    python -m twinbench.report.ncu select RUN.json [--sweeps] [--names | --write DIR]
    python -m twinbench.report.ncu merge RUN.json NCU.csv... [-o OUT.json] [--version V]
                                         [--command C] [--log NCU.log] [--selected FILE]

Only the standard library and reports.loader/analysis: it runs on the GPU machine, which may
lack matplotlib.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from . import analysis as an
from .loader import GPU_FAMILIES, Row, Run, load_run, strip_gb_suffixes

# ----------------------------------------------------------------- which rows

# Workloads whose rows are timed outside time_gpu (their own loops: allocation calls, copies,
# launch round trips, the progress experiment): no profile window, so ncu would see nothing.
NO_WINDOW_WORKLOADS = frozenset({"alloc", "transfers", "sync", "progress"})
# An impl word that marks the articles' kernel (cuda_article, cuda_article_fast, cuda_naive).
ARTICLE_WORDS = ("article", "naive")


def profilable(row: Row) -> bool:
    """A C++ GPU kernel row (not e2e: its copies would dominate; not a peer: Python) that goes
    through time_gpu."""
    return (row.family in GPU_FAMILIES and not row.is_peer and row.mode != "e2e"
            and row.workload not in NO_WINDOW_WORKLOADS and row.time_s is not None
            and not row.skipped)


def profile_sizes(rows: list[Row]) -> list[tuple[str, ...]]:
    """A workload's headline size (analysis.headline_size, the summary's) and its GPU kernels'
    largest."""
    gpu = [r for r in an.usable(rows) if profilable(r)]
    if not gpu:
        return []
    sizes = [an.headline_size(rows), an.largest_problem(gpu)]
    return list(dict.fromkeys(s for s in sizes if s is not None))


def select_rows(rows: list[Row]) -> list[Row]:
    """Per workload, at each profile size: the fastest kernel row of every GPU impl (so the
    fastest kernel of each family and the articles' kernels are all in), in run order."""
    chosen: set[str] = set()
    for members in an.group_by(rows, lambda r: r.workload).values():
        for size in profile_sizes(members):
            at_size = [r for r in members if r.size_key == size and profilable(r)]
            for group in an.group_by(at_size, lambda r: r.impl).values():
                if best := an.fastest(group):
                    chosen.add(best.name)
    return [r for r in rows if r.name in chosen]


def sweep_rows(rows: list[Row]) -> list[Row]:
    """Every block size of each profilable kernel's block sweep (analysis.block_sweeps, the
    occupancy chart's), for achieved beside theoretical occupancy."""
    chosen = {r.name for members in an.block_sweeps(rows, profilable).values() for r in members}
    return [r for r in rows if r.name in chosen]


_ERE_SPECIAL = set(".[]()*+?{}|^$\\")


def filter_regex(names: list[str]) -> str:
    """Google Benchmark's filter (POSIX extended, matched against the name with its
    /manual_time or /real_time suffix) for exactly these rows."""
    escaped = ["".join("\\" + c if c in _ERE_SPECIAL else c for c in n) for n in names]
    return "^(" + "|".join(escaped) + ")(/manual_time|/real_time|/process_time)?$"


# ----------------------------------------------------------------- ncu's CSV

# The NVTX range the harness pushes around a row's profile window.
RANGE = re.compile(r"tb\[([^\]]+)\]")
_PREFIX = {"": 1.0, "n": 1e-9, "u": 1e-6, "m": 1e-3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


@dataclass
class Kernel:
    """One profiled kernel launch: its row (from the NVTX range), name and metrics."""
    row: str
    name: str
    metrics: dict[str, float] = field(default_factory=dict)

    @property
    def duration_s(self) -> float:
        return self.metrics.get("gpu__time_duration.sum", 0.0)


class NcuCsvError(Exception):
    """The file is not ncu's raw CSV, or no kernel in it names a row."""


def _number(text: str) -> float | None:
    try:
        value = float((text or "").strip().replace(",", ""))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _scale(metric: str, unit: str) -> float:
    """Factor to the base unit (seconds for times, bytes/s for rates; % and counts as they
    are): --print-units base already gives base units; this guards against a CSV without it."""
    unit = (unit or "").strip()
    if metric.startswith("gpu__time_duration"):
        m = re.fullmatch(r"([num]?)s(?:econd)?", unit)
        return _PREFIX[m.group(1)] if m else 1e-9
    m = re.fullmatch(r"([KMGT]?)byte(?:/s(?:econd)?)?", unit)
    return _PREFIX[m.group(1)] if m else 1.0


def _table(text: str) -> list[list[str]]:
    """The CSV rows from the header on: ncu may print ==PROF== lines before it."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        raise NcuCsvError('no ncu raw CSV header ("ID",...) found')
    return list(csv.reader(io.StringIO("\n".join(lines[start:]))))


def read_csv(path: str | Path) -> list[Kernel]:
    """Every kernel of an `ncu --csv --page raw` file that ran inside a tb[...] range."""
    header, *body = _table(Path(path).read_text(encoding="utf-8", errors="replace"))
    index = {name: i for i, name in enumerate(header)}
    name_at = next((index[c] for c in ("Kernel Name", "Function Name", "Name") if c in index),
                   None)
    if name_at is None:
        raise NcuCsvError("the CSV has no Kernel Name column: not ncu's raw page")
    # The NVTX columns ncu writes with --nvtx; Kernel Name too, for a CSV printed with
    # --print-nvtx-rename kernel (the range then replaces the kernel's name).
    nvtx = [i for i, name in enumerate(header) if "_Range" in name or "NVTX" in name] + [name_at]
    metrics = [i for i, name in enumerate(header) if "__" in name]
    units, kernels = [""] * len(header), []
    for cells in (c for c in body if len(c) == len(header)):
        if not cells[index["ID"]].strip():  # the units row
            units = cells
            continue
        ranges = [m for i in nvtx for m in RANGE.findall(cells[i])]
        if ranges:
            name = cells[name_at].strip()
            values = {header[i]: v * _scale(header[i], units[i]) for i in metrics
                      if (v := _number(cells[i])) is not None}
            kernels.append(Kernel(ranges[-1], "" if RANGE.search(name) else name, values))
    if len(body) > 1 and not kernels:
        raise NcuCsvError("no kernel in the CSV ran inside a tb[<row>] NVTX range: was it "
                          "profiled with --nvtx and TWINBENCH_NCU_WINDOW=1?")
    return kernels


# ----------------------------------------------------------------- kernels -> ncu_* keys

SOL = {  # ncu_ key: metric (speed of light, % of the unit's peak)
    "ncu_sm_pct": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "ncu_memory_pct": "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "ncu_dram_pct": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "ncu_l2_pct": "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "ncu_l1_pct": "l1tex__throughput.avg.pct_of_peak_sustained_active",
    "ncu_occupancy_achieved_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "ncu_occupancy_theoretical_pct": "sm__maximum_warps_per_active_cycle_pct",
    "ncu_waves_per_sm": "launch__waves_per_multiprocessor",
    "ncu_dram_bytes_per_s": "dram__bytes.sum.per_second",
}
LAUNCH = {  # of the row's main (longest) kernel
    "ncu_registers_per_thread": "launch__registers_per_thread",
    "ncu_block_threads": "launch__block_size",
    "ncu_grid_blocks": "launch__grid_size",
}
# Blocks per SM each resource allows; the smallest limits the theoretical occupancy.
OCCUPANCY_LIMITS = {
    "launch__occupancy_limit_registers": "registers",
    "launch__occupancy_limit_shared_mem": "shared memory",
    "launch__occupancy_limit_warps": "warps per SM (block size)",
    "launch__occupancy_limit_blocks": "blocks per SM",
    "launch__occupancy_limit_barriers": "barriers",
}
# Warp stall reasons, in whichever form the sections give (one form is used, the first present:
# mixing them would add unlike units): WarpStateStats' cycles or warps per issue, else the PC
# sampling counts. The _not_issued twins of the sampling counts are left out.
_STALL_FORMS = (
    re.compile(r"smsp__average_warp_latency_issue_stalled_([a-z0-9_]+)\.ratio$"),
    re.compile(r"smsp__average_warps_issue_stalled_([a-z0-9_]+)_per_issue_active\.ratio$"),
    re.compile(r"smsp__pcsamp_warps_issue_stalled_([a-z0-9_]+?)(?:\.sum)?$"),
)
_NOT_STALLS = frozenset({"selected", "not_issued"})
# Pipe utilisation, % of peak while the SM is active.
_PIPE = re.compile(r"sm__(?:inst_executed_pipe_([a-z0-9_]+)|pipe_([a-z0-9_]+?)_cycles_active)"
                   r"\.avg\.pct_of_peak_sustained_active$")
PIPE_KEYS = {"fma": "ncu_pipe_fma_pct", "fp64": "ncu_pipe_fp64_pct", "xu": "ncu_pipe_xu_pct",
             "tensor": "ncu_pipe_tensor_pct"}
_GLOBAL = "pipe_lsu_mem_global_op_"
SECTORS = {  # key: (sectors metric, requests metric, ratio metric)
    f"ncu_{op}_sectors_per_request": (f"l1tex__t_sectors_{_GLOBAL}{op}.sum",
                                      f"l1tex__t_requests_{_GLOBAL}{op}.sum",
                                      f"l1tex__average_t_sectors_per_request_{_GLOBAL}{op}.ratio")
    for op in ("ld", "st")
}


def _weight(kernel: Kernel) -> float:
    return kernel.duration_s or 1e-12


def _weighted(kernels: list[Kernel], metric: str) -> float | None:
    """Duration-weighted mean over a row's kernels: a % of peak of the row as a whole."""
    pairs = [(_weight(k), k.metrics[metric]) for k in kernels if metric in k.metrics]
    total = sum(w for w, _ in pairs)
    return sum(w * v for w, v in pairs) / total if pairs and total > 0 else None


def _pipes(kernels: list[Kernel]) -> dict[str, float]:
    """Pipe -> its busiest metric's duration-weighted % of peak (the tensor pipes as one)."""
    metrics: dict[str, set[str]] = defaultdict(set)
    for metric in (m for k in kernels for m in k.metrics):
        if match := _PIPE.match(metric):
            name = match.group(1) or match.group(2)
            metrics["tensor" if name.startswith("tensor") else name].add(metric)
    pipes = {pipe: [v for m in names if (v := _weighted(kernels, m)) is not None]
             for pipe, names in metrics.items()}
    return {pipe: max(values) for pipe, values in pipes.items() if values}


def _stalls(kernels: list[Kernel]) -> dict[str, float]:
    """Reason -> duration-weighted stall value, from the first form of _STALL_FORMS present."""
    for form in _STALL_FORMS:
        totals: dict[str, float] = defaultdict(float)
        for k in kernels:
            for metric, value in k.metrics.items():
                m = form.match(metric)
                if m and m.group(1) not in _NOT_STALLS and not m.group(1).endswith("_not_issued"):
                    totals[m.group(1)] += value * _weight(k)
        if totals:
            return dict(totals)
    return {}


def occupancy_limiter(kernel: Kernel) -> str | None:
    """The resource that allows the fewest blocks per SM (ties named together)."""
    limits = {word: kernel.metrics[m] for m, word in OCCUPANCY_LIMITS.items()
              if m in kernel.metrics}
    least = min(limits.values(), default=None)
    return ", ".join(w for w, v in limits.items() if v == least) if limits else None


def _sectors_per_request(kernels: list[Kernel], sectors: str, requests: str, ratio: str
                         ) -> float | None:
    r = sum(k.metrics.get(requests, 0.0) for k in kernels)
    if r > 0:
        return sum(k.metrics.get(sectors, 0.0) for k in kernels) / r
    return _weighted(kernels, ratio)


def row_keys(kernels: list[Kernel]) -> dict[str, float | str]:
    """The ncu_* keys of one row from its kernels: numbers become the row's counters, words
    its text fields (reports.loader)."""
    main = max(kernels, key=lambda k: k.duration_s)
    out: dict[str, float | str] = {"ncu_kernels": float(len(kernels)),
                                   "ncu_duration_s": sum(k.duration_s for k in kernels),
                                   "ncu_kernel": main.name[:120]}
    out.update((key, v) for key, m in SOL.items() if (v := _weighted(kernels, m)) is not None)
    out.update((key, main.metrics[m]) for key, m in LAUNCH.items() if m in main.metrics)
    if limiter := occupancy_limiter(main):
        out["ncu_occupancy_limiter"] = limiter
    pipes = _pipes(kernels)
    out.update((key, pipes[pipe]) for pipe, key in PIPE_KEYS.items() if pipe in pipes)
    if pipes:
        top = max(pipes, key=pipes.get)
        out["ncu_pipe_top"], out["ncu_pipe_top_pct"] = top, pipes[top]
    stalls = _stalls(kernels)
    if stalls and sum(stalls.values()) > 0:
        top = max(stalls, key=stalls.get)
        out["ncu_stall_top"] = top
        out["ncu_stall_top_share"] = stalls[top] / sum(stalls.values())
    out.update((key, v) for key, metrics in SECTORS.items()
               if (v := _sectors_per_request(kernels, *metrics)) is not None)
    return out


def keys_by_row(kernels: list[Kernel]) -> dict[str, dict[str, float | str]]:
    return {row: row_keys(ks) for row, ks in an.group_by(kernels, lambda k: k.row).items()}


# ----------------------------------------------------------------- merge into the run

PERMISSION_ERROR = "ERR_NVGPUCTRPERM"


def permission_problem(log_text: str) -> str | None:
    """ncu's words when the driver keeps the counters from this user, else None."""
    if PERMISSION_ERROR in log_text:
        return (f"{PERMISSION_ERROR}: the driver does not let this user read the GPU counters "
                "(NVreg_RestrictProfilingToAdminUsers=1; run as root or set it to 0)")
    return None


def _entry_row_name(entry: dict) -> str:
    return strip_gb_suffixes(entry.get("run_name") or entry.get("name", ""))


def merge(run_path: str | Path, csv_paths: list[str | Path], out_path: str | Path | None = None,
          version: str = "", command: str = "", log_text: str = "",
          selected: list[str] | None = None) -> dict:
    """Adds each profiled row's ncu_* keys to every entry of that row in the run's JSON, and
    what ncu profiled to the context; writes out_path (default: the run itself). Returns the
    merged row names, the selected rows without a kernel ("missing"), the keys merged
    ("metrics") and the profiled names the run does not hold ("unknown")."""
    doc = json.loads(Path(run_path).read_text(encoding="utf-8"))
    kernels = [k for p in csv_paths for k in read_csv(p)]
    by_row = keys_by_row(kernels)
    entries = doc.get("benchmarks", [])
    merged, keys = set(), set()
    for entry in entries:
        if extra := by_row.get(_entry_row_name(entry)):
            entry.update(extra)
            merged.add(_entry_row_name(entry))
            keys.update(extra)
    missing = sorted(set(selected or []) - set(by_row))
    context = doc.setdefault("context", {})
    context.update(ncu_version=version or "unknown", ncu_command=command,
                   ncu_rows_profiled=str(len(merged)), ncu_kernels_profiled=str(len(kernels)))
    if missing:
        context["ncu_rows_without_kernel"] = ", ".join(missing)
    if problem := permission_problem(log_text):
        context["ncu_problem"] = problem
    Path(out_path or run_path).write_text(json.dumps(doc, separators=(",", ":")) + "\n",
                                          encoding="utf-8")
    return {"rows": sorted(merged), "missing": missing, "metrics": sorted(keys),
            "unknown": sorted(set(by_row) - {_entry_row_name(e) for e in entries})}


# ----------------------------------------------------------------- words

BOUND_PCT = 60.0           # a unit at >= 60 % of its peak is what the kernel is bound by
OCCUPANCY_LOW_PCT = 50.0   # theoretical occupancy under this: a resource caps the warps
ACHIEVED_SHARE = 0.6       # achieved under 60 % of theoretical: blocks too few or uneven
# Every DRAM byte also passes through the L2, whose % of peak therefore reads higher for a
# streaming kernel (the H200's transpose: DRAM 81 %, L2 90 %, at 95 % of the measured copy
# ceiling): DRAM is named when it is within DRAM_NEAR_TOP of the busiest unit.
DRAM_NEAR_TOP = 0.8
# L1/shared: the L1/TEX unit serves the L1 cache and shared memory alike.
_MEMORY_UNITS = {"DRAM": "ncu_dram_pct", "L2": "ncu_l2_pct", "L1/shared": "ncu_l1_pct"}


def has_profile(row: Row | None) -> bool:
    return bool(row) and row.counter("ncu_sm_pct") is not None


def _humane(name: str) -> str:
    return name.replace("_", " ")


def limiter_words(row: Row) -> str | None:
    """What the counters say holds a GPU kernel row back, or None without a profile: the class
    first (bandwidth, compute, too few threads, latency: what the summary's classes read), the
    figures in brackets after "ncu:"."""
    c = row.counter
    sm, mem = c("ncu_sm_pct"), c("ncu_memory_pct")
    if sm is None or mem is None:
        return None
    if mem >= BOUND_PCT and mem >= sm:
        units = {u: v for u, key in _MEMORY_UNITS.items() if (v := c(key)) is not None}
        unit = max(units, key=units.get) if units else "memory"
        if units.get("DRAM") is not None and units["DRAM"] >= DRAM_NEAR_TOP * units[unit]:
            unit = "DRAM"
        return f"{unit} bandwidth (ncu: {units.get(unit, mem):.0f} % of peak)"
    if sm >= BOUND_PCT:
        pipe, pipe_pct = row.fields.get("ncu_pipe_top"), c("ncu_pipe_top_pct")
        if pipe and pipe_pct is not None:
            name = pipe.upper()
            return f"compute: {name} pipe (ncu: SM {sm:.0f} %, {name} {pipe_pct:.0f} % of peak)"
        return f"compute (ncu: SM {sm:.0f} % of peak)"
    if occupancy := _occupancy_words(row):
        return occupancy
    stall = row.fields.get("ncu_stall_top")
    figures = f"ncu: SM {sm:.0f} %, memory {mem:.0f} % of peak"
    return f"latency: {_humane(stall)} stalls ({figures})" if stall else f"latency ({figures})"


def _occupancy_words(row: Row) -> str | None:
    c = row.counter
    waves, grid = c("ncu_waves_per_sm"), c("ncu_grid_blocks")
    achieved, theoretical = c("ncu_occupancy_achieved_pct"), c("ncu_occupancy_theoretical_pct")
    if waves is not None and waves < 1 and grid is not None:
        blocks = f"{grid:.0f} block" + ("" if grid == 1 else "s")
        return (f"too few threads: {blocks}, {waves:.2g} of a wave "
                f"(ncu: occupancy {achieved or 0:.0f} %)")
    if achieved is None or theoretical is None:
        return None
    occupancy = f"too few threads: occupancy {achieved:.0f} % of {theoretical:.0f} % theoretical"
    if theoretical < OCCUPANCY_LOW_PCT:
        limiter = row.fields.get("ncu_occupancy_limiter", "")
        return occupancy + (f": {limiter}" if limiter else "") + " (ncu)"
    if achieved < ACHIEVED_SHARE * theoretical:
        return occupancy + ": blocks few or uneven (ncu)"
    return None


def profiled_run(context: dict) -> bool:
    return bool(context.get("ncu_version"))


def unprofiled_reason(row: Row, context: dict) -> str | None:
    """Why a row of a profiled run has no counters, in a few words, or None."""
    if not profiled_run(context) or has_profile(row):
        return None
    if row.workload in NO_WINDOW_WORKLOADS:
        return "no kernel profile: its timed work is API calls or copies"
    if context.get("ncu_problem"):
        return "no kernel profile: " + context["ncu_problem"].split(":")[0]
    if row.name in str(context.get("ncu_rows_without_kernel", "")).split(", "):
        return "profiled, but no kernel ran in its window"
    return "not in the profile pass"


def cpu_counters_reason(context: dict) -> str | None:
    """"no CPU counters: a VM without a PMU", from the run's cpu_counters context; None where
    the counters were available or the run does not say."""
    text = str(context.get("cpu_counters", ""))
    if not text.startswith("not available"):
        return None
    if "VM" in text:
        return "no CPU counters: a VM without a PMU"
    m = re.search(r"not available: (\w+)", text)
    return "no CPU counters" + (f": {m.group(1)}" if m else "")


def summary_note(context: dict) -> str | None:
    """The summary's sentence on who named each limiter, for a run with a profile pass."""
    if not profiled_run(context):
        return None
    rows = context.get("ncu_rows_profiled", "?")
    return (f"Limiters with \"ncu:\" in brackets are Nsight Compute's ({context['ncu_version']}, "
            f"scripts/gpu-profile.sh: {rows} GPU rows profiled in a separate pass after the timed "
            f"run, each kernel once): a memory unit at ≥ {BOUND_PCT:.0f} % of its peak names "
            f"the bandwidth (DRAM, L2 or L1/shared), the SM at ≥ {BOUND_PCT:.0f} % names compute "
            f"and its busiest pipe, else too few threads (under one wave, theoretical occupancy "
            f"under {OCCUPANCY_LOW_PCT:.0f} % and what limits it, or achieved under "
            f"{100 * ACHIEVED_SHARE:.0f} % of theoretical), else latency and the warps' top stall "
            f"reason. The other limiters are the rules above; where they say latency / other, the "
            f"brackets say why no counter could say more.")


# ----------------------------------------------------------------- why paragraphs

def _article_impls(rows: list[Row], workload: str) -> list[str]:
    """The articles' kernels of a workload: those a Numba peer names as its C++ twin, else
    impls named article/naive."""
    mirrored = {r.mirrors for r in rows if r.workload == workload and r.is_peer
                and r.family == "numba_cuda" and r.mirrors}
    named = {r.impl for r in rows if r.workload == workload and profilable(r)
             and any(w in r.impl.split("_") for w in ARTICLE_WORDS)}
    return sorted(mirrored or named)


# (label, key, unit, what a difference there means)
_COMPARED = (
    ("DRAM", "ncu_dram_pct", " % of peak", "bandwidth"),
    ("SM", "ncu_sm_pct", " % of peak", "pipe"),
    ("achieved occupancy", "ncu_occupancy_achieved_pct", " %", "occupancy"),
    ("load sectors per request", "ncu_ld_sectors_per_request", "", "coalescing"),
    ("store sectors per request", "ncu_st_sectors_per_request", "", "coalescing"),
)


def _difference(fast: Row, slow: Row) -> str:
    """The counter that differs most between the two kernels, as a clause."""
    best, best_ratio = None, 1.0
    for label, key, unit, meaning in _COMPARED:
        a, b = fast.counter(key), slow.counter(key)
        if a is not None and b is not None and min(a, b) > 0 and max(a, b) / min(a, b) > best_ratio:
            best, best_ratio = (label, a, b, unit, meaning), max(a, b) / min(a, b)
    if best is None or best_ratio < 1.2:
        stall_a, stall_b = fast.fields.get("ncu_stall_top"), slow.fields.get("ncu_stall_top")
        if stall_a and stall_b and stall_a != stall_b:
            return (f"the counters differ most in what warps wait on: {_humane(stall_a)} against "
                    f"{_humane(stall_b)}")
        return "the counters differ by under 20 %: the two kernels are held by the same limit"
    label, a, b, unit, meaning = best
    digits = ".1f" if unit == "" else ".0f"
    return (f"the counters differ most in {meaning}: {label} {a:{digits}}{unit} against "
            f"{b:{digits}}{unit}")


def _label(row: Row) -> str:
    return f"{row.impl} {row.tuning_label.replace('mode:kernel', '').strip()}".strip()


def why_paragraph(fast: Row, other: Row, role: str = "the articles'") -> str:
    """"vector_add (n:268435456): cuda block:256, the fastest GPU kernel, is held by DRAM
    bandwidth (ncu: 93 % of peak); the articles' cuda_article block:256, 1.27× slower, by DRAM
    bandwidth (ncu: 74 % of peak). The counters differ most in coalescing: ...". role names
    the other kernel: the articles', or the slowest profiled one where no article kernel is."""
    head = f"{fast.workload} ({' '.join(fast.size_key)}): {_label(fast)}, the fastest GPU kernel"
    if fast.name == other.name:
        return f"{head} and the articles' own, is held by {limiter_words(fast)}."
    slower = other.time_s / fast.time_s if fast.time_s and other.time_s else None
    times = f", {slower:.2f}× slower," if slower else ""
    difference = _difference(fast, other)
    return (f"{head}, is held by {limiter_words(fast)}; {role} {_label(other)}{times} "
            f"by {limiter_words(other)}. {difference[0].upper()}{difference[1:]}.")


def why_paragraphs(run: Run) -> list[str]:
    """One paragraph per workload with profiles: its fastest profiled GPU kernel against the
    articles' kernel at the same size (else the slowest profiled kernel there)."""
    rows = an.usable(run.rows)
    out = []
    for workload in sorted({r.workload for r in rows if has_profile(r)}):
        profiled = [r for r in rows if r.workload == workload and has_profile(r)]
        fast = an.fastest(profiled)
        same = [r for r in profiled if r.size_key == fast.size_key]
        article = an.fastest([r for r in same if r.impl in _article_impls(run.rows, workload)])
        # No article kernel here (aos_soa, atomics, scan...): the slowest profiled kernel of
        # the same size, which the counters set apart from the fastest just as well.
        others = [r for r in same if r.name != fast.name]
        if article is not None:
            out.append(why_paragraph(fast, article))
        elif others:
            slowest = max(others, key=lambda r: r.time_s)
            out.append(why_paragraph(fast, slowest, "the slowest profiled kernel,"))
    return out


def report_blocks(run: Run) -> list:
    """The report's hardware-counter section (after the summary): who named the limiters, the
    why paragraphs, and whether the CPU counters could be read."""
    from .document import Heading, Paragraph  # noqa: PLC0415 (render's model; not needed above)
    blocks: list = []
    if note := summary_note(run.context):
        blocks += [Heading("Why, from the counters (Nsight Compute)"), Paragraph(note)]
        blocks += [Paragraph(p) for p in why_paragraphs(run)]
    if cpu := run.context.get("cpu_counters"):
        blocks.append(Paragraph(f"CPU hardware counters (perf_event_open): {cpu}.", note=True))
    return blocks


# ----------------------------------------------------------------- command line

def _passes(run: Run, sweeps: bool) -> dict[str, list[Row]]:
    """The main pass's rows and, with sweeps, the sweep pass's (the main pass's rows left out:
    it has their occupancy)."""
    main = select_rows(run.rows)
    chosen = {r.name for r in main}
    return {"main": main,
            "sweep": [r for r in sweep_rows(run.rows) if r.name not in chosen] if sweeps else []}


def _cmd_select(args) -> int:
    passes = _passes(load_run(args.run), args.sweeps)
    if args.write:  # ncu-<pass>.filter and ncu-selected-<pass>.txt for both passes
        for name, rows in passes.items():
            (Path(args.write) / f"ncu-{name}.filter").write_text(
                filter_regex([r.name for r in rows]) + "\n" if rows else "")
            (Path(args.write) / f"ncu-selected-{name}.txt").write_text(
                "".join(r.name + "\n" for r in rows))
        print(f"ncu select: {len(passes['main'])} rows for the main pass, "
              f"{len(passes['sweep'])} for the sweeps")
    rows = passes["main" if args.write or not args.sweeps else "sweep"]
    if not rows:
        print(f"{args.run}: no GPU kernel rows to profile", file=sys.stderr)
        return 2
    if not args.write:
        names = [r.name for r in rows]
        print("\n".join(names) if args.names else filter_regex(names))
    return 0


def _cmd_merge(args) -> int:
    log_text = "".join(Path(p).read_text(errors="replace") for p in args.log if Path(p).exists())
    selected = Path(args.selected).read_text().split() if args.selected else None
    result = merge(args.run, args.csv, args.out, args.version, args.command, log_text, selected)
    print(f"ncu merge: {len(result['rows'])} rows merged, {len(result['metrics'])} keys "
          f"({', '.join(k for k in result['metrics'] if k.startswith('ncu_'))[:300]})")
    if result["missing"]:
        print(f"ncu merge: {len(result['missing'])} selected rows without a profiled kernel: "
              + ", ".join(result["missing"][:10]))
    if result["unknown"]:
        print("ncu merge: profiled rows not in the run: " + ", ".join(result["unknown"][:10]))
    return 0 if result["rows"] else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m twinbench.report.ncu",
                                     description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sel = sub.add_parser("select", help="the --benchmark_filter of the rows to profile")
    sel.add_argument("run")
    sel.add_argument("--sweeps", action="store_true", help="the occupancy chart's block sweeps")
    sel.add_argument("--names", action="store_true", help="one row name a line, not a regex")
    sel.add_argument("--write", metavar="DIR", help="write ncu-<pass>.filter and "
                     "ncu-selected-<pass>.txt there (both passes with --sweeps)")
    sel.set_defaults(func=_cmd_select)
    mrg = sub.add_parser("merge", help="ncu's raw CSV -> ncu_* keys of the run's rows")
    mrg.add_argument("run")
    mrg.add_argument("csv", nargs="*", help="none: only the context (a pass that profiled "
                     "nothing, e.g. refused the counters, still says so in the run)")
    mrg.add_argument("-o", "--out", help="write here instead of the run itself")
    mrg.add_argument("--version", default="")
    mrg.add_argument("--command", default="")
    mrg.add_argument("--log", action="append", default=[], help="ncu's log (permission errors)")
    mrg.add_argument("--selected", help="file of the selected row names (one a line)")
    mrg.set_defaults(func=_cmd_merge)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (NcuCsvError, OSError, json.JSONDecodeError) as exc:
        print(f"twinbench.report.ncu: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
