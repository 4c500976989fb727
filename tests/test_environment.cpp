// Process-wide set-up of the test binary: what the twinbench binary does at the end of a run
// (release every workload's buffers, including the cached ones such as Thrust's scratch block
// and the L2 flush buffer) runs once after the last test, so that compute-sanitizer's leak check
// (scripts/gpu-sanitize.sh) sees nothing allocated at exit.
#include <gtest/gtest.h>

#include "common/harness.hpp"

namespace {

class ReleaseWorkloadMemory : public ::testing::Environment {
 public:
  void TearDown() override { tb::release_workload_memory(); }
};

const auto* const kRegistered = ::testing::AddGlobalTestEnvironment(new ReleaseWorkloadMemory);

}  // namespace
