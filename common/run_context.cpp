#include "common/run_context.hpp"

#include <benchmark/benchmark.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "common/cpu_isa.hpp"
#include "common/cpu_pinning.hpp"
#include "common/gpu_context.hpp"
#include "common/gpu_links.hpp"
#include "common/host_ceilings.hpp"
#include "common/perf_counters.hpp"
#include "common/progress.hpp"
#include "git_revision.hpp"
#include "common/project_info.hpp"

namespace tb {
namespace {

void add(const std::string& key, const std::string& value) { benchmark::AddCustomContext(key, value); }

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string git_revision() {
  // The bundle for the GPU machine is built from this tree; an override is for builds made
  // outside a git checkout.
  if (const char* env = std::getenv("TWINBENCH_GIT_REVISION"); env && *env) return env;
  return TWINBENCH_GIT_REVISION;
}

std::string hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

void record_gpu(const RunConfig& cfg) {
  const GpuInfo& g = gpu_info();
  add("gpu_status", g.status);
  // --devices=N sets it; a user may have too.
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) add("cuda_visible_devices", visible);
  if (!g.name.empty()) {  // a GPU, usable or not (a build without code for it)
    add("gpu_name", g.name);
    add("gpu_pci_bus_id", g.pci_bus_id);
    add("gpu_device_count", std::to_string(g.device_count));
    add("gpu_cc", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor));
    add("cuda_architectures", g.cuda_architectures);
    add("gpu_code", g.code);
  }
  if (!g.available) {
    std::fprintf(stderr, "twinbench: GPU benchmarks skipped: %s\n", g.status.c_str());
    return;
  }
  const links::DeviceLinks l = links::device_links(g.pci_bus_id);
  add("gpu_links", l.why.empty() ? l.describe() : "unknown: " + l.why);
  add("gpu_code_jit", g.code_jit ? "true" : "false");
  add("gpu_code_arch", std::to_string(g.code_arch));
  add("gpu_sms", std::to_string(g.sms));
  add("gpu_memory_bytes", std::to_string(g.memory_bytes));
  add("gpu_sm_clock_mhz", std::to_string(g.sm_clock_mhz));
  add("gpu_mem_clock_mhz", std::to_string(g.mem_clock_mhz));
  add("gpu_mem_bus_bits", std::to_string(g.mem_bus_bits));
  add("cuda_driver_version", std::to_string(g.driver_version));
  add("cuda_runtime_version", std::to_string(g.runtime_version));
  add("gpu_peak_fp32_flops", number(g.peak_fp32_flops));
  // Decides how the mapped progress counter adds (common/progress.hpp, CounterRef).
  add("gpu_host_native_atomics", progress::host_native_atomics() ? "yes" : "no");
  // 1 GiB each way is ~20x the H200's L2, so the copy streams from HBM.
  const std::size_t bytes = cfg.quick ? (std::size_t{256} << 20) : (std::size_t{1} << 30);
  double bw = 0.0;
  try {
    bw = measure_copy_bandwidth(bytes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "twinbench: copy bandwidth not measured: %s\n", e.what());
  }
  add("gpu_copy_bw_bytes_per_s", number(bw));
  add("gpu_copy_bw_bytes", std::to_string(bytes));
  std::fprintf(stderr, "twinbench: %s, device copy bandwidth %.0f GB/s (read + write)\n", g.name.c_str(), bw * 1e-9);
}

}  // namespace

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

void record_run_context(const std::string& machine, const RunConfig& cfg) {
  add("twinbench_version", TWINBENCH_VERSION);
  add("git_revision", git_revision());
  // The project whose workloads these are (twinbench_add_benchmark): the suite's own, or a
  // project that installed twinbench and measures its code with it.
  if (const ProjectInfo& p = project_info(); !p.name.empty()) {
    add("project", p.name);
    add("project_version", p.version);
    add("project_revision", p.revision);
  }
  add("machine", machine.empty() ? hostname() : machine);
  add("build_type", TWINBENCH_BUILD_TYPE);
  add("compiler", TWINBENCH_COMPILER);
  add("cpu_model", cpu_model());
  add("omp_threads", std::to_string(omp_get_max_threads()));
  add("cpu_pinning", pinning_description());
  add("cpu_isa_host", cpu_isa::name(cpu_isa::host_level()));
  add("cpu_isa_active", cpu_isa::name(cpu_isa::active_level()));
  add("cpu_isa_features", cpu_isa::extra_features());
  add("cpu_dispatch", cpu_isa::dispatch_description());
  add("quick", cfg.quick ? "true" : "false");
  add("full", cfg.full ? "true" : "false");
  const host::HostEnvironment env = host::read_host_environment();
  add("env_cpu_governor", env.cpu_governor);
  add("env_omp_proc_bind", env.omp_proc_bind);
  add("env_omp_places", env.omp_places);
  add("env_numa_nodes", env.numa_nodes);
  add("env_smt", env.smt);
  add("env_cpu_boost", env.cpu_boost);
  perf::record_context();  // CPU hardware counters: available, or why not
  record_gpu(cfg);
}

}  // namespace tb
