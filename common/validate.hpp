#pragma once
// Comparison of a variant's output with the serial reference. A variant passes when every
// element's error relative to max(|reference|, scale_floor) is within the workload's tolerance.
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>

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

struct Tolerance {
  double rel;                // bound on |got - ref| / max(|ref|, scale_floor)
  double scale_floor = 0.0;  // keeps near-zero references from making the ratio meaningless
};

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

// Fill an output with NaN before a validation run, so that an element the variant never wrote
// cannot pass by holding a stale correct value.
template <class T>
void poison(std::span<T> out) {
  const T bad = std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN()
                                                      : std::numeric_limits<T>::min();
  const auto n = static_cast<long long>(out.size());
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; ++i) out[i] = bad;
}

inline bool floor_matches(const ErrorStats& s, const Tolerance& tol) {
  return s.scale_floor < 0 || s.scale_floor == tol.scale_floor;
}

inline bool passes(const ErrorStats& s, const Tolerance& tol) {
  return s.size_matches && s.finite && floor_matches(s, tol) && s.max_rel <= tol.rel;
}

std::string describe(const ErrorStats& s, const Tolerance& tol);

}  // namespace tb
