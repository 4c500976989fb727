#!/usr/bin/env python3
"""A stand-in for the twinbench binary in the gate's tests: takes the flags the gate passes
(--benchmark_filter, --benchmark_out, --benchmark_out_format, --workload, --no-ceilings,
--benchmark_repetitions) and writes a Google Benchmark JSON results file with chosen timings.

FAKE_TWINBENCH_SPEC names a JSON file:
  {"rows": [{"name": "dot/cuda/n:1024/block:256/mode:kernel", "time": 1e-5,
             "factors": [1.1, 1.0]}, ...],
   "exit": 0, "context": {"inject_slowdown": "..."}}
A row's median is time x factors[k] in this binary's k-th process (the last factor repeats), so a
row can be slow once and then not, slow every time, or move from process to process.
FAKE_TWINBENCH_STATE names a file counting this binary's processes. "exit" forces an exit
status (1: a validation failed, as the real binary says it).
"""

from __future__ import annotations

import json
import os
import random
import re
import sys

SAMPLES = 60
SPREAD = 0.004  # samples spread +-0.4% around the median, as a long GPU kernel's do


def _invocation() -> int:
    state = os.environ.get("FAKE_TWINBENCH_STATE")
    if not state:
        return 0
    try:
        with open(state, encoding="utf-8") as f:
            count = int(f.read().strip() or 0)
    except FileNotFoundError:
        count = 0
    with open(state, "w", encoding="utf-8") as f:
        f.write(str(count + 1))
    return count


def _flags(argv: list[str]) -> dict[str, str]:
    known = ("--benchmark_filter", "--benchmark_out", "--benchmark_out_format", "--workload",
             "--benchmark_repetitions", "--no-ceilings", "--quick", "--machine")
    flags = {}
    for arg in argv:
        key, _, value = arg.partition("=")
        if key not in known:
            print(f"twinbench: unrecognized argument {arg}", file=sys.stderr)
            sys.exit(2)
        flags[key] = value
    return flags


def _side(name: str) -> tuple[str, str]:
    impl = name.split("/")[1]
    return ("gpu", "kernel") if impl.startswith("cuda") else ("cpu", "")


def _entry(row: dict, factor: float, seed: int, repetition: int) -> dict:
    rng = random.Random(f"{row['name']}/{seed}/{repetition}")
    median = row["time"] * factor
    samples = sorted(median * (1 + SPREAD * (2 * rng.random() - 1)) for _ in range(SAMPLES))
    samples[SAMPLES // 2] = median
    side, mode = _side(row["name"])
    workload, impl = row["name"].split("/")[:2]
    name = row["name"] + "/manual_time"
    return {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1,
            "repetition_index": repetition, "iterations": 1, "real_time": median * 1e6,
            "cpu_time": median * 1e6, "time_unit": "us", "samples_s": samples,
            "median_s": median, "workload": workload, "impl": impl, "side": side, "mode": mode,
            "algorithm": "", "precision": "fp32"}


def main() -> int:
    flags = _flags(sys.argv[1:])
    with open(os.environ["FAKE_TWINBENCH_SPEC"], encoding="utf-8") as f:
        spec = json.load(f)
    k = _invocation()
    if spec.get("exit"):
        print("twinbench: forced failure", file=sys.stderr)
        return int(spec["exit"])
    text = flags.get("--benchmark_filter") or "."
    # Google Benchmark's negative filter: a leading '-' selects the names that do not match.
    negate = text.startswith("-")
    pattern = re.compile(text[1:] if negate else text)
    workloads = [w for w in flags.get("--workload", "").split(",") if w]
    repetitions = int(flags.get("--benchmark_repetitions") or 1)
    entries = []
    for row in spec["rows"]:
        if workloads and row["name"].split("/")[0] not in workloads:
            continue
        if bool(pattern.search(row["name"] + "/manual_time")) == negate:
            continue
        factors = row.get("factors") or [1.0]
        factor = factors[min(k, len(factors) - 1)]
        entries += [_entry(row, factor, k, rep) for rep in range(repetitions)]
    if not entries:
        print(f"twinbench: no benchmark matches the filter '{pattern.pattern}'", file=sys.stderr)
        return 2
    context = {"git_revision": spec.get("revision", "fake"), "quick": "false",
               "run_complete": True, "benchmarks_planned": len(entries),
               "executable": sys.argv[0], **spec.get("context", {})}
    out = flags.get("--benchmark_out")
    if out:
        with open(out, "w", encoding="utf-8") as f:
            json.dump({"context": context, "benchmarks": entries}, f)
    print(f"twinbench: {len(entries)} benchmarks measured, 0 skipped, process {k}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
