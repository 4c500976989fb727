#pragma once
// Progress counting inside a kernel, device side (host side: common/progress.hpp).
//
// A kernel takes a policy as a template parameter, `template <class Progress> __global__ void
// k(..., Progress p)`, copies it into a local (`Progress prog = p;`), calls prog.done(count) at
// report points with the number of items this thread finished since its last report, and
// prog.finish() once at the end. Every thread of a block must make the same sequence of calls
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
  __device__ __forceinline__ void done(unsigned) {}
  __device__ __forceinline__ void finish() {}
};

// The article's: every thread adds its own count.
struct PerThread {
  tb::progress::CounterRef counter;
  __device__ __forceinline__ void done(unsigned count) {
    if (count) add(counter, count);
  }
  __device__ __forceinline__ void finish() {}
};

struct PerWarp {
  tb::progress::CounterRef counter;
  __device__ __forceinline__ void done(unsigned count) {
    const unsigned sum = warp_sum(count);
    if ((threadIdx.x & 31u) == 0 && sum) add(counter, sum);
  }
  __device__ __forceinline__ void finish() {}
};

struct PerBlock {
  tb::progress::CounterRef counter;
  unsigned parity = 0;
  __device__ __forceinline__ void done(unsigned count) {
    const unsigned total = block_sum(count, parity);
    if (threadIdx.x == 0 && total) add(counter, total);
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
