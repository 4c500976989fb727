#pragma once
// lucas: the Lucas numbers L(0..n) in int64, L(0) = 2, L(1) = 1, L(k) = L(k-1) + L(k-2).
// The articles compute each L(i) with the naive recursion, whose cost grows like phi^i: the
// point is to show exponential work per index next to the linear iteration, and where a GPU
// thread per index helps (it does not: the largest index dominates).
#include <cstddef>
#include <cstdint>

#include "common/bench_spec.hpp"
#include "common/validate.hpp"

namespace tb::lucas {

constexpr int kArticleN = 40;  // L(40) = 228826127
constexpr int kQuickN = 25;
constexpr int kMaxN = 90;           // L(90) < 2^63 <= L(91)
constexpr int kMaxRecursiveN = 40;  // the recursion costs ~1.6 * phi^n calls per index
constexpr int kDefaultMaxCudaRecursiveN = 30;  // one GPU thread per index: see bench/lucas.cpp
constexpr std::int64_t kL40 = 228826127;

// Integers: every variant must match the iterative reference exactly.
constexpr Tolerance kTolerance{0.0};

// Exact comparison of int64 results (tb::compare goes through double, which cannot tell apart
// values above 2^53). max_abs is the largest |difference| (as a double), max_rel is 1 if any
// element differs.
ErrorStats compare_exact(const std::int64_t* got, const std::int64_t* ref, std::size_t count);
// The bench's check: L(0..n) against the reference's, exactly.
inline ErrorStats check_sequence(const std::int64_t* got, const std::int64_t* ref, int n) {
  return compare_exact(got, ref, static_cast<std::size_t>(n) + 1);
}

// Additions the recursion performs for one L(i): its call tree has F(i+1) leaves (Fibonacci,
// F(1) = F(2) = 1), and each inner call adds once: F(i+1) - 1.
std::uint64_t recursive_adds(int i);
// Calls the recursion makes for L(i): 2 F(i+1) - 1.
std::uint64_t recursive_calls(int i);
// Totals over i = 0..n.
std::uint64_t recursive_adds_upto(int n);
// cuda_iterative: thread i iterates i-1 times (0 for i < 2).
std::uint64_t per_index_iterative_adds_upto(int n);

// out has n + 1 elements (L(0)..L(n)); n <= kMaxN.
void serial_recursive(std::int64_t* out, int n);
void omp_recursive(std::int64_t* out, int n);
void serial_iterative(std::int64_t* out, int n);

// Work model. No inputs; (n+1) int64 written. No FLOPs: the work is int64 additions, counted
// in items.
inline WorkModel work(int n, std::uint64_t adds) {
  return {.read_bytes = 0.0, .written_bytes = 8.0 * (n + 1), .flops = 0.0, .items = static_cast<double>(adds)};
}

}  // namespace tb::lucas
