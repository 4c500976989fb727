#pragma once
// What a GPU row records about its kernel's launch: registers, shared memory, occupancy, grid.
// Plain data (no CUDA syntax), so host code includes it; twinbench::kernel_stats() fills it
// from a kernel's address (twinbench.hpp).

namespace twinbench {

struct KernelStats {
  int block_threads = 0;
  int regs_per_thread = 0;
  int static_smem_bytes = 0;
  int active_blocks_per_sm = 0;  // cudaOccupancyMaxActiveBlocksPerMultiprocessor
  double occupancy = 0.0;        // theoretical: active warps / max warps per SM
  long long grid_blocks = 0;
  int suggested_block = 0;       // cudaOccupancyMaxPotentialBlockSize's choice
  int sm_count = 0;
  // The virtual architecture of the code that runs (cudaFuncAttributes::ptxVersion): which
  // __CUDA_ARCH__ paths were compiled in, e.g. 80 for compute_80 PTX JIT-compiled on an sm_90 GPU.
  int code_arch = 0;
  // Which of a launcher's code paths runs, for launchers with several ("" for one path): the
  // row's label, so a run says e.g. whether vector_add took the TMA bulk copies.
  const char* path = "";
  // Fewer than 2 blocks per SM leaves SMs idle or unable to hide latency.
  bool low_occupancy() const { return sm_count > 0 && grid_blocks < 2LL * sm_count; }
};

}  // namespace twinbench
