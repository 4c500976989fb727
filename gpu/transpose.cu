#include <algorithm>
#include <cstdint>
#include <stdexcept>

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

// The order in which a 1D grid of blocks visits the tiles of the matrix.
enum class TileOrder {
  // Tile t = (tile row t / tiles_c, tile column t % tiles_c): the classic order. Blocks that run
  // at the same time share a band of input rows, and their writes (one per output row, 32 or 64
  // floats each) lie a whole tile band of output rows apart: with power-of-two sizes the
  // addresses of concurrent writes differ only in high bits.
  row,
  // Diagonal (skewed) order: q = t / tiles_c, tile column p = t % tiles_c, tile row
  // (q + p) % tiles_r. For each tile column p, q runs over all of [0, tiles_r), and q -> (q + p)
  // mod tiles_r is a bijection, so every tile is visited exactly once. Consecutive blocks step
  // one tile in both directions, so their reads and writes start at different column offsets.
  diagonal,
};

// Blocks per SM the register budget must allow: 8 (2048 threads, <= 32 registers) for 32-wide
// tiles; 6 (<= 40 registers) for 64-wide ones, which spill to the stack at 32 registers (ptxas)
// and would drop to 4 blocks per SM at the 58 they take unbounded. 6 x 16.6 KB of shared memory
// fits the SM's 228 KB.
template <int kTileDim>
constexpr int kMinBlocksPerSm = kTileDim == kTile ? 8 : 6;

// A 32 x 8 block moves one kTileDim x kTileDim tile per loop step (kTileDim = 32 or 64: 4 or 16
// elements per thread; a 64-wide tile keeps 4x the loads in flight per barrier). The tile is
// read as kTileDim / 32 column chunks of 32 floats per input row (a warp reads 128 contiguous
// bytes) and written the same way along output rows. The + 1 column makes a tile column hit
// 32 different banks ((T + 1) * tx mod 32 = tx mod 32 for T = 32, 64).
// The grid is 1D and strides over all tiles, so it has no gridDim.y limit; tile indices are
// 32-bit (the launcher checks that tiles_r * tiles_c + gridDim.x fits). The loop's trip count
// depends on blockIdx only, so every thread of a block reaches both barriers.
template <int kTileDim, TileOrder kOrder>
__global__ void __launch_bounds__(kTile* kTileRows, kMinBlocksPerSm<kTileDim>)
    tiled_1d_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t rows,
                    std::size_t cols, unsigned tiles_r, unsigned tiles_c) {
  static_assert(kTileDim % kTile == 0 && kTileDim % kTileRows == 0);
  __shared__ float tile[kTileDim][kTileDim + 1];
  const unsigned tiles = tiles_r * tiles_c;
  for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
    const unsigned q = t / tiles_c;
    const unsigned tc = t - q * tiles_c;
    const unsigned tr = kOrder == TileOrder::row ? q : (q + tc) % tiles_r;
    const std::size_t r0 = static_cast<std::size_t>(tr) * kTileDim;  // first input row
    const std::size_t c0 = static_cast<std::size_t>(tc) * kTileDim;  // first input column
#pragma unroll
    for (int cx = 0; cx < kTileDim; cx += kTile) {
      const std::size_t c = c0 + cx + threadIdx.x;
#pragma unroll
      for (int j0 = 0; j0 < kTileDim; j0 += kTileRows) {
        const int j = j0 + threadIdx.y;
        const std::size_t r = r0 + j;
        if (r < rows && c < cols) tile[j][cx + threadIdx.x] = in[r * cols + c];
      }
    }
    __syncthreads();
#pragma unroll
    for (int rx = 0; rx < kTileDim; rx += kTile) {
      const std::size_t r = r0 + rx + threadIdx.x;  // output column = input row
#pragma unroll
      for (int j0 = 0; j0 < kTileDim; j0 += kTileRows) {
        const int j = j0 + threadIdx.y;
        const std::size_t oc = c0 + j;  // output row = input column
        if (r < rows && oc < cols) out[oc * rows + r] = tile[rx + threadIdx.x][j];
      }
    }
    __syncthreads();  // the next tile overwrites `tile`
  }
}

// One block per tile up to 2^30 blocks (then the loop takes over). Tile counts are 32-bit in the
// kernel: tiles_r * tiles_c + grid must stay below 2^32 (a float matrix that large, 2^41
// floats at 32 x 32 tiles, cannot be allocated anyway).
struct Tiles1d {
  unsigned tiles_r, tiles_c, grid;
};

Tiles1d tiles_1d(std::size_t rows, std::size_t cols, int tile_dim) {
  const std::size_t tr = (rows + tile_dim - 1) / tile_dim, tc = (cols + tile_dim - 1) / tile_dim;
  constexpr std::size_t kMaxGrid = std::size_t{1} << 30;
  if (tr * tc > (std::size_t{1} << 31)) throw std::invalid_argument("transpose: too many tiles");
  return {static_cast<unsigned>(tr), static_cast<unsigned>(tc),
          static_cast<unsigned>(std::max<std::size_t>(1, std::min(tr * tc, kMaxGrid)))};
}

// max_grid > 0 caps the grid below one block per tile (tests: the grid-stride loop).
template <int kTileDim, TileOrder kOrder>
void launch_tiled_1d(const float* in, float* out, std::size_t rows, std::size_t cols,
                     cudaStream_t stream, unsigned max_grid = 0) {
  if (rows == 0 || cols == 0) return;
  const Tiles1d g = tiles_1d(rows, cols, kTileDim);
  const unsigned grid = max_grid > 0 ? std::min(g.grid, max_grid) : g.grid;
  tiled_1d_kernel<kTileDim, kOrder>
      <<<grid, dim3(kTile, kTileRows), 0, stream>>>(in, out, rows, cols, g.tiles_r, g.tiles_c);
  CUDA_CHECK_LAUNCH();
}

template <int kTileDim, TileOrder kOrder>
KernelStats tiled_1d_stats(std::size_t rows, std::size_t cols) {
  return kernel_stats(tiled_1d_kernel<kTileDim, kOrder>, kTile * kTileRows,
                      tiles_1d(rows, cols, kTileDim).grid);
}

// ---- 64 x 64 tiles moved as 4 x 4 micro-tiles of float4s, through an XOR-swizzled tile ----
//
// The tiled kernels above are issue-bound, not DRAM-bound: on the H200 at 8192^2 (cold L2,
// experiments/h200-2026-12-01/bandwidth, runs/run3.txt) tiled_diag takes 163 us, 80.5% of the
// copy kernel's 131 us, and Nsight Compute (at base clocks) shows SM throughput 74% against DRAM
// 59%: one scalar load, shared store, shared load and global store per element. Here each
// thread loads a 4 x 4 micro-tile as four float4s, transposes it in registers and stores its four
// columns as float4s into the shared tile; after the barrier it reads four float4s along output
// rows and stores them: 4x fewer memory instructions, 64 bytes in flight per thread before the
// barrier (16 KiB per block, 128 KiB per SM at 8 blocks). It takes 133.2 us, 98.3% of the copy;
// ncu: SM 18%, DRAM 81%. Measured beside it: diagonal tile order no longer helps (134.6 us),
// streaming hints (__ldcs/__stcs) cost 2%, 32 x 32 tiles of 64 threads reach 88.5%, and
// register-only transposes without shared memory 89-90%.
constexpr int kSwzTile = 64;
constexpr int kSwzChunks = kSwzTile / 4;  // float4 chunks per tile row = micro-tiles per side
constexpr int kSwzThreads = kSwzChunks * kSwzChunks;
static_assert(kTransposeSwizzleBlock.x == kSwzThreads && kTransposeSwizzleBlock.y == 1);

// The shared tile is s[input column][chunk of 4 input rows] in float4s. The chunk index is
// XOR-ed with (row / 4) % 8, so that the 8 threads of a quarter-warp (one 128-byte shared
// wavefront) hit 8 different 16-byte bank groups on both the float4 store and the float4 load.
__device__ __forceinline__ int swizzle(int row) { return (row >> 2) & 7; }

// One block per tile, in row-major tile order. `vec` (launcher's: rows and columns multiples of
// 4 and both pointers 16-byte aligned, so every row starts on a float4) and whole tiles take the
// float4 path; partial tiles and other shapes take a scalar, bounds-checked path. `full` is
// uniform per block and the barrier unconditional. Offsets are 32-bit (the launcher checks
// rows * cols < 2^32): 64-bit ones would cost registers under the 32 that 8 blocks per SM allow.
__global__ void __launch_bounds__(kSwzThreads, 2048 / kSwzThreads)
    tiled64_swizzle_kernel(const float* __restrict__ in, float* __restrict__ out, unsigned rows,
                           unsigned cols, unsigned tiles_c, bool vec) {
  constexpr int Q = kSwzChunks;
  static_assert(Q >= 8 && (Q & (Q - 1)) == 0, "the swizzle permutes the low 3 bits of a chunk");
  __shared__ float4 s[kSwzTile * Q];
  const unsigned tr = blockIdx.x / tiles_c;
  const unsigned tc = blockIdx.x - tr * tiles_c;
  const unsigned r0 = tr * kSwzTile, c0 = tc * kSwzTile;
  const bool full = vec && r0 + kSwzTile <= rows && c0 + kSwzTile <= cols;
  const int tid = threadIdx.x;
  {
    const int lc = tid % Q, a = tid / Q;  // micro-tile (a, lc): input rows 4a.., columns 4lc..
    const unsigned r = r0 + 4 * a, c = c0 + 4 * lc;
    float v[4][4];
    if (full) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const float4 f = __ldg(reinterpret_cast<const float4*>(in + ((r + i) * cols + c)));
        v[i][0] = f.x;
        v[i][1] = f.y;
        v[i][2] = f.z;
        v[i][3] = f.w;
      }
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          v[i][j] = (r + i < rows && c + j < cols) ? in[(r + i) * cols + c + j] : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int row = 4 * lc + j;  // input column within the tile
      s[row * Q + (a ^ swizzle(row))] = make_float4(v[0][j], v[1][j], v[2][j], v[3][j]);
    }
  }
  __syncthreads();
  {
    const int a = tid % Q, cr = tid / Q;
    const unsigned ocol = r0 + 4 * a;  // output column = input row
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      const int cc = cr + Q * p;  // input column within the tile = output row
      const float4 f = s[cc * Q + (a ^ swizzle(cc))];
      const unsigned orow = c0 + cc;
      if (full) {
        *reinterpret_cast<float4*>(out + (orow * rows + ocol)) = f;
      } else if (orow < cols) {
        float* o = out + (orow * rows + ocol);
        if (ocol < rows) o[0] = f.x;
        if (ocol + 1 < rows) o[1] = f.y;
        if (ocol + 2 < rows) o[2] = f.z;
        if (ocol + 3 < rows) o[3] = f.w;
      }
    }
  }
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

struct SwizzleGrid {
  unsigned tiles_c, grid;
};

// 32-bit offsets in the kernel, one block per tile: both must fit.
SwizzleGrid swizzle_grid(std::size_t rows, std::size_t cols) {
  constexpr std::size_t k2p31 = std::size_t{1} << 31;
  if (rows >= k2p31 || cols >= k2p31 || rows * cols >= 2 * k2p31)
    throw std::invalid_argument(
        "transpose_cuda_tiled64_swizzle: 32-bit offsets need rows * cols < 2^32");
  const std::size_t tr = (rows + kSwzTile - 1) / kSwzTile, tc = (cols + kSwzTile - 1) / kSwzTile;
  return {static_cast<unsigned>(tc), static_cast<unsigned>(tr * tc)};
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

double copy_cuda_tiled_seconds(const float* in, float* out, std::size_t rows, std::size_t cols,
                               cudaStream_t stream) {
  constexpr int kReps = 10;
  cudaEvent_t start = nullptr, stop = nullptr;
  CUDA_CHECK(cudaEventCreateWithFlags(&start, cudaEventDefault));
  CUDA_CHECK(cudaEventCreateWithFlags(&stop, cudaEventDefault));
  copy_cuda_tiled(in, out, rows, cols, stream);  // warm-up
  CUDA_CHECK(cudaEventRecord(start, stream));
  for (int i = 0; i < kReps; ++i) copy_cuda_tiled(in, out, rows, cols, stream);
  CUDA_CHECK(cudaEventRecord(stop, stream));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return static_cast<double>(ms) * 1e-3 / kReps;
}

void transpose_cuda_tiled_diag(const float* in, float* out, std::size_t rows, std::size_t cols,
                               cudaStream_t stream) {
  launch_tiled_1d<32, TileOrder::diagonal>(in, out, rows, cols, stream);
}

KernelStats transpose_cuda_tiled_diag_stats(std::size_t rows, std::size_t cols) {
  return tiled_1d_stats<32, TileOrder::diagonal>(rows, cols);
}

void transpose_cuda_tiled64(const float* in, float* out, std::size_t rows, std::size_t cols,
                            cudaStream_t stream) {
  launch_tiled_1d<64, TileOrder::row>(in, out, rows, cols, stream);
}

KernelStats transpose_cuda_tiled64_stats(std::size_t rows, std::size_t cols) {
  return tiled_1d_stats<64, TileOrder::row>(rows, cols);
}

void transpose_cuda_tiled64_diag(const float* in, float* out, std::size_t rows, std::size_t cols,
                                 cudaStream_t stream) {
  launch_tiled_1d<64, TileOrder::diagonal>(in, out, rows, cols, stream);
}

KernelStats transpose_cuda_tiled64_diag_stats(std::size_t rows, std::size_t cols) {
  return tiled_1d_stats<64, TileOrder::diagonal>(rows, cols);
}

void transpose_cuda_tiled64_swizzle(const float* in, float* out, std::size_t rows, std::size_t cols,
                                    cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  const SwizzleGrid g = swizzle_grid(rows, cols);
  const bool vec = rows % 4 == 0 && cols % 4 == 0 && aligned16(in) && aligned16(out);
  tiled64_swizzle_kernel<<<g.grid, kSwzThreads, 0, stream>>>(
      in, out, static_cast<unsigned>(rows), static_cast<unsigned>(cols), g.tiles_c, vec);
  CUDA_CHECK_LAUNCH();
}

KernelStats transpose_cuda_tiled64_swizzle_stats(std::size_t rows, std::size_t cols) {
  return kernel_stats(tiled64_swizzle_kernel, kSwzThreads, swizzle_grid(rows, cols).grid);
}

void transpose_cuda_tiled_variant_grid(TiledVariant variant, const float* in, float* out,
                                       std::size_t rows, std::size_t cols, unsigned max_grid,
                                       cudaStream_t stream) {
  switch (variant) {
    case TiledVariant::diag:
      return launch_tiled_1d<32, TileOrder::diagonal>(in, out, rows, cols, stream, max_grid);
    case TiledVariant::tiled64:
      return launch_tiled_1d<64, TileOrder::row>(in, out, rows, cols, stream, max_grid);
    case TiledVariant::tiled64_diag:
      return launch_tiled_1d<64, TileOrder::diagonal>(in, out, rows, cols, stream, max_grid);
  }
}

}  // namespace tb::gpu
