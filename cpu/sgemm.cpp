#include "cpu/sgemm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "common/cpu_isa.hpp"

namespace tb::sgemm {
namespace {

// The float64 reference's blocks, sized for a per-core L2 of >= 1 MiB: a kBlockK x kBlockJ panel
// of B is reused by the kBlockI rows of A a thread owns, whose C block stays in L1/L2 while k
// runs. (The omp variant is in cpu/sgemm_omp.cpp.)
constexpr std::int64_t kBlockI = 32;
constexpr std::int64_t kBlockK = 128;
constexpr std::int64_t kBlockJ = 256;

// The serial loop, compiled once per ISA level (its j loop vectorises; the algorithm and each
// element's summation order are the plain loop's).
[[gnu::always_inline]] inline void serial_body(const float* a, const float* b, float* c,
                                               std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    float* ci = c + i * n;
    for (std::size_t j = 0; j < n; ++j) ci[j] = 0.f;
    for (std::size_t k = 0; k < n; ++k) {
      const float aik = a[i * n + k];
      const float* bk = b + k * n;
      for (std::size_t j = 0; j < n; ++j) ci[j] += aik * bk[j];
    }
  }
}
TB_ISA_CLONES(serial_isa, serial_body)

}  // namespace

void serial(const float* a, const float* b, float* c, std::size_t n) { serial_isa(a, b, c, n); }

Reference reference(const float* a, const float* b, std::size_t n) {
  Reference r{n, HostArray<double>(n * n), HostArray<double>(n * n)};
  const auto nn = static_cast<std::int64_t>(n);
  double* c = r.c.data();
  double* bound = r.bound.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i0 = 0; i0 < nn; i0 += kBlockI) {
    const std::int64_t i1 = std::min(i0 + kBlockI, nn);
    for (std::int64_t i = i0; i < i1; ++i) {
      std::fill(c + i * nn, c + (i + 1) * nn, 0.0);
      std::fill(bound + i * nn, bound + (i + 1) * nn, 0.0);
    }
    for (std::int64_t k0 = 0; k0 < nn; k0 += kBlockK) {
      const std::int64_t k1 = std::min(k0 + kBlockK, nn);
      for (std::int64_t j0 = 0; j0 < nn; j0 += kBlockJ) {
        const std::int64_t j1 = std::min(j0 + kBlockJ, nn);
        for (std::int64_t i = i0; i < i1; ++i) {
          double* __restrict__ ci = c + i * nn;
          double* __restrict__ bi = bound + i * nn;
          for (std::int64_t k = k0; k < k1; ++k) {
            const double aik = a[i * nn + k];
            const double abs_aik = std::fabs(aik);
            const float* __restrict__ bk = b + k * nn;
#pragma omp simd
            for (std::int64_t j = j0; j < j1; ++j) {
              const double bkj = bk[j];
              ci[j] += aik * bkj;
              bi[j] += abs_aik * std::fabs(bkj);
            }
          }
        }
      }
    }
  }
  return r;
}

namespace {

// max over elements of excess(|got - c|, c, bound) / bound; NaN or Inf fails.
template <class Excess>
ErrorStats check_with(std::span<const float> got, const Reference& ref, Excess excess) {
  ErrorStats s;
  if (got.size() != ref.n * ref.n) {
    s.size_matches = false;
    return s;
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = got[i];
    if (!std::isfinite(g)) {
      s.finite = false;
      s.worst_index = i;
      return s;
    }
    const double abs_err = std::fabs(g - ref.c[i]);
    // The bound is 0 only when a row of A or a column of B is all zeros, which the inputs
    // never hold (fill_uniform replaces zeros); the floor keeps the ratio defined anyway.
    const double rel = excess(abs_err, ref.c[i], ref.bound[i]) / std::fmax(ref.bound[i], 1e-30);
    if (abs_err > s.max_abs) s.max_abs = abs_err;
    if (rel > s.max_rel) {
      s.max_rel = rel;
      s.worst_index = i;
    }
  }
  return s;
}

}  // namespace

ErrorStats check(std::span<const float> got, const Reference& ref) {
  return check_with(got, ref, [](double err, double, double) { return err; });
}

ErrorStats check_tf32(std::span<const float> got, const Reference& ref) {
  return check_with(got, ref, [](double err, double c, double bound) {
    return std::fmax(0.0, err - tf32_input_allowance(c, bound));
  });
}

ErrorStats check_bf16(std::span<const float> got, const Reference& ref) {
  return check_with(got, ref, [](double err, double, double bound) {
    return std::fmax(0.0, err - bf16_input_allowance(bound));
  });
}

}  // namespace tb::sgemm
