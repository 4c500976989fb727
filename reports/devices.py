"""Several devices' runs side by side: `python -m reports devices RUN0 RUN1 ... --out DIR`.

`twinbench --devices=0,2` (and scripts/run-devices.sh) measure each GPU in a run of its own, each
with its own ceilings; this puts them in one table: each device's measured ceilings first, then
every row measured on every device, its time per device and the ratio to the first device's.
Rows are matched as `reports compare` matches them; a row missing or skipped on a device shows
"–" there.
"""

from __future__ import annotations

from pathlib import Path

from .document import Block, Heading, Paragraph, Table, to_markdown
from .loader import LoadError, Run, load_run
from .units import fmt_num, fmt_time

CEILING_KEYS = (("gpu_bw_copy_bytes_per_s", "copy (read + write)"),
                ("gpu_copy_bw_bytes_per_s", "cudaMemcpy copy"))


def device_label(run: Run, index: int) -> str:
    """"GPU 2 (0000:19:00.0)": the device the run's context names, else its place in the list."""
    visible = run.context.get("cuda_visible_devices") or str(index)
    bus = run.context.get("gpu_pci_bus_id")
    return f"GPU {visible}" + (f" ({bus})" if bus else "")


def _ceiling(run: Run) -> str:
    for key, what in CEILING_KEYS:
        value = run.context.get(key)
        if value:
            return f"{fmt_num(float(value) / 1e9)} GB/s {what}"
    return "–"


def ceilings_table(runs: list[Run], labels: list[str]) -> Table:
    lines = [[label, run.context.get("gpu_name", "–"), run.context.get("gpu_links", "–"),
              _ceiling(run)] for run, label in zip(runs, labels)]
    return Table(["device", "GPU", "links (NVML)", "measured bandwidth"], lines)


def times_table(runs: list[Run], labels: list[str]) -> Table:
    per_run = [{r.name: r for r in run.rows if not r.skipped and r.time_s} for run in runs]
    names = [name for name in per_run[0] if any(name in rows for rows in per_run[1:])]
    lines = []
    for name in names:
        first = per_run[0][name].time_s
        line = [name]
        for rows in per_run:
            row = rows.get(name)
            line.append(fmt_time(row.time_s) if row else "–")
        for rows in per_run[1:]:
            row = rows.get(name)
            line.append(f"{row.time_s / first:.3g}×" if row else "–")
        lines.append(line)
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
