#pragma once
// collectives' CPU side: the five collectives of float32 over the MPI job's ranks' host memory
// (common/mpi_run.hpp), the counterpart of NCCL's, and what every row of the workload shares
// (common/collectives.hpp has the sizes, values and bandwidth definitions).
#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>

#include <twinbench/types.hpp>

#include "common/collectives.hpp"
#include "common/mpi_run.hpp"

namespace tb::collectives {

// Why a size cannot be split among the ranks ("" when it can).
inline std::string too_small(Op op, std::size_t bytes, int ranks) {
  if (counts(op, bytes, ranks).send > 0) return "";
  return std::to_string(bytes) + " bytes is under one float32 per rank of " +
         std::to_string(ranks);
}

// The bytes a collective moves (nccl-tests' size column), held to no ceiling: links are.
inline twinbench::Work link_work(Op op, std::size_t bytes, int ranks) {
  return {.read_bytes = static_cast<double>(effective_bytes(op, bytes, ranks)), .items = 1.0,
          .held_to_ceiling = false};
}

// One collective over every rank's host buffers (each rank calls it).
inline void mpi_collective(Op op, const float* send, float* recv, const Counts& c) {
  mpi::collective(op, send, recv, c);
}

// `local` summed over the MPI job's ranks (each rank calls it), so that every rank reaches the
// same verdict.
inline double over_ranks(double local) { return mpi::sum_over_ranks(local); }

// Every rank's received elements against what they must hold after one collective into
// receive buffers poisoned with NaN, summed over the ranks.
inline double mpi_mismatches(Op op, const float* send, float* recv, const Counts& c) {
  std::fill(recv, recv + c.recv, std::numeric_limits<float>::quiet_NaN());
  mpi_collective(op, send, recv, c);
  double bad = 0;
  for (std::size_t i = 0; i < c.recv; ++i)
    bad += recv[i] != expected_value(op, mpi::rank(), mpi::size(), i, c.chunk);
  return over_ranks(bad);
}

// A count of wrong elements in words ("" for none).
inline std::string wrong_elements(double bad) {
  return bad == 0 ? std::string()
                  : std::to_string(static_cast<long long>(bad)) +
                        " received elements differ from the expected values";
}

}  // namespace tb::collectives
