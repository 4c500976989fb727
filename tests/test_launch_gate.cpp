// The launch gate behind the harness's gated timing (common/gpu_timing.hpp): it must hold a
// stream until opened, time out rather than hang, and tell work that waits for the GPU apart
// from work that only enqueues.
#include <gtest/gtest.h>

#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include <chrono>
#include <thread>

#include "common/cuda_raii.hpp"
#include "common/gpu_timing.hpp"
#endif

namespace tb {
namespace {

#if TWINBENCH_HAVE_CUDA
unsigned read_word(const DeviceBuffer<unsigned>& d) {
  unsigned v = 0;
  CUDA_CHECK(cudaMemcpy(&v, d.data(), sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

TEST(LaunchGate, HoldsTheStreamUntilOpened) {
  TB_REQUIRE_GPU();
  Stream stream;
  DeviceBuffer<unsigned> word(1);
  CUDA_CHECK(cudaMemsetAsync(word.data(), 0, sizeof(unsigned), stream.get()));
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  LaunchGate gate;
  gate.close(stream.get());
  CUDA_CHECK(cudaMemsetAsync(word.data(), 0xFF, sizeof(unsigned), stream.get()));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(cudaStreamQuery(stream.get()), cudaErrorNotReady);
  gate.open();
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  EXPECT_FALSE(gate.timed_out());
  EXPECT_EQ(read_word(word), 0xFFFFFFFFu);
}

TEST(LaunchGate, TimesOutInsteadOfHanging) {
  TB_REQUIRE_GPU();
  Stream stream;
  LaunchGate gate;
  const auto t0 = std::chrono::steady_clock::now();
  gate.close(stream.get());
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(gate.timed_out());
  EXPECT_GE(waited, 0.9 * LaunchGate::kTimeoutNs * 1e-9);
  // Usable again after a timeout.
  gate.close(stream.get());
  gate.open();
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  EXPECT_FALSE(gate.timed_out());
}

TEST(LaunchGate, TellsEnqueueingWorkFromWorkThatWaits) {
  TB_REQUIRE_GPU();
  Stream stream;
  DeviceBuffer<unsigned> word(1);
  LaunchGate gate;
  auto enqueues = [&] {
    CUDA_CHECK(cudaMemsetAsync(word.data(), 1, sizeof(unsigned), stream.get()));
  };
  auto waits = [&] {
    CUDA_CHECK(cudaMemsetAsync(word.data(), 2, sizeof(unsigned), stream.get()));
    CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  };
  EXPECT_TRUE(queues_behind_gate(gate, stream.get(), enqueues));
  EXPECT_FALSE(queues_behind_gate(gate, stream.get(), waits));
  EXPECT_EQ(read_word(word), 0x02020202u);
}
#endif

}  // namespace
}  // namespace tb
