"""The API's harness: validation refuses planted bugs (an element never written, an
accumulator never reset, an unwritten integer whose right value is the first poison pattern),
skips say why, Ctrl-C keeps what was measured, the ceilings' source is recorded, the rows are
the suite's."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from numba import cuda, njit

import twinbench.bench as tb
from conftest import REPO, command, env, run_command

TINY = dict(sizes=[64], blocks=[32])


def quiet_run(*workloads, **kw):
    kw.setdefault("out", None)
    kw.setdefault("ceilings", "none")
    return tb.run(*workloads, quick=True, **kw)


def inputs2(n, seed):
    return tb.uniform(n, seed), tb.uniform(n, seed + 1)


@cuda.jit
def add_gpu(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def add_gpu_skips_last(a, b, c):
    i = cuda.grid(1)
    if i < c.size - 1:
        c[i] = a[i] + b[i]


@njit
def add_serial(a, b, c):
    for i in range(c.size):
        c[i] = a[i] + b[i]


def test_a_kernel_that_skips_its_last_element_gets_no_time():
    w = tb.Workload("vector_add", reference=lambda a, b: a + b, inputs=inputs2,
                    gpu=[add_gpu_skips_last], **TINY)
    result = quiet_run(w)
    assert result.exit_code == 1
    rows = result.rows()
    for name in ("vector_add/cuda_add_gpu_skips_last/n:64/block:32/mode:kernel",
                 "vector_add/cuda_add_gpu_skips_last/n:64/block:32/mode:e2e",
                 "vector_add/cuda_add_gpu_skips_last_pageable/n:64/block:32/mode:e2e"):
        row = rows[name]
        assert row["error_occurred"] and "samples_s" not in row
        assert row["error_message"] == "validation failed: non-finite output at index 63"


def test_the_right_pair_passes_with_the_suites_fields():
    w = tb.Workload("vector_add", reference=lambda a, b: a + b, inputs=inputs2,
                    cpu=[add_serial], gpu=[add_gpu], flops=lambda n: n, **TINY)
    result = quiet_run(w)
    assert result.ok, result.counts
    rows = result.rows()
    cpu = rows["vector_add/serial_add_serial/n:64"]
    assert cpu["side"] == "cpu" and cpu["precision"] == "fp32" and cpu["max_rel_err"] == 0
    assert cpu["read_bytes_per_iter"] == 512 and cpu["written_bytes_per_iter"] == 256
    assert cpu["flop_per_iter"] == 64 and cpu["samples"] >= 2 and len(cpu["samples_s"]) >= 2
    kernel = rows["vector_add/cuda_add_gpu/n:64/block:32/mode:kernel"]
    assert kernel["grid_blocks"] == 2 and kernel["block"] == 32 and kernel["mode"] == "kernel"
    # Under the simulator there are no kernel attributes, and the context says so.
    assert "regs_per_thread" not in kernel and "occupancy" not in kernel
    assert "unavailable under Numba's CUDA simulator" in result.doc["context"]["kernel_attributes"]
    assert rows["vector_add/cuda_add_gpu/n:64/block:32/mode:e2e"]["host_pinned"] == 1
    assert rows["vector_add/cuda_add_gpu_pageable/n:64/block:32/mode:e2e"]["host_pinned"] == 0


@njit
def histogram_not_reset(x, hist):
    for v in x:
        hist[v] += 1


@njit
def histogram(x, hist):
    hist[:] = 0
    for v in x:
        hist[v] += 1


def test_an_unsigned_accumulator_never_reset_fails_and_a_reset_one_passes():
    # With one pattern of zeros (an unsigned type's minimum) the first would pass.
    w = tb.Workload("histogram",
                    reference=lambda x: np.bincount(x, minlength=16).astype(np.uint32),
                    inputs=lambda n, seed: (tb.uniform(n, seed, 0, 16, np.int32),),
                    cpu=[histogram_not_reset, histogram], sizes=[1000])
    rows = quiet_run(w).rows()
    assert rows["histogram/serial_histogram_not_reset/n:1000"]["error_occurred"]
    assert "validation failed" in rows["histogram/serial_histogram_not_reset/n:1000"][
        "error_message"]
    assert not rows["histogram/serial_histogram/n:1000"].get("error_occurred")


@cuda.jit
def minus_one_skips_last(a, out):
    i = cuda.grid(1)
    if i < out.size - 1:
        out[i] = -1


def test_an_unwritten_integer_whose_value_is_the_first_pattern_fails_on_the_second():
    # Every right value is -1: 0xFF bytes. The first check passes; the 0x55 one catches it.
    w = tb.Workload("fill", reference=lambda a: np.full(a.size, -1, np.int32),
                    inputs=lambda n, seed: (tb.uniform(n, seed),),
                    gpu=[minus_one_skips_last], **TINY)
    row = quiet_run(w).rows()["fill/cuda_minus_one_skips_last/n:64/block:32/mode:kernel"]
    assert row["error_occurred"] and "index 63" in row["error_message"]


def test_a_block_the_device_cannot_run_is_a_skip_with_the_reason():
    w = tb.Workload("vector_add", reference=lambda a, b: a + b, inputs=inputs2,
                    gpu=[add_gpu], sizes=[64], blocks=[48])
    result = quiet_run(w)
    assert result.exit_code == 0 and result.counts["skipped"] == 3
    row = result.rows()["vector_add/cuda_add_gpu/n:64/block:48/mode:kernel"]
    assert "not a multiple of the warp size" in row["error_message"]


def test_any_callable_on_device_arrays_is_a_gpu_variant_without_a_block_axis():
    def add_callable(a, b, c):
        add_gpu[2, 32](a, b, c)

    w = tb.Workload("vector_add", reference=lambda a, b: a + b, inputs=inputs2,
                    gpu=[add_callable], sizes=[64])
    rows = quiet_run(w).rows()
    assert set(rows) == {"vector_add/cuda_add_callable/n:64/mode:kernel",
                         "vector_add/cuda_add_callable/n:64/mode:e2e"}
    assert not any(r.get("error_occurred") for r in rows.values())


def test_two_variants_of_one_name_are_refused():
    with pytest.raises(ValueError, match="two variants named"):
        tb.Workload("w", reference=lambda a: a, inputs=lambda n, s: (tb.uniform(n, s),),
                    cpu=[add_serial, tb.Cpu(add_serial)])


def test_the_ceilings_come_from_the_twinbench_binary_where_given(tmp_path):
    fake = tmp_path / "twinbench"
    context = {"cpu_bw_add_all_bytes_per_s": "3e10", "cpu_bw_add_one_bytes_per_s": "1e10",
               "gpu_bw_add_bytes_per_s": "4e12", "gpu_roof_fp32_flops": "6e13", "other": "x"}
    fake.write_text(f"#!/bin/sh\necho \"$@\" > {tmp_path}/args\n"
                    "for a in \"$@\"; do case $a in --benchmark_out=*) "
                    f"printf '%s' '{json.dumps({'context': context, 'benchmarks': []})}' "
                    "> \"${a#--benchmark_out=}\";; esac; done\n")
    fake.chmod(0o755)
    w = tb.Workload("vector_add", reference=lambda a, b: a + b, inputs=inputs2,
                    cpu=[add_serial], sizes=[64])
    result = quiet_run(w, ceilings="binary", twinbench=str(fake))
    ctx = result.doc["context"]
    assert ctx["ceilings_source"] == f"the twinbench binary ({fake})"
    assert ctx["gpu_roof_fp32_flops"] == "6e13" and "other" not in ctx
    assert result.rows()["vector_add/serial_add_serial/n:64"]["ceiling_bytes_per_s"] == 1e10
    # Tiny rows of the binary's (it refuses a filter that selects none), one per ceiling set.
    from twinbench.bench.ceilings import PROBE_ROW
    assert f"--benchmark_filter={PROBE_ROW} --size=4096" in (tmp_path / "args").read_text()


def test_without_the_binary_the_ceilings_are_measured_in_python():
    w = tb.Workload("vector_add", reference=lambda a, b: a + b, inputs=inputs2,
                    cpu=[add_serial], sizes=[64])
    result = quiet_run(w, ceilings="python")
    ctx = result.doc["context"]
    assert ctx["ceilings_source"].startswith("Python ceiling kernels")
    assert "no GPU ceilings under Numba's CUDA simulator" in ctx["ceilings_source"]
    assert float(ctx["cpu_bw_triad_all_bytes_per_s"]) > 0
    assert result.rows()["vector_add/serial_add_serial/n:64"]["pct_ceiling"] > 0


SLOW = """
import time
import twinbench.bench as tb

def copy_slowly(a, c):
    time.sleep(0.2)
    c[:] = a

slow = tb.Workload("slow", reference=lambda a: a.copy(),
                   inputs=lambda n, seed: (tb.uniform(n, seed),),
                   cpu=[copy_slowly], sizes=[10, 20, 30, 40, 50, 60])
"""


def test_ctrl_c_keeps_what_was_measured_and_exits_130(tmp_path):
    (tmp_path / "slow.py").write_text(textwrap.dedent(SLOW))
    proc = subprocess.Popen(command("twinbench-py") + ["run", "slow.py", "--ceilings=none"],
                            cwd=tmp_path, env=env(), stderr=subprocess.PIPE, text=True)
    seen = []
    deadline = time.time() + 120
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("[3/6"):
            proc.send_signal(signal.SIGINT)
            break
        assert time.time() < deadline, "".join(seen)
    rest = proc.stderr.read()
    assert proc.wait(timeout=120) == 130, "".join(seen) + rest
    run = json.loads((tmp_path / "twinbench-py.json").read_text())
    rows = {r["name"]: r for r in run["benchmarks"]}
    assert not rows["slow/serial_copy_slowly/n:10/manual_time"].get("error_occurred")
    assert not rows["slow/serial_copy_slowly/n:20/manual_time"].get("error_occurred")
    assert "interrupted" in rows["slow/serial_copy_slowly/n:60/manual_time"]["error_message"]
    assert run["context"]["run_complete"] is False
    assert run["context"]["run_interrupted_by"] == "SIGINT"


def test_the_command_line_refuses_a_file_without_workloads(tmp_path):
    (tmp_path / "empty.py").write_text("x = 1\n")
    r = run_command(command("twinbench-py") + ["run", "empty.py"], tmp_path)
    assert r.returncode == 2 and "defines no twinbench.bench.Workload" in r.stderr
    r = run_command(command("twinbench-py") + ["run", "missing.py"], tmp_path)
    assert r.returncode == 2 and "no such file" in r.stderr


def test_list_prints_the_rows(tmp_path):
    (tmp_path / "slow.py").write_text(textwrap.dedent(SLOW))
    r = run_command(command("twinbench-py") + ["run", "slow.py", "--list", "--quick"], tmp_path)
    assert r.returncode == 0 and r.stdout.split() == ["slow/serial_copy_slowly/n:10"]


def test_importing_the_package_imports_no_numba():
    code = ("import sys, twinbench.bench as tb; assert 'numba' not in sys.modules; "
            "assert 'Workload' in dir(tb)")
    r = subprocess.run([sys.executable, "-c", code], env=env(), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


BUILT = REPO / "build" / "twinbench"


@pytest.mark.skipif(not BUILT.is_file(), reason="no twinbench binary built in build/")
def test_the_ceilings_of_the_built_binary():
    w = tb.Workload("vector_add", reference=lambda a, b: a + b, inputs=inputs2,
                    cpu=[add_serial], sizes=[64])
    result = quiet_run(w, ceilings="binary", twinbench=str(BUILT))
    ctx = result.doc["context"]
    assert ctx["ceilings_source"] == f"the twinbench binary ({BUILT})"
    assert float(ctx["cpu_bw_add_one_bytes_per_s"]) > 0 and "cpu_roof_fp32_flops" in ctx
    assert result.rows()["vector_add/serial_add_serial/n:64"]["ceiling_bytes_per_s"] > 0
