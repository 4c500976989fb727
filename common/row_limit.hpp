#pragma once
// One limit per row, chosen by the run from the row's work model and written in its row
// (limit_kind, limit, limit_per_s; pct_ceiling is the row's share of it), so that the report
// reads the limit rather than deciding a second one:
// - bandwidth: the measured pattern nearest the row's mix of reads and writes
//   (common/ceilings.hpp), of the set its threads run on (with the figures of arrays that fit
//   the caches where the row writes no more than the large arrays hold: BandwidthSet);
// - compute: the measured roof of the row's precision; a row that names none is held to the
//   higher of the FP32 and FP64 roofs, which never flags a valid row;
// - a row that declares both bytes and FLOPs is held to the one that binds: the limit that
//   allows the longer time (the roofline's minimum);
// - link: a host-device transfer, to the link's bandwidth measured at start with pinned copies;
// - none: latency and API rows (held_to_ceiling = false without a link, e2e and host-timed GPU
//   rows), and the bandwidth of a row whose data stay in a cache between calls: lucas'
//   168-byte loop, timed warm, read 116.8% of the H200 host's write ceiling
//   (results/nvidia-h200/2026-12-04), a share of a memory ceiling its data never reached.
// pct_ceiling = 100 x (the least time the work takes at the limit) / (the row's median).
#include <map>
#include <optional>
#include <string>

#include "common/bench_spec.hpp"
#include "common/ceilings.hpp"

namespace tb {

enum class LimitKind { none, bandwidth, compute, link };
const char* limit_kind_name(LimitKind k);

struct RowLimit {
  LimitKind kind = LimitKind::none;
  std::string name;                 // "triad bandwidth", "FP32 roof", "pinned h2d link"
  double per_s = 0.0;               // bytes/s, or FLOP/s for a roof
  double least_s = 0.0;             // the least time the row's work takes at that rate
  Pattern pattern = Pattern::copy;  // bandwidth: which pattern
  double peak_per_s = 0.0;          // compute: the precision's physical peak (0: unknown)
  std::string caveat;               // why the limit may be low (the set's caveat), or ""
};

// What the run measured that one row may be held to.
struct LimitSources {
  std::optional<BandwidthSet> bandwidth;  // the row's set; none: held to no bandwidth
  std::map<std::string, double> roofs;    // precision -> FLOP/s measured
  std::map<std::string, double> peaks;    // precision -> physical peak
  double link_per_s = 0.0;                // the row's link, for a transfer row
  std::string link_name;                  // "pinned h2d link"
  bool cache_resident = false;            // its data stay in a cache between calls
  std::string caveat;
};

// `precision`: the row's ("fp32", "bf16", ...), "" when it names none.
RowLimit choose_row_limit(const WorkModel& work, const std::string& precision,
                          const LimitSources& sources);

// The row's share of its limit at a time per call (the median): 100 x least_s / seconds.
double pct_of_limit(const RowLimit& limit, double seconds);

// Why a row's figure cannot stand as it is, or "" when it is plausible: at its median it is
// above its limit, or above the physical peak of its precision. The reason gives the row's share
// at the median and at the slow end of the median's interval (`slow_s`: whether it is above by
// more than its own noise) and names what to suspect.
std::string suspect_reason(const RowLimit& limit, double median_s, double slow_s);

}  // namespace tb
