#pragma once
// --devices=0,2 or all: this binary run once per device, one after another (as nvbench's -d
// runs them), each run a process of its own with --devices=N, so that each has its device's
// ceilings, flush buffer, launch gate and telemetry without the harness naming a device. Each
// run writes its own results file (--benchmark_out=run.json -> run-gpu0.json, run-gpu2.json,
// common/device_select.hpp), whose context names its device; `python3 -m reports devices`
// puts them side by side.
#include <string>
#include <vector>

#include "common/device_select.hpp"

namespace tb {

// `args`: the command line as given (argv[0] first), --devices among them. Returns the exit
// status: the first non-zero status of a device's run (the later devices still run), 2 when
// `all` finds no device or the run is under mpirun (where each rank takes its own device).
int run_each_device(const DeviceChoice& choice, const std::vector<std::string>& args);

// One device's command line: `args` with --devices=device in place of the list and each
// --benchmark_out=PATH made per_device_path(PATH, device).
std::vector<std::string> device_args(const std::vector<std::string>& args, int device);

}  // namespace tb
