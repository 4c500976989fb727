#include "common/harness.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
#include <set>
#include <unordered_map>
#include <omp.h>

#include <cstdlib>
#include <fstream>
#include <limits>
#include <regex>

#include "common/ceilings.hpp"
#include "common/cpu_isa.hpp"
#include "common/host_ceilings.hpp"
#include "common/l2_flush.hpp"
#include "common/progress.hpp"
#include "common/project_info.hpp"
#include "common/progress_eta.hpp"
#include "common/row_fields.hpp"
#include "common/rapl.hpp"
#include "common/row_limit.hpp"
#include "common/sampler.hpp"
#include "common/telemetry.hpp"

#include "common/gpu_context.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_check.hpp"
#endif

namespace tb {
namespace {

struct Verdict {
  ErrorStats stats;
  bool pass = false;
  std::string detail;
};

// Each registered row's description and work model, by name.
struct Registered {
  BenchSpec spec;
  WorkModel work;
};

// Progress for the whole run, one line per benchmark on stderr (stdout belongs to Google
// Benchmark's reporter). The denominator counts what will run: a benchmark that skips leaves
// both counts, so "[k/N]" and the estimate of the time left are about measured rows only.
struct Progress {
  int total = 0;        // benchmarks expected to run
  int started = 0;      // announced and not skipped
  int skipped = 0;
  std::string current;  // the benchmark running now
  std::string workload; // its workload: a change releases the previous one's memory
  std::set<std::string> seen;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point current_start = start;
  double measured_s = 0.0;  // wall time of the rows that finished without skipping
  int finished = 0;
  // Expected costs (common/progress_eta.hpp): the estimate of the time left weighs each row.
  std::unordered_map<std::string, double> cost;  // planned row -> expected cost
  double unplanned_cost = 1.0;  // a row outside the plan (the plan unknown: every row 1)
  double expected_total = 0.0;  // of the planned rows
  double expected_done = 0.0;   // of the finished rows
  double expected_skipped = 0.0;
  bool planned_only = false;     // a plan was given: rows outside it are not counted
  bool current_counted = false;  // the row running now is in the counts
  int measured = 0;              // rows that finished without an error or a skip
  double cost_of(const std::string& name) const {
    const auto it = cost.find(name);
    return it == cost.end() ? unplanned_cost : it->second;
  }
};


// The run's state, in one object per concern, owned by the one Harness of the process (Google
// Benchmark's registration and its benchmark bodies are free functions, so the bodies reach it
// through harness()).
struct Registry {
  std::vector<std::string> names;      // every registered row, in order
  std::set<std::string> gpu_names;     // registered with add_gpu_benchmark: timed with CUDA events
  std::map<std::string, Registered> rows;  // each row's description and work model
  std::set<std::string> skipped;       // rows that skipped (not failed)
  std::string running;                 // the row running now, whatever its progress accounting
  std::string rank_skip_reason;        // set on MPI ranks other than 0
};

struct Verdicts {
  std::map<std::string, Verdict> by_key;  // one verdict per row (kernel and e2e rows share one)
  int failures = 0;
};

// Telemetry (on unless --no-telemetry): NVML opened once, its sampler running over each GPU
// row's samples; RAPL's package energy read at both ends of each CPU row's samples.
struct Telemetry {
  bool on = false;
  std::unique_ptr<telemetry::Source> nvml;
  std::unique_ptr<telemetry::Sampler> gpu_sampler;
  std::unique_ptr<rapl::Reader> rapl;
  rapl::Snapshot rapl_start;
  std::chrono::steady_clock::time_point window_start;
};

// A workload's buffers live as long as its rows (SingleSlot): what releases them, and the
// groups of alternatives of which one is alive at a time.
struct WorkloadMemory {
  std::vector<std::function<void()>> releases;
  std::map<std::string, std::vector<std::pair<const void*, std::function<void()>>>> groups;
};

struct Harness {
  Registry registry;
  Verdicts verdicts;
  Progress progress;
  Telemetry telemetry;
  WorkloadMemory memory;
};

Harness& harness() {
  static Harness h;
  return h;
}

const Registered& registered(const std::string& name) {
  static const Registered none{};
  const auto& rows = harness().registry.rows;
  const auto it = rows.find(name);
  return it == rows.end() ? none : it->second;
}

double seconds_between(std::chrono::steady_clock::time_point a,
                       std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// The previous row is done: its wall time feeds the estimate of the time left.
void finish_current() {
  if (harness().progress.current.empty()) return;
  if (!harness().progress.current_counted) {  // outside the plan: not in the counts
    harness().progress.current.clear();
    return;
  }
  harness().progress.measured_s += seconds_between(harness().progress.current_start, std::chrono::steady_clock::now());
  harness().progress.expected_done += harness().progress.cost_of(harness().progress.current);
  ++harness().progress.finished;
  harness().progress.current.clear();
}

void announce(const std::string& name) {
  harness().registry.running = name;
  const auto now = std::chrono::steady_clock::now();
  if (!harness().progress.current.empty() && harness().progress.current != name) finish_current();
  if (harness().progress.current == name) return;  // a repetition of the same row
  if (const std::string& w = registered(name).spec.workload; w != harness().progress.workload) {
    release_workload_memory();
    harness().progress.workload = w;
  }
  harness().progress.current = name;
  harness().progress.current_start = now;
  // A row outside the plan (common/run_main.cpp leaves out the GPU rows where there is no GPU, some
  // of which are timed on the host and skip in their body) runs without a progress line and
  // outside the counts.
  harness().progress.current_counted = !harness().progress.planned_only || harness().progress.cost.count(name) > 0;
  if (!harness().progress.current_counted) return;
  if (!harness().progress.seen.insert(name).second) return;
  ++harness().progress.started;
  const double elapsed = seconds_between(harness().progress.start, now);
  std::string eta;
  const int left = harness().progress.total - harness().progress.started + 1;  // this row included
  if (left > 0) {
    const double expected_left = std::max(
        0.0, harness().progress.expected_total - harness().progress.expected_done - harness().progress.expected_skipped);
    eta = progress_eta::format_left(
        progress_eta::seconds_left(harness().progress.measured_s, harness().progress.expected_done,
                                   harness().progress.finished, expected_left),
        true);
  }
  if (harness().progress.total > 0)
    std::fprintf(stderr, "[%d/%d %s%s] %s\n", harness().progress.started, harness().progress.total,
                 progress::format_eta(elapsed).c_str(), eta.c_str(), name.c_str());
  else
    std::fprintf(stderr, "[%d %s] %s\n", harness().progress.started,
                 progress::format_eta(elapsed).c_str(), name.c_str());
  std::fflush(stderr);
}

// A skipped row leaves the progress counts (it is neither done nor to do).
void uncount_current() {
  if (harness().progress.current.empty()) return;
  if (!harness().progress.current_counted) {  // never counted (its skip is main()'s "without GPU")
    harness().progress.current.clear();
    return;
  }
  --harness().progress.started;
  --harness().progress.total;
  ++harness().progress.skipped;
  harness().progress.expected_skipped += harness().progress.cost_of(harness().progress.current);
  harness().progress.current.clear();
}

// Tests of the failure path (exit code, skip message) set TWINBENCH_INJECT_VALIDATION_FAILURE to
// a regex: matching benchmarks fail validation as if their output were wrong.
bool fault_injected(const std::string& name) {
  static const char* pattern = std::getenv("TWINBENCH_INJECT_VALIDATION_FAILURE");
  if (!pattern || !*pattern) return false;
  static const std::regex re(pattern);
  return std::regex_search(name, re);
}

// Exceptions never escape a benchmark: they become skips with a message.
void run_guarded(benchmark::State& state, const BenchBody& body) {
  try {
    body(state);
#if TWINBENCH_HAVE_CUDA
  } catch (const DeviceOutOfMemory& e) {
    skip(state, std::string("out of device memory: ") + e.what());
#endif
  } catch (const InsufficientMemory& e) {
    skip(state, e.what());
  } catch (const std::bad_alloc&) {
    skip(state, "out of host memory");
  } catch (const std::exception& e) {
    // A failed CUDA call (an event that could not be recorded, say) is an error, not a skip:
    // the row gets no time and the console shows it as an error.
    uncount_current();
    state.SkipWithError((std::string("error: ") + e.what()).c_str());
  }
}

constexpr auto kTelemetryInterval = std::chrono::milliseconds(10);

// Energy to solution: the mean power while the samples ran times the median time of one
// iteration. Not the energy counter's difference divided by the samples: the window also holds
// the gaps between samples (flushes, gate, synchronisation), and on the H200 (driver 580)
// NVML's counter advanced in steps of 12-23 J, so a window of tens of milliseconds read either 0
// or one step (seen with --quick --telemetry).
void record_energy(benchmark::State& state, double joules_per_iter) {
  if (!std::isfinite(joules_per_iter)) return;
  state.counters["energy_per_iter_j"] = joules_per_iter;
}

// Per item of the row's declared work.
void record_energy_per_item(benchmark::State& state, const WorkModel& work) {
  const auto it = state.counters.find("energy_per_iter_j");
  if (it == state.counters.end()) return;
  const double per_item = rapl::energy_per_item(it->second.value, work.items);
  if (std::isfinite(per_item)) state.counters["energy_per_item_j"] = per_item;
}

void record_gpu_telemetry(benchmark::State& state, const telemetry::Summary& t,
                          const SampleStats& st) {
  state.counters["gpu_sm_mhz_min"] = t.sm_mhz_min;
  state.counters["gpu_sm_mhz_mean"] = t.sm_mhz_mean;
  state.counters["gpu_mem_mhz_mean"] = t.mem_mhz_mean;
  state.counters["gpu_power_w_mean"] = t.power_w_mean;
  state.counters["gpu_power_w_max"] = t.power_w_max;
  state.counters["gpu_temp_c_max"] = t.temp_c_max;
  state.counters["gpu_throttle_reasons"] = static_cast<double>(t.throttle_reasons);
  state.counters["gpu_throttled"] = telemetry::throttled(t.throttle_reasons) ? 1 : 0;
  state.counters["telemetry_readings"] = t.readings;
  if (t.energy_j) state.counters["gpu_energy_window_j"] = *t.energy_j;
  record_energy(state, t.power_w_mean * st.median);
  if (telemetry::throttled(t.throttle_reasons))
    std::fprintf(stderr, "twinbench: %s ran throttled (%s)\n", current_benchmark().c_str(),
                 telemetry::describe_reasons(t.throttle_reasons).c_str());
}

void cpu_energy_window(benchmark::State& state, const SampleStats* done) {
  if (!done) {
    harness().telemetry.rapl_start = harness().telemetry.rapl->snapshot();
    harness().telemetry.window_start = std::chrono::steady_clock::now();
    return;
  }
  const double window_s = seconds_between(harness().telemetry.window_start, std::chrono::steady_clock::now());
  const double joules = harness().telemetry.rapl->joules_between(harness().telemetry.rapl_start, harness().telemetry.rapl->snapshot());
  if (window_s > 0) state.counters["cpu_power_w_mean"] = joules / window_s;
  record_energy(state, rapl::energy_per_iteration(joules, window_s, done->median));
}

// Runs at the start (done = nullptr) and the end of each row's samples.
void sample_window(benchmark::State& state, const SampleStats* done) {
  if (is_gpu_benchmark(current_benchmark())) {
    if (!harness().telemetry.gpu_sampler) return;
    if (!done) {
      harness().telemetry.gpu_sampler->start();
      return;
    }
    record_gpu_telemetry(state, harness().telemetry.gpu_sampler->stop(), *done);
  } else if (harness().telemetry.rapl) {
    try {
      cpu_energy_window(state, done);
    } catch (const std::exception& e) {  // a counter that stopped being readable: no energy
      std::fprintf(stderr, "twinbench: CPU energy no longer readable (%s): off\n", e.what());
      harness().telemetry.rapl.reset();
    }
  }
}

void record_host_state(benchmark::State& state, const telemetry::HostState& before,
                       const telemetry::HostState& after) {
  state.counters["host_load1_before"] = before.load1;
  state.counters["host_cpu_mhz_before"] = before.cpu_mhz;
  state.counters["host_cpu_mhz_after"] = after.cpu_mhz;
  state.counters["host_busy"] = telemetry::host_busy(before) ? 1 : 0;
  if (telemetry::host_busy(before))
    std::fprintf(stderr,
                 "twinbench: warning: the machine was busy before %s (load %.1f on %d CPUs): its "
                 "CPU times may be inflated\n",
                 current_benchmark().c_str(), before.load1, before.cpus);
}

// After SIGINT/SIGTERM every benchmark left skips at once, without a progress line: the run
// then ends the normal way and the results file is closed with what was measured.
bool skip_interrupted(benchmark::State& state, const std::string& name) {
  const int sig = stop_requested();
  if (!sig) return false;
  harness().registry.running = name;
  ++harness().progress.skipped;
  harness().registry.skipped.insert(name);
  state.SkipWithError(("not run: the run was interrupted (signal " + std::to_string(sig) + ")").c_str());
  return true;
}

// The row's whole wall time (inputs made on first use, validation, warm-up, samples) as a
// counter: where the run's time goes, for keeping the default run within its budget.
}  // namespace

std::optional<CeilingSet> ceiling_set_for(const BenchSpec& spec) {
  if (spec.side == Side::gpu) {
    // e2e rows are PCIe-bound; host-timed rows measure the host's API calls.
    if (spec.mode == Mode::e2e || spec.host_timed) return std::nullopt;
    return CeilingSet::gpu;
  }
  // omp rows and the CPU libraries' rows run on all OpenMP threads.
  return spec.threads ? CeilingSet::cpu_all : CeilingSet::cpu_one;
}

namespace {

// The row's precision: its description's ("fp32", "bf16"), else its dtype axis ("dtype:fp16"),
// else "" (none named).
std::string row_precision(const BenchSpec& spec) {
  if (!spec.precision.empty()) return spec.precision;
  for (const Axis& a : spec.axes)
    if (a.key == "dtype") return a.value;
  return "";
}

// The largest data cache Google Benchmark found (the last level), 0 when it found none.
double last_level_cache_bytes() {
  double largest = 0.0;
  for (const auto& c : benchmark::CPUInfo::Get().caches)
    if (c.type != "Instruction") largest = std::max(largest, static_cast<double>(c.size));
  return largest;
}

// Whether the row's data stay in a cache between its calls: CPU work timed warm (short calls,
// batched without a flush: llc_flushed 0) that fits the last-level cache, or GPU work in a warm
// run that fits the L2. Its bandwidth is then the cache's, which no memory ceiling bounds.
bool cache_resident(const benchmark::State& state, const BenchSpec& spec, const WorkModel& work) {
  if (spec.side == Side::gpu)
    return !cold_caches() && work.bytes() <= static_cast<double>(l2_cache_bytes());
  const auto flushed = state.counters.find("llc_flushed");
  const bool warm = flushed != state.counters.end() && flushed->second.value == 0;
  return warm && work.bytes() <= last_level_cache_bytes();
}

// What the run measured that this row may be held to (common/row_limit.hpp).
LimitSources limit_sources(const benchmark::State& state, const BenchSpec& spec,
                           const WorkModel& work) {
  LimitSources s;
  if (work.link != Link::none) {
    s.link_per_s = link_bandwidth(work.link);
    s.link_name = work.link == Link::h2d ? "pinned h2d link" : "pinned d2h link";
    return s;
  }
  const std::optional<CeilingSet> set = ceiling_set_for(spec);
  if (!set) return s;
  s.bandwidth = ceilings(*set);
  for (const char* p : {"fp32", "fp64", "fp16", "bf16", "tf32", "int8"}) {
    if (roof(*set, p) > 0) s.roofs[p] = roof(*set, p);
    if (peak(*set, p) > 0) s.peaks[p] = peak(*set, p);
  }
  s.cache_resident = cache_resident(state, spec, work);
  s.caveat = ceilings_caveat(*set);
  return s;
}

double counter_or(const benchmark::State& state, const char* key, double fallback) {
  const auto it = state.counters.find(key);
  return it == state.counters.end() ? fallback : it->second.value;
}

// The row's one limit in its row (common/row_limit.hpp), and a flag with what to suspect when
// its figure is above that limit at its median (or above the physical peak), in the row
// (`suspect`) and on stderr.
void record_limit(benchmark::State& state, const std::string& name, const RowLimit& limit) {
  set_row_field(name, "limit_kind", limit_kind_name(limit.kind));
  if (limit.kind == LimitKind::none) return;
  set_row_field(name, "limit", limit.name);
  state.counters["limit_per_s"] = limit.per_s;
  if (limit.kind == LimitKind::bandwidth) {
    state.counters["ceiling_pattern"] = static_cast<int>(limit.pattern);
    state.counters["ceiling_bytes_per_s"] = limit.per_s;
  }
  // Google Benchmark divides a rate counter by the row's time: 100 x least time / median.
  state.counters["pct_ceiling"] =
      benchmark::Counter(100.0 * limit.least_s, benchmark::Counter::kIsIterationInvariantRate);
  const double median = counter_or(state, "median_s", 0.0);
  const std::string why =
      suspect_reason(limit, median, counter_or(state, "median_hi_s", median));
  if (why.empty()) return;
  set_row_field(name, "suspect", why);
  state.counters["above_limit"] = 1;  // for the console table's note
  std::fprintf(stderr, "twinbench: warning: %s: %s\n", name.c_str(), why.c_str());
}

// The rates of the row's declared work, once the samples are taken (they need the iteration
// count), and the limit it is held to.
void apply_work(benchmark::State& state, const BenchSpec& spec, const WorkModel& work) {
  const auto iters = static_cast<double>(state.iterations());
  if (work.bytes() > 0) state.SetBytesProcessed(static_cast<std::int64_t>(work.bytes() * iters));
  if (work.items > 0) state.SetItemsProcessed(static_cast<std::int64_t>(work.items * iters));
  state.counters["bytes_per_iter"] = work.bytes();
  state.counters["read_bytes_per_iter"] = work.read_bytes;
  state.counters["written_bytes_per_iter"] = work.written_bytes;
  state.counters["flop_per_iter"] = work.flops;
  if (work.flops > 0)
    state.counters["flop_per_s"] =
        benchmark::Counter(work.flops, benchmark::Counter::kIsIterationInvariantRate);
  const RowLimit limit =
      choose_row_limit(work, row_precision(spec), limit_sources(state, spec, work));
  record_limit(state, current_benchmark(), limit);
}

bool runs_the_suite() {
  const std::string& project = project_info().name;
  return project.empty() || project == "twinbench";
}

// `clock`: Side::cpu for the host's wall clock, Side::gpu for CUDA events.
void run_timed(benchmark::State& state, const BenchBody& body, Side clock) {
  const Registered& row = registered(current_benchmark());
  if (!harness().registry.rank_skip_reason.empty() && !row.spec.in_step) {
    skip(state, harness().registry.rank_skip_reason);
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const bool host_watch = harness().telemetry.on && clock == Side::cpu;
  const telemetry::HostState before =
      host_watch ? telemetry::read_host_state() : telemetry::HostState{};
  // The ISA the hand-written CPU kernels ran (common/cpu_isa.hpp); a library row replaces it with
  // the kernel its own dispatcher chose.
  // A project's own CPU code runs as that project compiled it: the level is only the suite's
  // kernels' (a project's row may still say what ran with Row::field).
  if (row.spec.side == Side::cpu && runs_the_suite())
    set_row_field(current_benchmark(), "cpu_isa", cpu_isa::name(cpu_isa::active_level()));
  if (row.spec.side == Side::gpu && gpu_info().available)
    set_row_field(current_benchmark(), "device", gpu_info().name);
  const double probe_before = host_watch ? host::probe_fma_rate(0) : 0.0;
  run_guarded(state, body);
  if (state.error_occurred()) return;
  ++harness().progress.measured;
  apply_work(state, row.spec, row.work);
  record_energy_per_item(state, row.work);
  state.counters["row_wall_s"] = seconds_between(t0, std::chrono::steady_clock::now());
  if (host_watch) {
    record_host_state(state, before, telemetry::read_host_state());
    // What the CPU gave around the row (host_ceilings.hpp says why, and why the report does not
    // read it yet: on the H200 the probes did not track the rows).
    state.counters["cpu_probe_flops_before"] = probe_before;
    state.counters["cpu_probe_flops_after"] = host::probe_fma_rate(0);
  }
}

// Every benchmark takes manual time: common/sampler.hpp takes the samples and sets the
// iteration's time to their median. One Google Benchmark iteration holds them all (main()
// passes a minimum time that the first iteration always exceeds; Iterations(1) would add
// "iterations:1" to every name), unless the user asked for Google Benchmark's own loop.
benchmark::internal::Benchmark* configure(benchmark::internal::Benchmark* b) {
  return b->Unit(benchmark::kMicrosecond)->UseManualTime();
}

}  // namespace

// The description's fields go into the row of the results file (common/run_main.cpp).
void register_spec(const BenchSpec& spec, const WorkModel& work) {
  const std::string name = spec.name();
  harness().registry.names.push_back(name);
  harness().registry.rows[name] = {spec, work};
  for (const auto& [key, value] : spec.fields()) set_row_field(name, key, value);
}

benchmark::internal::Benchmark* add_cpu_benchmark(const RunConfig&, BenchSpec spec,
                                                  const WorkModel& work, BenchBody body) {
  const std::string name = spec.name();
  register_spec(spec, work);
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [name, body](benchmark::State& state) {
    if (skip_interrupted(state, name)) return;
    announce(name);
    run_timed(state, body, Side::cpu);
  });
  return configure(b);
}

benchmark::internal::Benchmark* add_gpu_benchmark(const RunConfig&, BenchSpec spec,
                                                  const WorkModel& work, BenchBody body) {
  spec.side = Side::gpu;
  const std::string name = spec.name();
  register_spec(spec, work);
  harness().registry.gpu_names.insert(name);
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [name, body](benchmark::State& state) {
    if (!gpu_info().available) {  // not in the progress counts either (see count_selected)
      harness().registry.running = name;
      harness().registry.skipped.insert(name);
      state.SkipWithError(gpu_info().status.c_str());
      return;
    }
    if (skip_interrupted(state, name)) return;
    announce(name);
    run_timed(state, body, Side::gpu);
  });
  return configure(b);
}

bool validate_once(benchmark::State& state, const Tolerance& tol,
                   const std::function<ErrorStats()>& check) {
  return validate_once(state, current_benchmark(), tol, check);
}

bool validate_once(benchmark::State& state, const std::string& key, const Tolerance& tol,
                   const std::function<ErrorStats()>& check) {
  const std::string& name = current_benchmark();
  auto it = harness().verdicts.by_key.find(key);
  if (it == harness().verdicts.by_key.end()) {
    Verdict v;
    v.stats = validate_poisoned(check, tol);
    if (fault_injected(name)) v.stats.max_rel = std::numeric_limits<double>::infinity();
    v.pass = passes(v.stats, tol);
    v.detail = describe(v.stats, tol);
    if (!v.pass) {
      ++harness().verdicts.failures;
      std::fprintf(stderr, "VALIDATION FAILED: %s: %s\n", name.c_str(), v.detail.c_str());
    }
    it = harness().verdicts.by_key.emplace(key, v).first;
  }
  const Verdict& v = it->second;
  state.counters["max_abs_err"] = v.stats.max_abs;
  state.counters["max_rel_err"] = v.stats.max_rel;
  if (!v.pass) state.SkipWithError(("validation failed: " + v.detail).c_str());
  return v.pass;
}

bool validate_once_described(benchmark::State& state, const std::string& key,
                             const std::function<CheckResult()>& check) {
  const std::string& name = current_benchmark();
  auto it = harness().verdicts.by_key.find(key);
  if (it == harness().verdicts.by_key.end()) {
    CheckResult r = check();
    if (fault_injected(name)) r = {false, "fault injected (TWINBENCH_INJECT_VALIDATION_FAILURE)",
                                   r.max_abs, std::numeric_limits<double>::infinity()};
    Verdict v;
    v.stats.max_abs = r.max_abs;
    v.stats.max_rel = r.max_rel;
    v.pass = r.pass;
    v.detail = r.detail;
    if (!v.pass) {
      ++harness().verdicts.failures;
      std::fprintf(stderr, "VALIDATION FAILED: %s: %s\n", name.c_str(), v.detail.c_str());
    }
    it = harness().verdicts.by_key.emplace(key, v).first;
  }
  const Verdict& v = it->second;
  state.counters["max_abs_err"] = v.stats.max_abs;
  state.counters["max_rel_err"] = v.stats.max_rel;
  if (!v.pass) state.SkipWithError(("validation failed: " + v.detail).c_str());
  return v.pass;
}

void skip(benchmark::State& state, const std::string& why) {
  uncount_current();
  harness().registry.skipped.insert(harness().registry.running);
  state.SkipWithError(why.c_str());
}

void set_rank_skip_reason(std::string why) { harness().registry.rank_skip_reason = std::move(why); }

bool was_skipped(const std::string& name) { return harness().registry.skipped.count(name) > 0; }

const std::string& current_benchmark() { return harness().registry.running; }
const BenchSpec& current_spec() { return registered(harness().registry.running).spec; }
const BenchSpec& registered_spec(const std::string& name) { return registered(name).spec; }

int omp_threads() { return omp_get_max_threads(); }

int validation_failures() { return harness().verdicts.failures; }
const std::vector<std::string>& registered_names() { return harness().registry.names; }
bool is_gpu_benchmark(const std::string& name) { return harness().registry.gpu_names.count(name) > 0; }
void set_progress_total(int total) {
  harness().progress.total = total;
  harness().progress.expected_total = total * harness().progress.unplanned_cost;
}

// TWINBENCH_PREVIOUS_RESULTS: a results file whose row_wall_s weigh the rows (scripts/run.sh
// names this machine's last run, else the committed reference run).
void set_progress_plan(const std::vector<std::string>& names) {
  progress_eta::CostModel model;
  if (const char* path = std::getenv("TWINBENCH_PREVIOUS_RESULTS"); path && *path) {
    std::string why;
    model = progress_eta::CostModel::from_results_file(path, &why);
    if (model.size() == 0)
      std::fprintf(stderr, "twinbench: progress estimates count rows (%s)\n", why.c_str());
    else
      std::fprintf(stderr, "twinbench: progress estimates weigh each row by its time in %s\n", path);
  }
  const std::vector<double> costs = progress_eta::expected_costs(names, model);
  harness().progress.cost.clear();
  harness().progress.expected_total = 0.0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    harness().progress.cost[names[i]] = costs[i];
    harness().progress.expected_total += costs[i];
  }
  harness().progress.unplanned_cost = names.empty() ? 1.0 : harness().progress.expected_total / names.size();
  harness().progress.total = static_cast<int>(names.size());
  harness().progress.planned_only = true;
}
int skipped_count() { return harness().progress.skipped; }
int measured_count() { return harness().progress.measured; }

TelemetryStatus enable_telemetry() {
  harness().telemetry.on = true;
  TelemetryStatus status;
  if (gpu_info().available) {
    harness().telemetry.nvml = telemetry::open_nvml(status.gpu_why, gpu_info().pci_bus_id);
    if (harness().telemetry.nvml) {
      harness().telemetry.gpu_sampler = std::make_unique<telemetry::Sampler>(
          *harness().telemetry.nvml, std::chrono::duration_cast<std::chrono::microseconds>(kTelemetryInterval));
      status.gpu_environment = harness().telemetry.nvml->environment();
    }
  } else {
    status.gpu_why = "no GPU: no GPU telemetry";
  }
  std::string why;
  harness().telemetry.rapl = rapl::Reader::open(why);
  status.cpu_energy = harness().telemetry.rapl ? harness().telemetry.rapl->describe() : why;
  set_sample_window_hook(sample_window);
  return status;
}

void on_workload_release(std::function<void()> release) { harness().memory.releases.push_back(std::move(release)); }


void join_group(const std::string& group, const void* slot, std::function<void()> release) {
  harness().memory.groups[group].emplace_back(slot, std::move(release));
}

void release_group(const std::string& group, const void* except) {
  for (auto& [slot, release] : harness().memory.groups[group])
    if (slot != except) release();
}

void release_workload_memory() {
  for (auto& release : harness().memory.releases) release();
}

double host_memory_available() {
  double avail = 0.0;
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0.0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") {
      avail = kib * 1024.0;
      break;
    }
  }
  // A container's memory limit (cgroup v2) is what the OOM killer enforces.
  std::ifstream max_file("/sys/fs/cgroup/memory.max"), cur_file("/sys/fs/cgroup/memory.current");
  std::string max_text;
  double current = 0.0;
  if (max_file >> max_text && max_text != "max" && cur_file >> current) {
    const double limit_left = std::strtod(max_text.c_str(), nullptr) - current;
    if (limit_left < avail) avail = limit_left;
  }
  return avail;
}

double device_memory_available() {
#if TWINBENCH_HAVE_CUDA
  if (!gpu_info().available) return 0.0;
  std::size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) return 0.0;
  return static_cast<double>(free_bytes);
#else
  return 0.0;
#endif
}

namespace {
std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return buf;
}
}  // namespace

// Headroom: the process's own code and the other slots, page tables, the allocator's rounding.
void require_memory(const Footprint& need) {
  constexpr double kHostHeadroom = 512.0 * 1024 * 1024;
  constexpr double kDeviceHeadroom = 256.0 * 1024 * 1024;
  if (need.host_bytes > 0) {
    const double avail = host_memory_available();
    if (avail > 0 && need.host_bytes + kHostHeadroom > avail)
      throw InsufficientMemory("needs " + gib(need.host_bytes) + " of host memory, " + gib(avail) +
                               " available");
  }
  if (need.device_bytes > 0 && gpu_info().available) {
    const double avail = device_memory_available();
    if (need.device_bytes + kDeviceHeadroom > avail)
      throw InsufficientMemory("needs " + gib(need.device_bytes) + " of GPU memory, " + gib(avail) +
                               " available");
  }
}

}  // namespace tb
