// conv2d benchmarks: a 3840x2160 (--image=WxH) single-channel float32 image filtered with an
// f x f kernel, f = 3, 5, 7, borders clamp-to-edge. Bytes model: one read and one write per
// pixel (8 B/pixel; the halo comes from cache); FLOP model: 2 f^2 per pixel (one FMA per tap of
// the direct 2D filter; cuda_separable reports the same 2D-equivalent count). serial, omp,
// cuda_naive, cuda_tiled and cuda_direct use a seeded random filter; cuda_separable uses a Gaussian
// g and is checked against the serial 2D filter outer(g). cuda_direct works per warp and takes only
// the thread count from the block shape (block.threads() / 32 warps, each a 128x16 strip).
#include "bench/twinbench.hpp"

#include "cpu/conv2d.hpp"

#include <algorithm>
#include <tuple>

#if TWINBENCH_HAVE_CUDA
#include "gpu/conv2d.hpp"
#endif

namespace tb::conv2d {
namespace {

struct HostData {
  int w, h, f;
  std::size_t px;
  HostArray<float> in, out, ref, ref_separable;
  std::vector<float> filter, gauss, gauss_2d;
  HostData(Dims2 d, int f_)
      : w(d.w),
        h(d.h),
        f(f_),
        px(static_cast<std::size_t>(w) * h),
        in(px),
        out(px),
        ref(px),
        ref_separable(px),
        filter(random_filter(f, kSeed + 100 + f)),
        gauss(gaussian_1d(f)),
        gauss_2d(outer(gauss)) {
    // Pages placed by the threads of omp's row partition, the one the timed loop uses.
    first_touch(in.data(), w, h);
    first_touch(out.data(), w, h);
    fill_uniform(in.span(), kSeed, 0.f, 1.f);
    serial(in.data(), ref.data(), w, h, filter.data(), f);
    serial(in.data(), ref_separable.data(), w, h, gauss_2d.data(), f);
  }
  // in, out, ref, ref_separable (w*h floats each); the f x f filters and the 1D Gaussian.
  static Footprint weight(Dims2 d, int f) {
    const double px = static_cast<double>(d.w) * d.h;
    return {.host_bytes = (4.0 * px + 2.0 * f * f + f) * sizeof(float)};
  }
};

std::string image_arg(Dims2 d) { return std::to_string(d.w) + "x" + std::to_string(d.h); }

using CpuImpl = void (*)(const float*, float*, int, int, const float*, int);

// serial / omp: one filtered image per iteration, wall-clock time.
void add_cpu(const RunConfig& cfg, const BenchSpec& spec, Dims2 dims, int f, CpuImpl impl) {
  add_cpu_benchmark(cfg, spec, work(dims, f), [dims, f, impl](benchmark::State& state) {
    HostData& d = inputs<HostData>(dims, f);
    run_cpu(state, kTolerance, d.out.span(), d.ref.span(),
            [&] { impl(d.in.data(), d.out.data(), d.w, d.h, d.filter.data(), f); });
  });
}

#if TWINBENCH_HAVE_CUDA
struct DeviceData {
  Stream stream;
  DeviceBuffer<float> in, out, filter;
  PinnedBuffer<float> hin, hout;
  explicit DeviceData(const HostData& h)
      : in(h.px),
        out(h.px),
        filter(upload(std::span<const float>(h.filter))),
        hin(h.px),
        hout(h.px) {
    std::copy(h.in.begin(), h.in.end(), hin.data());
  }
  explicit DeviceData(Dims2 d, int f) : DeviceData(inputs<HostData>(d, f)) {}
  // Device in, out (w*h floats each) and the f x f filter; pinned hin, hout.
  static Footprint weight(Dims2 d, int f) {
    const double px = static_cast<double>(d.w) * d.h;
    return {.host_bytes = 2.0 * px * sizeof(float),
            .device_bytes = (2.0 * px + 1.0 * f * f) * sizeof(float)};
  }
};

// The constant-memory filter a kernel reads, loaded before timing.
enum class Filter { none, tiled, separable };
using Launch = void (*)(DeviceData& d, const HostData& h, Block2 block);
using Stats = gpu::KernelStats (*)(int w, int h, int f, Block2 block);
struct ConvKernel : GpuKernel<Launch, Stats> {
  Filter filter = Filter::none;
};

// cuda_tiled's cp.async tile copies fall back to plain loads below sm_80 (gpu/async_copy.cuh):
// no kernel here needs a capability.
const ConvKernel kKernels[] = {
    {{"cuda_naive",
      [](DeviceData& d, const HostData& h, Block2 b) {
        gpu::conv2d_cuda_naive(d.in.data(), d.out.data(), h.w, h.h, d.filter.data(), h.f, b,
                               d.stream);
      },
      gpu::conv2d_cuda_naive_stats}},
    {{"cuda_tiled",
      [](DeviceData& d, const HostData& h, Block2 b) {
        gpu::conv2d_cuda_tiled(d.in.data(), d.out.data(), h.w, h.h, h.f, b, d.stream);
      },
      gpu::conv2d_cuda_tiled_stats},
     Filter::tiled},
    {{"cuda_direct",
      [](DeviceData& d, const HostData& h, Block2 b) {
        gpu::conv2d_cuda_direct(d.in.data(), d.out.data(), h.w, h.h, h.f, b, d.stream);
      },
      gpu::conv2d_cuda_direct_stats},
     Filter::tiled},
    {{"cuda_separable",
      [](DeviceData& d, const HostData& h, Block2 b) {
        gpu::conv2d_cuda_separable(d.in.data(), d.out.data(), h.w, h.h, h.f, b, d.stream);
      },
      gpu::conv2d_cuda_separable_stats},
     Filter::separable},
};

// cuda_naive / cuda_tiled / cuda_direct / cuda_separable with a 2D block; kernel or e2e (upload the
// image, filter, download the result). The filters are loaded into constant memory before timing.
void add_cuda(const RunConfig& cfg, const ConvKernel& k, Dims2 dims, int f, Block2 block,
              Mode mode) {
  const auto spec =
      bench_spec("conv2d", k.impl, {{"image", image_arg(dims)}, {"filter", f}, {"block", block}})
          .in_mode(mode);
  add_gpu_benchmark(cfg, spec, work(dims, f), [=](benchmark::State& state) {
    if (!check_block(state, block.threads())) return;
    HostData& h = inputs<HostData>(dims, f);
    DeviceData& d = inputs<DeviceData>(dims, f);
    if (k.filter == Filter::tiled) gpu::conv2d_set_tiled_filter(h.filter.data(), f, d.stream);
    if (k.filter == Filter::separable)
      gpu::conv2d_set_separable_filter(h.gauss.data(), f, d.stream);
    const HostArray<float>& ref = k.filter == Filter::separable ? h.ref_separable : h.ref;
    run_kernel(state, k, block.threads(), mode, d.stream, kTolerance,
               io_stages(d.stream, {to_device(d.in, d.hin)}, d.out, d.hout, ref.span(), kTolerance,
                         [&d, &h, k, block] { k.launch(d, h, block); }),
               h.w, h.h, f, block);
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
  const Dims2 dims = image_dims(cfg, kImage, kQuickImage);
  const std::vector<int> filters(std::begin(kFilterSizes), std::end(kFilterSizes));
  for (int f : int_axis(cfg, "filter", filters, filters)) {
    add_cpu(cfg, bench_spec("conv2d", "serial", {{"image", image_arg(dims)}, {"filter", f}}), dims,
            f, serial);
    add_cpu(cfg,
            bench_spec("conv2d", "omp", {{"image", image_arg(dims)}, {"filter", f}})
                .on_threads(omp_threads()),
            dims, f, omp);
#if TWINBENCH_HAVE_CUDA
    for (Mode mode : kModes)
      for (Block2 block : blocks_2d(cfg, mode))
        for (const ConvKernel& k : kKernels) add_cuda(cfg, k, dims, f, block, mode);
#endif
  }
}

}  // namespace

TWINBENCH_WORKLOAD("conv2d", "f x f filter of a float32 image, clamp-to-edge borders",
                   register_benchmarks);

}  // namespace tb::conv2d
