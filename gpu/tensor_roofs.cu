#include "gpu/tensor_roofs.hpp"

#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>

#include "common/capability.hpp"
#include "common/cuda_check.hpp"
#include "common/gpu_context.hpp"
#include "common/cuda_raii.hpp"
#include "gpu/sgemm.hpp"

namespace tb::gpu {
namespace {

constexpr int kRepeats = 3;

// Best rate of kRepeats products after one warm-up (which also lets cuBLAS pick its kernel).
double best_rate(const std::function<void()>& product, std::size_t n, cudaStream_t stream) {
  const Event start, stop;
  product();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  double best = INFINITY;
  for (int r = 0; r < kRepeats; ++r) {
    start.record(stream);
    product();
    stop.record(stream);
    stop.synchronize();
    best = std::fmin(best, stop.seconds_since(start));
  }
  const double nd = static_cast<double>(n);
  return 2.0 * nd * nd * nd / best;
}

}  // namespace

TensorRoofs measure_tensor_roofs(std::size_t n) {
  TensorRoofs roofs;
  roofs.n = n;
  if (!cublas_unavailable_reason().empty()) {
    roofs.why_not = cublas_unavailable_reason();
    return roofs;
  }
  // cuBLAS runs a TF32 request as plain FP32 below sm_80: a "TF32 roof" there would be the FP32
  // one under another name.
  const std::string missing = capability_missing(GpuFeature::bf16_tensor_cores,
                                                 gpu_info().cc(), 0);
  if (!missing.empty()) {
    roofs.why_not = "TF32 and BF16 roofs: " + missing;
    return roofs;
  }
  try {
    const Stream stream;
    DeviceBuffer<float> a(n * n), b(n * n), c(n * n);
    DeviceBuffer<std::uint16_t> a16(n * n), b16(n * n);
    // Inputs of ~0.0115 (bytes 0x3c): finite, not zero, no overflow in the sums.
    CUDA_CHECK(cudaMemsetAsync(a.data(), 0x3c, n * n * sizeof(float), stream));
    CUDA_CHECK(cudaMemsetAsync(b.data(), 0x3c, n * n * sizeof(float), stream));
    round_to_bf16(a.data(), a16.data(), n * n, stream);
    round_to_bf16(b.data(), b16.data(), n * n, stream);
    const CublasSgemm tf32(stream, true), plain(stream, false);
    roofs.tf32_flops =
        best_rate([&] { tf32.run(a.data(), b.data(), c.data(), n); }, n, stream);
    roofs.bf16_flops =
        best_rate([&] { plain.run_bf16(a16.data(), b16.data(), c.data(), n); }, n, stream);
  } catch (const std::exception& e) {
    roofs.why_not = e.what();
  }
  return roofs;
}

}  // namespace tb::gpu
