#include "common/gpu_context.hpp"

#include <algorithm>

#if TWINBENCH_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "common/cuda_check.hpp"
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
                   : std::string("no CUDA device: ") + cudaGetErrorString(err);
    return g;
  }
  if (count == 0) {
    g.status = "no CUDA device: the driver reports 0 devices";
    return g;
  }
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
    g.status = "no CUDA device: cudaGetDeviceProperties failed";
    return g;
  }
  g.available = true;
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
