// The run-time ISA dispatch (common/cpu_isa.hpp): levels, the limit, and that each version of a
// multiversioned body runs and gives the same result.
#include "common/cpu_isa.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <string>
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

// aarch64's level names: the one level is NEON (armv8-a), and "baseline" still selects it, so
// --cpu-isa=baseline means the same on either architecture.
TEST(CpuIsa, BaselineIsAcceptedByItsGenericName) {
  EXPECT_EQ(parse("baseline"), Level::baseline);
#if defined(__aarch64__)
  EXPECT_STREQ(name(Level::baseline), "neon");
  EXPECT_STREQ(arch(Level::baseline), "armv8-a");
  EXPECT_EQ(host_level(), Level::baseline);
#else
  EXPECT_STREQ(name(Level::baseline), "baseline");
#endif
}

TEST(CpuIsa, ArmVectorsAreDescribedWithTheirLength) {
  EXPECT_EQ(describe_arm_vectors({}), "neon");
  EXPECT_EQ(describe_arm_vectors({.sve = true, .sve2 = false, .sve_bits = 256}), "sve vl=256");
  EXPECT_EQ(describe_arm_vectors({.sve = true, .sve2 = true, .sve_bits = 128}), "sve2 vl=128");
  EXPECT_EQ(describe_arm_vectors({.sve = true, .sve2 = true, .sve_bits = 0}), "sve2");
}

// The host's own answer: on aarch64 it comes from the kernel (HWCAP, PR_SVE_GET_VL), whatever the
// CPU (qemu-user's default CPU has SVE2); an SVE length is a multiple of 128 bits up to 2048.
TEST(CpuIsa, VectorExtensionNamesTheHost) {
  const std::string ext = vector_extension();
  const std::string features = extra_features();
#if defined(__aarch64__)
  const ArmVectors v = arm_vectors();
  EXPECT_EQ(ext, describe_arm_vectors(v));
  EXPECT_EQ(features.rfind(ext, 0), 0u) << features;
  if (v.sve) {
    EXPECT_GE(v.sve_bits, 128);
    EXPECT_LE(v.sve_bits, 2048);
    EXPECT_EQ(v.sve_bits % 128, 0);
  }
  EXPECT_FALSE(v.sve2 && !v.sve);
#else
  EXPECT_EQ(ext, name(host_level()));
  EXPECT_FALSE(arm_vectors().sve);
#endif
}

}  // namespace
}  // namespace tb::cpu_isa
