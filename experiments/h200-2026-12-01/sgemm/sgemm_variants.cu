// sgemm variants (issue 18): the suite's sgemm_optimized_kernel (baseline_kernel) beside
// cp.async multi-stage warp-tiled kernels (pipe_kernel; pipe2_kernel, CUTLASS-style mainloop)
// and cluster split-K, all plain FP32 FFMA, each checked against a float64 reference and timed
// cold-L2 against cuBLAS SGEMM. See README.md beside this file for results and conclusions.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo sgemm_variants.cu -lcublas -o sgemm_variants
// Run:   ./sgemm_variants [--samples 30] [--sizes 1024,2048,4096] [--only a,b] [--group 8]
//        ./sgemm_variants --profile VARIANT N   (one launch of VARIANT at N, then its check)
// Exit status 1 when any variant (or cuBLAS) fails validation.
#include <cooperative_groups.h>
#include <cublas_v2.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifdef WITH_SUITE
#include "gpu/sgemm.hpp"  // the suite's kernel, linked from build/libtwinbench_gpu.a
#endif

namespace cg = cooperative_groups;

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), \
                   __FILE__, __LINE__, #x);                                           \
      std::exit(2);                                                                    \
    }                                                                                  \
  } while (0)
#define CB(x)                                                                                 \
  do {                                                                                        \
    cublasStatus_t s_ = (x);                                                                  \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                        \
      std::fprintf(stderr, "cuBLAS error %s at %s:%d: %s\n", cublasGetStatusString(s_), \
                   __FILE__, __LINE__, #x);                                                  \
      std::exit(2);                                                                           \
    }                                                                                         \
  } while (0)

// =============================================================================================
// Baseline: gpu/sgemm.cu's sgemm_optimized_kernel, copied unchanged (renamed).
// =============================================================================================
namespace opt {
constexpr int kBm = 128, kBn = 128, kBk = 8, kTm = 8, kTn = 8;
constexpr int kThreads = (kBm / kTm) * (kBn / kTn);
constexpr int kPadA = 4;
static_assert(kBm * kBk / 4 == kThreads && kBk * kBn / 4 == kThreads);
}  // namespace opt

template <bool kVec>
__device__ __forceinline__ float4 load_row4(const float* __restrict__ m, int n, int row, int col) {
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  if (row >= n) return v;
  const float* p = m + static_cast<std::size_t>(row) * n;
  if constexpr (kVec) {
    if (col < n) v = __ldg(reinterpret_cast<const float4*>(p + col));
  } else {
    if (col < n) v.x = __ldg(p + col);
    if (col + 1 < n) v.y = __ldg(p + col + 1);
    if (col + 2 < n) v.z = __ldg(p + col + 2);
    if (col + 3 < n) v.w = __ldg(p + col + 3);
  }
  return v;
}

template <bool kVec>
__device__ __forceinline__ void store_row4(float* __restrict__ m, int n, int row, int col,
                                           float4 v) {
  if (row >= n) return;
  float* p = m + static_cast<std::size_t>(row) * n;
  if constexpr (kVec) {
    if (col < n) *reinterpret_cast<float4*>(p + col) = v;
  } else {
    if (col < n) p[col] = v.x;
    if (col + 1 < n) p[col + 1] = v.y;
    if (col + 2 < n) p[col + 2] = v.z;
    if (col + 3 < n) p[col + 3] = v.w;
  }
}

template <bool kVec>
__global__ void __launch_bounds__(opt::kThreads, 2)
    baseline_kernel(const float* __restrict__ a, const float* __restrict__ b,
                    float* __restrict__ c, int n) {
  using namespace opt;
  __shared__ __align__(16) float as[2][kBk][kBm + kPadA];
  __shared__ __align__(16) float bs[2][kBk][kBn];

  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % (kBn / kTn);
  const int ty = tid / (kBn / kTn);
  const int block_row = static_cast<int>(blockIdx.y) * kBm;
  const int block_col = static_cast<int>(blockIdx.x) * kBn;

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
  store_stage(0, load_row4<kVec>(a, n, block_row + a_row, a_k),
              load_row4<kVec>(b, n, b_k, block_col + b_col));
  __syncthreads();

  for (int t = 0; t < stages; ++t) {
    const int cur = t & 1;
    const bool has_next = t + 1 < stages;
    float4 next_a = make_float4(0.f, 0.f, 0.f, 0.f);
    float4 next_b = next_a;
    if (has_next) {
      const int k0 = (t + 1) * kBk;
      next_a = load_row4<kVec>(a, n, block_row + a_row, k0 + a_k);
      next_b = load_row4<kVec>(b, n, k0 + b_k, block_col + b_col);
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
    if (has_next) store_stage(cur ^ 1, next_a, next_b);
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < kTm; ++i) {
    const int row = block_row + ty * kTm + i;
    store_row4<kVec>(c, n, row, block_col + tx * 4,
                     make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
    store_row4<kVec>(c, n, row, block_col + kBn / 2 + tx * 4,
                     make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
  }
}

// =============================================================================================
// pipe_kernel: cp.async multi-stage, warp-tiled, optional cluster split-K.
// =============================================================================================
// Block tile BM x BN, STAGES shared-memory stages of depth BK in flight (cp.async, one barrier a
// stage, no register staging). Warps tile the block as (BM/WM) x (BN/WN); the 32 lanes of a warp
// as TR x TC (TR = WM/TM, TC = WN/TN); a thread owns TM x TN outputs as (TM/4) x (TN/4) blocks
// of 4x4, the blocks of one thread TR*4 rows / TC*4 columns apart. Then every 16-byte shared
// load of a warp touches TR (A) or TC (B) consecutive 16-byte chunks, broadcast to the other
// lanes: conflict-free for TR, TC <= 8.
//
// A (row-major, K contiguous) has two layouts in shared memory:
//   AROW = false ("t"): transposed, as[k][m] (row length BM + 4), filled by 4-byte cp.async
//     (one element each; a warp covers 32 / BK rows x BK k, so its global reads stay whole
//     sectors). The compute loop then reads A like B: per k, TM/4 float4 of a column of A.
//   AROW = true ("r"): as it is in memory, as[m][k] (row length BK + 4), filled by 16-byte
//     cp.async; the compute loop reads 4 k of one row per float4 (TM float4 per 4 k, the same
//     count of shared loads as "t") and keeps 4*TM floats of A in registers. A thread's rows are
//     TR apart inside each 4-row group (row_of), so the TR rows a warp reads at once are
//     consecutive: with a row length of BK + 4 words (12 or 20) they fall in distinct banks.
// B is as in memory, bs[k][n], 16-byte cp.async.
// Out-of-range elements arrive as zeros (cp.async src-size 0), so any n with n % 4 == 0 works
// (A rows and B chunks of 4 are then wholly inside or outside); n % 4 != 0 falls back to the
// baseline's scalar path on the host.
// SPLITK > 1: a cluster of SPLITK blocks (grid z) shares one C tile, block z summing the z-th
// share of the k-tiles. Each block then leaves its partial sums in its own shared memory, and
// after a cluster barrier each block adds the others' partials for its 1/SPLITK of the rows
// (read through distributed shared memory) and stores them: one kernel, no atomics, no
// workspace, deterministic.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_, bool AROW_,
          int SPLITK_, int MINB_, int ORDER_ = 0>
struct Cfg {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_;
  static constexpr int STAGES = STAGES_, SPLITK = SPLITK_, MINB = MINB_;
  // pipe2_kernel's FFMA order within a k step: 0 rows outer, 1 columns outer, 2 rows outer
  // with the column direction reversed on odd rows (the last b of a row is the first of the next).
  static constexpr int ORDER = ORDER_;
  static constexpr bool AROW = AROW_;
  static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN;
  static constexpr int NT = 32 * WARPS_M * WARPS_N;
  static constexpr int TR = WM / TM, TC = WN / TN;
  static constexpr int PAD = 4;  // 16 bytes: rows stay 16-byte aligned
  static constexpr int A_LD = AROW ? BK + PAD : BM + PAD;
  static constexpr int A_STAGE = AROW ? BM * (BK + PAD) : BK * (BM + PAD);
  static constexpr int B_STAGE = BK * BN;
  static constexpr int PIPE_FLOATS = STAGES * (A_STAGE + B_STAGE);
  static constexpr int RED_FLOATS = SPLITK > 1 ? BM * BN : 0;
  static constexpr int SMEM_BYTES =
      4 * (PIPE_FLOATS > RED_FLOATS ? PIPE_FLOATS : RED_FLOATS);
  // Copies a thread issues per stage: A as 16-byte chunks ("r") or 4-byte elements ("t").
  static constexpr int A_UNITS = AROW ? BM * BK / 4 : BM * BK;
  static constexpr int LA = A_UNITS / NT;
  static constexpr int LB = BK * BN / 4 / NT;

  static_assert(BM % WM == 0 && BN % WN == 0, "warps tile the block");
  static_assert(WM % TM == 0 && WN % TN == 0 && TR * TC == 32, "lanes tile the warp");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "4x4 sub-blocks");
  static_assert(TR <= 8 && TC <= 8, "conflict-free 16-byte shared loads");
  static_assert(BK % 4 == 0 && BM % 32 == 0 && BN % 32 == 0, "tile shapes");
  static_assert(A_UNITS % NT == 0 && LA >= 1, "A copies divide among threads");
  static_assert((BK * BN / 4) % NT == 0 && LB >= 1, "B copies divide among threads");
  static_assert(AROW ? NT % (BK / 4) == 0 : NT % BK == 0, "A copy column fixed per thread");
  static_assert(NT % (BN / 4) == 0, "B copy column fixed per thread");
  static_assert(SPLITK >= 1 && SPLITK <= 8 && TM % SPLITK == 0, "split-K shares rows");
  static_assert(SMEM_BYTES <= 227 * 1024, "shared memory per block");
};

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// src-size 0 reads nothing and writes zeros; src is then any valid address.
__device__ __forceinline__ void cp_async4(unsigned dst, const float* src, bool ok) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src),
               "r"(ok ? 4 : 0)
               : "memory");
}
__device__ __forceinline__ void cp_async16(unsigned dst, const float* src, bool ok) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(ok ? 16 : 0)
               : "memory");
}
__device__ __forceinline__ void cp_async4(unsigned dst, const float* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async16(unsigned dst, const float* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Row (inside the warp tile) of a thread's i-th output row; the store uses the same map.
template <class C>
__device__ __forceinline__ int row_of(int i, int tr) {
  if constexpr (C::AROW)
    return (i / 4) * (C::TR * 4) + (i % 4) * C::TR + tr;
  else
    return (i / 4) * (C::TR * 4) + tr * 4 + (i % 4);
}

template <class C>
__device__ __forceinline__ void load_stage(float* as, float* bs, const float* __restrict__ a,
                                           const float* __restrict__ b, int n, int bm0, int bn0,
                                           int k0, int tid) {
  if constexpr (C::AROW) {
    constexpr int KC = C::BK / 4;  // 16-byte chunks in a row of the A tile
    const int q = tid % KC;
    const int gk = k0 + 4 * q;
#pragma unroll
    for (int l = 0; l < C::LA; ++l) {
      const int row = tid / KC + l * (C::NT / KC);
      const int gr = bm0 + row;
      const bool ok = gr < n && gk < n;
      const float* src = ok ? a + static_cast<std::size_t>(gr) * n + gk : a;
      cp_async16(smem_u32(as + row * C::A_LD + 4 * q), src, ok);
    }
  } else {
    const int kk = tid % C::BK;
    const int gk = k0 + kk;
#pragma unroll
    for (int l = 0; l < C::LA; ++l) {
      const int row = tid / C::BK + l * (C::NT / C::BK);
      const int gr = bm0 + row;
      const bool ok = gr < n && gk < n;
      const float* src = ok ? a + static_cast<std::size_t>(gr) * n + gk : a;
      cp_async4(smem_u32(as + kk * C::A_LD + row), src, ok);
    }
  }
  constexpr int NC = C::BN / 4;  // 16-byte chunks in a row of the B tile
  const int c4 = tid % NC;
  const int gc = bn0 + 4 * c4;
#pragma unroll
  for (int l = 0; l < C::LB; ++l) {
    const int kr = tid / NC + l * (C::NT / NC);
    const int gk = k0 + kr;
    const bool ok = gk < n && gc < n;
    const float* src = ok ? b + static_cast<std::size_t>(gk) * n + gc : b;
    cp_async16(smem_u32(bs + kr * C::BN + 4 * c4), src, ok);
  }
}

__device__ __forceinline__ float comp(const float4& v, int q) {
  return q == 0 ? v.x : q == 1 ? v.y : q == 2 ? v.z : v.w;  // q is a compile-time constant
}

// a_thr / b_thr: this thread's first A / B element of the stage (see the callers).
template <class C>
__device__ __forceinline__ void compute_stage(const float* __restrict__ a_thr,
                                              const float* __restrict__ b_thr,
                                              float (&acc)[C::TM][C::TN]) {
  if constexpr (!C::AROW) {
#pragma unroll
    for (int k = 0; k < C::BK; ++k) {
      float af[C::TM], bf[C::TN];
#pragma unroll
      for (int im = 0; im < C::TM / 4; ++im) {
        const float4 v = *reinterpret_cast<const float4*>(a_thr + k * C::A_LD + im * C::TR * 4);
        af[im * 4 + 0] = v.x;
        af[im * 4 + 1] = v.y;
        af[im * 4 + 2] = v.z;
        af[im * 4 + 3] = v.w;
      }
#pragma unroll
      for (int jn = 0; jn < C::TN / 4; ++jn) {
        const float4 v = *reinterpret_cast<const float4*>(b_thr + k * C::BN + jn * C::TC * 4);
        bf[jn * 4 + 0] = v.x;
        bf[jn * 4 + 1] = v.y;
        bf[jn * 4 + 2] = v.z;
        bf[jn * 4 + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < C::TM; ++i)
#pragma unroll
        for (int j = 0; j < C::TN; ++j) acc[i][j] = fmaf(af[i], bf[j], acc[i][j]);
    }
  } else {
#pragma unroll
    for (int kq = 0; kq < C::BK / 4; ++kq) {
      float4 av[C::TM];
#pragma unroll
      for (int i = 0; i < C::TM; ++i)
        av[i] = *reinterpret_cast<const float4*>(
            a_thr + ((i / 4) * (C::TR * 4) + (i % 4) * C::TR) * C::A_LD + kq * 4);
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        float bf[C::TN];
#pragma unroll
        for (int jn = 0; jn < C::TN / 4; ++jn) {
          const float4 v =
              *reinterpret_cast<const float4*>(b_thr + (kq * 4 + q) * C::BN + jn * C::TC * 4);
          bf[jn * 4 + 0] = v.x;
          bf[jn * 4 + 1] = v.y;
          bf[jn * 4 + 2] = v.z;
          bf[jn * 4 + 3] = v.w;
        }
#pragma unroll
        for (int i = 0; i < C::TM; ++i) {
          const float ai = comp(av[i], q);
#pragma unroll
          for (int j = 0; j < C::TN; ++j) acc[i][j] = fmaf(ai, bf[j], acc[i][j]);
        }
      }
    }
  }
}

// Grouped raster (as Triton's matmul tutorial): `group` consecutive block rows are walked
// column by column, so blocks resident together share A and B panels in L2. group <= 1: rows.
__device__ __forceinline__ void tile_coords(int pid, int tiles_m, int tiles_n, int group,
                                            int& tm, int& tn) {
  if (group <= 1) {
    tm = pid / tiles_n;
    tn = pid % tiles_n;
    return;
  }
  const int per_group = group * tiles_n;
  const int first_m = (pid / per_group) * group;
  const int gsize = min(tiles_m - first_m, group);
  const int r = pid % per_group;
  tm = first_m + r % gsize;
  tn = r / gsize;
}

// Split-K reduction over the cluster (SPLITK > 1), then the store of this thread's outputs.
// Slot (i, j) of thread tid is [(i * TN + j) * NT + tid]: consecutive threads, consecutive words,
// and the same thread of every block in the cluster owns the same outputs. Rank r keeps the
// rows i with i / (TM / SPLITK) == r, adding the other ranks' partials for them.
template <class C>
__device__ __forceinline__ void epilogue(float (&acc)[C::TM][C::TN], float* smem,
                                         float* __restrict__ c, int n, int row0, int col0, int tr,
                                         int tc, int tid) {
  int rank = 0;
  constexpr int kRowsPerRank = C::TM / C::SPLITK;
  if constexpr (C::SPLITK > 1) {
    cp_async_wait<0>();
    __syncthreads();  // the stages are no longer read: reuse them for the partial sums
    cg::cluster_group cluster = cg::this_cluster();
    rank = static_cast<int>(cluster.block_rank());
#pragma unroll
    for (int i = 0; i < C::TM; ++i)
      if (i / kRowsPerRank != rank)
#pragma unroll
        for (int j = 0; j < C::TN; ++j) smem[(i * C::TN + j) * C::NT + tid] = acc[i][j];
    cluster.sync();
#pragma unroll
    for (int q = 0; q < C::SPLITK; ++q) {
      if (q == rank) continue;
      const float* remote = cluster.map_shared_rank(smem, q);
#pragma unroll
      for (int i = 0; i < C::TM; ++i)
        if (i / kRowsPerRank == rank)
#pragma unroll
          for (int j = 0; j < C::TN; ++j) acc[i][j] += remote[(i * C::TN + j) * C::NT + tid];
    }
    cluster.sync();  // no block leaves while another still reads its shared memory
  }

#pragma unroll
  for (int i = 0; i < C::TM; ++i) {
    if (C::SPLITK > 1 && i / kRowsPerRank != rank) continue;
    const int row = row0 + row_of<C>(i, tr);
    if (row >= n) continue;
    float* crow = c + static_cast<std::size_t>(row) * n;
#pragma unroll
    for (int jn = 0; jn < C::TN / 4; ++jn) {
      const int col = col0 + jn * C::TC * 4 + tc * 4;
      if (col < n)
        *reinterpret_cast<float4*>(crow + col) =
            make_float4(acc[i][jn * 4 + 0], acc[i][jn * 4 + 1], acc[i][jn * 4 + 2],
                        acc[i][jn * 4 + 3]);
    }
  }
}

template <class C>
__global__ void __launch_bounds__(C::NT, C::MINB)
    pipe_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                int n, int group) {
  extern __shared__ __align__(16) float smem[];
  float* const as_base = smem;
  float* const bs_base = smem + C::STAGES * C::A_STAGE;

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31, warp = tid >> 5;
  const int wm0 = (warp / C::WARPS_N) * C::WM;
  const int wn0 = (warp % C::WARPS_N) * C::WN;
  const int tr = lane / C::TC, tc = lane % C::TC;

  const int tiles_m = (n + C::BM - 1) / C::BM;
  const int tiles_n = (n + C::BN - 1) / C::BN;
  int tm, tn;
  tile_coords(static_cast<int>(blockIdx.x), tiles_m, tiles_n, group, tm, tn);
  const int bm0 = tm * C::BM, bn0 = tn * C::BN;

  const int kt_total = (n + C::BK - 1) / C::BK;
  const int split = C::SPLITK > 1 ? static_cast<int>(blockIdx.z) : 0;
  const int kt_begin = static_cast<int>(static_cast<long long>(kt_total) * split / C::SPLITK);
  const int kt_end = static_cast<int>(static_cast<long long>(kt_total) * (split + 1) / C::SPLITK);
  const int nkt = kt_end - kt_begin;

  // This thread's first element of A and of B inside a stage.
  const int a_off = C::AROW ? (wm0 + tr) * C::A_LD : wm0 + tr * 4;
  const int b_off = wn0 + tc * 4;

  float acc[C::TM][C::TN];
#pragma unroll
  for (int i = 0; i < C::TM; ++i)
#pragma unroll
    for (int j = 0; j < C::TN; ++j) acc[i][j] = 0.f;

  // Prologue: stages 0 .. STAGES-2. Every thread commits one group per stage, empty or not, so
  // that "all but the newest STAGES-2 groups are done" always means "tile t has landed".
#pragma unroll
  for (int s = 0; s < C::STAGES - 1; ++s) {
    if (s < nkt)
      load_stage<C>(as_base + s * C::A_STAGE, bs_base + s * C::B_STAGE, a, b, n, bm0, bn0,
                    (kt_begin + s) * C::BK, tid);
    cp_async_commit();
  }
  int rs = 0, ws = C::STAGES - 1;
#pragma unroll 1
  for (int t = 0; t < nkt; ++t) {
    cp_async_wait<C::STAGES - 2>();  // this thread's copies of tile t are done
    // Everyone's copies of tile t are visible, and everyone finished computing tile t-1, whose
    // stage (ws) is refilled next.
    __syncthreads();
    const int tnext = t + C::STAGES - 1;
    if (tnext < nkt)
      load_stage<C>(as_base + ws * C::A_STAGE, bs_base + ws * C::B_STAGE, a, b, n, bm0, bn0,
                    (kt_begin + tnext) * C::BK, tid);
    cp_async_commit();
    compute_stage<C>(as_base + rs * C::A_STAGE + a_off, bs_base + rs * C::B_STAGE + b_off, acc);
    rs = rs + 1 == C::STAGES ? 0 : rs + 1;
    ws = ws + 1 == C::STAGES ? 0 : ws + 1;
  }

  epilogue<C>(acc, smem, c, n, bm0 + wm0, bn0 + wn0, tr, tc, tid);
}

// pipe2_kernel: pipe_kernel's tiles and shared layouts ("t" only: A transposed), with the
// mainloop arranged as CUTLASS's multistage SIMT one:
// - copies of interior tiles use per-thread pointers computed once (no bounds tests, no index
//   arithmetic beyond a pointer step); edge tiles take load_stage's checked path;
// - the fragments of step k+1 are loaded into the other half of a register double buffer while
//   step k's FFMAs run, also across tiles: the wait and the barrier sit in the last k-step of a
//   tile, before its FFMAs, so the next tile's first loads overlap them;
// - all STAGES stages hold tiles in flight: a stage is refilled right after the barrier that
//   follows the last read of it.
template <class C>
__global__ void __launch_bounds__(C::NT, C::MINB)
    pipe2_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                 int n, int group) {
  static_assert(!C::AROW, "pipe2_kernel keeps A transposed");
  static_assert(C::BK % 2 == 0, "k steps alternate the fragment buffers");
  extern __shared__ __align__(16) float smem[];
  float* const as_base = smem;
  float* const bs_base = smem + C::STAGES * C::A_STAGE;

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31, warp = tid >> 5;
  const int wm0 = (warp / C::WARPS_N) * C::WM;
  const int wn0 = (warp % C::WARPS_N) * C::WN;
  const int tr = lane / C::TC, tc = lane % C::TC;

  const int tiles_m = (n + C::BM - 1) / C::BM;
  const int tiles_n = (n + C::BN - 1) / C::BN;
  int tm, tn;
  tile_coords(static_cast<int>(blockIdx.x), tiles_m, tiles_n, group, tm, tn);
  const int bm0 = tm * C::BM, bn0 = tn * C::BN;

  const int kt_total = (n + C::BK - 1) / C::BK;
  const int split = C::SPLITK > 1 ? static_cast<int>(blockIdx.z) : 0;
  const int kt_begin = static_cast<int>(static_cast<long long>(kt_total) * split / C::SPLITK);
  const int kt_end = static_cast<int>(static_cast<long long>(kt_total) * (split + 1) / C::SPLITK);
  const int nkt = kt_end - kt_begin;

  // Copy coordinates (as in load_stage): A element (row a_r0 + l * NT/BK, k a_kk), B chunk
  // (k row b_k0 + l * NT/NC, columns 4 * b_c4 ..).
  constexpr int NC = C::BN / 4;
  const int a_kk = tid % C::BK, a_r0 = tid / C::BK;
  const int b_c4 = tid % NC, b_k0 = tid / NC;
  const bool interior = bm0 + C::BM <= n && bn0 + C::BN <= n;
  const float* const pa = a + static_cast<std::size_t>(interior ? bm0 + a_r0 : 0) * n + a_kk;
  const float* const pb = b + static_cast<std::size_t>(b_k0) * n + (interior ? bn0 + 4 * b_c4 : 0);
  const std::size_t a_step = static_cast<std::size_t>(C::NT / C::BK) * n;  // rows between copies
  const std::size_t b_step = static_cast<std::size_t>(C::NT / NC) * n;
  const unsigned sa = smem_u32(as_base + a_kk * C::A_LD + a_r0);
  const unsigned sb = smem_u32(bs_base + b_k0 * C::BN + 4 * b_c4);

  auto issue = [&](int stage, int kt) {
    const int k0 = (kt_begin + kt) * C::BK;
    if (interior && k0 + C::BK <= n) {
      const float* ra = pa + k0;
      const float* rb = pb + static_cast<std::size_t>(k0) * n;
      const unsigned da = sa + stage * (C::A_STAGE * 4);
      const unsigned db = sb + stage * (C::B_STAGE * 4);
#pragma unroll
      for (int l = 0; l < C::LA; ++l) cp_async4(da + l * (C::NT / C::BK) * 4, ra + l * a_step);
#pragma unroll
      for (int l = 0; l < C::LB; ++l)
        cp_async16(db + l * (C::NT / NC) * C::BN * 4, rb + l * b_step);
    } else {
      load_stage<C>(as_base + stage * C::A_STAGE, bs_base + stage * C::B_STAGE, a, b, n, bm0, bn0,
                    k0, tid);
    }
  };

  const float* const a_thr = as_base + wm0 + tr * 4;
  const float* const b_thr = bs_base + wn0 + tc * 4;
  float fa[2][C::TM], fb[2][C::TN];
  auto load_frag = [&](float(&xa)[C::TM], float(&xb)[C::TN], int stage, int k) {
    const float* ap = a_thr + stage * C::A_STAGE + k * C::A_LD;
    const float* bp = b_thr + stage * C::B_STAGE + k * C::BN;
#pragma unroll
    for (int im = 0; im < C::TM / 4; ++im) {
      const float4 v = *reinterpret_cast<const float4*>(ap + im * C::TR * 4);
      xa[im * 4 + 0] = v.x;
      xa[im * 4 + 1] = v.y;
      xa[im * 4 + 2] = v.z;
      xa[im * 4 + 3] = v.w;
    }
#pragma unroll
    for (int jn = 0; jn < C::TN / 4; ++jn) {
      const float4 v = *reinterpret_cast<const float4*>(bp + jn * C::TC * 4);
      xb[jn * 4 + 0] = v.x;
      xb[jn * 4 + 1] = v.y;
      xb[jn * 4 + 2] = v.z;
      xb[jn * 4 + 3] = v.w;
    }
  };

  float acc[C::TM][C::TN];
#pragma unroll
  for (int i = 0; i < C::TM; ++i)
#pragma unroll
    for (int j = 0; j < C::TN; ++j) acc[i][j] = 0.f;

  // Prologue: tiles 0 .. STAGES-1 into all stages, one commit group each (empty or not).
#pragma unroll
  for (int s = 0; s < C::STAGES; ++s) {
    if (s < nkt) issue(s, s);
    cp_async_commit();
  }
  cp_async_wait<C::STAGES - 1>();  // tile 0
  __syncthreads();
  if (nkt > 0) load_frag(fa[0], fb[0], 0, 0);

  int rs = 0;  // stage of tile t
#pragma unroll 1
  for (int t = 0; t < nkt; ++t) {
#pragma unroll
    for (int k = 0; k < C::BK; ++k) {
      if (k == C::BK - 1) {
        // Groups committed: STAGES + t; tile t+1 is group t+1, so STAGES-2 may stay pending.
        cp_async_wait<C::STAGES - 2>();
        // Everyone's copies of tile t+1 are visible, and everyone has loaded its last fragment
        // of tile t (at step BK-2): stage rs is free.
        __syncthreads();
        if (t + C::STAGES < nkt) issue(rs, t + C::STAGES);
        cp_async_commit();
        rs = rs + 1 == C::STAGES ? 0 : rs + 1;
        if (t + 1 < nkt) load_frag(fa[(k + 1) & 1], fb[(k + 1) & 1], rs, 0);
      } else {
        load_frag(fa[(k + 1) & 1], fb[(k + 1) & 1], rs, k + 1);
      }
      if constexpr (C::ORDER == 1) {
#pragma unroll
        for (int j = 0; j < C::TN; ++j)
#pragma unroll
          for (int i = 0; i < C::TM; ++i)
            acc[i][j] = fmaf(fa[k & 1][i], fb[k & 1][j], acc[i][j]);
      } else {
#pragma unroll
        for (int i = 0; i < C::TM; ++i)
#pragma unroll
          for (int jj = 0; jj < C::TN; ++jj) {
            const int j = (C::ORDER == 2 && (i & 1)) ? C::TN - 1 - jj : jj;
            acc[i][j] = fmaf(fa[k & 1][i], fb[k & 1][j], acc[i][j]);
          }
      }
    }
  }

  epilogue<C>(acc, smem, c, n, bm0 + wm0, bn0 + wn0, tr, tc, tid);
}

// =============================================================================================
// Helpers: inputs, float64 reference, error check, L2 flush.
// =============================================================================================
__device__ __forceinline__ std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform in [-1, 1) on a 2^-23 grid (exact in float), never all zeros.
__global__ void fill_kernel(float* p, std::size_t count, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
       i < count; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t r = splitmix64(seed * 0x100000001b3ull + i);
    p[i] = static_cast<float>(r >> 40) * 0x1p-23f - 1.0f;
  }
}

__global__ void to_double_kernel(const float* p, std::size_t count, double* v, double* av) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
       i < count; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    v[i] = p[i];
    av[i] = std::fabs(static_cast<double>(p[i]));
  }
}

// out[0]: max |got - ref| / bound (float bits), out[1]: max |got - cublas| (float bits),
// out[2]: count of non-finite outputs. Non-negative floats order like their bit patterns.
__global__ void check_kernel(const float* got, const double* ref, const double* bound,
                             const float* cub, std::size_t count, unsigned* out) {
  float mrel = 0.f, mabs = 0.f;
  unsigned bad = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
       i < count; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const float g = got[i];
    if (!isfinite(g)) {
      ++bad;
      continue;
    }
    const double rel = fabs(static_cast<double>(g) - ref[i]) / fmax(bound[i], 1e-300);
    mrel = fmaxf(mrel, static_cast<float>(rel));
    mabs = fmaxf(mabs, fabsf(g - cub[i]));
  }
  for (int o = 16; o > 0; o >>= 1) {
    mrel = fmaxf(mrel, __shfl_xor_sync(0xffffffffu, mrel, o));
    mabs = fmaxf(mabs, __shfl_xor_sync(0xffffffffu, mabs, o));
    bad += __shfl_xor_sync(0xffffffffu, bad, o);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(&out[0], __float_as_uint(mrel));
    atomicMax(&out[1], __float_as_uint(mabs));
    atomicAdd(&out[2], bad);
  }
}

// Reads the whole buffer (larger than the 60 MiB L2), evicting A, B and C before a sample.
__global__ void flush_kernel(const float4* p, std::size_t count4, float* sink) {
  float s = 0.f;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
       i < count4; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const float4 v = p[i];
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 12345.f) *sink = s;  // never true (the buffer is zeros); keeps the loads
}

// =============================================================================================
// Host: the variant table.
// =============================================================================================
using LaunchFn = void (*)(const float*, const float*, float*, int, int, cudaStream_t);

struct Variant {
  std::string name, note;
  LaunchFn launch = nullptr;
  const void* func = nullptr;  // the kernel of the n % 4 == 0 path (registers, occupancy)
  int threads = 0, smem = 0, bm = 0, bn = 0, splitk = 1;
  cudaFuncAttributes attr{};
  int blocks_per_sm = 0;
};

int cdiv(int a, int b) { return (a + b - 1) / b; }

void launch_baseline(const float* a, const float* b, float* c, int n, int, cudaStream_t s) {
  const dim3 grid(cdiv(n, opt::kBn), cdiv(n, opt::kBm));
  if (n % 4 == 0)
    baseline_kernel<true><<<grid, opt::kThreads, 0, s>>>(a, b, c, n);
  else
    baseline_kernel<false><<<grid, opt::kThreads, 0, s>>>(a, b, c, n);
  CK(cudaGetLastError());
}

template <class C, bool V2>
constexpr auto kernel_of() {
  if constexpr (V2)
    return pipe2_kernel<C>;
  else
    return pipe_kernel<C>;
}

template <class C, bool V2>
void launch_pipe(const float* a, const float* b, float* c, int n, int group, cudaStream_t s) {
  if (n % 4 != 0) {  // 16-byte copies need rows that start 16-byte aligned
    launch_baseline(a, b, c, n, group, s);
    return;
  }
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(cdiv(n, C::BM) * cdiv(n, C::BN)), 1, C::SPLITK);
  cfg.blockDim = dim3(C::NT);
  cfg.dynamicSmemBytes = C::SMEM_BYTES;
  cfg.stream = s;
  cudaLaunchAttribute attr[1];
  if (C::SPLITK > 1) {
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 1;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = C::SPLITK;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
  CK(cudaLaunchKernelEx(&cfg, kernel_of<C, V2>(), a, b, c, n, group));
  CK(cudaGetLastError());
}

template <class C, bool V2 = false>
Variant make_pipe(const char* name, const char* note) {
  Variant v;
  v.name = name;
  v.note = note;
  v.launch = launch_pipe<C, V2>;
  v.func = reinterpret_cast<const void*>(kernel_of<C, V2>());
  v.threads = C::NT;
  v.smem = C::SMEM_BYTES;
  v.bm = C::BM;
  v.bn = C::BN;
  v.splitk = C::SPLITK;
  CK(cudaFuncSetAttribute(kernel_of<C, V2>(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                          C::SMEM_BYTES));
  return v;
}

//                       BM   BN  BK  WM  WN  TM TN STAGES AROW  SPLITK MINB ORDER
using T_128x128_K16_S3 = Cfg<128, 128, 16, 32, 64, 8, 8, 3, false, 1, 2>;
using R_128x128_K16_S3 = Cfg<128, 128, 16, 64, 64, 8, 16, 3, true, 1, 2>;
using T_128x64_K16_S3 = Cfg<128, 64, 16, 32, 64, 8, 8, 3, false, 1, 2>;
using Q_128x256_K8_S3 = Cfg<128, 256, 8, 64, 64, 8, 16, 3, false, 1, 1>;
using Q_128x128_K16_S3 = Cfg<128, 128, 16, 32, 64, 8, 8, 3, false, 1, 2>;
using Q_128x128_K32_S3 = Cfg<128, 128, 32, 32, 64, 8, 8, 3, false, 1, 2>;
using Q_128x128_K32_S2 = Cfg<128, 128, 32, 32, 64, 8, 8, 2, false, 1, 2>;
using Q_128x128_K32_S3_O2 = Cfg<128, 128, 32, 32, 64, 8, 8, 3, false, 1, 2, 2>;
using Q_128x128_K32_S3_SK2 = Cfg<128, 128, 32, 32, 64, 8, 8, 3, false, 2, 1>;
using Q_128x64_K16_S3_SK2 = Cfg<128, 64, 16, 32, 64, 8, 8, 3, false, 2, 3>;

// What the results suggest for gpu/sgemm.cu: split-K 2 while 128x128 tiles alone cannot fill
// the GPU (fewer tiles than SMs: n <= 1408 on 132 SMs), else the 2-stage BK = 32 kernel.
int sm_count() {
  static const int count = [] {
    int c = 0;
    CK(cudaDeviceGetAttribute(&c, cudaDevAttrMultiProcessorCount, 0));
    return c;
  }();
  return count;
}
void launch_auto(const float* a, const float* b, float* c, int n, int group, cudaStream_t s) {
  const int tiles = cdiv(n, 128) * cdiv(n, 128);
  if (tiles < sm_count())
    launch_pipe<Q_128x128_K32_S3_SK2, true>(a, b, c, n, group, s);
  else
    launch_pipe<Q_128x128_K32_S2, true>(a, b, c, n, group, s);
}

std::vector<Variant> make_variants() {
  std::vector<Variant> v;
  {
    Variant b;
    b.name = "base";
    b.note = "suite sgemm_optimized_kernel: 128x128x8, 256 thr, 8x8, regs double buffer";
    b.launch = launch_baseline;
    b.func = reinterpret_cast<const void*>(baseline_kernel<true>);
    b.threads = opt::kThreads;
    b.bm = opt::kBm;
    b.bn = opt::kBn;
    v.push_back(b);
  }
  v.push_back(make_pipe<T_128x128_K16_S3>(
      "t128x128k16_t256_s3", "pipe: cp.async 3 stages, A transposed by 4-byte copies, 8x8"));
  v.push_back(make_pipe<R_128x128_K16_S3>(
      "r128x128k16_t128_s3", "pipe: A row-major in smem (16-byte copies), 4 warps 64x64, 8x16"));
  v.push_back(make_pipe<T_128x64_K16_S3>("t128x64k16_t128_s3",
                                         "pipe: small n, 128x64 tile (128 blocks at 1024)"));
  v.push_back(make_pipe<Q_128x256_K8_S3, true>(
      "q128x256k8_t256_s3", "pipe2: cuBLAS's shape, 128x256x8, 8 warps 64x64, 8x16"));
  v.push_back(make_pipe<Q_128x128_K16_S3, true>("q128x128k16_t256_s3",
                                                "pipe2: 128x128x16, 8 warps 32x64, 8x8"));
  v.push_back(make_pipe<Q_128x128_K32_S3, true>("q128x128k32_t256_s3", "pipe2: as above, BK 32"));
  v.push_back(make_pipe<Q_128x128_K32_S2, true>("q128x128k32_t256_s2",
                                                "pipe2: BK 32, 2 stages (66.5 KB smem)"));
  v.push_back(make_pipe<Q_128x128_K32_S3_O2, true>("q128x128k32_t256_s3_o2",
                                                   "pipe2: BK 32, serpentine FFMA order"));
  v.push_back(make_pipe<Q_128x128_K32_S3_SK2, true>(
      "q128x128k32_t256_s3_sk2", "pipe2: BK 32, split-K 2 over a cluster, DSMEM reduction"));
  v.push_back(make_pipe<Q_128x64_K16_S3_SK2, true>("q128x64k16_t128_s3_sk2",
                                                   "pipe2: 128x64x16, split-K 2 (256 blocks)"));
  {
    Variant x = v[v.size() - 2];  // registers and occupancy of the split-K kernel (n <= 1408)
    x.name = "auto";
    x.note = "split-K 2 (q128x128k32_t256_s3_sk2) while tiles < SMs, else q128x128k32_t256_s2";
    x.launch = launch_auto;
    v.push_back(x);
  }
#ifdef WITH_SUITE
  {
    // The suite's own sgemm_cuda_optimized (gpu/sgemm.cu), in this process with these inputs:
    // whether the suite's 3% against q128x128k32_t256_s2 is its code or its surroundings.
    Variant x = v[v.size() - 5];  // figures of q128x128k32_t256_s2, its n >= 1408 kernel
    x.name = "suite";
    x.note = "tb::gpu::sgemm_cuda_optimized, linked from the suite's build";
    x.launch = [](const float* a, const float* b, float* c, int n, int, cudaStream_t s) {
      tb::gpu::sgemm_cuda_optimized(a, b, c, static_cast<std::size_t>(n), s);
    };
    v.push_back(x);
  }
#endif
  for (Variant& x : v) {
    CK(cudaFuncGetAttributes(&x.attr, x.func));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&x.blocks_per_sm, x.func, x.threads,
                                                     x.smem));
  }
  return v;
}

// =============================================================================================
// Host: measurement.
// =============================================================================================
// The suite's sgemm tolerance (cpu/sgemm.hpp): relative to sum_k |a_ik b_kj|, Higham-Mary
// probabilistic bound with lambda = 10 for a chain of K + 1 roundings.
double tolerance(int k) {
  const double u = 0x1p-24, lambda = 10.0, depth = k + 1.0;
  return std::expm1(lambda * std::sqrt(depth) * u + depth * u * u / (1.0 - u));
}

struct Problem {
  int n = 0;
  std::size_t count = 0;
  float *a = nullptr, *b = nullptr, *c = nullptr, *cub = nullptr;
  double *ref = nullptr, *bound = nullptr;
  unsigned* err = nullptr;
};

struct Check {
  double max_rel = 0, max_abs_cub = 0;
  unsigned nonfinite = 0;
  bool pass = false;
};

struct Timing {
  double median_us = 0, min_us = 0;
  bool ok = false;
};

struct Row {
  std::string name;
  int n;
  Check chk;
  Timing tm;
  const Variant* v;  // null for cuBLAS rows
  bool fallback;
};

Problem make_problem(int n, cublasHandle_t h, std::uint64_t seed) {
  Problem p;
  p.n = n;
  p.count = static_cast<std::size_t>(n) * n;
  CK(cudaMalloc(&p.a, p.count * 4));
  CK(cudaMalloc(&p.b, p.count * 4));
  CK(cudaMalloc(&p.c, p.count * 4));
  CK(cudaMalloc(&p.cub, p.count * 4));
  CK(cudaMalloc(&p.ref, p.count * 8));
  CK(cudaMalloc(&p.bound, p.count * 8));
  CK(cudaMalloc(&p.err, 3 * sizeof(unsigned)));
  fill_kernel<<<1024, 256>>>(p.a, p.count, seed);
  fill_kernel<<<1024, 256>>>(p.b, p.count, seed + 1);
  CK(cudaGetLastError());
  double *ad, *bd, *aa, *ba;
  CK(cudaMalloc(&ad, p.count * 8));
  CK(cudaMalloc(&bd, p.count * 8));
  CK(cudaMalloc(&aa, p.count * 8));
  CK(cudaMalloc(&ba, p.count * 8));
  to_double_kernel<<<1024, 256>>>(p.a, p.count, ad, aa);
  to_double_kernel<<<1024, 256>>>(p.b, p.count, bd, ba);
  CK(cudaGetLastError());
  // Row-major C = A B is column-major C^T = B^T A^T: B first (as gpu/sgemm.cu does).
  const double one = 1.0, zero = 0.0;
  CB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, bd, n, ad, n, &zero, p.ref, n));
  CB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, ba, n, aa, n, &zero, p.bound, n));
  CK(cudaDeviceSynchronize());
  CK(cudaFree(ad));
  CK(cudaFree(bd));
  CK(cudaFree(aa));
  CK(cudaFree(ba));
  return p;
}

void free_problem(Problem& p) {
  CK(cudaFree(p.a));
  CK(cudaFree(p.b));
  CK(cudaFree(p.c));
  CK(cudaFree(p.cub));
  CK(cudaFree(p.ref));
  CK(cudaFree(p.bound));
  CK(cudaFree(p.err));
}

void cublas_sgemm(cublasHandle_t h, const Problem& p, float* out) {
  const float one = 1.f, zero = 0.f;
  CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.n, p.n, &one, p.b, p.n, p.a, p.n, &zero,
                 out, p.n));
}

Check check_output(const Problem& p, const float* got) {
  CK(cudaMemset(p.err, 0, 3 * sizeof(unsigned)));
  check_kernel<<<1024, 256>>>(got, p.ref, p.bound, p.cub, p.count, p.err);
  CK(cudaGetLastError());
  unsigned h[3];
  CK(cudaMemcpy(h, p.err, sizeof h, cudaMemcpyDeviceToHost));
  Check c;
  float f;
  std::memcpy(&f, &h[0], 4);
  c.max_rel = f;
  std::memcpy(&f, &h[1], 4);
  c.max_abs_cub = f;
  c.nonfinite = h[2];
  c.pass = c.nonfinite == 0 && c.max_rel <= tolerance(p.n) &&
           c.max_abs_cub <= 1e-3 * std::sqrt(static_cast<double>(p.n));
  return c;
}

struct Flusher {
  float4* buf = nullptr;
  float* sink = nullptr;
  std::size_t count4 = (120ull << 20) / 16;
  Flusher() {
    CK(cudaMalloc(&buf, count4 * 16));
    CK(cudaMalloc(&sink, 4));
    CK(cudaMemset(buf, 0, count4 * 16));
  }
  ~Flusher() {
    cudaFree(buf);
    cudaFree(sink);
  }
  void operator()(cudaStream_t s) const {
    flush_kernel<<<132 * 8, 512, 0, s>>>(buf, count4, sink);
  }
};

// Cold L2: the flush is queued before the first event, so the events hold just the one launch
// (queued behind the flush, so host launch latency is not in it either).
template <class F>
Timing time_cold(F&& launch, int samples, const Flusher& flush, cudaStream_t s) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> ms;
  for (int i = 0; i < samples; ++i) {
    flush(s);
    CK(cudaEventRecord(e0, s));
    launch();
    CK(cudaEventRecord(e1, s));
    CK(cudaEventSynchronize(e1));
    float t = 0;
    CK(cudaEventElapsedTime(&t, e0, e1));
    ms.push_back(t);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  std::sort(ms.begin(), ms.end());
  Timing t;
  const std::size_t m = ms.size();
  t.median_us = 1e3 * (m % 2 ? ms[m / 2] : 0.5 * (ms[m / 2 - 1] + ms[m / 2]));
  t.min_us = 1e3 * ms.front();
  t.ok = true;
  return t;
}

std::vector<int> parse_list(const char* s) {
  std::vector<int> v;
  std::string str(s);
  std::size_t pos = 0;
  while (pos < str.size()) {
    const std::size_t e = str.find(',', pos);
    v.push_back(std::atoi(str.substr(pos, e - pos).c_str()));
    if (e == std::string::npos) break;
    pos = e + 1;
  }
  return v;
}

bool selected(const std::string& name, const std::string& only) {
  if (only.empty() || name == "base") return true;
  std::size_t pos = 0;
  while (pos <= only.size()) {
    const std::size_t e = only.find(',', pos);
    if (only.substr(pos, e == std::string::npos ? std::string::npos : e - pos) == name)
      return true;
    if (e == std::string::npos) break;
    pos = e + 1;
  }
  return false;
}

int main(int argc, char** argv) {
  int samples = 30, group = 8;
  std::vector<int> timed = {1024, 2048, 4096};
  std::vector<int> checked = {4, 100, 1000, 1001};  // correctness only (odd sizes, fallback)
  std::string only, profile;
  int profile_n = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--samples" && i + 1 < argc) {
      samples = std::atoi(argv[++i]);
    } else if (a == "--sizes" && i + 1 < argc) {
      timed = parse_list(argv[++i]);
    } else if (a == "--check-sizes" && i + 1 < argc) {
      checked = parse_list(argv[++i]);
    } else if (a == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else if (a == "--group" && i + 1 < argc) {
      group = std::atoi(argv[++i]);
    } else if (a == "--profile" && i + 2 < argc) {
      profile = argv[++i];
      profile_n = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: %s [--samples S] [--sizes a,b] [--check-sizes a,b] [--only v1,v2] "
                   "[--group G] [--profile VARIANT N]\n",
                   argv[0]);
      return 2;
    }
  }

  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  std::printf("device: %s, sm_%d%d, %d SMs, L2 %d MiB, max clock %d MHz\n", prop.name,
              prop.major, prop.minor, prop.multiProcessorCount, prop.l2CacheSize >> 20,
              clock_khz / 1000);

  cudaStream_t stream;
  CK(cudaStreamCreate(&stream));
  cublasHandle_t h_default, h_pedantic;
  CB(cublasCreate(&h_default));
  CB(cublasCreate(&h_pedantic));
  CB(cublasSetStream(h_default, stream));
  CB(cublasSetStream(h_pedantic, stream));
  CB(cublasSetMathMode(h_default, CUBLAS_DEFAULT_MATH));  // no TF32 (the check would see it)
  CB(cublasSetMathMode(h_pedantic, CUBLAS_PEDANTIC_MATH));

  std::vector<Variant> variants = make_variants();

  if (!profile.empty()) {
    const Variant* v = nullptr;
    for (const Variant& x : variants)
      if (x.name == profile) v = &x;
    if (!v && profile != "cublas") {
      std::fprintf(stderr, "no variant %s; variants:", profile.c_str());
      for (const Variant& x : variants) std::fprintf(stderr, " %s", x.name.c_str());
      std::fprintf(stderr, "\n");
      return 2;
    }
    Problem p = make_problem(profile_n, h_default, 0x5eed0501ull + profile_n);
    cublas_sgemm(h_default, p, p.cub);
    CK(cudaMemsetAsync(p.c, 0xff, p.count * 4, stream));  // NaN: unwritten outputs fail
    CK(cudaStreamSynchronize(stream));
    // The one launch a profiler sees (ncu --profile-from-start off).
    CK(cudaProfilerStart());
    if (v)
      v->launch(p.a, p.b, p.c, p.n, group, stream);
    else
      cublas_sgemm(h_default, p, p.c);
    CK(cudaStreamSynchronize(stream));
    CK(cudaProfilerStop());
    const Check c = check_output(p, p.c);
    std::printf("profile %s n=%d: max_rel %.3g (tol %.3g) max|d cublas| %.3g nonfinite %u: %s\n",
                profile.c_str(), profile_n, c.max_rel, tolerance(profile_n), c.max_abs_cub,
                c.nonfinite, c.pass ? "ok" : "FAIL");
    free_problem(p);
    return c.pass ? 0 : 1;
  }

  std::printf("\nvariants (regs from cudaFuncGetAttributes; local = spill/stack bytes):\n");
  for (const Variant& v : variants)
    std::printf("  %-26s %3d thr %3d regs local %3zu B smem %6d B %d blk/SM  %s\n",
                v.name.c_str(), v.threads, v.attr.numRegs, v.attr.localSizeBytes,
                v.smem + static_cast<int>(v.attr.sharedSizeBytes), v.blocks_per_sm,
                v.note.c_str());

  Flusher flush;
  std::vector<Row> rows;
  bool all_pass = true;
  std::vector<int> sizes = checked;
  sizes.insert(sizes.end(), timed.begin(), timed.end());
  for (int n : sizes) {
    const bool timing = std::find(timed.begin(), timed.end(), n) != timed.end();
    Problem p = make_problem(n, h_default, 0x5eed0501ull + n);
    cublas_sgemm(h_default, p, p.cub);
    CK(cudaStreamSynchronize(stream));

    auto run_cublas = [&](const char* name, cublasHandle_t h) {
      Row r{name, n, {}, {}, nullptr, false};
      CK(cudaMemsetAsync(p.c, 0xff, p.count * 4, stream));
      cublas_sgemm(h, p, p.c);
      CK(cudaStreamSynchronize(stream));
      r.chk = check_output(p, p.c);
      if (timing) r.tm = time_cold([&] { cublas_sgemm(h, p, p.c); }, samples, flush, stream);
      all_pass = all_pass && r.chk.pass;
      rows.push_back(r);
    };
    run_cublas("cublas", h_default);
    run_cublas("cublas_pedantic", h_pedantic);
    for (const Variant& v : variants) {
      if (!selected(v.name, only)) continue;
      Row r{v.name, n, {}, {}, &v, n % 4 != 0 && v.name != "base"};
      CK(cudaMemsetAsync(p.c, 0xff, p.count * 4, stream));
      v.launch(p.a, p.b, p.c, n, group, stream);
      CK(cudaStreamSynchronize(stream));
      r.chk = check_output(p, p.c);
      all_pass = all_pass && r.chk.pass;
      if (timing && r.chk.pass)
        r.tm = time_cold([&] { v.launch(p.a, p.b, p.c, n, group, stream); }, samples, flush,
                         stream);
      rows.push_back(r);
    }
    if (timing) run_cublas("cublas(again)", h_default);  // drift check: first vs last
    free_problem(p);
  }

  std::printf("\nsgemm, cold L2, %d samples each, TFLOP/s = 2n^3 / median; %%cuBLAS = cuBLAS "
              "median / median; max_rel vs float64 relative to sum|a||b| (tol = suite's)\n",
              samples);
  std::printf("%-26s %5s %10s %10s %8s %7s %9s %9s %9s %5s %4s %6s %s\n", "variant", "n",
              "median_us", "min_us", "TFLOP/s", "%cuBLAS", "max_rel", "tol", "|d|cublas", "regs",
              "b/SM", "grid", "status");
  for (int n : sizes) {
    double cub_med = 0;
    for (const Row& r : rows)
      if (r.n == n && r.name == "cublas") cub_med = r.tm.median_us;
    for (const Row& r : rows) {
      if (r.n != n) continue;
      const double flop = 2.0 * n * static_cast<double>(n) * n;
      char med[32] = "-", mn[32] = "-", tf[32] = "-", pct[32] = "-", regs[16] = "-",
           bsm[16] = "-", grid[16] = "-";
      if (r.tm.ok) {
        std::snprintf(med, sizeof med, "%.1f", r.tm.median_us);
        std::snprintf(mn, sizeof mn, "%.1f", r.tm.min_us);
        std::snprintf(tf, sizeof tf, "%.2f", flop / (r.tm.median_us * 1e-6) * 1e-12);
        if (cub_med > 0) std::snprintf(pct, sizeof pct, "%.1f", 100.0 * cub_med / r.tm.median_us);
      }
      if (r.v && r.name != "auto") {  // auto: see the row of the kernel it picked
        std::snprintf(regs, sizeof regs, "%d", r.v->attr.numRegs);
        std::snprintf(bsm, sizeof bsm, "%d", r.v->blocks_per_sm);
        std::snprintf(grid, sizeof grid, "%d",
                      cdiv(n, r.v->bm) * cdiv(n, r.v->bn) * r.v->splitk);
      }
      std::printf("%-26s %5d %10s %10s %8s %7s %9.2e %9.2e %9.2e %5s %4s %6s %s%s\n",
                  r.name.c_str(), n, med, mn, tf, pct, r.chk.max_rel, tolerance(n),
                  r.chk.max_abs_cub, regs, bsm, grid, r.chk.pass ? "ok" : "FAIL",
                  r.fallback ? " (n%4!=0: baseline fallback)" : "");
    }
  }
  for (int n : timed) {
    const Row* best = nullptr;
    double cub_med = 0;
    for (const Row& r : rows) {
      if (r.n != n) continue;
      if (r.name == "cublas") cub_med = r.tm.median_us;
      if (r.v && r.name != "auto" && r.tm.ok && (!best || r.tm.median_us < best->tm.median_us))
        best = &r;
    }
    if (best && cub_med > 0)
      std::printf("BEST n=%d: %s %.1f us = %.1f%% of cuBLAS (%.1f us)\n", n, best->name.c_str(),
                  best->tm.median_us, 100.0 * cub_med / best->tm.median_us, cub_med);
  }
  std::printf("%s\n", all_pass ? "all validations passed" : "VALIDATION FAILED");
  CB(cublasDestroy(h_default));
  CB(cublasDestroy(h_pedantic));
  CK(cudaStreamDestroy(stream));
  return all_pass ? 0 : 1;
}
