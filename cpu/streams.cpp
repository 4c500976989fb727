#include "cpu/streams.hpp"

namespace tb::streams {

// The build targets baseline x86-64 (no FMA instruction), where std::fma is a libm call of a few
// ns; a second clone for CPUs with FMA (chosen at load time) inlines it as one instruction.
// Both round once, so the results are the same bits.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define TB_FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define TB_FMA_CLONES
#endif

TB_FMA_CLONES void serial(const float* in, float* out, std::size_t n, int fma) {
  for (std::size_t i = 0; i < n; ++i) out[i] = element(in[i], fma);
}

TB_FMA_CLONES void omp(const float* in, float* out, std::size_t n, int fma) {
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) out[i] = element(in[i], fma);
}

}  // namespace tb::streams
