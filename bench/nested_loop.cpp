// nested_loop benchmarks: results[i] = sum_{j<M} i*j*0.1 in float64, N = M (--size sets N).
// No inputs; bytes model: the N doubles written (8N B). FLOP model: 2 per inner iteration
// (double multiply + add), 2*N*M in all; items = N*M inner iterations. Compute- and latency-
// bound: each i is a chain of M dependent adds.
#include "bench/twinbench.hpp"

#include "cpu/nested_loop.hpp"

#include <cmath>
#include <cstdio>

#if TWINBENCH_HAVE_CUDA
#include "gpu/nested_loop.hpp"
#endif

namespace tb::nested_loop {
namespace {

struct HostData {
  std::size_t n;
  HostArray<double> ref, out;
  explicit HostData(std::size_t n_) : n(n_), ref(n), out(n) {
    omp(out.data(), n, n);  // first-touch out from the threads that write it
    serial(ref.data(), n, n);
  }
  // ref, out: n doubles each.
  static Footprint weight(std::size_t n) { return {.host_bytes = 2.0 * sizeof(double) * n}; }
};

// Sizes above kMaxInnerIterations skip, with the numbers, before the reference is computed.
bool within_cap(benchmark::State& state, std::size_t n) {
  const double inner = static_cast<double>(n) * static_cast<double>(n);
  if (inner <= kMaxInnerIterations) return true;
  char why[256];
  std::snprintf(why, sizeof why,
                "n = %zu is %.2g inner iterations (N^2), above the cap of %.0g (n <= %.0f): the "
                "serial reference alone would take about %.0f minutes at 1e9 iterations/s",
                n, inner, kMaxInnerIterations, std::sqrt(kMaxInnerIterations), inner / 1e9 / 60);
  skip(state, why);
  return false;
}

ErrorStats check(std::span<const double> got, const HostData& h) {
  return compare(got, std::span<const double>(h.ref.span()));
}

using CpuImpl = void (*)(double*, std::size_t, std::size_t);

// Wall time of one full N x M sweep on the CPU; model as in the file comment.
void add_cpu(const RunConfig& cfg, const BenchSpec& spec, std::size_t n, CpuImpl impl) {
  add_cpu_benchmark(cfg, spec, work(n), [n, impl](benchmark::State& state) {
    if (!within_cap(state, n)) return;
    HostData& d = inputs<HostData>(n);
    run_cpu_checked(
        state, kTolerance,
        [&] {
          poison(d.out.span());
          impl(d.out.data(), n, n);
          return check(d.out.span(), d);
        },
        [&] { impl(d.out.data(), n, n); });
  });
}

#if TWINBENCH_HAVE_CUDA
struct DeviceData {
  Stream stream;
  DeviceBuffer<double> results;
  PinnedBuffer<double> host_results;
  explicit DeviceData(std::size_t n) : results(n), host_results(n) {}
  // Device results and pinned host_results: n doubles each.
  static Footprint weight(std::size_t n) {
    const double bytes = 1.0 * sizeof(double) * n;
    return {.host_bytes = bytes, .device_bytes = bytes};
  }
};

using GpuLaunch = void (*)(double*, std::size_t, std::size_t, int, cudaStream_t);
using GpuStats = gpu::KernelStats (*)(std::size_t, int);

// Event time of the kernel (mode:kernel) or kernel plus the download of the N results
// (mode:e2e; there is nothing to upload). Model as in the file comment.
void add_cuda(const RunConfig& cfg, const std::string& impl, std::size_t n, int block, Mode mode,
              GpuLaunch launch, GpuStats stats) {
  const auto spec = bench_spec("nested_loop", impl, {{"n", n}, {"block", block}}).in_mode(mode);
  add_gpu_benchmark(cfg, spec, work(n), [=](benchmark::State& state) {
    if (!check_block(state, block) || !within_cap(state, n)) return;
    DeviceData& d = inputs<DeviceData>(n);
    const HostData& h = inputs<HostData>(n);
    run_gpu_modes(
        state, mode, d.stream, kTolerance,
        {
            .poison =
                [&d] {
                  poison_device(d.results, d.stream);
                  poison(d.host_results.span());
                },
            .upload = [] {},
            .compute = [&d, n, block, launch] { launch(d.results.data(), n, n, block, d.stream); },
            .download = [&d,
                         n] { copy_to_host(d.host_results.data(), d.results.data(), n, d.stream); },
            .check = [&d, &h] { return check(std::span<const double>(d.host_results.span()), h); },
        });
    const gpu::KernelStats k = stats(n, block);
    record_kernel(state, k);  // grid_blocks and low_occupancy (grid < 2 blocks per SM)
    if (k.sm_count > 0)
      state.counters["blocks_per_sm"] = static_cast<double>(k.grid_blocks) / k.sm_count;
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
  for (std::size_t n : sizes_1d(cfg, {kArticleSize}, kQuickSize)) {
    add_cpu(cfg, bench_spec("nested_loop", "serial", {{"n", n}}), n, serial);
    add_cpu(cfg, bench_spec("nested_loop", "omp", {{"n", n}}).on_threads(omp_threads()), n, omp);
#if TWINBENCH_HAVE_CUDA
    for (Mode mode : kModes) {
      for (int block : blocks_1d(cfg, mode)) {
        add_cuda(cfg, "cuda", n, block, mode, gpu::nested_loop_cuda, gpu::nested_loop_cuda_stats);
        add_cuda(cfg, "cuda_warp", n, block, mode, gpu::nested_loop_cuda_warp,
                 gpu::nested_loop_cuda_warp_stats);
      }
    }
#endif
  }
}

}  // namespace

TWINBENCH_WORKLOAD("nested_loop", "sum_j i*j*0.1 per i, float64: a long dependent loop per thread",
                   register_benchmarks);

}  // namespace tb::nested_loop
