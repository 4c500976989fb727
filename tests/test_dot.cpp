#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/cpu_isa.hpp"
#include "common/random.hpp"
#include "cpu/dot.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/dot.hpp"
#endif

namespace tb::dot {
namespace {

struct Case {
  std::vector<float> a, b;
  Reference ref;
  explicit Case(std::size_t n) : a(n), b(n) {
    fill_uniform(std::span<float>(a), kSeed, -1.f, 1.f);
    fill_uniform(std::span<float>(b), kSeed + 1, -1.f, 1.f);
    ref = reference(a.data(), b.data(), n);
  }
  // The bench's check (bench/dot.cpp) with the tolerance of a summation `depth` deep.
  bool accepts(double got, std::size_t depth) const {
    return passes(compare_scalar(got, ref.value, ref.abs_sum), tolerance(depth));
  }
};

TEST(Dot, ReferenceOfKnownVectors) {
  const float a[] = {1.f, 2.f, 3.f}, b[] = {4.f, -5.f, 6.f};
  EXPECT_DOUBLE_EQ(reference(a, b, 3).value, 12.0);
  EXPECT_DOUBLE_EQ(reference(a, b, 3).abs_sum, 32.0);
  EXPECT_DOUBLE_EQ(serial(a, b, 3), 12.0);
}

TEST(Dot, OmpMatchesSerial) {
  for (std::size_t n : test::edge_sizes()) {
    Case c(n);
    EXPECT_TRUE(c.accepts(omp(c.a.data(), c.b.data(), n), depth_omp(n, omp_get_max_threads())))
        << n;
  }
}

// Each version of the omp kernel (32 float64 lanes per thread, common/cpu_isa.hpp), on sizes
// below, at and past one trip of the lanes, and with uneven thread slices.
TEST(Dot, OmpPassesAtEveryIsaLevel) {
  cpu_isa::RestoreLimit restore_limit;
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    for (std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{32}, std::size_t{33},
                          std::size_t{1000}, std::size_t{(1u << 16) + 7}}) {
      Case c(n);
      EXPECT_TRUE(c.accepts(omp(c.a.data(), c.b.data(), n), depth_omp(n, omp_get_max_threads())))
          << cpu_isa::name(level) << " n=" << n;
    }
  }
}

// Mutation of the lanes: one of the 32 partial sums lost (every 32nd product of one thread's
// slice; here, on one thread, the whole array's) must fail the omp tolerance, as must a lost
// tail product.
TEST(Dot, CheckCatchesALostLaneOrTail) {
  const std::size_t n = (1u << 16) + 7;
  Case c(n);
  const double got = serial(c.a.data(), c.b.data(), n);
  const std::size_t depth = depth_omp(n, omp_get_max_threads());
  for (std::size_t lane : {std::size_t{0}, std::size_t{31}}) {
    double lost = 0.0;
    for (std::size_t i = lane; i + 32 <= n; i += 32) lost += static_cast<double>(c.a[i]) * c.b[i];
    EXPECT_FALSE(c.accepts(got - lost, depth)) << "lane " << lane;
  }
  EXPECT_FALSE(c.accepts(got - static_cast<double>(c.a[n - 1]) * c.b[n - 1], depth));
}

TEST(Dot, ToleranceRejectsFloatAccumulation) {
  // The tolerance must tell a float32 accumulator from a float64 one on same-sign data, where
  // the running sum grows and float32 additions lose the low bits of each product.
  const std::size_t n = 1u << 20;
  std::vector<float> a(n), b(n);
  fill_uniform(std::span<float>(a), kSeed, 0.f, 1.f);
  fill_uniform(std::span<float>(b), kSeed + 1, 0.f, 1.f);
  const Reference ref = reference(a.data(), b.data(), n);
  float sum = 0.f;
  for (std::size_t i = 0; i < n; ++i) sum += a[i] * b[i];
  EXPECT_FALSE(passes(compare_scalar(sum, ref.value, ref.abs_sum), tolerance(depth_serial(n))));
}

// ---- Mutation tests: each mutation of a correct result must fail the bench's check. ----

// dot_kernel's block decomposition on an H200 (132 SMs, up to 2048 threads and 32 blocks per
// SM; persistent_grid caps the grid at the resident blocks): float4 element i4 belongs to
// thread i4 % (grid * block), the n % 4 tail to block 0.
struct GpuGrid {
  int block;
  long long grid;
};
GpuGrid h200_grid(std::size_t n, int block) {
  const long long resident = 132LL * std::min(32, 2048 / block);
  const auto work = static_cast<long long>((n / 4 + block - 1) / block);
  return {block, std::max(1LL, std::min(resident, work))};
}

// The GPU's result recomputed on the host in its order: per-thread float64 sums over the grid
// stride, per-block sums, then the blocks added last to first (atomicAdd's order is any).
// Also returns each block's partial sum: what a lost block takes out of the result.
struct GpuOrder {
  double result = 0.0;
  std::vector<double> block_sums;
};
GpuOrder gpu_order(const Case& c, GpuGrid g) {
  const std::size_t n = c.a.size(), n4 = n / 4;
  const std::size_t stride = static_cast<std::size_t>(g.grid) * g.block;
  std::vector<double> thread_sums(stride, 0.0);
  for (std::size_t start = 0; start < n4; start += stride) {
    const std::size_t end = std::min(n4, start + stride);
    for (std::size_t i4 = start; i4 < end; ++i4) {
      const std::size_t i = 4 * i4;
      thread_sums[i4 - start] += static_cast<double>(c.a[i]) * c.b[i] +
                                 static_cast<double>(c.a[i + 1]) * c.b[i + 1] +
                                 static_cast<double>(c.a[i + 2]) * c.b[i + 2] +
                                 static_cast<double>(c.a[i + 3]) * c.b[i + 3];
    }
  }
  for (std::size_t t = 0; t < n % 4; ++t)
    thread_sums[t] += static_cast<double>(c.a[4 * n4 + t]) * c.b[4 * n4 + t];
  GpuOrder o;
  o.block_sums.assign(static_cast<std::size_t>(g.grid), 0.0);
  for (std::size_t t = 0; t < stride; ++t) o.block_sums[t / g.block] += thread_sums[t];
  for (auto it = o.block_sums.rbegin(); it != o.block_sums.rend(); ++it) o.result += *it;
  return o;
}

// Default size (256M: 2 GiB of inputs) built once for the suite: filling, the compensated
// reference and three host passes in the GPU's order take a few seconds.
const Case& default_case() {
  static const Case c(kLargeSize);
  return c;
}
std::vector<const Case*> mutation_cases() {
  static const Case small(kArticleSize), odd((1u << 16) + 7);
  return {&odd, &small, &default_case()};
}
std::vector<int> mutation_blocks() { return {64, 256, 1024}; }

TEST(DotMutation, CorrectResultsInAnyOrderPass) {
  for (const Case* c : mutation_cases()) {
    const std::size_t n = c->a.size();
    EXPECT_TRUE(c->accepts(serial(c->a.data(), c->b.data(), n), depth_serial(n))) << n;
    EXPECT_TRUE(c->accepts(omp(c->a.data(), c->b.data(), n), depth_omp(n, omp_get_max_threads())))
        << n;
    for (int block : mutation_blocks()) {
      const GpuGrid g = h200_grid(n, block);
      EXPECT_TRUE(c->accepts(gpu_order(*c, g).result, depth_cuda(n, block, g.grid)))
          << "n=" << n << " block=" << block;
    }
  }
}

// The old tolerance (1e-6 S) let 316 of the 1056 blocks of block 256 at n = 256M go missing.
TEST(DotMutation, EveryLostBlockFails) {
  for (const Case* c : mutation_cases()) {
    const std::size_t n = c->a.size();
    for (int block : mutation_blocks()) {
      const GpuGrid g = h200_grid(n, block);
      const GpuOrder o = gpu_order(*c, g);
      const std::size_t depth = depth_cuda(n, block, g.grid);
      std::size_t missed = 0;
      for (double lost : o.block_sums) missed += c->accepts(o.result - lost, depth) ? 1 : 0;
      EXPECT_EQ(missed, 0u) << "n=" << n << " block=" << block << ": " << missed << " of " << g.grid
                            << " lost blocks pass";
    }
  }
}

// A single lost product: the first one of at least 0.01 (95% of |a_i b_i| are larger; a
// typical one is 0.25). At 256M the GPU tolerance is 1e-5 absolute, so any product above that
// is seen; one ulp of the scale S (1.5e-8 at 256M) is legitimately inside the GPU's own
// rounding (gamma_k S spans ~650 ulp(S)), hence the smallest change outside is tolerance * S.
TEST(DotMutation, LostProductAndSmallestChangeOutsideFail) {
  for (const Case* c : mutation_cases()) {
    const std::size_t n = c->a.size();
    const GpuGrid g = h200_grid(n, 256);
    const double got = gpu_order(*c, g).result;
    const std::size_t depth = depth_cuda(n, 256, g.grid);
    std::size_t i = 0;
    while (std::fabs(static_cast<double>(c->a[i]) * c->b[i]) < 0.01) ++i;
    EXPECT_FALSE(c->accepts(got - static_cast<double>(c->a[i]) * c->b[i], depth)) << n;
    const double edge = tolerance(depth).rel * c->ref.abs_sum;
    EXPECT_TRUE(c->accepts(
        c->ref.value + std::nextafter(c->ref.abs_sum, 2 * c->ref.abs_sum) - c->ref.abs_sum, depth))
        << "one ulp of S must pass, n=" << n;
    EXPECT_TRUE(c->accepts(c->ref.value + 0.999 * edge, depth)) << n;
    EXPECT_FALSE(c->accepts(c->ref.value + 1.001 * edge, depth)) << n;
    EXPECT_FALSE(c->accepts(c->ref.value - 1.001 * edge, depth)) << n;
  }
}

#if TWINBENCH_HAVE_CUDA
TEST(DotGpu, CudaMatchesSerial) {
  TB_REQUIRE_GPU();
  Stream s;
  DeviceBuffer<double> result(1);
  for (std::size_t n : test::edge_sizes()) {
    Case c(n);
    auto da = upload(std::span<const float>(c.a));
    auto db = upload(std::span<const float>(c.b));
    for (int block : test::test_blocks()) {
      gpu::dot_cuda(da.data(), db.data(), n, result.data(), block, s);
      s.synchronize();
      double got = 0.0;
      download(std::span<double>(&got, 1), result);
      const long long grid = gpu::dot_cuda_stats(n, block).grid_blocks;
      EXPECT_TRUE(c.accepts(got, depth_cuda(n, block, grid)))
          << "n=" << n << " block=" << block << " got " << got << " want " << c.ref.value;
    }
  }
}

TEST(DotGpu, ThrustMatchesSerial) {
  TB_REQUIRE_GPU();
  Stream s;
  for (std::size_t n : test::edge_sizes()) {
    Case c(n);
    auto da = upload(std::span<const float>(c.a));
    auto db = upload(std::span<const float>(c.b));
    EXPECT_TRUE(c.accepts(gpu::dot_thrust(da.data(), db.data(), n, s), depth_serial(n))) << n;
  }
}
#endif

}  // namespace
}  // namespace tb::dot
