// atomics benchmarks: the sum of n int32 values into a 64-bit accumulator, by atomics at three
// granularities (per element, per warp, per block), atomics spread over K addresses, thrust and
// CUB reductions, and the CPU's serial loop, OpenMP atomic and OpenMP reduction. Bytes model:
// each input read once (4 B/element); items = elements. ns_per_element is the time per element
// and atomics_per_iter the atomic operations one run issues (what the contention scales with).
#include "bench/twinbench.hpp"

#include "cpu/atomics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#if TWINBENCH_HAVE_CUDA
#include "gpu/atomics.hpp"
#endif

namespace tb::atomics {
namespace {

constexpr int kSpreadAddrs[] = {1, 32, 1024, 32768};
constexpr int kContendedBlock = 256;

struct HostData {
  std::size_t n, n_atomic;
  HostArray<std::int32_t> in;
  std::int64_t ref = 0, ref_atomic = 0;  // sums of in[0, n) and of the omp_atomic prefix
  HostData(std::size_t n_, std::size_t n_atomic_) : n(n_), n_atomic(n_atomic_), in(n) {
    fill_uniform(in.span(), kSeed, kLo, kHi);
    ref = serial(in.data(), n);
    ref_atomic = serial(in.data(), n_atomic);
  }
  // in: n int32 (the references are scalars).
  static Footprint weight(std::size_t n, std::size_t /*n_atomic*/) {
    return {.host_bytes = 1.0 * sizeof(std::int32_t) * n};
  }
};

// Nanoseconds per element: Google Benchmark divides by the time and kInvert flips it.
benchmark::Counter ns_per_element(std::size_t n) {
  return benchmark::Counter(
      static_cast<double>(n) * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void add_counters(benchmark::State& state, std::size_t n, double atomics) {
  state.counters["ns_per_element"] = ns_per_element(n);
  state.counters["atomics_per_iter"] = atomics;
}

using CpuImpl = std::int64_t (*)(const std::int32_t*, std::size_t);

// prefix: run on the first n_atomic elements (omp_atomic's cap) instead of all n.
// atomics_per_element: atomic operations per element, for the atomics_per_iter counter.
void add_cpu(const RunConfig& cfg, const BenchSpec& spec, std::size_t n, std::size_t n_atomic,
             bool prefix, CpuImpl impl, double atomics_per_element) {
  add_cpu_benchmark(cfg, spec, work(prefix ? n_atomic : n), [=](benchmark::State& state) {
    HostData& d = inputs<HostData>(n, n_atomic);
    const std::size_t used = prefix ? d.n_atomic : d.n;
    const std::int64_t ref = prefix ? d.ref_atomic : d.ref;
    const auto check = [&] { return compare_exact(impl(d.in.data(), used), ref); };
    run_checked(state, kExact, check, [&] {
      measure_cpu(state, [&] { benchmark::DoNotOptimize(impl(d.in.data(), used)); });
      add_counters(state, used, atomics_per_element * static_cast<double>(used));
    });
  });
}

#if TWINBENCH_HAVE_CUDA
struct DeviceData {
  Stream stream;
  DeviceBuffer<std::int32_t> in;
  DeviceBuffer<unsigned long long> sum, partials;
  DeviceBuffer<unsigned char> cub_temp;
  PinnedBuffer<unsigned long long> host_sum;
  explicit DeviceData(const HostData& h)
      : in(upload(std::span<const std::int32_t>(h.in.span()))),
        sum(1),
        partials(static_cast<std::size_t>(
            *std::max_element(std::begin(kSpreadAddrs), std::end(kSpreadAddrs)))),
        cub_temp(std::max<std::size_t>(gpu::atomics_cub_temp_bytes(h.n), 1)),
        host_sum(1) {}

  // Poison (device and host), run, read back: the sum as a signed 64-bit value.
  template <class Run>
  std::int64_t checked_run(Run&& run) {
    CUDA_CHECK(cudaMemsetAsync(sum.data(), 0xA5, sizeof(unsigned long long), stream));
    host_sum.data()[0] = 0x5A5A5A5A5A5A5A5Aull;
    run();
    copy_to_host(host_sum.data(), sum.data(), 1, stream);
    stream.synchronize();
    return static_cast<std::int64_t>(host_sum.data()[0]);
  }
  DeviceData(std::size_t n, std::size_t n_atomic) : DeviceData(inputs<HostData>(n, n_atomic)) {}
  // Device in (n int32), the spread partials, the sum and CUB's temporary storage (asked of CUB,
  // as the constructor does); pinned: the one 8-byte sum.
  static Footprint weight(std::size_t n, std::size_t /*n_atomic*/) {
    const double partials = *std::max_element(std::begin(kSpreadAddrs), std::end(kSpreadAddrs));
    return {.host_bytes = sizeof(unsigned long long),
            .device_bytes = 1.0 * sizeof(std::int32_t) * n +
                            (partials + 1) * sizeof(unsigned long long) +
                            static_cast<double>(gpu::atomics_cub_temp_bytes(n))};
  }
};

using Launch = void (*)(const std::int32_t*, std::size_t, unsigned long long*, int, cudaStream_t);
using Stats = gpu::KernelStats (*)(std::size_t, int);

void add_cuda(const RunConfig& cfg, const std::string& impl, std::size_t n, std::size_t n_atomic,
              int block, Launch launch, Stats stats, double atomics,
              const std::string& algorithm = "") {
  const auto spec =
      bench_spec("atomics", impl, {{"n", n}, {"block", block}}).of_algorithm(algorithm);
  add_gpu_benchmark(cfg, spec, work(n), [=](benchmark::State& state) {
    if (!check_block(state, block)) return;
    const std::int64_t ref = inputs<HostData>(n, n_atomic).ref;
    DeviceData& d = inputs<DeviceData>(n, n_atomic);
    const auto run = [&] { launch(d.in.data(), n, d.sum.data(), block, d.stream); };
    const auto check = [&] { return compare_exact(d.checked_run(run), ref); };
    run_checked(state, kExact, check, [&] {
      time_gpu(state, d.stream, run);
      record_kernel(state, stats(n, block));
      add_counters(state, n, atomics);
    });
  });
}

void add_spread(const RunConfig& cfg, std::size_t n, std::size_t n_atomic, int block, int addrs) {
  const auto spec =
      bench_spec("atomics", "cuda_atomic_spread", {{"n", n}, {"addrs", addrs}, {"block", block}})
          .of_algorithm("atomic");
  add_gpu_benchmark(cfg, spec, work(n), [=](benchmark::State& state) {
    if (!check_block(state, block)) return;
    const std::int64_t ref = inputs<HostData>(n, n_atomic).ref;
    DeviceData& d = inputs<DeviceData>(n, n_atomic);
    const auto run = [&] {
      gpu::atomics_cuda_atomic_spread(d.in.data(), n, d.partials.data(), addrs, d.sum.data(), block,
                                      d.stream);
    };
    const auto check = [&] { return compare_exact(d.checked_run(run), ref); };
    run_checked(state, kExact, check, [&] {
      time_gpu(state, d.stream, run);
      record_kernel(state, gpu::atomics_cuda_atomic_spread_stats(n, block));
      add_counters(state, n, static_cast<double>(n));
      state.counters["addrs"] = addrs;
    });
  });
}

void add_thrust(const RunConfig& cfg, std::size_t n, std::size_t n_atomic) {
  add_gpu_benchmark(
      cfg, bench_spec("atomics", "thrust", {{"n", n}}), work(n), [=](benchmark::State& state) {
        const std::int64_t ref = inputs<HostData>(n, n_atomic).ref;
        DeviceData& d = inputs<DeviceData>(n, n_atomic);
        const auto check = [&] {
          return compare_exact(gpu::atomics_thrust(d.in.data(), n, d.stream), ref);
        };
        // thrust::reduce hands the sum back to the host: each run ends with a stream sync and an
        // 8-byte copy, which the events include (and the launch latency: a call that waits for
        // the GPU cannot be queued behind a gate).
        run_checked(state, kExact, check, [&] {
          time_gpu(
              state, d.stream,
              [&] { benchmark::DoNotOptimize(gpu::atomics_thrust(d.in.data(), n, d.stream)); },
              Timing::inline_launch);
          add_counters(state, n, 0.0);
        });
      });
}

void add_cub(const RunConfig& cfg, std::size_t n, std::size_t n_atomic) {
  const auto spec = bench_spec("atomics", "thrust_cub", {{"n", n}});
  add_gpu_benchmark(cfg, spec, work(n), [=](benchmark::State& state) {
    const std::int64_t ref = inputs<HostData>(n, n_atomic).ref;
    DeviceData& d = inputs<DeviceData>(n, n_atomic);
    const auto run = [&] {
      gpu::atomics_cub(d.in.data(), n, d.sum.data(), d.cub_temp.data(), d.cub_temp.bytes(),
                       d.stream);
    };
    const auto check = [&] { return compare_exact(d.checked_run(run), ref); };
    run_checked(state, kExact, check, [&] {
      time_gpu(state, d.stream, run);
      add_counters(state, n, 0.0);
      state.counters["temp_bytes"] = static_cast<double>(d.cub_temp.bytes());
    });
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
  for (std::size_t n : sizes_1d(cfg, {kDefaultSize}, kQuickSize)) {
    // --size is taken as given; otherwise omp_atomic stops at kOmpAtomicMax (see cpu/atomics.hpp).
    const std::size_t n_atomic = cfg.size ? n : std::min(n, kOmpAtomicMax);
    const int threads = omp_threads();
    add_cpu(cfg, bench_spec("atomics", "serial", {{"n", n}}), n, n_atomic, false, serial, 0.0);
    add_cpu(cfg,
            bench_spec("atomics", "omp_atomic", {{"n", n_atomic}})
                .on_threads(threads)
                .of_algorithm("atomic"),
            n, n_atomic, true, omp_atomic, 1.0);
    add_cpu(cfg, bench_spec("atomics", "omp_reduction", {{"n", n}}).on_threads(threads), n,
            n_atomic, false, omp_reduction, 0.0);
#if TWINBENCH_HAVE_CUDA
    const double nd = static_cast<double>(n);
    for (int block : block_sweep_1d(cfg)) {
      const double blocks = std::ceil(nd / block);
      // One address for every thread: 0.197 s at 256M whatever the block (the H200, 1.36 G
      // atomics/s on one word), so by default one block size; --full or --block sweep it.
      const bool contended_row = cfg.full || !cfg.blocks.empty() || block == kContendedBlock;
      if (contended_row)
        add_cuda(cfg, "cuda_atomic_per_thread", n, n_atomic, block,
                 gpu::atomics_cuda_atomic_per_thread, gpu::atomics_cuda_atomic_per_thread_stats, nd,
                 "atomic");
      add_cuda(cfg, "cuda_warp", n, n_atomic, block, gpu::atomics_cuda_warp,
               gpu::atomics_cuda_warp_stats, blocks * (block / 32));
      add_cuda(cfg, "cuda_block", n, n_atomic, block, gpu::atomics_cuda_block,
               gpu::atomics_cuda_block_stats, blocks);
      for (int addrs : kSpreadAddrs)
        if (addrs > 1 || contended_row) add_spread(cfg, n, n_atomic, block, addrs);
    }
    add_thrust(cfg, n, n_atomic);
    add_cub(cfg, n, n_atomic);
#endif
  }
}

}  // namespace

TWINBENCH_WORKLOAD("atomics",
                   "sum of int32 by atomics (per thread/warp/block, spread) vs reductions",
                   register_benchmarks);

}  // namespace tb::atomics
