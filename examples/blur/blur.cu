#include <cuda_runtime.h>

#include <twinbench/twinbench.hpp>

#include "blur.hpp"

namespace blur {
namespace {

__device__ int clamp_to(int v, int hi) { return v < 0 ? 0 : v > hi ? hi : v; }

__global__ void blur_kernel(const float* in, float* out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float sum = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) sum += in[clamp_to(y + dy, h - 1) * w + clamp_to(x + dx, w - 1)];
  out[y * w + x] = sum * (1.0f / 9.0f);
}

dim3 grid_for(int w, int h, int bx, int by) { return dim3((w + bx - 1) / bx, (h + by - 1) / by); }

}  // namespace

void cuda(const float* in, float* out, int w, int h, int bx, int by, CUstream_st* stream) {
  blur_kernel<<<grid_for(w, h, bx, by), dim3(bx, by), 0, stream>>>(in, out, w, h);
}

twinbench::KernelStats cuda_stats(int w, int h, int bx, int by) {
  const dim3 g = grid_for(w, h, bx, by);
  return twinbench::kernel_stats(blur_kernel, bx * by, 1LL * g.x * g.y);
}

}  // namespace blur
