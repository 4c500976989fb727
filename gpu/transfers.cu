#include <cstdint>

#include "common/cuda_check.hpp"
#include "gpu/kernel_stats.cuh"
#include "gpu/transfers.hpp"

namespace tb::gpu {
namespace {

// Many 16-byte requests in flight per SM are what hides the latency of a host-memory read
// across the bus (microseconds), so the grid fills the GPU.
__global__ void copy16_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst,
                              std::size_t n16) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16;
       i += stride)
    dst[i] = src[i];
}

__global__ void copy_bytes_kernel(const unsigned char* __restrict__ src,
                                  unsigned char* __restrict__ dst, std::size_t begin,
                                  std::size_t end) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = begin + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < end; i += stride)
    dst[i] = src[i];
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

long long blocks_for(std::size_t items, int block) {
  return static_cast<long long>((items + static_cast<std::size_t>(block) - 1) / block);
}

}  // namespace

void transfers_copy(void* dst, const void* src, std::size_t bytes, int block, cudaStream_t stream) {
  if (bytes == 0) return;
  const auto* s = static_cast<const unsigned char*>(src);
  auto* d = static_cast<unsigned char*>(dst);
  std::size_t done = 0;
  if (aligned16(s) && aligned16(d) && bytes >= 16) {
    const std::size_t n16 = bytes / 16;
    const auto grid = persistent_grid(copy16_kernel, block, blocks_for(n16, block));
    copy16_kernel<<<static_cast<unsigned>(grid), block, 0, stream>>>(
        reinterpret_cast<const uint4*>(s), reinterpret_cast<uint4*>(d), n16);
    CUDA_CHECK_LAUNCH();
    done = n16 * 16;
  }
  if (done < bytes) {
    const auto grid = persistent_grid(copy_bytes_kernel, block, blocks_for(bytes - done, block));
    copy_bytes_kernel<<<static_cast<unsigned>(grid), block, 0, stream>>>(s, d, done, bytes);
    CUDA_CHECK_LAUNCH();
  }
}

KernelStats transfers_copy_stats(std::size_t bytes, int block) {
  return kernel_stats(
      copy16_kernel, block,
      bytes >= 16 ? persistent_grid(copy16_kernel, block, blocks_for(bytes / 16, block)) : 0);
}

}  // namespace tb::gpu
