"""Host side: the slots, a thread that sums them and draws a bar, and the exact final count.

    live = LiveProgress.per_block(grid, total=n, label="poisson")
    with live:                                  # starts the drawing thread
        kernel[grid, block](..., live.slots, live.period_ns)
    print(live.count)                           # the exact final count, after the kernel

The slots are a `cuda.mapped_array` of uint64 (pinned host memory the GPU writes directly), one
per writer; the host reads them with plain loads, so polling makes no CUDA call and costs the
GPU nothing. Each slot only grows during a launch, so the sum of slots read one after the other
only grows too; once the kernel has ended it is exactly the work done.

The thread sleeps `interval` seconds between reads: a Python thread that spins while the main
thread launches makes each Numba launch wait for the GIL (about 10 ms a launch instead of
0.1 ms on the H200 machine), and a bar needs no more than a few dozen reads a second.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass
from typing import Optional, TextIO

import numpy as np
from numba import cuda

# A writer stores at most once a period: at least every 20 us, and no more than ~10 million
# stores a second from all writers together (writers x 100 ns), so that the writes to host
# memory stay a small part of what PCIe carries whatever the grid (the suite's C++ rule,
# common/progress.cpp live_period_ns). 1,024 blocks: 102 us each.
MIN_PERIOD_NS = 20_000
NS_PER_WRITER = 100


def period_for(writers: int) -> int:
    """The store period (ns) of one writer of a launch of `writers` writers."""
    return max(MIN_PERIOD_NS, NS_PER_WRITER * int(writers))


def format_eta(seconds: float) -> str:
    """m:ss or h:mm:ss; --:-- when unknown (negative)."""
    if seconds < 0:
        return "--:--"
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return f"{s // 60}:{s % 60:02d}"


def eta_seconds(done: int, total: int, rate: float) -> float:
    if total <= 0 or rate <= 0:
        return -1.0
    return max(0.0, (total - done) / rate)


def format_bar(done: int, total: int, rate: float, width: int = 30) -> str:
    """"[###############---------------]  50.0%  1.23e+08/s  ETA 0:03" (the suite's bar); without
    a total, the count and the rate."""
    if total <= 0:
        return f"{done}  {rate:.3g}/s"
    f = min(1.0, done / total)
    filled = int(f * width)
    return (f"[{'#' * filled}{'-' * (width - filled)}] {100 * f:5.1f}%  {rate:.3g}/s  "
            f"ETA {format_eta(eta_seconds(done, total, rate))}")


def format_line(done: int, total: int, rate: float) -> str:
    """"progress: 50.0% (500/1000) 1.23e+08/s ETA 3.0 s", for output that is not a terminal."""
    if total <= 0:
        return f"progress: {done} {rate:.3g}/s"
    eta = eta_seconds(done, total, rate)
    tail = f" ETA {eta:.1f} s" if eta >= 0 else ""
    return f"progress: {100 * min(1.0, done / total):.1f}% ({done}/{total}) {rate:.3g}/s{tail}"


@dataclass
class PollStats:
    polls: int = 0
    distinct: int = 0      # distinct values read (the first read counts as one)
    last: int = 0
    first: int = 0
    seconds: float = 0.0   # from start() to the final read


# ---------------------------------------------------------------- displays

class _Quiet:
    def update(self, value: int, rate: float) -> None:
        pass

    def close(self, value: int, rate: float) -> None:
        pass


class _Tqdm:
    def __init__(self, total: int, label: str, out: TextIO):
        from tqdm import tqdm
        self.bar = tqdm(total=total or None, desc=label or None, unit="it", unit_scale=True,
                        file=out, dynamic_ncols=True)

    def update(self, value: int, rate: float) -> None:
        step = value - int(self.bar.n)
        if step > 0:
            self.bar.update(step)

    def close(self, value: int, rate: float) -> None:
        self.update(value, rate)
        self.bar.close()


class _Line:
    """A bar redrawn with \\r on a terminal, else a plain line a second and one at the end."""

    def __init__(self, total: int, label: str, out: TextIO, redraw: bool, line_period: float):
        self.total, self.out, self.redraw = total, out, redraw
        self.label = f"{label} " if label else ""
        self.line_period = line_period
        self.last_line = time.monotonic()
        self.width = 0

    def update(self, value: int, rate: float, final: bool = False) -> None:
        if self.redraw:
            text = "\r" + self.label + format_bar(value, self.total, rate)
            pad = max(0, self.width - len(text))
            self.width = len(text)
            self.out.write(text + " " * pad + ("\n" if final else ""))
            self.out.flush()
            return
        now = time.monotonic()
        if final or now - self.last_line >= self.line_period:
            self.last_line = now
            self.out.write(self.label + format_line(value, self.total, rate) + "\n")
            self.out.flush()

    def close(self, value: int, rate: float) -> None:
        self.update(value, rate, final=True)


def _have_tqdm() -> bool:
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False
    return True


def make_display(display: str, total: int, label: str, out: TextIO, line_period: float = 1.0):
    """display: "auto" (tqdm where installed, else "bar" on a terminal and "lines" otherwise),
    "tqdm", "bar", "lines" or "quiet"."""
    if display == "auto":
        if _have_tqdm():
            display = "tqdm"
        else:
            display = "bar" if hasattr(out, "isatty") and out.isatty() else "lines"
    if display == "tqdm":
        return _Tqdm(total, label, out)
    if display in ("bar", "lines"):
        return _Line(total, label, out, display == "bar", line_period)
    if display == "quiet":
        return _Quiet()
    raise ValueError(f"display must be auto, tqdm, bar, lines or quiet, not {display!r}")


# ---------------------------------------------------------------- the slots and the poller

def _event():
    try:
        return cuda.event(timing=False)
    except TypeError:   # the simulator's Event takes no arguments
        return cuda.event()


def _done(event) -> bool:
    query = getattr(event, "query", None)   # the simulator runs kernels synchronously
    return True if query is None else bool(query())


class LiveProgress:
    """`writers` slots in mapped host memory, zeroed, for one launch at a time.

    The kernel gets `slots` (a uint64 array, one element per writer) and `period_ns`, and calls
    kernel_progress.report / finish (device.py). start() starts a thread that reads the sum
    every `interval` seconds and draws it; wait() waits for the kernels enqueued on `stream`
    (querying an event, so the thread keeps drawing meanwhile), reads the exact final count and
    draws it. As a context manager: start() on entry, wait() on exit.

    total: what the slots sum to at the end (0: unknown, no percent or ETA).
    display: "auto", "tqdm", "bar", "lines" or "quiet" (make_display).
    """

    def __init__(self, writers: int, total: int = 0, *, label: str = "", interval: float = 0.02,
                 display: str = "auto", out: Optional[TextIO] = None,
                 period_ns: Optional[int] = None, line_period: float = 1.0):
        if int(writers) <= 0:
            raise ValueError(f"writers must be positive, not {writers}")
        if interval <= 0:
            raise ValueError(f"interval must be positive, not {interval}")
        self.writers = int(writers)
        self.total = int(total)
        self.label = label
        self.interval = float(interval)
        self.display_kind = display
        self.out = sys.stderr if out is None else out
        self.line_period = line_period
        self.period_ns = int(period_ns) if period_ns else period_for(self.writers)
        self.slots = cuda.mapped_array(self.writers, dtype=np.uint64)
        self.slots[:] = 0
        self.count: Optional[int] = None
        self.stats = PollStats()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._display = None
        self._t0 = 0.0

    @classmethod
    def per_block(cls, grid: int, total: int = 0, **kwargs) -> "LiveProgress":
        """A slot per block: slot index = cuda.blockIdx.x, written by thread 0."""
        return cls(grid, total, **kwargs)

    @classmethod
    def per_warp(cls, grid: int, block: int, total: int = 0, **kwargs) -> "LiveProgress":
        """A slot per warp: slot index = blockIdx.x * (blockDim.x // 32) + threadIdx.x // 32,
        written by lane 0. The block must be whole warps."""
        if block <= 0 or block % 32:
            raise ValueError(f"a per-warp slot needs a block of whole warps, not {block} threads")
        return cls(grid * (block // 32), total, **kwargs)

    # ------------------------------------------------------------ reading

    def read(self) -> int:
        """The sum of the slots now (any time, from any thread; no CUDA call)."""
        return int(self.slots.sum(dtype=np.uint64))

    def reset(self) -> None:
        """Zeroes the slots for the next launch. Only while no kernel writes them."""
        self.slots[:] = 0
        self.count = None

    def _rate(self, value: int) -> float:
        elapsed = time.monotonic() - self._t0
        return (value - self.stats.first) / elapsed if elapsed > 0 else 0.0

    def _poll(self) -> int:
        value = self.read()
        with self._lock:
            st = self.stats
            if st.polls == 0:
                st.first, st.distinct = value, 1
            elif value != st.last:
                st.distinct += 1
            st.polls += 1
            st.last = value
            if self._display is not None:
                self._display.update(value, self._rate(value))
        return value

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._poll()

    # ------------------------------------------------------------ a launch

    def start(self) -> "LiveProgress":
        """Starts the drawing thread (before or just after the launch)."""
        if self._thread is not None:
            raise RuntimeError("LiveProgress: start() twice without wait()")
        self.stats = PollStats()
        self._stop.clear()
        self._display = make_display(self.display_kind, self.total, self.label, self.out,
                                     self.line_period)
        self._t0 = time.monotonic()
        self._poll()
        self._thread = threading.Thread(target=self._run, name="kernel-progress", daemon=True)
        self._thread.start()
        return self

    def wait(self, stream=0, timeout: Optional[float] = None) -> int:
        """Waits for the work enqueued on `stream` so far, stops the thread, draws the final
        count and returns it (exact: every writer has stored its total). TimeoutError after
        `timeout` seconds (the thread is stopped; the kernel may still run)."""
        event = _event()
        event.record(stream)
        deadline = None if timeout is None else time.monotonic() + timeout
        pause = min(self.interval, 0.002)
        try:
            while not _done(event):
                if deadline is not None and time.monotonic() > deadline:
                    raise TimeoutError(f"LiveProgress: the kernel did not end within {timeout} s "
                                       f"(the slots sum to {self.read()})")
                time.sleep(pause)
        finally:
            self._stop_thread()
        value = self._poll()
        self.count = value
        with self._lock:
            self.stats.seconds = time.monotonic() - self._t0
            if self._display is not None:
                self._display.close(value, self._rate(value))
                self._display = None
        return value

    def _stop_thread(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None

    def __enter__(self) -> "LiveProgress":
        return self.start()

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.wait()
        else:
            self._stop_thread()
