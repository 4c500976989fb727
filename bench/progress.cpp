// progress: what live progress counting costs a kernel and how live the count is. Each counting
// strategy (tb::progress::Strategy) on a target kernel is timed against the kernel without it as
// interleaved, L2-flushed pairs (gpu/progress_bench.hpp PairRow); the row's time is the
// instrumented kernel's.
// Bytes and FLOPs are the target's own workload's (cpu/progress_rows.hpp target_work): vector_add
// (12 B/element), poisson (4 B written per sample), black_scholes (the cuda kernel, 20 B per
// option), nested_loop and nested_loop_warp (N = M = n; items the N*M inner iterations), sgemm
// (cuda_optimized, live rows only; items its 128 x 128 tiles of C).
// impl cuda: the target's kernel counting on a mapped or device counter, against itself without.
// cuda_article: the article's atomic per thread (per sample in its own Poisson kernel), read with
// cudaMemcpy on the legacy stream, which waits for the kernel (expect distinct_updates = 1).
// Live rows (counter:slots64, slots8, devslots8): each block or warp stores its running count
// into a slot of its own, which the host sums (gpu/progress.cuh Publisher, SlotBoard); cuda_live:
// a kernel written for it against its twin without the reporting (its strategy:none row: the twin
// against the suite's fastest kernel of the target). Every row checks the output against the
// reference and the count against the items, exactly.
#include <twinbench/twinbench.hpp>

#include "cpu/progress_rows.hpp"
#include "gpu/progress_bench.hpp"

namespace tb::progress {
namespace {

// The rows of one target at n: cuda (each strategy on each counter), cuda_article, then the
// live rows. `wide` (--full or --size): the mapped counter's costly rows on every target.
void add_target(twinbench::Bench& b, TargetKind kind, std::size_t n, bool wide) {
  twinbench::Case& c = b.add_case({{"target", target_name(kind)}});
  c.work(target_work(kind, n));
  const TargetRef t = declare_target(c, kind, n);
  const auto row = [&](const char* impl, Strategy s, const char* counter, const PairRow& r) {
    c.sampled(impl, r.sample,
              {.axes = {{"strategy", strategy_name(s)},
                        {"counter", counter},
                        {"n", n},
                        {"block", kBlock}},
               .check = r.check,
               .side = twinbench::Side::gpu,
               .gpu_events = true,
               .before_samples = r.before,
               .after_samples = r.after});
  };
  if (kind != TargetKind::sgemm) {
    for (CounterKind ck : kCounterKinds)
      for (Strategy s : kStrategies)
        if (registered_by_default(wide, kind, n, s, ck))
          row("cuda", s, counter_name(ck), cuda_row(t, s, ck));
    row("cuda_article", Strategy::per_thread, "device", article_row(t));
  }
  for (const LiveRow& r : live_rows(kind))
    row(r.impl == Impl::cuda ? "cuda" : "cuda_live", r.strategy, slots_name(r), live_row(t, r));
}

void progress(twinbench::Bench& b) {
  const bool wide = b.full() || b.size_given();
  for (std::size_t n : b.sizes({kVectorAddSize}, kVectorAddQuick))
    add_target(b, TargetKind::vector_add, n, wide);
  for (std::size_t n : b.sizes({kPoissonSmall, kPoissonLarge}, kPoissonQuick))
    add_target(b, TargetKind::poisson, n, wide);
  for (std::size_t n : b.sizes({black_scholes::kDefaultSize}, black_scholes::kQuickSize))
    add_target(b, TargetKind::black_scholes, n, wide);
  for (std::size_t n : b.sizes({nested_loop::kArticleSize}, nested_loop::kQuickSize)) {
    add_target(b, TargetKind::nested_loop, n, wide);
    add_target(b, TargetKind::nested_loop_warp, n, wide);
  }
  for (std::size_t n : b.sizes({kSgemmSize}, kSgemmQuick))
    add_target(b, TargetKind::sgemm, n, wide);
}

}  // namespace

TWINBENCH_BENCH("progress", "live progress counter: overhead of each counting strategy (GPU only)",
                progress);

}  // namespace tb::progress
