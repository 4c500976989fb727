"""The peers' inputs are the suite's, bit for bit: twinbench.bench.inputs against the C++
generator (common/random.cpp), compiled here when g++ is present, and against digests of its
output taken from that program (so the check holds without a compiler too)."""

from __future__ import annotations

import hashlib
import shutil
import subprocess

import numpy as np
import pytest

from conftest import REPO
from twinbench.bench import inputs

# Writes the values the Python side computes below, as raw bytes, in the same order.
CPP_PROGRAM = r"""
#include <cstdio>
#include <cstdint>
#include <vector>
#include "common/random.hpp"
template <class T> void put(const std::vector<T>& v) {
  std::fwrite(v.data(), sizeof(T), v.size(), stdout);
}
int main() {
  std::vector<float> a((1u << 22) + 7);
  tb::fill_uniform(std::span<float>(a), 0x5eed0001, -1.f, 1.f); put(a);
  std::vector<float> b(1000); tb::fill_uniform(std::span<float>(b), 0x5eed0b51, 1.f, 100.f); put(b);
  std::vector<double> c(1000); tb::fill_uniform(std::span<double>(c), 7, 0.25, 10.0); put(c);
  std::vector<int32_t> d(1000); tb::fill_uniform(std::span<int32_t>(d), 9, -1, 2); put(d);
  std::vector<int32_t> e(1000);
  tb::fill_uniform(std::span<int32_t>(e), 11, INT32_MIN, INT32_MAX); put(e);
  std::vector<uint8_t> f(5000);  // transfers::fill_bytes (cpu/transfers.cpp), seed 0x5eed7a45
  const uint64_t base = tb::mix64(0x5eed7a45);
  for (size_t i = 0; i < f.size(); ++i) {
    const uint8_t v = uint8_t(tb::mix64(base + i) >> 56);
    f[i] = v == 0xFF ? 0x7F : v;
  }
  put(f);
  std::vector<uint64_t> g = {tb::mix64(tb::mix64(3) + ((1ull << 28) - 1)),
                             tb::mix64(tb::mix64(3) + (1ull << 32) + 5)};
  put(g);
}
"""

# sha256 of the program's output (g++ 12.2).
CPP_DIGEST = "1a47f8f291f3928950e5b01665b9fbfc523492518e2a93984dace28d7642ca03"


def python_values() -> list[np.ndarray]:
    return [
        # 2^22 + 7 elements: across a chunk boundary of the threaded fill
        inputs.fill_uniform((1 << 22) + 7, 0x5EED0001, -1.0, 1.0),
        inputs.fill_uniform(1000, 0x5EED0B51, 1.0, 100.0),
        inputs.fill_uniform(1000, 7, 0.25, 10.0, np.float64),
        inputs.fill_uniform(1000, 9, -1, 2, np.int32),            # zeros replaced by 1
        inputs.fill_uniform(1000, 11, -2**31, 2**31 - 1, np.int32),
        inputs.fill_bytes(5000, 0x5EED7A45),
        np.concatenate([inputs.hashes(3, 2**28 - 1, 2**28), inputs.hashes(3, 2**32 + 5, 2**32 + 6)]),
    ]


def python_bytes() -> bytes:
    return b"".join(v.tobytes() for v in python_values())


def test_matches_the_digest_of_the_cpp_generator():
    assert hashlib.sha256(python_bytes()).hexdigest() == CPP_DIGEST


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ to build the C++ generator")
def test_matches_the_cpp_generator_compiled_now(tmp_path):
    source = tmp_path / "values.cpp"
    source.write_text(CPP_PROGRAM)
    exe = tmp_path / "values"
    subprocess.run(["g++", "-std=c++20", "-O2", f"-I{REPO}", str(source),
                    str(REPO / "common/random.cpp"), "-o", str(exe)], check=True, timeout=120)
    cpp = subprocess.run([str(exe)], check=True, capture_output=True, timeout=60).stdout
    ours = python_bytes()
    assert len(cpp) == len(ours)
    if cpp != ours:
        first = next(i for i in range(len(ours)) if cpp[i] != ours[i])
        pytest.fail(f"first differing byte at offset {first}")


def test_the_generator_properties_the_suite_relies_on():
    a = inputs.fill_uniform(100_000, 1, -1.0, 1.0)
    assert a.dtype == np.float32 and a.min() >= -1 and a.max() < 1 and not (a == 0).any()
    ints = inputs.fill_uniform(10_000, 9, -1, 2, np.int32)
    assert set(np.unique(ints)) == {-1, 1}   # zero is never an input
    assert not (inputs.fill_bytes(100_000, 5) == inputs.POISON_BYTE).any()
    # Element i depends on (seed, i) only: a prefix is the shorter array.
    assert np.array_equal(inputs.fill_uniform(10, 4, 0, 1), inputs.fill_uniform(100, 4, 0, 1)[:10])


def test_mix64_scalar_and_array_agree():
    xs = [0, 1, 2**63, 2**64 - 1, 0x5EED0001]
    assert [inputs.mix64_scalar(x) for x in xs] == \
        inputs.mix64(np.array(xs, dtype=np.uint64)).tolist()
