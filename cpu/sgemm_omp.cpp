// The hand-written OpenMP SGEMM: the CPU's teaching kernel beside the CUDA ones, built the way
// every fast GEMM is (Goto and van de Geijn, "Anatomy of high-performance matrix multiplication",
// ACM TOMS 34(3), 2008; BLIS's five loops), in portable C++: GCC vector extensions rather than
// intrinsics, compiled three times by TB_ISA_CLONES (common/cpu_isa.hpp).
//
// Measured (the 2-core dev Xeon, AVX-512 and AMX, 300 MiB L3 as on the H200 host, shared, so
// CPU time of one thread; not results): n = 4096 at 122 GFLOP/s on one core, OpenBLAS SkylakeX's
// sgemm 134 in the same minutes (91%); at n = 1024, 85 against the old blocked loop's 9.4 (baseline
// SSE, no packing, no FMA, in git history: 84 GFLOP/s on the H200 host's 16 cores). On the H200
// host's 16 cores the FP32 roof is ~1.2 TFLOP/s (75 per core); the kernel's aim there is >= 50% of
// it. What it lacks against the libraries: no prefetching, no AMX or BF16, and B packed once per k
// slice by all threads with a barrier on each side.
//
// FMA: GCC contracts `acc += a * b` into fused multiply-adds in C++ (-ffp-contract=fast is its
// default outside ISO C), which the error bound allows (cpu/sgemm.hpp: one rounding per step
// instead of two only shrinks it); the AVX-512 clone's inner loop is 3 loads, 8 broadcasts and
// 24 vfmadd231ps on zmm registers (objdump).

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "common/cpu_isa.hpp"
#include "cpu/sgemm.hpp"

namespace tb::sgemm {
namespace {

// 16 floats: one zmm register at AVX-512 (GCC splits it into 2 ymm at AVX2, 4 xmm at baseline).
using Vec = float __attribute__((vector_size(64)));
constexpr std::int64_t kLanes = 16;

// The register tile: kMr rows x kNr columns of C live in 8 x 3 = 24 of the 32 zmm registers for
// a whole k loop; each k step loads 3 vectors of B, broadcasts 8 elements of A and issues 24
// FMAs, so the two FMA ports, not the loads (11 per 24 FMAs), set the pace, and 24 independent
// accumulators cover the FMA latency (4 cycles x 2 ports = 8 needed). 8 rows divide the suite's
// sizes evenly between 16 threads (4096 = 16 x 32 x 8); 48 columns waste 0.8% at 4096 (the last
// tile is a third empty). At AVX2 (16 ymm) the same tile spills: that level is for testing and
// older hosts, not the measured one.
constexpr std::int64_t kMr = 8;
constexpr std::int64_t kVecsPerRow = 3;
constexpr std::int64_t kNr = kVecsPerRow * kLanes;
// Cache blocking: one k slice of kKc rows of B, packed (kKc x n floats: 8 MiB at 4096, in the
// shared L3 of 300 MiB), is shared by all threads; each thread packs kMc x kKc of its rows of A
// (512 KiB, in its 2 MiB L2), and one kKc x kNr micro-panel of B (96 KiB, in the L2) is reused by
// all the thread's row tiles before the next. A deeper slice means fewer passes of each C tile
// through the caches (n / kKc loads and stores). Measured on one core of the 2-core dev Xeon
// (CPU time, as the machine was shared; not results): kKc 192, 256, 384, 512 gave ~79, ~82, ~93,
// ~97 GFLOP/s at n = 2048, OpenBLAS SkylakeX ~100 in the same minutes.
constexpr std::int64_t kKc = 512;
constexpr std::int64_t kMc = 256;

// A grow-only 64-byte-aligned float buffer: the packed panels are reused from call to call (no
// page faults inside the timed loop) and aligned so that every B micro-panel row (192 bytes) is
// a whole number of cache lines and vector loads are aligned.
class PackBuffer {
 public:
  float* get(std::size_t floats) {
    if (floats > size_) {
      const std::size_t bytes = (floats * sizeof(float) + 63) / 64 * 64;
      data_.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
      if (!data_) throw std::bad_alloc();
      size_ = floats;
    }
    return data_.get();
  }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> data_;
  std::size_t size_ = 0;
};

// Rows [i0, i0 + m) x columns [k0, k0 + kc) of A as micro-panels of kMr rows, each stored
// k-major (the kMr values one k step broadcasts are adjacent); rows past m are zeros, so edge
// tiles run the same kernel.
[[gnu::always_inline]] inline void pack_a(const float* a, std::int64_t n, std::int64_t i0,
                                          std::int64_t m, std::int64_t k0, std::int64_t kc,
                                          float* ap) {
  for (std::int64_t it = 0; it < m; it += kMr, ap += kc * kMr) {
    const std::int64_t rows = std::min(kMr, m - it);
    for (std::int64_t r = 0; r < kMr; ++r) {
      const float* src = a + (i0 + it + r) * n + k0;
      for (std::int64_t k = 0; k < kc; ++k) ap[k * kMr + r] = r < rows ? src[k] : 0.f;
    }
  }
}

// Rows [k0, k0 + kc) x columns [jt kNr, jt kNr + kNr) of B as one micro-panel, k-major (one k
// step's kNr values are 3 adjacent vectors); columns past n are zeros.
[[gnu::always_inline]] inline void pack_b(const float* b, std::int64_t n, std::int64_t k0,
                                          std::int64_t kc, std::int64_t jt, float* bp) {
  const std::int64_t j0 = jt * kNr;
  const std::int64_t cols = std::min(kNr, n - j0);
  for (std::int64_t k = 0; k < kc; ++k) {
    const float* src = b + (k0 + k) * n + j0;
    float* dst = bp + k * kNr;
#pragma omp simd
    for (std::int64_t j = 0; j < kNr; ++j) dst[j] = j < cols ? src[j] : 0.f;
  }
}

// The micro-kernel: the kMr x kNr tile of C at c (row stride ldc) = (its value, when
// `accumulate`, else 0) + the packed A micro-panel times the packed B micro-panel. The tile is
// held in registers for the whole k loop, so each element is still summed as one chain in k
// order (the serial loop's order, with fused multiply-adds).
[[gnu::always_inline]] inline void micro_kernel(std::int64_t kc, const float* __restrict__ ap,
                                                const float* __restrict__ bp, float* __restrict__ c,
                                                std::int64_t ldc, bool accumulate) {
  Vec acc[kMr][kVecsPerRow];
#pragma GCC unroll 8
  for (std::int64_t i = 0; i < kMr; ++i) {
#pragma GCC unroll 3
    for (std::int64_t v = 0; v < kVecsPerRow; ++v) {
      if (accumulate) {
        std::memcpy(&acc[i][v], c + i * ldc + v * kLanes, sizeof(Vec));
      } else {
        acc[i][v] = Vec{};
      }
    }
  }
  for (std::int64_t k = 0; k < kc; ++k) {
    Vec bk[kVecsPerRow];
#pragma GCC unroll 3
    for (std::int64_t v = 0; v < kVecsPerRow; ++v)
      bk[v] = *reinterpret_cast<const Vec*>(bp + k * kNr + v * kLanes);
#pragma GCC unroll 8
    for (std::int64_t i = 0; i < kMr; ++i) {
      // x - 0 is x for every x (unlike 0 + x at x = -0), so GCC emits a bare broadcast.
      const Vec aik = ap[k * kMr + i] - Vec{};
#pragma GCC unroll 3
      for (std::int64_t v = 0; v < kVecsPerRow; ++v) acc[i][v] += aik * bk[v];
    }
  }
#pragma GCC unroll 8
  for (std::int64_t i = 0; i < kMr; ++i) {
#pragma GCC unroll 3
    for (std::int64_t v = 0; v < kVecsPerRow; ++v)
      std::memcpy(c + i * ldc + v * kLanes, &acc[i][v], sizeof(Vec));
  }
}

// m packed rows of A (a multiple of kMr, padded) times the packed k slice of B (n columns) into
// the m x n block of C at c: B micro-panels outside, so each is reused by every row tile. Tiles
// that stick out of C (the last columns, the last rows of the matrix) go through a full-size
// buffer, so the micro-kernel never reads or writes outside C.
[[gnu::always_inline]] inline void multiply_block(const float* ap, const float* bp, std::int64_t m,
                                                  std::int64_t n, std::int64_t kc, float* c,
                                                  bool accumulate) {
  for (std::int64_t j0 = 0; j0 < n; j0 += kNr, bp += kc * kNr) {
    const std::int64_t cols = std::min(kNr, n - j0);
    for (std::int64_t i0 = 0; i0 < m; i0 += kMr) {
      const std::int64_t rows = std::min(kMr, m - i0);
      const float* api = ap + i0 * kc;
      float* cij = c + i0 * n + j0;
      if (rows == kMr && cols == kNr) {
        micro_kernel(kc, api, bp, cij, n, accumulate);
        continue;
      }
      alignas(64) float tile[kMr * kNr] = {};
      if (accumulate)
        for (std::int64_t r = 0; r < rows; ++r) std::memcpy(tile + r * kNr, cij + r * n, cols * 4);
      micro_kernel(kc, api, bp, tile, kNr, true);
      for (std::int64_t r = 0; r < rows; ++r) std::memcpy(cij + r * n, tile + r * kNr, cols * 4);
    }
  }
}

TB_ISA_CLONES(pack_a_isa, pack_a)
TB_ISA_CLONES(pack_b_isa, pack_b)
TB_ISA_CLONES(multiply_block_isa, multiply_block)

}  // namespace

void omp(const float* a, const float* b, float* c, std::size_t n) {
  if (n == 0) return;
  const auto nn = static_cast<std::int64_t>(n);
  const std::int64_t col_tiles = (nn + kNr - 1) / kNr;
  const std::int64_t row_tiles = (nn + kMr - 1) / kMr;
  static PackBuffer shared_b;
  float* bp = shared_b.get(static_cast<std::size_t>(std::min(kKc, nn) * col_tiles * kNr));
#pragma omp parallel
  {
    // Whole row tiles per thread, the same rows for every k slice: each thread alone writes its
    // rows of C (and first-touches them when the bench fills `out` with this function).
    const std::int64_t t = omp_get_thread_num(), threads = omp_get_num_threads();
    const std::int64_t r0 = std::min(nn, row_tiles * t / threads * kMr);
    const std::int64_t r1 = std::min(nn, row_tiles * (t + 1) / threads * kMr);
    thread_local PackBuffer own_a;
    float* ap = own_a.get(static_cast<std::size_t>(kMc * kKc));
    for (std::int64_t k0 = 0; k0 < nn; k0 += kKc) {
      const std::int64_t kc = std::min(kKc, nn - k0);
      // All threads pack the slice of B together; the loop's barrier makes it whole before use.
#pragma omp for schedule(static)
      for (std::int64_t jt = 0; jt < col_tiles; ++jt)
        pack_b_isa(b, nn, k0, kc, jt, bp + jt * kc * kNr);
      for (std::int64_t i0 = r0; i0 < r1; i0 += kMc) {
        const std::int64_t m = std::min(kMc, r1 - i0);
        pack_a_isa(a, nn, i0, m, k0, kc, ap);
        multiply_block_isa(ap, bp, m, nn, kc, c + i0 * nn, k0 > 0);
      }
      // No thread repacks B for the next slice while another still reads this one.
#pragma omp barrier
    }
  }
}

}  // namespace tb::sgemm
