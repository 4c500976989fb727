#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/cuda_check.hpp"
#include "gpu/conv2d.hpp"
#include "gpu/async_copy.cuh"
#include "gpu/kernel_stats.cuh"

namespace tb::gpu {
namespace {

constexpr int kMaxFilter = 7;
// Outputs per thread in the shared-memory kernels, stacked vertically: a thread keeps a
// window of kRows + f - 1 pixels of one tile column in registers and reuses each for up to f
// outputs, so a 5x5 filter costs 10 shared-memory loads per output instead of 25 (at 25 loads
// the kernel would be bound by shared-memory bandwidth, not DRAM).
constexpr int kRows = 4;

__constant__ float c_filter2d[kMaxFilter * kMaxFilter];
__constant__ float c_filter1d[kMaxFilter];
// Which filter size the constant banks hold, so a launch with another size fails loudly
// instead of reading a stale filter.
std::atomic<int> g_tiled_f{0};
std::atomic<int> g_separable_f{0};

__device__ __forceinline__ int clamp_to(int v, int hi) { return min(max(v, 0), hi); }

using async_copy::copy16;
using async_copy::copy4;
using async_copy::wait_all;

// ---- naive ------------------------------------------------------------------------------

__global__ void conv2d_naive_kernel(const float* __restrict__ in, float* __restrict__ out, int w,
                                    int h, const float* __restrict__ filter, int f) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const int r = f / 2;
  float acc = 0.f;
  for (int dy = 0; dy < f; ++dy) {
    const float* src = in + static_cast<std::size_t>(clamp_to(y + dy - r, h - 1)) * w;
    for (int dx = 0; dx < f; ++dx)
      acc = fmaf(filter[dy * f + dx], src[clamp_to(x + dx - r, w - 1)], acc);
  }
  out[static_cast<std::size_t>(y) * w + x] = acc;
}

// ---- shared-memory tiles -----------------------------------------------------------------

// cuda_separable's input tile: blockDim.x + 2r columns by kRows * blockDim.y + 2r rows,
// starting r pixels above and left of the block's first output, coordinates clamped to the
// image (so the borders need no special case later). Column tx < blockDim.x of every row is
// thread tx's; the 2r columns past them are shared out by a flat index (2r is a compile-time
// constant, so the division is cheap). 4-byte cp.async copies: every copy of the block is in
// flight before the caller waits (wait_all, then a barrier), and no registers stage
// the values.
template <int R>
__device__ __forceinline__ void load_tile(const float* __restrict__ in, float* tile, int w, int h,
                                          int x0, int y0, int tile_w, int tile_h) {
  const unsigned tile_s = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  const int gx = clamp_to(x0 + static_cast<int>(threadIdx.x) - R, w - 1);
  auto row = [&](int ty) {
    return in + static_cast<std::size_t>(clamp_to(y0 + ty - R, h - 1)) * w;
  };
  for (int ty = threadIdx.y; ty < tile_h; ty += blockDim.y)
    copy4(tile_s + 4u * (ty * tile_w + threadIdx.x), row(ty) + gx);
  if constexpr (R > 0) {
    const int bx = blockDim.x;
    const int threads = bx * blockDim.y;
    for (int i = threadIdx.y * bx + threadIdx.x; i < 2 * R * tile_h; i += threads) {
      const int r = i / (2 * R);
      const int tx = bx + i % (2 * R);
      copy4(tile_s + 4u * (r * tile_w + tx), row(r) + clamp_to(x0 + tx - R, w - 1));
    }
  }
}

// Thread (tx, ty) writes pixels (x0 + tx, y0 + ty * kRows + p), p < kRows; `src` is a
// shared-memory array `pitch` floats wide whose row i holds the taps of output row i - R.
// `taps(dy, dx)` is the weight; dx runs over `cols` columns starting at src column tx.
template <int F, int Cols, class Taps>
__device__ __forceinline__ void column_window(const float* src, int pitch, float (&acc)[kRows],
                                              Taps taps) {
  const int row0 = threadIdx.y * kRows;
#pragma unroll
  for (int dx = 0; dx < Cols; ++dx) {
    float col[kRows + F - 1];
#pragma unroll
    for (int i = 0; i < kRows + F - 1; ++i) col[i] = src[(row0 + i) * pitch + threadIdx.x + dx];
#pragma unroll
    for (int p = 0; p < kRows; ++p)
#pragma unroll
      for (int dy = 0; dy < F; ++dy) acc[p] = fmaf(taps(dy, dx), col[p + dy], acc[p]);
  }
}

__device__ __forceinline__ void store_rows(float* __restrict__ out, int w, int h, int x, int y,
                                           const float (&acc)[kRows]) {
#pragma unroll
  for (int p = 0; p < kRows; ++p)
    if (y + p < h) out[static_cast<std::size_t>(y + p) * w + x] = acc[p];
}

// ---- cuda_tiled: 4 x kBlockRows register blocks over a cp.async tile ----------------------
//
// Why this shape (sm_90, 5x5, 3840x2160; facts from ptxas -v and cuobjdump -sass of this file):
// the kernel must stream one read and one write per pixel near copy bandwidth, so the work per
// pixel on the SM side has to fit in well under the ~16 us that the DRAM traffic takes.
// - Each thread owns a 4-wide x kBlockRows-tall block of outputs. It walks the kBlockRows + 2R
//   tile rows it needs once, reading 12 consecutive floats of each row as three 16-byte shared
//   loads, and feeds every output row that the tile row touches. Per output that is
//   3 (kBlockRows + 2R) / (4 kBlockRows) LDS.128 (~1.1 for 5x5) instead of 10 LDS.32, and the
//   address arithmetic is paid once per tile row, not per tap: the hot part is F^2 FFMAs (tap
//   from the constant bank as an operand) plus about three other instructions per output.
// - The tile is copied with cp.async (global -> shared without registers): every thread issues
//   all of its copies before it waits, so a block has its whole tile in flight at once however
//   large it is, and no registers hold staged values. Where a 16-byte group of the tile row lies
//   inside the image (and rows are 16-byte aligned: w % 4 == 0 and aligned pointers) one 16-byte
//   copy moves it; elsewhere (the left and right image borders, odd widths) four 4-byte copies
//   with clamped columns do. Rows are clamped once per tile row, so the top and bottom borders
//   cost nothing extra.
// - Tile column c holds image column x0 - kPad + c: kPad = 4 >= R keeps the 16-byte groups
//   aligned both in the image and in shared memory, and the pitch 4 bx + 8 floats is a multiple
//   of 4, so the three LDS.128 of a thread are aligned and 8 consecutive lanes (a quarter-warp,
//   the unit a 16-byte shared load is served in) read 128 contiguous bytes: each load costs a
//   warp 4 shared-memory wavefronts, the minimum for 16 bytes a lane, when block.x is a multiple
//   of 8 (ptxas narrows some of them to LDS.64 / LDS.32 where the filter needs fewer floats; at
//   a 16-byte lane stride those cost the same 4 wavefronts).
//
// Why 4 x 4 and not 4 x 8 (H200, 3840x2160, 200 back-to-back launches of each build, the
// same run; experiments/h200-2026-11-30/conv2d_block_rows.txt): at kBlockRows = 8
// ptxas gives 62 registers (F = 3: 53, F = 7: 64), 1024 threads an SM, and per thread 800 FFMA
// + 36 shared loads + ~36 other instructions for 32 outputs (~34 issued an output, against ~90
// with one output column per thread and scalar loads); 5x5 ran 26.4-28.0 us over the shapes.
// At 4 it is 32 registers for F = 3, 5 and 7 (no spills), so 2048 threads an SM, twice the
// warps to cover the copy latency, for ~1.5 instead of ~1.1 shared loads an output: 5x5 ran
// 24.1-25.1 us (7x7 28.0 vs 30.9, 3x3 23.1 vs 23.5 at the best shapes). At 2: 24.7-25.7 us.
// Nsight on the 4 x 8 kernel (block 32x4): DRAM 40%, L2 72%, 0.48 issued warps per scheduler,
// achieved occupancy 43% of 50%: neither memory nor issue saturated, i.e. latency-bound, which
// more resident warps help.
//
// Block shapes: small blocks (8x8, 16x8, 32x4) overlap one block's copy with another's
// arithmetic best; 32x32 (one large tile per block) is the slowest. Wider tiles re-read less
// halo, which costs L2, not DRAM, bandwidth.
//
// Why one tile a block and cp.async, not a pipeline (H200, experiments/h200-2026-11-30/
// conv2d_pipelines.md): persistent blocks with 2-6 shared-memory stages fed by 2D TMA
// tensor copies or cp.async ran 25.7-61 us at 5x5, per-warp strips fed by 2D TMA 23.9 us at
// best, register-staged tiles 27-44 us. Without any arithmetic, staging this image's tiles and halos through
// shared memory takes 22.8-25.1 us with cp.async or TMA and 21.9-22.4 us through registers, so
// no shared-memory variant here can reach the 22.2 us of 70% of the copy bandwidth; cuda_direct
// (reading through L1) is the faster design on this GPU.
constexpr int kBlockRows = 4;  // output rows per thread (the register block is 4 x kBlockRows)
constexpr int kVec = 4;        // consecutive output columns per thread (one float4)
constexpr int kPad = 4;        // tile columns left and right of the block's outputs (>= R)

// One 16-byte group of a tile row: image columns gx .. gx + 3 of image row y. One 16-byte copy
// when all four lie in the image and rows are 16-byte aligned (`whole`), else four clamped
// 4-byte copies. Offsets are unsigned (y, w and, for a whole group, gx are >= 0): the 64-bit
// address is then one IMAD.WIDE.U32 and a LEA pair, not a chain of sign extensions.
__device__ __forceinline__ void copy_group(unsigned dst, const float* __restrict__ in, int y,
                                           int gx, int w, bool whole) {
  const std::size_t row =
      static_cast<std::size_t>(static_cast<unsigned>(y)) * static_cast<unsigned>(w);
  if (whole) {
    copy16(dst, in + (row + static_cast<unsigned>(gx)));
  } else {
#pragma unroll
    for (int u = 0; u < kVec; ++u)
      copy4(dst + 4 * u, in + (row + static_cast<unsigned>(clamp_to(gx + u, w - 1))));
  }
}

// Rows y0 - R .. y0 + tile_rows - R - 1 (clamped) and columns x0 - kPad .. x0 - kPad + pitch - 1
// of the image into `tile` (a row is bx + 2 groups of 4 floats). Thread (tx, ty) copies group
// tx of rows ty, ty + by, ...: its column, and so the choice of a whole 16-byte copy, is fixed
// (one branch outside the row loop), and all 32 lanes of a warp copy 512 contiguous bytes per
// row. The two groups past them in each row go to the threads by flat index, two per row.
// The caller waits and syncs.
template <int R>
__device__ __forceinline__ void copy_tile_async(const float* __restrict__ in, float* tile, int w,
                                                int h, int x0, int y0, int pitch, int tile_rows,
                                                bool vec) {
  const unsigned tile_s = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  const int bx = blockDim.x;
  const int by = blockDim.y;
  auto whole = [&](int gx) { return vec && gx >= 0 && gx + kVec <= w; };
  {
    const int g = threadIdx.x;
    const int gx = x0 - kPad + kVec * g;
    const unsigned dst = tile_s + 4u * (threadIdx.y * pitch + kVec * g);
    const unsigned step = 4u * by * pitch;
    int r = threadIdx.y;
    if (whole(gx)) {
      for (unsigned d = dst; r < tile_rows; r += by, d += step)
        copy_group(d, in, clamp_to(y0 - R + r, h - 1), gx, w, true);
    } else {
      for (unsigned d = dst; r < tile_rows; r += by, d += step)
        copy_group(d, in, clamp_to(y0 - R + r, h - 1), gx, w, false);
    }
  }
  const int threads = bx * by;
  for (int i = threadIdx.y * bx + threadIdx.x; i < 2 * tile_rows; i += threads) {
    const int r = i >> 1;
    const int g = bx + (i & 1);
    const int gx = x0 - kPad + kVec * g;
    copy_group(tile_s + 4u * (r * pitch + kVec * g), in, clamp_to(y0 - R + r, h - 1), gx, w,
               whole(gx));
  }
}

// Feeds row i of a thread's window (12 floats: columns x - kPad .. x - kPad + 11 of image row
// y - R + i) into every output row p < Rows that it meets, at tap row i - p: output column x + j
// with tap dx reads float kPad - R + j + dx. Output row p accumulates in acc[p % Slots] (the
// strips of cuda_direct rotate F slots over their rows and start a row's slot with its first
// product; cuda_tiled has a zeroed slot per row).
template <int F, int Rows, int Slots>
__device__ __forceinline__ void accumulate_row(float (&acc)[Slots][kVec], const float (&win)[12],
                                               int i) {
  constexpr int R = F / 2;
#pragma unroll
  for (int dy = 0; dy < F; ++dy) {
    const int p = i - dy;
    if (p < 0 || p >= Rows) continue;
#pragma unroll
    for (int dx = 0; dx < F; ++dx) {
      const float tap = c_filter2d[dy * F + dx];
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        float& a = acc[p % Slots][j];
        const float v = win[kPad - R + j + dx];
        a = (Slots != Rows && dy == 0 && dx == 0) ? tap * v : fmaf(tap, v, a);
      }
    }
  }
}

// Writes a thread's register block: 16-byte stores in the interior (a warp writes 512
// contiguous bytes a row), predicated scalar ones at the right and bottom edges.
__device__ __forceinline__ void store_block(float* __restrict__ out, int w, int h, int x, int y,
                                            const float (&acc)[kBlockRows][kVec], bool vec) {
  float* o = out + static_cast<std::size_t>(y) * w + x;
  if (vec && x + kVec <= w && y + kBlockRows <= h) {
#pragma unroll
    for (int p = 0; p < kBlockRows; ++p)
      *reinterpret_cast<float4*>(o + static_cast<std::size_t>(p) * w) =
          make_float4(acc[p][0], acc[p][1], acc[p][2], acc[p][3]);
  } else {
#pragma unroll
    for (int p = 0; p < kBlockRows; ++p)
#pragma unroll
      for (int j = 0; j < kVec; ++j)
        if (y + p < h && x + j < w) o[static_cast<std::size_t>(p) * w + j] = acc[p][j];
  }
}

// Filter taps come from __constant__ memory with compile-time indices: every lane reads the same
// tap, so each FFMA takes it straight from the constant bank as an operand (no load at all).
// __launch_bounds__(1024) lets every block shape up to 1024 threads launch (it caps registers
// at 64; the register block needs 32 accumulators + a 12-float row window).
template <int F>
__global__ void __launch_bounds__(1024)
    conv2d_tiled_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h,
                        bool vec) {
  constexpr int R = F / 2;
  static_assert(R <= kPad, "the tile pad must cover the filter radius");
  extern __shared__ float4 smem4[];  // float4: 16-byte alignment for cp.async and LDS.128
  float* tile = reinterpret_cast<float*>(smem4);
  const int pitch = kVec * static_cast<int>(blockDim.x) + 2 * kPad;
  const int tile_rows = kBlockRows * static_cast<int>(blockDim.y) + 2 * R;
  const int x0 = blockIdx.x * blockDim.x * kVec;
  const int y0 = blockIdx.y * blockDim.y * kBlockRows;
  copy_tile_async<R>(in, tile, w, h, x0, y0, pitch, tile_rows, vec);
  wait_all();
  __syncthreads();

  const int x = x0 + kVec * threadIdx.x;
  const int y = y0 + kBlockRows * threadIdx.y;
  if (x >= w || y >= h) return;  // no barrier follows
  float acc[kBlockRows][kVec] = {};
  // Tile row i of this thread is image row y - R + i; its float k (of 12) is column x - kPad + k.
  const float* base = tile + kBlockRows * threadIdx.y * pitch + kVec * threadIdx.x;
#pragma unroll
  for (int i = 0; i < kBlockRows + 2 * R; ++i) {
    const float4* row = reinterpret_cast<const float4*>(base + i * pitch);
    const float4 a = row[0], b = row[1], c = row[2];
    const float win[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w};
    accumulate_row<F, kBlockRows, kBlockRows>(acc, win, i);
  }
  store_block(out, w, h, x, y, acc, vec);
}

// ---- cuda_direct: a register window sliding down 16-row strips, no shared memory -----------
//
// Each warp owns a strip of 128 columns x kStripRows rows (lane: 4 columns) and walks it top to
// bottom once: image row y0 - R + i arrives as a 12-float window per lane (three 16-byte loads
// through L1; the 8 floats a lane shares with its neighbours are L1 hits), feeds the F output
// rows that it touches, and the output row that it completes is stored. An input row is loaded
// once per strip instead of once per output row, the accumulators are F rotating rows of 4, and
// there is no tile and no barrier: each warp only waits for its own loads, which are issued
// strip_prefetch<F>() rows ahead of use.
//
// Why (H200, 3840x2160, experiments/h200-2026-11-30/conv2d_strips.md): 5x5 in
// 21.1-21.4 us back to back (the suite, gated: 22.2-22.5 us, ~70% of the copy bandwidth) against
// 23.9-24.4 us for cuda_tiled and 23.3-23.6 us for the former cuda_direct (cuda_tiled's 4x4
// blocks read through L1). For scale: a plain copy of the image takes 18.2-18.6 us, the same
// strip walk without arithmetic 18.8-19.1 us. Nsight: DRAM 64%, L2 70%, 0.55 issued warps per
// scheduler, warps waiting on their loads (L1TEX scoreboard, 63% of stalls). Tried and slower
// or no better: the strip through a per-warp shared-memory ring filled by cp.async (best 24.6
// us) or by TMA bulk row copies (28.4), rows staged into shared memory from registers (24.1),
// neighbours' columns by shuffles (21.7-21.9), prefetch.global.L2/L1 or bulk L2 prefetch of
// later rows (no gain), odd strips walking up so that neighbouring strips read their shared
// halo rows together (no gain), two columns a lane (23.1+), 8 to 24 rows a strip (no better;
// 32: the unrolled walk outgrows the instruction cache). Most of those lost to register growth:
// at 56 registers or fewer the walk keeps 36 warps an SM.
constexpr int kStripRows = 16;
constexpr int kStripCols = 32 * kVec;  // a warp's columns

// Rows loaded ahead of use: two for F <= 5 (56 registers); at F = 7 a second row of prefetch
// takes 72 registers and ran 39 us against 30 us with one.
template <int F>
constexpr int strip_prefetch() {
  return F <= 5 ? 2 : 1;
}

// Columns x - kPad .. x + kPad + 3 of `row`: three 16-byte loads where they lie inside the image
// and rows are 16-byte aligned (`whole`), else twelve clamped scalar loads.
__device__ __forceinline__ void load_window(const float* __restrict__ row, int x, int w,
                                            bool whole, float (&win)[12]) {
  if (whole) {
    const float4* r4 = reinterpret_cast<const float4*>(row + (x - kPad));
    const float4 a = __ldg(r4), b = __ldg(r4 + 1), c = __ldg(r4 + 2);
    const float v[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w};
#pragma unroll
    for (int k = 0; k < 12; ++k) win[k] = v[k];
  } else {
#pragma unroll
    for (int k = 0; k < 12; ++k) win[k] = __ldg(row + clamp_to(x - kPad + k, w - 1));
  }
}

// Output row y of a strip: a 16-byte store inside the image, predicated scalar ones at the right
// edge; rows past the bottom edge are skipped.
__device__ __forceinline__ void store_row(float* __restrict__ out, int w, int h, int x, int y,
                                          const float (&acc)[kVec], bool vec) {
  if (y >= h) return;
  float* o = out + static_cast<std::size_t>(y) * w + x;
  if (vec && x + kVec <= w) {
    *reinterpret_cast<float4*>(o) = make_float4(acc[0], acc[1], acc[2], acc[3]);
  } else {
#pragma unroll
    for (int j = 0; j < kVec; ++j)
      if (x + j < w) o[j] = acc[j];
  }
}

// Register cap: 56 for F <= 5 (36 resident warps an SM; told only "1024 threads a block", ptxas
// takes 64 and 32 warps fit), 64 for F = 7 (56 would spill). Either lets a 1024-thread block run.
template <int F>
constexpr int strip_registers() {
  return F <= 5 ? 56 : 64;
}

// Block (32, warps): warp threadIdx.y of block (bx, by) walks strip (bx, by * warps + threadIdx.y).
template <int F>
__global__ void __maxnreg__(strip_registers<F>())
    conv2d_direct_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h,
                         bool vec) {
  constexpr int R = F / 2;
  constexpr int kRowsIn = kStripRows + 2 * R;
  constexpr int D = strip_prefetch<F>();
  static_assert(R <= kPad, "the row window must cover the filter radius");
  const int x = blockIdx.x * kStripCols + kVec * threadIdx.x;
  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * kStripRows;
  if (x >= w || y0 >= h) return;  // no barrier or warp collective follows
  const bool whole = vec && x >= kPad && x + kVec + kPad <= w;
  auto load = [&](int i, float (&win)[12]) {
    load_window(in + static_cast<std::size_t>(clamp_to(y0 - R + i, h - 1)) * w, x, w, whole, win);
  };
  float rows[D + 1][12];  // D rows in flight plus the one in use; indices fold at compile time
#pragma unroll
  for (int i = 0; i < D; ++i) load(i, rows[i]);
  float acc[F][kVec];
#pragma unroll
  for (int i = 0; i < kRowsIn; ++i) {
    if (i + D < kRowsIn) load(i + D, rows[(i + D) % (D + 1)]);
    accumulate_row<F, kStripRows, F>(acc, rows[i % (D + 1)], i);
    const int done = i - 2 * R;  // the output row that input row i completes
    if (done >= 0) store_row(out, w, h, x, y0 + done, acc[done % F], vec);
  }
}

// Separable: the same tile, then a row pass over every tile row (including the halo rows)
// into a second shared array, then a column pass from it. Two passes, one kernel: the
// intermediate image never goes to DRAM, so traffic stays at one read and one write per pixel.
// Clamping commutes with the separation: clamp-to-edge is applied per axis.
template <int F>
__global__ void conv2d_separable_kernel(const float* __restrict__ in, float* __restrict__ out,
                                        int w, int h) {
  constexpr int R = F / 2;
  extern __shared__ float smem[];
  const int bx = blockDim.x;
  const int tile_w = bx + 2 * R;
  const int tile_h = blockDim.y * kRows + 2 * R;
  float* tile = smem;
  float* rows = smem + tile_w * tile_h;  // tile_h x bx, row-filtered
  const int x0 = blockIdx.x * bx;
  const int y0 = blockIdx.y * blockDim.y * kRows;
  load_tile<R>(in, tile, w, h, x0, y0, tile_w, tile_h);
  wait_all();
  __syncthreads();
  for (int ty = threadIdx.y; ty < tile_h; ty += blockDim.y) {
    const float* src = tile + ty * tile_w + threadIdx.x;
    float acc = 0.f;
#pragma unroll
    for (int dx = 0; dx < F; ++dx) acc = fmaf(c_filter1d[dx], src[dx], acc);
    rows[ty * bx + threadIdx.x] = acc;
  }
  __syncthreads();
  const int x = x0 + threadIdx.x;
  if (x >= w) return;  // no barrier follows
  float acc[kRows] = {};
  column_window<F, 1>(rows, bx, acc, [](int dy, int) { return c_filter1d[dy]; });
  store_rows(out, w, h, x, y0 + threadIdx.y * kRows, acc);
}

// ---- launch helpers ----------------------------------------------------------------------

void check_args(int w, int h, int f, Block2 block) {
  if (w <= 0 || h <= 0) throw std::invalid_argument("conv2d: empty image");
  if (!conv2d_filter_supported(f))
    throw std::invalid_argument("conv2d: filter size must be 3, 5 or 7");
  if (block.x <= 0 || block.y <= 0) throw std::invalid_argument("conv2d: empty block");
}

// A block covers (cols_per_thread * block.x) x (rows_per_thread * block.y) output pixels.
dim3 make_grid(int w, int h, Block2 block, int rows_per_thread, int cols_per_thread = 1) {
  const long long per_block_x = static_cast<long long>(block.x) * cols_per_thread;
  const long long gx = (static_cast<long long>(w) + per_block_x - 1) / per_block_x;
  const long long per_block = static_cast<long long>(block.y) * rows_per_thread;
  const long long gy = (static_cast<long long>(h) + per_block - 1) / per_block;
  if (gy > 65535 || gx > INT_MAX)
    throw std::invalid_argument("conv2d: grid too large for a " + std::to_string(w) + "x" +
                                std::to_string(h) + " image with this block");
  return dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
}

std::size_t tile_floats(int f, Block2 block) {
  return static_cast<std::size_t>(block.x + f - 1) * (block.y * kRows + f - 1);
}
std::size_t separable_smem(int f, Block2 block) {
  return (tile_floats(f, block) + static_cast<std::size_t>(block.y * kRows + f - 1) * block.x) *
         sizeof(float);
}

// cuda_tiled: pitch (4 bx + 2 kPad) floats by (kBlockRows by + f - 1) rows.
std::size_t tiled_smem(int f, Block2 block) {
  return static_cast<std::size_t>(kVec * block.x + 2 * kPad) * (kBlockRows * block.y + f - 1) *
         sizeof(float);
}

dim3 tiled_grid(int w, int h, Block2 block) { return make_grid(w, h, block, kBlockRows, kVec); }

// Tall or wide blocks can ask for more shared memory than a block may have: refuse them with
// the reason instead of a launch error. (At 4 rows a thread a 1x1024 block needs 197 KB with
// F = 7: within the H200's 227 KB, beyond the ~100 KB of GPUs with less shared memory.)
void check_smem(std::size_t bytes, Block2 block, const char* what) {
  static const int limit = [] {
    int device = 0, optin = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    return optin;
  }();
  if (bytes > static_cast<std::size_t>(limit))
    throw std::invalid_argument(std::string(what) + ": block " + std::to_string(block.x) + "x" +
                                std::to_string(block.y) + " needs " + std::to_string(bytes) +
                                " B of shared memory, more than the device's " +
                                std::to_string(limit) + " B per block");
}

// The vector paths need rows that start 16 bytes apart from 16-byte aligned buffers.
bool vector_ok(const float* in, const float* out, int w) {
  return w % kVec == 0 && reinterpret_cast<std::uintptr_t>(in) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
}

// Above 48 KiB of dynamic shared memory a kernel must opt in (tall or wide blocks need it). The
// attribute is raised once per kernel and size, not on every launch (launchers run inside timed
// regions). Keyed by the kernel's address: the F = 3, 5, 7 instances share one type.
template <class Kernel>
void allow_smem(Kernel kernel, std::size_t bytes) {
  if (bytes <= 48 * 1024) return;
  static std::mutex mutex;
  static std::map<const void*, std::size_t> allowed;
  const void* fn = reinterpret_cast<const void*>(kernel);
  std::lock_guard lock(mutex);
  std::size_t& have = allowed[fn];
  if (bytes <= have) return;
  CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)));
  have = bytes;
}

template <class Fn>
auto by_filter(int f, Fn&& fn) {
  switch (f) {
    case 3:
      return fn(std::integral_constant<int, 3>{});
    case 5:
      return fn(std::integral_constant<int, 5>{});
    default:
      return fn(std::integral_constant<int, 7>{});
  }
}

void set_constant(const void* symbol, std::atomic<int>& loaded, const float* host,
                  std::size_t count, int f, cudaStream_t stream) {
  if (!conv2d_filter_supported(f))
    throw std::invalid_argument("conv2d: filter size must be 3, 5 or 7");
  // From pageable memory the copy is staged before the call returns, so `host` may go away.
  CUDA_CHECK(cudaMemcpyToSymbolAsync(symbol, host, count * sizeof(float), 0, cudaMemcpyHostToDevice,
                                     stream));
  loaded = f;
}

void require_loaded(const std::atomic<int>& loaded, int f, const char* what) {
  if (loaded != f)
    throw std::logic_error(std::string(what) + ": the constant filter holds size " +
                           std::to_string(loaded.load()) + ", not " + std::to_string(f));
}

// What every launcher checks before it enqueues: the arguments, that the constant bank holds a
// filter of this size, and that the columns a block reads (up to w + `past_edge`, the tile or
// window reaching past the right edge) still fit an int.
void check_launch(int w, int h, int f, Block2 block, const std::atomic<int>& loaded,
                  const char* what, long long past_edge) {
  check_args(w, h, f, block);
  require_loaded(loaded, f, what);
  if (w > INT_MAX - past_edge) throw std::invalid_argument(std::string(what) + ": image too wide");
}

}  // namespace

bool conv2d_filter_supported(int f) { return f == 3 || f == 5 || f == 7; }

void conv2d_cuda_naive(const float* in, float* out, int w, int h, const float* filter, int f,
                       Block2 block, cudaStream_t stream) {
  check_args(w, h, f, block);
  conv2d_naive_kernel<<<make_grid(w, h, block, 1), dim3(block.x, block.y), 0, stream>>>(
      in, out, w, h, filter, f);
  CUDA_CHECK_LAUNCH();
}

KernelStats conv2d_cuda_naive_stats(int w, int h, int, Block2 block) {
  const dim3 g = make_grid(w, h, block, 1);
  return kernel_stats(conv2d_naive_kernel, block.threads(), static_cast<long long>(g.x) * g.y);
}

void conv2d_upload_filter(float* filter, const float* host_filter, int f, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(filter, host_filter, sizeof(float) * static_cast<std::size_t>(f) * f,
                             cudaMemcpyHostToDevice, stream));
}

void conv2d_set_tiled_filter(const float* host_filter, int f, cudaStream_t stream) {
  set_constant(c_filter2d, g_tiled_f, host_filter, static_cast<std::size_t>(f) * f, f, stream);
}

void conv2d_cuda_tiled(const float* in, float* out, int w, int h, int f, Block2 block,
                       cudaStream_t stream) {
  check_launch(w, h, f, block, g_tiled_f, "conv2d_cuda_tiled",
               static_cast<long long>(kVec) * block.x + 2 * kPad);
  const dim3 grid = tiled_grid(w, h, block);
  const std::size_t smem = tiled_smem(f, block);
  check_smem(smem, block, "conv2d_cuda_tiled");
  const bool vec = vector_ok(in, out, w);
  by_filter(f, [&](auto fc) {
    constexpr int F = decltype(fc)::value;
    allow_smem(conv2d_tiled_kernel<F>, smem);
    conv2d_tiled_kernel<F><<<grid, dim3(block.x, block.y), smem, stream>>>(in, out, w, h, vec);
    return 0;
  });
  CUDA_CHECK_LAUNCH();
}

KernelStats conv2d_cuda_tiled_stats(int w, int h, int f, Block2 block) {
  const dim3 g = tiled_grid(w, h, block);
  const std::size_t smem = tiled_smem(f, block);
  check_smem(smem, block, "conv2d_cuda_tiled");
  return by_filter(f, [&](auto fc) {
    constexpr int F = decltype(fc)::value;
    allow_smem(conv2d_tiled_kernel<F>, smem);
    return kernel_stats(conv2d_tiled_kernel<F>, block.threads(), static_cast<long long>(g.x) * g.y,
                        smem);
  });
}

// cuda_direct: block.threads() / 32 warps stacked vertically, each a 128 x kStripRows strip.
dim3 direct_block(Block2 block) {
  if (block.threads() % 32 != 0)
    throw std::invalid_argument("conv2d_cuda_direct: block " + std::to_string(block.x) + "x" +
                                std::to_string(block.y) +
                                " is not a whole number of warps (the kernel works per warp)");
  return dim3(32, static_cast<unsigned>(block.threads() / 32));
}

dim3 direct_grid(int w, int h, Block2 block) {
  return make_grid(w, h, Block2{1, static_cast<int>(direct_block(block).y)}, kStripRows,
                   kStripCols);
}

void conv2d_cuda_direct(const float* in, float* out, int w, int h, int f, Block2 block,
                        cudaStream_t stream) {
  check_launch(w, h, f, block, g_tiled_f, "conv2d_cuda_direct", kStripCols + 2 * kPad);
  const dim3 threads = direct_block(block);
  const dim3 grid = direct_grid(w, h, block);
  const bool vec = vector_ok(in, out, w);
  by_filter(f, [&](auto fc) {
    constexpr int F = decltype(fc)::value;
    conv2d_direct_kernel<F><<<grid, threads, 0, stream>>>(in, out, w, h, vec);
    return 0;
  });
  CUDA_CHECK_LAUNCH();
}

KernelStats conv2d_cuda_direct_stats(int w, int h, int f, Block2 block) {
  const dim3 g = direct_grid(w, h, block);
  return by_filter(f, [&](auto fc) {
    constexpr int F = decltype(fc)::value;
    return kernel_stats(conv2d_direct_kernel<F>, block.threads(),
                        static_cast<long long>(g.x) * g.y);
  });
}

void conv2d_set_separable_filter(const float* host_g, int f, cudaStream_t stream) {
  set_constant(c_filter1d, g_separable_f, host_g, static_cast<std::size_t>(f), f, stream);
}

void conv2d_cuda_separable(const float* in, float* out, int w, int h, int f, Block2 block,
                           cudaStream_t stream) {
  check_launch(w, h, f, block, g_separable_f, "conv2d_cuda_separable", 0);
  const dim3 grid = make_grid(w, h, block, kRows);
  const std::size_t smem = separable_smem(f, block);
  by_filter(f, [&](auto fc) {
    constexpr int F = decltype(fc)::value;
    allow_smem(conv2d_separable_kernel<F>, smem);
    conv2d_separable_kernel<F><<<grid, dim3(block.x, block.y), smem, stream>>>(in, out, w, h);
    return 0;
  });
  CUDA_CHECK_LAUNCH();
}

KernelStats conv2d_cuda_separable_stats(int w, int h, int f, Block2 block) {
  const dim3 g = make_grid(w, h, block, kRows);
  const std::size_t smem = separable_smem(f, block);
  return by_filter(f, [&](auto fc) {
    constexpr int F = decltype(fc)::value;
    allow_smem(conv2d_separable_kernel<F>, smem);
    return kernel_stats(conv2d_separable_kernel<F>, block.threads(),
                        static_cast<long long>(g.x) * g.y, smem);
  });
}

}  // namespace tb::gpu
