"""Live progress from a running Numba CUDA kernel.

In the kernel, every thread calls `tally(slots, count)` with what it finished; the block's sum
goes into the block's slot of mapped host memory. On the host, `LiveProgress` owns the slots,
draws a tqdm bar from their sum while the kernel runs and checks the final count against the
total.

Device side (call from a @cuda.jit kernel or device function): tally, padded; for a writer
that keeps its own count: report, finish, now, store, load, syncwarp, block_index.
Host side: LiveProgress, KernelProgressWarning.
"""

from .device import (block_index, block_sum, finish, load, now, padded, report, store,
                     syncwarp, tally)
from .host import (KernelProgressWarning, LiveProgress, PollStats, format_bar, format_eta,
                   format_line, period_for)

__all__ = ["KernelProgressWarning", "LiveProgress", "PollStats", "block_index", "block_sum",
           "finish", "format_bar", "format_eta", "format_line", "load", "now", "padded",
           "period_for", "report", "store", "syncwarp", "tally"]
__version__ = "0.2.0"
