// The start-up check's rule and the capability rule, on GPUs and builds this machine does not
// have: what runs where, and the reasons rows skip with.
#include <gtest/gtest.h>

#include "common/build_fit.hpp"
#include "common/capability.hpp"

namespace tb {
namespace {

TEST(BuildFit, ParsesCMakeArchitectureLists) {
  const auto archs = parse_cuda_architectures("75-real;80-virtual;90");
  ASSERT_EQ(archs.size(), 3u);
  EXPECT_EQ(archs[0].arch, 75);
  EXPECT_TRUE(archs[0].sass);
  EXPECT_FALSE(archs[0].ptx);
  EXPECT_FALSE(archs[1].sass);
  EXPECT_TRUE(archs[1].ptx);
  EXPECT_TRUE(archs[2].sass);
  EXPECT_TRUE(archs[2].ptx);
  EXPECT_TRUE(parse_cuda_architectures("native").empty());
}

TEST(BuildFit, SassOfTheSameMajorVersionRuns) {
  EXPECT_EQ(build_fit("90", 90).fit, CodeFit::sass);
  const BuildFit l4 = build_fit("75-real;80-real;90-real;90-virtual", 89);  // L4, RTX 40xx
  EXPECT_EQ(l4.fit, CodeFit::sass);
  EXPECT_EQ(l4.arch, 80);
  EXPECT_EQ(l4.text, "sm_80 SASS (runs on sm_89)");
  EXPECT_EQ(build_fit("75-real;80-real;90-real;90-virtual", 75).arch, 75);  // T4
}

TEST(BuildFit, PtxIsJitCompiledOnNewerGpus) {
  const BuildFit h200 = build_fit("80-virtual", 90);
  EXPECT_EQ(h200.fit, CodeFit::jit);
  EXPECT_EQ(h200.arch, 80);
  EXPECT_EQ(h200.text, "compute_80 PTX, JIT-compiled by the driver for sm_90");
  // A Blackwell GPU runs the portable set's compute_90 PTX.
  EXPECT_EQ(build_fit("75-real;80-real;90-real;90-virtual", 100).fit, CodeFit::jit);
  // SASS is preferred over PTX when both fit.
  EXPECT_EQ(build_fit("80-virtual;90-real", 90).fit, CodeFit::sass);
}

TEST(BuildFit, NoCodeForTheGpu) {
  EXPECT_EQ(build_fit("80-real", 90).fit, CodeFit::none);      // Ampere SASS on Hopper
  EXPECT_EQ(build_fit("90", 80).fit, CodeFit::none);           // Hopper code on an A100
  EXPECT_EQ(build_fit("90-virtual", 75).fit, CodeFit::none);   // PTX never runs on older GPUs
  EXPECT_EQ(build_fit("native", 90).fit, CodeFit::unknown);
}

TEST(BuildFit, TheNoCodeLineNamesTheBuildTheGpuAndTheRebuild) {
  const std::string line = no_code_message("80-real", "NVIDIA H200", 90);
  EXPECT_NE(line.find("'80-real'"), std::string::npos) << line;
  EXPECT_NE(line.find("NVIDIA H200 (compute capability 9.0)"), std::string::npos) << line;
  EXPECT_NE(line.find("-DCMAKE_CUDA_ARCHITECTURES=90"), std::string::npos) << line;
  EXPECT_NE(line.find("CUDA_ARCH=native scripts/run.sh"), std::string::npos) << line;
}

TEST(Capability, TheDeviceAndTheKernelsCodeDecide) {
  EXPECT_EQ(capability_missing(GpuFeature::none, 75, 75), "");
  EXPECT_EQ(capability_missing(GpuFeature::thread_block_clusters, 90, 90), "");
  EXPECT_EQ(capability_missing(GpuFeature::thread_block_clusters, 80, 80),
            "needs thread-block clusters (compute capability 9.0); this GPU is 8.0");
  EXPECT_EQ(capability_missing(GpuFeature::thread_block_clusters, 90, 80),
            "needs thread-block clusters (compute capability 9.0); this build's code for the "
            "kernel is compute_80");
  EXPECT_EQ(capability_missing(GpuFeature::bf16_tensor_cores, 75, 0),
            "needs BF16 tensor cores (compute capability 8.0); this GPU is 7.5");
  EXPECT_EQ(capability_missing(GpuFeature::cp_async, 86, 0), "");
  EXPECT_EQ(min_compute_capability(GpuFeature::tma_bulk_copy), 90);
}

}  // namespace
}  // namespace tb
