// The slowdown test hook of common/sampler.hpp (TWINBENCH_INJECT_SLOWDOWN="REGEX=PCT"):
// which names it matches, that the extra work is really done inside the timed span (the wall
// clock outside sees it, not only the reported number), and that GPU-style samples get one more
// real sample of which the fraction is added.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/sampler.hpp"

namespace tb {
namespace {

// Restores the hook (off) after each test, whatever the environment said.
class Slowdown : public ::testing::Test {
 protected:
  void TearDown() override { set_injected_slowdown(""); }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Work of a known length that the optimiser cannot remove: a busy-wait.
void spin_for(double seconds) {
  const auto t0 = std::chrono::steady_clock::now();
  while (seconds_since(t0) < seconds) {
  }
}

TEST_F(Slowdown, ParsesRegexAndPercent) {
  InjectedSlowdown s;
  std::string why;
  ASSERT_TRUE(parse_injected_slowdown("^(dot|vector_add)/omp=5", s, why)) << why;
  EXPECT_EQ(s.pattern, "^(dot|vector_add)/omp");
  EXPECT_DOUBLE_EQ(s.fraction, 0.05);
  // The last '=' splits: a regex may contain one.
  ASSERT_TRUE(parse_injected_slowdown("a=b=12.5", s, why)) << why;
  EXPECT_EQ(s.pattern, "a=b");
  EXPECT_DOUBLE_EQ(s.fraction, 0.125);
}

TEST_F(Slowdown, RejectsInvalidSpecsWithAReason) {
  InjectedSlowdown s;
  for (const char* bad :
       {"dot", "=5", "dot=", "dot=x", "dot=0", "dot=-3", "dot=5%", "dot=2000", "(dot=5"}) {
    std::string why;
    EXPECT_FALSE(parse_injected_slowdown(bad, s, why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
  EXPECT_THROW(set_injected_slowdown("(dot=5"), std::invalid_argument);
}

TEST_F(Slowdown, OffByDefaultAndMatchesOnlyTheNamedRows) {
  set_injected_slowdown("");
  EXPECT_EQ(injected_fraction_for("dot/omp/n:1048576/threads:16"), 0.0);
  set_injected_slowdown("^dot/omp=5");
  EXPECT_DOUBLE_EQ(injected_fraction_for("dot/omp/n:1048576/threads:16"), 0.05);
  EXPECT_EQ(injected_fraction_for("dot/serial/n:1048576"), 0.0);
  EXPECT_EQ(injected_fraction_for("xdot/omp/n:1"), 0.0);
  EXPECT_EQ(injected_fraction_for("vector_add/omp/n:1"), 0.0);
}

TEST_F(Slowdown, CpuExtraWorkIsInsideTheTimedSpanAndReallyDone) {
  const double work_s = 2e-3, fraction = 0.5;
  const auto t0 = std::chrono::steady_clock::now();
  const double reported = timed_cpu_calls([&] { spin_for(work_s); }, 2, fraction);
  const double wall = seconds_since(t0);
  // Per call: the work plus half of it; and the wall clock outside saw all of it.
  EXPECT_GE(reported, work_s * (1 + fraction));
  EXPECT_GE(wall, 2 * work_s * (1 + fraction));
  EXPECT_LE(reported * 2, wall);
}

TEST_F(Slowdown, OtherSamplesGetOneMoreRealSampleOfWhichTheFractionCounts) {
  int calls = 0;
  auto sample = [&calls] {
    ++calls;
    return calls % 2 ? 1.0 : 2.0;  // the first sample 1 s, the extra one 2 s
  };
  const auto slowed = with_extra_sample(sample, 0.05);
  EXPECT_DOUBLE_EQ(slowed(), 1.0 + 0.05 * 2.0);
  EXPECT_EQ(calls, 2);  // the work ran twice: the extra is measured, not assumed
}

// A GPU-style source that batches: `batch` launches of known lengths between one pair of
// "events" on a simulated clock, the sample being their time divided by the count (what
// common/gpu_timing.hpp's event_sample returns). The hook must add the fraction of the
// per-launch time, whatever the batch, and measure it.
class BatchedSource {
 public:
  BatchedSource(int batch, std::vector<double> launch_s)
      : batch_(batch), launch_s_(std::move(launch_s)) {}
  double operator()() {
    double total = 0;
    for (int i = 0; i < batch_; ++i) total += launch_s_[next_++ % launch_s_.size()];
    return total / batch_;
  }

 private:
  int batch_;
  std::vector<double> launch_s_;
  std::size_t next_ = 0;
};

TEST_F(Slowdown, BatchedSamplesGetTheFractionOfTheirPerLaunchTime) {
  const std::vector<double> launches = {7.3e-6, 7.5e-6, 7.6e-6, 9.0e-6,
                                        7.4e-6};  // uneven on purpose
  for (int batch : {1, 3, 64, 128}) {
    StoppingRule rule;
    rule.min_samples = rule.max_samples = 200;
    double t = 0.0;
    auto clock = [&t] { return t += 1e-6; };
    const SampleStats plain = collect_samples(rule, BatchedSource(batch, launches), clock);
    std::vector<double> base;
    const SampleStats slowed = collect_samples(
        rule, with_extra_sample(BatchedSource(batch, launches), 0.05, &base), clock);
    ASSERT_EQ(base.size(), slowed.samples.size()) << "batch " << batch;
    // Each slowed sample is its own time plus 5% of the next real sample's, per launch.
    const InjectedEffect e = injected_effect(base, slowed);
    EXPECT_NEAR(slowed.median / plain.median, 1.05, 0.01) << "batch " << batch;
    EXPECT_NEAR(e.measured_fraction, 0.05, 0.01) << "batch " << batch;
    EXPECT_NEAR(e.base_median_s, plain.median, 0.02 * plain.median) << "batch " << batch;
  }
}

TEST_F(Slowdown, TheMeasuredEffectIsTheSlowedMedianAgainstTheBaseMedian) {
  const SampleStats slowed = summarize({1.05, 2.1, 3.15});
  const InjectedEffect e = injected_effect({1.0, 2.0, 3.0}, slowed);
  EXPECT_DOUBLE_EQ(e.base_median_s, 2.0);
  EXPECT_NEAR(e.measured_fraction, 0.05, 1e-12);
  // Nothing measured (an error before the first sample): no effect claimed.
  EXPECT_EQ(injected_effect({}, slowed).base_median_s, 0.0);
  EXPECT_EQ(injected_effect({1.0}, SampleStats{}).measured_fraction, 0.0);
}

TEST_F(Slowdown, TheSamplerStopsOnSlowedSamplesAsOnAnyOther) {
  // The hook changes the samples, not the stopping rule: a steady slowed source converges.
  StoppingRule rule;
  rule.min_time_s = 0.0;
  double t = 0.0;
  const SampleStats st = collect_samples(rule, with_extra_sample([] { return 1e-3; }, 0.1),
                                         [&t] { return t += 1e-3; });
  EXPECT_TRUE(st.converged);
  EXPECT_DOUBLE_EQ(st.median, 1.1e-3);
}

}  // namespace
}  // namespace tb
