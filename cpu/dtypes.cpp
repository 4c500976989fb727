#include "cpu/dtypes.hpp"

// The x86 paths (F16C, AVX512_FP16, AVX512_VNNI) are written with intrinsics; elsewhere (aarch64)
// every type takes the portable vector code below, which GCC compiles to NEON there.
#if defined(__x86_64__) && defined(__GNUC__)
#define TB_DTYPES_X86 1
#include <immintrin.h>
#else
#define TB_DTYPES_X86 0
#endif

#include <algorithm>
#include <type_traits>

#include "common/cpu_isa.hpp"
#include "cpu/streaming.hpp"

namespace tb::dtypes {
namespace {

using cpu_isa::Level;

template <class T>
inline T axpy_one(T x, T y) {
  if constexpr (std::is_same_v<T, std::int8_t>) {
    const std::int32_t r = kAxpyAInt8 * std::int32_t{x} + std::int32_t{y};
    return static_cast<std::int8_t>(std::clamp(r, -128, 127));
  } else if constexpr (std::is_same_v<T, f16>) {
    return static_cast<f16>(static_cast<float>(kAxpyA) * static_cast<float>(x) +
                            static_cast<float>(y));
  } else {
    return static_cast<T>(kAxpyA) * x + y;
  }
}

// Which special path the omp variants of fp16 and int8 take at the active level.
bool use_avx512fp16() {
  return TB_DTYPES_X86 && cpu_isa::active_level() == Level::avx512 &&
         cpu_isa::has_feature("avx512fp16");
}
// x86-64-v3 includes F16C
bool use_f16c() { return TB_DTYPES_X86 && cpu_isa::active_level() >= Level::avx2; }
bool use_avx512vnni() {
  return TB_DTYPES_X86 && cpu_isa::active_level() == Level::avx512 &&
         cpu_isa::has_feature("avx512vnni");
}

// ---- axpy ----------------------------------------------------------------------------------

// Every type's axpy at every level. fp64, fp32 and int8 vectorize at the level's width; fp16
// does not (GCC 12 vectorizes _Float16 conversions only with AVX512_FP16), so at avx2 and
// avx512 it is a scalar loop with one-instruction conversions (vcvtph2ps/vcvtps2ph) and at the
// baseline one with libgcc calls: that is the serial reference, and the omp fp16 paths below.
template <class T>
[[gnu::always_inline]] inline void axpy_range(const T* x, T* y, std::size_t begin,
                                              std::size_t end) {
#pragma omp simd
  for (std::size_t i = begin; i < end; ++i) y[i] = axpy_one(x[i], y[i]);
}
TB_ISA_CLONES(axpy_range_isa, axpy_range)

#if TB_DTYPES_X86
// fp16 with F16C: 8 halves widened to floats, a*x + y in float as axpy_one computes it (a*x is
// exact, a = 0.5; the add rounds to float) and rounded to half to nearest-even as the scalar
// conversion does, so the result is serial's, bit for bit. The tail runs the same scalar code
// as serial.
TB_ISA_TARGET_AVX2 void axpy_f16c_range(const f16* x, f16* y, std::size_t begin, std::size_t end) {
  const __m256 a = _mm256_set1_ps(static_cast<float>(kAxpyA));
  std::size_t i = begin;
  for (; i + 8 <= end; i += 8) {
    const __m256 vx = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i)));
    const __m256 vy = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(y + i)));
    const __m256 r = _mm256_add_ps(_mm256_mul_ps(a, vx), vy);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i),
                     _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  for (; i < end; ++i) y[i] = axpy_one(x[i], y[i]);
}

// Lanes [0, m) of a 32-lane mask (m <= 32).
constexpr __mmask32 lane_mask(std::size_t m) {
  return m >= 32 ? ~__mmask32{0} : static_cast<__mmask32>((std::uint32_t{1} << m) - 1);
}

// fp16 with AVX512_FP16: 32 halves per instruction, y = fma(a, x, y) rounded once to half, as
// the GPU's __hfma2 does (serial rounds twice: to float, then to half; see axpy_tolerance).
// The tail is a masked vector, so every element gets the same single rounding.
[[gnu::target("arch=x86-64-v4,avx512fp16")]] void axpy_avx512fp16_range(const f16* x, f16* y,
                                                                        std::size_t begin,
                                                                        std::size_t end) {
  const __m512h a = _mm512_set1_ph(static_cast<f16>(kAxpyA));
  for (std::size_t i = begin; i < end; i += 32) {
    const __mmask32 m = lane_mask(end - i);
    const __m512h vx = _mm512_castsi512_ph(_mm512_maskz_loadu_epi16(m, x + i));
    const __m512h vy = _mm512_castsi512_ph(_mm512_maskz_loadu_epi16(m, y + i));
    _mm512_mask_storeu_epi16(y + i, m, _mm512_castph_si512(_mm512_fmadd_ph(a, vx, vy)));
  }
}

#endif  // TB_DTYPES_X86

// One thread's slice of the omp axpy: the fastest path this host has at the active level.
template <class T>
void axpy_omp_range(const T* x, T* y, std::size_t begin, std::size_t end) {
#if TB_DTYPES_X86
  if constexpr (std::is_same_v<T, f16>) {
    if (use_avx512fp16()) return axpy_avx512fp16_range(x, y, begin, end);
    if (use_f16c()) return axpy_f16c_range(x, y, begin, end);
  }
#endif
  axpy_range_isa(x, y, begin, end);
}

// ---- fma chains ----------------------------------------------------------------------------

// Outputs are done two vector registers at a time (W bytes each: 16 on SSE2, 32 on AVX2, 64 on
// AVX-512): with kChains chains that is 8 independent vector chains per step, enough to cover
// the 4-cycle latency of an FMA on two vector ports, and 8 + 2 + 1 registers, so nothing spills
// at any level (registers of twice the level's width did spill: GCC splits them into halves, 22
// live registers on SSE2 and AVX2). Where the level has FMA (avx2, avx512) GCC contracts
// v*a + b into one FMA (C++'s default -ffp-contract=fast; objdump shows vfmadd*ps/pd): one
// rounding a step, as on the GPU; the baseline multiplies and adds (see fma_tolerance).
template <class C, std::size_t W>
using Vec [[gnu::vector_size(W)]] = C;

template <class T, std::size_t W>
[[gnu::always_inline]] inline void fma_range_w(const T* x, typename Dtype<T>::fma_out* out,
                                               std::size_t begin, std::size_t end, int k) {
  using C = typename Dtype<T>::compute;
  using Out = typename Dtype<T>::fma_out;
  using V = Vec<C, W>;
  constexpr std::size_t kL = W / sizeof(C);
  const C a = static_cast<C>(kFmaA);
  for (std::size_t i0 = begin; i0 < end; i0 += 2 * kL) {
    const std::size_t m = std::min(2 * kL, end - i0);
    V b0 = {}, b1 = {};
    for (std::size_t j = 0; j < m; ++j) (j < kL ? b0[j] : b1[j - kL]) = static_cast<C>(x[i0 + j]);
    V v0 = b0, v1 = b0 * C(2), v2 = b0 * C(3), v3 = b0 * C(4);
    V w0 = b1, w1 = b1 * C(2), w2 = b1 * C(3), w3 = b1 * C(4);
    for (int s = 0; s < k; ++s) {
      v0 = v0 * a + b0;
      v1 = v1 * a + b0;
      v2 = v2 * a + b0;
      v3 = v3 * a + b0;
      w0 = w0 * a + b1;
      w1 = w1 * a + b1;
      w2 = w2 * a + b1;
      w3 = w3 * a + b1;
    }
    const V sum0 = ((v0 + v1) + v2) + v3;
    const V sum1 = ((w0 + w1) + w2) + w3;
    for (std::size_t j = 0; j < m; ++j)
      out[i0 + j] = static_cast<Out>(j < kL ? sum0[j] : sum1[j - kL]);
  }
}

// Word q of an int8 array: bytes 4q .. 4q+3, little-endian, missing bytes past n read as 0.
inline std::int32_t load_word(const std::int8_t* x, std::size_t n, std::size_t q) {
  std::uint32_t w = 0;
  for (std::size_t j = 0; j < 4 && 4 * q + j < n; ++j)
    w |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(x[4 * q + j])) << (8 * j);
  return static_cast<std::int32_t>(w);
}

// v = dp4a(v, w, c) on every lane: each byte sign-extended by shifting it to the top and back.
// (By reference: always inlined, and a vector passed by value warns about the ABI.)
template <std::size_t W>
[[gnu::always_inline]] inline void dp4a_lanes(Vec<std::int32_t, W>& v,
                                              const Vec<std::int32_t, W>& w, std::int32_t c) {
  Vec<std::int32_t, W> r = Vec<std::int32_t, W>{} + c;
  for (int j = 0; j < 4; ++j) {
    const int up = 24 - 8 * j;
    r += ((v << up) >> 24) * ((w << up) >> 24);
  }
  v = r;
}

// int8 without VNNI: one register of words, 4 chains (each step is 4 multiplies and a dozen
// shifts and adds per lane, so 4 chains already keep the ports busy).
template <std::size_t W>
[[gnu::always_inline]] inline void fma_range_int8_w(const std::int8_t* x, std::size_t n,
                                                    std::int32_t* out, std::size_t begin,
                                                    std::size_t end, int k) {
  using IVec = Vec<std::int32_t, W>;
  constexpr std::size_t kW = W / sizeof(std::int32_t);
  for (std::size_t q0 = begin; q0 < end; q0 += kW) {
    const std::size_t m = std::min(kW, end - q0);
    IVec w = {};
    for (std::size_t j = 0; j < m; ++j) w[j] = load_word(x, n, q0 + j);
    IVec v0 = w, v1 = w ^ 0x01010101, v2 = w ^ 0x02020202, v3 = w ^ 0x03030303;
    for (int s = 0; s < k; ++s) {
      dp4a_lanes<W>(v0, w, 1);
      dp4a_lanes<W>(v1, w, 2);
      dp4a_lanes<W>(v2, w, 3);
      dp4a_lanes<W>(v3, w, 4);
    }
    const IVec sum = v0 + v1 + v2 + v3;
    for (std::size_t j = 0; j < m; ++j) out[q0 + j] = sum[j];
  }
}

// Outputs [begin, end) of any type at vector width W.
template <std::size_t W, class T>
[[gnu::always_inline]] inline void fma_outputs_w(const T* x, typename Dtype<T>::fma_out* out,
                                                 std::size_t n, std::size_t begin, std::size_t end,
                                                 int k) {
  if constexpr (std::is_same_v<T, std::int8_t>)
    fma_range_int8_w<W>(x, n, out, begin, end, k);
  else
    fma_range_w<T, W>(x, out, begin, end, k);
}

// One version per level, each at its level's register width (why not TB_ISA_CLONES: the width
// differs per level, and 64-byte vectors compiled for AVX2 would spill).
template <class T>
TB_ISA_TARGET_AVX512 void fma_outputs_avx512(const T* x, typename Dtype<T>::fma_out* out,
                                             std::size_t n, std::size_t begin, std::size_t end,
                                             int k) {
  fma_outputs_w<64>(x, out, n, begin, end, k);
}
template <class T>
TB_ISA_TARGET_AVX2 void fma_outputs_avx2(const T* x, typename Dtype<T>::fma_out* out, std::size_t n,
                                         std::size_t begin, std::size_t end, int k) {
  fma_outputs_w<32>(x, out, n, begin, end, k);
}
template <class T>
void fma_outputs_baseline(const T* x, typename Dtype<T>::fma_out* out, std::size_t n,
                          std::size_t begin, std::size_t end, int k) {
  fma_outputs_w<16>(x, out, n, begin, end, k);
}

template <class T>
void fma_outputs_isa(const T* x, typename Dtype<T>::fma_out* out, std::size_t n, std::size_t begin,
                     std::size_t end, int k) {
  switch (cpu_isa::active_level()) {
    case Level::avx512:
      return fma_outputs_avx512(x, out, n, begin, end, k);
    case Level::avx2:
      return fma_outputs_avx2(x, out, n, begin, end, k);
    default:
      return fma_outputs_baseline(x, out, n, begin, end, k);
  }
}

#if TB_DTYPES_X86
// fp16 chains in half with AVX512_FP16: the GPU kernel's operations (gpu/dtypes.cu: the starts
// 2b, 3b, 4b by a half multiply, k half FMAs per chain, the chains summed by half adds in the
// same order), 32 lanes a register, two registers (8 chains of 4-cycle FMAs on two ports).
// Twice fp32's lanes per instruction, and one FMA per step where fp32 takes a multiply and an
// add. The error bound against the float reference is in fma_tolerance.
[[gnu::target("arch=x86-64-v4,avx512fp16")]] void fma_avx512fp16_range(const f16* x, f16* out,
                                                                       std::size_t begin,
                                                                       std::size_t end, int k) {
  const __m512h a = _mm512_set1_ph(static_cast<f16>(kFmaA));
  const __m512h two = _mm512_set1_ph(f16(2)), three = _mm512_set1_ph(f16(3)),
                four = _mm512_set1_ph(f16(4));
  for (std::size_t i0 = begin; i0 < end; i0 += 64) {
    const std::size_t m = std::min<std::size_t>(64, end - i0);
    const __mmask32 m0 = lane_mask(m), m1 = lane_mask(m > 32 ? m - 32 : 0);
    // Masked loads of the tail: lanes past the end read as 0 and never fault.
    const __m512h b0 = _mm512_castsi512_ph(_mm512_maskz_loadu_epi16(m0, x + i0));
    const __m512h b1 = _mm512_castsi512_ph(_mm512_maskz_loadu_epi16(m1, x + i0 + 32));
    __m512h v0 = b0, v1 = _mm512_mul_ph(b0, two), v2 = _mm512_mul_ph(b0, three),
            v3 = _mm512_mul_ph(b0, four);
    __m512h w0 = b1, w1 = _mm512_mul_ph(b1, two), w2 = _mm512_mul_ph(b1, three),
            w3 = _mm512_mul_ph(b1, four);
    for (int s = 0; s < k; ++s) {
      v0 = _mm512_fmadd_ph(v0, a, b0);
      v1 = _mm512_fmadd_ph(v1, a, b0);
      v2 = _mm512_fmadd_ph(v2, a, b0);
      v3 = _mm512_fmadd_ph(v3, a, b0);
      w0 = _mm512_fmadd_ph(w0, a, b1);
      w1 = _mm512_fmadd_ph(w1, a, b1);
      w2 = _mm512_fmadd_ph(w2, a, b1);
      w3 = _mm512_fmadd_ph(w3, a, b1);
    }
    const __m512h sum0 = _mm512_add_ph(_mm512_add_ph(_mm512_add_ph(v0, v1), v2), v3);
    const __m512h sum1 = _mm512_add_ph(_mm512_add_ph(_mm512_add_ph(w0, w1), w2), w3);
    _mm512_mask_storeu_epi16(out + i0, m0, _mm512_castph_si512(sum0));
    _mm512_mask_storeu_epi16(out + i0 + 32, m1, _mm512_castph_si512(sum1));
  }
}

// int8 dp4a chains with AVX512_VNNI. vpdpbusd adds to each int32 lane the dot product of 4
// UNSIGNED bytes of one operand with 4 signed bytes of the other; dp4a's are both signed. Since
// s(v_j) = u(v_j ^ 0x80) - 128:
//   dp4a(v, w, c) = c + sum s(v_j) s(w_j) = (c - 128 sum s(w_j)) + vpdpbusd(v ^ 0x80808080, w)
// and w is fixed along a chain, so c - 128 sum s(w_j) is one constant register per chain: a
// step is an xor and a vpdpbusd (6 cycles of latency; 8 chains in flight, two registers of 16
// words). Exact integer arithmetic (wrapping as dp4a's does), so the result is serial's.
[[gnu::target("arch=x86-64-v4,avx512vnni")]] void fma_avx512vnni_range(const std::int8_t* x,
                                                                       std::size_t n,
                                                                       std::int32_t* out,
                                                                       std::size_t begin,
                                                                       std::size_t end, int k) {
  const __m512i flip = _mm512_set1_epi32(static_cast<int>(0x80808080u));
  const __m512i ones = _mm512_set1_epi32(0x01010101);
  for (std::size_t q0 = begin; q0 < end; q0 += 32) {
    const std::size_t m = std::min<std::size_t>(32, end - q0);
    alignas(64) std::int32_t words[32] = {};
    if (4 * (q0 + m) <= n) {
      std::copy_n(reinterpret_cast<const std::uint8_t*>(x) + 4 * q0, 4 * m,
                  reinterpret_cast<std::uint8_t*>(words));
    } else {
      for (std::size_t j = 0; j < m; ++j) words[j] = load_word(x, n, q0 + j);
    }
    __m512i w[2], bias[2][kChains], v[2][kChains];
    for (int h = 0; h < 2; ++h) {
      w[h] = _mm512_load_si512(words + 16 * h);
      // sum s(w_j) * 1 per word, then c - 128 * that for chain c = 1..4.
      const __m512i sum_w = _mm512_dpbusd_epi32(_mm512_setzero_si512(), ones, w[h]);
      for (int c = 0; c < kChains; ++c) {
        bias[h][c] = _mm512_sub_epi32(_mm512_set1_epi32(c + 1),
                                      (__m512i)((Vec<std::int32_t, 64>)sum_w * 128));
        v[h][c] = _mm512_xor_si512(w[h], _mm512_set1_epi32(c * 0x01010101));
      }
    }
    for (int s = 0; s < k; ++s)
      for (int h = 0; h < 2; ++h)
        for (int c = 0; c < kChains; ++c)
          v[h][c] = _mm512_dpbusd_epi32(bias[h][c], _mm512_xor_si512(v[h][c], flip), w[h]);
    for (int h = 0; h < 2; ++h) {
      const __m512i sum =
          _mm512_add_epi32(_mm512_add_epi32(v[h][0], v[h][1]), _mm512_add_epi32(v[h][2], v[h][3]));
      _mm512_store_si512(words + 16 * h, sum);
    }
    std::copy_n(words, m, out + q0);
  }
}

#endif  // TB_DTYPES_X86

// The unit of work the omp fma loop hands out: a multiple of every path's outputs per trip
// (2 registers: up to 64 halves or 32 int8 words).
constexpr std::size_t kBlock = 64;

template <class T>
void fma_omp_range(const T* x, typename Dtype<T>::fma_out* out, std::size_t n, std::size_t begin,
                   std::size_t end, int k) {
#if TB_DTYPES_X86
  if constexpr (std::is_same_v<T, f16>) {
    if (use_avx512fp16()) return fma_avx512fp16_range(x, out, begin, end, k);
  } else if constexpr (std::is_same_v<T, std::int8_t>) {
    if (use_avx512vnni()) return fma_avx512vnni_range(x, n, out, begin, end, k);
  }
#endif
  fma_outputs_isa(x, out, n, begin, end, k);
}

}  // namespace

template <class T>
void axpy_serial(const T* x, T* y, std::size_t n) {
  // fp16: one element at a time, vcvtph2ps/vcvtps2ph at avx2 and avx512 (GCC 12 does not
  // vectorize _Float16 conversions, even with AVX512_FP16 enabled), ~3.4 GB/s a core in cache;
  // kept so, rather than on the F16C path, so that the reference stays independent of the code
  // it checks.
  axpy_range_isa(x, y, std::size_t{0}, n);
}

template <class T>
void axpy_omp(const T* x, T* y, std::size_t n) {
  // Each thread the slice schedule(static) gave it when x and y were filled (first touch).
#pragma omp parallel
  {
    const streaming::Range r = streaming::this_thread_range(n);
    axpy_omp_range(x, y, r.begin, r.end);
  }
}

template <class T>
void fma_serial(const T* x, typename Dtype<T>::fma_out* out, std::size_t n, int k) {
  fma_outputs_isa(x, out, n, 0, fma_outputs<T>(n), k);
}

template <class T>
void fma_omp(const T* x, typename Dtype<T>::fma_out* out, std::size_t n, int k) {
  const std::size_t outs = fma_outputs<T>(n);
  const auto blocks = static_cast<std::int64_t>((outs + kBlock - 1) / kBlock);
  // Every block costs the same, so a static schedule balances.
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::size_t begin = static_cast<std::size_t>(b) * kBlock;
    fma_omp_range(x, out, n, begin, std::min(begin + kBlock, outs), k);
  }
}

template <class T>
std::string axpy_omp_path() {
  if constexpr (std::is_same_v<T, f16>) {
    if (use_avx512fp16()) return "avx512 + avx512fp16";
    if (use_f16c()) return "avx2 + f16c";  // the x86-64-v3 version, at avx2 and avx512
  }
  return cpu_isa::name(cpu_isa::active_level());
}

template <class T>
std::string fma_omp_path() {
  if constexpr (std::is_same_v<T, f16>) {
    if (use_avx512fp16()) return "avx512 + avx512fp16";
  } else if constexpr (std::is_same_v<T, std::int8_t>) {
    if (use_avx512vnni()) return "avx512 + avx512vnni";
  }
  return cpu_isa::name(cpu_isa::active_level());
}

#define TB_DTYPES_INSTANTIATE(T)                                               \
  template void axpy_serial<T>(const T*, T*, std::size_t);                     \
  template void axpy_omp<T>(const T*, T*, std::size_t);                        \
  template void fma_serial<T>(const T*, Dtype<T>::fma_out*, std::size_t, int); \
  template void fma_omp<T>(const T*, Dtype<T>::fma_out*, std::size_t, int);    \
  template std::string axpy_omp_path<T>();                                     \
  template std::string fma_omp_path<T>();
TB_DTYPES_INSTANTIATE(double)
TB_DTYPES_INSTANTIATE(float)
TB_DTYPES_INSTANTIATE(f16)
TB_DTYPES_INSTANTIATE(std::int8_t)
#undef TB_DTYPES_INSTANTIATE

}  // namespace tb::dtypes
