#pragma once
// The run's context in the results JSON (benchmark::AddCustomContext): what a reader needs to
// trust or reproduce a number, and the ceilings "% of peak" is measured against.
#include <string>

#include "common/workload.hpp"

namespace tb {

// Probes the GPU, measures the device copy bandwidth (cudaMemcpy, kept beside the per-pattern
// ceilings of common/ceiling_rows.hpp), and adds
// everything to Google Benchmark's context. Call after benchmark::Initialize.
void record_run_context(const std::string& machine, const RunConfig& cfg);

std::string cpu_model();

}  // namespace tb
