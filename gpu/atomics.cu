#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>

#include <climits>
#include <cub/device/device_reduce.cuh>
#include <stdexcept>
#include <string>

#include "common/cuda_check.hpp"
#include "gpu/atomics.hpp"
#include "gpu/kernel_stats.cuh"
#include "gpu/thrust_scratch.cuh"

namespace tb::gpu {
namespace {

using u64 = unsigned long long;

// Sign-extend to 64 bits; unsigned wrap-around then equals the signed two's-complement sum.
__device__ __forceinline__ u64 widen(std::int32_t v) {
  return static_cast<u64>(static_cast<long long>(v));
}

__device__ __forceinline__ std::size_t global_index() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// Needs all 32 lanes present (block sizes are multiples of 32); lane 0 gets the warp's total.
__device__ __forceinline__ u64 warp_sum(u64 v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Thread 0 gets the block's total. Called at most once per kernel (the shared array is reused
// across calls only after the barrier, which a second call would need).
__device__ __forceinline__ u64 block_sum(u64 v) {
  __shared__ u64 warp_sums[32];
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x >> 5;
  v = warp_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  u64 total = 0;
  if (warp == 0) {
    const unsigned warps = blockDim.x >> 5;
    total = warp_sum(lane < warps ? warp_sums[lane] : 0ull);
  }
  return total;
}

__global__ void atomic_per_thread_kernel(const std::int32_t* __restrict__ in, std::size_t n,
                                         u64* sum) {
  const std::size_t i = global_index();
  if (i < n) atomicAdd(sum, widen(in[i]));
}

__global__ void warp_kernel(const std::int32_t* __restrict__ in, std::size_t n, u64* sum) {
  const std::size_t i = global_index();
  // Out-of-range lanes still take part in the shuffles, with 0.
  const u64 v = warp_sum(i < n ? widen(in[i]) : 0ull);
  if ((threadIdx.x & 31u) == 0) atomicAdd(sum, v);
}

__global__ void block_kernel(const std::int32_t* __restrict__ in, std::size_t n, u64* sum) {
  const std::size_t i = global_index();
  const u64 total = block_sum(i < n ? widen(in[i]) : 0ull);
  if (threadIdx.x == 0) atomicAdd(sum, total);
}

__global__ void spread_kernel(const std::int32_t* __restrict__ in, std::size_t n, u64* partials,
                              unsigned addrs) {
  const std::size_t i = global_index();
  // 32-bit arithmetic may wrap for n >= 2^32; any slot is correct, only the spread changes.
  const unsigned slot = (blockIdx.x * blockDim.x + threadIdx.x) % addrs;
  if (i < n) atomicAdd(partials + slot, widen(in[i]));
}

// One block: strided partial sums, then a block reduction; plain store, no atomic needed.
__global__ void sum_partials_kernel(const u64* __restrict__ partials, unsigned addrs, u64* sum) {
  u64 v = 0;
  for (unsigned k = threadIdx.x; k < addrs; k += blockDim.x) v += partials[k];
  const u64 total = block_sum(v);
  if (threadIdx.x == 0) *sum = total;
}

constexpr int kPartialsBlock = 1024;

void check_block(int block) {
  if (block <= 0 || block > 1024 || block % 32 != 0)
    throw std::invalid_argument("atomics: block size " + std::to_string(block) +
                                " must be a multiple of 32 in 32..1024");
}

long long one_per_thread_grid(std::size_t n, int block) {
  return static_cast<long long>((n + static_cast<std::size_t>(block) - 1) / block);
}

unsigned launch_grid(std::size_t n, int block) {
  const long long grid = one_per_thread_grid(n, block);
  if (grid > INT_MAX)
    throw std::invalid_argument("atomics: n too large for one element per thread");
  return static_cast<unsigned>(grid);
}

template <class Kernel>
void launch_one_per_thread(Kernel kernel, const std::int32_t* in, std::size_t n, u64* sum,
                           int block, cudaStream_t stream) {
  check_block(block);
  CUDA_CHECK(cudaMemsetAsync(sum, 0, sizeof(u64), stream));
  if (n == 0) return;
  kernel<<<launch_grid(n, block), block, 0, stream>>>(in, n, sum);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void atomics_cuda_atomic_per_thread(const std::int32_t* in, std::size_t n, u64* sum, int block,
                                    cudaStream_t stream) {
  launch_one_per_thread(atomic_per_thread_kernel, in, n, sum, block, stream);
}
KernelStats atomics_cuda_atomic_per_thread_stats(std::size_t n, int block) {
  return kernel_stats(atomic_per_thread_kernel, block, one_per_thread_grid(n, block));
}

void atomics_cuda_warp(const std::int32_t* in, std::size_t n, u64* sum, int block,
                       cudaStream_t stream) {
  launch_one_per_thread(warp_kernel, in, n, sum, block, stream);
}
KernelStats atomics_cuda_warp_stats(std::size_t n, int block) {
  return kernel_stats(warp_kernel, block, one_per_thread_grid(n, block));
}

void atomics_cuda_block(const std::int32_t* in, std::size_t n, u64* sum, int block,
                        cudaStream_t stream) {
  launch_one_per_thread(block_kernel, in, n, sum, block, stream);
}
KernelStats atomics_cuda_block_stats(std::size_t n, int block) {
  return kernel_stats(block_kernel, block, one_per_thread_grid(n, block));
}

void atomics_cuda_atomic_spread(const std::int32_t* in, std::size_t n, u64* partials, int addrs,
                                u64* sum, int block, cudaStream_t stream) {
  check_block(block);
  if (addrs <= 0) throw std::invalid_argument("atomics: addrs must be at least 1");
  CUDA_CHECK(cudaMemsetAsync(partials, 0, sizeof(u64) * static_cast<std::size_t>(addrs), stream));
  if (n > 0) {
    spread_kernel<<<launch_grid(n, block), block, 0, stream>>>(in, n, partials,
                                                               static_cast<unsigned>(addrs));
    CUDA_CHECK_LAUNCH();
  }
  sum_partials_kernel<<<1, kPartialsBlock, 0, stream>>>(partials, static_cast<unsigned>(addrs),
                                                        sum);
  CUDA_CHECK_LAUNCH();
}
KernelStats atomics_cuda_atomic_spread_stats(std::size_t n, int block) {
  return kernel_stats(spread_kernel, block, one_per_thread_grid(n, block));
}

std::int64_t atomics_thrust(const std::int32_t* in, std::size_t n, cudaStream_t stream) {
  ThrustScratch scratch;  // no cudaMalloc/cudaFree per call inside the timed region
  const long long sum = thrust::reduce(thrust::cuda::par_nosync(scratch).on(stream), in, in + n, 0LL,
                                       thrust::plus<long long>());
  CUDA_CHECK_LAUNCH();
  return sum;
}

std::size_t atomics_cub_temp_bytes(std::size_t n) {
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const std::int32_t*>(nullptr),
                                    static_cast<long long*>(nullptr),
                                    static_cast<std::int64_t>(n)));
  return bytes;
}

void atomics_cub(const std::int32_t* in, std::size_t n, u64* sum, void* temp,
                 std::size_t temp_bytes, cudaStream_t stream) {
  if (n == 0) {
    CUDA_CHECK(cudaMemsetAsync(sum, 0, sizeof(u64), stream));
    return;
  }
  // A long long output makes CUB accumulate in 64 bits; same bits as the unsigned value.
  CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in, reinterpret_cast<long long*>(sum),
                                    static_cast<std::int64_t>(n), stream));
}

}  // namespace tb::gpu
