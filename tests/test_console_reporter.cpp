// The console table (common/console_reporter.hpp), fed synthetic runs.
#include "common/console_reporter.hpp"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace tb {
namespace {

using BRun = benchmark::BenchmarkReporter::Run;

// A sampled row as the harness reports it: time per iteration `seconds`, one iteration.
BRun sampled_run(const std::string& function_name, double seconds) {
  BRun r;
  r.run_name.function_name = function_name;
  r.run_name.time_type = "manual_time";
  r.run_type = BRun::RT_Iteration;
  r.iterations = 1;
  r.repetitions = 1;
  r.repetition_index = 0;
  r.time_unit = benchmark::kMicrosecond;
  r.real_accumulated_time = seconds;
  r.cpu_accumulated_time = seconds;
  return r;
}

// A CPU row with every counter it carries (about 30): the ones the compact table reads, and
// the rest only the JSON and the full line show.
BRun cpu_row(const std::string& function_name) {
  BRun r = sampled_run(function_name, 162e-6);
  // Rates as the report holds them: already per second, flagged as rates.
  r.counters["bytes_per_second"] = benchmark::Counter(48.0849e9, benchmark::Counter::kIsRate);
  r.counters["pct_ceiling"] = benchmark::Counter(15.4422, benchmark::Counter::kIsRate);
  r.counters["converged"] = 0;
  r.counters["rel_spread_pct"] = 7.31;
  r.counters["host_busy"] = 0;
  for (const char* name :
       {"batch", "bytes_per_iter", "ceiling_bytes_per_s", "ceiling_pattern", "cpu_probe_flops_after",
        "cpu_probe_flops_before", "flop_per_iter", "host_cpu_mhz_after", "host_cpu_mhz_before",
        "host_load1_before", "max_abs_err", "max_rel_err", "max_s", "median_s", "min_s",
        "read_bytes_per_iter", "row_wall_s", "sample_set", "samples", "stop_reason",
        "written_bytes_per_iter", "cpu_power_w_mean", "energy_per_iter_j", "energy_per_item_j"})
    r.counters[name] = 12345.678;
  return r;
}

struct Printed {
  std::string out, err;
};

// What the reporter prints for `runs` (one ReportRuns call each), from context to end.
Printed report(ConsoleStyle style, const std::vector<BRun>& runs,
               const std::set<std::string>& skipped = {}, const std::string& said_at_start = "") {
  std::ostringstream out, err;
  SkipAwareConsoleReporter reporter(benchmark::ConsoleReporter::OO_None, style,
                                    [skipped](const std::string& name) {
                                      return skipped.count(name) > 0;
                                    });
  reporter.SetOutputStream(&out);
  reporter.SetErrorStream(&err);
  reporter.said_at_start(said_at_start);
  benchmark::BenchmarkReporter::Context context;
  for (const BRun& r : runs)
    context.name_field_width = std::max(context.name_field_width, r.benchmark_name().size());
  reporter.ReportContext(context);
  for (const BRun& r : runs) reporter.ReportRuns({r});
  reporter.Finalize();
  return {out.str(), err.str()};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The line that starts with `prefix`, or "" when none does.
std::string line_starting(const std::string& text, const std::string& prefix) {
  for (const std::string& line : lines_of(text))
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

TEST(ConsoleStyle, ReadFromTheFlagsValue) {
  EXPECT_EQ(console_style_from("compact"), ConsoleStyle::compact);
  EXPECT_EQ(console_style_from("full"), ConsoleStyle::full);
  EXPECT_FALSE(console_style_from("wide"));
  EXPECT_FALSE(console_style_from(""));
}

TEST(ConsoleFormat, ShortensInTheMiddleKeepingBothEnds) {
  EXPECT_EQ(console::shortened_in_middle("abcdef", 6), "abcdef");
  EXPECT_EQ(console::shortened_in_middle("abcdefghij", 9), "abc...hij");
  EXPECT_EQ(console::shortened_in_middle("abcdefghij", 8), "abc...ij");
  EXPECT_EQ(console::shortened_in_middle("abcdefghij", 8).size(), 8u);
  EXPECT_EQ(console::shortened_at_end("validation failed here", 12), "validatio...");
  EXPECT_EQ(console::shortened_at_end("short", 12), "short");
}

TEST(ConsoleFormat, ThreeSignificantDigitsInTheUnitThatFits) {
  EXPECT_EQ(console::format_seconds(769e-6), "769 us");
  EXPECT_EQ(console::format_seconds(1.234e-3), "1.23 ms");
  EXPECT_EQ(console::format_seconds(5.83e-9), "5.83 ns");
  EXPECT_EQ(console::format_seconds(12.34), "12.3 s");
  EXPECT_EQ(console::format_seconds(999.7e-6), "1.00 ms");  // rounds into the next unit
  EXPECT_EQ(console::format_rate(48.0849e9, "B/s"), "48.1 GB/s");
  EXPECT_EQ(console::format_rate(1.234e12, "FLOP/s"), "1.23 TFLOP/s");
  EXPECT_EQ(console::format_rate(948.0, "B/s"), "948 B/s");
  EXPECT_EQ(console::format_percent(15.4422), "15.4%");
  EXPECT_EQ(console::format_percent(137.2), "137%");
  EXPECT_EQ(console::format_percent(0.001), "<0.01%");
  EXPECT_EQ(console::format_percent(std::nullopt), "-");
}

TEST(ConsoleReporter, CompactRowHasTimeRatePercentAndNote) {
  const Printed p = report(ConsoleStyle::compact, {cpu_row("dot/omp/n:1048576/threads:2")});
  const std::string header = line_starting(p.out, "Benchmark");
  EXPECT_NE(header.find("Time"), std::string::npos);
  EXPECT_NE(header.find("Rate"), std::string::npos);
  EXPECT_NE(header.find("% ceiling"), std::string::npos);
  EXPECT_NE(header.find("Note"), std::string::npos);
  const std::string row = line_starting(p.out, "dot/omp/n:1048576/threads:2/manual_time ");
  ASSERT_FALSE(row.empty()) << p.out;
  EXPECT_NE(row.find(" 162 us "), std::string::npos) << row;
  EXPECT_NE(row.find(" 48.1 GB/s "), std::string::npos) << row;
  EXPECT_NE(row.find(" 15.4% "), std::string::npos) << row;
  EXPECT_NE(row.find("spread 7.31%"), std::string::npos) << row;  // did not settle
  // None of the other counters, and no "/s" on the percentage.
  EXPECT_EQ(p.out.find("="), std::string::npos) << p.out;
  EXPECT_EQ(p.out.find("cpu_probe"), std::string::npos);
  EXPECT_EQ(p.out.find("%/s"), std::string::npos);
}

TEST(ConsoleReporter, CompactLinesFitIn120ColumnsAndLongNamesAreShortenedInTheMiddle) {
  const std::string long_name =
      "conv2d/cuda_shared_tiled_with_a_long_variant_name/image:3840x2160/filter:7/block:32x8/"
      "streams:4";
  BRun failed = sampled_run("vector_add/omp/n:1048576/threads:2", 0);
  failed.error_occurred = true;
  failed.error_message =
      "validation failed: max_rel_err 0.5 above the tolerance 1e-06 at element 12345 of 1048576";
  BRun errored = sampled_run("transfers/h2d/n:1073741824", 0);
  errored.error_occurred = true;
  errored.error_message = std::string(200, 'x');
  BRun labelled = cpu_row("gemm/cublas/n:4096");
  labelled.report_label = std::string(150, 'l');
  const Printed p = report(ConsoleStyle::compact, {cpu_row(long_name), failed, errored, labelled});
  for (const std::string& line : lines_of(p.out))
    EXPECT_LE(line.size(), console::kWidth) << line;
  // The start (the workload) and the end (the last axes and the timer) stay.
  const std::string row = line_starting(p.out, "conv2d/cuda_shared");
  ASSERT_FALSE(row.empty()) << p.out;
  EXPECT_NE(row.find("..."), std::string::npos) << row;
  EXPECT_NE(row.find("streams:4/manual_time "), std::string::npos) << row;
  EXPECT_NE(row.find(" 162 us "), std::string::npos) << row;
  // A validation failure says so in a few words; the values are in the JSON and on stderr.
  const std::string bad = line_starting(p.out, "vector_add/omp/");
  EXPECT_NE(bad.find("validation failed"), std::string::npos) << bad;
  EXPECT_EQ(bad.find("max_rel_err"), std::string::npos) << bad;
  EXPECT_EQ(p.out.find("ERROR OCCURRED"), std::string::npos);
  // Another error keeps as much of its message as fits, cut at the end.
  const std::string err = line_starting(p.out, "transfers/h2d/");
  EXPECT_NE(err.find("error: xxx"), std::string::npos) << err;
  EXPECT_EQ(err.substr(err.size() - 3), "...");
}

TEST(ConsoleReporter, ShortNamesKeepTheirFullName) {
  const Printed p = report(ConsoleStyle::compact, {cpu_row("dot/serial/n:8")});
  EXPECT_FALSE(line_starting(p.out, "dot/serial/n:8/manual_time ").empty()) << p.out;
  EXPECT_EQ(p.out.find("..."), std::string::npos);
}

TEST(ConsoleReporter, RateIsOfTheLimitTheRowIsHeldTo) {
  BRun gemm = sampled_run("sgemm/cuda/n:4096", 1e-3);
  gemm.counters["bytes_per_second"] = 2e11;
  gemm.counters["flop_per_s"] = 5.5e13;
  EXPECT_EQ(console::rate_of(gemm), "55.0 TFLOP/s");
  gemm.counters["pct_ceiling"] = 80.0;  // held to its roof (no bandwidth pattern): FLOP/s
  EXPECT_EQ(console::rate_of(gemm), "55.0 TFLOP/s");
  gemm.counters["ceiling_pattern"] = 5;  // held to a bandwidth: the percentage is of bytes
  EXPECT_EQ(console::rate_of(gemm), "200 GB/s");
  BRun items = sampled_run("lucas/serial_recursive/n:25", 1e-3);
  items.counters["items_per_second"] = 2.5e6;
  EXPECT_EQ(console::rate_of(items), "2.50 Mitem/s");
  EXPECT_EQ(console::rate_of(sampled_run("sync/cuda_event", 1e-6)), "");
}

TEST(ConsoleReporter, NoteSaysWhatTheReaderShouldKnow) {
  BRun r = cpu_row("dot/serial/n:8");
  r.counters["converged"] = 1;
  EXPECT_EQ(console::note_of(r), "");
  r.report_label = "tma";
  r.counters["gpu_throttled"] = 1;
  r.counters["host_busy"] = 1;
  EXPECT_EQ(console::note_of(r), "tma; GPU throttled; host busy");
  r.counters["above_limit"] = 1;  // flagged by the run (common/row_limit.hpp)
  EXPECT_EQ(console::note_of(r), "tma; GPU throttled; host busy; above its limit: see the warning");
}

TEST(ConsoleReporter, SkipsPrintOncePerReasonInBothStyles) {
  BRun a = sampled_run("vector_add/cuda/n:8/block:256", 0);
  BRun b = sampled_run("vector_add/cuda/n:8/block:512", 0);
  a.error_occurred = b.error_occurred = true;
  a.error_message = b.error_message = "no CUDA device: none found";
  for (ConsoleStyle style : {ConsoleStyle::compact, ConsoleStyle::full}) {
    const Printed p = report(style, {cpu_row("vector_add/serial/n:8"), a, b},
                             {a.run_name.function_name, b.run_name.function_name});
    const std::string line = "vector_add/cuda/n:8/block:256/manual_time  SKIPPED: no CUDA device";
    EXPECT_NE(p.out.find(line), std::string::npos) << p.out;
    EXPECT_EQ(p.out.find("block:512/manual_time  SKIPPED"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("SKIPPED 2 rows: no CUDA device: none found\n"), std::string::npos);
    EXPECT_EQ(p.out.find("ERROR OCCURRED"), std::string::npos);
  }
}

// The run-wide reason (why the GPU rows skip) is printed once, at the start of the run: its
// rows are only counted, and the count points back to it.
TEST(ConsoleReporter, AReasonSaidAtTheStartIsNotRepeated) {
  BRun a = sampled_run("vector_add/cuda/n:8/block:256", 0);
  BRun b = sampled_run("vector_add/cuda/n:8/block:512", 0);
  a.error_occurred = b.error_occurred = true;
  const std::string why = "no CUDA device: none found";
  a.error_message = b.error_message = why;
  const Printed p = report(ConsoleStyle::compact, {cpu_row("vector_add/serial/n:8"), a, b},
                           {a.run_name.function_name, b.run_name.function_name}, why);
  EXPECT_EQ(p.out.find(why), std::string::npos) << p.out;
  EXPECT_EQ(p.err.find(why), std::string::npos) << p.err;
  EXPECT_NE(p.out.find("SKIPPED 2 rows: the reason given at the start\n"), std::string::npos)
      << p.out;
}

TEST(ConsoleReporter, FullStyleIsGoogleBenchmarksLineWithEveryCounter) {
  const Printed p = report(ConsoleStyle::full, {cpu_row("dot/omp/n:1048576/threads:2")});
  const std::string row = line_starting(p.out, "dot/omp/n:1048576/threads:2/manual_time ");
  ASSERT_FALSE(row.empty()) << p.out;
  EXPECT_NE(row.find("pct_ceiling=15.4%"), std::string::npos) << row;
  EXPECT_NE(row.find("cpu_probe_flops_after="), std::string::npos) << row;
  EXPECT_NE(row.find("bytes_per_second=48.0849G/s"), std::string::npos) << row;
  EXPECT_GT(row.size(), console::kWidth);
}

TEST(ConsoleReporter, RepetitionAggregatesPrintTheirStatistic) {
  BRun mean = cpu_row("dot/serial/n:8");
  mean.run_type = BRun::RT_Aggregate;
  mean.aggregate_name = "mean";
  BRun cv = sampled_run("dot/serial/n:8", 0);
  cv.run_type = BRun::RT_Aggregate;
  cv.aggregate_name = "cv";
  cv.aggregate_unit = benchmark::kPercentage;
  cv.iterations = 3;
  cv.real_accumulated_time = 0.0123;
  cv.counters["pct_ceiling"] = 0.02;
  const Printed p = report(ConsoleStyle::compact, {mean, cv});
  const std::string mean_row = line_starting(p.out, "dot/serial/n:8/manual_time_mean ");
  EXPECT_NE(mean_row.find(" 162 us "), std::string::npos) << p.out;
  EXPECT_EQ(mean_row.find("spread"), std::string::npos) << mean_row;  // a mean of "converged"
  const std::string cv_row = line_starting(p.out, "dot/serial/n:8/manual_time_cv ");
  EXPECT_NE(cv_row.find(" 1.23% "), std::string::npos) << p.out;
}

}  // namespace
}  // namespace tb
