#include <gtest/gtest.h>

#include <cmath>
#include <vector>

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
  bool accepts(double got) const { return passes(compare_scalar(got, ref.value, ref.abs_sum), kTolerance); }
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
    EXPECT_TRUE(c.accepts(omp(c.a.data(), c.b.data(), n))) << n;
  }
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
  EXPECT_FALSE(passes(compare_scalar(sum, ref.value, ref.abs_sum), kTolerance));
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
      EXPECT_TRUE(c.accepts(got)) << "n=" << n << " block=" << block << " got " << got << " want " << c.ref.value;
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
    EXPECT_TRUE(c.accepts(gpu::dot_thrust(da.data(), db.data(), n, s))) << n;
  }
}
#endif

}  // namespace
}  // namespace tb::dot
