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
#include "cpu/vector_add.hpp"
#if TWINBENCH_HAVE_CUDA
#include "bench/gpu_harness.hpp"
#include "gpu/poisson.hpp"
#include "gpu/progress_bench.hpp"
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

enum class TargetKind { vector_add, poisson, black_scholes, nested_loop, nested_loop_warp };
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

// progress/<impl>/target:<kernel>/...: the suite's `<workload>/<impl>/<args>` naming, with the
// instrumented kernel as an argument.
std::string cuda_name(TargetKind kind, std::size_t n, Strategy strategy, CounterKind ck) {
  return bench_name("progress", "cuda",
                    {{"target", target_name(kind)},
                     {"strategy", strategy_name(strategy)},
                     {"counter", counter_name(ck)},
                     {"n", n},
                     {"block", kBlock}});
}

std::string article_name(TargetKind kind, std::size_t n) {
  return bench_name("progress", "cuda_article",
                    {{"target", target_name(kind)},
                     {"strategy", "per_thread"},
                     {"counter", "device"},
                     {"n", n},
                     {"block", kBlock}});
}

#if TWINBENCH_HAVE_CUDA
// One GPU target: its buffers, the instrumented launch, the uninstrumented baseline, and the
// check of its output.
struct Target {
  virtual ~Target() = default;
  virtual std::size_t n() const = 0;
  // What the counter ends at after one instrumented kernel.
  virtual std::uint64_t items() const { return n(); }
  virtual WorkModel work() const = 0;
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
  WorkModel work() const override { return vector_add::work(n_); }
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
  WorkModel work() const override { return poisson::work(n_); }
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
    gpu::progress_poisson_article(counter, dout_.data(), n_, poisson::kSeed, poisson::kRate,
                                  kBlock, stream);
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
  WorkModel work() const override { return black_scholes::work(n_); }
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
  WorkModel work() const override { return nested_loop::work(n_); }
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

 private:
  std::size_t n_;
  bool warp_;
  HostArray<double> ref_, out_;
  DeviceBuffer<double> dout_;
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
  }
  return {};
}

Target& target(TargetKind kind, std::size_t n) {
  static SingleSlot<std::pair<int, std::size_t>, std::unique_ptr<Target>> slot;
  const auto make = [&]() -> std::unique_ptr<Target> {
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
    }
    throw std::logic_error("progress: unknown target");
  };
  return *slot.get({static_cast<int>(kind), n}, target_footprint(kind, n), make);
}

Counter& counter(CounterKind kind) {
  static std::unique_ptr<Counter> counters[2];
  auto& c = counters[kind == CounterKind::mapped ? 0 : 1];
  if (!c) c = std::make_unique<Counter>(kind);
  return *c;
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

void measure_pair(benchmark::State& state, const Setup& s) {
  Event e0, e1, e2, e3;
  s.baseline();
  s.instrumented();
  CUDA_CHECK(cudaStreamSynchronize(s.stream));
  Poller poller(
      s.read,
      {.interval = std::chrono::microseconds(1000), .display = Display::quiet, .out = nullptr});
  // Let the poller see the warm-up's final value, so that it is not counted in the window.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  poller.reset_counts();
  double t_sum = 0.0, t_none_sum = 0.0;
  std::vector<double> pair_pct;  // (t - t_none) / t_none of each pair
  long long iters = 0;
  // Cold, as every other GPU row (bench/gpu_harness.hpp time_gpu): an L2 flush before each of
  // the two kernels, outside the events. Without it the pair ran back to back on whatever the
  // previous kernel left in the L2 (the Poisson target's 40 MB output fits in it), and on the
  // H200 the `none` row timed against itself read +1.76% at 10M samples (the run of 25e23e9, in
  // git history): a kernel's time depended on where it fell in the sequence, not on its code.
  // Flushed, the same row read +0.40% at 10M and +0.06% at 100M (H200, the next session), and
  // -0.33% / +0.05% in the committed run of 3c7200f (results/nvidia-h200/2026-12-01).
  const bool cold = cold_caches();
  const auto wall_start = std::chrono::steady_clock::now();
  // Both kernels are queued behind a gate (bench/gpu_harness.hpp) and run back to back: without
  // it the first one, launched on an idle GPU, would carry the launch latency and the second,
  // enqueued while the first runs, would not. Which one goes first alternates: of two identical
  // kernels back to back the second ran 0.3-0.6% faster on the H200 (the none strategy measured
  // against itself), a bias as large as the overheads being measured.
  LaunchGate gate;
  tb::measure(state, [&] {
    const bool baseline_first = iters % 2 == 0;
    if (s.gated) gate.close(s.stream);
    if (cold) flush_l2(s.stream);
    e0.record(s.stream);
    (baseline_first ? s.baseline : s.instrumented)();
    e1.record(s.stream);
    if (cold) flush_l2(s.stream);
    e2.record(s.stream);
    (baseline_first ? s.instrumented : s.baseline)();
    e3.record(s.stream);
    if (s.gated) gate.open();
    e3.synchronize();
    if (s.gated && gate.timed_out())
      throw std::runtime_error("the kernels waited behind the launch gate until it timed out");
    const double first = e1.seconds_since(e0);
    const double second = e3.seconds_since(e2);
    const double t_none = baseline_first ? first : second;
    const double t = baseline_first ? second : first;
    t_sum += t;
    t_none_sum += t_none;
    if (t_none > 0) pair_pct.push_back((t - t_none) / t_none * 100.0);
    ++iters;
    return t;
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
  }
  state.counters["l2_flushed"] = cold ? 1 : 0;
  state.counters["t_none_us"] = t_none_sum / iters * 1e6;
  state.counters["distinct_updates"] = static_cast<double>(ps.changes) / iters;
  state.counters["updates_per_s"] = t_sum > 0 ? static_cast<double>(ps.changes) / t_sum : 0.0;
  state.counters["polls_per_s"] = wall > 0 ? static_cast<double>(ps.polls) / wall : 0.0;
}

void add_cuda(const RunConfig& cfg, TargetKind kind, std::size_t n, Strategy strategy,
              CounterKind ck) {
  const auto name = cuda_name(kind, n, strategy, ck);
  add_gpu_benchmark(cfg, name, [=](benchmark::State& state) {
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
    set_work(state, t.work(), Side::gpu);
  });
}

// The article's approach: kernel and reads on the legacy default stream, device counter.
void add_article(const RunConfig& cfg, TargetKind kind, std::size_t n) {
  const auto name = article_name(kind, n);
  add_gpu_benchmark(cfg, name, [=](benchmark::State& state) {
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
    set_work(state, t.work(), Side::gpu);
  });
}

void add_target(const RunConfig& cfg, TargetKind kind, std::size_t n) {
  for (CounterKind ck : kCounterKinds)
    for (Strategy s : kStrategies)
      if (!(s == Strategy::per_thread && ck == CounterKind::mapped) ||
          per_thread_mapped_affordable(cfg, kind, n))
        add_cuda(cfg, kind, n, s, ck);
  add_article(cfg, kind, n);
}
#endif

// Without CUDA the same names are registered and skip with the reason (gpu_info's status), so
// that `--workload=progress` still lists what a GPU build would measure.
void add_all(const RunConfig& cfg, TargetKind kind, std::size_t n) {
#if TWINBENCH_HAVE_CUDA
  add_target(cfg, kind, n);
#else
  auto skipped = [](benchmark::State&) {};
  for (CounterKind ck : kCounterKinds)
    for (Strategy s : kStrategies)
      if (!(s == Strategy::per_thread && ck == CounterKind::mapped) ||
          per_thread_mapped_affordable(cfg, kind, n))
        add_gpu_benchmark(cfg, cuda_name(kind, n, s, ck), skipped);
  add_gpu_benchmark(cfg, article_name(kind, n), skipped);
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
}

}  // namespace

int run_demo(double seconds) {
#if TWINBENCH_HAVE_CUDA
  if (!gpu_info().available) {
    std::printf("twinbench: no GPU here (%s); the progress demo needs one, nothing to do\n",
                gpu_info().status.c_str());
    return 0;
  }
  try {
    // The job: Poisson samples in chunks of kChunk (each with its own seed) until about
    // `seconds` have passed, all enqueued at once, so the bar shows the GPU's progress and not
    // the host's. One kernel per chunk, counting per_block into a mapped counter.
    constexpr std::size_t kChunk = std::size_t{1} << 28;  // 1 GiB of int32
    Stream stream;
    DeviceBuffer<std::int32_t> out(kChunk);
    Counter ctr(CounterKind::mapped);
    const auto& table = poisson::default_table();
    auto launch = [&](std::uint64_t chunk) {
      gpu::progress_poisson(Strategy::per_block, ctr.ref(), out.data(), kChunk,
                            poisson::kSeed + chunk, table, kBlock, gpu::kPoissonRowsPerReport,
                            stream);
    };
    Event start, stop;
    launch(0);  // warm-up, then time one chunk to size the job
    start.record(stream);
    launch(0);
    stop.record(stream);
    stop.synchronize();
    const double per_chunk = stop.seconds_since(start);
    const auto chunks =
        static_cast<std::uint64_t>(std::max(1.0, std::ceil(seconds / std::max(per_chunk, 1e-6))));
    const std::uint64_t total = chunks * kChunk;
    std::fprintf(stderr,
                 "progress demo: %llu Poisson(5) samples in %llu kernels of %zu (%.2f ms each), "
                 "about %.1f s\n",
                 static_cast<unsigned long long>(total), static_cast<unsigned long long>(chunks),
                 kChunk, per_chunk * 1e3, per_chunk * static_cast<double>(chunks));
    ctr.reset(stream);
    Poller poller([&ctr] { return ctr.read(); }, {.total = total, .label = "poisson"});
    const auto t0 = std::chrono::steady_clock::now();
    for (std::uint64_t c = 0; c < chunks; ++c) launch(c);
    stream.synchronize();
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // One more poll interval, so that the poller has read the final value before it stops.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    poller.stop();
    const PollStats ps = poller.stats();
    std::fprintf(stderr,
                 "progress demo: done in %.2f s; the counter reads %llu of %llu; the host saw %llu "
                 "distinct values (%.0f per second)\n",
                 elapsed, static_cast<unsigned long long>(ctr.read()),
                 static_cast<unsigned long long>(total),
                 static_cast<unsigned long long>(ps.distinct),
                 elapsed > 0 ? ps.distinct / elapsed : 0.0);
    if (ctr.read() != total) {
      std::fprintf(stderr, "progress demo: the counter is wrong\n");
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "progress demo failed: %s\n", e.what());
    return 1;
  }
#else
  (void)seconds;
  std::printf("twinbench: built without CUDA; the progress demo needs a GPU, nothing to do\n");
  return 0;
#endif
}

TWINBENCH_WORKLOAD("progress",
                   "live progress counter: overhead of each counting strategy (GPU only)",
                   register_benchmarks);

}  // namespace tb::progress
