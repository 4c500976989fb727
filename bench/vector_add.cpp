// vector_add: c = a + b, float32. Bytes model: read a and b, write c (12 B/element); 1 FLOP per
// element. n = 1M (the article's; ~12 MB, inside the GPU's L2, so launch cost and cache dominate)
// and 256M (3 GiB, memory bandwidth).
#include <twinbench/twinbench.hpp>

#include "cpu/vector_add.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/vector_add.hpp"
#endif

namespace tb::vector_add {
namespace {

void vector_add(twinbench::Bench& b) {
  for (std::size_t n : b.sizes({kArticleSize, kLargeSize}, kQuickSize)) {
    twinbench::Case& c = b.add_case({{"n", n}}, kSeed);
    auto x = c.input<float>("a", n), y = c.input<float>("b", n);
    auto z = c.output<float>("c", n, kTolerance);
    c.work(work(n));
    c.reference([=] { serial(x.host(), y.host(), z.ref(), n); });
    c.cpu("serial", [=] { serial(x.host(), y.host(), z.host(), n); });
    c.cpu("omp", [=] { omp(x.host(), y.host(), z.host(), n); }, {.threaded = true});
#if TWINBENCH_HAVE_CUDA
    c.gpu("cuda", [=](twinbench::Launch& l) {
      gpu::vector_add_cuda(x.device(), y.device(), z.device(), n, l.block(), l.stream());
    }, {.stats = [n](const twinbench::Launch& l) { return gpu::vector_add_cuda_stats(n, l.block()); }});
    c.gpu("cuda_article", [=](twinbench::Launch& l) {
      gpu::vector_add_cuda_article(x.device(), y.device(), z.device(), n, l.block(), l.stream());
    }, {.stats = [n](const twinbench::Launch& l) { return gpu::vector_add_cuda_article_stats(n, l.block()); }});
    c.gpu("thrust", [=](twinbench::Launch& l) {
      gpu::vector_add_thrust(x.device(), y.device(), z.device(), n, l.stream());
    }, {.blocks = twinbench::own_launch()});
#endif
  }
}

}  // namespace

TWINBENCH_BENCH("vector_add", "c = a + b, float32: memory-bound streaming", vector_add);

}  // namespace tb::vector_add
