// The measurement engine's stopping rule and statistics (common/sampler.hpp), driven by a fake
// sample source and a fake clock, and the memory guard of common/harness.hpp.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "common/harness.hpp"
#include "common/sampler.hpp"

namespace tb {
namespace {

// A clock that advances by each sample's time plus a fixed overhead per sample.
struct FakeClock {
  double t = 0.0;
  double overhead = 0.0;
};

SampleStats run(const StoppingRule& rule, std::vector<double> values, FakeClock& clock,
                bool cycle = true) {
  std::size_t i = 0;
  return collect_samples(
      rule,
      [&] {
        const double v = values[cycle ? i % values.size() : std::min(i, values.size() - 1)];
        ++i;
        clock.t += v + clock.overhead;
        return v;
      },
      [&] { return clock.t; });
}

TEST(Sampler, SummaryOfKnownSamples) {
  const SampleStats s = summarize({3.0, 1.0, 2.0, 4.0});
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 4.0);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  // sample stdev of 1..4 = sqrt(5/3)
  EXPECT_NEAR(s.rel_stdev, std::sqrt(5.0 / 3.0) / 2.5, 1e-12);
  EXPECT_DOUBLE_EQ(summarize({7.0, 1.0, 4.0}).median, 4.0);
}

TEST(Sampler, SteadySamplesStopAtTheFloor) {
  StoppingRule rule;
  rule.min_samples = 5;
  rule.min_time_s = 0.0;
  FakeClock clock;
  const SampleStats s = run(rule, {1e-3}, clock);
  EXPECT_EQ(s.samples.size(), 5u);
  EXPECT_TRUE(s.converged);
  EXPECT_EQ(s.reason, StopReason::spread_under_target);
  EXPECT_DOUBLE_EQ(s.rel_stdev, 0.0);
}

TEST(Sampler, MinTimeOfMeasuredTimeIsReached) {
  StoppingRule rule;
  rule.min_samples = 5;
  rule.min_time_s = 0.05;
  FakeClock clock;
  const SampleStats s = run(rule, {1e-3}, clock);
  EXPECT_EQ(s.samples.size(), 50u);  // 50 x 1 ms
  EXPECT_TRUE(s.converged);
}

// Samples that keep drifting (each slower than the last).
std::vector<double> drifting(std::size_t n, double first) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = first * (1.0 + 0.05 * static_cast<double>(i));
  return v;
}

TEST(Sampler, NoisySamplesRunToMaxTimeAndSaySo) {
  StoppingRule rule;
  rule.max_rel_stdev = 0.01;
  rule.min_samples = 5;
  rule.min_time_s = 0.0;
  rule.max_time_s = 0.1;
  FakeClock clock;
  // 33% spread, and too few samples within max_time for the spread to count as settled.
  const SampleStats s = run(rule, {1e-2, 2e-2}, clock);
  EXPECT_FALSE(s.converged);
  EXPECT_EQ(s.reason, StopReason::time_limit);
  EXPECT_GE(clock.t, 0.1);
  EXPECT_LE(s.min, s.median);
  EXPECT_LE(s.median, s.max);
}

TEST(Sampler, NoisyButSteadySpreadStopsOnceSettled) {
  StoppingRule rule;
  rule.max_rel_stdev = 0.01;
  rule.min_samples = 5;
  rule.min_time_s = 0.0;
  rule.max_time_s = 1e9;
  FakeClock clock;
  const SampleStats s = run(rule, {1e-3, 2e-3}, clock);  // 33% spread, for ever
  EXPECT_TRUE(s.converged);
  EXPECT_EQ(s.reason, StopReason::spread_settled);
  EXPECT_GE(s.samples.size(), 64u);
  EXPECT_LT(s.samples.size(), 1000u);
  EXPECT_NEAR(s.rel_stdev, 0.33, 0.02);
}

TEST(Sampler, MinSamplesWinOverMaxTime) {
  StoppingRule rule;
  rule.min_samples = 5;
  rule.max_time_s = 0.01;
  FakeClock clock;
  const SampleStats s = run(rule, {1.0, 1.2}, clock);  // each sample longer than max_time
  EXPECT_EQ(s.samples.size(), 5u);
  EXPECT_FALSE(s.converged);
}

TEST(Sampler, SettlesOnceAnOutlierIsDiluted) {
  StoppingRule rule;
  rule.max_rel_stdev = 0.05;
  rule.min_samples = 5;
  rule.min_time_s = 0.0;
  rule.max_time_s = 10.0;
  FakeClock clock;
  std::vector<double> values(1, 2e-3);  // one slow first sample, then steady ones
  values.resize(1000, 1e-3);
  const SampleStats s = run(rule, values, clock, false);
  EXPECT_TRUE(s.converged);
  EXPECT_GT(s.samples.size(), 5u);
  EXPECT_LE(s.rel_stdev, 0.06);  // under the target, or settled just above it
  EXPECT_DOUBLE_EQ(s.max, 2e-3);
}

TEST(Sampler, MaxSamplesBoundsTinyWork) {
  StoppingRule rule;
  rule.min_samples = 5;
  rule.max_rel_stdev = 0.0;  // never met
  rule.min_time_s = 0.0;
  rule.max_time_s = 1e9;
  rule.max_samples = 100;
  FakeClock clock;
  const SampleStats s = run(rule, drifting(1000, 1e-9), clock, false);
  EXPECT_EQ(s.samples.size(), 100u);
  EXPECT_EQ(s.reason, StopReason::sample_limit);
}

TEST(Sampler, QuickRuleIsLooserThanTheDefault) {
  EXPECT_GE(quick_rule().max_rel_stdev, default_rule().max_rel_stdev);
  EXPECT_LE(quick_rule().max_time_s, default_rule().max_time_s);
  EXPECT_EQ(default_rule().min_samples, 5);  // CPU rows get at least 5 samples
}

TEST(Memory, AvailableHostMemoryIsReadable) { EXPECT_GT(host_memory_available(), 0.0); }

TEST(Memory, AFootprintThatCannotFitIsRefusedWithNumbers) {
  EXPECT_NO_THROW(require_memory({.host_bytes = 1024.0}));
  try {
    require_memory({.host_bytes = 1e18});
    FAIL() << "a 1 EB footprint was accepted";
  } catch (const InsufficientMemory& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("needs"), std::string::npos) << what;
    EXPECT_NE(what.find("GiB of host memory"), std::string::npos) << what;
    EXPECT_NE(what.find("available"), std::string::npos) << what;
  }
}

struct Big {
  std::vector<char> bytes = std::vector<char>(1 << 20, 1);
};

TEST(Memory, SlotsAreReleasedWhenTheWorkloadChanges) {
  static SingleSlot<int, Big> slot;  // static, as in bench/: registered once
  int made = 0;
  slot.get(1, [&] {
    ++made;
    return Big{};
  });
  slot.get(1, [&] {
    ++made;
    return Big{};
  });
  EXPECT_EQ(made, 1);  // same key: kept
  release_workload_memory();
  slot.get(1, [&] {
    ++made;
    return Big{};
  });
  EXPECT_EQ(made, 2);  // released, so made again
  EXPECT_THROW(slot.get(2, Footprint{.host_bytes = 1e18},
                        [&] {
                          ++made;
                          return Big{};
                        }),
               InsufficientMemory);
  EXPECT_EQ(made, 2);
}

}  // namespace
}  // namespace tb
