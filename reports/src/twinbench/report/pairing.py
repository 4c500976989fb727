"""Which rows the reports compare with which: the one place rows are paired.

Three views of one rule (like for like: the same algorithm and the same precision, below):
- like_for_like / headline / other_precisions: per problem, the fastest serial, OpenMP, GPU
  kernel and end-to-end row of each algorithm and precision (the summary table, the headline);
- cpu_gpu_pairs: per problem and precision, the fastest CPU row against the fastest GPU kernel of
  any algorithm ("best vs best", the CPU-vs-GPU section);
- speedup_comparisons: per workload, algorithm and label args, GPU kernel vs best CPU, GPU end to
  end vs best CPU and OpenMP vs serial, at the largest size both sides were measured at (the
  speedup chart).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from . import analysis as an
from .loader import PEER_FAMILIES, PRECISIONS, Row, family_of

# ----------------------------------------------------------------- like for like
#
# Which implementations solve the same algorithm: the `algorithm` field each benchmark declares
# (common/bench_spec.hpp; "" the plain algorithm), and the `precision` field for precision.
# Rows of older files have no such fields; for them, from the impl names alone:
#   * an impl is <family>_<words> (serial_recursive, omp_article, cuda_aos_vec) or a bare
#     family (serial, omp, cuda, thrust);
#   * a word names an algorithm when at least two families of the workload use it
#     (serial_recursive + omp_recursive + cuda_recursive; omp_article + cuda_article;
#     serial_iterative + cuda_iterative; serial_aos + cuda_aos_vec); an impl's algorithm is its
#     words that do;
#   * every other impl (bare names, and words only one family uses: cuda_tiled, cuda_naive,
#     cuda_curand, thrust, cublas_tf32, serial_fp32) is an implementation of the plain
#     algorithm, and the fastest of them stands for its family. So black_scholes' float32
#     serial_fp32 meets the float32 omp and cuda, not the float64 reference;
#   * an impl with the word "copy" (transpose's cuda_copy) measures the ceiling the others are
#     held to, and is no contender.
# The speedup chart uses the same rule (algorithm_tags, below). "Best vs best" (the fastest
# CPU row against the fastest GPU kernel row of any algorithm) is its own, labelled column.
# The articles' Numba code (numba_cuda*, numba_cpu*) is no C++ family: it names no algorithm,
# is no side of any pairing, and has its own column (NumbaBeside).
#
# Precision is like for like too: a precision word (tf32, bf16, fp32, ...) names no algorithm;
# rows pair only with rows of the same precision (the `precision` field, else the word, else the
# dtype arg: Row.precision). A row that names none is the workload's own precision and meets
# the fp32 rows (black_scholes' float32 serial_fp32 meets the unnamed omp and cuda). So
# cublas_bf16 meets onednn_bf16, and cublas_tf32 meets no CPU row unless one computes in TF32.
# The CPU libraries (openblas*, onednn*) run on every thread: they are the OpenMP side's
# contenders, as cuBLAS is the GPU kernel side's.

PLAIN = ""
REFERENCE_WORDS = frozenset({"copy"})


def impl_words(impl: str) -> tuple[str, ...]:
    """cuda_aos_vec -> (aos, vec); serial -> (); an experiment's impl (pinned) -> (); the
    precision words left out (cublas_tf32 -> ())."""
    family = family_of(impl)
    if family != "other" and impl.startswith(family + "_"):
        return tuple(w for w in impl[len(family) + 1:].split("_") if w and w not in PRECISIONS)
    return ()


DEFAULT_PRECISION = ""


def precision_class(row: Row) -> str:
    """The precision a row pairs within: "" for fp32 and for rows that name none. A dtype arg
    is left out: it is part of the size, so every row of the problem shares it already."""
    return row.pairing_precision


def shared_words(impls) -> frozenset[str]:
    """The impl words two or more C++ families of a workload use: the words that name an
    algorithm (lucas: recursive, iterative; poisson: article; aos_soa: aos, soa)."""
    families: dict[str, set[str]] = defaultdict(set)
    for impl in impls:
        if family_of(impl) in PEER_FAMILIES:
            continue
        for word in impl_words(impl):
            families[word].add(family_of(impl))
    return frozenset(w for w, f in families.items() if len(f) >= 2)


def algorithms(impls) -> dict[str, str]:
    """impl -> algorithm ("" for the plain one), by the rule above, for one workload."""
    impls = [i for i in impls if family_of(i) not in PEER_FAMILIES]
    shared = shared_words(impls)
    return {impl: "_".join(w for w in impl_words(impl) if w in shared) for impl in impls}


def algorithm_of(row: Row, inferred: dict[str, str]) -> str:
    """The row's declared algorithm; for an older file's row, the one `algorithms` inferred."""
    declared = row.declared_algorithm
    return inferred.get(row.impl, PLAIN) if declared is None else declared


def is_reference(row: Row) -> bool:
    return bool(REFERENCE_WORDS & set(impl_words(row.impl)))


@dataclass
class Contenders:
    """The fastest row of each side for one algorithm (and precision) of one problem."""
    algorithm: str
    serial: Row | None = None
    omp: Row | None = None
    gpu: Row | None = None
    e2e: Row | None = None
    precision: str = DEFAULT_PRECISION

    @property
    def cpu(self) -> Row | None:
        return an.fastest([r for r in (self.serial, self.omp) if r])

    @property
    def label(self) -> str:
        """"plain", "recursive", "plain, bf16"."""
        return ", ".join(p for p in (self.algorithm or "plain", self.precision) if p)


def fastest_per_side(rows: list[Row], algorithm: str,
                      precision: str = DEFAULT_PRECISION) -> Contenders:
    sides: dict[str, list[Row]] = defaultdict(list)
    for row in an.usable(rows):
        side = None if is_reference(row) else row.pair_side
        if side:
            sides[side].append(row)
    return Contenders(algorithm, *(an.fastest(sides[s]) for s in ("serial", "omp", "gpu", "e2e")),
                      precision=precision)


def group_key(algorithm: str, precision: str) -> str:
    """like_for_like's key: the algorithm ("" plain), "algorithm:precision" for a precision
    other than the workload's own ("recursive", ":bf16")."""
    return f"{algorithm}:{precision}" if precision else algorithm


def like_for_like(rows: list[Row], impls=None) -> dict[str, Contenders]:
    """Rows of one problem -> group_key(algorithm, precision) -> its fastest serial, omp, GPU
    kernel and e2e rows. impls: every impl name of the workload (all sizes), which fixes the
    algorithms."""
    names = algorithms(sorted(set(impls or (r.impl for r in rows))))
    groups: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for row in rows:
        groups[(algorithm_of(row, names), precision_class(row))].append(row)
    return {group_key(*key): fastest_per_side(members, *key) for key, members in groups.items()}


def headline(groups: dict) -> Contenders:
    """The algorithm a workload's summary row shows: of those measured on both sides, the one
    with the fastest GPU kernel; else the one with the fastest CPU row; else the fastest GPU.
    The workload's own precision first: another precision gets a line of its own
    (other_precisions)."""
    own = {k: c for k, c in groups.items() if c.precision == DEFAULT_PRECISION}
    groups = own or groups
    both = [c for c in groups.values() if c.cpu and c.gpu]
    if both:
        return min(both, key=lambda c: c.gpu.time_s)
    cpu = [c for c in groups.values() if c.cpu]
    if cpu:
        return min(cpu, key=lambda c: c.cpu.time_s)
    gpu = [c for c in groups.values() if c.gpu or c.e2e]
    return min(gpu, key=lambda c: (c.gpu or c.e2e).time_s) if gpu else next(iter(groups.values()))


def other_precisions(groups: dict, shown: Contenders) -> list[Contenders]:
    """The groups of a precision other than the headline's measured on both sides (sgemm's
    onednn_bf16 against cublas_bf16): each gets a summary line of its own, fastest GPU first."""
    both = [c for c in groups.values()
            if c.precision != shown.precision and c.cpu and c.gpu]
    best: dict[str, Contenders] = {}
    for c in sorted(both, key=lambda c: c.gpu.time_s):
        best.setdefault(c.precision, c)
    return list(best.values())


# ----------------------------------------------------------------- best vs best

@dataclass
class CpuGpuPair:
    workload: str
    size_key: tuple[str, ...]
    cpu: Row
    gpu: Row
    gpu_e2e: Row | None = None

    @property
    def speedup(self) -> float | None:
        return an.speedup(self.cpu, self.gpu)

    @property
    def e2e_speedup(self) -> float | None:
        return an.speedup(self.cpu, self.gpu_e2e) if self.gpu_e2e else None


def problem_order(rows: list[Row]) -> tuple:
    """Sort key of a problem's rows: workload, label args (dtype), then size."""
    first = rows[0]
    return (first.workload, an.non_numeric_size(first), an.size_scalar(first) or 0.0, first.size_key)


def _fastest_of(best: dict[str, Row], categories: tuple[str, ...]) -> Row | None:
    return an.fastest([best[c] for c in categories if c in best])


def cpu_gpu_pairs(rows: list[Row]) -> list[CpuGpuPair]:
    """Per (workload, size) with both sides measured: best CPU vs best GPU kernel of the same
    precision (Row.pairing_precision: a TF32 cuBLAS row meets no FP32 CPU row)."""
    pairs = []
    groups = an.group_by_problem(an.usable(rows))
    for key in sorted(groups, key=lambda k: problem_order(groups[k])):
        precisions = sorted({r.pairing_precision for r in groups[key]})
        for precision in precisions:
            best = an.best_by_category([r for r in groups[key] if r.pairing_precision == precision])
            cpu = _fastest_of(best, an.CPU_CATEGORIES)
            gpu = _fastest_of(best, an.GPU_KERNEL_CATEGORIES)
            if cpu and gpu:
                pairs.append(CpuGpuPair(key[0], key[1], cpu, gpu, best.get("cuda e2e")))
    return pairs


# ----------------------------------------------------------------- the speedup chart

CPU_FAMILIES = ("serial", "omp")


@dataclass(frozen=True)
class SpeedupKind:
    key: str
    title: str
    color: str
    marker: str


# One panel per question, top to bottom. Kernel-only and end-to-end GPU answer different
# questions (is the kernel fast / is offloading worth it with the copies).
SPEEDUP_KINDS = (
    SpeedupKind("kernel", "GPU kernel vs best CPU (same algorithm)", "#2ca02c", "^"),
    SpeedupKind("e2e", "GPU end to end (with transfers) vs best CPU (same algorithm)",
                "#ff7f0e", "v"),
    SpeedupKind("omp", "OpenMP vs serial (same algorithm)", "#1f77b4", "s"),
)


# Impls that measure a ceiling for the others, not the workload's algorithm (transpose's
# cuda_copy is the copy the transposes are held to): never a speedup contender.
REFERENCE_TOKENS = REFERENCE_WORDS


def impl_tokens(row: Row) -> tuple[str, ...]:
    """The words of a row's impl after its family (impl_words)."""
    return impl_words(row.impl)


def precision_group(row: Row) -> str:
    """"" for FP32 and rows that name no precision; else the precision the row names (its field
    or impl word): cublas_tf32 is no FP32 CPU row's peer (as summary.precision_class)."""
    return row.pairing_precision


def algorithm_tags(rows: list[Row]) -> frozenset[str]:
    """Impl words that name an algorithm: those used by two or more families of one workload
    (lucas: recursive, iterative; poisson: article; aos_soa: aos, soa). A word only one family
    uses (cuda_tiled, cublas_tf32, serial_fp32) names a variant of the plain algorithm."""
    return shared_words(r.impl for r in rows)


def algorithm_by_tags(row: Row, tags: frozenset[str]) -> str:
    """"" for the plain algorithm (serial, omp, cuda, thrust, cublas and their variants): the
    row's declared algorithm, or for an older file's row the impl words in `tags`."""
    if row.declared_algorithm is not None:
        return row.declared_algorithm
    return "_".join(t for t in impl_tokens(row) if t in tags)


@dataclass(frozen=True)
class Comparison:
    """One marker of the speedup chart: a row against its like-for-like baseline."""

    workload: str
    algorithm: str
    kind: str               # a SPEEDUP_KINDS key
    size_key: tuple[str, ...]
    baseline: Row
    row: Row

    @property
    def speedup(self) -> float:
        return self.baseline.time_s / self.row.time_s

    @property
    def label(self) -> str:
        algorithm = f" [{self.algorithm}]" if self.algorithm else ""
        return f"{self.workload}{algorithm} {' '.join(self.size_key)}".strip()


def _comparison_sides(members: list[Row], kind: str) -> tuple[Row | None, Row | None]:
    """(baseline, contender) among rows of one problem and one algorithm."""
    if kind == "omp":
        serial = an.fastest([r for r in members if r.kind == "serial"])
        omp = an.fastest([r for r in members if r.kind == "omp"])
        # Both name what they do, differently (sync's serial_call, omp_fork_join): no speedup.
        if serial and omp and impl_tokens(serial) and impl_tokens(omp) and \
                impl_tokens(serial) != impl_tokens(omp):
            return None, None
        return serial, omp
    cpu = an.fastest([r for r in members if r.kind in an.CPU_CATEGORIES])
    gpu = [r for r in members if r.kind not in an.CPU_CATEGORIES]
    if kind == "e2e":
        return cpu, an.fastest([r for r in gpu if r.mode == "e2e"])
    return cpu, an.fastest([r for r in gpu if r.mode != "e2e"])


def speedup_comparisons(rows: list[Row]) -> list[Comparison]:
    """Per workload, algorithm and label args (dtype): GPU kernel vs best CPU, GPU e2e vs best
    CPU and omp vs serial, each at the largest size both of its sides were measured at."""
    by_workload: dict[str, list[Row]] = defaultdict(list)
    for row in an.usable(rows):
        tokens = impl_tokens(row)
        if tokens and set(tokens) <= REFERENCE_TOKENS:
            continue
        if row.kind is not None:  # a C++ row of a side: serial, OpenMP, a library, a GPU kernel
            by_workload[row.workload].append(row)
    out: list[Comparison] = []
    for workload in sorted(by_workload):
        members = by_workload[workload]
        tags = algorithm_tags(members)
        groups: dict[tuple, dict[tuple, list[Row]]] = defaultdict(lambda: defaultdict(list))
        for row in members:
            name = "_".join(p for p in (algorithm_by_tags(row, tags), precision_group(row)) if p)
            groups[(name, an.non_numeric_size(row))][row.size_key].append(row)
        for (algorithm, _labels), by_size in sorted(groups.items()):
            for kind in SPEEDUP_KINDS:
                best: tuple[float, Comparison] | None = None
                for size_key, problem in by_size.items():
                    baseline, contender = _comparison_sides(problem, kind.key)
                    if baseline is None or contender is None:
                        continue
                    scalar = an.size_scalar(problem[0]) or 0.0
                    if best is None or scalar > best[0]:
                        best = (scalar, Comparison(workload, algorithm, kind.key, size_key,
                                                   baseline, contender))
                if best:
                    out.append(best[1])
    return out
