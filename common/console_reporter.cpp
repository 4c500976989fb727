#include "common/console_reporter.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <ostream>
#include <sstream>
#include <utility>

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

std::optional<ConsoleStyle> console_style_from(std::string_view text) {
  if (text == "compact") return ConsoleStyle::compact;
  if (text == "full") return ConsoleStyle::full;
  return std::nullopt;
}

namespace console {

namespace {

using Run = benchmark::BenchmarkReporter::Run;

constexpr std::size_t kTimeWidth = 10;
constexpr std::size_t kRateWidth = 13;
constexpr std::size_t kPercentWidth = 9;
constexpr const char* kGap = "  ";
constexpr std::size_t kFixedWidth = kTimeWidth + kRateWidth + kPercentWidth + 4 * 2;

std::optional<double> counter(const Run& run, const char* name) {
  const auto it = run.counters.find(name);
  if (it == run.counters.end()) return std::nullopt;
  return it->second.value;
}

// Three significant digits: "769", "48.1", "1.23".
std::string three_digits(double v) {
  char buf[32];
  const double a = std::fabs(v);
  std::snprintf(buf, sizeof buf, a >= 99.95 ? "%.0f" : a >= 9.995 ? "%.1f" : "%.2f", v);
  return buf;
}

std::string padded_left(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

std::string padded_right(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

std::string without_trailing_spaces(std::string text) {
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

std::size_t note_width(std::size_t name_width) { return kWidth - name_width - kFixedWidth; }

bool is_aggregate(const Run& run) { return run.run_type == Run::RT_Aggregate; }

// The coefficient of variation over repetitions: a ratio, kept as is in real_accumulated_time
// (Google Benchmark's time per iteration would scale it by the time unit and the repetitions).
bool is_ratio(const Run& run) {
  return is_aggregate(run) && run.aggregate_unit == benchmark::kPercentage;
}

// The time column: the median of the samples for a sampled row (Google Benchmark's time per
// iteration); a coefficient of variation prints as a percentage.
std::string time_of(const Run& run) {
  if (is_ratio(run)) return format_percent(run.real_accumulated_time * 100.0);
  return format_seconds(run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit));
}

// A validation failure's message starts so (common/harness.cpp); the values it names are in
// the JSON and on stderr.
constexpr std::string_view kValidationFailed = "validation failed";

std::string error_note(const std::string& message) {
  if (message.compare(0, kValidationFailed.size(), kValidationFailed) == 0)
    return std::string(kValidationFailed);
  return message.empty() ? "error" : "error: " + message;
}

}  // namespace

std::string shortened_in_middle(const std::string& text, std::size_t width) {
  if (text.size() <= width) return text;
  if (width <= 3) return text.substr(0, width);
  const std::size_t kept = width - 3;
  const std::size_t head = (kept + 1) / 2;
  return text.substr(0, head) + "..." + text.substr(text.size() - (kept - head));
}

std::string shortened_at_end(const std::string& text, std::size_t width) {
  if (text.size() <= width) return text;
  if (width <= 3) return text.substr(0, width);
  return text.substr(0, width - 3) + "...";
}

std::string format_seconds(double seconds) {
  struct Unit {
    double per_second;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{1e9, "ns"}, {1e6, "us"}, {1e3, "ms"}, {1.0, "s"}};
  for (const Unit& u : kUnits) {
    const double v = seconds * u.per_second;
    if (std::fabs(v) < 999.5 || u.per_second == 1.0) return three_digits(v) + " " + u.name;
  }
  return "";
}

std::string format_rate(double per_second, const std::string& unit) {
  static constexpr const char* kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  double v = per_second;
  std::size_t p = 0;
  while (std::fabs(v) >= 999.5 && p + 1 < std::size(kPrefixes)) {
    v /= 1000.0;
    ++p;
  }
  return three_digits(v) + " " + kPrefixes[p] + unit;
}

std::string format_percent(std::optional<double> pct) {
  if (!pct || !std::isfinite(*pct)) return "-";
  if (*pct > 0 && *pct < 0.005) return "<0.01%";
  return three_digits(*pct) + "%";
}

std::size_t name_width_for(std::size_t longest_name) {
  return std::min(std::max(longest_name, kMinNameWidth), kMaxNameWidth);
}

std::string header(std::size_t name_width) {
  const std::string line = padded_right("Benchmark", name_width) + kGap +
                           padded_left("Time", kTimeWidth) + kGap +
                           padded_left("Rate", kRateWidth) + kGap +
                           padded_left("% ceiling", kPercentWidth) + kGap + "Note";
  const std::string rule(name_width + kFixedWidth + 4, '-');
  return rule + "\n" + line + "\n" + rule + "\n";
}

// Bytes per second where the row is held to a bandwidth ceiling (the percentage is of that
// rate) or declares no FLOPs; FLOP/s for compute rows; items per second for the rest.
std::string rate_of(const Run& run) {
  if (is_ratio(run)) return "";
  const auto bytes = counter(run, "bytes_per_second");
  const auto flops = counter(run, "flop_per_s");
  // The rate the row's % is of: bytes where it is held to a bandwidth, FLOP/s to a roof.
  if (bytes && (counter(run, "ceiling_pattern") || !flops)) return format_rate(*bytes, "B/s");
  if (flops) return format_rate(*flops, "FLOP/s");
  if (const auto items = counter(run, "items_per_second")) return format_rate(*items, "item/s");
  return "";
}

std::string note_of(const Run& run) {
  if (run.error_occurred) return error_note(run.error_message);
  std::vector<std::string> parts;
  if (!run.report_label.empty()) parts.push_back(run.report_label);
  // An aggregate's counters are statistics of the repetitions' counters: a mean of "converged"
  // says nothing the repetitions' own rows did not.
  if (is_aggregate(run)) return run.report_label;
  const auto converged = counter(run, "converged");
  const auto spread = counter(run, "rel_spread_pct");
  if (converged && *converged == 0 && spread) parts.push_back("spread " + format_percent(spread));
  if (counter(run, "gpu_throttled").value_or(0) != 0) parts.push_back("GPU throttled");
  if (counter(run, "host_busy").value_or(0) != 0) parts.push_back("host busy");
  if (counter(run, "above_limit").value_or(0) != 0) parts.push_back("above its limit: see the warning");
  std::string note;
  for (const std::string& part : parts) note += (note.empty() ? "" : "; ") + part;
  return note;
}

std::string row(const Run& run, std::size_t name_width) {
  const std::string name = padded_right(shortened_in_middle(run.benchmark_name(), name_width),
                                        name_width);
  const std::string note = shortened_at_end(note_of(run), note_width(name_width));
  if (run.error_occurred)
    return without_trailing_spaces(name + kGap + padded_left("-", kTimeWidth) + kGap +
                                   padded_left("-", kRateWidth) + kGap +
                                   padded_left("-", kPercentWidth) + kGap + note) + "\n";
  const std::string rate = rate_of(run);
  return without_trailing_spaces(name + kGap + padded_left(time_of(run), kTimeWidth) + kGap +
                                 padded_left(rate.empty() ? "-" : rate, kRateWidth) + kGap +
                                 padded_left(is_ratio(run) ? "-"
                                                           : format_percent(counter(run, "pct_ceiling")),
                                             kPercentWidth) +
                                 kGap + note) + "\n";
}

}  // namespace console

namespace {

// `text` without the lines that end in `said` (the context's "gpu_status: <reason>"); all of it
// when `said` is empty.
std::string without_lines_ending_in(const std::string& text, const std::string& said) {
  if (said.empty()) return text;
  std::string kept;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    const std::string_view line(text.data() + start, end - start);
    const std::string_view body = line.substr(0, line.size() - (line.back() == '\n' ? 1 : 0));
    if (!(body.size() >= said.size() && body.substr(body.size() - said.size()) == said))
      kept.append(line);
    start = end;
  }
  return kept;
}

}  // namespace

SkipAwareConsoleReporter::SkipAwareConsoleReporter(OutputOptions options, ConsoleStyle style,
                                                   std::function<bool(const std::string&)> is_skip)
    : benchmark::ConsoleReporter(options), style_(style), is_skip_(std::move(is_skip)) {
  if (!is_skip_) is_skip_ = [](const std::string& name) { return was_skipped(name); };
}

bool SkipAwareConsoleReporter::ReportContext(const Context& context) {
  std::ostream& err = GetErrorStream();
  bool ok = true;
  const std::string text = captured(
      err, [this](std::ostream* s) { SetErrorStream(s); },
      [&] { ok = benchmark::ConsoleReporter::ReportContext(context); });
  err << without_lines_ending_in(without_debug_warning(text), said_at_start_);
  name_width_ = console::name_width_for(context.name_field_width);
  return ok;
}

void SkipAwareConsoleReporter::print_compact(const Run& report) {
  std::ostream& out = GetOutputStream();
  if (name_width_ == 0) name_width_ = console::name_width_for(report.benchmark_name().size());
  if (!compact_header_printed_) {
    out << console::header(name_width_);
    compact_header_printed_ = true;
  }
  out << console::row(report, name_width_);
}

void SkipAwareConsoleReporter::PrintRunData(const Run& report) {
  if (style_ == ConsoleStyle::compact) {
    print_compact(report);
    return;
  }
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
    if (!(r.error_occurred && is_skip_(r.run_name.function_name))) {
      rest.push_back(r);
      continue;
    }
    if (skipped_[r.error_message]++ == 0 && r.error_message != said_at_start_)
      GetOutputStream() << r.benchmark_name() << "  SKIPPED: " << r.error_message << "\n";
  }
  if (rest.empty()) return;
  if (style_ == ConsoleStyle::full) {
    benchmark::ConsoleReporter::ReportRuns(rest);
    return;
  }
  for (const Run& r : rest) print_compact(r);
}

void SkipAwareConsoleReporter::Finalize() {
  for (const auto& [reason, rows] : skipped_)
    GetOutputStream() << "SKIPPED " << rows << (rows == 1 ? " row: " : " rows: ")
                      << (reason == said_at_start_ ? "the reason given at the start" : reason)
                      << "\n";
  benchmark::ConsoleReporter::Finalize();
}

}  // namespace tb
