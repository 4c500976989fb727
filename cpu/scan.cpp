#include "cpu/scan.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "common/cpu_isa.hpp"
#include "common/random.hpp"
#include "cpu/nt_store.hpp"

namespace tb::scan {
namespace {

template <class T>
void serial_impl(const T* in, T* out, std::size_t n) {
  T acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    acc += in[i];
    out[i] = acc;
  }
}

// ---- The omp scan: reduce-then-scan over L2-sized blocks, one read of the input. ----
//
// Why blocks in rounds rather than one chunk per thread: the textbook two-pass scan (each thread
// sums its whole chunk, the chunk sums are scanned, each thread scans its chunk again) reads the
// input twice from memory: 3 streams of n elements instead of the 2 of a copy, so at 256M it can
// reach at best 2/3 of the copy ceiling (the old omp row: 47.3 ms at 256M int32 on the H200
// host, 45 GB/s, 59% of the 77 GB/s its row is held to; results/nvidia-h200/2026-12-01). Here
// each round gives every thread one block small enough to stay in its L2 between the two
// passes: pass 1 sums the block (from memory), a barrier publishes the sums, pass 2 re-reads the
// block from L2 and writes the scan. Memory sees one read and one write per element, the
// pattern of a copy, for one barrier per round (~1-3 us; 128 rounds at 256M on 16 threads).
// 128K elements = 512 KiB of int32 per block: a quarter of an Emerald Rapids core's 2 MiB L2,
// room for the output lines being written beside it.
//
// Expected on the target: memory sees what the ceiling's scale/copy kernels see (one read, one
// plain-store write), so ~2.15 GB / 77 GB/s = 28 ms plus 128 barriers (~0.3 ms): ~30 ms, ~90% of
// the ceiling (the target is 70%). Each core then needs ~5 GB/s of scan, and one core scans an
// L2-resident block at 26 GB/s (measured on the 2-vCPU build machine under a load average of 15:
// ratios only, not results; 64K int32, one thread: serial 14 GB/s, omp 26 at AVX-512, 21 at AVX2,
// 16 at the baseline, memcpy 65), so the memory, not the prefix, is the limit.
// The price of the rounds: a thread that is descheduled stalls every other at the next barrier.
// On pinned, otherwise idle cores that is rare (the row's spread shows it); on the oversubscribed
// build machine a 1M scan on 2 threads (4 rounds) took 30-120 ms instead of 0.3 ms in most calls.
constexpr std::size_t kBlock = kOmpBlock;

// Below kBlock per thread (the 1M size: 64K each on 16 threads) the elements are split evenly,
// so every thread has work in the one round; blocks are whole cache lines (16 int32 or float32)
// so that no two threads write the same line (of line-aligned arrays, as HostArray's are).
std::size_t block_size(std::size_t n, std::size_t nt) {
  constexpr std::size_t kLine = 16;
  const std::size_t even = ((n + nt - 1) / nt + kLine - 1) / kLine * kLine;
  return std::min(kBlock, std::max(even, kLine));
}

// Thread t's block in round r: rounds cover nt blocks of consecutive elements, thread t the t-th
// (clipped to n). The first-touch pass and the timed loop share it.
struct Range {
  std::size_t begin, end;
};
Range block_of(std::size_t round, std::size_t t, std::size_t nt, std::size_t block, std::size_t n) {
  const std::size_t b = std::min(n, (round * nt + t) * block);
  return {b, std::min(n, b + block)};
}
std::size_t rounds(std::size_t n, std::size_t nt, std::size_t block) {
  return (n + nt * block - 1) / (nt * block);
}

// Pass 1. A reordered (vectorised) sum is fine: float32 only needs to stay within the tolerance.
template <class T>
[[gnu::always_inline]] inline T block_sum(const T* in, std::size_t begin, std::size_t end) {
  T s = 0;
#pragma omp simd reduction(+ : s)
  for (std::size_t i = begin; i < end; ++i) s += in[i];
  return s;
}
TB_ISA_CLONES(block_sum_isa, block_sum)

// Pass 2: the in-register prefix. An OpenMP inscan reduction is what GCC (>= 10) vectorises
// into the log-step scan within a vector (AVX-512: 4 steps of vpermt2d against zero + vpaddd
// for 16 int32, then a broadcast of the last lane as the next vector's carry), the loop a
// reader would write by hand with intrinsics, at every ISA level from one source. The loop-
// carried chain is one add and one permute per vector (~4 cycles for 64 bytes), far above one
// core's share of memory bandwidth. GCC 12 leaves the baseline (SSE2) int32 version scalar and
// vectorises the others. Returns the running sum at `end`.
template <class T>
[[gnu::always_inline]] inline T block_scan(const T* in, T* out, std::size_t begin, std::size_t end,
                                           T acc) {
#pragma omp simd reduction(inscan, + : acc)
  for (std::size_t i = begin; i < end; ++i) {
    acc += in[i];
#pragma omp scan inclusive(acc)
    out[i] = acc;
  }
  return acc;
}

// Pass 2 with streamed stores (cpu/nt_store.hpp): the prefix of kChunk elements at a time goes to
// an L1-resident buffer, then out without the line read that a plain store makes. With plain
// stores the row moved 3 bytes for the 2 it counts and read 52-55% of its (copy) ceiling on the
// H200 host (32.6-34.0 ms at 256M, 63-66 GB/s counted, i.e. ~95 GB/s moved).
constexpr std::size_t kChunk = 256;

template <class Tag, class T>
[[gnu::always_inline]] inline T block_scan_streamed(Tag tag, const T* in, T* out,
                                                    std::size_t begin, std::size_t end, T acc) {
  alignas(64) T buf[kChunk];
  for (std::size_t c0 = begin; c0 < end; c0 += kChunk) {
    const std::size_t m = end - c0 < kChunk ? end - c0 : kChunk;
    acc = block_scan(in + c0, buf, std::size_t{0}, m, acc);
    nt::store(tag, out + c0, buf, m * sizeof(T));
  }
  nt::fence();
  return acc;
}
TB_ISA_CLONES_TAGGED(block_scan_isa, block_scan_streamed)

// `fault` is OmpFault::none except in the mutation tests; it is read outside the vector loops.
template <class T>
void omp_impl(const T* in, T* out, std::size_t n, OmpFault fault = OmpFault::none) {
  // sums[parity][t]: thread t's block sum in the current round. Two rows, alternated by round,
  // so one barrier per round is enough: a thread can only overwrite a row two rounds later,
  // after every thread has passed the barrier of the round in between, i.e. finished reading.
  const auto max_threads = static_cast<std::size_t>(omp_get_max_threads());
  std::vector<T> sums(2 * max_threads, T(0));
#pragma omp parallel
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto nt = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t block = block_size(n, nt);
    T carry = 0;  // the sum of every earlier round
    for (std::size_t r = 0; r < rounds(n, nt, block); ++r) {
      const Range blk = block_of(r, t, nt, block, n);
      T* row = sums.data() + (r % 2) * max_threads;
      row[t] = block_sum_isa(in, blk.begin, blk.end);
#pragma omp barrier
      // Every thread adds the nt sums itself, in the same order: no serial step, no second
      // barrier, and the same float32 offsets on every thread.
      T offset = carry, total = carry;
      for (std::size_t j = 0; j < nt; ++j) {
        if (j == t) offset = total;
        total += row[j];
      }
      const std::size_t end =
          fault == OmpFault::short_block && blk.end > blk.begin ? blk.end - 1 : blk.end;
      block_scan_isa(in, out, blk.begin, end, offset);
      carry = fault == OmpFault::lost_round_carry ? total - row[nt - 1] : total;
    }
  }
}

// Pages go to the thread that streams them in omp_impl (the same blocks and threads).
template <class T>
void first_touch(std::span<T> a) {
  const std::size_t n = a.size();
#pragma omp parallel
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto nt = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t block = block_size(n, nt);
    for (std::size_t r = 0; r < rounds(n, nt, block); ++r) {
      const Range blk = block_of(r, t, nt, block, n);
      std::fill(a.data() + blk.begin, a.data() + blk.end, T(1));
    }
  }
}

}  // namespace

Tolerance float_tolerance(std::size_t n) {
  // Worst-case bounds (path length * eps, i.e. n * eps for the serial loop) say nothing at 256M.
  // With random-sign inputs the roundings are independent and largely cancel: measured, the
  // serial float32 loop stays at 0.77 eps of sum |x| at 1M, 16M and 256M elements. We allow
  // 2 * (log2(n) + 8) eps (the depth of a tree of additions, plus slack): ~70 eps at 256M, ~90x
  // the observed error, yet a skipped element (1/i) or tile offset still fails at small i. The
  // int32 runs of the same kernels are checked exactly and catch every indexing bug.
  const double eps = std::numeric_limits<float>::epsilon();
  const double lg = n > 1 ? std::log2(static_cast<double>(n)) : 0.0;
  return {2.0 * eps * (lg + 8.0)};
}

void fill_input(std::span<std::int32_t> in, std::size_t n) {
  first_touch(in);
  fill_uniform(in, kSeed, 1, int32_max_value(n) + 1);
}
void fill_input(std::span<float> in, std::size_t) {
  first_touch(in);
  fill_uniform(in, kSeed + 1, -1.f, 1.f);
}

void serial(const std::int32_t* in, std::int32_t* out, std::size_t n) { serial_impl(in, out, n); }
void serial(const float* in, float* out, std::size_t n) { serial_impl(in, out, n); }
void omp(const std::int32_t* in, std::int32_t* out, std::size_t n) { omp_impl(in, out, n); }
void omp(const float* in, float* out, std::size_t n) { omp_impl(in, out, n); }
void omp_with_fault(const std::int32_t* in, std::int32_t* out, std::size_t n, OmpFault f) {
  omp_impl(in, out, n, f);
}
void omp_with_fault(const float* in, float* out, std::size_t n, OmpFault f) {
  omp_impl(in, out, n, f);
}

void reference_f64(const float* in, double* out, std::size_t n) {
  double acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    acc += in[i];
    out[i] = acc;
  }
}

ErrorStats compare_float(std::span<const float> got, std::span<const double> ref,
                         std::span<const float> in) {
  ErrorStats s;
  if (got.size() != ref.size() || in.size() != ref.size()) {
    s.size_matches = false;
    return s;
  }
  // Each element's scale is the running sum of |in| up to it: a prefix sum, taken in two
  // passes over per-thread chunks so that the check of a 256M scan is not a serial second
  // (it ran once per GPU variant in the default run).
  const auto n = static_cast<long long>(got.size());
  const int threads = omp_get_max_threads();
  std::vector<double> offset(static_cast<std::size_t>(threads) + 1, 0.0);
  std::vector<ErrorStats> per(static_cast<std::size_t>(threads));
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const int nt = omp_get_num_threads();
    const long long lo = n * t / nt, hi = n * (t + 1) / nt;
    double chunk = 0.0;
    for (long long i = lo; i < hi; ++i) chunk += std::fabs(static_cast<double>(in[i]));
    offset[static_cast<std::size_t>(t) + 1] = chunk;
#pragma omp barrier
#pragma omp single
    for (int k = 1; k <= nt; ++k) offset[k] += offset[k - 1];
    ErrorStats& local = per[static_cast<std::size_t>(t)];
    double abs_sum = offset[static_cast<std::size_t>(t)];
    for (long long i = lo; i < hi; ++i) {
      abs_sum += std::fabs(static_cast<double>(in[i]));
      const double g = got[i];
      if (!std::isfinite(g)) {
        local.finite = false;
        local.worst_index = static_cast<std::size_t>(i);
        break;
      }
      const double abs_err = std::fabs(g - ref[i]);
      const double rel_err = abs_err / std::fmax(abs_sum, 1e-300);
      if (abs_err > local.max_abs) local.max_abs = abs_err;
      if (rel_err > local.max_rel) {
        local.max_rel = rel_err;
        local.worst_index = static_cast<std::size_t>(i);
      }
    }
  }
  // Chunks in order: the first non-finite element wins, as in a serial pass.
  for (const ErrorStats& p : per) {
    if (!p.finite) {
      s.finite = false;
      s.worst_index = p.worst_index;
      return s;
    }
    if (p.max_abs > s.max_abs) s.max_abs = p.max_abs;
    if (p.max_rel > s.max_rel) {
      s.max_rel = p.max_rel;
      s.worst_index = p.worst_index;
    }
  }
  return s;
}

}  // namespace tb::scan
