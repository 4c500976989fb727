// scaling benchmarks: work spread over G GPUs in one process, against the same on one GPU.
// target:sgemm: C = A B in FP32 (cuBLAS, n = 4096) split by rows: GPU g holds B and its rows of A
// and computes its rows of C (strong: n/G rows each; weak: every GPU the whole product), checked
// against the float64 reference with the sgemm workload's tolerance.
// target:poisson: Poisson sampling (the poisson workload's cuda kernel) with independent streams per GPU: GPU g
// draws its share from seed kSeed + g, so the shares are independent sets of xoroshiro128+
// streams and each is bit-identical to the CPU's sampler for that seed. Strong scaling
// (scaling:strong): 100M samples in all, n/G per GPU; weak (scaling:weak): 100M per GPU.
// Timed on the host from the first launch to the last GPU's end (every share runs concurrently,
// each on its own device's stream), so the time includes the launches. Counters: gpus, and
// efficiency against the one-GPU row of the same mode registered before it (strong:
// t1 / (G tG); weak: t1 / tG), 1 on the one-GPU row by definition. gpus runs 1, 2, 4, ... and
// the count of GPUs the process sees (CUDA_VISIBLE_DEVICES narrows it). Validated once per
// row: every share against the CPU sampler (omp, bit-identical to serial) for its seed.
#include "bench/twinbench.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "cpu/poisson.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/gpu_context.hpp"
#include "common/host_api_timing.hpp"
#include "gpu/poisson.hpp"
#include "gpu/sgemm.hpp"
#endif
#include "cpu/sgemm.hpp"

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

// The one-GPU time of each (target, mode, size), for the efficiency of the rows after it.
using BaseKey = std::tuple<std::string, Mode, std::size_t>;
std::map<BaseKey, double>& one_gpu_seconds() {
  static std::map<BaseKey, double> m;
  return m;
}

// The row's efficiency against the one-GPU row of its target, mode and size (registered before
// it); records the one-GPU time when `gpus` is 1.
void record_efficiency(benchmark::State& state, const BaseKey& key, int gpus, double seconds) {
  auto& base = one_gpu_seconds();
  if (gpus == 1 && seconds > 0) base[key] = seconds;
  const auto it = base.find(key);
  if (it != base.end() && seconds > 0)
    state.counters["efficiency"] = std::get<1>(key) == Mode::strong
                                       ? it->second / (gpus * seconds)
                                       : it->second / seconds;
  state.counters["gpus"] = gpus;
}


constexpr std::size_t kGemmN = 4096;  // the sgemm workload's large size
constexpr std::size_t kQuickGemmN = 256;

// A, B and the float64 reference of C = A B (the sgemm workload's inputs), made once.
struct GemmHost {
  std::size_t n;
  HostArray<float> a, b;
  sgemm::Reference ref;
  explicit GemmHost(std::size_t n_) : n(n_), a(n * n), b(n * n) {
    fill_uniform(a.span(), sgemm::kSeed, -1.f, 1.f);
    fill_uniform(b.span(), sgemm::kSeed + 1, -1.f, 1.f);
    ref = sgemm::reference(a.data(), b.data(), n);
  }
  static Footprint weight(std::size_t n) {
    const double nn = static_cast<double>(n) * static_cast<double>(n);
    return {.host_bytes = (2.0 * sizeof(float) + 2.0 * sizeof(double)) * nn};
  }
};

struct RowRange {
  std::size_t first, count;
};

// The rows of C that GPU g computes: strong splits the n rows (the last GPU takes the
// remainder), weak gives every GPU all of them.
RowRange rows_of(Mode m, std::size_t n, int g, int gpus) {
  if (m == Mode::weak) return {0, n};
  return {n / static_cast<std::size_t>(gpus) * static_cast<std::size_t>(g), share(m, n, g, gpus)};
}

// Per GPU: B, its rows of A and C, a stream and a cuBLAS handle, each on its own device.
struct GemmDevices {
  std::size_t n;
  std::vector<RowRange> rows;
  std::vector<DeviceBuffer<float>> a, b, c;
  std::vector<Stream> streams;
  std::vector<std::unique_ptr<gpu::CublasSgemm>> blas;
  GemmDevices(Mode m, std::size_t n_, int gpus) : n(n_) {
    const GemmHost& h = inputs<GemmHost>(n);
    for (int g = 0; g < gpus; ++g) {
      const DeviceScope scope(g);
      const RowRange r = rows_of(m, n, g, gpus);
      rows.push_back(r);
      a.emplace_back(r.count * n);
      b.emplace_back(n * n);
      c.emplace_back(r.count * n);
      streams.emplace_back();
      blas.push_back(std::make_unique<gpu::CublasSgemm>(streams.back(), false));
      CUDA_CHECK(cudaMemcpy(a.back().data(), h.a.data() + r.first * n, r.count * n * sizeof(float),
                            cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(b.back().data(), h.b.data(), n * n * sizeof(float),
                            cudaMemcpyHostToDevice));
    }
  }
  // Device 0's B and rows of A and C (the others alike, or fewer rows).
  static Footprint weight(Mode m, std::size_t n, int gpus) {
    const double rows = static_cast<double>(rows_of(m, n, 0, gpus).count);
    const double dn = static_cast<double>(n);
    return {.device_bytes = 4.0 * (2.0 * rows * dn + dn * dn)};
  }
  void launch_all() {
    for (std::size_t g = 0; g < c.size(); ++g) {
      const DeviceScope scope(static_cast<int>(g));
      blas[g]->run_rows(a[g].data(), b[g].data(), c[g].data(), rows[g].count, n);
    }
  }
  void wait_all() {
    for (auto& s : streams) s.synchronize();
  }
  // The rows each GPU computed in their place in C, against the reference: strong assembles C
  // from the shares, weak checks every GPU's whole C.
  ErrorStats check(Mode m) {
    const GemmHost& h = inputs<GemmHost>(n);
    for (std::size_t g = 0; g < c.size(); ++g) {
      const DeviceScope scope(static_cast<int>(g));
      CUDA_CHECK(cudaMemset(c[g].data(), 0xFF, c[g].bytes()));  // NaN: a row never written fails
    }
    launch_all();
    wait_all();
    HostArray<float> got(n * n);
    ErrorStats worst;
    for (std::size_t g = 0; g < c.size(); ++g) {
      CUDA_CHECK(cudaMemcpy(got.data() + rows[g].first * n, c[g].data(), c[g].bytes(),
                            cudaMemcpyDeviceToHost));
      if (m == Mode::weak || g + 1 == c.size()) {
        const ErrorStats e = sgemm::check(got.span(), h.ref);
        if (!passes(e, sgemm::tolerance(n))) return e;
        if (e.max_rel > worst.max_rel) worst = e;
      }
    }
    return worst;
  }
};

void add_sgemm(const RunConfig& cfg, Mode m, std::size_t n, int gpus) {
  const auto spec = bench_spec("scaling", "cublas",
                               {{"target", "sgemm"}, {"scaling", mode_name(m)}, {"gpus", gpus},
                                {"n", n}});
  const double dn = static_cast<double>(n);
  const double products = m == Mode::weak ? static_cast<double>(gpus) : 1.0;
  const WorkModel w{.flops = 2.0 * dn * dn * dn * products, .held_to_ceiling = false};
  add_host_timed_gpu_benchmark(cfg, spec, w, [=](benchmark::State& state) {
    if (!require_gpus(state, gpus)) return;
    if (!gpu::cublas_unavailable_reason().empty())
      return skip(state, gpu::cublas_unavailable_reason());
    GemmDevices& d = inputs<GemmDevices>(m, n, gpus);
    run_checked(state, sgemm::tolerance(n), [&] { return d.check(m); }, [&] {
      timed_loop(state, "us_per_run", 1.0, [&] {
        d.launch_all();
        d.wait_all();
      });
      record_efficiency(state, {"sgemm", m, n}, gpus, state.counters["us_per_run"] * 1e-6);
    });
  });
}

void add_poisson(const RunConfig& cfg, Mode m, std::size_t total, int gpus) {
  const auto spec = bench_spec("scaling", "cuda",
                               {{"target", "poisson"}, {"scaling", mode_name(m)}, {"gpus", gpus},
                                {"n", total}});
  const double samples =
      static_cast<double>(m == Mode::weak ? total * static_cast<std::size_t>(gpus) : total);
  const WorkModel w{.written_bytes = 4.0 * samples, .items = samples, .held_to_ceiling = false};
  add_host_timed_gpu_benchmark(cfg, spec, w, [=](benchmark::State& state) {
    if (!require_gpus(state, gpus)) return;
    DeviceData& d = inputs<DeviceData>(m, total, gpus);
    run_checked(state, poisson::kTolerance, [&] { return d.check(); }, [&] {
      timed_loop(state, "us_per_run", 1.0, [&] {
        d.launch_all();
        d.wait_all();
      });
      record_efficiency(state, {"poisson", m, total}, gpus, state.counters["us_per_run"] * 1e-6);
    });
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
  const std::size_t gemm_n = cfg.quick ? kQuickGemmN : kGemmN;
  for (Mode m : {Mode::strong, Mode::weak})
    for (int gpus : counts) add_sgemm(cfg, m, gemm_n, gpus);
#else
  (void)cfg;
#endif
}

}  // namespace

TWINBENCH_WORKLOAD("scaling",
                   "Poisson sampling and sgemm (split by rows) spread over 1, 2, 4, ... GPUs: "
                   "strong and weak scaling efficiency against one GPU",
                   register_benchmarks);

}  // namespace tb::scaling
