#include <gtest/gtest.h>

#include <vector>

#include "common/validate.hpp"
#include "cpu/lucas.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/lucas.hpp"
#endif

namespace tb::lucas {
namespace {

std::vector<std::int64_t> reference(int n) {
  std::vector<std::int64_t> ref(n + 1);
  serial_iterative(ref.data(), n);
  return ref;
}

TEST(Lucas, IterativeKnownValues) {
  const std::vector<std::int64_t> r = reference(kMaxN);
  EXPECT_EQ(r[0], 2);
  EXPECT_EQ(r[1], 1);
  EXPECT_EQ(r[2], 3);
  EXPECT_EQ(r[10], 123);
  EXPECT_EQ(r[40], kL40);
  EXPECT_EQ(r[90], 6440026026380244498LL);  // L(90) is exact in int64
  for (int i = 2; i <= kMaxN; ++i) ASSERT_GT(r[i], r[i - 1]) << "overflow at " << i;
}

TEST(Lucas, RecursiveMatchesIterative) {
  for (int n : {0, 1, 2, 7, 25}) {
    const std::vector<std::int64_t> ref = reference(n);
    std::vector<std::int64_t> a(n + 1), b(n + 1);
    poison(std::span<std::int64_t>(a));
    poison(std::span<std::int64_t>(b));
    serial_recursive(a.data(), n);
    omp_recursive(b.data(), n);
    EXPECT_TRUE(passes(compare_exact(a.data(), ref.data(), ref.size()), kTolerance)) << n;
    EXPECT_TRUE(passes(compare_exact(b.data(), ref.data(), ref.size()), kTolerance)) << n;
  }
}

TEST(Lucas, CompareExactSeesDifferencesBeyondDoublePrecision) {
  const std::int64_t ref = 6440026026380244498LL;
  const std::int64_t got = ref + 1;  // the same double
  const ErrorStats s = compare_exact(&got, &ref, 1);
  EXPECT_FALSE(passes(s, kTolerance));
}

TEST(Lucas, AdditionCounts) {
  EXPECT_EQ(recursive_adds(0), 0u);
  EXPECT_EQ(recursive_adds(2), 1u);
  EXPECT_EQ(recursive_adds(4), 4u);  // L(4) = L(3) + L(2): 1 + (1 + 1) + 1
  EXPECT_EQ(recursive_calls(4), 9u);
  EXPECT_EQ(recursive_adds_upto(4), 0u + 0u + 1u + 2u + 4u);
  EXPECT_EQ(per_index_iterative_adds_upto(4), 0u + 0u + 1u + 2u + 3u);
}

#if TWINBENCH_HAVE_CUDA
using Launch = void (*)(std::int64_t*, int, int, cudaStream_t);

void expect_gpu_matches(Launch launch, const std::vector<int>& ns, const char* label) {
  Stream s;
  for (int n : ns) {
    const std::vector<std::int64_t> ref = reference(n);
    DeviceBuffer<std::int64_t> d(n + 1);
    for (int block : test::test_blocks()) {
      CUDA_CHECK(tb::test::memset_sync(d.data(), 0xFF, d.bytes()));
      launch(d.data(), n, block, s);
      s.synchronize();
      std::vector<std::int64_t> out(n + 1);
      download(std::span<std::int64_t>(out), d);
      EXPECT_TRUE(passes(compare_exact(out.data(), ref.data(), ref.size()), kTolerance))
          << label << " n=" << n << " block=" << block;
    }
  }
}

TEST(LucasGpu, CudaRecursiveMatchesIterative) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::lucas_cuda_recursive, {0, 1, 2, 3, 25, 30}, "cuda_recursive");
}

TEST(LucasGpu, CudaIterativeMatchesIterative) {
  TB_REQUIRE_GPU();
  // n + 1 threads: 63 and 64 sit on either side of a 64-thread block boundary.
  expect_gpu_matches(gpu::lucas_cuda_iterative, {0, 1, 2, 40, 63, 64, kMaxN}, "cuda_iterative");
}

TEST(LucasGpu, RejectsOverflowingN) {
  TB_REQUIRE_GPU();
  DeviceBuffer<std::int64_t> d(128);
  EXPECT_THROW(gpu::lucas_cuda_iterative(d.data(), kMaxN + 1, 64, nullptr), std::invalid_argument);
  EXPECT_THROW(gpu::lucas_cuda_recursive(d.data(), 63, 64, nullptr), std::invalid_argument);
}
#endif

}  // namespace
}  // namespace tb::lucas
