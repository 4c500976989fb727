#pragma once
// The CPU side of a row (internals behind bench/twinbench.hpp): a CPU variant as one object and
// the usual body that validates it once and times it.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <initializer_list>
#include <span>
#include <string>
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

// A row body with a check of its own (a scalar result, several outputs, a workload's own
// comparison): `check` runs the variant into its poisoned outputs and compares, under the
// harness's poison rule (common/validate.hpp: twice for outputs without a NaN), once per row;
// `body` takes the samples only where the check passed. `key` shares one verdict between rows
// that run the identical check (a GPU variant's kernel and e2e modes).
template <class Check, class Body>
void run_checked(benchmark::State& state, const Tolerance& tol, Check&& check, Body&& body) {
  if (validate_once(state, tol, check)) body();
}
template <class Check, class Body>
void run_checked(benchmark::State& state, const std::string& key, const Tolerance& tol,
                 Check&& check, Body&& body) {
  if (validate_once(state, key, tol, check)) body();
}

// The same for a CPU row timed on the host's clock: `timed` is one call of the variant.
template <class Check, class Timed>
void run_cpu_checked(benchmark::State& state, const Tolerance& tol, Check&& check, Timed&& timed) {
  run_checked(state, tol, check, [&] { measure_cpu(state, timed); });
}

// The usual CPU row body: once per row, `run` writes `out` (poisoned with NaN first, so an
// element it skips fails) and `out` is compared with `ref` against `tol`, its floor included;
// then `run` is timed. For a `run` that reads what it writes, run_cpu_in_place.
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

// In place (`run` reads and writes `inout`, as y = a*x + y): validation copies `initial` into
// `inout` first, so the check sees one application to the initial values; the timed samples
// then run on what the previous one left, an accumulation the workload states (y grows by a*x
// per sample: the same arithmetic, at the same speed, far from overflow). Where a kernel's time
// depends on its input's values, copy `initial` back inside `run` instead and count the copy
// in the work model.
template <class T, class R, class Run>
void run_cpu_in_place(benchmark::State& state, const Tolerance& tol, std::span<T> inout,
                      std::span<const T> initial, std::span<R> ref, Run&& run) {
  const bool ok = validate_once(state, tol, [&] {
    std::copy(initial.begin(), initial.end(), inout.begin());
    run();
    return compare(inout, ref, tol);
  });
  if (ok) measure_cpu(state, run);
}

}  // namespace tb
