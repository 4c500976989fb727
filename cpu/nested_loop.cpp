#include "cpu/nested_loop.hpp"

#include "common/cpu_isa.hpp"

namespace tb::nested_loop {
namespace {

// Rows per block: 8 AVX-512 vectors of doubles. Each row is a chain of M dependent adds
// (4 cycles each), so one row at a time leaves the FMA units idle 7 cycles in 8 even vectorized;
// 64 rows give 8 independent vector chains for the sum and 8 for i*j, enough to keep both FMA
// ports busy, and all 16 accumulators and 8 steps stay in the 32 zmm registers. (AVX2 and the
// baseline have 16 registers: they spill some to L1, which costs a load and a store per vector
// and still beats the scalar loop.)
constexpr std::int64_t kBlockRows = 64;

// results[first + l] = row(first + l, m) for l < count (<= kBlockRows), vectorized across the
// rows: every lane adds its terms in the serial order j = 0, 1, ..., so each row is the same
// sum as row() computes (to the FMA contraction of the multiply-add, within the tolerance).
// i*j is carried as a double and stepped by i: exact while i*j < 2^53 (9e15; the benchmark caps
// N*M at 1e10), so each term equals row()'s double(i*j) * 0.1, and no 64-bit integer multiply or
// int64 -> double conversion (which AVX2 lacks) is needed.
[[gnu::always_inline]] inline void row_block(double* results, std::int64_t first,
                                             std::int64_t count, std::int64_t m) {
  double sum[kBlockRows], ij[kBlockRows], step[kBlockRows];
#pragma omp simd
  for (std::int64_t l = 0; l < kBlockRows; ++l) {
    sum[l] = 0.0;
    ij[l] = 0.0;
    step[l] = static_cast<double>(first + l);
  }
  for (std::int64_t j = 0; j < m; ++j) {
#pragma omp simd
    for (std::int64_t l = 0; l < kBlockRows; ++l) {
      sum[l] += ij[l] * 0.1;
      ij[l] += step[l];
    }
  }
  for (std::int64_t l = 0; l < count; ++l) results[first + l] = sum[l];
}
TB_ISA_CLONES(row_block_isa, row_block)

}  // namespace

void serial(double* results, std::size_t n, std::size_t m) {
  const auto rows = static_cast<std::int64_t>(n);
  const auto cols = static_cast<std::int64_t>(m);
  for (std::int64_t i = 0; i < rows; ++i) results[i] = row(i, cols);
}

// Measured on the 2-core development machine (CPU time of one thread for the whole n = 10000
// sweep; other builds were running, so rough, not results): serial 75 ms (0.75 ns per inner
// iteration: the 4-cycle latency of one add chain), omp 41 ms at the baseline (SSE2, spills),
// 21 ms at AVX2, 12 ms at AVX-512 (0.12 ns per iteration: about one vector multiply-add and one
// vector add per 8 iterations, the FMA ports' throughput, not the add latency, is the limit).
// On the H200 host's 16 cores that is ~0.8 ms for n = 10000 (10 blocks on the busiest thread),
// against the 2 ms target and the 8-14 ms of the previous scalar omp loop.
// Its bound: each inner iteration is one multiply-add (the term into the sum) and one add (i*j
// stepped), two slots of the FMA units for the 2 FLOP of the model, so the row tops out at half
// the FP64 FMA roof in model FLOP/s (a report reading 50% of the roof is this kernel at its
// limit). Keeping i*j as an int64 instead moves the add to the integer ports but needs an
// int64 -> double conversion per term, which takes an FMA port too.
void omp(double* results, std::size_t n, std::size_t m) {
  const auto rows = static_cast<std::int64_t>(n);
  const auto cols = static_cast<std::int64_t>(m);
  const std::int64_t blocks = (rows + kBlockRows - 1) / kBlockRows;
  // Every block costs the same M iterations, so a static partition balances (to one block:
  // n = 10000 is 157 blocks, 10 or 9 per thread of 16).
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::int64_t first = b * kBlockRows;
    const std::int64_t count = rows - first < kBlockRows ? rows - first : kBlockRows;
    row_block_isa(results, first, count, cols);
  }
}

}  // namespace tb::nested_loop
