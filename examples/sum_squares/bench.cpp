// sum_squares: sum x_i^2 over float32, in float64. Reads 4 B an element; 2 FLOP an element.
#include <twinbench/twinbench.hpp>

#include "sum_squares.hpp"

void sum_squares_bench(twinbench::Bench& b) {
  for (std::size_t n : b.sizes({1 << 20, 1 << 26}, /*quick=*/1 << 16)) {
    twinbench::Case& c = b.add_case({{"n", n}});
    auto x = c.input<float>("x", n);
    // A scalar is a one-element output. Every term is positive: no cancellation, so a float64
    // sum in any order is within n * 2^-53 of the exact one; 1e-9 holds up to n = 2^26.
    auto sum = c.output<double>("sum", 1, {.rel = 1e-9});
    c.work({.read_bytes = 4.0 * n, .flops = 2.0 * n});
    c.reference([=] { *sum.ref() = sum_squares::serial(x.host(), n); });
    c.cpu("serial", [=] { *sum.host() = sum_squares::serial(x.host(), n); });
    c.cpu("omp", [=] { *sum.host() = sum_squares::omp(x.host(), n); }, {.threaded = true});
#if TWINBENCH_HAVE_CUDA
    c.gpu("cuda", [=](twinbench::Launch& l) {
      sum_squares::cuda(x.device(), n, sum.device(), l.block(), l.stream());
    }, {.stats = [n](const twinbench::Launch& l) { return sum_squares::cuda_stats(n, l.block()); }});
#endif
  }
}
TWINBENCH_BENCH("sum_squares", "sum of squares of float32 values: a reduction to one value",
                sum_squares_bench);
