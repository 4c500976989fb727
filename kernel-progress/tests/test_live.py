"""The writer's own pair (report / finish) and the host side together, under Numba's CUDA
simulator: the slots end at exactly the work done, the host sees the count grow while the kernel
runs, and the package's own displays and its errors behave as documented."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import time

import numpy as np
import pytest

from numba import cuda, uint64

import kernel_progress as kp
from kernel_progress import host
from conftest import EXAMPLES, env_with_simulator

assert kp.device.SIMULATOR, "these tests run under the simulator (conftest.py)"


@cuda.jit
def doubles_per_block(x, out, slots, period_ns):
    done = cuda.shared.array(1, uint64)
    if cuda.threadIdx.x == 0:
        done[0] = 0
    cuda.syncthreads()
    last = kp.now()
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = 2.0 * x[i]
        d = cuda.atomic.add(done, 0, uint64(1)) + uint64(1)
        if cuda.threadIdx.x == 0:
            last = kp.report(slots, cuda.blockIdx.x, d, last, period_ns)
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        kp.finish(slots, cuda.blockIdx.x, done[0])


@cuda.jit
def doubles_per_warp(x, out, slots, period_ns):
    done = cuda.shared.array(32, uint64)
    warp = cuda.threadIdx.x // 32
    lane = cuda.threadIdx.x % 32
    slot = cuda.blockIdx.x * (cuda.blockDim.x // 32) + warp
    if lane == 0:
        done[warp] = 0
    kp.syncwarp()
    last = kp.now()
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = 2.0 * x[i]
        d = cuda.atomic.add(done, warp, uint64(1)) + uint64(1)
        if lane == 0:
            last = kp.report(slots, slot, d, last, period_ns)
    kp.syncwarp()
    if lane == 0:
        kp.finish(slots, slot, done[warp])


def items(n):
    return np.arange(n, dtype=np.float64) + 0.5


@pytest.mark.parametrize("n", [1, 100, 1001])
def test_block_slots_sum_to_the_items_exactly(n):
    grid, block = 3, 32
    x = items(n)
    out = np.zeros(n)
    live = kp.LiveProgress.per_block(grid, total=n, display="quiet")
    with live:
        doubles_per_block[grid, block](x, out, live.slots, live.period_ns)
    assert live.count == n
    np.testing.assert_array_equal(out, 2.0 * x)
    # Each block's slot holds exactly the items of its threads' grid-stride loops.
    per_block = [sum(1 for i in range(n) if (i % (grid * block)) // block == b)
                 for b in range(grid)]
    assert live.slots.copy_to_host().tolist() == per_block


def test_warp_slots_sum_to_the_items_exactly():
    grid, block, n = 2, 64, 333
    live = kp.LiveProgress.per_warp(grid, block, total=n, display="quiet")
    assert live.writers == 4
    x = items(n)
    out = np.zeros(n)
    with live:
        doubles_per_warp[grid, block](x, out, live.slots, live.period_ns)
    assert live.count == n
    assert int(live.slots.sum()) == n
    assert all(v > 0 for v in live.slots.copy_to_host().tolist())


def test_the_host_sees_the_count_grow_while_the_kernel_runs():
    # A period of 0: every report stores. The simulator runs blocks one after another, so a
    # reader between them sees partial sums; each poll prints a line (line_period 0).
    grid, block, n = 4, 32, 640
    out_text = io.StringIO()
    live = kp.LiveProgress.per_block(grid, total=n, display="lines", out=out_text,
                                     period_ns=1, interval=0.001, line_period=0.0)
    x = items(n)
    with live:
        doubles_per_block[grid, block](x, np.zeros(n), live.slots, live.period_ns)
    counts = [int(m) for m in re.findall(r"\((\d+)/640\)", out_text.getvalue())]
    assert counts == sorted(counts), "the sum of the slots never goes back"
    assert counts[-1] == n
    assert len(set(counts)) >= 2 and live.stats.distinct >= 2
    assert out_text.getvalue().splitlines()[-1].startswith("progress: 100.0% (640/640) ")


def test_a_reused_board_is_reset_between_launches():
    grid, block, n = 2, 32, 100
    live = kp.LiveProgress.per_block(grid, total=n, display="quiet")
    for _ in range(2):
        live.reset()
        with live:
            doubles_per_block[grid, block](items(n), np.zeros(n), live.slots, live.period_ns)
        assert live.count == n


def test_bar_display_redraws_one_line_and_ends_it():
    out_text = io.StringIO()
    live = kp.LiveProgress(2, total=10, display="bar", out=out_text, label="job")
    live.start()
    live.slots[:] = [4, 6]
    assert live.wait() == 10
    text = out_text.getvalue()
    assert text.startswith("\rjob [")
    assert text.endswith("] 100.0%  " + text.rsplit("100.0%  ", 1)[1])
    assert text.endswith("\n") and text.count("\n") == 1


def test_tqdm_display():
    out_text = io.StringIO()
    live = kp.LiveProgress(1, total=5, display="tqdm", out=out_text, label="job")
    live.start()
    live.slots[0] = 5
    assert live.wait() == 5
    assert re.search(r"job: 100%\|#+\| 5(\.00)?/5(\.00)? ", out_text.getvalue())


def test_wait_gives_up_after_its_timeout(monkeypatch):
    monkeypatch.setattr(host, "_done", lambda event: False)   # a kernel that never ends
    live = kp.LiveProgress(1, total=1, display="quiet", interval=0.001)
    live.start()
    t0 = time.monotonic()
    with pytest.raises(TimeoutError, match="did not end within 0.05 s"):
        live.wait(timeout=0.05)
    assert time.monotonic() - t0 < 5
    assert live._thread is None, "the drawing thread is stopped"


def test_bad_arguments_say_what_is_wrong():
    with pytest.raises(ValueError, match="whole warps"):
        kp.LiveProgress.per_warp(4, 48)
    with pytest.raises(ValueError, match="must be positive"):
        kp.LiveProgress(0)
    with pytest.raises(ValueError, match="must be positive"):
        kp.LiveProgress((4, 0))
    with pytest.raises(ValueError, match="1, 2 or 3 dimensions"):
        kp.LiveProgress((1, 2, 3, 4))
    with pytest.raises(ValueError, match="display must be"):
        kp.LiveProgress(1, display="fancy")
    with pytest.raises(TypeError, match="tqdm's options \\(leave\\) need display"):
        kp.LiveProgress(1, display="lines", leave=False)
    live = kp.LiveProgress(1, display="quiet").start()
    with pytest.raises(RuntimeError, match="start\\(\\) twice"):
        live.start()
    live.wait()


def test_the_example_runs_on_the_poisson_kernel():
    for extra in ([], ["--per-warp"]):
        r = subprocess.run([sys.executable, str(EXAMPLES / "poisson_progress.py"),
                            "--display", "lines", "--streams", "64", "--block", "32", *extra],
                           env=env_with_simulator(), capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        assert re.search(r"the slots sum to 2000 of 2000; .* \(ok\)", r.stderr), r.stderr[-2000:]
