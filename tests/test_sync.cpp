#include <gtest/gtest.h>

#include <vector>

#include "cpu/sync.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/sync.hpp"
#endif

namespace tb::sync {
namespace {

TEST(Sync, SerialCallsCountEveryCall) {
  EXPECT_EQ(serial_calls(0), 0u);
  EXPECT_EQ(serial_calls(1), 1u);
  EXPECT_EQ(serial_calls(kLaunches), static_cast<std::uint64_t>(kLaunches));
}

TEST(Sync, OmpForkJoinCountsEveryRegion) {
  EXPECT_EQ(omp_fork_join(1), 1u);
  EXPECT_EQ(omp_fork_join(3), 3u);
}

#if TWINBENCH_HAVE_CUDA
unsigned read_counter(const DeviceBuffer<unsigned>& c) {
  unsigned v = 0;
  CUDA_CHECK(cudaMemcpy(&v, c.data(), sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

TEST(SyncGpu, IncrementCountsLaunches) {
  TB_REQUIRE_GPU();
  Stream s;
  DeviceBuffer<unsigned> c(1);
  for (int count : {1, 7, kLaunches}) {
    CUDA_CHECK(tb::test::memset_sync(c.data(), 0, sizeof(unsigned)));
    CUDA_CHECK(cudaDeviceSynchronize());
    gpu::sync_increment(c.data(), count, s);
    s.synchronize();
    EXPECT_EQ(read_counter(c), static_cast<unsigned>(count));
  }
}

TEST(SyncGpu, CapturedGraphReplaysEveryLaunch) {
  TB_REQUIRE_GPU();
  Stream s;
  DeviceBuffer<unsigned> c(1);
  CUDA_CHECK(tb::test::memset_sync(c.data(), 0, sizeof(unsigned)));
  CUDA_CHECK(cudaDeviceSynchronize());
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  gpu::sync_increment(c.data(), 50, s);
  CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  EXPECT_EQ(read_counter(c), 0u) << "capture must not run the kernels";
  for (int i = 0; i < 3; ++i) CUDA_CHECK(cudaGraphLaunch(exec, s));
  s.synchronize();
  EXPECT_EQ(read_counter(c), 150u);
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
}
#endif

}  // namespace
}  // namespace tb::sync
