#pragma once
// Kernels instrumented with a progress counting strategy (gpu/progress.cuh), for the overhead
// benchmarks (bench/progress.cpp). Host-callable launchers only. (The live strategies, which the
// host reads without a copy, and the --progress-demo: gpu/progress_live.hpp.) At the end, the
// rows' host side: the targets and the A/B pairs, declared (as empty rows) in CPU builds too.
#include <functional>
#include <string>

#include <twinbench/twinbench.hpp>

#include "cpu/progress_rows.hpp"

#if TWINBENCH_HAVE_CUDA
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "common/poisson_sampler.hpp"
#include "common/progress.hpp"
#include "gpu/black_scholes.hpp"
#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// Samples a thread adds up before it reports (see gpu/poisson_kernel.cuh): small enough that a
// long kernel gives the poller many intermediate values, large enough that a barrier or an
// atomic per report is a small fraction of the work. (vector_add's threads report once, after
// their 16 elements: gpu/vector_add_kernel.cuh.)
// At 16 the per_block barrier every 16 samples cost the compute-bound Poisson kernel 14-19% on
// the H200 (its divergent walks wait for each other at every barrier). A row is 35
// instructions (gpu/poisson_kernel.cuh) and a per_block report about 30 plus a barrier. At 128
// rows a report the H200 measured (device counter, block 256) +1.02% for per_block and +1.19%
// for per_warp at 100M, +3.2% / +1.2% at 10M (where every thread reports once per stream tile
// anyway); 256 halves the reports of the 100M run (382 rows: two instead of three). A 2^28-sample
// kernel (1024 rows, ~8 ms) still reports four times a thread, at times that differ from block
// to block, so a 1 ms poller sees the count move at nearly every read.
// An H200 run since replaced (in git history; rows per report 256, block 256, device counter)
// read per_block +2.66% at 10M and +1.55% at 100M, but `none` timed against itself read
// +1.76% / +0.25%: the pairs ran warm, one kernel on the L2 the previous one left. With an L2
// flush before each kernel (gpu/progress_bench.cu Window) the same H200 measured
// none / per_warp / per_block / strided: +0.40 / +2.54 / +4.38 / +7.54% at 10M (t_none 28.5 us)
// and +0.06 / +1.82 / +1.14 / +1.96% at 100M (t_none 187.5 us; per_block's median pair +0.92%).
// Nsight Compute on the 10M kernels (base clocks): per_block executed 13.17M instructions
// against none's 12.82M (+2.7%) and took 62,983 cycles against 59,956 (+4.1%): at 10M each
// thread makes 38 samples (~1,350 of its ~2,000 instructions a warp, the rest seeding its
// stream) and one report, so a report's ~40 instructions a warp and its barrier are a few
// percent of the kernel, where at 100M (382 samples, two reports) they are about 1%. That
// version summed the block with a barrier at every report; per_block now reports without one
// (gpu/progress.cuh PerBlock), which removes the barrier's wait but not the report's
// instructions. A run with cold pairs (since replaced, in git history) measured it,
// none / per_warp / per_block / strided: -0.33 / +2.35 / +3.70 / +8.29% at 10M and
// +0.05 / +2.03 / +1.86 / +2.16% at 100M (per_block's median pair +4.53% / +1.67%); the
// run in results/nvidia-h200/2026-12-01, the same kernels: -0.29 / +2.42 /
// +3.20 / +7.92% at 10M, +0.04 / +2.04 / +1.89 / +2.13% at 100M.
// The limit at 10M, as measured: no strategy reports for under 2.3% there. per_warp's report is
// the cheapest one can write (a warp sum and one atomic by lane 0, no wait) and costs +2.35%
// (+2.42% in the next run);
// 1% of the kernel is ~14 instructions a warp (of the ~1,350 its 38 samples take) or 0.28 us,
// and at 10M every thread's one report falls at its end, so the reports of all the resident
// warps reach the counter's one word together, behind the kernel's last samples. A per_block
// report adds the block's combination to per_warp's work (a barrier: +4.38%; shared atomics and
// fences: +3.70%). At 100M, where a thread makes two reports in 382 samples, per_block measured
// +1.14% with the barrier and +1.86% without; the barrier-free version is kept for the 10M row
// the target names, where it is the cheaper of the two.
constexpr unsigned kPoissonRowsPerReport = 256;  // samples a thread

// c = a + b with gpu/vector_add.cu's own kernel (gpu/vector_add_kernel.cuh) plus progress
// counting: the counter ends at exactly n. a, b and c must be 16-byte aligned (cudaMalloc's are).
void progress_vector_add(tb::progress::Strategy s, tb::progress::CounterRef counter, const float* a,
                         const float* b, float* c, std::size_t n, int block, cudaStream_t stream);
KernelStats progress_vector_add_stats(tb::progress::Strategy s, std::size_t n, int block);

// The article's shape: one element per thread, one atomicAdd(counter, 1) per thread.
// Block sizes: per_warp, per_block and strided need a multiple of 32 (they throw otherwise).
void progress_vector_add_article(tb::progress::CounterRef counter, const float* a, const float* b,
                                 float* c, std::size_t n, int block, cudaStream_t stream);

// The fast Poisson kernel (gpu/poisson.cu's, bit-identical output) with progress counting; each
// thread reports every `rows_per_report` samples (1: an atomic per sample with per_thread, the
// article's granularity).
void progress_poisson(tb::progress::Strategy s, tb::progress::CounterRef counter, std::int32_t* out,
                      std::size_t n, std::uint64_t seed, const tb::poisson::CdfTable& table,
                      int block, unsigned rows_per_report, cudaStream_t stream);
KernelStats progress_poisson_stats(tb::progress::Strategy s, std::size_t n, int block);

// The article's Poisson kernel (gpu/poisson.cu poisson_cuda_article: its walk, its launch, the
// same samples) with the article's counter: an atomic per sample. The counter ends at exactly n.
void progress_poisson_article(tb::progress::CounterRef counter, std::int32_t* out, std::size_t n,
                              std::uint64_t seed, double rate, int block, cudaStream_t stream);

// The cuda variant of black_scholes (gpu/black_scholes.cu's black_scholes_vec4_full_kernel
// <FastPrice>, same grid, bit-identical prices) with progress counting: every thread reports
// the options it priced once, at its end; the counter ends at exactly n. All five arrays must be
// 16-byte aligned (cudaMalloc's are).
void progress_black_scholes(tb::progress::Strategy s, tb::progress::CounterRef counter,
                            const float* spot, const float* strike, const float* years, float* call,
                            float* put, std::size_t n, BlackScholesMarket market, int block,
                            cudaStream_t stream);
KernelStats progress_black_scholes_stats(tb::progress::Strategy s, std::size_t n, int block);

// nested_loop's kernels (gpu/nested_loop.cu's, same grid, bit-identical results) with progress
// counting in inner iterations: the counter ends at exactly n * m. One thread per i (the cuda
// variant) reports its m iterations at its end; one warp per i (cuda_warp) reports each lane's
// share at its end (block a multiple of 32 for both kernels' counting strategies but none and
// per_thread; always for the warp kernel).
void progress_nested_loop(tb::progress::Strategy s, tb::progress::CounterRef counter,
                          double* results, std::size_t n, std::size_t m, int block,
                          cudaStream_t stream);
KernelStats progress_nested_loop_stats(tb::progress::Strategy s, std::size_t n, int block);
void progress_nested_loop_warp(tb::progress::Strategy s, tb::progress::CounterRef counter,
                               double* results, std::size_t n, std::size_t m, int block,
                               cudaStream_t stream);
KernelStats progress_nested_loop_warp_stats(tb::progress::Strategy s, std::size_t n, int block);

}  // namespace tb::gpu
#endif  // TWINBENCH_HAVE_CUDA

namespace tb::progress {

// One A/B row, the functions of its Case::sampled row: each sample times the uninstrumented
// kernel (its twin) and the instrumented one back to back (behind one launch gate unless the
// reads wait for the GPU, each after an L2 flush unless --warm, which goes first alternating);
// the sample's time is the instrumented kernel's. `check`: one instrumented run from poisoned
// outputs and a zeroed count, the output held to the target's check and the count to the items
// exactly. `before` warms both kernels up and starts a poller on the count (quiet), `after`
// stops it and records the pairs' counters: overhead_pct over the sums, overhead_median_pct
// (lo, hi) the median pair's, t_none_us, distinct_updates (values the poller saw per pair),
// updates_per_s, polls_per_s, l2_flushed; the launch statistics (cuda rows) or slots and
// slot_bytes (live rows).
struct PairRow {
  std::function<double(twinbench::Row&)> sample = [](twinbench::Row&) { return 0.0; };
  std::function<std::string()> check = {};
  std::function<void(twinbench::Row&)> before = {}, after = {};
};

// A target: the kernel the rows instrument with its buffers and checks, made when a row of its
// case first runs (its memory, cpu/progress_rows.hpp target_memory, estimated first) and
// released with the case.
class Target;
using TargetRef = twinbench::Shared<Target>;

#if TWINBENCH_HAVE_CUDA
TargetRef declare_target(twinbench::Case& c, TargetKind kind, std::size_t n);
// impl cuda: the target's kernel with a counting strategy on a counter against itself without.
PairRow cuda_row(const TargetRef& t, Strategy s, CounterKind ck);
// impl cuda_article: the article's kernel and counter, read on the legacy default stream.
PairRow article_row(const TargetRef& t);
// Live rows (cpu/progress_rows.hpp LiveRow): slots the poller reads every 50 us.
PairRow live_row(const TargetRef& t, const LiveRow& row);
#else
// Without CUDA the same rows are declared and skip with the reason (no GPU).
inline TargetRef declare_target(twinbench::Case&, TargetKind, std::size_t) { return {}; }
inline PairRow cuda_row(const TargetRef&, Strategy, CounterKind) { return {}; }
inline PairRow article_row(const TargetRef&) { return {}; }
inline PairRow live_row(const TargetRef&, const LiveRow&) { return {}; }
#endif

}  // namespace tb::progress
