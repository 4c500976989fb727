"""Which peer rows a run takes, derived from the C++ rows of the suite's results file.

Each peer mirrors one C++ implementation (PEERS): for every C++ row of that implementation, the
peer gets a row with the same arguments (n:, w:/h:, rows:/cols:, image:/filter:, bytes:, dir:,
block:, mode:), so a --quick, default or --size suite run is matched without the peers knowing
its sizes. CPU peers take the C++ row's thread count (numba_cpu_serial rows have none). A GPU
peer of a C++ e2e row gets two rows: <impl>/.../mode:e2e, timed like the C++ e2e (pinned host
buffers, device buffers allocated beforehand), and <impl>_pageable/.../mode:e2e, the articles'
own end-to-end code (cuda.to_device of NumPy arrays, the kernel, copy_to_host, allocation
included). The host memory goes in the impl, not the mode, so that every reader that knows
mode:e2e from mode:kernel reads both rows right.

No numba here: the plan is also listed with --list on machines without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from twinbench.bench.suite import BadInput, Name, cpp_rows


@dataclass(frozen=True)
class Peer:
    workload: str
    impl: str
    mirrors: str                 # the C++ impl whose rows it follows
    side: str                    # "cpu" or "gpu"
    what: str                    # one line for --list and the README
    only: tuple[tuple[str, str], ...] = ()   # args a mirrored row must have
    fixed: tuple[tuple[str, str], ...] = ()  # args the peer row sets, whatever the C++ row's
    # (n of a mirrored row, n of one more row of the peer): a size the C++ does not run, planned
    # after the rows of the C++ row it follows
    also_n: tuple[tuple[str, str], ...] = ()

    @property
    def serial(self) -> bool:
        return self.impl.startswith("numba_cpu_serial")


def _cpu(workload, impl, mirrors, what):
    return Peer(workload, impl, mirrors, "cpu", what)


def _gpu(workload, impl, mirrors, what, only=(), fixed=(), also_n=()):
    return Peer(workload, impl, mirrors, "gpu", what, only, fixed, also_n)


# The progress rows' kernel of over a second: 10^10 samples of the article's Poisson kernel
# (1.2 s on the H200, where 10^8 take 12 ms; 40 GB of output), beside the suite's large size.
PROGRESS_ONLY = (("target", "poisson"),)
PROGRESS_LONG = (("100000000", "10000000000"),)


PEERS: tuple[Peer, ...] = (
    _cpu("vector_add", "numba_cpu", "omp", "@njit(parallel=True), prange over c[i] = a[i] + b[i]"),
    _gpu("vector_add", "numba_cuda", "cuda_article", "@cuda.jit, one element per thread"),
    _cpu("dot", "numba_cpu", "omp", "prange reduction, float64 products and sum"),
    _gpu("dot", "numba_cuda", "cuda",
         "grid-stride float64 partial sums, shared-memory tree, one cuda.atomic.add per block"),
    _cpu("grayscale", "numba_cpu", "omp", "prange over rows of an (h, w, 3) image"),
    _gpu("grayscale", "numba_cuda", "cuda_article", "row, col = cuda.grid(2): the article's order"),
    _gpu("grayscale", "numba_cuda_coalesced", "cuda_coalesced", "col, row = cuda.grid(2)"),
    _cpu("sgemm", "numba_cpu", "omp", "prange over rows, i-k-j loops"),
    _gpu("sgemm", "numba_cuda", "cuda_naive", "the Numba documentation's matmul"),
    _gpu("sgemm", "numba_cuda_shared", "cuda_tiled",
         "the Numba documentation's fast_matmul (TPB x TPB shared-memory tiles)"),
    _cpu("conv2d", "numba_cpu", "omp", "prange over rows, clamped taps"),
    _gpu("conv2d", "numba_cuda", "cuda_naive", "one thread per pixel, filter in global memory"),
    _cpu("black_scholes", "numba_cpu", "omp", "prange, the Numba example's polynomial CND"),
    _gpu("black_scholes", "numba_cuda", "cuda_naive",
         "the Numba example's black_scholes_cuda (polynomial CND), one option per thread"),
    _cpu("nested_loop", "numba_cpu_serial", "serial", "@njit, the article's two loops"),
    _cpu("nested_loop", "numba_cpu", "omp", "@njit(parallel=True), prange over i"),
    _gpu("nested_loop", "numba_cuda", "cuda", "one thread per i, the whole inner loop"),
    _cpu("lucas", "numba_cpu_serial", "serial_recursive", "@njit naive recursion per index"),
    _cpu("lucas", "numba_cpu", "omp_recursive", "prange over indices (largest first, chunks of 1)"),
    _gpu("lucas", "numba_cuda", "cuda_recursive", "recursive device function, one thread per index"),
    _cpu("poisson", "numba_cpu", "omp_article",
         "prange over xoroshiro128+ streams, the article's pow/gamma walk"),
    _gpu("poisson", "numba_cuda", "cuda_article",
         "create_xoroshiro128p_states, one generator per thread, the article's pow/gamma walk"),
    _cpu("transpose", "numba_cpu", "omp", "prange over 64 x 64 tiles"),
    _gpu("transpose", "numba_cuda_slow", "cuda_article_slow",
         "the article's first kernel: x along an input row (coalesced reads)"),
    _gpu("transpose", "numba_cuda_fast", "cuda_article_fast",
         "the article's second kernel: x down an input column (coalesced writes)"),
    _gpu("transfers", "numba_cuda_pageable", "cuda_pageable",
         "copy_to_device / copy_to_host of a NumPy array"),
    _gpu("transfers", "numba_cuda_pinned", "cuda_pinned",
         "copy_to_device / copy_to_host of a cuda.pinned_array"),
    _gpu("progress", "numba_cuda", "cuda_article",
         "(a) the article's Poisson kernel without a counter, timed against itself",
         only=PROGRESS_ONLY, fixed=(("strategy", "none"),)),
    _gpu("progress", "numba_cuda", "cuda_article",
         "(b) the Poisson kernel with the article's counter: cuda.atomic.add per sample, polled "
         "from the host with copy_to_host", only=PROGRESS_ONLY, also_n=PROGRESS_LONG),
    _gpu("progress", "numba_cuda", "cuda_article",
         "(c) kernel_progress, a slot per block in mapped host memory (thread 0 stores the "
         "block's count at most once a period), summed by the host while the kernel runs",
         only=PROGRESS_ONLY, fixed=(("strategy", "live_block"), ("counter", "slots8")),
         also_n=PROGRESS_LONG),
    _gpu("progress", "numba_cuda", "cuda_article",
         "(d) kernel_progress, a slot per warp (lane 0 the writer)",
         only=PROGRESS_ONLY, fixed=(("strategy", "live_warp"), ("counter", "slots8")),
         also_n=PROGRESS_LONG),
    _gpu("progress", "numba_cuda", "cuda_article",
         "(e) the Numba maintainers' demo: a managed counter, an atomic per sample, read by the "
         "host (skipped without host-native atomics)",
         only=PROGRESS_ONLY, fixed=(("counter", "managed"),), also_n=PROGRESS_LONG),
)

WORKLOADS: tuple[str, ...] = tuple(dict.fromkeys(p.workload for p in PEERS))

# The impl suffix of the e2e rows timed the articles' way, from pageable NumPy arrays.
PAGEABLE = "_pageable"


@dataclass(frozen=True)
class PlannedRow:
    peer: Peer
    impl: str     # the peer's impl, with PAGEABLE for the articles' own e2e
    args: tuple[tuple[str, str], ...]
    source: str   # the C++ row it mirrors

    @property
    def base(self) -> str:
        return "/".join([self.peer.workload, self.impl] + [f"{k}:{v}" for k, v in self.args])

    @property
    def name(self) -> str:
        return self.base + "/manual_time"

    def arg(self, key: str, default: str | None = None) -> str | None:
        for k, v in self.args:
            if k == key:
                return v
        return default

    @property
    def mode(self) -> str | None:
        return self.arg("mode")

    @property
    def workload(self) -> str:
        return self.peer.workload

    @property
    def pageable(self) -> bool:
        """The articles' end to end: NumPy arrays in and out, device arrays allocated inside."""
        return self.impl != self.peer.impl

    @property
    def side(self) -> str:
        return self.peer.side

    @property
    def serial(self) -> bool:
        return self.peer.serial

    @property
    def base_impl(self) -> str:
        """The variant's impl, without the pageable e2e suffix (one verdict for both)."""
        return self.peer.impl

    @property
    def label(self) -> str:
        """Google Benchmark's free-text label: which C++ implementation the row is the peer of
        (the reports read it to pair the row with that C++ row)."""
        return f"numba peer of {self.workload}/{self.peer.mirrors}"

    @property
    def spec(self):
        """The workload module that builds this row's data and cases (imports numba)."""
        from .workloads import module
        return module(self.workload)

    # The rows' text fields: none, so that their rows stay as the reports have read them.
    fields = {}


def parse_workloads(text: str | None) -> list[str] | None:
    """--workload=a,b -> the names (None: all); unknown names are bad input."""
    if text is None:
        return None
    names = [w for w in text.split(",") if w]
    unknown = [w for w in names if w not in WORKLOADS]
    if unknown:
        raise BadInput(f"unknown workload(s) {', '.join(unknown)}; the workloads with Numba peers "
                       f"are: {', '.join(WORKLOADS)}")
    return names


def _peer_rows(peer: Peer, cpp: Name, cpu_threads: Callable[[int], int]) -> list[tuple]:
    """(impl, args) of the peer rows of one C++ row."""
    args = []
    fixed = dict(peer.fixed)
    for key, value in cpp.args:
        value = fixed.get(key, value)
        if key == "threads":
            if peer.serial:
                continue
            try:
                value = str(cpu_threads(int(value)))
            except ValueError as exc:
                raise BadInput(f"{cpp.base}: threads:{value} is not a number") from exc
        args.append((key, value))
    if peer.side == "cpu" and not peer.serial and cpp.arg("threads") is None:
        args.append(("threads", str(cpu_threads(0))))
    rows = [(peer.impl, tuple(args))]
    if peer.side == "gpu" and cpp.arg("mode") == "e2e":
        rows.append((peer.impl + PAGEABLE, tuple(args)))
    return rows


def _also_rows(peer: Peer, impl: str, args: tuple) -> list[tuple]:
    """The peer's rows at the sizes it adds to this row's (Peer.also_n)."""
    n = dict(args).get("n")
    return [(impl, tuple((k, to if k == "n" else v) for k, v in args))
            for at, to in peer.also_n if n == at]


def derive(doc: dict, workloads: list[str] | None,
           cpu_threads: Callable[[int], int] = lambda t: t) -> list[PlannedRow]:
    """The peer rows for the C++ rows of `doc`, in the C++ rows' order (so the rows of one
    workload and size stay together and share their inputs), each name once.

    cpu_threads maps the C++ row's thread count to the one the Numba row runs with (0 when the
    C++ row names none)."""
    by_mirror: dict[tuple[str, str], list[Peer]] = {}
    for peer in PEERS:
        if workloads is None or peer.workload in workloads:
            by_mirror.setdefault((peer.workload, peer.mirrors), []).append(peer)
    plan: list[PlannedRow] = []
    seen: set[str] = set()
    for cpp in cpp_rows(doc):
        later: list[PlannedRow] = []   # another size: after this size's rows (its own buffers)
        for peer in by_mirror.get((cpp.workload, cpp.impl), []):
            if any(cpp.arg(k) != v for k, v in peer.only):
                continue
            for impl, args in _peer_rows(peer, cpp, cpu_threads):
                plan.append(PlannedRow(peer, impl, args, cpp.base))
                later += [PlannedRow(peer, i, a, cpp.base) for i, a in _also_rows(peer, impl, args)]
        plan += later
    unique: list[PlannedRow] = []
    for row in plan:
        if row.base not in seen:
            seen.add(row.base)
            unique.append(row)
    return unique
