#pragma once
// The CPU's library peers for SGEMM, as cuBLAS is the GPU's: OpenBLAS's cblas_sgemm (FP32) and
// oneDNN's matmul (FP32, and BF16 inputs with FP32 accumulation on AMX or AVX512_BF16 where the
// CPU has them: the peer of the GPU's BF16 tensor-core rows). n x n, row-major, as the suite's
// own kernels.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cpu/blas.hpp"

namespace tb::sgemm {

// C = A * B through the loaded OpenBLAS (cpu/blas.hpp), row-major, no transposes.
void openblas(const blas::OpenBlas& lib, const float* a, const float* b, float* c, std::size_t n);

// Empty when oneDNN was found at build time; otherwise why its rows skip.
const std::string& onednn_unavailable_reason();
// The same for its BF16 matmul, which also needs this CPU to be one oneDNN has a BF16 kernel
// for: Debian's 2.6 creates none on an AMD EPYC (Zen 4) with AVX512_BF16 ("could not create a
// primitive descriptor iterator"), so there the BF16 rows skip with that reason.
const std::string& onednn_bf16_unavailable_reason();

// One oneDNN matmul primitive for n x n row-major operands in plain layouts (as the other rows
// take them: no pre-packed weights), created once (outside every timed region) and run many
// times. Inputs in FP32, or in BF16 (`bf16`: the 16-bit patterns of to_bf16, cpu/sgemm.hpp);
// the output is FP32 either way. Throws std::runtime_error when oneDNN is absent or refuses.
class OnednnMatmul {
 public:
  OnednnMatmul(std::size_t n, bool bf16);
  ~OnednnMatmul();
  OnednnMatmul(OnednnMatmul&&) noexcept;
  OnednnMatmul& operator=(OnednnMatmul&&) noexcept;

  // a, b: n*n floats, or n*n bf16 patterns when built with bf16; c: n*n floats.
  void run(const void* a, const void* b, float* c) const;
  // The implementation oneDNN chose (impl_info_str), e.g. "brg:avx512_core_amx".
  const std::string& impl() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tb::sgemm
