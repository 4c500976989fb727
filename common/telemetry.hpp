#pragma once
// The machine's state while a benchmark runs: GPU clocks, power, temperature, throttle reasons
// and energy through NVML, sampled by a thread off the timed path; on the host, the load
// average and the CPU clock before and after a row.
//
// NVML (libnvidia-ml.so.1) comes with the driver, not the toolkit: it is loaded at run time, so
// a machine without a driver builds and runs the suite and says why there is no telemetry.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace tb::telemetry {

// One reading of the GPU's state. NaN where the source could not read a quantity.
struct Reading {
  double sm_mhz = 0.0;
  double mem_mhz = 0.0;
  double power_w = 0.0;
  double temp_c = 0.0;
  std::uint64_t throttle_reasons = 0;  // NVML's clocks-event reasons bit mask
};

// Where readings come from: NVML on a real machine, a fake in the tests.
class Source {
 public:
  virtual ~Source() = default;
  virtual std::optional<Reading> read() = 0;
  // Total energy used by the GPU since the driver loaded, in joules (NVML: millijoules).
  virtual std::optional<double> energy_j() = 0;
  // Settings that change the numbers, for the run's context (env_gpu_* keys): persistence
  // mode, ECC, application clocks, power limit, driver. Read once at start.
  virtual std::vector<std::pair<std::string, std::string>> environment() { return {}; }
};

// NVML for the measured device, or nullptr with the reason in `why` (no driver, no device, ...).
// `pci_bus_id`: the CUDA device measured (NVML numbers devices its own way and ignores
// CUDA_VISIBLE_DEVICES); empty: NVML's device 0.
std::unique_ptr<Source> open_nvml(std::string& why, const std::string& pci_bus_id = "");

// Throttle reasons that mean the clock was held down by the machine, not by idleness or the
// application's own setting: power cap, thermal slowdown, hardware slowdown, sync boost...
// (NVML's bits: 0x1 gpu idle and 0x2 application clocks setting are left out.)
inline constexpr std::uint64_t kIdleReason = 0x1;
inline constexpr std::uint64_t kAppClocksReason = 0x2;
bool throttled(std::uint64_t reasons);
std::string describe_reasons(std::uint64_t reasons);

// What a row records from the readings taken while it ran.
struct Summary {
  int readings = 0;
  double sm_mhz_min = 0.0, sm_mhz_mean = 0.0;
  double mem_mhz_mean = 0.0;
  double power_w_mean = 0.0, power_w_max = 0.0;
  double temp_c_max = 0.0;
  std::uint64_t throttle_reasons = 0;  // OR of every reading's
  std::optional<double> energy_j;      // energy counter difference over the window
};

Summary summarize(const std::vector<Reading>& readings);

// Reads `source` every `interval` on its own thread between start() and stop(). The timed code
// never calls NVML: a reading costs tens of microseconds and would land inside the samples.
class Sampler {
 public:
  Sampler(Source& source, std::chrono::microseconds interval);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  void start();
  Summary stop();

 private:
  void loop();
  Source& source_;
  std::chrono::microseconds interval_;
  std::thread thread_;
  std::atomic<bool> running_{false};
  std::mutex mutex_;
  std::vector<Reading> readings_;
  std::optional<double> energy_start_;
};

// The host's side: 1-minute load average and the mean current CPU clock (cpufreq, or
// /proc/cpuinfo's "cpu MHz" where cpufreq is absent, as in many VMs); NaN when unreadable.
struct HostState {
  double load1 = 0.0;
  double cpu_mhz = 0.0;
  int cpus = 0;
};
HostState read_host_state();
// A machine is busy, for a CPU row, when its load average is above half a core per core.
bool host_busy(const HostState& s);

}  // namespace tb::telemetry
