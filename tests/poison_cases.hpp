#pragma once
// The mutations the poison rule must catch, shared by the host and device tests: a variant that
// writes every element (passes), one that skips the last element, one that accumulates into its
// output without resetting it, and a skip whose reference holds the first pattern's value there
// (only the second pattern can catch it).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/validate.hpp"
#include "cpu/dtypes.hpp"

namespace tb::test {

enum class Mutation { none, skip_last, accumulate };

// A bfloat16 as the host holds it (its bits); converts to double for compare().
struct Bf16 {
  std::uint16_t bits;
  explicit operator double() const {
    const std::uint32_t wide = std::uint32_t{bits} << 16;
    float f;
    std::memcpy(&f, &wide, sizeof f);
    return f;
  }
};

// An IEEE half as the host holds it (_Float16 where GCC has it; wrapped, as libstdc++ 12 has
// no typeinfo for _Float16 and typed tests need one).
struct Half {
  dtypes::f16 v;
  explicit operator double() const { return static_cast<double>(v); }
};

template <class T>
T from_small_int(int v) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{static_cast<dtypes::f16>(v)};
  } else if constexpr (std::is_same_v<T, Bf16>) {
    const float f = static_cast<float>(v);
    std::uint32_t wide;
    std::memcpy(&wide, &f, sizeof f);
    return Bf16{static_cast<std::uint16_t>(wide >> 16)};  // exact: small integers
  } else {
    return static_cast<T>(v);
  }
}

// A reference of small positive values (exact in every type): 1..50.
template <class T>
std::vector<T> reference(std::size_t n) {
  std::vector<T> ref(n);
  for (std::size_t i = 0; i < n; ++i) ref[i] = from_small_int<T>(static_cast<int>(i % 50) + 1);
  return ref;
}

// The same with the last element equal to an element filled with the first pattern's bytes.
template <class T>
std::vector<T> reference_ending_in_first_pattern(std::size_t n) {
  std::vector<T> ref = reference<T>(n);
  std::memset(static_cast<void*>(&ref[n - 1]), kPoisonBytes[0], sizeof(T));
  return ref;
}

// Whether the first pattern is a NaN of T (float, double, and the 16-bit floats): a NaN
// reference is never a valid one, so the case above does not apply.
template <class T>
bool first_pattern_is_nan() {
  T value;
  std::memset(static_cast<void*>(&value), kPoisonBytes[0], sizeof(T));
  return std::isnan(static_cast<double>(value));
}

inline constexpr Tolerance kExactTolerance{0.0};

}  // namespace tb::test
