// atomics benchmarks: the sum of n int32 values into a 64-bit accumulator, by atomics at three
// granularities (per element, per warp, per block), atomics spread over K addresses, thrust and
// CUB reductions, and the CPU's serial loop, OpenMP atomic and OpenMP reduction. Bytes model:
// each input read once (4 B/element); items = elements. ns_per_element is the time per element
// and atomics_per_iter the atomic operations one run issues (what the contention scales with).
#include <twinbench/twinbench.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <vector>

#include "cpu/atomics.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/atomics.hpp"
#endif

namespace tb::atomics {
namespace {

constexpr int kSpreadAddrs[] = {1, 32, 1024, 32768};
constexpr int kContendedBlock = 256;

void counters(twinbench::Row& r, std::size_t n, double atomics) {
  r.counter("ns_per_element", static_cast<double>(n) * 1e-9, twinbench::Counter::seconds_per);
  r.counter("atomics_per_iter", atomics);
}

void atomics(twinbench::Bench& b) {
  for (std::size_t n : b.sizes({kDefaultSize}, kQuickSize)) {
    // --size is taken as given; otherwise omp_atomic stops at kOmpAtomicMax (see cpu/atomics.hpp).
    const std::size_t n_atomic = b.size_given() ? n : std::min(n, kOmpAtomicMax);
    // A case per n: the sum of in[0, n) into one exact int64 (integer sums: tolerance 0).
    twinbench::Input<std::int32_t> in;
    twinbench::Output<std::int64_t> sum;
    const auto open = [&](std::size_t m) -> twinbench::Case& {
      twinbench::Case& c = b.add_case({{"n", m}}, kSeed);
      in = c.input<std::int32_t>("in", m, twinbench::uniform(kLo, kHi));
      sum = c.output<std::int64_t>("sum", 1);
      c.work({.read_bytes = 4.0 * static_cast<double>(m), .items = static_cast<double>(m)});
      c.reference([in = in, sum = sum, m] { *sum.ref() = serial(in.host(), m); });
      return c;
    };
    using Impl = std::int64_t (*)(const std::int32_t*, std::size_t);
    const auto cpu = [&](twinbench::Case& c, const char* impl, Impl f, std::size_t m, double atomics,
                         twinbench::Options o) {
      c.cpu(impl, [=](twinbench::Row& r) {
        *sum.host() = f(in.host(), m);
        counters(r, m, atomics);
      }, std::move(o));
    };
    // omp_atomic runs on the first n_atomic elements: a case of its own where that is fewer.
    twinbench::Case* c = &open(n);
    cpu(*c, "serial", serial, n, 0.0, {});
    if (n_atomic != n) c = &open(n_atomic);
    cpu(*c, "omp_atomic", omp_atomic, n_atomic, static_cast<double>(n_atomic),
        {.algorithm = "atomic", .threaded = true});
    if (n_atomic != n) c = &open(n);
    cpu(*c, "omp_reduction", omp_reduction, n, 0.0, {.threaded = true});
#if TWINBENCH_HAVE_CUDA
    // One address for every thread: 0.197 s at 256M whatever the block (the H200, 1.36 G
    // atomics/s on one word), so by default one block size; --full or --block sweep it. The
    // blocks before that one go in the first case, the rest in another, in the sweep's order.
    const auto hot = [&](int block) { return b.full() || b.blocks_given() || block == kContendedBlock; };
    const std::vector<int> sweep = b.block_sweep();
    const auto split = std::find_if(sweep.begin(), sweep.end(), hot);
    const auto ull = [](twinbench::Output<std::int64_t> s) {
      return reinterpret_cast<unsigned long long*>(s.device());
    };
    using Launcher = void (*)(const std::int32_t*, std::size_t, unsigned long long*, int, cudaStream_t);
    using Stats = gpu::KernelStats (*)(std::size_t, int);
    const auto kernels = [&](twinbench::Case& c, std::vector<int> all) {
      if (all.empty()) return;
      std::vector<int> contended;
      std::copy_if(all.begin(), all.end(), std::back_inserter(contended), hot);
      auto partials = c.scratch<unsigned long long>("partials", kSpreadAddrs[3]);
      const auto add = [&](const char* impl, Launcher f, Stats st, const std::vector<int>& blocks,
                           double (*atomics)(double n, int block), const char* algorithm) {
        if (blocks.empty()) return;
        c.gpu(impl, [=](twinbench::Launch& l) {
          f(in.device(), n, ull(sum), l.block(), l.stream());
          counters(l, n, atomics(static_cast<double>(n), l.block()));
        }, {.algorithm = algorithm, .blocks = twinbench::fixed(blocks),
            .modes = twinbench::Modes::unnamed,
            .stats = [=](const twinbench::Launch& l) { return st(n, l.block()); }});
      };
      add("cuda_atomic_per_thread", gpu::atomics_cuda_atomic_per_thread,
          gpu::atomics_cuda_atomic_per_thread_stats, contended, [](double m, int) { return m; },
          "atomic");
      add("cuda_warp", gpu::atomics_cuda_warp, gpu::atomics_cuda_warp_stats, all,
          [](double m, int block) { return std::ceil(m / block) * (block / 32); }, "");
      add("cuda_block", gpu::atomics_cuda_block, gpu::atomics_cuda_block_stats, all,
          [](double m, int block) { return std::ceil(m / block); }, "");
      for (int addrs : kSpreadAddrs) {
        if (addrs == 1 ? contended.empty() : all.empty()) continue;
        c.gpu("cuda_atomic_spread", [=](twinbench::Launch& l) {
          gpu::atomics_cuda_atomic_spread(in.device(), n, partials.device(), addrs, ull(sum),
                                          l.block(), l.stream());
          counters(l, n, static_cast<double>(n));
          l.counter("addrs", addrs);
        }, {.axes = {{"addrs", addrs}}, .algorithm = "atomic",
            .blocks = twinbench::fixed(addrs == 1 ? contended : all), .modes = twinbench::Modes::unnamed,
            .stats = [=](const twinbench::Launch& l) {
              return gpu::atomics_cuda_atomic_spread_stats(n, l.block()); }});
      }
    };
    kernels(*c, {sweep.begin(), split});
    if (split != sweep.begin()) c = &open(n);
    kernels(*c, {split, sweep.end()});
    // thrust::reduce hands the sum back to the host: each run ends with a stream sync and an
    // 8-byte copy, which the events include (and the launch latency: a call that waits for the
    // GPU cannot be queued behind a gate).
    c->gpu("thrust", [=](twinbench::Launch& l) {
      *sum.host() = gpu::atomics_thrust(in.device(), n, l.stream());
      counters(l, n, 0.0);
    }, {.blocks = twinbench::own_launch(), .modes = twinbench::Modes::unnamed,
        .waits_for_gpu = true, .writes_host = true});
    // CUB's temporary storage (asked of CUB where there is a GPU) made with the case's buffers.
    const std::size_t temp_bytes = std::max<std::size_t>(b.gpus() > 0 ? gpu::atomics_cub_temp_bytes(n) : 1, 1);
    auto temp = c->scratch<unsigned char>("cub_temp", temp_bytes);
    c->gpu("thrust_cub", [=](twinbench::Launch& l) {
      gpu::atomics_cub(in.device(), n, ull(sum), temp.device(), temp_bytes, l.stream());
      counters(l, n, 0.0);
      l.counter("temp_bytes", static_cast<double>(temp_bytes));
    }, {.blocks = twinbench::own_launch(), .modes = twinbench::Modes::unnamed});
#endif
  }
}

}  // namespace

TWINBENCH_BENCH("atomics", "sum of int32 by atomics (per thread/warp/block, spread) vs reductions",
                atomics);

}  // namespace tb::atomics
