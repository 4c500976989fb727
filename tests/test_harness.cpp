#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "common/random.hpp"
#include "common/validate.hpp"
#include "common/workload.hpp"

namespace tb {
namespace {

TEST(Names, WorkloadImplArgs) {
  EXPECT_EQ(bench_name("vector_add", "cuda", {{"n", 268435456}, {"block", 256}, {"mode", "e2e"}}),
            "vector_add/cuda/n:268435456/block:256/mode:e2e");
  EXPECT_EQ(bench_name("grayscale", "cuda_article", {{"block", Block2{16, 8}}}),
            "grayscale/cuda_article/block:16x8");
}

TEST(Random, SeededReproducibleAndNeverZero) {
  std::vector<float> a(100000), b(100000), c(100000);
  fill_uniform(std::span<float>(a), 7, -1.f, 1.f);
  fill_uniform(std::span<float>(b), 7, -1.f, 1.f);
  fill_uniform(std::span<float>(c), 8, -1.f, 1.f);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (float v : a) {
    ASSERT_NE(v, 0.f);
    ASSERT_GE(v, -1.f);
    ASSERT_LT(v, 1.f);
  }
}

TEST(Validate, DetectsErrorsNaNAndSize) {
  const std::vector<float> ref = {1.f, 2.f, 4.f};
  std::vector<float> got = ref;
  EXPECT_TRUE(passes(compare(std::span<const float>(got), std::span<const float>(ref)), Tolerance{1e-6}));
  got[2] = 4.1f;
  const ErrorStats s = compare(std::span<const float>(got), std::span<const float>(ref));
  EXPECT_NEAR(s.max_rel, 0.025, 1e-6);
  EXPECT_EQ(s.worst_index, 2u);
  EXPECT_FALSE(passes(s, Tolerance{1e-6}));
  got[1] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(compare(std::span<const float>(got), std::span<const float>(ref)).finite);
  EXPECT_FALSE(passes(compare(std::span<const float>(got).first(2), std::span<const float>(ref)), Tolerance{1}));
}

TEST(Validate, PoisonedOutputFails) {
  std::vector<float> out(4);
  poison(std::span<float>(out));
  const std::vector<float> ref(4, 1.f);
  EXPECT_FALSE(passes(compare(std::span<const float>(out), std::span<const float>(ref)), Tolerance{1.0}));
}

TEST(Validate, ScalarRelativeToScale) {
  // Cancellation: a tiny result with a large scale is judged against the scale.
  EXPECT_TRUE(passes(compare_scalar(1e-9, 0.0, 1e6), Tolerance{1e-12}));
  EXPECT_FALSE(passes(compare_scalar(1.0, 0.0, 1e3), Tolerance{1e-6}));
}

TEST(Sweeps, DefaultsAndOverrides) {
  RunConfig cfg;
  EXPECT_EQ(block_sweep_1d(cfg), (std::vector<int>{64, 128, 256, 512, 1024}));
  cfg.all_blocks = true;
  EXPECT_EQ(block_sweep_1d(cfg).size(), 32u);
  cfg.blocks = {96};
  EXPECT_EQ(block_sweep_1d(cfg), std::vector<int>{96});
  EXPECT_EQ(sizes_1d(cfg, {10, 20}, 5), (std::vector<std::size_t>{10, 20}));
  cfg.quick = true;
  EXPECT_EQ(sizes_1d(cfg, {10, 20}, 5), std::vector<std::size_t>{5});
  cfg.size = 7;
  EXPECT_EQ(sizes_1d(cfg, {10, 20}, 5), std::vector<std::size_t>{7});
}

}  // namespace
}  // namespace tb
