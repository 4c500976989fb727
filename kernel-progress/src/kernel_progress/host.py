"""Host side: the slots, a thread that sums them and draws a bar, the final count checked.

    with LiveProgress(grid, total=n, desc="work") as progress:   # tqdm's keyword arguments
        kernel[grid, block](..., progress.slots)
    print(progress.count)                       # the final count, checked against n

The slots are a device array of uint64, one per block (or per writer). The host reads them with
a copy into pinned memory on a stream of its own, created non-blocking so that it does not wait
for the kernel on Numba's default stream (a stream made by `cuda.stream()` would: it
synchronizes with the legacy default stream). Each slot only grows during a launch, so the sum
of a copy only grows from one read to the next; once the kernel has ended it is exactly the work
counted.

The thread sleeps `interval` seconds between reads: a Python thread that spins while the main
thread launches makes each Numba launch wait for the GIL (about 10 ms a launch instead of
0.1 ms on the H200 machine).
"""

from __future__ import annotations

import math
import sys
import threading
import time
import warnings
import weakref
from dataclasses import dataclass
from typing import Any, Optional, TextIO, Union

import numpy as np
from numba import cuda

from .device import SIMULATOR

# A writer stores at most once a period: at least every 20 us, and no more than ~10 million
# stores a second from all writers together (writers x 100 ns), so that the writes to host
# memory stay a small part of what PCIe carries whatever the grid (the suite's C++ rule,
# common/progress.cpp live_period_ns). 1,024 blocks: 102 us each.
MIN_PERIOD_NS = 20_000
NS_PER_WRITER = 100


# The host reads every 5 ms: 100 distinct values in a kernel of half a second, where a bar's eye
# needs a few dozen. Each read copies 8 bytes a slot; for grids of more than ~125,000 slots the
# period grows so that the reads move at most 200 MB a second over PCIe.
READ_INTERVAL_S = 0.005
READ_BYTES_PER_S = 200e6


def interval_for(writers: int) -> float:
    """The default seconds between the host's reads of `writers` slots."""
    return max(READ_INTERVAL_S, 8.0 * int(writers) / READ_BYTES_PER_S)


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


# The slots of launches given up on (a timeout, Ctrl-C): a kernel that still runs writes them,
# so their memory is never freed, whatever happens to the LiveProgress.
_ABANDONED: list = []


class KernelProgressWarning(UserWarning):
    """The final count is not the total: the bar was wrong, and the warning says why."""


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
    """tqdm.auto's bar (a widget in a notebook), drawn from the slots' sum.

    tqdm draws on update() only when `mininterval` has passed since its last drawing, so a
    count that grew just after a drawing and then stayed would be shown stale until the end
    (0% for 3 s while the slots summed to 40%, under the simulator). The bar is refreshed
    every `mininterval` (tqdm's 0.1 s unless given) whatever the count did."""

    def __init__(self, total: int, kwargs: dict):
        from tqdm.auto import tqdm
        opts = {"unit": "it", "unit_scale": True, "dynamic_ncols": True}
        opts.update(kwargs)
        opts.setdefault("total", total or None)
        self.bar = tqdm(**opts)
        self.period = max(float(getattr(self.bar, "mininterval", 0.1) or 0.1), 0.01)
        self.refreshed = time.monotonic()

    def _set(self, value: int) -> None:
        step = value - int(self.bar.n)
        if step > 0:
            self.bar.update(step)
        elif step < 0:
            self.bar.n = value

    def update(self, value: int, rate: float) -> None:
        if self.bar.disable:
            return
        self._set(value)
        now = time.monotonic()
        if now - self.refreshed >= self.period:
            self.bar.refresh()
            self.refreshed = now

    def close(self, value: int, rate: float) -> None:
        if not self.bar.disable:
            self._set(value)
            self.bar.refresh()
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


DISPLAYS = ("auto", "tqdm", "bar", "lines", "quiet")


def make_display(display: str, total: int, label: str, out: Optional[TextIO],
                 line_period: float = 1.0, tqdm_kwargs: Optional[dict] = None):
    """display: "auto" or "tqdm" (tqdm.auto's bar, with `tqdm_kwargs`), "bar" (the package's
    line redrawn with \\r), "lines" (a line a second, for logs) or "quiet"."""
    if display not in DISPLAYS:
        raise ValueError(f"display must be one of {', '.join(DISPLAYS)}, not {display!r}")
    tqdm_kwargs = dict(tqdm_kwargs or {})
    if display in ("auto", "tqdm"):
        if label and "desc" not in tqdm_kwargs:
            tqdm_kwargs["desc"] = label
        if out is not None and "file" not in tqdm_kwargs:
            tqdm_kwargs["file"] = out
        return _Tqdm(total, tqdm_kwargs)
    if tqdm_kwargs:
        raise TypeError(f"tqdm's options ({', '.join(sorted(tqdm_kwargs))}) need display='auto' "
                        f"or 'tqdm', not {display!r}")
    if display == "quiet":
        return _Quiet()
    return _Line(total, label, sys.stderr if out is None else out, display == "bar",
                 line_period)


# ---------------------------------------------------------------- the slots and the poller

def _event():
    try:
        return cuda.event(timing=False)
    except TypeError:   # the simulator's Event takes no arguments
        return cuda.event()


def _done(event) -> bool:
    query = getattr(event, "query", None)   # the simulator runs kernels synchronously
    return True if query is None else bool(query())


def side_stream():
    """A stream of the current context that does not wait for the legacy default stream (Numba's
    default, where the user's kernel usually runs): CU_STREAM_NON_BLOCKING, made through
    cuda-bindings (numba-cuda's own binding) since `cuda.stream()` makes only blocking ones."""
    if SIMULATOR:
        return cuda.stream()
    from cuda.bindings import driver as cu
    cuda.current_context()
    err, handle = cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING.value)
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"kernel-progress: cuStreamCreate failed: {err}")
    stream = cuda.external_stream(int(handle))
    weakref.finalize(stream, cu.cuStreamDestroy, handle)
    return stream


def _zeroed_slots(writers: int):
    return cuda.to_device(np.zeros(writers, dtype=np.uint64))


def _writers(grid: Union[int, tuple, list]) -> int:
    if isinstance(grid, (tuple, list)):
        if not 1 <= len(grid) <= 3:
            raise ValueError(f"a grid has 1, 2 or 3 dimensions, not {len(grid)}: {grid!r}")
        dims = [int(d) for d in grid]
        if any(d <= 0 for d in dims):
            raise ValueError(f"every dimension of the grid must be positive: {grid!r}")
        return math.prod(dims)
    if int(grid) <= 0:
        raise ValueError(f"the grid (blocks, or writers) must be positive, not {grid}")
    return int(grid)


def why_wrong(count: int, total: int, writers: int) -> str:
    """What a final count that is not the total most likely means."""
    if count == 0:
        return (f"the slots stayed at 0 of {total}: the kernel never called kp.tally (or "
                f"kp.finish) with these slots, or it did not run")
    if count > total:
        return (f"the count ended at {count}, over the total {total}: threads past the work "
                f"were counted (a padded grid: pass the bounds test, e.g. `i < n`, as the "
                f"count), an item counted twice (kp.tally called twice for it, e.g. in a "
                f"device function and in its caller), two launches inside one `with` (the "
                f"slots are zeroed once per `with`: their counts add up), or the total is "
                f"wrong")
    return (f"the count ended at {count} of {total}: some threads did not call kp.tally (a "
            f"return or a branch before it), the grid has more blocks than the {writers} "
            f"slots, or the total is wrong")


class LiveProgress:
    """A progress bar for a kernel: one slot per block (or per writer) in device memory.

    grid: the launch's blocks, an int or a 2D/3D tuple (a slot each; or the writers' number for
        report/finish). total: what the slots sum to at the end (0: unknown, no percentage).
    stream: the stream the kernel is launched on (Numba's default stream when None): the
        `with` block, and wait(), wait for the work enqueued on it.
    timeout: seconds the `with` block waits for the kernel before TimeoutError (None: no limit).
    check: warn (KernelProgressWarning) when the final count is not the total.
    display: "auto" (tqdm.auto's bar), "bar", "lines" or "quiet" (make_display).
    Any other keyword argument is tqdm's (desc, unit, leave, position, disable, ...).

    start() zeroes the slots and starts a thread that reads their sum every `interval` seconds
    (None: 5 ms, longer for grids of over ~125,000 slots, `interval_for`)
    and draws it; wait() waits for the stream, draws the final count and checks it. As a
    context manager: start() on entry, wait() on exit; on an exception, Ctrl-C or a timeout
    the bar is closed where it stood, `count` keeps the last sum read, and `slots` is a new
    array (a kernel that still runs writes the old one, which is never freed). An instance can
    be used for any number of launches, one after another.
    """

    def __init__(self, grid: Union[int, tuple, list] = 1, total: int = 0, *,
                 label: str = "", stream: Any = None, timeout: Optional[float] = None,
                 check: bool = True, interval: Optional[float] = None, display: str = "auto",
                 out: Optional[TextIO] = None, period_ns: Optional[int] = None,
                 line_period: float = 1.0, **tqdm_kwargs):
        if interval is not None and interval <= 0:
            raise ValueError(f"interval must be positive, not {interval}")
        if display not in DISPLAYS:
            raise ValueError(f"display must be one of {', '.join(DISPLAYS)}, not {display!r}")
        self.writers = _writers(grid)
        self.total = int(total)
        self.label = label
        self.stream = stream
        self.timeout = timeout
        self.check = check
        self.interval = float(interval) if interval is not None else interval_for(self.writers)
        self.display_kind = display
        self.out = out
        self.line_period = line_period
        self.tqdm_kwargs = tqdm_kwargs
        if tqdm_kwargs and display not in ("auto", "tqdm"):
            raise TypeError(f"tqdm's options ({', '.join(sorted(tqdm_kwargs))}) need "
                            f"display='auto' or 'tqdm', not {display!r}")
        self.period_ns = int(period_ns) if period_ns else period_for(self.writers)
        self.slots = _zeroed_slots(self.writers)
        self._copy = cuda.pinned_array(self.writers, dtype=np.uint64)
        self._stream = side_stream()
        self._read_lock = threading.Lock()
        self.count: Optional[int] = None
        self.interrupted = False
        self.stats = PollStats()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._display = None
        self._t0 = 0.0

    @classmethod
    def per_block(cls, grid: Union[int, tuple, list], total: int = 0,
                  **kwargs) -> "LiveProgress":
        """A slot per block (kp.tally's, or a block's thread 0 with report/finish at slot
        block_index())."""
        return cls(grid, total, **kwargs)

    @classmethod
    def per_warp(cls, grid: Union[int, tuple, list], block: int, total: int = 0,
                 **kwargs) -> "LiveProgress":
        """A slot per warp: slot index = block_index() * (blockDim.x // 32) + threadIdx.x // 32,
        written by lane 0 with report/finish. The block must be whole warps."""
        if block <= 0 or block % 32:
            raise ValueError(f"a per-warp slot needs a block of whole warps, not {block} threads")
        return cls(_writers(grid) * (block // 32), total, **kwargs)

    # ------------------------------------------------------------ reading

    def read(self) -> int:
        """The sum of the slots now (any time, from any thread): a copy on the instance's own
        stream, which does not wait for the kernel."""
        with self._read_lock:
            self.slots.copy_to_host(self._copy, stream=self._stream)
            self._stream.synchronize()
            return int(self._copy.sum(dtype=np.uint64))

    def reset(self) -> None:
        """Zeroes the slots for the next launch. Only while no kernel writes them (start()
        does it)."""
        self.slots.copy_to_device(np.zeros(self.writers, dtype=np.uint64))
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
        cuda.current_context()   # this thread's copies need the context current here too
        while not self._stop.wait(self.interval):
            self._poll()

    # ------------------------------------------------------------ a launch

    def start(self) -> "LiveProgress":
        """Zeroes the slots and starts the drawing thread (before the launch)."""
        if self._thread is not None:
            raise RuntimeError("LiveProgress: start() twice without wait()")
        self.reset()
        self.interrupted = False
        self.stats = PollStats()
        self._stop.clear()
        self._display = make_display(self.display_kind, self.total, self.label, self.out,
                                     self.line_period, self.tqdm_kwargs)
        self._t0 = time.monotonic()
        self._poll()
        self._thread = threading.Thread(target=self._run, name="kernel-progress", daemon=True)
        self._thread.start()
        return self

    def wait(self, stream: Any = None, timeout: Optional[float] = None, *,
             _stacklevel: int = 2) -> int:
        """Waits for the work enqueued on `stream` (the instance's stream, else Numba's default
        stream) so far, stops the thread, draws the final count, checks it against the total
        and returns it (exact: every block has stored its total). TimeoutError after `timeout`
        seconds (the instance's timeout when None; the kernel may still run); on it, or on
        Ctrl-C, the bar is closed where it stood and `count` is the last sum read."""
        stream = stream if stream is not None else self.stream
        timeout = timeout if timeout is not None else self.timeout
        try:
            event = _event()
            event.record(stream if stream is not None else cuda.default_stream())
            deadline = None if timeout is None else time.monotonic() + timeout
            pause = min(self.interval, 0.002)
            while not _done(event):
                if deadline is not None and time.monotonic() > deadline:
                    raise TimeoutError(f"LiveProgress: the kernel did not end within {timeout} s "
                                       f"(the slots sum to {self.read()})")
                time.sleep(pause)
        except BaseException:
            self._abandon()
            raise
        value = self.close()
        if self.check and self.total > 0 and value != self.total:
            warnings.warn(why_wrong(value, self.total, self.writers), KernelProgressWarning,
                          stacklevel=_stacklevel)
        return value

    def _abandon(self) -> None:
        """The kernel may still run: the bar is closed, and these slots are kept alive and a
        next start() gets new ones."""
        self.close(interrupted=True)
        _ABANDONED.append(self.slots)
        self.slots = _zeroed_slots(self.writers)

    def close(self, interrupted: bool = False) -> int:
        """Stops the drawing thread, draws the last sum and closes the bar; keeps the sum in
        `count` and returns it. wait() and the `with` block call it."""
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
        value = self._poll()
        self.count = value
        self.interrupted = self.interrupted or interrupted
        with self._lock:
            self.stats.seconds = time.monotonic() - self._t0
            if self._display is not None:
                display, self._display = self._display, None
                display.close(value, self._rate(value))
        return value

    def __enter__(self) -> "LiveProgress":
        return self.start()

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.wait(_stacklevel=3)
        else:
            self._abandon()
