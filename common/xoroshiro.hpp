#pragma once
// xoroshiro128+ (Blackman and Vigna, 2018 constants a=24, b=16, c=37) and its SplitMix64
// seeding, as functions that both g++ and nvcc compile, so that stream t draws the same numbers
// on the CPU and on the GPU. No CUDA syntax unless __CUDACC__: this header is included by
// host-only code too.
#include <cstdint>

#ifdef __CUDACC__
#define TB_HD __host__ __device__
#else
#define TB_HD
#endif

namespace tb::rng {

struct Xoroshiro128p {
  std::uint64_t s0 = 0;
  std::uint64_t s1 = 0;
};

TB_HD inline std::uint64_t rotl64(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// Same formula as tb::mix64 (common/random.hpp, which nvcc's C++17 cannot include because of
// <span>); tests check that the two agree.
TB_HD inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Stream t's state is outputs 2t and 2t+1 of the SplitMix64 sequence started at `seed`
// (splitmix64(seed + k * golden)), the seeding the xoroshiro authors recommend. An all-zero
// state would be a fixed point; SplitMix64 is a bijection, so that needs two equal inputs, which
// cannot happen, but the guard costs nothing.
TB_HD inline Xoroshiro128p seed_stream(std::uint64_t seed, std::uint64_t t) {
  constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ull;
  Xoroshiro128p s;
  s.s0 = splitmix64(seed + (2 * t) * kGolden);
  s.s1 = splitmix64(seed + (2 * t + 1) * kGolden);
  if ((s.s0 | s.s1) == 0) s.s0 = 1;
  return s;
}

TB_HD inline std::uint64_t next(Xoroshiro128p& s) {
  const std::uint64_t s0 = s.s0;
  std::uint64_t s1 = s.s1;
  const std::uint64_t result = s0 + s1;
  s1 ^= s0;
  s.s0 = rotl64(s0, 24) ^ s1 ^ (s1 << 16);
  s.s1 = rotl64(s1, 37);
  return result;
}

// The top 53 bits: the low bits of xoroshiro128+ are its weak ones (the lowest is an LFSR).
TB_HD inline std::uint64_t next53(Xoroshiro128p& s) { return next(s) >> 11; }
TB_HD inline double to_unit(std::uint64_t u53) { return static_cast<double>(u53) * 0x1.0p-53; }

}  // namespace tb::rng
