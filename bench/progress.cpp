// progress benchmarks: what live progress counting costs a kernel, and how live the count is.
// Each strategy (common/progress.hpp) runs against the uninstrumented kernel in the same loop:
// every iteration times the `none` kernel and then the instrumented one (interleaved, so clock
// and thermal drift hit both; each after an L2 flush unless --warm), the iteration time is the
// instrumented kernel's, overhead_pct = (t - t_none) / t_none * 100 over the sums, and
// overhead_median_pct the median pair's. A host thread polls the counter every ~1 ms
// during the timed loop (quietly) and distinct_updates is the number of distinct values it saw
// per kernel. Targets, each the workload's own kernel: vector_add (memory-bound; bytes model
// 12 B/element), poisson (compute-bound; 4 B written per sample), black_scholes (the cuda
// variant's kernel; 20 B per option), nested_loop and nested_loop_warp (the cuda and cuda_warp
// kernels, N = M = n; latency-bound; items and the final count are the N*M inner iterations).
// impl cuda_article reproduces the article: an atomic per thread on a device counter (per sample
// in the article's own Poisson kernel), read with cudaMemcpy on the legacy default stream, which
// waits for the kernel, so the host sees only final values (expect distinct_updates = 1).
// Live rows (issue 27; counter:slots64 / slots8): no shared counter at all. Each block (live_block)
// or warp (live_warp) stores its running count into its own slot of mapped host memory with a
// plain store, at most once every live_period_ns (sgemm: every 32nd k step) and at its end, and
// the host sums the slots (gpu/progress.cuh Publisher, common/progress.hpp SlotBoard); the
// poller reads every 50 us.
// impl cuda: the suite's kernel with the policy, timed against itself without it. impl cuda_live:
// a kernel written for live progress (vector_add and black_scholes on a persistent grid, and a
// long sgemm, the target of tens of ms), timed against its twin, the same kernel with the
// reporting compiled out; the cuda_live strategy:none row times that twin against the suite's
// fastest kernel of the target (vector_add's tile kernel, black_scholes's cuda kernel,
// gpu::sgemm_cuda_optimized), so that the report can say how far the twin is from it. Every live
// row is validated as the others: the slots must sum to exactly the items, and the output must
// match the reference (sgemm: sampled elements against float64, and the twin's C bit for bit).
#include "common/progress.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/gpu_context.hpp"
#include "common/harness.hpp"
#include "common/host_array.hpp"
#include "common/random.hpp"
#include "cpu/black_scholes.hpp"
#include "cpu/nested_loop.hpp"
#include "cpu/poisson.hpp"
#include "cpu/sgemm.hpp"
#include "cpu/vector_add.hpp"
#if TWINBENCH_HAVE_CUDA
#include "bench/twinbench.hpp"
#include "gpu/poisson.hpp"
#include "gpu/progress_bench.hpp"
#include "gpu/progress_live.hpp"
#include "gpu/sgemm.hpp"
#include "gpu/vector_add.hpp"
#endif

namespace tb::progress {
namespace {

constexpr int kBlock = 256;
constexpr std::size_t kVectorAddSize = std::size_t{1} << 28;  // 256M floats: 3 GiB moved
constexpr std::size_t kVectorAddQuick = std::size_t{1} << 22;
constexpr std::size_t kPoissonSmall = 10'000'000;
constexpr std::size_t kPoissonLarge = 100'000'000;
constexpr std::size_t kPoissonQuick = 1'000'000;

// The long compute-bound target of the live rows (issue 27): tens of ms a kernel on the H200, so
// that the host sees its progress move (gpu/progress_live.hpp live_sgemm).
constexpr std::size_t kSgemmSize = 8192;
constexpr std::size_t kSgemmQuick = 512;

enum class TargetKind { vector_add, poisson, black_scholes, nested_loop, nested_loop_warp, sgemm };
const char* target_name(TargetKind t) {
  switch (t) {
    case TargetKind::vector_add:
      return "vector_add";
    case TargetKind::poisson:
      return "poisson";
    case TargetKind::black_scholes:
      return "black_scholes";
    case TargetKind::nested_loop:
      return "nested_loop";
    case TargetKind::nested_loop_warp:
      return "nested_loop_warp";
    case TargetKind::sgemm:
      return "sgemm";
  }
  return "?";
}

// per_thread on the mapped counter is one system-scope atomic over PCIe per thread, about
// 70 ns each on the H200: 18 s a launch for vector_add's 256M threads, 2.7 s for Black-Scholes
// 10M, where the suite's whole default run has 5 minutes. By default it runs on the targets
// where a launch costs well under a second (Poisson 10M: 0.28 s; the nested loop's 10K threads);
// --full (or a size given with --size) runs it on every target.
bool per_thread_mapped_affordable(const RunConfig& cfg, TargetKind kind, std::size_t n) {
  if (cfg.full || cfg.size) return true;
  return (kind == TargetKind::poisson && n <= kPoissonSmall) || kind == TargetKind::nested_loop;
}

// per_warp on the mapped counter is one atomic and one system fence per warp (see
// per_thread_mapped_affordable): 2.86 s a launch for vector_add's 2.8 million warps on the H200
// (results/nvidia-h200/2026-12-02), 20 s of the default run for one row. By default it runs where
// the warps are few.
bool per_warp_mapped_affordable(const RunConfig& cfg, TargetKind kind) {
  return cfg.full || cfg.size || kind != TargetKind::vector_add;
}

bool registered_by_default(const RunConfig& cfg, TargetKind kind, std::size_t n, Strategy s,
                           CounterKind ck) {
  if (ck != CounterKind::mapped) return true;
  if (s == Strategy::per_thread) return per_thread_mapped_affordable(cfg, kind, n);
  if (s == Strategy::per_warp) return per_warp_mapped_affordable(cfg, kind);
  return true;
}

// progress/<impl>/target:<kernel>/...: the suite's `<workload>/<impl>/<args>` naming, with the
// instrumented kernel as an argument.
BenchSpec cuda_spec(TargetKind kind, std::size_t n, Strategy strategy, CounterKind ck) {
  return bench_spec("progress", "cuda",
                    {{"target", target_name(kind)},
                     {"strategy", strategy_name(strategy)},
                     {"counter", counter_name(ck)},
                     {"n", n},
                     {"block", kBlock}});
}

// Live rows (issue 27): slots in mapped host memory, 64 bytes (a cache line, the default) or
// 8 bytes (packed) apart. impl cuda: the suite's own kernel with a live policy, against itself
// without (the twin is the suite's kernel). impl cuda_live: a kernel written for live progress
// (a persistent grid, or sgemm's), against its twin with the reporting compiled out; its
// strategy:none row times that twin against the suite's fastest kernel of the target.
// counter:devslots8: the same slots, packed, in device memory, which the host reads with a copy
// on the board's own stream (SlotBoard::Placement::device): the kernel's code is the same, its
// stores stay in the GPU's L2 instead of crossing PCIe.
enum class Impl { cuda, cuda_live };
using Placement = SlotPlacement;

struct LiveRow {
  Impl impl;
  Strategy strategy;
  unsigned stride_words;
  Placement where = Placement::mapped;
};

const char* slots_name(const LiveRow& row) {
  if (row.where == Placement::device) return row.stride_words == 1 ? "devslots8" : "devslots64";
  return row.stride_words == 1 ? "slots8" : "slots64";
}

BenchSpec live_spec(TargetKind kind, std::size_t n, const LiveRow& row) {
  return bench_spec("progress", row.impl == Impl::cuda ? "cuda" : "cuda_live",
                    {{"target", target_name(kind)},
                     {"strategy", strategy_name(row.strategy)},
                     {"counter", slots_name(row)},
                     {"n", n},
                     {"block", kBlock}});
}

// The live rows of each target. live_warp only where the grid has few warps (a store per warp
// at least: vector_add's suite kernel has 349,525 blocks and is only offered persistent;
// black_scholes's has 78,125 warps at 10M). live_block on packed slots beside the padded ones:
// whether two writers' stores into one host cache line cost more than into two.
std::vector<LiveRow> live_rows(TargetKind kind) {
  constexpr Placement dev = Placement::device;
  switch (kind) {
    case TargetKind::vector_add:
      return {{Impl::cuda_live, Strategy::none, 8},
              {Impl::cuda_live, Strategy::live_block, 8},
              {Impl::cuda_live, Strategy::live_block, 1},
              {Impl::cuda_live, Strategy::live_block, 1, dev}};
    case TargetKind::black_scholes:
      return {{Impl::cuda, Strategy::live_block, 8},
              {Impl::cuda, Strategy::live_block, 1},
              {Impl::cuda, Strategy::live_block, 1, dev},
              {Impl::cuda_live, Strategy::none, 8},
              {Impl::cuda_live, Strategy::live_block, 8},
              {Impl::cuda_live, Strategy::live_block, 1, dev}};
    case TargetKind::poisson:
    case TargetKind::nested_loop:
    case TargetKind::nested_loop_warp:
      return {{Impl::cuda, Strategy::live_block, 8},
              {Impl::cuda, Strategy::live_warp, 8},
              {Impl::cuda, Strategy::live_block, 1},
              {Impl::cuda, Strategy::live_block, 1, dev},
              {Impl::cuda, Strategy::live_warp, 1, dev}};
    case TargetKind::sgemm:
      return {{Impl::cuda_live, Strategy::none, 8},
              {Impl::cuda_live, Strategy::live_block, 8},
              {Impl::cuda_live, Strategy::live_block, 1, dev}};
  }
  return {};
}

BenchSpec article_spec(TargetKind kind, std::size_t n) {
  return bench_spec("progress", "cuda_article",
                    {{"target", target_name(kind)},
                     {"strategy", "per_thread"},
                     {"counter", "device"},
                     {"n", n},
                     {"block", kBlock}});
}

// The work of one run of a target's kernel, declared with its rows: the target's own workload's
// model; sgemm's items are its n^3 multiply-adds (Target::items, what its counter counts).
WorkModel target_work(TargetKind kind, std::size_t n) {
  switch (kind) {
    case TargetKind::vector_add:
      return vector_add::work(n);
    case TargetKind::poisson:
      return poisson::work(n);
    case TargetKind::black_scholes:
      return black_scholes::work(n);
    case TargetKind::nested_loop:
    case TargetKind::nested_loop_warp:
      return nested_loop::work(n);
    case TargetKind::sgemm: {
      WorkModel w = sgemm::work(n);
      w.items = static_cast<double>(n) * n * n;
      return w;
    }
  }
  return {};
}

#if TWINBENCH_HAVE_CUDA
// One GPU target: its buffers, the instrumented launch, the uninstrumented baseline, and the
// check of its output.
struct Target {
  virtual ~Target() = default;
  virtual std::size_t n() const = 0;
  // What the counter ends at after one instrumented kernel.
  virtual std::uint64_t items() const { return n(); }
  virtual Tolerance tolerance() const = 0;
  virtual void launch(Strategy s, CounterRef counter, cudaStream_t stream) = 0;
  // The article's kernel (one atomic per thread), and its shape without the atomic: by default
  // the target's own kernel with per_thread, against none.
  virtual void launch_article(CounterRef counter, cudaStream_t stream) {
    launch(Strategy::per_thread, counter, stream);
  }
  virtual void launch_article_baseline(cudaStream_t stream) {
    launch(Strategy::none, CounterRef{}, stream);
  }
  virtual void poison(cudaStream_t stream) = 0;
  virtual ErrorStats check() = 0;  // after the stream is synchronised
  // After launch_article, where its output differs from the target's own kernel's.
  virtual ErrorStats check_article() { return check(); }
  virtual gpu::KernelStats stats(Strategy s) const = 0;
  // Live progress (gpu/progress_live.hpp): the suite's kernel with a live policy (impl cuda;
  // none is that kernel itself), or the kernel written for it (impl cuda_live; none its twin).
  virtual void launch_live(Impl impl, Strategy s, const SlotBoard& board, cudaStream_t stream) {
    (void)impl;
    (void)board;
    if (s != Strategy::none) throw std::logic_error("progress: no live rows for this target");
    launch(Strategy::none, CounterRef{}, stream);
  }
  // The suite's fastest kernel for the target, which a cuda_live twin is timed against.
  virtual void launch_fastest(cudaStream_t stream) { launch(Strategy::none, CounterRef{}, stream); }
  // The slots a live launch takes.
  virtual std::size_t live_writers(Impl impl, Strategy s) const = 0;
};

class VectorAddTarget : public Target {
 public:
  explicit VectorAddTarget(std::size_t n) : n_(n), a_(n), b_(n), out_(n), da_(n), db_(n), dc_(n) {
    fill_uniform(a_.span(), vector_add::kSeed, -1.f, 1.f);
    fill_uniform(b_.span(), vector_add::kSeed + 1, -1.f, 1.f);
    CUDA_CHECK(cudaMemcpy(da_.data(), a_.data(), da_.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db_.data(), b_.data(), db_.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());  // pageable copies may return before the DMA lands
  }
  std::size_t n() const override { return n_; }
  Tolerance tolerance() const override { return vector_add::kTolerance; }
  void launch(Strategy s, CounterRef counter, cudaStream_t stream) override {
    gpu::progress_vector_add(s, counter, da_.data(), db_.data(), dc_.data(), n_, kBlock, stream);
  }
  void launch_article(CounterRef counter, cudaStream_t stream) override {
    gpu::progress_vector_add_article(counter, da_.data(), db_.data(), dc_.data(), n_, kBlock,
                                     stream);
  }
  void launch_article_baseline(cudaStream_t stream) override {
    gpu::vector_add_cuda_article(da_.data(), db_.data(), dc_.data(), n_, kBlock, stream);
  }
  void poison(cudaStream_t stream) override {
    poison_device(dc_, stream);
    tb::poison(out_.span());
  }
  ErrorStats check() override {
    tb::download(out_.span(), dc_);
    // Every element is one float add, as in vector_add: the sum must be exact.
    ErrorStats e;
    for (std::size_t i = 0; i < n_; ++i) {
      const float want = a_[i] + b_[i];
      if (!(out_[i] == want)) {
        const double err = std::fabs(static_cast<double>(out_[i]) - want);
        if (!(err <= e.max_abs)) {
          e.max_abs = std::isfinite(err) ? err : 1e30;
          e.max_rel = std::isfinite(err) ? err / std::fmax(std::fabs(want), 1e-30) : 1e30;
          e.worst_index = i;
        }
      }
    }
    return e;
  }
  gpu::KernelStats stats(Strategy s) const override {
    return gpu::progress_vector_add_stats(s, n_, kBlock);
  }
  void launch_live(Impl impl, Strategy s, const SlotBoard& board, cudaStream_t stream) override {
    if (impl != Impl::cuda_live)
      throw std::logic_error("progress: vector_add's live rows are cuda_live");
    gpu::live_vector_add(s, board, da_.data(), db_.data(), dc_.data(), n_, kBlock, stream);
  }
  std::size_t live_writers(Impl, Strategy s) const override {
    return s == Strategy::none ? 0
                               : static_cast<std::size_t>(gpu::live_vector_add_grid(n_, kBlock));
  }

 private:
  std::size_t n_;
  HostArray<float> a_, b_, out_;
  DeviceBuffer<float> da_, db_, dc_;
};

class PoissonTarget : public Target {
 public:
  explicit PoissonTarget(std::size_t n) : n_(n), ref_(n), out_(n), dout_(n) {
    poisson::serial(ref_.data(), n_, poisson::kSeed, poisson::default_table());
  }
  std::size_t n() const override { return n_; }
  Tolerance tolerance() const override { return poisson::kTolerance; }
  void launch(Strategy s, CounterRef counter, cudaStream_t stream) override {
    gpu::progress_poisson(s, counter, dout_.data(), n_, poisson::kSeed, poisson::default_table(),
                          kBlock, gpu::kPoissonRowsPerReport, stream);
  }
  // The article's kernel (its walk, gpu::poisson_cuda_article) with its counter, an atomic per
  // sample, against the same kernel without it: the pair the Numba peer measures
  // (peers/numba/workloads/progress.py). It was the fast kernel with per_thread reporting every
  // sample: 7.34 ms at 10M on the H200 against the kernel's 28 us and the Numba peer's 1.25 ms.
  // Not the language: there the count added is a variable (the rows of a report chunk), so each
  // lane makes its own atomic, 10M on one word; where the added value is the constant 1 (this
  // kernel, vadd_article_kernel) the compiler aggregates the warp's adds: VOTEU.ANY + UPOPC, one
  // ATOMG by the leader (SASS, CUDA 13.0, sm_90). Numba's cuda.atomic.add(progress, 0, 1) is
  // aggregated the same way (its PTX from compile_ptx through ptxas 13.0: VOTEU.ANY, UPOPC, one
  // REDG.E.ADD.64 by the leader), hence its 1.25 ms against its kernel's 1.22 ms. This pair,
  // H200, block 256 (results/nvidia-h200/2026-12-01): 1220.1 us at 10M, +0.02% over the kernel
  // without the counter; Numba 1281.3 us, +0.56%.
  void launch_article(CounterRef counter, cudaStream_t stream) override {
    gpu::progress_poisson_article(counter, dout_.data(), n_, poisson::kSeed, poisson::kRate, kBlock,
                                  stream);
  }
  void launch_article_baseline(cudaStream_t stream) override {
    gpu::poisson_cuda_article(dout_.data(), n_, poisson::kSeed, poisson::kRate, kBlock, stream);
  }
  // The article's samples are not the fast kernel's: statistics only, as poisson/cuda_article.
  ErrorStats check_article() override {
    tb::download(out_.span(), dout_);
    return poisson::check_samples(out_.span(), {}, poisson::kRate);
  }
  void poison(cudaStream_t stream) override {
    poison_device(dout_, stream);
    tb::poison(out_.span());
  }
  ErrorStats check() override {
    tb::download(out_.span(), dout_);
    return poisson::check_samples(out_.span(), ref_.span(), poisson::kRate);
  }
  gpu::KernelStats stats(Strategy s) const override {
    return gpu::progress_poisson_stats(s, n_, kBlock);
  }
  void launch_live(Impl, Strategy s, const SlotBoard& board, cudaStream_t stream) override {
    gpu::live_poisson(s, board, dout_.data(), n_, poisson::kSeed, poisson::default_table(), kBlock,
                      gpu::kPoissonRowsPerReport, stream);
  }
  std::size_t live_writers(Impl, Strategy s) const override {
    return gpu::live_writers(s, gpu::live_poisson_grid(s, n_, kBlock), kBlock);
  }

 private:
  std::size_t n_;
  HostArray<std::int32_t> ref_, out_;
  DeviceBuffer<std::int32_t> dout_;
};

// The cuda variant's kernel (black_scholes_vec4_full_kernel<FastPrice>); each thread reports
// once, at its end. The article's shape: per_thread on this kernel (an atomic per thread).
class BlackScholesTarget : public Target {
 public:
  explicit BlackScholesTarget(std::size_t n)
      : n_(n),
        spot_(n),
        strike_(n),
        years_(n),
        call_(n),
        put_(n),
        ref_call_(n),
        ref_put_(n),
        dspot_(n),
        dstrike_(n),
        dyears_(n),
        dcall_(n),
        dput_(n) {
    using namespace black_scholes;
    fill_uniform(spot_.span(), kSeed, kSpotLo, kSpotHi);
    fill_uniform(strike_.span(), kSeed + 1, kStrikeLo, kStrikeHi);
    fill_uniform(years_.span(), kSeed + 2, kYearsLo, kYearsHi);
    serial(spot_.data(), strike_.data(), years_.data(), ref_call_.data(), ref_put_.data(), n_);
    CUDA_CHECK(cudaMemcpy(dspot_.data(), spot_.data(), dspot_.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(
        cudaMemcpy(dstrike_.data(), strike_.data(), dstrike_.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dyears_.data(), years_.data(), dyears_.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());  // pageable copies may return before the DMA lands
  }
  std::size_t n() const override { return n_; }
  Tolerance tolerance() const override { return black_scholes::kTolerance; }
  void launch(Strategy s, CounterRef counter, cudaStream_t stream) override {
    gpu::progress_black_scholes(s, counter, dspot_.data(), dstrike_.data(), dyears_.data(),
                                dcall_.data(), dput_.data(), n_, market(), kBlock, stream);
  }
  void poison(cudaStream_t stream) override {
    poison_device(dcall_, stream);
    poison_device(dput_, stream);
    tb::poison(call_.span());
    tb::poison(put_.span());
  }
  ErrorStats check() override {
    tb::download(call_.span(), dcall_);
    tb::download(put_.span(), dput_);
    return black_scholes::compare_prices(call_.data(), put_.data(), ref_call_.data(),
                                         ref_put_.data(), n_);
  }
  gpu::KernelStats stats(Strategy s) const override {
    return gpu::progress_black_scholes_stats(s, n_, kBlock);
  }
  void launch_live(Impl impl, Strategy s, const SlotBoard& board, cudaStream_t stream) override {
    gpu::live_black_scholes(s, board, dspot_.data(), dstrike_.data(), dyears_.data(), dcall_.data(),
                            dput_.data(), n_, market(), kBlock, impl == Impl::cuda_live, stream);
  }
  std::size_t live_writers(Impl impl, Strategy s) const override {
    return gpu::live_writers(s, gpu::live_black_scholes_grid(n_, kBlock, impl == Impl::cuda_live),
                             kBlock);
  }

 private:
  static gpu::BlackScholesMarket market() {
    return {black_scholes::kRiskFree, black_scholes::kVolatility};
  }
  std::size_t n_;
  HostArray<float> spot_, strike_, years_, call_, put_;
  HostArray<double> ref_call_, ref_put_;
  DeviceBuffer<float> dspot_, dstrike_, dyears_, dcall_, dput_;
};

// nested_loop's cuda (one thread per i) or cuda_warp (one warp per i) kernel, N = M = n; the
// counter counts inner iterations. The article's shape: per_thread on the kernel.
class NestedLoopTarget : public Target {
 public:
  NestedLoopTarget(std::size_t n, bool warp) : n_(n), warp_(warp), ref_(n), out_(n), dout_(n) {
    nested_loop::serial(ref_.data(), n_, n_);
  }
  std::size_t n() const override { return n_; }
  std::uint64_t items() const override { return static_cast<std::uint64_t>(n_) * n_; }
  Tolerance tolerance() const override { return nested_loop::kTolerance; }
  void launch(Strategy s, CounterRef counter, cudaStream_t stream) override {
    if (warp_)
      gpu::progress_nested_loop_warp(s, counter, dout_.data(), n_, n_, kBlock, stream);
    else
      gpu::progress_nested_loop(s, counter, dout_.data(), n_, n_, kBlock, stream);
  }
  void poison(cudaStream_t stream) override {
    poison_device(dout_, stream);
    tb::poison(out_.span());
  }
  ErrorStats check() override {
    tb::download(out_.span(), dout_);
    return compare(std::span<const double>(out_.span()), std::span<const double>(ref_.span()));
  }
  gpu::KernelStats stats(Strategy s) const override {
    return warp_ ? gpu::progress_nested_loop_warp_stats(s, n_, kBlock)
                 : gpu::progress_nested_loop_stats(s, n_, kBlock);
  }
  void launch_live(Impl, Strategy s, const SlotBoard& board, cudaStream_t stream) override {
    gpu::live_nested_loop(s, board, dout_.data(), n_, n_, kBlock, warp_, stream);
  }
  std::size_t live_writers(Impl, Strategy s) const override {
    return gpu::live_writers(s, gpu::live_nested_loop_grid(n_, kBlock, warp_), kBlock);
  }

 private:
  std::size_t n_;
  bool warp_;
  HostArray<double> ref_, out_;
  DeviceBuffer<double> dout_;
};

// C = A B at n x n (gpu/progress_live.hpp live_sgemm), only as live rows. Its check samples
// kSgemmChecked elements of C against a float64 dot product on the host (the full reference is
// 1.1 TFLOP at 8192), held to sgemm's tolerance (cpu/sgemm.hpp: the probabilistic bound of a
// K-deep fp32 chain, relative to sum |a b|), and requires the instrumented kernel's C to equal
// the twin's bit for bit (same code, same order), which catches an instrumented kernel that
// breaks even one element. The fastest kernel of the suite is gpu::sgemm_cuda_optimized.
constexpr std::size_t kSgemmChecked = 256;

class SgemmTarget : public Target {
 public:
  explicit SgemmTarget(std::size_t n)
      : n_(n), a_(n * n), b_(n * n), c_(n * n), twin_(n * n), da_(n * n), db_(n * n), dc_(n * n) {
    fill_uniform(a_.span(), 4242, -1.f, 1.f);
    fill_uniform(b_.span(), 4243, -1.f, 1.f);
    CUDA_CHECK(cudaMemcpy(da_.data(), a_.data(), da_.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db_.data(), b_.data(), db_.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::size_t n() const override { return n_; }
  std::uint64_t items() const override { return static_cast<std::uint64_t>(n_) * n_ * n_; }
  Tolerance tolerance() const override { return sgemm::tolerance(n_); }
  void launch(Strategy, CounterRef, cudaStream_t) override {
    throw std::logic_error("progress: sgemm has live rows only");
  }
  void launch_live(Impl, Strategy s, const SlotBoard& board, cudaStream_t stream) override {
    gpu::live_sgemm(s, board, da_.data(), db_.data(), dc_.data(), n_, stream);
  }
  void launch_fastest(cudaStream_t stream) override {
    gpu::sgemm_cuda_optimized(da_.data(), db_.data(), dc_.data(), n_, stream);
  }
  std::size_t live_writers(Impl, Strategy s) const override {
    return s == Strategy::none ? 0 : static_cast<std::size_t>(gpu::live_sgemm_grid(n_));
  }
  void poison(cudaStream_t stream) override {
    poison_device(dc_, stream);
    tb::poison(c_.span());
  }
  // The twin's C, computed once, for the bitwise comparison.
  void compute_twin(const SlotBoard& board, cudaStream_t stream) {
    if (have_twin_) return;
    poison(stream);
    gpu::live_sgemm(Strategy::none, board, da_.data(), db_.data(), dc_.data(), n_, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    tb::download(twin_.span(), dc_);
    have_twin_ = true;
  }
  ErrorStats check() override {
    tb::download(c_.span(), dc_);
    ErrorStats e;
    std::uint64_t state = 0x9e3779b97f4a7c15ull;
    for (std::size_t s = 0; s < kSgemmChecked; ++s) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      const std::size_t idx = (state >> 11) % (n_ * n_);
      const std::size_t i = idx / n_, j = idx % n_;
      double c = 0, bound = 0;
      for (std::size_t k = 0; k < n_; ++k) {
        const double p = static_cast<double>(a_[i * n_ + k]) * b_[k * n_ + j];
        c += p;
        bound += std::fabs(p);
      }
      const double err = std::fabs(static_cast<double>(c_[idx]) - c);
      const double rel = std::isfinite(err) ? err / std::max(bound, 1e-30) : 1e30;
      if (!(rel <= e.max_rel)) {
        e.max_rel = rel;
        e.max_abs = std::isfinite(err) ? err : 1e30;
        e.worst_index = idx;
      }
    }
    if (have_twin_)
      for (std::size_t k = 0; k < n_ * n_; ++k)
        if (!(c_[k] == twin_[k]) && !(std::isnan(c_[k]) && std::isnan(twin_[k]))) {
          std::fprintf(stderr, "progress: sgemm C[%zu] differs from the twin's\n", k);
          e.max_rel = 1e30;
          e.worst_index = k;
          break;
        }
    return e;
  }
  gpu::KernelStats stats(Strategy) const override { return {}; }

 private:
  std::size_t n_;
  HostArray<float> a_, b_, c_, twin_;
  DeviceBuffer<float> da_, db_, dc_;
  bool have_twin_ = false;
};

// What each target's constructor allocates: its pageable host arrays and device buffers.
Footprint target_footprint(TargetKind kind, std::size_t n) {
  const double f = sizeof(float), i32 = sizeof(std::int32_t), f64 = sizeof(double);
  const double count = static_cast<double>(n);
  switch (kind) {
    case TargetKind::vector_add:  // a, b, out; da, db, dc
      return {.host_bytes = 3 * f * count, .device_bytes = 3 * f * count};
    case TargetKind::poisson:  // ref, out; dout
      return {.host_bytes = 2 * i32 * count, .device_bytes = i32 * count};
    case TargetKind::black_scholes:  // 5 float inputs/outputs + 2 double references; 5 on device
      return {.host_bytes = (5 * f + 2 * f64) * count, .device_bytes = 5 * f * count};
    case TargetKind::nested_loop:
    case TargetKind::nested_loop_warp:  // ref, out; dout
      return {.host_bytes = 2 * f64 * count, .device_bytes = f64 * count};
    case TargetKind::sgemm:  // a, b, c, twin; da, db, dc (n x n each)
      return {.host_bytes = 4 * f * count * count, .device_bytes = 3 * f * count * count};
  }
  return {};
}

std::unique_ptr<Target> make_target(TargetKind kind, std::size_t n) {
  switch (kind) {
    case TargetKind::vector_add:
      return std::make_unique<VectorAddTarget>(n);
    case TargetKind::poisson:
      return std::make_unique<PoissonTarget>(n);
    case TargetKind::black_scholes:
      return std::make_unique<BlackScholesTarget>(n);
    case TargetKind::nested_loop:
      return std::make_unique<NestedLoopTarget>(n, false);
    case TargetKind::nested_loop_warp:
      return std::make_unique<NestedLoopTarget>(n, true);
    case TargetKind::sgemm:
      return std::make_unique<SgemmTarget>(n);
  }
  throw std::logic_error("progress: unknown target");
}

// A target as the harness's inputs: one alive at a time, released with the workload.
struct TargetInputs {
  std::unique_ptr<Target> target;
  TargetInputs(TargetKind kind, std::size_t n) : target(make_target(kind, n)) {}
  static Footprint weight(TargetKind kind, std::size_t n) { return target_footprint(kind, n); }
};

Target& target(TargetKind kind, std::size_t n) { return *inputs<TargetInputs>(kind, n).target; }

Counter& counter(CounterKind kind) {
  static std::unique_ptr<Counter> counters[2];
  auto& c = counters[kind == CounterKind::mapped ? 0 : 1];
  if (!c) c = std::make_unique<Counter>(kind);
  return *c;
}

// The slot boards of the live rows, one per slot stride and placement, grown to the largest
// launch asked for.
const SlotBoard& board(const LiveRow& row, std::size_t writers) {
  static std::unique_ptr<SlotBoard> boards[2][2];
  auto& b = boards[row.stride_words == 1 ? 0 : 1][row.where == Placement::device ? 1 : 0];
  if (!b || b->capacity() < writers)
    b = std::make_unique<SlotBoard>(std::max<std::size_t>(writers, 1024), row.stride_words,
                                    row.where);
  return *b;
}

Stream& bench_stream() {
  static Stream s;
  return s;
}

// What one benchmark runs: the instrumented kernel, its baseline, the stream, and the read.
struct Setup {
  std::function<void()> instrumented;
  std::function<void()> baseline;
  std::function<std::uint64_t()> read;
  cudaStream_t stream;
  std::uint64_t expected_count;  // the counter after one instrumented kernel
  // Queue each pair behind a launch gate. Not for the article's setup: its poller's cudaMemcpy
  // on the legacy stream waits behind the closed gate and can hold up the thread that would
  // open it (on the H200 the gate then timed out).
  bool gated = true;
  bool article = false;  // validated with Target::check_article
  // The poller's period: the live rows read faster than the 1 ms of the others, so that a kernel
  // of 20 ms can show 50 values and more (a read of ~10,000 slots takes some microseconds).
  std::chrono::microseconds poll{1000};
};

ErrorStats validate(Target& t, Counter& ctr, const Setup& s) {
  t.poison(s.stream);
  ctr.reset(s.stream);
  s.instrumented();
  CUDA_CHECK(cudaStreamSynchronize(s.stream));
  ErrorStats e = s.article ? t.check_article() : t.check();
  const std::uint64_t count = ctr.read();
  if (count != s.expected_count) {
    std::fprintf(stderr, "progress: the counter ended at %llu, expected %llu\n",
                 static_cast<unsigned long long>(count),
                 static_cast<unsigned long long>(s.expected_count));
    e.max_rel = 1e30;
    e.max_abs = std::fabs(static_cast<double>(count) - static_cast<double>(s.expected_count));
  }
  return e;
}

// A distribution-free ~95% confidence interval of the median of `v` (sorts it): the order
// statistics of ranks n/2 -+ 0.98 sqrt(n) (the binomial(n, 1/2) quantiles, normal
// approximation), clamped to the sample; with few pairs it widens to min..max.
std::pair<double, double> median_interval(std::vector<double>& v) {
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  const double half = 0.98 * std::sqrt(n);
  const auto lo = static_cast<std::ptrdiff_t>(std::max(0.0, std::floor(n / 2 - half)));
  const auto hi = static_cast<std::ptrdiff_t>(std::min(n - 1, std::ceil(n / 2 + half)));
  return {v[static_cast<std::size_t>(lo)], v[static_cast<std::size_t>(hi)]};
}

void measure_pair(benchmark::State& state, const Setup& s) {
  s.baseline();
  s.instrumented();
  CUDA_CHECK(cudaStreamSynchronize(s.stream));
  Poller poller(s.read, {.interval = s.poll, .display = Display::quiet, .out = nullptr});
  // Let the poller see the warm-up's final value, so that it is not counted in the window.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  poller.reset_counts();
  double t_sum = 0.0, t_none_sum = 0.0;
  std::vector<double> pair_pct;  // (t - t_none) / t_none of each pair
  long long iters = 0;
  // The harness's A/B measurement (bench/detail/gpu_timing.hpp time_gpu_ab): cold, gated, the order
  // alternating. Cold matters here: without the flushes the pair ran back to back on whatever
  // the previous kernel left in the L2 (the Poisson target's 40 MB output fits in it), and on
  // the H200 the `none` row timed against itself read +1.76% at 10M samples (the run of
  // 25e23e9, in git history); flushed, +0.40% at 10M and +0.06% at 100M (H200, the next
  // session), and -0.33% / +0.05% in the committed run of 3c7200f (results/nvidia-h200/
  // 2026-12-01).
  const auto wall_start = std::chrono::steady_clock::now();
  time_gpu_ab(state, s.stream, s.baseline, s.instrumented, s.gated, [&](double t_none, double t) {
    t_sum += t;
    t_none_sum += t_none;
    if (t_none > 0) pair_pct.push_back((t - t_none) / t_none * 100.0);
    ++iters;
  });
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  poller.stop();
  const PollStats ps = poller.stats();
  if (!ps.error.empty())
    std::fprintf(stderr, "progress: the poller stopped: %s\n", ps.error.c_str());
  if (iters == 0 || t_none_sum <= 0) return;
  state.counters["overhead_pct"] = (t_sum - t_none_sum) / t_none_sum * 100.0;
  // The median pair: robust to the odd pair that a poll or a clock step lands in.
  if (!pair_pct.empty()) {
    auto mid = pair_pct.begin() + static_cast<std::ptrdiff_t>(pair_pct.size() / 2);
    std::nth_element(pair_pct.begin(), mid, pair_pct.end());
    state.counters["overhead_median_pct"] = *mid;
    const auto [lo, hi] = median_interval(pair_pct);
    state.counters["overhead_lo_pct"] = lo;
    state.counters["overhead_hi_pct"] = hi;
  }
  state.counters["t_none_us"] = t_none_sum / iters * 1e6;
  state.counters["distinct_updates"] = static_cast<double>(ps.changes) / iters;
  state.counters["updates_per_s"] = t_sum > 0 ? static_cast<double>(ps.changes) / t_sum : 0.0;
  state.counters["polls_per_s"] = wall > 0 ? static_cast<double>(ps.polls) / wall : 0.0;
}

void add_cuda(const RunConfig& cfg, TargetKind kind, std::size_t n, Strategy strategy,
              CounterKind ck) {
  const auto spec = cuda_spec(kind, n, strategy, ck);
  add_gpu_benchmark(cfg, spec, target_work(kind, n), [=](benchmark::State& state) {
    if (!check_block(state, kBlock)) return;
    Target& t = target(kind, n);
    Counter& ctr = counter(ck);
    const cudaStream_t stream = bench_stream();
    const Setup s{
        .instrumented = [&t, &ctr, strategy, stream] { t.launch(strategy, ctr.ref(), stream); },
        .baseline = [&t, stream] { t.launch(Strategy::none, CounterRef{}, stream); },
        .read = [&ctr] { return ctr.read(); },
        .stream = stream,
        .expected_count = strategy == Strategy::none ? 0 : t.items(),
    };
    if (!validate_once(state, t.tolerance(), [&] { return validate(t, ctr, s); })) return;
    measure_pair(state, s);
    record_kernel(state, t.stats(strategy));
  });
}

// The article's approach: kernel and reads on the legacy default stream, device counter.
void add_article(const RunConfig& cfg, TargetKind kind, std::size_t n) {
  add_gpu_benchmark(cfg, article_spec(kind, n), target_work(kind, n), [=](benchmark::State& state) {
    if (!check_block(state, kBlock)) return;
    Target& t = target(kind, n);
    Counter& ctr = counter(CounterKind::device);
    const cudaStream_t stream = cudaStreamLegacy;
    const Setup s{
        .instrumented = [&t, &ctr, stream] { t.launch_article(ctr.ref(), stream); },
        .baseline = [&t, stream] { t.launch_article_baseline(stream); },
        .read = [&ctr] { return ctr.read_legacy(); },
        .stream = stream,
        .expected_count = t.items(),
        .gated = false,
        .article = true,
    };
    if (!validate_once(state, t.tolerance(), [&] { return validate(t, ctr, s); })) return;
    measure_pair(state, s);
  });
}

ErrorStats validate_live(Target& t, const SlotBoard& b, const Setup& s) {
  t.poison(s.stream);
  const_cast<SlotBoard&>(b).reset(s.stream);
  s.instrumented();
  CUDA_CHECK(cudaStreamSynchronize(s.stream));
  ErrorStats e = t.check();
  const std::uint64_t count = b.read();
  if (count != s.expected_count) {
    std::fprintf(stderr, "progress: the slots sum to %llu, expected %llu\n",
                 static_cast<unsigned long long>(count),
                 static_cast<unsigned long long>(s.expected_count));
    e.max_rel = 1e30;
    e.max_abs = std::fabs(static_cast<double>(count) - static_cast<double>(s.expected_count));
  }
  return e;
}

// A live row: the instrumented kernel against its twin (impl cuda: the suite's kernel; cuda_live:
// the same kernel with the reporting compiled out), or, for cuda_live's strategy:none, the twin
// against the suite's fastest kernel (how far the twin is from it). The poller reads the slots
// every 50 us.
void add_live(const RunConfig& cfg, TargetKind kind, std::size_t n, LiveRow row) {
  add_gpu_benchmark(
      cfg, live_spec(kind, n, row), target_work(kind, n), [=](benchmark::State& state) {
        if (!check_block(state, kBlock)) return;
        Target& t = target(kind, n);
        const cudaStream_t stream = bench_stream();
        const SlotBoard& b = board(row, t.live_writers(row.impl, row.strategy));
        if (auto* g = dynamic_cast<SgemmTarget*>(&t)) g->compute_twin(b, stream);
        const bool twin_row = row.impl == Impl::cuda_live && row.strategy == Strategy::none;
        const Setup s{
            .instrumented = [&t, &b, row,
                             stream] { t.launch_live(row.impl, row.strategy, b, stream); },
            .baseline =
                [&t, &b, row, stream, twin_row] {
                  if (twin_row)
                    t.launch_fastest(stream);
                  else
                    t.launch_live(row.impl, Strategy::none, b, stream);
                },
            .read = [&b] { return b.read(); },
            .stream = stream,
            .expected_count = row.strategy == Strategy::none ? 0 : t.items(),
            .poll = std::chrono::microseconds(50),
        };
        if (!validate_once(state, t.tolerance(), [&] { return validate_live(t, b, s); })) return;
        measure_pair(state, s);
        state.counters["slots"] = static_cast<double>(t.live_writers(row.impl, row.strategy));
        state.counters["slot_bytes"] = 8.0 * row.stride_words;
      });
}

void add_target(const RunConfig& cfg, TargetKind kind, std::size_t n) {
  if (kind != TargetKind::sgemm) {
    for (CounterKind ck : kCounterKinds)
      for (Strategy s : kStrategies)
        if (registered_by_default(cfg, kind, n, s, ck)) add_cuda(cfg, kind, n, s, ck);
    add_article(cfg, kind, n);
  }
  for (const LiveRow& row : live_rows(kind)) add_live(cfg, kind, n, row);
}
#endif

// Without CUDA the same names are registered and skip with the reason (gpu_info's status), so
// that `--workload=progress` still lists what a GPU build would measure.
void add_all(const RunConfig& cfg, TargetKind kind, std::size_t n) {
#if TWINBENCH_HAVE_CUDA
  add_target(cfg, kind, n);
#else
  auto skipped = [](benchmark::State&) {};
  if (kind != TargetKind::sgemm) {
    for (CounterKind ck : kCounterKinds)
      for (Strategy s : kStrategies)
        if (registered_by_default(cfg, kind, n, s, ck))
          add_gpu_benchmark(cfg, cuda_spec(kind, n, s, ck), target_work(kind, n), skipped);
    add_gpu_benchmark(cfg, article_spec(kind, n), target_work(kind, n), skipped);
  }
  for (const LiveRow& row : live_rows(kind))
    add_gpu_benchmark(cfg, live_spec(kind, n, row), target_work(kind, n), skipped);
#endif
}

void register_benchmarks(const RunConfig& cfg) {
  for (std::size_t n : sizes_1d(cfg, {kVectorAddSize}, kVectorAddQuick))
    add_all(cfg, TargetKind::vector_add, n);
  for (std::size_t n : sizes_1d(cfg, {kPoissonSmall, kPoissonLarge}, kPoissonQuick))
    add_all(cfg, TargetKind::poisson, n);
  for (std::size_t n : sizes_1d(cfg, {black_scholes::kDefaultSize}, black_scholes::kQuickSize))
    add_all(cfg, TargetKind::black_scholes, n);
  for (std::size_t n : sizes_1d(cfg, {nested_loop::kArticleSize}, nested_loop::kQuickSize)) {
    add_all(cfg, TargetKind::nested_loop, n);
    add_all(cfg, TargetKind::nested_loop_warp, n);
  }
  for (std::size_t n : sizes_1d(cfg, {kSgemmSize}, kSgemmQuick)) add_all(cfg, TargetKind::sgemm, n);
}

}  // namespace

TWINBENCH_WORKLOAD("progress",
                   "live progress counter: overhead of each counting strategy (GPU only)",
                   register_benchmarks);

}  // namespace tb::progress
