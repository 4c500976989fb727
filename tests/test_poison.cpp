// The poison rule on the host: for every output type, an element a variant did not write or an
// accumulator it did not reset fails validation (validate_poisoned, which validate_once runs).
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "common/validate.hpp"
#include "tests/poison_cases.hpp"

namespace tb::test {
namespace {

template <class T>
void run_variant(std::vector<T>& out, const std::vector<T>& ref, Mutation m) {
  const std::size_t n = m == Mutation::skip_last ? out.size() - 1 : out.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (m == Mutation::accumulate) {
      if constexpr (std::is_same_v<T, Bf16> || std::is_same_v<T, Half>)
        out[i] = from_small_int<T>(static_cast<int>(static_cast<double>(out[i]) + static_cast<double>(ref[i])));
      else
        out[i] = static_cast<T>(out[i] + ref[i]);
    } else {
      out[i] = ref[i];
    }
  }
}

template <class T>
bool validates(const std::vector<T>& ref, Mutation m) {
  std::vector<T> out(ref.size());
  const ErrorStats s = validate_poisoned(
      [&] {
        poison(std::span<T>(out));
        run_variant(out, ref, m);
        return compare(std::span<const T>(out), std::span<const T>(ref), kExactTolerance);
      },
      kExactTolerance);
  return passes(s, kExactTolerance);
}

template <class T>
class PoisonHost : public ::testing::Test {};
using OutputTypes = ::testing::Types<float, double, Half, Bf16, std::int8_t, std::uint8_t,
                                     std::int16_t, std::uint16_t, std::int32_t, std::uint32_t,
                                     std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(PoisonHost, OutputTypes);

TYPED_TEST(PoisonHost, CorrectVariantPasses) {
  EXPECT_TRUE(validates(reference<TypeParam>(1001), Mutation::none));
}

TYPED_TEST(PoisonHost, UnwrittenLastElementFails) {
  EXPECT_FALSE(validates(reference<TypeParam>(1001), Mutation::skip_last));
}

TYPED_TEST(PoisonHost, AccumulatorNeverResetFails) {
  EXPECT_FALSE(validates(reference<TypeParam>(1001), Mutation::accumulate));
}

// The first pattern alone cannot see an unwritten element whose reference is that pattern; the
// second pass does.
TYPED_TEST(PoisonHost, UnwrittenElementEqualToTheFirstPatternFails) {
  if (first_pattern_is_nan<TypeParam>()) GTEST_SKIP() << "a NaN reference is never valid";
  const auto ref = reference_ending_in_first_pattern<TypeParam>(1001);
  EXPECT_TRUE(validates(ref, Mutation::none));
  EXPECT_FALSE(validates(ref, Mutation::skip_last));
}

// The rule both sides follow: the byte of each pass, and a second pass only where needed.
TEST(PoisonRule, FloatsAreNaNIntegersTakeTwoPatterns) {
  int float_passes = 0, int_passes = 0;
  std::vector<float> f(3);
  std::vector<std::uint32_t> u(3);
  validate_poisoned([&] { ++float_passes; poison(std::span<float>(f)); return ErrorStats{}; },
                    kExactTolerance);
  EXPECT_EQ(float_passes, 1);
  std::vector<std::uint32_t> seen;
  validate_poisoned(
      [&] {
        ++int_passes;
        poison(std::span<std::uint32_t>(u));
        seen.push_back(u[0]);
        return ErrorStats{};
      },
      kExactTolerance);
  EXPECT_EQ(int_passes, 2);
  EXPECT_EQ(seen, (std::vector<std::uint32_t>{0xFFFFFFFFu, 0x55555555u}));
  EXPECT_EQ(poison_state().pass, 0);  // reset for the next validation
}

}  // namespace
}  // namespace tb::test
