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

// The table's thresholds go to shared memory: the walk indexes them with a loop counter.
struct FastSample {
  const std::uint64_t* thr;
  tb::poisson::TailParams tail;
  __device__ int operator()(rng::Xoroshiro128p& s) const {
    return tb::poisson::sample_fast(s, thr, tail);
  }
};

template <class Progress>
__global__ void fast_kernel(std::int32_t* __restrict__ out, std::size_t n, std::uint64_t seed,
                            tb::poisson::CdfTable table, unsigned report_every, Progress progress) {
  __shared__ std::uint64_t thr[tb::poisson::kTableSize];
  for (int k = threadIdx.x; k < tb::poisson::kTableSize; k += blockDim.x) thr[k] = table.thr[k];
  __syncthreads();
  FastSample sample{thr, table.tail};
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
