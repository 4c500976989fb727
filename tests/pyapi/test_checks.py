"""What a user gets wrong, planted in a pair and refused before any timing: a result of another
type than the reference's, a write past the end of an output (CPU @njit code; the device
buffers' guards), a version wrong only at a size the quick run does not check; and the default
tolerance, which lets a correct float32 stencil pass at every size.

Each planted bug passed the harness before these checks existed (each test failed there), and
each test passes with them."""

from __future__ import annotations

import numpy as np
from numba import cuda, njit

import twinbench.bench as tb

CPU_ONLY = dict(ceilings="none", out=None, no_gpu=True)


def inputs2(n, seed):
    return tb.uniform(n, seed), tb.uniform(n, seed + 1)


def failure(result, row: str) -> str:
    r = result.rows()[row]
    assert r["error_occurred"] and "samples_s" not in r, r
    return r["error_message"]


# ---------------------------------------------------------------- the result's type

def test_a_result_of_another_type_is_refused_naming_both_types():
    w = tb.Workload("vector_add", reference=lambda a, b: a + b, inputs=inputs2,
                    cpu=[tb.Cpu(lambda a, b: a.astype(np.float64) + b, name="wide")],
                    sizes=[64])
    result = tb.run(w, quick=True, **CPU_ONLY)
    assert result.exit_code == 1
    message = failure(result, "vector_add/serial_wide/n:64")
    assert message.startswith("validation failed: output 0 is float64, the reference's is "
                              "float32"), message


def test_the_reference_s_type_returned_passes():
    w = tb.Workload("vector_add", reference=lambda a, b: a + b, inputs=inputs2,
                    cpu=[tb.Cpu(lambda a, b: a + b, name="same")], sizes=[64])
    assert tb.run(w, quick=True, **CPU_ONLY).ok


def test_declared_output_types_are_what_a_result_must_have():
    w = tb.Workload("vector_add", reference=lambda a, b: a.astype(np.float64) + b,
                    inputs=inputs2, outputs=np.float32, sizes=[64],
                    cpu=[tb.Cpu(lambda a, b: a + b, name="narrow"),
                         tb.Cpu(lambda a, b: a.astype(np.float64) + b, name="wide")])
    result = tb.run(w, quick=True, **CPU_ONLY)
    assert "median_s" in result.rows()["vector_add/serial_narrow/n:64"]
    assert "output 0 is float64, the reference's is float32" in failure(
        result, "vector_add/serial_wide/n:64")


# ---------------------------------------------------------------- past the end

@njit
def add_one_past(a, b, c):
    for i in range(c.size + 1):          # <= where < was meant
        c[i] = a[min(i, a.size - 1)] + b[min(i, b.size - 1)]


@njit
def add(a, b, c):
    for i in range(c.size):
        c[i] = a[i] + b[i]


def test_a_cpu_version_writing_past_the_end_of_its_output_is_refused():
    w = tb.Workload("vector_add", reference=lambda a, b: a + b, inputs=inputs2,
                    cpu=[add_one_past, add], sizes=[100])
    result = tb.run(w, quick=True, **CPU_ONLY)
    assert result.exit_code == 1
    assert failure(result, "vector_add/serial_add_one_past/n:100") == (
        "validation failed: wrote past the end of output out0: element 100 (the output has 100) "
        "changed after the call; an index test such as `i < out.size` is missing or off by one")
    assert "median_s" in result.rows()["vector_add/serial_add/n:100"]


def test_an_integer_output_written_past_its_end_is_refused_on_either_pattern():
    @njit
    def count_one_past(a, c):
        for i in range(c.size + 1):
            c[i] = i

    w = tb.Workload("ramp", reference=lambda a: np.arange(a.size, dtype=np.int64),
                    inputs=lambda n, seed: tb.uniform(n, seed), cpu=[count_one_past], sizes=[50])
    result = tb.run(w, quick=True, **CPU_ONLY)
    assert "wrote past the end of output out0: element 50" in failure(
        result, "ramp/serial_count_one_past/n:50")


def test_the_device_buffers_guards_catch_a_write_past_the_end():
    # A kernel's stray store, made here through the whole allocation (the simulator's arrays
    # check bounds, a GPU's do not).
    from twinbench.bench.checks import GUARD_ELEMENTS
    dev = tb.Buffers({}, {"out0": ((10,), np.float32)})
    for p in (0, 1):
        dev.poison_patterns(p)
        assert dev.past_the_end(p) == ""
        dev._whole["out0"][10 + 3] = 1.0
        assert dev.past_the_end(p).startswith(
            "wrote past the end of output out0: element 13 (the output has 10)")
    dev.poison_patterns(0)
    dev._whole["out0"][10 + GUARD_ELEMENTS - 1] = 1.0
    assert "element 1033" in dev.past_the_end(0)


@cuda.jit
def add_gpu(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def add_gpu_one_past(a, b, c):
    i = cuda.grid(1)
    if i <= c.size:
        c[i] = a[min(i, a.size - 1)] + b[min(i, b.size - 1)]


def test_a_kernel_writing_past_the_end_gets_no_time():
    # Under the simulator the stray store is an IndexError (its arrays check bounds); on a GPU
    # the device buffer's guard refuses it (scripts/gpu-python.sh plants this bug there).
    w = tb.Workload("vector_add", reference=lambda a, b: a + b, inputs=inputs2,
                    gpu=[add_gpu_one_past, add_gpu], sizes=[60], blocks=[32])
    result = tb.run(w, quick=True, ceilings="none", out=None)
    assert result.exit_code == 1
    rows = result.rows()
    bad = rows["vector_add/cuda_add_gpu_one_past/n:60/block:32/mode:kernel"]
    assert bad["error_occurred"] and "samples_s" not in bad
    assert "median_s" in rows["vector_add/cuda_add_gpu/n:60/block:32/mode:kernel"]


# ---------------------------------------------------------------- every timed size checked

@njit
def add_wrong_when_large(a, b, c):
    for i in range(c.size):
        c[i] = a[i] + b[i]
    if c.size > 1000:
        c[c.size // 2] += 1.0


def test_a_version_wrong_only_at_a_large_size_gets_no_time_there():
    w = tb.Workload("vector_add", reference=lambda a, b: a + b, inputs=inputs2,
                    cpu=[add_wrong_when_large], sizes=[100, 5000], quick_sizes=[100])
    quick = tb.run(w, quick=True, **CPU_ONLY)
    assert quick.ok and set(quick.rows()) == {"vector_add/serial_add_wrong_when_large/n:100"}
    full = tb.run(w, **CPU_ONLY)
    assert full.exit_code == 1
    assert "median_s" in full.rows()["vector_add/serial_add_wrong_when_large/n:100"]
    assert "at index 2500" in failure(full, "vector_add/serial_add_wrong_when_large/n:5000")


def test_every_measured_row_was_checked_at_its_own_size(monkeypatch):
    from twinbench.bench import engine
    checked = []
    original = engine.Runner._validated

    def spy(self, row, key, check, tolerance):
        def run_and_note():   # a validating call actually made, at this row's size
            checked.append(row.base)
            return check()
        return original(self, row, key, run_and_note, tolerance)

    monkeypatch.setattr(engine.Runner, "_validated", spy)
    w = tb.Workload("vector_add", reference=lambda a, b: a + b, inputs=inputs2,
                    cpu=[add], gpu=[add_gpu], sizes=[64, 96], blocks=[32, 64])
    result = tb.run(w, ceilings="none", out=None)
    assert result.ok
    measured = [n for n, r in result.rows().items() if "median_s" in r]
    assert len(measured) == 2 + 2 * (2 + 2)

    def verdict_of(name: str) -> str:   # a kernel's e2e rows share its kernel row's verdict
        parts = [p.removesuffix("_pageable") for p in name.split("/") if not p.startswith("mode:")]
        return "/".join(parts)

    validated = {verdict_of(c) for c in checked}
    assert all(verdict_of(n) in validated for n in measured), (measured, checked)


# ---------------------------------------------------------------- the default tolerance

def stencil_reference(a):
    # The outer pair first: another order than the versions', as a NumPy reference may have.
    out = a.copy()
    out[1:-1] = ((a[:-2] + a[2:]) + a[1:-1]) / np.float32(3)
    return out


@njit
def stencil_serial(a, out):
    out[0], out[-1] = a[0], a[-1]
    for i in range(1, a.size - 1):
        out[i] = (a[i - 1] + a[i] + a[i + 1]) / 3


@cuda.jit
def stencil_gpu(a, out):
    i = cuda.grid(1)
    if i < out.size:
        if i == 0 or i == out.size - 1:
            out[i] = a[i]
        else:
            out[i] = (a[i - 1] + a[i] + a[i + 1]) / 3


def stencil(sizes, **kw):
    return tb.Workload("stencil3", reference=stencil_reference,
                       inputs=lambda n, seed: tb.uniform(n, seed), sizes=sizes,
                       flops=lambda n: 3 * n, **kw)


def test_a_correct_float32_stencil_passes_at_every_size_with_the_default_tolerance():
    result = tb.run(stencil([1000, 1 << 16, 1 << 20], cpu=[stencil_serial]), **CPU_ONLY)
    assert result.ok, {n: r.get("error_message") for n, r in result.rows().items()}
    from twinbench.bench.workload import EPS_PER_OPERATION
    for row in result.rows().values():
        assert row["max_rel_err"] <= EPS_PER_OPERATION * 3 * np.finfo(np.float32).eps


def test_the_stencil_s_kernel_passes_with_the_default_tolerance():
    result = tb.run(stencil([1000], gpu=[stencil_gpu], blocks=[64]), quick=True,
                    ceilings="none", out=None)
    assert result.ok, {n: r.get("error_message") for n, r in result.rows().items()}


def test_the_default_tolerance_comes_from_the_type_the_operations_and_the_inputs():
    from twinbench.bench.workload import EPS_PER_OPERATION, default_tolerance
    a = tb.uniform(1000, 1, -4.0, 4.0)
    f32 = default_tolerance([a], [np.empty(1000, np.float32)], 3 * 1000)
    assert f32.rel == EPS_PER_OPERATION * 3 * np.finfo(np.float32).eps
    assert 3.9 < f32.scale_floor <= 4.0                # the inputs' largest magnitude
    f64 = default_tolerance([a], [np.empty(1000, np.float64)], 0)
    assert f64.rel == EPS_PER_OPERATION * np.finfo(np.float64).eps   # at least one operation
    assert default_tolerance([a], [np.empty(1000, np.int32)], 1000).rel == 0.0


def test_a_tolerance_given_is_the_one_used():
    w = tb.Workload("vector_add", reference=lambda a, b: a + b, inputs=inputs2,
                    cpu=[tb.Cpu(lambda a, b: a + b + np.float32(1e-3), name="off")],
                    sizes=[64], tolerance=tb.Tolerance(1e-2, 1.0))
    assert tb.run(w, quick=True, **CPU_ONLY).ok
    w.tolerance = tb.Tolerance(1e-6, 1.0)
    assert tb.run(w, quick=True, **CPU_ONLY).exit_code == 1
