"""Each peer's validation passes its own kernel and catches a broken one (an element or a block
dropped, a term lost, a biased sampler, a miscounting progress counter, a copy that did not
happen), run at small sizes: the CUDA peers under Numba's CUDA simulator, the CPU peers as the
real @njit code (sim_driver.py)."""

from __future__ import annotations

import pytest

from conftest import needs_numba
from peers.numba.plan import PEERS

pytestmark = needs_numba

GPU_CASES = [
    "vector_add/numba_cuda", "dot/numba_cuda", "grayscale/numba_cuda",
    "grayscale/numba_cuda_coalesced", "sgemm/numba_cuda", "sgemm/numba_cuda_shared",
    "conv2d/numba_cuda", "black_scholes/numba_cuda", "nested_loop/numba_cuda",
    "lucas/numba_cuda", "poisson/numba_cuda", "progress/numba_cuda",
    "progress/numba_cuda/none", "progress/numba_cuda/live_block", "progress/numba_cuda/live_warp",
    "progress/numba_cuda/managed",
    "transpose/numba_cuda_slow", "transpose/numba_cuda_fast",
    "transfers/numba_cuda_pageable/h2d", "transfers/numba_cuda_pageable/d2h",
    "transfers/numba_cuda_pinned/h2d", "transfers/numba_cuda_pinned/d2h",
]
CPU_CASES = [
    "vector_add/numba_cpu", "dot/numba_cpu", "grayscale/numba_cpu", "sgemm/numba_cpu",
    "conv2d/numba_cpu", "black_scholes/numba_cpu", "nested_loop/numba_cpu",
    "nested_loop/numba_cpu_serial", "lucas/numba_cpu", "lucas/numba_cpu_serial",
    "poisson/numba_cpu", "transpose/numba_cpu",
]


def test_every_peer_has_a_case():
    covered = {"/".join(c.split("/")[:2]) for c in GPU_CASES + CPU_CASES}
    assert covered == {f"{p.workload}/{p.impl}" for p in PEERS}


def _check(results: dict, case: str) -> None:
    entry = results[case]
    assert entry["ok"]["passed"] is True, f"{case}: its own kernel failed: {entry['ok']['detail']}"
    assert entry["broken"]["passed"] is False, (
        f"{case}: the broken kernel was not caught: {entry['broken']['detail']}")


@pytest.mark.parametrize("case", GPU_CASES)
def test_cuda_peer_validation(sim_gpu, case):
    _check(sim_gpu, case)


@pytest.mark.parametrize("case", CPU_CASES)
def test_cpu_peer_validation(sim_cpu, case):
    _check(sim_cpu, case)


def test_poisson_is_validated_by_its_statistics(sim_cpu, sim_gpu):
    # The article's sampler at 1.1x (CPU, 100000 samples) and 2x (GPU, 64) the rate: nothing is
    # unwritten, only the mean, the variance and (CPU) the chi-square can tell.
    for results in (sim_cpu, sim_gpu):
        name = "poisson/numba_cpu" if results is sim_cpu else "poisson/numba_cuda"
        assert "mean=" in results[name]["broken"]["detail"]
        assert "negative=0" in results[name]["broken"]["detail"]
    assert "dof 15" in sim_cpu["poisson/numba_cpu"]["ok"]["detail"]   # the chi-square ran


def test_progress_counter_is_checked(sim_gpu):
    assert "the counter ended at" in sim_gpu["progress/numba_cuda"]["broken"]["detail"]
    assert "the counter ended at" in sim_gpu["progress/numba_cuda/managed"]["broken"]["detail"]
    for way in ("live_block", "live_warp"):
        assert "the slots ended at 62, expected 64" in \
            sim_gpu[f"progress/numba_cuda/{way}"]["broken"]["detail"]
    # Without a counter, the samples alone are checked (a biased sampler).
    assert "mean=" in sim_gpu["progress/numba_cuda/none"]["broken"]["detail"]


def test_every_cuda_kernel_compiles_for_the_h200(ptx):
    failed = {k: v["error"] for k, v in ptx.items() if not v["ok"]}
    assert not failed, failed
    # The shared-memory kernels use shared memory; the recursion is real calls.
    assert all(ptx[k]["shared"] for k in ptx if k.startswith(("dot/block", "sgemm/shared")))
    assert ptx["lucas"]["calls"]
    assert len(ptx) >= 20
