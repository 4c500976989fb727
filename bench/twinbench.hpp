#pragma once
// The author's API: everything a workload's bench file (bench/<workload>.cpp) needs, in one
// include. docs/adding-a-workload.md walks through a complete workload and lists the names.
// The machinery behind it (timing, the launch gate, samples, registration) is in common/
// and common/harness.hpp.
#include "common/cpu_run.hpp"
#include "common/harness.hpp"
#include "common/host_array.hpp"
#include "common/random.hpp"
#include "common/sampler.hpp"
#include "common/validate.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/gpu_run.hpp"
#endif
