#pragma once
// Shared test helpers: sizes that exercise the edges, and the GPU skip.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "common/gpu_context.hpp"

namespace tb::test {

// 1, sizes that are not multiples of a block or of a float4, and one past a power of two.
inline std::vector<std::size_t> edge_sizes() { return {1, 3, 31, 255, 257, 1000, 4099, (1u << 16) + 7}; }
inline std::vector<int> test_blocks() { return {64, 256, 1024}; }

}  // namespace tb::test

// GPU tests skip where there is no device (CI); they run on the GPU machine.
#define TB_REQUIRE_GPU()                                                        \
  do {                                                                          \
    if (!::tb::gpu_info().available) GTEST_SKIP() << ::tb::gpu_info().status;  \
  } while (0)
