#pragma once
// Shared test helpers: sizes that exercise the edges, the GPU skip, a temporary folder.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/gpu_context.hpp"
#if TWINBENCH_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace tb::test {

// 1, sizes that are not multiples of a block or of a float4, and one past a power of two.
inline std::vector<std::size_t> edge_sizes() {
  return {1, 3, 31, 255, 257, 1000, 4099, (1u << 16) + 7};
}
inline std::vector<int> test_blocks() { return {64, 256, 1024}; }

// TWINBENCH_TEST_REDUCED=1 (scripts/gpu-sanitize.sh sets it for racecheck, which runs kernels
// that use shared memory ~100x slower: on the H200 the progress and SGEMM tests alone ran past
// 165 s): the heaviest GPU tests keep one case of each kernel path and edge and drop their
// repeats at large sizes (reduced, racecheck over those two suites took 52 s there). Unset or
// 0, every case runs.
inline bool reduced() {
  const char* v = std::getenv("TWINBENCH_TEST_REDUCED");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

#if TWINBENCH_HAVE_CUDA
// cudaMemset runs on the legacy default stream, which does NOT order against the non-blocking
// streams the launchers use: a poison fill could land after (or during) the kernel under test.
// Tests fill through this, which waits for the fill to finish.
inline cudaError_t memset_sync(void* ptr, int value, std::size_t bytes) {
  const cudaError_t err = cudaMemset(ptr, value, bytes);
  return err != cudaSuccess ? err : cudaDeviceSynchronize();
}
#endif

// A fresh folder under the temp dir (named after `prefix`), removed with everything in it: the
// fake /sys trees of the host-environment and RAPL tests.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix) {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    root_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& root() const { return root_; }
  std::string path(const std::string& rel) const {
    return (std::filesystem::path(root_) / rel).string();
  }
  // Writes `text` to root/rel, creating the folders on the way.
  void write(const std::string& rel, const std::string& text) const {
    std::filesystem::create_directories(std::filesystem::path(path(rel)).parent_path());
    std::ofstream(path(rel)) << text;
  }

 private:
  std::string root_;
};

}  // namespace tb::test

// GPU tests skip where there is no device (CI); they run on the GPU machine. The reason goes
// with each skip (the test's output) and once per process on stderr: ctest prints only
// "***Skipped", and scripts/test.sh runs the binary with --gtest_brief, which hides skip messages.
namespace tb::test {
inline bool gpu_skip_reason_printed = false;
inline void announce_gpu_skip(const std::string& reason) {
  if (gpu_skip_reason_printed) return;
  gpu_skip_reason_printed = true;
  std::fprintf(stderr, "[  SKIPPED ] GPU tests skip on this machine: %s\n", reason.c_str());
}
}  // namespace tb::test

#define TB_REQUIRE_GPU()                                               \
  do {                                                                 \
    if (!::tb::gpu_info().available) {                                 \
      ::tb::test::announce_gpu_skip(::tb::gpu_info().status);          \
      GTEST_SKIP() << ::tb::gpu_info().status;                         \
    }                                                                  \
  } while (0)
