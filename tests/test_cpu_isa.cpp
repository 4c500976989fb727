// The run-time ISA dispatch (common/cpu_isa.hpp): levels, the limit, and that each version of a
// multiversioned body runs and gives the same result.
#include "common/cpu_isa.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include "cpu/vector_math.hpp"

namespace tb::cpu_isa {
namespace {

[[gnu::always_inline]] inline float exp_sum(const float* x, std::size_t n) {
  float s = 0.f;
#pragma omp simd reduction(+ : s)
  for (std::size_t i = 0; i < n; ++i) s += expf(x[i]);
  return s;
}
TB_ISA_CLONES(exp_sum_isa, exp_sum)

TEST(CpuIsa, NamesRoundTrip) {
  for (Level l : {Level::baseline, Level::avx2, Level::avx512}) {
    EXPECT_EQ(parse(name(l)), l);
    EXPECT_EQ(parse(arch(l)), l);
  }
  EXPECT_EQ(parse("sse9"), std::nullopt);
}

TEST(CpuIsa, TheLimitLowersTheActiveLevelNeverRaisesIt) {
  RestoreLimit restore_limit;
  EXPECT_EQ(active_level(), host_level());
  set_limit(Level::baseline);
  EXPECT_EQ(active_level(), Level::baseline);
  set_limit(Level::avx512);
  EXPECT_EQ(active_level(), host_level());
}

TEST(CpuIsa, EveryRunnableLevelGivesTheSameVectorMath) {
  RestoreLimit restore_limit;
  std::vector<float> x(1001);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = -4.f + 8.f * static_cast<float>(i) / 1000.f;
  double exact = 0.0;
  for (float v : x) exact += std::exp(static_cast<double>(v));
  ASSERT_FALSE(runnable_levels().empty());
  for (Level l : runnable_levels()) {
    set_limit(l);
    EXPECT_NEAR(exp_sum_isa(x.data(), x.size()), exact, 1e-4 * exact) << name(l);
  }
}

}  // namespace
}  // namespace tb::cpu_isa
