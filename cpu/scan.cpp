#include "cpu/scan.hpp"

#include <omp.h>

#include <cmath>
#include <limits>
#include <vector>

#include "common/random.hpp"

namespace tb::scan {
namespace {

template <class T>
void serial_impl(const T* in, T* out, std::size_t n) {
  T acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    acc += in[i];
    out[i] = acc;
  }
}

template <class T>
T chunk_sum(const T* in, std::size_t begin, std::size_t end) {
  T s = 0;
  // A reordered (vectorised) sum is fine: float32 only needs to stay within the tolerance.
#pragma omp simd reduction(+ : s)
  for (std::size_t i = begin; i < end; ++i) s += in[i];
  return s;
}

template <class T>
void omp_impl(const T* in, T* out, std::size_t n) {
  // offsets[t + 1] = sum of chunk t; after the scan, offsets[t] = sum of chunks before t.
  std::vector<T> offsets(static_cast<std::size_t>(omp_get_max_threads()) + 1, T(0));
#pragma omp parallel
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto nt = static_cast<std::size_t>(omp_get_num_threads());
    // Contiguous chunks, as schedule(static) gives: the same threads first-touched these pages.
    const std::size_t begin = n / nt * t + (t < n % nt ? t : n % nt);
    const std::size_t end = begin + n / nt + (t < n % nt ? 1 : 0);
    offsets[t + 1] = chunk_sum(in, begin, end);
#pragma omp barrier
#pragma omp single
    for (std::size_t k = 1; k <= nt; ++k) offsets[k] += offsets[k - 1];
    // (implicit barrier after single)
    T acc = offsets[t];
    for (std::size_t i = begin; i < end; ++i) {
      acc += in[i];
      out[i] = acc;
    }
  }
}

}  // namespace

Tolerance float_tolerance(std::size_t n) {
  // Worst-case bounds (path length * eps, i.e. n * eps for the serial loop) say nothing at 256M.
  // With random-sign inputs the roundings are independent and largely cancel: measured, the
  // serial float32 loop stays at 0.77 eps of sum |x| at 1M, 16M and 256M elements. We allow
  // 2 * (log2(n) + 8) eps (the depth of a tree of additions, plus slack): ~70 eps at 256M, ~90x
  // the observed error, yet a skipped element (1/i) or tile offset still fails at small i. The
  // int32 runs of the same kernels are checked exactly and catch every indexing bug.
  const double eps = std::numeric_limits<float>::epsilon();
  const double lg = n > 1 ? std::log2(static_cast<double>(n)) : 0.0;
  return {2.0 * eps * (lg + 8.0)};
}

void fill_input(std::span<std::int32_t> in, std::size_t n) {
  fill_uniform(in, kSeed, 1, int32_max_value(n) + 1);
}
void fill_input(std::span<float> in, std::size_t) { fill_uniform(in, kSeed + 1, -1.f, 1.f); }

void serial(const std::int32_t* in, std::int32_t* out, std::size_t n) { serial_impl(in, out, n); }
void serial(const float* in, float* out, std::size_t n) { serial_impl(in, out, n); }
void omp(const std::int32_t* in, std::int32_t* out, std::size_t n) { omp_impl(in, out, n); }
void omp(const float* in, float* out, std::size_t n) { omp_impl(in, out, n); }

void reference_f64(const float* in, double* out, std::size_t n) {
  double acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    acc += in[i];
    out[i] = acc;
  }
}

ErrorStats compare_float(std::span<const float> got, std::span<const double> ref,
                         std::span<const float> in) {
  ErrorStats s;
  if (got.size() != ref.size() || in.size() != ref.size()) {
    s.size_matches = false;
    return s;
  }
  // Each element's scale is the running sum of |in| up to it: a prefix sum, taken in two
  // passes over per-thread chunks so that the check of a 256M scan is not a serial second
  // (it ran once per GPU variant in the default run).
  const auto n = static_cast<long long>(got.size());
  const int threads = omp_get_max_threads();
  std::vector<double> offset(static_cast<std::size_t>(threads) + 1, 0.0);
  std::vector<ErrorStats> per(static_cast<std::size_t>(threads));
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const int nt = omp_get_num_threads();
    const long long lo = n * t / nt, hi = n * (t + 1) / nt;
    double chunk = 0.0;
    for (long long i = lo; i < hi; ++i) chunk += std::fabs(static_cast<double>(in[i]));
    offset[static_cast<std::size_t>(t) + 1] = chunk;
#pragma omp barrier
#pragma omp single
    for (int k = 1; k <= nt; ++k) offset[k] += offset[k - 1];
    ErrorStats& local = per[static_cast<std::size_t>(t)];
    double abs_sum = offset[static_cast<std::size_t>(t)];
    for (long long i = lo; i < hi; ++i) {
      abs_sum += std::fabs(static_cast<double>(in[i]));
      const double g = got[i];
      if (!std::isfinite(g)) {
        local.finite = false;
        local.worst_index = static_cast<std::size_t>(i);
        break;
      }
      const double abs_err = std::fabs(g - ref[i]);
      const double rel_err = abs_err / std::fmax(abs_sum, 1e-300);
      if (abs_err > local.max_abs) local.max_abs = abs_err;
      if (rel_err > local.max_rel) {
        local.max_rel = rel_err;
        local.worst_index = static_cast<std::size_t>(i);
      }
    }
  }
  // Chunks in order: the first non-finite element wins, as in a serial pass.
  for (const ErrorStats& p : per) {
    if (!p.finite) {
      s.finite = false;
      s.worst_index = p.worst_index;
      return s;
    }
    if (p.max_abs > s.max_abs) s.max_abs = p.max_abs;
    if (p.max_rel > s.max_rel) {
      s.max_rel = p.max_rel;
      s.worst_index = p.worst_index;
    }
  }
  return s;
}

}  // namespace tb::scan
