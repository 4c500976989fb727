#pragma once
// The vector_add kernels, as templates on a progress policy (gpu/progress.cuh):
// gpu/vector_add.cu launches them with progress::None (both report calls compile to nothing),
// gpu/progress_bench.cu with each counting strategy, so the overhead it measures is that of
// the counting on this very kernel.
#include <cuda_runtime.h>

#include <cstddef>

#include "gpu/progress.cuh"

namespace tb::gpu::vector_add_detail {

// Each thread moves kVecPerThread float4s, a block-width apart so that every warp-wide access
// is contiguous: 16-byte loads, and four independent loads in flight per thread before the
// first store, which is what it takes to cover HBM latency. (A first version with a
// persistent grid-stride loop reached 92% of the copy bandwidth; Thrust's transform, which
// does the same as this, 104%.)
constexpr int kVecPerThread = 4;

// Every thread, in range or not, reaches the single report point at its end: per_warp and
// per_block need whole warps and blocks there.
template <class Progress>
__global__ void vec4_kernel(const float4* __restrict__ a, const float4* __restrict__ b,
                            float4* __restrict__ c, std::size_t n4, Progress progress) {
  const std::size_t base =
      static_cast<std::size_t>(blockIdx.x) * blockDim.x * kVecPerThread + threadIdx.x;
  float4 x[kVecPerThread], y[kVecPerThread];
#pragma unroll
  for (int k = 0; k < kVecPerThread; ++k) {
    const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
    if (i < n4) {
      x[k] = __ldcs(a + i);  // streaming: read once, do not keep in L1/L2
      y[k] = __ldcs(b + i);
    }
  }
  unsigned done = 0;
#pragma unroll
  for (int k = 0; k < kVecPerThread; ++k) {
    const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
    if (i < n4) {
      __stcs(c + i, make_float4(x[k].x + y[k].x, x[k].y + y[k].y, x[k].z + y[k].z, x[k].w + y[k].w));
      done += 4;
    }
  }
  progress.done(done);
  progress.finish();
}

// The n % 4 last elements: one block of 32 threads.
template <class Progress>
__global__ void tail_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ c, std::size_t begin, std::size_t n,
                            Progress progress) {
  const std::size_t i = begin + threadIdx.x;
  unsigned done = 0;
  if (i < n) {
    c[i] = a[i] + b[i];
    done = 1;
  }
  progress.done(done);
  progress.finish();
}

inline long long vec4_grid(std::size_t n, int block) {
  const std::size_t per_block = static_cast<std::size_t>(block) * kVecPerThread;
  return static_cast<long long>((n / 4 + per_block - 1) / per_block);
}

// Launches both kernels for c = a + b (a, b, c 16-byte aligned).
template <class Progress>
void launch(const float* a, const float* b, float* c, std::size_t n, int block,
            cudaStream_t stream, Progress progress) {
  const std::size_t n4 = n / 4;
  if (n4 > 0) {
    vec4_kernel<Progress><<<static_cast<unsigned>(vec4_grid(n, block)), block, 0, stream>>>(
        reinterpret_cast<const float4*>(a), reinterpret_cast<const float4*>(b),
        reinterpret_cast<float4*>(c), n4, progress);
    CUDA_CHECK_LAUNCH();
  }
  if (n % 4 != 0) {
    tail_kernel<Progress><<<1, 32, 0, stream>>>(a, b, c, n4 * 4, n, progress);
    CUDA_CHECK_LAUNCH();
  }
}

}  // namespace tb::gpu::vector_add_detail
