"""twinbench for your own Python: a CPU and a GPU version of your code, checked against your
reference before they are timed, swept over block sizes and held to this machine's limits, in
the suite's results format (docs/python.md).

    import twinbench.bench as tb
    tb.Workload("vector_add", reference=..., inputs=..., cpu=[...], gpu=[...], sizes=[...])
    tb.run(workload)                      # or: twinbench-py run my_pairs.py

Importing this package imports neither numba nor NumPy; the names that need them load on first
use, so that a machine without numba can still say why and record it.

The lower layer, for workloads a declaration does not fit (the articles' programs in
peers/numba use it): CpuCase, GpuCase, TransferCase, ProgressCase (what a row runs), Skip,
Tolerance and compare* (validation), fill_uniform (the suite's seeded inputs), Work (the work
model), Buffers (a GPU variant's pinned and device buffers), execute (runs rows).
"""

from __future__ import annotations

import importlib

# name -> submodule it lives in (loaded on first use: PEP 562)
_NAMES = {
    # the declaration and the run
    "Workload": "workload", "Kernel": "workload", "Cpu": "workload", "uniform": "workload",
    "run": "session", "load_file": "session", "RunResult": "session",
    # validation
    "Tolerance": "checks", "ErrorStats": "checks", "compare": "checks",
    "compare_exact": "checks", "compare_scalar": "checks", "poison_value": "checks",
    "poisson_stats": "checks", "poisson_stats_from_counts": "checks", "CHI2_BINS": "checks",
    # inputs
    "fill_uniform": "inputs", "fill_bytes": "inputs", "POISON_BYTE": "inputs",
    # work model
    "Work": "results",
    # what a row runs, and the GPU's facts
    "CpuCase": "timing", "GpuCase": "timing", "TransferCase": "timing",
    "ProgressCase": "timing", "Skip": "timing", "SIMULATOR": "timing", "GpuInfo": "timing",
    "blocks_for": "timing", "check_block": "timing", "parse_block": "timing",
    "wait_gpu": "timing",
    "Buffers": "buffers", "cpu_jit": "buffers", "poison": "buffers",
    "execute": "engine",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str):
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
