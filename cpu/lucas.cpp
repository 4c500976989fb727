#include "cpu/lucas.hpp"

namespace tb::lucas {
namespace {

// The articles' recursion, as written. (GCC may turn one of the two calls into a loop, which
// halves the calls but keeps the cost exponential.)
std::int64_t lucas_recursive(int k) {
  if (k == 0) return 2;
  if (k == 1) return 1;
  return lucas_recursive(k - 1) + lucas_recursive(k - 2);
}

std::uint64_t fibonacci(int k) {
  std::uint64_t a = 0, b = 1;  // F(0), F(1)
  for (int i = 0; i < k; ++i) {
    const std::uint64_t c = a + b;
    a = b;
    b = c;
  }
  return a;
}

}  // namespace

ErrorStats compare_exact(const std::int64_t* got, const std::int64_t* ref, std::size_t count) {
  ErrorStats s;
  for (std::size_t i = 0; i < count; ++i) {
    if (got[i] == ref[i]) continue;
    // The difference in unsigned arithmetic cannot overflow; only its magnitude matters here.
    const std::uint64_t diff =
        got[i] > ref[i] ? static_cast<std::uint64_t>(got[i]) - static_cast<std::uint64_t>(ref[i])
                        : static_cast<std::uint64_t>(ref[i]) - static_cast<std::uint64_t>(got[i]);
    const double abs_err = static_cast<double>(diff);
    if (abs_err > s.max_abs || s.max_rel == 0.0) {
      s.max_abs = abs_err;
      s.worst_index = i;
    }
    s.max_rel = 1.0;
  }
  return s;
}

std::uint64_t recursive_adds(int i) { return fibonacci(i + 1) - 1; }
std::uint64_t recursive_calls(int i) { return 2 * fibonacci(i + 1) - 1; }

std::uint64_t recursive_adds_upto(int n) {
  std::uint64_t total = 0;
  for (int i = 0; i <= n; ++i) total += recursive_adds(i);
  return total;
}

std::uint64_t per_index_iterative_adds_upto(int n) {
  std::uint64_t total = 0;
  for (int i = 2; i <= n; ++i) total += static_cast<std::uint64_t>(i - 1);
  return total;
}

void serial_recursive(std::int64_t* out, int n) {
  for (int i = 0; i <= n; ++i) out[i] = lucas_recursive(i);
}

void omp_recursive(std::int64_t* out, int n) {
  // One index per iteration, largest first: L(n) alone is ~38% of all the calls, so starting
  // it first (longest-processing-time order) keeps the other threads busy with the rest.
  // The speed-up is capped near 1 / 0.38 = 2.6x whatever the thread count.
#pragma omp parallel for schedule(dynamic, 1)
  for (int i = n; i >= 0; --i) out[i] = lucas_recursive(i);
}

void serial_iterative(std::int64_t* out, int n) {
  out[0] = 2;
  if (n >= 1) out[1] = 1;
  for (int i = 2; i <= n; ++i) out[i] = out[i - 1] + out[i - 2];
}

}  // namespace tb::lucas
