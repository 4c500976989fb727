#include "cpu/blas.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>

#include "common/cpu_isa.hpp"

namespace tb::blas {
namespace {

[[maybe_unused]] const char* coretype_for(cpu_isa::Level level) {
  switch (level) {
    case cpu_isa::Level::avx512: return "SkylakeX";
    case cpu_isa::Level::avx2: return "Haswell";
    default: return "Prescott";
  }
}

// The OpenMP build first: beside the binary (the GPU bundle) or where Debian puts it; the
// generic name last (whatever build the system has).
#if defined(__aarch64__)
#define TB_MULTIARCH "aarch64-linux-gnu"
#else
#define TB_MULTIARCH "x86_64-linux-gnu"
#endif
constexpr const char* kCandidates[] = {
    "libopenblas.so.0",  // found through the binary's RUNPATH ($ORIGIN: the bundle) first
    "/usr/lib/" TB_MULTIARCH "/openblas-openmp/libopenblas.so.0",
    "/usr/lib/" TB_MULTIARCH "/openblas-pthread/libopenblas.so.0",
};
#undef TB_MULTIARCH

// Where OpenBLAS's own choice stands (it detects the core when it loads). On x86-64 twinbench
// names the core (blas.hpp says why); on aarch64 Debian's build detects Neoverse and Cortex cores
// itself, and the suite's kernels run one level there, so there is nothing to match.
std::string choose_coretype() {
  if (const char* user = std::getenv("OPENBLAS_CORETYPE"); user && *user)
    return std::string("the user's OPENBLAS_CORETYPE=") + user;
#if defined(__aarch64__)
  return "OpenBLAS's own detection (aarch64)";
#else
  const char* core = coretype_for(cpu_isa::active_level());
  setenv("OPENBLAS_CORETYPE", core, 1);
  return std::string("OPENBLAS_CORETYPE=") + core + " set by twinbench from the CPU's ISA level " +
         cpu_isa::name(cpu_isa::active_level());
#endif
}

std::unique_ptr<OpenBlas> load(std::string& why_not) {
  const std::string source = choose_coretype();
  void* handle = nullptr;
  std::string path;
  std::string errors;
  for (const char* candidate : kCandidates) {
    handle = dlopen(candidate, RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      path = candidate;
      break;
    }
    if (const char* e = dlerror()) errors = e;
  }
  if (!handle) {
    why_not = "OpenBLAS not found (install libopenblas0-openmp): " + errors;
    return nullptr;
  }
  auto lib = std::make_unique<OpenBlas>();
  lib->path = path;
  lib->coretype_source = source;
  lib->sgemm = reinterpret_cast<decltype(lib->sgemm)>(dlsym(handle, "cblas_sgemm"));
  auto corename = reinterpret_cast<char* (*)()>(dlsym(handle, "openblas_get_corename"));
  auto config = reinterpret_cast<char* (*)()>(dlsym(handle, "openblas_get_config"));
  if (!lib->sgemm || !corename || !config) {
    why_not = path + " lacks cblas_sgemm or openblas_get_corename: not OpenBLAS?";
    return nullptr;
  }
  lib->corename = corename();
  lib->config = config();
  return lib;
}

}  // namespace

const OpenBlas* openblas(std::string& why_not) {
  static std::string why;
  static const std::unique_ptr<OpenBlas> lib = load(why);
  why_not = why;
  return lib.get();
}

}  // namespace tb::blas
