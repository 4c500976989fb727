// sync benchmarks: microseconds per launch (counter us_per_launch) of a one-thread kernel under
// different synchronisation patterns, and the CPU's analogues. Host wall-clock time: a launch
// is CPU time spent in the driver and a synchronize is the host waiting to be told the device
// is done; CUDA events would only see the device side. Bytes model: none; items = launches.
// Validation: every kernel adds 1 to a device counter, which must equal the number of launches
// issued, before timing and again after the timed loop.
#include <twinbench/twinbench.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cpu/sync.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/sync.hpp"
#endif

namespace tb::sync {
namespace {

// One wall-clock sample of `f`.
template <class F>
double seconds(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The counters the reports read, once the samples are taken.
void counters(twinbench::Row& r, int launches) {
  r.counter("us_per_launch", launches * 1e-6, twinbench::Counter::seconds_per);
  r.counter("launches_per_iter", launches);
}

std::string count_check(std::uint64_t got, std::uint64_t expected) {
  if (got == expected) return "";
  return "counted " + std::to_string(got) + " launches, expected " + std::to_string(expected);
}

void sync(twinbench::Bench& b) {
  const auto launches_case = [&](int launches) -> twinbench::Case& {
    twinbench::Case& c = b.add_case({});
    c.work({.items = static_cast<double>(launches)});
    return c;
  };
  const std::vector<twinbench::Axis> k = {{"launches", kLaunches}};
  // K calls of an out-of-line function: what a "launch" costs when no other processor is
  // involved; K OpenMP parallel regions (fork, one tiny task, join): the CPU twin of
  // cuda_launch_sync.
  twinbench::Case& c = launches_case(kLaunches);
  auto calls = std::make_shared<std::uint64_t>(0), regions = std::make_shared<std::uint64_t>(0);
  const auto done = [](twinbench::Row& r) { counters(r, kLaunches); };
  c.sampled("serial_call", [=](twinbench::Row&) {
    return seconds([&] { *calls = serial_calls(kLaunches); });
  }, {.axes = k, .check = [=] { return count_check(*calls, kLaunches); }, .after_samples = done});
  c.sampled("omp_fork_join", [=](twinbench::Row&) {
    return seconds([&] { *regions = omp_fork_join(kLaunches); });
  }, {.axes = k, .check = [=] { return count_check(*regions, kLaunches); }, .threaded = true,
      .after_samples = done});
#if TWINBENCH_HAVE_CUDA
  // Each row a case of its own: its stream and counter made when it starts, released after.
  // One untimed iteration before the samples; after them the counter must hold every launch.
  const auto add = [&](const char* impl, int launches, gpu::SyncPattern p) {
    twinbench::Case& g = launches_case(launches);
    auto rig = g.shared<gpu::SyncRig>([] { return std::make_unique<gpu::SyncRig>(); });
    g.sampled(impl, [=](twinbench::Row&) {
      gpu::SyncRig& d = rig.get();
      d.prepare(p, launches);
      return seconds([&] { d.iteration(p, launches); });
    }, {.axes = {{"launches", launches}},
        .check = [=] { return count_check(rig.get().read(), rig.get().expected); },
        .side = twinbench::Side::gpu,
        .before_samples = [=](twinbench::Row&) {
          rig.get().prepare(p, launches);
          rig.get().iteration(p, launches);
        },
        .after_samples = [=](twinbench::Row& r) {
          gpu::SyncRig& d = rig.get();
          const std::string wrong = count_check(d.read(), d.expected);
          if (!wrong.empty()) return r.skip("after the timed loop: " + wrong);
          counters(r, launches);
          r.counter("block", d.stats.block_threads);
          r.counter("regs_per_thread", d.stats.regs_per_thread);
        }});
  };
  add("cuda_launch_sync", 1, gpu::SyncPattern::launch_sync);
  add("cuda_launch_batch", kLaunches, gpu::SyncPattern::launch_batch);
  add("cuda_graph", kLaunches, gpu::SyncPattern::graph);
  add("cuda_implicit_memcpy", kLaunches, gpu::SyncPattern::implicit_memcpy);
  add("cuda_implicit_malloc", kLaunches, gpu::SyncPattern::implicit_malloc);
#endif
}

}  // namespace

TWINBENCH_BENCH("sync", "cost of kernel launches, synchronisation, CUDA graphs and implicit syncs",
                sync);

}  // namespace tb::sync
