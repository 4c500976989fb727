"""transfers: one host-to-device (dir:h2d) or device-to-host (dir:d2h) copy of `bytes`, from a
NumPy array (pageable, the articles' way) or a cuda.pinned_array (pinned), with Numba's
copy_to_device / copy_to_host on the default stream (bench/transfers.cpp).

The bytes are the suite's (transfers::fill_bytes, seed 0x5eed7a45: never 0xFF); the destination
is filled with 0xFF before the validating copy, which must then reproduce them exactly. Timed
with events around the copy, as the suite times its copies; no memory ceiling applies (PCIe).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from numba import cuda

from twinbench.bench import Tolerance, compare_exact
from twinbench.bench import TransferCase
from twinbench.bench import POISON_BYTE, fill_bytes
from twinbench.bench import Work

SEED = 0x5EED7A45
TOLERANCE = Tolerance(0.0)


def nbytes(row) -> int:
    return int(row.arg("bytes"))


def work(row) -> Work:
    return Work(read_bytes=float(nbytes(row)), items=1.0, held_to_ceiling=False)


def data_key(row):
    return nbytes(row)


def device_key(row):
    return row.peer.impl   # pageable and pinned rows keep their own host buffers


def host_bytes(row) -> float:   # the pattern, the host side, a readback
    return 3.0 * nbytes(row)


def device_bytes(row) -> float:
    return float(nbytes(row))


def make_data(row):
    return SimpleNamespace(pattern=fill_bytes(nbytes(row), SEED))


def make_device(row, data):
    size = nbytes(row)
    if row.peer.impl == "numba_cuda_pinned":
        host = cuda.pinned_array(size, dtype=np.uint8)
    else:
        host = np.empty(size, dtype=np.uint8)
    host[:] = 0   # fault the pages in now, not in the first timed copy
    return SimpleNamespace(host=host, dev=cuda.device_array(size, dtype=np.uint8),
                           poison=np.full(size, POISON_BYTE, dtype=np.uint8))


def gpu_case(row, data, dev, gpu) -> TransferCase:
    h2d = row.arg("dir") == "h2d"

    def transfer():
        if h2d:
            dev.dev.copy_to_device(dev.host)
        else:
            dev.dev.copy_to_host(dev.host)

    def validate():
        if h2d:
            dev.dev.copy_to_device(dev.poison)
            dev.host[:] = data.pattern
            transfer()
            return compare_exact(dev.dev.copy_to_host(), data.pattern)
        dev.dev.copy_to_device(data.pattern)
        dev.host[:] = POISON_BYTE
        transfer()
        cuda.synchronize()
        return compare_exact(dev.host, data.pattern)

    return TransferCase(transfer, validate, TOLERANCE, counters={"host_timed": 0})
