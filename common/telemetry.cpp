#include "common/telemetry.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

namespace tb::telemetry {
namespace {

// The few NVML entry points used, declared from NVML's documented C API (the development
// machines' toolkit has no nvml.h): every call returns 0 (NVML_SUCCESS) on success, and a
// device is an opaque handle.
using nvml_return = int;
using nvml_device = struct nvml_device_opaque*;
constexpr int kClockSm = 1;         // NVML_CLOCK_SM
constexpr int kClockMem = 2;        // NVML_CLOCK_MEM
constexpr int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU

struct NvmlApi {
  void* lib = nullptr;
  nvml_return (*init)() = nullptr;
  nvml_return (*shutdown)() = nullptr;
  nvml_return (*handle_by_index)(unsigned, nvml_device*) = nullptr;
  nvml_return (*handle_by_pci_bus_id)(const char*, nvml_device*) = nullptr;
  nvml_return (*clock_info)(nvml_device, int, unsigned*) = nullptr;
  nvml_return (*power_usage)(nvml_device, unsigned*) = nullptr;
  nvml_return (*temperature)(nvml_device, int, unsigned*) = nullptr;
  nvml_return (*throttle_reasons)(nvml_device, unsigned long long*) = nullptr;
  nvml_return (*total_energy)(nvml_device, unsigned long long*) = nullptr;
  // Environment (optional: a missing entry point is "unknown").
  nvml_return (*driver_version)(char*, unsigned) = nullptr;
  nvml_return (*persistence_mode)(nvml_device, int*) = nullptr;
  nvml_return (*ecc_mode)(nvml_device, int*, int*) = nullptr;
  nvml_return (*applications_clock)(nvml_device, int, unsigned*) = nullptr;
  nvml_return (*power_limit)(nvml_device, unsigned*) = nullptr;
};

template <class Fn>
bool bind(void* lib, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  return fn != nullptr;
}

class NvmlSource final : public Source {
 public:
  NvmlSource(NvmlApi api, nvml_device device) : api_(api), device_(device) {}
  ~NvmlSource() override {
    api_.shutdown();
    dlclose(api_.lib);
  }

  std::optional<Reading> read() override {
    Reading r;
    unsigned v = 0;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    r.sm_mhz = api_.clock_info(device_, kClockSm, &v) == 0 ? v : nan;
    r.mem_mhz = api_.clock_info(device_, kClockMem, &v) == 0 ? v : nan;
    r.power_w = api_.power_usage(device_, &v) == 0 ? v * 1e-3 : nan;  // milliwatts
    r.temp_c = api_.temperature(device_, kTemperatureGpu, &v) == 0 ? v : nan;
    unsigned long long reasons = 0;
    if (api_.throttle_reasons && api_.throttle_reasons(device_, &reasons) == 0)
      r.throttle_reasons = reasons;
    return r;
  }

  std::optional<double> energy_j() override {
    unsigned long long mj = 0;
    if (!api_.total_energy || api_.total_energy(device_, &mj) != 0) return std::nullopt;
    return static_cast<double>(mj) * 1e-3;
  }

  std::vector<std::pair<std::string, std::string>> environment() override {
    std::vector<std::pair<std::string, std::string>> env;
    char version[96] = {};
    env.emplace_back("env_gpu_driver", api_.driver_version && api_.driver_version(version, sizeof version) == 0
                                           ? std::string(version)
                                           : "unknown");
    int mode = 0, pending = 0;
    env.emplace_back("env_gpu_persistence_mode",
                     api_.persistence_mode && api_.persistence_mode(device_, &mode) == 0
                         ? (mode ? "enabled" : "disabled")
                         : "unknown");
    env.emplace_back("env_gpu_ecc", api_.ecc_mode && api_.ecc_mode(device_, &mode, &pending) == 0
                                        ? (mode ? "enabled" : "disabled")
                                        : "not supported");
    unsigned mhz = 0;
    env.emplace_back("env_gpu_app_sm_clock_mhz",
                     api_.applications_clock && api_.applications_clock(device_, kClockSm, &mhz) == 0
                         ? std::to_string(mhz)
                         : "unknown");
    env.emplace_back("env_gpu_app_mem_clock_mhz",
                     api_.applications_clock && api_.applications_clock(device_, kClockMem, &mhz) == 0
                         ? std::to_string(mhz)
                         : "unknown");
    unsigned mw = 0;
    env.emplace_back("env_gpu_power_limit_w", api_.power_limit && api_.power_limit(device_, &mw) == 0
                                                  ? std::to_string(mw / 1000)
                                                  : "unknown");
    return env;
  }

 private:
  NvmlApi api_;
  nvml_device device_;
};

double mean_finite(const std::vector<Reading>& rs, double Reading::*field) {
  double sum = 0.0;
  int n = 0;
  for (const auto& r : rs)
    if (std::isfinite(r.*field)) {
      sum += r.*field;
      ++n;
    }
  return n ? sum / n : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

std::unique_ptr<Source> open_nvml(std::string& why, const std::string& pci_bus_id) {
  NvmlApi api;
  api.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!api.lib) {
    why = "NVML not available (libnvidia-ml.so.1 comes with the NVIDIA driver): no GPU telemetry";
    return nullptr;
  }
  const bool ok = bind(api.lib, "nvmlInit_v2", api.init) &&
                  bind(api.lib, "nvmlShutdown", api.shutdown) &&
                  bind(api.lib, "nvmlDeviceGetHandleByIndex_v2", api.handle_by_index) &&
                  bind(api.lib, "nvmlDeviceGetClockInfo", api.clock_info) &&
                  bind(api.lib, "nvmlDeviceGetPowerUsage", api.power_usage) &&
                  bind(api.lib, "nvmlDeviceGetTemperature", api.temperature);
  // Optional: older drivers name the reasons "clocks throttle", newer "clocks event".
  if (!bind(api.lib, "nvmlDeviceGetCurrentClocksEventReasons", api.throttle_reasons))
    bind(api.lib, "nvmlDeviceGetCurrentClocksThrottleReasons", api.throttle_reasons);
  bind(api.lib, "nvmlDeviceGetHandleByPciBusId_v2", api.handle_by_pci_bus_id);
  bind(api.lib, "nvmlDeviceGetTotalEnergyConsumption", api.total_energy);
  bind(api.lib, "nvmlSystemGetDriverVersion", api.driver_version);
  bind(api.lib, "nvmlDeviceGetPersistenceMode", api.persistence_mode);
  bind(api.lib, "nvmlDeviceGetEccMode", api.ecc_mode);
  bind(api.lib, "nvmlDeviceGetApplicationsClock", api.applications_clock);
  bind(api.lib, "nvmlDeviceGetEnforcedPowerLimit", api.power_limit);
  if (!ok) {
    why = "NVML lacks an entry point this suite uses: no GPU telemetry";
    dlclose(api.lib);
    return nullptr;
  }
  if (const int rc = api.init(); rc != 0) {
    why = "nvmlInit failed (NVML error " + std::to_string(rc) + "): no GPU telemetry";
    dlclose(api.lib);
    return nullptr;
  }
  nvml_device device = nullptr;
  const bool by_bus = !pci_bus_id.empty() && api.handle_by_pci_bus_id;
  if (const int rc = by_bus ? api.handle_by_pci_bus_id(pci_bus_id.c_str(), &device)
                            : api.handle_by_index(0, &device);
      rc != 0) {
    why = "NVML finds no device " + (by_bus ? pci_bus_id : std::string("0")) + " (NVML error " +
          std::to_string(rc) + "): no GPU telemetry";
    api.shutdown();
    dlclose(api.lib);
    return nullptr;
  }
  return std::make_unique<NvmlSource>(api, device);
}

bool throttled(std::uint64_t reasons) { return (reasons & ~(kIdleReason | kAppClocksReason)) != 0; }

std::string describe_reasons(std::uint64_t reasons) {
  static const std::pair<std::uint64_t, const char*> names[] = {
      {0x4, "power cap"},           {0x8, "hardware slowdown"},   {0x10, "sync boost"},
      {0x20, "thermal (software)"}, {0x40, "thermal (hardware)"}, {0x80, "power brake"},
      {0x100, "display clock"}};
  std::string out;
  for (const auto& [bit, name] : names)
    if (reasons & bit) out += (out.empty() ? "" : ", ") + std::string(name);
  return out.empty() ? "none" : out;
}

Summary summarize(const std::vector<Reading>& rs) {
  Summary s;
  s.readings = static_cast<int>(rs.size());
  if (rs.empty()) return s;
  s.sm_mhz_mean = mean_finite(rs, &Reading::sm_mhz);
  s.mem_mhz_mean = mean_finite(rs, &Reading::mem_mhz);
  s.power_w_mean = mean_finite(rs, &Reading::power_w);
  s.sm_mhz_min = std::numeric_limits<double>::infinity();
  for (const auto& r : rs) {
    if (std::isfinite(r.sm_mhz)) s.sm_mhz_min = std::min(s.sm_mhz_min, r.sm_mhz);
    if (std::isfinite(r.power_w)) s.power_w_max = std::max(s.power_w_max, r.power_w);
    if (std::isfinite(r.temp_c)) s.temp_c_max = std::max(s.temp_c_max, r.temp_c);
    s.throttle_reasons |= r.throttle_reasons;
  }
  if (!std::isfinite(s.sm_mhz_min)) s.sm_mhz_min = std::numeric_limits<double>::quiet_NaN();
  return s;
}

Sampler::Sampler(Source& source, std::chrono::microseconds interval)
    : source_(source), interval_(interval) {}

Sampler::~Sampler() {
  if (running_.exchange(false) && thread_.joinable()) thread_.join();
}

void Sampler::start() {
  if (running_.exchange(true)) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    readings_.clear();
  }
  energy_start_ = source_.energy_j();
  thread_ = std::thread([this] { loop(); });
}

void Sampler::loop() {
  while (running_.load()) {
    if (auto r = source_.read()) {
      std::lock_guard<std::mutex> lock(mutex_);
      readings_.push_back(*r);
    }
    std::this_thread::sleep_for(interval_);
  }
}

Summary Sampler::stop() {
  if (running_.exchange(false) && thread_.joinable()) thread_.join();
  // One reading at the end too, so that a row shorter than the interval has one.
  if (auto r = source_.read()) readings_.push_back(*r);
  Summary s = summarize(readings_);
  const auto energy_end = source_.energy_j();
  if (energy_start_ && energy_end) s.energy_j = *energy_end - *energy_start_;
  return s;
}

HostState read_host_state() {
  HostState s;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  s.cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  std::ifstream load("/proc/loadavg");
  if (!(load >> s.load1)) s.load1 = nan;
  // cpufreq where the kernel exposes it; VMs often do not, /proc/cpuinfo still has a figure.
  double sum = 0.0;
  int n = 0;
  for (int cpu = 0; cpu < s.cpus; ++cpu) {
    std::ifstream f("/sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                    "/cpufreq/scaling_cur_freq");
    double khz = 0.0;
    if (f >> khz) {
      sum += khz * 1e-3;
      ++n;
    }
  }
  if (n == 0) {
    std::ifstream info("/proc/cpuinfo");
    std::string line;
    while (std::getline(info, line))
      if (line.rfind("cpu MHz", 0) == 0) {
        const auto colon = line.find(':');
        if (colon != std::string::npos) {
          sum += std::strtod(line.c_str() + colon + 1, nullptr);
          ++n;
        }
      }
  }
  s.cpu_mhz = n ? sum / n : nan;
  return s;
}

bool host_busy(const HostState& s) {
  return s.cpus > 0 && std::isfinite(s.load1) && s.load1 > 0.5 * s.cpus;
}

}  // namespace tb::telemetry
