#pragma once
// What the run knows about the GPU: whether there is one (and if not, why), its properties,
// and the device-to-device copy bandwidth (cudaMemcpy) recorded beside the per-pattern ceilings.
#include <cstddef>
#include <string>

namespace tb {

struct GpuInfo {
  bool available = false;
  // "available", "no CUDA device: <reason>", "not built: ...", "no GPU code: <what to rebuild>"
  std::string status;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sms = 0;
  int device_count = 0;  // the devices the driver reports (CUDA_VISIBLE_DEVICES applied)
  std::string pci_bus_id;  // device 0's, the device measured: "0000:19:00.0"
  std::size_t memory_bytes = 0;
  int sm_clock_mhz = 0, mem_clock_mhz = 0, mem_bus_bits = 0;
  int max_threads_per_block = 0;
  int driver_version = 0, runtime_version = 0;
  double peak_fp32_flops = 0.0;  // theoretical: SMs x 128 FP32 lanes x 2 x clock (sm_80+)
  // The code this binary runs on the GPU (the start-up check, common/build_fit.hpp):
  std::string cuda_architectures;  // what was built: CMake's list, e.g. "75-real;90-real"
  std::string code;                // "sm_90 SASS", "compute_80 PTX, JIT-compiled by the driver ..."
  bool code_jit = false;           // the driver JIT-compiled PTX for this GPU
  bool no_code = false;            // a GPU is present, but the build has no code for it
  int code_arch = 0;               // the probe kernel's ptxVersion: what __CUDA_ARCH__ paths ran
  int cc() const { return cc_major * 10 + cc_minor; }
};

// CUDA's PCI bus id of `device` ("0000:19:00.0"), "" when it has none to give.
std::string pci_bus_id(int device);

// The devices CUDA shows this process (CUDA_VISIBLE_DEVICES applied), without making a context
// on any of them (gpu_info() does); 0 without a driver or a CUDA build.
int cuda_device_count();

// Probed once; cheap afterwards. Never throws: a missing driver is a status, not an error.
const GpuInfo& gpu_info();

// Device-to-device cudaMemcpy of `bytes`, counting bytes read + written, best of several.
// Returns 0 when there is no GPU.
double measure_copy_bandwidth(std::size_t bytes);


}  // namespace tb
