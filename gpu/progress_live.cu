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
  progress::dispatch_live<true>(s, slots_for(s, board, grid, block), [&](auto policy) {
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
  progress::dispatch_live<true>(s, slots_for(s, board, grid, block), [&](auto policy) {
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

void live_fill_uniform(float* p, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  if (count == 0) return;
  fill_uniform_kernel<<<1024, 256, 0, stream>>>(p, count, seed);
  CUDA_CHECK_LAUNCH();
}

}  // namespace tb::gpu
