#pragma once
// The run's ceilings, measured at start by the suite's own kernels and put in the context:
// bandwidth per access pattern on the GPU and on the CPU (all threads and one), compute roofs on
// both sides beside the datasheet figures, and the cache mode. Rows take their "% of ceiling"
// from these (common/ceilings.hpp).
#include "common/workload.hpp"

namespace tb {

void measure_and_record_ceilings(const RunConfig& cfg);

}  // namespace tb
