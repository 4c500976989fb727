// aos_soa benchmarks: out[i] = |p_i| for N float32 points, array of structs vs struct of arrays.
// Bytes model: 12 B read + 4 B written per point (16 B); 5 FLOPs per point (sqrt not counted).
// N = 64M (1 GiB moved, ~20x the L2): the layouts are compared at memory bandwidth.
#include <twinbench/twinbench.hpp>

#include <cstdint>

#include "cpu/aos_soa.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/aos_soa.hpp"
#endif

namespace tb::aos_soa {
namespace {

void aos_soa(twinbench::Bench& b) {
  for (std::size_t n : b.sizes({kDefaultSize}, kQuickSize)) {
    twinbench::Case& c = b.add_case({{"n", n}}, kSeed);
    // The same points in both layouts (x, y, z split from xyz), so every variant shares one
    // reference.
    auto xyz = c.input<float>("xyz", 3 * n);
    const auto split = [&c, xyz, n](const char* name, int k) {
      return c.input_from<float>(name, n, [xyz, k](float* p, std::size_t m) {
        const float* src = xyz.host();
        const auto count = static_cast<std::int64_t>(m);
#pragma omp parallel for schedule(static)
        for (std::int64_t i = 0; i < count; ++i) p[i] = src[3 * i + k];
      });
    };
    auto x = split("x", 0), y = split("y", 1), z = split("z", 2);
    auto out = c.output<float>("out", n, kTolerance);
    c.work(work(n));
    c.reference([=] { serial_aos(xyz.host(), out.ref(), n); });
    c.cpu("serial_aos", [=] { serial_aos(xyz.host(), out.host(), n); }, {.algorithm = "aos"});
    c.cpu("serial_soa", [=] { serial_soa(x.host(), y.host(), z.host(), out.host(), n); },
          {.algorithm = "soa"});
    c.cpu("omp_aos", [=] { omp_aos(xyz.host(), out.host(), n); },
          {.algorithm = "aos", .threaded = true});
    c.cpu("omp_soa", [=] { omp_soa(x.host(), y.host(), z.host(), out.host(), n); },
          {.algorithm = "soa", .threaded = true});
#if TWINBENCH_HAVE_CUDA
    // Kernel time only: the layout question is about how the kernel reads its inputs.
    using Stats = gpu::KernelStats (*)(std::size_t, int);
    const auto kernel = [&](const char* impl, const char* algorithm, auto launch, Stats stats) {
      c.gpu(impl, [=](twinbench::Launch& l) { launch(l.block(), l.stream()); },
            {.algorithm = algorithm, .modes = twinbench::Modes::unnamed,
             .stats = [=](const twinbench::Launch& l) { return stats(n, l.block()); }});
    };
    kernel("cuda_aos", "aos", [=](int block, cudaStream_t s) {
      gpu::aos_soa_cuda_aos(xyz.device(), out.device(), n, block, s);
    }, gpu::aos_soa_cuda_aos_stats);
    kernel("cuda_soa", "soa", [=](int block, cudaStream_t s) {
      gpu::aos_soa_cuda_soa(x.device(), y.device(), z.device(), out.device(), n, block, s);
    }, gpu::aos_soa_cuda_soa_stats);
    kernel("cuda_aos_vec", "aos", [=](int block, cudaStream_t s) {
      gpu::aos_soa_cuda_aos_vec(xyz.device(), out.device(), n, block, s);
    }, gpu::aos_soa_cuda_aos_vec_stats);
#endif
  }
}

}  // namespace

TWINBENCH_BENCH("aos_soa", "norms of 3D points, float32: array of structs vs struct of arrays",
                aos_soa);

}  // namespace tb::aos_soa
