#include <cstdint>
#include <stdexcept>

#include "common/cuda_check.hpp"
#include "gpu/black_scholes_kernel.cuh"
#include "gpu/kernel_stats.cuh"
#include "gpu/nested_loop_kernel.cuh"
#include "gpu/poisson_kernel.cuh"
#include "gpu/progress.cuh"
#include "gpu/progress_bench.hpp"
#include "gpu/vector_add_kernel.cuh"

namespace tb::gpu {
namespace {

using tb::progress::Strategy;

__global__ void vadd_article_kernel(const float* a, const float* b, float* c, std::size_t n,
                                    tb::progress::CounterRef counter) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i] = a[i] + b[i];
    progress::add(counter, 1ull);
  }
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// Warp sums shuffle across all 32 lanes and block sums count whole warps.
void check_block_for(Strategy s, int block) {
  if (block <= 0 || block > 1024)
    throw std::invalid_argument("progress: block size must be 1..1024");
  if (block % 32 != 0 && s != Strategy::none && s != Strategy::per_thread)
    throw std::invalid_argument(
        "progress: per_warp, per_block and strided need a block size that is a multiple of 32");
}

template <class Progress>
long long poisson_grid(std::size_t n, int block) {
  return persistent_grid(poisson_detail::fast_kernel<Progress>, block,
                         static_cast<long long>(poisson_detail::stream_blocks(n, block)));
}

// gpu/nested_loop.cu's grids: one thread, or one warp, per i.
long long blocks_for(std::size_t threads, int block) {
  return static_cast<long long>((threads + static_cast<std::size_t>(block) - 1) / block);
}

void check_warp_block(int block) {
  if (block <= 0 || block % nested_loop_detail::kWarp != 0)
    throw std::invalid_argument("progress_nested_loop_warp: block must be a multiple of 32");
}

}  // namespace

void progress_vector_add(Strategy s, tb::progress::CounterRef counter, const float* a,
                         const float* b, float* c, std::size_t n, int block, cudaStream_t stream) {
  if (n == 0) return;
  if (!aligned16(a) || !aligned16(b) || !aligned16(c))
    throw std::invalid_argument("progress_vector_add: a, b and c must be 16-byte aligned");
  check_block_for(s, block);
  progress::dispatch(s, counter, [&](auto policy) {
    vector_add_detail::launch(a, b, c, n, block, stream, policy);
  });
}

KernelStats progress_vector_add_stats(Strategy s, std::size_t n, int block) {
  KernelStats out;
  progress::dispatch(s, tb::progress::CounterRef{}, [&](auto policy) {
    using Policy = decltype(policy);
    // The grid launch() runs: one block per tile, so n = 1..3 is one block, not none. The
    // occupancy query passes no dynamic shared memory, which changes nothing here: the tiles
    // take 24 bytes per thread, 48 KiB for a full SM of 2048 threads.
    out = kernel_stats(vector_add_detail::tile_kernel<Policy>, block,
                       n > 0 ? vector_add_detail::tile_grid(n, block) : 0);
  });
  return out;
}

void progress_vector_add_article(tb::progress::CounterRef counter, const float* a, const float* b,
                                 float* c, std::size_t n, int block, cudaStream_t stream) {
  if (n == 0) return;
  const auto grid = static_cast<unsigned>((n + block - 1) / block);
  vadd_article_kernel<<<grid, block, 0, stream>>>(a, b, c, n, counter);
  CUDA_CHECK_LAUNCH();
}

void progress_poisson(Strategy s, tb::progress::CounterRef counter, std::int32_t* out,
                      std::size_t n, std::uint64_t seed, const tb::poisson::CdfTable& table,
                      int block, unsigned rows_per_report, cudaStream_t stream) {
  if (n == 0) return;
  if (rows_per_report == 0) rows_per_report = 1;
  check_block_for(s, block);
  progress::dispatch(s, counter, [&](auto policy) {
    using Policy = decltype(policy);
    poisson_detail::fast_kernel<Policy>
        <<<static_cast<unsigned>(poisson_grid<Policy>(n, block)), block, 0, stream>>>(
            out, n, seed, table, rows_per_report, policy);
    CUDA_CHECK_LAUNCH();
  });
}

KernelStats progress_poisson_stats(Strategy s, std::size_t n, int block) {
  KernelStats out;
  progress::dispatch(s, tb::progress::CounterRef{}, [&](auto policy) {
    using Policy = decltype(policy);
    out = kernel_stats(poisson_detail::fast_kernel<Policy>, block, poisson_grid<Policy>(n, block));
  });
  return out;
}

void progress_poisson_article(tb::progress::CounterRef counter, std::int32_t* out, std::size_t n,
                              std::uint64_t seed, double rate, int block, cudaStream_t stream) {
  if (n == 0) return;
  check_block_for(Strategy::per_thread, block);
  poisson_detail::article_kernel<progress::PerThread>
      <<<poisson_detail::article_grid(n, block), block, 0, stream>>>(
          out, n, seed, rate, 1u, progress::PerThread{counter});
  CUDA_CHECK_LAUNCH();
}

void progress_black_scholes(Strategy s, tb::progress::CounterRef counter, const float* spot,
                            const float* strike, const float* years, float* call, float* put,
                            std::size_t n, BlackScholesMarket market, int block,
                            cudaStream_t stream) {
  if (n == 0) return;
  if (!aligned16(spot) || !aligned16(strike) || !aligned16(years) || !aligned16(call) ||
      !aligned16(put))
    throw std::invalid_argument("progress_black_scholes: all arrays must be 16-byte aligned");
  check_block_for(s, block);
  progress::dispatch(s, counter, [&](auto policy) {
    using Policy = decltype(policy);
    black_scholes_detail::black_scholes_vec4_full_kernel<black_scholes_detail::FastPrice, Policy>
        <<<static_cast<unsigned>(black_scholes_detail::vec4_grid(n, block)), block, 0, stream>>>(
            reinterpret_cast<const float4*>(spot), reinterpret_cast<const float4*>(strike),
            reinterpret_cast<const float4*>(years), reinterpret_cast<float4*>(call),
            reinterpret_cast<float4*>(put), n, black_scholes_detail::coefficients(market), policy);
    CUDA_CHECK_LAUNCH();
  });
}

KernelStats progress_black_scholes_stats(Strategy s, std::size_t n, int block) {
  KernelStats out;
  progress::dispatch(s, tb::progress::CounterRef{}, [&](auto policy) {
    using Policy = decltype(policy);
    out = kernel_stats(
        black_scholes_detail::black_scholes_vec4_full_kernel<black_scholes_detail::FastPrice,
                                                             Policy>,
        block, black_scholes_detail::vec4_grid(n, block));
  });
  return out;
}

void progress_nested_loop(Strategy s, tb::progress::CounterRef counter, double* results,
                          std::size_t n, std::size_t m, int block, cudaStream_t stream) {
  if (n == 0) return;
  check_block_for(s, block);
  progress::dispatch(s, counter, [&](auto policy) {
    nested_loop_detail::
        thread_kernel<<<static_cast<unsigned>(blocks_for(n, block)), block, 0, stream>>>(
            results, static_cast<std::int64_t>(n), static_cast<std::int64_t>(m), policy);
    CUDA_CHECK_LAUNCH();
  });
}

KernelStats progress_nested_loop_stats(Strategy s, std::size_t n, int block) {
  KernelStats out;
  progress::dispatch(s, tb::progress::CounterRef{}, [&](auto policy) {
    using Policy = decltype(policy);
    out = kernel_stats(nested_loop_detail::thread_kernel<Policy>, block, blocks_for(n, block));
  });
  return out;
}

void progress_nested_loop_warp(Strategy s, tb::progress::CounterRef counter, double* results,
                               std::size_t n, std::size_t m, int block, cudaStream_t stream) {
  check_warp_block(block);
  if (n == 0) return;
  check_block_for(s, block);
  progress::dispatch(s, counter, [&](auto policy) {
    nested_loop_detail::
        warp_kernel<<<static_cast<unsigned>(blocks_for(n * nested_loop_detail::kWarp, block)),
                      block, 0, stream>>>(results, static_cast<std::int64_t>(n),
                                          static_cast<std::int64_t>(m), policy);
    CUDA_CHECK_LAUNCH();
  });
}

KernelStats progress_nested_loop_warp_stats(Strategy s, std::size_t n, int block) {
  KernelStats out;
  progress::dispatch(s, tb::progress::CounterRef{}, [&](auto policy) {
    using Policy = decltype(policy);
    out = kernel_stats(nested_loop_detail::warp_kernel<Policy>, block,
                       blocks_for(n * nested_loop_detail::kWarp, block));
  });
  return out;
}

}  // namespace tb::gpu
