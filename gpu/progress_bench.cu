#include <cstdint>
#include <stdexcept>

#include "common/cuda_check.hpp"
#include "gpu/kernel_stats.cuh"
#include "gpu/poisson_kernel.cuh"
#include "gpu/progress.cuh"
#include "gpu/progress_bench.hpp"

namespace tb::gpu {
namespace {

using tb::progress::Strategy;

// gpu/vector_add.cu's vec4 kernel with report points. The loop bound depends only on the
// block's base, so every thread of a block runs the same number of iterations and reaches the
// same report points (per_block and strided hold a barrier there).
template <class Progress>
__global__ void vadd_vec4_kernel(const float4* __restrict__ a, const float4* __restrict__ b,
                                 float4* __restrict__ c, std::size_t n4, Progress progress) {
  Progress p = progress;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned pending = 0;
  unsigned since_report = 0;
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * blockDim.x; base < n4;
       base += stride) {
    const std::size_t i = base + threadIdx.x;
    if (i < n4) {
      const float4 x = __ldcs(a + i);
      const float4 y = __ldcs(b + i);
      __stcs(c + i, make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w));
      pending += 4;
    }
    if (++since_report == kVectorAddItersPerReport) {
      p.done(pending);
      pending = 0;
      since_report = 0;
    }
  }
  if (since_report != 0) p.done(pending);
  p.finish();
}

// The n % 4 last elements: one block of 32 threads.
template <class Progress>
__global__ void vadd_tail_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                 float* __restrict__ c, std::size_t begin, std::size_t n,
                                 Progress progress) {
  Progress p = progress;
  const std::size_t i = begin + threadIdx.x;
  unsigned count = 0;
  if (i < n) {
    c[i] = a[i] + b[i];
    count = 1;
  }
  p.done(count);
  p.finish();
}

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
long long vec4_grid(std::size_t n, int block) {
  return persistent_grid(vadd_vec4_kernel<Progress>, block,
                         static_cast<long long>((n / 4 + block - 1) / block));
}

template <class Progress>
long long poisson_grid(std::size_t n, int block) {
  return persistent_grid(poisson_detail::fast_kernel<Progress>, block,
                         static_cast<long long>(poisson_detail::stream_blocks(n, block)));
}

}  // namespace

void progress_vector_add(Strategy s, tb::progress::CounterRef counter, const float* a,
                         const float* b, float* c, std::size_t n, int block, cudaStream_t stream) {
  if (n == 0) return;
  if (!aligned16(a) || !aligned16(b) || !aligned16(c))
    throw std::invalid_argument("progress_vector_add: a, b and c must be 16-byte aligned");
  check_block_for(s, block);
  progress::dispatch(s, counter, [&](auto policy) {
    using Policy = decltype(policy);
    const std::size_t n4 = n / 4;
    if (n4 > 0) {
      vadd_vec4_kernel<Policy>
          <<<static_cast<unsigned>(vec4_grid<Policy>(n, block)), block, 0, stream>>>(
              reinterpret_cast<const float4*>(a), reinterpret_cast<const float4*>(b),
              reinterpret_cast<float4*>(c), n4, policy);
      CUDA_CHECK_LAUNCH();
    }
    if (n % 4 != 0) {
      vadd_tail_kernel<Policy><<<1, 32, 0, stream>>>(a, b, c, n4 * 4, n, policy);
      CUDA_CHECK_LAUNCH();
    }
  });
}

KernelStats progress_vector_add_stats(Strategy s, std::size_t n, int block) {
  KernelStats out;
  progress::dispatch(s, tb::progress::CounterRef{}, [&](auto policy) {
    using Policy = decltype(policy);
    out =
        kernel_stats(vadd_vec4_kernel<Policy>, block, n / 4 > 0 ? vec4_grid<Policy>(n, block) : 0);
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

KernelStats progress_vector_add_article_stats(std::size_t n, int block) {
  return kernel_stats(vadd_article_kernel, block, static_cast<long long>((n + block - 1) / block));
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

}  // namespace tb::gpu
