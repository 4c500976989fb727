#pragma once
// How the harness times GPU work (internals: a workload's bench file includes twinbench.hpp
// and never calls these directly): the launch gate, event samples, batching, the profile window
// and time_gpu / time_gpu_ab. Host code only. It uses the launch gate's kernel, which is built
// into the library from gpu/launch_gate.cu (CMakeLists.txt lists the library's device code).
#if TWINBENCH_HAVE_CUDA
#include <benchmark/benchmark.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "common/pair_stats.hpp"
#include "common/cuda_raii.hpp"
#include "common/gpu_context.hpp"
#include "common/harness.hpp"
#include "common/l2_flush.hpp"
#include "common/sampler.hpp"
#include "gpu/kernel_stats.hpp"
#include "gpu/launch_gate.hpp"

namespace tb {

// How a GPU benchmark takes its time.
// gated: the timed work is queued behind a closed LaunchGate, which opens once the host has
//   enqueued it all; the events then time what the GPU spends on the work, without the host's
//   launch latency (a few microseconds per call: sync/* measures it), which would otherwise be
//   a large share of a 20-50 us kernel. What a pipeline of back-to-back kernels sees.
// inline_launch: the events around work enqueued while the GPU is idle, launch latency inside.
//   For work that waits for the GPU itself (a Thrust reduction that returns its value, a
//   pageable copy, the e2e stages): it cannot be queued behind a gate.
enum class Timing { gated, inline_launch };

// Mapped pinned words for gpu::launch_gate: the host opens the gate by writing `open`, the
// kernel reports a timeout in `timed_out`. One per timed benchmark; not thread-safe.
class LaunchGate {
 public:
  // Long enough for any host to enqueue a benchmark's launches; short enough that work which
  // waits for the GPU inside the timed region (and so for the closed gate) costs one
  // half-second stall before time_gpu falls back to inline_launch.
  static constexpr unsigned long long kTimeoutNs = 500'000'000ull;

  LaunchGate() : words_(2, cudaHostAllocMapped) {
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_words_), words_.data(), 0));
  }
  void close(cudaStream_t stream) {
    word(kOpen) = 0u;
    word(kTimedOut) = 0u;
    gpu::launch_gate(device_words_ + kOpen, device_words_ + kTimedOut, kTimeoutNs, stream);
  }
  void open() { word(kOpen) = 1u; }
  bool timed_out() const { return word(kTimedOut) != 0u; }

 private:
  static constexpr int kOpen = 0;
  static constexpr int kTimedOut = 1;
  // volatile: the GPU reads and writes these words behind the compiler's back.
  volatile unsigned& word(int i) const { return words_.data()[i]; }
  PinnedBuffer<unsigned> words_;
  unsigned* device_words_ = nullptr;
};

// Runs `work` once behind a closed gate: false when the gate timed out, i.e. the work waited
// for the GPU (a hidden synchronisation) and so cannot be timed gated.
template <class Work>
bool queues_behind_gate(LaunchGate& gate, cudaStream_t stream, Work& work) {
  gate.close(stream);
  work();
  gate.open();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return !gate.timed_out();
}

// The same work timed the inline_launch way (median of a few runs), for the row's
// launch_included_us counter: what one launch on an idle GPU costs, launch latency included,
// beside the gated time.
template <class Work>
double inline_median_us(cudaStream_t stream, Work& work, bool cold, int runs = 5) {
  Event start, stop;
  std::vector<double> us;
  for (int i = 0; i < runs; ++i) {
    if (cold) flush_l2(stream);
    start.record(stream);
    work();
    stop.record(stream);
    stop.synchronize();
    us.push_back(stop.seconds_since(start) * 1e6);
  }
  std::nth_element(us.begin(), us.begin() + runs / 2, us.end());
  return us[runs / 2];
}

// Above this, a launch latency of a few microseconds is under 0.1% of the time: not worth a
// second warm-up run behind the gate (lucas' recursive kernel takes seconds).
inline constexpr double kGateWorthItSeconds = 0.01;

// Batched samples (nvbench's "batch" measurement): a gated sample of short work launches it
// `batch` times between one pair of events and divides, so that the gate, the events and the
// synchronize (tens of microseconds of host time) are paid once for about kBatchSeconds of GPU
// work instead of once per 3 us kernel. The time per launch then includes the gap between two
// back-to-back launches on one stream, as in any pipeline of kernels. kMaxBatch keeps the
// launches queued behind the closed gate well inside the driver's queue (about a thousand
// entries; a full queue would block the host while the gate holds the GPU).
inline constexpr double kBatchSeconds = 0.5e-3;
inline constexpr int kMaxBatch = 128;

inline int batch_size(double seconds_per_launch) {
  if (!(seconds_per_launch > 0)) return 1;
  const double b = std::ceil(kBatchSeconds / seconds_per_launch);
  return static_cast<int>(std::clamp(b, 1.0, static_cast<double>(kMaxBatch)));
}

// One sample: `batch` runs of `work` between two events, behind the gate when there is one,
// after an L2 flush when `cold` (outside the events). Returns seconds per run. A gate that
// timed out means the work waited for the GPU while the gate held it: the sample would include
// the stall, so the benchmark ends with an error.
template <class Work>
double event_sample(cudaStream_t stream, Work& work, const Event& start, const Event& stop,
                    LaunchGate* gate, int batch, bool cold = false) {
  if (cold) flush_l2(stream);
  if (gate) gate->close(stream);
  start.record(stream);
  for (int i = 0; i < batch; ++i) work();
  const cudaError_t err = cudaEventRecord(stop.get(), stream);
  if (gate) gate->open();  // open before any throw, or the GPU waits for the gate's timeout
  CUDA_CHECK(err);
  stop.synchronize();
  if (gate && gate->timed_out())
    throw std::runtime_error("the timed work waited for the GPU behind the launch gate");
  return stop.seconds_since(start) / batch;
}

// The profile window for scripts/gpu-profile.sh only when TWINBENCH_NCU_WINDOW=1:
// one run of `work` between cudaProfilerStart and cudaProfilerStop (ncu --profile-from-start
// off profiles only the kernels in there), inside an NVTX range "tb[<benchmark name>]" that ncu
// writes beside each kernel (--nvtx), so each profiled kernel maps back to its row by name, not
// by launch order. Once per row, outside the timed samples, after the flush of a cold row (so
// the counters see what a timed sample sees) and without the launch gate (ncu replays the
// kernel; a gate kernel waiting for the host would be replayed too). Off, it costs one getenv.
inline bool ncu_window_requested() {
  static const bool on = [] {
    const char* v = std::getenv("TWINBENCH_NCU_WINDOW");
    return v && std::strcmp(v, "1") == 0;
  }();
  return on;
}

template <class Work>
void ncu_window(cudaStream_t stream, Work& work, bool cold) {
  if (cold) flush_l2(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::string range = "tb[" + current_benchmark() + "]";
  nvtxRangePushA(range.c_str());
  CUDA_CHECK(cudaProfilerStart());
  work();
  // The whole device: streams' rows enqueue on several streams, libraries may on their own.
  const cudaError_t err = cudaDeviceSynchronize();
  CUDA_CHECK(cudaProfilerStop());
  nvtxRangePop();
  CUDA_CHECK(err);
}

// Warm up once (module load, which may wait for the whole device and so must not happen
// behind a closed gate; first-touch of device pages; clocks), then take samples with events
// around `work`, which only enqueues on `stream`, until the stopping rule is met (see
// common/sampler.hpp). Gated timing falls back to inline_launch, with a note, when a second
// warm-up behind the gate shows that `work` waits for the GPU, and is skipped for work longer
// than kGateWorthItSeconds; the counter launch_gated says which timing a row got, `batch` how
// many launches a sample holds.
// Cold (the default; --warm turns it off): every sample is one launch after an L2 flush, as
// nvbench's measure_cold, so no row is served from the previous sample's L2; l2_flushed says
// which a row got. e2e rows are never flushed: their uploads pass through the L2 anyway, and
// they time what a user's call sees.
template <class Work>
void time_gpu(benchmark::State& state, cudaStream_t stream, Work&& work,
              Timing timing = Timing::gated) {
  const bool cold = cold_caches() && current_spec().mode != Mode::e2e;
  Event start, stop;
  LaunchGate gate;
  const auto t0 = std::chrono::steady_clock::now();
  work();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const double warm_up_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Under the profile pass the timings are not results: no gate (its spin kernel would only
  // cost time under ncu), so no batching or launch_included_us either.
  if (ncu_window_requested()) ncu_window(stream, work, cold);
  bool gated =
      timing == Timing::gated && warm_up_s < kGateWorthItSeconds && !ncu_window_requested();
  if (gated && !queues_behind_gate(gate, stream, work)) {
    gated = false;
    std::fprintf(stderr,
                 "twinbench: this benchmark's work waits for the GPU, so it cannot be queued "
                 "behind the launch gate: timed with the launch latency included\n");
  }
  int batch = 1;
  if (gated && !cold && !classic_loop())
    batch = batch_size(event_sample(stream, work, start, stop, &gate, 1));
  measure(state, [&] {
    return event_sample(stream, work, start, stop, gated ? &gate : nullptr, batch, cold);
  });
  state.counters["launch_gated"] = gated ? 1 : 0;
  state.counters["batch"] = batch;
  state.counters["l2_flushed"] = cold ? 1 : 0;
  if (gated && !state.error_occurred())
    state.counters["launch_included_us"] = inline_median_us(stream, work, cold);
}

// A/B measurement: a kernel and its twin (an instrumented kernel and the same kernel without the
// instrumentation, say), timed as pairs, for the difference between them. Each sample runs both
// back to back behind one launch gate (when `gated`), so that neither carries the launch
// latency; each after an L2 flush when cold (the default, as every other GPU row), outside the
// events, so that neither is served from what the other left in the L2; and which goes first
// alternates: of two identical kernels back to back the second ran 0.3-0.6% faster on the H200,
// a bias as large as the overheads such pairs measure. The sample's time is b's; the pairs'
// statistics (b's excess over a: over the totals, and the median pair's with its interval) are
// returned. Not gated: work whose host side waits for the GPU (a poller's cudaMemcpy on the
// legacy stream would wait behind the closed gate).
template <class A, class B>
PairStats time_gpu_ab(benchmark::State& state, cudaStream_t stream, A&& a, B&& b, bool gated) {
  Event e0, e1, e2, e3;
  LaunchGate gate;
  const bool cold = cold_caches();
  PairRecorder pairs;
  measure(state, [&] {
    const bool a_first = pairs.count() % 2 == 0;
    if (gated) gate.close(stream);
    if (cold) flush_l2(stream);
    e0.record(stream);
    a_first ? a() : b();
    e1.record(stream);
    if (cold) flush_l2(stream);
    e2.record(stream);
    a_first ? b() : a();
    const cudaError_t err = cudaEventRecord(e3.get(), stream);
    if (gated) gate.open();  // before any throw, or the GPU waits for the gate's timeout
    CUDA_CHECK(err);
    e3.synchronize();
    if (gated && gate.timed_out())
      throw std::runtime_error("the kernels waited behind the launch gate until it timed out");
    const double first = e1.seconds_since(e0), second = e3.seconds_since(e2);
    const double t_a = a_first ? first : second, t_b = a_first ? second : first;
    pairs.add(t_a, t_b);
    return t_b;
  });
  state.counters["l2_flushed"] = cold ? 1 : 0;
  return pairs.stats();
}

}  // namespace tb
#endif  // TWINBENCH_HAVE_CUDA
