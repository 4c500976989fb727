#pragma once
// dtypes: the same two kernels in fp64, fp32, fp16 and int8.
//  - axpy, y = a*x + y: memory-bound, so narrower types should move the same bytes per second
//    (GB/s flat across types, elements per second up with 1/sizeof).
//  - fma: K dependent multiply-adds per element, v = v*a + b, in kChains independent chains
//    (instruction-level parallelism: each chain waits on its own previous result only).
//    Compute-bound; counts 2 ops per FMA and 8 per dp4a (4 multiplies, 4 adds).
// Expected GPU ratios from the H200's published non-tensor rates (SXM): fp64 ~34 TFLOP/s,
// fp32 ~67 TFLOP/s (fp32:fp64 = 2:1), fp16 with half2 ~134 TFLOP/s (2x fp32: one instruction
// does two FMAs), int8 via dp4a quoted at ~4x fp32 in ops. A scalar-fp16 kernel would only
// match fp32; that is why the GPU fp16 kernels use half2.
//
// CPU: the best path the host has, chosen at run time (common/cpu_isa.hpp), and recorded in the
// row's cpu_isa field (axpy_omp_path, fma_omp_path):
//  - fp16 with AVX512_FP16 (Sapphire Rapids and later): native half arithmetic, 32 lanes, one
//    rounding per FMA as on the GPU. Without it: F16C conversions (x86-64-v3 and up) around
//    float arithmetic, rounded to half once per result; on baseline x86-64, libgcc's conversion
//    calls (the serial reference keeps the float computation at every level).
//  - int8 dp4a with AVX512_VNNI (vpdpbusd, unsigned x signed bytes, corrected to signed x signed)
//    where present, else four byte multiplies per word emulated with shifts.
//  - fp64, fp32 (and fp16 without AVX512_FP16): each level's full register width, FMA where the
//    level has it.
// Measured on a 2-core Xeon with AVX512_FP16 and VNNI shared with other jobs (not results; the
// best of many short one-thread runs, so roughly one core's rate): fma per core at avx512
// fp64 73, fp32 135, fp16 (AVX512_FP16) 237 G FLOP/s, int8 (VNNI) 233 G ops/s, against
// 10 / 20 / 17 / 5 at the baseline (SSE2) and 34 / 68 / 59 / 22 at avx2; fp32 at avx512 is at
// the core's roof (2 FMA ports x 16 lanes x 2 FLOP at ~2.1 GHz = 134), fp16 ~88% of twice it.
// axpy in cache per core: fp16 59 GB/s (AVX512_FP16), 33 (F16C), 0.3 (baseline libgcc calls;
// the committed H200 run's 2.9 GB/s on 16 threads); the target's memory share per core is
// ~6 GB/s, so every type's omp axpy is memory-bound there.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "common/bench_spec.hpp"
#include "common/host_array.hpp"
#include "common/random.hpp"
#include "common/validate.hpp"

namespace tb::dtypes {

// IEEE binary16. GCC accepts _Float16 in C++ on x86-64 from GCC 12 and on aarch64 from GCC 13;
// before that aarch64 has __fp16 (the same format, arithmetic promoted to float, as _Float16's is
// on x86-64 without AVX512_FP16), which is all the CPU code here needs: it computes in float and
// rounds to half when it stores.
#if defined(__x86_64__) || defined(__clang__) || !defined(__aarch64__) || __GNUC__ >= 13
using f16 = _Float16;
#else
using f16 = __fp16;
#endif
static_assert(sizeof(f16) == 2);

constexpr std::uint64_t kSeed = 0x5eed0501;
constexpr int kChainLength = 1024;  // K: dependent FMAs per chain
constexpr int kChains = 4;          // independent chains per element (ILP)

// axpy: 64M elements (fp64 1.5 GiB moved, int8 192 MiB, still ~4x the L2).
constexpr std::size_t kAxpySize = std::size_t{1} << 26;
constexpr std::size_t kAxpyQuickSize = std::size_t{1} << 20;
// fma: 4M elements on the GPU (~16 waves of threads over 132 SMs, 34 GFLOP at fp32). The CPU
// does ~1000x less per second, so it runs 256K elements (a second or less per serial call).
constexpr std::size_t kFmaGpuSize = std::size_t{1} << 22;
constexpr std::size_t kFmaCpuSize = std::size_t{1} << 18;
constexpr std::size_t kFmaGpuQuickSize = std::size_t{1} << 18;
constexpr std::size_t kFmaCpuQuickSize = std::size_t{1} << 14;

// Kernel constants. a = 0.75 is exact in every float type and contracts each chain by 0.75 per
// step, so a chain converges to 4b (b = the element) and rounding errors stay bounded by
// ~ulp / (1 - 0.75); |a| < 1 also keeps fp16 far from overflow.
constexpr double kAxpyA = 0.5;
constexpr int kAxpyAInt8 = 3;  // int8 axpy: a*x + y in int32, saturated to [-128, 127]
constexpr double kFmaA = 0.75;

// Per-type facts: the scalar type a kernel computes in on the CPU, the fma output type
// (int8's dp4a chains accumulate into int32, one per 4 input bytes), the name.
template <class T>
struct Dtype;
template <>
struct Dtype<double> {
  using compute = double;
  using fma_out = double;
  static constexpr std::string_view name = "fp64";
};
template <>
struct Dtype<float> {
  using compute = float;
  using fma_out = float;
  static constexpr std::string_view name = "fp32";
};
template <>
struct Dtype<f16> {
  using compute = float;
  using fma_out = f16;
  static constexpr std::string_view name = "fp16";
};
template <>
struct Dtype<std::int8_t> {
  using compute = std::int32_t;
  using fma_out = std::int32_t;
  static constexpr std::string_view name = "int8";
};

// Elements of the fma output: one per element, or one int32 per 4 int8 inputs (zero-padded).
template <class T>
constexpr std::size_t fma_outputs(std::size_t n) {
  return sizeof(T) == 1 ? (n + 3) / 4 : n;
}

// axpy bytes model: read x and y, write y; 2 ops per element.
template <class T>
WorkModel axpy_work(std::size_t n) {
  return {.read_bytes = 2.0 * sizeof(T) * n, .written_bytes = 1.0 * sizeof(T) * n, .flops = 2.0 * n, .items = 1.0 * n};
}
// fma bytes model: read x, write the output; 2 ops per FMA, i.e. 8 per dp4a of 4 byte pairs.
template <class T>
WorkModel fma_work(std::size_t n) {
  using Out = typename Dtype<T>::fma_out;
  const double outs = static_cast<double>(fma_outputs<T>(n));
  const double ops = sizeof(T) == 1 ? 8.0 * kChains * kChainLength * outs
                                    : 2.0 * kChains * kChainLength * static_cast<double>(n);
  return {.read_bytes = sizeof(T) * static_cast<double>(n),
          .written_bytes = sizeof(Out) * outs,
          .flops = ops,
          .items = 1.0 * n};
}

// y = a*x + y over n elements (a = kAxpyA, or kAxpyAInt8 for int8).
template <class T>
void axpy_serial(const T* x, T* y, std::size_t n);
template <class T>
void axpy_omp(const T* x, T* y, std::size_t n);

// out[i] = sum over kChains chains of k steps of v = v*kFmaA + x[i], chain c starting at
// x[i]*(c+1). int8: per 4-byte word w (4 int8 inputs), chain c runs v = dp4a(v, w, c+1) from
// v = w ^ (c * 0x01010101), and out[word] = sum of the chains.
template <class T>
void fma_serial(const T* x, typename Dtype<T>::fma_out* out, std::size_t n, int k);
template <class T>
void fma_omp(const T* x, typename Dtype<T>::fma_out* out, std::size_t n, int k);

// The path axpy_omp / fma_omp take for T on this host at the active ISA level, for the row's
// cpu_isa field: the level's name, or e.g. "avx512 + avx512fp16", "avx2 + f16c",
// "avx512 + avx512vnni".
template <class T>
std::string axpy_omp_path();
template <class T>
std::string fma_omp_path();

// The dp4a instruction: c + the dot product of the 4 signed bytes of a and of b.
constexpr std::int32_t dp4a(std::int32_t a, std::int32_t b, std::int32_t c) {
  for (int j = 0; j < 4; ++j)
    c += static_cast<std::int8_t>(a >> (8 * j)) * static_cast<std::int8_t>(b >> (8 * j));
  return c;
}

// Shared by the benchmarks and the tests, so the two cannot drift apart.
// Tolerances, relative to max(|ref|, floor). Values are O(1) (axpy) and O(16 x) (fma, whose
// chains converge to 4x each), so the floors are the data's own scale.
template <class T>
Tolerance axpy_tolerance() {
  if constexpr (std::is_same_v<T, double>) return {1e-14, 1.0};  // fma vs mul+add: 1 rounding
  if constexpr (std::is_same_v<T, float>) return {1e-6, 1.0};    // ditto in float
  // GPU and the CPU's AVX512_FP16 path: one rounding to half (fma); serial and the F16C path:
  // float multiply (exact, a = 0.5), float add, round to half (a double rounding). At most ~1
  // half ulp (2^-11 relative) apart, and cancellation in a*x + y is covered by the floor.
  if constexpr (std::is_same_v<T, f16>) return {1e-2, 1.0};
  return {0.0};  // int8: integer arithmetic, exact
}
template <class T>
Tolerance fma_tolerance() {
  // Each step rounds once (GPU fma; CPU fma at avx2 and avx512) or twice (the CPU's baseline
  // multiply and add); the chain contracts errors by a = 0.75 per step, so they stay below
  // ~2 ulp / (1 - a) = 8 ulp of the value.
  if constexpr (std::is_same_v<T, double>) return {1e-12, 1e-3};
  if constexpr (std::is_same_v<T, float>) return {1e-5, 1e-3};
  // The reference chains run in float; the GPU's and the CPU's AVX512_FP16 chains round to
  // half (u = 2^-11 relative) at every step. Bound for those, x the element (|x| <= 1): a chain
  // stays within |v| <= 4|x|, so each step adds at most 4u|x|, contracted by a = 0.75 per step:
  // <= 16u|x| per chain (its rounded start 2x, 3x, 4x included); four chains 64u|x|; the three
  // half adds of partial sums up to 8, 12, 16 |x| add 36u|x|; the reference's own rounding to
  // half 16u|x|. Total <= 116u|x| = 0.057|x|, against a tolerance of 1e-2 max(16|x|, 4):
  // within 0.35 of it at every |x|. The error is absolute, on the chain's scale, not relative
  // to a value that may be near 0: the floor is 4. The H200 showed 1.56e-2 absolute on 4M
  // chains of 1024, and the CPU's AVX512_FP16 path (the GPU kernel's operations in the same
  // order) 1.56e-2 on 256K; 1e-2 x 4 = 0.04.
  if constexpr (std::is_same_v<T, f16>) return {1e-2, 4.0};
  return {0.0};  // int8 dp4a chains: exact integer arithmetic
}

// The scalar a each launcher takes (fp16 takes a float and rounds it to half; 0.5 and 0.75 are
// exact).
template <class T>
auto axpy_a() {
  if constexpr (std::is_same_v<T, std::int8_t>)
    return kAxpyAInt8;
  else if constexpr (std::is_same_v<T, double>)
    return kAxpyA;
  else
    return static_cast<float>(kAxpyA);
}
template <class T>
auto fma_a() {
  if constexpr (std::is_same_v<T, std::int8_t>)
    return 0;
  else if constexpr (std::is_same_v<T, double>)
    return kFmaA;
  else
    return static_cast<float>(kFmaA);
}

// ---- The bench's inputs, reference and checks (bench/dtypes.cpp).
// twinbench's buffers hold standard arithmetic types: fp16 lives in them as its bit pattern.
template <class T>
using Stored = std::conditional_t<std::is_same_v<T, f16>, std::uint16_t, T>;
template <class T>
T* as(Stored<T>* p) {
  return reinterpret_cast<T*>(p);
}

// Inputs in [-1, 1) (floats) or [-128, 127] (int8), generated as float/int32 and narrowed.
template <class T>
void fill_input(std::span<T> out, std::uint64_t seed) {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    fill_uniform(out, seed, T(-1), T(1));
  } else {
    using Wide = std::conditional_t<std::is_same_v<T, f16>, float, std::int32_t>;
    HostArray<Wide> wide(out.size());
    if constexpr (std::is_same_v<T, f16>)
      fill_uniform(wide.span(), seed, -1.f, 1.f);
    else
      fill_uniform(wide.span(), seed, -128, 128);
    const auto count = static_cast<std::int64_t>(out.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) {
      const T v = static_cast<T>(wide[i]);
      out[i] = v == T(0) ? T(1) : v;  // a zero input hides an unwritten output
    }
  }
}

// fma_serial on disjoint chunks is still the serial reference (elements are independent),
// spread over threads so the GPU sizes' references take seconds, not minutes. Chunks are
// multiples of 4 elements so that int8 words never straddle two chunks.
template <class T>
void fma_reference(const T* x, typename Dtype<T>::fma_out* out, std::size_t n) {
  constexpr std::size_t kChunk = 4096;
  const auto chunks = static_cast<std::int64_t>((n + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::size_t begin = static_cast<std::size_t>(c) * kChunk;
    const std::size_t len = n - begin < kChunk ? n - begin : kChunk;
    fma_serial(x + begin, out + fma_outputs<T>(begin), len, kChainLength);
  }
}

// An fp16 output against its reference, as half values (the bench holds it to the tolerance).
inline ErrorStats compare_fp16(const std::uint16_t* got, const std::uint16_t* ref, std::size_t n,
                               const Tolerance& tol) {
  return compare(std::span<const f16>(reinterpret_cast<const f16*>(got), n),
                 std::span<const f16>(reinterpret_cast<const f16*>(ref), n), tol);
}

}  // namespace tb::dtypes
