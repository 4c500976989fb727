#pragma once
// transpose: out = in^T for a float32 matrix of rows x cols (row-major), out is cols x rows.
// No arithmetic at all: every element is read once and written once, so it measures how well
// each variant turns a strided access pattern into full memory transactions.
#include <cstddef>
#include <cstdint>

#include "common/harness.hpp"
#include "common/validate.hpp"
#include "common/workload.hpp"

namespace tb::transpose {

constexpr std::uint64_t kSeed = 0x5eed0301;
// A transpose only moves bits: every variant must reproduce the input exactly.
constexpr Tolerance kTolerance{0.0};
// 8192^2 floats = 256 MiB per matrix (4x the H200's 60 MiB L2 for each of in and out);
// 4096^2 = 64 MiB per matrix, in + out about twice the L2.
constexpr Dims2 kLarge{8192, 8192};
constexpr Dims2 kMedium{4096, 4096};
constexpr Dims2 kQuick{1024, 1024};
// OpenMP tile: 64 x 64 floats = 16 KiB read + 16 KiB written, inside a 32-48 KiB L1d.
constexpr std::size_t kCpuTile = 64;

// Bytes model: read every element once, write it once; no FLOPs.
inline WorkModel work(std::size_t rows, std::size_t cols) {
  const double n = static_cast<double>(rows) * static_cast<double>(cols);
  return {.read_bytes = sizeof(float) * n, .written_bytes = sizeof(float) * n, .flops = 0.0, .items = n};
}

// in: rows x cols, out: cols x rows, out[c * rows + r] = in[r * cols + c].
void serial(const float* in, float* out, std::size_t rows, std::size_t cols);
// Cache-blocked: kCpuTile x kCpuTile tiles spread over threads, so both the rows read and the
// rows written stay in L1 while a tile is done.
void omp(const float* in, float* out, std::size_t rows, std::size_t cols);

}  // namespace tb::transpose
