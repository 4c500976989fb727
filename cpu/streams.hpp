#pragma once
// streams: a chunked pipeline over a large array in pinned host memory (copy a chunk in, run a
// kernel on it, copy it out) spread over 1, 2, 4 or 8 CUDA streams, against the one-stream,
// one-chunk version, to show how much of the copies and the compute overlap. The compute stage
// is a chain of `fma` fused multiply-adds per element, so its cost is an argument: fma:16 leaves
// the copies dominant, fma:2048 makes the kernel about as long as each copy on an H200.
//
// The CPU side holds the serial reference of the compute stage (and an OpenMP twin).
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "common/bench_spec.hpp"
#include "common/validate.hpp"

namespace tb::streams {

constexpr std::uint64_t kSeed = 0x5eed5743;
// 64M floats = 256 MiB each way: each copy takes ~5 ms over PCIe, long enough for 64 chunks
// to overlap; --full runs 256M (1 GiB each way, 35 s of the default run on the H200).
constexpr std::size_t kDefaultSize = std::size_t{1} << 26;
constexpr std::size_t kFullSize = std::size_t{1} << 28;
constexpr std::size_t kQuickSize = std::size_t{1} << 22;    // 4M floats = 16 MiB
// x <- x * kA + kB converges slowly to 1 (kA^2048 ~ 0.8), so after thousands of steps every
// output still depends on its input: a chunk copied to the wrong place cannot pass.
constexpr float kA = 0.9999f;
constexpr float kB = 1e-4f;
constexpr int kFmaLight = 16;       // copy-bound: the kernel is a small fraction of the copies
constexpr int kFmaBalanced = 2048;  // ~4 ms for 64M on an H200 (33 T FMA/s), ~ one copy of 256 MiB
// CPU and GPU both do the same chain of correctly rounded fmaf in the same order, so outputs are
// bit-identical; the tolerance only leaves room for a flush-to-zero difference (none expected:
// values stay near [-1, 1]).
constexpr Tolerance kTolerance{1e-6};

// The compute stage of one element. std::fma rounds once, like the GPU's __fmaf_rn.
inline float element(float x, int fma) {
  for (int k = 0; k < fma; ++k) x = std::fma(x, kA, kB);
  return x;
}

// Bytes model: 4 B per element copied in and 4 B copied out over the host link (the device
// reads and writes each element once more in HBM, not counted); 2 FLOP per FMA.
inline WorkModel work(std::size_t n, int fma) {
  const double e = static_cast<double>(n);
  return {.read_bytes = 4.0 * e, .written_bytes = 4.0 * e, .flops = 2.0 * fma * e, .items = e};
}

void serial(const float* in, float* out, std::size_t n, int fma);
void omp(const float* in, float* out, std::size_t n, int fma);

}  // namespace tb::streams
