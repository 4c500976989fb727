#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/random.hpp"
#include "common/validate.hpp"
#include "common/workload.hpp"

namespace tb {
namespace {

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

TEST(Validate, TheToleranceFloorCannotBeDropped) {
  const std::vector<float> ref = {1e-6f, 1.f};
  const std::vector<float> got = {2e-6f, 1.f};  // off by 1e-6: fine against a floor of 1
  const Tolerance tol{1e-5, 1.0};
  const auto g = std::span<const float>(got), r = std::span<const float>(ref);
  EXPECT_TRUE(passes(compare(g, r, tol), tol));
  // Compared without the floor (as 1e-300), the error is 100% of the tiny reference: that must
  // fail loudly as a dropped floor, not pass or fail on the numbers.
  const ErrorStats dropped = compare(g, r);
  EXPECT_FALSE(passes(dropped, tol));
  EXPECT_NE(describe(dropped, tol).find("scale floor"), std::string::npos);
  // Scalar comparisons carry no floor of their own and are judged on the numbers.
  EXPECT_TRUE(passes(compare_scalar(1.0, 1.0, 1.0), tol));
}

TEST(Axes, WorkloadAxisDeclaredOnceOverriddenFromTheCommandLine) {
  RunConfig cfg;
  EXPECT_EQ(int_axis(cfg, "test_filter", {3, 5}), (std::vector<int>{3, 5}));
  cfg.axes["test_filter"] = {"7"};
  EXPECT_EQ(int_axis(cfg, "test_filter", {3, 5}), std::vector<int>{7});
  EXPECT_THROW(int_axis(cfg, "test_filter", {3, 5}, {3, 5}), std::invalid_argument);
  cfg.axes["test_filter"] = {"x"};
  EXPECT_THROW(int_axis(cfg, "test_filter", {3}), std::invalid_argument);
  EXPECT_EQ(undeclared_axes(cfg), "");
  cfg.axes["test_never_declared"] = {"1"};
  EXPECT_EQ(undeclared_axes(cfg), "test_never_declared");
}

}  // namespace
}  // namespace tb

// The run's progress lines (common/progress_eta.hpp) and console (common/console_reporter.hpp).
#include <optional>
#include <string>

#include "common/console_reporter.hpp"
#include "common/progress_eta.hpp"
#include "tests/test_util.hpp"

namespace tb {
namespace {

TEST(ProgressEta, RowsNamedAsRegistered) {
  EXPECT_EQ(progress_eta::registered_name("dot/omp/n:1024/manual_time"), "dot/omp/n:1024");
  EXPECT_EQ(progress_eta::registered_name("dot/omp/n:1024/real_time"), "dot/omp/n:1024");
  EXPECT_EQ(progress_eta::registered_name("dot/omp/n:1024"), "dot/omp/n:1024");
}

TEST(ProgressEta, ExpectedCostsArePreviousTimesElseTheirMean) {
  progress_eta::CostModel m;
  m.add("a", 1.0);
  m.add("b", 3.0);
  m.add("gone", 100.0);  // in the previous run, not planned now: not in the mean
  const auto c = progress_eta::expected_costs({"a", "b", "new"}, m);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_DOUBLE_EQ(c[0], 1.0);
  EXPECT_DOUBLE_EQ(c[1], 3.0);
  EXPECT_DOUBLE_EQ(c[2], 2.0);
  // No previous run: every row costs the same (the estimate counts rows).
  const auto flat = progress_eta::expected_costs({"x", "y"}, progress_eta::CostModel{});
  EXPECT_DOUBLE_EQ(flat[0], 1.0);
  EXPECT_DOUBLE_EQ(flat[1], 1.0);
}

TEST(ProgressEta, WeighsRowsByCostNotCount) {
  // The case to get right: many small rows done quickly, one large row left. Counting rows said
  // "~0:48 left"; weighing says the large row's share.
  // 86 rows of expected cost 0.1 s ran in 160 s (this machine is 18.6x slower than the
  // previous one), one row of 100 s is left: ~1860 s, not 160/86 = 1.9 s.
  const auto left = progress_eta::seconds_left(160.0, 86 * 0.1, 86, 100.0);
  ASSERT_TRUE(left.has_value());
  EXPECT_NEAR(*left, 160.0 / 8.6 * 100.0, 1e-6);
}

TEST(ProgressEta, NoEstimateWhileItWouldBeAGuess) {
  EXPECT_FALSE(progress_eta::seconds_left(1.0, 3.0, 2, 10.0));      // 2 rows finished
  EXPECT_FALSE(progress_eta::seconds_left(0.01, 0.3, 3, 100.0));    // 0.3% of the cost done
  EXPECT_FALSE(progress_eta::seconds_left(0.0, 0.0, 5, 10.0));      // nothing known
  EXPECT_TRUE(progress_eta::seconds_left(10.0, 6.0, 3, 100.0));     // 5.7% done
}

TEST(ProgressEta, NeverZeroWhileRowsRemain) {
  EXPECT_EQ(progress_eta::format_left(std::nullopt, true), "");
  EXPECT_EQ(progress_eta::format_left(0.2, true), " ~<0:01 left");
  EXPECT_EQ(progress_eta::format_left(0.2, false), " ~0:00 left");
  EXPECT_EQ(progress_eta::format_left(170.0, true), " ~2:50 left");
}

TEST(ProgressEta, ReadsRowWallTimesFromAResultsFile) {
  test::TempDir dir("progress_eta");
  dir.write("run.json", R"({"context": {}, "benchmarks": [
      {"name": "dot/omp/n:8/manual_time", "row_wall_s": 2.5},
      {"name": "dot/serial/n:8/manual_time", "error_occurred": true},
      {"name": "dot/numba_cpu/n:8", "row_wall_s": 1.5}]})");
  std::string why;
  auto m = progress_eta::CostModel::from_results_file(dir.path("run.json"), &why);
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m.previous("dot/omp/n:8"), 2.5);
  // The same row on a machine with another thread count: its time scaled by the threads.
  m.add("dot/omp/n:8/threads:16/manual_time", 4.0);
  EXPECT_EQ(m.previous("dot/omp/n:8/threads:16"), 4.0);
  EXPECT_EQ(m.previous("dot/omp/n:8/threads:2"), 32.0);
  EXPECT_FALSE(m.previous("dot/serial/n:8"));
  // An unreadable file: no model, and why.
  dir.write("bad.json", "{not json");
  const auto bad = progress_eta::CostModel::from_results_file(dir.path("bad.json"), &why);
  EXPECT_EQ(bad.size(), 0u);
  EXPECT_NE(why.find("bad.json"), std::string::npos);
  const auto none = progress_eta::CostModel::from_results_file(dir.path("absent.json"), &why);
  EXPECT_EQ(none.size(), 0u);
  EXPECT_NE(why.find("cannot open"), std::string::npos);
}

TEST(ConsoleReporter, PctCeilingIsAPercentageNotARate) {
  const std::string line = "dot/omp/n:8/manual_time   1.00 us   bytes_per_second=1G/s\n";
  EXPECT_EQ(with_pct_ceiling(line, 15.4422),
            "dot/omp/n:8/manual_time   1.00 us   bytes_per_second=1G/s pct_ceiling=15.4%\n");
  EXPECT_EQ(with_pct_ceiling(line, 137.0).find("/s pct_ceiling=137%\n") != std::string::npos, true);
  EXPECT_EQ(with_pct_ceiling(line, std::nullopt), line);
  // In colour the reset code follows the newline: the percentage stays on its row.
  EXPECT_EQ(with_pct_ceiling("row 1 us\n\033[m", 2.0), "row 1 us pct_ceiling=2%\n\033[m");
}

TEST(ConsoleReporter, DebugLibraryWarningReplacedByWhyItDoesNotApply) {
  const std::string ctx =
      "Run on (2 X 2000 MHz CPU s)\n***WARNING*** Library was built as DEBUG. Timings may be "
      "affected.\nnext\n";
  const std::string out = without_debug_warning(ctx);
  EXPECT_EQ(out.find("***WARNING***"), std::string::npos);
  EXPECT_NE(out.find("not affected"), std::string::npos);
  EXPECT_NE(out.find("Run on (2 X 2000 MHz CPU s)\n"), std::string::npos);
  EXPECT_NE(out.find("\nnext\n"), std::string::npos);
  EXPECT_EQ(without_debug_warning("Run on\n"), "Run on\n");
}

}  // namespace
}  // namespace tb

// The harness's ownership of a workload's inputs (common/harness.hpp inputs<Data>).
#include "common/harness.hpp"

namespace tb {
namespace {

struct CountedInputs {
  static inline int made = 0, alive = 0;
  int n;
  explicit CountedInputs(int n_) : n(n_) { ++made, ++alive; }
  ~CountedInputs() { --alive; }
  CountedInputs(const CountedInputs&) = delete;  // made in place: need not be movable
  static Footprint weight(int) { return {}; }
};

template <int Which>
struct Alternative {
  static constexpr const char* kAlternatives = "test/alternatives";
  static inline int alive = 0;
  explicit Alternative(int) { ++alive; }
  ~Alternative() { --alive; }
  static Footprint weight(int) { return {}; }
};

struct TooBig {
  explicit TooBig(int) { ADD_FAILURE() << "made despite its weight"; }
  static Footprint weight(int) { return {.host_bytes = 1e30}; }
};

TEST(Inputs, MadeOncePerArgumentsAndReleasedWithTheWorkload) {
  release_workload_memory();
  CountedInputs::made = 0;
  EXPECT_EQ(inputs<CountedInputs>(3).n, 3);
  EXPECT_EQ(&inputs<CountedInputs>(3), &inputs<CountedInputs>(3));
  EXPECT_EQ(CountedInputs::made, 1);
  EXPECT_EQ(inputs<CountedInputs>(4).n, 4);  // new arguments: the old value is freed first
  EXPECT_EQ(CountedInputs::made, 2);
  EXPECT_EQ(CountedInputs::alive, 1);
  release_workload_memory();
  EXPECT_EQ(CountedInputs::alive, 0);
}

TEST(Inputs, OneAlternativeOfAGroupAliveAtATime) {
  release_workload_memory();
  inputs<Alternative<0>>(1);
  inputs<Alternative<1>>(1);
  EXPECT_EQ(Alternative<0>::alive, 0);
  EXPECT_EQ(Alternative<1>::alive, 1);
  release_workload_memory();
  EXPECT_EQ(Alternative<1>::alive, 0);
}

TEST(Inputs, WeightCheckedBeforeAnythingIsMade) {
  EXPECT_THROW(inputs<TooBig>(1), InsufficientMemory);
}

}  // namespace
}  // namespace tb

// The A/B pairs' statistics (common/pair_stats.hpp, what time_gpu_ab returns).
#include "common/pair_stats.hpp"

namespace tb {
namespace {

TEST(PairStats, ExcessOverTotalsAndTheMedianPair) {
  PairRecorder r;
  r.add(1.0, 1.1);    // +10%
  r.add(1.0, 1.0);    // 0%
  r.add(2.0, 2.1);    // +5%
  r.add(0.0, 1.0);    // a took no time: in the totals, not in the median
  const PairStats s = r.stats();
  EXPECT_EQ(s.pairs, 4);
  EXPECT_DOUBLE_EQ(s.a_sum, 4.0);
  EXPECT_DOUBLE_EQ(s.b_sum, 5.2);
  EXPECT_NEAR(s.excess_pct, 30.0, 1e-9);
  ASSERT_TRUE(s.has_median);
  EXPECT_NEAR(s.median_pct, 5.0, 1e-9);
  EXPECT_LE(s.lo_pct, s.median_pct);
  EXPECT_GE(s.hi_pct, s.median_pct);
}

TEST(PairStats, MedianIntervalNarrowsWithMorePairs) {
  std::vector<double> few = {3, 1, 2}, many(1000);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = static_cast<double>(i);
  EXPECT_EQ(median_interval(few), (std::pair<double, double>{1, 3}));  // min..max
  const auto [lo, hi] = median_interval(many);
  EXPECT_GT(lo, 400);
  EXPECT_LT(hi, 600);
}

}  // namespace
}  // namespace tb
