#pragma once
// The run's ceilings, measured at start by the suite's own kernels and put in the context:
// bandwidth per access pattern on the GPU and on the CPU (all threads and one), compute roofs on
// both sides beside the datasheet figures, and the cache mode. Rows take their "% of ceiling"
// from these (common/ceilings.hpp).
#include "common/workload.hpp"

namespace tb {

void measure_and_record_ceilings(const RunConfig& cfg);
// --no-ceilings: the cache mode only, and why the ceilings are missing; rows then carry no
// "% of ceiling". For runs under a checker or profiler (compute-sanitizer's racecheck took
// over 160 s on the ceilings' kernels alone on the H200, where the --quick suite takes 12 s).
void record_ceilings_off();

}  // namespace tb
