// dot: sum a_i * b_i over float32 inputs, float64 accumulation (cpu/dot.hpp says why). Bytes
// model: read a and b (8 B/element); 2 FLOP/element. n = 1M (the article's) and 256M.
// A scalar output: each variant's tolerance is its summation depth's (cpu/dot.hpp), relative to
// sum |a_i b_i|, which the reference computes.
#include <twinbench/twinbench.hpp>

#include "cpu/dot.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/dot.hpp"
#endif

namespace tb::dot {
namespace {

void dot(twinbench::Bench& b) {
  for (std::size_t n : b.sizes({kArticleSize, kLargeSize}, kQuickSize)) {
    twinbench::Case& c = b.add_case({{"n", n}}, kSeed);
    auto x = c.input<float>("a", n), y = c.input<float>("b", n);
    auto sum = c.output<double>("dot", 1);
    c.work(work(n));
    c.reference([=] {
      const Reference r = reference(x.host(), y.host(), n);
      *sum.ref() = r.value;
      sum.tolerance({tolerance(depth_serial(n)).rel, r.abs_sum});
    });
    c.cpu("serial", [=] { *sum.host() = serial(x.host(), y.host(), n); });
    c.cpu("omp", [=] { *sum.host() = omp(x.host(), y.host(), n); },
          {.rel = tolerance(depth_omp(n, b.omp_threads())).rel, .threaded = true});
#if TWINBENCH_HAVE_CUDA
    c.gpu("cuda", [=](twinbench::Launch& l) {
      const long long grid = gpu::dot_cuda_stats(n, l.block()).grid_blocks;
      l.tolerance(tolerance(depth_cuda(n, l.block(), grid)).rel);
      gpu::dot_cuda(x.device(), y.device(), n, sum.device(), l.block(), l.stream());
    }, {.stats = [n](const twinbench::Launch& l) { return gpu::dot_cuda_stats(n, l.block()); }});
    // thrust::inner_product returns to the host: its kernel-mode time includes that sync, the
    // 8-byte copy and the launch latency, as a user of Thrust sees it. CUB's summation order is
    // not pinned here: the any-order depth n.
    c.gpu("thrust", [=](twinbench::Launch& l) {
      *sum.host() = gpu::dot_thrust(x.device(), y.device(), n, l.stream());
    }, {.rel = tolerance(depth_serial(n)).rel, .blocks = twinbench::own_launch(),
        .waits_for_gpu = true, .writes_host = true});
#endif
  }
}

}  // namespace

TWINBENCH_BENCH("dot", "sum of a_i * b_i, float32 inputs, float64 accumulation: memory-bound reduction",
                dot);

}  // namespace tb::dot
