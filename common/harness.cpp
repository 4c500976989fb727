#include "common/harness.hpp"

#include <chrono>
#include <cstdio>
#include <exception>
#include <map>
#include <set>
#include <omp.h>

#include <cstdlib>
#include <limits>
#include <regex>

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

std::map<std::string, Verdict>& verdicts() {
  static std::map<std::string, Verdict> v;
  return v;
}
int g_failures = 0;
std::vector<std::string> g_names;
int g_progress_total = 0;
int g_progress_done = 0;
std::set<std::string> g_started;
const auto g_start_time = std::chrono::steady_clock::now();

// One line per benchmark on stderr: stdout belongs to Google Benchmark's reporter.
std::string g_current;

void announce(const std::string& name) {
  g_current = name;
  if (!g_started.insert(name).second) return;
  ++g_progress_done;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - g_start_time).count();
  const int minutes = static_cast<int>(elapsed) / 60;
  const int seconds = static_cast<int>(elapsed) % 60;
  if (g_progress_total > 0)
    std::fprintf(stderr, "[%d/%d %02d:%02d] %s\n", g_progress_done, g_progress_total, minutes, seconds,
                 name.c_str());
  else
    std::fprintf(stderr, "[%d %02d:%02d] %s\n", g_progress_done, minutes, seconds, name.c_str());
  std::fflush(stderr);
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
  } catch (const std::bad_alloc&) {
    skip(state, "out of host memory");
  } catch (const std::exception& e) {
    skip(state, std::string("error: ") + e.what());
  }
}

// Per-benchmark MinTime would change the names (Google Benchmark appends "min_time:"), so
// quick mode sets --benchmark_min_time in main() instead.
benchmark::internal::Benchmark* configure(benchmark::internal::Benchmark* b, const RunConfig&) {
  return b->Unit(benchmark::kMicrosecond);
}

}  // namespace

void set_work(benchmark::State& state, const WorkModel& work, Side side) {
  const auto iters = static_cast<double>(state.iterations());
  if (work.bytes > 0) state.SetBytesProcessed(static_cast<std::int64_t>(work.bytes * iters));
  if (work.items > 0) state.SetItemsProcessed(static_cast<std::int64_t>(work.items * iters));
  state.counters["bytes_per_iter"] = work.bytes;
  state.counters["flop_per_iter"] = work.flops;
  if (work.flops > 0)
    state.counters["flop_per_s"] = benchmark::Counter(work.flops, benchmark::Counter::kIsIterationInvariantRate);
  if (side == Side::gpu && work.bytes > 0 && copy_bandwidth() > 0)
    state.counters["pct_copy_bw"] = benchmark::Counter(
        100.0 * work.bytes / copy_bandwidth(), benchmark::Counter::kIsIterationInvariantRate);
}

benchmark::internal::Benchmark* add_cpu_benchmark(const RunConfig& cfg, const std::string& name,
                                                  BenchBody body) {
  g_names.push_back(name);
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [name, body](benchmark::State& state) {
    announce(name);
    run_guarded(state, body);
  });
  return configure(b, cfg)->UseRealTime();
}

benchmark::internal::Benchmark* add_gpu_benchmark(const RunConfig& cfg, const std::string& name,
                                                  BenchBody body) {
  g_names.push_back(name);
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [name, body](benchmark::State& state) {
    announce(name);
    if (!gpu_info().available) {
      skip(state, gpu_info().status);
      return;
    }
    run_guarded(state, body);
  });
  return configure(b, cfg)->UseManualTime();
}

bool validate_once(benchmark::State& state, const Tolerance& tol,
                   const std::function<ErrorStats()>& check) {
  const std::string& name = current_benchmark();
  auto it = verdicts().find(name);
  if (it == verdicts().end()) {
    Verdict v;
    v.stats = check();
    if (fault_injected(name)) v.stats.max_rel = std::numeric_limits<double>::infinity();
    v.pass = passes(v.stats, tol);
    v.detail = describe(v.stats, tol);
    if (!v.pass) {
      ++g_failures;
      std::fprintf(stderr, "VALIDATION FAILED: %s: %s\n", name.c_str(), v.detail.c_str());
    }
    it = verdicts().emplace(name, v).first;
  }
  const Verdict& v = it->second;
  state.counters["max_abs_err"] = v.stats.max_abs;
  state.counters["max_rel_err"] = v.stats.max_rel;
  if (!v.pass) state.SkipWithError(("validation failed: " + v.detail).c_str());
  return v.pass;
}

void skip(benchmark::State& state, const std::string& why) { state.SkipWithError(why.c_str()); }

const std::string& current_benchmark() { return g_current; }

int omp_threads() { return omp_get_max_threads(); }

int validation_failures() { return g_failures; }
const std::vector<std::string>& registered_names() { return g_names; }
void set_progress_total(int total) { g_progress_total = total; }

}  // namespace tb
