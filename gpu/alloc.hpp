#pragma once
// Launchers for alloc (host-callable; kernels live in alloc.cu).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// The tiny piece of work every alloc variant does on its buffer: one kernel of one warp that
// writes `value` into the first and the last 32-bit word of [p, p + bytes) (bytes >= 4), so the
// whole range is known to be mapped and something is timed even when nothing is allocated.
void alloc_touch_ends(void* p, std::size_t bytes, std::uint32_t value, cudaStream_t stream);
KernelStats alloc_touch_ends_stats();

}  // namespace tb::gpu
