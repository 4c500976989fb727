#include "cpu/blas.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>

#include "common/cpu_isa.hpp"

namespace tb::blas {
namespace {

const char* coretype_for(cpu_isa::Level level) {
  switch (level) {
    case cpu_isa::Level::avx512: return "SkylakeX";
    case cpu_isa::Level::avx2: return "Haswell";
    default: return "Prescott";
  }
}

// The OpenMP build first: beside the binary (the GPU bundle) or where Debian puts it; the
// generic name last (whatever build the system has).
constexpr const char* kCandidates[] = {
    "libopenblas.so.0",  // found through the binary's RUNPATH ($ORIGIN: the bundle) first
    "/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0",
    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
};

std::unique_ptr<OpenBlas> load(std::string& why_not) {
  std::string source;
  if (const char* user = std::getenv("OPENBLAS_CORETYPE"); user && *user) {
    source = std::string("the user's OPENBLAS_CORETYPE=") + user;
  } else {
    const char* core = coretype_for(cpu_isa::active_level());
    setenv("OPENBLAS_CORETYPE", core, 1);
    source = std::string("OPENBLAS_CORETYPE=") + core + " set by twinbench from the CPU's ISA level " +
             cpu_isa::name(cpu_isa::active_level());
  }
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
