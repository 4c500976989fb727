// grayscale benchmarks: RGB float32 (interleaved) to gray float32 on a 3840x2160 image.
// Bytes model: 12 B read + 4 B written per pixel; 5 FLOP per pixel.
#include "bench/twinbench.hpp"

#include "cpu/grayscale.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/grayscale.hpp"
#endif

namespace tb::grayscale {
namespace {

std::size_t pixels(Dims2 d) { return static_cast<std::size_t>(d.w) * d.h; }

struct HostData {
  Dims2 dims;
  HostArray<float> rgb, ref, out;
  explicit HostData(Dims2 d) : dims(d), rgb(3 * pixels(d)), ref(pixels(d)), out(pixels(d)) {
    fill_uniform(rgb.span(), kSeed, 0.f, 1.f);
    omp(rgb.data(), out.data(), d.w, d.h);  // first touch of out from the OpenMP threads
    serial(rgb.data(), ref.data(), d.w, d.h);
  }
  // rgb (3 floats per pixel), ref and out (1 each).
  static Footprint weight(Dims2 d) { return {.host_bytes = 5.0 * sizeof(float) * pixels(d)}; }
};

using CpuImpl = void (*)(const float*, float*, int, int);

void add_cpu(const RunConfig& cfg, const BenchSpec& spec, Dims2 dims, CpuImpl impl) {
  add_cpu_benchmark(cfg, spec, work(dims), [dims, impl](benchmark::State& state) {
    HostData& d = inputs<HostData>(dims);
    run_cpu(state, kTolerance, d.out.span(), d.ref.span(),
            [&] { impl(d.rgb.data(), d.out.data(), dims.w, dims.h); });
  });
}

#if TWINBENCH_HAVE_CUDA
struct DeviceData {
  Stream stream;
  DeviceBuffer<float> rgb, gray;
  PinnedBuffer<float> hrgb, hgray;
  explicit DeviceData(const HostData& h)
      : rgb(h.rgb.size()), gray(h.ref.size()), hrgb(h.rgb.size()), hgray(h.ref.size()) {
    std::copy(h.rgb.begin(), h.rgb.end(), hrgb.data());
  }
  explicit DeviceData(Dims2 dims) : DeviceData(inputs<HostData>(dims)) {}
  // Device rgb and gray (4 floats per pixel), and the same again pinned (hrgb, hgray).
  static Footprint weight(Dims2 d) {
    const double bytes = 4.0 * sizeof(float) * pixels(d);
    return {.host_bytes = bytes, .device_bytes = bytes};
  }
};

using GpuLaunch = void (*)(const float*, float*, int, int, Block2, cudaStream_t);
using GpuStats = gpu::KernelStats (*)(int, int, Block2);

// One image on the GPU; e2e adds the upload of the RGB image and the download of the gray one.
void add_cuda(const RunConfig& cfg, const char* impl, Dims2 dims, Block2 block, Mode mode,
              GpuLaunch launch, GpuStats stats) {
  const auto spec =
      bench_spec("grayscale", impl, {{"w", dims.w}, {"h", dims.h}, {"block", block}}).in_mode(mode);
  add_gpu_benchmark(cfg, spec, work(dims), [=](benchmark::State& state) {
    if (!check_block(state, block.threads())) return;
    DeviceData& d = inputs<DeviceData>(dims);
    const HostData& h = inputs<HostData>(dims);
    run_gpu_modes(state, mode, d.stream, kTolerance, {
        .poison = [&d] { poison_device(d.gray, d.stream); poison(d.hgray.span()); },
        .upload = [&d] { copy_to_device(d.rgb.data(), d.hrgb.data(), d.rgb.size(), d.stream); },
        .compute = [&d, dims, block, launch] { launch(d.rgb.data(), d.gray.data(), dims.w, dims.h, block, d.stream); },
        .download = [&d] { copy_to_host(d.hgray.data(), d.gray.data(), d.gray.size(), d.stream); },
        .check = [&d, &h] {
          return compare(std::span<const float>(d.hgray.span()), h.ref.span(), kTolerance.scale_floor);
        },
    });
    record_kernel(state, stats(dims.w, dims.h, block));
    state.counters["block_x"] = block.x;
    state.counters["block_y"] = block.y;
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
  const Dims2 dims = image_dims(cfg, kDefaultImage, kQuickImage);
  add_cpu(cfg, bench_spec("grayscale", "serial", {{"w", dims.w}, {"h", dims.h}}), dims, serial);
  add_cpu(cfg,
          bench_spec("grayscale", "omp", {{"w", dims.w}, {"h", dims.h}}).on_threads(omp_threads()),
          dims, omp);
#if TWINBENCH_HAVE_CUDA
  for (Mode mode : kModes)
    for (Block2 block : blocks_2d(cfg, mode)) {
      add_cuda(cfg, "cuda_article", dims, block, mode, gpu::grayscale_cuda_article,
               gpu::grayscale_cuda_article_stats);
      add_cuda(cfg, "cuda_coalesced", dims, block, mode, gpu::grayscale_cuda_coalesced,
               gpu::grayscale_cuda_coalesced_stats);
      add_cuda(cfg, "cuda_coalesced_vec4", dims, block, mode, gpu::grayscale_cuda_vec4,
               gpu::grayscale_cuda_vec4_stats);
    }
#endif
}

}  // namespace

TWINBENCH_WORKLOAD("grayscale", "RGB to gray on a 4K float32 image: memory-bound, index order matters",
                   register_benchmarks);

}  // namespace tb::grayscale
