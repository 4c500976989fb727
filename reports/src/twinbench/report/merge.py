"""Merge several runs' JSON into one Google Benchmark JSON file: a suite run in parts (a time
limit per call, a re-run after a fix). A later file replaces every entry of a name; the context
records each part's file, revision and copy bandwidth. Truncated parts are read as far as they go.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .loader import base_name, read_json

# Context keys that differ between the parts of a merged run.
PER_PART_KEYS = ("git_revision", "gpu_copy_bw_bytes_per_s", "cpu_triad_bw_bytes_per_s", "date",
                 "gpu_cache_mode")


def merge_files(paths: list[str | Path], drop: str | None = None) -> dict:
    """One JSON document from `paths` (later wins per benchmark name); entries whose name
    matches the regex `drop` are left out (e.g. names a later part renamed)."""
    dropper = re.compile(drop) if drop else None
    entries: dict[str, list[dict]] = {}
    parts = []
    context: dict = {}
    for path in paths:
        ctx, raw, problems = read_json(path)
        by_base: dict[str, list[dict]] = {}
        for entry in raw:
            if dropper and dropper.search(entry["name"]):
                continue
            by_base.setdefault(base_name(entry), []).append(entry)
        entries.update(by_base)  # a later part replaces every entry (and aggregate) of a name
        parts.append({"file": Path(path).name, "entries": len(raw),
                      "kept": sum(map(len, by_base.values())), "truncated": bool(problems),
                      **{k: ctx.get(k, "") for k in PER_PART_KEYS}})
        context.update(ctx)
    context["merged_from"] = json.dumps(parts)
    revisions = (p["git_revision"] for p in parts if p["git_revision"])
    context["git_revision"] = ", ".join(dict.fromkeys(revisions))
    return {"context": context, "benchmarks": [e for group in entries.values() for e in group]}


def write_merged(paths: list[str | Path], out: str | Path, drop: str | None = None) -> int:
    doc = merge_files(paths, drop)
    Path(out).write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return len(doc["benchmarks"])
