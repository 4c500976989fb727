"""Live progress from a running Numba CUDA kernel.

In the kernel, each thread calls `tally(slots, count)` with what it finished; each warp's sum is
added to its block's slot in device memory. On the host, `LiveProgress` owns the slots, reads
them on a stream of its own, draws a tqdm bar from their sum while the kernel runs and checks the
final count against the total.

Device side (call from a @cuda.jit kernel or device function): tally, padded; for a writer
that keeps its own count: report, finish, now, store, load, syncwarp, block_index; the sums
they are made of: warp_total, block_sum.
Host side: LiveProgress, KernelProgressWarning.
"""

from .device import (block_index, block_sum, finish, load, now, padded, report, store,
                     syncwarp, tally, warp_total)
from .host import (KernelProgressWarning, LiveProgress, PollStats, format_bar, format_eta,
                   format_line, interval_for, period_for, side_stream)

__all__ = ["KernelProgressWarning", "LiveProgress", "PollStats", "block_index", "block_sum",
           "finish", "format_bar", "format_eta", "format_line", "interval_for", "load", "now",
           "padded", "period_for", "report", "side_stream", "store", "syncwarp", "tally",
           "warp_total"]
__version__ = "0.2.0"
