#pragma once
// scan: inclusive prefix sum, out[i] = in[0] + ... + in[i]. Memory-bound (one read and one
// write per element), but every output depends on every earlier input, so the parallel versions
// must pass partial sums between threads (OpenMP) or blocks (CUDA): the classic test of whether
// a GPU algorithm can stay at copy bandwidth despite a serial dependence.
#include <climits>
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/bench_spec.hpp"
#include "common/validate.hpp"

namespace tb::scan {

constexpr std::uint64_t kSeed = 0x5eed0500;
constexpr std::size_t kArticleSize = std::size_t{1} << 20;  // 1M: 8 MB moved, inside the L2
constexpr std::size_t kLargeSize = std::size_t{1} << 28;    // 256M: 2 GiB moved, ~40x the L2
constexpr std::size_t kQuickSize = std::size_t{1} << 20;

// int32 is checked exactly: inputs are small positive values chosen so that no prefix sum can
// exceed INT32_MAX (no overflow, no wraparound; see int32_max_value), so every order of
// additions gives the same bits.
constexpr Tolerance kIntTolerance{0.0};

// float32: each variant adds in a different order (serial left to right, OpenMP per-thread
// chunks plus offsets, CUDA per-thread runs + warp shuffles + block offsets + a chain of tile
// prefixes), compared against a float64 reference with the error of output i scaled by
// A_i = sum_{j<=i} |x_j| (the inputs have both signs, so ref can be near zero).
// Bound: the worst case is gamma_d * A_i with d the additions on i's path (d = i for the serial
// loop: n u = 16 at 256M, no bound at all), and the order-free probabilistic bound of Higham and
// Mary, lambda sqrt(d) u A_i, is still 1e-2 at 256M. Neither is usable, and no sound bound can
// be much tighter against a float32 serial scan: its error is sum_k delta_k s_k over the partial
// sums s_k, ~4 absolute at the end of 256M, while a lost GPU tile (4096 elements at block 256)
// shifts the outputs by its sum, ~37. The tolerance is therefore the measured behaviour with a
// wide margin: 2 (log2(n) + 8) eps (72 eps at 256M; the serial loop measures 0.77 eps; see
// float_tolerance). It catches a lost element or tile while A_i < |tile sum| / tolerance: every
// tile at 100K elements, the first 2.5% of tiles at 256M (tests/test_scan.cpp counts them).
// The exact int32 runs of the same kernels are what catch a lost tile anywhere (tested at 256M).
Tolerance float_tolerance(std::size_t n);

// Largest input value for which n values in [1, max] cannot overflow an int32 prefix sum.
inline std::int32_t int32_max_value(std::size_t n) {
  const std::size_t m = n == 0 ? 7 : static_cast<std::size_t>(INT32_MAX) / n;
  return static_cast<std::int32_t>(m < 1 ? 1 : (m > 7 ? 7 : m));
}

// Inputs: int32 uniform in [1, int32_max_value(n)]; float32 uniform in [-1, 1) (both signs keep
// the float32 running sum small, so a float32 scan stays meaningful at 256M elements).
void fill_input(std::span<std::int32_t> in, std::size_t n);
void fill_input(std::span<float> in, std::size_t n);

// One read and one write per element; one add per element.
template <class T>
WorkModel work(std::size_t n) {
  return {.read_bytes = 1.0 * sizeof(T) * n,
          .written_bytes = 1.0 * sizeof(T) * n,
          .flops = 1.0 * n,
          .items = 1.0 * n};
}

void serial(const std::int32_t* in, std::int32_t* out, std::size_t n);
void serial(const float* in, float* out, std::size_t n);  // accumulates in float32
// Two passes per round of L2-sized blocks (one block per thread): each thread sums its block;
// every thread scans the block sums into its offset; each thread scans its block again, now
// from its L2, with a SIMD in-register prefix, starting from its offset. Memory sees one read
// and one write per element, as a copy does (cpu/scan.cpp says why). Multiversioned (AVX-512,
// AVX2, baseline: common/cpu_isa.hpp).
void omp(const std::int32_t* in, std::int32_t* out, std::size_t n);
void omp(const float* in, float* out, std::size_t n);
// Elements per thread per round of omp: 512 KiB of int32, a quarter of the target's L2 per core.
constexpr std::size_t kOmpBlock = std::size_t{1} << 17;
// Tests only: omp with one deliberate bug, so that the mutation tests show the bench's check
// catches a bug in this kernel. lost_round_carry: the last thread's block sum is left out of the
// next round's carry; short_block: the last element of every block is not written.
enum class OmpFault { none, lost_round_carry, short_block };
void omp_with_fault(const std::int32_t* in, std::int32_t* out, std::size_t n, OmpFault f);
void omp_with_fault(const float* in, float* out, std::size_t n, OmpFault f);

// The float32 reference: accumulated in float64.
void reference_f64(const float* in, double* out, std::size_t n);

// Max over i of |got_i - ref_i| / sum_{j<=i} |in_j| (max_rel) and |got_i - ref_i| (max_abs).
ErrorStats compare_float(std::span<const float> got, std::span<const double> ref,
                         std::span<const float> in);

}  // namespace tb::scan
