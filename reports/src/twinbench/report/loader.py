"""Google Benchmark JSON -> rows. Every consumer goes through `load_run`, so the format's quirks
(aggregate rows, suffixes Google Benchmark adds, counters as top-level keys, a file cut off by a
crashed run) are dealt with here once."""

from __future__ import annotations

import gzip
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import ceilings as ce

# Args that tune an implementation rather than define the problem: rows that differ only in
# these solve the same problem and can be compared.
TUNING_ARGS = frozenset({"block", "mode", "threads", "strategy", "streams", "chunk"})

# The first word of an impl names its family (cuda_tiled -> cuda). The CPU libraries run on every
# OpenMP thread, so they contend beside the omp rows, as cuBLAS and Thrust beside the CUDA rows.
FAMILIES = ("serial", "omp", "cuda", "thrust", "cublas", "openblas", "onednn")
GPU_FAMILIES = frozenset({"cuda", "thrust", "cublas"})
CPU_LIBRARY_FAMILIES = frozenset({"openblas", "onednn"})

# Precisions a row may name: its `precision` field, a word of its impl (cublas_tf32,
# serial_fp32), or its dtype arg (dtypes/.../dtype:fp16).
PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "int8")
_DTYPES = {"float32": "fp32", "float64": "fp64", "float16": "fp16"}

# The articles' Python code (peers/numba/), run beside the C++ with the same names and args; the
# impl's first two words name the family (numba_cuda_shared -> numba_cuda). Not C++: no pairing,
# best-of choice or crossover counts them; the report gives them their own column and section.
PEER_FAMILIES = ("numba_cuda", "numba_cpu")
PEER_GPU_FAMILIES = frozenset({"numba_cuda"})

# A row of a newer file has its description's fields (common/bench_spec.hpp), this one among them.
DESCRIPTION_FIELD = "algorithm"

# Workloads that only exist as GPU experiments; their impl is no family (transfers/pinned).
GPU_ONLY_WORKLOADS = frozenset({"transfers", "streams", "progress"})

# A family's bar of the speedup chart (cuda: "cuda kernel" or "cuda e2e") and its pairing side.
_KINDS = {"serial": "serial", "omp": "omp", "openblas": "cpu library",
          "onednn": "cpu library", "thrust": "thrust", "cublas": "cublas"}
_CPU_PAIR_SIDES = {"serial": "serial", "omp": "omp", "openblas": "omp", "onednn": "omp"}

# Google Benchmark appends these to a name; they say how time was measured, not what was
# measured, so two runs must match without them.
_MEASUREMENT_SUFFIXES = ("manual_time", "real_time", "process_time")
_GB_RUN_OPTIONS = ("min_time:", "min_warmup_time:", "iterations:", "repeats:")

# Keys Google Benchmark writes for itself; every other numeric key is a counter, every other
# text key one of twinbench's row fields.
_GB_KEYS = frozenset({
    "samples_s", "name", "family_index", "per_family_instance_index", "run_name", "run_type",
    "repetitions", "repetition_index", "iterations", "real_time", "cpu_time",
    "time_unit", "bytes_per_second", "items_per_second", "label",
    "error_occurred", "error_message", "skipped", "aggregate_name",
    "aggregate_unit", "big_o", "rms", "complexity",
})
_GB_TEXT_KEYS = frozenset({"name", "run_name", "run_type", "time_unit", "label",
                           "error_message", "aggregate_name", "aggregate_unit", "big_o"})

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
    # Text fields twinbench writes beside the counters (common/row_fields.hpp): the description
    # (workload, impl, algorithm, side, mode, precision), cpu_isa, device, the row's limit ...
    fields: dict[str, str] = field(default_factory=dict)
    # The row's `axes` object as the run wrote it (name -> value); None in an older file.
    axes: dict | None = None

    # The row's classification, decided once (classify) and only read elsewhere: its side; its
    # bar of the speedup chart (serial, omp, "cpu library", "cuda kernel", "cuda e2e", thrust,
    # cublas; None for transfers, peers, host API costs); the side it is paired on (serial, omp,
    # gpu for the kernel alone, e2e; None for peers); the measured limits it is held to (gpu,
    # cpu_all for OpenMP and the CPU libraries, cpu_one for one thread).
    is_gpu: bool = field(init=False, default=False)
    kind: str | None = field(init=False, default=None)
    pair_side: str | None = field(init=False, default=None)
    limit_side: str | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        classify(self)

    @property
    def measured(self) -> bool:
        return not self.skipped and self.time_s is not None

    @property
    def usable(self) -> bool:
        """Measured, with a time above zero: a row every figure may use."""
        return self.measured and self.time_s > 0

    @property
    def described(self) -> bool:
        """The row carries its description's fields; older files' rows have only their names."""
        return DESCRIPTION_FIELD in self.fields or self.typed

    @property
    def typed(self) -> bool:
        """Its workload, impl and axes came from the row's fields (`axes`), not its name."""
        return self.axes is not None

    @property
    def declared_algorithm(self) -> str | None:
        """The algorithm the benchmark declared ("" the plain one); None for an older file's."""
        return self.fields.get("algorithm", "") if self.described else None

    @property
    def is_peer(self) -> bool:
        return self.family in PEER_FAMILIES

    @property
    def mirrors(self) -> str | None:
        """The C++ impl a Numba row is the peer of ("numba peer of sgemm/cuda_tiled" ->
        cuda_tiled); None for C++ rows and unlabelled ones."""
        match = _PEER_LABEL.fullmatch(self.label.strip()) if self.is_peer else None
        return match.group(2) if match and match.group(1) == self.workload else None

    @property
    def size_label(self) -> str:
        return " ".join(self.size_key) if self.size_key else "(no size args)"

    @property
    def tuning_label(self) -> str:
        return " ".join(f"{k}:{v}" for k, v in self.args.items() if k in TUNING_ARGS)

    def counter(self, key: str) -> float | None:
        return self.counters.get(key)

    @property
    def is_cpu_library(self) -> bool:
        return self.family in CPU_LIBRARY_FAMILIES

    @property
    def cpu_isa(self) -> str:
        """"avx512", "openblas SkylakeX", ...; "" where the row does not say."""
        return self.fields.get("cpu_isa", "")

    @property
    def impl_precision(self) -> str | None:
        """A precision word of the impl: cublas_tf32 -> tf32."""
        return next((w for w in self.impl.split("_")[1:] if w in PRECISIONS), None)

    @property
    def pairing_precision(self) -> str:
        """The precision a row is compared within: "" for FP32 and rows that name none, else
        its field's (an older file's row: its impl word's). The dtype arg is part of the size."""
        named = self.fields.get("precision", "").strip().lower() or (
            None if self.described else self.impl_precision)
        return "" if named in (None, "fp32") else named

    @property
    def precision(self) -> str | None:
        """The arithmetic the row computes in: its field, its impl word, else its dtype arg;
        None when nothing says (the workload's own)."""
        dtype = self.args.get("dtype", "").lower()
        return (self.fields.get("precision", "").strip().lower() or self.impl_precision
                or _DTYPES.get(dtype, dtype) or None)


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
    peer = next((p for p in PEER_FAMILIES if impl == p or impl.startswith(p + "_")), None)
    head = impl.split("_", 1)[0]
    return peer or (head if head in FAMILIES else "other")


def classify(row: Row) -> None:
    """The one place a row's side, kind, pairing side and limit set are decided: the `side` the
    run wrote (common/bench_spec.hpp), its impl's family and its mode; a row of an older file,
    without `side`, takes its side from its family (and the GPU-only workloads)."""
    family, e2e = row.family, row.mode == "e2e"
    if family in PEER_FAMILIES:
        row.is_gpu = family in PEER_GPU_FAMILIES
    elif row.described and row.fields.get("side"):
        row.is_gpu = row.fields["side"] == "gpu"
    else:
        row.is_gpu = family in GPU_FAMILIES or row.workload in GPU_ONLY_WORKLOADS
    row.kind = ("cuda e2e" if e2e else "cuda kernel") if family == "cuda" else _KINDS.get(family)
    if family not in PEER_FAMILIES:
        row.pair_side = _CPU_PAIR_SIDES.get(family) or (
            ("e2e" if e2e else "gpu") if row.is_gpu else None)
    row.limit_side = ("gpu" if row.is_gpu else "cpu_all" if row.pair_side == "omp"
                      else "cpu_one" if family == "serial" else None)


def usable(rows: list[Row]) -> list[Row]:
    return [r for r in rows if r.usable]


def _axis_text(value) -> str:
    """An axis value as a name writes it: integers as digits, names as they are."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def typed_description(entry: dict) -> tuple[str, str, dict[str, str]] | None:
    """(workload, impl, args) from the fields a newer run writes in each row: `workload`, `impl`
    and `axes` (the axes with their values); None for a file written before, whose rows say these
    only in their names. The JSON object's keys come sorted (nlohmann::json keeps an object as a
    std::map), so the axes are put in the order the benchmark declared them, which its name keeps
    (conv2d's image before its filter: the size labels and keys read as in older files); axes the
    name lacks follow in their own order."""
    axes, workload, impl = entry.get("axes"), entry.get("workload"), entry.get("impl")
    if not (isinstance(axes, dict) and isinstance(workload, str) and isinstance(impl, str)):
        return None
    declared = [part.partition(":")[0] for part in str(entry.get("name", "")).split("/")
                if ":" in part]
    order = {key: i for i, key in enumerate(declared)}
    keys = sorted(axes, key=lambda k: order.get(str(k), len(order)))
    return workload, impl, {str(k): _axis_text(axes[k]) for k in keys}


def parse_name(name: str) -> tuple[str, str, dict[str, str]]:
    """`workload/impl/k:v/...` -> (workload, impl, args); positional args without a key (plain
    `->Arg(n)`) are kept as arg0, arg1..., so nothing is silently dropped."""
    workload, *rest = strip_gb_suffixes(name).split("/")
    impl = rest.pop(0) if rest and ":" not in rest[0] else ""
    args: dict[str, str] = {}
    for i, part in enumerate(rest):
        key, sep, value = part.partition(":")
        args[key if sep else f"arg{i}"] = value if sep else part
    return workload, impl, args


def size_key_of(args: dict[str, str]) -> tuple[str, ...]:
    return tuple(f"{k}:{v}" for k, v in args.items() if k not in TUNING_ARGS)


# ---------------------------------------------------------------- reading

def _salvage_truncated(text: str) -> tuple[dict, list] | None:
    """The context and the complete entries of a file a crashed or killed run left without its
    closing brackets."""
    decoder = json.JSONDecoder()
    ctx_at, bench_at = text.find('"context"'), text.find('"benchmarks"')
    pos = text.find("[", bench_at) if bench_at >= 0 else -1
    if pos < 0:
        return None
    context: dict = {}
    if 0 <= ctx_at < bench_at:
        try:
            context = decoder.raw_decode(text, text.find("{", ctx_at))[0]
        except json.JSONDecodeError:
            pass
    entries = []
    pos += 1
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] != "{":
            return context, entries
        try:
            entry, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            return context, entries
        entries.append(entry)


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
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        salvaged = _salvage_truncated(text) if text.lstrip().startswith("{") else None
        if salvaged is None:
            raise LoadError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from exc
        return (*salvaged, [f"the file ends early (run interrupted?); {len(salvaged[1])} "
                            "complete benchmark entries were recovered"])
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        raise LoadError(
            f'{path}: no "benchmarks" list; expected Google Benchmark JSON '
            "(--benchmark_format=json or --benchmark_out)")
    context = doc.get("context") if isinstance(doc.get("context"), dict) else {}
    entries = [e for e in doc["benchmarks"]
               if isinstance(e, dict) and isinstance(e.get("name"), str)]
    left_out = len(doc["benchmarks"]) - len(entries)
    return context, entries, ([f"{left_out} entries without a string name were left out"]
                              if left_out else [])


# ---------------------------------------------------------------- entries -> rows

def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _seconds(entry: dict, key: str) -> float | None:
    value = entry.get(key)
    return float(value) * _TIME_UNIT_SECONDS.get(entry.get("time_unit", "ns"), 1e-9) \
        if _is_number(value) else None


def _number(entry: dict, key: str) -> float | None:
    value = entry.get(key)
    return float(value) if _is_number(value) and math.isfinite(value) else None


def _counters(entry: dict) -> dict[str, float]:
    counters = {k: float(v) for k, v in entry.items() if k not in _GB_KEYS and _is_number(v)}
    # Google Benchmark writes its own "threads": 1 on every entry; our OpenMP counter of the
    # same name replaces it, so a lone 1 says nothing.
    if counters.get("threads") == 1.0 and "/threads:" not in entry.get("name", ""):
        del counters["threads"]
    return counters


def _fields(entry: dict) -> dict[str, str]:
    return {k: v for k, v in entry.items() if isinstance(v, str) and k not in _GB_TEXT_KEYS}


def _is_error(entry: dict) -> bool:
    # Older Google Benchmark writes error_occurred, newer writes skipped.
    return bool(entry.get("error_occurred")) or bool(entry.get("skipped"))


def base_name(entry: dict) -> str:
    if entry.get("run_name"):
        return entry["run_name"]
    name, agg = entry["name"], entry.get("aggregate_name")
    if entry.get("run_type") == "aggregate" and agg and name.endswith("_" + agg):
        name = name[: -len(agg) - 1]
    return name


def _chosen_entry(iterations: list[dict], aggregates: dict) -> tuple[dict, str]:
    """The entry that gives the row its time, and how it was chosen."""
    if "median" in aggregates:
        return aggregates["median"], "median"
    if len(iterations) > 1:
        ordered = sorted(iterations, key=lambda e: _seconds(e, "real_time") or 0.0)
        return ordered[(len(ordered) - 1) // 2], "median of iterations"
    if iterations:
        return iterations[0], "iteration"
    if "mean" in aggregates:
        return aggregates["mean"], "mean"
    # Only stddev/cv survived: no usable time, but the row stays visible.
    return next(iter(aggregates.values())), "none"


def _build_row(base: str, group: list[dict], source: str) -> tuple[Row, str | None]:
    """All entries of one benchmark -> a Row, and a problem or None."""
    iterations = [e for e in group if e.get("run_type", "iteration") != "aggregate"]
    aggregates = {e.get("aggregate_name"): e for e in group if e.get("run_type") == "aggregate"}
    errors = [e for e in group if _is_error(e)]
    chosen, how = _chosen_entry(iterations, aggregates)
    name = strip_gb_suffixes(base)
    # The row's typed fields where the run wrote them; the name only for an older file.
    workload, impl, args = typed_description(chosen) or typed_description(group[0]) \
        or parse_name(name)
    fields = _fields(chosen) or _fields(group[0])
    samples = _samples_of([e for e in iterations if not _is_error(e)])
    repetitions = int(chosen.get("repetitions") or max(len(iterations), 1))
    row = Row(
        name=name, workload=workload, impl=impl, family=family_of(impl), args=args,
        size_key=size_key_of(args),
        # kernel or e2e: the declared mode, or an older file's mode arg.
        mode=(fields.get("mode") or None) if DESCRIPTION_FIELD in fields or "axes" in chosen
        else args.get("mode"),
        time_s=_seconds(chosen, "real_time"), cpu_time_s=_seconds(chosen, "cpu_time"),
        bytes_per_second=_number(chosen, "bytes_per_second"),
        items_per_second=_number(chosen, "items_per_second"),
        flop_per_s=_number(chosen, "flop_per_s"),
        counters=_counters(chosen), aggregate=how, repetitions=repetitions,
        samples_s=samples, source=source,
        label=chosen.get("label") if isinstance(chosen.get("label"), str) else "",
        fields=fields,
        axes=next((e["axes"] for e in (chosen, group[0]) if isinstance(e.get("axes"), dict)),
                  None),
    )
    _attach_spread(row, aggregates, samples)
    if how == "none" or errors:
        row.time_s = None
    if errors:
        row.skipped = True
        row.error_message = errors[0].get("error_message") or "error (no message)"
    elif not aggregates and 1 < repetitions and len(iterations) < repetitions:
        return row, f"{name}: {len(iterations)} of {repetitions} repetitions present"
    return row, None


def _samples_of(iterations: list[dict]) -> list[float]:
    """The measured samples: those the suite's stopping rule took (`samples_s`, one list per
    repetition), else one per Google Benchmark iteration."""
    lists = [e.get("samples_s") or [] for e in iterations]
    try:  # numpy converts a run's 1.1 million samples in a tenth of the loop's time
        import numpy as np

        kept = np.concatenate([np.asarray(x, dtype=float) for x in lists]).tolist() \
            if lists else []
    except (ImportError, TypeError, ValueError):  # ncu.py's plain python3, or no number
        kept = [float(x) for x in lists for x in x if _is_number(x)]
    return kept or [s for s in (_seconds(e, "real_time") for e in iterations) if s is not None]


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
    if "cv" in aggregates:  # a ratio, which Google Benchmark stores in the time fields unscaled
        row.cv = _number(aggregates["cv"], "real_time")
    if len(samples) >= 2 and (row.mean_s is None or row.stddev_s is None):
        mean, stdev = _mean_stdev(samples)
        row.mean_s = mean if row.mean_s is None else row.mean_s
        row.stddev_s = stdev if row.stddev_s is None else row.stddev_s
    if row.cv is None and row.mean_s and row.stddev_s is not None:
        row.cv = row.stddev_s / row.mean_s


def rows_from_entries(entries: list[dict], source: str = "") -> tuple[list[Row], list[str]]:
    groups: dict[str, list[dict]] = {}
    for entry in entries:
        groups.setdefault(base_name(entry), []).append(entry)
    built = [_build_row(base, group, source) for base, group in groups.items()]
    return [row for row, _ in built], [problem for _, problem in built if problem]


def completeness_problem(context: dict, rows: list[Row]) -> str | None:
    """twinbench marks a finished run `run_complete` (and says at the start how many
    benchmarks it planned): without the mark it was cut short."""
    if "benchmarks_planned" not in context or context.get("run_complete") in (True, "true"):
        return None
    try:
        of = f" of {int(context['benchmarks_planned'])}"
    except (TypeError, ValueError):
        of = ""
    by = context.get("interrupted_by")
    return (f"the run was cut short{f' by {by}' if by else ''}: "
            f"{sum(1 for r in rows if r.measured)}{of} benchmarks measured")


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
    """Several files rendered as one report; a later file wins on equal names, the first file's
    context on equal keys."""
    if len(runs) == 1:
        return runs[0]
    by_name = {row.name: row for run in runs for row in run.rows}
    context = dict(runs[0].context)
    for run in runs[1:]:
        for key, value in run.context.items():
            context.setdefault(key, value)
    return Run(path=", ".join(r.path for r in runs), context=context,
               rows=list(by_name.values()),
               problems=[f"{run.path}: {p}" for run in runs for p in run.problems])
