#pragma once
// The Poisson kernels, as templates: gpu/poisson.cu instantiates them without progress
// counting, gpu/progress_bench.cu with each counting strategy.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "common/poisson_sampler.hpp"
#include "gpu/progress.cuh"

namespace tb::gpu::poisson_detail {

using tb::poisson::kStreams;

// Whether a policy counts at all: progress::None reports nothing, so its rows need no chunks.
template <class Progress>
inline constexpr bool kCounts = !std::is_same_v<Progress, tb::gpu::progress::None>;

// Thread t (grid-stride over the streams) owns stream t and writes its samples t, t + kStreams,
// t + 2 kStreams, ...: a warp's stores are contiguous. The thread's rows go in chunks of
// `report_every` (all of them in one chunk with None), with a report after each chunk.
//
// The row loop has nothing but the sample and its store: the thread's row count rows_t is
// computed once, each chunk's count once, so the instrumented kernels run the very row loop of
// the uninstrumented one. (The previous version checked `t < streams && i < n`, bumped two
// report counters and compared one with report_every in every row; with those and the policy's
// state live across the sample the capped instrumented kernels spilled in the row loop, and the
// H200 measured per_block +21% (100M samples), per_warp +28%, strided +42%.)
//
// Report points are block-uniform (gpu/progress.cuh): the chunk loop runs to `rows`, the row
// count of stream 0 (the most any stream has), the same for every thread of the grid, and a
// thread with fewer rows (or none: t >= streams in the last tile) reports 0 for the chunks past
// its end. The stream loop's bound depends only on the block's base.
template <class Sample, class Progress>
__device__ void run_streams(std::int32_t* __restrict__ out, std::size_t n, std::uint64_t seed,
                            unsigned report_every, Sample& sample, Progress& progress) {
  const std::uint64_t streams = n < kStreams ? n : kStreams;
  const std::size_t rows = (n + kStreams - 1) / kStreams;
  const std::size_t chunk = kCounts<Progress> ? (report_every > 0 ? report_every : 1u) : rows;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x; base < streams;
       base += stride) {
    const std::uint64_t t = base + threadIdx.x;
    // Samples i = t + r kStreams < n, for t < streams <= n. 32 bits: n < 2^50.
    const unsigned rows_t =
        t < streams ? static_cast<unsigned>((n - t + kStreams - 1) / kStreams) : 0u;
    rng::Xoroshiro128p state = rng::seed_stream(seed, t);
    std::int32_t* __restrict__ p = out + (t < streams ? t : 0);
    for (std::size_t c0 = 0; c0 < rows; c0 += chunk) {
      const unsigned count =
          rows_t > c0 ? static_cast<unsigned>(rows_t - c0 < chunk ? rows_t - c0 : chunk) : 0u;
      for (unsigned k = count; k != 0; --k) {
        *p = sample(state);
        p += kStreams;
      }
      progress.done(count);
    }
  }
  progress.finish();
}

// The table's thresholds and guide go to shared memory: the walk indexes them with values that
// differ between lanes. The tail parameters too (read only on the tail path, which rate 5 never
// takes), rather than held in registers across the row loop.
struct FastSample {
  const tb::poisson::CdfTable* table;
  __device__ int operator()(rng::Xoroshiro128p& s) const {
    return tb::poisson::sample_fast(s, table->thr, table->guide, table->tail);
  }
};

// The table's address, from lane 0 by a shuffle. The value is what it was; the point is that
// ptxas cannot recompute a shuffle's result, so it keeps the address in a uniform register
// across the row loop. Without the shuffle, ptxas (CUDA 13.0, sm_90) did so only in
// fast_kernel<None>: every instrumented policy, even uncapped (54 registers), recomputed the
// address in every row (S2R SR_CgaCtaId, MOV, LEA: the CTA's shared window), two instructions
// a row more than None, one of them a variable-latency S2R. All threads of the block call this
// right after a barrier, so whole warps are converged. Only for whole warps (blocks that are a
// multiple of 32, which every counting strategy but none and per_thread requires): a partial
// warp cannot take the full mask, and a mask computed from threadIdx made ptxas hold the
// address in an ordinary register, which at the 40-register cap cost spills in every policy.
__device__ __forceinline__ const tb::poisson::CdfTable* opaque_shared_address(
    const tb::poisson::CdfTable* table) {
  auto addr = static_cast<unsigned>(__cvta_generic_to_shared(table));
  if (blockDim.x % 32u == 0) addr = __shfl_sync(0xffffffffu, addr, 0);
  return static_cast<const tb::poisson::CdfTable*>(__cvta_shared_to_generic(addr));
}

// Registers are capped at 40 for every progress policy, so that all of them have the
// occupancy and the persistent grid (gpu/kernel_stats.cuh persistent_grid, which asks the
// occupancy API) of the uninstrumented kernel: 40 a thread is 6 blocks of 256 an SM, 792 blocks
// on the H200. ptxas (CUDA 13.0, sm_90), this code:
// - at 40: every policy runs the same row (35 instructions from the row loop's head to its
//   back-branch when the walk ends at its first compare, no local memory); None, PerThread
//   and PerWarp spill nothing; PerBlock (20 bytes) and Strided (48 bytes) spill only outside
//   the row loop: one reload a chunk, and a few a stream tile.
// - uncapped: None 48, PerThread 50, PerWarp 50, PerBlock 49, Strided 52 registers, no spills;
//   5 blocks of 256 an SM, a different grid (660 blocks for the 1024 stream tiles) and 1/6
//   fewer warps to hide the walk's latency than at 40. Measured with the previous row loop,
//   such a grid difference was most of per_block's and strided's overhead.
// - at 48: the same 35-instruction row, no spills, but 5 blocks an SM (as uncapped).
// - at 32 (8 blocks, all 2^18 streams in one wave): 41 instructions a row with 3 local loads
//   in the row loop, for every policy, None included.
// (The previous row loop, at 40: None 50 instructions a row; PerThread and PerWarp 61, with
// the table's address recomputed every row; PerBlock 61 with 2 local loads; Strided 73 with 4.)
// __maxnreg__ rather than __launch_bounds__: it caps registers without limiting the block size.
constexpr int kFastMaxRegisters = 40;

template <class Progress>
__global__ void __maxnreg__(kFastMaxRegisters)
    fast_kernel(std::int32_t* __restrict__ out, std::size_t n, std::uint64_t seed,
                tb::poisson::CdfTable table, unsigned report_every, Progress progress) {
  __shared__ tb::poisson::CdfTable shared;
  for (int k = threadIdx.x; k < tb::poisson::kTableSize; k += blockDim.x)
    shared.thr[k] = table.thr[k];
  for (int j = threadIdx.x; j < tb::poisson::kGuideSize; j += blockDim.x)
    shared.guide[j] = table.guide[j];
  if (threadIdx.x == 0) shared.tail = table.tail;
  __syncthreads();
  FastSample sample{opaque_shared_address(&shared)};
  Progress p = progress;
  p.start();
  run_streams(out, n, seed, report_every, sample, p);
}

struct ArticleSample {
  double rate;
  __device__ int operator()(rng::Xoroshiro128p& s) const {
    return tb::poisson::sample_article(s, rate);
  }
};

// The article kernel's row loop: the same samples at the same indices as run_streams, with a
// bounds check in every row. It counts only as the article does (article_kernel), and
// run_streams's loop gave it 46 registers instead of 38 (ptxas, CUDA 13.0, sm_90: 5 blocks of
// 256 an SM instead of 6), so it keeps the loop it was measured with.
template <class Sample, class Progress>
__device__ void run_streams_checked(std::int32_t* __restrict__ out, std::size_t n,
                                    std::uint64_t seed, Sample& sample, Progress& progress) {
  const std::uint64_t streams = n < kStreams ? n : kStreams;
  const std::size_t rows = (n + kStreams - 1) / kStreams;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x; base < streams;
       base += stride) {
    const std::uint64_t t = base + threadIdx.x;
    rng::Xoroshiro128p state = rng::seed_stream(seed, t);
    for (std::size_t r = 0; r < rows; ++r) {
      const std::size_t i = r * kStreams + t;
      // t < streams: the last tile's extra threads would otherwise alias the next row.
      if (t < streams && i < n) {
        out[i] = sample(state);
        progress.done(1u);  // None: nothing; PerThread: the article's atomic per sample
      }
    }
  }
}

// Counting as the article does, if at all: PerThread adds one per sample, inside the bounds
// check. The other policies need block-uniform report points (gpu/progress.cuh) and are not
// offered here.
template <class Progress>
__global__ void article_kernel(std::int32_t* __restrict__ out, std::size_t n, std::uint64_t seed,
                               double rate, unsigned /*report_every*/, Progress progress) {
  static_assert(std::is_same_v<Progress, tb::gpu::progress::None> ||
                    std::is_same_v<Progress, tb::gpu::progress::PerThread>,
                "article_kernel counts as the article does (PerThread) or not at all");
  ArticleSample sample{rate};
  Progress p = progress;
  run_streams_checked(out, n, seed, sample, p);
}

// Blocks for n samples: one thread per stream, at most a full GPU's worth (grid-stride beyond).
inline std::uint64_t stream_blocks(std::size_t n, int block) {
  const std::uint64_t streams = n < kStreams ? n : kStreams;
  return (streams + block - 1) / block;
}

// The article's launch: one thread per generator, all of them in the grid
// (create_xoroshiro128p_states(blocks * threads) and kernel[blocks, threads]), the hardware
// scheduling the blocks that do not fit at once. The port first launched the persistent grid
// of the suite's other kernels (132 SMs x the resident blocks, each thread taking a second
// generator when its first is done: 2^18 generators over 168,960 threads at 40 warps an SM);
// on the H200 that was 9-11% slower than the article's Numba kernel at blocks of 64 to 256
// (a run since replaced, in git history; 10M samples, block 64: 1372.7 against 1235.8 us) and
// within 2.4% at 512 and 1024. With this launch, the kernel's code unchanged (one run,
// results/nvidia-h200/2026-12-01), C++ / Numba kernel-only: 10M 1233.7 / 1235.4 us at block 64,
// 1220.0 / 1220.6 at 256, 1163.3 / 1167.0 at 1024; 100M 12145 / 12162 at 64, 11296 / 11429 at
// 1024: no slower at any block. It was the launch, not the registers or the waves
// (experiments/h200-2026-12-01/poisson-waves, the same H200): at a block of 64 the kernel's
// time is flat within 1% from 24 to 40 resident warps an SM (1.55 to 2.59 waves of
// generators: 1233-1241 us at 10M), and capping it at 40 registers (Numba has 50, this 44)
// changes nothing (1236 us); it rises only at 20 warps and fewer (1267 us at 20, 1329 at 16).
// What in the persistent grid cost the 11% was not profiled: its 55% of threads with a second
// generator walk it after their first, a static split the hardware's block scheduler does not
// have to make, but at 22 warps an SM the flat curve above predicts ~1% for that phase, not 11%.
inline unsigned article_grid(std::size_t n, int block) {
  return static_cast<unsigned>(stream_blocks(n, block));
}

}  // namespace tb::gpu::poisson_detail
