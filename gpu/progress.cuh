#pragma once
// Progress counting inside a kernel, device side (host side: common/progress.hpp).
//
// A kernel takes a policy as a template parameter, `template <class Progress> __global__ void
// k(..., Progress p)`, copies it into a local (`Progress prog = p;`), calls prog.start() once,
// with every thread of the block, before its first report, prog.done(count) at report points
// with the number of items this thread finished since its last report, and prog.finish() once
// at the end. Every thread of a block must make the same sequence of calls
// (per_warp shuffles across the full warp, per_block and strided hold a barrier), so report
// points sit in block-uniform control flow: a grid-stride loop whose bound depends only on
// the block's base index, with an `if (i < n)` inside. With None both calls are empty and
// the kernel is the uninstrumented one.
//
// The counter is a 64-bit word in device memory or in mapped pinned host memory. The host only
// reads it, so the adds need only be atomic among the GPU's threads; for the mapped word each
// one must also reach host memory rather than linger in the L2 (see CounterRef).
#include <cuda_runtime.h>

#include "common/progress.hpp"

namespace tb::gpu::progress {

using CounterWord = unsigned long long;

__device__ __forceinline__ unsigned warp_sum(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(0xffffffffu, v);
#else
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
#endif
}

// The block's total of `v`, valid in thread 0. One barrier per call: the warps' sums go to one
// of two buffers, alternating, so a warp can write call k+1's sum while warp 0 may still be
// reading call k's (a write into the buffer of call k+2 needs call k+1's barrier, which warp 0
// only reaches after its read of call k). Needs blockDim.x a multiple of 32 (check_block).
__device__ __forceinline__ unsigned block_sum(unsigned v, unsigned& parity) {
  __shared__ unsigned warp_sums[2][32];
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x >> 5;
  const unsigned w = warp_sum(v);
  if (lane == 0) warp_sums[parity][warp] = w;
  __syncthreads();
  unsigned total = 0;
  if (warp == 0) {
    const unsigned warps = blockDim.x >> 5;
    total = warp_sum(lane < warps ? warp_sums[parity][lane] : 0u);
  }
  parity ^= 1u;
  return total;
}

__device__ __forceinline__ void add(const tb::progress::CounterRef& c, CounterWord v) {
  if (c.system_scope) {
    atomicAdd_system(c.ptr, v);
  } else {
    atomicAdd(c.ptr, v);
    if (c.fence_system) __threadfence_system();
  }
}

struct None {
  __device__ __forceinline__ void start() {}
  __device__ __forceinline__ void done(unsigned) {}
  __device__ __forceinline__ void finish() {}
};

// The article's: every thread adds its own count.
struct PerThread {
  tb::progress::CounterRef counter;
  __device__ __forceinline__ void start() {}
  __device__ __forceinline__ void done(unsigned count) {
    if (count) add(counter, count);
  }
  __device__ __forceinline__ void finish() {}
};

struct PerWarp {
  tb::progress::CounterRef counter;
  __device__ __forceinline__ void start() {}
  __device__ __forceinline__ void done(unsigned count) {
    const unsigned sum = warp_sum(count);
    if ((threadIdx.x & 31u) == 0 && sum) add(counter, sum);
  }
  __device__ __forceinline__ void finish() {}
};

// The block's running total in shared memory: the warps' counts not yet on the counter, and
// how many warp reports of the current round have arrived. 32 bits, as block_sum's total: a
// round is one report of each warp of the block.
struct BlockTally {
  unsigned pending;
  unsigned arrivals;
};
__device__ __forceinline__ BlockTally& block_tally() {
  __shared__ BlockTally tally;
  return tally;
}

// One counter add per round of warp reports, without a barrier: each warp adds its sum to the
// block's tally, and the warp whose report completes a round (atomicInc wraps the arrivals at
// the block's warp count) moves the whole pending total to the counter. Every warp makes the
// same number of reports, so the block's last report completes the last round and the final
// count is exact; a count reaches the counter only after the warp that made it is done.
// The fences order a warp's pending add before its arrival, and the round's arrivals before
// the exchange that takes the total, so every count is taken by some exchange.
// (The previous version summed the block with a barrier at every report, block_sum: in the
// Poisson kernel at 10M samples, whose threads make 38 samples and one report, the H200 measured
// +4.4% against +2.5% for per_warp; the barrier holds every warp of a block until its slowest
// walk ends. Nsight Compute at base clocks: +2.7% instructions, +4.1% cycles. This version is
// the "last block done" pattern of the CUDA samples' threadFenceReduction, per warp instead of
// per block (ptxas, sm_90: no barrier in the report, 3 shared atomics). Measured on the H200
// (results/nvidia-h200/2026-12-01): +3.70% at 10M, +1.86% at 100M, where the barrier version
// measured +4.38% / +1.14%; why 10M stays above 1%: gpu/progress_bench.hpp.)
struct PerBlock {
  tb::progress::CounterRef counter;
  __device__ __forceinline__ void start() {
    if (threadIdx.x == 0) block_tally() = BlockTally{0u, 0u};
    __syncthreads();
  }
  __device__ __forceinline__ void done(unsigned count) {
    const unsigned sum = warp_sum(count);
    if ((threadIdx.x & 31u) != 0) return;
    BlockTally& tally = block_tally();
    if (sum) atomicAdd(&tally.pending, sum);
    __threadfence_block();
    const unsigned last = (blockDim.x >> 5) - 1u;
    if (atomicInc(&tally.arrivals, last) != last) return;
    __threadfence_block();
    const unsigned total = atomicExch(&tally.pending, 0u);
    if (total) add(counter, total);
  }
  __device__ __forceinline__ void finish() {}
};

// Block sums, added to the counter on every kStridedK-th report and at the end: K times fewer
// atomics than per_block, and the final count is still exact.
struct Strided {
  tb::progress::CounterRef counter;
  unsigned parity = 0;
  unsigned reports = 0;
  CounterWord pending = 0;  // thread 0's
  __device__ __forceinline__ void start() {}
  __device__ __forceinline__ void done(unsigned count) {
    const unsigned total = block_sum(count, parity);
    if (threadIdx.x == 0) {
      pending += total;
      if (++reports == tb::progress::kStridedK) {
        if (pending) add(counter, pending);
        pending = 0;
        reports = 0;
      }
    }
  }
  __device__ __forceinline__ void finish() {
    if (threadIdx.x == 0 && pending) add(counter, pending);
    pending = 0;
  }
};

// Calls f(policy) with the policy object of strategy s on `counter`: the one place where a
// runtime strategy becomes a template argument.
template <class F>
void dispatch(tb::progress::Strategy s, tb::progress::CounterRef counter, F&& f) {
  using tb::progress::Strategy;
  switch (s) {
    case Strategy::none:
      f(None{});
      return;
    case Strategy::per_thread:
      f(PerThread{counter});
      return;
    case Strategy::per_warp:
      f(PerWarp{counter});
      return;
    case Strategy::per_block:
      f(PerBlock{counter});
      return;
    case Strategy::strided:
      f(Strided{counter});
      return;
  }
}

}  // namespace tb::gpu::progress
