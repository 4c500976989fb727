#pragma once
// The pieces every benchmark uses: registration with progress and error handling, validation
// once per benchmark instance (outside the timed loop), and the bytes/FLOP model as rates.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "common/validate.hpp"
#include "common/workload.hpp"

namespace tb {

// Work done by one iteration; becomes bytes_per_second, items_per_second, flop_per_s and,
// for GPU variants, pct_copy_bw (% of the device copy bandwidth measured in this run).
struct WorkModel {
  double bytes = 0.0;
  double flops = 0.0;
  double items = 0.0;
};

enum class Side { cpu, gpu };

void set_work(benchmark::State& state, const WorkModel& work, Side side);

using BenchBody = std::function<void(benchmark::State&)>;

// Registers a CPU variant: wall-clock time (OpenMP threads are not the main thread's CPU time).
benchmark::internal::Benchmark* add_cpu_benchmark(const RunConfig& cfg, const std::string& name,
                                                  BenchBody body);
// Registers a GPU variant: time from CUDA events (manual time); skipped with the reason when
// there is no device.
benchmark::internal::Benchmark* add_gpu_benchmark(const RunConfig& cfg, const std::string& name,
                                                  BenchBody body);

// Runs `check` the first time this instance runs (Google Benchmark calls a body several times
// while it picks the iteration count) and remembers the verdict. Records max_abs_err and
// max_rel_err; a failure skips the benchmark with the error and marks the run as failed.
bool validate_once(benchmark::State& state, const Tolerance& tol,
                   const std::function<ErrorStats()>& check);

// The name of the benchmark running now (set by the registration wrapper).
const std::string& current_benchmark();

// OpenMP threads the omp variants use (and put in their names).
int omp_threads();

// Skip with a reason that is not a failure (no device, out of memory, unsupported block size).
void skip(benchmark::State& state, const std::string& why);

int validation_failures();
// Names of every registered benchmark, in order: main() counts the filtered ones for progress.
const std::vector<std::string>& registered_names();
void set_progress_total(int total);

// One entry per (key) kept alive between invocations of a body, replaced when the key changes.
// Benchmarks run in registration order, so registering all variants of one size together
// means the inputs of that size are generated (and the reference computed) once.
template <class Key, class Value>
class SingleSlot {
 public:
  template <class Make>
  Value& get(const Key& key, Make&& make) {
    if (!value_ || !(key_ == key)) {
      value_.reset();  // free the old size before allocating the new one
      value_ = std::make_unique<Value>(make());
      key_ = key;
    }
    return *value_;
  }
  void clear() { value_.reset(); }

 private:
  Key key_{};
  std::unique_ptr<Value> value_;
};

}  // namespace tb
