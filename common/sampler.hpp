#pragma once
// The measurement engine: how many samples a benchmark takes, and what it records about them.
//
// Google Benchmark's own loop runs a body until a minimum time has passed and reports the mean;
// it says nothing about spread and spends the same time on a 3 us kernel as on a 300 ms one.
// twinbench takes samples until they settle instead (nvbench's stdrel criterion): at least
// min_samples, at least min_time of measured time, then stop once the relative standard
// deviation is under the target or has stopped changing (noisy work, as nvbench's criterion
// does), or when max_time of wall time has passed (the row then says it did not converge). Each
// benchmark runs one Google Benchmark iteration whose manual time is the median sample, with the
// sample count, min, max and spread as counters.
//
// `--benchmark_min_time` on the command line hands the loop back to Google Benchmark (each of
// its iterations one sample), for those who want its method.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace tb {

struct StoppingRule {
  double max_rel_stdev = 0.01;  // target: stdev / mean of the samples
  int min_samples = 5;          // the floor the CPU rows need; GPU rows use the same
  double min_time_s = 0.05;     // of measured (sample) time
  double max_time_s = 0.3;      // of wall time; min_samples still wins over it
  int max_samples = 10000;      // a guard; short work is batched into samples of ~100 us
};

// The rule for the default run and for --quick.
StoppingRule default_rule();
StoppingRule quick_rule();

// The rule in force for this run (main() sets it from the flags).
const StoppingRule& stopping_rule();
void set_stopping_rule(const StoppingRule& rule);

// True when the user asked for Google Benchmark's own loop (--benchmark_min_time).
bool classic_loop();
void set_classic_loop(bool on);

// Why sampling stopped (the row's stop_reason counter).
enum class StopReason {
  time_limit = 0,           // max_time passed with the spread above target and still moving
  spread_under_target = 1,  // the relative stdev fell under the target
  spread_settled = 2,       // above the target, but no longer changing (noisy work)
  sample_limit = 3,         // max_samples reached
  google_benchmark = 4,     // classic loop: Google Benchmark decided
};

struct SampleStats {
  std::vector<double> samples;  // seconds, in the order taken
  double median = 0.0, min = 0.0, max = 0.0, mean = 0.0;
  // The slow end of the median's ~95% interval (common/median_interval.hpp): the row's limit
  // check holds a row above its limit only when even this time beats the limit.
  double median_hi = 0.0;
  double rel_stdev = 0.0;  // stdev / mean (sample stdev, n - 1)
  bool converged = false;  // the spread is under target or has settled (not time_limit)
  StopReason reason = StopReason::time_limit;
  double wall_s = 0.0;  // wall time spent sampling
};

// Summary of a list of samples (median, min, max, mean, relative stdev).
SampleStats summarize(std::vector<double> samples);

// Calls `sample` (which returns one sample's time in seconds) until the rule says stop.
// `now` is the wall clock in seconds, replaceable so tests can drive it.
SampleStats collect_samples(const StoppingRule& rule, const std::function<double()>& sample,
                            const std::function<double()>& now);
SampleStats collect_samples(const StoppingRule& rule, const std::function<double()>& sample);

// Records the samples' statistics as counters on `state` and keeps the samples for the
// results file (main() writes them beside each row).
void record_samples(benchmark::State& state, const SampleStats& stats);

// Runs the benchmark's measurement: inside Google Benchmark's loop, one iteration whose
// manual time is the median sample (or, in classic mode, one sample per iteration).
// Benchmarks are registered with UseManualTime; main() makes Google Benchmark stop after one
// iteration unless classic.
// Returns the statistics it recorded (empty when the benchmark ended in an error).
SampleStats measure(benchmark::State& state, const std::function<double()>& sample);
// The same on a wall clock of the caller's choosing: the ranks of an MPI job pass one clock
// (rank 0's, broadcast) and samples they agree on (the slowest rank's), so that every rank stops
// after the same sample and their collective calls stay matched. Not in classic mode, where
// Google Benchmark's own timing decides (it throws std::logic_error there).
SampleStats measure(benchmark::State& state, const std::function<double()>& sample,
                    const std::function<double()>& now);

// A CPU body: times `work` with the steady clock, one call a sample.
void measure_cpu(benchmark::State& state, const std::function<void()>& work);

// Called just before a benchmark's samples are taken and just after (with them): telemetry
// watches the machine over exactly that window (common/harness.cpp sets it with --telemetry).
using SampleWindowHook = std::function<void(benchmark::State&, const SampleStats* done)>;
void set_sample_window_hook(SampleWindowHook hook);

// SIGINT/SIGTERM: main() installs a handler that records the signal here. Sampling stops at
// the next sample, the benchmark running then and every later one skip ("interrupted"), and
// the run ends normally, so that the results file is closed and complete up to that point.
void request_stop(int signal_number);  // async-signal-safe
int stop_requested();                  // the signal, or 0

// Test hook: TWINBENCH_INJECT_SLOWDOWN="REGEX=PCT" (e.g. "^dot/omp=5") makes every
// benchmark whose name matches REGEX (ECMAScript, searched anywhere in the name) do PCT% more
// work per sample, so that a comparison can be calibrated against a known slowdown. Off by
// default; when on, the run says so on the console and records "inject_slowdown" in the results
// file's context. How the extra work is done:
//   - rows timed on the host (measure_cpu): after the sample's calls, still inside the timed
//     span, the thread busy-waits PCT% of the time those calls took;
//   - rows whose sample comes from elsewhere (CUDA events around GPU work): the sampler cannot
//     put work between another file's events, so each sample is followed by one more real
//     sample of the same work, and PCT% of that second sample's measured time is added. The
//     device really does the work again; its time is measured, not assumed. A sample source
//     that batches (several launches between one pair of events, divided by their count)
//     returns seconds per launch for both samples, so the extra is PCT% of the per-launch time
//     whatever the batch. Such rows record what the hook did within the process:
//     inject_base_median_s (the median without the extra) and inject_measured_pct (the row's
//     median against it). The two H200 rows that came out only 2.4% and 3.9% slower than run A
//     under a 5% hook (results/nvidia-h200/2026-12-02, run-ab.json against run-aa.json,
//     dot/cuda n:1048576 blocks 256 and 128) were not batched (batch 1, cold L2), so batching
//     did not cause it; (B/A)/1.05 puts their level in B's
//     process 2.5% and 1.0% under A's, the between-run noise of 7-10 us kernels (these rows
//     moved up to 2.1% between the three default runs). The counters measure this directly.
// An invalid value stops the program at start-up (exit 2): a calibration run must not silently
// run without its slowdown.
struct InjectedSlowdown {
  std::string spec;     // as given, "REGEX=PCT"
  std::string pattern;  // REGEX
  double fraction = 0;  // PCT / 100
};
// Parses "REGEX=PCT" (the last '=' splits; 0 < PCT <= 1000). Returns false with a reason.
bool parse_injected_slowdown(const std::string& spec, InjectedSlowdown& out, std::string& why);
// The hook in force (read from the environment at start-up); tests set it. An empty spec turns
// it off. Throws std::invalid_argument on an invalid spec.
void set_injected_slowdown(const std::string& spec);
const InjectedSlowdown& injected_slowdown();
// The fraction of extra work for this benchmark name (0 when the hook is off or does not match).
double injected_fraction_for(const std::string& benchmark_name);
// The pieces measure_cpu and measure use, exposed for tests: `calls` calls of `work` timed with
// the steady clock, busy-waiting `fraction` of their time inside the span (seconds per call);
// and a sample source followed by one more sample of which `fraction` is added.
double timed_cpu_calls(const std::function<void()>& work, long calls, double fraction);
// base_samples, when given, receives each sample's own time (before its extra is added).
std::function<double()> with_extra_sample(std::function<double()> sample, double fraction,
                                          std::vector<double>* base_samples = nullptr);
// What the hook measurably added within one process: the median of the samples without their
// extra, and the slowed median's excess over it (0.05 for a 5% hook).
struct InjectedEffect {
  double base_median_s = 0;
  double measured_fraction = 0;
};
InjectedEffect injected_effect(const std::vector<double>& base_samples, const SampleStats& slowed);

// Samples kept per benchmark name, for the results file.
const std::vector<std::pair<std::string, std::vector<double>>>& kept_samples();

}  // namespace tb
