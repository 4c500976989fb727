#pragma once
// aos_soa: the Euclidean norm of N points {x, y, z} (float32), from an array of structs
// (x0 y0 z0 x1 y1 z1 ...) and from a struct of arrays (x[], y[], z[]). Same arithmetic, same
// bytes; only the layout differs, so the gap between the two is what the layout costs.
#include <cstddef>
#include <cstdint>

#include "common/bench_spec.hpp"
#include "common/validate.hpp"

namespace tb::aos_soa {

struct Point {
  float x, y, z;
};
static_assert(sizeof(Point) == 3 * sizeof(float), "the AoS buffer is read as 3 floats per point");

constexpr std::uint64_t kSeed = 0x5eed0401;
// Three products summed (all terms >= 0, no cancellation) then sqrt: at most a few float
// roundings apart between a compiler that fuses the adds into FMAs (nvcc) and one that does
// not, i.e. ~3e-7 relative; sqrt halves that.
constexpr Tolerance kTolerance{1e-6};
constexpr std::size_t kDefaultSize = std::size_t{1} << 26;  // 64M points: 1 GiB moved, 20x the L2
constexpr std::size_t kQuickSize = std::size_t{1} << 20;

// Bytes model: 12 bytes read and 4 written per point; 5 FLOPs (3 mul, 2 add; sqrt not counted).
inline WorkModel work(std::size_t n) {
  return {.read_bytes = 12.0 * n, .written_bytes = 4.0 * n, .flops = 5.0 * n, .items = 1.0 * n};
}

// xyz: 3n floats, point i at xyz[3i .. 3i+2].
void serial_aos(const float* xyz, float* out, std::size_t n);
void serial_soa(const float* x, const float* y, const float* z, float* out, std::size_t n);
void omp_aos(const float* xyz, float* out, std::size_t n);
void omp_soa(const float* x, const float* y, const float* z, float* out, std::size_t n);

}  // namespace tb::aos_soa
