"""A GPU variant's buffers (pinned host and device), and poisoning a host array."""

from __future__ import annotations

import numpy as np
from numba import cuda

from .checks import poison_value


def poison(array: np.ndarray) -> None:
    array.fill(poison_value(array.dtype))


def pinned_copy(array: np.ndarray) -> np.ndarray:
    out = cuda.pinned_array(array.shape, dtype=array.dtype)
    out[...] = array
    return out


class Buffers:
    """A GPU variant's buffers, as the suite keeps them: each input pinned on the host and on
    the device (uploaded once here, so kernel rows read device-resident inputs), each output on
    the device and pinned on the host. upload/download are the article's copies
    (cuda.to_device(host, to=device) is device.copy_to_device(host))."""

    def __init__(self, inputs: dict[str, np.ndarray], outputs: dict[str, tuple]):
        self.h: dict[str, np.ndarray] = {}
        self.d: dict[str, object] = {}
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        for key, array in inputs.items():
            self.h[key] = pinned_copy(array)
            self.d[key] = cuda.device_array(array.shape, dtype=array.dtype)
        for key, (shape, dtype) in outputs.items():
            self.h[key] = cuda.pinned_array(shape, dtype=dtype)
            self.d[key] = cuda.device_array(shape, dtype=dtype)
        self.upload()
        cuda.synchronize()

    def upload(self) -> None:
        for key in self.inputs:
            self.d[key].copy_to_device(self.h[key])

    def download(self) -> None:
        for key in self.outputs:
            self.d[key].copy_to_host(self.h[key])

    def poison(self) -> None:
        for key in self.outputs:
            poison(self.h[key])
            self.d[key].copy_to_device(self.h[key])
