// vector_add benchmarks: c = a + b, float32. Bytes model: read a and b, write c (12 B/element);
// 1 FLOP/element. n = 1M (the article's; ~12 MB, inside the GPU's L2, so launch cost and cache
// dominate) and 256M (3 GiB, memory bandwidth).
#include <twinbench/twinbench.hpp>

#include "cpu/vector_add.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/vector_add.hpp"
#endif

namespace tb::vector_add {
namespace {

const twinbench::Workload<float(float, float)> kVectorAdd{
    .name = "vector_add",
    .summary = "c = a + b, float32: memory-bound streaming",
    .sizes = {kArticleSize, kLargeSize},
    .quick_size = kQuickSize,
    .work = work,
    .tolerance = kTolerance,
    .reference = serial,
    .cpu = {{"serial", serial}, {"omp", omp, /*threaded=*/true}},
#if TWINBENCH_HAVE_CUDA
    .gpu = {{"cuda", gpu::vector_add_cuda, gpu::vector_add_cuda_stats},
            {"cuda_article", gpu::vector_add_cuda_article, gpu::vector_add_cuda_article_stats},
            {"thrust",
             [](const float* a, const float* b, float* c, std::size_t n, int, cudaStream_t s) {
               gpu::vector_add_thrust(a, b, c, n, s);
             },
             nullptr, /*picks_own_block=*/true}},
#endif
    .seed = kSeed,
};
TWINBENCH_REGISTER(kVectorAdd);

}  // namespace
}  // namespace tb::vector_add
