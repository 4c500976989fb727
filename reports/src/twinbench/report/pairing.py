"""Which rows the reports compare with which: the one place rows are paired.

Three views of one rule, like for like (the same algorithm and the same precision):
like_for_like (the summary table, the headline), per problem the fastest row of each side;
cpu_gpu_pairs ("best vs best"), per problem and precision the fastest CPU row against the fastest
GPU kernel of any algorithm; speedup_comparisons (the speedup chart), per workload, algorithm and
label args, at the largest size both sides were measured at.

The algorithm is the `algorithm` field each benchmark declares (common/bench_spec.hpp; "" the
plain one). Rows of older files have no such field; for them an impl is <family>_<words> and a
word names an algorithm when at least two families of the workload use it (serial_recursive +
cuda_recursive; omp_article + cuda_article); every other impl (cuda_tiled, thrust, cublas_tf32,
serial_fp32) implements the plain algorithm, and the fastest of them stands for its family. An
impl with the word "copy" (transpose's cuda_copy) measures the ceiling the others are held to
and is no contender. The articles' Numba code is no side of any pairing (its own column).

Rows pair only within one precision (Row.pairing_precision): a row that names none is the
workload's own and meets the fp32 rows, cublas_bf16 meets onednn_bf16, and cublas_tf32 meets no
CPU row unless one computes in TF32. The CPU libraries run on every thread: they contend on the
OpenMP side, as cuBLAS does on the GPU kernel side.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from operator import attrgetter

from . import analysis as an
from .loader import PEER_FAMILIES, PRECISIONS, Row, family_of

PLAIN = DEFAULT_PRECISION = ""
REFERENCE_WORDS = REFERENCE_TOKENS = frozenset({"copy"})
CPU_FAMILIES = ("serial", "omp")


def impl_words(impl: str) -> tuple[str, ...]:
    """cuda_aos_vec -> (aos, vec); serial, an experiment's impl (pinned) -> (); precision words
    left out (cublas_tf32 -> ())."""
    family = family_of(impl)
    if family != "other" and impl.startswith(family + "_"):
        return tuple(w for w in impl[len(family) + 1:].split("_") if w and w not in PRECISIONS)
    return ()


def impl_tokens(row: Row) -> tuple[str, ...]:
    return impl_words(row.impl)


# The precision a row pairs within (Row.pairing_precision), by the summary's and the chart's names.
precision_class = precision_group = attrgetter("pairing_precision")


def shared_words(impls) -> frozenset[str]:
    """The impl words two or more C++ families of a workload use: the words that name an
    algorithm (lucas: recursive, iterative; poisson: article; aos_soa: aos, soa)."""
    families: dict[str, set[str]] = defaultdict(set)
    for impl in impls:
        if family_of(impl) not in PEER_FAMILIES:
            for word in impl_words(impl):
                families[word].add(family_of(impl))
    return frozenset(w for w, f in families.items() if len(f) >= 2)


def algorithm_tags(rows: list[Row]) -> frozenset[str]:
    return shared_words(r.impl for r in rows)


def algorithm_by_tags(row: Row, tags: frozenset[str]) -> str:
    """The row's declared algorithm, or for an older file's row its impl words in `tags`."""
    if row.declared_algorithm is not None:
        return row.declared_algorithm
    return "_".join(t for t in impl_words(row.impl) if t in tags)


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


# ----------------------------------------------------------------- like for like

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
    best = an.fastest_by(rows, lambda r: None if is_reference(r) else r.pair_side)
    return Contenders(algorithm, *(best.get(s) for s in ("serial", "omp", "gpu", "e2e")),
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
        groups[(algorithm_of(row, names), row.pairing_precision)].append(row)
    return {group_key(*key): fastest_per_side(members, *key) for key, members in groups.items()}


def headline(groups: dict) -> Contenders:
    """The algorithm a workload's summary row shows, of the workload's own precision where it
    has one: of those measured on both sides, the one with the fastest GPU kernel; else the one
    with the fastest CPU row; else the fastest GPU."""
    groups = [c for c in groups.values() if c.precision == DEFAULT_PRECISION] \
        or list(groups.values())
    for measured, key in ((lambda c: c.cpu and c.gpu, lambda c: c.gpu.time_s),
                          (lambda c: c.cpu, lambda c: c.cpu.time_s),
                          (lambda c: c.gpu or c.e2e, lambda c: (c.gpu or c.e2e).time_s)):
        candidates = [c for c in groups if measured(c)]
        if candidates:
            return min(candidates, key=key)
    return groups[0]


def other_precisions(groups: dict, shown: Contenders) -> list[Contenders]:
    """Per precision other than the headline's, its group measured on both sides with the
    fastest GPU (sgemm's onednn_bf16 against cublas_bf16), fastest first."""
    best: dict[str, Contenders] = {}
    for c in sorted((c for c in groups.values() if c.precision != shown.precision
                     and c.cpu and c.gpu), key=lambda c: c.gpu.time_s):
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
    return (first.workload, an.non_numeric_size(first), an.size_scalar(first) or 0.0,
            first.size_key)


def cpu_gpu_pairs(rows: list[Row]) -> list[CpuGpuPair]:
    """Per (workload, size) with both sides measured: best CPU vs best GPU kernel of the same
    precision (a TF32 cuBLAS row meets no FP32 CPU row)."""
    pairs = []
    groups = an.group_by_problem(an.usable(rows))
    for key in sorted(groups, key=lambda k: problem_order(groups[k])):
        for precision in sorted({r.pairing_precision for r in groups[key]}):
            best = an.best_by_category([r for r in groups[key]
                                        if r.pairing_precision == precision])
            cpu = an.fastest([best[c] for c in an.CPU_CATEGORIES if c in best])
            gpu = an.fastest([best[c] for c in an.GPU_KERNEL_CATEGORIES if c in best])
            if cpu and gpu:
                pairs.append(CpuGpuPair(key[0], key[1], cpu, gpu, best.get("cuda e2e")))
    return pairs


# ----------------------------------------------------------------- the speedup chart

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
        words = (impl_words(serial.impl), impl_words(omp.impl)) if serial and omp else ((), ())
        # Both name what they do, differently (sync's serial_call, omp_fork_join): no speedup.
        return (None, None) if all(words) and words[0] != words[1] else (serial, omp)
    cpu = an.fastest([r for r in members if r.kind in an.CPU_CATEGORIES])
    gpu = [r for r in members if r.kind not in an.CPU_CATEGORIES
           and (r.mode == "e2e") == (kind == "e2e")]
    return cpu, an.fastest(gpu)


def speedup_comparisons(rows: list[Row]) -> list[Comparison]:
    """Per workload, algorithm and label args (dtype): GPU kernel vs best CPU, GPU e2e vs best
    CPU and omp vs serial, each at the largest size both of its sides were measured at."""
    by_workload: dict[str, list[Row]] = defaultdict(list)
    for row in an.usable(rows):
        words = impl_words(row.impl)
        # A C++ row of a side (serial, OpenMP, a library, a GPU kernel) that is no reference.
        if row.kind is not None and not (words and set(words) <= REFERENCE_WORDS):
            by_workload[row.workload].append(row)
    out: list[Comparison] = []
    for workload in sorted(by_workload):
        members = by_workload[workload]
        tags = algorithm_tags(members)
        groups: dict[tuple, dict[tuple, list[Row]]] = defaultdict(lambda: defaultdict(list))
        for row in members:
            name = "_".join(p for p in (algorithm_by_tags(row, tags), row.pairing_precision) if p)
            groups[(name, an.non_numeric_size(row))][row.size_key].append(row)
        for (algorithm, _labels), by_size in sorted(groups.items()):
            for kind in SPEEDUP_KINDS:
                found = [(an.size_scalar(problem[0]) or 0.0, size_key,
                          _comparison_sides(problem, kind.key))
                         for size_key, problem in by_size.items()]
                found = [f for f in found if None not in f[2]]
                if found:  # the largest size, the first of equal ones
                    _, size_key, sides = max(found, key=lambda f: f[0])
                    out.append(Comparison(workload, algorithm, kind.key, size_key, *sides))
    return out
