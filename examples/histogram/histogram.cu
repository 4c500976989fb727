#include <cuda_runtime.h>

#include <algorithm>

#include <twinbench/twinbench.hpp>

#include "histogram.hpp"

namespace histogram {
namespace {

constexpr int kMaxGrid = 4096;  // a grid-stride loop: enough blocks to fill the GPU, no more

__global__ void shared_kernel(const std::int32_t* keys, std::uint32_t* bins, std::size_t n) {
  __shared__ std::uint32_t local[kBins];
  for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride)
    atomicAdd(&local[keys[i]], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

long long grid_for(std::size_t n, int block) {
  return std::min<long long>(kMaxGrid, (static_cast<long long>(n) + block - 1) / block);
}

}  // namespace

void cuda_shared(const std::int32_t* keys, std::uint32_t* bins, std::size_t n, int block,
                 CUstream_st* stream) {
  cudaMemsetAsync(bins, 0, kBins * sizeof(std::uint32_t), stream);
  shared_kernel<<<grid_for(n, block), block, 0, stream>>>(keys, bins, n);
}

twinbench::KernelStats cuda_shared_stats(std::size_t n, int block) {
  return twinbench::kernel_stats(shared_kernel, block, grid_for(n, block));
}

}  // namespace histogram
