#pragma once
// Launchers for sync (host-callable; kernels live in sync.cu).
#include <cuda_runtime_api.h>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// `count` back-to-back launches of a one-thread kernel that adds 1 to *counter (so the launches
// can be counted afterwards); nothing else. Launch errors are checked once after the loop (a
// failed launch leaves its error for cudaGetLastError; later successes do not clear it), not
// after each launch, so the loop times the launches alone.
void sync_increment(unsigned* counter, int count, cudaStream_t stream);
KernelStats sync_increment_stats();

}  // namespace tb::gpu
