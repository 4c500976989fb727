#include <cuda_runtime.h>

#include "common/cuda_probe.hpp"

namespace tb {
namespace {

__global__ void probe_kernel() {}

}  // namespace

ProbeResult probe_kernel_code() {
  ProbeResult r;
  cudaFuncAttributes attr{};
  const cudaError_t err = cudaFuncGetAttributes(&attr, probe_kernel);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: clear it so later calls do not see it
    r.error = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
    return r;
  }
  r.loaded = true;
  r.ptx_version = attr.ptxVersion;
  r.binary_version = attr.binaryVersion;
  return r;
}

}  // namespace tb
