#include "common/console_reporter.hpp"

#include <cstdio>
#include <ostream>
#include <sstream>

#include "common/harness.hpp"

namespace tb {

namespace {

constexpr const char* kDebugWarning = "***WARNING*** Library was built as DEBUG. Timings may be affected.";
constexpr const char* kDebugNote =
    "note: Google Benchmark's library is a debug build (Debian's); it does not time these rows "
    "(twinbench times every sample itself), so their timings are not affected.";

// Runs `print` with `stream` pointed at a string, and gives what it wrote.
template <class Set, class Print>
std::string captured(std::ostream& original, Set set_stream, Print print) {
  std::ostringstream text;
  set_stream(&text);
  print();
  set_stream(&original);
  return text.str();
}

}  // namespace

std::string without_debug_warning(const std::string& context_text) {
  const std::size_t at = context_text.find(kDebugWarning);
  if (at == std::string::npos) return context_text;
  std::string out = context_text;
  out.replace(at, std::string(kDebugWarning).size(), kDebugNote);
  return out;
}

std::string with_pct_ceiling(const std::string& line, std::optional<double> pct) {
  if (!pct) return line;
  char buf[48];
  std::snprintf(buf, sizeof buf, " pct_ceiling=%.3g%%", *pct);
  // Before the line's last newline: with colours, Google Benchmark ends the line with
  // "\n\033[m" (the reset after the newline).
  const std::size_t end = line.rfind('\n');
  if (end == std::string::npos) return line + buf;
  return line.substr(0, end) + buf + line.substr(end);
}

bool SkipAwareConsoleReporter::ReportContext(const Context& context) {
  std::ostream& err = GetErrorStream();
  bool ok = true;
  const std::string text = captured(
      err, [this](std::ostream* s) { SetErrorStream(s); },
      [&] { ok = benchmark::ConsoleReporter::ReportContext(context); });
  err << without_debug_warning(text);
  return ok;
}

void SkipAwareConsoleReporter::PrintRunData(const Run& report) {
  const auto it = report.counters.find("pct_ceiling");
  if (it == report.counters.end()) {
    benchmark::ConsoleReporter::PrintRunData(report);
    return;
  }
  const double pct = it->second.value;
  Run without = report;
  without.counters.erase("pct_ceiling");
  std::ostream& out = GetOutputStream();
  const std::string line = captured(
      out, [this](std::ostream* s) { SetOutputStream(s); },
      [&] { benchmark::ConsoleReporter::PrintRunData(without); });
  out << with_pct_ceiling(line, pct);
}

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
