#pragma once
// Launchers for conv2d (host-callable; kernels live in conv2d.cu). Images are w x h, row-major,
// float32, on the device; borders clamp to the edge; f is 3, 5 or 7. Every launcher only
// enqueues work on `stream`.
#include <cuda_runtime_api.h>

#include "common/workload.hpp"
#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

bool conv2d_filter_supported(int f);

// One thread per pixel; image and the f x f filter (a device pointer) read from global memory.
void conv2d_cuda_naive(const float* in, float* out, int w, int h, const float* filter, int f,
                       Block2 block, cudaStream_t stream);
KernelStats conv2d_cuda_naive_stats(int w, int h, int f, Block2 block);

// Copies an f x f filter (host memory) into the __constant__ bank that conv2d_cuda_tiled reads,
// ordered on `stream`. Done once, outside timed regions.
void conv2d_set_tiled_filter(const float* host_filter, int f, cudaStream_t stream);
// Shared-memory tile with a halo of f/2 pixels; each thread produces 4 vertically adjacent
// pixels from a register window, so a block covers block.x x 4*block.y pixels.
void conv2d_cuda_tiled(const float* in, float* out, int w, int h, int f, Block2 block,
                       cudaStream_t stream);
KernelStats conv2d_cuda_tiled_stats(int w, int h, int f, Block2 block);

// Copies the 1D kernel g (f taps, host memory) for conv2d_cuda_separable, which computes the
// 2D filter outer(g) as a row pass and then a column pass.
void conv2d_set_separable_filter(const float* host_g, int f, cudaStream_t stream);
void conv2d_cuda_separable(const float* in, float* out, int w, int h, int f, Block2 block,
                           cudaStream_t stream);
KernelStats conv2d_cuda_separable_stats(int w, int h, int f, Block2 block);

}  // namespace tb::gpu
