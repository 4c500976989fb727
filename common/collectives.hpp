#pragma once
// collectives: what NCCL's collectives move and what they must leave behind, as nccl-tests
// defines it (its doc/PERFORMANCE.md), so that the rows' algbw and busbw read like its columns:
// - `bytes` is nccl-tests' size column: all_reduce and broadcast the buffer of one rank;
//   all_gather the gathered output of one rank (each rank sends bytes / ranks); reduce_scatter
//   the input of one rank (each rank keeps bytes / ranks); all_to_all the send buffer of one rank
//   (bytes / ranks to each peer).
// - algbw = bytes / time; busbw = algbw x bus_factor, the factor that makes busbw the bandwidth of
//   the busiest link of an ideal ring, comparable across rank counts: 2(n-1)/n for all_reduce,
//   (n-1)/n for all_gather, reduce_scatter and all_to_all, 1 for broadcast. With one rank the
//   factor is 0 (nothing crosses a link) except for broadcast.
// Values: rank r's input element i is a small non-zero integer from a seeded hash, so that every
// sum of up to 2^19 ranks is an exact float: the check is exact, whatever order NCCL adds in.
// No CUDA syntax unless __CUDACC__ (host tests include it; gpu/collectives.cu evaluates the same
// functions on the device).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/xoroshiro.hpp"

namespace tb::collectives {

enum class Op { all_reduce, all_gather, reduce_scatter, broadcast, all_to_all };
constexpr Op kOps[] = {Op::all_reduce, Op::all_gather, Op::reduce_scatter, Op::broadcast,
                       Op::all_to_all};

const char* op_name(Op op);
std::optional<Op> op_from_name(std::string_view name);

constexpr std::uint64_t kSeed = 0x5eedc011;
constexpr int kRoot = 0;  // broadcast's root

// nccl-tests' bus factor for `ranks` ranks.
double bus_factor(Op op, int ranks);

// The float32 elements of one rank's send and receive buffers for nccl-tests' size `bytes`
// (rounded down to whole elements, and for the ops that split it, to a multiple of ranks).
struct Counts {
  std::size_t send = 0, recv = 0;
  // The elements each rank sends to or receives from each peer (all_gather, reduce_scatter,
  // all_to_all), or the whole buffer (all_reduce, broadcast).
  std::size_t chunk = 0;
};
Counts counts(Op op, std::size_t bytes, int ranks);
// The size the counts stand for (bytes rounded as counts() rounds it): what algbw divides.
std::size_t effective_bytes(Op op, std::size_t bytes, int ranks);

// Rank `rank`'s input element i: an integer in [-16, -1] or [1, 16], from the seed.
TB_HD inline float input_value(int rank, std::size_t i) {
  const std::uint64_t h =
      rng::splitmix64(kSeed ^ (static_cast<std::uint64_t>(rank) << 40) ^ static_cast<std::uint64_t>(i));
  const float magnitude = static_cast<float>(1 + (h & 15));
  return (h >> 4) & 1 ? magnitude : -magnitude;
}

// What rank `rank`'s receive element i must hold after `op` over `ranks` ranks, with counts `c`.
TB_HD inline float expected_value(Op op, int rank, int ranks, std::size_t i, std::size_t chunk) {
  switch (op) {
    case Op::all_reduce: {
      float s = 0.f;
      for (int r = 0; r < ranks; ++r) s += input_value(r, i);
      return s;
    }
    case Op::all_gather:  // block r of the output is rank r's input
      return input_value(static_cast<int>(i / chunk), i % chunk);
    case Op::reduce_scatter: {  // rank k keeps block k of the sum
      float s = 0.f;
      for (int r = 0; r < ranks; ++r) s += input_value(r, static_cast<std::size_t>(rank) * chunk + i);
      return s;
    }
    case Op::broadcast:
      return input_value(kRoot, i);
    case Op::all_to_all: {  // block r of rank k's output is block k of rank r's input
      const auto from = static_cast<int>(i / chunk);
      return input_value(from, static_cast<std::size_t>(rank) * chunk + i % chunk);
    }
  }
  return 0.f;
}

// nccl-tests' sizes by factors of 8: 8 B to 1 GiB by default (--quick: to 2 MiB; --full: to
// 8 GiB, whose all_gather needs 8 GiB of output per GPU beside its send buffer).
std::vector<std::size_t> sizes(bool quick, bool full);

}  // namespace tb::collectives
