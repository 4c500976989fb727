#include "common/row_limit.hpp"

#include <cctype>
#include <cstdio>

namespace tb {

const char* limit_kind_name(LimitKind k) {
  switch (k) {
    case LimitKind::none:
      return "none";
    case LimitKind::bandwidth:
      return "bandwidth";
    case LimitKind::compute:
      return "compute";
    case LimitKind::link:
      return "link";
  }
  return "none";
}

namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

double lookup(const std::map<std::string, double>& m, const std::string& key) {
  const auto it = m.find(key);
  return it == m.end() ? 0.0 : it->second;
}

// The roof a row's FLOPs are held to, or kind none when that precision's roof was not measured
// (a TF32 row is never held to the FP32 roof).
RowLimit compute_limit(const WorkModel& work, const std::string& precision,
                       const LimitSources& s) {
  RowLimit l;
  if (!(work.flops > 0)) return l;
  std::string p = precision;
  if (p.empty()) p = lookup(s.roofs, "fp64") > lookup(s.roofs, "fp32") ? "fp64" : "fp32";
  const double roof = lookup(s.roofs, p);
  if (!(roof > 0)) return l;
  l.kind = LimitKind::compute;
  l.name = upper(p) + " roof";
  l.per_s = roof;
  l.least_s = work.flops / roof;
  l.peak_per_s = lookup(s.peaks, p);
  return l;
}

RowLimit bandwidth_limit(const WorkModel& work, const LimitSources& s) {
  RowLimit l;
  if (!s.bandwidth || s.cache_resident || !(work.bytes() > 0)) return l;
  const Ceiling c = choose_ceiling(s.bandwidth->for_written_bytes(work.written_bytes),
                                   work.read_bytes, work.written_bytes);
  if (!(c.bytes_per_s > 0)) return l;
  l.kind = LimitKind::bandwidth;
  l.name = std::string(pattern_name(c.pattern)) + " bandwidth";
  l.per_s = c.bytes_per_s;
  l.least_s = work.bytes() / c.bytes_per_s;
  l.pattern = c.pattern;
  return l;
}

std::string format(const char* fmt, double a, double b = 0.0, double c = 0.0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

std::string rate_text(double per_s, LimitKind kind) {
  return kind == LimitKind::compute ? format("%.3g GFLOP/s", per_s * 1e-9)
                                    : format("%.3g GB/s", per_s * 1e-9);
}

}  // namespace

RowLimit choose_row_limit(const WorkModel& work, const std::string& precision,
                          const LimitSources& sources) {
  RowLimit chosen;
  if (work.link != Link::none) {
    if (sources.link_per_s > 0 && work.bytes() > 0) {
      chosen.kind = LimitKind::link;
      chosen.name = sources.link_name;
      chosen.per_s = sources.link_per_s;
      chosen.least_s = work.bytes() / sources.link_per_s;
    }
    return chosen;
  }
  if (!work.held_to_ceiling) return chosen;
  const RowLimit bw = bandwidth_limit(work, sources);
  const RowLimit fl = compute_limit(work, precision, sources);
  chosen = bw.least_s >= fl.least_s ? bw : fl;
  if (chosen.kind != LimitKind::none) chosen.caveat = sources.caveat;
  return chosen;
}

double pct_of_limit(const RowLimit& limit, double seconds) {
  return limit.kind == LimitKind::none || !(seconds > 0) ? 0.0 : 100.0 * limit.least_s / seconds;
}

std::string suspect_reason(const RowLimit& limit, double median_s, double slow_s) {
  if (limit.kind == LimitKind::none || !(median_s > 0)) return "";
  const double pct = pct_of_limit(limit, median_s);
  const double rate = limit.per_s * pct / 100.0;
  if (limit.kind == LimitKind::compute && limit.peak_per_s > 0 && rate > limit.peak_per_s)
    return format("%.1f%% of its ", pct) + limit.name + ", and " + rate_text(rate, limit.kind) +
           " is above the physical peak (" + rate_text(limit.peak_per_s, limit.kind) +
           "): suspect the row's FLOP count, or the peak's clock";
  if (!(pct > 100.0)) return "";
  const double slow_pct = slow_s > 0 ? pct_of_limit(limit, slow_s) : pct;
  // One decimal: a GPU row at 100.2% of its ceiling read "100% ... above by more than its noise".
  std::string why = format("%.1f%% of its ", pct) + limit.name +
                    (slow_pct > 100.0 ? format(" (%.1f%% at the slow end of its median's "
                                               "interval: above by more than its noise)",
                                               slow_pct)
                                      : format(" (%.1f%% at the slow end of its median's "
                                               "interval: within its noise)",
                                               slow_pct)) +
                    ": suspect ";
  switch (limit.kind) {
    case LimitKind::compute:
      why += "the roof, measured low";
      if (limit.peak_per_s > 0)
        why += " (the physical peak is " + rate_text(limit.peak_per_s, limit.kind) + ")";
      why += ", or the row's FLOP count";
      break;
    case LimitKind::bandwidth:
      why += "the ceiling, whose kernel moves this pattern slower than the row does, the row's "
             "byte count, or data served from a cache";
      break;
    case LimitKind::link:
      why += "a transfer that moves less than it says (pages already where it copies them), or "
             "the link's ceiling";
      break;
    case LimitKind::none:
      break;
  }
  if (!limit.caveat.empty()) why += "; the limit was " + limit.caveat;
  return why;
}

}  // namespace tb
