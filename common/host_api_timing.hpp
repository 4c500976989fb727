#pragma once
// Benchmarks of host-side CUDA API costs (allocation, launch, synchronisation), shared by the
// alloc and sync workloads.
//
// They are timed with the host wall clock, not CUDA events: what they measure is how long the
// calling thread is held (cudaMalloc and cudaFree are synchronous, a launch costs CPU time in
// the driver, a synchronize waits for the device and for the host to be told). Events recorded
// on a stream only see the device's timeline and would miss most of it. So they register with
// tb::add_cpu_benchmark (host wall clock) and skip themselves, with the reason, where no GPU is.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

#include "common/gpu_context.hpp"
#include "common/harness.hpp"
#include "common/sampler.hpp"

namespace tb {

// A GPU row (side gpu, no ceiling) on the host's clock.
inline benchmark::internal::Benchmark* add_host_timed_gpu_benchmark(const RunConfig& cfg,
                                                                    BenchSpec spec,
                                                                    const WorkModel& work,
                                                                    BenchBody body) {
  spec.side = Side::gpu;
  spec.host_timed = true;
  return add_cpu_benchmark(cfg, std::move(spec), work,
                           [body = std::move(body)](benchmark::State& state) {
                             if (!gpu_info().available) {
                               skip(state, gpu_info().status);
                               return;
                             }
                             body(state);
                           });
}

// Rows across devices: true when the process sees `gpus` GPUs or more, else the row skips
// saying how many it sees.
inline bool require_gpus(benchmark::State& state, int gpus) {
  if (gpu_info().device_count >= gpus) return true;
  skip(state, "needs " + std::to_string(gpus) + " GPUs: this process sees " +
                  std::to_string(gpu_info().device_count) + " (CUDA_VISIBLE_DEVICES applies)");
  return false;
}

// The timed loop of these benchmarks: takes samples of `iteration` (common/sampler.hpp) and
// sets `counter` to the median sample's wall-clock microseconds per operation (ops_per_iter
// operations an iteration). Returns how many times `iteration` ran, for checks of its effect.
template <class Iteration>
long long timed_loop(benchmark::State& state, const char* counter, double ops_per_iter,
                     Iteration&& iteration) {
  long long calls = 0;
  const SampleStats st = measure(state, [&] {
    const auto start = std::chrono::steady_clock::now();
    iteration();
    ++calls;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  });
  state.counters[counter] = ops_per_iter > 0 ? st.median * 1e6 / ops_per_iter : 0.0;
  return calls;
}

// A check with a count of wrong values as its error (tolerance 0).
inline ErrorStats count_errors(double wrong) {
  ErrorStats s;
  s.max_abs = wrong;
  s.max_rel = wrong;
  return s;
}

}  // namespace tb
