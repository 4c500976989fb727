#pragma once
// CPU package energy from Linux powercap (RAPL), the host's counterpart of NVML's energy
// counter, and the energy arithmetic both sides share.
//
// Only package zones are summed: intel-rapl:N named package-N. Sub-zones (intel-rapl:N:M: core,
// uncore, dram) lie inside their package or beside it and would count twice; so would psys (the
// whole platform) and intel-rapl-mmio (the same package through MMIO). AMD kernels expose their
// packages under the same intel-rapl names.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tb::rapl {

// Joules between two readings of a counter that wraps to 0 after max_range_uj
// (max_energy_range_uj). NaN when it went backwards and the range is unknown (0), or when a
// reading lies outside the range.
double energy_delta_j(std::uint64_t before_uj, std::uint64_t after_uj, std::uint64_t max_range_uj);

struct Domain {
  std::string name;         // "package-0"
  std::string energy_path;  // .../intel-rapl:0/energy_uj
  std::uint64_t max_range_uj = 0;
};

// energy_uj of each domain, in the Reader's order.
struct Snapshot {
  std::vector<std::uint64_t> energy_uj;
};

class Reader {
 public:
  // The package domains under `root`, or nullptr with the reason in `why`: the folder is missing
  // (a VM usually hides RAPL), it has no package zone, or energy_uj is not readable (root-only
  // since Linux 5.10).
  static std::unique_ptr<Reader> open(std::string& why,
                                      const std::string& root = "/sys/class/powercap");

  // "rapl: package-0, package-1"
  std::string describe() const;
  const std::vector<Domain>& domains() const { return domains_; }

  // Throws std::runtime_error if a counter cannot be read any more.
  Snapshot snapshot() const;
  // Sum over the domains of each one's delta, with wraparound. NaN if a snapshot does not hold
  // one reading per domain.
  double joules_between(const Snapshot& a, const Snapshot& b) const;
  // Sum of the packages' counters now, in joules: only differences of it mean anything, and
  // they do not survive a wrap (joules_between does).
  double read_joules() const;

 private:
  explicit Reader(std::vector<Domain> domains) : domains_(std::move(domains)) {}
  std::vector<Domain> domains_;
};

// Energy of one iteration from the mean power over a window: (joules / window_s) x
// seconds_per_iter. A counter difference over one short iteration would be mostly quantisation
// (NVML's moves in 12-23 J steps on the H200). NaN if window_s <= 0.
double energy_per_iteration(double joules, double window_s, double seconds_per_iter);
// Joules per item (element, option, pixel); NaN if items_per_iter <= 0.
double energy_per_item(double joules_per_iter, double items_per_iter);

}  // namespace tb::rapl
