// Scratch: time conv2d_cuda_tiled (this build's kBlockRows) back to back, 3840x2160.
#include <cstdio>
#include <vector>
#include <cmath>
#include <cuda_runtime.h>
#include "gpu/conv2d.hpp"
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1;} } while (0)
int main() {
  const int w = 3840, h = 2160; const size_t n = (size_t)w * h;
  std::vector<float> in(n), out(n);
  unsigned s = 7; for (auto& v : in) { s = s * 1664525u + 1013904223u; v = (s >> 8) * (1.f / 16777216.f); }
  float *din, *dout; CK(cudaMalloc(&din, n * 4)); CK(cudaMalloc(&dout, n * 4));
  CK(cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice));
  char *m1, *m2; size_t cb = 1ull << 30; CK(cudaMalloc(&m1, cb)); CK(cudaMalloc(&m2, cb));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i) cudaMemcpy(m2, m1, cb, cudaMemcpyDeviceToDevice);
  cudaEventRecord(a); for (int i = 0; i < 10; ++i) cudaMemcpyAsync(m2, m1, cb, cudaMemcpyDeviceToDevice); cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b); const double bw = 2.0 * cb * 10 / (ms * 1e-3);
  printf("KBR=%d copy bw %.0f GB/s\n", KBR, bw / 1e9);
  for (int f : {3, 5, 7}) {
    std::vector<float> filt(f * f); for (int i = 0; i < f * f; ++i) filt[i] = 0.01f * (i + 1);
    tb::gpu::conv2d_set_tiled_filter(filt.data(), f, 0); CK(cudaDeviceSynchronize());
    // check a few pixels against a clamped reference
    tb::gpu::conv2d_cuda_tiled(din, dout, w, h, f, {16, 8}, 0); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost));
    double maxerr = 0; int r = f / 2;
    for (int y : {0, 1, 500, h - 1}) for (int x : {0, 3, 1234, w - 1}) {
      double acc = 0; for (int dy = 0; dy < f; ++dy) for (int dx = 0; dx < f; ++dx) {
        int yy = std::min(std::max(y + dy - r, 0), h - 1), xx = std::min(std::max(x + dx - r, 0), w - 1);
        acc += filt[dy * f + dx] * in[(size_t)yy * w + xx]; }
      maxerr = std::max(maxerr, std::fabs(acc - out[(size_t)y * w + x])); }
    for (auto bs : {tb::Block2{8, 8}, tb::Block2{16, 8}, tb::Block2{32, 4}, tb::Block2{16, 16}, tb::Block2{32, 8}, tb::Block2{64, 4}}) {
      for (int i = 0; i < 20; ++i) tb::gpu::conv2d_cuda_tiled(din, dout, w, h, f, bs, 0);
      cudaEventRecord(a); for (int i = 0; i < 200; ++i) tb::gpu::conv2d_cuda_tiled(din, dout, w, h, f, bs, 0);
      cudaEventRecord(b); CK(cudaEventSynchronize(b)); cudaEventElapsedTime(&ms, a, b);
      const double us = ms * 1000 / 200;
      auto st = tb::gpu::conv2d_cuda_tiled_stats(w, h, f, bs);
      printf("KBR=%d f=%d block %3dx%-3d %7.2f us %5.1f%% regs %d blocks/SM %d maxerr %.2e\n", KBR, f, bs.x, bs.y, us, 100.0 * 8.0 * n / (us * 1e-6) / bw, st.regs_per_thread, st.active_blocks_per_sm, maxerr);
    }
  }
  return 0;
}
