// transpose benchmarks: out = in^T, float32, rows x cols (--image=WxH: W = cols, H = rows).
// Bytes model: read rows*cols floats once and write them once (8 B/element); no FLOPs.
// 8192 x 8192 (256 MiB per matrix, 5x the L2) and 4096 x 4096 (the whole problem ~ the L2).
#include <twinbench/twinbench.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#include "cpu/transpose.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/transpose.hpp"
#endif

namespace tb::transpose {
namespace {

void transpose(twinbench::Bench& b) {
  std::vector<twinbench::Dims> shapes = {kLarge, kMedium};
  if (b.image_given() || b.quick()) shapes = {b.image(kLarge, kQuick)};
  for (const twinbench::Dims d : shapes) {
    const auto rows = static_cast<std::size_t>(d.h), cols = static_cast<std::size_t>(d.w);
    const std::size_t n = rows * cols;
    twinbench::Input<float> in;
    twinbench::Output<float> out;
    // A case of the shape; `copy`: out = in is expected (the copy kernel), not in^T.
    const auto open = [&](bool copy) -> twinbench::Case& {
      twinbench::Case& c = b.add_case({{"rows", rows}, {"cols", cols}}, kSeed);
      in = c.input<float>("in", n);
      out = c.output<float>("out", n, kTolerance);
      c.work(work(rows, cols));
      c.reference([=, in = in, out = out] {
        if (copy) std::copy_n(in.host(), n, out.ref()); else serial(in.host(), out.ref(), rows, cols);
      });
      return c;
    };
    twinbench::Case& tiled = open(false);
    tiled.cpu("serial", [=] { serial(in.host(), out.host(), rows, cols); });
    tiled.cpu("omp", [=] { omp(in.host(), out.host(), rows, cols); }, {.threaded = true});
#if TWINBENCH_HAVE_CUDA
    // Kernel time only, each row also as a percentage of the copy kernel's speed (its time
    // measured once per shape, when the first row starts).
    auto copy_seconds = std::make_shared<double>(0.0);
    const auto kernel = [&](twinbench::Case& c, const char* impl, auto launch, auto stats,
                            twinbench::Blocks blocks) {
      c.gpu(impl, [=, in = in, out = out](twinbench::Launch& l) { launch(in.device(), out.device(), l); },
            {.blocks = blocks, .modes = twinbench::Modes::unnamed, .stats = stats,
             .setup = [=, in = in, out = out](twinbench::Launch& l) {
               if (*copy_seconds == 0)
                 *copy_seconds = gpu::copy_cuda_tiled_seconds(in.device(), out.device(), rows, cols, l.stream());
               l.counter("pct_of_copy_kernel", 100.0 * *copy_seconds, twinbench::Counter::per_second);
             }});
    };
    // The shared-memory tiled transpose and its variants (in the order they were tried: each row
    // shows one step; see gpu/transpose.hpp), each with its fixed block.
    using Tiled = void (*)(const float*, float*, std::size_t, std::size_t, cudaStream_t);
    using TiledStats = gpu::KernelStats (*)(std::size_t, std::size_t);
    const auto tiled_kernel = [&](twinbench::Case& c, const char* impl, Tiled launch, TiledStats stats,
                                  Block2 block = gpu::kTransposeTiledBlock) {
      kernel(c, impl,
             [=](const float* i, float* o, twinbench::Launch& l) { launch(i, o, rows, cols, l.stream()); },
             [=](const twinbench::Launch&) { return stats(rows, cols); }, twinbench::fixed({block}));
    };
    tiled_kernel(tiled, "cuda_tiled", gpu::transpose_cuda_tiled, gpu::transpose_cuda_tiled_stats);
    tiled_kernel(tiled, "cuda_tiled_diag", gpu::transpose_cuda_tiled_diag, gpu::transpose_cuda_tiled_diag_stats);
    tiled_kernel(tiled, "cuda_tiled64", gpu::transpose_cuda_tiled64, gpu::transpose_cuda_tiled64_stats);
    tiled_kernel(tiled, "cuda_tiled64_diag", gpu::transpose_cuda_tiled64_diag,
                 gpu::transpose_cuda_tiled64_diag_stats);
    tiled_kernel(tiled, "cuda_tiled64_swizzle", gpu::transpose_cuda_tiled64_swizzle,
                 gpu::transpose_cuda_tiled64_swizzle_stats, gpu::kTransposeSwizzleBlock);
    // The copy ceiling, then the article's one-element-per-thread kernels over the 2D sweep.
    tiled_kernel(open(true), "cuda_copy", gpu::copy_cuda_tiled, gpu::copy_cuda_tiled_stats);
    twinbench::Case& article = open(false);
    using Article = void (*)(const float*, float*, std::size_t, std::size_t, Block2, cudaStream_t);
    using ArticleStats = gpu::KernelStats (*)(std::size_t, std::size_t, Block2);
    const auto article_kernel = [&](const char* impl, Article launch, ArticleStats stats) {
      kernel(article, impl,
             [=](const float* i, float* o, twinbench::Launch& l) {
               launch(i, o, rows, cols, l.block2d(), l.stream());
             },
             [=](const twinbench::Launch& l) { return stats(rows, cols, l.block2d()); },
             twinbench::sweep_2d());
    };
    article_kernel("cuda_article_slow", gpu::transpose_cuda_article_slow, gpu::transpose_cuda_article_slow_stats);
    article_kernel("cuda_article_fast", gpu::transpose_cuda_article_fast, gpu::transpose_cuda_article_fast_stats);
#endif
  }
}

}  // namespace

TWINBENCH_BENCH("transpose", "out = in^T, float32: strided access and shared-memory tiling",
                transpose);

}  // namespace tb::transpose
