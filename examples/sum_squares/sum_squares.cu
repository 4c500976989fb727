#include <cuda_runtime.h>

#include <algorithm>

#include <twinbench/twinbench.hpp>

#include "sum_squares.hpp"

namespace sum_squares {
namespace {

constexpr int kMaxGrid = 1024;  // a grid-stride loop: enough blocks to fill the GPU

__global__ void sum_kernel(const float* x, std::size_t n, double* sum) {
  extern __shared__ double partial[];
  double s = 0.0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    s += static_cast<double>(x[i]) * x[i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}

long long grid_for(std::size_t n, int block) {
  return std::min<long long>(kMaxGrid, (static_cast<long long>(n) + block - 1) / block);
}

}  // namespace

void cuda(const float* x, std::size_t n, double* sum, int block, CUstream_st* stream) {
  cudaMemsetAsync(sum, 0, sizeof(double), stream);
  sum_kernel<<<grid_for(n, block), block, block * sizeof(double), stream>>>(x, n, sum);
}

twinbench::KernelStats cuda_stats(std::size_t n, int block) {
  return twinbench::kernel_stats(sum_kernel, block, grid_for(n, block), block * sizeof(double));
}

}  // namespace sum_squares
