// twinbench --progress-demo (common/run_main.cpp parses the flag): the live progress of one long
// kernel, drawn on the terminal from the GPU's slots as the kernel runs. Here rather than in
// bench/ so that the tests link it (its no-GPU status is tested); host code only.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <thread>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/gpu_context.hpp"
#include "common/progress.hpp"
#include "gpu/progress_live.hpp"
#include "gpu/sgemm.hpp"

namespace tb::progress {

// `twinbench --progress-demo[=SECONDS]`: one kernel of the suite's sgemm/cuda_optimized
// (gpu/sgemm.hpp sgemm_cuda_optimized_counted) sized to run about SECONDS, each block storing
// into its slot of mapped host memory once its 128 x 128 tile of C is done, and a Poller
// drawing the sum of the slots (tiles done) as a bar with rate and ETA while the kernel runs.
// The host makes no CUDA call while it polls: it reads host memory.
int run_demo(double seconds) {
  if (!gpu_info().available) {
    std::fprintf(stderr, "twinbench: --progress-demo needs a GPU: %s\n", gpu_info().status.c_str());
    return kDemoNoGpuStatus;
  }
  try {
    Stream stream;
    // Size the job: time one 4096^3 product (after a warm-up), then scale n by the cube root of
    // the time asked for, within the device memory free (three n x n matrices, a quarter spare).
    constexpr std::size_t kProbe = 4096;
    double per_probe = 0.0;
    {
      DeviceBuffer<float> a(kProbe * kProbe), b(kProbe * kProbe), c(kProbe * kProbe);
      gpu::live_fill_uniform(a.data(), kProbe * kProbe, 1, stream);
      gpu::live_fill_uniform(b.data(), kProbe * kProbe, 2, stream);
      gpu::sgemm_cuda_optimized(a.data(), b.data(), c.data(), kProbe, stream);
      Event start, stop;
      start.record(stream);
      gpu::sgemm_cuda_optimized(a.data(), b.data(), c.data(), kProbe, stream);
      stop.record(stream);
      stop.synchronize();
      per_probe = stop.seconds_since(start);
    }
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const double scale = std::cbrt(std::max(seconds, 0.1) / std::max(per_probe, 1e-6));
    std::size_t n = static_cast<std::size_t>(kProbe * scale) / 128 * 128;
    const auto fits = [&](std::size_t m) { return 3.0 * 4.0 * m * m <= 0.75 * free_bytes; };
    while (n > 128 && !fits(n)) n -= 128;
    n = std::max<std::size_t>(n, 128);
    DeviceBuffer<float> a(n * n), b(n * n), c(n * n);
    gpu::live_fill_uniform(a.data(), n * n, 1, stream);
    gpu::live_fill_uniform(b.data(), n * n, 2, stream);
    stream.synchronize();  // the operands are ready: the bar shows the product alone
    const std::size_t writers = gpu::sgemm_optimized_tiles(n);
    const std::uint64_t total = writers;
    const double expected = per_probe * std::pow(static_cast<double>(n) / kProbe, 3.0);
    std::fprintf(stderr,
                 "progress demo: C = A B at n = %zu in one kernel (about %.1f s); each of its "
                 "%zu blocks stores its finished tile into mapped host memory, the host sums "
                 "them\n",
                 n, expected, writers);
    // The library's host side (common/progress.hpp LiveProgress): slots, a poller thread with a
    // bar (rate, ETA), and completion from an event after the kernel.
    LiveProgress live(writers, total,
                      {.interval = std::chrono::milliseconds(10), .label = "sgemm tiles"});
    const auto t0 = std::chrono::steady_clock::now();
    gpu::sgemm_cuda_optimized_counted(a.data(), b.data(), c.data(), n, live.ref(), stream);
    live.watch(stream);
    const std::uint64_t final_count = live.wait();
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const PollStats ps = live.stats();
    std::fprintf(stderr,
                 "progress demo: done in %.2f s; the slots sum to %llu of %llu; the host saw %llu "
                 "distinct values (%.0f per second)\n",
                 elapsed, static_cast<unsigned long long>(final_count),
                 static_cast<unsigned long long>(total),
                 static_cast<unsigned long long>(ps.distinct),
                 elapsed > 0 ? ps.distinct / elapsed : 0.0);
    if (final_count != total) {
      std::fprintf(stderr, "progress demo: the count is wrong\n");
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "progress demo failed: %s\n", e.what());
    return 1;
  }
}

}  // namespace tb::progress
