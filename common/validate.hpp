#pragma once
// Comparison of a variant's output with the serial reference. A variant passes when every
// element's error relative to max(|reference|, scale_floor) is within the workload's tolerance.
#include <cmath>
#include <cstddef>
#include <functional>
#include <type_traits>
#include <limits>
#include <span>
#include <string>

#include <twinbench/types.hpp>

namespace tb {

struct ErrorStats {
  double max_abs = 0.0;
  double max_rel = 0.0;
  std::size_t worst_index = 0;
  bool finite = true;  // false if the output holds a NaN or Inf where the reference does not
  bool size_matches = true;
  // The scale floor compare() divided by; negative where the stats did not come from compare()
  // (a scalar or a workload's own check). passes() fails stats whose floor is not the
  // tolerance's: a comparison that dropped the floor would hold near-zero references to 1e-300.
  double scale_floor = -1.0;
};

using Tolerance = twinbench::Tolerance;

// T and R may be const or not, float or double: only values are read. Parallel (OpenMP): the
// GPU variants of a 256M-element workload are each validated once, and a serial pass over a
// GiB of output per variant was most of the default run's time on a 16-core host.
template <class T, class R>
ErrorStats compare(std::span<T> got, std::span<R> ref, double scale_floor = 0.0) {
  ErrorStats s;
  s.scale_floor = scale_floor;
  if (got.size() != ref.size()) {
    s.size_matches = false;
    return s;
  }
  const auto n = static_cast<long long>(got.size());
  const double floor = scale_floor > 0 ? scale_floor : 1e-300;
#pragma omp parallel
  {
    ErrorStats local;
    long long first_bad = -1;
#pragma omp for schedule(static) nowait
    for (long long i = 0; i < n; ++i) {
      const double g = static_cast<double>(got[i]);
      const double r = static_cast<double>(ref[i]);
      if (!std::isfinite(g) && std::isfinite(r)) {
        if (first_bad < 0) first_bad = i;
        continue;
      }
      const double abs_err = std::fabs(g - r);
      const double rel_err = abs_err / std::fmax(std::fabs(r), floor);
      if (abs_err > local.max_abs) local.max_abs = abs_err;
      if (rel_err > local.max_rel) {
        local.max_rel = rel_err;
        local.worst_index = static_cast<std::size_t>(i);
      }
    }
#pragma omp critical(tb_compare_merge)
    {
      if (first_bad >= 0 && (s.finite || static_cast<std::size_t>(first_bad) < s.worst_index)) {
        s.finite = false;
        s.worst_index = static_cast<std::size_t>(first_bad);
      }
      if (local.max_abs > s.max_abs) s.max_abs = local.max_abs;
      if (s.finite && (local.max_rel > s.max_rel ||
                       (local.max_rel == s.max_rel && local.worst_index < s.worst_index))) {
        s.max_rel = local.max_rel;
        s.worst_index = local.worst_index;
      }
    }
  }
  return s;
}

// The comparison a row's validation makes: against the tolerance's own floor.
template <class T, class R>
ErrorStats compare(std::span<T> got, std::span<R> ref, const Tolerance& tol) {
  return compare(got, ref, tol.scale_floor);
}

// A scalar result (a reduction): `scale` is the quantity the rounding error is proportional to,
// e.g. sum |a_i * b_i| for a dot product, so cancellation cannot fail a correct result.
inline ErrorStats compare_scalar(double got, double ref, double scale) {
  ErrorStats s;
  if (!std::isfinite(got)) {
    s.finite = false;
    return s;
  }
  s.max_abs = std::fabs(got - ref);
  s.max_rel = s.max_abs / std::fmax(std::fabs(scale), 1e-300);
  return s;
}

// Poisoning: outputs are filled before the validation run by one rule on both sides (host
// poison() here, device poison_device() in common/gpu_run.hpp), so that an element a
// variant never writes, or an accumulator it never resets, fails.
// - Types with a quiet NaN (float, double): every byte 0xFF, a NaN. NaN never compares equal
//   and the comparison fails it as non-finite: one run is enough.
// - Everything else: signed and unsigned integers of every width, where no value is impossible,
//   and the 16-bit floats (numeric_limits has no NaN for _Float16, __half or __nv_bfloat16 with
//   GCC 12 and CUDA 13): the check runs twice, against 0xFF bytes (a NaN for the 16-bit floats)
//   and then 0x55 bytes. An element left unwritten holds the pattern, and the two patterns
//   differ, so it mismatches the reference in at least one of the runs; an accumulator that is
//   not reset (out += v, wrapping or not) ends at pattern + v in each run, equal to the
//   reference in at most one of them. (A single pattern, as numeric_limits<T>::min() was, is 0
//   for unsigned types: a histogram that never zeroed its bins passed.)
inline constexpr unsigned char kPoisonBytes[2] = {0xFF, 0x55};

template <class T>
inline constexpr bool kPoisonedWithNaN = std::numeric_limits<T>::has_quiet_NaN;

// The validation pass the poison fills serve (0 or 1), and whether any fill of this pass was
// of a type that needs the second pass. Set by validate_poisoned().
struct PoisonState {
  int pass = 0;
  bool needs_second_pass = false;
};
PoisonState& poison_state();

// The byte every element of a T output is filled with in this pass (noting that a T without NaN
// was poisoned, so the check runs a second time).
template <class T>
unsigned char poison_byte() {
  if constexpr (kPoisonedWithNaN<T>) {
    return kPoisonBytes[0];
  } else {
    poison_state().needs_second_pass = true;
    return kPoisonBytes[poison_state().pass];
  }
}

template <class T>
void poison(std::span<T> out) {
  static_assert(std::is_trivially_copyable_v<T>, "poison fills bytes");
  const unsigned char byte = poison_byte<std::remove_cv_t<T>>();
  auto* bytes = reinterpret_cast<unsigned char*>(out.data());
  const auto n = static_cast<long long>(out.size_bytes());
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; ++i) bytes[i] = byte;
}

// Runs `check` (which poisons the outputs, runs the variant and compares) under the poison
// rule: once, or twice with the two integer patterns when it poisoned a type without NaN. The
// first failing pass is the verdict.
ErrorStats validate_poisoned(const std::function<ErrorStats()>& check, const Tolerance& tol);

inline bool floor_matches(const ErrorStats& s, const Tolerance& tol) {
  return s.scale_floor < 0 || s.scale_floor == tol.scale_floor;
}

inline bool passes(const ErrorStats& s, const Tolerance& tol) {
  return s.size_matches && s.finite && floor_matches(s, tol) && s.max_rel <= tol.rel;
}

std::string describe(const ErrorStats& s, const Tolerance& tol);

}  // namespace tb
