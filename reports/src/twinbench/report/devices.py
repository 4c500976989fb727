"""Several devices' runs side by side: `twinbench-report devices RUN0 RUN1 ... --out DIR`.

Each device measured in a run of its own (`twinbench --devices=0,2`, scripts/run-devices.sh):
each device's measured ceilings, then every row measured on the first device and another, its
time per device and the ratio to the first's. Rows are matched by what they measure (`identity`),
not by name; a row missing or skipped on a device shows "–" there.
"""

from __future__ import annotations

from pathlib import Path

from . import ceilings as ce
from .document import Block, Heading, Paragraph, Table, to_markdown
from .loader import LoadError, Row, Run, load_run
from .units import fmt_time

# The GPU's measured bandwidths shown per device (common/ceilings.hpp's patterns).
PATTERNS = ("copy", "read", "write", "triad")
PATTERN_HEADERS = [f"{p} bandwidth" for p in PATTERNS]


def device_label(run: Run, index: int) -> str:
    """"GPU 2 (0000:19:00.0)": the device the run's context names, else its place in the list."""
    visible = run.context.get("cuda_visible_devices") or str(index)
    bus = run.context.get("gpu_pci_bus_id")
    return f"GPU {visible}" + (f" ({bus})" if bus else "")


def _bandwidth_cells(context: dict) -> list[str]:
    """Each pattern's measured GB/s; an older file's one cudaMemcpy copy in the copy column."""
    measured = ce.pattern_bandwidths(context, "gpu")
    if not measured and ce.device_copy_bandwidth(context):
        measured = {"copy": ce.device_copy_bandwidth(context)}
    return [ce.fmt_bandwidth(measured.get(p)) for p in PATTERNS]


def _roof_cell(context: dict) -> str:
    roof = ce.top_roof(context, "gpu")
    return f"{ce.fmt_rate(roof.value)} ({roof.kind})" if roof else "–"


def ceilings_table(runs: list[Run], labels: list[str]) -> Table:
    lines = [[label, run.context.get("gpu_name", "–"), run.context.get("gpu_links", "–")]
             + _bandwidth_cells(run.context) + [_roof_cell(run.context)]
             for run, label in zip(runs, labels)]
    return Table(["device", "GPU", "links (NVML)"] + PATTERN_HEADERS + ["FP32 roof"], lines)


def identity(row: Row) -> tuple:
    """What a row measures, from its fields: equal on every device for the same benchmark."""
    return (row.workload, row.impl, row.fields.get("algorithm", ""),
            row.fields.get("precision", ""), row.mode or "", tuple(row.args.items()))


def _measured(run: Run) -> dict[tuple, Row]:
    return {identity(r): r for r in run.rows if r.usable}


def _times_line(first: Row, others: list[Row | None]) -> list[str]:
    times = [fmt_time(r.time_s) if r else "–" for r in [first] + others]
    ratios = [f"{r.time_s / first.time_s:.3g}×" if r else "–" for r in others]
    return [first.name] + times + ratios


def times_table(runs: list[Run], labels: list[str]) -> Table:
    per_run = [_measured(run) for run in runs]
    lines = [_times_line(row, [rows.get(key) for rows in per_run[1:]])
             for key, row in per_run[0].items() if any(key in rows for rows in per_run[1:])]
    headers = ["benchmark"] + labels + [f"{label} ÷ {labels[0]}" for label in labels[1:]]
    return Table(headers, lines)


def build(runs: list[Run]) -> list[Block]:
    labels = [device_label(run, i) for i, run in enumerate(runs)]
    return [Heading("twinbench: devices side by side", 1),
            Paragraph("Each device measured in a run of its own (its own ceilings, flush buffer "
                      "and telemetry). Ratio: the device's time over the first's (above 1: "
                      "slower)."),
            Heading("Devices and their measured ceilings"), ceilings_table(runs, labels),
            Heading("Times per device"), times_table(runs, labels)]


def write(paths: list[str], out_dir: str | Path) -> Path:
    if len(paths) < 2:
        raise LoadError("devices: give two runs or more (one per device)")
    runs = [load_run(p) for p in paths]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    target = out / "devices.md"
    target.write_text(to_markdown(build(runs)), encoding="utf-8")
    return target
