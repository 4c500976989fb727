#pragma once
// OpenMP threads pinned to cores, one per core, for every CPU row. Unpinned threads migrate
// between cores and leave the pages they first touched on another core's side of the caches: the
// same CPU rows on the H200 host moved by up to 1.9x between runs (nested_loop/omp 7.96, 13.72,
// 13.80 ms). libgomp reads OMP_PROC_BIND and OMP_PLACES when it is loaded, before
// main(), so a process that finds neither set sets both (spread over cores) and starts itself
// again with execv; the user's own settings are kept, and TWINBENCH_NO_PIN=1 turns this off.
#include <string>

namespace tb {

// Returns only when the settings are in force (or pinning is off); otherwise does not return.
void pin_openmp_threads_or_reexec(char** argv);
// For the run context: "OMP_PROC_BIND=spread OMP_PLACES=cores (set by twinbench)", "... (the
// user's)", or "off (TWINBENCH_NO_PIN)".
std::string pinning_description();

}  // namespace tb
