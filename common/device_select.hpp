#pragma once
// --devices: which GPU a run measures. One device per process: the run makes the chosen device
// the only one CUDA shows it (CUDA_VISIBLE_DEVICES, set before the first CUDA call), so every part
// of the run (kernels, the L2 flush, the launch gate, the ceilings, the poller's copies) is on it
// without each naming it; the context records which one it was. Several devices
// (`--devices=0,2` or `all`) are measured one process each, one after another, as nvbench's -d
// runs them: the run starts itself once per device, each writing its own results file
// (per_device_path). The workloads across devices (collectives, peer_copy, scaling) use every
// device the process sees, so they run where CUDA_VISIBLE_DEVICES lists several. Host code only.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

// `--devices=VALUE`: one device number, a list of distinct numbers ("0,2"), or "all".
struct DeviceChoice {
  bool all = false;
  std::vector<int> ordinals;  // in the order given
  bool single() const { return !all && ordinals.size() == 1; }
};

// Throws std::invalid_argument naming what was expected.
DeviceChoice parse_devices(std::string_view value);

// Where device `device`'s results go when a run of several devices is asked to write `out`:
// "run.json" -> "run-gpu2.json", any other name gets "-gpu2" at its end.
std::string per_device_path(std::string_view out, int device);

// The CUDA_VISIBLE_DEVICES value that shows only device `ordinal` of those visible now
// (`current`: the variable's value, or nullopt when unset): the ordinal-th entry of the current
// list, or the ordinal itself. Throws std::invalid_argument when the list has no such entry.
std::string visible_devices_for(int ordinal, const std::optional<std::string>& current);

}  // namespace tb
