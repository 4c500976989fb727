#pragma once
// The suite's name for the public launch statistics (include/twinbench/kernel_stats.hpp); filled
// by gpu/kernel_stats.cuh.
#include <twinbench/kernel_stats.hpp>

namespace tb::gpu {
using KernelStats = twinbench::KernelStats;
}  // namespace tb::gpu
