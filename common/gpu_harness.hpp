#pragma once
// GPU side of the harness: manual timing with CUDA events, block-size checks and the kernel
// counters. Host code only.
#if TWINBENCH_HAVE_CUDA
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <functional>
#include <string>

#include "common/cuda_raii.hpp"
#include "common/gpu_context.hpp"
#include "common/harness.hpp"
#include "gpu/kernel_stats.hpp"

namespace tb {

// Records a start event on construction and, on destruction, a stop event whose elapsed time
// becomes this iteration's time (rmm's cuda_event_timer). The destructor must not throw, so
// errors there are reported and the iteration gets no time.
class EventTimer {
 public:
  EventTimer(benchmark::State& state, cudaStream_t stream, const Event& start, const Event& stop)
      : state_(state), stream_(stream), start_(start), stop_(stop) {
    start_.record(stream_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  ~EventTimer() {
    float ms = 0.f;
    cudaError_t err = cudaEventRecord(stop_.get(), stream_);
    if (err == cudaSuccess) err = cudaEventSynchronize(stop_.get());
    if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, start_.get(), stop_.get());
    if (err != cudaSuccess) {
      CUDA_CHECK_NOEXCEPT(err);
      return;
    }
    state_.SetIterationTime(static_cast<double>(ms) * 1e-3);
  }

 private:
  benchmark::State& state_;
  cudaStream_t stream_;
  const Event& start_;
  const Event& stop_;
};

// Warm up once (module load, first-touch of device pages, clocks), then time each iteration
// with events around `work`, which only enqueues on `stream`.
template <class Work>
void time_gpu(benchmark::State& state, cudaStream_t stream, Work&& work) {
  Event start, stop;
  work();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  for (auto _ : state) {
    EventTimer timer(state, stream, start, stop);
    work();
  }
}

// A block size the device cannot run, or one that leaves a warp partly empty, is a skip with
// the reason rather than a launch error.
inline bool check_block(benchmark::State& state, int threads) {
  const int limit = gpu_info().max_threads_per_block > 0 ? gpu_info().max_threads_per_block : 1024;
  if (threads <= 0 || threads > limit) {
    skip(state, "block size " + std::to_string(threads) + " is outside the device limit of 1.." +
                    std::to_string(limit) + " threads per block");
    return false;
  }
  if (threads % 32 != 0) {
    skip(state, "block size " + std::to_string(threads) +
                    " is not a multiple of the warp size (32): the last warp would run part-empty");
    return false;
  }
  return true;
}

inline void record_kernel(benchmark::State& state, const gpu::KernelStats& k) {
  state.counters["block"] = k.block_threads;
  state.counters["regs_per_thread"] = k.regs_per_thread;
  state.counters["static_smem_bytes"] = k.static_smem_bytes;
  state.counters["active_blocks_per_sm"] = k.active_blocks_per_sm;
  state.counters["occupancy"] = k.occupancy;
  state.counters["grid_blocks"] = static_cast<double>(k.grid_blocks);
  state.counters["suggested_block"] = k.suggested_block;
  state.counters["low_occupancy"] = k.low_occupancy() ? 1 : 0;
}

// kernel: inputs already on the device, events around the kernel alone.
// e2e: host-to-device copy of the inputs, kernel, device-to-host copy of the output, from
// pinned host buffers; allocation stays outside the timed region.
enum class Mode { kernel, e2e };
inline const char* mode_name(Mode m) { return m == Mode::kernel ? "kernel" : "e2e"; }
inline constexpr Mode kModes[] = {Mode::kernel, Mode::e2e};

// What a GPU variant does, in stages. Each stage only enqueues work on the stream.
struct GpuStages {
  std::function<void()> poison;    // fill device and host outputs with NaN (validation only)
  std::function<void()> upload;    // host-to-device copies of the inputs (timed in e2e)
  std::function<void()> compute;   // the kernel(s)
  std::function<void()> download;  // device-to-host copy of the output (timed in e2e)
  std::function<ErrorStats()> check;  // compares the downloaded output with the reference
};

// The usual GPU benchmark body: validate once from freshly uploaded inputs into poisoned
// outputs, then time the mode's stages.
inline void run_gpu_modes(benchmark::State& state, Mode mode, cudaStream_t stream,
                          const Tolerance& tol, const GpuStages& s) {
  const bool ok = validate_once(state, tol, [&] {
    if (s.poison) s.poison();
    s.upload();
    s.compute();
    s.download();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return s.check();
  });
  if (!ok) return;
  time_gpu(state, stream, [&] {
    if (mode == Mode::e2e) s.upload();
    s.compute();
    if (mode == Mode::e2e) s.download();
  });
}

// NaN in every float (0xFF bytes), so an unwritten element fails validation.
template <class T>
void poison_device(const DeviceBuffer<T>& d, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(d.data(), 0xFF, d.bytes(), stream));
}

}  // namespace tb
#endif  // TWINBENCH_HAVE_CUDA
