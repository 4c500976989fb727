#pragma once
// Launchers for transpose (host-callable; kernels live in transpose.cu). in is rows x cols,
// row-major; out is cols x rows (cuda_copy's out is rows x cols, a plain copy).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "common/workload.hpp"
#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// The tiled and copy kernels: a 32 x 32 tile per block, 32 x 8 threads, 4 rows per thread.
inline constexpr Block2 kTransposeTiledBlock{32, 8};

// The article's first kernel: threadIdx.x walks along an input row, so the reads are coalesced
// and each warp's 32 writes land in 32 different output rows (one 32-byte sector each).
void transpose_cuda_article_slow(const float* in, float* out, std::size_t rows, std::size_t cols,
                                 Block2 block, cudaStream_t stream);
KernelStats transpose_cuda_article_slow_stats(std::size_t rows, std::size_t cols, Block2 block);

// The article's second kernel, index order swapped: threadIdx.x walks down an input column, so
// the writes are coalesced and the reads strided (strided reads can still hit in L1/L2).
void transpose_cuda_article_fast(const float* in, float* out, std::size_t rows, std::size_t cols,
                                 Block2 block, cudaStream_t stream);
KernelStats transpose_cuda_article_fast_stats(std::size_t rows, std::size_t cols, Block2 block);

// Shared-memory tile of 32 x 33 floats (the extra column puts a tile column in 32 different
// banks): coalesced reads and coalesced writes.
void transpose_cuda_tiled(const float* in, float* out, std::size_t rows, std::size_t cols,
                          cudaStream_t stream);
KernelStats transpose_cuda_tiled_stats(std::size_t rows, std::size_t cols);

// Variants of the tiled kernel (same 32 x 8 block, 32 x 33 or 64 x 65 shared tile) on a 1D grid
// that strides over all tiles (no gridDim.y limit):
// - tiled_diag: 32 x 32 tiles in diagonal order, so blocks that run at the same time read and
//   write at different column offsets (against DRAM partition/bank camping at power-of-two
//   sizes, where the classic order's concurrent writes differ only in high address bits);
// - tiled64: 64 x 64 tiles in the classic order, 16 elements per thread (4x the loads in flight
//   per barrier, 256-byte write runs per output row);
// - tiled64_diag: both.
void transpose_cuda_tiled_diag(const float* in, float* out, std::size_t rows, std::size_t cols,
                               cudaStream_t stream);
KernelStats transpose_cuda_tiled_diag_stats(std::size_t rows, std::size_t cols);
void transpose_cuda_tiled64(const float* in, float* out, std::size_t rows, std::size_t cols,
                            cudaStream_t stream);
KernelStats transpose_cuda_tiled64_stats(std::size_t rows, std::size_t cols);
void transpose_cuda_tiled64_diag(const float* in, float* out, std::size_t rows, std::size_t cols,
                                 cudaStream_t stream);
KernelStats transpose_cuda_tiled64_diag_stats(std::size_t rows, std::size_t cols);

// 64 x 64 tiles, 256 threads, each moving a 4 x 4 micro-tile as float4s through an XOR-swizzled
// shared tile (4x fewer memory instructions than tiled64; transpose.cu has the H200 numbers).
// Shapes whose rows or columns are not multiples of 4, unaligned pointers and partial tiles take
// a scalar path. Throws std::invalid_argument when rows * cols >= 2^32 (32-bit offsets).
inline constexpr Block2 kTransposeSwizzleBlock{256, 1};
void transpose_cuda_tiled64_swizzle(const float* in, float* out, std::size_t rows, std::size_t cols,
                                    cudaStream_t stream);
KernelStats transpose_cuda_tiled64_swizzle_stats(std::size_t rows, std::size_t cols);

// Test hook: one of the three variants above with its grid capped at max_grid blocks (> 0), so
// that each block loops over several tiles as it would past 2^30 tiles.
enum class TiledVariant { diag, tiled64, tiled64_diag };
void transpose_cuda_tiled_variant_grid(TiledVariant variant, const float* in, float* out,
                                       std::size_t rows, std::size_t cols, unsigned max_grid,
                                       cudaStream_t stream);

// Same grid, block and per-thread work as the tiled kernel but out = in: the ceiling a
// transpose can reach.
void copy_cuda_tiled(const float* in, float* out, std::size_t rows, std::size_t cols,
                     cudaStream_t stream);
KernelStats copy_cuda_tiled_stats(std::size_t rows, std::size_t cols);
// The copy kernel's mean time in seconds over 10 launches after a warm-up (it writes `out`), so
// that every transpose variant can report its speed as a fraction of the copy's, in this run.
double copy_cuda_tiled_seconds(const float* in, float* out, std::size_t rows, std::size_t cols,
                               cudaStream_t stream);

}  // namespace tb::gpu
