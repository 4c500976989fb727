// lucas benchmarks: L(0..n) in int64. No inputs; bytes model: the n+1 int64 written. No FLOPs:
// items = the int64 additions each variant performs (recursive: F(i+1)-1 per index, ~phi^n in
// all; serial_iterative: n-1; cuda_iterative: i-1 per thread). n = 40 is the articles'; the sweep
// 20..90 shows where each wins (the recursive variants stop at 40: ~9e8 calls, growing x1.6
// per step).
#include "bench/twinbench.hpp"

#include "cpu/lucas.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <vector>

#if TWINBENCH_HAVE_CUDA
#include "gpu/lucas.hpp"
#endif

namespace tb::lucas {
namespace {

struct HostData {
  int n;
  HostArray<std::int64_t> ref, out;
  explicit HostData(int n_) : n(n_), ref(n + 1), out(n + 1) { serial_iterative(ref.data(), n); }
  ErrorStats check(const std::int64_t* got) const {
    return compare_exact(got, ref.data(), ref.size());
  }
  // ref, out: L(0..n), n + 1 int64 each.
  static Footprint weight(int n) { return {.host_bytes = 2.0 * sizeof(std::int64_t) * (n + 1)}; }
};

using CpuImpl = void (*)(std::int64_t*, int);

// Wall time of computing all of L(0..n) on the CPU; items = additions (see the file comment).
void add_cpu(const RunConfig& cfg, const BenchSpec& spec, int n, CpuImpl fn, std::uint64_t adds) {
  add_cpu_benchmark(cfg, spec, work(n, adds), [n, fn, adds](benchmark::State& state) {
    HostData& d = inputs<HostData>(n);
    run_cpu_checked(
        state, kTolerance,
        [&] {
          poison(d.out.span());
          fn(d.out.data(), n);
          return d.check(d.out.data());
        },
        [&] { fn(d.out.data(), n); });
  });
}

#if TWINBENCH_HAVE_CUDA
struct DeviceData {
  Stream stream;
  DeviceBuffer<std::int64_t> out;
  PinnedBuffer<std::int64_t> host_out;
  explicit DeviceData(int n) : out(n + 1), host_out(n + 1) {}
  // Device out and pinned host_out: n + 1 int64 each.
  static Footprint weight(int n) {
    const double bytes = 1.0 * sizeof(std::int64_t) * (n + 1);
    return {.host_bytes = bytes, .device_bytes = bytes};
  }
};

using GpuLaunch = void (*)(std::int64_t*, int, int, cudaStream_t);
using GpuStats = gpu::KernelStats (*)(int, int);

// Event time of the kernel (mode:kernel) or kernel plus the download of L(0..n) (mode:e2e);
// items = additions (see the file comment).
void add_cuda(const RunConfig& cfg, const char* impl, const char* algorithm, int n, int block,
              Mode mode, GpuLaunch launch, GpuStats stats, std::uint64_t adds) {
  const auto spec =
      bench_spec("lucas", impl, {{"n", n}, {"block", block}}).in_mode(mode).of_algorithm(algorithm);
  add_gpu_benchmark(cfg, spec, work(n, adds), [=](benchmark::State& state) {
    if (!check_block(state, block)) return;
    DeviceData& d = inputs<DeviceData>(n);
    const HostData& h = inputs<HostData>(n);
    run_gpu_modes(
        state, mode, d.stream, kTolerance,
        {
            .poison =
                [&d] {
                  poison_device(d.out, d.stream);
                  poison(d.host_out.span());
                },
            .upload = [] {},
            .compute = [&d, n, block, launch] { launch(d.out.data(), n, block, d.stream); },
            .download = [&d, n] { copy_to_host(d.host_out.data(), d.out.data(), n + 1, d.stream); },
            .check = [&d, &h] { return h.check(d.host_out.data()); },
        });
    record_kernel(state, stats(n, block));
  });
}

// n+1 threads at most: a block size whose first half would already cover them only adds empty
// warps, so the sweep stops at the first block that holds all the indices.
std::vector<int> useful_blocks(const RunConfig& cfg, int n) {
  std::vector<int> out;
  for (int block : block_sweep_1d(cfg))
    if (out.empty() || block / 2 < n + 1) out.push_back(block);
  return out;
}
#endif

void register_benchmarks(const RunConfig& cfg) {
  std::vector<std::size_t> sizes = sizes_1d(cfg, {20, 30, 40, 50, 90}, kQuickN);
  // L(91) overflows int64: a larger --size runs n = 90, and says so (once).
  if (std::any_of(sizes.begin(), sizes.end(), [](std::size_t s) { return s > kMaxN; })) {
    std::fprintf(stderr,
                 "twinbench: lucas: n above %d overflows int64 (L(91) > 2^63): running n = %d\n",
                 kMaxN, kMaxN);
    for (std::size_t& s : sizes) s = std::min<std::size_t>(s, kMaxN);
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  }
  for (std::size_t size : sizes) {
    const int n = static_cast<int>(size);
    const bool recursive = n <= kMaxRecursiveN;
    if (recursive) {
      add_cpu(cfg, bench_spec("lucas", "serial_recursive", {{"n", n}}).of_algorithm("recursive"), n,
              serial_recursive, recursive_adds_upto(n));
      add_cpu(cfg,
              bench_spec("lucas", "omp_recursive", {{"n", n}})
                  .on_threads(omp_threads())
                  .of_algorithm("recursive"),
              n, omp_recursive, recursive_adds_upto(n));
    }
    add_cpu(cfg, bench_spec("lucas", "serial_iterative", {{"n", n}}).of_algorithm("iterative"), n,
            serial_iterative, n >= 2 ? n - 1 : 0);
#if TWINBENCH_HAVE_CUDA
    for (Mode mode : kModes) {
      for (int block : useful_blocks(cfg, n)) {
        // mode:kernel only for the recursion: one launch at n = 40 runs for seconds (one thread
        // walks 3.3e8 calls), and the 328-byte download that e2e adds is lost in the noise.
        // The recursion on the GPU is one thread walking phi^n calls: 0.12 s at n = 30, 15 s
        // at n = 40 on the H200, too long for the default run's budget; --full runs it.
        if (recursive && mode == Mode::kernel &&
            (cfg.full || cfg.size || n <= kDefaultMaxCudaRecursiveN))
          add_cuda(cfg, "cuda_recursive", "recursive", n, block, mode, gpu::lucas_cuda_recursive,
                   gpu::lucas_cuda_recursive_stats, recursive_adds_upto(n));
        add_cuda(cfg, "cuda_iterative", "iterative", n, block, mode, gpu::lucas_cuda_iterative,
                 gpu::lucas_cuda_iterative_stats, per_index_iterative_adds_upto(n));
      }
    }
#endif
  }
}

}  // namespace

TWINBENCH_WORKLOAD("lucas", "Lucas numbers L(0..n), int64: exponential recursion vs iteration",
                   register_benchmarks);

}  // namespace tb::lucas
