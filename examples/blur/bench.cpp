// blur: a 3x3 box blur of a float32 image. Reads and writes 4 B a pixel; 9 FLOP a pixel.
#include <twinbench/twinbench.hpp>

#include "blur.hpp"

void blur_bench(twinbench::Bench& b) {
  const twinbench::Dims img = b.image({3840, 2160}, /*quick=*/{640, 360});
  const int w = img.w, h = img.h;
  twinbench::Case& c = b.add_case({{"w", w}, {"h", h}});
  auto in = c.input<float>("in", img.pixels(), twinbench::uniform(0, 1));
  auto out = c.output<float>("out", img.pixels(), {.rel = 1e-6}).shape(img);
  const double px = img.pixels();
  c.work({.read_bytes = 4 * px, .written_bytes = 4 * px, .flops = 9 * px});
  c.reference([=] { blur::serial(in.host(), out.ref(), w, h); });
  c.cpu("serial", [=] { blur::serial(in.host(), out.host(), w, h); });
  c.cpu("omp", [=] { blur::omp(in.host(), out.host(), w, h); }, {.threaded = true});
#if TWINBENCH_HAVE_CUDA
  c.gpu("cuda", [=](twinbench::Launch& l) {
    blur::cuda(in.device(), out.device(), w, h, l.block2d().x, l.block2d().y, l.stream());
  }, {.blocks = twinbench::sweep_2d(), .stats = [=](const twinbench::Launch& l) {
    return blur::cuda_stats(w, h, l.block2d().x, l.block2d().y);
  }});
#endif
}
TWINBENCH_BENCH("blur", "3x3 box blur of a float32 image: 2D blocks", blur_bench);
