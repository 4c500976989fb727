// The typed description of a benchmark (common/bench_spec.hpp): the names it generates are
// today's, byte for byte (old results files load against them), and its fields are the row's.
#include <gtest/gtest.h>

#include "common/bench_spec.hpp"

namespace tb {
namespace {

TEST(BenchSpec, NamesAreTheSuitesFormatByteForByte) {
  EXPECT_EQ(bench_spec("vector_add", "cuda", {{"n", 268435456}, {"block", 256}})
                .in_mode(Mode::e2e)
                .name(),
            "vector_add/cuda/n:268435456/block:256/mode:e2e");
  EXPECT_EQ(bench_spec("grayscale", "cuda_article", {{"block", Block2{16, 8}}}).name(),
            "grayscale/cuda_article/block:16x8");
  EXPECT_EQ(bench_spec("dot", "omp", {{"n", 1048576}}).on_threads(16).name(),
            "dot/omp/n:1048576/threads:16");
  EXPECT_EQ(
      bench_spec("dtypes", "serial", {{"kernel", "fma"}, {"dtype", "fp16"}, {"n", 1024}, {"k", 64}})
          .name(),
      "dtypes/serial/kernel:fma/dtype:fp16/n:1024/k:64");
  EXPECT_EQ(bench_spec("sync", "omp_fork_join", {{"launches", 1000}}).on_threads(2).name(),
            "sync/omp_fork_join/launches:1000/threads:2");
  EXPECT_EQ(bench_spec("transpose", "cuda_copy", {{"rows", 8}, {"cols", 4}})
                .with_axis({"block", Block2{32, 8}})
                .name(),
            "transpose/cuda_copy/rows:8/cols:4/block:32x8");
  // Algorithm and precision are fields, not parts of the name.
  EXPECT_EQ(bench_spec("sgemm", "cublas_bf16", {{"n", 4096}})
                .in_mode(Mode::kernel)
                .in_precision("bf16")
                .of_algorithm("")
                .name(),
            "sgemm/cublas_bf16/n:4096/mode:kernel");
}

TEST(BenchSpec, FieldsCarryTheDescription) {
  BenchSpec s = bench_spec("lucas", "cuda_recursive", {{"n", 30}, {"block", 64}})
                    .in_mode(Mode::kernel)
                    .of_algorithm("recursive");
  s.side = Side::gpu;
  const auto f = s.fields();
  EXPECT_EQ(f.at("workload"), "lucas");
  EXPECT_EQ(f.at("impl"), "cuda_recursive");
  EXPECT_EQ(f.at("algorithm"), "recursive");
  EXPECT_EQ(f.at("side"), "gpu");
  EXPECT_EQ(f.at("mode"), "kernel");
  EXPECT_EQ(f.at("precision"), "");  // present and empty: the workload's own
  const auto cpu = bench_spec("lucas", "serial_iterative", {{"n", 30}}).fields();
  EXPECT_EQ(cpu.at("side"), "cpu");
  EXPECT_EQ(cpu.at("mode"), "");
}

TEST(BenchSpec, RegisteredNameDropsGoogleBenchmarksSuffixes) {
  EXPECT_EQ(registered_name_of("dot/cuda/n:1024/block:256/mode:kernel/manual_time"),
            "dot/cuda/n:1024/block:256/mode:kernel");
  EXPECT_EQ(registered_name_of("dot/omp/n:8/threads:2/manual_time/real_time"),
            "dot/omp/n:8/threads:2");
  EXPECT_EQ(registered_name_of("dot/serial/n:8"), "dot/serial/n:8");
  // A row without axes keeps its impl.
  EXPECT_EQ(registered_name_of("sync/serial_call/manual_time"), "sync/serial_call");
}

}  // namespace
}  // namespace tb
