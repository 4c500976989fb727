// transpose benchmarks: out = in^T, float32, rows x cols (--image=WxH: W = cols, H = rows).
// Bytes model: read rows*cols floats once and write them once (8 B/element); no FLOPs.
// 8192 x 8192 (256 MiB per matrix, 5x the L2) and 4096 x 4096 (the whole problem ~ the L2).
#include "bench/twinbench.hpp"

#include "cpu/transpose.hpp"

#include <algorithm>
#include <utility>

#if TWINBENCH_HAVE_CUDA
#include "gpu/transpose.hpp"
#endif

namespace tb::transpose {
namespace {

using Shape = std::pair<std::size_t, std::size_t>;  // rows, cols

struct HostData {
  std::size_t rows, cols;
  HostArray<float> in, ref, out;
  explicit HostData(Shape s)
      : rows(s.first), cols(s.second), in(rows * cols), ref(rows * cols), out(rows * cols) {
    fill_uniform(in.span(), kSeed, -1.f, 1.f);
    omp(in.data(), out.data(), rows, cols);  // first-touch out in parallel
    serial(in.data(), ref.data(), rows, cols);
  }
  // in, ref, out: rows * cols floats each.
  static Footprint weight(Shape s) {
    return {.host_bytes = 3.0 * sizeof(float) * static_cast<double>(s.first) * s.second};
  }
};

BenchSpec spec_of(std::string_view impl, Shape s) {
  return bench_spec("transpose", impl, {{"rows", s.first}, {"cols", s.second}});
}

using CpuImpl = void (*)(const float*, float*, std::size_t, std::size_t);

// A CPU transpose: time per full matrix; 8 B/element.
void add_cpu(const RunConfig& cfg, const BenchSpec& spec, Shape s, CpuImpl impl) {
  add_cpu_benchmark(cfg, spec, work(s.first, s.second), [s, impl](benchmark::State& state) {
    HostData& d = inputs<HostData>(s);
    run_cpu(state, kTolerance, d.out.span(), d.ref.span(),
            [&] { impl(d.in.data(), d.out.data(), d.rows, d.cols); });
  });
}

#if TWINBENCH_HAVE_CUDA
struct DeviceData {
  Stream stream;
  DeviceBuffer<float> in, out;
  PinnedBuffer<float> hout;
  double copy_kernel_seconds = 0.0;  // measured on first use, for pct_of_copy_kernel
  explicit DeviceData(const HostData& h)
      : in(upload(std::span<const float>(h.in.span()))), out(h.in.size()), hout(h.in.size()) {}
  explicit DeviceData(Shape s) : DeviceData(inputs<HostData>(s)) {}
  // Device in, out and pinned hout: rows * cols floats each.
  static Footprint weight(Shape s) {
    const double bytes = sizeof(float) * static_cast<double>(s.first) * s.second;
    return {.host_bytes = bytes, .device_bytes = 2.0 * bytes};
  }
};

// The copy kernel's mean time over a few launches after a warm-up, so that every transpose
// variant can report its speed as a fraction of the copy with the same shape, in this run.
double copy_kernel_seconds(DeviceData& d, Shape s) {
  if (d.copy_kernel_seconds > 0) return d.copy_kernel_seconds;
  constexpr int kReps = 10;
  Event start, stop;
  gpu::copy_cuda_tiled(d.in.data(), d.out.data(), s.first, s.second, d.stream);
  start.record(d.stream);
  for (int i = 0; i < kReps; ++i)
    gpu::copy_cuda_tiled(d.in.data(), d.out.data(), s.first, s.second, d.stream);
  stop.record(d.stream);
  stop.synchronize();
  d.copy_kernel_seconds = stop.seconds_since(start) / kReps;
  return d.copy_kernel_seconds;
}

// Validates into a poisoned output, times `launch`, and records the kernel and rate counters.
// `expect_copy` compares with the input itself (the copy kernel) instead of the transpose.
void run_gpu(benchmark::State& state, Shape s, bool expect_copy,
             const std::function<void(DeviceData&)>& launch, const gpu::KernelStats& stats) {
  DeviceData& d = inputs<DeviceData>(s);
  const HostData& h = inputs<HostData>(s);
  const std::size_t n = h.in.size();
  const GpuStages stages{
      .poison =
          [&d] {
            poison_device(d.out, d.stream);
            poison(d.hout.span());
          },
      .upload = [] {},  // the input was uploaded once with the device buffers
      .compute = [&d, &launch] { launch(d); },
      .download = [&d, n] { copy_to_host(d.hout.data(), d.out.data(), n, d.stream); },
      .check =
          [&d, &h, expect_copy] {
            return compare(std::span<const float>(d.hout.span()),
                           expect_copy ? h.in.span() : h.ref.span());
          },
  };
  run_gpu_modes(state, Mode::kernel, d.stream, kTolerance, stages);
  if (state.error_occurred()) return;
  record_kernel(state, stats);
  // 100 * t_copy / t_this: the iteration-invariant rate divides by the mean iteration time.
  state.counters["pct_of_copy_kernel"] = benchmark::Counter(
      100.0 * copy_kernel_seconds(d, s), benchmark::Counter::kIsIterationInvariantRate);
}

using ArticleLaunch = void (*)(const float*, float*, std::size_t, std::size_t, Block2,
                               cudaStream_t);
using ArticleStats = gpu::KernelStats (*)(std::size_t, std::size_t, Block2);

// The article's one-element-per-thread kernels, one block shape each; 8 B/element.
void add_article(const RunConfig& cfg, std::string_view impl, Shape s, Block2 block,
                 ArticleLaunch launch, ArticleStats stats) {
  add_gpu_benchmark(cfg, spec_of(impl, s).with_axis({"block", block}), work(s.first, s.second),
                    [=](benchmark::State& state) {
                      if (!check_block(state, block.threads())) return;
                      run_gpu(
                          state, s, false,
                          [=](DeviceData& d) {
                            launch(d.in.data(), d.out.data(), s.first, s.second, block, d.stream);
                          },
                          stats(s.first, s.second, block));
                    });
}

using TiledLaunch = void (*)(const float*, float*, std::size_t, std::size_t, cudaStream_t);
using TiledStats = gpu::KernelStats (*)(std::size_t, std::size_t);

// A variant of the tiled kernel (1D grid over the tiles, diagonal order, 64 x 64 tiles and/or
// float4 micro-tiles; see gpu/transpose.hpp) with its fixed block, named after it; 8 B/element.
void add_tiled_variant(const RunConfig& cfg, std::string_view impl, Shape s, TiledLaunch launch,
                       TiledStats stats, Block2 block = gpu::kTransposeTiledBlock) {
  add_gpu_benchmark(
      cfg, spec_of(impl, s).with_axis({"block", block}), work(s.first, s.second),
      [=](benchmark::State& state) {
        run_gpu(
            state, s, false,
            [=](DeviceData& d) { launch(d.in.data(), d.out.data(), s.first, s.second, d.stream); },
            stats(s.first, s.second));
      });
}

// The shared-memory tiled transpose, its variants (in the order they were tried: each row shows
// one step) and its copy ceiling; 8 B/element.
void add_tiled(const RunConfig& cfg, Shape s) {
  const Block2 block = gpu::kTransposeTiledBlock;
  add_gpu_benchmark(
      cfg, spec_of("cuda_tiled", s).with_axis({"block", block}), work(s.first, s.second),
      [=](benchmark::State& state) {
        run_gpu(
            state, s, false,
            [=](DeviceData& d) {
              gpu::transpose_cuda_tiled(d.in.data(), d.out.data(), s.first, s.second, d.stream);
            },
            gpu::transpose_cuda_tiled_stats(s.first, s.second));
      });
  add_tiled_variant(cfg, "cuda_tiled_diag", s, gpu::transpose_cuda_tiled_diag,
                    gpu::transpose_cuda_tiled_diag_stats);
  add_tiled_variant(cfg, "cuda_tiled64", s, gpu::transpose_cuda_tiled64,
                    gpu::transpose_cuda_tiled64_stats);
  add_tiled_variant(cfg, "cuda_tiled64_diag", s, gpu::transpose_cuda_tiled64_diag,
                    gpu::transpose_cuda_tiled64_diag_stats);
  add_tiled_variant(cfg, "cuda_tiled64_swizzle", s, gpu::transpose_cuda_tiled64_swizzle,
                    gpu::transpose_cuda_tiled64_swizzle_stats, gpu::kTransposeSwizzleBlock);
  add_gpu_benchmark(cfg, spec_of("cuda_copy", s).with_axis({"block", block}),
                    work(s.first, s.second), [=](benchmark::State& state) {
                      run_gpu(
                          state, s, true,
                          [=](DeviceData& d) {
                            gpu::copy_cuda_tiled(d.in.data(), d.out.data(), s.first, s.second,
                                                 d.stream);
                          },
                          gpu::copy_cuda_tiled_stats(s.first, s.second));
                    });
}
#endif

std::vector<Shape> shapes(const RunConfig& cfg) {
  if (cfg.image || cfg.quick) {
    const Dims2 d = image_dims(cfg, kLarge, kQuick);
    return {{static_cast<std::size_t>(d.h), static_cast<std::size_t>(d.w)}};
  }
  return {{kLarge.h, kLarge.w}, {kMedium.h, kMedium.w}};
}

void register_benchmarks(const RunConfig& cfg) {
  for (Shape s : shapes(cfg)) {
    add_cpu(cfg, spec_of("serial", s), s, serial);
    add_cpu(cfg, spec_of("omp", s).on_threads(omp_threads()), s, omp);
#if TWINBENCH_HAVE_CUDA
    add_tiled(cfg, s);
    for (Block2 block : block_sweep_2d(cfg)) {
      add_article(cfg, "cuda_article_slow", s, block, gpu::transpose_cuda_article_slow,
                  gpu::transpose_cuda_article_slow_stats);
      add_article(cfg, "cuda_article_fast", s, block, gpu::transpose_cuda_article_fast,
                  gpu::transpose_cuda_article_fast_stats);
    }
#endif
  }
}

}  // namespace

TWINBENCH_WORKLOAD("transpose", "out = in^T, float32: strided access and shared-memory tiling",
                   register_benchmarks);

}  // namespace tb::transpose
