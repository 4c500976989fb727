#include "common/cuda_check.hpp"
#include "gpu/kernel_stats.cuh"
#include "gpu/streams.hpp"

namespace tb::gpu {
namespace {

// a and b are kernel arguments so the compiler cannot fold the chain into a closed form.
__global__ void compute_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n,
                               int fma, float a, float b) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    float x = in[i];
#pragma unroll 8
    for (int k = 0; k < fma; ++k) x = __fmaf_rn(x, a, b);
    out[i] = x;
  }
}

long long grid_for(std::size_t n, int block) {
  return persistent_grid(compute_kernel, block,
                         static_cast<long long>((n + static_cast<std::size_t>(block) - 1) / block));
}

}  // namespace

void streams_compute(const float* in, float* out, std::size_t n, int fma, float a, float b,
                     int block, cudaStream_t stream) {
  if (n == 0) return;
  compute_kernel<<<static_cast<unsigned>(grid_for(n, block)), block, 0, stream>>>(in, out, n, fma,
                                                                                  a, b);
  CUDA_CHECK_LAUNCH();
}

std::size_t streams_chunk_len(std::size_t n, int chunks) {
  return (n + static_cast<std::size_t>(chunks) - 1) / static_cast<std::size_t>(chunks);
}

void streams_pipeline(const PipelineBuffers& buf, const PipelineStreams& ps, int chunks, int fma,
                      float a, float b, int block) {
  cudaStream_t s0 = ps.streams[0];
  CUDA_CHECK(cudaEventRecord(ps.fork, s0));
  for (int i = 1; i < ps.nstreams; ++i) CUDA_CHECK(cudaStreamWaitEvent(ps.streams[i], ps.fork, 0));
  const std::size_t len = streams_chunk_len(buf.n, chunks);
  for (int c = 0; c < chunks; ++c) {
    const std::size_t begin = static_cast<std::size_t>(c) * len;
    if (begin >= buf.n) break;
    const std::size_t count = len < buf.n - begin ? len : buf.n - begin;
    cudaStream_t s = ps.streams[c % ps.nstreams];
    CUDA_CHECK(cudaMemcpyAsync(buf.d_in + begin, buf.h_in + begin, count * sizeof(float),
                               cudaMemcpyHostToDevice, s));
    streams_compute(buf.d_in + begin, buf.d_out + begin, count, fma, a, b, block, s);
    CUDA_CHECK(cudaMemcpyAsync(buf.h_out + begin, buf.d_out + begin, count * sizeof(float),
                               cudaMemcpyDeviceToHost, s));
  }
  for (int i = 1; i < ps.nstreams; ++i) {
    CUDA_CHECK(cudaEventRecord(ps.joins[i], ps.streams[i]));
    CUDA_CHECK(cudaStreamWaitEvent(s0, ps.joins[i], 0));
  }
}

KernelStats streams_compute_stats(std::size_t n, int block) {
  return kernel_stats(compute_kernel, block, n > 0 ? grid_for(n, block) : 0);
}

}  // namespace tb::gpu
