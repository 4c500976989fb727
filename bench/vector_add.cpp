// vector_add benchmarks: c = a + b, float32. Bytes model: read a and b, write c (12 B/element);
// 1 FLOP/element. n = 1M (the article's; ~12 MB, inside the GPU's L2, so launch cost and cache
// dominate) and 256M (3 GiB, memory bandwidth).
#include "common/harness.hpp"
#include "common/sampler.hpp"
#include "common/host_array.hpp"
#include "common/random.hpp"
#include "cpu/vector_add.hpp"
#if TWINBENCH_HAVE_CUDA
#include "bench/twinbench.hpp"
#include "gpu/vector_add.hpp"
#endif

namespace tb::vector_add {
namespace {

struct HostData {
  std::size_t n;
  HostArray<float> a, b, ref, out;
  explicit HostData(std::size_t n_) : n(n_), a(n), b(n), ref(n), out(n) {
    fill_uniform(a.span(), kSeed, -1.f, 1.f);
    fill_uniform(b.span(), kSeed + 1, -1.f, 1.f);
    omp(a.data(), b.data(), out.data(), n);  // first-touch out and ref in parallel
    serial(a.data(), b.data(), ref.data(), n);
  }
  // a, b, ref, out: four float arrays of n.
  static Footprint weight(std::size_t n) { return {.host_bytes = 4.0 * sizeof(float) * n}; }
};

using CpuImpl = void (*)(const float*, const float*, float*, std::size_t);

void add_cpu(const RunConfig& cfg, const BenchSpec& spec, std::size_t n, CpuImpl impl) {
  add_cpu_benchmark(cfg, spec, work(n), [n, impl](benchmark::State& state) {
    HostData& d = inputs<HostData>(n);
    const bool ok = validate_once(state, kTolerance, [&] {
      poison(d.out.span());
      impl(d.a.data(), d.b.data(), d.out.data(), n);
      return compare(std::span<const float>(d.out.span()), std::span<const float>(d.ref.span()));
    });
    if (!ok) return;
    measure_cpu(state, [&] { impl(d.a.data(), d.b.data(), d.out.data(), n); });
  });
}

#if TWINBENCH_HAVE_CUDA
struct DeviceData {
  Stream stream;
  DeviceBuffer<float> a, b, c;
  PinnedBuffer<float> ha, hb, hc;
  explicit DeviceData(const HostData& h) : a(h.n), b(h.n), c(h.n), ha(h.n), hb(h.n), hc(h.n) {
    std::copy(h.a.begin(), h.a.end(), ha.data());
    std::copy(h.b.begin(), h.b.end(), hb.data());
  }
  explicit DeviceData(std::size_t n) : DeviceData(inputs<HostData>(n)) {}
  // Device a, b, c and their pinned staging copies ha, hb, hc: three float arrays of n each.
  static Footprint weight(std::size_t n) {
    return {.host_bytes = 3.0 * sizeof(float) * n, .device_bytes = 3.0 * sizeof(float) * n};
  }
};

using GpuLaunch = void (*)(const float*, const float*, float*, std::size_t, int, cudaStream_t);

GpuStages stages(DeviceData& d, std::size_t n, std::function<void()> compute) {
  const HostData& h = inputs<HostData>(n);
  return {
      .poison = [&d] { poison_device(d.c, d.stream); poison(d.hc.span()); },
      .upload = [&d, n] { copy_to_device(d.a.data(), d.ha.data(), n, d.stream);
                          copy_to_device(d.b.data(), d.hb.data(), n, d.stream); },
      .compute = std::move(compute),
      .download = [&d, n] { copy_to_host(d.hc.data(), d.c.data(), n, d.stream); },
      .check = [&d, &h] { return compare(std::span<const float>(d.hc.span()), h.ref.span()); },
  };
}

void add_cuda(const RunConfig& cfg, const std::string& impl, std::size_t n, int block, Mode mode,
              GpuLaunch launch, gpu::KernelStats (*stats)(std::size_t, int)) {
  const auto spec = bench_spec("vector_add", impl, {{"n", n}, {"block", block}}).in_mode(mode);
  add_gpu_benchmark(cfg, spec, work(n), [=](benchmark::State& state) {
    if (!check_block(state, block)) return;
    DeviceData& d = inputs<DeviceData>(n);
    run_gpu_modes(state, mode, d.stream, kTolerance, stages(d, n, [&d, n, block, launch] {
      launch(d.a.data(), d.b.data(), d.c.data(), n, block, d.stream);
    }));
    record_kernel(state, stats(n, block));
  });
}

void add_thrust(const RunConfig& cfg, std::size_t n, Mode mode) {
  const auto spec = bench_spec("vector_add", "thrust", {{"n", n}}).in_mode(mode);
  add_gpu_benchmark(cfg, spec, work(n), [=](benchmark::State& state) {
    DeviceData& d = inputs<DeviceData>(n);
    run_gpu_modes(state, mode, d.stream, kTolerance, stages(d, n, [&d, n] {
                    gpu::vector_add_thrust(d.a.data(), d.b.data(), d.c.data(), n, d.stream);
                  }));
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
  for (std::size_t n : sizes_1d(cfg, {kArticleSize, kLargeSize}, kQuickSize)) {
    add_cpu(cfg, bench_spec("vector_add", "serial", {{"n", n}}), n, serial);
    add_cpu(cfg, bench_spec("vector_add", "omp", {{"n", n}}).on_threads(omp_threads()), n, omp);
#if TWINBENCH_HAVE_CUDA
    for (Mode mode : kModes) {
      for (int block : blocks_1d(cfg, mode)) {
        add_cuda(cfg, "cuda", n, block, mode, gpu::vector_add_cuda, gpu::vector_add_cuda_stats);
        add_cuda(cfg, "cuda_article", n, block, mode, gpu::vector_add_cuda_article,
                 gpu::vector_add_cuda_article_stats);
      }
      add_thrust(cfg, n, mode);
    }
#endif
  }
}

}  // namespace

TWINBENCH_WORKLOAD("vector_add", "c = a + b, float32: memory-bound streaming", register_benchmarks);

}  // namespace tb::vector_add
