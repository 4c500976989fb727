"""What the real CUDA target compiles (ptx_check.py, without the simulator).

kp.tally: the warp's count made by votes (a ballot), added with one global atomic add, with no
barrier, no volatile load or store and no fence, on the article's kernel, a 2D grid and a
grid-stride loop.
report/finish: two volatile global stores per kernel (the report when due, the final count), the
time from %globaltimer, and no global atomic or fence added by the reporting (the tally in
shared memory is the kernel's own)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import HERE, env_without_simulator


@pytest.fixture(scope="module")
def ptx():
    r = subprocess.run([sys.executable, str(HERE / "ptx_check.py")], env=env_without_simulator(),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


CCS = ("sm_90", "sm_75")
WRITER = [f"{k}/{cc}" for k in ("poisson_per_block", "poisson_per_warp") for cc in CCS]
TALLY = [f"{k}/{cc}" for k in ("article_tally", "grid_2d_tally", "grid_stride_tally")
         for cc in CCS]


@pytest.mark.parametrize("name", WRITER + TALLY)
def test_kernel_compiles_for_the_target(ptx, name):
    assert ptx[name]["target"]


@pytest.mark.parametrize("name", TALLY)
def test_tally_adds_once_per_call_with_one_global_atomic(ptx, name):
    assert ptx[name]["global_adds"] == 1
    assert ptx[name]["atomics"] == 1


@pytest.mark.parametrize("name", TALLY)
def test_tally_sums_the_warp_with_votes_and_waits_for_nothing(ptx, name):
    assert ptx[name]["ballots"] >= 1
    assert ptx[name]["barriers"] == 0
    assert ptx[name]["volatile_loads"] == 0 and ptx[name]["volatile_stores"] == 0
    assert ptx[name]["fences"] == 0


@pytest.mark.parametrize("name", WRITER)
def test_slots_are_written_with_volatile_stores(ptx, name):
    assert ptx[name]["volatile_stores"] == 2


@pytest.mark.parametrize("name", WRITER)
def test_period_is_timed_on_the_global_timer(ptx, name):
    assert ptx[name]["globaltimer"]


@pytest.mark.parametrize("name", WRITER)
def test_reporting_adds_no_global_atomic_or_fence(ptx, name):
    assert ptx[name]["global_atomics"] == 0
    assert ptx[name]["fences"] == 0
