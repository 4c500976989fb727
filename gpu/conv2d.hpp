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
// Copies an f x f filter (host memory) into `filter` (device memory, f * f floats) for
// conv2d_cuda_naive, ordered on `stream`. Done once, outside timed regions.
void conv2d_upload_filter(float* filter, const float* host_filter, int f, cudaStream_t stream);

// Copies an f x f filter (host memory) into the __constant__ bank that conv2d_cuda_tiled reads,
// ordered on `stream`. Done once, outside timed regions.
void conv2d_set_tiled_filter(const float* host_filter, int f, cudaStream_t stream);
// Shared-memory tile with a halo of f/2 pixels, filter in __constant__ memory. Each thread
// produces a 4-wide x 4-tall block of pixels from 16-byte shared loads, so a block covers
// 4*block.x x 4*block.y pixels and needs (4*block.x + 8) x (4*block.y + f - 1) floats of shared
// memory (a shape that needs more than the device allows per block throws
// std::invalid_argument). The tile is copied with cp.async: 16-byte copies where the image row
// allows (w % 4 == 0, 16-byte aligned `in` and `out`, group inside the image), clamped 4-byte
// copies at the left/right borders and otherwise; any w, h >= 1 works. Blocks up to 1024
// threads; block.x a multiple of 8 keeps the shared loads free of bank conflicts.
void conv2d_cuda_tiled(const float* in, float* out, int w, int h, int f, Block2 block,
                       cudaStream_t stream);
KernelStats conv2d_cuda_tiled_stats(int w, int h, int f, Block2 block);

// No shared memory: each warp walks a strip of 128 columns x 16 rows top to bottom, each lane 4
// columns, keeping the f rows of accumulators it is building in registers and loading each image
// row once (16-byte loads through L1 where the row allows, clamped scalar loads at the borders),
// a row or two ahead of use. The same __constant__ filter as cuda_tiled (load it with
// conv2d_set_tiled_filter). The kernel works per warp: `block` sets only the thread count,
// block.threads() / 32 warps stacked vertically (a block covers 128 x 16 * warps pixels); a
// count that is not a multiple of 32 throws std::invalid_argument. Any w, h >= 1.
void conv2d_cuda_direct(const float* in, float* out, int w, int h, int f, Block2 block,
                        cudaStream_t stream);
KernelStats conv2d_cuda_direct_stats(int w, int h, int f, Block2 block);

// Copies the 1D kernel g (f taps, host memory) for conv2d_cuda_separable, which computes the
// 2D filter outer(g) as a row pass and then a column pass in one kernel (tile of block.x x
// 4*block.y pixels plus halo, each thread 4 vertically adjacent pixels).
void conv2d_set_separable_filter(const float* host_g, int f, cudaStream_t stream);
void conv2d_cuda_separable(const float* in, float* out, int w, int h, int f, Block2 block,
                           cudaStream_t stream);
KernelStats conv2d_cuda_separable_stats(int w, int h, int f, Block2 block);

}  // namespace tb::gpu
