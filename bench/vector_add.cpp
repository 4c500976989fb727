// vector_add benchmarks: c = a + b, float32. Bytes model: read a and b, write c (12 B/element);
// 1 FLOP/element. n = 1M (the article's; ~12 MB, inside the GPU's L2, so launch cost and cache
// dominate) and 256M (3 GiB, memory bandwidth).
#include "bench/twinbench.hpp"
#include "cpu/vector_add.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/vector_add.hpp"
#endif

namespace tb::vector_add {
namespace {

struct HostData {
  HostArray<float> a, b, ref, out;
  explicit HostData(std::size_t n) : a(n), b(n), ref(n), out(n) {
    fill_uniform(a.span(), kSeed, -1.f, 1.f);
    fill_uniform(b.span(), kSeed + 1, -1.f, 1.f);
    omp(a.data(), b.data(), out.data(), n);  // first-touch out and ref in parallel
    serial(a.data(), b.data(), ref.data(), n);
  }
  static Footprint weight(std::size_t n) { return {.host_bytes = 4.0 * sizeof(float) * n}; }
};

const CpuKernel<decltype(&serial)> kCpu[] = {{"serial", serial}, {"omp", omp, /*threaded=*/true}};

void add_cpu(const RunConfig& cfg, const CpuKernel<decltype(&serial)>& k, std::size_t n) {
  add_cpu_benchmark(cfg, k.spec("vector_add", {{"n", n}}), work(n), [n, k](benchmark::State& s) {
    HostData& d = inputs<HostData>(n);
    run_cpu(s, kTolerance, d.out.span(), d.ref.span(),
            [&] { k.run(d.a.data(), d.b.data(), d.out.data(), n); });
  });
}

#if TWINBENCH_HAVE_CUDA
// Device a, b, c and pinned host copies; every sample reads a and b and overwrites all of c.
struct DeviceData {
  Stream stream;
  DeviceBuffer<float> a, b, c;
  PinnedBuffer<float> ha, hb, hc;
  explicit DeviceData(std::size_t n)
      : a(n), b(n), c(n), ha(pinned(inputs<HostData>(n).a)), hb(pinned(inputs<HostData>(n).b)), hc(n) {}
  static Footprint weight(std::size_t n) { return {.host_bytes = 12.0 * n, .device_bytes = 12.0 * n}; }
};

using Kernel = GpuKernel<decltype(&gpu::vector_add_cuda), decltype(&gpu::vector_add_cuda_stats)>;
const Kernel kKernels[] = {{"cuda", gpu::vector_add_cuda, gpu::vector_add_cuda_stats},
                           {"cuda_article", gpu::vector_add_cuda_article, gpu::vector_add_cuda_article_stats}};
const Kernel kThrust{"thrust", [](const float* a, const float* b, float* c, std::size_t n, int,
                                  cudaStream_t s) { gpu::vector_add_thrust(a, b, c, n, s); }};  // no block

void add_cuda(const RunConfig& cfg, const Kernel& k, std::size_t n, int block, Mode mode) {
  const auto spec = bench_spec("vector_add", k.impl, {{"n", n}}).with_block(block).in_mode(mode);
  add_gpu_benchmark(cfg, spec, work(n), [=](benchmark::State& state) {
    DeviceData& d = inputs<DeviceData>(n);
    const auto launch = [&d, n, block, k] { k.launch(d.a.data(), d.b.data(), d.c.data(), n, block, d.stream); };
    run_kernel(state, k, block, mode, d.stream, kTolerance,
               io_stages(d.stream, {to_device(d.a, d.ha), to_device(d.b, d.hb)}, d.c, d.hc,
                         inputs<HostData>(n).ref.span(), kTolerance, launch), n, block);
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
  for (std::size_t n : sizes_1d(cfg, {kArticleSize, kLargeSize}, kQuickSize)) {
    for (const auto& k : kCpu) add_cpu(cfg, k, n);
#if TWINBENCH_HAVE_CUDA
    for (Mode mode : kModes) {
      for (int block : blocks_1d(cfg, mode))
        for (const auto& k : kKernels) add_cuda(cfg, k, n, block, mode);
      add_cuda(cfg, kThrust, n, 0, mode);
    }
#endif
  }
}

}  // namespace

TWINBENCH_WORKLOAD("vector_add", "c = a + b, float32: memory-bound streaming", register_benchmarks);

}  // namespace tb::vector_add
