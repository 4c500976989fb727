// black_scholes benchmarks: call and put prices of n options, float32 (serial is the float64
// reference). Bytes model: 20 B per option (spot, strike, years read; call, put written);
// FLOP model: 25 per option, counting sqrt, log, exp and the normal CDF's erfc as one each;
// items = options.
// n = 10M (200 MB, 4x the GPU's L2): a well-built GPU kernel runs at the copy bandwidth.
// CPU rows: serial (float64 reference), serial_fp32 (scalar, erfcf), omp (threads + SIMD across
// options, the GPU cuda variant's polynomial CDF), omp_erfc (the same with libmvec's erfcf, as
// cuda_erfc on the GPU).
#include "bench/twinbench.hpp"

#include "cpu/black_scholes.hpp"

#include <algorithm>
#include <type_traits>

#if TWINBENCH_HAVE_CUDA
#include "gpu/black_scholes.hpp"
#endif

namespace tb::black_scholes {
namespace {

struct HostData {
  std::size_t n;
  HostArray<float> spot, strike, years, call, put;
  HostArray<double> ref_call, ref_put, out_call, out_put;
  explicit HostData(std::size_t n_)
      : n(n_),
        spot(n),
        strike(n),
        years(n),
        call(n),
        put(n),
        ref_call(n),
        ref_put(n),
        out_call(n),
        out_put(n) {
    fill_uniform(spot.span(), kSeed, kSpotLo, kSpotHi);
    fill_uniform(strike.span(), kSeed + 1, kStrikeLo, kStrikeHi);
    fill_uniform(years.span(), kSeed + 2, kYearsLo, kYearsHi);
    // First touch of call and put by the threads and slices that write them in the timed loops
    // (the inputs were filled by the same static partition, common/random.cpp).
    omp(spot.data(), strike.data(), years.data(), call.data(), put.data(), n);
    serial(spot.data(), strike.data(), years.data(), ref_call.data(), ref_put.data(), n);
  }
  template <class T>
  ErrorStats check(const T* c, const T* p) const {
    return compare_prices(c, p, ref_call.data(), ref_put.data(), n);
  }
  // spot, strike, years, call, put (float) and ref_call, ref_put, out_call, out_put (double).
  static Footprint weight(std::size_t n) {
    return {.host_bytes = (5.0 * sizeof(float) + 4.0 * sizeof(double)) * n};
  }
};

// Wall time of pricing all n options on the CPU; model as in the file comment. The float64
// reference writes float64 prices (its own output arrays), the others float32; the model stays
// 20 B per option for all, so the rates compare the same task.
template <class T>
void add_cpu(const RunConfig& cfg, const BenchSpec& spec, std::size_t n,
             void (*impl)(const float*, const float*, const float*, T*, T*, std::size_t)) {
  add_cpu_benchmark(cfg, spec, work(n), [n, impl](benchmark::State& state) {
    HostData& d = inputs<HostData>(n);
    T* call;
    T* put;
    if constexpr (std::is_same_v<T, double>) {
      call = d.out_call.data();
      put = d.out_put.data();
    } else {
      call = d.call.data();
      put = d.put.data();
    }
    run_cpu_checked(
        state, kTolerance,
        [&] {
          poison(std::span<T>(call, n));
          poison(std::span<T>(put, n));
          impl(d.spot.data(), d.strike.data(), d.years.data(), call, put, n);
          return d.check(call, put);
        },
        [&] { impl(d.spot.data(), d.strike.data(), d.years.data(), call, put, n); });
  });
}

#if TWINBENCH_HAVE_CUDA
struct DeviceData {
  Stream stream;
  DeviceBuffer<float> spot, strike, years, call, put;
  PinnedBuffer<float> h_spot, h_strike, h_years, h_call, h_put;
  explicit DeviceData(const HostData& h)
      : spot(h.n),
        strike(h.n),
        years(h.n),
        call(h.n),
        put(h.n),
        h_spot(h.n),
        h_strike(h.n),
        h_years(h.n),
        h_call(h.n),
        h_put(h.n) {
    std::copy(h.spot.begin(), h.spot.end(), h_spot.data());
    std::copy(h.strike.begin(), h.strike.end(), h_strike.data());
    std::copy(h.years.begin(), h.years.end(), h_years.data());
  }
  explicit DeviceData(std::size_t n) : DeviceData(inputs<HostData>(n)) {}
  // Five float arrays of n on the device and their five pinned host copies.
  static Footprint weight(std::size_t n) {
    return {.host_bytes = 5.0 * sizeof(float) * n, .device_bytes = 5.0 * sizeof(float) * n};
  }
};

using GpuLaunch = void (*)(const float*, const float*, const float*, float*, float*, std::size_t,
                           gpu::BlackScholesMarket, int, cudaStream_t);
using GpuStats = gpu::KernelStats (*)(std::size_t, int);

GpuStages stages(DeviceData& d, const HostData& h, std::size_t n, std::function<void()> compute) {
  return {
      .poison =
          [&d] {
            poison_device(d.call, d.stream);
            poison_device(d.put, d.stream);
            poison(d.h_call.span());
            poison(d.h_put.span());
          },
      .upload =
          [&d, n] {
            copy_to_device(d.spot.data(), d.h_spot.data(), n, d.stream);
            copy_to_device(d.strike.data(), d.h_strike.data(), n, d.stream);
            copy_to_device(d.years.data(), d.h_years.data(), n, d.stream);
          },
      .compute = std::move(compute),
      .download =
          [&d, n] {
            copy_to_host(d.h_call.data(), d.call.data(), n, d.stream);
            copy_to_host(d.h_put.data(), d.put.data(), n, d.stream);
          },
      .check = [&d, &h] { return h.check(d.h_call.data(), d.h_put.data()); },
  };
}

// Event time of the kernel (mode:kernel) or of upload + kernel + download over PCIe
// (mode:e2e); model as in the file comment (the e2e bytes stay the kernel's 20 B per option).
void add_cuda(const RunConfig& cfg, const std::string& impl, std::size_t n, int block, Mode mode,
              GpuLaunch launch, GpuStats stats, const char* algorithm = "") {
  const auto spec = bench_spec("black_scholes", impl, {{"n", n}, {"block", block}})
                        .in_mode(mode)
                        .of_algorithm(algorithm);
  add_gpu_benchmark(cfg, spec, work(n), [=](benchmark::State& state) {
    if (!check_block(state, block)) return;
    DeviceData& d = inputs<DeviceData>(n);
    const HostData& h = inputs<HostData>(n);
    const gpu::BlackScholesMarket market{kRiskFree, kVolatility};
    run_gpu_modes(state, mode, d.stream, kTolerance,
                  stages(d, h, n, [&d, n, block, launch, market] {
                    launch(d.spot.data(), d.strike.data(), d.years.data(), d.call.data(),
                           d.put.data(), n, market, block, d.stream);
                  }));
    record_kernel(state, stats(n, block));
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
  for (std::size_t n : sizes_1d(cfg, {kDefaultSize}, kQuickSize)) {
    add_cpu<double>(cfg, bench_spec("black_scholes", "serial", {{"n", n}}), n, serial);
    add_cpu<float>(cfg, bench_spec("black_scholes", "serial_fp32", {{"n", n}}).in_precision("fp32"),
                   n, serial_fp32);
    add_cpu<float>(cfg, bench_spec("black_scholes", "omp", {{"n", n}}).on_threads(omp_threads()), n,
                   omp);
    add_cpu<float>(cfg,
                   bench_spec("black_scholes", "omp_erfc", {{"n", n}})
                       .on_threads(omp_threads())
                       .of_algorithm("erfc"),
                   n, omp_erfc);
#if TWINBENCH_HAVE_CUDA
    for (Mode mode : kModes) {
      for (int block : blocks_1d(cfg, mode)) {
        add_cuda(cfg, "cuda", n, block, mode, gpu::black_scholes_cuda,
                 gpu::black_scholes_cuda_stats);
        add_cuda(cfg, "cuda_erfc", n, block, mode, gpu::black_scholes_cuda_erfc,
                 gpu::black_scholes_cuda_erfc_stats, "erfc");
        add_cuda(cfg, "cuda_naive", n, block, mode, gpu::black_scholes_cuda_naive,
                 gpu::black_scholes_cuda_naive_stats);
      }
    }
#endif
  }
}

}  // namespace

TWINBENCH_WORKLOAD("black_scholes",
                   "Black-Scholes call and put prices, float32: transcendental-heavy streaming",
                   register_benchmarks);

}  // namespace tb::black_scholes
