#pragma once
// --devices: which GPU a run measures. One device per process: the run makes the chosen device
// the only one CUDA shows it (CUDA_VISIBLE_DEVICES, set before the first CUDA call), so every part
// of the run (kernels, the L2 flush, the launch gate, the ceilings, the poller's copies) is on it
// without each naming it; the context records which one it was. Several devices are measured
// one process each, one after another (as nvbench's -d runs them): scripts/run-devices.sh. The
// workloads across devices (collectives, peer_copy) use every device the process sees, so they
// run where CUDA_VISIBLE_DEVICES lists several. Host code only.
#include <optional>
#include <string>
#include <string_view>

namespace tb {

// The device ordinal of `--devices=VALUE`: one non-negative integer. Throws
// std::invalid_argument with what to do instead for anything else (a list, "all", text).
int parse_device(std::string_view value);

// The CUDA_VISIBLE_DEVICES value that shows only device `ordinal` of those visible now
// (`current`: the variable's value, or nullopt when unset): the ordinal-th entry of the current
// list, or the ordinal itself. Throws std::invalid_argument when the list has no such entry.
std::string visible_devices_for(int ordinal, const std::optional<std::string>& current);

}  // namespace tb
