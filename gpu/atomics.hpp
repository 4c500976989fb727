#pragma once
// Launchers for the atomics workload (host-callable; kernels live in atomics.cu). Every launcher
// first zeroes its accumulator(s) on `stream`, then writes the 64-bit two's-complement sum of
// in[0, n) to the device value *sum. `block` must be a multiple of 32 (the shuffle reductions
// use whole warps); other values throw std::invalid_argument.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// The article's atomic_kernel: one element per thread, every thread atomicAdds to one address.
void atomics_cuda_atomic_per_thread(const std::int32_t* in, std::size_t n, unsigned long long* sum,
                                    int block, cudaStream_t stream);
KernelStats atomics_cuda_atomic_per_thread_stats(std::size_t n, int block);

// One element per thread, a shuffle reduction per warp, one atomic per warp.
void atomics_cuda_warp(const std::int32_t* in, std::size_t n, unsigned long long* sum, int block,
                       cudaStream_t stream);
KernelStats atomics_cuda_warp_stats(std::size_t n, int block);

// One element per thread, a block reduction (shuffles + shared memory), one atomic per block.
void atomics_cuda_block(const std::int32_t* in, std::size_t n, unsigned long long* sum, int block,
                        cudaStream_t stream);
KernelStats atomics_cuda_block_stats(std::size_t n, int block);

// Contention sweep: thread t atomicAdds its element to partials[t % addrs] (addrs >= 1 values
// in `partials`), then one block sums the partials into *sum.
void atomics_cuda_atomic_spread(const std::int32_t* in, std::size_t n, unsigned long long* partials,
                                int addrs, unsigned long long* sum, int block, cudaStream_t stream);
KernelStats atomics_cuda_atomic_spread_stats(std::size_t n, int block);

// thrust::reduce: returns the sum to the host, so it synchronises `stream`.
std::int64_t atomics_thrust(const std::int32_t* in, std::size_t n, cudaStream_t stream);

// cub::DeviceReduce::Sum with caller-owned temporary storage (allocated outside timed regions).
std::size_t atomics_cub_temp_bytes(std::size_t n);
void atomics_cub(const std::int32_t* in, std::size_t n, unsigned long long* sum, void* temp,
                 std::size_t temp_bytes, cudaStream_t stream);

}  // namespace tb::gpu
