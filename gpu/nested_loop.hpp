#pragma once
// Launchers for nested_loop (host-callable; kernels live in nested_loop.cu).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// The article's kernel: one thread per i, each running the whole inner loop over j. With
// N = 10000 there are only 10000 threads (157 blocks of 64, 40 of 256, for 132 SMs), so the
// grid cannot fill the GPU and small blocks spread the work over more SMs.
void nested_loop_cuda(double* results, std::size_t n, std::size_t m, int block,
                      cudaStream_t stream);
KernelStats nested_loop_cuda_stats(std::size_t n, int block);

// One warp per i: the 32 lanes split the inner loop and combine with shuffles, so the grid has
// 32x the threads. Shows what the article's kernel leaves on the table.
void nested_loop_cuda_warp(double* results, std::size_t n, std::size_t m, int block,
                           cudaStream_t stream);
KernelStats nested_loop_cuda_warp_stats(std::size_t n, int block);

}  // namespace tb::gpu
