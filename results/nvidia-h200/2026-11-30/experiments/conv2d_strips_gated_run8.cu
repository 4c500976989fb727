// Scratch: the strip kernels timed both back to back and the suite's way (each launch queued
// behind a gate kernel, events around the one kernel, median of 200).
#define main strips_unused_main
#include "conv2d_strips.cu"
#undef main
#include "gpu/launch_gate.hpp"

static unsigned* g_flags; static unsigned* g_dflags;
template <class L> static double gated_us(L launch, int reps = 200) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 10; ++i) launch();
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    *(volatile unsigned*)&g_flags[0] = 0u;
    tb::gpu::launch_gate(g_dflags, g_dflags + 1, 500000000ull, 0);
    cudaEventRecord(a, 0); launch(); cudaEventRecord(b, 0);
    __sync_synchronize();
    *(volatile unsigned*)&g_flags[0] = 1u;
    CK(cudaEventSynchronize(b));
    float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 1000.f);
  }
  if (g_flags[1]) printf("gate timed out!\n");
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}

template <int F> void run_g(Img& big, Img& odd) {
  std::vector<float> filt(F * F); for (int i = 0; i < F * F; ++i) filt[i] = 0.02f * (i + 1) - 0.3f;
  CK(cudaMemcpyToSymbol(c_f, filt.data(), F * F * 4));
  tb::gpu::conv2d_set_tiled_filter(filt.data(), F, 0); CK(cudaDeviceSynchronize());
  std::vector<float> ref_big, ref_odd; reference(big, filt, F, ref_big); reference(odd, filt, F, ref_odd);
  const double bytes = 8.0 * big.w * big.h;
  auto report = [&](const char* name, int r, double e_big, double e_odd, double b2b, double g) {
    printf("f=%d %-24s regs %3d err %.1e/%.1e b2b %6.2f us %5.1f%%  gated %6.2f us %5.1f%%\n", F, name, r, e_big, e_odd, b2b, 100.0 * bytes / (b2b * 1e-6) / g_bw, g, 100.0 * bytes / (g * 1e-6) / g_bw);
  };
  auto suite = [&](const char* name, auto fn, auto stats, tb::Block2 bs) {
    double e1 = check(big, ref_big, [&] { fn(big.din, big.dout, big.w, big.h, F, bs, 0); });
    double e2 = check(odd, ref_odd, [&] { fn(odd.din, odd.dout, odd.w, odd.h, F, bs, 0); });
    auto l = [&] { fn(big.din, big.dout, big.w, big.h, F, bs, 0); };
    double b = time_us(l), g = gated_us(l);
    report(name, stats(big.w, big.h, F, bs).regs_per_thread, e1, e2, b, g);
  };
  suite("suite tiled 32x4", tb::gpu::conv2d_cuda_tiled, tb::gpu::conv2d_cuda_tiled_stats, tb::Block2{32, 4});
  suite("suite direct 32x1", tb::gpu::conv2d_cuda_direct, tb::gpu::conv2d_cuda_direct_stats, tb::Block2{32, 1});
  suite("suite direct 8x8", tb::gpu::conv2d_cuda_direct, tb::gpu::conv2d_cuda_direct_stats, tb::Block2{8, 8});
  suite("suite direct 32x4", tb::gpu::conv2d_cuda_direct, tb::gpu::conv2d_cuda_direct_stats, tb::Block2{32, 4});
  auto strip = [&](const char* name, auto kern, auto launch) {
    double e1 = check(big, ref_big, [&] { launch(big, true); });
    double e2 = check(odd, ref_odd, [&] { launch(odd, false); });
    auto l = [&] { launch(big, true); };
    double b = time_us(l), g = gated_us(l);
    report(name, regs(kern), e1, e2, b, g);
  };
#define G(S, WPB, D) strip("ldgd S" #S " W" #WPB " D" #D, ldgd_kernel<F, S, WPB, D, 0>, launch_ldgd<F, S, WPB, D, 0>)
  if constexpr (F <= 5) {
    G(16, 2, 2); G(16, 1, 2); G(16, 4, 2); G(14, 1, 2); G(14, 2, 2); G(12, 2, 2); G(12, 1, 2); G(10, 2, 2); G(8, 2, 2); G(8, 1, 2); G(20, 2, 2);
  } else {
    G(16, 2, 1); G(14, 2, 1); G(12, 2, 1); G(8, 2, 1);
  }
}

int main() {
  Img big = make(3840, 2160), odd = make(1001, 777);
  const size_t n = (size_t)big.w * big.h;
  CK(cudaHostAlloc(&g_flags, 64, cudaHostAllocMapped)); g_flags[0] = 0; g_flags[1] = 0;
  CK(cudaHostGetDevicePointer(&g_dflags, g_flags, 0));
  char *m1, *m2; size_t cb = 1ull << 30; CK(cudaMalloc(&m1, cb)); CK(cudaMalloc(&m2, cb));
  CK(cudaMemset(m1, 1, cb)); CK(cudaMemset(m2, 2, cb));
  double best = 0; for (int i = 0; i < 6; ++i) { double us = time_us([&] { cudaMemcpyAsync(m2, m1, cb, cudaMemcpyDeviceToDevice); }, 1); best = std::max(best, 2.0 * cb / (us * 1e-6)); }
  g_bw = best; printf("copy bw (1 GiB memcpy, best of 6) %.0f GB/s\n", g_bw / 1e9);
  auto cp = [&](const char* name, auto l) { double b = time_us(l), g = gated_us(l);
    printf("%-30s b2b %6.2f us %5.1f%%  gated %6.2f us %5.1f%%\n", name, b, 100.0 * 8.0 * n / (b * 1e-6) / g_bw, g, 100.0 * 8.0 * n / (g * 1e-6) / g_bw); };
  cp("memcpy of the image", [&] { cudaMemcpyAsync(big.dout, big.din, n * 4, cudaMemcpyDeviceToDevice); });
  cp("copy4 kernel block 256", [&] { copy4<<<(n / 4 + 255) / 256, 256>>>((const float4*)big.din, (float4*)big.dout, n / 4); });
  run_g<5>(big, odd); run_g<3>(big, odd); run_g<7>(big, odd);
  return 0;
}
