#pragma once
// The run machinery behind the author-facing description (common/bench_spec.hpp): registration
// with progress and error handling, validation once per benchmark instance (outside the timed
// loop), and the declared bytes/FLOP model as rates. Includes Google Benchmark: bench/ and the
// harness's tests use it, a workload's cpu/ header does not.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/bench_spec.hpp"
#include "common/ceilings.hpp"
#include "common/validate.hpp"
#include "common/workload.hpp"

namespace tb {

// The ceiling set a row is held to, from its description: GPU kernel rows the GPU's, e2e rows
// and GPU rows timed on the host none, CPU rows on OpenMP's threads the CPU's with all threads,
// single-thread CPU rows one thread's.
std::optional<CeilingSet> ceiling_set_for(const BenchSpec& spec);

using BenchBody = std::function<void(benchmark::State&)>;

// Registration: the row's description and its work model, then the body, which validates and
// takes the samples; the harness turns the work model into rates once the samples are taken
// (a body states nothing after timing).
// A CPU variant: wall-clock time (OpenMP threads are not the main thread's CPU time). `spec`'s
// side is kept: host-timed GPU rows (Case::host_timed with side gpu) register here too.
benchmark::internal::Benchmark* add_cpu_benchmark(const RunConfig& cfg, BenchSpec spec,
                                                  const WorkModel& work, BenchBody body);
// A GPU variant: time from CUDA events (manual time); skipped with the reason when there is no
// device.
benchmark::internal::Benchmark* add_gpu_benchmark(const RunConfig& cfg, BenchSpec spec,
                                                  const WorkModel& work, BenchBody body);

// Runs `check` the first time this instance runs (Google Benchmark calls a body several times
// while it picks the iteration count) and remembers the verdict. Records max_abs_err and
// max_rel_err; a failure skips the benchmark with the error and marks the run as failed.
bool validate_once(benchmark::State& state, const Tolerance& tol,
                   const std::function<ErrorStats()>& check);
// The same, with the verdict kept under `key` rather than the benchmark's name: rows that run
// the identical check (a GPU variant's kernel and e2e modes) validate once between them.
bool validate_once(benchmark::State& state, const std::string& key, const Tolerance& tol,
                   const std::function<ErrorStats()>& check);

// A check that says what it found in words (the author API's outputs, include/twinbench): pass,
// or the failure's text naming the output, the position, the value got and the value expected.
struct CheckResult {
  bool pass = true;
  std::string detail;
  double max_abs = 0.0;
  double max_rel = 0.0;
};
// Runs `check` once per `key` (rows that run the identical check share it: a GPU variant's
// kernel and e2e rows; every row of a case whose reference failed) and records its verdict as
// validate_once does; a failure is counted once per key.
bool validate_once_described(benchmark::State& state, const std::string& key,
                             const std::function<CheckResult()>& check);

// The name of the benchmark running now (set by the registration wrapper).
const std::string& current_benchmark();
// Its description (an empty one outside a benchmark).
const BenchSpec& current_spec();
// The description a name was registered with (an empty one for a name never registered).
const BenchSpec& registered_spec(const std::string& name);

// OpenMP threads the omp variants use (and put in their names).
int omp_threads();

// Under mpirun, ranks other than 0 run only the rows taken in step (BenchSpec::in_step) and skip
// the others with this reason (main() sets it there).
void set_rank_skip_reason(std::string why);

// Skip with a reason that is not a failure (no device, out of memory, unsupported block size).
void skip(benchmark::State& state, const std::string& why);
// Whether the benchmark registered as `name` skipped (rather than failed): the console shows
// it as a skip (common/console_reporter.hpp).
bool was_skipped(const std::string& name);

int validation_failures();
// Names of every registered benchmark, in order: main() counts the filtered ones for progress.
const std::vector<std::string>& registered_names();
// GPU benchmarks are left out of the progress total where there is no GPU (they skip at once).
bool is_gpu_benchmark(const std::string& name);
void set_progress_total(int total);
// Benchmarks that skipped (no GPU, too little memory, an unsupported block size, ...).
int skipped_count();
// Benchmarks that ran to the end without an error or a skip.
int measured_count();

// Telemetry (the default; --no-telemetry turns it off): GPU rows record NVML's clocks, power,
// temperature, throttle reasons and energy over their samples; CPU rows the host's load and CPU
// clock before and after, with a warning when the machine was busy, and their energy from RAPL
// where the machine exposes it.
struct TelemetryStatus {
  std::string gpu_why;     // why there is no GPU telemetry ("" when there is)
  std::string cpu_energy;  // "rapl: package-0, ..." or "not available here: why"
  std::vector<std::pair<std::string, std::string>> gpu_environment;  // NVML's env_gpu_* keys
};
TelemetryStatus enable_telemetry();

// What a workload's inputs and buffers take, estimated before they are allocated.
struct Footprint {
  double host_bytes = 0.0;    // pageable and pinned host memory
  double device_bytes = 0.0;  // GPU memory
};

// Thrown (and turned into a skip with its message by the registration wrapper) when a
// footprint does not fit: "needs X GiB of host memory, Y GiB available". Linux overcommits, so
// an allocation that does not fit succeeds and the process is killed later, while touching it.
struct InsufficientMemory : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Host memory that can be taken now (MemAvailable, bounded by a cgroup limit where one is set).
double host_memory_available();
// Free GPU memory (0 without a GPU).
double device_memory_available();
// Throws InsufficientMemory unless `need` fits what is available, with headroom.
void require_memory(const Footprint& need);

// Releases every SingleSlot's value. Runs when the run moves on to the next workload (the
// benchmarks of one workload are registered, and so run, together): a workload's buffers live
// exactly as long as its benchmarks.
void release_workload_memory();
void on_workload_release(std::function<void()> release);

// One entry per (key) kept alive between invocations of a body, replaced when the key changes
// and released when the run moves on to the next workload. Benchmarks run in registration
// order, so registering all variants of one size together means the inputs of that size are
// generated (and the reference computed) once.
// Slots that hold alternatives (one per element type, say) can share a group: making a value
// in one releases the others of the group first, so only one alternative is alive at a time.
void release_group(const std::string& group, const void* except);
void join_group(const std::string& group, const void* slot, std::function<void()> release);

template <class Key, class Value>
class SingleSlot {
 public:
  SingleSlot() { on_workload_release([this] { clear(); }); }
  explicit SingleSlot(std::string group) : group_(std::move(group)) {
    on_workload_release([this] { clear(); });
    join_group(group_, this, [this] { clear(); });
  }
  SingleSlot(const SingleSlot&) = delete;
  SingleSlot& operator=(const SingleSlot&) = delete;

  template <class Make>
  Value& get(const Key& key, Make&& make) {
    return get(key, Footprint{}, std::forward<Make>(make));
  }
  // Frees the old value, checks that `need` fits, then makes the new one.
  template <class Make>
  Value& get(const Key& key, const Footprint& need, Make&& make) {
    if (!value_ || !(key_ == key)) {
      value_.reset();  // free the old size before allocating the new one
      if (!group_.empty()) release_group(group_, this);
      require_memory(need);
      value_ = std::make_unique<Value>(make());
      key_ = key;
    }
    return *value_;
  }
  void clear() { value_.reset(); }

  // `make` returns a std::unique_ptr<Value>: Value need not be movable (inputs() below).
  template <class Make>
  Value& get_in_place(const Key& key, const Footprint& need, Make&& make) {
    if (!value_ || !(key_ == key)) {
      value_.reset();
      if (!group_.empty()) release_group(group_, this);
      require_memory(need);
      value_ = make();
      key_ = key;
    }
    return *value_;
  }

 private:
  Key key_{};
  std::unique_ptr<Value> value_;
  std::string group_;
};

// A workload's inputs, owned by the harness. The workload states how to make them and what they
// weigh; the harness keeps one value per Data type alive between rows, makes it again when the
// arguments change, checks the weight against the free memory first (a skip with the numbers
// when it does not fit) and releases it when the run moves on to the next workload:
//   struct HostData {
//     static Footprint weight(std::size_t n);  // estimated before anything is allocated
//     explicit HostData(std::size_t n);        // generates the inputs, computes the reference
//   };
//   HostData& d = inputs<HostData>(n);
// A Data type that is one of several alternatives (one per element type, say) names its group,
// `static constexpr const char* kAlternatives = "scan/host";`: making one releases the others.
// Register the rows of one set of arguments together, so that their inputs are made once.
template <class Data, class... Args>
Data& inputs(const Args&... args) {
  using Key = std::tuple<Args...>;
  static SingleSlot<Key, Data> slot = [] {
    if constexpr (requires { Data::kAlternatives; })
      return SingleSlot<Key, Data>(std::string(Data::kAlternatives));
    else
      return SingleSlot<Key, Data>();
  }();
  return slot.get_in_place(Key(args...), Data::weight(args...),
                           [&] { return std::make_unique<Data>(args...); });
}

}  // namespace tb
