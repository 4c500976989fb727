#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/random.hpp"
#include "cpu/atomics.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/atomics.hpp"
#endif

namespace tb::atomics {
namespace {

std::vector<std::int32_t> inputs(std::size_t n) {
  std::vector<std::int32_t> v(n);
  fill_uniform(std::span<std::int32_t>(v), kSeed, kLo, kHi);
  return v;
}

std::int64_t naive_sum(const std::vector<std::int32_t>& v) {
  std::int64_t s = 0;
  for (auto x : v) s += x;
  return s;
}

TEST(Atomics, SerialIsTheSum) {
  const std::vector<std::int32_t> v = {5, -7, 2147483647, 2147483647, -3};
  EXPECT_EQ(serial(v.data(), v.size()), std::int64_t{5} - 7 + 2 * std::int64_t{2147483647} - 3);
  EXPECT_EQ(serial(v.data(), 0), 0);
}

TEST(Atomics, OmpVariantsMatchSerial) {
  for (std::size_t n : test::edge_sizes()) {
    const auto v = inputs(n);
    const std::int64_t ref = naive_sum(v);
    EXPECT_EQ(serial(v.data(), n), ref) << n;
    EXPECT_EQ(omp_atomic(v.data(), n), ref) << n;
    EXPECT_EQ(omp_reduction(v.data(), n), ref) << n;
  }
}

TEST(Atomics, CompareExactFlagsAnyDifference) {
  EXPECT_TRUE(passes(compare_exact(42, 42), kExact));
  EXPECT_FALSE(passes(compare_exact(43, 42), kExact));
}

// ---- Mutation tests: each mutation of a correct sum must fail the bench's check. ----
// The check is exact (integer sums; cpu/atomics.hpp), so the bound is 0: a change of one unit
// (the last place of an integer) fails, and a lost block fails unless its partial sum is 0,
// in which case the result is the same integer and nothing can tell. The default size (256M,
// 1 GiB) is run in full: one fill and one pass.
struct MutationCase {
  std::vector<std::int32_t> in;
  std::int64_t ref;
  explicit MutationCase(std::size_t n) : in(inputs(n)), ref(serial(in.data(), n)) {}
};
std::vector<const MutationCase*> mutation_cases() {
  static const MutationCase odd(4099), quick(kQuickSize), full(kDefaultSize);
  return {&odd, &quick, &full};
}

TEST(AtomicsMutation, CorrectOrdersPassAndOneUnitFails) {
  for (const MutationCase* c : mutation_cases()) {
    const std::size_t n = c->in.size();
    EXPECT_TRUE(passes(compare_exact(omp_reduction(c->in.data(), n), c->ref), kExact)) << n;
    // Reversed order: every order of integer additions gives the same bits.
    std::int64_t reversed = 0;
    for (std::size_t i = n; i-- > 0;) reversed += c->in[i];
    EXPECT_TRUE(passes(compare_exact(reversed, c->ref), kExact)) << n;
    EXPECT_FALSE(passes(compare_exact(c->ref + 1, c->ref), kExact)) << n;
    EXPECT_FALSE(passes(compare_exact(c->ref - 1, c->ref), kExact)) << n;
    EXPECT_FALSE(passes(compare_exact(c->ref - c->in[n / 2], c->ref), kExact)) << n;
  }
}

// A lost warp (32 elements), block (256, 1024) or grid-stride block of an H200 grid: every
// one fails, except those whose partial sum is exactly 0 (counted and required to be those).
TEST(AtomicsMutation, EveryLostBlockWithANonzeroSumFails) {
  for (const MutationCase* c : mutation_cases()) {
    const std::size_t n = c->in.size();
    for (std::size_t chunk : {32u, 256u, 1024u}) {
      std::size_t missed = 0, zero = 0;
      for (std::size_t begin = 0; begin < n; begin += chunk) {
        std::int64_t part = 0;
        for (std::size_t i = begin; i < std::min(n, begin + chunk); ++i) part += c->in[i];
        zero += part == 0 ? 1 : 0;
        missed += passes(compare_exact(c->ref - part, c->ref), kExact) ? 1 : 0;
      }
      EXPECT_EQ(missed, zero) << "n=" << n << " chunk=" << chunk;
      RecordProperty("zero_sum_chunks_n" + std::to_string(n) + "_c" + std::to_string(chunk),
                     std::to_string(zero));
    }
    // Grid-stride: 1056 blocks of 256 threads (an H200's resident grid), one element a thread
    // per trip.
    const std::size_t block = 256, grid = 1056, stride = block * grid;
    std::vector<std::int64_t> parts(grid, 0);
    for (std::size_t i = 0; i < n; ++i) parts[(i % stride) / block] += c->in[i];
    for (std::int64_t part : parts)
      EXPECT_EQ(passes(compare_exact(c->ref - part, c->ref), kExact), part == 0) << n;
  }
}

#if TWINBENCH_HAVE_CUDA
using Launch = void (*)(const std::int32_t*, std::size_t, unsigned long long*, int, cudaStream_t);

std::int64_t read_sum(const DeviceBuffer<unsigned long long>& d) {
  unsigned long long v = 0;
  CUDA_CHECK(cudaMemcpy(&v, d.data(), sizeof(v), cudaMemcpyDeviceToHost));
  return static_cast<std::int64_t>(v);
}

// Includes sums that leave the int32 range, so 32-bit accumulation would fail.
std::vector<std::size_t> sizes() {
  auto s = test::edge_sizes();
  s.push_back((1u << 21) + 13);
  return s;
}

void expect_gpu_matches(Launch launch, const char* label) {
  Stream s;
  DeviceBuffer<unsigned long long> sum(1);
  for (std::size_t n : sizes()) {
    const auto v = inputs(n);
    auto d_in = upload(std::span<const std::int32_t>(v));
    for (int block : test::test_blocks()) {
      CUDA_CHECK(tb::test::memset_sync(sum.data(), 0xA5, sizeof(unsigned long long)));
      launch(d_in.data(), n, sum.data(), block, s);
      s.synchronize();
      EXPECT_EQ(read_sum(sum), naive_sum(v)) << label << " n=" << n << " block=" << block;
    }
  }
}

TEST(AtomicsGpu, AtomicPerThreadMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::atomics_cuda_atomic_per_thread, "cuda_atomic_per_thread");
}

TEST(AtomicsGpu, WarpMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::atomics_cuda_warp, "cuda_warp");
}

TEST(AtomicsGpu, BlockMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::atomics_cuda_block, "cuda_block");
}

TEST(AtomicsGpu, SpreadMatchesSerialForEveryAddressCount) {
  TB_REQUIRE_GPU();
  for (int addrs : {1, 7, 32, 1024, 1025, 32768}) {
    DeviceBuffer<unsigned long long> partials(static_cast<std::size_t>(addrs));
    Stream s;
    DeviceBuffer<unsigned long long> sum(1);
    for (std::size_t n : sizes()) {
      const auto v = inputs(n);
      auto d_in = upload(std::span<const std::int32_t>(v));
      for (int block : test::test_blocks()) {
        CUDA_CHECK(tb::test::memset_sync(sum.data(), 0xA5, sizeof(unsigned long long)));
        CUDA_CHECK(tb::test::memset_sync(partials.data(), 0xA5, partials.bytes()));
        gpu::atomics_cuda_atomic_spread(d_in.data(), n, partials.data(), addrs, sum.data(), block,
                                        s);
        s.synchronize();
        EXPECT_EQ(read_sum(sum), naive_sum(v))
            << "addrs=" << addrs << " n=" << n << " block=" << block;
      }
    }
  }
}

TEST(AtomicsGpu, ThrustMatchesSerial) {
  TB_REQUIRE_GPU();
  Stream s;
  for (std::size_t n : sizes()) {
    const auto v = inputs(n);
    auto d_in = upload(std::span<const std::int32_t>(v));
    EXPECT_EQ(gpu::atomics_thrust(d_in.data(), n, s), naive_sum(v)) << n;
  }
}

TEST(AtomicsGpu, CubMatchesSerial) {
  TB_REQUIRE_GPU();
  Stream s;
  DeviceBuffer<unsigned long long> sum(1);
  for (std::size_t n : sizes()) {
    const auto v = inputs(n);
    auto d_in = upload(std::span<const std::int32_t>(v));
    DeviceBuffer<unsigned char> temp(std::max<std::size_t>(gpu::atomics_cub_temp_bytes(n), 1));
    CUDA_CHECK(tb::test::memset_sync(sum.data(), 0xA5, sizeof(unsigned long long)));
    gpu::atomics_cub(d_in.data(), n, sum.data(), temp.data(), temp.bytes(), s);
    s.synchronize();
    EXPECT_EQ(read_sum(sum), naive_sum(v)) << n;
  }
}

TEST(AtomicsGpu, RejectsPartialWarpBlocks) {
  TB_REQUIRE_GPU();
  DeviceBuffer<std::int32_t> in(4);
  DeviceBuffer<unsigned long long> sum(1);
  EXPECT_THROW(gpu::atomics_cuda_warp(in.data(), 4, sum.data(), 48, nullptr),
               std::invalid_argument);
}
#endif

}  // namespace
}  // namespace tb::atomics
