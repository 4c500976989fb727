// grayscale: RGB float32 (interleaved) to gray float32 on a 3840x2160 image.
// Bytes model: 12 B read + 4 B written per pixel; 5 FLOP per pixel.
#include <twinbench/twinbench.hpp>

#include "cpu/grayscale.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/grayscale.hpp"
#endif

namespace tb::grayscale {
namespace {

void grayscale(twinbench::Bench& b) {
  const twinbench::Dims img = b.image(kDefaultImage, kQuickImage);
  const int w = img.w, h = img.h;
  twinbench::Case& c = b.add_case({{"w", w}, {"h", h}}, kSeed);
  auto rgb = c.input<float>("rgb", 3 * img.pixels(), twinbench::uniform(0, 1));
  auto gray = c.output<float>("gray", img.pixels(), kTolerance).shape(img);
  c.work(work(img));
  c.reference([=] { serial(rgb.host(), gray.ref(), w, h); });
  c.cpu("serial", [=] { serial(rgb.host(), gray.host(), w, h); });
  c.cpu("omp", [=] { omp(rgb.host(), gray.host(), w, h); }, {.threaded = true});
#if TWINBENCH_HAVE_CUDA
  using Launcher = void (*)(const float*, float*, int, int, Block2, cudaStream_t);
  using Stats = gpu::KernelStats (*)(int, int, Block2);
  const auto kernel = [&](const char* impl, Launcher launch, Stats stats) {
    c.gpu(impl, [=](twinbench::Launch& l) {
      launch(rgb.device(), gray.device(), w, h, l.block2d(), l.stream());
    }, {.blocks = twinbench::sweep_2d(),
        .stats = [=](const twinbench::Launch& l) { return stats(w, h, l.block2d()); }});
  };
  kernel("cuda_article", gpu::grayscale_cuda_article, gpu::grayscale_cuda_article_stats);
  kernel("cuda_coalesced", gpu::grayscale_cuda_coalesced, gpu::grayscale_cuda_coalesced_stats);
  kernel("cuda_coalesced_vec4", gpu::grayscale_cuda_vec4, gpu::grayscale_cuda_vec4_stats);
#endif
}

}  // namespace

TWINBENCH_BENCH("grayscale", "RGB to gray on a 4K float32 image: memory-bound, index order matters",
                grayscale);

}  // namespace tb::grayscale
