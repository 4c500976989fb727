#pragma once
// The start-up check: does this binary hold code the GPU can run? A trivial kernel compiled with
// every other kernel of the build (the same architectures) is asked for its attributes;
// cudaErrorNoKernelImageForDevice means the build has neither SASS nor PTX for the device.
// Plain C++: the kernel is in common/cuda_probe.cu.
#include <string>

namespace tb {

struct ProbeResult {
  bool loaded = false;
  std::string error;       // the runtime's error when not loaded
  int ptx_version = 0;     // cudaFuncAttributes::ptxVersion: the code's virtual architecture
  int binary_version = 0;  // cudaFuncAttributes::binaryVersion: the SASS that runs
};

ProbeResult probe_kernel_code();

}  // namespace tb
