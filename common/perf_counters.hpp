#pragma once
// CPU hardware counters through Linux perf_event_open: whether this process may read them, and
// if not, why (the report's CPU limiter falls back to the roofline against the measured CPU
// ceilings then). A VM often has no virtual PMU (no "cpu" folder under
// /sys/bus/event_source/devices, perf_event_open fails with ENOENT); a host with
// kernel.perf_event_paranoid >= 3 (Debian's default on some kernels) refuses an unprivileged
// process (EACCES); a container without CAP_PERFMON may too.
//
// Counting is per thread of the calling thread only (inherit is off: the OpenMP pool exists
// before any group is opened, so inheritance would miss it). The probe counts a short loop on
// the main thread: enough to prove the counters work, and to give an IPC that says the PMU is
// real (a broken virtual PMU reads zeros).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb::perf {

// One reading of a group: the values are scaled by time_enabled / time_running when the
// kernel multiplexed the group (more events than hardware counters).
struct Reading {
  std::uint64_t cycles = 0;
  std::uint64_t instructions = 0;
  std::optional<std::uint64_t> llc_misses;  // absent where the PMU has no generic LLC event
  bool multiplexed = false;
  double ipc() const { return cycles ? static_cast<double>(instructions) / cycles : 0.0; }
};

// cycles + instructions (+ LLC misses where the kernel maps them) of the calling thread, user
// space only (exclude_kernel: allowed at perf_event_paranoid 2, the common default).
class Group {
 public:
  // nullopt with the reason in `why` when the leader (cycles) or instructions cannot be opened.
  static std::optional<Group> open(std::string& why);
  Group(Group&& other) noexcept;
  Group& operator=(Group&& other) noexcept;
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;
  ~Group();

  void start();
  Reading stop();  // disables the group and reads it; throws std::runtime_error on a failed read
  bool has_llc() const { return fds_.size() > 2; }

 private:
  Group() = default;
  std::vector<int> fds_;  // leader first: cycles, instructions, then LLC misses if opened
};

// Why counters are unavailable, in words, from an errno of perf_event_open and the host's
// state: "ENOENT: no CPU PMU (/sys/bus/event_source/devices has no cpu folder: a VM without a
// virtual PMU); kernel.perf_event_paranoid=2". Pure function of its inputs, for the tests.
std::string unavailable_reason(int err, const std::string& paranoid, bool has_cpu_pmu,
                               bool hypervisor);

// Tries the group on a short loop of the calling thread. available: the counters work
// (detail: "cycles, instructions, LLC misses; probe IPC 3.1"); else detail says why.
struct Probe {
  bool available = false;
  std::string detail;
  std::optional<Reading> reading;
};
Probe probe();

// The probe's verdict as run context keys: cpu_counters ("available (perf_event_open): ..." or
// "not available: ..."), cpu_counters_paranoid, and cpu_counters_probe_ipc when it worked.
void record_context();

}  // namespace tb::perf
