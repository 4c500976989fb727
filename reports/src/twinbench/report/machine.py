"""The machine a run measured: its settings, its state during each row, what it could measure.

Numbers from two runs only compare when the settings that move them (clocks, governor, thread
placement, ECC, cache mode ...) are the same; the suite records them in the context (`env_*`
keys) and each row's telemetry (throttling, a busy host) beside its time. This module turns
those into sentences and into the differences `compare` warns about.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from . import analysis as an
from .loader import Row
from .units import fmt_bytes, fmt_cuda_version

NOT_RECORDED = "not recorded"

# NVML clock event reasons (nvmlClocksEventReason*, formerly ClocksThrottleReason*).
THROTTLE_REASONS = (
    (0x1, "GpuIdle"), (0x2, "ApplicationsClocksSetting"), (0x4, "SwPowerCap"),
    (0x8, "HwSlowdown"), (0x10, "SyncBoost"), (0x20, "SwThermalSlowdown"),
    (0x40, "HwThermalSlowdown"), (0x80, "HwPowerBrakeSlowdown"), (0x100, "DisplayClockSetting"),
)


def decode_throttle_reasons(mask: float | int | None) -> list[str]:
    """NVML reason bits -> names; bits this table does not know are kept as hex."""
    if mask is None:
        return []
    mask = int(mask)
    unknown = mask & ~sum(bit for bit, _ in THROTTLE_REASONS)
    return [name for bit, name in THROTTLE_REASONS if mask & bit] + \
        ([f"unknown 0x{unknown:x}"] if unknown else [])


def throttled_rows(rows: list[Row]) -> list[Row]:
    return [r for r in an.usable(rows) if r.counter("gpu_throttled") == 1.0]


def busy_rows(rows: list[Row]) -> list[Row]:
    return [r for r in an.usable(rows) if r.counter("host_busy") == 1.0]


def with_counter(rows: list[Row], key: str) -> list[Row]:
    return [r for r in an.usable(rows) if r.counter(key) is not None]


# ----------------------------------------------------------------- what could be measured

def _context_text(context: dict, key: str) -> str | None:
    value = context.get(key)
    return None if value in (None, "") else str(value).strip()


def cpu_energy_note(context: dict) -> str:
    value = _context_text(context, "cpu_energy")
    if value is None:
        return "CPU energy: not recorded in this run."
    if value.startswith("rapl"):
        return (f"CPU energy: {value}. Package energy (all cores, caches and memory controller "
                "of the socket), as mean power while the samples ran × the median time.")
    return f"CPU energy: {value}."


def cpu_isa_note(context: dict, rows: list[Row]) -> str | None:
    """What the CPU side ran, from the context and the rows' cpu_isa fields ("CPU side: ISA
    level avx512 (the host's best); dispatch: ...; per CPU row: avx512 on 40 row(s), ..."); None
    for files before run-time dispatch."""
    parts = []
    active, host = _context_text(context, "cpu_isa_active"), _context_text(context, "cpu_isa_host")
    if active or host:
        level = active or "not recorded"
        if host and host != active:
            level += f" (the host has {host}: a lower level was forced)"
        elif host:
            level += " (the host's best)"
        parts.append(f"ISA level {level}")
    for key, what in (("cpu_isa_features", "extra features"), ("cpu_dispatch", "dispatch"),
                      ("cpu_pinning", "threads")):
        if _context_text(context, key):
            parts.append(f"{what}: {_context_text(context, key)}")
    counts = Counter(r.cpu_isa for r in an.usable(rows) if r.cpu_isa)
    if counts:
        parts.append("per CPU row: " + ", ".join(
            f"{isa} on {n} row(s)" for isa, n in counts.most_common()))
    if not parts:
        return None
    project = context.get("project")
    if project and project != "twinbench":
        # The level is what twinbench's own CPU code (its ceilings) dispatched; the project's
        # code runs as the project compiled it.
        return ("CPU side: twinbench (the harness) dispatched " + "; ".join(parts) +
                f"; {project}'s own code runs as {project} compiled it.")
    return "CPU side: " + "; ".join(parts) + "."


def gpu_telemetry_note(context: dict) -> str | None:
    value = _context_text(context, "gpu_telemetry")
    if value is None:  # a run without a GPU has nothing to say here
        return "GPU telemetry: not recorded in this run." if \
            context.get("gpu_status") == "available" else None
    if value == "nvml":
        return ("GPU telemetry: NVML, sampled off the timed path during each GPU row (clocks, "
                "power, temperature, throttle reasons); energy = mean board power × the median "
                "time.")
    return f"GPU telemetry: {value}."


def cache_mode_note(context: dict, rows: list[Row]) -> str | None:
    """How the GPU kernel rows treated the L2, which decides whether small inputs are read
    from memory or from the cache; None for a run without GPU rows (which flushed nothing,
    whatever mode its context names)."""
    mode = _context_text(context, "gpu_cache_mode")
    l2 = an.context_number(context, "gpu_l2_cache_bytes")
    flush = an.context_number(context, "gpu_l2_flush_bytes")
    size = f" ({fmt_bytes(l2)})" if l2 else ""
    gpu_rows = [r for r in an.usable(rows) if r.is_gpu]
    if not gpu_rows:
        return None
    if mode is None:
        return ("GPU cache mode: not recorded in this run (older file); kernel rows ran with "
                "whatever the previous launch left in the L2.")
    # A merged run's parts (the Numba peers', under the simulator too) can differ from the run's
    # mode: each row says how it was timed, and the note's first sentence covers only the rows
    # that agree, so it never says "every sample" beside rows that were not.
    other = {"cold": ("warm", 0.0), "warm": ("cold", 1.0)}.get(mode)
    odd = [r for r in gpu_rows if r.counter("l2_flushed") == other[1] and r.mode != "e2e"] \
        if other else []
    but = ""
    if odd:
        names = ", ".join(r.name for r in odd[:3]) + (f" and {len(odd) - 3} more"
                                                      if len(odd) > 3 else "")
        but = (f", except {len(odd)} row(s) that say they were timed {other[0]} "
               f"(l2_flushed = {other[1]:.0f}: {names})")
    if mode == "cold":
        by = f" by reading a {fmt_bytes(flush)} buffer" if flush else ""
        return (f"GPU cache mode: cold. The L2{size} was flushed{by} before every timed sample "
                f"of the kernel rows{but}, so their inputs come from device memory at every "
                "size; e2e rows (host copies, kernel, copy back) are not flushed.")
    if mode == "warm":
        return (f"GPU cache mode: warm (--warm). The L2{size} keeps what the previous sample "
                f"left{but}, so inputs that fit in it are read from the cache and can run above "
                "the memory ceilings.")
    return f"GPU cache mode: {mode}."


# ----------------------------------------------------------------- settings

@dataclass(frozen=True)
class Setting:
    label: str
    key: str
    # Why a difference moves the numbers, said in the compare warning.
    why: str
    format: str = "text"  # "cuda" for 12080-style versions, "bytes"
    gpu: bool = False     # only recorded when the run had a GPU


def _gpu(label: str, key: str, why: str, format: str = "text") -> Setting:
    return Setting(label, key, why, format, gpu=True)


_DRIVERS = "drivers change clocks, scheduling and library code"
_PLACEMENT = "thread placement changes locality and bandwidth"

# Order: hardware, driver and GPU settings, CPU settings, how the run was made.
SETTINGS = (
    Setting("machine", "machine", "another machine"),
    Setting("GPU status", "gpu_status", "GPU rows ran in one run only"),
    _gpu("GPU", "gpu_name", "a different GPU"),
    Setting("CPU model", "cpu_model", "a different CPU"),
    _gpu("GPU driver", "env_gpu_driver", _DRIVERS),
    _gpu("CUDA driver", "cuda_driver_version", _DRIVERS, "cuda"),
    _gpu("CUDA runtime", "cuda_runtime_version",
         "the runtime and its libraries (Thrust, cuBLAS) change code paths", "cuda"),
    _gpu("GPU persistence mode", "env_gpu_persistence_mode",
         "without it the driver re-initialises the GPU between processes (first launches, "
         "clocks)"),
    _gpu("GPU ECC", "env_gpu_ecc", "ECC takes memory bandwidth and capacity"),
    _gpu("GPU application SM clock", "env_gpu_app_sm_clock_mhz", "the SM clock kernels run at"),
    _gpu("GPU application memory clock", "env_gpu_app_mem_clock_mhz",
         "the memory clock sets the bandwidth"),
    _gpu("GPU cache mode", "gpu_cache_mode",
         "warm lets inputs that fit in the L2 be read from cache; cold reads them from memory"),
    _gpu("GPU L2 size", "gpu_l2_cache_bytes", "what fits in the cache", "bytes"),
    Setting("CPU governor", "env_cpu_governor", "the governor sets how fast cores clock up"),
    Setting("CPU boost", "env_cpu_boost", "turbo changes the CPU clock"),
    Setting("SMT", "env_smt", "threads share cores with SMT on"),
    Setting("NUMA nodes", "env_numa_nodes", "memory placement and bandwidth per node"),
    Setting("OMP_PROC_BIND", "env_omp_proc_bind", _PLACEMENT),
    Setting("OMP_PLACES", "env_omp_places", _PLACEMENT),
    Setting("OpenMP threads", "omp_threads", "the omp rows use this many threads"),
    Setting("build type", "build_type", "an unoptimised build is slower"),
    Setting("compiler", "compiler", "code generation differs"),
    Setting("quick run", "quick", "--quick uses smaller sizes and fewer samples"),
)

# Shown in the environment table but not a reason to warn: it is what a comparison is for.
_INFO_ONLY = (Setting("git revision", "git_revision", ""),
              _gpu("GPU L2 flush", "gpu_l2_flush_bytes", "", "bytes"))


def _applies(context: dict, setting: Setting) -> bool:
    """A GPU setting is not expected from a run without a GPU (files older than gpu_status
    still name their GPU)."""
    status = context.get("gpu_status")
    has_gpu = status == "available" or (status is None and "gpu_name" in context)
    return not setting.gpu or has_gpu or setting.key in context


def setting_value(context: dict, setting: Setting) -> str | None:
    raw = _context_text(context, setting.key)
    if raw is None or setting.format == "text":
        return raw
    if setting.format == "cuda":
        return fmt_cuda_version(raw)
    number = an.context_number(context, setting.key)
    return fmt_bytes(number) if number else raw


def environment_rows(context: dict) -> list[list[str]]:
    """[setting, value, context key] for the report's environment table; env_* keys this
    list does not know yet are appended under their own name."""
    known = SETTINGS + _INFO_ONLY
    rows = []
    for s in known:
        value = setting_value(context, s) or NOT_RECORDED
        if s.key == "gpu_status" and value not in ("available", NOT_RECORDED):
            value = an.NO_GPU_SAID_ABOVE
        if _applies(context, s):
            rows.append([s.label, value, s.key])
    named = {s.key for s in known}
    return rows + [[key, str(value), key] for key, value in sorted(context.items())
                   if key.startswith("env_") and key not in named]


def _same(a: str, b: str) -> bool:
    """Equal as text, or as numbers ("16" and "16.0", "1980" and "1.98e3")."""
    if a.strip().lower() == b.strip().lower():
        return True
    try:
        return float(a) == float(b)
    except ValueError:
        return False


@dataclass(frozen=True)
class Difference:
    setting: Setting
    a: str
    b: str

    @property
    def sentence(self) -> str:
        return f"{self.setting.label}: A {self.a}, B {self.b} ({self.setting.why})"


def setting_differences(context_a: dict, context_b: dict
                        ) -> tuple[list[Difference], dict[str, list[str]]]:
    """(settings that differ, {"A": [not recorded there], "B": [...]}). A setting missing from
    one file (an older run) is not compared: its absence says nothing about the machine."""
    differences = []
    missing: dict[str, list[str]] = {"A": [], "B": []}
    for setting in SETTINGS:
        a, b = setting_value(context_a, setting), setting_value(context_b, setting)
        for side, context, value in (("A", context_a, a), ("B", context_b, b)):
            if value is None and _applies(context, setting):
                missing[side].append(setting.label)
        if a is not None and b is not None and not _same(a, b):
            differences.append(Difference(setting, a, b))
    return differences, missing


def compared_count(context_a: dict, context_b: dict) -> int:
    """How many settings both runs recorded (and so were compared)."""
    return sum(1 for s in SETTINGS if setting_value(context_a, s) is not None
               and setting_value(context_b, s) is not None)
