#include "common/ceilings.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace tb {

const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::read:
      return "read";
    case Pattern::write:
      return "write";
    case Pattern::copy:
      return "copy";
    case Pattern::scale:
      return "scale";
    case Pattern::add:
      return "add";
    case Pattern::triad:
      return "triad";
  }
  return "?";
}

int pattern_reads(Pattern p) {
  switch (p) {
    case Pattern::read:
      return 2;
    case Pattern::write:
      return 0;
    case Pattern::copy:
    case Pattern::scale:
      return 1;
    case Pattern::add:
    case Pattern::triad:
      return 2;
  }
  return 0;
}

int pattern_writes(Pattern p) { return p == Pattern::read ? 0 : 1; }

BandwidthSet BandwidthSet::for_written_bytes(double written_bytes) const {
  BandwidthSet out;
  out.bytes_per_s = bytes_per_s;
  if (!(fitting_written_bytes > 0) || written_bytes > fitting_written_bytes) return out;
  for (int p = 0; p < kPatterns; ++p)
    out.bytes_per_s[p] = std::max(bytes_per_s[p], fitting_bytes_per_s[p]);
  return out;
}

namespace {
double read_share(double read, double written) {
  const double total = read + written;
  return total > 0 ? read / total : 0.0;
}
}  // namespace

Ceiling choose_ceiling(const BandwidthSet& set, double read_bytes, double written_bytes) {
  const double share = read_share(read_bytes, written_bytes);
  Ceiling best;
  double best_distance = INFINITY;
  for (Pattern p : kAllPatterns) {
    if (!(set[p] > 0)) continue;
    const double d = std::fabs(read_share(pattern_reads(p), pattern_writes(p)) - share);
    // Equal distances within rounding count as a tie: the faster pattern wins.
    const bool nearer = d < best_distance - 1e-12;
    const bool tie = std::fabs(d - best_distance) <= 1e-12;
    if (nearer || (tie && set[p] > best.bytes_per_s)) {
      best = {p, set[p]};
      best_distance = d;
    }
  }
  return best;
}

namespace {
struct Measured {
  BandwidthSet bandwidth;
  std::map<std::string, double> roofs, peaks;
  std::string caveat;
};
std::array<Measured, 3> g_sets;
std::array<double, 3> g_links{};  // by Link

Measured& measured(CeilingSet which) { return g_sets[static_cast<int>(which)]; }
double lookup(const std::map<std::string, double>& m, const std::string& key) {
  const auto it = m.find(key);
  return it == m.end() ? 0.0 : it->second;
}
}  // namespace

void set_ceilings(CeilingSet which, const BandwidthSet& set) { measured(which).bandwidth = set; }
const BandwidthSet& ceilings(CeilingSet which) { return measured(which).bandwidth; }

void set_roof(CeilingSet which, const std::string& precision, double per_s) {
  measured(which).roofs[precision] = per_s;
}
double roof(CeilingSet which, const std::string& precision) {
  return lookup(measured(which).roofs, precision);
}
void set_peak(CeilingSet which, const std::string& precision, double per_s) {
  measured(which).peaks[precision] = per_s;
}
double peak(CeilingSet which, const std::string& precision) {
  return lookup(measured(which).peaks, precision);
}

void set_link_bandwidth(Link direction, double bytes_per_s) {
  g_links[static_cast<int>(direction)] = bytes_per_s;
}
double link_bandwidth(Link direction) { return g_links[static_cast<int>(direction)]; }

void set_ceilings_caveat(CeilingSet which, const std::string& caveat) {
  measured(which).caveat = caveat;
}
const std::string& ceilings_caveat(CeilingSet which) { return measured(which).caveat; }

}  // namespace tb
