#include "common/gpu_context.hpp"

#include <algorithm>
#include <cstdlib>

#if TWINBENCH_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "common/build_fit.hpp"
#include "common/cuda_check.hpp"
#include "common/cuda_probe.hpp"
#include "common/cuda_raii.hpp"
#endif

namespace tb {
namespace {

#if TWINBENCH_HAVE_CUDA
int attribute(cudaDeviceAttr attr, int device) {
  int v = 0;
  if (cudaDeviceGetAttribute(&v, attr, device) != cudaSuccess) v = 0;
  return v;
}

std::string built_architectures() {
  std::string list = TWINBENCH_CUDA_ARCHITECTURES;
  std::replace(list.begin(), list.end(), ',', ';');
  return list;
}

// Whether the binary has code for the device: the probe kernel decides, the build's list names
// it. Without code the GPU is unavailable with the reason, so every GPU row skips through the
// same path as on a machine without a GPU, and the CPU rows run.
void check_code(GpuInfo& g) {
  g.cuda_architectures = built_architectures();
  const BuildFit fit = build_fit(g.cuda_architectures, g.cc());
  const ProbeResult probe = probe_kernel_code();
  if (!probe.loaded) {
    g.available = false;
    g.no_code = true;
    g.status = "no GPU code: " + no_code_message(g.cuda_architectures, g.name, g.cc()) +
               " (" + probe.error + ")";
    g.code = "none";
    return;
  }
  g.code_arch = probe.ptx_version;
  // SASS runs when its architecture fits; otherwise the driver compiled the PTX.
  const bool sass = fit.fit == CodeFit::sass ||
                    (fit.fit == CodeFit::unknown && probe.ptx_version / 10 == g.cc_major);
  g.code_jit = !sass;
  g.code = g.code_jit ? "compute_" + std::to_string(probe.ptx_version) +
                            " PTX, JIT-compiled by the driver for sm_" + std::to_string(g.cc())
                      : "sm_" + std::to_string(probe.binary_version) + " SASS";
}

// Where CUDA_VISIBLE_DEVICES is set (by --devices or the user), a missing device names it.
std::string visible_note() {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  return visible ? std::string(" (CUDA_VISIBLE_DEVICES='") + visible + "')" : std::string();
}

GpuInfo probe() {
  GpuInfo g;
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    // The runtime reports a machine with no driver at all as "insufficient driver".
    g.status = err == cudaErrorInsufficientDriver
                   ? "no CUDA device: no NVIDIA driver is loaded, or it is older than the CUDA "
                     "runtime (cudaErrorInsufficientDriver)"
                   : std::string("no CUDA device: ") + cudaGetErrorString(err) + visible_note();
    return g;
  }
  if (count == 0) {
    g.status = "no CUDA device: the driver reports 0 devices" + visible_note();
    return g;
  }
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
    g.status = "no CUDA device: cudaGetDeviceProperties failed";
    return g;
  }
  g.available = true;
  g.device_count = count;
  g.pci_bus_id = pci_bus_id(0);
  g.status = "available";
  g.name = p.name;
  g.cc_major = p.major;
  g.cc_minor = p.minor;
  g.sms = p.multiProcessorCount;
  g.memory_bytes = p.totalGlobalMem;
  g.max_threads_per_block = p.maxThreadsPerBlock;
  g.sm_clock_mhz = attribute(cudaDevAttrClockRate, 0) / 1000;
  g.mem_clock_mhz = attribute(cudaDevAttrMemoryClockRate, 0) / 1000;
  g.mem_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, 0);
  cudaDriverGetVersion(&g.driver_version);
  cudaRuntimeGetVersion(&g.runtime_version);
  const int fp32_lanes = g.cc_major >= 8 ? 128 : 64;
  g.peak_fp32_flops = 2.0 * fp32_lanes * g.sms * g.sm_clock_mhz * 1e6;
  check_code(g);
  return g;
}
#else
GpuInfo probe() {
  GpuInfo g;
  g.status = "not built: TWINBENCH_WITH_CUDA=OFF";
  return g;
}
#endif

}  // namespace

const GpuInfo& gpu_info() {
  static const GpuInfo info = probe();
  return info;
}

std::string pci_bus_id(int device) {
#if TWINBENCH_HAVE_CUDA
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) == cudaSuccess) return bus;
  (void)cudaGetLastError();
#else
  (void)device;
#endif
  return "";
}

int cuda_device_count() {
#if TWINBENCH_HAVE_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
#else
  return 0;
#endif
}

double measure_copy_bandwidth(std::size_t bytes) {
#if TWINBENCH_HAVE_CUDA
  if (!gpu_info().available) return 0.0;
  DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  CUDA_CHECK(cudaMemset(src.data(), 1, bytes));
  CUDA_CHECK(cudaMemset(dst.data(), 2, bytes));
  CUDA_CHECK(cudaDeviceSynchronize());
  Stream stream;
  Event start, stop;
  double best = 0.0;
  for (int rep = 0; rep < 6; ++rep) {  // the first is a warm-up in all but name: keep the best
    start.record(stream);
    CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream));
    stop.record(stream);
    stop.synchronize();
    best = std::max(best, 2.0 * static_cast<double>(bytes) / stop.seconds_since(start));
  }
  return best;
#else
  (void)bytes;
  return 0.0;
#endif
}


}  // namespace tb
