#include "common/sampler.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <regex>
#include <stdexcept>

#include "common/cpu_cache_flush.hpp"
#include "common/harness.hpp"
#include "common/l2_flush.hpp"
#include "common/median_interval.hpp"

namespace tb {
namespace {

StoppingRule g_rule = default_rule();
bool g_classic = false;
std::vector<std::pair<std::string, std::vector<double>>> g_kept;
SampleWindowHook g_window_hook;
volatile std::sig_atomic_t g_stop_signal = 0;

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median_of_sorted(const std::vector<double>& s) {
  const std::size_t n = s.size();
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

// Welford's update: the spread is checked after every sample, so keep it O(1) a sample.
struct Running {
  long long n = 0;
  double mean = 0.0, m2 = 0.0, sum = 0.0;
  void add(double x) {
    ++n;
    sum += x;
    const double d = x - mean;
    mean += d / static_cast<double>(n);
    m2 += d * (x - mean);
  }
  double rel_stdev() const {
    if (n < 2 || mean <= 0) return 0.0;
    return std::sqrt(m2 / static_cast<double>(n - 1)) / mean;
  }
};

// The slowdown hook (sampler.hpp). The regex is compiled once; matching runs once a row.
struct SlowdownHook {
  InjectedSlowdown spec;
  std::regex pattern;
  bool announced = false;
};
SlowdownHook g_slowdown;

void install_slowdown(const InjectedSlowdown& s) {
  g_slowdown.spec = s;
  g_slowdown.pattern = std::regex(s.pattern.empty() ? std::string("$^") : s.pattern);
  g_slowdown.announced = false;
}

std::string slowdown_context(const InjectedSlowdown& s) {
  char pct[32];
  std::snprintf(pct, sizeof pct, "%g", 100.0 * s.fraction);
  return s.spec + " (test hook: benchmarks matching /" + s.pattern + "/ do " + pct +
         "% extra work per sample)";
}

// Read at static initialisation: Google Benchmark writes the context before the first
// benchmark runs, so the key must be in before main() starts the run (common/run_main.cpp is not
// this file's to change). global_context in Google Benchmark is a zero-initialised pointer,
// so adding to it from here is safe.
struct SlowdownFromEnvironment {
  SlowdownFromEnvironment() {
    const char* env = std::getenv("TWINBENCH_INJECT_SLOWDOWN");
    if (env == nullptr || *env == '\0') return;
    InjectedSlowdown s;
    std::string why;
    if (!parse_injected_slowdown(env, s, why)) {
      std::fprintf(stderr, "twinbench: TWINBENCH_INJECT_SLOWDOWN='%s': %s\n", env, why.c_str());
      std::exit(2);
    }
    install_slowdown(s);
    benchmark::AddCustomContext("inject_slowdown", slowdown_context(s));
  }
};
const SlowdownFromEnvironment g_slowdown_from_environment;

// Once per run, when the first benchmark is measured (not at start-up: the binary re-execs
// itself to pin its threads, and the line would appear twice).
void announce_slowdown() {
  if (g_slowdown.announced || g_slowdown.spec.fraction <= 0) return;
  g_slowdown.announced = true;
  std::fprintf(stderr, "twinbench: TWINBENCH_INJECT_SLOWDOWN is on: %s\n",
               slowdown_context(g_slowdown.spec).c_str());
}

}  // namespace

bool parse_injected_slowdown(const std::string& spec, InjectedSlowdown& out, std::string& why) {
  const std::size_t eq = spec.rfind('=');
  if (eq == std::string::npos || eq == 0) {
    why = "expected REGEX=PCT, e.g. '^dot/omp=5'";
    return false;
  }
  const std::string pattern = spec.substr(0, eq), pct_text = spec.substr(eq + 1);
  char* end = nullptr;
  const double pct = std::strtod(pct_text.c_str(), &end);
  if (pct_text.empty() || end != pct_text.c_str() + pct_text.size() || !(pct > 0) ||
      pct > 1000) {
    why = "PCT '" + pct_text + "' is not a number in (0, 1000]";
    return false;
  }
  try {
    std::regex check(pattern);
  } catch (const std::regex_error& e) {
    why = "'" + pattern + "' is not a valid regex (" + e.what() + ")";
    return false;
  }
  out = {spec, pattern, pct / 100.0};
  return true;
}

void set_injected_slowdown(const std::string& spec) {
  InjectedSlowdown s;
  std::string why;
  if (!spec.empty() && !parse_injected_slowdown(spec, s, why)) throw std::invalid_argument(why);
  install_slowdown(s);
}

const InjectedSlowdown& injected_slowdown() { return g_slowdown.spec; }

double injected_fraction_for(const std::string& benchmark_name) {
  if (g_slowdown.spec.fraction <= 0) return 0.0;
  return std::regex_search(benchmark_name, g_slowdown.pattern) ? g_slowdown.spec.fraction : 0.0;
}

double timed_cpu_calls(const std::function<void()>& work, long calls, double fraction) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  for (long i = 0; i < calls; ++i) {
    work();
    benchmark::ClobberMemory();
  }
  if (fraction > 0) {
    // The extra work: a busy-wait (not a sleep, which the scheduler may stretch) for the given
    // fraction of what the calls took, inside the span the sample reports.
    const auto deadline = clock::now() + (clock::now() - t0) * fraction;
    while (clock::now() < deadline) {
    }
  }
  return std::chrono::duration<double>(clock::now() - t0).count() / static_cast<double>(calls);
}

std::function<double()> with_extra_sample(std::function<double()> sample, double fraction,
                                          std::vector<double>* base_samples) {
  return [sample = std::move(sample), fraction, base_samples] {
    const double s = sample();
    if (base_samples) base_samples->push_back(s);
    return s + fraction * sample();
  };
}

InjectedEffect injected_effect(const std::vector<double>& base_samples,
                               const SampleStats& slowed) {
  InjectedEffect e;
  if (base_samples.empty() || slowed.samples.empty()) return e;
  e.base_median_s = summarize(base_samples).median;
  if (e.base_median_s > 0) e.measured_fraction = slowed.median / e.base_median_s - 1.0;
  return e;
}

// Default: 5 samples and 50 ms of measured time at least, 1% spread, 0.3 s of wall time at
// most per row (once 5 samples are in). nvbench's defaults (0.5%, 10 samples, 0.5 s, 15 s timeout)
// would take the 800-row suite past an hour; these keep the whole default run within minutes while
// every row still has a recorded spread (rows that miss the target say so: converged = 0).
StoppingRule default_rule() { return {}; }

// --quick: a smoke run. The same floor of 5 samples, shorter times.
StoppingRule quick_rule() {
  StoppingRule r;
  r.max_rel_stdev = 0.05;
  r.min_time_s = 0.002;
  r.max_time_s = 0.05;
  return r;
}

const StoppingRule& stopping_rule() { return g_rule; }
void set_stopping_rule(const StoppingRule& rule) { g_rule = rule; }
bool classic_loop() { return g_classic; }
void set_classic_loop(bool on) { g_classic = on; }

SampleStats summarize(std::vector<double> samples) {
  SampleStats st;
  st.samples = std::move(samples);
  if (st.samples.empty()) return st;
  Running r;
  for (double x : st.samples) r.add(x);
  std::vector<double> sorted = st.samples;
  std::sort(sorted.begin(), sorted.end());
  st.min = sorted.front();
  st.max = sorted.back();
  st.median = median_of_sorted(sorted);
  st.median_hi = median_interval(sorted).second;
  st.mean = r.mean;
  st.rel_stdev = r.rel_stdev();
  return st;
}

// Some work is noisy by nature (a host allocation, OpenMP threads on a shared machine): its
// spread never gets under the target, and more samples only refine the estimate of a spread
// that is already known. As nvbench's stdrel criterion does, such a row stops once the spread
// itself has stopped moving: the relative stdev of its last kNoiseWindow values (against the
// current one) under kNoiseSettled, checked every kNoiseCheckEvery samples.
constexpr std::size_t kNoiseWindow = 64;
constexpr int kNoiseCheckEvery = 16;
constexpr double kNoiseSettled = 0.05;

bool noise_settled(const std::vector<double>& noise) {
  if (noise.size() < kNoiseWindow) return false;
  const double current = noise.back();
  if (!(current > 0)) return false;
  double sq = 0.0;
  for (std::size_t i = noise.size() - kNoiseWindow; i < noise.size(); ++i)
    sq += (noise[i] - current) * (noise[i] - current);
  return std::sqrt(sq / (kNoiseWindow - 1)) / current < kNoiseSettled;
}

SampleStats collect_samples(const StoppingRule& rule, const std::function<double()>& sample,
                            const std::function<double()>& now) {
  std::vector<double> samples, noise;
  Running r;
  StopReason reason = StopReason::time_limit;
  const double start = now();
  const int min_samples = std::max(1, rule.min_samples);
  while (static_cast<int>(samples.size()) < std::max(min_samples, rule.max_samples)) {
    if (g_stop_signal) break;  // interrupted: measure() turns this row into a skip
    const double s = sample();
    samples.push_back(s);
    r.add(s);
    noise.push_back(r.rel_stdev());
    if (r.n < min_samples) continue;
    if (r.sum >= rule.min_time_s) {
      if (r.rel_stdev() <= rule.max_rel_stdev) {
        reason = StopReason::spread_under_target;
        break;
      }
      if (r.n % kNoiseCheckEvery == 0 && noise_settled(noise)) {
        reason = StopReason::spread_settled;
        break;
      }
    }
    if (now() - start >= rule.max_time_s) break;
  }
  if (static_cast<int>(samples.size()) >= std::max(min_samples, rule.max_samples))
    reason = StopReason::sample_limit;
  SampleStats st = summarize(std::move(samples));
  st.reason = reason;
  st.converged = reason == StopReason::spread_under_target || reason == StopReason::spread_settled;
  st.wall_s = now() - start;
  return st;
}

SampleStats collect_samples(const StoppingRule& rule, const std::function<double()>& sample) {
  return collect_samples(rule, sample, steady_seconds);
}

void record_samples(benchmark::State& state, const SampleStats& st) {
  state.counters["samples"] = static_cast<double>(st.samples.size());
  state.counters["median_s"] = st.median;
  state.counters["min_s"] = st.min;
  state.counters["max_s"] = st.max;
  state.counters["median_hi_s"] = st.median_hi;
  state.counters["rel_spread_pct"] = 100.0 * st.rel_stdev;
  state.counters["converged"] = st.converged ? 1 : 0;
  state.counters["stop_reason"] = static_cast<double>(st.reason);
  // An index into the samples main() writes into the results file beside this row.
  state.counters["sample_set"] = static_cast<double>(g_kept.size());
  g_kept.emplace_back(current_benchmark(), st.samples);
}

namespace {
SampleStats measure_samples(benchmark::State& state, const std::function<double()>& sample,
                            const std::function<double()>* now = nullptr);
}  // namespace

SampleStats measure(benchmark::State& state, const std::function<double()>& sample,
                    const std::function<double()>& now) {
  if (g_classic)
    throw std::logic_error("a row measured in step with other processes cannot use Google "
                           "Benchmark's own loop (--benchmark_min_time)");
  return measure_samples(state, sample, &now);
}

SampleStats measure(benchmark::State& state, const std::function<double()>& sample) {
  announce_slowdown();
  const double extra = injected_fraction_for(current_benchmark());
  if (!(extra > 0)) return measure_samples(state, sample);
  // The row records what the hook did within this process (the median of its samples against
  // the median of the same samples without the extra), so that a calibration can tell the
  // hook's effect from how much the row's level moved between the two processes it compares.
  std::vector<double> base;
  const SampleStats st = measure_samples(state, with_extra_sample(sample, extra, &base));
  const InjectedEffect e = injected_effect(base, st);
  if (e.base_median_s > 0) {
    state.counters["inject_base_median_s"] = e.base_median_s;
    state.counters["inject_measured_pct"] = 100.0 * e.measured_fraction;
  }
  return st;
}

namespace {
SampleStats measure_samples(benchmark::State& state, const std::function<double()>& sample,
                            const std::function<double()>* now) {
  if (g_classic) {
    std::vector<double> samples;
    for (auto _ : state) {
      const double s = sample();
      samples.push_back(s);
      state.SetIterationTime(s);
    }
    SampleStats st = summarize(std::move(samples));
    st.converged = true;
    st.reason = StopReason::google_benchmark;
    record_samples(state, st);
    return st;
  }
  SampleStats st;
  for (auto _ : state) {
    if (g_window_hook) g_window_hook(state, nullptr);
    st = now ? collect_samples(g_rule, sample, *now) : collect_samples(g_rule, sample);
    if (g_window_hook) g_window_hook(state, &st);
    if (g_stop_signal) throw std::runtime_error("interrupted while measuring");
    state.SetIterationTime(st.median);
  }
  if (state.error_occurred()) return {};
  record_samples(state, st);
  return st;
}
}  // namespace

// Work shorter than this is timed in batches (a sample holds several calls, divided out), as
// GPU samples are: a 20 ns call is below the clock's resolution, and 50 ms of such samples
// would be millions of them.
constexpr double kCpuBatchSeconds = 100e-6;
constexpr long kMaxCpuBatch = 1'000'000;

// Cold CPU samples (the default; --warm turns it off): work of kCpuColdMinSeconds or more, timed
// once after a flush, is timed one call a sample, each after a flush of the CPU's caches
// (common/cpu_cache_flush.hpp), as the GPU's kernel rows are after an L2 flush. Shorter work
// (lucas' iterative loop, memcpys of a few KiB) is batched as before: its data are a few lines,
// and a flush per 20 ns call would leave only the clock's noise. The bound sits in the widest gap
// of the default run's CPU rows (0.1 to 1.6 us on the H200 host): at 100 us, where it was first,
// it cut through the 1M rows (dot, vector_add, scan: 40-110 us), which were then cold in one run
// and warm in the next (2.7-3.5x apart in compare's A/A pair, results/nvidia-h200/2026-12-02b).
// A single call a sample needs no batching from 1 us up: the clock reads in ~20 ns. The row's
// llc_flushed counter says which a row got.
constexpr double kCpuColdMinSeconds = 1e-6;
void measure_cpu(benchmark::State& state, const std::function<void()>& work) {
  announce_slowdown();
  const double extra = injected_fraction_for(current_benchmark());
  long batch = 1;
  bool cold = false;
  if (!g_classic) {
    // The bound is on the work's warm time: one call warms the code and data, the second is
    // timed. (Deciding on a call timed right after a flush, as the run in
    // results/nvidia-h200/2026-12-02c did, put lucas' 13-52 ns loops and 4-16 KiB memcpys over
    // 1 us, a cold call's instruction and TLB misses, and timed them one cold call a sample:
    // 0.95-1.2 us, 20-90x their warm time.)
    // The fastest of up to four warm calls while they are short: one timed call of a 20 ns loop
    // can read over 1 us (an interrupt, or the first row of a process still faulting in a page:
    // a fresh clone's test run saw lucas n:20 at 1.4 us), which would make it cold. At most
    // three extra calls, each under kCpuBatchSeconds.
    timed_cpu_calls(work, 1, 0.0);
    double once = timed_cpu_calls(work, 1, 0.0);
    for (int i = 0; i < 3 && once >= kCpuColdMinSeconds && once < kCpuBatchSeconds; ++i)
      once = std::min(once, timed_cpu_calls(work, 1, 0.0));
    cold = cold_caches() && once >= kCpuColdMinSeconds;
    if (!cold && once < kCpuBatchSeconds)
      batch = static_cast<long>(
          std::min<double>(kMaxCpuBatch, std::ceil(kCpuBatchSeconds / std::max(once, 1e-9))));
  }
  // The hook's extra work goes inside the timed span here, so measure() must not add its own.
  measure_samples(state, [&] {
    if (cold) flush_cpu_caches();
    return timed_cpu_calls(work, batch, extra);
  });
  state.counters["batch"] = static_cast<double>(batch);
  state.counters["llc_flushed"] = cold ? 1 : 0;
}

const std::vector<std::pair<std::string, std::vector<double>>>& kept_samples() { return g_kept; }

void set_sample_window_hook(SampleWindowHook hook) { g_window_hook = std::move(hook); }

void request_stop(int signal_number) { g_stop_signal = signal_number; }
int stop_requested() { return static_cast<int>(g_stop_signal); }

}  // namespace tb
