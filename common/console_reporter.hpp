#pragma once
// The console table with skips shown as skips: Google Benchmark 1.7 has only SkipWithError, so
// a GPU row on a machine without a GPU printed "ERROR OCCURRED" (522 lines in --quick). Rows that
// skipped (common/harness.hpp: skip(), no GPU, interrupted) print "SKIPPED: reason" once per
// reason, and the end of the table counts each reason's rows; validation failures and errors
// keep Google Benchmark's own "ERROR OCCURRED" line.
#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

namespace tb {

class SkipAwareConsoleReporter : public benchmark::ConsoleReporter {
 public:
  using benchmark::ConsoleReporter::ConsoleReporter;
  void ReportRuns(const std::vector<Run>& reports) override;
  void Finalize() override;

 private:
  std::map<std::string, int> skipped_;  // reason -> rows
};

}  // namespace tb
