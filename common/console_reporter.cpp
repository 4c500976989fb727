#include "common/console_reporter.hpp"

#include <ostream>

#include "common/harness.hpp"

namespace tb {

void SkipAwareConsoleReporter::ReportRuns(const std::vector<Run>& reports) {
  std::vector<Run> rest;
  for (const Run& r : reports) {
    if (!(r.error_occurred && was_skipped(r.run_name.function_name))) {
      rest.push_back(r);
      continue;
    }
    if (skipped_[r.error_message]++ == 0)
      GetOutputStream() << r.benchmark_name() << "  SKIPPED: " << r.error_message << "\n";
  }
  if (!rest.empty()) benchmark::ConsoleReporter::ReportRuns(rest);
}

void SkipAwareConsoleReporter::Finalize() {
  for (const auto& [reason, rows] : skipped_)
    GetOutputStream() << "SKIPPED " << rows << (rows == 1 ? " row: " : " rows: ") << reason << "\n";
  benchmark::ConsoleReporter::Finalize();
}

}  // namespace tb
