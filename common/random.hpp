#pragma once
// Seeded, reproducible inputs. Each element comes from a counter-based hash of (seed, index),
// so the values do not depend on the thread count and generation runs in parallel (and first-
// touches the pages from the threads that will later read them).
#include <cstddef>
#include <cstdint>
#include <span>

namespace tb {

// SplitMix64 finaliser: a good 64-bit mix of a counter, the usual seeding hash.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [lo, hi), with exact zeros replaced: a zero input hides an unwritten output.
void fill_uniform(std::span<float> out, std::uint64_t seed, float lo, float hi);
void fill_uniform(std::span<double> out, std::uint64_t seed, double lo, double hi);
void fill_uniform(std::span<std::int32_t> out, std::uint64_t seed, std::int32_t lo, std::int32_t hi);

}  // namespace tb
