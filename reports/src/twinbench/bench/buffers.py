"""A GPU variant's buffers (pinned host and device; each device output followed by its guard,
checks.guarded_empty's rule), and poisoning a host array."""

from __future__ import annotations

import numpy as np
from numba import cuda

from .checks import (GUARD_ELEMENTS, fill_pattern, guard_written, past_the_end,
                     poison_value)


def poison(array: np.ndarray) -> None:
    array.fill(poison_value(array.dtype))


def pinned_copy(array: np.ndarray) -> np.ndarray:
    out = cuda.pinned_array(array.shape, dtype=array.dtype)
    out[...] = array
    return out


class Buffers:
    """A GPU variant's buffers, as the suite keeps them: each input pinned on the host and on
    the device (uploaded once here, so kernel rows read device-resident inputs), each output on
    the device (with its guard after it) and pinned on the host. upload/download are the
    article's copies (cuda.to_device(host, to=device) is device.copy_to_device(host))."""

    def __init__(self, inputs: dict[str, np.ndarray], outputs: dict[str, tuple]):
        self.h: dict[str, np.ndarray] = {}
        self.d: dict[str, object] = {}
        self._whole: dict[str, object] = {}
        self._guard: dict[str, np.ndarray] = {}
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        for key, array in inputs.items():
            self.h[key] = pinned_copy(array)
            self.d[key] = cuda.device_array(array.shape, dtype=array.dtype)
        for key, (shape, dtype) in outputs.items():
            size = int(np.prod(shape))
            self.h[key] = cuda.pinned_array(shape, dtype=dtype)
            self._whole[key] = cuda.device_array(size + GUARD_ELEMENTS, dtype=dtype)
            self.d[key] = self._whole[key][:size].reshape(shape)
            self._guard[key] = cuda.pinned_array(GUARD_ELEMENTS, dtype=dtype)
        self.upload()
        cuda.synchronize()

    def upload(self) -> None:
        for key in self.inputs:
            self.d[key].copy_to_device(self.h[key])

    def download(self) -> None:
        for key in self.outputs:
            self.d[key].copy_to_host(self.h[key])

    def poison(self, pass_index: int = 0) -> None:
        """The outputs filled with the poison value (NaN, or an integer type's most negative),
        their guards with the pass's pattern."""
        for key in self.outputs:
            poison(self.h[key])
            self.d[key].copy_to_device(self.h[key])
        self.poison_guards(pass_index)

    def poison_patterns(self, pass_index: int) -> None:
        """The outputs and their guards filled with the pass's byte pattern."""
        for key in self.outputs:
            fill_pattern(self.h[key], pass_index)
            self.d[key].copy_to_device(self.h[key])
        self.poison_guards(pass_index)

    def poison_guards(self, pass_index: int) -> None:
        for key in self.outputs:
            fill_pattern(self._guard[key], pass_index)
            self._tail(key).copy_to_device(self._guard[key])

    def past_the_end(self, pass_index: int) -> str:
        """Why an output is refused for a write past its end ("" when none was): its guard,
        copied back after the validating call."""
        for key in self.outputs:
            self._tail(key).copy_to_host(self._guard[key])
            offset = guard_written(self._guard[key], pass_index)
            if offset >= 0:
                return past_the_end(key, self.d[key].size, offset)
        return ""

    def _tail(self, key: str):
        return self._whole[key][self.d[key].size:]
