// scan benchmarks: inclusive prefix sum of int32 and float32. Bytes model: read the input once,
// write the output once (2 * sizeof(T) per element); 1 add per element. n = 1M (4 MB per array,
// inside the L2: launch and look-back latency dominate) and 256M (1 GiB per array: bandwidth).
// Thrust is the library line: the hand-written cuda scan aims for >= 80% of its bytes/s.
#include "bench/twinbench.hpp"

#include "cpu/scan.hpp"

#include <cstdint>
#include <type_traits>

#if TWINBENCH_HAVE_CUDA
#include "gpu/scan.hpp"
#endif

namespace tb::scan {
namespace {

template <class T>
const char* dtype_name() {
  return std::is_same_v<T, float> ? "float32" : "int32";
}

// The reference is exact for int32 and float64 for float32 (see cpu/scan.hpp).
template <class T>
using Ref = std::conditional_t<std::is_same_v<T, float>, double, T>;

template <class T>
struct HostData {
  std::size_t n;
  HostArray<T> in, out;
  HostArray<Ref<T>> ref;
  explicit HostData(std::size_t n_) : n(n_), in(n), out(n), ref(n) {
    fill_input(in.span(), n);
    omp(in.data(), out.data(), n);  // first-touch out in parallel
    if constexpr (std::is_same_v<T, float>) {
      reference_f64(in.data(), ref.data(), n);
    } else {
      serial(in.data(), ref.data(), n);
    }
  }
  ErrorStats check() const {
    if constexpr (std::is_same_v<T, float>) {
      return compare_float(out.span(), ref.span(), in.span());
    } else {
      return compare(out.span(), ref.span());
    }
  }
  static constexpr const char* kAlternatives = "scan/host";  // one dtype at a time
  // in, out (n of T each) and ref (n of Ref<T>: float64 for float32).
  static Footprint weight(std::size_t n) {
    return {.host_bytes = (2.0 * sizeof(T) + sizeof(Ref<T>)) * n};
  }
};

template <class T>
Tolerance tolerance(std::size_t n) {
  if constexpr (std::is_same_v<T, float>) {
    return float_tolerance(n);
  } else {
    return kIntTolerance;
  }
}

template <class T>
void add_cpu(const RunConfig& cfg, const BenchSpec& spec, std::size_t n,
             void (*impl)(const T*, T*, std::size_t)) {
  add_cpu_benchmark(cfg, spec, work<T>(n), [n, impl](benchmark::State& state) {
    HostData<T>& d = inputs<HostData<T>>(n);
    run_cpu_checked(
        state, tolerance<T>(n),
        [&] {
          poison(d.out.span());
          impl(d.in.data(), d.out.data(), n);
          return d.check();
        },
        [&] { impl(d.in.data(), d.out.data(), n); });
  });
}

#if TWINBENCH_HAVE_CUDA
template <class T>
struct DeviceData {
  Stream stream;
  DeviceBuffer<T> in, out;
  // Sized for the smallest block (the most tiles), so every block size can share it.
  DeviceBuffer<unsigned char> scratch;
  explicit DeviceData(std::size_t n)
      : in(n), out(n), scratch(gpu::scan_cuda_scratch_bytes(n, 32)) {}
  static constexpr const char* kAlternatives = "scan/device";
  // Device in, out (n of T each) and the look-back scratch, sized as the constructor sizes it.
  // Nothing pinned: the untimed copies use HostData's arrays. Thrust's scan allocates its own
  // temporary storage per call (not held here).
  static Footprint weight(std::size_t n) {
    return {.device_bytes = 2.0 * sizeof(T) * n +
                            static_cast<double>(gpu::scan_cuda_scratch_bytes(n, 32))};
  }
};

// Kernel time only: a scan's transfers are those of any copy and would hide the algorithm.
template <class T>
void run_scan(benchmark::State& state, std::size_t n, std::function<void(DeviceData<T>&)> compute) {
  HostData<T>& h = inputs<HostData<T>>(n);
  DeviceData<T>& d = inputs<DeviceData<T>>(n);
  run_gpu_modes(state, Mode::kernel, d.stream, tolerance<T>(n),
                {
                    .poison =
                        [&] {
                          poison_device(d.out, d.stream);
                          poison(h.out.span());
                        },
                    .upload = [&] { copy_to_device(d.in.data(), h.in.data(), n, d.stream); },
                    .compute = [&] { compute(d); },
                    .download = [&] { copy_to_host(h.out.data(), d.out.data(), n, d.stream); },
                    .check = [&] { return h.check(); },
                });
}

template <class T>
void add_cuda(const RunConfig& cfg, std::size_t n, int block) {
  const auto spec =
      bench_spec("scan", "cuda", {{"dtype", dtype_name<T>()}, {"n", n}, {"block", block}});
  add_gpu_benchmark(cfg, spec, work<T>(n), [=](benchmark::State& state) {
    if (!check_block(state, block)) return;
    run_scan<T>(state, n, [n, block](DeviceData<T>& d) {
      gpu::scan_cuda(d.in.data(), d.out.data(), n, block, d.scratch.data(), d.stream);
    });
    record_kernel(state, std::is_same_v<T, float> ? gpu::scan_cuda_stats_float(n, block)
                                                  : gpu::scan_cuda_stats_int32(n, block));
  });
}

template <class T>
void add_thrust(const RunConfig& cfg, std::size_t n) {
  const auto spec = bench_spec("scan", "thrust", {{"dtype", dtype_name<T>()}, {"n", n}});
  add_gpu_benchmark(cfg, spec, work<T>(n), [=](benchmark::State& state) {
    run_scan<T>(state, n, [n](DeviceData<T>& d) {
      gpu::scan_thrust(d.in.data(), d.out.data(), n, d.stream);
    });
  });
}
#endif

template <class T>
void register_dtype(const RunConfig& cfg, std::size_t n) {
  const char* dt = dtype_name<T>();
  add_cpu<T>(cfg, bench_spec("scan", "serial", {{"dtype", dt}, {"n", n}}), n, serial);
  add_cpu<T>(cfg, bench_spec("scan", "omp", {{"dtype", dt}, {"n", n}}).on_threads(omp_threads()), n,
             omp);
#if TWINBENCH_HAVE_CUDA
  for (int block : block_sweep_1d(cfg)) add_cuda<T>(cfg, n, block);
  add_thrust<T>(cfg, n);
#endif
}

void register_benchmarks(const RunConfig& cfg) {
  for (std::size_t n : sizes_1d(cfg, {kArticleSize, kLargeSize}, kQuickSize)) {
    register_dtype<std::int32_t>(cfg, n);
    register_dtype<float>(cfg, n);
  }
}

}  // namespace

TWINBENCH_WORKLOAD("scan",
                   "inclusive prefix sum, int32 and float32: a serial dependence at copy speed",
                   register_benchmarks);

}  // namespace tb::scan
