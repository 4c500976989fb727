#pragma once
// Poisson samplers shared by the CPU and the GPU (g++ and nvcc both compile this header; no CUDA
// syntax outside __CUDACC__ / __CUDA_ARCH__ guards).
//
// Sample i of a run is drawn by stream i % kStreams, as that stream's (i / kStreams)-th draw, so
// the samples depend neither on the block size nor on the OpenMP thread count, and the CPU and
// the GPU draw exactly the same uniforms.
#include <math.h>

#include <cstddef>
#include <cstdint>

#include "common/xoroshiro.hpp"

namespace tb::poisson {

// 2^18 streams: one per resident thread of an H200 (132 SMs x 2048 threads = 270k), so the GPU
// is full with one stream per thread; on the CPU a stream's state is 16 bytes.
constexpr std::uint64_t kStreams = std::uint64_t{1} << 18;
// Entries of the CDF table; at rate 5, P(k >= 48) is about 1e-22, so the tail loop below is for
// other rates.
constexpr int kTableSize = 48;
constexpr int kTailCap = 1000;     // a bound on the tail walk (p underflows long before)
constexpr int kArticleMaxK = 100;  // the article's walk stops there (tgamma(101) is still finite)

// The CDF of Poisson(rate) for k < kTableSize, as integer thresholds on a 53-bit uniform:
// thr[k] = ceil(F(k) * 2^53), so u53 < thr[k] <=> u53 * 2^-53 < F(k) exactly. The comparison is
// integer-only, hence bit-identical on every machine; the table is built once on the host
// (make_table in cpu/poisson.cpp) and the GPU gets a copy.
// Where the walk continues past the table (small: the GPU keeps it in registers).
struct TailParams {
  double rate = 0.0;
  double p_last = 0.0;    // p(kTableSize - 1)
  double cdf_last = 0.0;  // F(kTableSize - 1)
};
// Guide (index) table over the top kGuideBits bits of u53: guide[j] is the sample of the
// smallest u in bucket j (u = j << kGuideShift), i.e. the smallest k with j << kGuideShift <
// thr[k] (kTableSize when there is none). The inverse transform is monotone in u, so every u of
// bucket j has k >= guide[j], and every threshold below guide[j] is <= u: a walk that starts at
// guide[j] ends at exactly the k of the walk from 0, and takes one compare unless a threshold
// lies inside the bucket (at rate 5, ~15 of 1024 buckets). 1 KiB as uint8 (kTableSize < 256).
constexpr int kGuideBits = 10;
constexpr int kGuideSize = 1 << kGuideBits;
constexpr int kGuideShift = 53 - kGuideBits;
static_assert(kTableSize <= 255, "guide entries are uint8");
struct CdfTable {
  std::uint64_t thr[kTableSize];
  std::uint8_t guide[kGuideSize];
  TailParams tail;
};

// The tail walk continues the host's pmf recurrence p_k = p_{k-1} * rate / k. On the device the
// _rn intrinsics stop nvcc from fusing the multiply and add into an FMA, which would round
// differently from the host (g++ in ISO C++ mode does not contract).
TB_HD inline double mul_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
TB_HD inline double div_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
TB_HD inline double add_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

TB_HD inline int sample_tail(std::uint64_t u53, const TailParams& t) {
  const double u = rng::to_unit(u53);
  double p = t.p_last;
  double c = t.cdf_last;
  for (int k = kTableSize; k < kTailCap; ++k) {
    p = div_rn(mul_rn(p, t.rate), static_cast<double>(k));
    c = add_rn(c, p);
    if (u < c || p == 0.0) return k;
  }
  return kTailCap;
}

// Inverse transform over the table: the smallest k with u < F(k), by the plain walk up from 0.
// Kept as the reference the guided walk is tested against (tests/test_poisson.cpp).
TB_HD inline int inverse_linear(std::uint64_t u, const std::uint64_t* thr, const TailParams& t) {
  int k = 0;
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
  while (k < kTableSize && u >= thr[k]) ++k;
  return k < kTableSize ? k : sample_tail(u, t);
}

// The same k, starting the walk at the guide entry of u's bucket (see CdfTable). `thr` and
// `guide` are the table's (copies in shared memory on the GPU). The linear walk costs rate + 1
// dependent compares on average and a warp waits for its longest lane (~11 at rate 5); the
// guided one costs a guide load and usually one compare.
TB_HD inline int inverse_fast(std::uint64_t u, const std::uint64_t* thr, const std::uint8_t* guide,
                              const TailParams& t) {
  int k = guide[u >> kGuideShift];
  // Not unrolled: nvcc would otherwise keep the whole table in registers (135 per thread).
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
  while (k < kTableSize && u >= thr[k]) ++k;
  return k < kTableSize ? k : sample_tail(u, t);
}

TB_HD inline int sample_fast(rng::Xoroshiro128p& s, const std::uint64_t* thr,
                             const std::uint8_t* guide, const TailParams& t) {
  return inverse_fast(rng::next53(s), thr, guide, t);
}

// What the article's `rate ** k` is in Numba: with an integer k, Numba types float ** int as
// its int_power (numba/cpython/numbers.py): right-to-left binary exponentiation, about log2(k)
// multiplies and as many squarings, no call (the PTX that numba-cuda 0.30 emits for the
// article's kernel is that loop of mul.f64). The first port called pow(rate, double(k)), which
// nvcc compiles to __internal_accurate_pow (a double-double log and exp, ~70 FP64 operations
// and a call in every step of the walk): the reason the C++ port was 1.6x slower than the
// article's Numba kernel on the H200 (2.14 vs 1.33 ms at 10M samples, rate 5). Same loop, so
// the same rounding as Numba's on both machines.
TB_HD inline double int_power(double a, int k) {
  double r = 1.0;
  for (int e = k; e != 0; e >>= 1) {
    if (e & 1) r *= a;
    a *= a;
  }
  return r;
}

// The article's algorithm: inverse transform where every step computes
// p_k = exp(-rate) * rate^k / k! (rate ** k as Numba computes it, above; k! with tgamma, as
// math.gamma is in Numba: libdevice's tgamma on the GPU). exp(-rate) is taken once, before the
// walk: the article writes it inside the loop, but Numba's LLVM hoists it (its PTX computes the
// exp once, before the loop), while nvcc 13.0 left its ~25 FP64 instructions inside the walk
// (PTX of article_kernel: the exp polynomial sits at the loop head). Same value, same order of
// operations as the code Numba runs. The H200 measured the port with only int_power: 1351 us at
// 10M (block 1024) against Numba's 1166 us, the 16% this hoist is for; with it, 1163 against
// Numba's 1167 us in the same run (results/nvidia-h200/2026-12-01).
// The GPU's exp/tgamma may differ from glibc's in the last bit, so this variant is validated
// statistically, not bitwise.
TB_HD inline int sample_article(rng::Xoroshiro128p& s, double rate) {
  const double u = rng::to_unit(rng::next53(s));
  const double p0 = exp(-rate);
  double cdf = 0.0;
  for (int k = 0; k < kArticleMaxK; ++k) {
    cdf += p0 * int_power(rate, k) / tgamma(k + 1.0);
    if (u < cdf) return k;
  }
  return kArticleMaxK;
}

}  // namespace tb::poisson
