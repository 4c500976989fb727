"""Google Benchmark JSON -> rows.

The suite writes one JSON per run (`--benchmark_out`). Every consumer in this
package goes through `load_run`, so the quirks of the format (aggregate rows,
suffixes added by Google Benchmark, counters as top-level keys, truncated
files from a crashed run) are dealt with here once.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path


from . import ceilings as ce

# Args that tune an implementation rather than define the problem: rows that
# differ only in these solve the same problem and can be compared.
TUNING_ARGS = frozenset({"block", "mode", "threads", "strategy", "streams", "chunk"})

# The first word of an impl names its family (cuda_tiled -> cuda).
FAMILIES = ("serial", "omp", "cuda", "thrust", "cublas", "openblas", "onednn")
GPU_FAMILIES = frozenset({"cuda", "thrust", "cublas"})
# CPU libraries (sgemm/openblas, sgemm/onednn_bf16): they run on every OpenMP thread, so they
# contend beside the omp rows, as cuBLAS and Thrust do beside the CUDA rows.
CPU_LIBRARY_FAMILIES = frozenset({"openblas", "onednn"})

# Precisions a row may name, in its `precision` text field or as a word of its impl
# (cublas_tf32, onednn_bf16, serial_fp32); a dtype arg names one too (dtypes/.../dtype:fp16).
PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "int8")

# Peers: the articles' Python code (peers/numba/) run beside the C++ with the same names and
# args. Their impl's first two words name the family (numba_cuda_shared -> numba_cuda,
# numba_cpu_serial -> numba_cpu). They are not C++, so no C++ pairing, best-of choice or
# crossover counts them (Row.pair_side, Row.kind); the report puts them beside
# the C++ in their own column, section and chart.
PEER_FAMILIES = ("numba_cuda", "numba_cpu")
PEER_GPU_FAMILIES = frozenset({"numba_cuda"})

# A row of a newer file has its description's fields (common/bench_spec.hpp); this one
# says that it has them all.
DESCRIPTION_FIELD = "algorithm"

# Workloads that only exist as GPU experiments; their impl is not a family
# (transfers/pinned, progress/vector_add).
GPU_ONLY_WORKLOADS = frozenset({"transfers", "streams", "progress"})

# Google Benchmark appends these to a name; they say how time was measured,
# not what was measured, so two runs must match without them.
_MEASUREMENT_SUFFIXES = ("manual_time", "real_time", "process_time")
_GB_RUN_OPTIONS = ("min_time:", "min_warmup_time:", "iterations:", "repeats:")

# Keys Google Benchmark writes for itself; every other numeric key is a counter.
_GB_KEYS = frozenset({
    "samples_s", "name", "family_index", "per_family_instance_index", "run_name", "run_type",
    "repetitions", "repetition_index", "iterations", "real_time", "cpu_time",
    "time_unit", "bytes_per_second", "items_per_second", "label",
    "error_occurred", "error_message", "skipped", "aggregate_name",
    "aggregate_unit", "big_o", "rms", "complexity",
})

_TIME_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}

# The label peers/numba/ gives each row (runner.label).
_PEER_LABEL = re.compile(r"numba peer of ([^/\s]+)/(\S+)")


class LoadError(Exception):
    """The file cannot be read as a benchmark run at all."""


@dataclass
class Row:
    """One benchmark: the representative measurement of its repetitions."""

    name: str
    workload: str
    impl: str
    family: str
    args: dict[str, str]
    size_key: tuple[str, ...]
    mode: str | None
    time_s: float | None
    cpu_time_s: float | None = None
    bytes_per_second: float | None = None
    items_per_second: float | None = None
    flop_per_s: float | None = None
    counters: dict[str, float] = field(default_factory=dict)
    error_message: str | None = None
    skipped: bool = False
    # How time_s was chosen: "median", "iteration", "median of iterations".
    aggregate: str = "iteration"
    repetitions: int = 1
    mean_s: float | None = None
    stddev_s: float | None = None
    cv: float | None = None
    samples_s: list[float] = field(default_factory=list)
    source: str = ""
    # Google Benchmark's free-text label; a Numba peer's names the C++ impl it mirrors.
    label: str = ""
    # Text fields twinbench adds beside the counters (common/row_fields.hpp): the benchmark's
    # description (workload, impl, algorithm, side, mode, precision: common/bench_spec.hpp),
    # `cpu_isa` (the ISA level or the library kernel that ran a CPU row), `device`, ...
    fields: dict[str, str] = field(default_factory=dict)

    # The row's classification, decided once here (classify) and only read elsewhere:
    is_gpu: bool = field(init=False, default=False)
    # The speedup chart's bar: serial, omp, "cpu library", "cuda kernel", "cuda e2e", thrust,
    # cublas; None for rows of none (transfers, peers, host API costs).
    kind: str | None = field(init=False, default=None)
    # The side a row is paired on: serial, omp (the CPU libraries too), gpu (kernel alone) or
    # e2e; None for a Numba peer (not C++) and rows of no side.
    pair_side: str | None = field(init=False, default=None)
    # The measured set of limits the row is held to: gpu, cpu_all (OpenMP's threads and the
    # CPU libraries) or cpu_one (one thread).
    limit_side: str | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        classify(self)

    @property
    def measured(self) -> bool:
        """The row has a time (the source line's count of measured rows)."""
        return not self.skipped and self.time_s is not None

    @property
    def usable(self) -> bool:
        """A row every figure may use: measured, with a time above zero."""
        return self.measured and self.time_s > 0

    @property
    def described(self) -> bool:
        """The row carries its description's fields (files that have them): pairing reads
        them; older files' rows fall back to the words of their names."""
        return DESCRIPTION_FIELD in self.fields

    @property
    def declared_algorithm(self) -> str | None:
        """The algorithm the benchmark declared ("" the workload's plain one); None for a row
        of an older file (summary.algorithms infers it from the impl names)."""
        return self.fields.get("algorithm", "") if self.described else None

    @property
    def is_peer(self) -> bool:
        """A row of the articles' Numba code (numba_cuda*, numba_cpu*), not of the C++."""
        return self.family in PEER_FAMILIES

    @property
    def mirrors(self) -> str | None:
        """The C++ impl a Numba row is the peer of, from its label ("numba peer of
        sgemm/cuda_tiled" -> cuda_tiled); None for C++ rows and unlabelled ones."""
        match = _PEER_LABEL.fullmatch(self.label.strip()) if self.is_peer else None
        return match.group(2) if match and match.group(1) == self.workload else None

    @property
    def size_label(self) -> str:
        return " ".join(self.size_key) if self.size_key else "(no size args)"

    @property
    def tuning_label(self) -> str:
        parts = [f"{k}:{v}" for k, v in self.args.items() if k in TUNING_ARGS]
        return " ".join(parts)

    def counter(self, key: str) -> float | None:
        return self.counters.get(key)

    @property
    def is_cpu_library(self) -> bool:
        return self.family in CPU_LIBRARY_FAMILIES

    @property
    def cpu_isa(self) -> str:
        """"avx512", "openblas SkylakeX", ... ("" where the row does not say: GPU rows, old
        files)."""
        return self.fields.get("cpu_isa", "")

    @property
    def impl_precision(self) -> str | None:
        """A precision word of the impl name: cublas_tf32 -> tf32, serial_fp32 -> fp32."""
        for word in self.impl.split("_")[1:]:
            if word in PRECISIONS:
                return word
        return None

    @property
    def pairing_precision(self) -> str:
        """The precision a row is compared within: "" for FP32 and rows that name none (the
        workload's own), else the one its field or impl word names (tf32, bf16). A dtype arg is
        left out: it is part of the size, so every row of the problem shares it already."""
        named = self.fields.get("precision", "").strip().lower()
        if not self.described:
            named = named or self.impl_precision
        return "" if named in (None, "", "fp32") else named

    @property
    def precision(self) -> str | None:
        """The arithmetic the row computes in: its `precision` field, else a precision word of
        its impl (cublas_tf32 -> tf32), else its dtype arg; None when nothing says (old files'
        plain rows: the workload's own precision)."""
        named = self.fields.get("precision", "").strip().lower()
        if named:
            return named
        if self.impl_precision:
            return self.impl_precision
        dtype = self.args.get("dtype", "").lower()
        return {"float32": "fp32", "float64": "fp64", "float16": "fp16"}.get(dtype, dtype) \
            if dtype else None


@dataclass
class Run:
    """A loaded file: its context, its rows, and what was odd about it."""

    path: str
    context: dict
    rows: list[Row]
    # Human-readable notes about incomplete data (truncated file, ...).
    problems: list[str] = field(default_factory=list)

    @property
    def partial(self) -> bool:
        return bool(self.problems)

    @property
    def ok_rows(self) -> list[Row]:
        return [r for r in self.rows if r.measured]

    @property
    def skipped_rows(self) -> list[Row]:
        return [r for r in self.rows if r.skipped]


# ---------------------------------------------------------------- names

def strip_gb_suffixes(name: str) -> str:
    parts = name.split("/")
    while parts and (parts[-1] in _MEASUREMENT_SUFFIXES
                     or parts[-1].startswith(_GB_RUN_OPTIONS)):
        parts.pop()
    return "/".join(parts)


def family_of(impl: str) -> str:
    for peer in PEER_FAMILIES:
        if impl == peer or impl.startswith(peer + "_"):
            return peer
    head = impl.split("_", 1)[0]
    return head if head in FAMILIES else "other"


def classify(row: Row) -> None:
    """Side, kind, pairing side and limit set of a row, from its typed fields: the `side` the
    run wrote (common/bench_spec.hpp), its impl's family and its mode; a row of an older file,
    without `side`, takes its side from its family (and the GPU-only workloads)."""
    family = row.family
    if family in PEER_FAMILIES:
        row.is_gpu = family in PEER_GPU_FAMILIES
    elif DESCRIPTION_FIELD in row.fields and row.fields.get("side"):
        row.is_gpu = row.fields["side"] == "gpu"
    else:
        row.is_gpu = family in GPU_FAMILIES or row.workload in GPU_ONLY_WORKLOADS
    e2e = row.mode == "e2e"
    if family in ("serial", "omp"):
        row.kind = row.pair_side = family
    elif family in CPU_LIBRARY_FAMILIES:
        row.kind, row.pair_side = "cpu library", "omp"
    elif family == "cuda":
        row.kind = "cuda e2e" if e2e else "cuda kernel"
    elif family in ("thrust", "cublas"):
        row.kind = family
    if row.pair_side is None and row.is_gpu and family not in PEER_FAMILIES:
        row.pair_side = "e2e" if e2e else "gpu"
    row.limit_side = ("gpu" if row.is_gpu else "cpu_all" if row.pair_side == "omp"
                      else "cpu_one" if family == "serial" else None)


def usable(rows: list[Row]) -> list[Row]:
    return [r for r in rows if r.usable]


def parse_name(name: str) -> tuple[str, str, dict[str, str]]:
    """`workload/impl/k:v/...` -> (workload, impl, args).

    Positional args without a key (plain Google Benchmark `->Arg(n)`) are kept
    as arg0, arg1... so nothing is silently dropped.
    """
    parts = strip_gb_suffixes(name).split("/")
    workload = parts[0]
    rest = parts[1:]
    impl = ""
    if rest and ":" not in rest[0]:
        impl = rest.pop(0)
    args: dict[str, str] = {}
    for i, part in enumerate(rest):
        key, sep, value = part.partition(":")
        if sep:
            args[key] = value
        else:
            args[f"arg{i}"] = part
    return workload, impl, args


def size_key_of(args: dict[str, str]) -> tuple[str, ...]:
    return tuple(f"{k}:{v}" for k, v in args.items() if k not in TUNING_ARGS)


# ---------------------------------------------------------------- reading

def _salvage_truncated(text: str) -> tuple[dict, list] | None:
    """Recover context and complete entries from a file cut off mid-write.

    A crashed or killed run leaves `--benchmark_out` without its closing
    brackets; the entries written before the crash are still worth showing.
    """
    decoder = json.JSONDecoder()
    ctx_at = text.find('"context"')
    bench_at = text.find('"benchmarks"')
    if bench_at < 0:
        return None
    context: dict = {}
    if 0 <= ctx_at < bench_at:
        start = text.find("{", ctx_at)
        try:
            context, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            context = {}
    pos = text.find("[", bench_at)
    if pos < 0:
        return None
    pos += 1
    entries = []
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] != "{":
            break
        try:
            entry, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            break
        entries.append(entry)
    return context, entries


def read_text(path: str | Path) -> str:
    """A results file's text; a name ending in .gz is gzip-compressed (the committed runs)."""
    path = Path(path)
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
            return f.read()
    return path.read_text(encoding="utf-8", errors="replace")


def read_json(path: str | Path) -> tuple[dict, list, list[str]]:
    """Return (context, raw entries, problems); raise LoadError if unusable."""
    path = Path(path)
    try:
        text = read_text(path)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise LoadError(f"{path}: cannot read file ({getattr(exc, 'strerror', None) or exc})") \
            from exc
    problems: list[str] = []
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        salvaged = _salvage_truncated(text) if text.lstrip().startswith("{") else None
        if salvaged is None:
            raise LoadError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from exc
        context, entries = salvaged
        problems.append(
            f"the file ends early (run interrupted?); {len(entries)} complete "
            "benchmark entries were recovered")
        return context, entries, problems
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        raise LoadError(
            f'{path}: no "benchmarks" list; expected Google Benchmark JSON '
            "(--benchmark_format=json or --benchmark_out)")
    context = doc.get("context") if isinstance(doc.get("context"), dict) else {}
    entries = [e for e in doc["benchmarks"]
               if isinstance(e, dict) and isinstance(e.get("name"), str)]
    if len(entries) < len(doc["benchmarks"]):
        problems.append(f"{len(doc['benchmarks']) - len(entries)} entries without a string "
                        "name were left out")
    return context, entries, problems


# ---------------------------------------------------------------- entries -> rows

def _seconds(entry: dict, key: str) -> float | None:
    value = entry.get(key)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    return float(value) * _TIME_UNIT_SECONDS.get(entry.get("time_unit", "ns"), 1e-9)


def _number(entry: dict, key: str) -> float | None:
    value = entry.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _counters(entry: dict) -> dict[str, float]:
    counters = {k: float(v) for k, v in entry.items()
                if k not in _GB_KEYS and isinstance(v, (int, float)) and not isinstance(v, bool)}
    # Google Benchmark writes its own "threads": 1 on every entry; our OpenMP
    # counter of the same name replaces it, so a lone 1 says nothing.
    if counters.get("threads") == 1.0 and "/threads:" not in entry.get("name", ""):
        del counters["threads"]
    return counters


# Text keys of an entry that are Google Benchmark's own, not twinbench's row fields.
_GB_TEXT_KEYS = frozenset({"name", "run_name", "run_type", "time_unit", "label",
                           "error_message", "aggregate_name", "aggregate_unit", "big_o"})


def _fields(entry: dict) -> dict[str, str]:
    return {k: v for k, v in entry.items() if isinstance(v, str) and k not in _GB_TEXT_KEYS}


def _is_error(entry: dict) -> bool:
    # Older Google Benchmark writes error_occurred, newer writes skipped.
    return bool(entry.get("error_occurred")) or bool(entry.get("skipped"))


def base_name(entry: dict) -> str:
    if entry.get("run_name"):
        return entry["run_name"]
    name = entry["name"]
    agg = entry.get("aggregate_name")
    if entry.get("run_type") == "aggregate" and agg and name.endswith("_" + agg):
        name = name[: -len(agg) - 1]
    return name


def _mode_of(fields: dict[str, str], args: dict[str, str]) -> str | None:
    """kernel or e2e for a GPU kernel row: its declared mode, or for a row of an older file the
    name's mode arg; None for rows without one."""
    if DESCRIPTION_FIELD in fields:
        return fields.get("mode") or None
    return args.get("mode")


def _median_entry(entries: list[dict]) -> dict:
    ordered = sorted(entries, key=lambda e: _seconds(e, "real_time") or 0.0)
    return ordered[(len(ordered) - 1) // 2]


def _build_row(base: str, group: list[dict], source: str) -> tuple[Row, str | None]:
    """Collapse all entries of one benchmark into a Row (+ optional problem)."""
    iterations = [e for e in group if e.get("run_type", "iteration") != "aggregate"]
    aggregates = {e.get("aggregate_name"): e for e in group if e.get("run_type") == "aggregate"}
    errors = [e for e in group if _is_error(e)]

    if "median" in aggregates:
        chosen, how = aggregates["median"], "median"
    elif len(iterations) > 1:
        chosen, how = _median_entry(iterations), "median of iterations"
    elif iterations:
        chosen, how = iterations[0], "iteration"
    elif "mean" in aggregates:
        chosen, how = aggregates["mean"], "mean"
    else:
        # Only stddev/cv survived: no usable time, but keep the row visible.
        chosen, how = next(iter(aggregates.values())), "none"

    name = strip_gb_suffixes(base)
    workload, impl, args = parse_name(name)
    fields = _fields(chosen) or _fields(group[0])
    samples = _samples_of(iterations)
    repetitions = int(chosen.get("repetitions") or max(len(iterations), 1))

    row = Row(
        name=name, workload=workload, impl=impl, family=family_of(impl), args=args,
        size_key=size_key_of(args), mode=_mode_of(fields, args),
        time_s=_seconds(chosen, "real_time"), cpu_time_s=_seconds(chosen, "cpu_time"),
        bytes_per_second=_number(chosen, "bytes_per_second"),
        items_per_second=_number(chosen, "items_per_second"),
        flop_per_s=_number(chosen, "flop_per_s"),
        counters=_counters(chosen), aggregate=how, repetitions=repetitions,
        samples_s=samples, source=source,
        label=chosen.get("label") if isinstance(chosen.get("label"), str) else "",
        fields=fields,
    )
    _attach_spread(row, aggregates, samples)
    if how == "none":
        row.time_s = None
    if errors:
        row.skipped = True
        row.error_message = errors[0].get("error_message") or "error (no message)"
        row.time_s = None

    problem = None
    if not errors and not aggregates and 1 < repetitions and len(iterations) < repetitions:
        problem = f"{name}: {len(iterations)} of {repetitions} repetitions present"
    return row, problem


def _numbers(lists: list[list]) -> list[float]:
    """The numbers of the lists, one list: numpy converts a run's 1.1 million samples in a tenth
    of the time of a loop; the loop where numpy is missing (the package's ncu and loader run on
    a GPU machine's plain python3: scripts/gpu-profile.sh) or a value is no number."""
    try:
        import numpy as np

        return np.concatenate([np.asarray(x, dtype=float) for x in lists]).tolist() \
            if lists else []
    except (ImportError, TypeError, ValueError):
        return [float(x) for x in lists for x in x if isinstance(x, (int, float))
                and not isinstance(x, bool)]


def _samples_of(iterations: list[dict]) -> list[float]:
    """The measured samples: those the suite's stopping rule took (`samples_s`,
    seconds, one list per repetition), else one per Google Benchmark iteration."""
    kept = _numbers([e.get("samples_s") or [] for e in iterations if not _is_error(e)])
    if kept:
        return kept
    return [s for s in (_seconds(e, "real_time") for e in iterations if not _is_error(e))
            if s is not None]


def _mean_stdev(samples: list[float]) -> tuple[float, float]:
    """Mean and sample standard deviation in floats: statistics.stdev's exact fractions took
    1.55 s of the 784 rows' load, numpy 0.05 s, math.fsum 0.15 s (where numpy is missing)."""
    try:
        import numpy as np
    except ImportError:
        mean = math.fsum(samples) / len(samples)
        return mean, math.sqrt(math.fsum((x - mean) ** 2 for x in samples) / (len(samples) - 1))
    values = np.asarray(samples)
    return float(values.mean()), float(values.std(ddof=1))


def _attach_spread(row: Row, aggregates: dict, samples: list[float]) -> None:
    if "mean" in aggregates:
        row.mean_s = _seconds(aggregates["mean"], "real_time")
    if "stddev" in aggregates:
        row.stddev_s = _seconds(aggregates["stddev"], "real_time")
    if "cv" in aggregates:
        # cv is a ratio; Google Benchmark stores it in the time fields unscaled.
        row.cv = _number(aggregates["cv"], "real_time")
    if len(samples) >= 2 and (row.mean_s is None or row.stddev_s is None):
        mean, stdev = _mean_stdev(samples)
        row.mean_s = row.mean_s if row.mean_s is not None else mean
        row.stddev_s = row.stddev_s if row.stddev_s is not None else stdev
    if row.cv is None and row.mean_s and row.stddev_s is not None:
        row.cv = row.stddev_s / row.mean_s


def rows_from_entries(entries: list[dict], source: str = "") -> tuple[list[Row], list[str]]:
    groups: dict[str, list[dict]] = {}
    for entry in entries:
        groups.setdefault(base_name(entry), []).append(entry)
    rows, problems = [], []
    for base, group in groups.items():
        row, problem = _build_row(base, group, source)
        rows.append(row)
        if problem:
            problems.append(problem)
    return rows, problems


def completeness_problem(context: dict, rows: list[Row]) -> str | None:
    """twinbench marks a run that finished with `run_complete` (and says how many
    benchmarks it planned at the start): without the mark it was cut short."""
    if "benchmarks_planned" not in context or context.get("run_complete") in (True, "true"):
        return None
    by = context.get("interrupted_by")
    try:
        planned = int(context["benchmarks_planned"])
    except (TypeError, ValueError):
        planned = None
    measured = sum(1 for r in rows if not r.skipped and r.time_s is not None)
    of = f" of {planned}" if planned is not None else ""
    cause = f" by {by}" if by else ""
    return f"the run was cut short{cause}: {measured}{of} benchmarks measured"


def load_run(path: str | Path) -> Run:
    """Load one Google Benchmark JSON file. Raises LoadError when unusable."""
    context, entries, problems = read_json(path)
    rows, row_problems = rows_from_entries(entries, source=str(path))
    links = ce.pinned_links(rows)
    for row in rows:  # a file from before the run wrote each row's limit
        ce.derive_limit(row, context, links)
    cut = completeness_problem(context, rows)
    return Run(path=str(path), context=context, rows=rows,
               problems=([cut] if cut else []) + problems + row_problems)


def merge_runs(runs: list[Run]) -> Run:
    """Several files rendered as one report; a later file wins on equal names."""
    if len(runs) == 1:
        return runs[0]
    by_name: dict[str, Row] = {}
    problems: list[str] = []
    for run in runs:
        problems += [f"{run.path}: {p}" for p in run.problems]
        for row in run.rows:
            by_name[row.name] = row
    context = dict(runs[0].context)
    for run in runs[1:]:
        for key, value in run.context.items():
            context.setdefault(key, value)
    return Run(path=", ".join(r.path for r in runs), context=context,
               rows=list(by_name.values()), problems=problems)
