#pragma once
// The console table with skips shown as skips: Google Benchmark 1.7 has only SkipWithError, so
// a GPU row on a machine without a GPU printed "ERROR OCCURRED" (522 lines in --quick). Rows that
// skipped (common/harness.hpp: skip(), no GPU, interrupted) print "SKIPPED: reason" once per
// reason, and the end of the table counts each reason's rows; validation failures and errors
// keep Google Benchmark's own "ERROR OCCURRED" line.
// Two more lines of Google Benchmark's console that misread for this suite:
// - Debian builds libbenchmark without NDEBUG, and its context prints "***WARNING*** Library was
//   built as DEBUG. Timings may be affected.": here it does not time anything (twinbench takes
//   every sample itself, common/sampler.hpp, and hands Google Benchmark the median), so the line
//   is replaced by one saying that.
// - pct_ceiling is a rate counter (the row's bytes over the ceiling's bytes per second, divided
//   by the time, times 100): its value is the percentage, and the JSON keeps it so
//   (reports/ceilings.py reads it as a percentage), but the console appended "/s". It prints as
//   "pct_ceiling=15.4%".
#include <benchmark/benchmark.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tb {

class SkipAwareConsoleReporter : public benchmark::ConsoleReporter {
 public:
  using benchmark::ConsoleReporter::ConsoleReporter;
  void ReportRuns(const std::vector<Run>& reports) override;
  void Finalize() override;
  bool ReportContext(const Context& context) override;

 protected:
  void PrintRunData(const Run& report) override;

 private:
  std::map<std::string, int> skipped_;  // reason -> rows
};

// The context text without Google Benchmark's DEBUG-build warning, and with the note on why it
// does not apply when it was there.
std::string without_debug_warning(const std::string& context_text);
// The run's line with pct_ceiling as a percentage: Google Benchmark's line for the run without
// that counter, and " pct_ceiling=15.4%" before its end of line.
std::string with_pct_ceiling(const std::string& line, std::optional<double> pct);

}  // namespace tb
