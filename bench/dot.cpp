// dot benchmarks: sum a_i * b_i over float32 inputs, float64 accumulation (cpu/dot.hpp says
// why). Bytes model: read a and b (8 B/element); 2 FLOP/element. n = 1M (the article's) and 256M.
#include "bench/twinbench.hpp"

#include "cpu/dot.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/dot.hpp"
#endif

namespace tb::dot {
namespace {

struct HostData {
  std::size_t n;
  HostArray<float> a, b;
  Reference ref;
  explicit HostData(std::size_t n_) : n(n_), a(n), b(n) {
    fill_uniform(a.span(), kSeed, -1.f, 1.f);
    fill_uniform(b.span(), kSeed + 1, -1.f, 1.f);
    ref = reference(a.data(), b.data(), n);
  }
  // a, b: two float arrays of n (the reference is two scalars).
  static Footprint weight(std::size_t n) { return {.host_bytes = 2.0 * sizeof(float) * n}; }
};

ErrorStats check(double got, const HostData& d) { return compare_scalar(got, d.ref.value, d.ref.abs_sum); }

using CpuImpl = double (*)(const float*, const float*, std::size_t);

// depth: the variant's summation depth, which sets its tolerance (cpu/dot.hpp).
void add_cpu(const RunConfig& cfg, const BenchSpec& spec, std::size_t n, CpuImpl impl,
             std::size_t depth) {
  add_cpu_benchmark(cfg, spec, work(n), [n, impl, depth](benchmark::State& state) {
    HostData& d = inputs<HostData>(n);
    const auto run_and_check = [&] { return check(impl(d.a.data(), d.b.data(), n), d); };
    run_cpu_checked(state, tolerance(depth), run_and_check,
                    [&] { benchmark::DoNotOptimize(impl(d.a.data(), d.b.data(), n)); });
  });
}

#if TWINBENCH_HAVE_CUDA
struct DeviceData {
  Stream stream;
  DeviceBuffer<float> a, b;
  DeviceBuffer<double> result;
  PinnedBuffer<float> ha, hb;
  PinnedBuffer<double> hresult;
  explicit DeviceData(const HostData& h) : a(h.n), b(h.n), result(1), ha(h.n), hb(h.n), hresult(1) {
    std::copy(h.a.begin(), h.a.end(), ha.data());
    std::copy(h.b.begin(), h.b.end(), hb.data());
  }
  explicit DeviceData(std::size_t n) : DeviceData(inputs<HostData>(n)) {}
  // Device a, b (n floats each) and a double result; the same again pinned.
  static Footprint weight(std::size_t n) {
    const double bytes = 2.0 * sizeof(float) * n + sizeof(double);
    return {.host_bytes = bytes, .device_bytes = bytes};
  }
};

void upload_inputs(DeviceData& d, std::size_t n) {
  copy_to_device(d.a.data(), d.ha.data(), n, d.stream);
  copy_to_device(d.b.data(), d.hb.data(), n, d.stream);
}

// One dot on the GPU; e2e adds the upload of both inputs and the 8-byte download.
void add_cuda(const RunConfig& cfg, std::size_t n, int block, Mode mode) {
  const auto spec = bench_spec("dot", "cuda", {{"n", n}, {"block", block}}).in_mode(mode);
  add_gpu_benchmark(cfg, spec, work(n), [=](benchmark::State& state) {
    if (!check_block(state, block)) return;
    DeviceData& d = inputs<DeviceData>(n);
    const HostData& h = inputs<HostData>(n);
    const gpu::KernelStats stats = gpu::dot_cuda_stats(n, block);
    run_gpu_modes(state, mode, d.stream, tolerance(depth_cuda(n, block, stats.grid_blocks)), {
        .poison = [&d] { poison_device(d.result, d.stream); d.hresult.data()[0] = std::nan(""); },
        .upload = [&d, n] { upload_inputs(d, n); },
        .compute = [&d, n, block] { gpu::dot_cuda(d.a.data(), d.b.data(), n, d.result.data(), block, d.stream); },
        .download = [&d] { copy_to_host(d.hresult.data(), d.result.data(), 1, d.stream); },
        .check = [&d, &h] { return check(d.hresult.data()[0], h); },
    });
    record_kernel(state, stats);
  });
}

// thrust::inner_product returns to the host, so its kernel-mode time includes that sync, the
// 8-byte copy and the launch latency (it cannot be queued behind a gate): as a user of Thrust
// would see it.
void add_thrust(const RunConfig& cfg, std::size_t n, Mode mode) {
  const auto spec = bench_spec("dot", "thrust", {{"n", n}}).in_mode(mode);
  add_gpu_benchmark(cfg, spec, work(n), [=](benchmark::State& state) {
    DeviceData& d = inputs<DeviceData>(n);
    const HostData& h = inputs<HostData>(n);
    double result = 0.0;
    // CUB's summation order is not pinned here: the any-order depth n.
    run_gpu_modes(
        state, mode, d.stream, tolerance(depth_serial(n)),
        {
            .poison = [&result] { result = std::nan(""); },
            .upload = [&d, n] { upload_inputs(d, n); },
            .compute = [&d, n,
                        &result] { result = gpu::dot_thrust(d.a.data(), d.b.data(), n, d.stream); },
            .download = [] {},
            .check = [&result, &h] { return check(result, h); },
            .kernel_timing = Timing::inline_launch,
        });
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
  for (std::size_t n : sizes_1d(cfg, {kArticleSize, kLargeSize}, kQuickSize)) {
    add_cpu(cfg, bench_spec("dot", "serial", {{"n", n}}), n, serial, depth_serial(n));
    add_cpu(cfg, bench_spec("dot", "omp", {{"n", n}}).on_threads(omp_threads()), n, omp,
            depth_omp(n, omp_threads()));
#if TWINBENCH_HAVE_CUDA
    for (Mode mode : kModes) {
      for (int block : blocks_1d(cfg, mode)) add_cuda(cfg, n, block, mode);
      add_thrust(cfg, n, mode);
    }
#endif
  }
}

}  // namespace

TWINBENCH_WORKLOAD("dot", "sum of a_i * b_i, float32 inputs, float64 accumulation: memory-bound reduction",
                   register_benchmarks);

}  // namespace tb::dot
