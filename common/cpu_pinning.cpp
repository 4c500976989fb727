#include "common/cpu_pinning.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>

namespace tb {
namespace {

constexpr const char* kMarker = "TWINBENCH_PINNED_BY_TWINBENCH";

bool set(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}

std::string value(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

void pin_openmp_threads_or_reexec(char** argv) {
  if (set("TWINBENCH_NO_PIN") || set(kMarker)) return;
  if (set("OMP_PROC_BIND") || set("OMP_PLACES")) return;  // the user's choice
  setenv("OMP_PROC_BIND", "spread", 1);
  setenv("OMP_PLACES", "cores", 1);
  setenv(kMarker, "1", 1);
  execv("/proc/self/exe", argv);
  // exec failed (no /proc, say): run unpinned, and say so once.
  std::fprintf(stderr, "twinbench: could not restart pinned (%s): OpenMP threads are not pinned\n",
               std::strerror(errno));
  unsetenv("OMP_PROC_BIND");
  unsetenv("OMP_PLACES");
}

std::string pinning_description() {
  if (set("TWINBENCH_NO_PIN")) return "off (TWINBENCH_NO_PIN is set)";
  if (!set("OMP_PROC_BIND") && !set("OMP_PLACES")) return "off (not pinned)";
  const std::string settings =
      "OMP_PROC_BIND=" + value("OMP_PROC_BIND") + " OMP_PLACES=" + value("OMP_PLACES");
  return settings + (set(kMarker) ? " (set by twinbench)" : " (the user's)");
}

}  // namespace tb
