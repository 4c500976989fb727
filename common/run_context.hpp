#pragma once
// The run's context in the results JSON (benchmark::AddCustomContext): what a reader needs to
// trust or reproduce a number, and the ceilings "% of peak" is measured against.
#include <string>

#include "common/workload.hpp"

namespace tb {

// Probes the GPU, measures the device copy bandwidth and the host's triad bandwidth, and adds
// everything to Google Benchmark's context. Call after benchmark::Initialize.
void record_run_context(const std::string& machine, const RunConfig& cfg);

std::string cpu_model();
// Host memory bandwidth, a STREAM-like triad over `bytes_per_array` float64 arrays (3 arrays,
// bytes read + written), parallel first touch, best of several.
double measure_triad_bandwidth(std::size_t bytes_per_array);

}  // namespace tb
