"""The suite's results file as the peers read it: its rows' names, its context, its ceilings.

No numba here (the skip path reads and writes the file without it).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path


class BadInput(Exception):
    """The command line or the suite's results file cannot be used (exit 2)."""


# Google Benchmark appends these to a name; they say how time was measured.
_SUFFIXES = ("manual_time", "real_time", "process_time")


@dataclass(frozen=True)
class Name:
    """`workload/impl/k:v/...` as the suite writes it (DESIGN.md, "Names that scripts can parse")."""

    workload: str
    impl: str
    args: tuple[tuple[str, str], ...]

    def arg(self, key: str, default: str | None = None) -> str | None:
        for k, v in self.args:
            if k == key:
                return v
        return default

    @property
    def base(self) -> str:
        return "/".join([self.workload, self.impl] + [f"{k}:{v}" for k, v in self.args])


def parse_name(name: str) -> Name | None:
    parts = name.split("/")
    while parts and (parts[-1] in _SUFFIXES or parts[-1].startswith(("min_time:", "repeats:",
                                                                        "iterations:"))):
        parts.pop()
    if len(parts) < 2 or ":" in parts[1]:
        return None
    args = []
    for part in parts[2:]:
        key, sep, value = part.partition(":")
        if not sep:
            return None
        args.append((key, value))
    return Name(parts[0], parts[1], tuple(args))


def is_peer_impl(impl: str) -> bool:
    return impl.startswith("numba")


def load(path: str | Path) -> dict:
    """The suite's results document; BadInput when it cannot be read as one."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"cannot read the suite's results {path}: {exc.strerror or exc}") from exc
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); the suite run "
                       "may have been cut off before it closed the file") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        raise BadInput(f'{path} has no "benchmarks" list: not a twinbench results file')
    if not isinstance(doc.get("context", {}), dict):
        raise BadInput(f'{path}: its "context" is not an object')
    doc.setdefault("context", {})
    return doc


def cpp_rows(doc: dict) -> list[Name]:
    """The suite's own rows (not peers), parsed, in file order, each name once."""
    seen: set[str] = set()
    out = []
    for entry in doc["benchmarks"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue
        if entry.get("run_type") == "aggregate":
            continue
        name = parse_name(entry["name"])
        if name is None or is_peer_impl(name.impl) or name.base in seen:
            continue
        seen.add(name.base)
        out.append(name)
    return out


def context_number(context: dict, key: str) -> float | None:
    try:
        value = float(context[key])
    except (KeyError, TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


# ---------------------------------------------------------------- ceilings (common/ceilings.cpp)

PATTERNS = ("read", "write", "copy", "scale", "add", "triad")
_READS = {"read": 2, "write": 0, "copy": 1, "scale": 1, "add": 2, "triad": 2}
_WRITES = {"read": 0, "write": 1, "copy": 1, "scale": 1, "add": 1, "triad": 1}

# Which of the suite's measured sets a row is held to: GPU kernel rows the GPU's, numba_cpu
# (parallel) rows the CPU's with all threads, numba_cpu_serial rows one thread's.
CEILING_KEYS = {
    "gpu": "gpu_bw_{}_bytes_per_s",
    "cpu_all": "cpu_bw_{}_all_bytes_per_s",
    "cpu_one": "cpu_bw_{}_one_bytes_per_s",
}


def ceiling_set(context: dict, which: str) -> dict[str, float]:
    out = {}
    for p in PATTERNS:
        value = context_number(context, CEILING_KEYS[which].format(p))
        if value is not None and value > 0:
            out[p] = value
    return out


def _read_share(read: float, written: float) -> float:
    total = read + written
    return read / total if total > 0 else 0.0


def choose_ceiling(bandwidths: dict[str, float], read_bytes: float,
                   written_bytes: float) -> tuple[int, float] | None:
    """(pattern index, bytes/s) of the measured pattern whose read share is nearest the row's;
    of two at the same distance the faster (tb::choose_ceiling). None when nothing was measured."""
    share = _read_share(read_bytes, written_bytes)
    best = None
    best_distance = math.inf
    for index, p in enumerate(PATTERNS):
        bw = bandwidths.get(p, 0.0)
        if not bw > 0:
            continue
        d = abs(_read_share(_READS[p], _WRITES[p]) - share)
        nearer = d < best_distance - 1e-12
        tie = abs(d - best_distance) <= 1e-12
        if nearer or (tie and bw > best[1]):
            best = (index, bw)
            best_distance = d
    return best
