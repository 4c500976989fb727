"""Live progress from a running Numba CUDA kernel.

Each writer (a block's thread 0, or a warp's lane 0) stores its running count into its own
slot of mapped host memory at most once a period and at its end; a host thread sums the slots
and draws a bar with rate and ETA while the kernel runs; after the kernel the sum is exact.

Device side (call from a @cuda.jit kernel): report, finish, now, store, syncwarp.
Host side: LiveProgress (the slots, the drawing thread, the final count).
"""

from ._compat import numpy_aliases

numpy_aliases()

# After the alias: importing the device functions loads numba.cuda.
from .device import finish, now, report, store, syncwarp  # noqa: E402
from .host import (  # noqa: E402
    LiveProgress, PollStats, format_bar, format_eta, format_line, period_for)

__all__ = ["LiveProgress", "PollStats", "finish", "format_bar", "format_eta", "format_line",
           "now", "period_for", "report", "store", "syncwarp"]
__version__ = "0.1.0"
