#pragma once
// The CPU side of a row (internals behind bench/twinbench.hpp): a CPU variant as one object and
// the usual body that validates it once and times it.
#include <benchmark/benchmark.h>

#include <initializer_list>
#include <span>
#include <string_view>

#include "common/bench_spec.hpp"
#include "common/harness.hpp"
#include "common/sampler.hpp"
#include "common/validate.hpp"

namespace tb {

// A CPU variant: its impl name in the rows, its function, and whether it runs on OpenMP's
// threads (its rows then name threads:N and are held to the ceilings of all threads).
template <class Fn>
struct CpuKernel {
  const char* impl;
  Fn run;
  bool threaded = false;

  BenchSpec spec(std::string_view workload, std::initializer_list<Axis> axes) const {
    const BenchSpec s = bench_spec(workload, impl, axes);
    return threaded ? s.on_threads(omp_threads()) : s;
  }
};

// The usual CPU row body: once per row, `run` writes `out` (poisoned with NaN first, so an
// element it skips fails) and `out` is compared with `ref` against `tol`, its floor included;
// then `run` is timed. A run that reads what it writes (in place) must restore its input in
// `run` or state the accumulation in the row's comment (docs/adding-a-workload.md).
template <class T, class R, class Run>
void run_cpu(benchmark::State& state, const Tolerance& tol, std::span<T> out, std::span<R> ref,
             Run&& run) {
  const bool ok = validate_once(state, tol, [&] {
    poison(out);
    run();
    return compare(out, ref, tol);
  });
  if (ok) measure_cpu(state, run);
}

}  // namespace tb
