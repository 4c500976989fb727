#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/cuda_check.hpp"
#include "gpu/kernel_stats.cuh"
#include "gpu/nested_loop.hpp"
#include "gpu/nested_loop_kernel.cuh"
#include "gpu/progress.cuh"

namespace tb::gpu {
namespace {

using nested_loop_detail::kWarp;
using progress::None;

constexpr auto nested_loop_kernel = nested_loop_detail::thread_kernel<None>;
constexpr auto nested_loop_warp_kernel = nested_loop_detail::warp_kernel<None>;

long long blocks_for(std::size_t threads, int block) {
  return static_cast<long long>((threads + static_cast<std::size_t>(block) - 1) / block);
}

}  // namespace

void nested_loop_cuda(double* results, std::size_t n, std::size_t m, int block,
                      cudaStream_t stream) {
  if (n == 0) return;
  nested_loop_kernel<<<static_cast<unsigned>(blocks_for(n, block)), block, 0, stream>>>(
      results, static_cast<std::int64_t>(n), static_cast<std::int64_t>(m), None{});
  CUDA_CHECK_LAUNCH();
}

KernelStats nested_loop_cuda_stats(std::size_t n, int block) {
  return kernel_stats(nested_loop_kernel, block, blocks_for(n, block));
}

void nested_loop_cuda_warp(double* results, std::size_t n, std::size_t m, int block,
                           cudaStream_t stream) {
  // Whole warps, one i each: a partial warp would run the shuffles with absent lanes.
  if (block <= 0 || block % kWarp != 0)
    throw std::invalid_argument("nested_loop_cuda_warp: block " + std::to_string(block) +
                                " is not a multiple of 32");
  if (n == 0) return;
  nested_loop_warp_kernel<<<static_cast<unsigned>(blocks_for(n * kWarp, block)), block, 0,
                            stream>>>(results, static_cast<std::int64_t>(n),
                                      static_cast<std::int64_t>(m), None{});
  CUDA_CHECK_LAUNCH();
}

KernelStats nested_loop_cuda_warp_stats(std::size_t n, int block) {
  return kernel_stats(nested_loop_warp_kernel, block, blocks_for(n * kWarp, block));
}

}  // namespace tb::gpu
