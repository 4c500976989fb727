#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "common/cpu_isa.hpp"
#include "common/validate.hpp"
#include "cpu/nested_loop.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/nested_loop.hpp"
#endif

namespace tb::nested_loop {
namespace {

// Odd sizes (not multiples of a block or a warp); the work is N^2, so they stay small.
std::vector<std::size_t> sizes() { return {1, 3, 31, 257, 1000, 1031}; }

std::vector<double> reference(std::size_t n) {
  std::vector<double> ref(n);
  serial(ref.data(), n, n);
  return ref;
}

TEST(NestedLoop, ArticleTotal) {
  const std::vector<double> r = reference(kArticleSize);
  const double total = std::accumulate(r.begin(), r.end(), 0.0);
  EXPECT_NEAR(total / kArticleTotal, 1.0, 1e-9);
}

TEST(NestedLoop, RowsMatchClosedForm) {
  const std::size_t n = 1031;
  const std::vector<double> r = reference(n);
  const double sum_j = 0.5 * static_cast<double>(n) * static_cast<double>(n - 1);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_NEAR(r[i], 0.1 * static_cast<double>(i) * sum_j, 1e-12 * (1.0 + r[i])) << i;
}

TEST(NestedLoop, OmpMatchesSerial) {
  for (std::size_t n : sizes()) {
    const std::vector<double> ref = reference(n);
    std::vector<double> out(n);
    poison(std::span<double>(out));
    omp(out.data(), n, n);
    EXPECT_TRUE(
        passes(compare(std::span<const double>(out), std::span<const double>(ref)), kTolerance))
        << n;
  }
}

// Restores "no limit" however a test ends.
// omp at every ISA level this machine runs (each a separately compiled body), at sizes around its
// 64-row blocks (63, 64, 65: a partial block, exactly one, one row over) and odd ones, and with
// M != N (the inner count is its own argument).
TEST(NestedLoopCpu, OmpAtEveryIsaLevel) {
  cpu_isa::RestoreLimit restore_limit;
  std::vector<std::size_t> ns = {1, 3, 17, 63, 64, 65, 1000, 4099};
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    for (std::size_t n : ns)
      for (std::size_t m : {n, n / 2 + 1}) {
        std::vector<double> ref(n), out(n);
        serial(ref.data(), n, m);
        poison(std::span<double>(out));
        omp(out.data(), n, m);
        const ErrorStats e = compare(std::span<const double>(out), std::span<const double>(ref));
        EXPECT_TRUE(passes(e, kTolerance))
            << cpu_isa::name(level) << " n=" << n << " m=" << m << ": " << describe(e, kTolerance);
      }
  }
}

// Mutations the check must catch, each a bug the blocked kernel could have: one term lost or
// one extra (the j loop one short or one long), a row of the next block written into this one
// (off by one at a block edge), and one row left at the poison.
TEST(NestedLoopCpu, MutationsFail) {
  cpu_isa::RestoreLimit restore_limit;
  const std::size_t n = 1000;
  const std::vector<double> ref = reference(n);
  const auto fails = [&](const std::vector<double>& got) {
    return !passes(compare(std::span<const double>(got), std::span<const double>(ref)), kTolerance);
  };
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    std::vector<double> out(n);
    omp(out.data(), n, n - 1);
    EXPECT_TRUE(fails(out)) << cpu_isa::name(level) << " one term short";
    omp(out.data(), n, n + 1);
    EXPECT_TRUE(fails(out)) << cpu_isa::name(level) << " one term long";
    omp(out.data(), n, n);
    EXPECT_FALSE(fails(out)) << cpu_isa::name(level);
    std::vector<double> shifted = out;
    shifted[63] = out[64];
    EXPECT_TRUE(fails(shifted)) << cpu_isa::name(level) << " block edge";
    std::vector<double> dropped = out;
    poison(std::span<double>(dropped).subspan(n - 1, 1));
    EXPECT_TRUE(fails(dropped)) << cpu_isa::name(level) << " last row";
  }
}

#if TWINBENCH_HAVE_CUDA
using Launch = void (*)(double*, std::size_t, std::size_t, int, cudaStream_t);

void expect_gpu_matches(Launch launch, const char* label) {
  Stream s;
  for (std::size_t n : sizes()) {
    const std::vector<double> ref = reference(n);
    DeviceBuffer<double> d(n);
    for (int block : test::test_blocks()) {
      CUDA_CHECK(tb::test::memset_sync(d.data(), 0xFF, d.bytes()));
      launch(d.data(), n, n, block, s);
      s.synchronize();
      std::vector<double> out(n);
      download(std::span<double>(out), d);
      EXPECT_TRUE(
          passes(compare(std::span<const double>(out), std::span<const double>(ref)), kTolerance))
          << label << " n=" << n << " block=" << block;
    }
  }
}

TEST(NestedLoopGpu, CudaMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::nested_loop_cuda, "cuda");
}

TEST(NestedLoopGpu, CudaWarpMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::nested_loop_cuda_warp, "cuda_warp");
}

TEST(NestedLoopGpu, ArticleGridIsFlaggedLowOccupancy) {
  TB_REQUIRE_GPU();
  // 10000 threads: 157 blocks of 64 and 40 of 256, both under 2 blocks per SM on any GPU with
  // 79 SMs or more (an H200 has 132).
  for (int block : {64, 256}) {
    const gpu::KernelStats k = gpu::nested_loop_cuda_stats(kArticleSize, block);
    EXPECT_EQ(k.grid_blocks, static_cast<long long>((kArticleSize + block - 1) / block));
    if (k.sm_count >= 79) {
      EXPECT_TRUE(k.low_occupancy()) << block;
    }
  }
  // One warp per i: 320000 threads fill the GPU.
  const gpu::KernelStats w = gpu::nested_loop_cuda_warp_stats(kArticleSize, 256);
  EXPECT_EQ(w.grid_blocks, 1250);
  EXPECT_FALSE(w.low_occupancy());
}
#endif

}  // namespace
}  // namespace tb::nested_loop
