#include "cpu/poisson.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "common/cpu_isa.hpp"

namespace tb::poisson {
namespace {

// Streams are generated in chunks: a chunk's states stay in L2 while its samples are written
// row by row (sample t + row * kStreams), so each row writes a contiguous 16 KiB run.
constexpr std::uint64_t kChunk = 4096;

template <class Sample>
void generate_chunk(std::int32_t* out, std::size_t n, std::uint64_t seed, std::uint64_t first,
                    Sample&& sample) {
  const std::uint64_t streams = std::min<std::uint64_t>(n, kStreams);
  const std::uint64_t last = std::min(first + kChunk, streams);
  if (first >= last) return;
  std::vector<rng::Xoroshiro128p> states(last - first);
  for (std::uint64_t t = first; t < last; ++t) states[t - first] = rng::seed_stream(seed, t);
  for (std::size_t base = 0; base < n; base += kStreams) {
    const std::uint64_t end = std::min<std::uint64_t>(last, n - base);
    for (std::uint64_t t = first; t < end; ++t) out[base + t] = sample(states[t - first]);
  }
}

std::int64_t chunks(std::size_t n) {
  const std::uint64_t streams = std::min<std::uint64_t>(n, kStreams);
  return static_cast<std::int64_t>((streams + kChunk - 1) / kChunk);
}

template <class Sample>
void generate_serial(std::int32_t* out, std::size_t n, std::uint64_t seed, Sample sample) {
  for (std::int64_t c = 0; c < chunks(n); ++c) generate_chunk(out, n, seed, c * kChunk, sample);
}

template <class Sample>
void generate_omp(std::int32_t* out, std::size_t n, std::uint64_t seed, Sample sample) {
  // dynamic: the article sampler's cost per sample varies with k.
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t c = 0; c < chunks(n); ++c) generate_chunk(out, n, seed, c * kChunk, sample);
}

// ---- The omp kernel: many streams per thread in vector lanes, inverse transform by search. ----
//
// The serial loop draws one sample at a time: a scalar xoroshiro step, then a guide-table load
// and a data-dependent walk, ~10-20 ns a sample. Here one vector lane holds one stream (8 streams
// a 512-bit register; the states of a batch of kLaneBatch streams as two arrays, s0 and s1), and
// a row of the batch (one draw of each stream) is one vector loop. The lanes are the same
// streams the reference uses (stream t draws samples t, t + kStreams, ...), so the output stays
// bit-identical to serial.
//
// Why not the guided walk: it is a gather (the guide entry) and a branch per lane, and in a
// vector every lane waits for the longest walk. The sample is the number of thresholds <= u (the
// thresholds are sorted, so that count is where the walk stops). The first kSearched thresholds
// sit in two registers, and a branch-free binary search over them (4 steps of: add, a two-
// register permute as the table lookup, a compare, a select) gives the count: 16 vector
// operations for 8 samples, against 32 or more for a compare and an add per threshold (GCC made
// 48 of that loop: it ran 16 lanes for the int32 store and packed every pair of masks). A count
// of kSearched means u is at or past the last searched threshold: those lanes (P(X >= 15) =
// 2.3e-4 at rate 5; every lane at rates far above 5, where this kernel stays correct but is no
// faster) take the scalar guided walk of the serial sampler, from the same u.
//
// Where it should land on the target (16 cores of an Emerald Rapids Xeon, 100M samples): the
// AVX-512 loop is ~30 instructions for 8 samples, ~21 of them on the two 512-bit ALU ports (the
// permutes and mask compares all on port 5), so >= ~1.3 cycles a sample: ~2.7 ms of compute on
// 16 cores at 3 GHz. Writing the 400 MB bounds it: 7.8 ms at the plain-store write ceiling the
// committed H200 run measured (51 GB/s: each line is read before it is overwritten), ~4.5 ms
// with the non-temporal stores used here at that size if they reach the ~85-95 GB/s a write
// stream without the read can (triad moved 89 GB/s there). Expected 5-8 ms, write-bound,
// against 22.5 ms for the old omp row and the 12 ms target. Measured on the 2-vCPU build
// machine (load average 11-17 from other builds: ratios only, not results), one thread, 10M
// samples: serial 9-17 ns a sample, this kernel 4.1-5.1 (AVX-512), 12.5-17 (AVX2), 11-18
// (baseline); in CPU time (perf stat, user) 1.7 against 3.6 ns for serial. Two threads, 100M:
// 3.7-4.7 ns a sample with non-temporal stores, 5.2-6.0 with plain ones.
constexpr std::size_t kLaneBatch = 1024;  // s0, s1, u: 24 KiB, in L1 with room to spare
constexpr int kSearched = 15;             // 4 halvings decide among 16 counts: 0 .. 15
static_assert(kSearched < kTableSize);

struct alignas(64) LaneBatch {
  std::uint64_t s0[kLaneBatch];
  std::uint64_t s1[kLaneBatch];
  std::uint64_t u[kLaneBatch];  // AVX2: this row's uniforms, for the lanes that fall back
};

// The states of streams first .. first + m - 1 (seed_stream, unchanged: splitmix64 vectorises).
[[gnu::always_inline]] inline void seed_lanes(LaneBatch* b, std::uint64_t seed, std::uint64_t first,
                                              std::size_t m) {
#pragma omp simd
  for (std::size_t j = 0; j < m; ++j) {
    const rng::Xoroshiro128p s = rng::seed_stream(seed, first + j);
    b->s0[j] = s.s0;
    b->s1[j] = s.s1;
  }
}
TB_ISA_CLONES(seed_lanes_isa, seed_lanes)

// GCC's generic vectors: 8 lanes of uint64 (one zmm register), 8 int32 (one ymm).
typedef std::uint64_t U64x8 __attribute__((vector_size(64)));
typedef std::int32_t I32x8 __attribute__((vector_size(32)));

// One draw of lanes 0 .. m - 1 into out[0 .. m): rng::next (vprolq for the rotations) and the
// search, 8 lanes at a time; the last m % 8 lanes take the serial sampler. AVX-512 only (the
// other levels count or walk, below), so compiled for it alone. A vector with a lane at
// kSearched (0.2% of them at rate 5) resolves that lane with the scalar guided walk before the
// store: with non-temporal stores, going back to the row afterwards would read it from memory.
// `stream`: the 8 samples go out with a non-temporal store (out + j must then be 32-byte
// aligned; see omp_impl). `resolve` is false only in a mutation test. Returns false: nothing is
// left to resolve.
#if defined(__x86_64__) && defined(__GNUC__)
TB_ISA_TARGET_AVX512 bool sample_row_search(LaneBatch* b, std::int32_t* out, std::size_t m,
                                            const CdfTable& table, bool stream, bool resolve) {
  U64x8 lo, hi;  // thresholds 0 .. 7 and 8 .. 15: the permute's 16-entry table
  __builtin_memcpy(&lo, table.thr, sizeof lo);
  __builtin_memcpy(&hi, table.thr + 8, sizeof hi);
  std::size_t j = 0;
  for (; j + 8 <= m; j += 8) {
    U64x8 s0, s1;
    __builtin_memcpy(&s0, b->s0 + j, sizeof s0);
    __builtin_memcpy(&s1, b->s1 + j, sizeof s1);
    // rng::next, lane by lane (the same constants: rotl 24, shift 16, rotl 37).
    const U64x8 u = (s0 + s1) >> 11;
    const U64x8 x = s1 ^ s0;
    s0 = ((s0 << 24) | (s0 >> 40)) ^ x ^ (x << 16);
    s1 = (x << 37) | (x >> 27);
    __builtin_memcpy(b->s0 + j, &s0, sizeof s0);
    __builtin_memcpy(b->s1 + j, &s1, sizeof s1);
    // k = how many of thr[0 .. 14] are <= u: after the steps, thr[k - 1] <= u < thr[k].
    U64x8 k = {};
    for (std::uint64_t step : {8u, 4u, 2u, 1u}) {
      const U64x8 next = k + step;
      const U64x8 t = __builtin_shuffle(lo, hi, next - 1);
      k = u >= t ? next : k;
    }
    const __mmask8 past =
        _mm512_cmpeq_epu64_mask(reinterpret_cast<__m512i>(k), _mm512_set1_epi64(kSearched));
    if (__builtin_expect(past != 0, 0) && resolve) {
      for (int l = 0; l < 8; ++l)
        if (past >> l & 1) k[l] = inverse_fast(u[l], table.thr, table.guide, table.tail);
    }
    const I32x8 k32 = __builtin_convertvector(k, I32x8);
    if (stream) {
      _mm256_stream_si256(reinterpret_cast<__m256i*>(out + j), reinterpret_cast<__m256i>(k32));
    } else {
      __builtin_memcpy(out + j, &k32, sizeof k32);
    }
  }
  for (; j < m; ++j) {
    rng::Xoroshiro128p s{b->s0[j], b->s1[j]};
    out[j] = sample_fast(s, table.thr, table.guide, table.tail);
    b->s0[j] = s.s0;
    b->s1[j] = s.s1;
  }
  return false;
}
#endif

// The same count by compare-and-add over the kSearched thresholds, for the AVX2 version:
// without AVX-512's two-register permute, GCC lowers the search's __builtin_shuffle lane by lane
// (measured here, one thread: 100 ns a sample at AVX2, against 9-13 for the serial walk); this
// loop it vectorises with compares and adds (13 ns: AVX2 has no unsigned 64-bit compare, each
// one is a sign flip and a signed compare).
[[gnu::always_inline]] inline bool sample_row_count(LaneBatch* b, std::int32_t* out, std::size_t m,
                                                    const std::uint64_t* thr) {
  std::uint64_t t[kSearched];
  for (int q = 0; q < kSearched; ++q) t[q] = thr[q];
  std::uint64_t unresolved = 0;  // 64-bit, as k: one lane width in the whole loop
#pragma omp simd reduction(+ : unresolved)
  for (std::size_t j = 0; j < m; ++j) {
    rng::Xoroshiro128p s{b->s0[j], b->s1[j]};
    const std::uint64_t u = rng::next53(s);
    b->s0[j] = s.s0;
    b->s1[j] = s.s1;
    std::uint64_t k = 0;
    for (int q = 0; q < kSearched; ++q) k += u >= t[q] ? 1 : 0;
    out[j] = static_cast<std::int32_t>(k);
    b->u[j] = u;
    unresolved += k == kSearched ? 1 : 0;
  }
  return unresolved > 0;
}
TB_ISA_CLONES(sample_row_count_isa, sample_row_count)

// The baseline (SSE2) has no 64-bit compare at all: emulated, the count ran at 24 ns a sample,
// twice the serial walk. There each lane takes the serial algorithm (the guided walk), whose
// answer is final: nothing is left to resolve.
bool sample_row_walk(LaneBatch* b, std::int32_t* out, std::size_t m, const CdfTable& table) {
  for (std::size_t j = 0; j < m; ++j) {
    rng::Xoroshiro128p s{b->s0[j], b->s1[j]};
    out[j] = sample_fast(s, table.thr, table.guide, table.tail);
    b->s0[j] = s.s0;
    b->s1[j] = s.s1;
  }
  return false;
}

// The search where AVX-512 runs, the count at AVX2, the walk at the baseline.
bool sample_row_isa(LaneBatch* b, std::int32_t* out, std::size_t m, const CdfTable& table,
                    bool stream, bool resolve) {
#if defined(__x86_64__) && defined(__GNUC__)
  switch (cpu_isa::active_level()) {
    case cpu_isa::Level::avx512:
      return sample_row_search(b, out, m, table, stream, resolve);
    case cpu_isa::Level::avx2:
      return sample_row_count_isa_avx2(b, out, m, table.thr);
    default:
      break;
  }
#else
  (void)stream, (void)resolve;  // the walk writes plain stores and resolves every lane itself
#endif
  return sample_row_walk(b, out, m, table);
}

// The lanes whose count reached kSearched: their k is at least that; the guided walk (the
// reference's inverse_fast, from the same u) gives it exactly.
void resolve_row(const LaneBatch& b, std::int32_t* out, std::size_t m, const CdfTable& table) {
  for (std::size_t j = 0; j < m; ++j)
    if (out[j] == kSearched) out[j] = inverse_fast(b.u[j], table.thr, table.guide, table.tail);
}

// Streams first .. last - 1, every row: batch by batch, so that a batch's states stay in L1
// while its rows are written (kLaneBatch consecutive int32, 4 KiB, per row). `fault` is
// OmpFault::none except in the mutation tests; it is read outside the vector loops.
void sample_streams(std::int32_t* out, std::size_t n, std::uint64_t seed, std::uint64_t first,
                    std::uint64_t last, const CdfTable& table, OmpFault fault, bool stream) {
  LaneBatch batch;
  for (std::uint64_t b = first; b < last; b += kLaneBatch) {
    const std::uint64_t b_end = std::min<std::uint64_t>(b + kLaneBatch, last);
    const std::uint64_t seeded = fault == OmpFault::stream_offset ? b + 1 : b;
    seed_lanes_isa(&batch, seed, seeded, static_cast<std::size_t>(b_end - b));
    for (std::size_t base = 0; base + b < n; base += kStreams) {
      // The last row may stop inside the batch (sample base + t exists only for t < n - base).
      const std::uint64_t end = std::min<std::uint64_t>(b_end, n - base);
      auto m = static_cast<std::size_t>(end - b);
      if (fault == OmpFault::tail_dropped) m -= m % 8;
      std::int32_t* row = out + base + b;
      const bool resolve = fault != OmpFault::no_fallback;
      if (sample_row_isa(&batch, row, m, table, stream, resolve) && resolve)
        resolve_row(batch, row, m, table);
    }
  }
#if defined(__x86_64__) && defined(__GNUC__)
  // Non-temporal stores are weakly ordered: drain them before the region's barrier, after which
  // other threads (and the caller) read the samples.
  if (stream) _mm_sfence();
#endif
}

// Whether omp_impl writes the samples with non-temporal stores: when they cannot stay in the
// last-level cache anyway (more bytes than it holds), so that the cache lines are not first read
// from memory (the write-allocate) only to be overwritten. The committed H200 run measured the
// host's plain-store write ceiling at 51 GB/s against 89 GB/s for triad, which reads two arrays
// for each one it writes: the write-allocate halves a pure write stream there. Below the
// cache's size the timed loop's output stays in cache between calls and plain stores win.
bool use_streaming_stores(std::size_t n, Stores stores) {
  if (stores != Stores::automatic) return stores == Stores::streaming;
  static const std::size_t llc = [] {
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return l3 > 0 ? static_cast<std::size_t>(l3) : std::size_t{32} << 20;
  }();
  return n * sizeof(std::int32_t) > llc;
}

void omp_impl(std::int32_t* out, std::size_t n, std::uint64_t seed, const CdfTable& table,
              OmpFault fault, Stores stores) {
  const std::uint64_t streams = std::min<std::uint64_t>(n, kStreams);
  // Rows start at multiples of kLaneBatch samples: 32-byte aligned whenever out is.
  const bool stream = use_streaming_stores(n, stores) &&
                      cpu_isa::active_level() == cpu_isa::Level::avx512 &&
                      reinterpret_cast<std::uintptr_t>(out) % 32 == 0;
  // Each thread takes a contiguous block of streams, whole batches: the same static partition
  // every call, so a thread writes the same band of every row each time (first touch included:
  // the bench calls omp first on fresh memory). Every sample costs the same, hence static.
  const auto batches = static_cast<std::int64_t>((streams + kLaneBatch - 1) / kLaneBatch);
#pragma omp parallel
  {
    const std::int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    const std::int64_t b0 = batches * t / nt, b1 = batches * (t + 1) / nt;
    const std::uint64_t first = static_cast<std::uint64_t>(b0) * kLaneBatch;
    const std::uint64_t last =
        std::min<std::uint64_t>(static_cast<std::uint64_t>(b1) * kLaneBatch, streams);
    if (first < last) sample_streams(out, n, seed, first, last, table, fault, stream);
  }
}

}  // namespace

CdfTable make_table(double rate) {
  CdfTable t{};
  t.tail.rate = rate;
  double p = std::exp(-rate);
  double c = p;
  for (int k = 0; k < kTableSize; ++k) {
    if (k > 0) {
      p = p * rate / k;  // same order of operations as sample_tail
      c = c + p;
    }
    const double scaled = std::ceil(std::ldexp(c, 53));
    t.thr[k] = scaled >= 0x1.0p64 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(scaled);
    t.tail.p_last = p;
    t.tail.cdf_last = c;
  }
  // guide[j]: the smallest k whose threshold exceeds the bucket's first u (CdfTable).
  int k = 0;
  for (int j = 0; j < kGuideSize; ++j) {
    const std::uint64_t first = static_cast<std::uint64_t>(j) << kGuideShift;
    while (k < kTableSize && first >= t.thr[k]) ++k;
    t.guide[j] = static_cast<std::uint8_t>(k);
  }
  return t;
}

const CdfTable& default_table() {
  static const CdfTable t = make_table(kRate);
  return t;
}

void serial(std::int32_t* out, std::size_t n, std::uint64_t seed, const CdfTable& table) {
  generate_serial(out, n, seed, [&table](rng::Xoroshiro128p& s) {
    return sample_fast(s, table.thr, table.guide, table.tail);
  });
}

void omp(std::int32_t* out, std::size_t n, std::uint64_t seed, const CdfTable& table) {
  omp_impl(out, n, seed, table, OmpFault::none, Stores::automatic);
}

void omp_with_fault(std::int32_t* out, std::size_t n, std::uint64_t seed, const CdfTable& table,
                    OmpFault fault, Stores stores) {
  omp_impl(out, n, seed, table, fault, stores);
}

void serial_article(std::int32_t* out, std::size_t n, std::uint64_t seed, double rate) {
  generate_serial(out, n, seed, [rate](rng::Xoroshiro128p& s) { return sample_article(s, rate); });
}

void omp_article(std::int32_t* out, std::size_t n, std::uint64_t seed, double rate) {
  generate_omp(out, n, seed, [rate](rng::Xoroshiro128p& s) { return sample_article(s, rate); });
}

double chi2_quantile_wh(int dof, double z) {
  const double k = dof;
  const double a = 2.0 / (9.0 * k);
  const double c = 1.0 - a + z * std::sqrt(a);
  return k * c * c * c;
}

double SampleStats::score() const {
  if (negative > 0 || n == 0) return 1e30;
  double s = std::max(std::fabs(z_mean), std::fabs(z_var)) / 4.0;
  if (dof > 0) s = std::max(s, chi2 / chi2_limit);
  return s;
}

SampleStats sample_stats(std::span<const std::int32_t> x, double rate) {
  SampleStats st;
  st.n = x.size();
  if (x.empty()) return st;
  std::vector<std::size_t> hist(kChi2Bins, 0);
  // Two passes in long double would be exact enough; one pass of integer sums is exact.
  std::int64_t sum = 0;
  for (auto v : x) {
    if (v < 0) {
      ++st.negative;
      continue;
    }
    sum += v;
    ++hist[std::min(v, kChi2Bins - 1)];
  }
  const double n = static_cast<double>(x.size());
  st.mean = static_cast<double>(sum) / n;
  double m2 = 0.0;
  for (auto v : x) m2 += (v - st.mean) * (v - st.mean);
  st.variance = x.size() > 1 ? m2 / (n - 1.0) : 0.0;
  st.z_mean = (st.mean - rate) / std::sqrt(rate / n);
  // Var(s^2) ~ (mu4 - sigma^4) / n with mu4 = rate (1 + 3 rate) for a Poisson variable.
  st.z_var = x.size() > 1 ? (st.variance - rate) / std::sqrt((rate + 2.0 * rate * rate) / n) : 0.0;
  if (x.size() >= kChi2MinSize) {
    double p = std::exp(-rate);
    double below = 0.0;
    for (int k = 0; k < kChi2Bins; ++k) {
      if (k > 0) p *= rate / k;
      const double prob = k == kChi2Bins - 1 ? std::max(1.0 - below, 0.0) : p;
      below += p;
      const double expected = n * prob;
      const double d = static_cast<double>(hist[k]) - expected;
      st.chi2 += d * d / expected;
    }
    st.dof = kChi2Bins - 1;
    st.chi2_limit = chi2_quantile_wh(st.dof, kZ999);
  }
  return st;
}

ErrorStats check_samples(std::span<const std::int32_t> got,
                         std::span<const std::int32_t> bitwise_ref, double rate) {
  ErrorStats e;
  if (!bitwise_ref.empty() && bitwise_ref.size() != got.size()) {
    e.size_matches = false;
    return e;
  }
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < bitwise_ref.size(); ++i) {
    if (got[i] == bitwise_ref[i]) continue;
    if (mismatches++ == 0) e.worst_index = i;
    e.max_abs = std::max(e.max_abs, std::fabs(static_cast<double>(got[i]) - bitwise_ref[i]));
  }
  const SampleStats st = sample_stats(got, rate);
  e.max_rel = st.score();
  if (mismatches > 0) {
    e.max_rel = std::max(e.max_rel, 2.0);
    std::fprintf(stderr,
                 "poisson: %zu of %zu samples differ from the serial fast samples (first at %zu)\n",
                 mismatches, got.size(), e.worst_index);
  }
  if (st.score() > 1.0)
    std::fprintf(stderr,
                 "poisson: statistics fail: n=%zu mean=%.6f (z=%.2f) var=%.6f (z=%.2f) chi2=%.2f "
                 "(limit %.2f, dof %d) negative=%zu\n",
                 st.n, st.mean, st.z_mean, st.variance, st.z_var, st.chi2, st.chi2_limit, st.dof,
                 st.negative);
  return e;
}

}  // namespace tb::poisson
