// sgemm benchmarks: C = A * B, square float32, row-major. FLOP model 2n^3 (a multiply and an
// add per term); bytes model 3 * 4 * n^2 (read A and B once, write C once: the minimum, so
// bytes_per_second is a floor, not the traffic). n = 1024 (the article's; 12 MiB, inside the
// GPU's L2) and 4096 (192 MiB). Every variant is checked against a float64 reference with a
// tolerance that grows with n (see cpu/sgemm.hpp). Every row records its `precision` (fp32,
// tf32, bf16): the report pairs CPU and GPU rows of the same precision, and holds each to the
// roof of its own.
#include "bench/twinbench.hpp"

#include "cpu/sgemm.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "common/row_fields.hpp"
#include "cpu/blas.hpp"
#include "cpu/sgemm_libs.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/sgemm.hpp"
#endif

namespace tb::sgemm {
namespace {

struct HostData {
  std::size_t n;
  HostArray<float> a, b, out;
  Reference ref;
  explicit HostData(std::size_t n_) : n(n_), a(n * n), b(n * n), out(n * n) {
    fill_uniform(a.span(), kSeed, -1.f, 1.f);
    fill_uniform(b.span(), kSeed + 1, -1.f, 1.f);
    omp(a.data(), b.data(), out.data(), n);  // first-touch out in parallel
    ref = reference(a.data(), b.data(), n);
  }
  // a, b, out (n^2 floats each) and the float64 reference's c and bound (n^2 doubles each).
  static Footprint weight(std::size_t n) {
    const double nn = static_cast<double>(n) * n;
    return {.host_bytes = (3.0 * sizeof(float) + 2.0 * sizeof(double)) * nn};
  }
};

using CpuImpl = void (*)(const float*, const float*, float*, std::size_t);

// serial / omp: one n x n product per iteration, wall-clock time.
void add_cpu(const RunConfig& cfg, const BenchSpec& spec, std::size_t n, CpuImpl impl) {
  add_cpu_benchmark(cfg, spec, work(n), [n, impl](benchmark::State& state) {
    HostData& d = inputs<HostData>(n);
    run_cpu_checked(
        state, tolerance(n),
        [&] {
          poison(d.out.span());
          impl(d.a.data(), d.b.data(), d.out.data(), n);
          return check(d.out.span(), d.ref);
        },
        [&] { impl(d.a.data(), d.b.data(), d.out.data(), n); });
  });
}

// openblas: cblas_sgemm on all OpenMP threads, with the kernels OpenBLAS was told to use
// (cpu/blas.hpp); the row's cpu_isa names them. Skips, with the loader's reason, without it.
void add_openblas(const RunConfig& cfg, std::size_t n) {
  const auto spec =
      bench_spec("sgemm", "openblas", {{"n", n}}).on_threads(omp_threads()).in_precision("fp32");
  add_cpu_benchmark(cfg, spec, work(n), [n](benchmark::State& state) {
    std::string why;
    const blas::OpenBlas* lib = blas::openblas(why);
    if (!lib) {
      skip(state, why);
      return;
    }
    set_row_field(current_benchmark(), "cpu_isa", "openblas " + lib->corename);
    HostData& d = inputs<HostData>(n);
    run_cpu_checked(
        state, tolerance(n),
        [&] {
          poison(d.out.span());
          openblas(*lib, d.a.data(), d.b.data(), d.out.data(), n);
          return check(d.out.span(), d.ref);
        },
        [&] { openblas(*lib, d.a.data(), d.b.data(), d.out.data(), n); });
  });
}

// A oneDNN matmul of one size and its inputs: the primitive is created, and for BF16 the inputs
// rounded (to_bf16, in parallel: first touch by the threads that read them), outside every timed
// region, once per size.
struct OnednnData {
  OnednnMatmul matmul;
  HostArray<std::uint16_t> a16, b16;  // empty for FP32
  OnednnData(std::size_t n, bool bf16) : OnednnData(inputs<HostData>(n), bf16) {}
  OnednnData(const HostData& h, bool bf16)
      : matmul(h.n, bf16), a16(bf16 ? h.n * h.n : 0), b16(bf16 ? h.n * h.n : 0) {
    const auto count = static_cast<std::int64_t>(a16.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) {
      a16[i] = to_bf16(h.a[i]);
      b16[i] = to_bf16(h.b[i]);
    }
  }
  // The BF16 copies of a and b; one precision's primitive and inputs alive at a time (the slot
  // is keyed on the precision too).
  static Footprint weight(std::size_t n, bool bf16) {
    return {.host_bytes = bf16 ? 2.0 * sizeof(std::uint16_t) * n * n : 0.0};
  }
};

// onednn (FP32 inputs) and onednn_bf16 (inputs rounded to BF16, FP32 accumulation and output:
// AMX where the CPU has it, oneDNN's choice): the row's cpu_isa is the implementation oneDNN
// chose. BF16 is validated with check_bf16 (cpu/sgemm.hpp: the input rounding's allowance).
void add_onednn(const RunConfig& cfg, std::size_t n, bool bf16) {
  const auto spec = bench_spec("sgemm", bf16 ? "onednn_bf16" : "onednn", {{"n", n}})
                        .on_threads(omp_threads())
                        .in_precision(bf16 ? "bf16" : "fp32");
  add_cpu_benchmark(cfg, spec, work(n), [n, bf16](benchmark::State& state) {
    const std::string& why = bf16 ? onednn_bf16_unavailable_reason() : onednn_unavailable_reason();
    if (!why.empty()) {
      skip(state, why);
      return;
    }
    HostData& h = inputs<HostData>(n);
    OnednnData* made = nullptr;
    try {
      made = &inputs<OnednnData>(n, bf16);
    } catch (const std::runtime_error& e) {
      // oneDNN has no implementation here (e.g. BF16 under --cpu-isa=avx2 on a CPU without
      // AVX512_BF16 at that level): a skip with its reason, not a failure.
      skip(state, e.what());
      return;
    }
    OnednnData& d = *made;
    set_row_field(current_benchmark(), "cpu_isa", "onednn " + d.matmul.impl());
    const void* a = bf16 ? static_cast<const void*>(d.a16.data()) : h.a.data();
    const void* b = bf16 ? static_cast<const void*>(d.b16.data()) : h.b.data();
    run_cpu_checked(
        state, bf16 ? tolerance_bf16(n) : tolerance(n),
        [&] {
          poison(h.out.span());
          d.matmul.run(a, b, h.out.data());
          return bf16 ? check_bf16(h.out.span(), h.ref) : check(h.out.span(), h.ref);
        },
        [&] { d.matmul.run(a, b, h.out.data()); });
  });
}

#if TWINBENCH_HAVE_CUDA
struct DeviceData {
  Stream stream;
  DeviceBuffer<float> a, b, c;
  DeviceBuffer<std::uint16_t> a16, b16;  // a and b rounded to BF16 (the cublas_bf16 rows)
  PinnedBuffer<float> ha, hb, hc;
  // Created on first use (outside every timed region), once per size, bound to `stream`.
  std::unique_ptr<gpu::CublasSgemm> cublas, cublas_tf32;
  explicit DeviceData(const HostData& h)
      : a(h.n * h.n),
        b(h.n * h.n),
        c(h.n * h.n),
        a16(h.n * h.n),
        b16(h.n * h.n),
        ha(h.n * h.n),
        hb(h.n * h.n),
        hc(h.n * h.n) {
    std::copy(h.a.begin(), h.a.end(), ha.data());
    std::copy(h.b.begin(), h.b.end(), hb.data());
  }
  explicit DeviceData(std::size_t n) : DeviceData(inputs<HostData>(n)) {}
  // Device a, b, c and pinned ha, hb, hc (n^2 floats each), device a16, b16 (n^2 bf16 each), plus
  // the two cuBLAS handles the struct creates on first use: each takes a default workspace (32 MiB
  // on Hopper) and some state.
  static Footprint weight(std::size_t n) {
    constexpr double kCublasHandles = 2.0 * (32 << 20);
    const double bytes = 3.0 * sizeof(float) * n * n;
    const double bf16_inputs = 2.0 * sizeof(std::uint16_t) * n * n;
    return {.host_bytes = bytes, .device_bytes = bytes + bf16_inputs + kCublasHandles};
  }
};

// The inputs a row's GEMM reads, and the check its result gets (cpu/sgemm.hpp).
enum class Precision { fp32, tf32, bf16 };

GpuStages stages(DeviceData& d, std::size_t n, std::function<void()> compute,
                 Precision precision = Precision::fp32) {
  const HostData& h = inputs<HostData>(n);
  const std::size_t count = n * n;
  return {
      .poison =
          [&d] {
            poison_device(d.c, d.stream);
            poison(d.hc.span());
          },
      // BF16 rows round the uploaded inputs on the device: outside the timed region in kernel
      // mode, inside it in e2e (which starts from the same FP32 host data as every other row).
      .upload =
          [&d, count, precision] {
            copy_to_device(d.a.data(), d.ha.data(), count, d.stream);
            copy_to_device(d.b.data(), d.hb.data(), count, d.stream);
            if (precision == Precision::bf16) {
              gpu::round_to_bf16(d.a.data(), d.a16.data(), count, d.stream);
              gpu::round_to_bf16(d.b.data(), d.b16.data(), count, d.stream);
            }
          },
      .compute = std::move(compute),
      .download = [&d, count] { copy_to_host(d.hc.data(), d.c.data(), count, d.stream); },
      .check =
          [&d, &h, precision] {
            const std::span<const float> got(d.hc.span());
            switch (precision) {
              case Precision::tf32:
                return check_tf32(got, h.ref);
              case Precision::bf16:
                return check_bf16(got, h.ref);
              default:
                return check(got, h.ref);
            }
          },
  };
}

using Launch2d = void (*)(const float*, const float*, float*, std::size_t, Block2, cudaStream_t);
using Stats2d = gpu::KernelStats (*)(std::size_t, Block2);

// cuda_naive / cuda_tiled: one product per iteration with a 2D block; kernel or e2e (upload
// A and B, multiply, download C). `supported`: the block shapes the kernel takes (null: any).
struct Kernel2d : GpuKernel<Launch2d, Stats2d> {
  bool (*supported)(Block2) = nullptr;
};
const Kernel2d kNaive{{"cuda_naive", gpu::sgemm_cuda_naive, gpu::sgemm_cuda_naive_stats}};
const Kernel2d kTiled{{"cuda_tiled", gpu::sgemm_cuda_tiled, gpu::sgemm_cuda_tiled_stats},
                      gpu::sgemm_cuda_tiled_supported};

void add_cuda_2d(const RunConfig& cfg, const Kernel2d& k, std::size_t n, Block2 block, Mode mode) {
  const auto spec =
      bench_spec("sgemm", k.impl, {{"n", n}, {"block", block}}).in_mode(mode).in_precision("fp32");
  add_gpu_benchmark(cfg, spec, work(n), [=](benchmark::State& state) {
    if (k.supported && !k.supported(block)) {
      skip(state, std::string(k.impl) +
                      " needs a square block of 8x8, 16x16 or 32x32 threads (one thread per "
                      "element of a square tile)");
      return;
    }
    DeviceData& d = inputs<DeviceData>(n);
    run_kernel(state, k, block.threads(), mode, d.stream, tolerance(n),
               stages(d, n, [&d, n, block, k] {
                 k.launch(d.a.data(), d.b.data(), d.c.data(), n, block, d.stream);
               }), n, block);
  });
}

// cuda_optimized: register-tiled kernels on 128 x 128 tiles, fixed 256-thread blocks (the tiling
// fixes them); which of the three runs depends on n (gpu/sgemm.hpp), and the row's registers and
// occupancy are that kernel's (the buffers come from cudaMalloc, so they are 16-byte aligned).
void add_cuda_optimized(const RunConfig& cfg, std::size_t n, Mode mode) {
  const auto spec =
      bench_spec("sgemm", "cuda_optimized", {{"n", n}, {"block", gpu::kSgemmOptimizedThreads}})
          .in_mode(mode)
          .in_precision("fp32");
  add_gpu_benchmark(cfg, spec, work(n), [=](benchmark::State& state) {
    DeviceData& d = inputs<DeviceData>(n);
    run_gpu_modes(state, mode, d.stream, tolerance(n), stages(d, n, [&d, n] {
                    gpu::sgemm_cuda_optimized(d.a.data(), d.b.data(), d.c.data(), n, d.stream);
                  }));
    record_kernel(state, gpu::sgemm_cuda_optimized_stats(n));
  });
}

// cublas (full FP32) and cublas_tf32 (TF32 tensor cores, validated with check_tf32 and the TF32
// tolerance): the vendor reference lines.
void add_cublas(const RunConfig& cfg, std::size_t n, Mode mode, bool tf32) {
  const auto spec = bench_spec("sgemm", tf32 ? "cublas_tf32" : "cublas", {{"n", n}})
                        .in_mode(mode)
                        .in_precision(tf32 ? "tf32" : "fp32");
  add_gpu_benchmark(cfg, spec, work(n), [=](benchmark::State& state) {
    if (!gpu::cublas_unavailable_reason().empty()) {
      skip(state, gpu::cublas_unavailable_reason());
      return;
    }
    DeviceData& d = inputs<DeviceData>(n);
    auto& slot = tf32 ? d.cublas_tf32 : d.cublas;
    if (!slot) slot = std::make_unique<gpu::CublasSgemm>(d.stream, tf32);
    const gpu::CublasSgemm& handle = *slot;
    run_gpu_modes(
        state, mode, d.stream, tf32 ? tolerance_tf32(n) : tolerance(n),
        stages(
            d, n, [&d, &handle, n] { handle.run(d.a.data(), d.b.data(), d.c.data(), n); },
            tf32 ? Precision::tf32 : Precision::fp32));
    state.counters["tf32"] = tf32 ? 1 : 0;
  });
}

// cublas_bf16: cublasGemmEx on BF16 inputs (rounded on the device, see stages()), FP32
// accumulation and output, on the tensor cores: the peer of the CPU's onednn_bf16 row. It runs
// on the FP32 row's handle (the math mode does not apply to BF16 inputs).
void add_cublas_bf16(const RunConfig& cfg, std::size_t n, Mode mode) {
  const auto spec =
      bench_spec("sgemm", "cublas_bf16", {{"n", n}}).in_mode(mode).in_precision("bf16");
  add_gpu_benchmark(cfg, spec, work(n), [=](benchmark::State& state) {
    if (!gpu::cublas_unavailable_reason().empty()) {
      skip(state, gpu::cublas_unavailable_reason());
      return;
    }
    if (!check_capability(state, GpuFeature::bf16_tensor_cores)) return;
    DeviceData& d = inputs<DeviceData>(n);
    if (!d.cublas) d.cublas = std::make_unique<gpu::CublasSgemm>(d.stream, false);
    const gpu::CublasSgemm& handle = *d.cublas;
    run_gpu_modes(
        state, mode, d.stream, tolerance_bf16(n),
        stages(
            d, n, [&d, &handle, n] { handle.run_bf16(d.a16.data(), d.b16.data(), d.c.data(), n); },
            Precision::bf16));
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
  for (std::size_t n : sizes_1d(cfg, {kArticleSize, kLargeSize}, kQuickSize)) {
    if (n <= kSerialMaxSize)
      add_cpu(cfg, bench_spec("sgemm", "serial", {{"n", n}}).in_precision("fp32"), n, serial);
    add_cpu(cfg,
            bench_spec("sgemm", "omp", {{"n", n}}).on_threads(omp_threads()).in_precision("fp32"),
            n, omp);
    add_openblas(cfg, n);
    add_onednn(cfg, n, false);
    add_onednn(cfg, n, true);
#if TWINBENCH_HAVE_CUDA
    for (Mode mode : kModes) {
      for (Block2 block : blocks_2d(cfg, mode)) {
        add_cuda_2d(cfg, kNaive, n, block, mode);
        add_cuda_2d(cfg, kTiled, n, block, mode);
      }
      add_cuda_optimized(cfg, n, mode);
      add_cublas(cfg, n, mode, false);
      add_cublas(cfg, n, mode, true);
      add_cublas_bf16(cfg, n, mode);
    }
#endif
  }
}

}  // namespace

TWINBENCH_WORKLOAD("sgemm", "C = A * B, square float32: compute-bound, vs cuBLAS",
                   register_benchmarks);

}  // namespace tb::sgemm
