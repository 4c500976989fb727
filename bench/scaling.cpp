// scaling benchmarks: one workload spread over G GPUs in one process, against the same on one.
// Poisson sampling (the poisson workload's cuda kernel) with independent streams per GPU: GPU g
// draws its share from seed kSeed + g, so the shares are independent sets of xoroshiro128+
// streams and each is bit-identical to the CPU's sampler for that seed. Strong scaling
// (scaling:strong): 100M samples in all, n/G per GPU; weak (scaling:weak): 100M per GPU.
// Timed on the host from the first launch to the last GPU's end (every share runs concurrently,
// each on its own device's stream), so the time includes the launches. Counters: gpus, and
// efficiency against the one-GPU row of the same mode registered before it (strong:
// t1 / (G tG); weak: t1 / tG), 1 on the one-GPU row by definition. gpus runs 1, 2, 4, ... and
// the count of GPUs the process sees (CUDA_VISIBLE_DEVICES narrows it). Validated once per
// row: every share against the CPU sampler (omp, bit-identical to serial) for its seed.
#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "bench/twinbench.hpp"
#include "cpu/poisson.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/gpu_context.hpp"
#include "common/host_api_timing.hpp"
#include "gpu/poisson.hpp"
#endif

namespace tb::scaling {
namespace {

#if TWINBENCH_HAVE_CUDA
using poisson::default_table;
using poisson::kSeed;

// The poisson workload's large size, so that the one-GPU row is its poisson/cuda row.
constexpr std::size_t kSamples = 100'000'000;
constexpr std::size_t kQuickSamples = 1'000'000;
constexpr int kBlock = 256;

enum class Mode { strong, weak };
const char* mode_name(Mode m) { return m == Mode::strong ? "strong" : "weak"; }

// Samples of GPU g of G: strong splits `total`, the last GPU taking the remainder.
std::size_t share(Mode m, std::size_t total, int g, int gpus) {
  if (m == Mode::weak) return total;
  const std::size_t base = total / static_cast<std::size_t>(gpus);
  return g + 1 == gpus ? total - base * static_cast<std::size_t>(gpus - 1) : base;
}

// One output buffer and stream per GPU, each on its own device.
struct DeviceData {
  std::vector<std::size_t> n;
  std::vector<DeviceBuffer<std::int32_t>> out;
  std::vector<Stream> streams;
  DeviceData(Mode m, std::size_t total, int gpus) {
    for (int g = 0; g < gpus; ++g) {
      const DeviceScope scope(g);
      n.push_back(share(m, total, g, gpus));
      out.emplace_back(n.back());
      streams.emplace_back();
    }
  }
  // Device 0's share (the others alike, or smaller).
  static Footprint weight(Mode m, std::size_t total, int gpus) {
    return {.device_bytes = 4.0 * static_cast<double>(share(m, total, 0, gpus))};
  }
  void launch_all() {
    for (std::size_t g = 0; g < out.size(); ++g) {
      const DeviceScope scope(static_cast<int>(g));
      gpu::poisson_cuda(out[g].data(), n[g], kSeed + g, default_table(), kBlock, streams[g]);
    }
  }
  void wait_all() {
    for (auto& s : streams) s.synchronize();
  }
  // Every share against the CPU sampler for its seed; the worst share's error.
  ErrorStats check() {
    launch_all();
    wait_all();
    ErrorStats worst;
    for (std::size_t g = 0; g < out.size(); ++g) {
      HostArray<std::int32_t> got(n[g]), ref(n[g]);
      CUDA_CHECK(cudaMemcpy(got.data(), out[g].data(), n[g] * sizeof(std::int32_t),
                            cudaMemcpyDeviceToHost));
      poisson::omp(ref.data(), n[g], kSeed + g, default_table());
      const ErrorStats e = poisson::check_samples(got.span(), ref.span(), poisson::kRate);
      if (!passes(e, poisson::kTolerance)) return e;
      if (e.max_abs > worst.max_abs) worst = e;
    }
    return worst;
  }
};

// The one-GPU time of each (mode, total), for the efficiency of the rows after it.
std::map<std::pair<Mode, std::size_t>, double>& one_gpu_seconds() {
  static std::map<std::pair<Mode, std::size_t>, double> m;
  return m;
}

void add_poisson(const RunConfig& cfg, Mode m, std::size_t total, int gpus) {
  const auto spec = bench_spec("scaling", "cuda",
                               {{"target", "poisson"}, {"scaling", mode_name(m)}, {"gpus", gpus},
                                {"n", total}});
  const double samples =
      static_cast<double>(m == Mode::weak ? total * static_cast<std::size_t>(gpus) : total);
  const WorkModel w{.written_bytes = 4.0 * samples, .items = samples, .held_to_ceiling = false};
  add_host_timed_gpu_benchmark(cfg, spec, w, [=](benchmark::State& state) {
    if (gpu_info().device_count < gpus)
      return skip(state, "needs " + std::to_string(gpus) + " GPUs: this process sees " +
                             std::to_string(gpu_info().device_count));
    DeviceData& d = inputs<DeviceData>(m, total, gpus);
    if (!validate_once(state, poisson::kTolerance, [&] { return d.check(); })) return;
    timed_loop(state, "us_per_run", 1.0, [&] {
      d.launch_all();
      d.wait_all();
    });
    const double t = state.counters["us_per_run"] * 1e-6;
    auto& base = one_gpu_seconds();
    if (gpus == 1 && t > 0) base[{m, total}] = t;
    const auto it = base.find({m, total});
    if (it != base.end() && t > 0)
      state.counters["efficiency"] =
          m == Mode::strong ? it->second / (gpus * t) : it->second / t;
    state.counters["gpus"] = gpus;
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
#if TWINBENCH_HAVE_CUDA
  const int devices = std::max(gpu_info().device_count, 1);
  const std::size_t total = cfg.size ? *cfg.size : cfg.quick ? kQuickSamples : kSamples;
  std::vector<int> counts;
  for (int gpus = 1; gpus <= devices; gpus *= 2) counts.push_back(gpus);
  if (counts.back() != devices) counts.push_back(devices);
  for (Mode m : {Mode::strong, Mode::weak})
    for (int gpus : counts) add_poisson(cfg, m, total, gpus);
#else
  (void)cfg;
#endif
}

}  // namespace

TWINBENCH_WORKLOAD("scaling",
                   "Poisson sampling spread over 1, 2, 4, ... GPUs: strong and weak scaling "
                   "efficiency against one GPU",
                   register_benchmarks);

}  // namespace tb::scaling
