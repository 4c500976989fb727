"""Peer rows in the suite's JSON format, and their merge into the suite's results file.

A row is what Google Benchmark and twinbench write for a manual-time benchmark: one iteration
whose time is the median sample (time_unit us), the sampler's counters, the work model's rates
and the ceiling of the row's access pattern, the samples themselves (samples_s, 5 significant
digits as the suite keeps them). A row that did not run is written as the suite writes a
skipped or failed one: error_occurred and error_message, no time. No numba here.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .sampler import SampleStats
from .suite import choose_ceiling


class ResultsNotWritten(Exception):
    """The suite's results file cannot be written (exit 3)."""


@dataclass(frozen=True)
class Work:
    """What one iteration does (the C++ WorkModel of the same workload and size)."""

    read_bytes: float = 0.0
    written_bytes: float = 0.0
    flops: float = 0.0
    items: float = 0.0
    held_to_ceiling: bool = True

    @property
    def bytes(self) -> float:
        return self.read_bytes + self.written_bytes


def _gb_fields(name: str, family_index: int) -> dict:
    return {
        "name": name, "run_name": name, "run_type": "iteration", "family_index": family_index,
        "per_family_instance_index": 0, "repetitions": 1, "repetition_index": 0, "threads": 1,
        "time_unit": "us",
    }


def _round5(x: float) -> float:
    return float(f"{x:.5g}")


def _number(value) -> float | None:
    """A counter as a JSON number; NaN and Inf as null (what nlohmann::json writes for them)."""
    value = float(value)
    return value if math.isfinite(value) else None


def measured_row(name: str, family_index: int, stats: SampleStats, work: Work,
                 ceilings: dict[str, float] | None, counters: dict,
                 cpu_time_s: float, label: str) -> dict:
    """A measured row. `ceilings` is the set the row is held to (None: e2e, transfers)."""
    t = stats.median
    row = _gb_fields(name, family_index)
    row.update({
        "iterations": 1, "real_time": t * 1e6, "cpu_time": cpu_time_s * 1e6, "label": label,
        "samples": float(len(stats.samples)), "median_s": t, "min_s": stats.min,
        "max_s": stats.max, "rel_spread_pct": 100.0 * stats.rel_stdev,
        "converged": 1.0 if stats.converged else 0.0, "stop_reason": float(int(stats.reason)),
        "samples_s": [_round5(s) for s in stats.samples],
        "bytes_per_iter": work.bytes, "read_bytes_per_iter": work.read_bytes,
        "written_bytes_per_iter": work.written_bytes, "flop_per_iter": work.flops,
    })
    if t > 0:
        if work.bytes > 0:
            row["bytes_per_second"] = work.bytes / t
        if work.items > 0:
            row["items_per_second"] = work.items / t
        if work.flops > 0:
            row["flop_per_s"] = work.flops / t
    if work.held_to_ceiling and ceilings and work.bytes > 0 and t > 0:
        chosen = choose_ceiling(ceilings, work.read_bytes, work.written_bytes)
        if chosen:
            pattern, bw = chosen
            row["ceiling_pattern"] = float(pattern)
            row["ceiling_bytes_per_s"] = bw
            row["pct_ceiling"] = 100.0 * work.bytes / t / bw
    row.update({k: _number(v) for k, v in counters.items()})
    return row


def error_row(name: str, family_index: int, message: str, label: str,
              counters: dict | None = None) -> dict:
    """A row that got no time: skipped (no GPU, too little memory, interrupted) or failed
    (validation, an error), as the suite writes them."""
    row = _gb_fields(name, family_index)
    row.update({"iterations": 0, "real_time": 0.0, "cpu_time": 0.0, "error_occurred": True,
                "error_message": message, "label": label})
    row.update({k: _number(v) for k, v in (counters or {}).items()})
    return row


def check_writable(path: str | Path) -> None:
    """Raises ResultsNotWritten unless `path` can be replaced (a temporary file in its folder,
    renamed over it): checked before anything runs, as the suite does."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not os.access(path, os.W_OK):
        raise ResultsNotWritten(f"cannot write the results file {path}: permission denied")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ResultsNotWritten(f"cannot write beside the results file in {folder} (the merged "
                                "file is written there and renamed over it): permission denied")


def merge(doc: dict, rows: list[dict], context: dict) -> dict:
    """`doc` with `rows` appended (replacing any entry of the same name: a second peers run
    replaces the first's rows) and `context` added to its context."""
    names = {r["name"] for r in rows}
    kept = [e for e in doc["benchmarks"] if not (isinstance(e, dict) and e.get("name") in names)]
    return {**doc, "context": {**doc.get("context", {}), **context}, "benchmarks": kept + rows}


def write_atomically(path: str | Path, doc: dict) -> None:
    """Writes `doc` to a temporary file in the same folder and renames it over `path`, so the
    file is never half-written (and keeps its permissions)."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    try:
        mode = path.stat().st_mode & 0o777
    except OSError:
        mode = 0o644
    tmp = None
    try:
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder, delete=False,
                                         prefix=f".{path.name}.", suffix=".tmp") as f:
            tmp = f.name
            # Compact, keys sorted: what the suite's own finalize (nlohmann::json) writes.
            f.write(json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=False))
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except (OSError, ValueError) as exc:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)
        raise ResultsNotWritten(f"could not write {path}: {exc}") from exc


def next_family_index(doc: dict) -> int:
    indices = [e.get("family_index") for e in doc["benchmarks"] if isinstance(e, dict)]
    return 1 + max((i for i in indices if isinstance(i, int)), default=-1)
