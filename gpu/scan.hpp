#pragma once
// Launchers for scan (host-callable; kernels live in scan.cu).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// Single-pass decoupled look-back scan (one read and one write per element). Each block takes
// a tile of block * 16 elements (tile order from an atomic counter, so a block only ever waits
// for tiles that are already running), scans it with per-thread runs and warp shuffles,
// publishes its aggregate, and looks back over its predecessors' published values a warp at a
// time until it meets an inclusive prefix.
// `scratch` must hold scan_cuda_scratch_bytes(n, block) bytes; it is reset on `stream` by
// every call (one small memset), so calls on one stream may share it.
std::size_t scan_cuda_scratch_bytes(std::size_t n, int block);
void scan_cuda(const std::int32_t* in, std::int32_t* out, std::size_t n, int block, void* scratch,
               cudaStream_t stream);
void scan_cuda(const float* in, float* out, std::size_t n, int block, void* scratch,
               cudaStream_t stream);
KernelStats scan_cuda_stats_int32(std::size_t n, int block);
KernelStats scan_cuda_stats_float(std::size_t n, int block);

// thrust::inclusive_scan. Its temporary storage comes from a cache that keeps the largest block
// it was asked for (allocated on the first, untimed, call), so timed calls do no cudaMalloc.
void scan_thrust(const std::int32_t* in, std::int32_t* out, std::size_t n, cudaStream_t stream);
void scan_thrust(const float* in, float* out, std::size_t n, cudaStream_t stream);

}  // namespace tb::gpu
