// streams benchmarks: a chunked pipeline over n floats in pinned host memory: each chunk is
// copied in, run through the compute kernel (`fma` chained FMAs per element) and copied out, the
// chunks dealt round-robin over `streams` CUDA streams; streams:1/chunks:1 is the serial
// version. Bytes model: 8 B/element over the host link (4 in, 4 out); 2*fma FLOP/element.
// Counters: overlap_efficiency = serial time / this variant's time; ideal_overlap = (sum of the
// three stages' times) / (the longest stage's time), the best overlap_efficiency possible;
// fraction_of_ideal = their ratio. The serial and stage times are measured once per size.
// CPU variants (fma:16 only: the CPU needs seconds per 2048-FMA pass) run the compute stage.
#include "bench/twinbench.hpp"

#include "cpu/streams.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#if TWINBENCH_HAVE_CUDA
#include "gpu/streams.hpp"
#endif

namespace tb::streams {
namespace {

constexpr int kStreamCounts[] = {1, 2, 4, 8};
constexpr int kChunkCounts[] = {1, 4, 16, 64};
constexpr std::size_t kSamples = 16384;  // GPU outputs checked against the CPU at this many points

// Same as gpu::streams_chunk_len (kept here too: the CPU-only build has no gpu/ code).
std::size_t chunk_len(std::size_t n, int chunks) {
  return (n + static_cast<std::size_t>(chunks) - 1) / static_cast<std::size_t>(chunks);
}

// full_ref and out, n floats each: added by the CPU variants only (ensure_full_reference).
Footprint full_reference_footprint(std::size_t n) {
  return {.host_bytes = 2.0 * sizeof(float) * n};
}

struct HostData {
  std::size_t n;
  int fma;
  HostArray<float> in;
  // The serial reference at sample points: evenly spread, plus the first and last element of
  // every chunk of every chunk count, where an off-by-one in the chunking would show.
  std::vector<std::size_t> sample_index;
  std::vector<float> sample_ref;
  HostArray<float> full_ref, out;  // only for the CPU variants

  HostData(std::size_t n_, int fma_) : n(n_), fma(fma_), in(n) {
    fill_uniform(in.span(), kSeed, -1.f, 1.f);
    const std::size_t step = std::max<std::size_t>(1, n / kSamples);
    for (std::size_t i = 0; i < n; i += step) sample_index.push_back(i);
    for (int chunks : kChunkCounts) {
      const std::size_t len = chunk_len(n, chunks);
      for (std::size_t begin = 0; begin < n; begin += len) {
        sample_index.push_back(begin);
        sample_index.push_back(std::min(begin + len, n) - 1);
      }
    }
    std::sort(sample_index.begin(), sample_index.end());
    sample_index.erase(std::unique(sample_index.begin(), sample_index.end()), sample_index.end());
    for (std::size_t i : sample_index) sample_ref.push_back(element(in[i], fma));
  }

  ErrorStats check_samples(const float* got) const {
    std::vector<float> g(sample_index.size());
    for (std::size_t k = 0; k < g.size(); ++k) g[k] = got[sample_index[k]];
    ErrorStats s = compare(std::span<const float>(g), std::span<const float>(sample_ref));
    if (s.worst_index < sample_index.size()) s.worst_index = sample_index[s.worst_index];
    return s;
  }

  void ensure_full_reference() {
    if (full_ref.size() == n) return;
    // Grown after the slot made this value, so the slot's check did not cover it.
    require_memory(full_reference_footprint(n));
    full_ref = HostArray<float>(n);
    out = HostArray<float>(n);
    omp(in.data(), out.data(), n, fma);  // first-touch `out` from the threads that use it
    serial(in.data(), full_ref.data(), n, fma);
  }
  // in (n floats); the sample vectors (~16K entries) are noise beside it. The CPU variants'
  // full reference is checked when it is added (full_reference_footprint).
  static Footprint weight(std::size_t n, int /*fma*/) {
    return {.host_bytes = 1.0 * sizeof(float) * n};
  }
};

using CpuImpl = void (*)(const float*, float*, std::size_t, int);

void add_cpu(const RunConfig& cfg, const BenchSpec& spec, std::size_t n, int fma, CpuImpl impl) {
  add_cpu_benchmark(cfg, spec, work(n, fma), [=](benchmark::State& state) {
    HostData& h = inputs<HostData>(n, fma);
    h.ensure_full_reference();
    run_cpu(state, kTolerance, h.out.span(), h.full_ref.span(),
            [&] { impl(h.in.data(), h.out.data(), n, fma); });
  });
}

#if TWINBENCH_HAVE_CUDA
// The worse of two comparisons.
ErrorStats worse(const ErrorStats& a, const ErrorStats& b) {
  ErrorStats s = a.max_rel >= b.max_rel ? a : b;
  s.max_abs = std::max(a.max_abs, b.max_abs);
  s.finite = a.finite && b.finite;
  s.size_matches = a.size_matches && b.size_matches;
  return s;
}

constexpr int kBlock = 256;  // the compute kernel's block; the subject here is overlap
constexpr int kMaxStreams = 8;
constexpr int kStageReps = 3;  // serial and stage times: best of this many runs

struct DeviceData {
  std::size_t n;
  int fma;
  PinnedBuffer<float> h_in, h_out;
  DeviceBuffer<float> d_in, d_out;
  std::vector<Stream> streams;
  Event fork{cudaEventDisableTiming};
  std::vector<Event> joins;
  std::vector<cudaStream_t> stream_handles;
  std::vector<cudaEvent_t> join_handles;
  HostArray<float> baseline;  // the serial pipeline's output: every variant must match it exactly
  ErrorStats baseline_check;  // the baseline against the CPU reference
  double serial_s = 0, h2d_s = 0, kernel_s = 0, d2h_s = 0;

  DeviceData(const HostData& h)
      : n(h.n), fma(h.fma), h_in(n), h_out(n), d_in(n), d_out(n), baseline(n) {
    for (int i = 0; i < kMaxStreams; ++i) {
      streams.emplace_back();
      joins.emplace_back(cudaEventDisableTiming);
    }
    for (int i = 0; i < kMaxStreams; ++i) {
      stream_handles.push_back(streams[i].get());
      join_handles.push_back(joins[i].get());
    }
    std::memcpy(h_in.data(), h.in.data(), n * sizeof(float));
    poison(h_out.span());
    poison_device(d_out, streams[0]);
    enqueue(1, 1);
    streams[0].synchronize();
    std::memcpy(baseline.data(), h_out.data(), n * sizeof(float));
    baseline_check = h.check_samples(baseline.data());
    serial_s = best_time([&] { enqueue(1, 1); });
    h2d_s = best_time([&] { copy_to_device(d_in.data(), h_in.data(), n, streams[0]); });
    kernel_s = best_time([&] { compute(0, n, streams[0]); });
    d2h_s = best_time([&] { copy_to_host(h_out.data(), d_out.data(), n, streams[0]); });
  }

  void compute(std::size_t begin, std::size_t len, cudaStream_t s) {
    gpu::streams_compute(d_in.data() + begin, d_out.data() + begin, len, fma, kA, kB, kBlock, s);
  }

  void enqueue(int nstreams, int chunks) {
    gpu::streams_pipeline({h_in.data(), h_out.data(), d_in.data(), d_out.data(), n},
                          {stream_handles.data(), nstreams, fork.get(), join_handles.data()},
                          chunks, fma, kA, kB, kBlock);
  }

  template <class Work>
  double best_time(Work&& work) {
    Event start, stop;
    double best = 0;
    for (int r = 0; r < kStageReps; ++r) {
      start.record(streams[0]);
      work();
      stop.record(streams[0]);
      stop.synchronize();
      const double t = stop.seconds_since(start);
      if (r == 0 || t < best) best = t;
    }
    return best;
  }
  DeviceData(std::size_t n, int fma) : DeviceData(inputs<HostData>(n, fma)) {}
  // Device d_in, d_out; pinned h_in, h_out; the pageable baseline (n floats each).
  static Footprint weight(std::size_t n, int /*fma*/) {
    const double bytes = 1.0 * sizeof(float) * n;
    return {.host_bytes = 3.0 * bytes, .device_bytes = 2.0 * bytes};
  }
};

// The pipeline's copies cross PCIe: no device-memory ceiling applies to it.
WorkModel pipeline_work(std::size_t n, int fma) {
  WorkModel w = work(n, fma);
  w.held_to_ceiling = false;
  return w;
}

void add_cuda(const RunConfig& cfg, std::size_t n, int fma, int nstreams, int chunks) {
  const auto spec = bench_spec("streams", "cuda",
                               {{"n", n}, {"fma", fma}, {"streams", nstreams}, {"chunks", chunks}});
  add_gpu_benchmark(cfg, spec, pipeline_work(n, fma), [=](benchmark::State& state) {
    const HostData& h = inputs<HostData>(n, fma);
    DeviceData& d = inputs<DeviceData>(n, fma);
    const auto check = [&] {
      poison(d.h_out.span());
      poison_device(d.d_out, d.streams[0]);
      d.enqueue(nstreams, chunks);
      d.streams[0].synchronize();
      const ErrorStats vs_baseline = compare(std::span<const float>(d.h_out.span()),
                                             std::span<const float>(d.baseline.span()));
      return worse(worse(vs_baseline, h.check_samples(d.h_out.data())), d.baseline_check);
    };
    run_checked(state, kTolerance, check, [&] {
      // Inline: the gate holds one stream only, and at tens of milliseconds per pipeline the
      // launch latency is noise.
      time_gpu(state, d.streams[0], [&] { d.enqueue(nstreams, chunks); }, Timing::inline_launch);

      // Side::cpu leaves out pct_copy_bw: HBM bandwidth is not this pipeline's ceiling.
      const std::size_t len = chunk_len(n, chunks);
      record_kernel(state, gpu::streams_compute_stats(len, kBlock));
      state.counters["streams"] = nstreams;
      state.counters["chunks"] = chunks;
      state.counters["chunk_bytes"] = static_cast<double>(len * sizeof(float));
      state.counters["fma"] = fma;
      state.counters["serial_ms"] = d.serial_s * 1e3;
      state.counters["h2d_ms"] = d.h2d_s * 1e3;
      state.counters["kernel_ms"] = d.kernel_s * 1e3;
      state.counters["d2h_ms"] = d.d2h_s * 1e3;
      const double stage_sum = d.h2d_s + d.kernel_s + d.d2h_s;
      const double longest = std::max({d.h2d_s, d.kernel_s, d.d2h_s});
      const double ideal = longest > 0 ? stage_sum / longest : 1.0;
      state.counters["ideal_overlap"] = ideal;
      // serial seconds x iterations / elapsed seconds = serial time / time per iteration.
      state.counters["overlap_efficiency"] =
          benchmark::Counter(d.serial_s, benchmark::Counter::kIsIterationInvariantRate);
      state.counters["fraction_of_ideal"] =
          benchmark::Counter(d.serial_s / ideal, benchmark::Counter::kIsIterationInvariantRate);
    });
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
  for (std::size_t n : sizes_1d(cfg, {cfg.full ? kFullSize : kDefaultSize}, kQuickSize)) {
    for (int fma : {kFmaLight, kFmaBalanced}) {
      if (fma == kFmaLight) {
        add_cpu(cfg, bench_spec("streams", "serial", {{"n", n}, {"fma", fma}}), n, fma, serial);
        add_cpu(cfg,
                bench_spec("streams", "omp", {{"n", n}, {"fma", fma}}).on_threads(omp_threads()), n,
                fma, omp);
      }
#if TWINBENCH_HAVE_CUDA
      for (int nstreams : kStreamCounts)
        for (int chunks : kChunkCounts)
          // More streams than chunks leaves streams idle; one chunk cannot overlap anything.
          if (chunks >= nstreams && (nstreams == 1 || chunks > 1))
            add_cuda(cfg, n, fma, nstreams, chunks);
#endif
    }
  }
}

}  // namespace

TWINBENCH_WORKLOAD("streams", "chunked copy-in/kernel/copy-out pipeline over 1-8 CUDA streams",
                   register_benchmarks);

}  // namespace tb::streams
