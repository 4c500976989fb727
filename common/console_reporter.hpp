#pragma once
// The console table. By default a compact one, one line per row that fits 120 columns:
//
//   Benchmark                                      Time           Rate  % ceiling  Note
//   dot/omp/n:1048576/threads:2/manual_time      162 us      48.1 GB/s      15.4%  spread 7.31%
//
// the row's time (the median of its samples), its rate (bytes per second where the row is held
// to a bandwidth ceiling or declares no FLOPs, else FLOP/s, else items per second), its share
// of its bandwidth ceiling (pct_ceiling, "-" where the row has none; the compute roofs and
// which limit binds are the report's, reports/) and a short note (the row's label, a
// validation failure or an error, a spread that did not settle, a throttled GPU or a busy host).
// Google Benchmark's own line printed every counter of every row (300+ characters, about 30
// counters on a CPU row); every counter stays in the JSON results, and `--console=full` prints
// Google Benchmark's line as before. A name longer than its column is shortened in the middle
// (the workload at the start and the axes' end stay readable); the JSON keeps the full name.
//
// In both styles skips show as skips: Google Benchmark 1.7 has only SkipWithError, so a GPU row
// on a machine without a GPU printed "ERROR OCCURRED" (522 lines in --quick). Rows that skipped
// (common/harness.hpp: skip(), no GPU, interrupted) print "SKIPPED: reason" once per reason,
// and the end of the table counts each reason's rows.
// Two more lines of Google Benchmark's console that misread for this suite:
// - Debian builds libbenchmark without NDEBUG, and its context prints "***WARNING*** Library was
//   built as DEBUG. Timings may be affected.": here it does not time anything (twinbench takes
//   every sample itself, common/sampler.hpp, and hands Google Benchmark the median), so the line
//   is replaced by one saying that.
// - pct_ceiling is a rate counter (the row's bytes over the ceiling's bytes per second, divided
//   by the time, times 100): its value is the percentage, and the JSON keeps it so
//   (reports/src/twinbench/report/ceilings.py reads it as a percentage), but the full line appended "/s". It prints
//   as "pct_ceiling=15.4%" there, "15.4%" in the compact table.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

enum class ConsoleStyle { compact, full };

// "compact" or "full" (the value of --console); nothing for any other text.
std::optional<ConsoleStyle> console_style_from(std::string_view text);

class SkipAwareConsoleReporter : public benchmark::ConsoleReporter {
 public:
  // `is_skip`: whether a row whose run errored skipped (by its function name); the harness's
  // record by default (common/harness.hpp: was_skipped).
  explicit SkipAwareConsoleReporter(OutputOptions options = OO_Defaults,
                                    ConsoleStyle style = ConsoleStyle::compact,
                                    std::function<bool(const std::string&)> is_skip = {});
  void ReportRuns(const std::vector<Run>& reports) override;
  void Finalize() override;
  bool ReportContext(const Context& context) override;
  // A skip reason the run printed once at its start (why the GPU rows skip): rows skipped for it
  // are counted and not printed, the context's lines holding it are left out, and the count at
  // the end points back to the start instead of saying it again.
  void said_at_start(std::string reason) { said_at_start_ = std::move(reason); }

 protected:
  void PrintRunData(const Run& report) override;

 private:
  void print_compact(const Run& report);

  ConsoleStyle style_;
  std::function<bool(const std::string&)> is_skip_;
  std::size_t name_width_ = 0;  // the compact table's name column, set by ReportContext
  bool compact_header_printed_ = false;
  std::map<std::string, int> skipped_;  // reason -> rows
  std::string said_at_start_;
};

// The context text without Google Benchmark's DEBUG-build warning, and with the note on why it
// does not apply when it was there.
std::string without_debug_warning(const std::string& context_text);
// The run's line with pct_ceiling as a percentage: Google Benchmark's line for the run without
// that counter, and " pct_ceiling=15.4%" before its end of line.
std::string with_pct_ceiling(const std::string& line, std::optional<double> pct);

// The compact table's pieces.
namespace console {

constexpr std::size_t kWidth = 120;       // the table's widest line
constexpr std::size_t kMaxNameWidth = 60;  // leaves the note at least 20 columns
constexpr std::size_t kMinNameWidth = 9;   // "Benchmark"

// `text` at most `width` characters: the start and the end kept, "..." between them.
std::string shortened_in_middle(const std::string& text, std::size_t width);
// `text` at most `width` characters: its start, and "..." where it was cut.
std::string shortened_at_end(const std::string& text, std::size_t width);
// Three significant digits and the unit that keeps the number under 1000: "769 us", "1.23 ms".
std::string format_seconds(double seconds);
// Three significant digits with an SI prefix before `unit`: "48.1 GB/s", "1.23 TFLOP/s".
std::string format_rate(double per_second, const std::string& unit);
// "15.4%", "137%", "-" without a value.
std::string format_percent(std::optional<double> pct);
// The name column's width for the longest name of the run.
std::size_t name_width_for(std::size_t longest_name);

std::string header(std::size_t name_width);
// The run's rate column ("" where it declares no work) and note column ("" where nothing to say).
std::string rate_of(const benchmark::BenchmarkReporter::Run& run);
std::string note_of(const benchmark::BenchmarkReporter::Run& run);
// One line, with its newline, at most kWidth characters before it.
std::string row(const benchmark::BenchmarkReporter::Run& run, std::size_t name_width);

}  // namespace console

}  // namespace tb
