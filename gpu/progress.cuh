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

#include <stdexcept>
#include <type_traits>

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
// (a run since replaced, in git history): +3.70% at 10M, +1.86% at 100M, where the barrier
// version measured +4.38% / +1.14%; results/nvidia-h200/2026-12-01 reads +3.20% / +1.89%; why
// 10M stays above 1%: gpu/progress_bench.hpp.)
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

// ---------------------------------------------------------------------------------------------
// Live progress the host reads while the kernel runs: slots in mapped host memory.
//
// Every counter above is one word that many threads add to: on the GPU that is a queue of atomics
// on one L2 line (vector_add's 349,525 blocks, one atomic each: +33% on the H200), and in mapped
// host memory each add must also cross PCIe, where the H200 has no atomics with the host, so it
// is an atomic in the L2 plus a system fence that waits for the round trip (+49,000% for the same
// kernel). The slots below need neither: each writer (a block, or a warp) owns one 64-bit slot
// and stores its running count there with a plain store; nobody else writes that slot, so no
// atomic is needed, and a store to host memory is posted (the SM does not wait for it). The host
// sums the slots (common/progress.hpp SlotBoard::read): each slot only grows, so the sum of
// slots read one after the other only grows too, and it ends at exactly the work done, since
// every writer stores its final count before it exits.
//
// The store is volatile: PTX treats st.volatile as st.relaxed.sys, a store the host (a
// system-scope observer) sees in finite time, rather than one the L2 may keep until the kernel
// ends. No fence: the count is a hint while the kernel runs, nothing is ordered after it, and the
// kernel's completion makes every store visible to whoever synchronises with the stream.
//
// A writer stores when `period_cycles` SM cycles have passed since its last store (clock64,
// cheap and per-SM, and a block never leaves its SM) or when its count crosses a multiple of
// 2^items_log2, and always at its end: the number of PCIe writes is bounded by the time the kernel
// runs, not by the work it does. The host chooses the period from the number of writers (SlotsRef,
// live_period_ns).
//
// To use it in your own kernel (the README has the host side):
//   __global__ void k(..., tb::progress::SlotsRef slots) {
//     tb::gpu::progress::Publisher pub;
//     if (threadIdx.x == 0) pub.init(slots, blockIdx.x);      // one writer per block
//     for (...tiles...) {
//       ...work on a tile...;
//       __syncthreads();                                       // the tile is done by every warp
//       if (threadIdx.x == 0) pub.add(slots, tile_items);      // stores only when due
//     }
//     if (threadIdx.x == 0) pub.flush();                       // the final, exact count
//   }
// or, in a kernel written for the policies of this file, LiveBlock / LiveWarp.

// The store the host sees while the kernel runs (st.volatile = st.relaxed.sys on sm_70+).
__device__ __forceinline__ void publish(unsigned long long* slot, unsigned long long value) {
  *reinterpret_cast<volatile unsigned long long*>(slot) = value;
}

// One writer: its slot, the total it was last offered, and when it last stored. Used by one
// thread. The rules (period, items) are read from the SlotsRef, a kernel parameter. Trivially
// constructible, so that the policies below can keep it in shared memory (init() sets every
// field).
struct Publisher {
  unsigned long long* slot;
  unsigned long long count;
  unsigned last;  // the low 32 bits of clock64: periods are below 2^31 cycles (~1 s)

  __device__ __forceinline__ void init(const tb::progress::SlotsRef& s, unsigned index) {
    slot = s.slots + static_cast<unsigned long long>(index) * s.stride_words;
    count = 0;
    last = static_cast<unsigned>(clock64());
  }
  // Takes the writer's running total and stores it if due: `period_cycles` have passed since the
  // last store, or the total crossed a multiple of 2^items_log2 since the previous offer.
  __device__ __forceinline__ void offer(const tb::progress::SlotsRef& s, unsigned long long total) {
    const unsigned now = static_cast<unsigned>(clock64());
    const bool due = now - last >= s.period_cycles || ((total ^ count) >> s.items_log2) != 0;
    count = total;
    if (due) {
      publish(slot, total);
      last = now;
    }
  }
  __device__ __forceinline__ void add(const tb::progress::SlotsRef& s, unsigned long long n) {
    offer(s, count + n);
  }
  // The final count: always stored (the host's sum is exact once every writer has flushed).
  __device__ __forceinline__ void flush() { publish(slot, count); }
};

// The policies (start/done/finish, as above) for the suite's kernels. Their writers' state lives
// in shared memory, not in registers: a policy object is held by every thread across the
// kernel's main loop, and with the state in registers (5 of them) the nested_loop warp kernel
// went from 32 to 40 registers (ptxas, CUDA 13.0, sm_90), 6 blocks of 256 an SM instead of 8,
// and the register-capped Poisson kernel spilled. Reports are rare; a few shared loads and
// stores in one lane a report cost less than a lost block an SM.
__device__ __forceinline__ Publisher* warp_publishers() {
  __shared__ Publisher publishers[32];
  return publishers;
}
__device__ __forceinline__ Publisher& block_publisher() {
  __shared__ Publisher publisher;
  return publisher;
}

// The first store to mapped host memory from a kernel costs a fixed ~2 us wherever it falls (the
// H200, results/nvidia-h200/2026-12-02b, cold L2 and TLBs: Poisson 10M +2.0 us with 792 writers and
// +2.9 us with 6,336, 8x the stores for +40%; nested_loop_warp +1.7 us with 1,250; Black-Scholes'
// persistent grid +0.85 us with 1,056, whose blocks end at different times; nested_loop, whose 40
// blocks store mid-kernel, -1.6%). A kernel of tens of us reports only at its end, so that cost
// landed in its tail, after the last block's work. The model: the cost is the translation of the
// slots' host pages (the GPU's TLBs, emptied by the cold-cache flush, walk the page table of system
// memory) and not the stores (8x the stores cost +40%). warm_up() stores the slot's current value
// (0: the board is zeroed before the launch, so the slot stays monotone) at the writer's start: the
// walk then overlaps the kernel's first loads, and the store is posted (the thread does not wait
// for it). Only blocks of the first wave do it (blockIdx.x < kWarmBlocks, ~8 blocks an SM on 132
// SMs) and one store a block: they cover every SM's TLB, and grids of thousands of blocks
// (Black-Scholes' 9,766) do not double their stores. What the model does not explain (H200, the
// devslots8 rows of a run not kept in the tree): the same slots in device memory, where no host
// page is walked, cost the short kernels nearly as much (Poisson 10M live_block +4.4% against +6.0%
// mapped; nested_loop_warp +3.6-3.8% against +4.3-4.8%; Black-Scholes +2.8% against +3.1%), so most
// of what remains is the reporting code in kernels of 30-50 us, not the stores; an equal
// shared-memory carveout for twin and instrumented kernel changed nothing.
// Nsight Compute (base clocks, cold caches; device slots): nested_loop_warp with LiveWarp runs
// the same main loop (SASS: 21 DFMAs, same unrolling) and executes +0.7% instructions (13 a warp)
// for +4.2% SM active cycles and +4.1% duration (46.6 against 44.8 us): the kernel is one warp's
// dependent FP64 chain per i over 1.18 waves, so the reporting at each warp's start and end
// (lane 0's shared-memory state, the reduction, the store) is latency on every warp's path, twice
// (two waves), not throughput. Poisson 10M with LiveBlock: +3.7% instructions, +6.5% duration;
// Black-Scholes' persistent grid with LiveBlock: +1.4% instructions, a duration within the
// launches' spread. Not met there: the 1% overhead target on kernels of 30-50 us.
constexpr unsigned kWarmBlocks = 1024;
__device__ __forceinline__ void warm_up(const tb::progress::SlotsRef& s, unsigned index) {
  if (blockIdx.x < kWarmBlocks)
    publish(s.slots + static_cast<unsigned long long>(index) * s.stride_words, 0ull);
}

// LiveWarp: a slot per warp of the grid, slot = the warp's index in the grid; lane 0 keeps the
// warp's sum. No barrier; one store per warp at least, so for grids of many warps LiveBlock
// writes fewer. Needs blockDim.x a multiple of 32 and slots.count >= the grid's warps.
struct LiveWarp {
  tb::progress::SlotsRef slots;
  __device__ __forceinline__ void start() {
    if ((threadIdx.x & 31u) == 0) {
      const unsigned index = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
      // One warm-up a block (warp 0), as for LiveBlock: the pages are the TLB's, not the warp's.
      if (threadIdx.x == 0) warm_up(slots, index);
      warp_publishers()[threadIdx.x >> 5].init(slots, index);
    }
  }
  __device__ __forceinline__ void done(unsigned count) {
    const unsigned sum = warp_sum(count);
    if ((threadIdx.x & 31u) == 0) warp_publishers()[threadIdx.x >> 5].add(slots, sum);
  }
  __device__ __forceinline__ void finish() {
    if ((threadIdx.x & 31u) == 0) warp_publishers()[threadIdx.x >> 5].flush();
  }
};

// The block's running total in shared memory (LiveBlock).
__device__ __forceinline__ unsigned long long& live_tally() {
  __shared__ unsigned long long tally;
  return tally;
}

// LiveBlock: a slot per block (slot = blockIdx.x); each warp adds its sum to the block's tally in
// shared memory, and thread 0 alone stores the tally when due, so the slot has one writer and
// its stores land in program order. The tally thread 0 sees holds only counts that warps have
// finished (a lower bound of the block's work while it runs); finish() waits for every warp
// (one barrier a block) and stores the exact total. Needs blockDim.x a multiple of 32 and
// slots.count >= the grid's blocks.
struct LiveBlock {
  tb::progress::SlotsRef slots;
  __device__ __forceinline__ void start() {
    if (threadIdx.x == 0) {
      live_tally() = 0;
      warm_up(slots, blockIdx.x);
      block_publisher().init(slots, blockIdx.x);
    }
    __syncthreads();
  }
  // Thread 0 learns the tally from its own atomic's old value (no plain read racing the other
  // warps' atomics, which compute-sanitizer's racecheck would report).
  __device__ __forceinline__ void done(unsigned count) {
    const unsigned long long sum = warp_sum(count);
    if (threadIdx.x == 0)
      block_publisher().offer(slots, atomicAdd(&live_tally(), sum) + sum);
    else if ((threadIdx.x & 31u) == 0 && sum)
      atomicAdd(&live_tally(), sum);
  }
  __device__ __forceinline__ void finish() {
    __syncthreads();
    if (threadIdx.x == 0) {
      Publisher& pub = block_publisher();
      pub.count = live_tally();
      pub.flush();
    }
  }
};

// The warps' sums of a LiveBlockAtExit block: each warp writes only its own word.
__device__ __forceinline__ unsigned* exit_warp_sums() {
  __shared__ unsigned sums[32];
  return sums;
}

// LiveBlockAtExit: LiveBlock for kernels whose threads report once, at their end (Black-Scholes,
// the nested loops: done() then finish(), once each). A single report can only show blocks
// ending, so the block keeps no state while it runs: no barrier at its start (LiveBlock's holds
// every warp of every block until thread 0 has set its tally and Publisher, latency on each
// warp's path in kernels of 30-50 us), no clock reads, no shared atomics. Each warp leaves its
// sum in its own word of shared memory, one barrier at the end, and thread 0 stores the block's
// total once (after the warm-up store, as LiveBlock). Needs blockDim.x a multiple of 32 and
// slots.count >= the grid's blocks.
// Measured on the H200 (results/nvidia-h200/2026-12-03, progress/): black_scholes 10M, 48.0 us,
// +1.70% [1.62, 1.77] with device slots = 0.82 us added (the 1 us target met; LiveBlock read
// +1.66% of 50.1 us before); nested_loop_warp 10000, 35.7 us, +4.59% = 1.64 us (live_block) and
// +3.69% = 1.31 us (live_warp), over the 1 us target and no better than LiveBlock's +3.40%: what
// is left there is not the barrier at the block's start, which this removed.
struct LiveBlockAtExit {
  tb::progress::SlotsRef slots;
  __device__ __forceinline__ void start() {
    if (threadIdx.x == 0) warm_up(slots, blockIdx.x);
  }
  __device__ __forceinline__ void done(unsigned count) {
    const unsigned sum = warp_sum(count);
    if ((threadIdx.x & 31u) == 0) exit_warp_sums()[threadIdx.x >> 5] = sum;
  }
  __device__ __forceinline__ void finish() {
    __syncthreads();
    if (threadIdx.x == 0) publish_block_total();
  }
  __device__ __forceinline__ void publish_block_total() const {
    unsigned long long total = 0;
    const unsigned warps = blockDim.x >> 5;
    for (unsigned w = 0; w < warps; ++w) total += exit_warp_sums()[w];
    publish(slots.slots + static_cast<unsigned long long>(blockIdx.x) * slots.stride_words, total);
  }
};

// Calls f(policy) with the live policy of strategy s (live_block, live_warp or none) on `slots`.
// kReportsOnce: the kernel's threads report once, at their end, so live_block is
// LiveBlockAtExit.
template <bool kReportsOnce = false, class F>
void dispatch_live(tb::progress::Strategy s, tb::progress::SlotsRef slots, F&& f) {
  using tb::progress::Strategy;
  using Block = std::conditional_t<kReportsOnce, LiveBlockAtExit, LiveBlock>;
  switch (s) {
    case Strategy::live_block:
      f(Block{slots});
      return;
    case Strategy::live_warp:
      f(LiveWarp{slots});
      return;
    default:
      f(None{});
      return;
  }
}

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
    case Strategy::live_block:
    case Strategy::live_warp:
      throw std::invalid_argument("progress: live strategies take slots (dispatch_live)");
  }
}

}  // namespace tb::gpu::progress
