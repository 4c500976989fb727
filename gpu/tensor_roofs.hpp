#pragma once
// The GPU's tensor-core roofs in the precisions the suite has tensor rows for (TF32 and BF16
// inputs, FP32 accumulation), measured in the run so that no tensor row is held to the FP32 roof
// (the report in results/nvidia-h200/2026-12-01, made without them, put cublas_tf32 at 650% of
// it).
//
// Measured as the best of a few cuBLAS GEMMs at n = 8192 (2n^3 FLOPs each, ~1.1 TFLOP): the rate
// the tensor cores reach on the largest product the default run has, through the library that
// runs them best. Not a register-resident loop like the FMA roofs: on Hopper the full-rate tensor
// instructions (wgmma) need sm_90a code and shared-memory operand descriptors, and the older
// mma.sync reaches only part of the rate, so a roof from it would sit below cuBLAS itself. A
// cuBLAS row therefore reads near 100% of these roofs by construction; a hand-written tensor
// kernel would read against what the library reaches.
// No CUDA syntax here: bench/ includes it.
#include <cstddef>
#include <string>

namespace tb::gpu {

struct TensorRoofs {
  double tf32_flops = 0.0;
  double bf16_flops = 0.0;
  std::size_t n = 0;
  std::string why_not;  // set when cuBLAS is missing or a product failed
};

TensorRoofs measure_tensor_roofs(std::size_t n = 8192);

}  // namespace tb::gpu
