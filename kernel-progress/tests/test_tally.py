"""kp.tally (one call in the user's kernel) with LiveProgress, under Numba's CUDA simulator:
exact counts on 1D, 2D and 3D grids, padded grids, grid-stride loops, from a device function and
with threads that return before the call; a warning naming the likely cause when the count is
not the total (a padded grid, an item counted twice, two launches in one `with`); reuse; the bar
closed and the last count kept on Ctrl-C, an exception or a timeout; tqdm.auto with tqdm's
options; a bar redrawn while the count stands still; the stream waited on."""

from __future__ import annotations

import contextlib
import io
import time
import warnings

import numpy as np
import pytest
from numba import cuda

import kernel_progress as kp
from kernel_progress import host

assert kp.device.SIMULATOR, "these tests run under the simulator (conftest.py)"


@cuda.jit
def one_per_thread(out, slots):            # the article's shape: a thread per item
    i = cuda.grid(1)
    if i < out.size:
        out[i] = 2 * i
    kp.tally(slots, i < out.size)


@cuda.jit
def counts_the_padding(out, slots):        # the bounds test forgotten in the count
    i = cuda.grid(1)
    if i < out.size:
        out[i] = 2 * i
    kp.tally(slots, 1)


@cuda.jit
def never_counts(out, slots):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = 2 * i


@cuda.jit
def grid_2d(out, slots):
    x, y = cuda.grid(2)
    inside = x < out.shape[0] and y < out.shape[1]
    if inside:
        out[x, y] = 1
    kp.tally(slots, inside)


@cuda.jit
def grid_3d(out, slots):
    x, y, z = cuda.grid(3)
    inside = x < out.shape[0] and y < out.shape[1] and z < out.shape[2]
    if inside:
        out[x, y, z] = 1
    kp.tally(slots, inside)


@cuda.jit(device=True)
def sample(out, i, slots):
    if i < out.size:
        out[i] = 2 * i
    kp.tally(slots, i < out.size)


@cuda.jit
def through_a_device_function(out, slots):
    sample(out, cuda.grid(1), slots)


@cuda.jit
def grid_stride(out, slots):
    for i in range(cuda.grid(1), kp.padded(out.size), cuda.gridsize(1)):
        if i < out.size:
            out[i] = 2 * i
        kp.tally(slots, i < out.size)


@cuda.jit
def chunks(out, slots, chunk):             # a count of several items a call
    start = cuda.grid(1) * chunk
    done = 0
    for i in range(start, min(start + chunk, out.size)):
        out[i] = 2 * i
        done += 1
    kp.tally(slots, done)


@cuda.jit
def returns_early(out, slots):             # threads past the work leave before the call
    i = cuda.grid(1)
    if i >= out.size:
        return
    out[i] = 2 * i
    kp.tally(slots, 1)


@cuda.jit
def counts_twice(out, slots):              # the item counted in a device function and again
    i = cuda.grid(1)
    sample(out, i, slots)
    kp.tally(slots, i < out.size)


def quiet(grid, total, **kw):
    return kp.LiveProgress(grid, total=total, display="quiet", **kw)


@contextlib.contextmanager
def no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", kp.KernelProgressWarning)
        yield


def test_a_thread_per_item_in_a_padded_grid_counts_exactly():
    n, grid, block = 100, 4, 32                # 128 threads for 100 items
    out = np.zeros(n, dtype=np.int64)
    with no_warning():
        with quiet(grid, n) as live:
            one_per_thread[grid, block](out, live.slots)
    assert live.count == n
    assert live.slots.copy_to_host().tolist() == [32, 32, 32, 4]      # a slot per block
    np.testing.assert_array_equal(out, 2 * np.arange(n))


def test_a_padded_grid_counted_whole_warns_and_names_the_padding():
    n, grid, block = 100, 4, 32
    with pytest.warns(kp.KernelProgressWarning, match=r"128, over the total 100.*padded grid"):
        with quiet(grid, n) as live:
            counts_the_padding[grid, block](np.zeros(n, dtype=np.int64), live.slots)
    assert live.count == 128


def test_a_2d_grid_counts_every_block_in_its_own_slot():
    shape, grid, block = (10, 7), (3, 2), (4, 4)
    out = np.zeros(shape, dtype=np.int64)
    with no_warning():
        with quiet(grid, out.size) as live:
            grid_2d[grid, block](out, live.slots)
    assert live.writers == 6 and live.count == 70 and out.sum() == 70
    # Slot bx + 3 by holds the block's cells: x in [4 bx, 4 bx + 4) and y in [4 by, 4 by + 4).
    want = [min(4, 10 - 4 * bx) * min(4, 7 - 4 * by) for by in range(2) for bx in range(3)]
    assert live.slots.copy_to_host().tolist() == want


def test_a_3d_grid_counts_exactly():
    shape, grid, block = (3, 3, 3), (2, 2, 2), (2, 2, 2)
    out = np.zeros(shape, dtype=np.int64)
    with quiet(grid, out.size) as live:
        grid_3d[grid, block](out, live.slots)
    assert live.writers == 8 and live.count == 27 and out.sum() == 27
    assert live.slots.copy_to_host().tolist()[0] == 8 and live.slots.copy_to_host().tolist()[7] == 1


def test_the_call_works_from_a_device_function():
    n = 50
    with quiet(2, n) as live:
        through_a_device_function[2, 32](np.zeros(n, dtype=np.int64), live.slots)
    assert live.count == n


def test_a_grid_stride_loop_over_whole_rounds_counts_exactly():
    n, grid, block = 37, 2, 8                  # 16 threads, 3 rounds, the last one partial
    out = np.zeros(n, dtype=np.int64)
    with quiet(grid, n) as live:
        grid_stride[grid, block](out, live.slots)
    assert live.count == n
    np.testing.assert_array_equal(out, 2 * np.arange(n))


def test_counts_of_several_items_a_call_are_summed():
    n, chunk = 50, 3                           # 20 threads of 3 items, the last ones short
    with quiet(2, n) as live:
        chunks[2, 10](np.zeros(n, dtype=np.int64), live.slots, chunk)
    assert live.count == n


def test_a_kernel_that_never_counts_warns_that_the_slots_stayed_at_zero():
    with pytest.warns(kp.KernelProgressWarning, match="stayed at 0 of 10.*never called kp.tally"):
        with quiet(1, 10) as live:
            never_counts[1, 32](np.zeros(10, dtype=np.int64), live.slots)
    assert live.count == 0


def test_threads_that_return_before_the_call_count_nothing_and_stop_nobody():
    grid, block, n = 4, 32, 100
    with no_warning():
        with quiet(grid, n) as live:
            returns_early[grid, block](np.zeros(n, dtype=np.int64), live.slots)
    assert live.count == n
    assert live.slots.copy_to_host().tolist() == [32, 32, 32, 4]


def test_an_item_counted_twice_is_named_in_the_warning():
    with pytest.warns(kp.KernelProgressWarning, match="over the total 100.*kp.tally called "
                      "twice for it"):
        with quiet(4, 100) as live:
            counts_twice[4, 32](np.zeros(100, dtype=np.int64), live.slots)
    assert live.count == 200


def test_two_launches_in_one_with_are_named_in_the_warning():
    with pytest.warns(kp.KernelProgressWarning, match="over the total 100.*two launches inside "
                      "one `with`"):
        with quiet(4, 100) as live:
            one_per_thread[4, 32](np.zeros(100, dtype=np.int64), live.slots)
            one_per_thread[4, 32](np.zeros(100, dtype=np.int64), live.slots)
    assert live.count == 200


def test_a_wrong_total_warns_at_the_user_s_line():
    with pytest.warns(kp.KernelProgressWarning, match="ended at 10 of 12.*total is wrong") as w:
        with quiet(1, 12) as live:
            one_per_thread[1, 32](np.zeros(10, dtype=np.int64), live.slots)
    assert live.count == 10
    assert w[0].filename == __file__
    live.start()
    one_per_thread[1, 32](np.zeros(10, dtype=np.int64), live.slots)
    with pytest.warns(kp.KernelProgressWarning) as w:
        live.wait()
    assert w[0].filename == __file__


def test_a_grid_larger_than_the_slots_warns_and_writes_nothing_past_them():
    with pytest.warns(kp.KernelProgressWarning, match="more blocks than the 2 slots"):
        with quiet(2, 100) as live:
            one_per_thread[4, 32](np.zeros(100, dtype=np.int64), live.slots)
    assert live.count == 64


def test_no_warning_without_a_total_or_with_check_off():
    with no_warning():
        with quiet(1, 0) as live:
            counts_the_padding[1, 32](np.zeros(10, dtype=np.int64), live.slots)
        with quiet(1, 10, check=False) as live:
            counts_the_padding[1, 32](np.zeros(10, dtype=np.int64), live.slots)
    assert live.count == 32


def test_a_reused_instance_starts_each_bar_at_zero():
    text = io.StringIO()
    live = kp.LiveProgress(4, total=100, file=text, mininterval=0, ascii=True)
    counts = []
    for _ in range(3):
        mark = len(text.getvalue())
        with live:
            one_per_thread[4, 32](np.zeros(100, dtype=np.int64), live.slots)
        counts.append(live.count)
        drawn = text.getvalue()[mark:]
        assert drawn.lstrip("\r").startswith("  0%"), drawn[:80]
        assert "100%" in drawn
    assert counts == [100, 100, 100]


def test_the_bar_is_tqdm_auto_with_tqdm_s_options():
    from tqdm.auto import tqdm as auto_tqdm
    text = io.StringIO()
    live = kp.LiveProgress(2, total=50, desc="job", unit="sample", leave=False, position=0,
                           file=text, ascii=True)
    live.start()
    bar = live._display.bar
    assert isinstance(bar, auto_tqdm)
    assert (bar.desc, bar.unit, bar.leave) == ("job", "sample", False)
    live.slots[:] = [25, 25]
    assert live.wait() == 50
    # leave=False: tqdm clears the line at the end.
    assert text.getvalue().endswith("\r") or text.getvalue().endswith("\x1b[A")


def test_disable_draws_nothing_and_still_counts():
    text = io.StringIO()
    with kp.LiveProgress(4, total=100, disable=True, file=text) as live:
        one_per_thread[4, 32](np.zeros(100, dtype=np.int64), live.slots)
    assert live.count == 100 and text.getvalue() == ""


def test_a_count_that_stands_still_is_redrawn_within_a_period():
    # tqdm alone would not draw 40% before the end: the update came inside its mininterval
    # and nothing changed after it.
    text = io.StringIO()
    live = kp.LiveProgress(1, total=10, file=text, mininterval=0.2, interval=0.005, ascii=True)
    live.start()
    live.slots[0] = 4
    time.sleep(0.6)
    shown = text.getvalue()
    live.slots[0] = 10
    live.wait()
    assert " 40%" in shown, shown


def wait_forever(monkeypatch):
    monkeypatch.setattr(host, "_done", lambda event: False)


def test_a_timeout_closes_the_bar_and_keeps_the_count(monkeypatch):
    wait_forever(monkeypatch)
    text = io.StringIO()
    t0 = time.monotonic()
    with pytest.raises(TimeoutError, match="did not end within 0.05 s"):
        with kp.LiveProgress(1, total=10, timeout=0.05, file=text, ascii=True) as live:
            slots = live.slots
            live.slots[0] = 3
    assert time.monotonic() - t0 < 5
    assert live.count == 3 and live.interrupted
    assert live._thread is None and live._display is None
    assert " 30%" in text.getvalue()
    # The kernel may still write the old slots: they are kept; the instance has new ones.
    assert any(a is given for a in host._ABANDONED for given in [slots])
    assert live.slots is not slots and live.slots.copy_to_host().tolist() == [0]


def test_ctrl_c_while_waiting_closes_the_bar_and_keeps_the_count(monkeypatch):
    calls = []

    def done(event):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return False

    monkeypatch.setattr(host, "_done", done)
    text = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        with kp.LiveProgress(1, total=10, file=text, ascii=True) as live:
            live.slots[0] = 6
    assert live.count == 6 and live.interrupted
    assert live._thread is None and live._display is None
    assert " 60%" in text.getvalue()


@pytest.mark.parametrize("error", [KeyboardInterrupt, RuntimeError])
def test_an_exception_in_the_block_closes_the_bar_keeps_the_count_and_does_not_warn(error):
    text = io.StringIO()
    with no_warning():
        with pytest.raises(error):
            with kp.LiveProgress(4, total=100, file=text, ascii=True) as live:
                one_per_thread[4, 32](np.zeros(100, dtype=np.int64), live.slots)
                raise error("stop")
    assert live.count == 100 and live.interrupted
    assert live._thread is None and live._display is None
    assert "100%" in text.getvalue()


def test_the_with_block_waits_on_the_launch_stream(monkeypatch):
    recorded = []

    class Event:
        def record(self, stream=0):
            recorded.append(stream)

    monkeypatch.setattr(host, "_event", Event)
    stream = cuda.stream()
    with quiet(1, 0, stream=stream):
        pass
    with quiet(1, 0):
        pass
    live = quiet(1, 0).start()
    other = cuda.stream()
    live.wait(stream=other)
    assert recorded[0] is stream
    assert recorded[2] is other
    assert type(recorded[1]) is type(cuda.default_stream())
