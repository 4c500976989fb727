#pragma once
// transpose: out = in^T for a float32 matrix of rows x cols (row-major), out is cols x rows.
// No arithmetic at all: every element is read once and written once, so it measures how well
// each variant turns a strided access pattern into full memory transactions.
#include <cstddef>
#include <cstdint>

#include "common/bench_spec.hpp"
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

// Bytes model: read every element once, write it once; no FLOPs.
inline WorkModel work(std::size_t rows, std::size_t cols) {
  const double n = static_cast<double>(rows) * static_cast<double>(cols);
  return {.read_bytes = sizeof(float) * n,
          .written_bytes = sizeof(float) * n,
          .flops = 0.0,
          .items = n};
}

// in: rows x cols, out: cols x rows, out[c * rows + r] = in[r * cols + c].
void serial(const float* in, float* out, std::size_t rows, std::size_t cols);
// Strips of 16 input rows over the threads; along a strip, W x W blocks (W = 16, 8, 4 floats:
// the vector width of the ISA level that runs) loaded as W vectors, transposed in registers
// and stored as W vectors. Streaming (non-temporal) stores where the output allows them
// (AVX-512: whole 64-byte lines, the output aligned and rows a multiple of 16).
void omp(const float* in, float* out, std::size_t rows, std::size_t cols);
// omp with the store kind chosen (the tests run both paths): cached never streams; streaming
// (omp's choice) streams where the output allows it, else stores as cached does.
enum class Stores { cached, streaming };
void omp_with(const float* in, float* out, std::size_t rows, std::size_t cols, Stores stores);

}  // namespace tb::transpose
