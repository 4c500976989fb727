#pragma once
// The GPU's measured ceilings (host-callable; kernels in gpu/ceilings.cu): bandwidth of the six
// access patterns of common/ceilings.hpp and the FMA throughput per precision, by the suite's
// own kernels, so that "% of ceiling" and the roofline are ratios to what this GPU reached in
// this run rather than to a datasheet.
#include <cstddef>
#include <string>

#include "common/ceilings.hpp"

namespace tb::gpu {

// Each pattern over double arrays of `n` elements, the L2 flushed before every timed launch,
// the best of `reps` launches for each of several launch shapes (grid-stride and one element
// per thread, 8- and 16-byte accesses, plain and streaming loads); the ceiling is the best of all, as BabelStream reports
// the best run.
BandwidthSet measure_stream_ceilings(std::size_t n, int reps);

// FMA throughput (FLOP/s; for int8, dp4a operations/s counting 8 per dp4a as dtypes does) of
// register-resident chains, enough blocks to fill every SM several times over.
struct ComputeRoofs {
  double fp32 = 0.0;
  double fp64 = 0.0;
  double fp16 = 0.0;  // half2 FMA (__hfma2), the non-tensor path dtypes uses
  double int8 = 0.0;  // __dp4a
};
ComputeRoofs measure_compute_roofs();

// The host-device link (bytes/s) in each direction: the best of 5 copies between pinned host
// memory and the device of 1 GiB, the transfer rows' largest size (a quarter of the device's
// free memory where that is less); method says so for the context.
struct LinkBandwidth {
  double h2d = 0.0;
  double d2h = 0.0;
  std::string method;
};
LinkBandwidth measure_link_bandwidth();

}  // namespace tb::gpu
