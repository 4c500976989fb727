// conv2d benchmarks: a 3840x2160 (--image=WxH) single-channel float32 image filtered with an
// f x f kernel, f = 3, 5, 7, borders clamp-to-edge. Bytes model: one read and one write per
// pixel (8 B/pixel; the halo comes from cache); FLOP model: 2 f^2 per pixel (one FMA per tap of
// the direct 2D filter; cuda_separable reports the same 2D-equivalent count). serial, omp,
// cuda_naive, cuda_tiled and cuda_direct use a seeded random filter; cuda_separable uses a Gaussian
// g and is checked against the serial 2D filter outer(g). cuda_direct works per warp and takes only
// the thread count from the block shape (block.threads() / 32 warps, each a 128x16 strip).
#include <twinbench/twinbench.hpp>

#include <iterator>
#include <string>
#include <vector>

#include "cpu/conv2d.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/conv2d.hpp"
#endif

namespace tb::conv2d {
namespace {

void conv2d(twinbench::Bench& b) {
  const twinbench::Dims img = b.image(kImage, kQuickImage);
  const int w = img.w, h = img.h;
  const std::vector<long long> sizes(std::begin(kFilterSizes), std::end(kFilterSizes));
  for (long long filter_size : b.int_axis("filter", sizes, sizes)) {
    const int f = static_cast<int>(filter_size);
    twinbench::Case& c = b.add_case(
        {{"image", std::to_string(w) + "x" + std::to_string(h)}, {"filter", f}}, kSeed);
    const std::vector<float> filter = random_filter(f, kSeed + 100 + f), gauss = gaussian_1d(f);
    auto in = c.input<float>("in", img.pixels(), twinbench::uniform(0, 1));
    auto out = c.output<float>("out", img.pixels(), kTolerance).shape(img);
    auto ref_separable = c.scratch<float>("ref_separable", img.pixels());  // outer(g)'s
    c.work(work(img, f));
    c.reference([=] {
      serial(in.host(), out.ref(), w, h, filter.data(), f);
      serial(in.host(), ref_separable.host(), w, h, outer(gauss).data(), f);
    });
    c.cpu("serial", [=] { serial(in.host(), out.host(), w, h, filter.data(), f); });
    c.cpu("omp", [=] { omp(in.host(), out.host(), w, h, filter.data(), f); }, {.threaded = true});
#if TWINBENCH_HAVE_CUDA
    // The filters reach the device before each row's check, outside the timed regions: e2e
    // uploads the image alone. cuda_tiled's cp.async tile copies fall back to plain loads below
    // sm_80 (gpu/async_copy.cuh): no kernel here needs a capability.
    auto device_filter = c.scratch<float>("filter", static_cast<std::size_t>(f) * f);
    using Stats = gpu::KernelStats (*)(int, int, int, Block2);
    const auto kernel = [&](const char* impl, auto launch, Stats stats, auto setup,
                            std::vector<twinbench::OutputCheck> checks = {}) {
      c.gpu(impl, [=](twinbench::Launch& l) { launch(l.block2d(), l.stream()); },
            {.checks = checks, .blocks = twinbench::sweep_2d(),
             .stats = [=](const twinbench::Launch& l) { return stats(w, h, f, l.block2d()); },
             .setup = [=](twinbench::Launch& l) { setup(l.stream()); }});
    };
    const auto tiled_filter = [=](cudaStream_t s) { gpu::conv2d_set_tiled_filter(filter.data(), f, s); };
    kernel("cuda_naive", [=](Block2 blk, cudaStream_t s) {
      gpu::conv2d_cuda_naive(in.device(), out.device(), w, h, device_filter.device(), f, blk, s);
    }, gpu::conv2d_cuda_naive_stats, [=](cudaStream_t s) {
      gpu::conv2d_upload_filter(device_filter.device(), filter.data(), f, s);
    });
    kernel("cuda_tiled", [=](Block2 blk, cudaStream_t s) {
      gpu::conv2d_cuda_tiled(in.device(), out.device(), w, h, f, blk, s);
    }, gpu::conv2d_cuda_tiled_stats, tiled_filter);
    kernel("cuda_direct", [=](Block2 blk, cudaStream_t s) {
      gpu::conv2d_cuda_direct(in.device(), out.device(), w, h, f, blk, s);
    }, gpu::conv2d_cuda_direct_stats, tiled_filter);
    // Held to the serial filter with outer(g), not to the random filter's reference.
    kernel("cuda_separable", [=](Block2 blk, cudaStream_t s) {
      gpu::conv2d_cuda_separable(in.device(), out.device(), w, h, f, blk, s);
    }, gpu::conv2d_cuda_separable_stats, [=](cudaStream_t s) {
      gpu::conv2d_set_separable_filter(gauss.data(), f, s);
    }, {out.check_with([=](const float* got) {
      const ErrorStats e = compare_image(got, ref_separable.host(), img.pixels());
      return twinbench::Found{passes(e, kTolerance) ? "" : describe(e, kTolerance), e.max_abs, e.max_rel};
    })});
#endif
  }
}

}  // namespace

TWINBENCH_BENCH("conv2d", "f x f filter of a float32 image, clamp-to-edge borders", conv2d);

}  // namespace tb::conv2d
