"""Writes h200_limiters.json: the committed H200 run results/nvidia-h200/2026-12-02c/run.json
cut down to what the limiter rules and the summary read, for tests/python/test_limiters*.py.

Kept: every measured row at each workload's largest sizes (the summary's headline size and the
largest GPU size, as the profile pass chooses them), its fields and the counters of its work
model, ceiling, launch and occupancy; the context's ceilings, roofs and GPU figures; and the
counters' verdict of each profiled row, reduced to the ncu_* keys twinbench.report.ncu.limiter_words
reads. The tests strip those keys to read the run as one without a profile pass, and compare
the rules' words with the counters'. Per-sample times are dropped (the file stays under 200 KB).

    python tests/python/data/make_limiter_sample.py [RUN.json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "reports" / "src"))

from twinbench.report import analysis as an  # noqa: E402
from twinbench.report import ncu  # noqa: E402
from twinbench.report.loader import load_run, strip_gb_suffixes  # noqa: E402

SOURCE = ROOT / "results" / "nvidia-h200" / "2026-12-02c" / "run.json"
TARGET = HERE / "h200_limiters.json"

ENTRY_KEYS = ("name", "run_name", "run_type", "iterations", "real_time", "time_unit",
              "error_occurred", "error_message")
FIELD_KEYS = ("workload", "impl", "side", "mode", "precision", "algorithm")
COUNTER_KEYS = ("bytes_per_iter", "flop_per_iter", "bytes_per_second", "flop_per_s",
                "pct_ceiling", "ceiling_pattern", "ceiling_bytes_per_s", "grid_blocks",
                "active_blocks_per_sm", "low_occupancy", "launch_included_us", "median_s",
                "h2d_ms", "d2h_ms")
NCU_KEYS = ("ncu_sm_pct", "ncu_memory_pct", "ncu_dram_pct", "ncu_l2_pct", "ncu_l1_pct",
            "ncu_pipe_top", "ncu_pipe_top_pct", "ncu_waves_per_sm", "ncu_grid_blocks",
            "ncu_occupancy_achieved_pct", "ncu_occupancy_theoretical_pct",
            "ncu_occupancy_limiter", "ncu_stall_top")
CONTEXT_PREFIXES = ("gpu_bw_", "cpu_bw_", "gpu_roof_", "cpu_roof_", "gpu_peak_")
CONTEXT_KEYS = ("gpu_name", "gpu_sms", "gpu_cc", "gpu_status", "cpu_model", "omp_threads",
                "quick", "machine", "ncu_version", "ncu_rows_profiled")


def kept_sizes(path: Path) -> set[tuple[str, tuple[str, ...]]]:
    """(workload, size) pairs worth keeping: the profile pass's sizes of each workload, else
    (API calls, copies: nothing to profile) its largest."""
    run = load_run(path)
    by_workload: dict[str, list] = {}
    for row in run.rows:
        by_workload.setdefault(row.workload, []).append(row)
    return {(w, size) for w, rows in by_workload.items()
            for size in ncu.profile_sizes(rows) or [an.largest_problem(an.usable(rows))]}


def _short(value):
    """Six significant digits: the rules read shares and ratios, not the last bits."""
    return float(f"{value:.6g}") if isinstance(value, float) else value


def trim_entry(entry: dict) -> dict:
    out = {k: entry[k] for k in ENTRY_KEYS + FIELD_KEYS if k in entry}
    out.update({k: _short(entry[k]) for k in COUNTER_KEYS + NCU_KEYS if k in entry})
    return out


def trim(source: Path) -> dict:
    doc = json.loads(source.read_text(encoding="utf-8"))
    sizes = kept_sizes(source)
    run = load_run(source)
    keep = {r.name for r in run.rows if (r.workload, r.size_key) in sizes}
    context = {k: v for k, v in doc["context"].items()
               if k in CONTEXT_KEYS or k.startswith(CONTEXT_PREFIXES)}
    context["sample"] = f"{source.relative_to(ROOT)}, trimmed by make_limiter_sample.py"
    entries = [trim_entry(e) for e in doc["benchmarks"]
               if e.get("run_type") == "iteration"
               and strip_gb_suffixes(e.get("run_name") or e["name"]) in keep]
    return {"context": context, "benchmarks": entries}


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else SOURCE
    TARGET.write_text(json.dumps(trim(source), separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{TARGET.name}: {TARGET.stat().st_size / 1024:.0f} KB")


if __name__ == "__main__":
    main()
