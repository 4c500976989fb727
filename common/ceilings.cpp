#include "common/ceilings.hpp"

#include <cmath>

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
std::array<BandwidthSet, 3> g_sets;
}

void set_ceilings(CeilingSet which, const BandwidthSet& set) {
  g_sets[static_cast<int>(which)] = set;
}
const BandwidthSet& ceilings(CeilingSet which) { return g_sets[static_cast<int>(which)]; }

}  // namespace tb
