// lucas benchmarks: L(0..n) in int64. No inputs; bytes model: the n+1 int64 written. No FLOPs:
// items = the int64 additions each variant performs (recursive: F(i+1)-1 per index, ~phi^n in
// all; serial_iterative: n-1; cuda_iterative: i-1 per thread). n = 40 is the articles'; the sweep
// 20..90 shows where each wins (the recursive variants stop at 40: ~9e8 calls, growing x1.6
// per step).
#include "cpu/lucas.hpp"

#include <algorithm>
#include <cstdio>
#include <twinbench/twinbench.hpp>
#include <vector>
#if TWINBENCH_HAVE_CUDA
#include "gpu/lucas.hpp"
#endif

namespace tb::lucas {
namespace {

// n+1 threads at most: a block size whose first half would already cover them only adds empty
// warps, so the sweep stops at the first block that holds all the indices.
std::vector<int> useful_blocks(const std::vector<int>& sweep, int n) {
  std::vector<int> out;
  for (int block : sweep)
    if (out.empty() || block / 2 < n + 1) out.push_back(block);
  return out;
}

void lucas(twinbench::Bench& b) {
  std::vector<std::size_t> sizes = b.sizes({20, 30, 40, 50, 90}, kQuickN);
  // L(91) overflows int64: a larger --size runs n = 90, and says so (once).
  if (std::any_of(sizes.begin(), sizes.end(), [](std::size_t s) { return s > kMaxN; })) {
    std::fprintf(stderr,
                 "twinbench: lucas: n above %d overflows int64 (L(91) > 2^63): running n = %d\n",
                 kMaxN, kMaxN);
    for (std::size_t& s : sizes) s = std::min<std::size_t>(s, kMaxN);
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  }
  for (std::size_t size : sizes) {
    const int n = static_cast<int>(size);
    twinbench::Case& c = b.add_case({{"n", n}});
    // Exact: int64 values beyond 2^53, which a comparison through double cannot tell apart.
    auto out = c.output<std::int64_t>("L", n + 1);
    out.checked_by([=](const std::int64_t* got) {
      const ErrorStats e = check_sequence(got, out.ref(), n);
      return twinbench::Found{passes(e, kTolerance) ? "" : describe(e, kTolerance), e.max_abs,
                              e.max_rel};
    });
    c.reference([=] { serial_iterative(out.ref(), n); });
    // Each row's items are its own additions (the file comment).
    const twinbench::Work recursive = work(n, recursive_adds_upto(n));
    const bool recursive_runs = n <= kMaxRecursiveN;
    if (recursive_runs) {
      c.cpu("serial_recursive", [=] { serial_recursive(out.host(), n); },
            {.algorithm = "recursive", .work = recursive});
      c.cpu("omp_recursive", [=] { omp_recursive(out.host(), n); },
            {.algorithm = "recursive", .work = recursive, .threaded = true});
    }
    c.cpu("serial_iterative", [=] { serial_iterative(out.host(), n); },
          {.algorithm = "iterative", .work = work(n, n >= 2 ? n - 1 : 0)});
#if TWINBENCH_HAVE_CUDA
    const twinbench::Blocks blocks = twinbench::fixed(useful_blocks(b.block_sweep(), n));
    // mode:kernel only for the recursion: one launch at n = 40 runs for seconds (one thread
    // walks 3.3e8 calls), and the 328-byte download that e2e adds is lost in the noise.
    // The recursion on the GPU is one thread walking phi^n calls: 0.12 s at n = 30, 15 s
    // at n = 40 on the H200, too long for the default run's budget; --full runs it.
    if (recursive_runs && (b.full() || b.size_given() || n <= kDefaultMaxCudaRecursiveN))
      c.gpu("cuda_recursive",
            [=](twinbench::Launch& l) {
              gpu::lucas_cuda_recursive(out.device(), n, l.block(), l.stream());
            },
            {.algorithm = "recursive",
             .work = recursive,
             .blocks = blocks,
             .modes = twinbench::Modes::kernel_only,
             .stats = [n](const twinbench::Launch& l) {
               return gpu::lucas_cuda_recursive_stats(n, l.block());
             }});
    c.gpu("cuda_iterative",
          [=](twinbench::Launch& l) {
            gpu::lucas_cuda_iterative(out.device(), n, l.block(), l.stream());
          },
          {.algorithm = "iterative",
           .work = work(n, per_index_iterative_adds_upto(n)),
           .blocks = blocks,
           .stats = [n](const twinbench::Launch& l) {
             return gpu::lucas_cuda_iterative_stats(n, l.block());
           }});
#endif
  }
}

}  // namespace

TWINBENCH_BENCH("lucas", "Lucas numbers L(0..n), int64: exponential recursion vs iteration", lucas);

}  // namespace tb::lucas
