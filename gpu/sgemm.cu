#include <cooperative_groups.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/cuda_check.hpp"
#include "common/capability.hpp"
#include "gpu/async_copy.cuh"
#include "gpu/kernel_stats.cuh"
#include "gpu/progress.cuh"
#include "gpu/sgemm.hpp"

namespace tb::gpu {
namespace {

namespace cg = cooperative_groups;

// ---- naive ------------------------------------------------------------------------------

// Consecutive threads take consecutive columns: the loads of B and the store of C coalesce,
// the load of A is one broadcast per warp.
__global__ void sgemm_naive_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ c, int n) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  const float* a_row = a + static_cast<std::size_t>(row) * n;
  float sum = 0.f;
  for (int k = 0; k < n; ++k) sum = fmaf(a_row[k], b[static_cast<std::size_t>(k) * n + col], sum);
  c[static_cast<std::size_t>(row) * n + col] = sum;
}

// ---- tiled ------------------------------------------------------------------------------

// Each block stages a T x T tile of A and of B per step of k; every element loaded from global
// memory is then used T times from shared memory. Out-of-range elements load as 0, which adds
// exact zeros to the sums, so any n works.
template <int T>
__global__ void __launch_bounds__(T* T)
    sgemm_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b,
                       float* __restrict__ c, int n) {
  __shared__ float as[T][T];
  __shared__ float bs[T][T];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * T + ty;
  const int col = blockIdx.x * T + tx;
  float sum = 0.f;
  for (int k0 = 0; k0 < n; k0 += T) {
    const int ka = k0 + tx;
    const int kb = k0 + ty;
    as[ty][tx] = (row < n && ka < n) ? a[static_cast<std::size_t>(row) * n + ka] : 0.f;
    bs[ty][tx] = (kb < n && col < n) ? b[static_cast<std::size_t>(kb) * n + col] : 0.f;
    __syncthreads();
    // as[ty][k] is a broadcast within a row of threads; bs[k][tx] walks consecutive banks.
#pragma unroll
    for (int k = 0; k < T; ++k) sum = fmaf(as[ty][k], bs[k][tx], sum);
    __syncthreads();  // the next step overwrites the tiles
  }
  if (row < n && col < n) c[static_cast<std::size_t>(row) * n + col] = sum;
}

// ---- optimized ---------------------------------------------------------------------------
// Three kernels behind one launcher (sgemm_cuda_optimized), all 256 threads on 128 x 128 tiles
// of C with 8 x 8 outputs per thread, plain FP32 FFMA (no tensor cores, no TF32):
// - two-stage: cp.async pipeline of 2 shared-memory stages of depth 32, warp-tiled.
// - split-K: the same mainloop with 3 stages, the k-tiles split over the 2 blocks of a
//   thread-block cluster, the partial sums added through distributed shared memory.
// - fallback: the suite's earlier kernel (k depth 8, stages staged through registers) with
//   scalar loads, for n % 4 != 0 or operands that are not 16-byte aligned: the pipelined
//   kernels copy 16-byte chunks of rows, which then would straddle a row or be misaligned.
// With aligned operands and n % 4 == 0, split-K runs while the 128 x 128 tiles are fewer than
// the SMs (n <= 1408 on the H200's 132), two-stage above. At n = 1024 the 64 tiles would leave
// half of the SMs idle; split-K gives 128 blocks. At 2048 (256 tiles) it measured 10 points
// below two-stage: the reduction, and 1 block per SM (its registers) instead of 2. That rule is
// the experiment's; sizes between 1024 and 2048 were not timed.
//
// Measured in experiments/h200-2026-12-01/sgemm (README.md, results_h200.txt): H200, cold L2,
// kernel only, median of 30 launches; % of cuBLAS = cuBLAS's median / ours.
//   kernel                    n = 1024          n = 2048          n = 4096
//   cuBLAS FP32 SGEMM          62.3 us           342.5 us         2677.7 us
//   fallback (earlier kernel) 115.7 us  53.8%    429.6 us  79.7%  3389.8 us  79.0%
//   two-stage                 104.5 us  59.6%    370.4 us  92.5%  2896.9 us  92.4%
//   split-K                    57.4 us 108.6%    416.0 us  82.3%  3244.8 us  82.5%
//   the choice above           57.4 us 108.5%    370.9 us  92.3%  2895.2 us  92.5%
// (Experiment names: q128x128k32_t256_s2, q128x128k32_t256_s3_sk2, base, auto.)
// The suite's first port of two-stage (a StageCopier class, `lane = tid % 32`) ran 3% slower
// than the experiment's copy: 2976.5 us against 2901.4 us at n = 4096, both in one process with
// the same inputs (the experiment's `suite` variant, WITH_SUITE), 89.8% and 92.1% of cuBLAS's
// 2672.4 us. Nsight Compute: the same 2.40e9 instructions, issue slots busy 77.3% against 79.4%.
// The cause was the signed `tid % 32` and `tid / 32`: with them LLVM kept B's fragment address in
// a register of its own instead of folding B's stage offset into the shared loads' immediates
// off A's base (PTX: [%r] against [%r+33792]), and the different register allocation put other
// registers under the FFMAs. With the shifts below and the experiment's statement order, the
// main loop's SASS is the experiment's (ptxas, CUDA 13.0, sm_90: 2,635 instructions, 2,612 of
// them identical register for register, all 2,048 FFMAs included). In this form a suite run
// (H200, since replaced, in git history) measured 2901.8 us at n = 4096 against cuBLAS's
// 2684.1 us in the same run: 92.5%, the experiment's figure (results/nvidia-h200/2026-12-01:
// 2898.1 against 2684.7 us).
//
// Why the last ~8% at n = 4096 is out of reach from CUDA C++ (ncu --set full, n = 4096):
//                            fallback   two-stage   cuBLAS
//   executed instructions    2.55e9     2.40e9      2.43e9   (the FFMAs alone are 2.15e9)
//   issue slots busy         72%        79%         86.5%
//   FMA pipe active          64%        74%         79%
// Two-stage already executes fewer instructions than cuBLAS: the gap is issue efficiency. Its
// largest stall is "dispatch", which cuBLAS mostly avoids, and that points to register-bank
// conflicts between FFMA operands: they follow from ptxas's register allocation, which CUDA C++
// does not control. cuBLAS's kernel (sm80_xmma_gemm_f32f32_..._tilesize256x128x8_stage3, 254
// registers, 8 warps, 1 block per SM) is hand-scheduled; a copy of its shape (128 x 256 x 8,
// 8 x 16 outputs per thread) reached only 86%, and the other shapes, depths and stage counts
// tried there measured 74% to 92.5%.

namespace pipe {
constexpr int kBm = 128;  // rows of C per block
constexpr int kBn = 128;  // columns of C per block
constexpr int kBk = 32;   // depth of one shared-memory stage
constexpr int kWm = 32;   // rows of C per warp: 4 warps down the tile
constexpr int kWn = 64;   // columns of C per warp: 2 warps across
constexpr int kTm = 8;    // rows of C per thread
constexpr int kTn = 8;    // columns of C per thread
constexpr int kWarpsN = kBn / kWn;
constexpr int kThreads = 32 * (kBm / kWm) * kWarpsN;
static_assert(kThreads == kSgemmOptimizedThreads);
// A warp's lanes form a kLaneRows x kLaneCols grid. A lane owns its outputs as 4 x 4 blocks,
// kLaneRows * 4 rows and kLaneCols * 4 columns apart, so each 16-byte shared load of a warp
// touches 4 (A) or 8 (B) consecutive 16-byte chunks, broadcast to the other lanes: no bank
// conflicts.
constexpr int kLaneRows = kWm / kTm;
constexpr int kLaneCols = kWn / kTn;
static_assert(kLaneRows * kLaneCols == 32 && kTm % 4 == 0 && kTn % 4 == 0);
// A is stored transposed, as[k][m], so a lane reads its rows of one k as float4s, as it reads
// B. The 4-byte copies that transpose it write 32 k-rows of one column per warp: 4 floats of
// padding spread them over 8 banks instead of 1, and keep every row 16-byte aligned.
constexpr int kALd = kBm + 4;
constexpr int kAStage = kBk * kALd;  // floats
constexpr int kBStage = kBk * kBn;
constexpr int kTileFloats = kBm * kBn;
// Each thread copies, per stage, kACopies elements of A (kARowStride rows apart; a warp reads
// 32 consecutive k of one row, 128 contiguous bytes) and kBCopies 16-byte chunks of B
// (kBRowStride k-rows apart). The column of a thread's copies is the same in every stage.
constexpr int kBChunksPerRow = kBn / 4;
constexpr int kARowStride = kThreads / kBk;
constexpr int kACopies = kBm / kARowStride;
constexpr int kBRowStride = kThreads / kBChunksPerRow;
constexpr int kBCopies = kBk / kBRowStride;
static_assert(kThreads % kBk == 0 && kBm % kARowStride == 0);
static_assert(kThreads % kBChunksPerRow == 0 && kBk % kBRowStride == 0);
static_assert(kBk % 2 == 0, "k steps alternate the two fragment buffers");
// Tiles are walked kGroup block-rows at a time, column by column, so blocks resident together
// share panels of A and B in L2. As measured (1, 4, 8 and 16 were all within 0.5%).
constexpr int kGroup = 8;
}  // namespace pipe

// kStages shared-memory stages in flight; the k-tiles split over the kSplitK blocks of a
// cluster (1: no split, no cluster).
template <int kStages_, int kSplitK_>
struct PipeConfig {
  static constexpr int kStages = kStages_;
  static constexpr int kSplitK = kSplitK_;
  // 2 blocks per SM caps registers at 128, which the two-stage kernel fits. Split-K's reduction
  // wants more (158), and its grids (fewer tiles than SMs) hold under 2 blocks per SM anyway.
  static constexpr int kMinBlocksPerSm = kSplitK == 1 ? 2 : 1;
  static constexpr int kPipeFloats = kStages * (pipe::kAStage + pipe::kBStage);
  // The split-K partial sums (a C tile) reuse the stages once the mainloop is done.
  static constexpr int kReduceFloats = kSplitK > 1 ? pipe::kTileFloats : 0;
  static constexpr int kSmemBytes =
      static_cast<int>(sizeof(float)) * (kPipeFloats > kReduceFloats ? kPipeFloats : kReduceFloats);
  static_assert(kStages >= 2, "the mainloop refills one stage while reading another");
  static_assert(pipe::kTm % kSplitK == 0, "split-K blocks share a thread's rows evenly");
};
using TwoStage = PipeConfig<2, 1>;  // 66,560 B of shared memory
using SplitK = PipeConfig<3, 2>;    // 99,840 B
static_assert(TwoStage::kSmemBytes == 66560 && SplitK::kSmemBytes == 99840);

using async_copy::smem_addr;

// Row and column of C where block `pid`'s tile starts, in grouped order (see kGroup).
__device__ __forceinline__ int2 tile_origin(int pid, int n) {
  using namespace pipe;
  const int tiles_m = (n + kBm - 1) / kBm;
  const int tiles_n = (n + kBn - 1) / kBn;
  const int per_group = kGroup * tiles_n;
  const int first_m = (pid / per_group) * kGroup;
  const int group_rows = min(tiles_m - first_m, kGroup);
  const int r = pid % per_group;
  return make_int2((first_m + r % group_rows) * kBm, (r / group_rows) * kBn);
}

// This thread's share of the copies of one stage of an edge tile, global to shared memory
// without registers: elements outside the matrix arrive as zeros. Each thread copies, per stage,
// kACopies elements of A (kARowStride rows apart; a warp reads 32 consecutive k of one row, 128
// contiguous bytes) and kBCopies 16-byte chunks of B (kBRowStride k-rows apart). Interior tiles
// take the kernel's unchecked copies, with the same coordinates.
__device__ __forceinline__ void copy_stage_checked(float* as, float* bs, const float* __restrict__ a,
                                                   const float* __restrict__ b, int n, int2 tile,
                                                   int k0, int tid) {
  using namespace pipe;
  const int ak = k0 + tid % kBk;
#pragma unroll
  for (int l = 0; l < kACopies; ++l) {
    const int row = tid / kBk + l * kARowStride;
    const int ar = tile.x + row;
    const bool inside = ar < n && ak < n;
    const float* src = inside ? a + static_cast<std::size_t>(ar) * n + ak : a;
    async_copy::copy4_or_zero(smem_addr(as + (tid % kBk) * kALd + row), src, inside);
  }
  const int chunk = tid % kBChunksPerRow;
  const int bc = tile.y + 4 * chunk;
#pragma unroll
  for (int l = 0; l < kBCopies; ++l) {
    const int kr = tid / kBChunksPerRow + l * kBRowStride;
    const int bk = k0 + kr;
    const bool inside = bk < n && bc < n;  // n % 4 == 0: a chunk is wholly in or out
    const float* src = inside ? b + static_cast<std::size_t>(bk) * n + bc : b;
    async_copy::copy16_or_zero(smem_addr(bs + kr * kBn + 4 * chunk), src, inside);
  }
}

// One k of this thread's A and B fragments from shared memory: its 8 rows of A and 8 columns
// of B, each as two float4s (see kLaneRows).
__device__ __forceinline__ void load_fragments(float (&fa)[pipe::kTm], float (&fb)[pipe::kTn],
                                               const float* a_thr, const float* b_thr) {
  using namespace pipe;
#pragma unroll
  for (int im = 0; im < kTm / 4; ++im) {
    const float4 v = *reinterpret_cast<const float4*>(a_thr + im * kLaneRows * 4);
    fa[im * 4 + 0] = v.x;
    fa[im * 4 + 1] = v.y;
    fa[im * 4 + 2] = v.z;
    fa[im * 4 + 3] = v.w;
  }
#pragma unroll
  for (int jn = 0; jn < kTn / 4; ++jn) {
    const float4 v = *reinterpret_cast<const float4*>(b_thr + jn * kLaneCols * 4);
    fb[jn * 4 + 0] = v.x;
    fb[jn * 4 + 1] = v.y;
    fb[jn * 4 + 2] = v.z;
    fb[jn * 4 + 3] = v.w;
  }
}

__device__ __forceinline__ void fma_outer_product(float (&acc)[pipe::kTm][pipe::kTn],
                                                  const float (&fa)[pipe::kTm],
                                                  const float (&fb)[pipe::kTn]) {
#pragma unroll
  for (int i = 0; i < pipe::kTm; ++i)
#pragma unroll
    for (int j = 0; j < pipe::kTn; ++j) acc[i][j] = fmaf(fa[i], fb[j], acc[i][j]);
}

// The k-tiles block `split` of kSplitK sums: [begin, begin + count).
struct KTiles {
  int begin, count;
};
template <int kSplitK>
__device__ __forceinline__ KTiles k_tiles(int n, int split) {
  const long long total = (n + pipe::kBk - 1) / pipe::kBk;
  const int begin = static_cast<int>(total * split / kSplitK);
  const int end = static_cast<int>(total * (split + 1) / kSplitK);
  return {begin, end - begin};
}

// Split-K over the cluster: its kSplitK blocks computed the same C tile over different k-tiles.
// Each block leaves the partial sums of the rows it does not own in its own shared memory (the
// stages are free by now); after a cluster barrier it adds the others' partials for its own
// rows, read through distributed shared memory. One kernel: no atomics, no workspace, no
// memset, and deterministic. Slot (i, j) of thread tid is [(i * kTn + j) * kThreads + tid]:
// consecutive threads, consecutive words, and the same thread of every block owns the same
// outputs. Returns this block's rank: it stores rows i with i / (kTm / kSplitK) == rank.
template <int kSplitK>
__device__ __forceinline__ int reduce_split_k(float (&acc)[pipe::kTm][pipe::kTn], float* smem,
                                              int tid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  // Clusters need sm_90; the host launches this kernel only from sm_90 code (pipe_setup).
  __trap();
  return 0;
#else
  using namespace pipe;
  constexpr int kRowsPerRank = kTm / kSplitK;
  async_copy::wait<0>();
  __syncthreads();  // every thread is done reading the stages: reuse them
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
#pragma unroll
  for (int i = 0; i < kTm; ++i)
    if (i / kRowsPerRank != rank)
#pragma unroll
      for (int j = 0; j < kTn; ++j) smem[(i * kTn + j) * kThreads + tid] = acc[i][j];
  cluster.sync();
#pragma unroll
  for (int q = 0; q < kSplitK; ++q) {
    if (q == rank) continue;
    const float* remote = cluster.map_shared_rank(smem, q);
#pragma unroll
    for (int i = 0; i < kTm; ++i)
      if (i / kRowsPerRank == rank)
#pragma unroll
        for (int j = 0; j < kTn; ++j) acc[i][j] += remote[(i * kTn + j) * kThreads + tid];
  }
  cluster.sync();  // no block exits while another still reads its shared memory
  return rank;
#endif
}

// Stores this thread's outputs, the first at (row0, col0): the rows i with
// i / rows_per_rank == rank (all of them without split-K). n % 4 == 0, so a float4 of C is
// wholly inside or outside the matrix.
__device__ __forceinline__ void store_outputs(const float (&acc)[pipe::kTm][pipe::kTn],
                                              float* __restrict__ c, int n, int row0, int col0,
                                              int rows_per_rank, int rank) {
  using namespace pipe;
#pragma unroll
  for (int i = 0; i < kTm; ++i) {
    if (i / rows_per_rank != rank) continue;
    const int row = row0 + (i / 4) * (kLaneRows * 4) + (i % 4);
    if (row >= n) continue;
    float* crow = c + static_cast<std::size_t>(row) * n;
#pragma unroll
    for (int jn = 0; jn < kTn / 4; ++jn) {
      const int col = col0 + jn * kLaneCols * 4;
      if (col < n)
        *reinterpret_cast<float4*>(crow + col) = make_float4(
            acc[i][jn * 4 + 0], acc[i][jn * 4 + 1], acc[i][jn * 4 + 2], acc[i][jn * 4 + 3]);
    }
  }
}

// What a pipelined kernel does once its tile of C is stored: the kernel takes it as a template
// parameter, so the default instantiation is the kernel without any counting (its SASS is the
// same instruction for instruction) and the counting one adds code only after the last store.
// NoTileCount: nothing.
struct NoTileCount {
  __device__ __forceinline__ void tile_stored(int /*tile*/, int /*rank*/) const {}
};

// CountTiles: live progress in finished tiles of C. Each tile owns one slot (gpu/progress.cuh:
// per-writer slots in mapped host or device memory, summed by the host), and its block's thread
// 0 stores 1 there after the whole block has stored its outputs: one plain store a block, nothing
// in the k loop, where any work on thread 0 delays the barrier every warp waits at. The barrier
// before it costs next to nothing: a block's shared memory is freed only when its last warp
// exits anyway. With split-K the tile's rank-0 block counts it (its partner stores the other
// rows after the same cluster barrier), so the slots sum to the tiles whatever the kernel.
struct CountTiles {
  tb::progress::SlotsRef slots;
  __device__ __forceinline__ void tile_stored(int tile, int rank) const {
    __syncthreads();
    if (threadIdx.x == 0 && rank == 0)
      progress::publish(slots.slots + static_cast<unsigned long long>(tile) * slots.stride_words,
                        1ull);
  }
};

// The mainloop follows CUTLASS's multistage SIMT one:
// - all kStages stages hold tiles in flight; a stage is refilled right after the barrier that
//   follows the last read of it;
// - the fragments of step k+1 load into the other half of a register double buffer while the
//   FFMAs of step k run, also across tiles: the wait and the barrier sit in the last k-step of a
//   tile, before its FFMAs, so the next tile's first loads overlap them.
// Needs n % 4 == 0 and 16-byte-aligned a, b, c (the host checks).
template <class P, class TileCount = NoTileCount>
__global__ void __launch_bounds__(pipe::kThreads, P::kMinBlocksPerSm)
    sgemm_pipelined_kernel(const float* __restrict__ a, const float* __restrict__ b,
                           float* __restrict__ c, int n, TileCount tile_count) {
  using namespace pipe;
  extern __shared__ __align__(16) float smem[];
  float* const as = smem;                         // kStages x as[kBk][kALd]
  float* const bs = smem + P::kStages * kAStage;  // kStages x bs[kBk][kBn]

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31, warp = tid >> 5;  // shifts, not signed % and /: see "optimized"
  const int warp_row = (warp / kWarpsN) * kWm, warp_col = (warp % kWarpsN) * kWn;
  const int lane_row = lane / kLaneCols, lane_col = lane % kLaneCols;
  const int2 tile = tile_origin(static_cast<int>(blockIdx.x), n);
  const KTiles kt = k_tiles<P::kSplitK>(n, P::kSplitK > 1 ? static_cast<int>(blockIdx.z) : 0);
  // The copies of interior tiles: pointers computed once, no bounds tests, no index arithmetic
  // beyond a step. (Outside the interior the pointers stay at the matrix's first row: none
  // points past its end.)
  const int a_k = tid % kBk, a_row = tid / kBk;
  const int b_chunk = tid % kBChunksPerRow, b_k = tid / kBChunksPerRow;
  const bool interior = tile.x + kBm <= n && tile.y + kBn <= n;
  const float* const pa = a + static_cast<std::size_t>(interior ? tile.x + a_row : 0) * n + a_k;
  const float* const pb =
      b + static_cast<std::size_t>(b_k) * n + (interior ? tile.y + 4 * b_chunk : 0);
  const std::size_t a_step = static_cast<std::size_t>(kARowStride) * n;
  const std::size_t b_step = static_cast<std::size_t>(kBRowStride) * n;
  const unsigned sa = smem_addr(as + a_k * kALd + a_row);
  const unsigned sb = smem_addr(bs + b_k * kBn + 4 * b_chunk);
  // Queues the copies of k-tile kt.begin + t into `stage`.
  auto copy_stage = [&](int stage, int t) {
    const int k0 = (kt.begin + t) * kBk;
    if (interior && k0 + kBk <= n) {
      const float* ra = pa + k0;
      const float* rb = pb + static_cast<std::size_t>(k0) * n;
      const unsigned da = sa + stage * (kAStage * 4);
      const unsigned db = sb + stage * (kBStage * 4);
#pragma unroll
      for (int l = 0; l < kACopies; ++l) async_copy::copy4(da + l * kARowStride * 4, ra + l * a_step);
#pragma unroll
      for (int l = 0; l < kBCopies; ++l)
        async_copy::copy16(db + l * kBRowStride * kBn * 4, rb + l * b_step);
    } else {
      copy_stage_checked(as + stage * kAStage, bs + stage * kBStage, a, b, n, tile, k0, tid);
    }
  };

  const float* const a_thr = as + warp_row + lane_row * 4;
  const float* const b_thr = bs + warp_col + lane_col * 4;
  float fa[2][kTm], fb[2][kTn];
  auto load_frag = [&](float (&xa)[kTm], float (&xb)[kTn], int stage, int k) {
    load_fragments(xa, xb, a_thr + stage * kAStage + k * kALd, b_thr + stage * kBStage + k * kBn);
  };

  float acc[kTm][kTn];
#pragma unroll
  for (int i = 0; i < kTm; ++i)
#pragma unroll
    for (int j = 0; j < kTn; ++j) acc[i][j] = 0.f;

  // Prologue: tiles 0 .. kStages-1 into all stages, one commit group each, empty or not, so
  // that the group count says which tile has landed.
#pragma unroll
  for (int s = 0; s < P::kStages; ++s) {
    if (s < kt.count) copy_stage(s, s);
    async_copy::commit();
  }
  async_copy::wait<P::kStages - 1>();  // tile 0
  __syncthreads();
  if (kt.count > 0) load_frag(fa[0], fb[0], 0, 0);

  int stage = 0;  // of tile t
#pragma unroll 1
  for (int t = 0; t < kt.count; ++t) {
#pragma unroll
    for (int k = 0; k < kBk; ++k) {
      if (k == kBk - 1) {
        // Groups committed: kStages + t; tile t+1 is group t+1, so kStages-2 may stay pending.
        async_copy::wait<P::kStages - 2>();
        // Everyone's copies of tile t+1 are visible, and everyone has loaded its last fragment
        // of tile t (at step kBk-2): its stage is free.
        __syncthreads();
        if (t + P::kStages < kt.count) copy_stage(stage, t + P::kStages);
        async_copy::commit();
        stage = stage + 1 == P::kStages ? 0 : stage + 1;
        if (t + 1 < kt.count) load_frag(fa[(k + 1) & 1], fb[(k + 1) & 1], stage, 0);
      } else {
        load_frag(fa[(k + 1) & 1], fb[(k + 1) & 1], stage, k + 1);
      }
      fma_outer_product(acc, fa[k & 1], fb[k & 1]);
    }
  }

  int rank = 0;
  if constexpr (P::kSplitK > 1) rank = reduce_split_k<P::kSplitK>(acc, smem, tid);
  store_outputs(acc, c, n, tile.x + warp_row + lane_row * 4, tile.y + warp_col + lane_col * 4,
                kTm / P::kSplitK, rank);
  tile_count.tile_stored(static_cast<int>(blockIdx.x), rank);
}

// ---- fallback: the earlier kernel, register-staged, scalar global loads ---------------------

namespace fallback {
constexpr int kBm = 128;  // rows of C per block
constexpr int kBn = 128;  // columns of C per block
constexpr int kBk = 8;    // depth of one shared-memory stage
constexpr int kTm = 8;    // rows of C per thread
constexpr int kTn = 8;    // columns of C per thread (two groups of 4, 64 columns apart)
constexpr int kThreads = (kBm / kTm) * (kBn / kTn);
static_assert(kThreads == kSgemmOptimizedThreads);
// A is stored transposed (k-major) so a thread reads its 8 rows as two float4s; 4 floats of
// padding per k-row make the transposing stores conflict-free (threads that share a row of A
// and differ in k land 16 banks apart) while keeping every row 16-byte aligned.
constexpr int kPadA = 4;
// Each thread loads exactly one group of 4 of A and one of B per stage.
static_assert(kBm * kBk / 4 == kThreads && kBk * kBn / 4 == kThreads);
}  // namespace fallback

// m[row][col .. col+3] of an n x n row-major matrix, zeros outside it, element by element: any
// n and any alignment.
__device__ __forceinline__ float4 load_row4(const float* __restrict__ m, int n, int row, int col) {
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  if (row >= n) return v;
  const float* p = m + static_cast<std::size_t>(row) * n;
  if (col < n) v.x = __ldg(p + col);
  if (col + 1 < n) v.y = __ldg(p + col + 1);
  if (col + 2 < n) v.z = __ldg(p + col + 2);
  if (col + 3 < n) v.w = __ldg(p + col + 3);
  return v;
}

__device__ __forceinline__ void store_row4(float* __restrict__ m, int n, int row, int col,
                                           float4 v) {
  if (row >= n) return;
  float* p = m + static_cast<std::size_t>(row) * n;
  if (col < n) p[col] = v.x;
  if (col + 1 < n) p[col + 1] = v.y;
  if (col + 2 < n) p[col + 2] = v.z;
  if (col + 3 < n) p[col + 3] = v.w;
}

// Thread (tx, ty) of the 16 x 16 grid owns rows ty*8 .. ty*8+7 of the block's C tile and
// columns tx*4 .. tx*4+3 and 64+tx*4 .. 64+tx*4+3: splitting the columns in two groups makes
// the float4 reads of B from shared memory conflict-free (8 consecutive threads read 128
// contiguous bytes). Per k: 2 + 2 float4 shared loads feed 64 FMAs.
// Double buffering: while stage t is multiplied out of shared memory, stage t+1 is already on
// its way from global memory into registers, and is stored to the other buffer afterwards, so
// one barrier per stage suffices (see the loop).
__global__ void __launch_bounds__(fallback::kThreads, 2)
    sgemm_fallback_kernel(const float* __restrict__ a, const float* __restrict__ b,
                          float* __restrict__ c, int n) {
  using namespace fallback;
  __shared__ __align__(16) float as[2][kBk][kBm + kPadA];
  __shared__ __align__(16) float bs[2][kBk][kBn];

  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % (kBn / kTn);
  const int ty = tid / (kBn / kTn);
  const int block_row = static_cast<int>(blockIdx.y) * kBm;
  const int block_col = static_cast<int>(blockIdx.x) * kBn;

  // This thread's group of 4 of the A stage (kBm x kBk) and of the B stage (kBk x kBn).
  const int a_row = tid / (kBk / 4);
  const int a_k = (tid % (kBk / 4)) * 4;
  const int b_k = tid / (kBn / 4);
  const int b_col = (tid % (kBn / 4)) * 4;

  auto store_stage = [&](int s, float4 va, float4 vb) {
    as[s][a_k + 0][a_row] = va.x;
    as[s][a_k + 1][a_row] = va.y;
    as[s][a_k + 2][a_row] = va.z;
    as[s][a_k + 3][a_row] = va.w;
    *reinterpret_cast<float4*>(&bs[s][b_k][b_col]) = vb;
  };

  float acc[kTm][kTn];
#pragma unroll
  for (int i = 0; i < kTm; ++i)
#pragma unroll
    for (int j = 0; j < kTn; ++j) acc[i][j] = 0.f;

  const int stages = (n + kBk - 1) / kBk;
  store_stage(0, load_row4(a, n, block_row + a_row, a_k), load_row4(b, n, b_k, block_col + b_col));
  __syncthreads();

  for (int t = 0; t < stages; ++t) {
    const int cur = t & 1;
    const bool has_next = t + 1 < stages;  // uniform across the block
    float4 next_a = make_float4(0.f, 0.f, 0.f, 0.f);
    float4 next_b = next_a;
    if (has_next) {
      const int k0 = (t + 1) * kBk;
      next_a = load_row4(a, n, block_row + a_row, k0 + a_k);
      next_b = load_row4(b, n, k0 + b_k, block_col + b_col);
    }
#pragma unroll
    for (int k = 0; k < kBk; ++k) {
      const float4 a0 = *reinterpret_cast<const float4*>(&as[cur][k][ty * kTm]);
      const float4 a1 = *reinterpret_cast<const float4*>(&as[cur][k][ty * kTm + 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&bs[cur][k][tx * 4]);
      const float4 b1 = *reinterpret_cast<const float4*>(&bs[cur][k][kBn / 2 + tx * 4]);
      const float af[kTm] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float bf[kTn] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < kTm; ++i)
#pragma unroll
        for (int j = 0; j < kTn; ++j) acc[i][j] = fmaf(af[i], bf[j], acc[i][j]);
    }
    // Buffer cur^1 was last read in step t-1, which every thread finished before the barrier
    // that ended it; the barrier below publishes it before step t+1 reads it.
    if (has_next) store_stage(cur ^ 1, next_a, next_b);
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < kTm; ++i) {
    const int row = block_row + ty * kTm + i;
    store_row4(c, n, row, block_col + tx * 4,
               make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
    store_row4(c, n, row, block_col + kBn / 2 + tx * 4,
               make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
  }
}

// ---- helpers -----------------------------------------------------------------------------

int checked_n(std::size_t n) {
  // cuBLAS takes int dimensions, and the kernels index rows with int.
  if (n > static_cast<std::size_t>(INT_MAX))
    throw std::invalid_argument("sgemm: n exceeds INT_MAX");
  return static_cast<int>(n);
}

dim3 grid_2d(std::size_t n, int bx, int by) {
  const std::size_t gx = (n + bx - 1) / bx;
  const std::size_t gy = (n + by - 1) / by;
  if (gy > 65535 || gx > static_cast<std::size_t>(INT_MAX))
    throw std::invalid_argument("sgemm: grid too large for n = " + std::to_string(n));
  return dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// The pipelined kernels need 16-byte copies of rows: n % 4 == 0 and aligned operands.
bool pipelined_ok(const float* a, const float* b, const float* c, std::size_t n) {
  return n % 4 == 0 && aligned16(a) && aligned16(b) && aligned16(c);
}

// What the pipelined kernels need once per process: the SM count, for the choice of kernel,
// and shared memory past the 48 KB default, allowed before any launch or occupancy query.
struct PipeSetup {
  int sm_count = 0;
  // The split-K kernel was compiled for sm_90 or later (thread-block clusters); in a build for
  // an older architecture its reduction is a trap, and two-stage runs at every size.
  bool split_k = false;
};

template <class P>
void allow_dynamic_smem() {
  CUDA_CHECK(cudaFuncSetAttribute(sgemm_pipelined_kernel<P, NoTileCount>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, P::kSmemBytes));
  CUDA_CHECK(cudaFuncSetAttribute(sgemm_pipelined_kernel<P, CountTiles>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, P::kSmemBytes));
}

PipeSetup make_pipe_setup() {
  PipeSetup setup;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&setup.sm_count, cudaDevAttrMultiProcessorCount, device));
  setup.split_k = sgemm_split_k_missing().empty();
  allow_dynamic_smem<TwoStage>();
  if (setup.split_k) allow_dynamic_smem<SplitK>();
  return setup;
}

// Once per process: the launcher runs inside timed regions. If it throws, the next call retries.
const PipeSetup& pipe_setup() {
  static const PipeSetup setup = make_pipe_setup();
  return setup;
}

// 128 x 128 tiles of C, one block each (kSplitK with split-K), on grid x.
unsigned pipe_tiles(std::size_t n) {
  const std::size_t tiles_m = (n + pipe::kBm - 1) / pipe::kBm;
  const std::size_t tiles_n = (n + pipe::kBn - 1) / pipe::kBn;
  if (tiles_m * tiles_n > static_cast<std::size_t>(INT_MAX))  // the kernel indexes tiles with int
    throw std::invalid_argument("sgemm: grid too large for n = " + std::to_string(n));
  return static_cast<unsigned>(tiles_m * tiles_n);
}

// The experiment's rule (see "optimized" above): split-K while the tiles cannot fill the SMs.
SgemmOptimizedKernel choose_kernel(std::size_t n, bool pipelined) {
  if (!pipelined) return SgemmOptimizedKernel::fallback;
  const PipeSetup& setup = pipe_setup();
  if (setup.split_k && pipe_tiles(n) < static_cast<unsigned>(setup.sm_count))
    return SgemmOptimizedKernel::split_k;
  return SgemmOptimizedKernel::two_stage;
}

template <class P, class TileCount = NoTileCount>
void launch_pipelined(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream,
                      TileCount tile_count = {}) {
  const dim3 grid(pipe_tiles(n), 1, P::kSplitK);
  if constexpr (P::kSplitK == 1) {
    sgemm_pipelined_kernel<P, TileCount>
        <<<grid, pipe::kThreads, P::kSmemBytes, stream>>>(a, b, c, checked_n(n), tile_count);
  } else {
    // The kSplitK blocks of a tile (along grid z) form one cluster, so that they can read each
    // other's shared memory.
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = 1;
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = P::kSplitK;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = dim3(pipe::kThreads);
    config.dynamicSmemBytes = P::kSmemBytes;
    config.stream = stream;
    config.attrs = &cluster;
    config.numAttrs = 1;
    CUDA_CHECK(cudaLaunchKernelEx(&config, sgemm_pipelined_kernel<P, TileCount>, a, b, c,
                                  checked_n(n), tile_count));
  }
  CUDA_CHECK_LAUNCH();
}

template <class P>
KernelStats pipelined_stats(std::size_t n) {
  return kernel_stats(sgemm_pipelined_kernel<P, NoTileCount>, pipe::kThreads,
                      static_cast<long long>(pipe_tiles(n)) * P::kSplitK, P::kSmemBytes);
}

void launch_fallback(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  sgemm_fallback_kernel<<<grid_2d(n, fallback::kBn, fallback::kBm), fallback::kThreads, 0,
                          stream>>>(a, b, c, checked_n(n));
  CUDA_CHECK_LAUNCH();
}

KernelStats fallback_stats(std::size_t n) {
  const dim3 g = grid_2d(n, fallback::kBn, fallback::kBm);
  return kernel_stats(sgemm_fallback_kernel, fallback::kThreads, static_cast<long long>(g.x) * g.y);
}

template <int T>
void launch_tiled(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  sgemm_tiled_kernel<T><<<grid_2d(n, T, T), dim3(T, T), 0, stream>>>(a, b, c, checked_n(n));
  CUDA_CHECK_LAUNCH();
}

// cuBLAS is loaded at run time, not linked: the binary then starts on a machine without
// libcublas (the bundle carries only libbenchmark, and libcublasLt alone is ~500 MB), and only
// the cublas variants skip there, with the reason.
struct CublasApi {
  std::string error;  // empty when every entry point was found
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  // cublasGemmEx with a cublasComputeType_t (the header also declares a C++ overload taking a
  // cudaDataType, so decltype cannot name it).
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const void*, const void*, cudaDataType, int, const void*,
                            cudaDataType, int, const void*, void*, cudaDataType, int,
                            cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
};

template <class Fn>
bool find_symbol(void* lib, const char* name, Fn& fn, std::string& error) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (!fn) error = std::string("cuBLAS has no ") + name;
  return fn != nullptr;
}

CublasApi load_cublas() {
  CublasApi api;
  // The major version the header was built against first; a later one keeps these entry points.
  const std::string own = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  void* lib = nullptr;
  std::string tried;
  for (const std::string& name :
       {own, "/usr/local/cuda/lib64/" + own, std::string("libcublas.so")}) {
    lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);  // never closed: handles outlive main
    if (lib) break;
    const char* why = dlerror();
    tried += (tried.empty() ? "" : "; ") + std::string(why ? why : name);
  }
  if (!lib) {
    api.error = "cuBLAS not available: " + tried;
    return api;
  }
  (void)(find_symbol(lib, "cublasCreate_v2", api.create, api.error) &&
         find_symbol(lib, "cublasDestroy_v2", api.destroy, api.error) &&
         find_symbol(lib, "cublasSetStream_v2", api.set_stream, api.error) &&
         find_symbol(lib, "cublasSetMathMode", api.set_math_mode, api.error) &&
         find_symbol(lib, "cublasSgemm_v2", api.sgemm, api.error) &&
         find_symbol(lib, "cublasGemmEx", api.gemm_ex, api.error) &&
         find_symbol(lib, "cublasGetStatusString", api.status_string, api.error));
  return api;
}

const CublasApi& cublas_api() {
  static const CublasApi api = load_cublas();
  return api;
}

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLAS: ") + what + ": " +
                             cublas_api().status_string(status));
}

// One thread per element, grid-stride: a conversion pass outside the timed GEMM.
__global__ void round_to_bf16_kernel(const float* in, std::uint16_t* out, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride)
    out[i] = __bfloat16_as_ushort(__float2bfloat16_rn(in[i]));
}

}  // namespace

void round_to_bf16(const float* in, std::uint16_t* out, std::size_t count, cudaStream_t stream) {
  if (count == 0) return;
  constexpr int kThreads = 256;
  const std::size_t blocks = std::min<std::size_t>((count + kThreads - 1) / kThreads, 65536);
  round_to_bf16_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(in, out, count);
  CUDA_CHECK_LAUNCH();
}

void sgemm_cuda_naive(const float* a, const float* b, float* c, std::size_t n, Block2 block,
                      cudaStream_t stream) {
  if (n == 0) return;
  sgemm_naive_kernel<<<grid_2d(n, block.x, block.y), dim3(block.x, block.y), 0, stream>>>(
      a, b, c, checked_n(n));
  CUDA_CHECK_LAUNCH();
}

KernelStats sgemm_cuda_naive_stats(std::size_t n, Block2 block) {
  const dim3 g = grid_2d(n, block.x, block.y);
  return kernel_stats(sgemm_naive_kernel, block.threads(), static_cast<long long>(g.x) * g.y);
}

bool sgemm_cuda_tiled_supported(Block2 block) {
  return block.x == block.y && (block.x == 8 || block.x == 16 || block.x == 32);
}

void sgemm_cuda_tiled(const float* a, const float* b, float* c, std::size_t n, Block2 block,
                      cudaStream_t stream) {
  if (n == 0) return;
  if (!sgemm_cuda_tiled_supported(block))
    throw std::invalid_argument("sgemm_cuda_tiled: block must be 8x8, 16x16 or 32x32");
  switch (block.x) {
    case 8:
      launch_tiled<8>(a, b, c, n, stream);
      break;
    case 16:
      launch_tiled<16>(a, b, c, n, stream);
      break;
    default:
      launch_tiled<32>(a, b, c, n, stream);
      break;
  }
}

KernelStats sgemm_cuda_tiled_stats(std::size_t n, Block2 block) {
  const dim3 g = grid_2d(n, block.x, block.y);
  const long long blocks = static_cast<long long>(g.x) * g.y;
  switch (block.x) {
    case 8:
      return kernel_stats(sgemm_tiled_kernel<8>, 64, blocks);
    case 16:
      return kernel_stats(sgemm_tiled_kernel<16>, 256, blocks);
    default:
      return kernel_stats(sgemm_tiled_kernel<32>, 1024, blocks);
  }
}

std::string sgemm_split_k_missing() {
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  cudaFuncAttributes split_k{};
  CUDA_CHECK(cudaFuncGetAttributes(&split_k, sgemm_pipelined_kernel<SplitK, NoTileCount>));
  return capability_missing(GpuFeature::thread_block_clusters, major * 10 + minor,
                            split_k.ptxVersion);
}

SgemmOptimizedKernel sgemm_cuda_optimized_kernel(std::size_t n) {
  return choose_kernel(n, n % 4 == 0);
}

void sgemm_cuda_optimized(const float* a, const float* b, float* c, std::size_t n,
                          cudaStream_t stream) {
  if (n == 0) return;
  switch (choose_kernel(n, pipelined_ok(a, b, c, n))) {
    case SgemmOptimizedKernel::split_k:
      launch_pipelined<SplitK>(a, b, c, n, stream);
      break;
    case SgemmOptimizedKernel::two_stage:
      launch_pipelined<TwoStage>(a, b, c, n, stream);
      break;
    case SgemmOptimizedKernel::fallback:
      launch_fallback(a, b, c, n, stream);
      break;
  }
}

std::size_t sgemm_optimized_tiles(std::size_t n) { return n == 0 ? 0 : pipe_tiles(n); }

// Zeroes the tiles' slots in stream order, before the counting kernel. Each finished tile stores 1
// (not an add), so a board left at the last launch's count would read `tiles` throughout the next
// launch and show no progress; SlotBoard::reset would wait for the stream, which a timed launch
// cannot. A kernel rather than cudaMemsetAsync: the slots may be mapped host memory. It is inside
// the row's timed span: about 256 KiB of stores across PCIe at 8192 (4096 tiles, 64-byte slots).
__global__ void zero_tile_slots(tb::progress::SlotsRef s) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.count) s.slots[static_cast<std::size_t>(i) * s.stride_words] = 0;
}

void sgemm_cuda_optimized_counted(const float* a, const float* b, float* c, std::size_t n,
                                  const tb::progress::SlotsRef& slots, cudaStream_t stream) {
  if (n == 0) return;
  if (slots.slots == nullptr || slots.count < pipe_tiles(n))
    throw std::invalid_argument("sgemm: tile counting needs a slot for each of the " +
                                std::to_string(pipe_tiles(n)) + " tiles");
  constexpr unsigned kZeroBlock = 256;
  zero_tile_slots<<<(slots.count + kZeroBlock - 1) / kZeroBlock, kZeroBlock, 0, stream>>>(slots);
  CUDA_CHECK(cudaGetLastError());
  const CountTiles count{slots};
  switch (choose_kernel(n, pipelined_ok(a, b, c, n))) {
    case SgemmOptimizedKernel::split_k:
      launch_pipelined<SplitK>(a, b, c, n, stream, count);
      break;
    case SgemmOptimizedKernel::two_stage:
      launch_pipelined<TwoStage>(a, b, c, n, stream, count);
      break;
    case SgemmOptimizedKernel::fallback:
      throw std::invalid_argument(
          "sgemm: tile counting needs the pipelined kernels (n % 4 == 0, 16-byte-aligned "
          "operands)");
  }
}

KernelStats sgemm_cuda_optimized_stats(std::size_t n) {
  KernelStats s;
  switch (sgemm_cuda_optimized_kernel(n)) {
    case SgemmOptimizedKernel::split_k:
      s = pipelined_stats<SplitK>(n);
      s.path = "split_k";
      return s;
    case SgemmOptimizedKernel::two_stage:
      s = pipelined_stats<TwoStage>(n);
      s.path = "two_stage";
      return s;
    case SgemmOptimizedKernel::fallback:
      break;
  }
  s = fallback_stats(n);
  s.path = "fallback";
  return s;
}

const std::string& cublas_unavailable_reason() { return cublas_api().error; }

CublasSgemm::CublasSgemm(cudaStream_t stream, bool tf32) {
  const CublasApi& api = cublas_api();
  if (!api.error.empty()) throw std::runtime_error(api.error);
  cublasHandle_t h = nullptr;
  check_cublas(api.create(&h), "cublasCreate");
  handle_ = h;
  try {
    check_cublas(api.set_stream(h, stream), "cublasSetStream");
    check_cublas(api.set_math_mode(h, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
                 "cublasSetMathMode");
  } catch (...) {
    release();
    throw;
  }
}

CublasSgemm::CublasSgemm(CublasSgemm&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}

CublasSgemm& CublasSgemm::operator=(CublasSgemm&& o) noexcept {
  if (this != &o) {
    release();
    handle_ = std::exchange(o.handle_, nullptr);
  }
  return *this;
}

CublasSgemm::~CublasSgemm() { release(); }

void CublasSgemm::release() noexcept {
  if (handle_) {
    const cublasStatus_t s = cublas_api().destroy(handle_);
    if (s != CUBLAS_STATUS_SUCCESS)
      std::fprintf(stderr, "cuBLAS: cublasDestroy: %s\n", cublas_api().status_string(s));
  }
  handle_ = nullptr;
}

void CublasSgemm::run(const float* a, const float* b, float* c, std::size_t n) const {
  run_rows(a, b, c, n, n);
}

void CublasSgemm::run_rows(const float* a, const float* b, float* c, std::size_t rows,
                           std::size_t n) const {
  if (n == 0 || rows == 0) return;
  const int k = checked_n(n);
  const int m = checked_n(rows);
  const float alpha = 1.f;
  const float beta = 0.f;
  // cuBLAS is column-major: a row-major matrix is its transpose there, so the row-major
  // C = A * B is the column-major C^T (n x rows) = B^T (n x n) * A^T (n x rows): B first.
  check_cublas(cublas_api().sgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, k, m, k, &alpha, b, k, a, k,
                                  &beta, c, k),
               "cublasSgemm");
}

void CublasSgemm::run_bf16(const std::uint16_t* a, const std::uint16_t* b, float* c,
                           std::size_t n) const {
  if (n == 0) return;
  const int m = checked_n(n);
  const float alpha = 1.f;
  const float beta = 0.f;
  // Row-major as in run_rows(): B first. BF16 inputs, FP32 output and accumulation
  // (COMPUTE_32F); on BF16 inputs cuBLAS uses the tensor cores whatever the handle's math mode.
  check_cublas(cublas_api().gemm_ex(handle_, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &alpha, b,
                                    CUDA_R_16BF, m, a, CUDA_R_16BF, m, &beta, c, CUDA_R_32F, m,
                                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx (bf16)");
}

}  // namespace tb::gpu
