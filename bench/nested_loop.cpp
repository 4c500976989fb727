// nested_loop benchmarks: results[i] = sum_{j<M} i*j*0.1 in float64, N = M (--size sets N).
// No inputs; bytes model: the N doubles written (8N B). FLOP model: 2 per inner iteration
// (double multiply + add), 2*N*M in all; items = N*M inner iterations. Compute- and latency-
// bound: each i is a chain of M dependent adds.
#include <twinbench/twinbench.hpp>

#include <algorithm>
#include <string>

#include "cpu/nested_loop.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/nested_loop.hpp"
#endif

namespace tb::nested_loop {
namespace {

void nested_loop(twinbench::Bench& b) {
  for (std::size_t n : b.sizes({kArticleSize}, kQuickSize)) {
    twinbench::Case& c = b.add_case({{"n", n}});
    auto out = c.output<double>("results", n, kTolerance);
    c.work(work(n));
    // Above the cap every row skips with the numbers (over_cap), and no reference is computed.
    const std::string why = over_cap(n);
    c.reference([=] {
      if (why.empty()) serial(out.ref(), n, n); else std::fill_n(out.ref(), n, 0.0);
    });
    using CpuImpl = void (*)(double*, std::size_t, std::size_t);
    const auto cpu = [&](const char* impl, CpuImpl run, bool threaded) {
      c.cpu(impl, [=](twinbench::Row& r) {
        if (why.empty()) run(out.host(), n, n); else r.skip(why);
      }, {.threaded = threaded});
    };
    cpu("serial", serial, false);
    cpu("omp", omp, true);
#if TWINBENCH_HAVE_CUDA
    using Launcher = void (*)(double*, std::size_t, std::size_t, int, cudaStream_t);
    using Stats = gpu::KernelStats (*)(std::size_t, int);
    const auto kernel = [&](const char* impl, Launcher launch, Stats stats) {
      c.gpu(impl, [=](twinbench::Launch& l) {
        if (why.empty()) launch(out.device(), n, n, l.block(), l.stream()); else l.skip(why);
      }, {.stats = [=](const twinbench::Launch& l) { return stats(n, l.block()); },
          .setup = [=](twinbench::Launch& l) {  // grid_blocks / SMs (low_occupancy: < 2)
            const gpu::KernelStats k = stats(n, l.block());
            if (k.sm_count > 0) l.counter("blocks_per_sm", static_cast<double>(k.grid_blocks) / k.sm_count);
          }});
    };
    kernel("cuda", gpu::nested_loop_cuda, gpu::nested_loop_cuda_stats);
    kernel("cuda_warp", gpu::nested_loop_cuda_warp, gpu::nested_loop_cuda_warp_stats);
#endif
  }
}

}  // namespace

TWINBENCH_BENCH("nested_loop", "sum_j i*j*0.1 per i, float64: a long dependent loop per thread",
                nested_loop);

}  // namespace tb::nested_loop
