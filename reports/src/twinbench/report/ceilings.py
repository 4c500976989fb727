"""A run's measured ceilings and roofs, and where each row stands against them: the bandwidth
of six access patterns on the GPU, the CPU's threads and one CPU thread (a row is held to the
pattern nearest its mix of reads and writes: one copy figure made read-mostly kernels read above
100%), and the FLOP/s of the run's own compute kernels. Older files' one cudaMemcpy bandwidth,
CPU triad and datasheet FP32 peak are the fallbacks, named so in labels."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import rates
from . import stats as st

if TYPE_CHECKING:
    from .loader import Row

# Index = the row's ceiling_pattern counter (common/ceilings.hpp, enum Pattern).
PATTERNS = ("read", "write", "copy", "scale", "add", "triad")

# The measured sets: the GPU's, the CPU's all OpenMP threads' (omp rows), one thread's (serial).
SIDES = ("gpu", "cpu_all", "cpu_one")
SIDE_LABELS = {"gpu": "GPU", "cpu_all": "CPU, all threads", "cpu_one": "CPU, one thread"}
_BW_KEYS = {"gpu": "gpu_bw_{}_bytes_per_s", "cpu_all": "cpu_bw_{}_all_bytes_per_s",
            "cpu_one": "cpu_bw_{}_one_bytes_per_s"}

DEVICE_COPY = "device copy"  # the old cudaMemcpy ceiling's name in labels

# FLOP/byte below which a kernel counts as memory-bound when the side's roof or bandwidth is
# unknown; real ridge points on current hardware are far above this.
DEFAULT_MEMORY_BOUND_INTENSITY = 1.0

ABOVE_CEILING = "above its measured ceiling"


def context_text(context: dict, key: str) -> str:
    return str(context.get(key) or "").strip()


def _pattern_index(row: Row) -> int | None:
    index = row.counter("ceiling_pattern")
    known = index is not None and index == int(index) and 0 <= int(index) < len(PATTERNS)
    return int(index) if known else None


# ----------------------------------------------------------------- bandwidth ceilings

def pattern_bandwidths(context: dict, side: str) -> dict[str, float]:
    """pattern -> measured bytes (read + written) per second."""
    out = {p: v for p in PATTERNS
           if (v := rates.context_number(context, _BW_KEYS[side].format(p)))}
    # Older files measured one CPU ceiling: a triad with every thread.
    old = rates.context_number(context, "cpu_triad_bw_bytes_per_s")
    if side == "cpu_all" and "triad" not in out and old:
        out["triad"] = old
    return out


def device_copy_bandwidth(context: dict) -> float | None:
    return rates.context_number(context, "gpu_copy_bw_bytes_per_s")


def slopes(context: dict, side: str) -> list[tuple[str, float]]:
    """Bandwidth lines for a roofline panel, highest first: the highest and the lowest measured
    pattern and read/copy/triad where measured; the device copy for files without patterns."""
    measured = pattern_bandwidths(context, side)
    if not measured:
        copy = device_copy_bandwidth(context) if side == "gpu" else None
        return [(f"{DEVICE_COPY} (cudaMemcpy)", copy)] if copy else []
    chosen = {max(measured, key=measured.get), min(measured, key=measured.get)}
    chosen |= {p for p in ("read", "copy", "triad") if p in measured}
    return sorted(((p, measured[p]) for p in chosen), key=lambda item: -item[1])


def highest_bandwidth(context: dict, side: str) -> tuple[str, float] | None:
    return next(iter(slopes(context, side)), None)


# ----------------------------------------------------------------- compute roofs

@dataclass(frozen=True)
class Roof:
    precision: str          # FP32, FP64, FP16, INT8, TF32, BF16, FP16 tensor
    value: float            # FLOP/s (integer OP/s for INT8)
    kind: str               # "measured", "datasheet" or "native"
    note: str = ""          # e.g. the ISA of a native roof, or the CPU's BF16 kernel

    @property
    def unit(self) -> str:
        return "OP/s" if self.precision == "INT8" else "FLOP/s"

    @property
    def label(self) -> str:
        kind = self.kind if self.kind == "datasheet" else f"{self.kind} {self.note}".strip()
        return f"{kind} {self.precision} {fmt_rate(self.value, self.unit)}"


def fmt_rate(value: float | None, unit: str = "FLOP/s") -> str:
    if value is None:
        return "–"
    scale, prefix = next(((s, p) for s, p in ((1e12, "T"), (1e9, "G"), (1e6, "M"))
                          if value >= s), (1.0, ""))
    return f"{value / scale:.3g} {prefix}{unit}"


def fmt_bandwidth(value: float | None) -> str:
    return "–" if value is None else f"{value / 1e9:,.0f} GB/s"


def native_isa(context: dict) -> str:
    isa = context_text(context, "cpu_roof_native_isa")
    return "" if isa == "0" else isa


# Tensor-core and matrix-unit roofs, measured when the run could (never required): the GPU's
# TF32, BF16 and FP16 tensor cores, the CPU's BF16 path (AMX or AVX512_BF16, cpu_roof_bf16_isa).
FP16_TENSOR = "FP16 tensor"

# Each side's roofs, in the order they are listed: (context key, precision, kind, the context
# key of its note).
_ROOFS = {
    "gpu": (("gpu_roof_fp32_flops", "FP32", "measured", ""),
            ("gpu_roof_fp64_flops", "FP64", "measured", ""),
            ("gpu_roof_fp16_flops", "FP16", "measured", ""),
            ("gpu_roof_int8_ops", "INT8", "measured", ""),
            ("gpu_roof_tf32_flops", "TF32", "measured", ""),
            ("gpu_roof_bf16_flops", "BF16", "measured", ""),
            ("gpu_roof_fp16_tensor_flops", FP16_TENSOR, "measured", ""),
            ("gpu_peak_fp32_flops", "FP32", "datasheet", ""),
            ("gpu_peak_fp64_flops", "FP64", "datasheet", "")),
    "cpu_one": (("cpu_roof_fp32_one_flops", "FP32", "measured", ""),
                ("cpu_roof_fp64_one_flops", "FP64", "measured", "")),
    "cpu_all": (("cpu_roof_fp32_flops", "FP32", "measured", "cpu_roof_isa"),
                ("cpu_roof_fp64_flops", "FP64", "measured", "cpu_roof_isa"),
                ("cpu_roof_bf16_flops", "BF16", "measured", "cpu_roof_bf16_isa"),
                ("cpu_roof_fp16_flops", "FP16", "measured", "cpu_roof_fp16_isa"),
                ("cpu_roof_fp32_native_flops", "FP32", "native", "cpu_roof_native_isa"),
                ("cpu_roof_fp64_native_flops", "FP64", "native", "cpu_roof_native_isa")),
}


def compute_roofs(context: dict, side: str) -> list[Roof]:
    """Every roof the run recorded for one side: measured first, then datasheet or native."""
    return [Roof(precision, value, kind,
                 native_isa(context) if kind == "native" else context_text(context, note))
            for key, precision, kind, note in _ROOFS[side]
            if (value := rates.context_number(context, key))]


def top_roof(context: dict, side: str) -> Roof | None:
    """The roof the bandwidth slopes bend into: the measured FP32 roof, else the datasheet's."""
    roofs = [r for r in compute_roofs(context, side) if r.precision == "FP32"]
    return next((r for kind in ("measured", "datasheet") for r in roofs if r.kind == kind), None)


def precision_roof(context: dict, side: str, precision: str, tensor: bool = False
                   ) -> Roof | None:
    """The roof of one precision ("fp32", "bf16", ...) on one side, None where not measured.
    The CPU's: the measured one where measured at the ISA level its kernels run (cpu_roof_isa),
    else the native (best-ISA) one: older files measured baseline SSE2 code, which the
    dispatched kernels pass. The GPU's FP16 for a library row (tensor): the tensor cores'."""
    roofs = compute_roofs(context, side)
    wanted = precision.upper()
    if side == "gpu" and wanted == "FP16" and tensor \
            and any(r.precision == FP16_TENSOR for r in roofs):
        wanted = FP16_TENSOR
    kinds = ("measured",)
    if side == "cpu_all":
        kinds = ("measured", "native") if context_text(context, "cpu_roof_isa") \
            else ("native", "measured")
    return next((r for kind in kinds for r in roofs
                 if r.precision == wanted and r.kind == kind), None)


def roof_for(row: Row, context: dict, side: str) -> Roof | None:
    """The compute roof a row cannot pass: its precision's when it names one (None where that
    roof was not measured: a TF32 row is never held to the FP32 roof); else the higher of the
    FP32/FP64 roofs, since the row's precision is unknown (never flags a valid row)."""
    if row.precision:
        return precision_roof(context, side, row.precision,
                              tensor=row.family == "cublas" or row.is_cpu_library)
    float_roofs = [r for r in (precision_roof(context, side, p) for p in ("fp32", "fp64")) if r]
    return max(float_roofs, key=lambda r: r.value) if float_roofs else None


def pct_of_roof(row: Row, context: dict, side: str) -> float | None:
    """The row's FLOP/s as a % of its precision's roof on its side; None without either."""
    flops = rates.achieved_flop_per_s(row)
    roof = roof_for(row, context, side)
    return 100 * flops / roof.value if flops and roof else None


# ----------------------------------------------------------------- hardware ratio
#
# How much faster the GPU can be at all: a bandwidth-bound kernel by the ratio of the two
# machines' bandwidths of its pattern, a compute-bound one by that of its precision's roofs (Lee
# et al., ISCA 2010: re-optimized, every kernel's speedup was explained by one of these). The
# CPU's all-thread figure: the ratio compares machines, not rows.

@dataclass(frozen=True)
class HardwareRatio:
    value: float
    bound: str              # "bandwidth" or "compute"
    what: str               # "read", "triad", "FP32", "BF16"
    gpu_limit: float
    cpu_limit: float

    @property
    def text(self) -> str:
        return f"{_fmt_x(self.value)} ({self.what} " \
            f"{'bandwidth' if self.bound == 'bandwidth' else 'roof'})"


def _fmt_x(value: float) -> str:
    return f"{value:,.0f}×" if value >= 100 else f"{value:.{1 if value >= 10 else 2}f}×"


def bandwidth_ratio(context: dict, pattern: str) -> HardwareRatio | None:
    gpu = pattern_bandwidths(context, "gpu").get(pattern)
    cpu = pattern_bandwidths(context, "cpu_all").get(pattern)
    return HardwareRatio(gpu / cpu, "bandwidth", pattern, gpu, cpu) if gpu and cpu else None


def compute_ratio(context: dict, precision: str, tensor: bool = False) -> HardwareRatio | None:
    gpu = precision_roof(context, "gpu", precision, tensor)
    cpu = precision_roof(context, "cpu_all", precision)
    return HardwareRatio(gpu.value / cpu.value, "compute", gpu.precision, gpu.value, cpu.value) \
        if gpu and cpu else None


# ----------------------------------------------------------------- rows' shares of a ceiling

@dataclass(frozen=True)
class RowCeiling:
    pct: float
    pattern: str            # a PATTERNS name, DEVICE_COPY for old files, or "ceiling"
    bytes_per_s: float | None = None

    @property
    def text(self) -> str:
        return f"{self.pct:.1f} % of {self.pattern}"

    @property
    def short(self) -> str:
        return f"{self.pct:.0f} % of {self.pattern}"


def row_ceiling(row: Row) -> RowCeiling | None:
    """The row's share of its pattern's bandwidth ceiling, where its limit is a bandwidth (the
    limit the run wrote, or the one derive_limit gave an older file's row); older files' % of
    device copy."""
    if row.fields.get("limit_kind", "bandwidth") != "bandwidth":
        return None
    pct, index = row.counter("pct_ceiling"), _pattern_index(row)
    if pct is not None:
        label = PATTERNS[index] if index is not None \
            else row.fields.get("limit", "ceiling").removesuffix(" bandwidth")
        return RowCeiling(pct, label, row.counter("ceiling_bytes_per_s"))
    old = row.counter("pct_copy_bw")
    return RowCeiling(old, DEVICE_COPY) if old is not None else None


def pattern_ceiling(row: Row) -> RowCeiling | None:
    """The bandwidth of the row's access pattern where the run recorded it, and the row's share
    of it, whichever limit binds: the roofline's ridge is drawn with it."""
    ceiling = row_ceiling(row)
    index, per_s, rate = _pattern_index(row), row.counter("ceiling_bytes_per_s"), \
        rates.gb_per_s(row)
    if ceiling is not None or index is None or not per_s or not rate:
        return ceiling
    return RowCeiling(100 * rate * 1e9 / per_s, PATTERNS[index], per_s)


# ----------------------------------------------------------------- the row's one limit
#
# The run writes each timed row's one limit (common/row_limit.hpp): `limit_kind` (bandwidth,
# compute, link, none), `limit` ("triad bandwidth", "FP32 roof", "pinned d2h link"),
# `limit_per_s`, `pct_ceiling` (the row's % of it) and, above it, `suspect`. For older files the
# loader derives the same fields once (derive_limit); nothing decides a second limit.

# A row that moves less than this is a few cache lines (lucas' 728 bytes in 25 ns read 447 % of
# the DRAM write stream): its time is latency, whatever its bytes per second say.
MIN_STREAM_BYTES = 1 << 20
_LIMIT_COUNTERS = ("pct_ceiling", "limit_per_s", "ceiling_pattern", "ceiling_bytes_per_s",
                   "pct_copy_bw")


@dataclass(frozen=True)
class RowLimit:
    kind: str               # bandwidth, compute, link
    name: str               # "add bandwidth", "FP32 roof", "pinned d2h link"
    pct: float              # the row's % of it
    per_s: float | None
    suspect: str = ""       # why the row's figure cannot stand as it is, or ""

    @property
    def what(self) -> str:
        """"add" (a pattern), "FP32" (a precision), or the limit's name (a link)."""
        return self.name.removesuffix(" bandwidth").removesuffix(" roof")

    @property
    def short(self) -> str:
        """"95 % of add", "47 % of FP32 roof", "80 % of pinned d2h link"."""
        return f"{self.pct:.0f} % of {self.name.removesuffix(' bandwidth')}"


def row_limit(row: Row | None) -> RowLimit | None:
    """The limit the row is held to; None for a row held to none (latency rows, e2e, host API
    costs)."""
    kind = row.fields.get("limit_kind") if row is not None else None
    if kind in (None, "none") or row.counter("pct_ceiling") is None:
        return None
    return RowLimit(kind, row.fields.get("limit", kind), row.counter("pct_ceiling"),
                    row.counter("limit_per_s"), row.fields.get("suspect", ""))


def pinned_links(rows: list[Row]) -> dict[str, float]:
    """Direction -> bytes/s of the fastest pinned copy of a file from before the run measured its
    links: the link a transfer row of that direction is held to."""
    links: dict[str, float] = {}
    for row in rows:
        direction = row.args.get("dir")
        if (row.usable and row.is_gpu and row.impl == "cuda_pinned"
                and direction in ("h2d", "d2h") and row.bytes_per_second):
            links[direction] = max(links.get(direction, 0.0), row.bytes_per_second)
    return links


def _candidate_limits(row: Row, context: dict, links: dict[str, float]) -> list[tuple]:
    """(pct, kind, name, per second) of each limit an older file's row could be held to: a
    transfer's pinned link (the pinned rows define it: held to themselves they would say
    nothing), else its bandwidth share (rows that stream at least MIN_STREAM_BYTES) and its
    precision's roof."""
    link = links.get(row.args.get("dir", "")) if row.workload == "transfers" else None
    if link and row.is_gpu and row.bytes_per_second and row.impl != "cuda_pinned":
        return [(100 * row.bytes_per_second / link, "link", f"pinned {row.args['dir']} link",
                 link)]
    found = []
    ceiling, moved = row_ceiling(row), row.counter("bytes_per_iter")
    if ceiling and (moved is None or moved >= MIN_STREAM_BYTES):
        found.append((ceiling.pct, "bandwidth", f"{ceiling.pattern} bandwidth",
                      ceiling.bytes_per_s))
    roof = roof_for(row, context, row.limit_side) if row.limit_side else None
    flops = rates.achieved_flop_per_s(row)
    if roof and flops:
        found.append((100 * flops / roof.value, "compute", f"{roof.precision} roof", roof.value))
    return found


def derive_limit(row: Row, context: dict, links: dict[str, float] | None = None) -> None:
    """A row of a file written before the run wrote its limit gets the same fields: of its
    candidate limits the one it is nearest (the roofline's minimum, as the run chooses it), else
    none; and `suspect` when it is above that limit, as the run flags it."""
    if "limit_kind" in row.fields or not row.usable:
        return
    found = _candidate_limits(row, context, links or {})
    if not found:
        row.fields["limit_kind"] = "none"
        for key in _LIMIT_COUNTERS:
            row.counters.pop(key, None)
        return
    pct, kind, name, per_s = max(found, key=lambda f: f[0])
    if kind == "compute":  # the pattern's bandwidth stays: the roofline's ridge reads it
        row.counters.pop("pct_copy_bw", None)
    row.fields.update(limit_kind=kind, limit=name)
    row.counters["pct_ceiling"] = pct
    if per_s:
        row.counters["limit_per_s"] = per_s
    if pct > 100:
        row.fields["suspect"] = _suspect_reason(row, context, pct, kind, name)


def _suspect_reason(row: Row, context: dict, pct: float, kind: str, name: str) -> str:
    interval = st.median_interval(row.samples_s, 0.95)
    slow = pct * row.time_s / interval[1] if interval else pct
    why = f"{pct:.1f}% of its {name}" + (
        " even at the slow end of its median's interval" if slow > 100 else
        f" ({slow:.1f}% at the slow end of its median's interval: within its noise)")
    if kind == "compute":
        return why + ": suspect the roof, measured low, or the row's FLOP count"
    if kind == "link":
        return (why + ": suspect a transfer that moves less than it says (pages already where "
                "it copies them), or the link's ceiling (here the run's fastest pinned copy)")
    if row.is_gpu:
        return (why + ": suspect the ceiling, whose kernel moves this pattern slower than the "
                "row does, the row's byte count, or data served from the L2 cache")
    busy = suspect_cpu_ceilings(context).get(name.removesuffix(" bandwidth"))
    if busy:
        why += (f": suspect the ceiling, measured while something else ran ({busy}), or data "
                "served from a cache")
    elif cpu_data_beyond_cache(row, context):
        why += (": suspect the ceiling, measured once at the start while the host's level moved "
                "(the row's data exceed the CPU's caches, so no cache served them), or the row's "
                "byte count")
    else:
        why += ": suspect data served from a cache, the ceiling, or the row's byte count"
    if cpu_ceilings_in_cache(context):
        why += "; the ceilings were measured on arrays that fit in the last-level cache"
    return why


# ----------------------------------------------------------------- the roofline

def is_memory_bound(row: Row, context: dict) -> bool:
    """Below the ridge (where the side's top roof meets its highest bandwidth); a row without a
    FLOP counter (copy/convert kernels) is held to bandwidth alone."""
    intensity = rates.arithmetic_intensity(row)
    side = row.limit_side or "gpu"
    roof, bandwidth = top_roof(context, side), highest_bandwidth(context, side)
    ridge = roof.value / bandwidth[1] if roof and bandwidth else DEFAULT_MEMORY_BOUND_INTENSITY
    return intensity is None or intensity < ridge


def above_roof(row: Row, context: dict, side: str) -> str | None:
    """Why a row sits above its side's roofs, or None. A point above a measured roof is data:
    the roof was measured too low, the row's byte/FLOP model is off, or its data came from a
    cache (warm L2, a CPU's large L3)."""
    reasons = []
    rate = rates.gb_per_s(row)
    bandwidth = highest_bandwidth(context, side)
    if rate is not None and bandwidth and rate * 1e9 > bandwidth[1]:
        reasons.append(f"{rate:,.0f} GB/s is {100 * rate * 1e9 / bandwidth[1]:.0f} % of the "
                       f"highest bandwidth measured ({bandwidth[0]}, "
                       f"{fmt_bandwidth(bandwidth[1])})")
    flops = rates.achieved_flop_per_s(row)
    roof = roof_for(row, context, side)
    if flops is not None and roof and flops > roof.value:
        reasons.append(f"{fmt_rate(flops, roof.unit)} is above the {roof.label} roof")
    return "; ".join(reasons) or None


# ----------------------------------------------------------------- the CPU's ceilings and caches

def suspect_cpu_ceilings(context: dict) -> dict[str, str]:
    """Patterns whose all-thread CPU ceiling came out below the one-thread one: impossible on an
    idle machine, so it was measured while something else ran, and a share of it means nothing.
    pattern -> "all threads 78 GB/s < one thread 90 GB/s"."""
    every, one = pattern_bandwidths(context, "cpu_all"), pattern_bandwidths(context, "cpu_one")
    return {p: f"all threads {fmt_bandwidth(every[p])} < one thread {fmt_bandwidth(one[p])}"
            for p in PATTERNS if p in every and p in one and every[p] < one[p]}


def cpu_last_level_cache_bytes(context: dict) -> int | None:
    """The largest cache Google Benchmark found (its `caches` context: the L3, shared)."""
    caches = context.get("caches")
    sizes = [c.get("size") for c in caches if isinstance(c, dict)
             and c.get("type") != "Instruction"] if isinstance(caches, list) else []
    sizes = [int(s) for s in sizes if isinstance(s, (int, float)) and s > 0]
    return max(sizes) if sizes else None


def cpu_ceilings_in_cache(context: dict) -> bool:
    """Whether the CPU ceilings were measured on arrays that fit in the last-level cache: then
    they are the cache's bandwidth, not memory's (--quick's 32 MiB arrays in a 300 MiB L3 read
    87 GB/s of triad against 48 GB/s from DRAM in a default run on the H200 host)."""
    array = rates.context_number(context, "cpu_bw_array_bytes")
    cache = cpu_last_level_cache_bytes(context)
    return bool(array and cache and array <= cache)


def cpu_data_beyond_cache(row: Row, context: dict) -> bool:
    """A CPU row whose data (the bytes its model moves per call) exceed the last-level cache:
    above its memory ceiling it is not reading from a cache, whatever its share says."""
    moved = row.counter("bytes_per_iter")
    cache = cpu_last_level_cache_bytes(context)
    return not row.is_gpu and bool(moved and cache and moved > cache)
