#include "common/sampler.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "common/harness.hpp"

namespace tb {
namespace {

StoppingRule g_rule = default_rule();
bool g_classic = false;
std::vector<std::pair<std::string, std::vector<double>>> g_kept;

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

}  // namespace

// Default: 5 samples and 50 ms of measured time at least, 1% spread, half a second of wall
// time at most per row. nvbench's defaults (0.5%, 10 samples, 0.5 s, 15 s timeout) would take
// the 800-row suite past an hour; these keep the whole default run within minutes while every
// row still has a recorded spread (rows that miss the target say so: converged = 0).
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
  st.mean = r.mean;
  st.rel_stdev = r.rel_stdev();
  return st;
}

SampleStats collect_samples(const StoppingRule& rule, const std::function<double()>& sample,
                            const std::function<double()>& now) {
  std::vector<double> samples;
  Running r;
  bool converged = false;
  const double start = now();
  const int min_samples = std::max(1, rule.min_samples);
  while (static_cast<int>(samples.size()) < std::max(min_samples, rule.max_samples)) {
    const double s = sample();
    samples.push_back(s);
    r.add(s);
    if (r.n < min_samples) continue;
    if (r.sum >= rule.min_time_s && r.rel_stdev() <= rule.max_rel_stdev) {
      converged = true;
      break;
    }
    if (now() - start >= rule.max_time_s) break;
  }
  SampleStats st = summarize(std::move(samples));
  st.converged = converged;
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
  state.counters["rel_spread_pct"] = 100.0 * st.rel_stdev;
  state.counters["converged"] = st.converged ? 1 : 0;
  // An index into the samples main() writes into the results file beside this row.
  state.counters["sample_set"] = static_cast<double>(g_kept.size());
  g_kept.emplace_back(current_benchmark(), st.samples);
}

void measure(benchmark::State& state, const std::function<double()>& sample) {
  if (g_classic) {
    std::vector<double> samples;
    for (auto _ : state) {
      const double s = sample();
      samples.push_back(s);
      state.SetIterationTime(s);
    }
    SampleStats st = summarize(std::move(samples));
    st.converged = true;
    record_samples(state, st);
    return;
  }
  SampleStats st;
  for (auto _ : state) {
    st = collect_samples(g_rule, sample);
    state.SetIterationTime(st.median);
  }
  if (!state.error_occurred()) record_samples(state, st);
}

void measure_cpu(benchmark::State& state, const std::function<void()>& work) {
  measure(state, [&work] {
    const auto t0 = std::chrono::steady_clock::now();
    work();
    benchmark::ClobberMemory();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
}

const std::vector<std::pair<std::string, std::vector<double>>>& kept_samples() { return g_kept; }

}  // namespace tb
