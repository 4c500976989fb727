// The author-facing headers (issue 31): a workload's cpu/ header states its seed, tolerance,
// sizes and work model without pulling in Google Benchmark, which belongs to the run machinery
// (common/harness.hpp). This file compiles only if none of them includes it.
#include "common/bench_spec.hpp"
#include "cpu/alloc.hpp"
#include "cpu/aos_soa.hpp"
#include "cpu/atomics.hpp"
#include "cpu/black_scholes.hpp"
#include "cpu/blas.hpp"
#include "cpu/conv2d.hpp"
#include "cpu/dot.hpp"
#include "cpu/dtypes.hpp"
#include "cpu/grayscale.hpp"
#include "cpu/lucas.hpp"
#include "cpu/nested_loop.hpp"
#include "cpu/nt_store.hpp"
#include "cpu/poisson.hpp"
#include "cpu/scan.hpp"
#include "cpu/sgemm.hpp"
#include "cpu/sgemm_libs.hpp"
#include "cpu/streaming.hpp"
#include "cpu/streams.hpp"
#include "cpu/sync.hpp"
#include "cpu/transfers.hpp"
#include "cpu/transpose.hpp"
#include "cpu/vector_add.hpp"
#include "cpu/vector_math.hpp"

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
