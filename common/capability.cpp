#include "common/capability.hpp"

namespace tb {

int min_compute_capability(GpuFeature f) {
  switch (f) {
    case GpuFeature::none: return 0;
    case GpuFeature::cp_async:
    case GpuFeature::bf16_tensor_cores: return 80;
    case GpuFeature::tma_bulk_copy:
    case GpuFeature::thread_block_clusters: return 90;
  }
  return 0;
}

const char* feature_name(GpuFeature f) {
  switch (f) {
    case GpuFeature::none: return "nothing";
    case GpuFeature::cp_async: return "cp.async copies";
    case GpuFeature::bf16_tensor_cores: return "BF16 tensor cores";
    case GpuFeature::tma_bulk_copy: return "TMA bulk copies";
    case GpuFeature::thread_block_clusters: return "thread-block clusters";
  }
  return "?";
}

namespace {
std::string cc_text(int cc) { return std::to_string(cc / 10) + "." + std::to_string(cc % 10); }
}  // namespace

std::string capability_missing(GpuFeature f, int device_cc, int code_arch) {
  const int need = min_compute_capability(f);
  if (need == 0) return "";
  const std::string what =
      std::string("needs ") + feature_name(f) + " (compute capability " + cc_text(need) + "); ";
  if (device_cc < need) return what + "this GPU is " + cc_text(device_cc);
  if (code_arch != 0 && code_arch < need)
    return what + "this build's code for the kernel is compute_" + std::to_string(code_arch);
  return "";
}

}  // namespace tb
