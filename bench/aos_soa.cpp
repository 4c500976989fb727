// aos_soa benchmarks: out[i] = |p_i| for N float32 points, array of structs vs struct of arrays.
// Bytes model: 12 B read + 4 B written per point (16 B); 5 FLOPs per point (sqrt not counted).
// N = 64M (1 GiB moved, ~20x the L2): the layouts are compared at memory bandwidth.
#include "bench/twinbench.hpp"

#include <algorithm>

#include "cpu/aos_soa.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/aos_soa.hpp"
#endif

namespace tb::aos_soa {
namespace {

// The same points in both layouts, so AoS and SoA variants share one reference.
struct HostData {
  std::size_t n;
  HostArray<float> xyz, x, y, z, ref, out;
  explicit HostData(std::size_t n_) : n(n_), xyz(3 * n), x(n), y(n), z(n), ref(n), out(n) {
    fill_uniform(xyz.span(), kSeed, -1.f, 1.f);
    const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) {
      x[i] = xyz[3 * i];
      y[i] = xyz[3 * i + 1];
      z[i] = xyz[3 * i + 2];
    }
    omp_soa(x.data(), y.data(), z.data(), out.data(), n);  // first-touch out in parallel
    serial_aos(xyz.data(), ref.data(), n);
  }
  // xyz (3n floats) plus x, y, z, ref, out (n floats each).
  static Footprint weight(std::size_t n) { return {.host_bytes = 8.0 * sizeof(float) * n}; }
};

// A CPU variant (`run` calls one of the four functions on HostData); 16 B/point.
void add_cpu(const RunConfig& cfg, const BenchSpec& spec, std::size_t n, void (*run)(HostData&)) {
  add_cpu_benchmark(cfg, spec, work(n), [n, run](benchmark::State& state) {
    HostData& d = inputs<HostData>(n);
    run_cpu(state, kTolerance, d.out.span(), d.ref.span(), [&] { run(d); });
  });
}

#if TWINBENCH_HAVE_CUDA
struct DeviceData {
  Stream stream;
  DeviceBuffer<float> xyz, x, y, z, out;
  PinnedBuffer<float> hout;
  explicit DeviceData(const HostData& h)
      : xyz(upload(std::span<const float>(h.xyz.span()))),
        x(upload(std::span<const float>(h.x.span()))),
        y(upload(std::span<const float>(h.y.span()))),
        z(upload(std::span<const float>(h.z.span()))),
        out(h.n),
        hout(h.n) {}
  explicit DeviceData(std::size_t n) : DeviceData(inputs<HostData>(n)) {}
  // Device xyz (3n floats) plus x, y, z, out (n each); pinned hout (n floats).
  static Footprint weight(std::size_t n) {
    return {.host_bytes = 1.0 * sizeof(float) * n, .device_bytes = 7.0 * sizeof(float) * n};
  }
};

// A GPU variant, kernel time only (inputs stay on the device: the layout question is about
// how the kernel reads them); 16 B/point.
void add_cuda(const RunConfig& cfg, std::string_view impl, std::size_t n, int block,
              std::function<void(DeviceData&, std::size_t, int)> launch,
              gpu::KernelStats (*stats)(std::size_t, int), const char* algorithm) {
  const auto spec =
      bench_spec("aos_soa", impl, {{"n", n}, {"block", block}}).of_algorithm(algorithm);
  add_gpu_benchmark(cfg, spec, work(n), [=](benchmark::State& state) {
    if (!check_block(state, block)) return;
    DeviceData& d = inputs<DeviceData>(n);
    const HostData& h = inputs<HostData>(n);
    const GpuStages stages{
        .poison =
            [&d] {
              poison_device(d.out, d.stream);
              poison(d.hout.span());
            },
        .upload = [] {},  // uploaded once with the device buffers
        .compute = [&d, n, block, &launch] { launch(d, n, block); },
        .download = [&d, n] { copy_to_host(d.hout.data(), d.out.data(), n, d.stream); },
        .check = [&d, &h] { return compare(std::span<const float>(d.hout.span()), h.ref.span()); },
    };
    run_gpu_modes(state, Mode::kernel, d.stream, kTolerance, stages);
    if (state.error_occurred()) return;
    record_kernel(state, stats(n, block));
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
  for (std::size_t n : sizes_1d(cfg, {kDefaultSize}, kQuickSize)) {
    add_cpu(cfg, bench_spec("aos_soa", "serial_aos", {{"n", n}}).of_algorithm("aos"), n,
            [](HostData& d) { serial_aos(d.xyz.data(), d.out.data(), d.n); });
    add_cpu(cfg, bench_spec("aos_soa", "serial_soa", {{"n", n}}).of_algorithm("soa"), n,
            [](HostData& d) { serial_soa(d.x.data(), d.y.data(), d.z.data(), d.out.data(), d.n); });
    add_cpu(
        cfg,
        bench_spec("aos_soa", "omp_aos", {{"n", n}}).on_threads(omp_threads()).of_algorithm("aos"),
        n, [](HostData& d) { omp_aos(d.xyz.data(), d.out.data(), d.n); });
    add_cpu(
        cfg,
        bench_spec("aos_soa", "omp_soa", {{"n", n}}).on_threads(omp_threads()).of_algorithm("soa"),
        n, [](HostData& d) { omp_soa(d.x.data(), d.y.data(), d.z.data(), d.out.data(), d.n); });
#if TWINBENCH_HAVE_CUDA
    for (int block : block_sweep_1d(cfg)) {
      add_cuda(
          cfg, "cuda_aos", n, block,
          [](DeviceData& d, std::size_t m, int b) {
            gpu::aos_soa_cuda_aos(d.xyz.data(), d.out.data(), m, b, d.stream);
          },
          gpu::aos_soa_cuda_aos_stats, "aos");
      add_cuda(
          cfg, "cuda_soa", n, block,
          [](DeviceData& d, std::size_t m, int b) {
            gpu::aos_soa_cuda_soa(d.x.data(), d.y.data(), d.z.data(), d.out.data(), m, b, d.stream);
          },
          gpu::aos_soa_cuda_soa_stats, "soa");
      add_cuda(
          cfg, "cuda_aos_vec", n, block,
          [](DeviceData& d, std::size_t m, int b) {
            gpu::aos_soa_cuda_aos_vec(d.xyz.data(), d.out.data(), m, b, d.stream);
          },
          gpu::aos_soa_cuda_aos_vec_stats, "aos");
    }
#endif
  }
}

}  // namespace

TWINBENCH_WORKLOAD("aos_soa", "norms of 3D points, float32: array of structs vs struct of arrays",
                   register_benchmarks);

}  // namespace tb::aos_soa
