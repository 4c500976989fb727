#!/usr/bin/env python3
"""Where a twinbench run's time went, and how well its rows settled.

    scripts/run-stats.py RUN.json [--spread PCT]

Prints, per workload: rows measured and skipped, wall time (the rows' `row_wall_s`), rows that
stopped on the time limit rather than on the spread target, and the GPU kernel-only rows whose
relative spread is above PCT (default 2). Standard library only, so it runs on any machine
that has Python 3, the GPU machine included. A truncated file (a run cut short) is read up to
its last complete row.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict


def load(path: str) -> dict:
    text = open(path, encoding="utf-8").read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        # Cut short: keep the rows up to the last complete one.
        cut = text.rfind("\n    },")
        if cut < 0:
            raise
        return json.loads(text[:cut + 6].rstrip(",") + "\n  ]\n}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("--spread", type=float, default=2.0)
    args = parser.parse_args(argv)
    try:
        doc = load(args.run)
    except (OSError, json.JSONDecodeError) as exc:
        print(f"run-stats: {args.run}: {exc}", file=sys.stderr)
        return 2
    ctx = doc.get("context", {})
    per = defaultdict(lambda: {"rows": 0, "skipped": 0, "wall": 0.0, "unsettled": 0})
    noisy = []
    for b in doc.get("benchmarks", []):
        w = per[b["name"].split("/")[0]]
        if b.get("error_occurred") or b.get("skipped"):
            w["skipped"] += 1
            continue
        w["rows"] += 1
        w["wall"] += b.get("row_wall_s", 0.0)
        w["unsettled"] += b.get("converged", 1) == 0
        gpu_kernel = "/mode:kernel" in b["name"] or (b.get("launch_gated") == 1)
        if gpu_kernel and b.get("rel_spread_pct", 0.0) > args.spread:
            noisy.append((b["rel_spread_pct"], b["name"]))
    print(f"{'workload':<14} {'rows':>5} {'skip':>5} {'wall s':>8} {'unsettled':>9}")
    for name, w in sorted(per.items(), key=lambda kv: -kv[1]["wall"]):
        print(f"{name:<14} {w['rows']:>5} {w['skipped']:>5} {w['wall']:>8.1f} {w['unsettled']:>9}")
    total = sum(w["wall"] for w in per.values())
    print(f"{'(rows)':<14} {sum(w['rows'] for w in per.values()):>5} "
          f"{sum(w['skipped'] for w in per.values()):>5} {total:>8.1f}")
    print(f"run wall time: {ctx.get('run_wall_s', '? (not complete)')} s; "
          f"complete: {ctx.get('run_complete', False)}")
    print(f"GPU kernel-only rows above {args.spread}% spread: {len(noisy)}")
    for spread, name in sorted(noisy, reverse=True)[:15]:
        print(f"  {spread:6.2f}%  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
