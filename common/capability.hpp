#pragma once
// Device capabilities that some kernel paths need, decided at run time from the device and from
// the code the binary holds for the kernel, never from the build alone: a build for sm_75 run on
// an sm_90 GPU (PTX JIT-compiled by the driver) has no cluster code even though the GPU has
// clusters. Plain C++: bench/ and tests/ include it with the host compiler.
#include <string>

namespace tb {

enum class GpuFeature {
  none,
  cp_async,               // cp.async global -> shared copies: sm_80
  bf16_tensor_cores,      // BF16 mma (cuBLAS BF16 GEMM, the BF16 roof): sm_80
  tma_bulk_copy,          // cp.async.bulk with mbarrier transaction counts: sm_90
  thread_block_clusters,  // clusters and distributed shared memory: sm_90
};

// The compute capability, as major * 10 + minor, in which `f` first appears (0 for none).
int min_compute_capability(GpuFeature f);

// A short name for messages, e.g. "thread-block clusters".
const char* feature_name(GpuFeature f);

// Empty when a kernel needing `f` can run; else the reason, naming the capability, e.g.
// "needs thread-block clusters (compute capability 9.0); this GPU is 7.5" or "needs thread-block
// clusters (compute capability 9.0); this build's code for the kernel is compute_80".
// device_cc: the GPU's, major * 10 + minor. code_arch: the architecture of the code the
// runtime loads for the kernel (cudaFuncAttributes::ptxVersion when JIT-compiled from PTX, else
// binaryVersion); 0 means "not known" and then only the device decides.
std::string capability_missing(GpuFeature f, int device_cc, int code_arch);

}  // namespace tb
