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
// Live rows (counter:slots64 / slots8): no shared counter at all. Each block (live_block)
// or warp (live_warp) stores its running count into its own slot of mapped host memory with a
// plain store, at most once every live_period_ns (sgemm: once, when its tile of C is done) and
// at its end, and the host sums the slots (gpu/progress.cuh Publisher, common/progress.hpp
// SlotBoard); the poller reads every 50 us.
// impl cuda: the suite's kernel with the policy, timed against itself without it (sgemm: the
// sgemm/cuda_optimized kernel counting its output tiles, the target of tens of ms; its items are
// the tiles). impl cuda_live: a kernel written for live progress (vector_add and black_scholes
// on a persistent grid), timed against its twin, the same kernel with the reporting compiled
// out; the cuda_live strategy:none row times that twin against the suite's fastest kernel of the
// target (vector_add's tile kernel, black_scholes's cuda kernel), so that the report can say how
// far the twin is from it. Every live row is validated as the others: the slots must sum to
// exactly the items, and the output must match the reference (sgemm: sampled elements against
// float64, and the uncounted kernel's C bit for bit).
#include "bench/twinbench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>
#include <vector>

#include "bench/progress_rows.hpp"
#include "bench/progress_targets.hpp"

namespace tb::progress {
namespace {

#if TWINBENCH_HAVE_CUDA
Counter& counter(CounterKind kind) {
  static std::unique_ptr<Counter> counters[2];
  auto& c = counters[kind == CounterKind::mapped ? 0 : 1];
  if (!c) c = std::make_unique<Counter>(kind);
  return *c;
}

// The slot boards of the live rows, one per slot stride and placement, grown to the largest
// launch asked for.
SlotBoard& board(const LiveRow& row, std::size_t writers) {
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

// One instrumented run from poisoned outputs and a zeroed count (`reset`): the output must match
// the reference and the count (`s.read`: a counter's value, or the sum of a board's slots) the
// items exactly.
ErrorStats validate(Target& t, const Setup& s, const std::function<void()>& reset) {
  t.poison(s.stream);
  reset();
  s.instrumented();
  CUDA_CHECK(cudaStreamSynchronize(s.stream));
  ErrorStats e = s.article ? t.check_article() : t.check();
  const std::uint64_t count = s.read();
  if (count != s.expected_count) {
    std::fprintf(stderr, "progress: the count ended at %llu, expected %llu\n",
                 static_cast<unsigned long long>(count),
                 static_cast<unsigned long long>(s.expected_count));
    e.max_rel = 1e30;
    e.max_abs = std::fabs(static_cast<double>(count) - static_cast<double>(s.expected_count));
  }
  return e;
}

void measure_pair(benchmark::State& state, const Setup& s) {
  s.baseline();
  s.instrumented();
  CUDA_CHECK(cudaStreamSynchronize(s.stream));
  Poller poller(s.read, {.interval = s.poll, .display = Display::quiet, .out = nullptr});
  // Let the poller see the warm-up's final value, so that it is not counted in the window.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  poller.reset_counts();
  // The harness's A/B measurement (common/gpu_timing.hpp time_gpu_ab): cold, gated, the order
  // alternating. Cold matters here: without the flushes the pair ran back to back on whatever
  // the previous kernel left in the L2 (the Poisson target's 40 MB output fits in it), and on
  // the H200 the `none` row timed against itself read +1.76% at 10M samples (a run since
  // replaced, in git history); flushed, +0.40% at 10M and +0.06% at 100M (H200, another run),
  // and -0.33% / +0.05% in a third run (also in git history).
  const auto wall_start = std::chrono::steady_clock::now();
  const PairStats p = time_gpu_ab(state, s.stream, s.baseline, s.instrumented, s.gated);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  poller.stop();
  const PollStats ps = poller.stats();
  if (!ps.error.empty())
    std::fprintf(stderr, "progress: the poller stopped: %s\n", ps.error.c_str());
  if (p.pairs == 0 || p.a_sum <= 0) return;
  state.counters["overhead_pct"] = p.excess_pct;
  if (p.has_median) {
    state.counters["overhead_median_pct"] = p.median_pct;
    state.counters["overhead_lo_pct"] = p.lo_pct;
    state.counters["overhead_hi_pct"] = p.hi_pct;
  }
  state.counters["t_none_us"] = p.a_sum / p.pairs * 1e6;
  state.counters["distinct_updates"] = static_cast<double>(ps.changes) / p.pairs;
  state.counters["updates_per_s"] = p.b_sum > 0 ? static_cast<double>(ps.changes) / p.b_sum : 0.0;
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
    const auto check = [&] { return validate(t, s, [&] { ctr.reset(s.stream); }); };
    run_checked(state, t.tolerance(), check, [&] {
      measure_pair(state, s);
      record_kernel(state, t.stats(strategy));
    });
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
    const auto check = [&] { return validate(t, s, [&] { ctr.reset(s.stream); }); };
    run_checked(state, t.tolerance(), check, [&] { measure_pair(state, s); });
  });
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
        SlotBoard& b = board(row, t.live_writers(row.impl, row.strategy));
        t.prepare_live(b, stream);
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
        const auto check = [&] { return validate(t, s, [&] { b.reset(s.stream); }); };
        run_checked(state, t.tolerance(), check, [&] {
          measure_pair(state, s);
          state.counters["slots"] = static_cast<double>(t.live_writers(row.impl, row.strategy));
          state.counters["slot_bytes"] = 8.0 * row.stride_words;
        });
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
