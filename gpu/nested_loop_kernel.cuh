#pragma once
// The nested_loop kernels, as templates on a progress policy (gpu/progress.cuh):
// gpu/nested_loop.cu launches them with progress::None (the report calls compile to nothing),
// gpu/progress_bench.cu with each counting strategy, so the overhead it measures is that of the
// counting on these very kernels. Progress counts inner iterations (j), the workload's items:
// n * m in all.
#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/progress.cuh"

namespace tb::gpu::nested_loop_detail {

constexpr int kWarp = 32;

// Same expression and order as the CPU's nested_loop::row. nvcc contracts the multiply by 0.1
// and the add into one DFMA; the int64 product converted to double (I2F.F64) keeps the loop a
// loop: floating-point adds cannot be reassociated into the closed form without fast math.
__device__ __forceinline__ double row(std::int64_t i, std::int64_t begin, std::int64_t end,
                                      std::int64_t step) {
  double s = 0.0;
  for (std::int64_t j = begin; j < end; j += step) s += static_cast<double>(i * j) * 0.1;
  return s;
}

// One thread per i. Every thread, in range or not, reaches the single report point at its end
// (per_warp and per_block need whole warps and blocks there), with the m iterations of its row.
template <class Progress>
__global__ void thread_kernel(double* __restrict__ results, std::int64_t n, std::int64_t m,
                              Progress progress) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  Progress p = progress;
  p.start();
  if (i < n) results[i] = row(i, 0, m, 1);
  p.done(i < n ? static_cast<unsigned>(m) : 0u);
  p.finish();
}

// Lane l sums j = l, l+32, ...; the lanes' partial sums then meet in a shuffle tree. The whole
// warp takes the same branch (i is uniform across it), so the full mask is valid. No early
// return: the warps past n still reach the report point. Each lane reports its own iterations.
template <class Progress>
__global__ void warp_kernel(double* __restrict__ results, std::int64_t n, std::int64_t m,
                            Progress progress) {
  const std::int64_t i = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  Progress p = progress;
  p.start();
  if (i < n) {
    double s = row(i, lane, m, kWarp);
    for (int offset = kWarp / 2; offset > 0; offset /= 2)
      s += __shfl_down_sync(0xffffffffu, s, offset);
    if (lane == 0) results[i] = s;
  }
  p.done(i < n && lane < m ? static_cast<unsigned>((m - lane + kWarp - 1) / kWarp) : 0u);
  p.finish();
}

}  // namespace tb::gpu::nested_loop_detail
