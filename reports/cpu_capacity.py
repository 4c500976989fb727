"""CPU rows measured while the CPU gave less than its best.

Why: on the H200 host (a VM) the same CPU rows moved up to 1.7x between processes while the
samples within each agreed, and the FP32 FMA roof read 1.33, 2.59 and 1.37 TFLOP/s in three runs
(results/nvidia-h200/2026-12-02): the CPU's capacity itself moves, with neither steal time nor
clock changes to show it. twinbench probes the FMA rate before and after each CPU row
(`cpu_probe_flops_before` / `_after`, common/host_ceilings.hpp); a row whose lower probe is well
under the run's typical probe was measured in a bad moment, and the report says so rather than
let a reader take its time for the machine's.

The reference is the median of the run's probes, not their best: on the H200 host (2026-12-02,
68 probes) most read 1.24-1.57 TFLOP/s and three read 2.0, short bursts that a 2 ms loop can
catch (a clock that has not yet settled for AVX-512, or an idle sibling for a moment); against
the best, every row would be flagged.
"""

from __future__ import annotations

import statistics

from .document import Paragraph, Table
from .loader import Row

# A row is flagged under this share of the run's median probe. Probes of one moment agree within a
# few percent (best of three 2 ms runs); the levels seen on the VM differ by ~2x.
LOW_SHARE = 0.8
PROBE_KEYS = ("cpu_probe_flops_before", "cpu_probe_flops_after")


def probes(row: Row) -> list[float]:
    return [row.counters[k] for k in PROBE_KEYS if row.counters.get(k, 0) > 0]


def typical_probe(rows: list[Row]) -> float | None:
    values = [p for r in rows for p in probes(r)]
    return statistics.median(values) if values else None


def capacity_share(row: Row, typical: float | None) -> float | None:
    """The row's lower probe as a share of the run's median probe, or None without probes."""
    p = probes(row)
    if not p or not typical:
        return None
    return min(p) / typical


def low_capacity_rows(rows: list[Row]) -> list[tuple[Row, float]]:
    best = typical_probe(rows)
    out = []
    for row in rows:
        share = capacity_share(row, best)
        if share is not None and share < LOW_SHARE:
            out.append((row, share))
    return sorted(out, key=lambda pair: pair[1])


def capacity_blocks(rows: list[Row]) -> list:
    """A note and a table of the flagged rows, or one sentence that none was; nothing for a run
    without probes (older runs, --no-telemetry)."""
    best = typical_probe(rows)
    if best is None:
        return []
    low = low_capacity_rows(rows)
    probed = sum(1 for r in rows if probes(r))
    if not low:
        return [Paragraph(
            f"CPU capacity: every one of the {probed} CPU rows ran while the CPU gave at least "
            f"{LOW_SHARE:.0%} of the median FP32 FMA rate probed in this run "
            f"({best / 1e12:.2f} TFLOP/s), before and after the row.")]
    intro = Paragraph(
        f"CPU capacity: {len(low)} of {probed} CPU rows ran while the CPU gave less than "
        f"{LOW_SHARE:.0%} of the median FP32 FMA rate probed in this run ({best / 1e12:.2f} "
        "TFLOP/s, a short roof loop before and after each row). On a VM the capacity moves "
        "between moments (neighbours on the same cores); these rows' times are the machine's "
        "at that moment, not at its best.", note=True)
    table = Table(["row", "probe before (TFLOP/s)", "probe after (TFLOP/s)", "lower / median"],
                  [[r.name, _tflops(r.counters.get(PROBE_KEYS[0])),
                    _tflops(r.counters.get(PROBE_KEYS[1])), f"{share:.0%}"]
                   for r, share in low])
    return [intro, table]


def _tflops(value: float | None) -> str:
    return f"{value / 1e12:.2f}" if value and value > 0 else "-"
