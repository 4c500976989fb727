// alloc benchmarks: microseconds to get and release `bytes` of memory, once per iteration
// (counter us_per_alloc; host wall-clock time: these are host-side API costs). Bytes model:
// none (nothing is streamed); items = 1 allocation.
// Every device variant does the same tiny work per iteration (one one-warp kernel that writes the
// first and last word of the buffer, then a stream synchronize), so cuda_reuse is the baseline
// and the other rows minus it are the cost of allocating.
#include <twinbench/twinbench.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "cpu/alloc.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/alloc.hpp"
#endif

namespace tb::alloc {
namespace {

// One wall-clock sample of `f`.
template <class F>
double sample(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The counters the reports read, once the samples are taken.
std::function<void(twinbench::Row&)> counters(std::size_t bytes) {
  return [bytes](twinbench::Row& r) {
    r.counter("us_per_alloc", 1e-6, twinbench::Counter::seconds_per);
    r.counter("alloc_bytes", static_cast<double>(bytes));
  };
}

std::string wrong(std::size_t bad) {
  return bad == 0 ? "" : std::to_string(bad) + " marker(s) not written";
}

void alloc(twinbench::Bench& b) {
  std::vector<std::size_t> all = b.sizes({}, 0);  // --size where given
  if (!b.size_given()) {  // else 4 KiB, 16 KiB, ... up to 1 GiB (16 MiB under --quick)
    all.clear();
    for (std::size_t s = kMinBytes; s <= (b.quick() ? kQuickMaxBytes : kMaxBytes); s *= 4) all.push_back(s);
  }
  for (std::size_t bytes : all) {
    const auto row_case = [&]() -> twinbench::Case& {
      twinbench::Case& c = b.add_case({{"bytes", bytes}});
      c.work({.items = 1});
      return c;
    };
#if TWINBENCH_HAVE_CUDA
    // Each device row a case of its own: its stream (and buffer, or pool setting) made when it
    // starts and released when it ends. The check runs an iteration that reads the ends back;
    // one more warms up before the samples.
    const auto device_row = [&](const char* impl, gpu::AllocRow::Kind kind, const char* algorithm) {
      twinbench::Case& c = row_case();
      auto rig = c.shared<gpu::AllocRow>([=] { return std::make_unique<gpu::AllocRow>(kind, bytes); });
      c.sampled(impl, [=](twinbench::Row& r) {
        if (bytes < sizeof(std::uint32_t)) return r.skip("the device variants need at least 4 bytes"), 0.0;
        return sample([&] { rig.get().iteration(false); });
      }, {.algorithm = algorithm, .check = [=] { return wrong(rig.get().iteration(true)); },
          .side = twinbench::Side::gpu, .before_samples = [=](twinbench::Row&) {  // a warm-up
            if (bytes >= sizeof(std::uint32_t)) rig.get().iteration(false);
          }, .after_samples = counters(bytes)});
    };
    device_row("cuda_reuse", gpu::AllocRow::reuse, "");
    device_row("cuda_malloc_free", gpu::AllocRow::malloc_free, "malloc");
    device_row("cuda_malloc_async", gpu::AllocRow::malloc_async, "malloc");
    row_case().sampled("cuda_host_alloc", [=](twinbench::Row& r) {
      if (bytes == 0) return r.skip("size must be positive"), 0.0;
      return sample([&] { gpu::alloc_host_iteration(bytes, false); });
    }, {.check = [=] { return wrong(gpu::alloc_host_iteration(bytes, true)); },
        .side = twinbench::Side::gpu, .after_samples = counters(bytes)});
#endif
    twinbench::Case& c = row_case();
    // malloc + free of an untouched block: glibc serves small sizes from its arenas and large
    // ones (above its mmap threshold) with mmap/munmap, so this is either a few ns or a system
    // call. A failed malloc is out of memory (a skip), not a wrong result.
    c.sampled("serial_malloc", [=](twinbench::Row&) {
      return sample([&] { malloc_free(bytes); });
    }, {.algorithm = "malloc", .check = [=] {
      if (!malloc_free(bytes)) throw std::bad_alloc();
      return std::string();
    }, .after_samples = counters(bytes)});
    // malloc + one write per page + free: fresh pages are mapped (and zeroed by the kernel) on
    // first touch, which is the real cost of new host memory. But glibc raises its mmap threshold
    // to the size of the last mmapped block it freed (up to 32 MiB), so below that a loop gets the
    // same, already mapped, heap block back and touching costs only the writes; from 64 MiB every
    // malloc is a fresh mmap and every page faults. (With transparent huge pages set to "always",
    // large blocks fault once per 2 MiB instead.)
    c.sampled("serial_malloc_touch", [=](twinbench::Row&) {
      return sample([&] { malloc_touch_free(bytes); });
    }, {.algorithm = "malloc", .check = [=] {
      auto* p = static_cast<unsigned char*>(std::malloc(bytes));
      if (!p) throw std::bad_alloc();
      touch_pages(p, bytes);
      const std::size_t bad = untouched_pages(p, bytes);
      std::free(p);
      return wrong(bad);
    }, .after_samples = counters(bytes)});
  }
}

}  // namespace

TWINBENCH_BENCH("alloc", "cost of cudaMalloc, the stream-ordered pool, pinned and host malloc vs reuse",
                alloc);

}  // namespace tb::alloc
