#pragma once
// Whether the GPU code a binary holds fits the GPU it runs on, decided from the build's list of
// CUDA architectures (CMake's CMAKE_CUDA_ARCHITECTURES syntax) and the device's compute
// capability, with the CUDA runtime's rule: SASS for sm_XY runs on a device of the same major
// version and minor >= Y; PTX for compute_XY is JIT-compiled by the driver for any device of
// compute capability >= XY; SASS is preferred when both fit. Plain C++ without CUDA, so CI tests
// the rule on GPUs it does not have. At run time the probe kernel (common/cuda_probe.cu) has the
// last word: this rule names what was built and what to rebuild.
#include <string>
#include <vector>

namespace tb {

struct CudaArch {
  int arch = 0;       // 75, 80, 90, ...
  bool sass = false;  // sm_XY machine code in the binary
  bool ptx = false;   // compute_XY PTX in the binary
};

// "75-real;80-real;90" -> {75 sass}, {80 sass}, {90 sass + ptx}. "native", "all" and
// "all-major" cannot be resolved without the build's GPU and give an empty list.
std::vector<CudaArch> parse_cuda_architectures(const std::string& list);

enum class CodeFit { sass, jit, none, unknown };

struct BuildFit {
  CodeFit fit = CodeFit::unknown;
  int arch = 0;      // the architecture of the code the runtime loads (0 for none / unknown)
  std::string text;  // "sm_90 SASS", "compute_80 PTX, JIT-compiled by the driver for sm_90", ...
};

// device_cc as major * 10 + minor.
BuildFit build_fit(const std::string& architectures, int device_cc);

// The one line a run prints when the binary has no code for the GPU: what was built, the GPU,
// and the command that rebuilds for it.
std::string no_code_message(const std::string& architectures, const std::string& gpu_name,
                            int device_cc);

}  // namespace tb
