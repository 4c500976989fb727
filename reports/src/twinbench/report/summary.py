"""The summary: per workload at its headline size, the best rows of each side of the same
algorithm, the speedups with distribution-free intervals, the hardware ratio, the limiter read
off the numbers and the articles' Numba code beside the C++; then the crossover sizes."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from . import analysis as an
from . import stats as st
from . import ceilings as ce
from . import multi_gpu
from . import ncu
from .charts import crossover_series
from .document import Table
from .loader import TUNING_ARGS, Row
from .pairing import (  # noqa: F401  (the summary's pairing, re-exported for its callers)
    Contenders, algorithms, group_key, headline, impl_words, is_reference, like_for_like,
    other_precisions, precision_class, fastest_per_side)
from .units import fmt_energy, fmt_speedup, fmt_time

# ----------------------------------------------------------------- speedups with intervals
#
# A distribution-free interval for each median (order statistics: the number of samples below
# the median is Binomial(n, 1/2)), at 97.5 % each; the ratio's interval divides the ends
# crosswise, which covers the ratio of medians with at least 95 % (Bonferroni). With few
# samples the widest interval (min..max) reaches less; the cell then says how much.

LEVEL = 0.95


def median_interval(samples: list[float], level: float = 1 - (1 - LEVEL) / 2
                    ) -> tuple[float, float, float] | None:
    return st.median_interval(samples, level)


@dataclass
class Speedup:
    value: float
    low: float | None = None
    high: float | None = None
    level: float | None = None     # joint coverage of [low, high]
    why_none: str = ""             # why there is no interval

    @property
    def text(self) -> str:
        head = fmt_speedup(self.value)
        if self.low is None:
            return f"{head} (no interval: {self.why_none})"
        span = f"{fmt_speedup(self.low, unit=False)}–{fmt_speedup(self.high, unit=False)}"
        if self.level is not None and self.level < LEVEL - 1e-9:
            span += f"; {100 * self.level:.0f} %"
        return f"{head} ({span})"


def speedup_of(slow: Row | None, fast: Row | None) -> Speedup | None:
    """slow.time / fast.time (the medians the report shows), with its interval."""
    value = an.speedup(slow, fast) if slow and fast else None
    if value is None:
        return None
    a, b = median_interval(slow.samples_s), median_interval(fast.samples_s)
    if a is None or b is None:
        fewest = min(len(slow.samples_s), len(fast.samples_s))
        return Speedup(value, why_none=f"{fewest} sample" + ("" if fewest == 1 else "s"))
    return Speedup(value, a[0] / b[1], a[1] / b[0], 1.0 - (1 - a[2]) - (1 - b[2]))


# ----------------------------------------------------------------- the articles' Numba code
#
# A Numba row (peers/numba/) is set beside the C++ it was translated to: the impl its label
# names ("numba peer of lucas/cuda_recursive": the recursive kernel, not the iterative one,
# whose algorithm alone makes it thousands of times faster); without a label, the fastest
# hand-written CUDA rather than the libraries the articles did not write; OpenMP beside
# @njit(parallel=True).

LIBRARY_FAMILIES = frozenset({"thrust", "cublas"})
# Tuning args that change what is measured, not only how fast (progress' counting strategy,
# streams' count and chunk): a C++ row is set beside a Numba row only with the same values.
MEASURE_ARGS = ("strategy", "streams", "chunk")


def _cpp_beside(rows: list[Row], sides: tuple[str, ...], like: Row | None) -> Row | None:
    """The fastest C++ row of `sides` to set beside a Numba row like `like`."""
    rows = [r for r in rows if r.pair_side in sides and not is_reference(r)]
    if like is not None:
        rows = [r for r in rows if all(r.args.get(k) == like.args.get(k) for k in MEASURE_ARGS)]
        if like.mirrors:
            return an.fastest([r for r in rows if r.impl == like.mirrors])
    return an.fastest([r for r in rows if r.family not in LIBRARY_FAMILIES])


@dataclass
class NumbaBeside:
    """One problem's fastest C++ and Numba rows: CUDA kernel only, CUDA end to end, CPU. Each
    ratio is the Numba time over the C++ time: how many times faster the C++ is."""
    cuda: Row | None = None
    numba_cuda: Row | None = None
    cuda_e2e: Row | None = None
    numba_cuda_e2e: Row | None = None
    omp: Row | None = None
    numba_cpu: Row | None = None

    @property
    def kernel_ratio(self) -> Speedup | None:
        return speedup_of(self.numba_cuda, self.cuda)

    @property
    def e2e_ratio(self) -> Speedup | None:
        return speedup_of(self.numba_cuda_e2e, self.cuda_e2e)

    @property
    def cpu_ratio(self) -> Speedup | None:
        return speedup_of(self.numba_cpu, self.omp)

    @property
    def has_numba(self) -> bool:
        return any((self.numba_cuda, self.numba_cuda_e2e, self.numba_cpu))

    @property
    def has_cpp(self) -> bool:
        return any((self.cuda, self.cuda_e2e, self.omp))


def beside_numba(rows: list[Row]) -> NumbaBeside:
    """Rows of one problem -> the fastest Numba row of each kind and the C++ row beside it."""
    usable = an.usable(rows)
    numba_cuda = [r for r in usable if r.family == "numba_cuda"]
    kernel = an.fastest([r for r in numba_cuda if r.mode != "e2e"])
    e2e = an.fastest([r for r in numba_cuda if r.mode == "e2e"])
    cpu = an.fastest([r for r in usable if r.family == "numba_cpu"])
    # numba_cpu_serial mirrors serial: a labelled CPU row may meet either C++ CPU side.
    cpu_sides = ("serial", "omp") if cpu is not None and cpu.mirrors else ("omp",)
    return NumbaBeside(cuda=_cpp_beside(usable, ("gpu",), kernel or e2e), numba_cuda=kernel,
                       cuda_e2e=_cpp_beside(usable, ("e2e",), e2e or kernel), numba_cuda_e2e=e2e,
                       omp=_cpp_beside(usable, cpu_sides, cpu), numba_cpu=cpu)


def has_numba_rows(rows: list[Row]) -> bool:
    return any(r.is_peer for r in rows)


def has_gpu_rows(rows: list[Row]) -> bool:
    return any(r.pair_side in ("gpu", "e2e") for r in an.usable(rows))


# ----------------------------------------------------------------- limiters

MEMORY_BOUND_PCT = 60.0       # % of the row's own bandwidth ceiling
CACHE_PCT = 115.0             # above this the data came from a cache, not memory
COMPUTE_BOUND_PCT = 60.0      # % of the measured compute roof of its precision
LAUNCH_BOUND_S = 10e-6        # a kernel this short is mostly launch
LAUNCH_RATIO = 2.0            # launch-included time over kernel time
PCIE_RATIO = 2.0              # e2e over kernel: transfers at least half of e2e
MIN_STREAM_BYTES = ce.MIN_STREAM_BYTES  # below: a few cache lines, latency
OTHER = "latency / other"


def _memory(row: Row, suspect: dict[str, str] | None = None,
            context: dict | None = None) -> str | None:
    """suspect (CPU rows): the impossible CPU ceilings (ce.suspect_cpu_ceilings), above which a
    row says nothing about caches; context (CPU rows): to tell data beyond the last-level cache."""
    moved = row.counter("bytes_per_iter")
    if moved is not None and moved < MIN_STREAM_BYTES:
        return None
    ceiling = ce.row_ceiling(row)
    if not ceiling:
        return None
    if ceiling.pct > CACHE_PCT and suspect:
        why = suspect.get(ceiling.pattern) or "; ".join(f"{p}: {t}" for p, t in suspect.items())
        return (f"unknown: the CPU ceiling is suspect ({ceiling.short}; the all-thread ceiling "
                f"came out below the one-thread one, so something else ran while it was "
                f"measured: {why})")
    if ceiling.pct > CACHE_PCT and context and ce.cpu_data_beyond_cache(row, context):
        # vector_add/omp 256M (3 GB) read 118 % of the triad ceiling on the H200 host: the
        # ceiling, measured once at start, moved with the host's level, not into a cache.
        return (f"memory bandwidth ({ceiling.short}: {ce.ABOVE_CEILING}; its data exceed the "
                "CPU's caches, so not cache: the host's level moved between the ceiling's "
                "measurement and the row)")
    if ceiling.pct > CACHE_PCT:
        return f"cache bandwidth ({ceiling.short}: above the memory ceiling)"
    return f"memory bandwidth ({ceiling.short})" if ceiling.pct >= MEMORY_BOUND_PCT else None


def _compute(row: Row, context: dict, side: str) -> str | None:
    flops = an.achieved_flop_per_s(row)
    roof = ce.roof_for(row, context, side)
    if flops and roof and 100 * flops / roof.value >= COMPUTE_BOUND_PCT:
        kind = "native" if roof.kind == "native" else "measured"
        return f"compute ({100 * flops / roof.value:.0f} % of the {kind} {roof.precision} roof)"
    return None


def _too_few_threads(row: Row, context: dict) -> str | None:
    """Fewer blocks than SMs, or a grid under ncu.ACHIEVED_SHARE of one wave (SMs × blocks per
    SM): the counters' rules without the counters. A grid just short of a wave is not named
    (conv2d cuda_direct 8x8: 0.97 of a wave, FMA-pipe bound by the counters), nor is low
    theoretical occupancy alone (poisson 100M's fastest kernel: one 1024-thread block per SM, a
    full wave, ALU bound by the counters)."""
    blocks, sms = row.counter("grid_blocks"), an.context_number(context, "gpu_sms")
    if blocks is None or not sms:
        return None
    if blocks < sms:
        plural = "" if blocks == 1 else "s"
        return f"too few threads ({blocks:.0f} block{plural} for {sms:.0f} SMs)"
    per_sm = row.counter("active_blocks_per_sm")
    if per_sm and blocks < ncu.ACHIEVED_SHARE * sms * per_sm:
        return (f"too few threads ({blocks:.0f} blocks, {blocks / (sms * per_sm):.2g} of a wave "
                f"of {sms:.0f} SMs × {per_sm:.0f})")
    return None


def _launch(row: Row) -> str | None:
    if row.time_s < LAUNCH_BOUND_S:
        return f"launch latency (kernel {fmt_time(row.time_s)})"
    included = row.counter("launch_included_us")
    if included and included * 1e-6 >= LAUNCH_RATIO * row.time_s:
        return f"launch latency ({included:.3g} µs with the launch, {fmt_time(row.time_s)} without)"
    return None


def _with_reason(why: str | None) -> str:
    return f"{OTHER} ({why})" if why else OTHER


def gpu_limiter(row: Row, context: dict) -> str:
    """What holds a GPU kernel row back: Nsight Compute's counters where the row has them
    ("DRAM bandwidth (ncu: 93 % of peak)"), else the first rule that matches."""
    measured = ncu.limiter_words(row) or multi_gpu.limiter(row)
    if measured:
        return measured
    return (_memory(row) or _compute(row, context, "gpu") or _too_few_threads(row, context)
            or _launch(row) or _gpu_roofline_side(row, context) or _no_throughput_model(row)
            or _with_reason(ncu.unprofiled_reason(row, context)))


def _roofline(intensity: float, ridge: float) -> str:
    return f"roofline: {intensity:.2g} FLOP/B against a ridge of {ridge:.2g}"


def _roofline_side(row: Row, context: dict, side: str) -> str | None:
    """A CPU row under both of its limits: the side of the roofline its model puts it on, from
    its FLOPs per byte against the ridge (roof over the ceiling's bandwidth); on a host without
    hardware counters (a VM without a PMU: the H200 host) the one thing that says more than
    latency / other. A model without FLOPs (Poisson: integer work) is placed by its bytes."""
    ceiling = ce.pattern_ceiling(row)
    flops = an.achieved_flop_per_s(row)
    roof = ce.roof_for(row, context, side)
    moved = row.counter("bytes_per_iter")
    work = row.counter("flop_per_iter")
    if ceiling is None and work and roof and flops:
        # Held to no bandwidth ceiling (nested_loop: 80 KB of output for 2 N^2 FLOPs).
        return (f"compute (under the roof: {100 * flops / roof.value:.0f} % of the "
                f"{roof.precision} roof; its model is FLOPs only)")
    if ceiling is None or moved is None or moved < MIN_STREAM_BYTES:
        return None
    if work and roof and flops and ceiling.bytes_per_s:
        ridge = roof.value / ceiling.bytes_per_s
        if work / moved >= ridge:
            return (f"compute (under the roof: {100 * flops / roof.value:.0f} % of the "
                    f"{roof.precision} roof; {_roofline(work / moved, ridge)})")
        return (f"memory bandwidth (under the ceiling: {ceiling.short}; "
                f"{_roofline(work / moved, ridge)})")
    return (f"memory bandwidth (under the ceiling: {ceiling.short}; roofline by bytes alone: "
            f"its model counts no FLOPs)")


def _gpu_roof(row: Row, context: dict) -> ce.Roof | None:
    """The roof of the pipe the row's precision uses (ce.roof_for); for FP32 or an unnamed
    precision, the datasheet FP32 peak where the run measured no roof."""
    roof = ce.roof_for(row, context, "gpu")
    if roof is None and (row.precision or "fp32").lower() == "fp32":
        roof = ce.top_roof(context, "gpu")
    return roof


def _ridge_bandwidth(ceiling: ce.RowCeiling | None, context: dict) -> tuple[str, float] | None:
    """(pattern, bytes/s) of the ridge: the row's own pattern's ceiling, else the GPU's highest
    measured bandwidth (the lowest ridge: a row past it is past every ridge)."""
    if ceiling and ceiling.bytes_per_s:
        return ceiling.pattern, ceiling.bytes_per_s
    measured = ce.pattern_bandwidths(context, "gpu")
    if ceiling and ceiling.pattern in measured:
        return ceiling.pattern, measured[ceiling.pattern]
    return ce.highest_bandwidth(context, "gpu")


def _gpu_roofline_side(row: Row, context: dict) -> str | None:
    """A GPU kernel row under both of its limits and without counters: the side of the roofline
    its model puts it on. A row with FLOPs but no bytes worth streaming (nested_loop: 80 KB
    written for 2e8 FLOPs) is on the compute side; one without FLOPs (poisson) is placed by its
    bytes. Near the ridge either side can hold it: the H200's conv2d 7x7 sits at 12 FLOP/B
    against a ridge of 14 (56 % of copy) and its counters find the FMA pipe at 61 % of peak."""
    moved = row.counter("bytes_per_iter") or 0.0
    work = row.counter("flop_per_iter") or 0.0
    flops = an.achieved_flop_per_s(row)
    roof = _gpu_roof(row, context)
    ceiling = ce.pattern_ceiling(row)
    streams = moved >= MIN_STREAM_BYTES
    if work and flops and roof:
        datasheet = "datasheet " if roof.kind == "datasheet" else ""
        share = f"{100 * flops / roof.value:.0f} % of the {datasheet}{roof.precision} roof"
        bandwidth = _ridge_bandwidth(ceiling, context)
        if not streams:
            return f"compute (under the roof: {share}; its model streams under 1 MiB)"
        if bandwidth is None:
            return f"compute (under the roof: {share}; no bandwidth measured to draw a ridge)"
        intensity, ridge = work / moved, roof.value / bandwidth[1]
        if intensity >= ridge:
            return f"compute (under the roof: {share}; {_roofline(intensity, ridge)})"
        under = _bandwidth_share(row, ceiling, bandwidth)
        return f"memory bandwidth (under the ceiling: {under}; {_roofline(intensity, ridge)})"
    if streams and ceiling:
        why = (f"no {row.precision.upper()} roof measured" if work and row.precision
               else "its model counts no FLOPs")
        return (f"memory bandwidth (under the ceiling: {ceiling.short}; roofline by bytes "
                f"alone: {why})")
    return None


def _bandwidth_share(row: Row, ceiling: ce.RowCeiling | None,
                     bandwidth: tuple[str, float]) -> str:
    """"56 % of copy": the row's own share, else its bytes per second over the ridge's."""
    if ceiling:
        return ceiling.short
    rate = an.gb_per_s(row)
    return f"{100 * rate * 1e9 / bandwidth[1]:.0f} % of {bandwidth[0]}" if rate else bandwidth[0]


def _no_throughput_model(row: Row) -> str | None:
    """Models without throughput to be bound by: API calls and dependent chains (alloc, sync,
    lucas) are latency; host copies held to no ceiling (transfers), the rate of their bytes."""
    moved = row.counter("bytes_per_iter")
    work = row.counter("flop_per_iter") or 0.0
    if moved is None or work > 0:  # no model written (old files), or FLOPs to be bound by
        return None
    if moved >= MIN_STREAM_BYTES and ce.row_ceiling(row) is None and row.time_s:
        return f"copy bandwidth ({moved / row.time_s / 1e9:.3g} GB/s; copies have no ceiling)"
    if moved < MIN_STREAM_BYTES:
        return "latency (its model has no bytes to stream or FLOPs: API calls or a dependent chain)"
    return None


def cpu_limiter(row: Row, context: dict) -> str:
    """The roofline against the CPU's measured ceilings and roofs; latency / other only for
    rows with neither, with why no hardware counter could say more (common/perf_counters)."""
    side = row.limit_side or "cpu_one"
    return (_memory(row, ce.suspect_cpu_ceilings(context), context)
            or _compute(row, context, side) or _roofline_side(row, context, side)
            or _no_throughput_model(row) or _with_reason(ncu.cpu_counters_reason(context)))


def e2e_limiter(e2e: Row, kernel: Row | None) -> str | None:
    """PCIe when the transfers are most of the end-to-end time (e2e well above the kernel)."""
    h2d, d2h = e2e.counter("h2d_ms"), e2e.counter("d2h_ms")
    if h2d is not None and d2h is not None and e2e.time_s:
        share = (h2d + d2h) * 1e-3 / e2e.time_s
        if share >= 1 - 1 / PCIE_RATIO:
            return f"PCIe transfers ({100 * share:.0f} % of e2e)"
        return None
    if kernel and kernel.time_s and e2e.time_s >= PCIE_RATIO * kernel.time_s:
        return f"PCIe transfers (e2e {fmt_speedup(e2e.time_s / kernel.time_s)} the kernel)"
    return None


def limiters(c: Contenders, rows: list[Row], context: dict) -> dict[str, str]:
    """Side ("GPU", "e2e", "CPU") -> what limits that side's row, in words whose head names the
    class (memory bandwidth, compute, latency, launch, PCIe transfers) and whose brackets hold
    the figures."""
    parts = {}
    # A row of no known family has no rules to read it by, but a row across GPUs (NCCL's) is
    # named for the section that reads it.
    if c.gpu and (c.gpu.family != "other" or multi_gpu.is_multi_gpu(c.gpu)):
        parts["GPU"] = gpu_limiter(c.gpu, context)
    if c.e2e:
        own = an.fastest([r for r in rows if r.impl == c.e2e.impl and r.pair_side == "gpu"])
        pcie = e2e_limiter(c.e2e, own or c.gpu)
        if pcie:
            parts["e2e"] = pcie
    if c.cpu:
        parts["CPU"] = cpu_limiter(c.cpu, context)
    return parts


# ----------------------------------------------------------------- hardware ratio
#
# The GPU's limit over the CPU's for the bound the two rows are nearest (ce.HardwareRatio): the
# bandwidth of the rows' access pattern, or the compute roof of their precision. A like-for-like
# kernel speedup above FAIR_FACTOR times it means one side is far from its limit (Lee et al.,
# ISCA 2010): the flag says which, with the CPU row's % of its own limit.

FAIR_FACTOR = 1.5


def _bandwidth_side(line_rows: list[Row], context: dict):
    """(ratio, nearness %): the pattern the GPU row is held to (else the CPU row's); nearness
    is the larger of the rows' % of their ceilings."""
    ceilings = [(r, ce.row_ceiling(r)) for r in line_rows]
    patterns = [c.pattern for _, c in ceilings if c and c.pattern in ce.PATTERNS]
    ratio = ce.bandwidth_ratio(context, patterns[0]) if patterns else None
    near = [c.pct for r, c in ceilings if c and c.pattern in ce.PATTERNS
            and (r.counter("bytes_per_iter") or MIN_STREAM_BYTES) >= MIN_STREAM_BYTES]
    return ratio, max(near) if near else None


def _compute_side(gpu: Row, cpu: Row, context: dict):
    """(ratio, nearness %) for the compute bound of the rows' precision (unnamed: FP32)."""
    ratio = ce.compute_ratio(context, gpu.precision or cpu.precision or "fp32",
                             tensor=gpu.family == "cublas")
    near = [p for p in (ce.pct_of_roof(gpu, context, "gpu"),
                        ce.pct_of_roof(cpu, context, cpu.limit_side or "cpu_all")) if p]
    return ratio, max(near) if near else None


def hardware_ratio(gpu: Row | None, cpu: Row | None, context: dict) -> ce.HardwareRatio | None:
    """None when the run measured neither bound on both machines."""
    if gpu is None or cpu is None:
        return None
    bandwidth, bw_near = _bandwidth_side([gpu, cpu], context)
    compute, c_near = _compute_side(gpu, cpu, context)
    # Rows that neither stream (a few cache lines, no pattern) nor count FLOPs are bound by
    # latency (alloc, sync, lucas): no hardware ratio speaks for them.
    bandwidth, compute = (bandwidth if bw_near is not None else None,
                          compute if c_near is not None else None)
    # Compute-bound in a precision the CPU has no measured roof for (no BF16 unit): no ratio,
    # the hardware the CPU lacks is the reason (cpu_lacks), not the bandwidth.
    if compute is None and cpu_lacks(gpu, cpu, context):
        gpu_near = ce.pct_of_roof(gpu, context, "gpu")
        if gpu_near is not None and gpu_near > (bw_near or 0.0):
            return None
    if bandwidth and compute:
        return compute if (c_near or 0.0) > (bw_near or 0.0) else bandwidth
    return bandwidth or compute


def cpu_lacks(gpu: Row, cpu: Row, context: dict) -> str:
    """"the CPU has no BF16 roof measured (...); the GPU's measured BF16 800 TFLOP/s", or ""."""
    precision = gpu.precision or cpu.precision or "fp32"
    if ce.precision_roof(context, "cpu_all", precision) is not None:
        return ""
    roof = ce.precision_roof(context, "gpu", precision, tensor=gpu.family == "cublas")
    if roof is None:
        return ""
    why = str(context.get(f"cpu_roof_{precision}_why_not") or "").strip()
    return (f"the CPU has no {roof.precision} roof measured" + (f" ({why})" if why else "")
            + f"; the GPU's {roof.label}")


def _cpu_share(cpu: Row, ratio: ce.HardwareRatio, context: dict) -> str:
    """"CPU row at 7 % of its FP32 roof"; what the CPU row reaches of its own limit."""
    if ratio.bound == "compute":
        side = cpu.limit_side or "cpu_all"
        pct, roof = ce.pct_of_roof(cpu, context, side), ce.roof_for(cpu, context, side)
        if pct is not None:
            return f"CPU row at {pct:.0f} % of its {roof.precision} roof"
        return f"CPU row's share of its {ratio.what} roof not measured (no FLOP count)"
    ceiling = ce.row_ceiling(cpu)
    if ceiling:
        return f"CPU row at {ceiling.pct:.0f} % of its {ceiling.pattern} ceiling"
    return "CPU row's share of its bandwidth ceiling not measured"


def fairness_flag(speedup: Speedup | None, ratio: ce.HardwareRatio | None, cpu: Row | None,
                  context: dict) -> str:
    """Why a like-for-like speedup is more than FAIR_FACTOR times the hardware ratio, or ""."""
    if speedup is None or ratio is None or cpu is None:
        return ""
    if speedup.value <= FAIR_FACTOR * ratio.value:
        return ""
    return (f"speedup {fmt_speedup(speedup.value / ratio.value)} the hardware ratio: "
            + _cpu_share(cpu, ratio, context))


# ----------------------------------------------------------------- the summary lines

@dataclass
class SummaryLine:
    workload: str
    size_key: tuple[str, ...]
    best: Contenders               # the headline algorithm
    any_cpu: Row | None            # fastest CPU row, any algorithm, the same precision
    any_gpu: Row | None            # fastest GPU kernel row, any algorithm, the same precision
    limiters: dict[str, str]       # side -> its limiter in words (summary.limiters)
    numba: NumbaBeside | None = None   # the articles' Numba code at the same size
    hardware: ce.HardwareRatio | None = None
    fairness: str = ""             # fairness_flag of the GPU kernel speedup
    cpu_roof: str = ""             # "7 % of FP32 roof": the CPU row against its compute roof

    @property
    def limiter(self) -> str:
        """"GPU: memory bandwidth (95 % of add); e2e: PCIe transfers (...); CPU: ...", or "–"."""
        return "; ".join(f"{side}: {words}" for side, words in self.limiters.items()) or "–"

    @property
    def omp_speedup(self) -> Speedup | None:
        """None where the serial and OpenMP rows do different things (sync's serial_call and
        omp_fork_join: their own words differ), so the ratio is no speedup."""
        serial, omp = self.best.serial, self.best.omp
        a, b = (impl_words(serial.impl), impl_words(omp.impl)) if serial and omp else ((), ())
        return None if a and b and a != b else speedup_of(serial, omp)

    @property
    def gpu_speedup(self) -> Speedup | None:
        return speedup_of(self.best.cpu, self.best.gpu)

    @property
    def e2e_speedup(self) -> Speedup | None:
        return speedup_of(self.best.cpu, self.best.e2e)

    @property
    def best_vs_best(self) -> Speedup | None:
        return speedup_of(self.any_cpu, self.any_gpu)


def _roof_share(row: Row | None, context: dict) -> str:
    """"7 % of FP32 roof" for a CPU row that counts FLOPs, against its precision's roof."""
    side = row.limit_side if row else None
    pct = ce.pct_of_roof(row, context, side) if side else None
    if pct is None:
        return ""
    return f"{pct:.0f} % of {ce.roof_for(row, context, side).precision} roof"


def _line(workload: str, size, best: Contenders, members: list[Row], context: dict,
          numba: NumbaBeside | None) -> SummaryLine:
    same = [r for r in members if precision_class(r) == best.precision]
    everything = fastest_per_side(same, "any")
    ratio = hardware_ratio(best.gpu, best.cpu, context)
    line = SummaryLine(workload, size, best, everything.cpu, everything.gpu,
                       limiters(best, members, context), numba, ratio,
                       cpu_roof=_roof_share(best.cpu, context))
    line.fairness = fairness_flag(line.gpu_speedup, ratio, best.cpu, context)
    if ratio is None and best.gpu and best.cpu:
        line.fairness = cpu_lacks(best.gpu, best.cpu, context)
    return line


def summary_lines(rows: list[Row], context: dict, precisions: bool = False
                  ) -> list[SummaryLine]:
    """One line per workload at its headline size; with precisions, one more per other precision
    measured on both sides there."""
    by_workload: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_workload[row.workload].append(row)
    lines = []
    for workload, rows_of in sorted(by_workload.items()):
        size = an.headline_size(rows_of)
        if size is None:
            continue
        members = [r for r in an.usable(rows_of) if r.size_key == size]
        groups = like_for_like(members, {r.impl for r in rows_of if not r.is_peer})
        best = headline(groups)
        lines.append(_line(workload, size, best, members, context, beside_numba(members)))
        if precisions:
            lines += [_line(workload, size, other, members, context, None)
                      for other in other_precisions(groups, best)]
    return lines


# ----------------------------------------------------------------- cells and table

def row_cell(row: Row | None) -> str:
    """"47.8 µs (cuda block:512)": the time and which row (the column says the mode)."""
    if row is None:
        return "–"
    tuning = " ".join(f"{k}:{v}" for k, v in row.args.items()
                      if k in TUNING_ARGS and k != "mode")
    return f"{fmt_time(row.time_s)} ({row.impl} {tuning})".replace(" )", ")")


def limit_cell(row: Row | None, context: dict | None = None) -> str:
    """"95 % of add", "47 % of FP32 roof", "117 % of add (suspect)": the row's share of its own
    limit as the run wrote it, flagged where the run flagged it (ceilings.row_limit)."""
    limit = ce.row_limit(row)
    if not limit:
        return "–"
    return limit.short + (" (suspect)" if limit.suspect else "")


def speedup_cell(speedup: Speedup | None) -> str:
    return speedup.text if speedup else "–"


def omp_speedup_cell(line: SummaryLine) -> str:
    if line.omp_speedup is None and line.best.serial and line.best.omp:
        return (f"– ({line.best.serial.impl} and {line.best.omp.impl} are different "
                "operations)")
    return speedup_cell(line.omp_speedup)


def hardware_cell(line: SummaryLine) -> str:
    """"46× (read bandwidth)", and the flag when the kernel speedup is far above it."""
    if line.hardware is None:
        return f"– ({line.fairness})" if line.fairness else "–"
    return line.hardware.text + (f"; {line.fairness}" if line.fairness else "")


def energy_cell(row: Row | None) -> str:
    return fmt_energy(an.energy_per_item_j(row) if row else None)


def _pair(a: str, b: str) -> str:
    return "–" if a == b == "–" else f"{a} / {b}"


SUMMARY_HEADERS = [
    "workload", "size", "algorithm", "serial", "OpenMP", "GPU kernel", "GPU end to end",
    "OpenMP × serial", "GPU kernel × CPU", "GPU e2e × CPU", "best vs best (any algorithm)",
    "hardware ratio", "% of limit CPU / GPU", "energy / item CPU / GPU", "limiter"]
# A run without GPU rows: the columns a CPU can fill (the GPU ones would all be "–").
CPU_ONLY_HEADERS = ["workload", "size", "algorithm", "serial", "OpenMP", "OpenMP × serial",
                    "% of limit CPU", "% of compute roof CPU", "energy / item CPU", "limiter"]
# Shown only when the run holds Numba rows, right after "best vs best".
NUMBA_HEADER = "Numba (the articles' code)"
NUMBA_AT = SUMMARY_HEADERS.index("best vs best (any algorithm)") + 1


def numba_cell(line: SummaryLine) -> str:
    """"310 µs (numba_cuda block:256); C++ cuda: 2.00× (1.95–2.05)": the fastest Numba CUDA
    kernel-only row and how many times faster the C++ kernel set beside it is."""
    beside = line.numba
    if beside is None or beside.numba_cuda is None:
        return "–"
    text = row_cell(beside.numba_cuda)
    if beside.cuda is None:
        return f"{text}; no C++ CUDA kernel at this size"
    return f"{text}; C++ {beside.cuda.impl}: {speedup_cell(beside.kernel_ratio)}"


def summary_cells(line: SummaryLine, numba: bool = False, gpu: bool = True) -> list[str]:
    best = line.best
    head = [line.workload, " ".join(line.size_key) or "–", best.label,
            row_cell(best.serial), row_cell(best.omp)]
    if not gpu:
        return head + [omp_speedup_cell(line), limit_cell(best.cpu), line.cpu_roof or "–",
                       energy_cell(best.cpu), line.limiter]
    cells = head + [
        row_cell(best.gpu), row_cell(best.e2e),
        omp_speedup_cell(line), speedup_cell(line.gpu_speedup),
        speedup_cell(line.e2e_speedup), speedup_cell(line.best_vs_best),
        hardware_cell(line),
        _pair(limit_cell(best.cpu), limit_cell(best.gpu)),
        _pair(energy_cell(best.cpu), energy_cell(best.gpu)),
        line.limiter,
    ]
    if numba:
        cells.insert(NUMBA_AT, numba_cell(line))
    return cells


def summary_headers(numba: bool = False, gpu: bool = True) -> list[str]:
    if not gpu:
        return list(CPU_ONLY_HEADERS)
    headers = list(SUMMARY_HEADERS)
    if numba:
        headers.insert(NUMBA_AT, NUMBA_HEADER)
    return headers


def summary_table(rows: list[Row], context: dict,
                  lines: list[SummaryLine] | None = None) -> Table | None:
    """The full summary table: the Numba column when the run holds Numba rows, the CPU columns
    only for a run without GPU rows. The report shows it folded (first_screen.py)."""
    lines = summary_lines(rows, context, precisions=True) if lines is None else lines
    if not lines:
        return None
    gpu = has_gpu_rows(rows)
    numba = gpu and has_numba_rows(rows)
    return Table(summary_headers(numba, gpu), [summary_cells(line, numba, gpu) for line in lines])


# ----------------------------------------------------------------- the summary's reading notes

CPU_ONE_PROCESS = (
    " A CPU row's interval, and that of a speedup with a CPU row in it, comes from one process "
    "only: a CPU row's samples agree within a process while its level moves between processes "
    "(CPU medians of identical code moved 10 % typically between the committed H200 runs, "
    "twinbench/report/noise.py), so it bounds this run's median, not the next run's.")

SUMMARY_TEXT = (
    "One row per workload at its largest size measured on both sides (else its largest), and one "
    "more per other precision measured on both sides there (algorithm \"plain, bf16\"). Speedups "
    "pair implementations of the same algorithm and precision (from the impl names: "
    "serial_recursive with omp_recursive and cuda_recursive; bare serial/omp/cuda, and GPU "
    "variants such as cuda_tiled, thrust or cublas, are the plain algorithm; the precision from "
    "the row's precision field or its name: cublas_tf32 meets no FP32 CPU row, cublas_bf16 meets "
    "onednn_bf16); CPU is the faster of serial and OpenMP, where the CPU libraries (openblas, "
    "onednn) count as OpenMP (every thread); best vs best is the fastest GPU "
    "kernel against the fastest CPU row of any algorithm of the same precision. In brackets: a "
    "distribution-free interval for the ratio of median times from each row's samples (order "
    f"statistics, ≥ {100 * LEVEL:.0f} % unless a lower coverage is given: too few samples)."
    + CPU_ONE_PROCESS + " "
    "Hardware ratio: the GPU's limit over the CPU's (all threads), both measured in this run, for "
    "the bound the pair is nearest: the bandwidth of the rows' access pattern, or the compute "
    "roof of their precision (the CPU's native-ISA roof where the run has one). A GPU kernel × "
    f"CPU speedup above {FAIR_FACTOR}× it is flagged with the CPU row's share of its own limit: "
    "the CPU side is that far from its hardware. The limiter "
    f"is read off the numbers: memory bandwidth at ≥ {MEMORY_BOUND_PCT:.0f} % of the row's "
    f"ceiling, compute at ≥ {COMPUTE_BOUND_PCT:.0f} % of the measured roof of its precision, too "
    "few threads (a GPU grid of fewer blocks than SMs, or under "
    f"{100 * ncu.ACHIEVED_SHARE:.0f} % of one wave), launch latency "
    f"(kernel under {LAUNCH_BOUND_S * 1e6:.0f} µs, or launch-included time ≥ "
    f"{LAUNCH_RATIO:.0f}× "
    f"the kernel), PCIe when end to end takes ≥ {PCIE_RATIO:.0f}× the kernel. A row under both "
    "of its limits is placed on its roofline: its FLOPs per byte (its work model) against the "
    "ridge (its precision's roof over its pattern's bandwidth) names memory bandwidth or compute, "
    "with its share of that limit in brackets; a model without FLOPs is placed by its bytes "
    "alone. Latency where the model has neither bytes nor FLOPs (API calls, dependent chains), "
    "else latency / other.")

CPU_ONLY_SUMMARY_TEXT = (
    "One row per workload at its largest size. OpenMP × serial pairs rows of the same algorithm "
    "and precision (the CPU libraries, openblas and onednn, count as OpenMP: every thread); % of "
    "ceiling is the CPU row's share of its access pattern's measured bandwidth, % of compute "
    "roof its FLOP/s over the measured roof of its precision (rows that count FLOPs); a row near "
    "neither is bound by latency or by code that is not at its limit. In brackets: a "
    f"distribution-free interval (order statistics, ≥ {100 * LEVEL:.0f} % unless a lower "
    "coverage is given)." + CPU_ONE_PROCESS + " The limiter is read off the numbers: memory "
    "bandwidth at ≥ "
    f"{MEMORY_BOUND_PCT:.0f} % of the row's ceiling, compute at ≥ "
    f"{COMPUTE_BOUND_PCT:.0f} % of the "
    "measured roof of its precision, else latency / other.")

NUMBA_COLUMN_TEXT = (
    f"{NUMBA_HEADER}: the fastest Numba CUDA kernel-only row at the row's size (the articles' "
    "Python, peers/numba/, timed like the C++ kernels), then how many times faster the C++ "
    "kernel it is the peer of is at that size (the impl its label names; without a label, the "
    "fastest hand-written C++ CUDA kernel, not Thrust or cuBLAS): Numba time / C++ time, "
    "interval as above, below 1× Numba is faster. No other column counts a Numba row.")


# ----------------------------------------------------------------- crossover

GPU_KERNEL_SERIES = "gpu kernel"
CROSSOVER_TITLE = "From which size the GPU wins"
CROSSOVER_TEXT = ("The smallest size from which the fastest GPU row beats the fastest CPU row "
                  "(any algorithm) at that size and every larger one.")


def kernel_series(rows: list[Row]) -> dict[tuple, dict[str, list[tuple[float, float]]]]:
    """Like charts.crossover_series, with the fastest GPU kernel-only row instead of cuda e2e."""
    out: dict[tuple, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for (workload, _size), members in an.group_by_problem(an.usable(rows)).items():
        scalar = an.size_scalar(members[0])
        if scalar is None:
            continue
        best = an.best_by_category(members)
        key = (workload, an.non_numeric_size(members[0]), an.size_axis_label(members[0]))
        for cat in ("serial", "omp"):
            if cat in best:
                out[key][cat].append((scalar, best[cat].time_s))
        gpu = an.fastest([best[c] for c in an.GPU_KERNEL_CATEGORIES if c in best])
        if gpu:
            out[key][GPU_KERNEL_SERIES].append((scalar, gpu.time_s))
    return {k: {c: sorted(p) for c, p in v.items()} for k, v in out.items()}


def _sizes(points: dict[str, list[tuple[float, float]]]) -> list[float]:
    return sorted({size for series in points.values() for size, _ in series})


def _size_text(axis: str, value: float) -> str:
    number = f"{int(value):,}" if value == int(value) else f"{value:g}"
    return f"{axis}={number}"


def _crossover_cell(points: dict | None, series: str, axis: str) -> str:
    if not points or series not in points:
        return "–"
    cpu = {s for name in ("serial", "omp") for s, _ in points.get(name, [])}
    common = sorted(cpu & {s for s, _ in points[series]})
    if len(common) < 2:
        return "–"
    cross = an.crossover_size(points, series)
    if cross is None:
        return f"not faster at the largest size ({_size_text(axis, common[-1])})"
    if cross == common[0]:
        return f"{_size_text(axis, cross)} (the smallest run: faster at every size)"
    return _size_text(axis, cross)


def crossover_table(rows: list[Row]) -> Table | None:
    """Per workload swept over several sizes: from which size the GPU is faster than the best
    CPU, kernel only and end to end (faster at that size and every larger one)."""
    # The workload's own precision only: a TF32 or BF16 GPU row is no FP32 CPU row's peer.
    contenders = [r for r in rows if not is_reference(r) and not r.pairing_precision]
    kernel, e2e = kernel_series(contenders), crossover_series(contenders)
    lines = []
    for key in sorted(set(kernel) | set(e2e)):
        workload, labels, axis = key
        points = {**kernel.get(key, {}), **e2e.get(key, {})}
        sizes = _sizes(points)
        if len(sizes) < 2 or not ({"serial", "omp"} & set(points)):
            continue
        cells = [_crossover_cell(kernel.get(key), GPU_KERNEL_SERIES, axis),
                 _crossover_cell(e2e.get(key), "cuda e2e", axis)]
        if cells != ["–", "–"]:
            lines.append([" ".join((workload,) + labels),
                          f"{_size_text(axis, sizes[0])} … {sizes[-1]:,.0f} ({len(sizes)} sizes)",
                          *cells])
    if not lines:
        return None
    return Table(["workload", "sizes run", "GPU kernel faster from", "GPU end to end faster from"],
                 lines)
