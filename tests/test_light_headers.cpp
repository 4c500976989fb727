// The author-facing headers: a workload's cpu/ header states its seed, tolerance,
// sizes and work model without pulling in Google Benchmark, which belongs to the run machinery
// (common/harness.hpp). This file compiles only if none of them includes it.
#include "common/bench_spec.hpp"
// Every cpu/ header, listed by tests/CMakeLists.txt from a glob.
#include "tb_cpu_headers.inc"

#ifdef BENCHMARK_BENCHMARK_H_
#error "a cpu/ header (or common/bench_spec.hpp) includes Google Benchmark"
#endif

#include <gtest/gtest.h>

namespace tb {
namespace {

TEST(LightHeaders, CpuHeadersDescribeWorkWithoutGoogleBenchmark) {
  EXPECT_GT(vector_add::work(10).bytes(), 0.0);
  EXPECT_GT(sgemm::work(4).flops, 0.0);
}

}  // namespace
}  // namespace tb
