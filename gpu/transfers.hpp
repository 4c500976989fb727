#pragma once
// The copy kernel of the transfers workload (host-callable; the kernel lives in transfers.cu).
// It is how zero-copy (mapped) and managed memory are moved: the GPU itself reads or writes
// host memory, or faults the pages over, as it copies.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// dst[i] = src[i] for `bytes` bytes; 16-byte loads and stores when both pointers are 16-byte
// aligned, byte by byte otherwise. Grid-stride, grid sized to fill the GPU once.
void transfers_copy(void* dst, const void* src, std::size_t bytes, int block, cudaStream_t stream);
KernelStats transfers_copy_stats(std::size_t bytes, int block);

}  // namespace tb::gpu
