// poisson benchmarks: n samples of Poisson(5) as int32, one xoroshiro128+ stream per each of
// kStreams "threads". Bytes model: 4 B written per sample (no input); compute-bound, so the
// fast cuda variant is judged by pct_copy_bw (target: within 3x of the time to write the output
// at the measured copy bandwidth, i.e. pct_copy_bw >= 33). n = 10M (the article's; 40 MB, about
// the L2) and 100M (400 MB).
#include "bench/twinbench.hpp"

#include "cpu/poisson.hpp"

#include <functional>

#if TWINBENCH_HAVE_CUDA
#include "gpu/poisson.hpp"
#endif

namespace tb::poisson {
namespace {

struct HostData {
  std::size_t n;
  HostArray<std::int32_t> ref, out;
  explicit HostData(std::size_t n_) : n(n_), ref(n), out(n) {
    omp(out.data(), n, kSeed, default_table());  // first-touch out in parallel
    serial(ref.data(), n, kSeed, default_table());
  }
  // ref, out: n int32 each (the CDF table is shared and small).
  static Footprint weight(std::size_t n) { return {.host_bytes = 2.0 * sizeof(std::int32_t) * n}; }
};

// Whether a variant must reproduce the serial fast samples bit for bit.
enum class Check { bitwise, statistics };

ErrorStats check(std::span<const std::int32_t> got, const HostData& h, Check c) {
  return check_samples(got, c == Check::bitwise ? h.ref.span() : std::span<const std::int32_t>(),
                       kRate);
}

void add_cpu(const RunConfig& cfg, const BenchSpec& spec, std::size_t n, Check c,
             std::function<void(std::int32_t*, std::size_t)> impl) {
  add_cpu_benchmark(cfg, spec, work(n), [n, c, impl](benchmark::State& state) {
    HostData& d = inputs<HostData>(n);
    run_cpu_checked(
        state, kTolerance,
        [&] {
          poison(d.out.span());
          impl(d.out.data(), n);
          return check(d.out.span(), d, c);
        },
        [&] { impl(d.out.data(), n); });
  });
}

#if TWINBENCH_HAVE_CUDA
struct DeviceData {
  Stream stream;
  DeviceBuffer<std::int32_t> out;
  PinnedBuffer<std::int32_t> hout;
  explicit DeviceData(std::size_t n) : out(n), hout(n) {}
  // Device out and pinned hout: n int32 each.
  static Footprint weight(std::size_t n) {
    const double bytes = 1.0 * sizeof(std::int32_t) * n;
    return {.host_bytes = bytes, .device_bytes = bytes};
  }
};

using GpuLaunch = std::function<void(std::int32_t*, std::size_t, int, cudaStream_t)>;

// No inputs to upload: e2e is the kernel plus the download of the samples.
void add_cuda(const RunConfig& cfg, const std::string& impl, std::size_t n, int block, Mode mode,
              Check c, GpuLaunch launch, gpu::KernelStats (*stats)(std::size_t, int),
              const char* algorithm = "") {
  const auto spec = bench_spec("poisson", impl, {{"n", n}, {"block", block}})
                        .in_mode(mode)
                        .of_algorithm(algorithm);
  add_gpu_benchmark(cfg, spec, work(n), [=](benchmark::State& state) {
    if (!check_block(state, block)) return;
    const HostData& h = inputs<HostData>(n);
    DeviceData& d = inputs<DeviceData>(n);
    run_gpu_modes(
        state, mode, d.stream, kTolerance,
        {
            .poison =
                [&d] {
                  poison_device(d.out, d.stream);
                  poison(d.hout.span());
                },
            .upload = [] {},
            .compute = [&d, n, block, launch] { launch(d.out.data(), n, block, d.stream); },
            .download = [&d, n] { copy_to_host(d.hout.data(), d.out.data(), n, d.stream); },
            .check = [&d, &h,
                      c] { return check(std::span<const std::int32_t>(d.hout.span()), h, c); },
        });
    record_kernel(state, stats(n, block));
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
  const CdfTable& table = default_table();
  for (std::size_t n : sizes_1d(cfg, {kDefaultSize, kLargeSize}, kQuickSize)) {
    add_cpu(cfg, bench_spec("poisson", "serial", {{"n", n}}), n, Check::bitwise,
            [&table](std::int32_t* out, std::size_t m) { serial(out, m, kSeed, table); });
    add_cpu(cfg, bench_spec("poisson", "omp", {{"n", n}}).on_threads(omp_threads()), n,
            Check::bitwise,
            [&table](std::int32_t* out, std::size_t m) { omp(out, m, kSeed, table); });
    if (n <= kArticleCpuMaxSize) {
      // One core at ~0.3 us a sample: 3-5 s a sample at 10M, 22 s of the default run on the
      // H200 for its 5 samples; the OpenMP version stays, the serial one is in --full.
      if (cfg.full || cfg.size)
        add_cpu(cfg, bench_spec("poisson", "serial_article", {{"n", n}}).of_algorithm("article"), n,
                Check::statistics,
                [](std::int32_t* out, std::size_t m) { serial_article(out, m, kSeed, kRate); });
      add_cpu(cfg,
              bench_spec("poisson", "omp_article", {{"n", n}})
                  .on_threads(omp_threads())
                  .of_algorithm("article"),
              n, Check::statistics,
              [](std::int32_t* out, std::size_t m) { omp_article(out, m, kSeed, kRate); });
    }
#if TWINBENCH_HAVE_CUDA
    for (Mode mode : kModes) {
      for (int block : blocks_1d(cfg, mode)) {
        add_cuda(
            cfg, "cuda", n, block, mode, Check::bitwise,
            [&table](std::int32_t* out, std::size_t m, int b, cudaStream_t s) {
              gpu::poisson_cuda(out, m, kSeed, table, b, s);
            },
            gpu::poisson_cuda_stats);
        add_cuda(
            cfg, "cuda_article", n, block, mode, Check::statistics,
            [](std::int32_t* out, std::size_t m, int b, cudaStream_t s) {
              gpu::poisson_cuda_article(out, m, kSeed, kRate, b, s);
            },
            gpu::poisson_cuda_article_stats, "article");
        add_cuda(
            cfg, "cuda_curand", n, block, mode, Check::statistics,
            [](std::int32_t* out, std::size_t m, int b, cudaStream_t s) {
              gpu::poisson_curand(out, m, kSeed, kRate, b, s);
            },
            gpu::poisson_curand_stats);
      }
    }
#endif
  }
}

}  // namespace

TWINBENCH_WORKLOAD("poisson", "Poisson(5) samples, int32: compute-bound RNG + inverse transform",
                   register_benchmarks);

}  // namespace tb::poisson
