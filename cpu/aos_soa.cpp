#include "cpu/aos_soa.hpp"

#include <cmath>

#include "common/cpu_isa.hpp"
#include "cpu/streaming.hpp"

namespace tb::aos_soa {
namespace {

// -fno-math-errno (CMakeLists.txt) lets sqrtf be one vector instruction (vsqrtps), correctly
// rounded like the scalar one. Where the level has FMA (avx2, avx512) GCC contracts the sum of
// squares into FMAs (C++'s default -ffp-contract=fast), as nvcc does: a few float roundings from
// the baseline serial reference, inside kTolerance (aos_soa.hpp).
inline float norm(float x, float y, float z) { return std::sqrt(x * x + y * y + z * z); }

// One thread's slices, vectorized across points. SoA: three unit-stride loads per vector of
// points. AoS: the points' x, y and z are every third float, which GCC gathers with permutes of
// three consecutive vector loads (the same cache lines, so the same bytes from memory): at the
// large size both are bound by memory bandwidth; the layouts differ in the instructions per
// point, which shows at sizes that fit in the caches.
[[gnu::always_inline]] inline void aos_range(const float* xyz, float* out, std::size_t begin,
                                             std::size_t end) {
  const auto* p = reinterpret_cast<const Point*>(xyz);
#pragma omp simd
  for (std::size_t i = begin; i < end; ++i) out[i] = norm(p[i].x, p[i].y, p[i].z);
}
TB_ISA_CLONES(aos_range_isa, aos_range)

[[gnu::always_inline]] inline void soa_range(const float* x, const float* y, const float* z,
                                             float* out, std::size_t begin, std::size_t end) {
#pragma omp simd
  for (std::size_t i = begin; i < end; ++i) out[i] = norm(x[i], y[i], z[i]);
}
TB_ISA_CLONES(soa_range_isa, soa_range)

// The serial references: plain loops, compiled per ISA level (GCC vectorizes them at -O3 without
// a pragma: no reduction, no dependence), so that one thread's row shows what plain code gets
// from the host's vectors.
[[gnu::always_inline]] inline void serial_aos_range(const float* xyz, float* out, std::size_t n) {
  const auto* p = reinterpret_cast<const Point*>(xyz);
  for (std::size_t i = 0; i < n; ++i) out[i] = norm(p[i].x, p[i].y, p[i].z);
}
TB_ISA_CLONES(serial_aos_isa, serial_aos_range)

[[gnu::always_inline]] inline void serial_soa_range(const float* x, const float* y, const float* z,
                                                    float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = norm(x[i], y[i], z[i]);
}
TB_ISA_CLONES(serial_soa_isa, serial_soa_range)

}  // namespace

void serial_aos(const float* xyz, float* out, std::size_t n) { serial_aos_isa(xyz, out, n); }

void serial_soa(const float* x, const float* y, const float* z, float* out, std::size_t n) {
  serial_soa_isa(x, y, z, out, n);
}

// Each thread the slice of points schedule(static) gave it when the arrays were filled (the
// AoS buffer was filled over 3n floats: the same thread's third of it, to within a few floats).
void omp_aos(const float* xyz, float* out, std::size_t n) {
#pragma omp parallel
  {
    const streaming::Range r = streaming::this_thread_range(n);
    aos_range_isa(xyz, out, r.begin, r.end);
  }
}

void omp_soa(const float* x, const float* y, const float* z, float* out, std::size_t n) {
#pragma omp parallel
  {
    const streaming::Range r = streaming::this_thread_range(n);
    soa_range_isa(x, y, z, out, r.begin, r.end);
  }
}

}  // namespace tb::aos_soa
