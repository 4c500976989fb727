#pragma once
// Shared test helpers: sizes that exercise the edges, and the GPU skip.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "common/gpu_context.hpp"
#if TWINBENCH_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace tb::test {

// 1, sizes that are not multiples of a block or of a float4, and one past a power of two.
inline std::vector<std::size_t> edge_sizes() { return {1, 3, 31, 255, 257, 1000, 4099, (1u << 16) + 7}; }
inline std::vector<int> test_blocks() { return {64, 256, 1024}; }

#if TWINBENCH_HAVE_CUDA
// cudaMemset runs on the legacy default stream, which does NOT order against the non-blocking
// streams the launchers use: a poison fill could land after (or during) the kernel under test.
// Tests fill through this, which waits for the fill to finish.
inline cudaError_t memset_sync(void* ptr, int value, std::size_t bytes) {
  const cudaError_t err = cudaMemset(ptr, value, bytes);
  return err != cudaSuccess ? err : cudaDeviceSynchronize();
}
#endif

}  // namespace tb::test

// GPU tests skip where there is no device (CI); they run on the GPU machine.
#define TB_REQUIRE_GPU()                                                        \
  do {                                                                          \
    if (!::tb::gpu_info().available) GTEST_SKIP() << ::tb::gpu_info().status;  \
  } while (0)
