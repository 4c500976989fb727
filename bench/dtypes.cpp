// dtypes benchmarks: one memory-bound kernel (axpy, y = a*x + y) and one compute-bound kernel
// (fma: kChains chains of K = 1024 dependent FMAs per element) in fp64, fp32, fp16 and int8.
// axpy bytes model: 3 * sizeof(T) per element (read x, y; write y), 2 ops per element.
// fma bytes model: read x once, write one output; 2 ops per FMA (fp16 half2: 4 per
// instruction), 8 per dp4a (int8; the flop_per_s counter then counts integer ops).
// What to expect on an H200 is in cpu/dtypes.hpp: axpy at the same GB/s for every type; fma at
// fp64 : fp32 : fp16 : int8 ~ 1 : 2 : 4 : 8 by the published rates.
#include "bench/twinbench.hpp"

#include "cpu/dtypes.hpp"

#include <algorithm>
#include <type_traits>

#include "common/row_fields.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/dtypes.hpp"
#endif

namespace tb::dtypes {
namespace {

using std::int32_t;
using std::int8_t;

// Inputs in [-1, 1) (floats) or [-128, 127] (int8), generated as float/int32 and narrowed.
template <class T>
void fill(std::span<T> out, std::uint64_t seed) {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    fill_uniform(out, seed, T(-1), T(1));
  } else {
    using Wide = std::conditional_t<std::is_same_v<T, f16>, float, int32_t>;
    HostArray<Wide> wide(out.size());
    if constexpr (std::is_same_v<T, f16>)
      fill_uniform(wide.span(), seed, -1.f, 1.f);
    else
      fill_uniform(wide.span(), seed, -128, 128);
    const auto count = static_cast<std::int64_t>(out.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) {
      const T v = static_cast<T>(wide[i]);
      out[i] = v == T(0) ? T(1) : v;  // a zero input hides an unwritten output
    }
  }
}

// fill()'s temporary: fp16 and int8 are generated as a float/int32 array of the same length,
// alive beside the arrays being filled.
template <class T>
double fill_temp_bytes(std::size_t n) {
  return std::is_same_v<T, double> || std::is_same_v<T, float> ? 0.0 : 4.0 * n;
}

template <class T>
std::string dtype_name() {
  return std::string(Dtype<T>::name);
}

// ---- axpy ----------------------------------------------------------------------------------

template <class T>
struct AxpyHost {
  std::size_t n;
  HostArray<T> x, y0, y, ref;
  explicit AxpyHost(std::size_t n_) : n(n_), x(n), y0(n), y(n), ref(n) {
    fill(x.span(), kSeed);
    fill(y0.span(), kSeed + 1);
    const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) y[i] = y0[i];  // first-touch y in parallel
    std::copy(y0.begin(), y0.end(), ref.begin());
    axpy_serial(x.data(), ref.data(), n);
  }
  static constexpr const char* kAlternatives = "dtypes/axpy_host";  // one dtype at a time
  // x, y0, y, ref (n of T each) and fill()'s temporary.
  static Footprint weight(std::size_t n) {
    return {.host_bytes = 4.0 * sizeof(T) * n + fill_temp_bytes<T>(n)};
  }
};

// A CPU axpy: validated from y0, then timed in place (y keeps accumulating a*x, harmless to
// the time: no type here slows down on large values); 3 * sizeof(T) B/element.
template <class T>
void add_cpu_axpy(const RunConfig& cfg, bool omp, std::size_t n,
                  void (*fn)(const T*, T*, std::size_t)) {
  auto spec = bench_spec("dtypes", omp ? "omp" : "serial",
                         {{"kernel", "axpy"}, {"dtype", dtype_name<T>()}, {"n", n}});
  if (omp) spec = spec.on_threads(omp_threads());
  add_cpu_benchmark(cfg, spec, axpy_work<T>(n), [n, fn, omp](benchmark::State& state) {
    // The fp16 omp path is F16C or AVX512_FP16 where the host has them: say which ran.
    if (omp) set_row_field(current_benchmark(), "cpu_isa", axpy_omp_path<T>());
    AxpyHost<T>& d = inputs<AxpyHost<T>>(n);
    run_cpu_in_place(state, axpy_tolerance<T>(), d.y.span(), std::span<const T>(d.y0.span()),
                     d.ref.span(), [&] { fn(d.x.data(), d.y.data(), n); });
  });
}

// ---- fma chains ----------------------------------------------------------------------------

template <class T>
struct FmaHost {
  using Out = typename Dtype<T>::fma_out;
  std::size_t n;
  HostArray<T> x;
  HostArray<Out> ref, out;
  explicit FmaHost(std::size_t n_) : n(n_), x(n), ref(fma_outputs<T>(n)), out(fma_outputs<T>(n)) {
    fill(x.span(), kSeed + 2);
    // The serial function on disjoint chunks is still the serial reference (elements are
    // independent), spread over threads so the GPU sizes' references take seconds, not minutes.
    // Chunks are multiples of 4 elements so that int8 words never straddle two chunks.
    constexpr std::size_t kChunk = 4096;
    const auto chunks = static_cast<std::int64_t>((n + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::size_t begin = static_cast<std::size_t>(c) * kChunk;
      const std::size_t len = std::min(kChunk, n - begin);
      fma_serial(x.data() + begin, ref.data() + fma_outputs<T>(begin), len, kChainLength);
      std::fill_n(out.data() + fma_outputs<T>(begin), fma_outputs<T>(len), Out(0));
    }
  }
  static constexpr const char* kAlternatives = "dtypes/fma_host";
  // x (n of T), ref and out (fma_outputs of the output type each) and fill()'s temporary.
  static Footprint weight(std::size_t n) {
    using Out = typename Dtype<T>::fma_out;
    return {.host_bytes = 1.0 * sizeof(T) * n + 2.0 * sizeof(Out) * fma_outputs<T>(n) +
                          fill_temp_bytes<T>(n)};
  }
};

BenchSpec fma_spec(bool omp, std::string_view dtype, std::size_t n) {
  const auto spec =
      bench_spec("dtypes", omp ? "omp" : "serial",
                 {{"kernel", "fma"}, {"dtype", std::string(dtype)}, {"n", n}, {"k", kChainLength}});
  return omp ? spec.on_threads(omp_threads()) : spec;
}

// A CPU fma-chain run: 2 * kChains * K ops per element (8 per emulated dp4a of 4 bytes).
template <class T>
void add_cpu_fma(const RunConfig& cfg, bool omp, std::size_t n,
                 void (*fn)(const T*, typename Dtype<T>::fma_out*, std::size_t, int)) {
  add_cpu_benchmark(cfg, fma_spec(omp, dtype_name<T>(), n), fma_work<T>(n),
                    [n, fn, omp](benchmark::State& state) {
    // The fp16 / int8 omp paths are AVX512_FP16 / AVX512_VNNI where the host has them.
    if (omp) set_row_field(current_benchmark(), "cpu_isa", fma_omp_path<T>());
    FmaHost<T>& d = inputs<FmaHost<T>>(n);
    run_cpu(state, fma_tolerance<T>(), d.out.span(), d.ref.span(),
            [&] { fn(d.x.data(), d.out.data(), n, kChainLength); });
  });
}

#if TWINBENCH_HAVE_CUDA
static_assert(gpu::kDtypesChains == kChains);

// fp16 crosses to the launchers as its bit pattern.
template <class T>
T* dev(T* p) {
  return p;
}
inline std::uint16_t* dev(f16* p) { return reinterpret_cast<std::uint16_t*>(p); }

template <class T>
constexpr gpu::DtypeId dtype_id() {
  if constexpr (std::is_same_v<T, double>) return gpu::DtypeId::fp64;
  if constexpr (std::is_same_v<T, float>) return gpu::DtypeId::fp32;
  if constexpr (std::is_same_v<T, f16>) return gpu::DtypeId::fp16;
  return gpu::DtypeId::int8;
}

template <class T>
struct AxpyDevice {
  Stream stream;
  DeviceBuffer<T> x, y0, y;
  PinnedBuffer<T> hy;
  explicit AxpyDevice(const AxpyHost<T>& h)
      : x(upload(std::span<const T>(h.x.span()))),
        y0(upload(std::span<const T>(h.y0.span()))),
        y(h.n),
        hy(h.n) {}
  explicit AxpyDevice(std::size_t n) : AxpyDevice(inputs<AxpyHost<T>>(n)) {}
  static constexpr const char* kAlternatives = "dtypes/axpy_device";
  // Device x, y0, y (n of T each); pinned hy.
  static Footprint weight(std::size_t n) {
    return {.host_bytes = 1.0 * sizeof(T) * n, .device_bytes = 3.0 * sizeof(T) * n};
  }
};

// A GPU axpy, kernel time (inputs stay on the device); 3 * sizeof(T) B/element. The "upload"
// stage restores y from y0 on the device before the validation run.
template <class T>
void add_cuda_axpy(const RunConfig& cfg, std::size_t n, int block) {
  const auto spec =
      bench_spec("dtypes", "cuda",
                 {{"kernel", "axpy"}, {"dtype", dtype_name<T>()}, {"n", n}, {"block", block}});
  add_gpu_benchmark(cfg, spec, axpy_work<T>(n), [n, block](benchmark::State& state) {
    if (!check_block(state, block)) return;
    AxpyDevice<T>& d = inputs<AxpyDevice<T>>(n);
    const AxpyHost<T>& h = inputs<AxpyHost<T>>(n);
    const GpuStages stages{
        .poison = [&d] { poison(d.hy.span()); },
        .upload =
            [&d] {
              CUDA_CHECK(cudaMemcpyAsync(d.y.data(), d.y0.data(), d.y.bytes(),
                                         cudaMemcpyDeviceToDevice, d.stream));
            },
        .compute =
            [&d, n, block] {
              gpu::dtypes_axpy_cuda(axpy_a<T>(), dev(d.x.data()), dev(d.y.data()), n, block,
                                    d.stream);
            },
        .download = [&d, n] { copy_to_host(d.hy.data(), d.y.data(), n, d.stream); },
        .check = [&d, &h] {
          return compare(std::span<const T>(d.hy.span()), h.ref.span(), axpy_tolerance<T>().scale_floor);
        },
    };
    run_gpu_modes(state, Mode::kernel, d.stream, axpy_tolerance<T>(), stages);
    if (state.error_occurred()) return;
    record_kernel(state, gpu::dtypes_axpy_cuda_stats(dtype_id<T>(), n, block));
  });
}

template <class T>
struct FmaDevice {
  using Out = typename Dtype<T>::fma_out;
  Stream stream;
  DeviceBuffer<T> x;
  DeviceBuffer<Out> out;
  PinnedBuffer<Out> hout;
  explicit FmaDevice(const FmaHost<T>& h)
      : x(upload(std::span<const T>(h.x.span()))), out(h.ref.size()), hout(h.ref.size()) {}
  explicit FmaDevice(std::size_t n) : FmaDevice(inputs<FmaHost<T>>(n)) {}
  static constexpr const char* kAlternatives = "dtypes/fma_device";
  // Device x (n of T) and out (fma_outputs of the output type); pinned hout.
  static Footprint weight(std::size_t n) {
    using Out = typename Dtype<T>::fma_out;
    const double out_bytes = 1.0 * sizeof(Out) * fma_outputs<T>(n);
    return {.host_bytes = out_bytes, .device_bytes = 1.0 * sizeof(T) * n + out_bytes};
  }
};

// A GPU fma-chain run, kernel time: 2 * kChains * K ops per element (8 per dp4a).
template <class T>
void add_cuda_fma(const RunConfig& cfg, std::size_t n, int block) {
  using Out = typename Dtype<T>::fma_out;
  const auto spec = bench_spec("dtypes", "cuda",
                               {{"kernel", "fma"},
                                {"dtype", dtype_name<T>()},
                                {"n", n},
                                {"k", kChainLength},
                                {"block", block}});
  add_gpu_benchmark(cfg, spec, fma_work<T>(n), [n, block](benchmark::State& state) {
    if (!check_block(state, block)) return;
    FmaDevice<T>& d = inputs<FmaDevice<T>>(n);
    const FmaHost<T>& h = inputs<FmaHost<T>>(n);
    const GpuStages stages{
        // 0x7F bytes: NaN in fp16, ~3e38 in fp32, ~1e304 in fp64, 0x7F7F7F7F in int32: no
        // chain produces any of them.
        .poison =
            [&d] {
              CUDA_CHECK(cudaMemsetAsync(d.out.data(), 0x7F, d.out.bytes(), d.stream));
              poison(d.hout.span());
            },
        .upload = [] {},  // uploaded once with the device buffers
        .compute =
            [&d, n, block] {
              gpu::dtypes_fma_cuda(fma_a<T>(), dev(d.x.data()), dev(d.out.data()), n, kChainLength,
                                   block, d.stream);
            },
        .download = [&d] { copy_to_host(d.hout.data(), d.out.data(), d.out.size(), d.stream); },
        .check = [&d, &h] {
          return compare(std::span<const Out>(d.hout.span()), h.ref.span(), fma_tolerance<T>().scale_floor);
        },
    };
    run_gpu_modes(state, Mode::kernel, d.stream, fma_tolerance<T>(), stages);
    if (state.error_occurred()) return;
    record_kernel(state, gpu::dtypes_fma_cuda_stats(dtype_id<T>(), n, block));
  });
}
#endif

template <class T>
void register_dtype(const RunConfig& cfg) {
  for (std::size_t n : sizes_1d(cfg, {kAxpySize}, kAxpyQuickSize)) {
    add_cpu_axpy<T>(cfg, false, n, axpy_serial<T>);
    add_cpu_axpy<T>(cfg, true, n, axpy_omp<T>);
#if TWINBENCH_HAVE_CUDA
    for (int block : block_sweep_1d(cfg)) add_cuda_axpy<T>(cfg, n, block);
#endif
  }
  for (std::size_t n : sizes_1d(cfg, {kFmaCpuSize}, kFmaCpuQuickSize)) {
    add_cpu_fma<T>(cfg, false, n, fma_serial<T>);
    add_cpu_fma<T>(cfg, true, n, fma_omp<T>);
  }
#if TWINBENCH_HAVE_CUDA
  for (std::size_t n : sizes_1d(cfg, {kFmaGpuSize}, kFmaGpuQuickSize))
    for (int block : block_sweep_1d(cfg)) add_cuda_fma<T>(cfg, n, block);
#endif
}

void register_benchmarks(const RunConfig& cfg) {
  register_dtype<double>(cfg);
  register_dtype<float>(cfg);
  register_dtype<f16>(cfg);
  register_dtype<int8_t>(cfg);
}

}  // namespace

TWINBENCH_WORKLOAD("dtypes", "axpy and FMA chains in fp64, fp32, fp16 and int8",
                   register_benchmarks);

}  // namespace tb::dtypes
