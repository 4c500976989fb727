#pragma once
// The run's ceilings, measured at start by the suite's own kernels and put in the context:
// bandwidth per access pattern on the GPU and on the CPU (all threads and one), compute roofs on
// both sides beside the datasheet figures, and the cache mode. Rows take their "% of ceiling"
// from these (common/ceilings.hpp).
#include "common/workload.hpp"

namespace tb {

// The measured sets the selected rows are held to (common/harness.hpp ceiling_set_for; gpu: any
// GPU row, for the link and the roofs too). A set no selected row needs is not measured, and the
// context says so (ceilings_left_out): a --workload or --benchmark_filter run starts sooner.
// The patterns are all measured in a set: a row's bytes are declared when it runs, after the start.
struct CeilingNeeds {
  bool gpu = true, cpu_all = true, cpu_one = true;
};

void measure_and_record_ceilings(const RunConfig& cfg, const CeilingNeeds& needs = {});
// --no-ceilings: the cache mode only, and why the ceilings are missing; rows then carry no
// "% of ceiling". For runs under a checker or profiler (compute-sanitizer's racecheck took
// over 160 s on the ceilings' kernels alone on the H200, where the --quick suite takes 12 s).
void record_ceilings_off();

}  // namespace tb
