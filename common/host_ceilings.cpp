#include "common/host_ceilings.hpp"

#include <benchmark/benchmark.h>
#include <omp.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__SSE__)
#include <xmmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <system_error>
#include <vector>

#include "common/cpu_cache_flush.hpp"
#include "common/cpu_isa.hpp"
#include "common/host_array.hpp"
#include "common/sampler.hpp"
#include "cpu/nt_store.hpp"
#include "cpu/streaming.hpp"

namespace tb::host {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

int resolve_threads(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

// ---- Bandwidth --------------------------------------------------------------------------------

// BabelStream's start values and scalar, moved off zero: a zero array hides a pass that never
// wrote. Every pattern is idempotent on these (scale and triad read arrays they do not write), so
// the values stay finite however often a pattern repeats.
constexpr double kStartA = 0.1;
constexpr double kStartB = 0.2;
constexpr double kStartC = 0.3;
constexpr double kScalar = 0.4;
// Best of 3 passes, warm or cold: the start measures 15 ways of moving the 6 patterns in each of
// up to 4 sets, and every pass of the large arrays moves 1-1.5 GiB (0.1 s or more on one thread).
constexpr int kBandwidthReps = 3;
constexpr int kColdReps = 3;

struct StreamArrays {
  explicit StreamArrays(std::size_t n) : a(n), b(n), c(n) {}
  HostArray<double> a, b, c;
  long long n() const { return static_cast<long long>(a.size()); }
};

// Same thread count and schedule(static) as the timed passes (streaming::static_range is that
// schedule's partition): each page is first written, and so placed, by the thread that streams
// it afterwards, as the rows' inputs are (cpu/streaming.hpp).
void first_touch(StreamArrays& s, int threads) {
  double* a = s.a.data();
  double* b = s.b.data();
  double* c = s.c.data();
  const long long n = s.n();
#pragma omp parallel for num_threads(threads) schedule(static)
  for (long long i = 0; i < n; ++i) {
    a[i] = kStartA;
    b[i] = kStartB;
    c[i] = kStartC;
  }
}

// The passes are compiled per ISA level and run at the active one (common/cpu_isa.hpp), as the
// rows' loops are, with each thread on its own slice (cpu/streaming.hpp), as the rows' threads.
// Why: built at the x86-64 baseline, these passes moved 128-bit SSE2 loads and stores while the
// rows ran AVX-512, and a serial axpy row read 110.7-111.8% of the one-thread add ceiling on the
// H200 host (results/nvidia-h200/2026-12-05).

// 32 partial sums, lane j taking every 32nd element from j: the way dot's rows sum (cpu/dot.cpp),
// which the inner loop vectorises at each level's width into 4 to 16 vector accumulators. Why:
// with the eight unrolled sums of the SSE2 build compiled per level, a default CPU-only run on the
// 2-core development VM (busy: load 1.4-3.3) read 20 GB/s on this pattern and flagged dot/omp at
// 121-125% of it; under the same load, --cpu-isa runs read 10.9 (baseline) to 8.2 GB/s (AVX-512)
// with that loop and 14.8 to 12.2 with this one. Not measured on a quiet machine.
constexpr std::size_t kReadLanes = 32;
template <class Tag>
[[gnu::always_inline]] inline double read_range(Tag, const double* a, const double* b,
                                                std::size_t begin, std::size_t end) {
  double part[kReadLanes] = {};
  std::size_t i = begin;
  for (; i + kReadLanes <= end; i += kReadLanes) {
#pragma omp simd
    for (std::size_t l = 0; l < kReadLanes; ++l) part[l] += a[i + l] * b[i + l];
  }
  double s = 0.0;
  for (std::size_t l = 0; l < kReadLanes; ++l) s += part[l];
  for (; i < end; ++i) s += a[i] * b[i];
  return s;
}
TB_ISA_CLONES_TAGGED(read_range_isa, read_range)

// The element-wise passes: out = k (write), x (copy), k x (scale), y + k x (add with k = 1,
// triad). In place when out is y (an axpy: the line written was just read, so the store pays no
// read for ownership). With `stream`, out goes out with streamed stores from a block that stays
// in L1 (cpu/nt_store.hpp, as vector_add and black_scholes write theirs).
enum class Op { write, copy, scale, axpy };
constexpr std::size_t kStreamBlock = 256;  // doubles: 2 KiB, 32 lines

template <class Tag>
[[gnu::always_inline]] inline void op_plain(Op op, const double* x, const double* y, double* out,
                                            double k, std::size_t begin, std::size_t end) {
  switch (op) {
    case Op::write:
#pragma omp simd
      for (std::size_t i = begin; i < end; ++i) out[i] = k;
      break;
    case Op::copy:
#pragma omp simd
      for (std::size_t i = begin; i < end; ++i) out[i] = x[i];
      break;
    case Op::scale:
#pragma omp simd
      for (std::size_t i = begin; i < end; ++i) out[i] = k * x[i];
      break;
    case Op::axpy:
      // No simd pragma: out may be y (in place), which the loop reads before it writes.
      for (std::size_t i = begin; i < end; ++i) out[i] = y[i] + k * x[i];
      break;
  }
}

template <class Tag>
[[gnu::always_inline]] inline void op_range(Tag tag, Op op, bool stream, const double* x,
                                            const double* y, double* out, double k,
                                            std::size_t begin, std::size_t end) {
  if (!stream) {
    op_plain<Tag>(op, x, y, out, k, begin, end);
    return;
  }
  alignas(64) double block[kStreamBlock];
  for (std::size_t i0 = begin; i0 < end; i0 += kStreamBlock) {
    const std::size_t m = end - i0 < kStreamBlock ? end - i0 : kStreamBlock;
    op_plain<Tag>(op, x ? x + i0 : nullptr, y ? y + i0 : nullptr, block, k, 0, m);
    nt::store(tag, out + i0, block, m * sizeof(double));
  }
  nt::fence();
}
TB_ISA_CLONES_TAGGED(op_range_isa, op_range)

double read_pass(const double* a, const double* b, std::size_t n, int threads) {
  double s = 0.0;
#pragma omp parallel num_threads(threads) reduction(+ : s)
  {
    const streaming::Range r = streaming::this_thread_range(n);
    s += read_range_isa(a, b, r.begin, r.end);
  }
  return s;
}

void op_pass(Op op, bool stream, const double* x, const double* y, double* out, double k,
             std::size_t n, int threads) {
#pragma omp parallel num_threads(threads)
  {
    const streaming::Range r = streaming::this_thread_range(n);
    op_range_isa(op, stream, x, y, out, k, r.begin, r.end);
  }
}

// One way of moving a pattern: the pass, timed as a whole.
struct Way {
  const char* name;
  std::function<void()> pass;
};

// Every way the suite's rows move each pattern's bytes; the pattern's ceiling is the fastest.
// Plain stores to a fresh array first read the line they write (write-allocate), traffic the
// byte count leaves out (it counts each array read or written once, as STREAM does), so:
// - in place (add and triad as y = y + k x, the dtypes axpy's loop): two reads and a write of a
//   line just read; an in-place kernel moved the same counted bytes up to 1.4x faster than the
//   three-array pass on the development machine;
// - streamed stores (write, copy, scale, add, triad: vector_add, black_scholes, scan and Poisson
//   stream their outputs): without one, the streamed vector_add read 131% of the add ceiling on
//   the H200 host (results/nvidia-h200/2026-12-02b).
std::vector<Way> ways_of(Pattern p, StreamArrays& s, int threads) {
  double* a = s.a.data();
  double* b = s.b.data();
  double* c = s.c.data();
  const std::size_t n = s.a.size();
  auto op = [=](Op o, bool stream, const double* x, const double* y, double* out, double k) {
    return [=] {
      op_pass(o, stream, x, y, out, k, n, threads);
      // Stores nobody reads before the arrays are freed may be dropped: say memory is observed.
      benchmark::DoNotOptimize(out);
      benchmark::ClobberMemory();
    };
  };
  switch (p) {
    case Pattern::read:
      return {{"plain", [=] {
                 // The sum is the only output of the read stream: keep it, or it is dead code.
                 double sum = read_pass(a, b, n, threads);
                 benchmark::DoNotOptimize(sum);
               }}};
    case Pattern::write:
      return {{"plain", op(Op::write, false, nullptr, nullptr, a, kScalar)},
              {"streamed", op(Op::write, true, nullptr, nullptr, a, kScalar)}};
    case Pattern::copy:
      return {{"plain", op(Op::copy, false, a, nullptr, c, 0.0)},
              {"streamed", op(Op::copy, true, a, nullptr, c, 0.0)}};
    case Pattern::scale:
      return {{"plain", op(Op::scale, false, c, nullptr, b, kScalar)},
              {"streamed", op(Op::scale, true, c, nullptr, b, kScalar)}};
    case Pattern::add:
    case Pattern::triad: {
      // add: c = a + b; triad: a = b + k c (BabelStream's); in place: b = b + k a. The values
      // stay finite: a holds 0.1 and the passes are few.
      const double k = p == Pattern::add ? 1.0 : kScalar;
      const bool add = p == Pattern::add;
      return {{"plain", add ? op(Op::axpy, false, b, a, c, k) : op(Op::axpy, false, c, b, a, k)},
              {"in place", op(Op::axpy, false, a, b, b, k)},
              {"streamed", add ? op(Op::axpy, true, b, a, c, k) : op(Op::axpy, true, c, b, a, k)}};
    }
  }
  return {};
}

// Best of kBandwidthReps timed passes. Cold (`flush`): before each pass the set's arrays are
// evicted from every cache level, their dirty lines written back (the end of the flush a cold CPU
// sample gets: common/cpu_cache_flush.hpp), so that a pass, like a cold row, pays no write-back
// of lines an earlier pass dirtied and leaves its own dirty lines behind when its timer stops;
// warm: after one untimed pass, back to back, as a warm row's samples run. The arrays alone are
// evicted, not the flush buffer read too: at 0.43 s a flush on the loaded 2-core development
// machine, the full flush before each of the 45 cold passes of a set took 19.5 s.
double best_seconds(const std::function<void()>& pass, bool flush, StreamArrays& s) {
  if (!flush) pass();  // warm-up: caches, TLB, OpenMP thread pool
  double best = INFINITY;
  const std::size_t bytes = s.a.size() * sizeof(double);
  for (int rep = 0; rep < (flush ? kColdReps : kBandwidthReps); ++rep) {
    if (flush && !(evict_from_caches(s.a.data(), bytes) && evict_from_caches(s.b.data(), bytes) &&
                   evict_from_caches(s.c.data(), bytes)))
      flush_cpu_caches();  // no line eviction on this CPU: the whole flush
    const auto t0 = Clock::now();
    pass();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

BandwidthSet measure_set(std::size_t bytes_per_array, int threads, bool flush,
                         std::vector<WayRate>* ways, std::span<const Pattern> patterns) {
  threads = resolve_threads(threads);
  StreamArrays s(std::max<std::size_t>(1, bytes_per_array / sizeof(double)));
  first_touch(s, threads);
  BandwidthSet set;
  for (Pattern p : patterns) {
    const double bytes =
        (pattern_reads(p) + pattern_writes(p)) * sizeof(double) * static_cast<double>(s.a.size());
    for (const Way& w : ways_of(p, s, threads)) {
      // A signal during the start: the patterns left stay 0 (a row is held to none of them).
      if (stop_requested()) return set;
      const double rate = bytes / best_seconds(w.pass, flush, s);
      if (ways) ways->push_back({p, w.name, rate});
      set[p] = std::max(set[p], rate);
    }
  }
  return set;
}


// ---- Multiply-add roof ------------------------------------------------------------------------

// a < 1 and b = 1 - a keep x at the fixed point 1: no overflow, no denormals however long it runs.
constexpr double kMultiplier = 0.999;
constexpr double kAddend = 1.0 - kMultiplier;
// Many short runs rather than a few long ones: a run is a limit only if nothing else took the
// cores during it, and on a busy machine a 30 ms run is always time-sliced. On the 2-core
// development machine at a load of 3, best of 3 runs of 30 ms gave a one-thread FP32 roof of
// 53.6 GFLOP/s, below the 88 that a dtypes row reached there; a Linux time slice is a few ms.
constexpr double kTargetSeconds = 0.006;
constexpr int kRoofReps = 12;
constexpr int kProbeReps = 3;

// kAcc independent chains of kLanes elements, one register each: enough chains to cover the
// latency of a multiply-add on every port (4 cycles x 2 ports = 8 on current x86), few enough to
// stay in the 16 (SSE, AVX2) or 32 (AVX-512) vector registers beside a and b. always_inline so that
// the loop is compiled, and vectorised, with the target ISA of the function it is inlined into.
template <class T, int kAcc, int kLanes, bool kFused>
[[gnu::always_inline]] inline double fma_chains(double a_in, double b_in, double seed,
                                                std::int64_t iters) {
  const T a = static_cast<T>(a_in);
  const T b = static_cast<T>(b_in);
  T x[kAcc][kLanes];
  for (int j = 0; j < kAcc; ++j)
    for (int l = 0; l < kLanes; ++l) x[j][l] = static_cast<T>(seed + 1e-3 * (j * kLanes + l));
  for (std::int64_t it = 0; it < iters; ++it)
  // Unrolled even at -O2 (GCC 12 keeps the array on the stack otherwise: a load and a store
  // per multiply-add).
#pragma GCC unroll 32
    for (int j = 0; j < kAcc; ++j)
#pragma omp simd
      for (int l = 0; l < kLanes; ++l)
        // std::fma states the fusion instead of relying on -ffp-contract.
        if constexpr (kFused)
          x[j][l] = std::fma(x[j][l], a, b);
        else
          x[j][l] = x[j][l] * a + b;
  double sum = 0.0;
  for (int j = 0; j < kAcc; ++j)
    for (int l = 0; l < kLanes; ++l) sum += static_cast<double>(x[j][l]);
  return sum;
}

// One thread's share of the roof loop; returns the sum of its chains (sunk by the caller).
using ChainFn = double (*)(double a, double b, double seed, std::int64_t iters);
struct RoofKernel {
  ChainFn run;
  int elements;  // element updates per iteration (kAcc x kLanes)
};

// The build's ISA: baseline x86-64 is SSE2, 16-byte registers, a multiply and an add. A build
// with -march=native gets its own width here (and x * a + b contracts to an FMA there).
#if defined(__AVX512F__)
// 12: fits as 12 zmm, or as 24 ymm where the -march prefers 256-bit vectors (Skylake-X).
constexpr int kBuildVectorBytes = 64;
constexpr int kBaselineAcc = 12;
#elif defined(__AVX__)
constexpr int kBuildVectorBytes = 32;
constexpr int kBaselineAcc = 12;
#else
constexpr int kBuildVectorBytes = 16;
constexpr int kBaselineAcc = 12;
#endif
template <class T>
constexpr int build_lanes() {
  return kBuildVectorBytes / static_cast<int>(sizeof(T));
}
template <class T>
double chains_baseline(double a, double b, double seed, std::int64_t iters) {
  return fma_chains<T, kBaselineAcc, build_lanes<T>(), false>(a, b, seed, iters);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TB_HAVE_NATIVE_ROOF 1
// Checked with objdump -d on the object (g++ 12.2; -O3 as Release builds, and -O2): the hot loop
// of chains_avx2<float/double> is 12 vfmadd132ps/pd on %ymm, that of chains_avx512 16 on %zmm,
// and that of chains_baseline 12 mulps/pd + 12 addps/pd on %xmm with no vfmadd; no loads or
// stores in any of them. With -march=znver3 the baseline becomes 12 vfmadd on %ymm, with
// -march=skylake-avx512 24 on %ymm, and chains_avx512 stays on %zmm. Clang 14 compiles this file
// but spills some chains to the stack in the loop (the suite is built with GCC).
constexpr int kAvx2Acc = 12;
constexpr int kAvx512Acc = 16;
// prefer-vector-width=512: a build with -march=skylake-avx512 would otherwise split it into ymm
// (GCC only; Clang ignores the whole attribute when it sees that option).
#if defined(__clang__)
#define TB_AVX512_TARGET "avx512f"
#else
#define TB_AVX512_TARGET "avx512f,prefer-vector-width=512"
#endif
template <class T>
__attribute__((target("avx2,fma"))) double chains_avx2(double a, double b, double seed,
                                                       std::int64_t iters) {
  return fma_chains<T, kAvx2Acc, 32 / sizeof(T), true>(a, b, seed, iters);
}
template <class T>
__attribute__((target(TB_AVX512_TARGET))) double chains_avx512(double a, double b, double seed,
                                                               std::int64_t iters) {
  return fma_chains<T, kAvx512Acc, 64 / sizeof(T), true>(a, b, seed, iters);
}

// FP16: 32 halves per zmm; the same chains (a = 0.999 and b = 0.001 are not exact in FP16, but x
// still settles at a fixed point near 1).
[[gnu::target("arch=x86-64-v4,avx512fp16,prefer-vector-width=512")]] double chains_avx512_fp16(
    double a, double b, double seed, std::int64_t iters) {
  return fma_chains<_Float16, kAvx512Acc, 32, false>(a, b, seed, iters);
}

// AVX512_BF16: VDPBF16PS adds the products of 16 pairs of BF16 into 16 FP32 lanes (64 FLOPs an
// instruction); kBf16Acc independent accumulators cover its latency on both ports. The inputs are
// 2^-10, so a sum grows by 2^-19 a step and stays far from overflow however long the loop runs.
constexpr int kBf16Acc = 16;
[[gnu::target("arch=x86-64-v4,avx512bf16,prefer-vector-width=512")]] double avx512_bf16_chains(
    double, double, double seed, std::int64_t iters) {
  const __m512bh x = (__m512bh)_mm512_set1_epi16(0x3a80);  // BF16 2^-10
  __m512 acc[kBf16Acc];
  for (int j = 0; j < kBf16Acc; ++j) acc[j] = _mm512_set1_ps(static_cast<float>(seed));
  for (std::int64_t it = 0; it < iters; ++it)
#pragma GCC unroll 16
    for (int j = 0; j < kBf16Acc; ++j) acc[j] = _mm512_dpbf16_ps(acc[j], x, x);
  // Stored and summed in a loop: GCC 12's _mm512_reduce_add_ps warns of an uninitialised lane.
  alignas(64) float lanes[16];
  double sum = 0.0;
  for (int j = 0; j < kBf16Acc; ++j) {
    _mm512_store_ps(lanes, acc[j]);
    for (float v : lanes) sum += v;
  }
  return sum;
}

// AMX: TDPBF16PS multiplies a 16x32 BF16 tile by a 32x16 one into a 16x16 FP32 tile (16,384 FLOPs
// an instruction); four accumulator tiles from two A and two B tiles keep the unit busy. Linux
// hands out the tile registers' state only on request (arch_prctl ARCH_REQ_XCOMP_PERM), once per
// process; a kernel or VM that refuses it leaves AMX unusable.
constexpr double kAmxFlopsPerIter = 4.0 * 16 * 16 * 32 * 2;
bool amx_usable(std::string& why_not) {
  if (!cpu_isa::has_feature("amx-tile") || !cpu_isa::has_feature("amx-bf16")) {
    why_not = "the CPU has no AMX-BF16";
    return false;
  }
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  static const long granted = syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata);
  if (granted != 0) {
    why_not = "the OS did not grant AMX's tile state (arch_prctl ARCH_REQ_XCOMP_PERM failed)";
    return false;
  }
  return true;
}

struct alignas(64) TileConfig {
  std::uint8_t palette = 1;
  std::uint8_t start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t bytes_per_row[16] = {};
  std::uint8_t rows[16] = {};
};

[[gnu::target("amx-tile,amx-bf16")]] double amx_bf16_chains(double, double, double,
                                                             std::int64_t iters) {
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.bytes_per_row[t] = 64;
    cfg.rows[t] = 16;
  }
  _tile_loadconfig(&cfg);
  alignas(64) std::uint16_t input[16 * 32];
  std::fill(std::begin(input), std::end(input), std::uint16_t{0x3a80});  // BF16 2^-10
  alignas(64) float out[16 * 16];
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_loadd(4, input, 64);
  _tile_loadd(5, input, 64);
  _tile_loadd(6, input, 64);
  _tile_loadd(7, input, 64);
  for (std::int64_t it = 0; it < iters; ++it) {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  double sum = 0.0;
  _tile_stored(0, out, 64);
  for (float v : out) sum += v;
  _tile_stored(3, out, 64);
  for (float v : out) sum += v;
  _tile_release();
  return sum;
}
#else
#define TB_HAVE_NATIVE_ROOF 0
#endif

#if defined(__aarch64__) && defined(__GNUC__)
#define TB_HAVE_NEON_ROOF 1
// aarch64: the kernels run NEON (common/cpu_isa.hpp), so the roof is NEON's FMLA on 128-bit
// registers, fused (std::fma, as the chains above on AVX2 and AVX-512). 16 chains: Neoverse V1
// and V2 issue four 128-bit FMAs a cycle with a latency of 4, so 16 independent chains keep
// every pipe busy (16 + 2 of the 32 vector registers, nothing spills). An SVE roof at a vector
// length above 128 bits would be higher; no SVE code is built (common/cpu_isa.hpp says why).
constexpr int kNeonAcc = 16;
template <class T>
double chains_neon(double a, double b, double seed, std::int64_t iters) {
  return fma_chains<T, kNeonAcc, 16 / static_cast<int>(sizeof(T)), true>(a, b, seed, iters);
}
template <class T>
RoofKernel neon_kernel() {
  return {&chains_neon<T>, kNeonAcc * 16 / static_cast<int>(sizeof(T))};
}
// The roof's basis, for the native roof's isa text.
std::string neon_roof_isa() {
  std::string isa = "neon fmla (128-bit)";
  const cpu_isa::ArmVectors v = cpu_isa::arm_vectors();
  if (v.sve && v.sve_bits > 128)
    isa += "; the host's " + cpu_isa::describe_arm_vectors(v) + " is not used";
  return isa;
}
#else
#define TB_HAVE_NEON_ROOF 0
#endif

// Denormals flushed to zero (MXCSR FTZ and DAZ) while a roof runs, restored after: a roof
// measures the multiply-add pipes, not microcode assists. On the H200 machine's Xeon (a VM) the
// FP64 roof read 0.07 GFLOP/s on one thread inside twinbench, against 12.6 in a standalone
// program running the same object code, with the thread's denormal and underflow flags set:
// the chains' values are meant to converge to 1, so the flags come from state this
// loop does not control; with FTZ/DAZ the roof cannot depend on it.
class FlushDenormals {
 public:
#if defined(__SSE__)
  FlushDenormals() : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | kFtz | kDaz); }
  ~FlushDenormals() { _mm_setcsr(saved_); }

 private:
  static constexpr unsigned kFtz = 0x8000, kDaz = 0x0040;
  unsigned saved_;
#elif defined(__aarch64__) && defined(__GNUC__)
  // FPCR.FZ (bit 24) flushes denormal inputs and results to zero, as FTZ and DAZ together do.
  FlushDenormals() : saved_(read_fpcr()) { write_fpcr(saved_ | kFz); }
  ~FlushDenormals() { write_fpcr(saved_); }

 private:
  static std::uint64_t read_fpcr() {
    std::uint64_t v;
    asm volatile("mrs %0, fpcr" : "=r"(v));
    return v;
  }
  static void write_fpcr(std::uint64_t v) { asm volatile("msr fpcr, %0" : : "r"(v)); }
  static constexpr std::uint64_t kFz = std::uint64_t{1} << 24;
  std::uint64_t saved_;
#endif
};

// One run of the roof loop on `threads` threads; returns the wall time of the whole region and,
// in `rate` (when given), the sum over the threads of each one's FLOP/s, each timed from a barrier
// to the end of its own loop. A thread whose vCPU was descheduled, or that woke late, then costs
// only its own share: on the H200 host (a KVM guest) the region's wall time gave an all-thread
// FP32 roof of 1.36 TFLOP/s, below the 1.58 that a dtypes row reached over a longer run
// (results/nvidia-h200/2026-12-04).
double time_roof(const RoofKernel& k, int threads, std::int64_t iters, double* rate = nullptr) {
  // Through DoNotOptimize the constants are unknown to the compiler: nothing to fold.
  double a = kMultiplier;
  double b = kAddend;
  benchmark::DoNotOptimize(a);
  benchmark::DoNotOptimize(b);
  double sink = 0.0;
  double rate_sum = 0.0;
  const double flops = 2.0 * k.elements * static_cast<double>(iters);
  const auto t0 = Clock::now();
#pragma omp parallel num_threads(threads) reduction(+ : sink, rate_sum)
  {
    const FlushDenormals ftz;
#pragma omp barrier
    const auto mine = Clock::now();
    sink += k.run(a, b, 1.0 + 1e-2 * omp_get_thread_num(), iters);
    rate_sum += flops / seconds_since(mine);
  }
  const double s = seconds_since(t0);
  benchmark::DoNotOptimize(sink);
  if (rate) *rate = rate_sum;
  return s;
}

// Best of kRoofReps runs, growing the iteration count until the best run lasts at least half of
// kTargetSeconds. Each step scales from the best run so far: a run slowed by another process (or
// by waking the threads) only makes the next step smaller, so the measured runs are never short
// enough for the fork, the join or a time slice lost to be a large part of them. The roof is the
// best run's sum of per-thread rates (time_roof), never below the whole region's rate.
double measure_roof(const RoofKernel& k, int threads) {
  threads = resolve_threads(threads);
  constexpr std::int64_t kMaxIters = std::int64_t{1} << 40;
  std::int64_t iters = 1 << 10;
  for (;;) {
    double best = INFINITY;
    double best_rate = 0.0;
    for (int rep = 0; rep < kRoofReps; ++rep) {
      double rate = 0.0;
      best = std::min(best, time_roof(k, threads, iters, &rate));
      best_rate = std::max(best_rate, rate);
    }
    if (best >= kTargetSeconds / 2 || iters >= kMaxIters) {
      const double flops = 2.0 * k.elements * static_cast<double>(iters) * threads;
      return std::max(flops / best, best_rate);
    }
    const double grow = std::clamp(kTargetSeconds / best, 2.0, 1000.0);
    iters = std::min(kMaxIters, static_cast<std::int64_t>(static_cast<double>(iters) * grow));
  }
}

template <class T>
RoofKernel baseline_kernel() {
  return {&chains_baseline<T>, kBaselineAcc * build_lanes<T>()};
}

// ---- Host environment -------------------------------------------------------------------------

// First line of a small /sys file without surrounding blanks; nullopt if it cannot be read.
std::optional<std::string> read_line(const std::filesystem::path& path) {
  std::ifstream f(path);
  std::string line;
  if (!f || !std::getline(f, line)) return std::nullopt;
  const auto first = line.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return std::string();
  const auto last = line.find_last_not_of(" \t\r\n");
  return line.substr(first, last - first + 1);
}

std::string env_or_unset(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string("unset");
}

bool is_node_folder(const std::string& name) {
  if (name.size() <= 4 || name.compare(0, 4, "node") != 0) return false;
  return std::all_of(name.begin() + 4, name.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

// A missing folder does not mean one node: the kernel may be built without NUMA, or /sys hidden.
std::string count_numa_nodes(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return "unknown: " + dir.string() + " does not exist (kernel without NUMA support?)";
  int nodes = 0;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (is_node_folder(it->path().filename().string())) ++nodes;
  if (ec) return "unknown: cannot list " + dir.string() + ": " + ec.message();
  if (nodes == 0) return "unknown: no node<N> folder in " + dir.string();
  return std::to_string(nodes);
}

// cpufreq/boost says 1 when boost is on; intel_pstate/no_turbo says 1 when it is off.
std::string read_boost(const std::string& cpu_dir) {
  if (const auto v = read_line(cpu_dir + "/cpufreq/boost")) {
    if (*v == "1") return "on (cpufreq/boost = 1)";
    if (*v == "0") return "off (cpufreq/boost = 0)";
    return "unknown: cpufreq/boost = " + *v;
  }
  if (const auto v = read_line(cpu_dir + "/intel_pstate/no_turbo")) {
    if (*v == "0") return "on (intel_pstate/no_turbo = 0)";
    if (*v == "1") return "off (intel_pstate/no_turbo = 1)";
    return "unknown: intel_pstate/no_turbo = " + *v;
  }
  return "unknown";
}

}  // namespace

BandwidthSet measure_bandwidth(std::size_t bytes_per_array, int threads, Timing timing,
                               std::vector<WayRate>* ways, std::span<const Pattern> patterns) {
  return measure_set(bytes_per_array, threads, timing == Timing::cold, ways, patterns);
}

double measure_baseline_fma_roof(Precision p, int threads) {
  return measure_roof(p == Precision::fp32 ? baseline_kernel<float>() : baseline_kernel<double>(),
                      threads);
}

namespace {
// The roof loop of the active level.
RoofKernel active_fma_kernel(Precision p) {
  const bool fp32 = p == Precision::fp32;
#if TB_HAVE_NATIVE_ROOF
  const cpu_isa::Level level = cpu_isa::active_level();
  if (level == cpu_isa::Level::avx512)
    return fp32 ? RoofKernel{&chains_avx512<float>, kAvx512Acc * 16}
                : RoofKernel{&chains_avx512<double>, kAvx512Acc * 8};
  if (level == cpu_isa::Level::avx2)
    return fp32 ? RoofKernel{&chains_avx2<float>, kAvx2Acc * 8}
                : RoofKernel{&chains_avx2<double>, kAvx2Acc * 4};
#endif
#if TB_HAVE_NEON_ROOF
  return fp32 ? neon_kernel<float>() : neon_kernel<double>();
#else
  return fp32 ? baseline_kernel<float>() : baseline_kernel<double>();
#endif
}
}  // namespace

double measure_fma_roof(Precision p, int threads, std::string* isa) {
  if (isa) *isa = cpu_isa::name(cpu_isa::active_level());
  return measure_roof(active_fma_kernel(p), threads);
}

double probe_fma_rate(int threads) {
  constexpr double kProbeSeconds = 2e-3;
  static std::int64_t iters = 0;  // calibrated by the first call, then fixed
  static cpu_isa::Level level = cpu_isa::Level::baseline;
  threads = resolve_threads(threads);
  const RoofKernel k = active_fma_kernel(Precision::fp32);
  if (iters == 0 || level != cpu_isa::active_level()) {
    level = cpu_isa::active_level();
    iters = 1 << 10;
    for (double t = time_roof(k, threads, iters); t < kProbeSeconds && iters < (std::int64_t{1} << 40);
         t = time_roof(k, threads, iters))
      iters = static_cast<std::int64_t>(static_cast<double>(iters) *
                                        std::clamp(kProbeSeconds / t, 1.5, 1000.0));
  }
  double best = INFINITY;
  for (int rep = 0; rep < kProbeReps; ++rep) best = std::min(best, time_roof(k, threads, iters));
  return 2.0 * k.elements * static_cast<double>(iters) * threads / best;
}

NativeRoof measure_bf16_roof(int threads) {
  NativeRoof roof;
#if TB_HAVE_NATIVE_ROOF
  if (cpu_isa::active_level() != cpu_isa::Level::avx512) {
    roof.why_not = std::string("the CPU kernels run at ") + cpu_isa::name(cpu_isa::active_level()) +
                   " (BF16 needs AVX-512)";
  } else if (amx_usable(roof.why_not)) {
    roof.flops = measure_roof({&amx_bf16_chains, static_cast<int>(kAmxFlopsPerIter / 2)}, threads);
    roof.isa = "amx-bf16";
  } else if (cpu_isa::has_feature("avx512bf16")) {
    roof.why_not.clear();
    roof.flops = measure_roof({&avx512_bf16_chains, kBf16Acc * 32}, threads);
    roof.isa = "avx512_bf16";
  } else if (roof.why_not.empty()) {
    roof.why_not = "the CPU has neither AMX-BF16 nor AVX512_BF16";
  }
#elif defined(__aarch64__)
  (void)threads;
  roof.why_not = "no BF16 roof on aarch64: the CPU kernels have no BFDOT/BFMMLA path";
#else
  (void)threads;
  roof.why_not = "BF16 roofs are built for x86-64 with GCC only";
#endif
  return roof;
}

NativeRoof measure_fp16_roof(int threads) {
  NativeRoof roof;
#if TB_HAVE_NATIVE_ROOF
  if (cpu_isa::active_level() == cpu_isa::Level::avx512 && cpu_isa::has_feature("avx512fp16")) {
    roof.flops = measure_roof({&chains_avx512_fp16, kAvx512Acc * 32}, threads);
    roof.isa = "avx512_fp16";
  } else {
    roof.why_not = "no AVX512_FP16 at the active ISA level: FP16 is converted to FP32 there";
  }
#elif defined(__aarch64__)
  (void)threads;
  roof.why_not = "no FP16 roof on aarch64: the CPU kernels convert FP16 to FP32 there";
#else
  (void)threads;
  roof.why_not = "FP16 roofs are built for x86-64 with GCC only";
#endif
  return roof;
}

NativeRoof measure_native_fma_roof(Precision p, int threads) {
  NativeRoof roof;
#if TB_HAVE_NATIVE_ROOF
  const bool fp32 = p == Precision::fp32;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    const RoofKernel k = fp32 ? RoofKernel{&chains_avx512<float>, kAvx512Acc * 16}
                              : RoofKernel{&chains_avx512<double>, kAvx512Acc * 8};
    roof.flops = measure_roof(k, threads);
    roof.isa = "avx512f";
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    const RoofKernel k = fp32 ? RoofKernel{&chains_avx2<float>, kAvx2Acc * 8}
                              : RoofKernel{&chains_avx2<double>, kAvx2Acc * 4};
    roof.flops = measure_roof(k, threads);
    roof.isa = "avx2+fma";
  } else {
    roof.why_not =
        "the CPU has neither AVX-512F nor AVX2 with FMA (or the OS does not enable them)";
  }
#elif TB_HAVE_NEON_ROOF
  roof.flops = measure_roof(p == Precision::fp32 ? neon_kernel<float>() : neon_kernel<double>(),
                            threads);
  roof.isa = neon_roof_isa();
#else
  (void)p;
  (void)threads;
  roof.why_not = "the native roof is built for x86-64 and aarch64 with GCC only";
#endif
  return roof;
}

HostEnvironment read_host_environment(const std::string& sys_root) {
  const std::string cpu_dir = sys_root + "/sys/devices/system/cpu";
  HostEnvironment env;
  env.cpu_governor = read_line(cpu_dir + "/cpu0/cpufreq/scaling_governor")
                         .value_or("none: no cpufreq (a VM often has none)");
  env.omp_proc_bind = env_or_unset("OMP_PROC_BIND");
  env.omp_places = env_or_unset("OMP_PLACES");
  env.numa_nodes = count_numa_nodes(sys_root + "/sys/devices/system/node");
  env.smt = read_line(cpu_dir + "/smt/active").value_or("unknown");
  env.cpu_boost = read_boost(cpu_dir);
  return env;
}

}  // namespace tb::host
