#pragma once
// The Poisson kernels, as templates: gpu/poisson.cu instantiates them without progress
// counting, gpu/progress_bench.cu with each counting strategy.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "common/poisson_sampler.hpp"

namespace tb::gpu::poisson_detail {

using tb::poisson::kStreams;

// Thread t (grid-stride over the streams) owns stream t and writes its samples t, t + kStreams,
// t + 2 kStreams, ...: a warp's stores are contiguous. The row loop's bound is the same for
// every thread and the stream loop's depends only on the block's base, so report points are
// block-uniform (gpu/progress.cuh). A thread reports every `report_every` rows.
template <class Sample, class Progress>
__device__ void run_streams(std::int32_t* __restrict__ out, std::size_t n, std::uint64_t seed,
                            unsigned report_every, Sample& sample, Progress& progress) {
  const std::uint64_t streams = n < kStreams ? n : kStreams;
  const std::size_t rows = (n + kStreams - 1) / kStreams;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x; base < streams;
       base += stride) {
    const std::uint64_t t = base + threadIdx.x;
    rng::Xoroshiro128p state = rng::seed_stream(seed, t);
    unsigned pending = 0;
    unsigned since_report = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      const std::size_t i = r * kStreams + t;
      // t < streams: the last tile's extra threads would otherwise alias the next row.
      if (t < streams && i < n) {
        out[i] = sample(state);
        ++pending;
      }
      if (++since_report == report_every) {
        progress.done(pending);
        pending = 0;
        since_report = 0;
      }
    }
    if (since_report != 0) progress.done(pending);
  }
  progress.finish();
}

// The table's thresholds and guide go to shared memory: the walk indexes them with values that
// differ between lanes. The tail parameters too (read only on the tail path, which rate 5 never
// takes), rather than held in registers across the row loop.
struct FastSample {
  const std::uint64_t* thr;
  const std::uint8_t* guide;
  const tb::poisson::TailParams* tail;
  __device__ int operator()(rng::Xoroshiro128p& s) const {
    return tb::poisson::sample_fast(s, thr, guide, *tail);
  }
};

// Registers are capped at 40 for every progress policy, so that all of them have the
// occupancy and the persistent grid (gpu/kernel_stats.cuh persistent_grid, which asks the
// occupancy API) of the uninstrumented kernel. Uncapped, ptxas gave (sm_90, this code) None 40,
// PerThread 40, PerWarp 38, PerBlock 48, Strided 46 registers; 48 and 46 round up to 48 a
// thread, 5 blocks of 256 an SM instead of 6: the instrumented kernel then ran with 1/6 fewer
// warps to hide the walk's latency and with a different grid (660 blocks instead of 792 for the
// 1024 stream tiles, so a different wave split) than the `none` baseline it is compared with,
// which was most of per_block's and strided's measured overhead. At 40: None and PerWarp spill
// nothing, PerThread spills only on the tail path (never taken at rate 5), PerBlock and Strided
// reload one or two spilled words a row (L1 hits). 32 registers (8 blocks of 256, all 2^18
// streams in one wave) spilled in the hot loop of every policy, None included.
// __maxnreg__ rather than __launch_bounds__: it caps registers without limiting the block size.
constexpr int kFastMaxRegisters = 40;

template <class Progress>
__global__ void __maxnreg__(kFastMaxRegisters)
    fast_kernel(std::int32_t* __restrict__ out, std::size_t n, std::uint64_t seed,
                tb::poisson::CdfTable table, unsigned report_every, Progress progress) {
  __shared__ std::uint64_t thr[tb::poisson::kTableSize];
  __shared__ std::uint8_t guide[tb::poisson::kGuideSize];
  __shared__ tb::poisson::TailParams tail;
  for (int k = threadIdx.x; k < tb::poisson::kTableSize; k += blockDim.x) thr[k] = table.thr[k];
  for (int j = threadIdx.x; j < tb::poisson::kGuideSize; j += blockDim.x) guide[j] = table.guide[j];
  if (threadIdx.x == 0) tail = table.tail;
  __syncthreads();
  FastSample sample{thr, guide, &tail};
  Progress p = progress;
  run_streams(out, n, seed, report_every, sample, p);
}

struct ArticleSample {
  double rate;
  __device__ int operator()(rng::Xoroshiro128p& s) const {
    return tb::poisson::sample_article(s, rate);
  }
};

template <class Progress>
__global__ void article_kernel(std::int32_t* __restrict__ out, std::size_t n, std::uint64_t seed,
                               double rate, unsigned report_every, Progress progress) {
  ArticleSample sample{rate};
  Progress p = progress;
  run_streams(out, n, seed, report_every, sample, p);
}

// Blocks for n samples: one thread per stream, at most a full GPU's worth (grid-stride beyond).
inline std::uint64_t stream_blocks(std::size_t n, int block) {
  const std::uint64_t streams = n < kStreams ? n : kStreams;
  return (streams + block - 1) / block;
}

}  // namespace tb::gpu::poisson_detail
