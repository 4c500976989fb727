// sgemm benchmarks: C = A * B, square float32, row-major. FLOP model 2n^3 (a multiply and an
// add per term); bytes model 3 * 4 * n^2 (read A and B once, write C once: the minimum, so
// bytes_per_second is a floor, not the traffic). n = 1024 (the article's; 12 MiB, inside the
// GPU's L2) and 4096 (192 MiB). Every variant is checked against a float64 reference with a
// tolerance that grows with n (see cpu/sgemm.hpp). Every row records its `precision` (fp32,
// tf32, bf16): the report pairs CPU and GPU rows of the same precision, and holds each to the
// roof of its own.
#include "cpu/sgemm.hpp"

#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <twinbench/twinbench.hpp>

#include "cpu/sgemm_libs.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/sgemm.hpp"
#endif

namespace tb::sgemm {
namespace {

// A row's result against the float64 reference, by the check of its precision (cpu/sgemm.hpp).
enum class Precision { fp32, tf32, bf16 };
twinbench::Found verdict(const float* got, const Reference& ref, std::size_t n, Precision p) {
  const std::span<const float> c(got, n * n);
  const ErrorStats e = p == Precision::tf32   ? check_tf32(c, ref)
                       : p == Precision::bf16 ? check_bf16(c, ref)
                                              : check(c, ref);
  const Tolerance tol = p == Precision::tf32   ? tolerance_tf32(n)
                        : p == Precision::bf16 ? tolerance_bf16(n)
                                               : tolerance(n);
  return {passes(e, tol) ? "" : describe(e, tol), e.max_abs, e.max_rel};
}

#if TWINBENCH_HAVE_CUDA
// A case's cuBLAS handles, made by the rows' setup on the case's stream (outside every timed
// region; each takes a default workspace, 32 MiB on Hopper) and released with the case.
struct CublasHandles {
  std::unique_ptr<gpu::CublasSgemm> fp32, tf32;
};
#endif

void sgemm(twinbench::Bench& b) {
  for (std::size_t n : b.sizes({kArticleSize, kLargeSize}, kQuickSize)) {
    const std::size_t nn = n * n;
    twinbench::Case& c = b.add_case({{"n", n}}, kSeed);
    auto x = c.input<float>("a", nn), y = c.input<float>("b", nn);
    // The float64 product and its bound sum |a_ik b_kj|, made for the first check.
    c.extra_memory(2.0 * sizeof(double) * static_cast<double>(nn), 0.0);
    auto ref = c.shared<Reference>(
        [=] { return std::make_unique<Reference>(reference(x.host(), y.host(), n)); });
    auto out = c.output<float>("c", nn).checked_by(
        [=](const float* got) { return verdict(got, ref.get(), n, Precision::fp32); });
    const auto held_as = [=](Precision p) {
      return std::vector{
          out.check_with([=](const float* got) { return verdict(got, ref.get(), n, p); })};
    };
    // a and b rounded to BF16: by the onednn_bf16 row on the host, by the cublas_bf16 row on the
    // device.
    auto a16 = c.scratch<std::uint16_t>("a_bf16", nn), b16 = c.scratch<std::uint16_t>("b_bf16", nn);
    c.work(work(n));

    if (n <= kSerialMaxSize)
      c.cpu("serial", [=] { serial(x.host(), y.host(), out.host(), n); }, {.precision = "fp32"});
    c.cpu("omp", [=] { omp(x.host(), y.host(), out.host(), n); },
          {.precision = "fp32", .threaded = true});
    // openblas: cblas_sgemm on all OpenMP threads, with the kernels OpenBLAS was told to use
    // (cpu/blas.hpp); the row's cpu_isa names them. Skips, with the loader's reason, without it.
    c.cpu("openblas",
          [=](twinbench::Row& r) {
            std::string why;
            const blas::OpenBlas* lib = blas::openblas(why);
            if (!lib) return r.skip(why);
            r.field("cpu_isa", "openblas " + lib->corename);
            openblas(*lib, x.host(), y.host(), out.host(), n);
          },
          {.precision = "fp32", .threaded = true});
    // onednn (FP32 inputs) and onednn_bf16 (inputs rounded to BF16, FP32 accumulation and
    // output: AMX where the CPU has it, oneDNN's choice): the row's cpu_isa is the implementation
    // oneDNN chose. The primitive is created, and the BF16 inputs rounded, at the row's check.
    for (const bool bf16 : {false, true}) {
      auto matmul = c.shared<OnednnMatmul>([=] {
        if (bf16) {
          round_to_bf16(x.host(), a16.host(), nn);
          round_to_bf16(y.host(), b16.host(), nn);
        }
        return std::make_unique<OnednnMatmul>(n, bf16);
      });
      c.cpu(bf16 ? "onednn_bf16" : "onednn",
            [=](twinbench::Row& r) {
              const std::string& why =
                  bf16 ? onednn_bf16_unavailable_reason() : onednn_unavailable_reason();
              if (!why.empty()) return r.skip(why);
              const OnednnMatmul* m = nullptr;
              try {
                m = &matmul.get();
              } catch (const std::runtime_error& e) {
                // oneDNN has no implementation here (e.g. BF16 under --cpu-isa=avx2 on a CPU
                // without AVX512_BF16 at that level): a skip with its reason, not a failure.
                return r.skip(e.what());
              }
              r.field("cpu_isa", "onednn " + m->impl());
              if (bf16)
                m->run(a16.host(), b16.host(), out.host());
              else
                m->run(x.host(), y.host(), out.host());
            },
            {.precision = bf16 ? "bf16" : "fp32",
             .checks = bf16 ? held_as(Precision::bf16) : std::vector<twinbench::OutputCheck>{},
             .threaded = true});
    }

#if TWINBENCH_HAVE_CUDA
    // cuda_naive / cuda_tiled: one product per launch with a 2D block; cuda_tiled takes square
    // blocks only.
    using Launch2d =
        void (*)(const float*, const float*, float*, std::size_t, Block2, cudaStream_t);
    using Stats2d = gpu::KernelStats (*)(std::size_t, Block2);
    const auto kernel_2d = [&](const char* impl, Launch2d launch, Stats2d stats,
                               bool (*supported)(Block2)) {
      c.gpu(impl,
            [=](twinbench::Launch& l) {
              launch(x.device(), y.device(), out.device(), n, l.block2d(), l.stream());
            },
            {.precision = "fp32",
             .blocks = twinbench::sweep_2d(),
             .stats = [=](const twinbench::Launch& l) { return stats(n, l.block2d()); },
             .setup =
                 [=](twinbench::Launch& l) {
                   if (supported && !supported(l.block2d()))
                     l.skip(std::string(impl) +
                            " needs a square block of 8x8, 16x16 or 32x32 threads (one "
                            "thread per element of a square tile)");
                 }});
    };
    kernel_2d("cuda_naive", gpu::sgemm_cuda_naive, gpu::sgemm_cuda_naive_stats, nullptr);
    kernel_2d("cuda_tiled", gpu::sgemm_cuda_tiled, gpu::sgemm_cuda_tiled_stats,
              gpu::sgemm_cuda_tiled_supported);
    // cuda_optimized: register-tiled kernels on 128 x 128 tiles, fixed 256-thread blocks (the
    // tiling fixes them); which of the three runs depends on n (gpu/sgemm.hpp), and the row's
    // registers and occupancy are that kernel's.
    c.gpu("cuda_optimized",
          [=](twinbench::Launch& l) {
            gpu::sgemm_cuda_optimized(x.device(), y.device(), out.device(), n, l.stream());
          },
          {.axes = {{"block", gpu::kSgemmOptimizedThreads}},
           .precision = "fp32",
           .blocks = twinbench::own_launch(),
           .stats = [n](const twinbench::Launch&) { return gpu::sgemm_cuda_optimized_stats(n); }});
    // cublas (full FP32), cublas_tf32 (TF32 tensor cores) and cublas_bf16 (cublasGemmEx on the
    // BF16 inputs, FP32 accumulation and output, on the FP32 row's handle: the peer of the CPU's
    // onednn_bf16 row; the inputs rounded on the device after their upload, so inside e2e's timed
    // region, which starts from the same FP32 host data as every other row).
    c.extra_memory(0.0, 2.0 * (32 << 20));
    auto handles = c.shared<CublasHandles>([] { return std::make_unique<CublasHandles>(); });
    const auto setup = [=](bool tf32, bool counted) {  // the handle, on the case's stream
      return [=](twinbench::Launch& l) {
        if (!gpu::cublas_unavailable_reason().empty())
          return l.skip(gpu::cublas_unavailable_reason());
        std::unique_ptr<gpu::CublasSgemm>& slot = tf32 ? handles.get().tf32 : handles.get().fp32;
        if (!slot) slot = std::make_unique<gpu::CublasSgemm>(l.stream(), tf32);
        if (counted) l.counter("tf32", tf32 ? 1 : 0);
      };
    };
    c.gpu("cublas",
          [=](twinbench::Launch&) {
            handles.get().fp32->run(x.device(), y.device(), out.device(), n);
          },
          {.precision = "fp32", .blocks = twinbench::own_launch(), .setup = setup(false, true)});
    c.gpu("cublas_tf32",
          [=](twinbench::Launch&) {
            handles.get().tf32->run(x.device(), y.device(), out.device(), n);
          },
          {.precision = "tf32",
           .checks = held_as(Precision::tf32),
           .blocks = twinbench::own_launch(),
           .setup = setup(true, true)});
    c.gpu("cublas_bf16",
          [=](twinbench::Launch&) {
            handles.get().fp32->run_bf16(a16.device(), b16.device(), out.device(), n);
          },
          {.precision = "bf16",
           .checks = held_as(Precision::bf16),
           .blocks = twinbench::own_launch(),
           .needs = twinbench::Needs::bf16_tensor_cores,
           .upload =
               [=](twinbench::Launch& l) {
                 gpu::round_to_bf16(x.device(), a16.device(), nn, l.stream());
                 gpu::round_to_bf16(y.device(), b16.device(), nn, l.stream());
               },
           .setup = setup(false, false)});
#endif
  }
}

}  // namespace

TWINBENCH_BENCH("sgemm", "C = A * B, square float32: compute-bound, vs cuBLAS", sgemm);

}  // namespace tb::sgemm
