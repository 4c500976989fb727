"""One module per workload with Numba peers, each giving the runner the same functions:

  work(row) -> results.Work               bytes and FLOPs of one iteration (the C++ model)
  data_key(row) -> hashable               rows with equal keys share their inputs
  host_bytes(row), device_bytes(row)      what the row's data takes, checked before allocating
  make_data(row) -> host inputs and the reference (seeded as bench/<workload>.cpp seeds them)
  make_device(row, data) -> GPU buffers   (GPU rows; shared by the rows of one key and impl)
  cpu_case(row, data) -> CpuCase
  gpu_case(row, data, dev, gpu) -> GpuCase / TransferCase / ProgressCase

and the kernels themselves, written as the articles (and Numba's documentation) write them.
Modules are imported on first use: each compiles its own kernels lazily anyway.
"""

from __future__ import annotations

import importlib


def module(workload: str):
    return importlib.import_module(f"{__name__}.{workload}")
