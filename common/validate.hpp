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
};

struct Tolerance {
  double rel;                // bound on |got - ref| / max(|ref|, scale_floor)
  double scale_floor = 0.0;  // keeps near-zero references from making the ratio meaningless
};

// T and R may be const or not, float or double: only values are read.
template <class T, class R>
ErrorStats compare(std::span<T> got, std::span<R> ref, double scale_floor = 0.0) {
  ErrorStats s;
  if (got.size() != ref.size()) {
    s.size_matches = false;
    return s;
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    const double r = static_cast<double>(ref[i]);
    if (!std::isfinite(g) && std::isfinite(r)) {
      s.finite = false;
      s.worst_index = i;
      break;
    }
    const double abs_err = std::fabs(g - r);
    const double rel_err = abs_err / std::fmax(std::fabs(r), scale_floor > 0 ? scale_floor : 1e-300);
    if (abs_err > s.max_abs) s.max_abs = abs_err;
    if (rel_err > s.max_rel) {
      s.max_rel = rel_err;
      s.worst_index = i;
    }
  }
  return s;
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
  for (auto& v : out) v = std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN()
                                                                : std::numeric_limits<T>::min();
}

inline bool passes(const ErrorStats& s, const Tolerance& tol) {
  return s.size_matches && s.finite && s.max_rel <= tol.rel;
}

std::string describe(const ErrorStats& s, const Tolerance& tol);

}  // namespace tb
