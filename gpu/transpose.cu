#include "common/cuda_check.hpp"
#include "gpu/kernel_stats.cuh"
#include "gpu/transpose.hpp"

namespace tb::gpu {
namespace {

constexpr int kTile = 32;
constexpr int kTileRows = 8;  // threads per block in y: each thread moves kTile / kTileRows rows
static_assert(kTransposeTiledBlock.x == kTile && kTransposeTiledBlock.y == kTileRows);
// gridDim.y is limited to 65535: taller matrices are covered by a grid-stride loop in y.
constexpr unsigned kMaxGridY = 65535;

unsigned grid_y(std::size_t blocks) {
  return static_cast<unsigned>(blocks < kMaxGridY ? (blocks > 0 ? blocks : 1) : kMaxGridY);
}

// x: input column (contiguous in `in`), y: input row. Writes stride by `rows` floats.
__global__ void article_slow_kernel(const float* __restrict__ in, float* __restrict__ out,
                                    std::size_t rows, std::size_t cols) {
  const std::size_t c = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cols) return;  // no barriers in this kernel, so leaving early is safe
  const std::size_t stride = static_cast<std::size_t>(gridDim.y) * blockDim.y;
  for (std::size_t r = static_cast<std::size_t>(blockIdx.y) * blockDim.y + threadIdx.y; r < rows;
       r += stride)
    out[c * rows + r] = in[r * cols + c];
}

// x: input row (contiguous in `out`), y: input column. Reads stride by `cols` floats.
__global__ void article_fast_kernel(const float* __restrict__ in, float* __restrict__ out,
                                    std::size_t rows, std::size_t cols) {
  const std::size_t r = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const std::size_t stride = static_cast<std::size_t>(gridDim.y) * blockDim.y;
  for (std::size_t c = static_cast<std::size_t>(blockIdx.y) * blockDim.y + threadIdx.y; c < cols;
       c += stride)
    out[c * rows + r] = in[r * cols + c];
}

// Block (bx, by) moves the tile of input rows by*32.. and columns bx*32..: a warp reads 32
// consecutive floats of one input row into a tile row, and after the barrier writes 32
// consecutive floats of one output row from a tile column. The loop over tile rows keeps the
// grid within gridDim.y's limit; its trip count is the same for every thread of the block, so
// the barriers inside are reached by all of them.
__global__ void __launch_bounds__(kTile* kTileRows)
    tiled_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t rows,
                 std::size_t cols) {
  __shared__ float tile[kTile][kTile + 1];
  const std::size_t c0 = static_cast<std::size_t>(blockIdx.x) * kTile;
  const std::size_t tiles_r = (rows + kTile - 1) / kTile;
  for (std::size_t tr = blockIdx.y; tr < tiles_r; tr += gridDim.y) {
    const std::size_t r0 = tr * kTile;
    const std::size_t c = c0 + threadIdx.x;
    if (c < cols) {
#pragma unroll
      for (int j0 = 0; j0 < kTile; j0 += kTileRows) {
        const int j = j0 + threadIdx.y;
        const std::size_t r = r0 + j;
        if (r < rows) tile[j][threadIdx.x] = in[r * cols + c];
      }
    }
    __syncthreads();
    const std::size_t r = r0 + threadIdx.x;  // output column = input row
    if (r < rows) {
#pragma unroll
      for (int j0 = 0; j0 < kTile; j0 += kTileRows) {
        const int j = j0 + threadIdx.y;
        const std::size_t oc = c0 + j;  // output row = input column
        if (oc < cols) out[oc * rows + r] = tile[threadIdx.x][j];
      }
    }
    __syncthreads();  // the next tile overwrites `tile`
  }
}

__global__ void __launch_bounds__(kTile* kTileRows)
    copy_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t rows,
                std::size_t cols) {
  const std::size_t c = static_cast<std::size_t>(blockIdx.x) * kTile + threadIdx.x;
  if (c >= cols) return;
  const std::size_t tiles_r = (rows + kTile - 1) / kTile;
  for (std::size_t tr = blockIdx.y; tr < tiles_r; tr += gridDim.y) {
#pragma unroll
    for (int j0 = 0; j0 < kTile; j0 += kTileRows) {
      const std::size_t r = tr * kTile + j0 + threadIdx.y;
      if (r < rows) out[r * cols + c] = in[r * cols + c];
    }
  }
}

dim3 article_grid(std::size_t along_x, std::size_t along_y, Block2 block) {
  const std::size_t gx = (along_x + block.x - 1) / block.x;
  const std::size_t gy = (along_y + block.y - 1) / block.y;
  return dim3(static_cast<unsigned>(gx), grid_y(gy));
}

dim3 tiled_grid(std::size_t rows, std::size_t cols) {
  return dim3(static_cast<unsigned>((cols + kTile - 1) / kTile),
              grid_y((rows + kTile - 1) / kTile));
}

long long blocks_of(dim3 g) { return static_cast<long long>(g.x) * g.y; }

}  // namespace

void transpose_cuda_article_slow(const float* in, float* out, std::size_t rows, std::size_t cols,
                                 Block2 block, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  article_slow_kernel<<<article_grid(cols, rows, block), dim3(block.x, block.y), 0, stream>>>(
      in, out, rows, cols);
  CUDA_CHECK_LAUNCH();
}

KernelStats transpose_cuda_article_slow_stats(std::size_t rows, std::size_t cols, Block2 block) {
  return kernel_stats(article_slow_kernel, block.threads(),
                      blocks_of(article_grid(cols, rows, block)));
}

void transpose_cuda_article_fast(const float* in, float* out, std::size_t rows, std::size_t cols,
                                 Block2 block, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  article_fast_kernel<<<article_grid(rows, cols, block), dim3(block.x, block.y), 0, stream>>>(
      in, out, rows, cols);
  CUDA_CHECK_LAUNCH();
}

KernelStats transpose_cuda_article_fast_stats(std::size_t rows, std::size_t cols, Block2 block) {
  return kernel_stats(article_fast_kernel, block.threads(),
                      blocks_of(article_grid(rows, cols, block)));
}

void transpose_cuda_tiled(const float* in, float* out, std::size_t rows, std::size_t cols,
                          cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  tiled_kernel<<<tiled_grid(rows, cols), dim3(kTile, kTileRows), 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK_LAUNCH();
}

KernelStats transpose_cuda_tiled_stats(std::size_t rows, std::size_t cols) {
  return kernel_stats(tiled_kernel, kTile * kTileRows, blocks_of(tiled_grid(rows, cols)));
}

void copy_cuda_tiled(const float* in, float* out, std::size_t rows, std::size_t cols,
                     cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  copy_kernel<<<tiled_grid(rows, cols), dim3(kTile, kTileRows), 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK_LAUNCH();
}

KernelStats copy_cuda_tiled_stats(std::size_t rows, std::size_t cols) {
  return kernel_stats(copy_kernel, kTile * kTileRows, blocks_of(tiled_grid(rows, cols)));
}

}  // namespace tb::gpu
