#pragma once
// sgemm: square float32 C = A * B, row-major. Compute-bound (2n^3 FLOPs on 12n^2 bytes), the
// classic test of how close a hand-written kernel gets to the vendor library.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "common/bench_spec.hpp"
#include "common/host_array.hpp"
#include "common/validate.hpp"

namespace tb::sgemm {

constexpr std::uint64_t kSeed = 0x5eed0501;
constexpr std::size_t kArticleSize = 1024;  // the article's: 4 MiB per matrix, inside the L2
constexpr std::size_t kLargeSize = 4096;    // 64 MiB per matrix, 192 MiB in all (~4x the L2)
constexpr std::size_t kQuickSize = 256;
// The timed serial variant runs only up to this n: at 4096 one serial product is 137 GFLOP,
// tens of seconds on one core, and Google Benchmark runs it at least twice (validation and
// timing), past the ~60 s a single benchmark may take. The omp variant is the CPU line there.
constexpr std::size_t kSerialMaxSize = 2048;

inline WorkModel work(std::size_t n) {
  const double nd = static_cast<double>(n);
  // Minimum traffic: read A and B once, write C once. 2 FLOPs (multiply, add) per term.
  return {.read_bytes = 2.0 * sizeof(float) * nd * nd,
          .written_bytes = 1.0 * sizeof(float) * nd * nd,
          .flops = 2.0 * nd * nd * nd,
          .items = nd * nd};
}

// Tolerances are relative to the scale sum_k |a_ik * b_kj| (the `bound` of Reference), not to
// |c_ij|, which cancellation can make arbitrarily small. Every variant sums the K products of an
// element in a chain (serial, omp, naive, tiled and optimized each keep one fp32 accumulator per
// element; with or without FMA), so the depth is k = K + 1 (K additions and the rounding of the
// product). The libraries (OpenBLAS, oneDNN, cuBLAS) sum in blocks: partial sums over k slices
// added together, or a tree. Both bounds below hold for any summation order whose depth (the most
// roundings on any product's path to the result) is at most K + 1, and a blocked or tree order is
// never deeper than the chain, so the same tolerance applies to them. The worst-case bound gamma_k
// = k u / (1 - k u), u = 2^-24 (Higham, 3.1) is 2.4e-4 of the scale at K = 4096: 0.25 absolute, the
// size of a typical product, so it cannot see a dropped term. We use the probabilistic bound of
// Higham and Mary (SIAM J. Sci. Comput. 41(5), 2019, Thm 3.1): with rounding errors independent and
// of mean zero (round to nearest on these random-sign data), |fl(c) - c| <= (exp(lambda sqrt(k) u +
// k u^2 / (1 - u)) - 1) * scale with probability >= 1 - 2k exp(-lambda^2 (1 - u)^2 / 2) per
// element. lambda = 10: a false failure anywhere in the 4096^2 output has probability < 3e-11
// (union bound). At K = 4096 that is 3.8e-5 of the scale (0.039 absolute against ~1024): a dropped
// product larger than that fails, and 83% of the products of these inputs are
// (tests/test_sgemm.cpp).
inline Tolerance tolerance(std::size_t k) {
  constexpr double u = 0x1p-24, lambda = 10.0;
  const double depth = static_cast<double>(k) + 1.0;
  return {.rel = std::expm1(lambda * std::sqrt(depth) * u + depth * u * u / (1.0 - u))};
}
// TF32 tensor cores keep 10 of the 23 mantissa bits of each input, rounded or truncated; we
// assume truncation, the worse: each input a(1 + alpha) with alpha in (-2^-10, 0]. The product
// error a b (alpha + beta) is then a bias of mean -2^-11 * 2 per product, at most 2^-10 |c|
// over the element, plus a centred part with terms in +-2^-10 |a b|. Bernstein's inequality
// bounds the centred part by lambda 2^-10 sqrt(sum (ab)^2 / 2) + lambda^2 2^-10 / 3 (variance
// at most range^2 / 4 per term, |a b| <= 1) with probability >= 1 - 2 exp(-lambda^2 / 2);
// lambda = 8 (< 5e-7 for a false failure over 4096^2 elements). The inputs lie in [-1, 1), so
// sum (ab)^2 <= sum |ab| = bound. check_tf32 subtracts that input-rounding allowance from each
// element's error before dividing by the scale; what is left is the fp32 accumulation's,
// allowed twice the fp32 tolerance (tensor cores may truncate their fp32 sums too). At K = 4096
// the allowance is ~0.2 + 0.08 absolute where the worst-case bound 2^-9 * scale would be 2.0
// and the old tolerance (2^-8 + K 2^-23) 4.5: a dropped 32-wide k-tile (partial sums ~1.9 rms)
// now fails unless its sum is under ~0.3 (about 1 tile in 8 for these inputs, tested).
inline Tolerance tolerance_tf32(std::size_t k) { return {.rel = 2.0 * tolerance(k).rel}; }
// The TF32 input-rounding allowance of one element (absolute), from its exact value c and its
// scale sum |a b| (see above).
inline double tf32_input_allowance(double c, double bound) {
  constexpr double ut = 0x1p-10, lambda = 8.0;
  return ut * (std::fabs(c) + lambda * std::sqrt(bound / 2.0) + lambda * lambda / 3.0);
}

// BF16 (the CPU's AMX and AVX512_BF16 units, the GPU's tensor cores) keeps 8 significand bits of
// each input, rounded to nearest even: each input becomes a(1 + alpha), |alpha| <= u = 2^-8. A
// product of two bf16 values is exact in fp32 (16 bits), so the input rounding adds to each
// product the error e = a b (alpha + beta + alpha beta), |e| <= (2u + u^2) |a b|, and the rest
// is the fp32 accumulation's. Under the model the fp32 tolerance already rests on (rounding
// errors independent and of mean zero: round to nearest on random-sign data; unlike TF32's
// truncation there is no bias), Hoeffding's inequality bounds the sum of the K errors by
// lambda sqrt(sum c_k^2), c_k = (2u + u^2) |a_k b_k|, with probability >= 1 - 2 exp(-lambda^2/2);
// lambda = 8 (< 5e-7 for a false failure over 4096^2 elements). The inputs lie in [-1, 1), so
// sum (a b)^2 <= sum |a b| = bound: the allowance is (2u + u^2) lambda sqrt(bound). check_bf16
// subtracts it from each element's error before dividing by the scale; the accumulation is
// allowed twice the fp32 tolerance, as for TF32 (matrix units may round their fp32 partial sums
// otherwise than to nearest; any order of depth <= K + 1 is covered). At K = 4096 (bound ~1024)
// the allowance is ~2.0 absolute, where the worst-case bound (2u + u^2) bound would be 8.0: a
// dropped 32-wide k-tile (partial sums ~1.9 rms) fails when its sum is over ~2: 27% of them at
// 4096, 59% at 1024, 71% at 257 (tests/test_sgemm.cpp, Bf16DroppedKTileFails). A BF16 result
// checked against the FP32 tolerance fails (the tests check that too): the rows need this check.
inline Tolerance tolerance_bf16(std::size_t k) { return {.rel = 2.0 * tolerance(k).rel}; }
inline double bf16_input_allowance(double bound) {
  constexpr double u = 0x1p-8, lambda = 8.0;
  return (2.0 * u + u * u) * lambda * std::sqrt(bound);
}
// float -> bfloat16 bits, rounded to nearest even (as oneDNN's reorder and CUDA's
// __float2bfloat16_rn round); NaN stays a NaN.
inline std::uint16_t to_bf16(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(bits >> 16);
}
// to_bf16 over `count` floats, in parallel (first touch by the threads that read them).
inline void round_to_bf16(const float* in, std::uint16_t* out, std::size_t count) {
  const auto m = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < m; ++i) out[i] = to_bf16(in[i]);
}
inline float from_bf16(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// The float64 product and the bound sum_k |a_ik * b_kj| the error is measured against.
struct Reference {
  std::size_t n = 0;
  HostArray<double> c;
  HostArray<double> bound;
};

// Float64 reference, blocked and OpenMP-parallel: the same math as the serial variant in
// higher precision, fast enough at n = 4096 (seconds, not the minutes the serial loop takes).
Reference reference(const float* a, const float* b, std::size_t n);
// max_rel is |got - c| / bound; NaN or Inf fails.
ErrorStats check(std::span<const float> got, const Reference& ref);
// For the TF32 variant: max_rel is max(0, |got - c| - tf32_input_allowance) / bound.
ErrorStats check_tf32(std::span<const float> got, const Reference& ref);
// For the BF16 variants: max_rel is max(0, |got - c| - bf16_input_allowance) / bound.
ErrorStats check_bf16(std::span<const float> got, const Reference& ref);

// i-k-j loop order: the inner loop walks rows of B and C contiguously.
void serial(const float* a, const float* b, float* c, std::size_t n);
// The hand-written OpenMP kernel (cpu/sgemm_omp.cpp): packed panels of A and B, an 8 x 48
// register tile of C per micro-kernel, threads over row blocks of C (each element still summed
// as one chain in k order), compiled for each ISA level.
void omp(const float* a, const float* b, float* c, std::size_t n);

}  // namespace tb::sgemm
