#include <cstdint>
#include <stdexcept>

#include "common/cuda_check.hpp"
#include "gpu/black_scholes_kernel.cuh"
#include "gpu/kernel_stats.cuh"
#include "gpu/nested_loop_kernel.cuh"
#include "gpu/poisson_kernel.cuh"
#include "gpu/progress.cuh"
#include "gpu/progress_live.hpp"
#include "gpu/vector_add_kernel.cuh"

namespace tb::gpu {
namespace {

using tb::progress::SlotBoard;
using tb::progress::SlotsRef;
using tb::progress::Strategy;

void check_live_block(Strategy s, int block) {
  if (block <= 0 || block > 1024) throw std::invalid_argument("live progress: block must be 1..1024");
  if (s != Strategy::none && block % 32 != 0)
    throw std::invalid_argument("live progress: live_block and live_warp need a multiple of 32");
  if (s != Strategy::none && s != Strategy::live_block && s != Strategy::live_warp)
    throw std::invalid_argument("live progress: the strategy must be none, live_block or live_warp");
}

// The board's slots for this launch (none: an empty ref, never read by the twin).
SlotsRef slots_for(Strategy s, const SlotBoard& board, long long grid, int block) {
  if (s == Strategy::none) return SlotsRef{};
  return board.ref(live_writers(s, grid, block));
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// ---- vector_add, persistent ----

// Waits for the completion of the mbarrier's phase of parity `parity` (0, 1, 0, ...: one phase a
// tile).
__device__ __forceinline__ void mbar_wait_parity(std::uint64_t* bar, unsigned parity) {
  std::uint32_t done = 0;
  while (!done) {
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(vector_add_detail::smem_u32(bar)), "r"(parity)
        : "memory");
  }
}

template <bool kReport>
__global__ void live_vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, std::size_t n, bool bulk,
                                       SlotsRef slots) {
  using namespace vector_add_detail;
  extern __shared__ __align__(128) float live_tiles[];
  __shared__ __align__(8) std::uint64_t tile_ready;
  const unsigned block = blockDim.x;
  const unsigned tile = kItemsPerThread * block;
  const std::size_t tiles = (n + tile - 1) / tile;
  progress::Publisher pub;
  if (kReport && threadIdx.x == 0) pub.init(slots, blockIdx.x);
  if constexpr (kDeviceHasBulkCopy) {
    if (bulk && threadIdx.x == 0) mbar_init(&tile_ready);
  }
  __syncthreads();
  unsigned parity = 0;
  for (std::size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const std::size_t off = t * tile;
    unsigned items = 0;
    bool copied = false;
    if constexpr (kDeviceHasBulkCopy) {
      if (bulk && off + tile <= n) {
        float* sa = live_tiles;
        float* sb = sa + tile;
        const std::uint32_t bytes = tile * sizeof(float);
        if (threadIdx.x == 0) {
          mbar_arrive_expect_tx(&tile_ready, 2 * bytes);
          bulk_copy_to_shared(sa, a + off, bytes, &tile_ready);
          bulk_copy_to_shared(sb, b + off, bytes, &tile_ready);
        }
        mbar_wait_parity(&tile_ready, parity);
        parity ^= 1u;
        float* dst = c + off;
#pragma unroll 1
        for (int j = 0; j < kItemsPerThread; ++j) {
          const unsigned idx = j * block + threadIdx.x;
          dst[idx] = sa[idx] + sb[idx];
        }
        items = tile;
        copied = true;
      }
    }
    if (!copied) {
#pragma unroll
      for (int j = 0; j < kItemsPerThread; ++j) {
        const std::size_t i = off + static_cast<std::size_t>(j) * block + threadIdx.x;
        if (i < n) c[i] = a[i] + b[i];
      }
      items = static_cast<unsigned>(n - off < tile ? n - off : tile);
    }
    // Every warp is done with the shared tile (the next copy overwrites it) and has stored its
    // part: the block's count is exact here, and only thread 0 stores it.
    __syncthreads();
    if (kReport && threadIdx.x == 0) pub.add(slots, items);
  }
  if (kReport && threadIdx.x == 0) pub.flush();
}

template <bool kReport>
long long vector_add_grid_for(std::size_t n, int block) {
  return persistent_grid(live_vector_add_kernel<kReport>, block,
                         vector_add_detail::tile_grid(n, block),
                         vector_add_detail::tile_smem_bytes(block));
}

// ---- sgemm ----

constexpr int kTile = 128;
constexpr int kStep = 8;
// A block publishes after every kPublishSteps-th k step (and at its end), not after every step with
// the Publisher's period check. The H200 (results/nvidia-h200/2026-12-02b) measured +4.48% (limit
// 0.5%) with the check after every step: the kernel does not double-buffer, so every step's global
// loads wait for the barrier that ends the previous step, and whatever thread 0 does between that
// barrier and its loads (clock64, the SlotsRef rules from constant memory, 64-bit compares and the
// running count: ~200 cycles of a ~4,500-cycle step at n = 8192, 2 blocks an SM) delays warp 0's
// loads and so the next barrier of all 8 warps. With a compile-time stride, 31 steps of 32 cost a
// test of the step index (`(step & 31) == 31`, two integer instructions, no state kept across the
// loop: the count is rows * cols * min(k0 + kStep, n), exact from k0), and the 32nd a multiply and
// a posted store: ~1/32 of the old cost plus ~0.05%, about +0.2%. The host still sees plenty: at
// n = 8192 a block runs ~2.3 ms and publishes every ~73 us, and ~264 resident blocks make a new
// total every ~0.3 us, more than the poller's ~5,000 reads a second take in (it saw 189 distinct
// values a kernel with the period rule).
// Measured with this stride on the H200: +2.1% to +2.5% over the twin in four runs, the
// same with the slots in device memory (+2.2%, +2.4%, +2.8%), so not the stores. This version
// holds the slot pointer, rows * cols and the step in registers (127 against the twin's 117,
// ptxas CUDA 13.0 sm_90; 2 blocks an SM either way); one that recomputed them at each publish
// from the parameters (121 registers) measured +3.9% / +4.1%, and was dropped. Nsight Compute on
// the short targets (gpu/progress.cuh, warm_up) points at latency added to each warp's path,
// not at instructions; for this kernel, whose every step ends in a barrier of 8 warps, thread
// 0's work after the barrier is such latency. Not met: the 0.5% target for kernels over 1 ms.
constexpr int kPublishSteps = 32;
static_assert((kPublishSteps & (kPublishSteps - 1)) == 0, "the test is a mask");

// Thread (tr, tc) of the 16 x 16 grid owns rows tr*4 + {0..3} and 64 + tr*4 + {0..3}, columns
// likewise: its 4-wide groups of a shared row are read as float4, and the 16 threads of a
// half-warp read 64 consecutive floats (no bank conflict).
template <bool kReport>
__global__ void __launch_bounds__(kLiveSgemmThreads)
    live_sgemm_kernel(const float* __restrict__ A, const float* __restrict__ B,
                      float* __restrict__ C, int n, SlotsRef slots) {
  __shared__ __align__(16) float as[kStep][kTile];  // A's tile, transposed: as[k][row]
  __shared__ __align__(16) float bs[kStep][kTile];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  const int tr = tid / 16, tc = tid % 16;
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;
  // The block's slot; its multiply-adds a k step: its rows times its columns (fewer at the edges).
  unsigned long long* const slot =
      kReport ? slots.slots + static_cast<unsigned long long>(blockIdx.y * gridDim.x + blockIdx.x) *
                                  slots.stride_words
              : nullptr;
  const unsigned long long rows = n - row0 < kTile ? n - row0 : kTile;
  const unsigned long long cols = n - col0 < kTile ? n - col0 : kTile;
  // A: 128 rows x 8 k a step, 4 consecutive k of one row a thread; B: 8 k x 128 columns,
  // 4 consecutive columns of one k a thread.
  const int a_row = tid / 2, a_k = (tid % 2) * 4;
  const int b_k = tid / 32, b_col = (tid % 32) * 4;
  for (int k0 = 0, step = 0; k0 < n; k0 += kStep, ++step) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int r = row0 + a_row, k = k0 + a_k + q;
      as[a_k + q][a_row] = (r < n && k < n) ? A[static_cast<std::size_t>(r) * n + k] : 0.f;
      const int kb = k0 + b_k, col = col0 + b_col + q;
      bs[b_k][b_col + q] = (kb < n && col < n) ? B[static_cast<std::size_t>(kb) * n + col] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kStep; ++k) {
      float ra[8], rb[8];
      const float4 a_lo = *reinterpret_cast<const float4*>(&as[k][tr * 4]);
      const float4 a_hi = *reinterpret_cast<const float4*>(&as[k][64 + tr * 4]);
      const float4 b_lo = *reinterpret_cast<const float4*>(&bs[k][tc * 4]);
      const float4 b_hi = *reinterpret_cast<const float4*>(&bs[k][64 + tc * 4]);
      ra[0] = a_lo.x, ra[1] = a_lo.y, ra[2] = a_lo.z, ra[3] = a_lo.w;
      ra[4] = a_hi.x, ra[5] = a_hi.y, ra[6] = a_hi.z, ra[7] = a_hi.w;
      rb[0] = b_lo.x, rb[1] = b_lo.y, rb[2] = b_lo.z, rb[3] = b_lo.w;
      rb[4] = b_hi.x, rb[5] = b_hi.y, rb[6] = b_hi.z, rb[7] = b_hi.w;
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
    }
    // Every warp has used the step's tiles (the next step overwrites them): steps 0..step are
    // done by the whole block, and thread 0 publishes them every kPublishSteps steps.
    __syncthreads();
    if (kReport && tid == 0 && (step & (kPublishSteps - 1)) == kPublishSteps - 1) {
      const unsigned long long k_done = n - k0 < kStep ? n : k0 + kStep;
      progress::publish(slot, rows * cols * k_done);
    }
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + (i < 4 ? tr * 4 + i : 64 + tr * 4 + (i - 4));
    if (r >= n) continue;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int col = col0 + (j < 4 ? tc * 4 + j : 64 + tc * 4 + (j - 4));
      if (col < n) C[static_cast<std::size_t>(r) * n + col] = acc[i][j];
    }
  }
  if (kReport && tid == 0) progress::publish(slot, rows * cols * static_cast<unsigned long long>(n));
}

__global__ void fill_uniform_kernel(float* p, std::size_t count, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    // splitmix64 of (seed, i): independent values, no state between threads.
    std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * (i + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    p[i] = static_cast<float>(z >> 40) * 0x1p-23f - 1.0f;  // 24 bits: [0, 2) - 1
  }
}

long long blocks_for(std::size_t threads, int block) {
  return static_cast<long long>((threads + static_cast<std::size_t>(block) - 1) / block);
}

}  // namespace

std::size_t live_writers(Strategy s, long long grid_blocks, int block) {
  switch (s) {
    case Strategy::live_block:
      return static_cast<std::size_t>(grid_blocks);
    case Strategy::live_warp:
      return static_cast<std::size_t>(grid_blocks) * static_cast<std::size_t>(block / 32);
    default:
      return 0;
  }
}

long long live_poisson_grid(Strategy s, std::size_t n, int block) {
  long long grid = 0;
  progress::dispatch_live(s, SlotsRef{}, [&](auto policy) {
    using Policy = decltype(policy);
    grid = persistent_grid(poisson_detail::fast_kernel<Policy>, block,
                           static_cast<long long>(poisson_detail::stream_blocks(n, block)));
  });
  return grid;
}

void live_poisson(Strategy s, const SlotBoard& board, std::int32_t* out, std::size_t n,
                  std::uint64_t seed, const tb::poisson::CdfTable& table, int block,
                  unsigned rows_per_report, cudaStream_t stream) {
  if (n == 0) return;
  check_live_block(s, block);
  if (rows_per_report == 0) rows_per_report = 1;
  const long long grid = live_poisson_grid(s, n, block);
  progress::dispatch_live(s, slots_for(s, board, grid, block), [&](auto policy) {
    using Policy = decltype(policy);
    poisson_detail::fast_kernel<Policy><<<static_cast<unsigned>(grid), block, 0, stream>>>(
        out, n, seed, table, rows_per_report, policy);
    CUDA_CHECK_LAUNCH();
  });
}

long long live_black_scholes_grid(std::size_t n, int block, bool persistent) {
  using namespace black_scholes_detail;
  const long long work = vec4_grid(n, block);
  if (!persistent) return work;
  return persistent_grid(black_scholes_vec4_full_kernel<FastPrice, progress::None>, block, work);
}

void live_black_scholes(Strategy s, const SlotBoard& board, const float* spot,
                        const float* strike, const float* years, float* call, float* put,
                        std::size_t n, BlackScholesMarket market, int block, bool persistent,
                        cudaStream_t stream) {
  using namespace black_scholes_detail;
  if (n == 0) return;
  if (!aligned16(spot) || !aligned16(strike) || !aligned16(years) || !aligned16(call) ||
      !aligned16(put))
    throw std::invalid_argument("live_black_scholes: all arrays must be 16-byte aligned");
  check_live_block(s, block);
  // The same grid for the twin and the instrumented kernel (the None kernel's occupancy: the
  // policies fit the same 32 registers under the kernel's launch bounds).
  const long long grid = live_black_scholes_grid(n, block, persistent);
  progress::dispatch_live(s, slots_for(s, board, grid, block), [&](auto policy) {
    using Policy = decltype(policy);
    black_scholes_vec4_full_kernel<FastPrice, Policy>
        <<<static_cast<unsigned>(grid), block, 0, stream>>>(
            reinterpret_cast<const float4*>(spot), reinterpret_cast<const float4*>(strike),
            reinterpret_cast<const float4*>(years), reinterpret_cast<float4*>(call),
            reinterpret_cast<float4*>(put), n, coefficients(market), policy);
    CUDA_CHECK_LAUNCH();
  });
}

long long live_nested_loop_grid(std::size_t n, int block, bool warp) {
  return blocks_for(warp ? n * nested_loop_detail::kWarp : n, block);
}

void live_nested_loop(Strategy s, const SlotBoard& board, double* results, std::size_t n,
                      std::size_t m, int block, bool warp, cudaStream_t stream) {
  if (warp && (block <= 0 || block % nested_loop_detail::kWarp != 0))
    throw std::invalid_argument("live_nested_loop: the warp kernel needs a multiple of 32");
  if (n == 0) return;
  check_live_block(s, block);
  const long long grid = live_nested_loop_grid(n, block, warp);
  progress::dispatch_live(s, slots_for(s, board, grid, block), [&](auto policy) {
    using Policy = decltype(policy);
    if (warp)
      nested_loop_detail::warp_kernel<Policy><<<static_cast<unsigned>(grid), block, 0, stream>>>(
          results, static_cast<std::int64_t>(n), static_cast<std::int64_t>(m), policy);
    else
      nested_loop_detail::thread_kernel<Policy><<<static_cast<unsigned>(grid), block, 0, stream>>>(
          results, static_cast<std::int64_t>(n), static_cast<std::int64_t>(m), policy);
    CUDA_CHECK_LAUNCH();
  });
}

long long live_vector_add_grid(std::size_t n, int block) {
  // The twin's grid for both, so that they differ only in the reporting.
  return vector_add_grid_for<false>(n, block);
}

void live_vector_add(Strategy s, const SlotBoard& board, const float* a, const float* b,
                     float* c, std::size_t n, int block, cudaStream_t stream) {
  if (n == 0) return;
  if (block % 32 != 0 || block <= 0 || block > 1024)
    throw std::invalid_argument("live_vector_add: block must be a multiple of 32, <= 1024");
  if (s != Strategy::none && s != Strategy::live_block)
    throw std::invalid_argument("live_vector_add: none or live_block");
  const bool bulk = aligned16(a) && aligned16(b);
  const long long grid = live_vector_add_grid(n, block);
  const std::size_t smem = vector_add_detail::tile_smem_bytes(block);
  if (s == Strategy::none) {
    live_vector_add_kernel<false>
        <<<static_cast<unsigned>(grid), block, smem, stream>>>(a, b, c, n, bulk, SlotsRef{});
  } else {
    live_vector_add_kernel<true><<<static_cast<unsigned>(grid), block, smem, stream>>>(
        a, b, c, n, bulk, board.ref(static_cast<std::size_t>(grid)));
  }
  CUDA_CHECK_LAUNCH();
}

long long live_sgemm_grid(std::size_t n) {
  const long long t = static_cast<long long>((n + kTile - 1) / kTile);
  return t * t;
}

void live_sgemm(Strategy s, const SlotBoard& board, const float* a, const float* b, float* c,
                std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  if (n > (std::size_t{1} << 20)) throw std::invalid_argument("live_sgemm: n too large");
  if (s != Strategy::none && s != Strategy::live_block)
    throw std::invalid_argument("live_sgemm: none or live_block");
  const unsigned t = static_cast<unsigned>((n + kTile - 1) / kTile);
  const dim3 grid(t, t);
  if (s == Strategy::none) {
    live_sgemm_kernel<false>
        <<<grid, kLiveSgemmThreads, 0, stream>>>(a, b, c, static_cast<int>(n), SlotsRef{});
  } else {
    live_sgemm_kernel<true><<<grid, kLiveSgemmThreads, 0, stream>>>(
        a, b, c, static_cast<int>(n), board.ref(static_cast<std::size_t>(t) * t));
  }
  CUDA_CHECK_LAUNCH();
}

void live_fill_uniform(float* p, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  if (count == 0) return;
  fill_uniform_kernel<<<1024, 256, 0, stream>>>(p, count, seed);
  CUDA_CHECK_LAUNCH();
}

}  // namespace tb::gpu
